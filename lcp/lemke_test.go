package lcp

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// solveDense solves A x = b (k×k, row-major) by Gaussian elimination with
// partial pivoting; it returns false for a (numerically) singular A.
func solveDense(A, b []float64, k int) ([]float64, bool) {
	a := append([]float64(nil), A...)
	x := append([]float64(nil), b...)
	for c := 0; c < k; c++ {
		p := c
		for i := c + 1; i < k; i++ {
			if math.Abs(a[i*k+c]) > math.Abs(a[p*k+c]) {
				p = i
			}
		}
		if math.Abs(a[p*k+c]) < 1e-13 {
			return nil, false
		}
		if p != c {
			for j := 0; j < k; j++ {
				a[c*k+j], a[p*k+j] = a[p*k+j], a[c*k+j]
			}
			x[c], x[p] = x[p], x[c]
		}
		for i := c + 1; i < k; i++ {
			f := a[i*k+c] / a[c*k+c]
			for j := c; j < k; j++ {
				a[i*k+j] -= f * a[c*k+j]
			}
			x[i] -= f * x[c]
		}
	}
	for i := k - 1; i >= 0; i-- {
		s := x[i]
		for j := i + 1; j < k; j++ {
			s -= a[i*k+j] * x[j]
		}
		x[i] = s / a[i*k+i]
	}
	return x, true
}

// bruteForce enumerates all 2^n complementary bases (z_S basic, w_S = 0) and
// returns every distinct z that solves LCP(M, q) within tol.
func bruteForce(M, q []float64, n int, tol float64) [][]float64 {
	var sols [][]float64
	for mask := 0; mask < 1<<n; mask++ {
		var idx []int
		for i := 0; i < n; i++ {
			if mask>>i&1 == 1 {
				idx = append(idx, i)
			}
		}
		k := len(idx)
		A := make([]float64, k*k)
		b := make([]float64, k)
		for r, i := range idx {
			b[r] = -q[i]
			for c, j := range idx {
				A[r*k+c] = M[i*n+j]
			}
		}
		x, ok := solveDense(A, b, k)
		if !ok {
			continue
		}
		z := make([]float64, n)
		for r, i := range idx {
			z[i] = x[r]
		}
		if Check(M, q, z, n) > tol {
			continue
		}
		dup := false // degenerate solutions appear once per basis
		for _, o := range sols {
			dup = dup || near(o, z, 1e-9)
		}
		if !dup {
			sols = append(sols, z)
		}
	}
	return sols
}

func solve(t *testing.T, M, q []float64, n int) ([]float64, []float64, int, error) {
	t.Helper()
	s := NewSolver(n)
	z := make([]float64, n)
	w := make([]float64, n)
	it, err := s.Solve(M, q, n, z, w)
	return z, w, it, err
}

func near(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*(1+math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// Murty (1988), the 2×2 example with M = [[2,1],[1,2]], q = (-5,-6): the
// solution z = (4/3, 7/3), w = 0 (checked by hand: 2·4/3+7/3 = 5, 4/3+2·7/3 = 6).
func TestTextbook2x2(t *testing.T) {
	M := []float64{2, 1, 1, 2}
	z, w, it, err := solve(t, M, []float64{-5, -6}, 2)
	if err != nil || !near(z, []float64{4.0 / 3, 7.0 / 3}, 1e-14) || !near(w, []float64{0, 0}, 1e-14) {
		t.Fatalf("z=%v w=%v it=%d err=%v", z, w, it, err)
	}
	// Mixed case: z = (1/2, 0), w = (0, 5/2).
	z, w, _, err = solve(t, M, []float64{-1, 2}, 2)
	if err != nil || !near(z, []float64{0.5, 0}, 1e-14) || !near(w, []float64{0, 2.5}, 1e-14) {
		t.Fatalf("mixed: z=%v w=%v err=%v", z, w, err)
	}
}

func TestTrivial(t *testing.T) {
	q := []float64{1, 0, 3}
	z, w, it, err := solve(t, []float64{1, 5, 0, -2, 1, 7, 0, 0, 1}, q, 3)
	if err != nil || it != 0 || !near(z, []float64{0, 0, 0}, 0) || !near(w, q, 0) {
		t.Fatalf("z=%v w=%v it=%d err=%v", z, w, it, err)
	}
	// n = 0 is a valid empty problem.
	if _, err := NewSolver(0).Solve(nil, nil, 0, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// A degenerate LCP on which Lemke's method with the naive "smallest row
// index" tie rule cycles for ever, while the lexicographic rule terminates.
// M is the cyclic P-matrix [[1,2,0],[0,1,2],[2,0,1]] (principal minors 1, 1,
// 9), q = (-1,-1,-1): all three ratios tie at the first pivot. The unique
// solution is z = (1/3,1/3,1/3), w = 0 (each row: 1/3+2/3-1 = 0).
func TestDegenerateCycling(t *testing.T) {
	M := []float64{1, 2, 0, 0, 1, 2, 2, 0, 1}
	q := []float64{-1, -1, -1}
	z := make([]float64, 3)
	w := make([]float64, 3)

	naive := NewSolver(3)
	naive.naiveTies = true
	naive.MaxIter = 1000 // far above the number of almost-complementary bases (< 3·2^3·4)
	if _, err := naive.Solve(M, q, 3, z, w); !errors.Is(err, ErrIterationLimit) {
		t.Fatalf("naive tie rule expected to cycle, got err=%v z=%v", err, z)
	}

	it, err := NewSolver(3).Solve(M, q, 3, z, w)
	if err != nil || !near(z, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-14) || Check(M, q, z, 3) > 1e-15 {
		t.Fatalf("lexicographic: z=%v w=%v it=%d err=%v", z, w, it, err)
	}
}

// Random integer P-matrices with integer q in {-2,-1}: heavy degeneracy.
// The lexicographic solver must always agree with the unique brute-force
// solution (the count of naive-rule failures is only logged).
func TestDegenerateIntegerPMatrices(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	lex := NewSolver(4)
	naive := NewSolver(4)
	naive.naiveTies = true
	naive.MaxIter = 500
	z := make([]float64, 4)
	w := make([]float64, 4)
	tested, naiveFail := 0, 0
	for tested < 30000 {
		n := 2 + rng.Intn(3)
		M := make([]float64, n*n)
		q := make([]float64, n)
		for i := range M {
			M[i] = float64(rng.Intn(5) - 2)
		}
		for i := range q {
			q[i] = -float64(1 + rng.Intn(2))
		}
		if !isPMatrix(M, n) {
			continue
		}
		tested++
		sols := bruteForce(M, q, n, 1e-12)
		if len(sols) != 1 {
			t.Fatalf("P-matrix LCP should have a unique solution, brute force found %d", len(sols))
		}
		if _, err := lex.Solve(M, q, n, z, w); err != nil || !near(z[:n], sols[0], 1e-12) {
			t.Fatalf("M=%v q=%v: z=%v want %v err=%v", M, q, z[:n], sols[0], err)
		}
		if _, err := naive.Solve(M, q, n, z, w); err != nil {
			naiveFail++
		}
	}
	t.Logf("%d degenerate P-matrix LCPs solved; naive tie rule cycled on %d", tested, naiveFail)
}

func isPMatrix(M []float64, n int) bool {
	for mask := 1; mask < 1<<n; mask++ {
		var idx []int
		for i := 0; i < n; i++ {
			if mask>>i&1 == 1 {
				idx = append(idx, i)
			}
		}
		k := len(idx)
		S := make([]float64, k*k)
		for a, i := range idx {
			for b, j := range idx {
				S[a*k+b] = M[i*n+j]
			}
		}
		if det(S, k) <= 1e-12 {
			return false
		}
	}
	return true
}

func det(A []float64, k int) float64 {
	a := append([]float64(nil), A...)
	d := 1.0
	for c := 0; c < k; c++ {
		p := c
		for i := c + 1; i < k; i++ {
			if math.Abs(a[i*k+c]) > math.Abs(a[p*k+c]) {
				p = i
			}
		}
		if a[p*k+c] == 0 {
			return 0
		}
		if p != c {
			for j := 0; j < k; j++ {
				a[c*k+j], a[p*k+j] = a[p*k+j], a[c*k+j]
			}
			d = -d
		}
		d *= a[c*k+c]
		for i := c + 1; i < k; i++ {
			f := a[i*k+c] / a[c*k+c]
			for j := c; j < k; j++ {
				a[i*k+j] -= f * a[c*k+j]
			}
		}
	}
	return d
}

// Infeasible LCPs end on a secondary ray. M = [[1,-1],[-1,1]] is positive
// semidefinite (copositive-plus), q = (-1,-1): w1 + w2 = -2 < 0 for every z,
// so there is no feasible point, and Lemke theory guarantees ray termination.
// M = -I, q = -1 (w = -z - 1 < 0) is infeasible too.
func TestInfeasibleRay(t *testing.T) {
	cases := []struct{ M, q []float64 }{
		{[]float64{1, -1, -1, 1}, []float64{-1, -1}},
		{[]float64{-1, 0, 0, -1}, []float64{-1, -1}},
		{[]float64{0, 0, 0, 0}, []float64{-1, 2}},
	}
	for _, c := range cases {
		z, w, _, err := solve(t, c.M, c.q, 2)
		if !errors.Is(err, ErrRayTermination) {
			t.Fatalf("M=%v q=%v: want ray termination, got %v z=%v w=%v", c.M, c.q, err, z, w)
		}
	}
}

func randPMatrix(rng *rand.Rand, n int, skew bool) []float64 {
	A := make([]float64, n*n)
	for i := range A {
		A[i] = rng.NormFloat64()
	}
	M := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += A[i*n+k] * A[j*n+k]
			}
			M[i*n+j] = s
		}
		M[i*n+i]++
	}
	if skew {
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				s := 2 * rng.NormFloat64()
				M[i*n+j] += s
				M[j*n+i] -= s
			}
		}
	}
	return M
}

// Random P-matrix LCPs (A Aᵀ + I and A Aᵀ + I + skew), n = 1..20: the
// natural residual is below 1e-10 relative to the data scale, and for
// n <= 8 z equals the unique solution found by enumerating all complementary
// bases.
func TestRandomPMatrix(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	s := NewSolver(20)
	z := make([]float64, 20)
	w := make([]float64, 20)
	maxIt := 0
	for n := 1; n <= 20; n++ {
		for _, skew := range []bool{false, true} {
			for trial := 0; trial < 25; trial++ {
				M := randPMatrix(rng, n, skew)
				q := make([]float64, n)
				for i := range q {
					q[i] = 5 * rng.NormFloat64()
				}
				it, err := s.Solve(M, q, n, z, w)
				if err != nil {
					t.Fatalf("n=%d skew=%v: %v", n, skew, err)
				}
				maxIt = max(maxIt, it)
				scale := 1.0
				for _, v := range q {
					scale = math.Max(scale, math.Abs(v))
				}
				if v := Check(M, q, z, n); v > 1e-10*scale {
					t.Fatalf("n=%d skew=%v: violation %g", n, skew, v)
				}
				for i := 0; i < n; i++ {
					wi := q[i]
					for j := 0; j < n; j++ {
						wi += M[i*n+j] * z[j]
					}
					if z[i] < 0 || w[i] < 0 || z[i]*w[i] != 0 || math.Abs(wi-w[i]) > 1e-10*scale {
						t.Fatalf("n=%d: returned pair (z,w)=(%g,%g), Mz+q=%g", n, z[i], w[i], wi)
					}
				}
				if n <= 8 {
					sols := bruteForce(M, q, n, 1e-9*scale)
					if len(sols) != 1 || !near(z[:n], sols[0], 1e-9) {
						t.Fatalf("n=%d: z=%v brute force %v", n, z[:n], sols)
					}
				}
			}
		}
	}
	t.Logf("max pivots over n<=20: %d", maxIt)
}

// For a P-matrix the solution is unique, so any positive covering vector
// must give the same z.
func TestCoveringVector(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	s := NewSolver(6)
	z1 := make([]float64, 6)
	z2 := make([]float64, 6)
	w := make([]float64, 6)
	for trial := 0; trial < 50; trial++ {
		M := randPMatrix(rng, 6, true)
		q := make([]float64, 6)
		d := make([]float64, 6)
		for i := range q {
			q[i] = rng.NormFloat64()
			d[i] = 0.1 + 3*rng.Float64()
		}
		if _, err := s.Solve(M, q, 6, z1, w); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SolveCovering(M, q, d, 6, z2, w); err != nil {
			t.Fatal(err)
		}
		if !near(z1, z2, 1e-10) {
			t.Fatalf("covering changed the solution: %v vs %v", z1, z2)
		}
	}
	if _, err := s.SolveCovering([]float64{1}, []float64{-1}, []float64{0}, 1, z1, w); !errors.Is(err, ErrCovering) {
		t.Fatalf("want ErrCovering, got %v", err)
	}
}

func TestInputErrors(t *testing.T) {
	s := NewSolver(2)
	z := make([]float64, 3)
	w := make([]float64, 3)
	if _, err := s.Solve(make([]float64, 9), make([]float64, 3), 3, z, w); !errors.Is(err, ErrDimension) {
		t.Fatalf("n > nmax: %v", err)
	}
	if _, err := s.Solve(make([]float64, 3), make([]float64, 2), 2, z, w); !errors.Is(err, ErrDimension) {
		t.Fatalf("short M: %v", err)
	}
	if _, err := s.Solve([]float64{1, 0, 0, math.NaN()}, []float64{-1, -1}, 2, z, w); !errors.Is(err, ErrNotFinite) {
		t.Fatalf("NaN in M: %v", err)
	}
	if _, err := s.Solve([]float64{1, 0, 0, 1}, []float64{math.Inf(-1), -1}, 2, z, w); !errors.Is(err, ErrNotFinite) {
		t.Fatalf("Inf in q: %v", err)
	}
	if _, err := s.Solve(nil, nil, -1, z, w); !errors.Is(err, ErrDimension) {
		t.Fatalf("n < 0: %v", err)
	}
	// The 2×2 textbook case needs 3 pivots; a limit of 1 must be reported.
	s.MaxIter = 1
	if it, err := s.Solve([]float64{2, 1, 1, 2}, []float64{-5, -6}, 2, z, w); !errors.Is(err, ErrIterationLimit) || it != 1 {
		t.Fatalf("iteration limit: it=%d err=%v", it, err)
	}
}

func TestCheck(t *testing.T) {
	M := []float64{2, 1, 1, 2}
	q := []float64{-5, -6}
	if v := Check(M, q, []float64{4.0 / 3, 7.0 / 3}, 2); v > 1e-15 {
		t.Fatalf("solution: %g", v)
	}
	// z = 0: w = q, min(0, -5) = -5, min(0, -6) = -6 -> 6.
	if v := Check(M, q, []float64{0, 0}, 2); v != 6 {
		t.Fatalf("z=0: %g", v)
	}
	// z = (3, 3): w = (4, 3), both positive -> min(3,4)=3, min(3,3)=3 -> 3.
	if v := Check(M, q, []float64{3, 3}, 2); v != 3 {
		t.Fatalf("z=(3,3): %g", v)
	}
	// negative z: z = (-1, 3): w = (-4, 5) -> max(|-4|, 3) = 4.
	if v := Check(M, q, []float64{-1, 3}, 2); v != 4 {
		t.Fatalf("z=(-1,3): %g", v)
	}
	if v := Check(M, q, []float64{0}, 2); !math.IsInf(v, 1) {
		t.Fatalf("short z: %g", v)
	}
}

func TestNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	n := 10
	M := randPMatrix(rng, n, true)
	q := make([]float64, n)
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	s := NewSolver(n)
	z := make([]float64, n)
	w := make([]float64, n)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := s.Solve(M, q, n, z, w); err != nil {
			t.Fatal(err)
		}
		_ = Check(M, q, z, n)
	})
	if allocs != 0 {
		t.Fatalf("Solve allocates %v per run", allocs)
	}
	// Error paths do not allocate either (sentinel errors).
	allocs = testing.AllocsPerRun(100, func() {
		_, _ = s.Solve([]float64{1, -1, -1, 1}, []float64{-1, -1}, 2, z, w)
	})
	if allocs != 0 {
		t.Fatalf("ray termination allocates %v per run", allocs)
	}
}

func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{2, 4, 10} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewSource(int64(n)))
			const nprob = 64
			Ms := make([][]float64, nprob)
			qs := make([][]float64, nprob)
			for k := range Ms {
				Ms[k] = randPMatrix(rng, n, false)
				qs[k] = make([]float64, n)
				for i := range qs[k] {
					qs[k][i] = rng.NormFloat64() - 0.5
				}
			}
			s := NewSolver(n)
			z := make([]float64, n)
			w := make([]float64, n)
			piv := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it, err := s.Solve(Ms[i%nprob], qs[i%nprob], n, z, w)
				if err != nil {
					b.Fatal(err)
				}
				piv += it
			}
			b.ReportMetric(float64(piv)/float64(b.N), "pivots/op")
		})
	}
}

// Positive semidefinite (copositive-plus) M = B Bᵀ + skew with rank(B) < n:
// Lemke theory says ray termination happens only when the LCP is infeasible.
// So whenever brute-force enumeration finds a solution, Solve must succeed
// (with a possibly different one: solutions need not be unique), and every
// returned z must pass Check.
func TestPSDRankDeficient(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	s := NewSolver(6)
	z := make([]float64, 6)
	w := make([]float64, 6)
	solved, rays := 0, 0
	for trial := 0; trial < 400; trial++ {
		n := 2 + rng.Intn(5)
		k := 1 + rng.Intn(n-1)
		B := make([]float64, n*k)
		for i := range B {
			B[i] = rng.NormFloat64()
		}
		M := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for l := 0; l < k; l++ {
					M[i*n+j] += B[i*k+l] * B[j*k+l]
				}
			}
		}
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if rng.Intn(2) == 0 {
					v := rng.NormFloat64()
					M[i*n+j] += v
					M[j*n+i] -= v
				}
			}
		}
		q := make([]float64, n)
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		_, err := s.Solve(M, q, n, z, w)
		feasible := len(bruteForce(M, q, n, 1e-9)) > 0
		switch {
		case err == nil:
			solved++
			if v := Check(M, q, z, n); v > 1e-9 {
				t.Fatalf("violation %g", v)
			}
		case errors.Is(err, ErrRayTermination):
			rays++
			if feasible {
				t.Fatalf("ray termination on a solvable PSD LCP: M=%v q=%v", M, q)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	}
	if solved == 0 || rays == 0 {
		t.Fatalf("test not exercising both outcomes: solved %d, rays %d", solved, rays)
	}
	t.Logf("PSD rank-deficient: %d solved, %d infeasible (ray)", solved, rays)
}
