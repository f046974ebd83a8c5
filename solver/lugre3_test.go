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
	checkBallOnIncline(t, "genalpha", `friction="lugre" bristle-stiffness="1e5" bristle-damping="600"`)
}

// inclineAlpha is the slope of the incline the spatial friction tests
// roll and slide balls on.
const inclineAlpha = 20 * math.Pi / 180

// inclineBall returns a model of a solid ball (1 kg, r = 0.1 m) resting on
// its contact law on a 20° incline, with the integrator, step, the
// ball's further attributes and the contact's friction attributes.
func inclineBall(integ, step, ball, friction string) string {
	r := 0.1 - 9.3e-6 // resting on the law
	return `<model name="ball" dimension="3"><settings end="2 s" step="` + step + `" gravity="0 0 -9.81" integrator="` + integ + `"/>
  <ground><marker name="slope" axis="0 1 0" angle="20 deg"/></ground>
  <body name="ball" mass="1" inertia="0.004 0.004 0.004" at="` + ftoa(r*math.Sin(inclineAlpha)) + ` 0 ` + ftoa(r*math.Cos(inclineAlpha)) + `" ` + ball + `/>
  <contact kind="sphere-plane" name="c" i="ball" radius="0.1" j="ground.slope" k="1e6" c="2000" ` + friction + `/>
</model>`
}

// slopeSpeed returns the ball's speed down the incline.
func slopeSpeed(t *testing.T, m *Model, s *State, ball string) float64 {
	t.Helper()
	return chanAt(t, m, s, ball+".vx")*math.Cos(inclineAlpha) - chanAt(t, m, s, ball+".vz")*math.Sin(inclineAlpha)
}

// checkBallOnIncline checks the ball on the incline with the friction
// attributes given: with μ = 0.5 it rolls, its centre accelerating at
// (5/7) g sin α, with μ = 0.05 it slides at g (sin α − μ cos α), to 1e-9
// relative (the change of its speed from 1 s to 2 s).
func checkBallOnIncline(t *testing.T, integ, friction string) {
	t.Helper()
	for _, c := range []struct {
		mu   string
		want float64
	}{
		{"0.5", 5.0 / 7 * 9.81 * math.Sin(inclineAlpha)},
		{"0.05", 9.81 * (math.Sin(inclineAlpha) - 0.05*math.Cos(inclineAlpha))},
	} {
		m, s := loadDrive(t, inclineBall(integ, "1 ms", "", friction+` mu-static="`+c.mu+`" mu-dynamic="`+c.mu+`"`))
		if err := m.AdvanceTo(s, 1); err != nil {
			t.Fatal(err)
		}
		v1 := slopeSpeed(t, m, s, "ball")
		if err := m.AdvanceTo(s, 2); err != nil {
			t.Fatal(err)
		}
		a := slopeSpeed(t, m, s, "ball") - v1
		t.Logf("%s μ = %s: acceleration %.12g m/s², want %.12g (relative %.2g); slip %.3g m/s", integ, c.mu, a, c.want, math.Abs(a/c.want-1), chanAt(t, m, s, "c.slip"))
		if math.Abs(a/c.want-1) > 1e-9 {
			t.Errorf("%s μ = %s: acceleration %.12g m/s², want %.12g", integ, c.mu, a, c.want)
		}
	}
}
