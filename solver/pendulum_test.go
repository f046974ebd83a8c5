package solver

import (
	"math"
	"testing"
)

// The period of the pendulum released horizontal is 4 √(L/g) K(sin 45°).
func TestPendulumPeriodExact(t *testing.T) {
	exact := 4 * math.Sqrt(1/9.81) * ellipticK(math.Sin(math.Pi/4))
	for _, integ := range []string{"genalpha", "hht", "newmark", "bdf2", "rk4"} {
		m := mustCompile(t, pendulumSpec(integ, 1e-4))
		s := mustInit(t, m)
		// find the times at which the bob crosses y = 0 going up (x < 0 side… use vx sign change)
		var crossings []float64
		prevX := s.q[0]
		prevT := s.T
		for s.T < 5.5 {
			if err := m.AdvanceTo(s, s.T+1e-4); err != nil {
				t.Fatal(err)
			}
			x := s.q[0]
			// the bob passes x = 0 moving left once per period
			if prevX > 0 && x <= 0 {
				crossings = append(crossings, prevT+(s.T-prevT)*prevX/(prevX-x))
			}
			prevX, prevT = x, s.T
		}
		if len(crossings) < 2 {
			t.Fatalf("%s: no full period found (%v)", integ, crossings)
		}
		period := crossings[1] - crossings[0]
		if math.Abs(period-exact) > 2e-4 {
			t.Errorf("%s: period %.6f s, exact %.6f s", integ, period, exact)
		}
		t.Logf("%s: period %.7f exact %.7f stats %+v", integ, period, exact, s.Stats())
	}
}
