package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"mbfmu/solver/mech"
)

// TestRotateBack checks the predictor's rotation exp(−[d]×) v against the
// quaternion rotation, below and above the series threshold.
func TestRotateBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, a := range []float64{0, 1e-6, 0.01, 0.1, 0.22, 0.2237, 0.3, 1, 3} {
		for trial := 0; trial < 5; trial++ {
			d := mech.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			n := math.Sqrt(mech.Dot(d, d))
			for i := range d {
				d[i] *= a / n
			}
			v := mech.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			got := rotateBack(d, v)
			want := mech.QuatRotate(mech.QuatConj(mech.QuatExp(d)), v)
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-10*(1+math.Abs(want[i])) {
					t.Fatalf("|d| = %g: exp(−[d]×)v = %v, want %v", a, got, want)
				}
			}
		}
	}
}

// TestRotInertia checks the classification of inertias for coRotate.
func TestRotInertia(t *testing.T) {
	for _, c := range []struct {
		J   [3]float64
		off float64
		sym int8
	}{
		{[3]float64{0.234375, 0.46875, 0.234375}, 0, 1}, // the heavy top: body y
		{[3]float64{1, 1, 2}, 0, 2},
		{[3]float64{3, 2, 2}, 0, 0},
		{[3]float64{2, 2, 2}, 0, symIso},
		{[3]float64{1, 2, 3}, 0, symNone},
		{[3]float64{1, 1, 2}, 0.1, symNone}, // principal axes not the body's
	} {
		m := &Model{nv: 6, rots: []rotBlock{{q: 3, v: 3}}}
		m.mPtr = []int32{0, 1, 2, 3, 5, 7, 8}
		m.mCol = []int32{0, 1, 2, 3, 4, 3, 4, 5}
		m.mVal = []float64{5, 5, 5, c.J[0], c.off, c.off, c.J[1], c.J[2]}
		m.rotInertia()
		if got := m.rotSym[0]; got != c.sym {
			t.Errorf("J = %v (off-diagonal %g): %d, want %d", c.J, c.off, got, c.sym)
		}
	}
}

// TestSetCoRot checks the turn R = A_fᵀ A and the choice to apply it
// against the quaternion product and the angle between the turn's axis
// and the body's axis of symmetry.
func TestSetCoRot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m := &Model{rots: []rotBlock{{q: 0, v: 0}}, rotSym: []int8{1}}
	s := &State{q: make([]float64, 4), qf: make([]float64, 4), rc: make([]mech.Mat3, 1), rcOn: make([]bool, 1)}
	for trial := 0; trial < 200; trial++ {
		f := mech.QuatExp(mech.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		axis := mech.Vec3{0.3 * rng.NormFloat64(), 1, 0.3 * rng.NormFloat64()}
		th := 0.5 * rng.Float64()
		for i := range axis {
			axis[i] *= th / math.Sqrt(mech.Dot(axis, axis))
		}
		n := mech.QuatMul(f, mech.QuatExp(axis))
		copy(s.qf, f[:])
		copy(s.q, n[:])
		m.setCoRot(s)
		c := axis[1] * axis[1] / mech.Dot(axis, axis) // cos² of the angle to body y
		if want := c > 0.99; s.rcOn[0] != want && math.Abs(c-0.99) > 1e-9 {
			t.Fatalf("turn %v: applied %v, want %v (cos² %g)", axis, s.rcOn[0], want, c)
		}
		if !s.rcOn[0] {
			continue
		}
		want := mech.QuatMat(mech.QuatMul(mech.QuatConj(f), n))
		for i := range want {
			if math.Abs(s.rc[0][i]-want[i]) > 1e-14 {
				t.Fatalf("R = %v, want %v", s.rc[0], want)
			}
		}
	}
}
