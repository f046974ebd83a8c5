package solver_test

import (
	"math"
	"testing"

	"mbfmu/solver"
)

// TestANCFSlopeNewtonWeight: Newton weighs an ANCF node's slope increments
// by 4ℓ/27, the displacement of the axis they cause (docs/model-format.md,
// newton-tol). On seed 004's pendulum, planar (160 elements) and spatial
// (40), at the examples' newton-tol 1e-6 the tip must follow a run at
// 1e-10 to well inside the tolerance (1e-7 m; measured 1e-9–1e-8), and
// the steps must be cheaper than when slopes were held to 1e-6 absolute,
// 27/(4ℓ) = 1000 and 270 times tighter than positions (planar 2.91
// against 3.21 iterations a step and 116 against 344 factorisations,
// spatial 3.86 against 4.34 and 28 against 70).
func TestANCFSlopeNewtonWeight(t *testing.T) {
	cases := []struct {
		path          string
		params        map[string]float64
		tip           []string
		maxIt, maxFac float64
	}{
		{"ancf-pendulum/model.xml", nil, []string{"tip_x", "tip_y"}, 3.05, 200},
		{"ancf-pendulum-3d/model.xml", map[string]float64{"n": 40}, []string{"tip_x", "tip_y", "tip_z"}, 4.0, 45},
	}
	for _, c := range cases {
		run := func(tol float64) ([][]float64, solver.Stats) {
			ms := exLoadSpec(t, c.path)
			ms.Settings.NewtonTol = tol
			m := specCompile(t, ms, c.params, c.path)
			ch := exNewChannels(t, m, c.tip...)
			s := m.NewState()
			if err := m.Init(s); err != nil {
				t.Fatal(err)
			}
			out := make([][]float64, len(c.tip))
			for k := 1; k <= 110; k++ {
				if err := m.AdvanceTo(s, float64(k)*0.01); err != nil {
					t.Fatalf("%s, tol %g: %v", c.path, tol, err)
				}
				ch.eval(s)
				for i, n := range c.tip {
					out[i] = append(out[i], ch.get(n))
				}
			}
			return out, s.Stats()
		}
		got, st := run(1e-6)
		ref, _ := run(1e-10)
		d := 0.0
		for i := range got {
			d = math.Max(d, maxDiff(got[i], ref[i]))
		}
		it := float64(st.NewtonIters) / float64(st.Steps)
		t.Logf("%s: tip within %.2g m of the run at tol 1e-10; %.3f iterations a step, %d factorisations", c.path, d, it, st.Factorizations)
		if d > 1e-7 {
			t.Errorf("%s: tip %.3g m from the converged run (want ≤ 1e-7 m at tol 1e-6)", c.path, d)
		}
		if it > c.maxIt || float64(st.Factorizations) > c.maxFac {
			t.Errorf("%s: %.3f iterations a step and %d factorisations (want ≤ %g and ≤ %g)", c.path, it, st.Factorizations, c.maxIt, c.maxFac)
		}
	}
}
