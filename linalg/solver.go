package linalg

import (
	"fmt"
	"math"
)

// PivotTol is the relative pivot tolerance: Factor reports a SingularError
// when the largest available pivot p satisfies |p| <= PivotTol·max|a_ij|.
const PivotTol = 1e-14

// SingularError is returned by Solver.Factor when no acceptable pivot exists.
type SingularError struct {
	Index int     // original index of the unknown (column) without a pivot
	Pivot float64 // the best pivot candidate found (0 for a structurally zero column)
}

// Error implements error.
func (e *SingularError) Error() string {
	return fmt.Sprintf("linalg: matrix is singular: no pivot for unknown %d (best candidate %g)", e.Index, e.Pivot)
}

// Pending-error kinds recorded by Add/Set/CopyFrom and reported by Factor.
const (
	errNone = iota
	errRange
	errBand
	errPlan
	errPos
)

// Solver holds the values of one matrix with the structure of its Plan and
// the LU factors of the last successful Factor. It is not safe for
// concurrent use. Zero, Add, Set, At, Factor, Solve, MulVec and CopyFrom do
// not allocate (except to build an error value on failure).
//
// The matrix values are kept separately from the factors, so At and MulVec
// always see the assembled (unfactored) matrix, before and after Factor.
type Solver struct {
	plan   *Plan
	n      int
	dense  bool
	kl, ku int
	w      int   // band: stored width of a row, 2kl+ku+1 (kl extra for fill)
	ld     int   // dense: row stride (smallN for n <= smallN, else n)
	perm   []int // band: original -> permuted (shared with plan, read only)

	a   []float64 // assembled values (dense: n×n row-major; band: band layout)
	lu  []float64 // factors of the last successful Factor
	luw []float64 // work buffer for the next Factor (swapped with lu on success)
	bf  *bandLU   // band: lu in compact form (once packed)
	piv []int     // row interchanges of lu
	pvw []int     // row interchanges of luw
	pv  []float64 // pivots of the last Factor attempt
	rs  []int     // ScaledPivotRatio: the row at each position of the factors
	x   []float64 // band: permuted right-hand side
	sc  []float64 // band: the scaling of lu, D in D A D (permuted indexing, bandScale)
	scw []float64 // band: the scaling of luw

	factored bool
	lastOK   bool // the last Factor succeeded (its scaling is sc, else scw)
	errKind  int
	errI     int
	errJ     int
}

// NewSolver returns a fresh workspace (all values zero, not factored) for
// matrices with the plan's structure.
func (pl *Plan) NewSolver() *Solver {
	n := pl.n
	s := &Solver{plan: pl, n: n, dense: pl.kind == KindDense, kl: pl.kl, ku: pl.ku, perm: pl.perm}
	var size int
	npiv := n
	if s.dense {
		s.ld = n
		if n <= smallN {
			s.ld, npiv = smallN, smallN
		}
		size = n * s.ld
		if n <= smallN {
			size = smallSize
		}
	} else {
		s.w = 2*s.kl + s.ku + 1
		size = n * s.w
		s.x = make([]float64, n)
		s.sc = make([]float64, n)
		s.scw = make([]float64, n)
	}
	s.a = make([]float64, size)
	if s.dense && n <= smallN {
		s.a = s.a[:n*smallN] // the rows of a small system (its kernels see all smallN)
	}
	s.lu = make([]float64, size)
	s.luw = make([]float64, size)
	if !s.dense {
		s.bf = newBandLU(n, s.kl, s.ku)
	}
	s.piv = make([]int, npiv)
	s.pvw = make([]int, npiv)
	s.pv = make([]float64, npiv)
	s.rs = make([]int, n)
	return s
}

// N returns the dimension of the system.
func (s *Solver) N() int { return s.n }

// Plan returns the plan the solver was made from.
func (s *Solver) Plan() *Plan { return s.plan }

// Factored reports whether a successful Factor is available for Solve.
func (s *Solver) Factored() bool { return s.factored }

// Err returns the pending assembly error (an Add/Set outside the plan's
// structure, or an incompatible CopyFrom) that the next Factor will return,
// or nil. Zero clears it.
func (s *Solver) Err() error {
	switch s.errKind {
	case errRange:
		return fmt.Errorf("linalg: entry (%d,%d) out of range for n=%d", s.errI, s.errJ, s.n)
	case errBand:
		return fmt.Errorf("linalg: entry (%d,%d) lies outside the band of the plan (kl=%d, ku=%d); was it added to the Pattern?", s.errI, s.errJ, s.kl, s.ku)
	case errPos:
		return fmt.Errorf("linalg: AddAt position %d is not in the storage of the plan (use Plan.Pos)", s.errI)
	case errPlan:
		return fmt.Errorf("linalg: CopyFrom between solvers of incompatible plans")
	}
	return nil
}

// Zero clears all matrix values (the structure and the factors of the last
// successful Factor are kept) and any pending assembly error.
func (s *Solver) Zero() {
	clear(s.a)
	s.errKind = errNone
}

func (s *Solver) fail(kind, i, j int) {
	if s.errKind == errNone {
		s.errKind, s.errI, s.errJ = kind, i, j
	}
}

// index returns the position of original entry (i,j) in s.a, or -1 after
// recording an error.
func (s *Solver) index(i, j int) int {
	if uint(i) < uint(s.n) && uint(j) < uint(s.n) {
		if s.dense {
			return i*s.ld + j
		}
		pi, pj := s.perm[i], s.perm[j]
		if uint(pj-pi+s.kl) <= uint(s.kl+s.ku) {
			return pi*(s.w-1) + pj + s.kl
		}
	}
	return s.bad(i, j)
}

// bad records the error for an entry (i,j) outside the range or the band.
func (s *Solver) bad(i, j int) int {
	if uint(i) >= uint(s.n) || uint(j) >= uint(s.n) {
		s.fail(errRange, i, j)
	} else {
		s.fail(errBand, i, j)
	}
	return -1
}

// Add performs a_ij += v, with i and j original indices. Entries of the
// Pattern are always accepted; a dense plan accepts every in-range entry, a
// band plan every entry within its band. Otherwise nothing is stored and an
// error naming (i,j) is recorded, which Factor (and Err) then return.
func (s *Solver) Add(i, j int, v float64) {
	if k := s.index(i, j); k >= 0 {
		s.a[k] += v
	}
}

// AddAt adds v to the entry at position k, as returned by Plan.Pos for the
// solver's plan. A position outside the storage (such as -1) stores nothing
// and records an error that Factor returns.
func (s *Solver) AddAt(k int, v float64) {
	if uint(k) < uint(len(s.a)) {
		s.a[k] += v
		return
	}
	s.fail(errPos, k, 0)
}

// Set performs a_ij = v, with the same rules as Add.
func (s *Solver) Set(i, j int, v float64) {
	if k := s.index(i, j); k >= 0 {
		s.a[k] = v
	}
}

// At returns the current (assembled, unfactored) value a_ij; 0 for entries
// outside the structure or out of range (no error is recorded).
func (s *Solver) At(i, j int) float64 {
	if uint(i) >= uint(s.n) || uint(j) >= uint(s.n) {
		return 0
	}
	if s.dense {
		return s.a[i*s.ld+j]
	}
	pi, pj := s.perm[i], s.perm[j]
	d := pj - pi
	if d < -s.kl || d > s.ku {
		return 0
	}
	return s.a[pi*s.w+d+s.kl]
}

// Factor computes the LU factorization with partial pivoting of the current
// values. It returns the pending assembly error if any, an error if an
// entry is NaN or infinite, or a *SingularError if a pivot p satisfies
// |p| <= PivotTol·max|a_ij|. On failure the factors of the previous
// successful Factor are kept (Solve keeps using them).
func (s *Solver) Factor() error {
	s.lastOK = false
	if s.errKind != errNone {
		return s.Err()
	}
	var k int
	var nb uint64
	if s.dense {
		if s.ld == smallN {
			k, nb = smallFactor((*smallMat)(s.luw), (*smallMat)(s.a[:smallSize]), (*[smallN]int)(s.pvw), (*[smallN]float64)(s.pv), s.n)
		} else {
			k, nb = denseFactor(s.luw, s.a, s.pvw, s.pv, s.n)
		}
		if k == 0 {
			nb = maxBits(s.a) // the kernel stopped before measuring
		}
	} else {
		// equilibrated: the pivots and their tolerance are the scaled
		// matrix's
		var sb uint64
		nb, sb = bandScale(s.luw, s.a, s.scw, s.n, s.kl, s.ku)
		if nb < infBits {
			if sb < infBits {
				nb = sb
			} else {
				// (tiny diagonals beside huge entries: not scaled)
				copy(s.luw, s.a)
				for i := range s.scw {
					s.scw[i] = 1
				}
			}
			k = bandFactor(s.luw, s.pvw, s.pv, s.n, s.kl, s.ku)
		}
	}
	if nb >= infBits {
		return s.nonFinite()
	}
	norm := math.Float64frombits(nb)
	tol := PivotTol * norm
	last := k
	if k < 0 {
		last = s.n - 1
	}
	for j, p := range s.pv[:last+1] {
		if !(abs(p) > tol) {
			idx := j
			if !s.dense {
				idx = s.plan.iperm[j]
			}
			return &SingularError{Index: idx, Pivot: p}
		}
	}
	s.lu, s.luw = s.luw, s.lu
	s.sc, s.scw = s.scw, s.sc
	if !s.dense {
		s.bf.solves, s.bf.packed = 0, false
	}
	s.piv, s.pvw = s.pvw, s.piv
	s.factored, s.lastOK = true, true
	return nil
}

// nonFinite builds the error for a NaN or infinite entry of s.a.
func (s *Solver) nonFinite() error {
	for q, v := range s.a {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			continue
		}
		var i, j int
		if s.dense {
			i, j = q/s.ld, q%s.ld
		} else {
			pi := q / s.w
			i, j = s.plan.iperm[pi], s.plan.iperm[pi+q%s.w-s.kl]
		}
		return fmt.Errorf("linalg: entry (%d,%d) is %v", i, j, v)
	}
	return fmt.Errorf("linalg: matrix entries overflow")
}

// The norm max|a_ij| is computed on the bit patterns of |a_ij| (the sign
// bit cleared), compared as integers: for non-negative floats they order
// like the values, with +Inf (infBits) and NaN above all finite numbers. This
// avoids floating-point compare chains and detects non-finite entries for
// free.
const (
	signBit = 1 << 63
	infBits = 0x7ff << 52
)

// copyMaxBits copies src to dst and returns the maximum bit pattern of
// |src_k|, in four independent lanes.
func copyMaxBits(dst, src []float64) uint64 {
	dst = dst[:len(src)]
	var m0, m1, m2, m3 uint64
	i := 0
	for ; i+4 <= len(src); i += 4 {
		s, d := src[i:i+4], dst[i:i+4]
		v0, v1, v2, v3 := s[0], s[1], s[2], s[3]
		d[0], d[1], d[2], d[3] = v0, v1, v2, v3
		m0 = max(m0, math.Float64bits(v0)&^signBit)
		m1 = max(m1, math.Float64bits(v1)&^signBit)
		m2 = max(m2, math.Float64bits(v2)&^signBit)
		m3 = max(m3, math.Float64bits(v3)&^signBit)
	}
	for ; i < len(src); i++ {
		v := src[i]
		dst[i] = v
		m0 = max(m0, math.Float64bits(v)&^signBit)
	}
	return max(m0, m1, m2, m3)
}

// maxBits returns the maximum bit pattern of |a_k|.
func maxBits(a []float64) uint64 {
	var m uint64
	for _, v := range a {
		m = max(m, math.Float64bits(v)&^signBit)
	}
	return m
}

// Solve overwrites b (original indexing, len(b) == N()) with the solution of
// A x = b for the matrix of the last successful Factor. If there is no
// successful factorization or len(b) != N(), b is filled with NaN.
func (s *Solver) Solve(b []float64) {
	if !s.factored || len(b) != s.n {
		for i := range b {
			b[i] = math.NaN()
		}
		return
	}
	if s.dense {
		if s.ld == smallN {
			smallSolve((*smallMat)(s.lu), (*[smallN]int)(s.piv), s.n, b)
		} else {
			denseSolve(s.lu, s.piv, s.n, b)
		}
		return
	}
	x, sc := s.x, s.sc
	for i, k := range s.perm {
		x[k] = b[i] * sc[k]
	}
	bandSolve(s.lu, s.piv, s.n, s.kl, s.ku, s.bf, x)
	for i, k := range s.perm {
		b[i] = x[k] * sc[k]
	}
}

// MulVec sets dst = A x using the current assembled values (available both
// before and after Factor). dst and x must have length N() and must not
// overlap; otherwise dst is filled with NaN.
func (s *Solver) MulVec(dst, x []float64) {
	n := s.n
	if len(dst) != n || len(x) != n || (n > 0 && &dst[0] == &x[0]) {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return
	}
	if s.dense {
		for i := 0; i < n; i++ {
			row := s.a[i*s.ld : i*s.ld+n]
			sum := 0.0
			for j, v := range row {
				sum += v * x[j]
			}
			dst[i] = sum
		}
		return
	}
	// Band: row pi of the permuted matrix holds original row iperm[pi].
	iperm := s.plan.iperm
	for pi := 0; pi < n; pi++ {
		lo := max(pi-s.kl, 0)
		hi := min(pi+s.ku, n-1)
		row := s.a[pi*s.w+lo-pi+s.kl : pi*s.w+hi-pi+s.kl+1]
		sum := 0.0
		for t, v := range row {
			sum += v * x[iperm[lo+t]]
		}
		dst[iperm[pi]] = sum
	}
}

// CopyFrom copies the matrix values, the factors of the last successful
// Factor and any pending error from o, which must come from the same Plan
// (or an identical one). Otherwise s is left with a pending error and
// without factors.
func (s *Solver) CopyFrom(o *Solver) {
	if s == o {
		return
	}
	if !samePlan(s.plan, o.plan) {
		s.factored = false
		s.fail(errPlan, 0, 0)
		return
	}
	copy(s.a, o.a)
	copy(s.lu, o.lu)
	copy(s.sc, o.sc)
	copy(s.scw, o.scw)
	s.lastOK = o.lastOK
	if s.bf != nil {
		s.bf.copyFrom(o.bf)
	}
	copy(s.piv, o.piv)
	s.factored = o.factored
	s.errKind, s.errI, s.errJ = o.errKind, o.errI, o.errJ
}

func samePlan(a, b *Plan) bool {
	if a == b {
		return true
	}
	if a.n != b.n || a.kind != b.kind || a.kl != b.kl || a.ku != b.ku {
		return false
	}
	for i := range a.perm {
		if a.perm[i] != b.perm[i] {
			return false
		}
	}
	return true
}

// ScaledPivotRatio returns min|p̃|/max|p̃| over the pivots p̃ of the
// matrix with entries a_ij/(e_i e_j) (e in original indexing, len(e) ==
// N(), every e_i > 0), factored in the elimination order of the last
// successful Factor of A: p̃_k = u_kk/(e_r e_c) for the pivot u_kk of A at
// row r and column c. With e the natural scale of each unknown (for a KKT
// matrix: √M_jj on the coordinates and the row norms of Φq M^{-1/2} on the
// constraints), a tiny ratio means A is close to a singular matrix
// independently of its units: its smallest pivots are what partial
// pivoting leaves of nearly dependent rows. It is a cheap indicator (O(N),
// no allocation, no division), not a condition number; 0 when there is no
// successful factorization, len(e) is wrong or a scaled pivot is zero.
func (s *Solver) ScaledPivotRatio(e []float64) float64 {
	if !s.factored || s.n == 0 || len(e) != s.n {
		return 0
	}
	rows := s.rs[:s.n]
	for k := range rows {
		rows[k] = k
	}
	for k, p := range s.piv[:s.n] {
		rows[k], rows[p] = rows[p], rows[k]
	}
	// the factors hold 1/u_kk on the diagonal: x_k = e_r e_c/|u_kk| = 1/|p̃_k|
	lo, hi := math.Inf(1), 0.0
	for k, r := range rows {
		c, inv := k, 0.0
		if s.dense {
			inv = s.lu[k*s.ld+k]
		} else {
			// the band factors are those of D A D (bandScale)
			inv = s.lu[k*s.w+s.kl] * s.sc[r] * s.sc[c]
			r, c = s.plan.iperm[r], s.plan.iperm[c]
		}
		x := abs(inv) * e[r] * e[c]
		lo = min(lo, x)
		hi = max(hi, x)
	}
	if !(lo > 0) || math.IsInf(hi, 0) || hi != hi {
		return 0
	}
	return lo / hi
}

// FactorScale writes into d (original indexing, len(d) == N()) the scaling
// of the last Factor attempt, successful or not: a band plan factors
// D A D (bandScale), a dense one A (d = 1).
func (s *Solver) FactorScale(d []float64) {
	for i := range d[:s.n] {
		d[i] = 1
		if !s.dense {
			d[i] = s.scw[s.perm[i]]
			if s.lastOK {
				d[i] = s.sc[s.perm[i]]
			}
		}
	}
}

// RowEntries writes the nonzero assembled values of row i (original
// indices) into idx and val, which must have room for N() entries, and
// returns their number. It does not allocate.
func (s *Solver) RowEntries(i int, idx []int, val []float64) int {
	if uint(i) >= uint(s.n) {
		return 0
	}
	k := 0
	if s.dense {
		row := s.a[i*s.ld : i*s.ld+s.n]
		for j, v := range row {
			if v != 0 {
				idx[k], val[k] = j, v
				k++
			}
		}
		return k
	}
	iperm := s.plan.iperm
	pi := s.perm[i]
	lo, hi := max(pi-s.kl, 0), min(pi+s.ku, s.n-1)
	for pj := lo; pj <= hi; pj++ {
		if v := s.a[pi*s.w+pj-pi+s.kl]; v != 0 {
			idx[k], val[k] = iperm[pj], v
			k++
		}
	}
	return k
}
