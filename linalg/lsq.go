package linalg

import "math"

// LeastSquares solves dense overdetermined systems min ‖A x − b‖₂ (m ≥ n
// rows) by Householder QR. Columns whose diagonal of R falls below 1e-12
// of the largest are dropped (their unknowns set to zero), so a
// rank-deficient A gives a basic solution instead of a failure. Its
// methods do not allocate.
type LeastSquares struct {
	a    []float64 // m×n row-major, overwritten by the factorization
	b    []float64
	beta []float64
	m, n int
	mMax int
	nMax int
	// Residual is ‖A x − b‖₂ of the last Solve.
	Residual float64
}

// NewLeastSquares returns a work space for up to mMax rows and nMax
// columns.
func NewLeastSquares(mMax, nMax int) *LeastSquares {
	return &LeastSquares{a: make([]float64, mMax*nMax), b: make([]float64, mMax), beta: make([]float64, nMax), mMax: mMax, nMax: nMax}
}

// Reset starts a system of m rows and n columns, all zero; it returns the
// row-major matrix and the right-hand side to fill.
func (w *LeastSquares) Reset(m, n int) (a, b []float64) {
	if m > w.mMax || n > w.nMax {
		panic("linalg: LeastSquares system larger than its work space")
	}
	w.m, w.n = m, n
	a, b = w.a[:m*n], w.b[:m]
	clear(a)
	clear(b)
	return a, b
}

// Solve factors the system filled since Reset and writes its solution into
// x (length n).
func (w *LeastSquares) Solve(x []float64) {
	m, n := w.m, w.n
	a, b := w.a[:m*n], w.b[:m]
	rmax := 0.0
	for k := 0; k < n && k < m; k++ {
		// Householder vector of column k below the diagonal
		nrm := 0.0
		for i := k; i < m; i++ {
			nrm += a[i*n+k] * a[i*n+k]
		}
		nrm = math.Sqrt(nrm)
		w.beta[k] = 0
		if nrm == 0 {
			continue
		}
		akk := a[k*n+k]
		alpha := -math.Copysign(nrm, akk)
		v0 := akk - alpha
		// v = (v0, a[k+1..m-1][k]); H = I − β v vᵀ, β = 1/(−alpha v0)
		beta := 1 / (-alpha * v0)
		a[k*n+k] = v0
		for j := k + 1; j < n; j++ {
			s := 0.0
			for i := k; i < m; i++ {
				s += a[i*n+k] * a[i*n+j]
			}
			s *= beta
			for i := k; i < m; i++ {
				a[i*n+j] -= s * a[i*n+k]
			}
		}
		s := 0.0
		for i := k; i < m; i++ {
			s += a[i*n+k] * b[i]
		}
		s *= beta
		for i := k; i < m; i++ {
			b[i] -= s * a[i*n+k]
		}
		w.beta[k] = alpha // R's diagonal
		rmax = math.Max(rmax, math.Abs(alpha))
	}
	res := 0.0
	for i := n; i < m; i++ {
		res = math.Hypot(res, b[i])
	}
	// back substitution on R (diagonal in beta, above it in a)
	for k := min(n, m) - 1; k >= 0; k-- {
		d := w.beta[k]
		if math.Abs(d) <= 1e-12*rmax || d == 0 {
			x[k] = 0
			res = math.Hypot(res, b[k])
			continue
		}
		s := b[k]
		for j := k + 1; j < n; j++ {
			s -= a[k*n+j] * x[j]
		}
		x[k] = s / d
	}
	for k := m; k < n; k++ {
		x[k] = 0
	}
	w.Residual = res
}
