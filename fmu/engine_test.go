package fmu

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// Value references of testdata/pendulum.xml: input tau; outputs tip_x,
// tip_y, omega; parameters m (fixed), c (tunable).
const (
	pvTau = iota
	pvTipX
	pvTipY
	pvOmega
	pvM
	pvC
)

// unpacked writes testdata/<name> as <dir>/resources/model.xml and returns
// the dir and the model's GUID.
func unpacked(t testing.TB, name string) (string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "resources"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "resources", ModelFileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, GUID(data)
}

func newPendulum(t testing.TB) (*Instance, *testLog) {
	t.Helper()
	dir, guid := unpacked(t, "pendulum.xml")
	l := &testLog{}
	in, err := Instantiate(Config{InstanceName: "p", GUID: guid, ResourceLocation: "file://" + dir + "/resources", Logger: l.logger()})
	if err != nil {
		t.Fatal(err)
	}
	return in, l
}

// reference runs the model in-process through package solver, as
// `mbfmu simulate` does, advancing to target(k) for k = 1..n, and returns
// the outputs after each step. tau(k) is the input during step k.
func reference(t testing.TB, over map[string]float64, n int, target func(k int) float64, tau func(k int) float64) [][]float64 {
	t.Helper()
	spec, err := xml.LoadFile(filepath.Join("testdata", "pendulum.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{Params: over})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, n)
	for k := 1; k <= n; k++ {
		s.SetInput(0, tau(k))
		if err := m.AdvanceTo(s, target(k)); err != nil {
			t.Fatal(err)
		}
		out[k-1] = make([]float64, len(m.OutputInfo()))
		m.EvalOutputs(s, out[k-1])
	}
	return out
}

func TestEngineDescription(t *testing.T) {
	d, err := Describe(filepath.Join("testdata", "pendulum.xml"))
	if err != nil {
		t.Fatal(err)
	}
	md := checkModelDescription(t, d.XML())
	want := []string{"tau/input/continuous/", "tip_x/output/continuous/", "tip_y/output/continuous/",
		"omega/output/continuous/", "m/parameter/fixed/", "c/parameter/tunable/",
		// the states: the link's planar coordinates and their velocities
		// (each the derivative of its position), then the accelerations
		"link.cm.x/local/continuous/m", "link.cm.y/local/continuous/m", "link.angle/local/continuous/rad",
		"der(link.cm.x)/local/continuous/m/s", "der(link.cm.y)/local/continuous/m/s", "der(link.angle)/local/continuous/rad/s",
		"der(der(link.cm.x))/local/continuous/m/s2", "der(der(link.cm.y))/local/continuous/m/s2", "der(der(link.angle))/local/continuous/rad/s2"}
	if len(md.Vars) != len(want) {
		t.Errorf("%d variables, want %d", len(md.Vars), len(want))
	}
	for i, v := range md.Vars {
		unit := ""
		if v.Causality == "local" {
			unit = v.Real.Unit
		}
		if got := v.Name + "/" + v.Causality + "/" + v.Variability + "/" + unit; i >= len(want) || got != want[i] || v.VR != uint32(i) {
			t.Errorf("variable %d: %s vr %d, want %s", i, got, v.VR, want[min(i, len(want)-1)])
		}
	}
	if md.Experiment.Step != "0.01" || md.Experiment.Stop != "5" {
		t.Errorf("DefaultExperiment %+v", md.Experiment)
	}
	t.Run("XSD", func(t *testing.T) { validateXSD(t, d.XML()) })
}

// Masters that advance their time as t += h and as t₀ + k·h (stepping by
// the difference of two such points) get the same outputs, bit for bit,
// and the same as the in-process run to k·h: the engine's time grid is
// anchored at the start time and the step count is kept as an integer.
func TestEngineMatchesSolverBothTimeSchemes(t *testing.T) {
	const h = 0.01
	const n = 3000 // 30 s
	tau := func(k int) float64 { return 0.2 * math.Sin(0.01*float64(k)) }
	ref := reference(t, nil, n, func(k int) float64 { return float64(k) * h }, tau)
	for _, scheme := range []string{"t+=h", "t=t0+n*h"} {
		in, _ := newPendulum(t)
		startInstance(t, in)
		var got [][]float64
		tc := 0.0
		for k := 1; k <= n; k++ {
			hk := h
			if scheme == "t=t0+n*h" {
				tc, hk = float64(k-1)*h, float64(k)*h-float64(k-1)*h
			}
			must(t, in.SetReal([]uint32{pvTau}, []float64{tau(k)}), "set tau")
			if st := in.DoStep(tc, hk, true); st != OK {
				t.Fatalf("%s step %d: %s", scheme, k, st)
			}
			if scheme == "t+=h" {
				tc += h
			}
			got = append(got, getReal(t, in, pvTipX, pvTipY, pvOmega))
		}
		if !sameBits(got, ref) {
			t.Errorf("%s: FMU outputs differ from the in-process run to k·h (max %.3g)", scheme, maxDiff(got, ref))
		}
		// Independent check: the tip stays on the unit circle (revolute
		// joint, 1 m link) and nothing blew up over 3000 steps.
		for k, o := range got {
			if r := math.Hypot(o[0], o[1]); math.Abs(r-1) > 1e-6 || math.Abs(o[2]) > 20 {
				t.Fatalf("%s step %d: |tip| = %v, omega = %v", scheme, k+1, r, o[2])
			}
		}
	}
}

func TestEngineParameters(t *testing.T) {
	const h, n = 0.01, 100
	in, _ := newPendulum(t)
	must(t, in.SetReal([]uint32{pvM}, []float64{2}), "set m")
	startInstance(t, in)
	var got [][]float64
	for k := 1; k <= n; k++ {
		if k == 50 {
			must(t, in.SetReal([]uint32{pvC}, []float64{0.5}), "set c")
		}
		must(t, in.DoStep(in.Time(), h, true), "step")
		got = append(got, getReal(t, in, pvTipX, pvTipY, pvOmega))
	}
	// Reference: compiled with m = 2; c changed by State.SetParam.
	spec, _ := xml.LoadFile(filepath.Join("testdata", "pendulum.xml"))
	m, err := solver.Compile(spec, solver.CompileOptions{Params: map[string]float64{"m": 2}})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	ref := make([][]float64, n)
	tc := 0.0
	for k := 1; k <= n; k++ {
		if k == 50 {
			if err := s.SetParam(1, 0.5); err != nil {
				t.Fatal(err)
			}
		}
		tc += h
		if err := m.AdvanceTo(s, tc); err != nil {
			t.Fatal(err)
		}
		ref[k-1] = make([]float64, 3)
		m.EvalOutputs(s, ref[k-1])
	}
	if !sameBits(got, ref) {
		t.Errorf("FMU with m=2 and c tuned at step 50 differs from the solver")
	}
	if st := in.SetReal([]uint32{pvM}, []float64{3}); st != Error {
		t.Errorf("fixed m set after initialisation: %s", st)
	}
}

func TestEngineFMUStateBitForBit(t *testing.T) {
	in, _ := newPendulum(t)
	startInstance(t, in)
	for k := 0; k < 37; k++ {
		must(t, in.DoStep(in.Time(), 0.01, false), "step")
	}
	snap, st := in.GetFMUState(nil)
	must(t, st, "get")
	runP := func(in *Instance) [][]float64 {
		var out [][]float64
		for k := 0; k < 80; k++ {
			if k == 10 {
				must(t, in.SetReal([]uint32{pvTau}, []float64{1}), "tau")
			}
			must(t, in.DoStep(in.Time(), 0.01, false), "step")
			out = append(out, getReal(t, in, pvTipX, pvTipY, pvOmega))
		}
		return out
	}
	ref := runP(in)
	must(t, in.SetFMUState(snap), "set")
	if !sameBits(ref, runP(in)) {
		t.Errorf("rerun after fmi2SetFMUstate differs")
	}
	blob, st := in.SerializeFMUState(snap)
	must(t, st, "serialize")
	other, _ := newPendulum(t)
	s2, st := other.DeserializeFMUState(blob)
	must(t, st, "deserialize")
	must(t, other.SetFMUState(s2), "set")
	if !sameBits(ref, runP(other)) {
		t.Errorf("run from the deserialised state in another instance differs")
	}
	// A state of a different model is rejected.
	dir, guid := unpacked(t, "pendulum2.xml")
	l := &testLog{}
	foreign, err := Instantiate(Config{GUID: guid, ResourceLocation: dir, Logger: l.logger()})
	if err != nil {
		t.Fatal(err)
	}
	if _, st := foreign.DeserializeFMUState(blob); st != Error || !l.has("different FMU") {
		t.Errorf("foreign state accepted: %s %v", st, l.recs)
	}
}

func TestInstantiateErrors(t *testing.T) {
	dir, guid := unpacked(t, "pendulum.xml")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{GUID: guid}, "empty"},
		{Config{GUID: "{0}", ResourceLocation: dir}, "does not match"},
		{Config{ResourceLocation: dir}, "fmuGUID is empty"},
		{Config{GUID: guid, ResourceLocation: filepath.Join(dir, "nope")}, "no model.xml"},
	} {
		if _, err := Instantiate(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Instantiate(%+v): %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestDoStepAllocs proves the steady-state communication step (set input,
// step, read outputs) allocates nothing, with the real engine, also when
// the input changes every step (the accelerations are restarted).
func TestDoStepAllocs(t *testing.T) {
	in, _ := newPendulum(t)
	startInstance(t, in)
	vrIn, vrOut := []uint32{pvTau}, []uint32{pvTipX, pvTipY, pvOmega}
	u, y := []float64{0.1}, make([]float64, 3)
	step := func() {
		u[0] = -u[0]
		in.SetReal(vrIn, u)
		if in.DoStep(in.Time(), 0.01, true) != OK {
			t.Fatal("step failed")
		}
		in.GetReal(vrOut, y)
	}
	step()
	if a := testing.AllocsPerRun(200, step); a != 0 {
		t.Errorf("%v allocations per communication step, want 0", a)
	}
	snap, _ := in.GetFMUState(nil)
	if a := testing.AllocsPerRun(200, func() { in.GetFMUState(snap); in.SetFMUState(snap) }); a != 0 {
		t.Errorf("%v allocations per get/set FMU state with a reused snapshot, want 0", a)
	}
}

// BenchmarkDoStep is one communication step (with the outputs read) of
// 1 ms (one engine sub-step) and 10 ms (ten sub-steps), in-process.
func BenchmarkDoStep(b *testing.B) {
	for _, h := range []float64{1e-3, 1e-2} {
		b.Run(fmt.Sprintf("h=%gms", h*1e3), func(b *testing.B) {
			in, _ := newPendulum(b)
			startInstance(b, in)
			vr, y := []uint32{pvTipX, pvTipY, pvOmega}, make([]float64, 3)
			b.ReportAllocs()
			for b.Loop() {
				in.DoStep(in.Time(), h, true)
				in.GetReal(vr, y)
			}
		})
	}
}

func BenchmarkGetReal(b *testing.B) {
	in, _ := newPendulum(b)
	startInstance(b, in)
	vr, y := []uint32{pvTipX}, make([]float64, 1)
	b.ReportAllocs()
	for b.Loop() {
		in.GetReal(vr, y)
	}
}

// maxDiff is the largest difference relative to max(1, |b|).
func maxDiff(a, b [][]float64) float64 {
	d := 0.0
	for i := range a {
		for j := range a[i] {
			d = math.Max(d, math.Abs(a[i][j]-b[i][j])/math.Max(1, math.Abs(b[i][j])))
		}
	}
	return d
}

func TestEngineNonFiniteOutputDiscards(t *testing.T) {
	dir, guid := unpacked(t, "pendulum_nan.xml")
	l := &testLog{}
	in, err := Instantiate(Config{GUID: guid, ResourceLocation: dir + "/resources/", Logger: l.logger()})
	if err != nil {
		t.Fatal(err)
	}
	startInstance(t, in)
	st := OK
	k := 0
	for ; st == OK && k < 100; k++ {
		st = in.DoStep(float64(k)*0.01, 0.01, true)
	}
	if st != Discard || k != 26 {
		t.Fatalf("step %d returned %s; want fmi2Discard at the step ending at 0.26 s", k, st)
	}
	if lt, _ := in.GetRealStatus(LastSuccessfulTime); math.Abs(lt-0.25) > 1e-12 {
		t.Errorf("LastSuccessfulTime %v, want 0.25", lt)
	}
	if term, _ := in.GetBooleanStatus(Terminated); !term {
		t.Errorf("Terminated false after a non-finite output")
	}
	if !l.has(`output "bad" (`) || !l.has(`model.xml:21, expr sqrt(0.25 - time)) is NaN`) {
		t.Errorf("log: %v", l.recs)
	}
}

// TestConcurrentInstances runs instances on several goroutines at once
// (run with -race to check they share nothing mutable).
func TestConcurrentInstances(t *testing.T) {
	const g, n = 4, 200
	res := make([][][]float64, g)
	done := make(chan int)
	for i := 0; i < g; i++ {
		in, _ := newPendulum(t)
		go func() {
			defer func() { done <- i }()
			startInstance(t, in)
			for k := 0; k < n; k++ {
				if in.SetReal([]uint32{pvTau}, []float64{0.3}) != OK || in.DoStep(in.Time(), 0.01, true) != OK {
					t.Error("step failed")
					return
				}
				y := make([]float64, 3)
				in.GetReal([]uint32{pvTipX, pvTipY, pvOmega}, y)
				res[i] = append(res[i], y)
			}
		}()
	}
	for i := 0; i < g; i++ {
		<-done
	}
	for i := 1; i < g; i++ {
		if !sameBits(res[0], res[i]) {
			t.Errorf("goroutine %d differs from goroutine 0", i)
		}
	}
}

func TestPackRejectsWrongRuntime(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "x.so")
	os.WriteFile(lib, []byte("\x7fELF not really"), 0o644)
	err := Pack(filepath.Join("testdata", "pendulum.xml"), filepath.Join(t.TempDir(), "p.fmu"), lib)
	if err == nil || !strings.Contains(err.Error(), "build-runtime.sh") {
		t.Errorf("Pack with a bogus runtime: %v", err)
	}
	if err := checkRuntimeWin64([]byte("MZ not really"), 2); err == nil || !strings.Contains(err.Error(), "not a Windows DLL") {
		t.Errorf("a bogus Windows runtime: %v", err)
	}
	t.Setenv("MBFMU_RUNTIME", filepath.Join(t.TempDir(), "missing"))
	if _, err := FindRuntime(); err == nil || !strings.Contains(err.Error(), "build-runtime.sh") {
		t.Errorf("FindRuntime with a bad MBFMU_RUNTIME: %v", err)
	}
}

// BenchmarkPack packs the test model with the runtime library named by
// $MBFMU_RUNTIME (or found as mbfmu pack finds it); it is skipped when
// there is none (scripts/build-runtime.sh builds it).
func BenchmarkPack(b *testing.B) {
	lib, err := FindRuntime()
	if err != nil {
		b.Skip(err)
	}
	out := filepath.Join(b.TempDir(), "p.fmu")
	for b.Loop() {
		if err := Pack(filepath.Join("testdata", "pendulum.xml"), out, lib); err != nil {
			b.Fatal(err)
		}
	}
}
