package control

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func relErr(got, want float64) float64 {
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// Scalar ẋ = a·x + b·u under a zero-order hold: Ad = exp(a·dt),
// Bd = (exp(a·dt) − 1)/a·b (b·dt for a = 0).
func TestC2DScalar(t *testing.T) {
	for _, c := range []struct{ a, b, dt float64 }{
		{-2, 3, 0.1}, {0.5, -1, 0.2}, {-50, 2, 1e-3}, {-1e-3, 1, 0.01}, {0, 4, 0.25}, {-3, 1, 2},
	} {
		Ad, Bd, err := C2D(mat.NewDense(1, 1, []float64{c.a}), mat.NewDense(1, 1, []float64{c.b}), c.dt)
		if err != nil {
			t.Fatal(err)
		}
		wantA := math.Exp(c.a * c.dt)
		wantB := c.b * c.dt
		if c.a != 0 {
			wantB = math.Expm1(c.a*c.dt) / c.a * c.b
		}
		// A few ulp; squarings in scaling-and-squaring cost more for |a·dt| > 1.
		tol := 4e-16
		if math.Abs(c.a*c.dt) > 1 {
			tol = 1e-14
		}
		if e := relErr(Ad.At(0, 0), wantA); e > tol {
			t.Errorf("a=%g dt=%g: Ad = %.17g, exp(a·dt) = %.17g (rel %g)", c.a, c.dt, Ad.At(0, 0), wantA, e)
		}
		if e := relErr(Bd.At(0, 0), wantB); e > tol {
			t.Errorf("a=%g dt=%g: Bd = %.17g, (exp(a·dt)−1)/a·b = %.17g (rel %g)", c.a, c.dt, Bd.At(0, 0), wantB, e)
		}
	}
}

// Double integrator: Ad = [[1, dt], [0, 1]], Bd = [dt²/2, dt]. Harmonic
// oscillator ẍ = −ω²x + u: Ad = [[cos, sin/ω], [−ω·sin, cos]],
// Bd = [(1 − cos)/ω², sin/ω] at ω·dt.
func TestC2DClosedForms(t *testing.T) {
	const dt = 0.3
	Ad, Bd, err := C2D(mat.NewDense(2, 2, []float64{0, 1, 0, 0}), mat.NewDense(2, 1, []float64{0, 1}), dt)
	if err != nil {
		t.Fatal(err)
	}
	wantA := mat.NewDense(2, 2, []float64{1, dt, 0, 1})
	wantB := mat.NewDense(2, 1, []float64{dt * dt / 2, dt})
	if !mat.EqualApprox(Ad, wantA, 1e-15) || !mat.EqualApprox(Bd, wantB, 1e-15) {
		t.Errorf("double integrator: Ad = %v, Bd = %v", mat.Formatted(Ad), mat.Formatted(Bd))
	}
	const w = 3.0
	Ad, Bd, err = C2D(mat.NewDense(2, 2, []float64{0, 1, -w * w, 0}), mat.NewDense(2, 1, []float64{0, 1}), dt)
	if err != nil {
		t.Fatal(err)
	}
	c, s := math.Cos(w*dt), math.Sin(w*dt)
	wantA = mat.NewDense(2, 2, []float64{c, s / w, -w * s, c})
	wantB = mat.NewDense(2, 1, []float64{(1 - c) / (w * w), s / w})
	if !mat.EqualApprox(Ad, wantA, 1e-14) || !mat.EqualApprox(Bd, wantB, 1e-14) {
		t.Errorf("oscillator: Ad = %v, Bd = %v", mat.Formatted(Ad), mat.Formatted(Bd))
	}
}

// A ZOH-discretised first-order lag driven by a unit step reproduces the
// continuous step response b/(−a)·(1 − exp(a·t)) at every sample, and the
// output at step k is C·x[k] + D·u[k] (before the update).
func TestStateSpaceStepResponse(t *testing.T) {
	const a, b, dt, d = -4.0, 2.0, 0.05, 0.25
	Ad, Bd, err := C2D(mat.NewDense(1, 1, []float64{a}), mat.NewDense(1, 1, []float64{b}), dt)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := NewDiscreteSS(Ad, Bd, mat.NewDense(1, 1, []float64{1}), mat.NewDense(1, 1, []float64{d}), dt)
	if err != nil {
		t.Fatal(err)
	}
	u, y := []float64{1}, []float64{0}
	for k := 0; k < 60; k++ {
		if err := ss.Step(u, y); err != nil {
			t.Fatal(err)
		}
		want := b/(-a)*(1-math.Exp(a*float64(k)*dt)) + d
		if math.Abs(y[0]-want) > 1e-14 {
			t.Fatalf("k=%d: y = %.16g, closed form %.16g", k, y[0], want)
		}
	}
	x := ss.State(nil)
	if err := ss.Output(u, y); err != nil || ss.State(nil)[0] != x[0] {
		t.Errorf("Output advanced the state or failed: %v", err)
	}
	ss.Reset()
	if ss.State(nil)[0] != 0 {
		t.Errorf("Reset left x = %v", ss.State(nil))
	}
	if err := ss.SetState([]float64{2}); err != nil {
		t.Fatal(err)
	}
	if _, _ = y, ss.Step(u, y); y[0] != 2+d {
		t.Errorf("after SetState(2): y = %g, want %g", y[0], 2+d)
	}
}

// Tustin with scalar a, b, c, d: Ad = (2 + a·dt)/(2 − a·dt), Bd = b·dt/(1 − a·dt/2),
// Cd = c/(1 − a·dt/2), Dd = d + c·b·dt/2/(1 − a·dt/2).
func TestC2DTustinScalar(t *testing.T) {
	const a, b, c, d, dt = -3.0, 2.0, 0.7, 0.1, 0.2
	s := func(v float64) *mat.Dense { return mat.NewDense(1, 1, []float64{v}) }
	Ad, Bd, Cd, Dd, err := C2DTustin(s(a), s(b), s(c), s(d), dt)
	if err != nil {
		t.Fatal(err)
	}
	q := 1 - a*dt/2
	for _, v := range []struct {
		name      string
		got, want float64
	}{{"Ad", Ad.At(0, 0), (2 + a*dt) / (2 - a*dt)}, {"Bd", Bd.At(0, 0), b * dt / q},
		{"Cd", Cd.At(0, 0), c / q}, {"Dd", Dd.At(0, 0), d + c*b*dt/2/q}} {
		if relErr(v.got, v.want) > 1e-15 {
			t.Errorf("%s = %.17g, want %.17g", v.name, v.got, v.want)
		}
	}
}

// complexSolve solves M·x = r by Gaussian elimination with partial pivoting
// (test reference, independent of the package).
func complexSolve(M [][]complex128, r []complex128) []complex128 {
	n := len(r)
	for k := 0; k < n; k++ {
		p := k
		for i := k + 1; i < n; i++ {
			if cmplx.Abs(M[i][k]) > cmplx.Abs(M[p][k]) {
				p = i
			}
		}
		M[k], M[p] = M[p], M[k]
		r[k], r[p] = r[p], r[k]
		for i := k + 1; i < n; i++ {
			f := M[i][k] / M[k][k]
			for j := k; j < n; j++ {
				M[i][j] -= f * M[k][j]
			}
			r[i] -= f * r[k]
		}
	}
	x := make([]complex128, n)
	for i := n - 1; i >= 0; i-- {
		s := r[i]
		for j := i + 1; j < n; j++ {
			s -= M[i][j] * x[j]
		}
		x[i] = s / M[i][i]
	}
	return x
}

// freqResp returns C·(s·I − A)⁻¹·B[:,0] + D[:,0] at output 0.
func freqResp(A, B, C, D mat.Matrix, s complex128) complex128 {
	n, _ := A.Dims()
	M := make([][]complex128, n)
	r := make([]complex128, n)
	for i := range M {
		M[i] = make([]complex128, n)
		for j := range M[i] {
			M[i][j] = complex(-A.At(i, j), 0)
		}
		M[i][i] += s
		r[i] = complex(B.At(i, 0), 0)
	}
	x := complexSolve(M, r)
	g := complex(D.At(0, 0), 0)
	for j := range x {
		g += complex(C.At(0, j), 0) * x[j]
	}
	return g
}

// The Tustin map preserves the frequency response with prewarped
// frequency: Gd(exp(iωdt)) = Gc(i·(2/dt)·tan(ω·dt/2)).
func TestC2DTustinFrequencyResponse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, dt = 4, 0.05
	A := mat.NewDense(n, n, nil)
	B := mat.NewDense(n, 2, nil)
	C := mat.NewDense(2, n, nil)
	D := mat.NewDense(2, 2, nil)
	for _, m := range []*mat.Dense{A, B, C, D} {
		r, c := m.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
	}
	Ad, Bd, Cd, Dd, err := C2DTustin(A, B, C, D, dt)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{0.1, 1, 10, 50} {
		gd := freqResp(Ad, Bd, Cd, Dd, cmplx.Exp(complex(0, w*dt)))
		gc := freqResp(A, B, C, D, complex(0, 2/dt*math.Tan(w*dt/2)))
		if cmplx.Abs(gd-gc) > 1e-12*math.Max(1, cmplx.Abs(gc)) {
			t.Errorf("ω = %g: Gd = %v, Gc(prewarped) = %v", w, gd, gc)
		}
	}
	// Singular I − A·dt/2.
	if _, _, _, _, err := C2DTustin(mat.NewDense(1, 1, []float64{2 / dt}), mat.NewDense(1, 1, []float64{1}),
		mat.NewDense(1, 1, []float64{1}), nil, dt); err == nil || !strings.Contains(err.Error(), "singular") {
		t.Errorf("C2DTustin with eigenvalue 2/dt: err = %v", err)
	}
}

func TestStateSpaceErrors(t *testing.T) {
	I2 := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	b2 := mat.NewDense(2, 1, []float64{1, 1})
	c2 := mat.NewDense(1, 2, []float64{1, 0})
	var nilDense *mat.Dense
	cases := []struct {
		name       string
		A, B, C, D mat.Matrix
		dt         float64
		want       string
	}{
		{"nil A", nil, b2, c2, nil, 0.1, "A is nil"},
		{"typed nil", nilDense, b2, c2, nil, 0.1, "nil or invalid"},
		{"A not square", mat.NewDense(2, 1, []float64{1, 2}), b2, c2, nil, 0.1, "not square"},
		{"B rows", I2, mat.NewDense(3, 1, []float64{1, 1, 1}), c2, nil, 0.1, "B has 3 rows"},
		{"C cols", I2, b2, mat.NewDense(1, 3, []float64{1, 1, 1}), nil, 0.1, "C has 3 columns"},
		{"D dims", I2, b2, c2, mat.NewDense(2, 2, nil), 0.1, "D is 2×2"},
		{"NaN", mat.NewDense(2, 2, []float64{1, math.NaN(), 0, 1}), b2, c2, nil, 0.1, "A[0,1] = NaN"},
		{"dt", I2, b2, c2, nil, 0, "sample time"},
	}
	for _, c := range cases {
		_, err := NewDiscreteSS(c.A, c.B, c.C, c.D, c.dt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	ss, err := NewDiscreteSS(I2, b2, c2, nil, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if err := ss.Step([]float64{1, 2}, []float64{0}); err == nil {
		t.Errorf("Step accepted 2 inputs for a 1-input system")
	}
	if err := ss.Step([]float64{math.Inf(1)}, []float64{0}); err == nil || ss.State(nil)[0] != 0 {
		t.Errorf("Step accepted +Inf or changed the state")
	}
	if _, _, err := C2D(I2, b2, -1); err == nil {
		t.Errorf("C2D accepted dt < 0")
	}
	if _, _, err := C2D(mat.NewDense(1, 1, []float64{1e3}), mat.NewDense(1, 1, []float64{1}), 10); err == nil {
		t.Errorf("C2D accepted an overflowing exponential")
	}
}

func TestStateSpaceZeroAlloc(t *testing.T) {
	ss := benchSS(t)
	u, y := []float64{0.1, -0.2}, make([]float64, 2)
	if a := testing.AllocsPerRun(1000, func() { _ = ss.Step(u, y) }); a != 0 {
		t.Errorf("StateSpace.Step allocates %v per call", a)
	}
}

// benchSS is a 4-state, 2-input, 2-output system: two masses and springs
// discretised at 1 kHz.
func benchSS(tb testing.TB) *StateSpace {
	A := mat.NewDense(4, 4, []float64{
		0, 1, 0, 0,
		-2, -0.1, 1, 0,
		0, 0, 0, 1,
		1, 0, -1, -0.1,
	})
	B := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 0, 0, 1})
	Ad, Bd, err := C2D(A, B, 1e-3)
	if err != nil {
		tb.Fatal(err)
	}
	C := mat.NewDense(2, 4, []float64{1, 0, 0, 0, 0, 0, 1, 0})
	ss, err := NewDiscreteSS(Ad, Bd, C, nil, 1e-3)
	if err != nil {
		tb.Fatal(err)
	}
	return ss
}

func BenchmarkStateSpaceStep4(b *testing.B) {
	ss := benchSS(b)
	u, y := []float64{0.1, -0.2}, make([]float64, 2)
	for i := 0; i < b.N; i++ {
		_ = ss.Step(u, y)
	}
}
