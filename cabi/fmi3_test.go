package main

// The FMI 3.0 co-simulation API through the C ABI: the C host
// testdata/host3.c (its own importer, with fmi3.h and fmi2.h) loads FMI 3.0
// FMUs packed with fmu.PackVersion(..., 3) from the runtime library of
// setup, and the FMI 2.0 FMU of the same model for comparison. The host
// prints what it reads as hexadecimal floats; the checks are made here
// against facts that do not come from the FMI 3.0 code: the FMI 2.0 run of
// the same model, the scalar elements' names, the model file's geometry,
// the motion itself (difference quotients), linear algebra (adjoint
// identity, rotation matrices).

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"mbfmu/fmu"
)

// env3 holds the FMI 3.0 test host and FMUs.
type env3 struct {
	host  string                      // the compiled testdata/host3.c
	dirs  map[string]string           // name → unpacked FMU folder
	descs map[string]*fmu.Description // name → the packed FMU's description
	err   error
}

var (
	setup3Once sync.Once
	shared3    env3
)

var furutaModel = filepath.Join("..", "examples", "furuta", "model.xml")

// fmi3Models are the FMUs the FMI 3.0 tests pack (name, model, version).
var fmi3Models = []struct {
	name, model string
	version     int
}{
	{"furuta3", furutaModel, 3},
	{"furuta2", furutaModel, 2},
	{"pendulum_nan3", filepath.Join("..", "fmu", "testdata", "pendulum_nan.xml"), 3},
}

// setup3 compiles host3.c and packs fmi3Models with the runtime library of
// setup, once per test binary.
func setup3(tb testing.TB) (*env, *env3) {
	tb.Helper()
	e := setup(tb) // skips without gcc
	setup3Once.Do(func() {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			shared3.err = err
			return
		}
		shared3.host = filepath.Join(tmpRoot, "host3")
		cc := exec.Command(gcc, "-O2", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off", "-I.",
			"-o", shared3.host, filepath.Join("testdata", "host3.c"), "-ldl", "-lm")
		if out, err := cc.CombinedOutput(); err != nil {
			shared3.err = fmt.Errorf("compiling the C host host3.c: %v\n%s", err, out)
			return
		}
		shared3.dirs = map[string]string{}
		shared3.descs = map[string]*fmu.Description{}
		// furuta_rk4: examples/furuta integrated by RK4, whose state
		// carries the accelerations of the equations of motion, so that
		// the motion over short steps is a reference for the output
		// derivatives (as pendulum_rk4 is for FMI 2.0, derivs_test.go)
		src, err := os.ReadFile(furutaModel)
		if err != nil {
			shared3.err = err
			return
		}
		const genalpha = `integrator="genalpha" rho-inf="0.8"`
		if !bytes.Contains(src, []byte(genalpha)) {
			shared3.err = fmt.Errorf("%s: no %s to replace by RK4", furutaModel, genalpha)
			return
		}
		rk4 := filepath.Join(tmpRoot, "furuta_rk4.xml")
		if err := os.WriteFile(rk4, bytes.Replace(src, []byte(genalpha), []byte(`integrator="rk4"`), 1), 0o644); err != nil {
			shared3.err = err
			return
		}
		models := append(fmi3Models[:len(fmi3Models):len(fmi3Models)], struct {
			name, model string
			version     int
		}{"furuta_rk4_3", rk4, 3})
		for _, m := range models {
			p := filepath.Join(tmpRoot, m.name+".fmu")
			d, err := fmu.PackVersion(m.model, p, e.lib, m.version)
			if err != nil {
				shared3.err = fmt.Errorf("packing %s as FMI %d: %v", m.model, m.version, err)
				return
			}
			dir := filepath.Join(tmpRoot, "unpacked fmus", m.name)
			if err := unzip(p, dir); err != nil {
				shared3.err = err
				return
			}
			shared3.dirs[m.name], shared3.descs[m.name] = dir, d
		}
	})
	if shared3.err != nil {
		tb.Fatal(shared3.err)
	}
	return e, &shared3
}

// run runs host3 and returns its standard output and error.
func (e3 *env3) run(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	return e3.runEnv(t, nil, args...)
}

// runEnv is run with extra environment variables.
func (e3 *env3) runEnv(t *testing.T, env []string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(e3.host, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var se bytes.Buffer
	cmd.Stderr = &se
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("host3 %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args[:1], " "), err, out, se.String())
	}
	return string(out), se.String()
}

// spec3 is the host's SPEC of the furuta FMU (see host3.c): tau, time,
// the scalar outputs, the array outputs and a list mixing them.
type spec3 struct {
	d     *fmu.Description
	tau   uint32
	ys    []uint32 // scalar outputs, in value-reference order
	mixed []uint32
	name  map[string]uint32 // variable name → value reference
}

func newSpec3(t *testing.T, d *fmu.Description) *spec3 {
	t.Helper()
	s := &spec3{d: d, name: map[string]uint32{}}
	for _, v := range d.Variables {
		s.name[v.Name] = v.VR
		if v.Causality == fmu.CausalityOutput {
			s.ys = append(s.ys, v.VR)
		}
	}
	tau, ok := s.name["tau"]
	if !ok || len(d.Arrays) == 0 {
		t.Fatalf("the model has no input tau or no array output")
	}
	s.tau = tau
	// time, then the arrays backwards each followed by a scalar, then
	// time again
	s.mixed = []uint32{d.TimeVR}
	for i := len(d.Arrays) - 1; i >= 0; i-- {
		s.mixed = append(s.mixed, d.Arrays[i].VR, s.ys[len(s.ys)-1-i])
	}
	s.mixed = append(s.mixed, d.TimeVR)
	return s
}

func (s *spec3) args() []string {
	u := func(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
	a := []string{u(s.tau), u(s.d.TimeVR), strconv.Itoa(len(s.ys))}
	for _, y := range s.ys {
		a = append(a, u(y))
	}
	a = append(a, strconv.Itoa(len(s.d.Arrays)))
	for _, x := range s.d.Arrays {
		a = append(a, u(x.VR), strconv.Itoa(len(x.Elems)))
	}
	a = append(a, strconv.Itoa(len(s.mixed)))
	for _, m := range s.mixed {
		a = append(a, u(m))
	}
	return a
}

// record is the host's record list: the scalars, the arrays, time.
func (s *spec3) record() []uint32 {
	r := append([]uint32(nil), s.ys...)
	for _, a := range s.d.Arrays {
		r = append(r, a.VR)
	}
	return append(r, s.d.TimeVR)
}

// expand replaces array value references by their elements'.
func (s *spec3) expand(vr []uint32) []uint32 {
	var out []uint32
	for _, r := range vr {
		found := false
		for _, a := range s.d.Arrays {
			if a.VR == r {
				out, found = append(out, a.Elems...), true
			}
		}
		if !found {
			out = append(out, r)
		}
	}
	return out
}

// byVR maps the values of one fmi3GetFloat64 call on vr to the scalar
// value references (and time); a value reference given twice must read
// the same bits.
func (s *spec3) byVR(t *testing.T, what string, vr []uint32, row []float64) map[uint32]float64 {
	t.Helper()
	ex := s.expand(vr)
	if len(ex) != len(row) {
		t.Fatalf("%s: %d values, want %d", what, len(row), len(ex))
	}
	m := map[uint32]float64{}
	for i, r := range ex {
		if old, ok := m[r]; ok && math.Float64bits(old) != math.Float64bits(row[i]) {
			t.Fatalf("%s: value reference %d read twice in one call: %v and %v", what, r, old, row[i])
		}
		m[r] = row[i]
	}
	return m
}

// rows3 collects the host's lines "TAG k v..." (hex floats) by k.
func rows3(t *testing.T, out, tag string) map[int][]float64 {
	t.Helper()
	rows := map[int][]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != tag {
			continue
		}
		k, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		row := make([]float64, len(f)-2)
		for i := range row {
			if row[i], err = strconv.ParseFloat(f[2+i], 64); err != nil {
				t.Fatalf("bad line %q: %v", sc.Text(), err)
			}
		}
		if _, dup := rows[k]; dup {
			t.Fatalf("%s %d printed twice", tag, k)
		}
		rows[k] = row
	}
	return rows
}

func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// commTime is the communication point after step k of host3 (steps of 1 ms
// from (k−1)·h, as the host computes them).
func commTime(k int) float64 {
	if k == 0 {
		return 0
	}
	const h = 1e-3
	return float64(k-1)*h + h
}

// TestFMI3EquivalentToFMI2 runs examples/furuta through the FMI 3.0 API
// and its FMI 2.0 FMU through the FMI 2.0 API, with the same input
// (tau = 0.01·sin(0.01k) before step k, 1000 steps of 1 ms): every scalar
// output agrees bit for bit after initialisation and after every step. It
// also checks the description: the scalars keep the FMI 2.0 value
// references, time has the last one.
func TestFMI3EquivalentToFMI2(t *testing.T) {
	_, e3 := setup3(t)
	d3, d2 := e3.descs["furuta3"], e3.descs["furuta2"]
	if len(d3.Variables) != len(d2.Variables) {
		t.Fatalf("%d scalar variables in FMI 3.0, %d in FMI 2.0", len(d3.Variables), len(d2.Variables))
	}
	for i := range d3.Variables {
		a, b := d3.Variables[i], d2.Variables[i]
		if a.Name != b.Name || a.VR != b.VR || a.Causality != b.Causality {
			t.Errorf("variable %d: FMI 3.0 %q vr %d %v, FMI 2.0 %q vr %d %v", i, a.Name, a.VR, a.Causality, b.Name, b.VR, b.Causality)
		}
	}
	if want := uint32(len(d3.Variables) + len(d3.Arrays)); d3.TimeVR != want {
		t.Errorf("time has value reference %d, want the last one, %d", d3.TimeVR, want)
	}
	md, err := os.ReadFile(filepath.Join(e3.dirs["furuta3"], "modelDescription.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if w := fmt.Sprintf(`name="time" valueReference="%d"`, d3.TimeVR); !bytes.Contains(md, []byte(w)) || !bytes.Contains(md, []byte(`fmiVersion="3.0"`)) {
		t.Errorf("the packed modelDescription.xml has no %s or is not FMI 3.0", w)
	}

	s := newSpec3(t, d3)
	const n = 1000
	out, _ := e3.run(t, append([]string{"equiv", e3.dirs["furuta3"], e3.dirs["furuta2"], strconv.Itoa(n)}, s.args()...)...)
	y3, y2 := rows3(t, out, "Y3"), rows3(t, out, "Y2")
	if len(y3) != n+1 || len(y2) != n+1 {
		t.Fatalf("%d FMI 3.0 rows and %d FMI 2.0 rows, want %d", len(y3), len(y2), n+1)
	}
	for k := 0; k <= n; k++ {
		if len(y3[k]) != len(s.ys) {
			t.Fatalf("step %d: %d outputs, want %d", k, len(y3[k]), len(s.ys))
		}
		if i := sameBits(y3[k], y2[k]); i >= 0 {
			t.Fatalf("step %d: output %s = %v through FMI 3.0, %v through FMI 2.0", k, d3.Variables[s.ys[i]].Name, y3[k][i], y2[k][i])
		}
	}
	// not a vacuous comparison: the pendulum moves and the arm turns
	theta, alpha := s.name["theta"], s.name["alpha"]
	idx := func(vr uint32) int {
		for i, y := range s.ys {
			if y == vr {
				return i
			}
		}
		t.Fatalf("value reference %d is not an output", vr)
		return 0
	}
	a0, a1 := y3[0][idx(alpha)], y3[n][idx(alpha)]
	th := y3[n][idx(theta)]
	if math.Abs(a1-a0) < 0.05 || th == 0 {
		t.Errorf("the motion is too small to compare: alpha %g → %g rad, theta %g rad", a0, a1, th)
	}
	t.Logf("%d steps × %d scalar outputs bit for bit equal through FMI 3.0 and FMI 2.0 (alpha %.4f → %.4f rad, theta → %.3g rad)",
		n, len(s.ys), a0, a1, th)
}

// TestFMI3Arrays checks the array outputs of examples/furuta through
// fmi3GetFloat64: their elements are the scalar outputs named NAME.x ...
// (NAME.xx ... NAME.zz, row-major), an array read alone and in a call
// mixing scalars, arrays and time gives exactly the scalars' values, time
// is the communication point, pend_R is a rotation (RᵀR = I, det R = 1)
// and the geometry of the model file holds: the tip is the hinge, at
// L1·(cos θ, sin θ, 0), plus L2 along the pendulum's axis R·e_z, and
// R_zz = cos α. (The nValues errors are in TestFMI3BadCalls.)
func TestFMI3Arrays(t *testing.T) {
	_, e3 := setup3(t)
	d := e3.descs["furuta3"]
	s := newSpec3(t, d)
	suffix := map[int][]string{3: {"x", "y", "z"}, 9: {"xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"}}
	wantDims := map[string][]int{"pend_tip": {3}, "pend_R": {3, 3}, "hinge_f": {3}}
	if len(d.Arrays) != len(wantDims) {
		t.Fatalf("%d array outputs, want %d", len(d.Arrays), len(wantDims))
	}
	arr := map[string]fmu.ArrayVar{}
	for _, a := range d.Arrays {
		arr[a.Name] = a
		if fmt.Sprint(a.Dims) != fmt.Sprint(wantDims[a.Name]) {
			t.Errorf("array %s: dimensions %v, want %v", a.Name, a.Dims, wantDims[a.Name])
		}
		for i, e := range a.Elems {
			if vr, ok := s.name[a.Name+"."+suffix[len(a.Elems)][i]]; !ok || vr != e {
				t.Errorf("array %s: element %d is value reference %d, want %s.%s (%d)", a.Name, i, e, a.Name, suffix[len(a.Elems)][i], vr)
			}
		}
	}
	param := func(name string) float64 {
		for _, v := range d.Variables {
			if v.Name == name && v.Causality == fmu.CausalityParameter {
				return v.Start
			}
		}
		t.Fatalf("no parameter %s", name)
		return 0
	}
	L1, L2 := param("L1"), param("L2")
	if L1 != 0.2 || L2 != 0.3 { // examples/furuta/model.xml
		t.Fatalf("L1 = %g, L2 = %g: not the model file's 0.2 and 0.3", L1, L2)
	}

	const n = 1000
	out, _ := e3.run(t, append([]string{"run", e3.dirs["furuta3"], strconv.Itoa(n)}, s.args()...)...)
	ys, rec, mix := rows3(t, out, "Y3"), rows3(t, out, "R3"), rows3(t, out, "M3")
	var orthErr, detErr, tipErr, cosErr float64
	for k := 0; k <= n; k++ {
		scalar := s.byVR(t, fmt.Sprintf("Y3 %d", k), s.ys, ys[k])
		for _, c := range []struct {
			what string
			vr   []uint32
			row  []float64
		}{{"record", s.record(), rec[k]}, {"mixed", s.mixed, mix[k]}} {
			got := s.byVR(t, fmt.Sprintf("%s %d", c.what, k), c.vr, c.row)
			for r, v := range got {
				want, ok := scalar[r]
				if r == d.TimeVR {
					want, ok = commTime(k), true
				}
				if !ok || math.Float64bits(v) != math.Float64bits(want) {
					t.Fatalf("step %d, %s call: value reference %d reads %v, want %v (the scalar's value, or the communication point)", k, c.what, r, v, want)
				}
			}
		}
		// geometry, from the mixed call's arrays
		m := s.byVR(t, "mixed", s.mixed, mix[k])
		el := func(name string) []float64 {
			var v []float64
			for _, e := range arr[name].Elems {
				v = append(v, m[e])
			}
			return v
		}
		R, tip := el("pend_R"), el("pend_tip")
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				dot := R[i]*R[j] + R[3+i]*R[3+j] + R[6+i]*R[6+j] // (RᵀR)ᵢⱼ
				if i == j {
					dot--
				}
				orthErr = math.Max(orthErr, math.Abs(dot))
			}
		}
		det := R[0]*(R[4]*R[8]-R[5]*R[7]) - R[1]*(R[3]*R[8]-R[5]*R[6]) + R[2]*(R[3]*R[7]-R[4]*R[6])
		detErr = math.Max(detErr, math.Abs(det-1))
		th, al := scalar[s.name["theta"]], scalar[s.name["alpha"]]
		hinge := []float64{L1 * math.Cos(th), L1 * math.Sin(th), 0}
		for i := 0; i < 3; i++ {
			tipErr = math.Max(tipErr, math.Abs(tip[i]-(hinge[i]+L2*R[3*i+2])))
		}
		cosErr = math.Max(cosErr, math.Abs(R[8]-math.Cos(al)))
	}
	if orthErr > 1e-12 || detErr > 1e-12 {
		t.Errorf("pend_R is not a rotation: max |RᵀR − I| = %.3g, max |det R − 1| = %.3g", orthErr, detErr)
	}
	if tipErr > 1e-9 || cosErr > 1e-9 {
		t.Errorf("geometry: max |tip − hinge − L2·R·e_z| = %.3g m, max |R_zz − cos α| = %.3g", tipErr, cosErr)
	}
	t.Logf("%d steps: arrays = their scalars bit for bit (alone and mixed), time = communication point; max |RᵀR − I| %.2g, |det R − 1| %.2g, |tip − hinge − L2·R·e_z| %.2g m, |R_zz − cos α| %.2g",
		n, orthErr, detErr, tipErr, cosErr)
}

// TestFMI3State runs examples/furuta 300 steps, takes and serialises the
// FMU state (freeing it: only the bytes remain), runs 300 more, then
// restores the deserialised state in the same instance and in a fresh one
// and runs the 300 again: all three runs (every scalar, array element and
// time) agree bit for bit, and the restored point is the saved one.
func TestFMI3State(t *testing.T) {
	_, e3 := setup3(t)
	s := newSpec3(t, e3.descs["furuta3"])
	out, _ := e3.run(t, append([]string{"state", e3.dirs["furuta3"]}, s.args()...)...)
	s0, s1, s2, s3 := rows3(t, out, "S0"), rows3(t, out, "S1"), rows3(t, out, "S2"), rows3(t, out, "S3")
	if len(s1) != 300 || len(s2) != 301 || len(s3) != 301 {
		t.Fatalf("%d, %d, %d rows", len(s1), len(s2), len(s3))
	}
	if sameBits(s2[300], s0[300]) >= 0 || sameBits(s3[300], s0[300]) >= 0 {
		t.Fatalf("the restored state is not the saved one:\nsaved    %v\nrestored %v\nother    %v", s0[300], s2[300], s3[300])
	}
	ntime := len(s0[300]) - 1
	if s0[300][ntime] != commTime(300) {
		t.Fatalf("time at the saved state %v, want %v", s0[300][ntime], commTime(300))
	}
	for k := 301; k <= 600; k++ {
		if i := sameBits(s2[k], s1[k]); i >= 0 {
			t.Fatalf("step %d, value %d: %v after restoring, %v before", k, i, s2[k][i], s1[k][i])
		}
		if i := sameBits(s3[k], s1[k]); i >= 0 {
			t.Fatalf("step %d, value %d: %v in the other instance, %v before", k, i, s3[k][i], s1[k][i])
		}
	}
	size := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "SIZE ") {
			size = strings.TrimPrefix(l, "SIZE ")
		}
	}
	t.Logf("300 steps × %d values bit for bit equal after restoring the deserialised state (%s bytes) in the same and another instance", len(s1[301]), size)
}

// TestFMI3Derivatives checks on examples/furuta after 500 steps:
// fmi3GetOutputDerivatives of the scalars, of the arrays (nValues counts
// elements) and of both mixed agree bit for bit element by element;
// fmi3GetAdjointDerivative is the transpose of fmi3GetDirectionalDerivative:
// wᵀ(J v) = (Jᵀ w)ᵀ v for random v, w, with the unknowns outputs (an array
// among them) and state derivatives, the knowns every state and the input.
// On the model integrated by RK4 (furuta_rk4, whose state carries the
// accelerations of the equations of motion; generalized-α's does not) the
// output derivatives also match the difference quotient
// (−3y₀ + 4y₁ − y₂)/(2δ) of the outputs over two steps of δ = 10 µs, taken
// from a saved FMU state that is restored bit for bit afterwards.
func TestFMI3Derivatives(t *testing.T) {
	_, e3 := setup3(t)
	for _, name := range []string{"furuta3", "furuta_rk4_3"} {
		t.Run(name, func(t *testing.T) { fmi3Derivatives(t, e3, name, name == "furuta_rk4_3") })
	}
}

func fmi3Derivatives(t *testing.T, e3 *env3, fmuName string, motion bool) {
	d := e3.descs[fmuName]
	s := newSpec3(t, d)
	var unknowns, knowns []uint32
	for _, name := range []string{"theta", "alpha_dot", "pend_tip", "der(pend.wbx)", "der(arm.wbz)", "der(pend.qx)", "der(der(pend.cm.z))", "der(pend.cm.y)"} {
		vr, ok := s.name[name]
		for _, a := range d.Arrays {
			if a.Name == name {
				vr, ok = a.VR, true
			}
		}
		if !ok {
			t.Fatalf("no variable %s", name)
		}
		unknowns = append(unknowns, vr)
	}
	for _, v := range d.Variables {
		if v.Local == fmu.LocalPosition || v.Local == fmu.LocalVelocity {
			knowns = append(knowns, v.VR)
		}
	}
	knowns = append(knowns, s.tau) // last: the host's element check uses it
	args := append([]string{"derivs", e3.dirs[fmuName], "500"}, s.args()...)
	args = append(args, strconv.Itoa(len(unknowns)))
	for _, u := range unknowns {
		args = append(args, strconv.Itoa(int(u)))
	}
	args = append(args, strconv.Itoa(len(knowns)))
	for _, k := range knowns {
		args = append(args, strconv.Itoa(int(k)))
	}
	out, _ := e3.run(t, args...)
	one := func(tag string) []float64 {
		r := rows3(t, out, tag)
		if len(r) != 1 {
			t.Fatalf("%d lines %s", len(r), tag)
		}
		for _, v := range r {
			return v
		}
		return nil
	}

	// output derivatives: scalars, arrays, mixed
	ds := s.byVR(t, "DS", s.ys, one("DS"))
	var arrays, mixed []uint32
	for i, a := range d.Arrays {
		arrays = append(arrays, a.VR)
		mixed = append(mixed, a.VR, s.ys[i%len(s.ys)])
	}
	for _, c := range []struct {
		tag string
		vr  []uint32
	}{{"DA", arrays}, {"DM", mixed}} {
		for r, v := range s.byVR(t, c.tag, c.vr, one(c.tag)) {
			if math.Float64bits(v) != math.Float64bits(ds[r]) {
				t.Errorf("%s: the derivative of value reference %d is %v, %v as a scalar", c.tag, r, v, ds[r])
			}
		}
	}
	// against the motion
	rec := s.record()
	f0, f1, f2, fb := s.byVR(t, "F0", rec, one("F0")), s.byVR(t, "F1", rec, one("F1")), s.byVR(t, "F2", rec, one("F2")), one("FB")
	if i := sameBits(fb, one("F0")); i >= 0 {
		t.Errorf("after restoring the state, value %d is %v, was %v", i, fb[i], one("F0")[i])
	}
	dt := 0.0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "DT" {
			dt, _ = strconv.ParseFloat(f[2], 64)
		}
	}
	if !(dt > 0) || f1[d.TimeVR] != f0[d.TimeVR]+dt {
		t.Fatalf("step δ %v, time %v → %v", dt, f0[d.TimeVR], f1[d.TimeVR])
	}
	worst, worstName := 0.0, ""
	for _, r := range s.ys {
		fd := (-3*f0[r] + 4*f1[r] - f2[r]) / (2 * dt)
		e := math.Abs(fd-ds[r]) / (math.Abs(ds[r]) + 1)
		if e > worst {
			worst, worstName = e, d.Variables[r].Name
		}
		if motion && e > 1e-6 {
			t.Errorf("d/dt %s: %.12g from fmi3GetOutputDerivatives, %.12g from the motion", d.Variables[r].Name, ds[r], fd)
		}
	}

	// adjoint = transpose of the directional derivative
	worstAdj := 0.0
	for p := 0; p < 3; p++ {
		v, w, jv, jtw := rows3(t, out, "V")[p], rows3(t, out, "W")[p], rows3(t, out, "JV")[p], rows3(t, out, "JTW")[p]
		if len(v) != len(knowns) || len(jtw) != len(knowns) || len(w) != len(s.expand(unknowns)) || len(jv) != len(w) {
			t.Fatalf("pair %d: %d, %d knowns, %d, %d unknowns", p, len(v), len(jtw), len(w), len(jv))
		}
		var a, b, scale, norm float64
		for i := range w {
			a += w[i] * jv[i]
			scale += math.Abs(w[i] * jv[i])
			norm = math.Max(norm, math.Abs(jv[i]))
		}
		for j := range v {
			b += jtw[j] * v[j]
			scale += math.Abs(jtw[j] * v[j])
		}
		if norm == 0 {
			t.Fatalf("pair %d: J·v is zero", p)
		}
		rel := math.Abs(a-b) / scale
		worstAdj = math.Max(worstAdj, rel)
		if rel > 1e-9 {
			t.Errorf("pair %d: wᵀ(J v) = %.17g, (Jᵀ w)ᵀ v = %.17g (relative difference %.3g)", p, a, b, rel)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "JIJ" {
			x, _ := strconv.ParseFloat(f[1], 64)
			y, _ := strconv.ParseFloat(f[2], 64)
			if math.Float64bits(x) != math.Float64bits(y) {
				t.Errorf("J element (first unknown, input): %v by the directional derivative, %v by the adjoint", x, y)
			}
		}
	}
	what := "not checked: generalized-α"
	if motion {
		what = "checked"
	}
	t.Logf("output derivatives vs the motion over δ = %g s (%s): worst |difference|/(|ẏ|+1) %.2g (%s); adjoint identity over %d unknowns × %d knowns: worst relative difference %.2g",
		dt, what, worst, worstName, len(s.expand(unknowns)), len(knowns), worstAdj)
}

// TestFMI3BadCalls runs the host's checks: wrong-state calls, unsupported
// capabilities (event mode, configuration mode, clocks, other types, Model
// Exchange and Scheduled Execution), nValues that does not match the value
// references (nothing written, the instance still usable), NULL pointers,
// FMU state misuse, NULL, junk and freed instances, an FMI 2.0 instance in
// the FMI 3.0 calls and an FMI 3.0 instance in the FMI 2.0 calls. Every
// one returns fmi3Error (or NULL) with a log line through logMessage, or
// one on stderr for an invalid instance, and the process goes on.
func TestFMI3BadCalls(t *testing.T) {
	_, e3 := setup3(t)
	s := newSpec3(t, e3.descs["furuta3"])
	cmd := exec.Command(e3.host, append([]string{"checks", e3.dirs["furuta3"]}, s.args()...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	passed, failed := parseChecks(string(out))
	if err != nil || len(failed) > 0 || passed < 200 {
		t.Fatalf("host3 checks: %v, %d passed\n%s\nstderr:\n%s", err, passed, strings.Join(failed, "\n"), stderr.String())
	}
	// the invalid instances are reported on stderr, one line a call
	n3 := strings.Count(stderr.String(), ": invalid fmi3Instance")
	n2 := strings.Count(stderr.String(), ": invalid fmi2Component")
	if n3 < 11 || n2 < 6 {
		t.Errorf("%d invalid-fmi3Instance and %d invalid-fmi2Component lines on stderr, want 11 and 6:\n%s", n3, n2, stderr.String())
	}
	t.Logf("%d checks passed through the FMI 3.0 C ABI; %d + %d invalid-instance calls reported on stderr", passed, n3, n2)
}

// TestFMI3Discard packs fmu/testdata/pendulum_nan.xml (an output becomes
// NaN after t = 0.25 s) as FMI 3.0: the step from 0.25 s to 0.26 s returns
// fmi3Discard with terminateSimulation = true and lastSuccessfulTime =
// 0.25 s, logged; time reads 0.25 s; a further fmi3DoStep is refused.
func TestFMI3Discard(t *testing.T) {
	_, e3 := setup3(t)
	d := e3.descs["pendulum_nan3"]
	out, _ := e3.run(t, "nan", e3.dirs["pendulum_nan3"], strconv.Itoa(int(d.TimeVR)))
	field := func(prefix string) []string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix+" ") {
				return strings.Fields(l)
			}
		}
		t.Fatalf("no line %s in:\n%s", prefix, out)
		return nil
	}
	f := field("NAN") // NAN steps k status s terminate b event b early b last x
	last, err := strconv.ParseFloat(f[12], 64)
	if err != nil {
		t.Fatal(err)
	}
	if f[2] != "26" || f[4] != "2" || f[6] != "1" || f[8] != "0" || f[10] != "0" {
		t.Errorf("the discarded step: %s (want the 26th step, status fmi3Discard = 2, terminateSimulation 1, no event, no early return)", strings.Join(f, " "))
	}
	if !(last < 0.26) || math.Abs(last-0.25) > 1e-12 {
		t.Errorf("lastSuccessfulTime %.17g, want 0.25 (before the failing time 0.26)", last)
	}
	if l := field("NANLOG"); l[1] != "1" || !strings.Contains(strings.Join(l, " "), `"bad"`) {
		t.Errorf("discard log: %s (want one fmi3Discard message naming the output \"bad\")", strings.Join(l, " "))
	}
	tt, _ := strconv.ParseFloat(field("NANTIME")[1], 64)
	if tt != last {
		t.Errorf("time reads %.17g after the discard, want lastSuccessfulTime %.17g", tt, last)
	}
	if a := field("NANAGAIN"); a[1] != "3" || a[3] == "0" {
		t.Errorf("fmi3DoStep after the discard: %s (want fmi3Error = 3, logged)", strings.Join(a, " "))
	}
	if a := field("NANTERMINATE"); a[1] != "0" {
		t.Errorf("fmi3Terminate after the discard: %s", strings.Join(a, " "))
	}
	t.Logf("%s; %s", strings.Join(f, " "), strings.Join(field("NANLOG")[2:], " "))
}

// The importer's environment pointer is opaque: a master may pass a small
// integer (an index) as fmi2's componentEnvironment or fmi3's
// instanceEnvironment. The runtime never holds it in a Go pointer (the
// garbage collector would abort on it: "invalid pointer found on stack"),
// so the FMI 3.0 and FMI 2.0 runs with env 1 and 2, collected after almost
// every allocation (GOGC=1), go through and still agree bit for bit, and
// the logger gets the integers back.
func TestOpaqueEnvironment(t *testing.T) {
	_, e3 := setup3(t)
	d3 := e3.descs["furuta3"]
	s := newSpec3(t, d3)
	const n = 300
	out, _ := e3.runEnv(t, []string{"HOST_ENV_INT=1", "GOGC=1"}, append([]string{"equiv", e3.dirs["furuta3"], e3.dirs["furuta2"], strconv.Itoa(n)}, s.args()...)...)
	y3, y2 := rows3(t, out, "Y3"), rows3(t, out, "Y2")
	if len(y3) != n+1 || len(y2) != n+1 {
		t.Fatalf("%d FMI 3.0 rows and %d FMI 2.0 rows, want %d", len(y3), len(y2), n+1)
	}
	for k := 0; k <= n; k++ {
		if i := sameBits(y3[k], y2[k]); i >= 0 {
			t.Fatalf("step %d: output %d differs between FMI 3.0 and FMI 2.0", k, i)
		}
	}
}
