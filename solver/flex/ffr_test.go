package flex

import (
	"math"
	"testing"
)

// The Krylov-reduced transfer function H_r(s) = b_rᵀ(s²M_r + K_r)⁻¹b_r of
// the clamped beam (tip force to tip deflection) matches the moments of
// the full one about σ (Taylor coefficients of H(σ + δ) in δ): with s
// vectors at least the first 2s (about σ ≠ 0, s from the subspace and as
// many again from the symmetry of the Galerkin projection; about σ = 0 the
// odd ones vanish and even more match). A modal basis of the same size
// does not match them (so the test can fail).
func TestKrylovMoments(t *testing.T) {
	b := &ffrBeam{ne: 20, nf: 60, le: 1.8 / 20, ea: 6.895e10 * 2.5e-4, ei: 6.895e10 * 1.302e-10, rhoA: 2.767e3 * 2.5e-4}
	b.clampRoot()
	b.setGauss()
	M, K, _, _, _, _, _ := b.feMatrices()
	n := b.nf
	B := make([]float64, n)
	B[n-2] = 1 // tip transverse force
	for _, c := range []struct {
		sigma float64
		s     int
		match int // moments that must match
	}{{0, 5, 10}, {0, 3, 6}, {30, 4, 8}, {200, 3, 6}} {
		V, err := krylovBasis(M, K, n, B, 1, c.sigma, c.s)
		if err != nil {
			t.Fatal(err)
		}
		Vm, _, err := modalBasis(M, K, n, c.s)
		if err != nil {
			t.Fatal(err)
		}
		full, err := transferMoments(M, K, n, B, 1, c.sigma, c.match+2)
		if err != nil {
			t.Fatal(err)
		}
		for _, basis := range []struct {
			name string
			V    []float64
		}{{"krylov", V}, {"modal", Vm}} {
			red := &ffrBeam{nf: n, ns: c.s, v: basis.V}
			Mr, Kr := red.project(M), red.project(K)
			Br := red.projectVec(B)
			rm, err := transferMoments(Mr, Kr, c.s, Br, 1, c.sigma, c.match+2)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for k := 0; k < c.match; k++ {
				scale := math.Abs(full[k][0])
				if scale < 1e-12*math.Abs(full[0][0])*math.Pow(1e-3, float64(k)) {
					continue // a vanishing odd moment about σ = 0
				}
				worst = math.Max(worst, math.Abs(rm[k][0]/full[k][0]-1))
			}
			t.Logf("σ = %g, %d %s vectors: worst relative moment error over %d moments %.2g", c.sigma, c.s, basis.name, c.match, worst)
			if basis.name == "krylov" && worst > 1e-6 {
				t.Errorf("σ = %g, s = %d: Krylov moments differ by %.3g", c.sigma, c.s, worst)
			}
			if basis.name == "modal" && worst < 1e-4 {
				t.Errorf("σ = %g, s = %d: a modal basis matched the moments (%.3g): the test cannot tell", c.sigma, c.s, worst)
			}
		}
	}
}
