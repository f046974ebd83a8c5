package solver

import (
	"math"
	"testing"
)

// A solid ball (1 kg, r = 0.1 m) on a 20° incline, its contact's friction
// LuGre bristles in its state: with μ = 0.5 it rolls without slipping,
// its centre accelerating at (5/7) g sin α; with μ = 0.05 it slides at
// g (sin α − μ cos α). Measured as the change of the centre's speed along
// the slope from 1 s to 2 s.
func TestBallOnInclineLuGre(t *testing.T) {
	alpha := 20 * math.Pi / 180
	model := func(mu string) string {
		return `<model name="ball" dimension="3"><settings end="2 s" step="1 ms" gravity="0 0 -9.81"/>
  <ground><marker name="slope" axis="0 1 0" angle="20 deg"/></ground>
  <body name="ball" mass="1" inertia="0.004 0.004 0.004" at="` + ftoa(0.1*math.Sin(alpha)-9.3e-6*math.Sin(alpha)) + ` 0 ` + ftoa(0.1*math.Cos(alpha)-9.3e-6*math.Cos(alpha)) + `"/>
  <contact kind="sphere-plane" name="c" i="ball" radius="0.1" j="ground.slope" k="1e6" c="2000"
           friction="lugre" mu-static="` + mu + `" mu-dynamic="` + mu + `" bristle-stiffness="1e5" bristle-damping="600"/>
</model>`
	}
	for _, c := range []struct {
		mu   string
		want float64
	}{
		{"0.5", 5.0 / 7 * 9.81 * math.Sin(alpha)},
		{"0.05", 9.81 * (math.Sin(alpha) - 0.05*math.Cos(alpha))},
	} {
		m, s := loadDrive(t, model(c.mu))
		speed := func() float64 {
			// along the slope, downhill: −(cos α, 0, −sin α)… the slope's x axis turned by +α about y points down-hill in x and −z
			vx, vz := chanAt(t, m, s, "ball.vx"), chanAt(t, m, s, "ball.vz")
			return vx*math.Cos(alpha) - vz*math.Sin(alpha)
		}
		if err := m.AdvanceTo(s, 1); err != nil {
			t.Fatal(err)
		}
		v1 := speed()
		if err := m.AdvanceTo(s, 2); err != nil {
			t.Fatal(err)
		}
		a := speed() - v1
		t.Logf("μ = %s: acceleration %.12g m/s², want %.12g (relative %.2g)", c.mu, a, c.want, math.Abs(a/c.want-1))
		if math.Abs(a/c.want-1) > 1e-9 {
			t.Errorf("μ = %s: acceleration %.12g m/s², want %.12g", c.mu, a, c.want)
		}
	}
}
