package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"mbfmu/solver/mech"
)

// TestTangentOperator checks setTangentOps against its definition,
// exp(θ + δ) = exp(θ) ⊗ exp(T(θ) δ) to first order in δ, by central
// differences of log(exp(θ)⁻¹ ⊗ exp(θ + εeⱼ)) for rotations from 1e-9 rad
// to 2.5 rad, on both sides of the series threshold.
func TestTangentOperator(t *testing.T) {
	m := &Model{rots: []rotBlock{{q: 0, v: 0}}}
	s := &State{dq: make([]float64, 3), tops: make([]mech.Mat3, 1)}
	rng := rand.New(rand.NewPCG(3, 11))
	for _, a := range []float64{1e-9, 1e-5, 0.01, 0.1, 0.2, 0.22, 0.2237, 0.224, 0.3, 1, 2.5} {
		for trial := 0; trial < 4; trial++ {
			u := mech.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			th := mech.Scale(a/mech.Norm(u), u)
			copy(s.dq, th[:])
			m.setTangentOps(s)
			T := s.tops[0]
			if a >= 0.01 {
				// the closed form I − c₁[θ]× + c₂[θ]×² (round-off of the
				// cancellations in c₁, c₂ below 1e-13 for |θ| ≥ 0.01)
				sn, cs := math.Sincos(a)
				c1, c2 := (1-cs)/(a*a), (a-sn)/(a*a*a)
				S := mech.Skew(th)
				S2 := mech.MulMM(&S, &S)
				for e := range T {
					ref := mech.Ident[e] - c1*S[e] + c2*S2[e]
					if d := math.Abs(T[e] - ref); d > 1e-13 {
						t.Errorf("|θ| = %g: T[%d] = %.17g, closed form %.17g", a, e, T[e], ref)
					}
				}
			}
			inv := mech.QuatConj(mech.QuatExp(th))
			const eps = 1e-5
			for j := 0; j < 3; j++ {
				tp, tm := th, th
				tp[j] += eps
				tm[j] -= eps
				dp := mech.QuatLog(mech.QuatMul(inv, mech.QuatExp(tp)))
				dm := mech.QuatLog(mech.QuatMul(inv, mech.QuatExp(tm)))
				for i := 0; i < 3; i++ {
					fd := (dp[i] - dm[i]) / (2 * eps)
					if e := math.Abs(T[3*i+j] - fd); e > 1e-9 {
						t.Errorf("|θ| = %g: T[%d][%d] = %.15g, differences %.15g (error %.2g)", a, i, j, T[3*i+j], fd, e)
					}
				}
			}
		}
	}
}
