package fmu

import (
	"os"
	"path/filepath"
	"testing"
)

// furutaModel is the flagship spatial example, examples/furuta.
const furutaModel = "../examples/furuta/model.xml"

// newFuruta instantiates the Furuta pendulum of examples/furuta from an
// unpacked FMU folder (resources/model.xml only, as the runtime reads it),
// initialised at a 5° tilt, and returns it with the value references of its
// input tau and its four outputs.
func newFuruta(tb testing.TB) (in *Instance, vrTau uint32, vrOut []uint32) {
	tb.Helper()
	data, err := os.ReadFile(furutaModel)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "resources"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "resources", ModelFileName), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	in, err = Instantiate(Config{InstanceName: "furuta", GUID: GUID(data), ResourceLocation: "file://" + dir + "/resources"})
	if err != nil {
		tb.Fatal(err)
	}
	byName := map[string]uint32{}
	for _, v := range in.Description().Variables {
		byName[v.Name] = v.VR
	}
	for _, n := range []string{"tau", "theta", "theta_dot", "alpha", "alpha_dot"} {
		if _, ok := byName[n]; !ok {
			tb.Fatalf("the Furuta FMU has no variable %q", n)
		}
	}
	startInstance(tb, in)
	return in, byName["tau"], []uint32{byName["theta"], byName["theta_dot"], byName["alpha"], byName["alpha_dot"]}
}

// furutaLaw is a stabilising state feedback of the Furuta pendulum (the
// LQR gain of the reference example of examples/furuta/README.md, Q = I,
// R = 1, on θ, α, θ̇, α̇), so that the steady-state steps below are those
// of the balancing loop.
func furutaLaw(y []float64) float64 {
	return 1.0*y[0] + 1.3164218028*y[1] + 18.3030000516*y[2] + 2.7748074401*y[3]
}

// TestFurutaDoStepAllocs proves that the balancing loop's communication
// step of the spatial Furuta FMU (set the torque, one 1 ms doStep, read the
// four outputs) allocates nothing.
func TestFurutaDoStepAllocs(t *testing.T) {
	in, vrTau, vrOut := newFuruta(t)
	u, y := []float64{0}, make([]float64, 4)
	vrIn := []uint32{vrTau}
	step := func() {
		u[0] = furutaLaw(y)
		in.SetReal(vrIn, u)
		if st := in.DoStep(in.Time(), 1e-3, true); st != OK {
			t.Fatalf("doStep at t = %g: %v", in.Time(), st)
		}
		in.GetReal(vrOut, y)
	}
	in.GetReal(vrOut, y)
	for range 100 {
		step()
	}
	if a := testing.AllocsPerRun(1000, step); a != 0 {
		t.Errorf("%v allocations per communication step of the Furuta FMU, want 0", a)
	}
}

// BenchmarkFurutaDoStep is one 1 ms communication step of the Furuta FMU
// in the balancing loop (torque set, doStep, outputs read), in-process.
func BenchmarkFurutaDoStep(b *testing.B) {
	in, vrTau, vrOut := newFuruta(b)
	u, y := []float64{0}, make([]float64, 4)
	vrIn := []uint32{vrTau}
	in.GetReal(vrOut, y)
	b.ReportAllocs()
	for b.Loop() {
		u[0] = furutaLaw(y)
		in.SetReal(vrIn, u)
		if st := in.DoStep(in.Time(), 1e-3, true); st != OK {
			b.Fatalf("doStep at t = %g: %v", in.Time(), st)
		}
		in.GetReal(vrOut, y)
	}
}
