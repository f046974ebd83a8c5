package solver

import (
	"math"
	"strings"
	"testing"
)

// impactModel is a 1 kg slider on a horizontal rail, at 1 m/s towards a
// stop 50 mm away (Hunt–Crossley, k = 1e7 N/m^1.5), or dropped 0.2 m onto
// the stop under gravity.
func impactModel(step, gravity, vel, extra string) string {
	return `<model name="imp"><settings end="1 s" step="` + step + `" gravity="` + gravity + `"/>
  <ground><marker name="O"/></ground>
  <body name="b" mass="1" inertia="0.01" velocity="` + vel + `"><marker name="c"/></body>
  <translational name="rail" i="ground.O" j="b.c"/>
  ` + extra + `
</model>`
}

// A stop with a restitution sends the slider back with e times its impact
// speed, whatever the step (the touch is located within the step); under
// gravity (the touch speed located with the step's acceleration) too.
func TestStopRestitution(t *testing.T) {
	for _, c := range []struct {
		name, step, gravity, vel, stop string
		v0, e                          float64
	}{
		{"rail 1 ms", "1 ms", "0 0", "1 0", `<stop name="s" joint="rail" upper="0.05" k="1e5" exponent="1.5" restitution="0.6"/>`, 1, 0.6},
		{"rail 0.1 ms", "0.1 ms", "0 0", "1 0", `<stop name="s" joint="rail" upper="0.05" k="1e7" exponent="1.5" restitution="0.6"/>`, 1, 0.6},
		{"rail e = 0.9", "1 ms", "0 0", "1 0", `<stop name="s" joint="rail" upper="0.0503" k="1e4" exponent="1" restitution="0.9"/>`, 1, 0.9},
		{"drop 20 µs", "20 us", "9.81 0", "0 0", `<stop name="s" joint="rail" upper="0.2" k="1e9" exponent="1.5" restitution="0.5"/>`, math.Sqrt(2 * 9.81 * 0.2), 0.5},
	} {
		m, s := loadDrive(t, impactModel(c.step, c.gravity, c.vel, c.stop))
		// run until the slider leaves the stop, then compare its speed
		// (with gravity, corrected back to the limit: v² − 2 g (x − lim))
		var vOut float64
		left := false
		dt := 0.001
		if c.step == "20 us" {
			dt = 2e-5
		}
		for k := 1; k <= 30000 && !left; k++ {
			if err := m.AdvanceTo(s, dt*float64(k)); err != nil {
				t.Fatal(err)
			}
			v := chanAt(t, m, s, "b.vx")
			if v < 0 && chanAt(t, m, s, "s.effort") == 0 {
				lim := 0.05
				if strings.Contains(c.stop, "0.0503") {
					lim = 0.0503
				}
				if c.gravity != "0 0" {
					lim = 0.2
				}
				g := 0.0
				if c.gravity != "0 0" {
					g = 9.81
				}
				x := chanAt(t, m, s, "b.x")
				vOut = -math.Sqrt(v*v + 2*g*(lim-x))
				left = true
			}
		}
		if !left {
			t.Fatalf("%s: the slider never left the stop", c.name)
		}
		e := -vOut / c.v0
		t.Logf("%s: restitution %.6f (want %g)", c.name, e, c.e)
		if math.Abs(e-c.e) > 2e-3 {
			t.Errorf("%s: rebounds with e = %.6f, want %g", c.name, e, c.e)
		}
	}
}
