package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noPivotRatio returns min|p|/max|p| over the pivots of the LU
// factorization without interchanges of the dense matrix b (n×n,
// row-major), computed directly.
func noPivotRatio(b []float64, n int) float64 {
	lo, hi := math.Inf(1), 0.0
	for k := 0; k < n; k++ {
		p := b[k*n+k]
		lo, hi = min(lo, math.Abs(p)), max(hi, math.Abs(p))
		for i := k + 1; i < n; i++ {
			l := b[i*n+k] / p
			for j := k + 1; j < n; j++ {
				b[i*n+j] -= l * b[k*n+j]
			}
		}
	}
	return lo / hi
}

// colDominant returns a random n×n matrix with bandwidth bw, shuffled
// unknowns and strictly dominant diagonal in every column, so that partial
// pivoting does no row interchanges (in any symmetric ordering).
func colDominant(n, bw int, rng *rand.Rand) *testSys {
	q := rng.Perm(n)
	t := newTestSys(n)
	colSum := make([]float64, n)
	for k := 0; k < n; k++ {
		for l := max(k-bw, 0); l <= min(k+bw, n-1); l++ {
			if l != k {
				v := 2*rng.Float64() - 1
				t.add(q[k], q[l], v)
				colSum[l] += math.Abs(v)
			}
		}
	}
	for k := 0; k < n; k++ {
		t.add(q[k], q[k], math.Copysign(colSum[k]*(1.1+rng.Float64()), rng.Float64()-0.5))
	}
	return t
}

// ScaledPivotRatio with scales e gives the pivot ratio of D A D, D =
// diag(1/e), in A's elimination order: checked by hand on a 2×2 matrix
// with a row interchange, and on column-dominant matrices (no
// interchanges) against the LU without pivoting of D A D, reordered as the
// band plan does.
func TestScaledPivotRatio(t *testing.T) {
	// A = [1 2; 4 3]: rows swapped, pivots 4 and 2 − 3/4; with d = (2, ½)
	// the pivots of P·DAD = [4 ¾; 4 2] are 4 and 2 − ¾.
	sys := newTestSys(2)
	for _, e := range []entry{{0, 0, 1}, {0, 1, 2}, {1, 0, 4}, {1, 1, 3}} {
		sys.add(e.i, e.j, e.v)
	}
	s := NewPlan(sys.pat).NewSolver()
	if r := s.ScaledPivotRatio([]float64{1, 1}); r != 0 {
		t.Errorf("before Factor: %g, want 0", r)
	}
	// the scales e are the reciprocals of d: e = (½, 2)
	sys.load(s)
	if err := s.Factor(); err != nil {
		t.Fatal(err)
	}
	if r, want := s.ScaledPivotRatio([]float64{0.5, 2}), 1.25/4; math.Abs(r-want) > 1e-15 {
		t.Errorf("2×2: %.17g, want %.17g", r, want)
	}
	if r, want := s.ScaledPivotRatio([]float64{1, 1}), 1.25/4; math.Abs(r-want) > 1e-15 {
		t.Errorf("2×2 unscaled: %.17g, want %.17g", r, want)
	}
	if r := s.ScaledPivotRatio([]float64{1}); r != 0 {
		t.Errorf("wrong length: %g, want 0", r)
	}

	rng := rand.New(rand.NewPCG(41, 42))
	for _, tc := range []struct {
		n, bw int
		kind  string
	}{{6, 5, KindDense}, {30, 29, KindDense}, {80, 3, KindBand}} {
		sys := colDominant(tc.n, tc.bw, rng)
		pl := mustPlan(t, sys.pat, tc.kind)
		s := pl.NewSolver()
		sys.load(s)
		if err := s.Factor(); err != nil {
			t.Fatal(err)
		}
		d := make([]float64, tc.n)
		for i := range d {
			d[i] = math.Exp(4 * (rng.Float64() - 0.5))
		}
		a := sys.dense()
		b := make([]float64, tc.n*tc.n)
		for i := 0; i < tc.n; i++ {
			for j := 0; j < tc.n; j++ {
				pi, pj := i, j
				if pl.perm != nil {
					pi, pj = pl.perm[i], pl.perm[j]
				}
				b[pi*tc.n+pj] = d[i] * a.At(i, j) * d[j]
			}
		}
		want := noPivotRatio(b, tc.n)
		e := make([]float64, tc.n)
		for i := range e {
			e[i] = 1 / d[i]
		}
		got := s.ScaledPivotRatio(e)
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("%s n=%d: %.15g, the LU of DAD gives %.15g", tc.kind, tc.n, got, want)
		}
		if a := testing.AllocsPerRun(10, func() { got = s.ScaledPivotRatio(e) }); a != 0 {
			t.Errorf("%s n=%d: %g allocations", tc.kind, tc.n, a)
		}
	}
}
