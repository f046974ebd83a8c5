// Package lcp solves linear complementarity problems
//
//	find z such that  w = M z + q >= 0,  z >= 0,  wᵀz = 0
//
// with Lemke's complementary pivot algorithm (Lemke 1965; Murty 1988, ch. 2;
// Cottle, Pang & Stone 1992, §4.4). The implementation keeps an explicit
// basis inverse of size n×n, uses a user-selectable covering vector
// (default all ones), the lexicographic minimum-ratio test against cycling
// under degeneracy, an iteration limit, and a final iterative-refinement
// step of the basic solution. After NewSolver every Solve call is
// allocation-free, so it may be used inside an integrator step.
//
// Theory recalled for the user: Lemke's method always terminates with a
// solution when M is a P-matrix (for example symmetric positive definite, or
// positive definite plus skew-symmetric); for copositive-plus M a secondary
// ray proves that the LCP is infeasible. For other matrices a secondary ray
// only means that this method found no solution.
package lcp

import (
	"errors"
	"math"
)

// Errors returned by Solve. They are sentinel values; compare with errors.Is.
var (
	// ErrIterationLimit is returned when the number of pivots exceeds the
	// limit (Solver.MaxIter, default 50·(n+1)).
	ErrIterationLimit = errors.New("lcp: Lemke iteration limit reached")
	// ErrRayTermination is returned when the entering column has no positive
	// entry (secondary ray): no solution was found; for copositive-plus M
	// (for example positive semidefinite M) the LCP is infeasible.
	ErrRayTermination = errors.New("lcp: Lemke secondary ray termination (no solution found; LCP may be infeasible)")
	// ErrDimension is returned when n is out of range or a slice is too short.
	ErrDimension = errors.New("lcp: dimension mismatch (n < 0, n > nmax or slice too short)")
	// ErrNotFinite is returned when M, q or the covering vector contain NaN or Inf.
	ErrNotFinite = errors.New("lcp: non-finite value in M, q or covering vector")
	// ErrCovering is returned when a covering vector entry is not strictly positive.
	ErrCovering = errors.New("lcp: covering vector entries must be > 0")
)

// Default numerical tolerances (relative); see Solver fields.
const (
	// DefaultPivotTol is the relative threshold below which an entry of the
	// entering column is not treated as a blocking pivot.
	DefaultPivotTol = 1e-11
	// DefaultTieTol is the relative tolerance within which two ratios of the
	// minimum-ratio test are considered tied (degenerate), triggering the
	// lexicographic rule.
	DefaultTieTol = 1e-12
	// DefaultIterFactor gives the default iteration limit DefaultIterFactor·(n+1).
	DefaultIterFactor = 50
)

// Solver holds the workspace of Lemke's algorithm for problems up to size
// nmax. A Solver is not safe for concurrent use; give each goroutine (each
// FMU instance) its own.
type Solver struct {
	// MaxIter is the maximum number of pivots; 0 means DefaultIterFactor·(n+1).
	MaxIter int
	// PivotTol is the relative pivot tolerance; 0 means DefaultPivotTol.
	PivotTol float64
	// TieTol is the relative tie tolerance of the ratio test; 0 means DefaultTieTol.
	TieTol float64

	nmax  int
	binv  []float64 // basis inverse, row-major n×n (stride n)
	xb    []float64 // values of the basic variables
	col   []float64 // transformed entering column B⁻¹A_j
	res   []float64 // residual for refinement
	ones  []float64 // default covering vector
	basis []int     // basic variable of each row (0..n-1 w, n..2n-1 z, 2n z0)
	cand  []int     // candidate rows of the ratio test

	// naiveTies replaces the lexicographic rule by "smallest row index" on
	// ties; used only by the tests to show cycling.
	naiveTies bool
}

// NewSolver returns a Solver with workspace for LCPs of dimension up to nmax.
// A negative nmax is treated as 0.
func NewSolver(nmax int) *Solver {
	if nmax < 0 {
		nmax = 0
	}
	s := &Solver{
		nmax:  nmax,
		binv:  make([]float64, nmax*nmax),
		xb:    make([]float64, nmax),
		col:   make([]float64, nmax),
		res:   make([]float64, nmax),
		ones:  make([]float64, nmax),
		basis: make([]int, nmax),
		cand:  make([]int, nmax),
	}
	for i := range s.ones {
		s.ones[i] = 1
	}
	return s
}

// NMax returns the largest dimension the Solver can handle.
func (s *Solver) NMax() int { return s.nmax }

// Solve solves LCP(M, q) of dimension n with the all-ones covering vector.
// M is row-major n×n (M[i*n+j]); z and w receive the solution (length >= n).
// It returns the number of pivots performed. See SolveCovering.
func (s *Solver) Solve(M []float64, q []float64, n int, z, w []float64) (iters int, err error) {
	return s.SolveCovering(M, q, nil, n, z, w)
}

// SolveCovering solves LCP(M, q) with covering vector d (nil means all ones;
// entries must be > 0). On success z >= 0 and w >= 0 hold exactly (round-off
// negatives are clipped), w_i = 0 wherever z_i is basic, and the returned
// values satisfy w ≈ M z + q to round-off (measure with Check). When q >= 0
// the trivial solution z = 0, w = q is returned with 0 pivots.
//
// On error z and w are set to zero (ErrIterationLimit, ErrRayTermination) or
// left untouched (input errors).
func (s *Solver) SolveCovering(M, q, d []float64, n int, z, w []float64) (iters int, err error) {
	if n < 0 || n > s.nmax || len(M) < n*n || len(q) < n || len(z) < n || len(w) < n {
		return 0, ErrDimension
	}
	if d == nil {
		d = s.ones
	} else if len(d) < n {
		return 0, ErrDimension
	}
	qmin, qmax := 0.0, 0.0
	for i := 0; i < n; i++ {
		if !finite(q[i]) || !finite(d[i]) {
			return 0, ErrNotFinite
		}
		if !(d[i] > 0) {
			return 0, ErrCovering
		}
		qmin = math.Min(qmin, q[i])
		qmax = math.Max(qmax, math.Abs(q[i]))
	}
	for _, v := range M[:n*n] {
		if !finite(v) {
			return 0, ErrNotFinite
		}
	}
	if qmin >= 0 {
		for i := 0; i < n; i++ {
			z[i] = 0
			w[i] = q[i]
		}
		return 0, nil
	}
	maxIter := s.MaxIter
	if maxIter <= 0 {
		maxIter = DefaultIterFactor * (n + 1)
	}
	pivTol := s.PivotTol
	if pivTol <= 0 {
		pivTol = DefaultPivotTol
	}
	tieTol := s.TieTol
	if tieTol <= 0 {
		tieTol = DefaultTieTol
	}

	binv := s.binv[:n*n]
	xb := s.xb[:n]
	a := s.col[:n]
	basis := s.basis[:n]
	for i := range binv {
		binv[i] = 0
	}
	for i := 0; i < n; i++ {
		binv[i*n+i] = 1
		xb[i] = q[i]
		basis[i] = i // w_i
	}
	z0 := 2 * n

	// Initial pivot: z0 enters at the level making all w_i >= 0; the leaving
	// row is the lexicographic minimiser of (q_i, e_iᵀ)/d_i, i.e. among
	// (near-)ties of q_i/d_i the largest index.
	r := 0
	theta := q[0] / d[0]
	for i := 1; i < n; i++ {
		if t := q[i] / d[i]; t < theta {
			theta = t
		}
	}
	scale := qmax / minPositive(d[:n])
	for i := 0; i < n; i++ {
		if q[i]/d[i]-theta <= tieTol*(math.Abs(theta)+scale) {
			r = i
			if s.naiveTies {
				break
			}
		}
	}
	for i := 0; i < n; i++ {
		a[i] = -d[i]
	}
	s.pivot(n, r, a)
	leaving := basis[r]
	basis[r] = z0
	iters = 1

	for {
		// Entering variable: complement of the one that just left.
		var entering int
		if leaving < n {
			entering = leaving + n // w_i left -> z_i enters
		} else {
			entering = leaving - n // z_i left -> w_i enters
		}
		s.column(M, d, n, entering, a)

		// Minimum-ratio test over blocking rows (a_i > 0).
		amax := 0.0
		for i := 0; i < n; i++ {
			amax = math.Max(amax, math.Abs(a[i]))
		}
		tol := pivTol * amax
		theta = math.Inf(1)
		nc := 0
		for i := 0; i < n; i++ {
			if a[i] > tol {
				if t := xb[i] / a[i]; t < theta {
					theta = t
				}
				nc++
			}
		}
		if nc == 0 {
			zero(z[:n])
			zero(w[:n])
			return iters, ErrRayTermination
		}
		if iters >= maxIter {
			zero(z[:n])
			zero(w[:n])
			return iters, ErrIterationLimit
		}
		xbs := 0.0
		for i := 0; i < n; i++ {
			xbs = math.Max(xbs, math.Abs(xb[i]))
		}
		r = s.ratioTie(n, a, tol, theta, tieTol, xbs)
		s.pivot(n, r, a)
		leaving = basis[r]
		basis[r] = entering
		iters++
		if leaving == z0 {
			break
		}
	}

	s.refine(M, q, n)
	for i := 0; i < n; i++ {
		z[i] = 0
		w[i] = 0
	}
	for i := 0; i < n; i++ {
		v := math.Max(xb[i], 0)
		if b := basis[i]; b < n {
			w[b] = v
		} else if b < 2*n {
			z[b-n] = v
		}
	}
	return iters, nil
}

// ratioTie picks the leaving row among blocking rows whose ratio is tied
// with the minimum theta (within tieTol·(|theta| + xbs/a_i), i.e. a relative
// perturbation tieTol of the basic values): z0 if it is among them, otherwise
// the lexicographic minimum of the rows of B⁻¹ divided by a_i (or the
// smallest index with naiveTies).
func (s *Solver) ratioTie(n int, a []float64, ptol, theta, tieTol, xbs float64) int {
	xb, binv, cand := s.xb[:n], s.binv[:n*n], s.cand[:n]
	nc := 0
	for i := 0; i < n; i++ {
		if a[i] > ptol && xb[i]/a[i]-theta <= tieTol*(math.Abs(theta)+xbs/a[i]) {
			if s.basis[i] == 2*n {
				return i // artificial variable leaves: terminate
			}
			cand[nc] = i
			nc++
		}
	}
	if nc == 1 || s.naiveTies {
		return cand[0]
	}
	for k := 0; k < n && nc > 1; k++ {
		m := math.Inf(1)
		big := 0.0
		for _, i := range cand[:nc] {
			v := binv[i*n+k] / a[i]
			m = math.Min(m, v)
			big = math.Max(big, math.Abs(v))
		}
		keep := 0
		for _, i := range cand[:nc] {
			if binv[i*n+k]/a[i]-m <= 1e-9*big {
				cand[keep] = i
				keep++
			}
		}
		nc = keep
	}
	return cand[0]
}

// column stores B⁻¹ A_j in a, where A_j is the column of variable j in
// [I | -M | -d].
func (s *Solver) column(M, d []float64, n, j int, a []float64) {
	binv := s.binv[:n*n]
	switch {
	case j < n:
		for r := 0; r < n; r++ {
			a[r] = binv[r*n+j]
		}
	case j < 2*n:
		c := j - n
		for r := 0; r < n; r++ {
			row := binv[r*n : r*n+n]
			sum := 0.0
			for k, b := range row {
				sum += b * M[k*n+c]
			}
			a[r] = -sum
		}
	default:
		for r := 0; r < n; r++ {
			row := binv[r*n : r*n+n]
			sum := 0.0
			for k, b := range row {
				sum += b * d[k]
			}
			a[r] = -sum
		}
	}
}

// pivot performs the basis exchange on row r with transformed column a.
func (s *Solver) pivot(n, r int, a []float64) {
	binv, xb := s.binv[:n*n], s.xb[:n]
	p := a[r]
	rowr := binv[r*n : r*n+n]
	inv := 1 / p
	for k := range rowr {
		rowr[k] *= inv
	}
	xb[r] *= inv
	for i := 0; i < n; i++ {
		if i == r {
			continue
		}
		f := a[i]
		if f == 0 {
			continue
		}
		row := binv[i*n : i*n+n]
		for k := range row {
			row[k] -= f * rowr[k]
		}
		xb[i] -= f * xb[r]
	}
}

// refine performs one step of iterative refinement of B x_B = q for the
// final basis (z0 is non-basic).
func (s *Solver) refine(M, q []float64, n int) {
	res, xb, binv := s.res[:n], s.xb[:n], s.binv[:n*n]
	copy(res, q[:n])
	for i := 0; i < n; i++ {
		b, x := s.basis[i], xb[i]
		switch {
		case b < n:
			res[b] -= x
		case b < 2*n:
			c := b - n
			for k := 0; k < n; k++ {
				res[k] += M[k*n+c] * x
			}
		}
	}
	for i := 0; i < n; i++ {
		row := binv[i*n : i*n+n]
		sum := 0.0
		for k, v := range row {
			sum += v * res[k]
		}
		xb[i] += sum
	}
}

// Check returns the largest violation of the LCP conditions for z:
// max_i |min(z_i, w_i)| with w = M z + q (the natural, or min-map, residual).
// It is zero exactly when z solves LCP(M, q): a negative z_i or w_i, or a
// pair with both z_i > 0 and w_i > 0, each contribute. Returns +Inf when the
// slices are shorter than n.
func Check(M, q, z []float64, n int) (maxViolation float64) {
	if n < 0 || len(M) < n*n || len(q) < n || len(z) < n {
		return math.Inf(1)
	}
	for i := 0; i < n; i++ {
		wi := q[i]
		for j := 0; j < n; j++ {
			wi += M[i*n+j] * z[j]
		}
		v := math.Abs(math.Min(z[i], wi))
		if v > maxViolation || v != v {
			maxViolation = v
		}
	}
	return maxViolation
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func zero(x []float64) {
	for i := range x {
		x[i] = 0
	}
}

func minPositive(d []float64) float64 {
	m := math.Inf(1)
	for _, v := range d {
		m = math.Min(m, v)
	}
	return m
}
