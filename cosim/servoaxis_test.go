package cosim

import (
	"math"
	"testing"
)

// The servo-axis flagship: the PID with friction and velocity
// feed-forward moves the load through the DC motor, the backlash gearbox
// and the flexible shaft, with bearing friction, as examples/servo-axis
// says: its checks pass, and the FMU (motor current, bristle deflection
// and backlash in its state) gives the same result rows as the model
// run in-process, bit for bit.
func TestServoAxisLoop(t *testing.T) {
	const dir = "../examples/servo-axis/"
	fmuPath := packFMU(t, dir+"model.xml", t.TempDir())
	run := func(viaFMU bool) (*Summary, *memWriter) { return runExampleLoop(t, dir, fmuPath, viaFMU) }
	sum, w := run(true)
	if !sum.Passed() {
		t.Errorf("checks failed:\n%s", sum)
	}
	th, ref := w.col(t, "plant.theta"), w.col(t, "ref.y")
	worst := 0.0
	for i := range th {
		worst = math.Max(worst, math.Abs(th[i]-ref[i]))
	}
	t.Logf("largest tracking error %.3g°", worst*180/math.Pi)
	_, w2 := run(false)
	th2 := w2.col(t, "plant.theta")
	for i := range th {
		if math.Float64bits(th[i]) != math.Float64bits(th2[i]) {
			t.Fatalf("row %d: FMU %.17g, in-process model %.17g", i, th[i], th2[i])
		}
	}
}
