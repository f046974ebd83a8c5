package flex

import (
	"math"
	"math/rand"
	"testing"

	"mbfmu/solver/mech"
)

// TestANCF3ExactForcesAreEnergyGradients: the spatial cable's exact
// options' forces are −∂U/∂e of their energy, by central differences of
// the energy in a bent, twisted (out of plane) and stretched state, for
// each combination of exact curvature and engineering strain.
func TestANCF3ExactForcesAreEnergyGradients(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const l = 0.1
	for _, c := range []struct{ curv, eng bool }{{true, false}, {false, true}, {true, true}} {
		b := &ancfBeam{ne: 1, ea: 280, ei: 9.3e-3, k: newANCFConst(l)}
		b.exact = newANCFExact(l, 5, c.curv, c.eng)
		e := &ancf3Elem{b: b}
		for i := range e.d {
			e.d[i] = i
		}
		q := []float64{0, 0, 0, 1.05, 0.1, -0.2, 0.098, 0.012, 0.02, 0.9, 0.3, 0.25}
		for i := range q {
			q[i] += 0.01 * rng.NormFloat64()
		}
		f := make([]float64, 12)
		e.Eval(&mech.Ctx{Q: q}, f, nil, nil)
		worst, scale := 0.0, 0.0
		for i := range q {
			h := 1e-6
			qp := append([]float64(nil), q...)
			qm := append([]float64(nil), q...)
			qp[i] += h
			qm[i] -= h
			up := e.Potential(&mech.Ctx{Q: qp})
			um := e.Potential(&mech.Ctx{Q: qm})
			g := -(up - um) / (2 * h)
			worst = math.Max(worst, math.Abs(g-f[i]))
			scale = math.Max(scale, math.Abs(f[i]))
		}
		t.Logf("curvature exact %v, engineering strain %v: forces within %.2g of −∂U/∂e (largest force %.3g)", c.curv, c.eng, worst, scale)
		if worst > 1e-6*scale {
			t.Errorf("curvature exact %v, engineering %v: forces differ from −∂U/∂e by %.3g (scale %.3g)", c.curv, c.eng, worst, scale)
		}
	}
}
