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
		J    [3]float64
		off  float64
		axis mech.Vec3
		iso  bool
	}{
		{[3]float64{0.234375, 0.46875, 0.234375}, 0, mech.Vec3{0, 1, 0}, false}, // the heavy top
		{[3]float64{1, 1, 2}, 0, mech.Vec3{0, 0, 1}, false},
		{[3]float64{3, 2, 2}, 0, mech.Vec3{1, 0, 0}, false},
		{[3]float64{2, 2, 2}, 0, mech.Vec3{}, true},
		{[3]float64{1, 2, 3}, 0, mech.Vec3{}, false},
		{[3]float64{1, 1, 2}, 0.1, mech.Vec3{}, false}, // principal axes not the body's
	} {
		m := &Model{nv: 6, rots: []rotBlock{{q: 3, v: 3}}}
		m.mPtr = []int32{0, 1, 2, 3, 5, 7, 8}
		m.mCol = []int32{0, 1, 2, 3, 4, 3, 4, 5}
		m.mVal = []float64{5, 5, 5, c.J[0], c.off, c.off, c.J[1], c.J[2]}
		m.rotInertia()
		if got := m.rotAxis[0]; got.axis != c.axis || got.iso != c.iso {
			t.Errorf("J = %v (off-diagonal %g): %+v, want axis %v iso %v", c.J, c.off, got, c.axis, c.iso)
		}
	}
}
