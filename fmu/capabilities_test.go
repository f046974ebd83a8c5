package fmu

import (
	"bytes"
	"encoding/xml"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// fmi2CoSimFlags are the capability attributes of <CoSimulation> in FMI
// 2.0 (section 4.3.1) with the value an absent attribute means.
var fmi2CoSimFlags = map[string]string{
	"needsExecutionTool":                     "false",
	"canHandleVariableCommunicationStepSize": "false",
	"canInterpolateInputs":                   "false",
	"maxOutputDerivativeOrder":               "0",
	"canRunAsynchronuously":                  "false",
	"canBeInstantiatedOnlyOncePerProcess":    "false",
	"canNotUseMemoryManagementFunctions":     "false",
	"canGetAndSetFMUstate":                   "false",
	"canSerializeFMUstate":                   "false",
	"providesDirectionalDerivative":          "false",
}

// coSimAttrs returns the attributes of the <CoSimulation> element of a
// modelDescription.xml.
func coSimAttrs(t *testing.T, data []byte) map[string]string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("modelDescription.xml has no <CoSimulation>: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "CoSimulation" {
			attrs := map[string]string{}
			for _, a := range se.Attr {
				attrs[a.Name.Local] = a.Value
			}
			return attrs
		}
	}
}

// TestCapabilityFlagsHold reads the capability flags of the generated
// modelDescription.xml (as mbfmu pack writes it, for the test pendulum on
// generalized-α and on RK4) and checks each one against what the FMU does:
// a capability declared true is exercised and its result compared with an
// independent reference (a rerun, a fresh instance, a fixed-step run,
// finite differences); a capability declared false (or absent: FMI's
// default) must be refused with fmi2Error by the functions it governs. A
// flag that the generator starts writing, or whose value changes, fails
// here until the behaviour matches it.
func TestCapabilityFlagsHold(t *testing.T) {
	var flags map[string]string
	for _, model := range []string{"pendulum.xml", "pendulum_rk4.xml"} {
		d, err := Describe(filepath.Join("testdata", model))
		if err != nil {
			t.Fatal(err)
		}
		f := coSimAttrs(t, d.XML())
		if f["modelIdentifier"] != d.ModelIdentifier {
			t.Errorf("%s: modelIdentifier %q, want %q", model, f["modelIdentifier"], d.ModelIdentifier)
		}
		delete(f, "modelIdentifier")
		if flags != nil && !maps.Equal(f, flags) {
			t.Errorf("%s declares %v, another model %v: the capabilities are the engine's", model, f, flags)
		}
		flags = f
	}
	for name, v := range flags {
		if _, ok := fmi2CoSimFlags[name]; !ok {
			t.Errorf("<CoSimulation %s=%q>: not an FMI 2.0 co-simulation attribute", name, v)
		}
	}
	checks := map[string]func(t *testing.T, v string){
		"needsExecutionTool":                     checkNeedsExecutionTool,
		"canHandleVariableCommunicationStepSize": checkVariableStep,
		"canInterpolateInputs":                   checkInterpolateInputs,
		"maxOutputDerivativeOrder":               checkOutputDerivatives,
		"canRunAsynchronuously":                  checkAsynchronous,
		"canBeInstantiatedOnlyOncePerProcess":    checkInstantiatedOnce,
		"canNotUseMemoryManagementFunctions":     checkNoMemoryFunctions,
		"canGetAndSetFMUstate":                   checkGetSetState,
		"canSerializeFMUstate":                   checkSerializeState,
		"providesDirectionalDerivative":          checkDirectionalDerivative,
	}
	for _, name := range slices.Sorted(maps.Keys(fmi2CoSimFlags)) {
		v, ok := flags[name]
		if !ok {
			v = fmi2CoSimFlags[name]
		}
		t.Run(name+"="+v, func(t *testing.T) { checks[name](t, v) })
	}
}

// boolFlag returns the value of a boolean flag; any other value fails.
func boolFlag(t *testing.T, v string) bool {
	t.Helper()
	b, err := strconv.ParseBool(v)
	if err != nil || (v != "true" && v != "false") {
		t.Fatalf("value %q: want true or false", v)
	}
	return b
}

// pendulumModel and pendulumRK4 are the test pendulum on generalized-α
// (with acceleration history: the harder case for states and step sizes)
// and on RK4 (whose state carries the accelerations of the equations of
// motion, so difference quotients along the motion are accurate).
var (
	pendulumModel = filepath.Join("testdata", "pendulum.xml")
	pendulumRK4   = filepath.Join("testdata", "pendulum_rk4.xml")
)

// startedModel instantiates and initialises a model file.
func startedModel(t *testing.T, path string) (*Instance, map[string]uint32) {
	t.Helper()
	in, vr := newModelInstance(t, path)
	startInstance(t, in)
	return in, vr
}

// drive is the input torque of step k of the runs below.
func drive(k int) float64 { return 0.3*math.Sin(0.37*float64(k)) + 0.05 }

// drivenRun takes n steps of h from the instance's time with tau =
// drive(k) for k = k0 … k0+n−1, setting the tunable damping c to
// 0.4 + k0/100 before step k0+10, and returns the outputs after each step.
func drivenRun(t *testing.T, in *Instance, k0, n int, h float64) [][]float64 {
	t.Helper()
	var out [][]float64
	for k := k0; k < k0+n; k++ {
		must(t, in.SetReal([]uint32{pvTau}, []float64{drive(k)}), "tau")
		if k == k0+10 {
			must(t, in.SetReal([]uint32{pvC}, []float64{0.4 + float64(k0)/100}), "c")
		}
		if st := in.DoStep(in.Time(), h, false); st != OK {
			t.Fatalf("step %d at t = %g: %s", k, in.Time(), st)
		}
		out = append(out, getReal(t, in, pvTipX, pvTipY, pvOmega))
	}
	return out
}

// needsExecutionTool=false: the FMU runs from its own files. The instance
// is made from a folder that holds resources/model.xml and nothing else,
// no tool is named or started, and it steps.
func checkNeedsExecutionTool(t *testing.T, v string) {
	if boolFlag(t, v) {
		t.Fatal("declared true, but the FMU needs no tool: nothing could check what it would need")
	}
	dir, guid := unpacked(t, "pendulum.xml")
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if !slices.Equal(files, []string{"resources/" + ModelFileName}) {
		t.Fatalf("FMU folder holds %v", files)
	}
	in, err := Instantiate(Config{GUID: guid, ResourceLocation: filepath.Join(dir, "resources")})
	if err != nil {
		t.Fatal(err)
	}
	startInstance(t, in)
	drivenRun(t, in, 0, 5, 0.01)
}

// canHandleVariableCommunicationStepSize=true: communication steps of
// varying size give the motion of the model. With every communication
// point on the model's 1 ms grid (steps of 3, 1, 7, 2, 5, 10, 4, 1, 1 and
// 6 ms) the generalized-α pendulum's outputs equal, bit for bit, those of
// a master stepping 1 ms at a time with the same inputs; with points off
// the grid (pairs such as 0.4 + 0.6 ms and 2.3 + 1.7 ms) the RK4
// pendulum's agree with it at the end of each pair within the integrator's
// error. Declared false, a step of another size than the first must be
// refused.
func checkVariableStep(t *testing.T, v string) {
	if !boolFlag(t, v) {
		in, _ := startedModel(t, pendulumModel)
		must(t, in.DoStep(0, 1e-3, true), "first step")
		if st := in.DoStep(1e-3, 2e-3, true); st != Error {
			t.Errorf("declared false, a step of another size returned %s, want fmi2Error", st)
		}
		return
	}
	// fixed returns the outputs of a 1 ms master at the whole milliseconds
	// in at, the input set to drive(i) at at[i-1] (at[-1] = 0).
	fixed := func(model string, at []int) map[int][]float64 {
		in, _ := startedModel(t, model)
		out := map[int][]float64{}
		i, from := 0, 0 // the input's index and when it was set
		for ms := 0; ms < at[len(at)-1]; ms++ {
			if ms == from {
				must(t, in.SetReal([]uint32{pvTau}, []float64{drive(i)}), "tau")
			}
			must(t, in.DoStep(float64(ms)*1e-3, 1e-3, true), "fixed step")
			if ms+1 == at[i] {
				out[at[i]] = getReal(t, in, pvTipX, pvTipY, pvOmega)
				i, from = i+1, at[i]
			}
		}
		return out
	}
	// on the grid: bit for bit
	var at []int
	ms := 0
	for range 12 {
		for _, s := range []int{3, 1, 7, 2, 5, 10, 4, 1, 1, 6} {
			ms += s
			at = append(at, ms)
		}
	}
	ref := fixed(pendulumModel, at)
	in, _ := startedModel(t, pendulumModel)
	prev := 0
	for i, end := range at {
		must(t, in.SetReal([]uint32{pvTau}, []float64{drive(i)}), "tau")
		if st := in.DoStep(float64(prev)*1e-3, float64(end-prev)*1e-3, true); st != OK {
			t.Fatalf("step %d of %d ms: %s", i, end-prev, st)
		}
		got := getReal(t, in, pvTipX, pvTipY, pvOmega)
		if !sameBits([][]float64{got}, [][]float64{ref[end]}) {
			t.Fatalf("at %d ms after a step of %d ms: %v, the 1 ms master %v", end, end-prev, got, ref[end])
		}
		prev = end
	}
	// off the grid: within the integrator's error
	pairs := [][2]float64{{0.4, 0.6}, {2.3, 1.7}, {0.25, 2.75}, {1.9, 0.1}, {3.5, 0.5}, {0.05, 0.95}}
	at, ms = nil, 0
	for range 20 {
		for _, p := range pairs {
			ms += int(math.Round(p[0] + p[1]))
			at = append(at, ms)
		}
	}
	ref = fixed(pendulumRK4, at)
	in, _ = startedModel(t, pendulumRK4)
	tc, worst := 0.0, 0.0
	for i, end := range at {
		must(t, in.SetReal([]uint32{pvTau}, []float64{drive(i)}), "tau")
		p := pairs[i%len(pairs)]
		for _, h := range p {
			if st := in.DoStep(tc, h*1e-3, true); st != OK {
				t.Fatalf("step of %g ms at %g s: %s", h, tc, st)
			}
			tc += h * 1e-3
		}
		if math.Abs(in.Time()-float64(end)*1e-3) > 1e-12 {
			t.Fatalf("time %.17g after the steps, want %g ms", in.Time(), float64(end))
		}
		got := getReal(t, in, pvTipX, pvTipY, pvOmega)
		for j := range got {
			worst = math.Max(worst, math.Abs(got[j]-ref[end][j]))
		}
	}
	// On RK4, whose error at 1 ms is of order 1e-11 here, other step
	// sizes change the outputs within that error, far below what a step
	// not taken as asked would (the tip moves some 1e-4 m per 0.1 ms).
	t.Logf("off-grid steps: largest difference from the 1 ms master %.3g", worst)
	if worst > 1e-9 {
		t.Errorf("off-grid steps differ from the 1 ms master by %.3g (> 1e-9)", worst)
	}
}

// canInterpolateInputs=true: an input given with its first or second time
// derivative (fmi2SetRealInputDerivatives) follows u + u̇τ + ½üτ² during
// the step and holds the value reached afterwards. Reference: the same
// 20 ms (and the next 20 ms) in 400 short steps with the input held at the
// polynomial's value at each short step's midpoint. The interpolated step
// must be at least 100 times closer to it than a step with the input held
// at u. Declared false, setting an input derivative must be refused.
func checkInterpolateInputs(t *testing.T, v string) {
	in, vr := startedModel(t, pendulumRK4)
	if !boolFlag(t, v) {
		if st := in.SetRealInputDerivatives([]uint32{vr["tau"]}, []int32{1}, []float64{1}); st != Error {
			t.Errorf("declared false, fmi2SetRealInputDerivatives returned %s, want fmi2Error", st)
		}
		return
	}
	drivenRun(t, in, 0, 20, 0.01)
	snap, st := in.GetFMUState(nil)
	must(t, st, "get state")
	const H, u0 = 0.02, 0.2
	out := []uint32{pvTipX, pvTipY, pvOmega}
	// twoSteps takes the step with the derivatives (nil: held), then one
	// more of H without, and returns the outputs after each.
	twoSteps := func(order []int32, d []float64) [2][]float64 {
		must(t, in.SetFMUState(snap), "set state")
		must(t, in.SetReal([]uint32{pvTau}, []float64{u0}), "tau")
		if order != nil {
			must(t, in.SetRealInputDerivatives(slices.Repeat([]uint32{pvTau}, len(order)), order, d), "input derivatives")
		}
		var r [2][]float64
		for i := range r {
			must(t, in.DoStep(in.Time(), H, false), "step")
			r[i] = getReal(t, in, out...)
		}
		return r
	}
	for _, c := range []struct {
		name    string
		order   []int32
		du, ddu float64 // u̇ (N·m/s), ü (N·m/s²)
	}{
		{"first derivative", []int32{1}, 4, 0},
		{"second derivative", []int32{2}, 0, -300},
		{"both", []int32{1, 2}, -3, 200},
	} {
		var d []float64
		for _, o := range c.order {
			d = append(d, []float64{c.du, c.ddu}[o-1])
		}
		u := func(tau float64) float64 { return u0 + c.du*tau + 0.5*c.ddu*tau*tau }
		// reference: short steps, midpoint values, then u(H) held
		must(t, in.SetFMUState(snap), "set state")
		const m = 400
		var ref [2][]float64
		for i := range 2 * m {
			tau := (float64(i) + 0.5) * H / m
			if i >= m {
				tau = H
			}
			must(t, in.SetReal([]uint32{pvTau}, []float64{u(tau)}), "tau")
			must(t, in.DoStep(in.Time(), H/m, false), "short step")
			if i == m-1 || i == 2*m-1 {
				ref[i/m] = getReal(t, in, out...)
			}
		}
		interp, held := twoSteps(c.order, d), twoSteps(nil, nil)
		for i := range ref {
			var ei, eh float64
			for j := range ref[i] {
				ei = math.Max(ei, math.Abs(interp[i][j]-ref[i][j]))
				eh = math.Max(eh, math.Abs(held[i][j]-ref[i][j]))
			}
			t.Logf("%s, step %d: interpolated input off the reference by %.3g, held input by %.3g", c.name, i+1, ei, eh)
			if !(ei*100 < eh) {
				t.Errorf("%s, step %d: the interpolated input is off the reference by %.3g, the held one by %.3g: the derivatives were not followed", c.name, i+1, ei, eh)
			}
		}
	}
}

// alongMotion returns the values read at the current state and their time
// derivative along the motion, the one-sided second-order difference
// quotient (−3y₀ + 4y₁ − y₂)/(2δ) from two steps of δ with the inputs held;
// the state is restored afterwards.
func alongMotion(t *testing.T, in *Instance, vr []uint32, delta float64) (y0, d []float64) {
	t.Helper()
	snap, st := in.GetFMUState(nil)
	must(t, st, "get state")
	y0 = getReal(t, in, vr...)
	must(t, in.DoStep(in.Time(), delta, false), "short step")
	y1 := getReal(t, in, vr...)
	must(t, in.DoStep(in.Time(), delta, false), "short step")
	y2 := getReal(t, in, vr...)
	must(t, in.SetFMUState(snap), "set state")
	d = make([]float64, len(vr))
	for i := range d {
		d[i] = (-3*y0[i] + 4*y1[i] - y2[i]) / (2 * delta)
	}
	return y0, d
}

// maxOutputDerivativeOrder=N: fmi2GetRealOutputDerivatives gives the
// derivatives of orders 1…N and refuses order N+1. Order 1 is compared,
// at three points of a driven run, with the difference quotient of the
// outputs along the motion (steps of 1e-5 s on the RK4 pendulum: its
// error, of order δ², is below 1e-8 here). A higher order would need a
// check of its own.
func checkOutputDerivatives(t *testing.T, v string) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("value %q: want a non-negative integer", v)
	}
	in, _ := startedModel(t, pendulumRK4)
	out := []uint32{pvTipX, pvTipY, pvOmega}
	got := make([]float64, len(out))
	for k0 := 0; k0 < 90; k0 += 30 {
		drivenRun(t, in, k0, 30, 0.01)
		for order := 1; order <= n; order++ {
			if order > 1 {
				t.Fatalf("order %d declared: no check for derivatives beyond the first", order)
			}
			must(t, in.GetRealOutputDerivatives(out, []int32{1, 1, 1}, got), "output derivatives")
			_, fd := alongMotion(t, in, out, 1e-5)
			for j := range got {
				if math.Abs(got[j]-fd[j]) > 1e-7*(1+math.Abs(fd[j])) {
					t.Errorf("t = %g s, output %d: derivative %.12g, difference quotient %.12g", in.Time(), out[j], got[j], fd[j])
				}
			}
		}
		if st := in.GetRealOutputDerivatives(out[:1], []int32{int32(n + 1)}, got); st != Error {
			t.Errorf("derivative of order %d (above maxOutputDerivativeOrder) returned %s, want fmi2Error", n+1, st)
		}
	}
}

// canRunAsynchronuously=false: fmi2DoStep completes before it returns
// (fmi2OK, the time advanced, never fmi2Pending), fmi2CancelStep is
// refused, and fmi2GetStatus(fmi2DoStepStatus) has no pending step to
// report (fmi2Discard).
func checkAsynchronous(t *testing.T, v string) {
	if boolFlag(t, v) {
		t.Fatal("declared true: no check for asynchronous steps (fmi2DoStep would return fmi2Pending)")
	}
	in, _ := startedModel(t, pendulumModel)
	for k := range 5 {
		if st := in.DoStep(in.Time(), 0.01, true); st != OK {
			t.Fatalf("fmi2DoStep returned %s", st)
		}
		if math.Abs(in.Time()-float64(k+1)*0.01) > 1e-15 {
			t.Errorf("time %g on return from step %d", in.Time(), k+1)
		}
	}
	if st := in.CancelStep(); st != Error {
		t.Errorf("fmi2CancelStep returned %s, want fmi2Error", st)
	}
	if _, st := in.GetStatus(DoStepStatus); st != Discard {
		t.Errorf("fmi2GetStatus(fmi2DoStepStatus) returned %s, want fmi2Discard", st)
	}
}

// canBeInstantiatedOnlyOncePerProcess=false: two instances live at once in
// the process, stepped alternately with different inputs, each giving bit
// for bit what it gives alone. Declared true, a second instance would have
// to be refused.
func checkInstantiatedOnce(t *testing.T, v string) {
	a, _ := startedModel(t, pendulumModel)
	if boolFlag(t, v) {
		dir, guid := unpacked(t, "pendulum.xml")
		if _, err := Instantiate(Config{GUID: guid, ResourceLocation: dir}); err == nil {
			t.Error("declared true, but a second instance was made")
		}
		return
	}
	b, _ := startedModel(t, pendulumModel)
	// b runs with the input negated and damping changed at another step
	const n = 60
	alone := func(sign float64) [][]float64 {
		in, _ := startedModel(t, pendulumModel)
		var out [][]float64
		for k := range n {
			must(t, in.SetReal([]uint32{pvTau}, []float64{sign * drive(k)}), "tau")
			must(t, in.DoStep(in.Time(), 0.01, true), "step")
			out = append(out, getReal(t, in, pvTipX, pvTipY, pvOmega))
		}
		return out
	}
	ra, rb := alone(1), alone(-1)
	var ga, gb [][]float64
	for k := range n {
		must(t, a.SetReal([]uint32{pvTau}, []float64{drive(k)}), "tau a")
		must(t, b.SetReal([]uint32{pvTau}, []float64{-drive(k)}), "tau b")
		must(t, a.DoStep(a.Time(), 0.01, true), "step a")
		must(t, b.DoStep(b.Time(), 0.01, true), "step b")
		ga = append(ga, getReal(t, a, pvTipX, pvTipY, pvOmega))
		gb = append(gb, getReal(t, b, pvTipX, pvTipY, pvOmega))
	}
	if !sameBits(ga, ra) || !sameBits(gb, rb) {
		t.Errorf("two live instances differ from each run alone (by %.3g, %.3g)", maxDiff(ga, ra), maxDiff(gb, rb))
	}
	if sameBits(ga, gb) {
		t.Error("the two instances gave the same outputs for different inputs")
	}
}

// canNotUseMemoryManagementFunctions=true: the FMU is never given memory
// functions to use. fmu.Config, all that an instance is made from, carries
// no function but the logger and FMI 3.0's intermediate-update callback
// (the C ABI passes on only the logger and its environment from
// fmi2CallbackFunctions, and its tests call it with allocateMemory and
// freeMemory NULL).
func checkNoMemoryFunctions(t *testing.T, v string) {
	if !boolFlag(t, v) {
		t.Log("declared false: the FMU may use the importer's memory functions (it does not)")
		return
	}
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if f.Type.Kind() == reflect.Func && f.Type != reflect.TypeFor[Logger]() && f.Type != reflect.TypeFor[IntermediateUpdateFunc]() {
			t.Errorf("fmu.Config.%s is a function (%s): declared true, the FMU must not be given memory functions", f.Name, f.Type)
		}
	}
}

// canGetAndSetFMUstate=true: a state saved with fmi2GetFMUstate and
// restored with fmi2SetFMUstate — after the run went on with other inputs
// and a tuned parameter — reproduces that run bit for bit (the
// generalized-α pendulum: the acceleration history is part of the state).
// Declared false, fmi2GetFMUstate must be refused.
func checkGetSetState(t *testing.T, v string) {
	in, _ := startedModel(t, pendulumModel)
	if !boolFlag(t, v) {
		if _, st := in.GetFMUState(nil); st != Error {
			t.Errorf("declared false, fmi2GetFMUstate returned %s, want fmi2Error", st)
		}
		return
	}
	drivenRun(t, in, 0, 23, 0.01)
	snap, st := in.GetFMUState(nil)
	must(t, st, "get state")
	t0, c0 := in.Time(), getReal(t, in, pvC)[0]
	ref := drivenRun(t, in, 23, 60, 0.01) // changes c too
	must(t, in.SetFMUState(snap), "set state")
	if c := getReal(t, in, pvC)[0]; in.Time() != t0 || c != c0 {
		t.Errorf("after fmi2SetFMUstate: time %g, c = %g; saved at %g with c = %g", in.Time(), c, t0, c0)
	}
	if got := drivenRun(t, in, 23, 60, 0.01); !sameBits(got, ref) {
		t.Errorf("the run from the restored state differs by %.3g", maxDiff(got, ref))
	}
}

// canSerializeFMUstate=true: a state serialised, deserialised into a
// fresh instance that was never initialised and set there, goes on bit for
// bit as the original instance does, and the fresh instance's state, taken
// again with fmi2GetFMUstate, serialises to the same bytes (parameters,
// inputs, clock and engine state all restored). Declared false,
// fmi2SerializeFMUstate must be refused.
func checkSerializeState(t *testing.T, v string) {
	in, _ := startedModel(t, pendulumModel)
	drivenRun(t, in, 0, 31, 0.01)
	snap, st := in.GetFMUState(nil)
	must(t, st, "get state")
	blob, st := in.SerializeFMUState(snap)
	if !boolFlag(t, v) {
		if st != Error {
			t.Errorf("declared false, fmi2SerializeFMUstate returned %s, want fmi2Error", st)
		}
		return
	}
	must(t, st, "serialize")
	blob = bytes.Clone(blob)
	ref := drivenRun(t, in, 31, 60, 0.01)
	fresh, _ := newModelInstance(t, pendulumModel)
	s2, st := fresh.DeserializeFMUState(blob)
	must(t, st, "deserialize")
	must(t, fresh.SetFMUState(s2), "set state")
	// the fresh instance's own state, taken anew, is the original's
	s3, st := fresh.GetFMUState(nil)
	must(t, st, "get state of the fresh instance")
	again, st := fresh.SerializeFMUState(s3)
	must(t, st, "serialize again")
	if !bytes.Equal(again, blob) {
		t.Errorf("the fresh instance's state serialises to other bytes than the original's")
	}
	if got := drivenRun(t, fresh, 31, 60, 0.01); !sameBits(got, ref) {
		t.Errorf("the fresh instance from the deserialised state differs by %.3g", maxDiff(got, ref))
	}
}

// providesDirectionalDerivative=true: fmi2GetDirectionalDerivative agrees
// with finite differences. With respect to the input: the central
// difference of the state derivatives read as tau is set to u ± 1e-3
// (they are affine in it), and zero for the outputs, which setting the
// input leaves unchanged. With respect to the states: along the seed
// (q̇, v̇) read from the FMU, J·seed is the time derivative of the outputs
// and of the accelerations along the motion, compared with their
// difference quotient over two steps of 1e-5 s (RK4 pendulum; the
// quotient's error, of order δ², is below 4e-9 relative here). Declared
// false, the call must be refused.
func checkDirectionalDerivative(t *testing.T, v string) {
	in, vr := startedModel(t, pendulumRK4)
	unknowns := []uint32{pvTipX, pvTipY, pvOmega, vr["der(der(link.cm.x))"], vr["der(der(link.cm.y))"], vr["der(der(link.angle))"]}
	got := make([]float64, len(unknowns))
	if !boolFlag(t, v) {
		if st := in.GetDirectionalDerivative(unknowns, []uint32{pvTau}, []float64{1}, got); st != Error {
			t.Errorf("declared false, fmi2GetDirectionalDerivative returned %s, want fmi2Error", st)
		}
		return
	}
	states := []string{"link.cm.x", "link.cm.y", "link.angle", "der(link.cm.x)", "der(link.cm.y)", "der(link.angle)"}
	var known, rates []uint32
	for _, s := range states {
		known = append(known, vr[s])
		rates = append(rates, vr["der("+s+")"])
	}
	for k0 := 0; k0 < 90; k0 += 30 {
		drivenRun(t, in, k0, 30, 0.01)
		// with respect to the input
		u := getReal(t, in, pvTau)[0]
		const eps = 1e-3
		must(t, in.SetReal([]uint32{pvTau}, []float64{u + eps}), "tau+")
		up := getReal(t, in, unknowns...)
		must(t, in.SetReal([]uint32{pvTau}, []float64{u - eps}), "tau-")
		dn := getReal(t, in, unknowns...)
		must(t, in.SetReal([]uint32{pvTau}, []float64{u}), "tau")
		must(t, in.GetDirectionalDerivative(unknowns, []uint32{pvTau}, []float64{1}, got), "∂/∂tau")
		for j := range got {
			fd := (up[j] - dn[j]) / (2 * eps)
			if math.Abs(got[j]-fd) > 1e-7*(1+math.Abs(fd)) {
				t.Errorf("t = %g s: ∂(unknown %d)/∂tau = %.12g, central difference %.12g", in.Time(), unknowns[j], got[j], fd)
			}
		}
		// with respect to the states, along the motion
		seed := getReal(t, in, rates...)
		must(t, in.GetDirectionalDerivative(unknowns, known, seed, got), "along the motion")
		_, fd := alongMotion(t, in, unknowns, 1e-5)
		for j := range got {
			if math.Abs(got[j]-fd[j]) > 1e-7*(1+math.Abs(fd[j])) {
				t.Errorf("t = %g s: J·(q̇, v̇) for unknown %d = %.12g, difference quotient along the motion %.12g", in.Time(), unknowns[j], got[j], fd[j])
			}
		}
	}
}
