package fmu

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mbfmu/solver"
	modelxml "mbfmu/xml"
)

// The elements' own continuous states (a DC motor's current, LuGre
// bristles, user <state>s) are continuous states of the FMU: local
// variables with their der(…), listed in <Derivatives> (FMI 2.0) and
// <ContinuousStateDerivative> (FMI 3.0), read with fmi2GetReal /
// fmi3GetFloat64 and knowns and unknowns of the directional derivatives.

// servoAxis is the example the tests pack: a DC motor (R = 1 Ω,
// L = 1 mH, k = 0.05 N·m/A, voltage −(V + V_ff)) on a rotor of
// 1e-4 kg·m², a geared, flexible drive train and a load with LuGre
// friction.
var servoAxis = filepath.Join("..", "examples", "servo-axis", "model.xml")

// servoInputs are the FMI 2.0 value references the servo axis had before
// its states were declared: inputs, outputs and parameters keep them.
var servoInputs = map[string]uint32{"V": 0, "V_ff": 1, "theta": 2, "omega": 3, "omega_m": 4, "current": 5,
	"R": 6, "Lm": 7, "k": 8, "N": 9, "k_mesh": 10, "play": 11, "k_shaft": 12, "c_shaft": 13, "T_fric": 14}

// packServo packs the servo axis for FMI version v with the runtime
// library mbfmu pack would use (or ../bin's), unpacks modelDescription.xml
// and resources/model.xml into a directory and returns it with the
// description. Without a runtime library it writes what Pack writes there
// (Describe's XML, the model file).
func packServo(t *testing.T, v int) (dir string, md []byte) {
	t.Helper()
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "resources"), 0o755); err != nil {
		t.Fatal(err)
	}
	lib, err := FindRuntime()
	if err != nil {
		lib = filepath.Join("..", "bin", RuntimeLibName)
	}
	out := filepath.Join(dir, "s.fmu")
	if _, err := os.Stat(lib); err == nil {
		if _, err := PackVersion(servoAxis, out, lib, v); err != nil {
			t.Logf("packing with %s: %v (the description is Describe's)", lib, err)
		} else {
			zr, err := zip.OpenReader(out)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			for _, f := range zr.File {
				var dst string
				switch f.Name {
				case "modelDescription.xml":
				case "resources/" + ModelFileName:
					dst = filepath.Join(dir, "resources", ModelFileName)
				default:
					continue
				}
				r, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(r)
				r.Close()
				if err != nil {
					t.Fatal(err)
				}
				if dst == "" {
					md = b
				} else if err := os.WriteFile(dst, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if md == nil {
				t.Fatal("no modelDescription.xml in the FMU")
			}
			t.Logf("packed %s as FMI %d.0 with %s", servoAxis, v, lib)
			return dir, md
		}
	}
	data, err := os.ReadFile(servoAxis)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "resources", ModelFileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Describe(servoAxis)
	if err != nil {
		t.Fatal(err)
	}
	if v == 3 {
		return dir, d.XML3()
	}
	return dir, d.XML()
}

// instantiateDir instantiates the unpacked FMU in dir (FMI version v) and
// initialises it.
func instantiateDir(t *testing.T, dir string, v int) *Instance {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "resources", ModelFileName))
	if err != nil {
		t.Fatal(err)
	}
	in, err := Instantiate(Config{InstanceName: "servo", GUID: GUID(data), ResourceLocation: filepath.Join(dir, "resources"), FMIVersion: v})
	if err != nil {
		t.Fatal(err)
	}
	startInstance(t, in)
	return in
}

// esVar is what the tests read of an FMI 2.0 ScalarVariable.
type esVar struct {
	Name        string `xml:"name,attr"`
	VR          uint32 `xml:"valueReference,attr"`
	Causality   string `xml:"causality,attr"`
	Variability string `xml:"variability,attr"`
	Real        struct {
		Unit       string `xml:"unit,attr"`
		Derivative int    `xml:"derivative,attr"`
	} `xml:"Real"`
}

type esMD struct {
	Vars   []esVar `xml:"ModelVariables>ScalarVariable"`
	Derivs []struct {
		Index int     `xml:"index,attr"`
		Deps  *string `xml:"dependencies,attr"`
	} `xml:"ModelStructure>Derivatives>Unknown"`
	Outputs []struct {
		Index int    `xml:"index,attr"`
		Deps  string `xml:"dependencies,attr"`
	} `xml:"ModelStructure>Outputs>Unknown"`
}

// servoRun sets V = 1.5 V after initialisation and takes 100 steps of
// 1 ms (a current below the limit of 10 A, the motor accelerating).
func servoRun(t *testing.T, in *Instance) {
	t.Helper()
	must(t, in.SetReal(varRefs(t, in, "V"), []float64{1.5}), "SetReal V")
	doSteps(t, in, 0, 100, 1e-3)
}

// TestElementStatesFMI2 packs examples/servo-axis: the motor's current
// and the bearing's bristle deflection are continuous states (local,
// continuous, their units) with der(…) variables whose derivative
// attribute names them, listed in <Derivatives> with every state and
// input as dependencies (attribute omitted), and among what the outputs
// depend on; inputs, outputs and parameters keep their value references.
// fmi2GetReal of the current equals the engine's state (a run of package
// solver alone, bit for bit, and the output reading it); of its der(…)
// the closed form L di/dt = V_m − R i − k ω_m and the output's derivative
// along the motion; the directional derivatives with respect to the
// current equal central differences of the state derivatives and outputs
// with the state's current moved, the closed forms ∂i̇/∂i = −R/L,
// ∂ω̇_m/∂i = k/J_m, and the current's row and column of
// solver.Model.Linearize's A.
func TestElementStatesFMI2(t *testing.T) {
	dir, md := packServo(t, 2)
	checkModelDescription(t, md)
	validateXSD(t, md)
	var m esMD
	if err := xml.Unmarshal(md, &m); err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{} // 1-based
	for i, v := range m.Vars {
		idx[v.Name] = i + 1
	}
	for name, vr := range servoInputs {
		if k := idx[name]; k == 0 || m.Vars[k-1].VR != vr {
			t.Errorf("%s: value reference moved (want %d)", name, vr)
		}
	}
	var derivs []int
	for _, u := range m.Derivs {
		derivs = append(derivs, u.Index)
		if k := m.Vars[u.Index-1].Name; strings.HasPrefix(k, "der(dc.") || strings.HasPrefix(k, "der(bearing.") {
			if u.Deps != nil {
				t.Errorf("<Derivatives> %s: dependencies %q, want the attribute omitted (every state and input)", k, *u.Deps)
			}
		}
	}
	for _, c := range []struct{ state, unit string }{{"dc.current", "A"}, {"bearing.bristle", "rad"}} {
		s, d := idx[c.state], idx["der("+c.state+")"]
		if s == 0 || d == 0 {
			t.Fatalf("%s or its der(…) not declared", c.state)
		}
		sv, dv := m.Vars[s-1], m.Vars[d-1]
		if sv.Causality != "local" || sv.Variability != "continuous" || sv.Real.Unit != c.unit {
			t.Errorf("%s: %+v", c.state, sv)
		}
		if dv.Causality != "local" || dv.Real.Derivative != s || dv.Real.Unit != solver.PerSecond(c.unit) {
			t.Errorf("der(%s): %+v, want derivative=%d", c.state, dv, s)
		}
		if !slices.Contains(derivs, d) {
			t.Errorf("der(%s) (index %d) not in <Derivatives> %v", c.state, d, derivs)
		}
		for _, o := range m.Outputs {
			if !slices.Contains(strings.Fields(o.Deps), strconv.Itoa(s)) {
				t.Errorf("output %d does not depend on %s", o.Index, c.state)
			}
		}
	}
	t.Logf("dc.current: index %d, value reference %d; der(dc.current): index %d, value reference %d; %d variables, %d <Derivatives>",
		idx["dc.current"], m.Vars[idx["dc.current"]-1].VR, idx["der(dc.current)"], m.Vars[idx["der(dc.current)"]-1].VR, len(m.Vars), len(m.Derivs))

	in := instantiateDir(t, dir, 2)
	servoRun(t, in)
	vrs := varRefs(t, in, "dc.current", "der(dc.current)", "current", "omega_m")
	got := getReal(t, in, vrs...)
	i, di, iOut, wm := got[0], got[1], got[2], got[3]

	// the engine alone, the same steps
	data, err := os.ReadFile(filepath.Join(dir, "resources", ModelFileName))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := modelxml.Parse(data, "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	em, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	es := em.NewState()
	if err := em.Init(es); err != nil {
		t.Fatal(err)
	}
	es.AnchorGrid()
	es.SetInput(0, 1.5)
	for k := 1; k <= 100; k++ {
		if err := em.AdvanceTo(es, 0+float64(k)*1e-3); err != nil {
			t.Fatal(err)
		}
	}
	q, _ := em.StateVars()
	e := make([]float64, em.NumElementStates())
	es.ElementStates(e)
	ki := slices.IndexFunc(q, func(x solver.StateVar) bool { return x.Name == "dc.current" }) - em.NumCoords()
	if math.Float64bits(e[ki]) != math.Float64bits(i) || math.Float64bits(iOut) != math.Float64bits(i) {
		t.Errorf("dc.current = %.17g; engine alone %.17g, output current %.17g", i, e[ki], iOut)
	}
	// der(dc.current): L di/dt = −(V + V_ff) − R i − k ω_m
	const R, L, k, Jm = 1.0, 1e-3, 0.05, 1e-4
	want := (-1.5 - R*i - k*wm) / L
	if math.Abs(di-want) > 1e-9*math.Abs(want) {
		t.Errorf("der(dc.current) = %.15g, closed form %.15g", di, want)
	}
	od := make([]float64, 1)
	must(t, in.GetRealOutputDerivatives(vrs[2:3], []int32{1}, od), "output derivative")
	if math.Abs(od[0]-di) > 1e-6*math.Abs(di) {
		t.Errorf("der(dc.current) = %.12g, derivative of the output current along the motion %.12g", di, od[0])
	}
	t.Logf("t = 0.1 s: i = %.9g A, der(dc.current) = %.9g A/s, closed form %.9g (difference %.2g), output derivative %.9g", i, di, want, di-want, od[0])

	// directional derivatives with respect to the current
	var accNames []string
	for _, v := range in.desc.Variables {
		if v.Local == LocalAcceleration {
			accNames = append(accNames, v.Name)
		}
	}
	nv := len(accNames)
	unk := varRefs(t, in, append([]string{"der(dc.current)", "current", "der(bearing.bristle)"}, accNames...)...)
	jcol := make([]float64, len(unk))
	must(t, in.GetDirectionalDerivative(unk, vrs[:1], []float64{1}, jcol), "directional derivative")
	rotor := slices.Index(accNames, "der(der(rotor.angle))")
	if rotor < 0 {
		t.Fatalf("no rotor acceleration among %v", accNames)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"∂i̇/∂i", jcol[0], -R / L}, {"∂current/∂i", jcol[1], 1}, {"∂ω̇_m/∂i", jcol[3+rotor], k / Jm}} {
		if math.Abs(c.got-c.want) > 1e-7*math.Abs(c.want) {
			t.Errorf("%s = %.12g, closed form %.12g", c.what, c.got, c.want)
		}
	}
	// central differences with the state's current moved
	ss := in.state.(*solverState).s
	ne := em.NumElementStates()
	nq := em.NumCoords()
	e0 := make([]float64, ne)
	ss.ElementStates(e0)
	before, _ := ss.MarshalBinary()
	h := 1e-6 * (1 + math.Abs(e0[ki]))
	fd := make([]float64, len(unk))
	dq, dv, y := make([]float64, nq+ne), make([]float64, nv), make([]float64, len(in.outputs))
	iCur := slices.IndexFunc(in.desc.Variables, func(v Variable) bool { return v.Name == "current" })
	kb := slices.IndexFunc(q, func(x solver.StateVar) bool { return x.Name == "bearing.bristle" })
	for _, sg := range []float64{1, -1} {
		e := slices.Clone(e0)
		e[ki] += sg * h
		ss.SetElementStates(e)
		if err := in.model.stateDerivatives(in.state, dq, dv); err != nil {
			t.Fatal(err)
		}
		in.model.evalOutputs(in.state, y)
		f := append([]float64{dq[nq+ki], y[in.desc.Variables[iCur].Index], dq[kb]}, dv...)
		for r := range fd {
			fd[r] += sg * f[r] / (2 * h)
		}
	}
	ss.SetElementStates(e0)
	if after, _ := ss.MarshalBinary(); string(after) != string(before) {
		t.Fatal("the state was not restored")
	}
	worst := 0.0
	for r := range fd {
		e := math.Abs(jcol[r]-fd[r]) / math.Max(1e-9, math.Abs(fd[r]))
		if math.Abs(fd[r]) < 1e-9 {
			e = math.Abs(jcol[r] - fd[r])
		}
		worst = math.Max(worst, e)
		if e > 1e-6 {
			t.Errorf("unknown %d (value reference %d): directional %.12g, central differences %.12g", r, unk[r], jcol[r], fd[r])
		}
	}
	t.Logf("∂/∂i: der(dc.current) %.12g, der(der(rotor.angle)) %.12g; largest relative difference to central differences %.2g", jcol[0], jcol[3+rotor], worst)

	// Linearize's A: the current's column (Nᵀ ∂a, ∂i̇) and row (∂i̇ along
	// the velocity directions of the tangent space)
	lin, err := in.model.(*solverModel).m.Linearize(ss)
	if err != nil {
		t.Fatal(err)
	}
	_, nf := lin.N.Dims()
	kl := slices.Index(lin.States, "dc.current")
	if kl < 0 {
		t.Fatalf("Linearize's element states %v", lin.States)
	}
	ce := 2*nf + kl
	worst = 0
	cmp := func(what string, got, want float64) {
		t.Helper()
		e := math.Abs(got-want) / math.Max(1, math.Abs(want))
		worst = math.Max(worst, e)
		if e > 1e-6 {
			t.Errorf("%s: directional %.12g, Linearize %.12g", what, got, want)
		}
	}
	cmp("A[i, i]", jcol[0], lin.A.At(ce, ce))
	for r := 0; r < nf; r++ {
		nta := 0.0
		for j := 0; j < nv; j++ {
			nta += lin.N.At(j, r) * jcol[3+j]
		}
		cmp("A[w"+strconv.Itoa(r)+", i]", nta, lin.A.At(nf+r, ce))
	}
	vel := make([]uint32, nv)
	for j := range vel {
		vel[j] = in.desc.Variables[slices.IndexFunc(in.desc.Variables, func(v Variable) bool { return v.Local == LocalVelocity && v.Index == j })].VR
	}
	seed, row := make([]float64, nv), make([]float64, 1)
	for c := 0; c < nf; c++ {
		for j := range seed {
			seed[j] = lin.N.At(j, c)
		}
		must(t, in.GetDirectionalDerivative(unk[:1], vel, seed, row), "directional derivative along N")
		cmp("A[i, w"+strconv.Itoa(c)+"]", row[0], lin.A.At(ce, nf+c))
	}
	t.Logf("Linearize: %d×%d A, element states %v; A[i, i] = %.12g; largest relative difference to the directional derivatives %.2g", 2*nf+len(lin.States), 2*nf+len(lin.States), lin.States, lin.A.At(ce, ce), worst)
	if again := getReal(t, in, vrs...); !slices.Equal(again, got) {
		t.Errorf("values changed by the derivatives: %v, were %v", again, got)
	}
}

// TestElementStatesFMI3: the FMI 3.0 description declares the current
// and its der(…) (derivative = the current's value reference, the same as
// FMI 2.0's) with a <ContinuousStateDerivative> without dependencies;
// fmi3GetFloat64 gives the FMI 2.0 instance's values bit for bit, and
// fmi3GetDirectionalDerivative and fmi3GetAdjointDerivative ∂i̇/∂i = −R/L.
func TestElementStatesFMI3(t *testing.T) {
	dir, md := packServo(t, 3)
	d, err := Describe(servoAxis)
	if err != nil {
		t.Fatal(err)
	}
	check3(t, d)
	var m struct {
		Vars []struct {
			Name       string  `xml:"name,attr"`
			VR         uint32  `xml:"valueReference,attr"`
			Causality  string  `xml:"causality,attr"`
			Unit       string  `xml:"unit,attr"`
			Derivative *uint32 `xml:"derivative,attr"`
		} `xml:"ModelVariables>Float64"`
		Derivs []struct {
			VR   uint32  `xml:"valueReference,attr"`
			Deps *string `xml:"dependencies,attr"`
		} `xml:"ModelStructure>ContinuousStateDerivative"`
	}
	if err := xml.Unmarshal(md, &m); err != nil {
		t.Fatal(err)
	}
	vr := map[string]uint32{}
	var der *uint32
	for _, v := range m.Vars {
		vr[v.Name] = v.VR
		switch v.Name {
		case "dc.current":
			if v.Causality != "local" || v.Unit != "A" {
				t.Errorf("dc.current: %+v", v)
			}
		case "der(dc.current)":
			der = v.Derivative
		}
	}
	want := varRefs(t, &Instance{desc: d}, "dc.current", "der(dc.current)")
	if vr["dc.current"] != want[0] || vr["der(dc.current)"] != want[1] || der == nil || *der != want[0] {
		t.Fatalf("FMI 3.0: dc.current VR %d, der(dc.current) VR %d derivative %v; FMI 2.0 VRs %v", vr["dc.current"], vr["der(dc.current)"], der, want)
	}
	listed := false
	for _, u := range m.Derivs {
		if u.VR == want[1] {
			listed = u.Deps == nil
		}
	}
	if !listed {
		t.Errorf("no <ContinuousStateDerivative valueReference=\"%d\"/> without dependencies", want[1])
	}

	in3 := instantiateDir(t, dir, 3)
	in2 := instantiateDir(t, dir, 2)
	servoRun(t, in2)
	servoRun(t, in3)
	v3 := make([]float64, 2)
	must(t, in3.GetFloat64(want, v3), "GetFloat64")
	v2 := getReal(t, in2, want...)
	if math.Float64bits(v3[0]) != math.Float64bits(v2[0]) || math.Float64bits(v3[1]) != math.Float64bits(v2[1]) {
		t.Errorf("FMI 3.0 %v, FMI 2.0 %v", v3, v2)
	}
	s := make([]float64, 1)
	must(t, in3.GetDirectionalDerivative3(want[1:], want[:1], []float64{1}, s), "fmi3GetDirectionalDerivative")
	a := make([]float64, 1)
	must(t, in3.GetAdjointDerivative(want[1:], want[:1], []float64{1}, a), "fmi3GetAdjointDerivative")
	if math.Abs(s[0]+1000) > 1e-7*1000 || a[0] != s[0] {
		t.Errorf("∂i̇/∂i: directional %.12g, adjoint %.12g, want −R/L = −1000", s[0], a[0])
	}
	t.Logf("FMI 3.0: dc.current = %.9g A (VR %d), der(dc.current) = %.9g A/s (VR %d); ∂i̇/∂i = %.12g", v3[0], want[0], v3[1], want[1], s[0])
}

// TestElementStatesExamples: in every example model, each element state
// the engine has (solver.Model.StateVars) is a declared state with its
// der(…), and the <Derivatives> count every state once.
func TestElementStatesExamples(t *testing.T) {
	for _, name := range []string{"servo-axis", "truck-tipping", "robot-arm-geared"} {
		path := filepath.Join("..", "examples", name, "model.xml")
		d, err := Describe(path)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := modelxml.LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := solver.Compile(ms, solver.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		q, v := m.StateVars()
		byName := map[string]*Variable{}
		nstates := 0
		for i := range d.Variables {
			byName[d.Variables[i].Name] = &d.Variables[i]
			if d.Variables[i].IsState() {
				nstates++
			}
		}
		var names []string
		for _, x := range q {
			if !x.Element {
				continue
			}
			names = append(names, x.Name)
			s, dx := byName[x.Name], byName["der("+x.Name+")"]
			if s == nil || dx == nil || s.Local != LocalElementState || s.Unit != x.Unit || dx.Local != LocalElementRate || int(dx.Derivative) != slices.Index(d.Variables, *s)+1 {
				t.Errorf("%s: element state %s declared as %+v, its der(…) %+v", name, x.Name, s, dx)
			}
		}
		if len(names) == 0 || nstates != len(q)+len(v) || len(d.derivs) != nstates {
			t.Errorf("%s: %d states declared, %d <Derivatives>; the engine has %d (element states %v)", name, nstates, len(d.derivs), len(q)+len(v), names)
		}
		t.Logf("%s: %d continuous states, element states %v", name, nstates, names)
	}
}

// TestElementStatesRecompiled: a fixed parameter that keeps the element
// states (the servo axis' inductance doubled) keeps them readable, with
// the rate of the recompiled model; one that removes them (inductance 0:
// the current follows the voltage at once, no state) makes the states
// unavailable with a message, and stepping goes on.
func TestElementStatesRecompiled(t *testing.T) {
	dir, _ := packServo(t, 2)
	data, err := os.ReadFile(filepath.Join(dir, "resources", ModelFileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, lm := range []float64{2e-3, 0} {
		l := &testLog{}
		in, err := Instantiate(Config{InstanceName: "servo", GUID: GUID(data), ResourceLocation: filepath.Join(dir, "resources"), Logger: l.logger()})
		if err != nil {
			t.Fatal(err)
		}
		must(t, in.SetupExperiment(false, 0, 0, false, 0), "setup")
		must(t, in.EnterInitializationMode(), "enter")
		must(t, in.SetReal(varRefs(t, in, "Lm"), []float64{lm}), "SetReal Lm")
		must(t, in.ExitInitializationMode(), "exit")
		servoRun(t, in)
		vrs := varRefs(t, in, "dc.current", "der(dc.current)", "omega_m")
		v := make([]float64, 3)
		st := in.GetReal(vrs, v)
		if lm == 0 {
			if st != Error || !l.has("motor's inductance") {
				t.Errorf("Lm = 0: GetReal of the current %s, log %v", st, l)
			}
			continue
		}
		must(t, st, "GetReal")
		if want := (-1.5 - v[0] - 0.05*v[2]) / lm; math.Abs(v[1]-want) > 1e-9*math.Abs(want) {
			t.Errorf("Lm = %g: der(dc.current) = %.15g, closed form %.15g", lm, v[1], want)
		}
	}
}
