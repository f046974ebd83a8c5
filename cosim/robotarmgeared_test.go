package cosim

import (
	"math"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// The robot arm with 50:1 gearboxes (exact gear couplers to motor rotor
// bodies) and LuGre joint friction follows its trajectory under the PIDs
// as examples/robot-arm-geared says: its checks pass through the FMU, the
// FMU (the bristle deflections in its state) gives the same rows as the
// model run in-process, bit for bit, and every rotor turns exactly 50
// times its joint (to round-off) along the run.
func TestRobotArmGearedLoop(t *testing.T) {
	const dir = "../examples/robot-arm-geared/"
	fmuPath := packFMU(t, dir+"model.xml", t.TempDir())
	run := func(viaFMU bool) (*Summary, *memWriter) { return runExampleLoop(t, dir, fmuPath, viaFMU) }
	sum, w := run(true)
	if !sum.Passed() {
		t.Errorf("checks failed:\n%s", sum)
	}
	_, w2 := run(false)
	for _, c := range []string{"plant.q1", "plant.q2", "plant.q3"} {
		a, b := w.col(t, c), w2.col(t, c)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s row %d: FMU %.17g, in-process model %.17g", c, i, a[i], b[i])
			}
		}
	}
	// the gear ratio along a run of the model with the inputs of the loop's end
	ms, err := xml.LoadFile(dir + "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	for k := 0; k < 3; k++ {
		s.SetInput(k, []float64{3, 25, 4}[k])
	}
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(m.Channels()))
	idx := func(n string) int {
		k, ok := m.ChannelIndex(n)
		if !ok {
			t.Fatalf("no channel %s", n)
		}
		return k
	}
	m.EvalChannels(s, out)
	start := map[string]float64{}
	for _, n := range []string{"m1.angle", "m2.angle", "m3.angle", "yaw.angle", "shoulder.angle", "elbow.angle"} {
		start[n] = out[idx(n)]
	}
	worst := 0.0
	for step := 1; step <= 500; step++ {
		if err := m.AdvanceTo(s, 0.001*float64(step)); err != nil {
			t.Fatal(err)
		}
		m.EvalChannels(s, out)
		for _, pair := range [][2]string{{"m1.angle", "yaw.angle"}, {"m2.angle", "shoulder.angle"}, {"m3.angle", "elbow.angle"}} {
			dm := out[idx(pair[0])] - start[pair[0]]
			dj := out[idx(pair[1])] - start[pair[1]]
			worst = math.Max(worst, math.Abs(dm-50*dj))
		}
	}
	if worst > 1e-9 {
		t.Errorf("rotor angle off 50 × joint angle by %.3g rad", worst)
	}
	t.Logf("rotors at 50 × their joints to %.2g rad over 0.5 s", worst)
}
