package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ancfLike returns the consistent mass matrix of a chain of ne planar
// cubic Hermite elements of length l (per node a position and a slope,
// one direction): its slope entries are about l²/100 of the position
// ones, its position–slope couplings about l/10.
func ancfLike(ne int, l float64) *testSys {
	n := 2 * (ne + 1)
	t := newTestSys(n)
	me := [4][4]float64{
		{156, 22 * l, 54, -13 * l},
		{22 * l, 4 * l * l, 13 * l, -3 * l * l},
		{54, 13 * l, 156, -22 * l},
		{-13 * l, -3 * l * l, -22 * l, 4 * l * l},
	}
	for e := 0; e < ne; e++ {
		for a := 0; a < 4; a++ {
			for b := 0; b < 4; b++ {
				t.add(2*e+a, 2*e+b, me[a][b]*l/420)
			}
		}
	}
	return t
}

// The band solver factors its matrix equilibrated by its diagonal
// (bandScale): on the mass matrix of a fine Hermite chain (l = 1 mm) the
// unscaled matrix takes its pivots off the diagonal at every node, the
// scaled one on it (and so fills no row of U past the band), and the
// solution is right to round-off.
func TestBandScaleKeepsDiagonalPivots(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	sys := ancfLike(200, 1e-3)
	pl := NewPlan(sys.pat)
	if pl.Kind() != KindBand {
		t.Fatalf("plan %s, want band", pl.Kind())
	}
	s := pl.NewSolver()
	sys.load(s)
	// unscaled, as before bandScale: interchanges at the nodes
	raw := append([]float64(nil), s.a...)
	piv, pv := make([]int, s.n), make([]float64, s.n)
	if k := bandFactor(raw, piv, pv, s.n, s.kl, s.ku); k >= 0 {
		t.Fatalf("unscaled factor stopped at %d", k)
	}
	swaps := 0
	for k, p := range piv {
		if p != k {
			swaps++
		}
	}
	if swaps < 100 {
		t.Fatalf("the unscaled chain swapped %d rows: the test matrix no longer needs the scaling", swaps)
	}
	if err := s.Factor(); err != nil {
		t.Fatal(err)
	}
	for k, p := range s.piv[:s.n] {
		if p != k {
			t.Errorf("scaled: row %d swapped with %d", k, p)
			break
		}
	}
	checkSolve(t, "Hermite chain", sys, s, rng)
}

// Tiny diagonal entries beside huge ones would overflow when scaled: the
// matrix is then factored unscaled, and solved right.
func TestBandScaleOverflowFallsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const n = 300
	sys := newTestSys(n)
	for k := 0; k < n; k++ {
		sys.add(k, k, 1e-300)
		if k+1 < n {
			v := 1e200 * (1 + rng.Float64())
			sys.add(k, k+1, v)
			sys.add(k+1, k, -v)
		}
	}
	pl := NewPlan(sys.pat)
	if pl.Kind() != KindBand {
		t.Fatalf("plan %s, want band", pl.Kind())
	}
	s := pl.NewSolver()
	sys.load(s)
	if err := s.Factor(); err != nil {
		t.Fatal(err)
	}
	for i, d := range s.sc[:s.n] {
		if d != 1 {
			t.Fatalf("scale %d = %g: want the unscaled fallback", i, d)
		}
	}
	checkSolve(t, "tiny diagonal", sys, s, rng)
}

// A negligible diagonal entry does not scale its row: [ε 1; 1 1] ⊕ [1] is
// regular (x = (1, 1, 3) for b = (1, 2, 3)), and scaled by √ε its
// off-diagonal entries grew to 1e14 and the pivot test called it singular.
func TestBandScaleNegligibleDiagonal(t *testing.T) {
	for _, eps := range []float64{1e-20, 1e-28, 0} {
		sys := newTestSys(3)
		for _, e := range []entry{{0, 0, eps}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 2, 1}} {
			sys.add(e.i, e.j, e.v)
		}
		pl, err := NewPlanKind(sys.pat, KindBand)
		if err != nil {
			t.Fatal(err)
		}
		s := pl.NewSolver()
		sys.load(s)
		if err := s.Factor(); err != nil {
			t.Fatalf("ε = %g: %v", eps, err)
		}
		b := []float64{1, 2, 3}
		s.Solve(b)
		for i, want := range []float64{1, 1, 3} {
			if math.Abs(b[i]-want) > 1e-12 {
				t.Errorf("ε = %g: x = %v, want (1, 1, 3)", eps, b)
				break
			}
		}
	}
}
