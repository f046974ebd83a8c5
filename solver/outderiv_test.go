package solver_test

import (
	"math"
	"strings"
	"testing"

	"mbfmu/spec"
)

// OutputDerivatives against the motion itself: from the same state, two
// short RK4 steps of Δ give y′ ≈ (−3y₀ + 4y₁ − y₂)/(2Δ), an independent
// estimate (the integrator's trajectory, error O(Δ²)) of what
// OutputDerivatives computes from Taylor-moved states and acceleration
// solves. Each example runs with its inputs ramping, so the inputs'
// derivatives count too. (RK4: its state carries the accelerations of the
// equations of motion; the generalized-α family's carry an algorithmic
// error of their own, which a two-step difference would see.)
func TestOutputDerivatives(t *testing.T) {
	for _, c := range []struct {
		name string
		step float64 // RK4's step (0: the model's)
		t1   float64
	}{
		{"pendulum", 0, 0.3}, {"cartpole", 0, 0.3}, {"furuta", 0, 0.3}, {"robot-arm", 0, 0.3},
		{"slider-crank-pid", 0, 0.3}, {"heavy-top", 0, 0.3}, {"spatial-slider-crank", 0, 0.3},
		{"ancf-pendulum", 2e-5, 0.02},
	} {
		name := c.name
		t.Run(name, func(t *testing.T) {
			m := exLoad(t, name, func(st *spec.Settings) {
				st.Integrator = "rk4"
				if c.step > 0 {
					st.Step = c.step
				}
			})
			s := exInit(t, m)
			ni := len(m.InputInfo())
			for i := 0; i < ni; i++ {
				s.SetInput(i, 0.02)
				if err := s.SetInputDerivative(i, 1, 0.3); err != nil {
					t.Fatal(err)
				}
			}
			t1 := m.Settings().Start + c.t1
			if err := m.AdvanceTo(s, t1); err != nil {
				t.Fatal(err)
			}
			n := len(m.OutputInfo())
			got := make([]float64, n)
			before, _ := s.MarshalBinary()
			if err := m.OutputDerivatives(s, got); err != nil {
				t.Fatal(err)
			}
			if after, _ := s.MarshalBinary(); string(after) != string(before) {
				t.Fatal("OutputDerivatives changed the state")
			}
			dt := 2e-5
			if c.step > 0 {
				dt = c.step / 100 // below the period of the beam's axial modes
			}
			y := [3][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
			m.EvalOutputs(s, y[0])
			for k := 1; k <= 2; k++ {
				if err := m.Step(s, dt); err != nil {
					t.Fatal(err)
				}
				m.EvalOutputs(s, y[k])
			}
			for i, o := range m.OutputInfo() {
				if name == "ancf-pendulum" && strings.Contains(o.Name, "energy") {
					// the beam's strain energy is summed from strains of
					// order 1e-7 (|r_x| − 1): it holds about five
					// significant digits, and any difference quotient of
					// it, these included, scatters by ~3e-3 J/s
					continue
				}
				fd := (-3*y[0][i] + 4*y[1][i] - y[2][i]) / (2 * dt)
				scale := math.Max(math.Abs(fd), 1e-3*(1+math.Abs(y[0][i]))/0.01)
				if d := math.Abs(got[i] - fd); d > 2e-3*scale {
					t.Errorf("d(%s)/dt = %.9g, trajectory gives %.9g", o.Name, got[i], fd)
				} else {
					t.Logf("d(%s)/dt = %.9g, trajectory %.9g", o.Name, got[i], fd)
				}
			}
		})
	}
}
