package control

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func scalar(v float64) *mat.Dense { return mat.NewDense(1, 1, []float64{v}) }

// Scalar CARE 2aS − b²S²/r + q = 0: S = (a + √(a² + b²q/r))·r/b², K = bS/r.
func TestLQRScalarClosedForm(t *testing.T) {
	for _, c := range []struct{ a, b, q, r float64 }{
		{-1, 1, 1, 1}, {2, 1, 1, 1}, {0.5, 3, 2, 0.1}, {-10, 0.01, 100, 1e-3}, {0, 1, 1e-4, 1e4},
	} {
		K, S, err := LQR(scalar(c.a), scalar(c.b), scalar(c.q), scalar(c.r))
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		want := (c.a + math.Sqrt(c.a*c.a+c.b*c.b*c.q/c.r)) * c.r / (c.b * c.b)
		if e := relErr(S.At(0, 0), want); e > 1e-12 {
			t.Errorf("%+v: S = %.16g, closed form %.16g (rel %g)", c, S.At(0, 0), want, e)
		}
		if e := relErr(K.At(0, 0), c.b*want/c.r); e > 1e-12 {
			t.Errorf("%+v: K = %.16g, want bS/r = %.16g", c, K.At(0, 0), c.b*want/c.r)
		}
	}
}

// Double integrator with Q = I, R = 1: K = [1, √3], S = [[√3, 1], [1, √3]].
func TestLQRDoubleIntegrator(t *testing.T) {
	A := mat.NewDense(2, 2, []float64{0, 1, 0, 0})
	B := mat.NewDense(2, 1, []float64{0, 1})
	K, S, err := LQR(A, B, eye(2), scalar(1))
	if err != nil {
		t.Fatal(err)
	}
	r3 := math.Sqrt(3)
	if !mat.EqualApprox(K, mat.NewDense(1, 2, []float64{1, r3}), 1e-13) {
		t.Errorf("K = %v, want [1 √3]", mat.Formatted(K))
	}
	if !mat.EqualApprox(S, mat.NewDense(2, 2, []float64{r3, 1, 1, r3}), 1e-13) {
		t.Errorf("S = %v", mat.Formatted(S))
	}
}

// careResidual is the test's own relative CARE residual.
func careResidualRef(A, B, Q, R, S mat.Matrix) float64 {
	n, _ := A.Dims()
	var rinv, g, gs, sgs, as, res mat.Dense
	if err := rinv.Inverse(R); err != nil {
		return math.Inf(1)
	}
	var brt mat.Dense
	brt.Mul(B, &rinv)
	g.Mul(&brt, B.T())
	gs.Mul(&g, S)
	sgs.Mul(S, &gs)
	as.Mul(A.T(), S)
	res.Add(&as, as.T())
	res.Sub(&res, &sgs)
	res.Add(&res, Q)
	_ = n
	return mat.Norm(&res, 2) / (mat.Norm(Q, 2) + 2*mat.Norm(&as, 2) + mat.Norm(&sgs, 2))
}

// dareResidualRef is the test's own relative DARE residual.
func dareResidualRef(A, B, Q, R, S mat.Matrix) float64 {
	var sa, asa, sb, bsb, bsa, inv, t1, corr, res mat.Dense
	sa.Mul(S, A)
	asa.Mul(A.T(), &sa)
	sb.Mul(S, B)
	bsb.Mul(B.T(), &sb)
	bsb.Add(&bsb, R)
	if err := inv.Inverse(&bsb); err != nil {
		return math.Inf(1)
	}
	bsa.Mul(B.T(), &sa)
	t1.Mul(&inv, &bsa)
	corr.Mul(bsa.T(), &t1)
	res.Sub(&asa, S)
	res.Sub(&res, &corr)
	res.Add(&res, Q)
	return mat.Norm(&res, 2) / (mat.Norm(Q, 2) + mat.Norm(S, 2) + mat.Norm(&asa, 2) + mat.Norm(&corr, 2))
}

func randomDense(rng *rand.Rand, r, c int, s float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, s*rng.NormFloat64())
		}
	}
	return m
}

// randomSPD returns M·Mᵀ + eps·I.
func randomSPD(rng *rand.Rand, n int, eps float64) *mat.Dense {
	M := randomDense(rng, n, n, 1)
	var s mat.Dense
	s.Mul(M, M.T())
	for i := 0; i < n; i++ {
		s.Set(i, i, s.At(i, i)+eps)
	}
	return &s
}

func maxReal(p []complex128) float64 {
	m := math.Inf(-1)
	for _, l := range p {
		m = math.Max(m, real(l))
	}
	return m
}

func maxAbs(p []complex128) float64 {
	m := 0.0
	for _, l := range p {
		m = math.Max(m, cmplx.Abs(l))
	}
	return m
}

// Random (almost surely controllable) systems with unstable A: relative
// Riccati residual < 1e-9 checked independently, closed loop stable, S
// symmetric, and the CARE solution matches the DARE solution of the ZOH
// discretisation with Qd = Q·h, Rd = R·h as h → 0 (error O(h)).
func TestLQRRandomSystems(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	worst := 0.0
	for trial := 0; trial < 40; trial++ {
		n := 2 + trial%7
		m := 1 + trial%3
		A := randomDense(rng, n, n, 1)
		B := randomDense(rng, n, m, 1)
		Q := randomSPD(rng, n, 0.1)
		if trial%4 == 0 { // rank-deficient Q (still detectable almost surely)
			v := randomDense(rng, n, 1, 1)
			Q.Mul(v, v.T())
		}
		R := randomSPD(rng, m, 0.5)
		K, S, err := LQR(A, B, Q, R)
		if err != nil {
			t.Fatalf("trial %d (n=%d m=%d): %v", trial, n, m, err)
		}
		res := careResidualRef(A, B, Q, R, S)
		worst = math.Max(worst, res)
		if res > 1e-9 {
			t.Errorf("trial %d: relative CARE residual %g", trial, res)
		}
		if symmetryError(S) != 0 {
			t.Errorf("trial %d: S not symmetric", trial)
		}
		var bk, ac mat.Dense
		bk.Mul(B, K)
		ac.Sub(A, &bk)
		p, err := Poles(&ac)
		if err != nil || maxReal(p) >= 0 {
			t.Errorf("trial %d: closed-loop poles %v (%v)", trial, p, err)
		}
		if trial%5 == 0 {
			const h = 1e-4
			Ad, Bd, err := C2D(A, B, h)
			if err != nil {
				t.Fatal(err)
			}
			var Qd, Rd mat.Dense
			Qd.Scale(h, Q)
			Rd.Scale(h, R)
			_, Sd, err := DLQR(Ad, Bd, &Qd, &Rd)
			if err != nil {
				t.Fatalf("trial %d: DLQR at h = %g: %v", trial, h, err)
			}
			var d mat.Dense
			d.Sub(Sd, S)
			if rel := mat.Norm(&d, 2) / mat.Norm(S, 2); rel > 100*h {
				t.Errorf("trial %d: ‖S_dare(h) − S_care‖/‖S‖ = %g, want O(h = %g)", trial, rel, h)
			}
		}
	}
	t.Logf("worst relative CARE residual over 40 random systems: %.2g", worst)
}

// Scalar DARE b²s² + (r(1 − a²) − qb²)s − qr = 0 (positive root).
func TestDLQRScalarClosedForm(t *testing.T) {
	for _, c := range []struct{ a, b, q, r float64 }{
		{0.5, 1, 1, 1}, {1.2, 1, 1, 1}, {1, 0.1, 2, 0.5}, {-3, 2, 0.1, 10}, {0, 1, 1, 1},
	} {
		K, S, err := DLQR(scalar(c.a), scalar(c.b), scalar(c.q), scalar(c.r))
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		p := c.r*(1-c.a*c.a) - c.q*c.b*c.b
		want := (-p + math.Sqrt(p*p+4*c.b*c.b*c.q*c.r)) / (2 * c.b * c.b)
		if e := relErr(S.At(0, 0), want); e > 1e-12 {
			t.Errorf("%+v: S = %.16g, closed form %.16g (rel %g)", c, S.At(0, 0), want, e)
		}
		wantK := c.b * want * c.a / (c.r + c.b*c.b*want)
		if math.Abs(K.At(0, 0)-wantK) > 1e-12*math.Max(1, math.Abs(wantK)) {
			t.Errorf("%+v: K = %.16g, want %.16g", c, K.At(0, 0), wantK)
		}
	}
}

// Random discrete systems: DLQR agrees with the Riccati difference equation
// iterated to its fixed point from S = Q (value iteration, an independent
// method), residual < 1e-9, closed loop inside the unit circle.
func TestDLQRRandomSystems(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 30; trial++ {
		n := 2 + trial%6
		m := 1 + trial%2
		A := randomDense(rng, n, n, 0.7)
		B := randomDense(rng, n, m, 1)
		Q := randomSPD(rng, n, 0.1)
		R := randomSPD(rng, m, 0.5)
		K, S, err := DLQR(A, B, Q, R)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if res := dareResidualRef(A, B, Q, R, S); res > 1e-9 {
			t.Errorf("trial %d: relative DARE residual %g", trial, res)
		}
		var bk, ac mat.Dense
		bk.Mul(B, K)
		ac.Sub(A, &bk)
		if p, err := Poles(&ac); err != nil || maxAbs(p) >= 1 {
			t.Errorf("trial %d: closed-loop poles %v", trial, p)
		}
		// Value iteration.
		X := mat.DenseCopyOf(Q)
		for it := 0; it < 20000; it++ {
			var xa, axa, xb, bxb, bxa, inv, t1, corr, nx mat.Dense
			xa.Mul(X, A)
			axa.Mul(A.T(), &xa)
			xb.Mul(X, B)
			bxb.Mul(B.T(), &xb)
			bxb.Add(&bxb, R)
			if err := inv.Inverse(&bxb); err != nil {
				t.Fatalf("trial %d it %d: %v %v", trial, it, err, mat.Formatted(&bxb))
			}
			bxa.Mul(B.T(), &xa)
			t1.Mul(&inv, &bxa)
			corr.Mul(bxa.T(), &t1)
			nx.Sub(&axa, &corr)
			nx.Add(&nx, Q)
			var sym mat.Dense // keep it symmetric
			sym.Add(&nx, nx.T())
			sym.Scale(0.5, &sym)
			var d mat.Dense
			d.Sub(&sym, X)
			X = &sym
			if mat.Norm(&d, 2) < 1e-14*mat.Norm(X, 2) {
				break
			}
		}
		var d mat.Dense
		d.Sub(X, S)
		if rel := mat.Norm(&d, 2) / mat.Norm(S, 2); rel > 1e-10 {
			t.Errorf("trial %d: ‖S − S_value-iteration‖/‖S‖ = %g", trial, rel)
		}
	}
}

// An uncontrollable unstable mode makes the problem unsolvable; an
// uncontrollable stable mode does not. For A = diag(1, −2), B = [1; 0],
// Q = I, R = 1: S = diag(1 + √2, 1/4), K = [1 + √2, 0].
func TestRiccatiStabilisability(t *testing.T) {
	b := mat.NewDense(2, 1, []float64{1, 0})
	_, _, err := LQR(mat.NewDense(2, 2, []float64{1, 0, 0, 2}), b, eye(2), scalar(1))
	if err == nil || !strings.Contains(err.Error(), "not stabilisable") || !strings.Contains(err.Error(), "eigenvalue (2") {
		t.Errorf("LQR with uncontrollable mode 2: err = %v", err)
	}
	_, _, err = DLQR(mat.NewDense(2, 2, []float64{0.5, 0, 0, 1.5}), b, eye(2), scalar(1))
	if err == nil || !strings.Contains(err.Error(), "not stabilisable") || !strings.Contains(err.Error(), "eigenvalue (1.5") {
		t.Errorf("DLQR with uncontrollable mode 1.5: err = %v", err)
	}
	// Complex uncontrollable pair 0.1 ± 2i.
	A := mat.NewDense(3, 3, []float64{-1, 0, 0, 0, 0.1, 2, 0, -2, 0.1})
	_, _, err = LQR(A, mat.NewDense(3, 1, []float64{1, 0, 0}), eye(3), scalar(1))
	if err == nil || !strings.Contains(err.Error(), "not stabilisable") {
		t.Errorf("LQR with uncontrollable complex pair: err = %v", err)
	}
	K, S, err := LQR(mat.NewDense(2, 2, []float64{1, 0, 0, -2}), b, eye(2), scalar(1))
	if err != nil {
		t.Fatalf("stabilisable, uncontrollable stable mode: %v", err)
	}
	r2 := 1 + math.Sqrt2
	if !mat.EqualApprox(S, mat.NewDense(2, 2, []float64{r2, 0, 0, 0.25}), 1e-12) ||
		!mat.EqualApprox(K, mat.NewDense(1, 2, []float64{r2, 0}), 1e-12) {
		t.Errorf("S = %v, K = %v", mat.Formatted(S), mat.Formatted(K))
	}
	// Q = 0 on a double integrator: the Hamiltonian has eigenvalues on the
	// imaginary axis and no stabilising solution exists.
	_, _, err = LQR(mat.NewDense(2, 2, []float64{0, 1, 0, 0}), mat.NewDense(2, 1, []float64{0, 1}),
		mat.NewDense(2, 2, nil), scalar(1))
	if err == nil || !strings.Contains(err.Error(), "no stabilising") {
		t.Errorf("LQR with Q = 0 on a double integrator: err = %v", err)
	}
}

func TestRiccatiInputErrors(t *testing.T) {
	A, B := eye(2), mat.NewDense(2, 1, []float64{1, 1})
	cases := []struct {
		name       string
		A, B, Q, R mat.Matrix
		want       string
	}{
		{"R not PD", A, B, eye(2), scalar(0), "R is not positive definite"},
		{"Q asym", A, B, mat.NewDense(2, 2, []float64{1, 1, 0, 1}), scalar(1), "Q is not symmetric"},
		{"Q indefinite", A, B, mat.NewDense(2, 2, []float64{1, 0, 0, -1}), scalar(1), "not positive semi-definite"},
		{"R dims", A, B, eye(2), eye(2), "R is 2×2, want 1×1"},
		{"B rows", A, mat.NewDense(3, 1, nil), eye(2), scalar(1), "B has 3 rows"},
		{"nil Q", A, B, nil, scalar(1), "Q is nil"},
	}
	for _, c := range cases {
		for _, f := range []func(a, b, q, r mat.Matrix) (*mat.Dense, *mat.Dense, error){LQR, DLQR} {
			_, _, err := f(c.A, c.B, c.Q, c.R)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			}
		}
	}
}

func TestPoles(t *testing.T) {
	p, err := Poles(mat.NewDense(2, 2, []float64{0, 1, -2, -3}))
	if err != nil {
		t.Fatal(err)
	}
	re := []float64{real(p[0]), real(p[1])}
	sort.Float64s(re)
	if math.Abs(re[0]+2) > 1e-14 || math.Abs(re[1]+1) > 1e-14 || imag(p[0]) != 0 {
		t.Errorf("poles %v, want -1, -2", p)
	}
	p, _ = Poles(mat.NewDense(2, 2, []float64{-1, 3, -3, -1}))
	if cmplx.Abs(p[0]-complex(-1, 3))*cmplx.Abs(p[0]-complex(-1, -3)) > 1e-13 {
		t.Errorf("poles %v, want -1 ± 3i", p)
	}
	if _, err := Poles(mat.NewDense(2, 3, nil)); err == nil {
		t.Errorf("Poles accepted a 2×3 matrix")
	}
}

func BenchmarkLQR6(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	A, B := randomDense(rng, 6, 6, 1), randomDense(rng, 6, 2, 1)
	Q, R := randomSPD(rng, 6, 0.1), randomSPD(rng, 2, 0.5)
	for i := 0; i < b.N; i++ {
		if _, _, err := LQR(A, B, Q, R); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDLQR6(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	A, B := randomDense(rng, 6, 6, 0.7), randomDense(rng, 6, 2, 1)
	Q, R := randomSPD(rng, 6, 0.1), randomSPD(rng, 2, 0.5)
	for i := 0; i < b.N; i++ {
		if _, _, err := DLQR(A, B, Q, R); err != nil {
			b.Fatal(err)
		}
	}
}
