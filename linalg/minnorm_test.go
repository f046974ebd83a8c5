package linalg

import (
	"math"
	"math/rand"
	"testing"
)

// TestMinNormAgainstNormalEquations checks A⁺b on a rank-deficient,
// inconsistent system against the closed form of the least-norm
// least-squares solution for A = F Gᵀ of rank r: x = G (GᵀG)⁻¹ (FᵀF)⁻¹ Fᵀ b,
// computed here by small Gaussian eliminations; on a regular system it
// must be A⁻¹b.
func TestMinNormAgainstNormalEquations(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const n, r = 6, 3
	f := make([]float64, n*r)
	g := make([]float64, n*r)
	for i := range f {
		f[i], g[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < r; k++ {
				a[i*n+j] += f[i*r+k] * g[j*r+k]
			}
		}
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	// reference: y = (FᵀF)⁻¹ Fᵀ b, z = (GᵀG)⁻¹ y, x = G z
	gram := func(m []float64) []float64 {
		o := make([]float64, r*r)
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				for k := 0; k < n; k++ {
					o[i*r+j] += m[k*r+i] * m[k*r+j]
				}
			}
		}
		return o
	}
	y := make([]float64, r)
	for i := 0; i < r; i++ {
		for k := 0; k < n; k++ {
			y[i] += f[k*r+i] * b[k]
		}
	}
	gauss(gram(f), y, r)
	gauss(gram(g), y, r)
	want := make([]float64, n)
	for i := 0; i < n; i++ {
		for k := 0; k < r; k++ {
			want[i] += g[i*r+k] * y[k]
		}
	}
	w := NewMinNorm(n)
	x := append([]float64(nil), b...)
	if rank := w.Solve(a, n, x); rank != r {
		t.Fatalf("rank %d, want %d", rank, r)
	}
	for i := range x {
		if math.Abs(x[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Errorf("x[%d] = %.15g, want %.15g", i, x[i], want[i])
		}
	}
	// a regular system: A x = b exactly
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	copy(x, b)
	if rank := w.Solve(a, n, x); rank != n {
		t.Fatalf("rank %d of a random matrix", rank)
	}
	for i := 0; i < n; i++ {
		res := -b[i]
		for j := 0; j < n; j++ {
			res += a[i*n+j] * x[j]
		}
		if math.Abs(res) > 1e-12 {
			t.Errorf("residual %d: %.3g", i, res)
		}
	}
	if al := testing.AllocsPerRun(20, func() { copy(x, b); w.Solve(a, n, x) }); al != 0 {
		t.Errorf("%v allocations per solve", al)
	}
}

// gauss solves the r×r system m x = b in place (no pivoting: the Gram
// matrices here are positive definite).
func gauss(m, b []float64, r int) {
	for k := 0; k < r; k++ {
		for i := k + 1; i < r; i++ {
			l := m[i*r+k] / m[k*r+k]
			for j := k; j < r; j++ {
				m[i*r+j] -= l * m[k*r+j]
			}
			b[i] -= l * b[k]
		}
	}
	for i := r - 1; i >= 0; i-- {
		for j := i + 1; j < r; j++ {
			b[i] -= m[i*r+j] * b[j]
		}
		b[i] /= m[i*r+i]
	}
}
