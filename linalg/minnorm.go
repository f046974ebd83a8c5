package linalg

import "math"

// MinNorm solves small square systems A x = b that may be singular and
// inconsistent, in the least-squares sense with the least norm: x =
// A⁺ b, the pseudo-inverse from a singular value decomposition by
// one-sided Jacobi rotations (Hestenes), singular values below Tol of the
// largest taken as zero. It is meant for the few rows of a statically
// indeterminate set (the stick rows of a body on three feet), where a
// regularized factorization turns the inconsistent round-off part of b
// into forces of the size 1/ε. Its methods do not allocate.
type MinNorm struct {
	// Tol is the relative threshold below which a singular value is
	// treated as zero (1e-10 from NewMinNorm).
	Tol     float64
	u, v, c []float64
	cap     int
}

// NewMinNorm returns a work space for systems of up to n unknowns.
func NewMinNorm(n int) *MinNorm {
	return &MinNorm{Tol: 1e-10, u: make([]float64, n*n), v: make([]float64, n*n), c: make([]float64, n), cap: n}
}

// Solve overwrites b[:n] with A⁺ b for the n×n row-major matrix a (not
// changed). It returns the numerical rank of A.
func (w *MinNorm) Solve(a []float64, n int, b []float64) int {
	if n > w.cap {
		panic("linalg: MinNorm system larger than its work space")
	}
	u, v := w.u[:n*n], w.v[:n*n]
	copy(u, a[:n*n])
	clear(v)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	// rotate pairs of columns of U (and V) until they are orthogonal:
	// A V = U, the columns of U of lengths σ_j
	for sweep := 0; sweep < 60; sweep++ {
		rotated := false
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				al, be, ga := 0.0, 0.0, 0.0
				for i := 0; i < n; i++ {
					up, uq := u[i*n+p], u[i*n+q]
					al += up * up
					be += uq * uq
					ga += up * uq
				}
				if ga == 0 || math.Abs(ga) <= 1e-15*math.Sqrt(al*be) {
					continue
				}
				rotated = true
				zeta := (be - al) / (2 * ga)
				t := 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				if zeta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(1+t*t)
				s := c * t
				for i := 0; i < n; i++ {
					up, uq := u[i*n+p], u[i*n+q]
					u[i*n+p], u[i*n+q] = c*up-s*uq, s*up+c*uq
					vp, vq := v[i*n+p], v[i*n+q]
					v[i*n+p], v[i*n+q] = c*vp-s*vq, s*vp+c*vq
				}
			}
		}
		if !rotated {
			break
		}
	}
	smax := 0.0
	for j := 0; j < n; j++ {
		s2 := 0.0
		for i := 0; i < n; i++ {
			s2 += u[i*n+j] * u[i*n+j]
		}
		smax = math.Max(smax, s2)
	}
	// x = Σ_j V_j (U_j·b)/σ_j², the columns of U being σ_j times the
	// left singular vectors
	cf := w.c[:n]
	rank := 0
	tol2 := w.Tol * w.Tol * smax
	for j := 0; j < n; j++ {
		s2, ub := 0.0, 0.0
		for i := 0; i < n; i++ {
			s2 += u[i*n+j] * u[i*n+j]
			ub += u[i*n+j] * b[i]
		}
		cf[j] = 0
		if s2 > tol2 && s2 > 0 {
			cf[j] = ub / s2
			rank++
		}
	}
	for i := 0; i < n; i++ {
		x := 0.0
		for j := 0; j < n; j++ {
			x += v[i*n+j] * cf[j]
		}
		b[i] = x
	}
	return rank
}
