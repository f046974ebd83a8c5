package flex

import (
	"math"
	"math/rand"
	"testing"

	"mbfmu/solver/mech"
)

// The analytic element Jacobians K = −∂Q/∂q and C = −∂Q/∂v agree with
// central differences, and the elastic force is −∂U/∂e.
func TestANCFElementDerivatives(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	b := &ancfBeam{ne: 1, ea: 3e4, ei: 2.5, rhoA: 1, beta: 0.01, k: newANCFConst(0.7)}
	el := &ancfElem{b: b}
	for i := range el.d {
		el.d[i] = i
	}
	q := []float64{0.1, 0.2, 0.9, 0.3, 0.75, 0.35, 0.8, -0.4}
	v := make([]float64, 8)
	for i := range q {
		q[i] += 0.05 * rng.NormFloat64()
		v[i] = rng.NormFloat64()
	}
	x := &mech.Ctx{Q: q, V: v}
	f := make([]float64, 8)
	k := make([]float64, 64)
	c := make([]float64, 64)
	el.Eval(x, f, k, c)
	force := func() []float64 {
		g := make([]float64, 8)
		el.Eval(x, g, nil, nil)
		return g
	}
	const h = 1e-6
	for j := 0; j < 8; j++ {
		for _, which := range []string{"q", "v"} {
			vec := q
			J := k
			if which == "v" {
				vec, J = v, c
			}
			s := vec[j]
			vec[j] = s + h
			fp := force()
			vec[j] = s - h
			fm := force()
			vec[j] = s
			for i := 0; i < 8; i++ {
				fd := -(fp[i] - fm[i]) / (2 * h)
				if math.Abs(fd-J[i*8+j]) > 1e-6*(1+math.Abs(fd)) {
					t.Errorf("%s Jacobian (%d,%d): analytic %g, differences %g", which, i, j, J[i*8+j], fd)
				}
			}
		}
	}
	// elastic force = −∂U/∂e (damping off)
	b.beta = 0
	f0 := force()
	for j := 0; j < 8; j++ {
		s := q[j]
		q[j] = s + h
		a1, b1 := el.energy(q)
		q[j] = s - h
		a2, b2 := el.energy(q)
		q[j] = s
		fd := -((a1 + b1) - (a2 + b2)) / (2 * h)
		if math.Abs(fd-f0[j]) > 1e-6*(1+math.Abs(fd)) {
			t.Errorf("force %d: %g, −∂U/∂e %g", j, f0[j], fd)
		}
	}
}
