package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func mustPlan(t testing.TB, p *Pattern, kind string) *Plan {
	t.Helper()
	pl, err := NewPlanKind(p, kind)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Kind() != kind {
		t.Fatalf("plan kind %q, want %q", pl.Kind(), kind)
	}
	return pl
}

func TestDenseRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 4, 5, 8, 9, 12, 16, 17, 24, 30, 40, 64} {
		for rep := 0; rep < 5; rep++ {
			sys := randDense(n, rng)
			pl := mustPlan(t, sys.pat, KindDense)
			checkSolve(t, fmt.Sprintf("dense n=%d rep=%d", n, rep), sys, pl.NewSolver(), rng)
		}
	}
}

// A full random matrix forced onto the band kernel (kl = ku = n-1)
// exercises its pivoting on arbitrary rows.
func TestBandRandomFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 7, 30} {
		for rep := 0; rep < 5; rep++ {
			sys := randDense(n, rng)
			pl := mustPlan(t, sys.pat, KindBand)
			if n > 1 {
				if kl, ku := pl.Bandwidth(); kl != n-1 || ku != n-1 {
					t.Fatalf("n=%d: bandwidth (%d,%d), want (%d,%d)", n, kl, ku, n-1, n-1)
				}
			}
			checkSolve(t, fmt.Sprintf("band-full n=%d rep=%d", n, rep), sys, pl.NewSolver(), rng)
		}
	}
}

func TestAutoKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, tc := range []struct {
		name string
		sys  *testSys
		want string
	}{
		{"pendulum n=5", pendulum(0), KindDense},
		{"full n=DenseAlwaysN", randDense(DenseAlwaysN, rng), KindDense},
		{"full n=30", randDense(30, rng), KindDense},
		{"full n=DenseMaxN+1", randDense(DenseMaxN+1, rng), KindBand},
		{"chain n=40", chainKKT(8, rng), KindBand},
		{"tridiagonal n=DenseAlwaysN+1", shuffledBand(DenseAlwaysN+1, 1, false, rng), KindBand},
	} {
		if k := NewPlan(tc.sys.pat).Kind(); k != tc.want {
			t.Errorf("%s: kind %q, want %q", tc.name, k, tc.want)
		}
	}
	if _, err := NewPlanKind(NewPattern(3), "sparse"); err == nil {
		t.Error("unknown kind accepted")
	}
}

// The pendulum KKT matrix has a zero 2×2 block on the diagonal; with the
// multipliers numbered first the factorization breaks down at step 0
// without pivoting.
func TestPendulumKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kind := range []string{KindDense, KindBand} {
		for _, th := range []float64{0, 0.3, math.Pi / 2, 2.5} {
			for _, lamFirst := range []bool{false, true} {
				sys := pendulum(th)
				if lamFirst {
					sys = multipliersFirst(sys, 3)
				}
				pl := mustPlan(t, sys.pat, kind)
				s := pl.NewSolver()
				checkSolve(t, fmt.Sprintf("%s theta=%g lamFirst=%v", kind, th, lamFirst), sys, s, rng)
			}
		}
	}
	// A known solution must be recovered to rounding.
	sys := pendulum(0.7)
	s := NewPlan(sys.pat).NewSolver()
	sys.load(s)
	if err := s.Factor(); err != nil {
		t.Fatal(err)
	}
	xt := []float64{0.28, -0.32, 0.7, -1.1, 12.75}
	b := sys.mul(xt)
	s.Solve(b)
	for i := range xt {
		if math.Abs(b[i]-xt[i]) > 1e-13*(1+math.Abs(xt[i])) {
			t.Errorf("pendulum x[%d] = %.17g, want %.17g", i, b[i], xt[i])
		}
	}
}

// Random KKT systems [M G^T; G 0] with M SPD and G of full row rank.
func TestRandomKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dims := range [][2]int{{3, 2}, {6, 3}, {12, 8}, {20, 15}} {
		nq, nc := dims[0], dims[1]
		sys := newTestSys(nq + nc)
		for i := 0; i < nq; i++ {
			for j := 0; j < nq; j++ {
				v := 0.1 * (rng.Float64() - 0.5)
				if i == j {
					v = 1 + rng.Float64()
				}
				sys.add(i, j, v)
				if i != j {
					sys.add(j, i, v)
				}
			}
		}
		for r := 0; r < nc; r++ {
			for j := 0; j < nq; j++ {
				v := 2*rng.Float64() - 1
				sys.add(nq+r, j, v)
				sys.add(j, nq+r, v)
			}
		}
		for _, kind := range []string{KindDense, KindBand} {
			pl := mustPlan(t, sys.pat, kind)
			checkSolve(t, fmt.Sprintf("kkt %dx%d %s", nq, nc, kind), sys, pl.NewSolver(), rng)
			lf := multipliersFirst(sys, nq)
			pl = mustPlan(t, lf.pat, kind)
			checkSolve(t, fmt.Sprintf("kkt %dx%d %s multipliers first", nq, nc, kind), lf, pl.NewSolver(), rng)
		}
	}
}

// RCM must recover the hidden band of a randomly shuffled tri- or
// pentadiagonal matrix; the solution must agree with gonum's dense LU.
func TestShuffledBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, bw := range []int{1, 2} {
		for _, zeroDiag := range []bool{false, true} {
			for rep := 0; rep < 3; rep++ {
				const n = 300
				sys := shuffledBand(n, bw, zeroDiag, rng)
				pl := NewPlan(sys.pat)
				kl, ku := pl.Bandwidth()
				if pl.Kind() != KindBand || kl > bw || ku > bw {
					t.Errorf("bw=%d: plan %s with bandwidth (%d,%d), want band with <= %d", bw, pl.Kind(), kl, ku, bw)
				}
				checkSolve(t, fmt.Sprintf("shuffled bw=%d zeroDiag=%v", bw, zeroDiag), sys, pl.NewSolver(), rng)
			}
		}
	}
}

// Several disconnected shuffled paths: each component must be ordered on
// its own (bandwidth 1), and isolated nodes must be handled.
func TestDisconnected(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 200
	q := rng.Perm(n)
	sys := newTestSys(n)
	// components: hidden ranges [0,60), [60,61) (isolated), [61,130), [130,200)
	cuts := []int{0, 60, 61, 130, 200}
	for c := 0; c+1 < len(cuts); c++ {
		for k := cuts[c]; k < cuts[c+1]; k++ {
			sys.add(q[k], q[k], 4+rng.Float64())
			if k+1 < cuts[c+1] {
				sys.add(q[k], q[k+1], rng.Float64()-0.5)
				sys.add(q[k+1], q[k], rng.Float64()-0.5)
			}
		}
	}
	pl := NewPlan(sys.pat)
	if kl, ku := pl.Bandwidth(); kl != 1 || ku != 1 {
		t.Errorf("bandwidth (%d,%d), want (1,1)", kl, ku)
	}
	checkSolve(t, "disconnected", sys, pl.NewSolver(), rng)
}

// A diagonal pattern gives a band plan with kl = ku = 0.
func TestDiagonalBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	sys := newTestSys(60)
	for i := 0; i < sys.n; i++ {
		sys.add(i, i, 1+rng.Float64())
	}
	pl := NewPlan(sys.pat)
	if kl, ku := pl.Bandwidth(); pl.Kind() != KindBand || kl != 0 || ku != 0 {
		t.Fatalf("plan %s (%d,%d), want band (0,0)", pl.Kind(), kl, ku)
	}
	checkSolve(t, "diagonal", sys, pl.NewSolver(), rng)
}

// Chain of bodies: the bandwidth after RCM must not grow with N.
func TestChainKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const maxBW = 4
	var bws []int
	for _, N := range []int{10, 100, 1000} {
		sys := chainKKT(N, rng)
		pl := NewPlan(sys.pat)
		kl, ku := pl.Bandwidth()
		t.Logf("chain N=%d n=%d: kind %s bandwidth (%d,%d)", N, pl.N(), pl.Kind(), kl, ku)
		if pl.Kind() != KindBand || kl > maxBW || ku > maxBW {
			t.Errorf("chain N=%d: plan %s bandwidth (%d,%d), want band <= %d", N, pl.Kind(), kl, ku, maxBW)
		}
		bws = append(bws, kl)
		s := pl.NewSolver()
		if N <= 100 {
			checkSolve(t, fmt.Sprintf("chain N=%d", N), sys, s, rng)
			continue
		}
		// N=1000 (n=5000): too big for a dense reference; check the
		// recovery of a known solution and the residual instead.
		x, xt, b := solveKnown(t, sys, s, rng)
		r := sys.mul(x)
		for i := range r {
			r[i] -= b[i]
		}
		if got, bound := NormInf(r), 1e-14*float64(sys.n)*sys.normMax()*NormInf(x); got > bound {
			t.Errorf("chain N=1000: residual %g > %g", got, bound)
		}
		for i := range x {
			x[i] -= xt[i]
		}
		if e := NormInf(x); e > 1e-8 {
			t.Errorf("chain N=1000: |x - x_true| = %g", e)
		}
	}
	if bws[1] != bws[2] {
		t.Errorf("chain bandwidth grows with N: %v", bws)
	}
}

// Spatial chain on spherical joints: solutions against gonum (N = 10, 30)
// and a known solution (N = 1000); the bandwidth must not grow with N.
func TestSpatialChainKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var bws []int
	for _, N := range []int{10, 30, 1000} {
		sys := spatialChainKKT(N, rng)
		pl := NewPlan(sys.pat)
		kl, ku := pl.Bandwidth()
		t.Logf("spatial chain N=%d n=%d: kind %s bandwidth (%d,%d)", N, pl.N(), pl.Kind(), kl, ku)
		bws = append(bws, kl)
		s := pl.NewSolver()
		if N <= 30 {
			checkSolve(t, fmt.Sprintf("spatial chain N=%d", N), sys, s, rng)
			continue
		}
		x, xt, _ := solveKnown(t, sys, s, rng)
		for i := range x {
			x[i] -= xt[i]
		}
		if e := NormInf(x); e > 1e-9 {
			t.Errorf("spatial chain N=%d: |x - x_true| = %g", N, e)
		}
	}
	if bws[1] != bws[2] {
		t.Errorf("spatial chain bandwidth grows with N: %v", bws)
	}
}

func TestSingular(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	// Structurally zero column u: Index must be exactly u, for both kinds.
	for _, kind := range []string{KindDense, KindBand} {
		for _, u := range []int{0, 3, 7} {
			full := randDense(8, rng)
			sys := newTestSys(8)
			for _, e := range full.ents {
				if e.j != u {
					sys.add(e.i, e.j, e.v)
				}
			}
			sys.pat.AddBlock([]int{0, 1, 2, 3, 4, 5, 6, 7})
			s := mustPlan(t, sys.pat, kind).NewSolver()
			sys.load(s)
			err := s.Factor()
			var se *SingularError
			if !errors.As(err, &se) {
				t.Fatalf("%s u=%d: got %v, want *SingularError", kind, u, err)
			}
			if se.Index != u || se.Pivot != 0 {
				t.Errorf("%s: SingularError{Index %d, Pivot %g}, want {%d, 0}", kind, se.Index, se.Pivot, u)
			}
		}
	}
	// Band with RCM permutation: zero column of the unknown u in a chain.
	chain := chainKKT(20, rng)
	const u = 37
	sys := newTestSys(chain.n)
	sys.pat = chain.pat
	for _, e := range chain.ents {
		if e.j != u {
			sys.ents = append(sys.ents, e)
		}
	}
	s := NewPlan(sys.pat).NewSolver()
	sys.load(s)
	var se *SingularError
	if err := s.Factor(); !errors.As(err, &se) || se.Index != u {
		t.Errorf("chain zero column %d: got %v", u, err)
	}
	// Numerically dependent rows (row 4 = 2 row1 - 3 row2), not structural.
	for _, kind := range []string{KindDense, KindBand} {
		d := randDense(6, rng)
		sys := newTestSys(6)
		a := make([][]float64, 6)
		for i := range a {
			a[i] = make([]float64, 6)
		}
		for _, e := range d.ents {
			a[e.i][e.j] = e.v
		}
		for j := 0; j < 6; j++ {
			a[4][j] = 2*a[1][j] - 3*a[2][j]
		}
		for i := range a {
			for j := range a[i] {
				sys.add(i, j, a[i][j])
			}
		}
		s := mustPlan(t, sys.pat, kind).NewSolver()
		sys.load(s)
		if err := s.Factor(); !errors.As(err, &se) {
			t.Errorf("%s dependent rows: got %v, want *SingularError", kind, err)
		}
	}
	// The zero matrix.
	s = NewPlan(NewPattern(4)).NewSolver()
	if err := s.Factor(); !errors.As(err, &se) || se.Index != 0 {
		t.Errorf("zero matrix: got %v", err)
	}
}

// The pivot test is relative: a uniformly scaled matrix still factors.
func TestScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, scale := range []float64{1e-200, 1e200} {
		sys := pendulum(0.4)
		for i := range sys.ents {
			sys.ents[i].v *= scale
		}
		s := NewPlan(sys.pat).NewSolver()
		sys.load(s)
		if err := s.Factor(); err != nil {
			t.Errorf("scale %g: %v", scale, err)
		}
		_ = rng
	}
}

func TestNonFinite(t *testing.T) {
	for _, kind := range []string{KindDense, KindBand} {
		sys := pendulum(0.1)
		s := mustPlan(t, sys.pat, kind).NewSolver()
		sys.load(s)
		s.Add(2, 3, math.NaN())
		err := s.Factor()
		if err == nil || !strings.Contains(err.Error(), "(2,3)") {
			t.Errorf("%s NaN: got %v", kind, err)
		}
	}
}

// A failed Factor must keep the previous factors for Solve.
func TestFailedFactorKeepsPrevious(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, kind := range []string{KindDense, KindBand} {
		sys := pendulum(1.1)
		s := mustPlan(t, sys.pat, kind).NewSolver()
		b := []float64{1, 2, 3, 4, 5}
		s.Solve(b)
		if !math.IsNaN(b[0]) {
			t.Errorf("%s: Solve before Factor gave %v, want NaN", kind, b)
		}
		sys.load(s)
		if err := s.Factor(); err != nil {
			t.Fatal(err)
		}
		s.Zero() // singular now
		if err := s.Factor(); err == nil {
			t.Fatalf("%s: zero matrix factored", kind)
		}
		xt := randVec(5, rng)
		b = sys.mul(xt)
		s.Solve(b)
		for i := range b {
			if math.Abs(b[i]-xt[i]) > 1e-12 {
				t.Errorf("%s: after failed Factor x[%d]=%g want %g", kind, i, b[i], xt[i])
			}
		}
	}
}

func TestAssemblyErrors(t *testing.T) {
	// Tridiagonal n=100: identity ordering, band (1,1).
	sys := shuffledBand(100, 1, false, rand.New(rand.NewPCG(21, 22)))
	pl := NewPlan(sys.pat)
	s := pl.NewSolver()
	sys.load(s)
	// Find a pair far apart in the permuted order.
	perm := pl.Perm()
	i, j := 0, 0
	for k := range perm {
		if perm[k] == 0 {
			i = k
		}
		if perm[k] == 50 {
			j = k
		}
	}
	s.Add(i, j, 1)
	err := s.Factor()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("(%d,%d)", i, j)) {
		t.Errorf("outside band: got %v", err)
	}
	if s.Err() == nil {
		t.Error("Err() nil with pending error")
	}
	sys.load(s) // Zero clears the error
	if err := s.Factor(); err != nil {
		t.Errorf("after Zero: %v", err)
	}
	for _, kind := range []string{KindDense, KindBand} {
		s := mustPlan(t, pendulum(0).pat, kind).NewSolver()
		s.Set(-1, 3, 1)
		s.Add(0, 5, 1)
		if err := s.Factor(); err == nil || !strings.Contains(err.Error(), "(-1,3)") {
			t.Errorf("%s out of range: got %v", kind, err)
		}
	}
	p := NewPattern(3)
	p.Add(0, 3)
	p.AddBlock([]int{1, -2})
	if p.Err() == nil || !strings.Contains(p.Err().Error(), "(0,3)") {
		t.Errorf("pattern out of range: %v", p.Err())
	}
}

func TestAtMulVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, kind := range []string{KindDense, KindBand} {
		sys := chainKKT(6, rng)
		s := mustPlan(t, sys.pat, kind).NewSolver()
		sys.load(s)
		d := sys.dense()
		for i := 0; i < sys.n; i++ {
			for j := 0; j < sys.n; j++ {
				if s.At(i, j) != d.At(i, j) {
					t.Fatalf("%s At(%d,%d) = %g, want %g", kind, i, j, s.At(i, j), d.At(i, j))
				}
			}
		}
		x := randVec(sys.n, rng)
		want := sys.mul(x)
		for pass := 0; pass < 2; pass++ { // before and after Factor
			got := make([]float64, sys.n)
			s.MulVec(got, x)
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-14*(1+math.Abs(want[i])) {
					t.Errorf("%s pass %d MulVec[%d] = %g, want %g", kind, pass, i, got[i], want[i])
				}
			}
			if err := s.Factor(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestCopyFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, kind := range []string{KindDense, KindBand} {
		sysA := chainKKT(8, rng)
		sysB := chainKKT(8, rng) // same pattern, other values
		pl := mustPlan(t, sysA.pat, kind)
		s1, s2 := pl.NewSolver(), pl.NewSolver()
		sysA.load(s1)
		if err := s1.Factor(); err != nil {
			t.Fatal(err)
		}
		// (after two solves the factors are also in compact form: both
		// forms are copied)
		for range 2 {
			s1.Solve(randVec(sysA.n, rng))
		}
		s2.CopyFrom(s1)
		sysB.load(s1)
		if err := s1.Factor(); err != nil {
			t.Fatal(err)
		}
		xt := randVec(sysA.n, rng)
		b := sysA.mul(xt)
		for range 2 {
			x := append([]float64(nil), b...)
			s2.Solve(x)
			for i := range x {
				if math.Abs(x[i]-xt[i]) > 1e-10 {
					t.Fatalf("%s: copy solves x[%d]=%g want %g", kind, i, x[i], xt[i])
				}
			}
		}
		if s2.At(0, 0) != sysA.dense().At(0, 0) {
			t.Errorf("%s: copied values differ", kind)
		}
		// Incompatible plans: error, no factors.
		other := NewPlan(pendulum(0).pat).NewSolver()
		other.CopyFrom(s1)
		if other.Err() == nil || other.Factored() {
			t.Errorf("%s: incompatible CopyFrom accepted", kind)
		}
	}
}

func TestPlanShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	sys := chainKKT(30, rng)
	pl := NewPlan(sys.pat)
	xt := randVec(sys.n, rng)
	b := sys.mul(xt)
	var wg sync.WaitGroup
	errs := make([]float64, 4)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := pl.NewSolver()
			for rep := 0; rep < 20; rep++ {
				sys.load(s)
				if s.Factor() != nil {
					errs[g] = math.Inf(1)
					return
				}
				x := append([]float64(nil), b...)
				s.Solve(x)
				for i := range x {
					errs[g] = math.Max(errs[g], math.Abs(x[i]-xt[i]))
				}
			}
		}()
	}
	wg.Wait()
	for g, e := range errs {
		if e > 1e-10 {
			t.Errorf("goroutine %d: error %g", g, e)
		}
	}
}

func TestPatternDedup(t *testing.T) {
	p := NewPattern(10)
	for k := 0; k < 10000; k++ {
		p.Add(2, 7)
		p.AddBlock([]int{2, 3, 4})
	}
	if len(p.adj[2]) > 64 {
		t.Errorf("row 2 holds %d entries after duplicates", len(p.adj[2]))
	}
	ptr, ind := p.csr()
	if got := ind[ptr[2]:ptr[3]]; fmt.Sprint(got) != "[3 4 7]" {
		t.Errorf("row 2 = %v, want [3 4 7]", got)
	}
}

func TestNorms(t *testing.T) {
	if v := Norm2([]float64{3, -4}); v != 5 {
		t.Errorf("Norm2 = %g", v)
	}
	if v := Norm2([]float64{3e200, 4e200}); math.Abs(v-5e200) > 1e186 {
		t.Errorf("Norm2 large = %g", v)
	}
	if v := Norm2([]float64{3e-200, 4e-200}); math.Abs(v-5e-200) > 1e-214 {
		t.Errorf("Norm2 small = %g", v)
	}
	if v := Norm2(nil); v != 0 {
		t.Errorf("Norm2(nil) = %g", v)
	}
	if v := NormInf([]float64{1, -7, 3}); v != 7 {
		t.Errorf("NormInf = %g", v)
	}
	if v := NormInf([]float64{1, math.NaN()}); !math.IsNaN(v) {
		t.Errorf("NormInf NaN = %g", v)
	}
	if v := Norm2([]float64{math.NaN(), 1}); !math.IsNaN(v) {
		t.Errorf("Norm2 NaN = %g", v)
	}
}

func TestAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	for _, tc := range []struct {
		name string
		sys  *testSys
	}{{"dense pendulum", pendulum(0.3)}, {"dense full 30", randDense(30, rng)}, {"band chain", chainKKT(50, rng)}} {
		pl := NewPlan(tc.sys.pat)
		if want := strings.Fields(tc.name)[0]; pl.Kind() != want {
			t.Fatalf("%s: plan kind %s", tc.name, pl.Kind())
		}
		s := pl.NewSolver()
		s2 := pl.NewSolver()
		b := randVec(tc.sys.n, rng)
		x := make([]float64, tc.sys.n)
		allocs := testing.AllocsPerRun(20, func() {
			s.Zero()
			for _, e := range tc.sys.ents {
				s.Add(e.i, e.j, e.v)
			}
			s.Set(0, 0, s.At(0, 0))
			if s.Factor() != nil {
				panic("factor")
			}
			copy(x, b)
			s.Solve(x)
			s.MulVec(x, b)
			s2.CopyFrom(s)
		})
		if allocs != 0 {
			t.Errorf("%s: %g allocs per run", tc.name, allocs)
		}
	}
}

func TestEdgeSizes(t *testing.T) {
	for _, kind := range []string{KindDense, KindBand} {
		s := mustPlan(t, NewPattern(0), kind).NewSolver()
		if err := s.Factor(); err != nil {
			t.Errorf("%s n=0: %v", kind, err)
		}
		s.Solve(nil)
		s.MulVec(nil, nil)

		s = mustPlan(t, NewPattern(1), kind).NewSolver()
		s.Set(0, 0, -4)
		if err := s.Factor(); err != nil {
			t.Fatalf("%s n=1: %v", kind, err)
		}
		b := []float64{2}
		s.Solve(b)
		if b[0] != -0.5 {
			t.Errorf("%s n=1: x = %g, want -0.5", kind, b[0])
		}
		b = []float64{1, 2} // wrong length
		s.Solve(b)
		if !math.IsNaN(b[0]) || !math.IsNaN(b[1]) {
			t.Errorf("%s: Solve with wrong length gave %v", kind, b)
		}
	}
	if NewPattern(-3).N() != 0 {
		t.Error("negative n not clamped")
	}
}

// beamSys is a KKT-like system with the structure of an ANCF beam with ne
// two-node elements and dpn coordinates per node, numbered in a random
// order: symmetric element blocks (diagonally dominant in sum), a clamped
// end (dpn multipliers, each coupling one coordinate of node 0) and one
// multiplier coupling all coordinates of the tip node. The multiplier rows
// have a zero diagonal.
func beamSys(ne, dpn int, rng *rand.Rand) *testSys {
	nq := (ne + 1) * dpn
	n := nq + dpn + 1
	q := rng.Perm(n)
	sys := newTestSys(n)
	blk := make([]int, 2*dpn)
	for e := 0; e < ne; e++ {
		for k := range blk {
			blk[k] = q[e*dpn+k]
		}
		sys.pat.AddBlock(blk)
		for a := range blk {
			sys.add(blk[a], blk[a], float64(2*dpn)+rng.Float64())
			for b := a + 1; b < len(blk); b++ {
				v := 2*rng.Float64() - 1
				sys.add(blk[a], blk[b], v)
				sys.add(blk[b], blk[a], v)
			}
		}
	}
	for c := 0; c < dpn; c++ {
		v := 1 + rng.Float64()
		sys.add(q[nq+c], q[c], v)
		sys.add(q[c], q[nq+c], v)
	}
	for k := 0; k < dpn; k++ {
		v := 2*rng.Float64() - 1
		sys.add(q[n-1], q[ne*dpn+k], v)
		sys.add(q[ne*dpn+k], q[n-1], v)
	}
	return sys
}

// ANCF beams: RCM must recover a bandwidth of the order of the element
// block, independent of the number of elements, and the band solver must
// reproduce a known solution.
func TestBeam(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	for _, dpn := range []int{6, 12} {
		var bws []int
		for _, ne := range []int{160, 300} {
			sys := beamSys(ne, dpn, rng)
			pl := NewPlan(sys.pat)
			kl, _ := pl.Bandwidth()
			t.Logf("beam dpn=%d ne=%d n=%d: bandwidth %d", dpn, ne, sys.n, kl)
			if pl.Kind() != KindBand || kl > 2*dpn {
				t.Errorf("beam dpn=%d ne=%d: %s plan with bandwidth %d, want band <= %d", dpn, ne, pl.Kind(), kl, 2*dpn)
			}
			bws = append(bws, kl)

			s := pl.NewSolver()
			sys.load(s)
			if err := s.Factor(); err != nil {
				t.Fatal(err)
			}
			xt := randVec(sys.n, rng)
			x := sys.mul(xt)
			s.Solve(x)
			for i := range x {
				x[i] -= xt[i]
			}
			if e := NormInf(x); e > 1e-10 {
				t.Errorf("beam dpn=%d ne=%d: |x - x_true| = %g", dpn, ne, e)
			}
		}
		if bws[0] != bws[1] {
			t.Errorf("beam dpn=%d: bandwidth depends on the element count: %v", dpn, bws)
		}
	}
}

// TestPos: adding at the positions of Plan.Pos is the same as Add, for
// small dense, larger dense and band (permuted) plans; entries the plan does
// not store have no position, and AddAt there is an assembly error.
func TestPos(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct {
		sys  *testSys
		kind string
	}{
		{pendulum(0.3), KindDense},
		{randDense(20, rng), KindDense},
		{shuffledBand(60, 2, true, rng), KindBand},
		{chainKKT(30, rng), KindBand},
	} {
		pl := mustPlan(t, c.sys.pat, c.kind)
		a, b := pl.NewSolver(), pl.NewSolver()
		n := pl.N()
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				k := pl.Pos(i, j)
				if k < 0 {
					continue
				}
				v := rng.NormFloat64()
				a.Add(i, j, v)
				b.AddAt(k, v)
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if a.At(i, j) != b.At(i, j) {
					t.Fatalf("%s n=%d: (%d,%d) Add %g, AddAt %g", c.kind, n, i, j, a.At(i, j), b.At(i, j))
				}
			}
		}
		if a.Err() != nil || b.Err() != nil {
			t.Fatalf("%s: unexpected assembly error %v / %v", c.kind, a.Err(), b.Err())
		}
		if pl.Pos(-1, 0) != -1 || pl.Pos(0, n) != -1 {
			t.Errorf("%s: out-of-range entries have a position", c.kind)
		}
		b.AddAt(-1, 1)
		if err := b.Factor(); err == nil || !strings.Contains(err.Error(), "AddAt") {
			t.Errorf("%s: AddAt(-1): Factor returned %v", c.kind, err)
		}
	}
	// a band plan has no position outside its band
	pl := NewPlan(shuffledBand(100, 1, false, rand.New(rand.NewPCG(21, 22))).pat)
	perm := pl.Perm()
	far := 0
	for k := range perm {
		if perm[k] == 50 {
			far = k
		}
	}
	zero := 0
	for k := range perm {
		if perm[k] == 0 {
			zero = k
		}
	}
	if pl.Pos(zero, far) != -1 {
		t.Errorf("entry outside the band has position %d", pl.Pos(zero, far))
	}
}
