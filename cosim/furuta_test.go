package cosim

import (
	"math"
	"math/cmplx"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
	"mbfmu/solver"
	"mbfmu/xml"
)

// This file checks the spatial flagship, examples/furuta: a rotary inverted
// (Furuta) pendulum packed as an FMU and balanced by an LQR designed from
// the engine's linearisation. The reference is the textbook model of the
// Furuta pendulum (Cazzolato & Prime, "On the dynamics of the Furuta
// pendulum", J. Control Sci. Eng. 2011, with a thin pendulum), whose
// linearisation about the upright is written out below in closed form.

const furutaDir = "../examples/furuta/"

// furuta holds the physical parameters of the Furuta pendulum: an arm of
// mass m1 and length L1 (a uniform rod pivoted at its end on the vertical
// motor axis) and a pendulum of mass m2, length L2 and radius r2 (a uniform
// rod pivoted at its end, its hinge axis along the arm).
type furuta struct{ m1, L1, m2, L2, r2, g float64 }

// furutaExample holds the values of examples/furuta/model.xml: those of the
// numeric example of the project's reference note on the Furuta pendulum
// (issue 11: arm 0.2 kg, 0.2 m; pendulum 0.1 kg, 0.3 m; thin rods pivoted
// at their ends) with a 6 mm pendulum rod.
var furutaExample = furuta{m1: 0.2, L1: 0.2, m2: 0.1, L2: 0.3, r2: 0.003, g: 9.81}

func (p furuta) params() map[string]float64 {
	return map[string]float64{"m1": p.m1, "L1": p.L1, "m2": p.m2, "L2": p.L2, "r2": p.r2, "tilt0": 0, "theta0": 0}
}

// linear returns the closed-form linearisation about the upright at rest,
// ẋ = A·x + B·τ with x = (θ, α, θ̇, α̇):
//
//	J₀ = Jₐ + m₂L₁² + Jₚ,  J₂ = J₂,cm + m₂l₂²,  Δ = J₀J₂ − (m₂L₁l₂)²,
//	A = [0 0 1 0; 0 0 0 1; 0 −m₂²L₁l₂²g/Δ 0 0; 0 J₀m₂gl₂/Δ 0 0],
//	B = [0; 0; J₂/Δ; −m₂L₁l₂/Δ],
//
// with Jₐ = m₁L₁²/3 the arm's inertia about the motor axis, l₂ = L₂/2,
// J₂ = m₂L₂²/3 and Jₚ = m₂r₂²/2 the pendulum's inertia about its own axis,
// which the upright pendulum adds to the arm's (the kinetic energy of the
// pendulum's spin, ½(J₂ sin²α + Jₚ cos²α)θ̇², is ½Jₚθ̇² at α = 0; the
// reference note neglects it, as r₂ = 0 does here).
func (p furuta) linear() (A, B *mat.Dense) {
	Ja := p.m1 * p.L1 * p.L1 / 3
	l2 := p.L2 / 2
	J2 := p.m2 * p.L2 * p.L2 / 3
	J0 := Ja + p.m2*p.L1*p.L1 + p.m2*p.r2*p.r2/2
	c := p.m2 * p.L1 * l2
	del := J0*J2 - c*c
	A = mat.NewDense(4, 4, []float64{
		0, 0, 1, 0,
		0, 0, 0, 1,
		0, -p.m2 * p.m2 * p.L1 * l2 * l2 * p.g / del, 0, 0,
		0, J0 * p.m2 * p.g * l2 / del, 0, 0,
	})
	B = mat.NewDense(4, 1, []float64{0, 0, J2 / del, -c / del})
	return A, B
}

// furutaStates orders the model's outputs as the reference's state.
var furutaStates = []string{"theta", "alpha", "theta_dot", "alpha_dot"}

// engineLinear linearises examples/furuta/model.xml with the parameters
// of p about the upright at rest (solver.Model.Linearize, the function
// <lqr> designs from) and returns A and B in the coordinates of the
// reference, x = (θ, α, θ̇, α̇): T·A·T⁻¹ and T·B, T the rows of C of
// those outputs.
func engineLinear(t *testing.T, p furuta) (A, B *mat.Dense) {
	t.Helper()
	ms, err := xml.LoadFile(furutaDir + "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{Params: p.params()})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := lin.A.Dims()
	if n != 4 || len(lin.Inputs) != 1 || lin.Inputs[0] != "tau" {
		t.Fatalf("linear model with %d states and inputs %v, want 4 states and input tau", n, lin.Inputs)
	}
	T := mat.NewDense(4, 4, nil)
	for i, name := range furutaStates {
		k := -1
		for j, o := range lin.Outputs {
			if o == name {
				k = j
			}
		}
		if k < 0 {
			t.Fatalf("the model has no output %q (outputs %v)", name, lin.Outputs)
		}
		T.SetRow(i, mat.Row(nil, k, lin.C))
	}
	var Ti, TA mat.Dense
	if err := Ti.Inverse(T); err != nil {
		t.Fatalf("the outputs do not determine the state: %v", err)
	}
	TA.Mul(T, lin.A)
	A, B = new(mat.Dense), new(mat.Dense)
	A.Mul(&TA, &Ti)
	B.Mul(T, lin.B)
	return A, B
}

// compareMatrix reports entries of got that differ from want by more than
// rel relative to the largest entry of want's row (so the structural zeros
// are checked against the row's scale); it returns the largest such
// relative difference.
func compareMatrix(t *testing.T, what string, got, want mat.Matrix, rel float64) float64 {
	if t != nil {
		t.Helper()
	}
	worst := 0.0
	r, c := want.Dims()
	for i := 0; i < r; i++ {
		scale := 0.0
		for j := 0; j < c; j++ {
			scale = math.Max(scale, math.Abs(want.At(i, j)))
		}
		scale = math.Max(scale, 1e-300)
		for j := 0; j < c; j++ {
			d := math.Abs(got.At(i, j) - want.At(i, j))
			worst = math.Max(worst, d/scale)
			if t != nil && d > rel*scale {
				t.Errorf("%s[%d][%d] = %.12g, closed form %.12g (difference %.3g of the row's scale %.6g, allowed %.0e)",
					what, i, j, got.At(i, j), want.At(i, j), d/scale, scale, rel)
			}
		}
	}
	return worst
}

// The closed form reproduces the numeric example of the reference note of
// issue 11 (its A, B, open-loop eigenvalues and the LQR for Q = I, R = 1
// computed with scipy.linalg.solve_continuous_are), so the formulas above
// are the note's, and control.LQR solves the same Riccati equation as
// scipy.
func TestFurutaReferenceExample(t *testing.T) {
	ref := furuta{m1: 0.2, L1: 0.2, m2: 0.1, L2: 0.3, r2: 0, g: 9.81}
	A, B := ref.linear()
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"A[2][1]", A.At(2, 1), -40.1318181818},
		{"A[3][1]", A.At(3, 1), 89.1818181818},
		{"B[2]", B.At(2, 0), 272.7272727273},
		{"B[3]", B.At(3, 0), -272.7272727273},
		{"open-loop eigenvalue", math.Sqrt(A.At(3, 1)), 9.4436125599},
	} {
		if math.Abs(c.got-c.want) > 1e-10*math.Abs(c.want) {
			t.Errorf("%s = %.12g, reference %.12g", c.what, c.got, c.want)
		}
	}
	K, _, err := control.LQR(A, B, eye(4), eye(1))
	if err != nil {
		t.Fatal(err)
	}
	wantK := []float64{-1.0, -18.3030000516, -1.3164218028, -2.7748074401}
	for j, w := range wantK {
		if math.Abs(K.At(0, j)-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("K[%d] = %.12g, scipy %.12g", j, K.At(0, j), w)
		}
	}
	want := []complex128{-385.8609, complex(-5.4403, 2.2519), complex(-5.4403, -2.2519), -1.00002}
	got := closedLoopPoles(t, A, B, K)
	for _, w := range want {
		if d := nearest(got, w); d > 1e-4*cmplx.Abs(w)+1e-5 {
			t.Errorf("closed-loop pole %v of the reference missing: nearest differs by %.3g (poles %v)", w, d, got)
		}
	}
}

// The engine's linearisation of examples/furuta (a spatial model: two
// bodies of six coordinates each on two revolute joints, linearised in the
// null space of the ten constraint rows) equals the closed form, for the
// example's dimensions and for others, to 1e-6 of each row's scale.
func TestFurutaLinearisation(t *testing.T) {
	for _, p := range []furuta{
		furutaExample,
		{m1: 0.35, L1: 0.15, m2: 0.05, L2: 0.4, r2: 0.005, g: 9.81},
	} {
		A, B := engineLinear(t, p)
		Acf, Bcf := p.linear()
		t.Logf("m1 %g L1 %g m2 %g L2 %g r2 %g: engine A rows 3, 4 [%.10g %.10g], [%.10g %.10g], B [%.10g %.10g]; closed form [%.10g %.10g], [%.10g %.10g], B [%.10g %.10g]",
			p.m1, p.L1, p.m2, p.L2, p.r2, A.At(2, 1), A.At(3, 1), A.At(2, 0), A.At(3, 0), B.At(2, 0), B.At(3, 0),
			Acf.At(2, 1), Acf.At(3, 1), Acf.At(2, 0), Acf.At(3, 0), Bcf.At(2, 0), Bcf.At(3, 0))
		ea, eb := compareMatrix(t, "A", A, Acf, 1e-6), compareMatrix(t, "B", B, Bcf, 1e-6)
		t.Logf("largest relative differences: A %.2g, B %.2g", ea, eb)
		// The comparison resolves the pendulum's inertia about its own
		// axis (a relative effect of m₂r₂²/2/J₀ ≈ 7e−5 in the example):
		// the closed form without it does not pass.
		thin := p
		thin.r2 = 0
		At, Bt := thin.linear()
		if compareMatrix(nil, "", A, At, 0)+compareMatrix(nil, "", B, Bt, 0) < 10*1e-6 {
			t.Errorf("the engine's linearisation does not tell the pendulum's axial inertia from none")
		}
	}
}

// The model file's parameters are the ones the tests use.
func TestFurutaModelParameters(t *testing.T) {
	ms, err := xml.LoadFile(furutaDir + "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	want := furutaExample.params()
	want["tilt0"] = 5 * math.Pi / 180
	seen := 0
	for _, p := range ms.Params {
		if w, ok := want[p.Name]; ok {
			seen++
			if math.Abs(p.Value-w) > 1e-15 {
				t.Errorf("parameter %s = %g in the model file, the tests assume %g", p.Name, p.Value, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("the model file declares %d of the parameters %v", seen, want)
	}
	if g := ms.Settings.Gravity; len(g) != 3 {
		t.Errorf("gravity %v", g)
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// closedLoopPoles returns the eigenvalues of A − B·K.
func closedLoopPoles(t *testing.T, A, B, K mat.Matrix) []complex128 {
	t.Helper()
	var bk, acl mat.Dense
	bk.Mul(B, K)
	acl.Sub(A, &bk)
	p, err := control.Poles(&acl)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// nearest returns the distance from w to the closest of ps.
func nearest(ps []complex128, w complex128) float64 {
	d := math.Inf(1)
	for _, p := range ps {
		d = math.Min(d, cmplx.Abs(p-w))
	}
	return d
}

// runFuruta runs examples/furuta/cosim.xml with the plant packed by
// fmu.Pack (as `mbfmu pack` does) and run in-process.
func runFuruta(t *testing.T) (*Master, *Summary, *memWriter) {
	t.Helper()
	fmuPath := packFMU(t, furutaDir+"model.xml", t.TempDir())
	cfg := loadWithPaths(t, furutaDir+"cosim.xml", map[string]string{"plant": fmuPath})
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if f := m.comps[0].(*fmuComp); !f.inProc {
		t.Fatal("the packed Furuta FMU is not recognised as an mbfmu FMU")
	}
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	return m, sum, w
}

// The flagship spatial loop: the LQR designed from the engine's
// linearisation balances the pendulum from a 5° tilt through the packed
// FMU and brings the arm back.
func TestFurutaBalances(t *testing.T) {
	_, sum, w := runFuruta(t)
	if !sum.Passed() {
		t.Errorf("checks of the example failed:\n%s", sum)
	}
	ts, th, al, tau := w.col(t, "time"), w.col(t, "plant.theta"), w.col(t, "plant.alpha"), w.col(t, "lqr.tau")
	if math.Abs(al[0]-5*math.Pi/180) > 1e-12 || th[0] != 0 {
		t.Fatalf("initial state alpha = %g rad, theta = %g rad: want 5°, 0", al[0], th[0])
	}
	if got := maxAbsAfter(ts, al, 3); got > 0.5*math.Pi/180 {
		t.Errorf("pendulum angle after 3 s: %.3g°, want < 0.5°", got*180/math.Pi)
	}
	if got := maxAbsAfter(ts, th, 8); got > 1*math.Pi/180 {
		t.Errorf("arm angle after 8 s: %.3g°, want < 1°", got*180/math.Pi)
	}
	if got := maxAbsAfter(ts, al, 9.99); got > 1e-5 {
		t.Errorf("pendulum angle at the end: %.3g rad, want ~0", got)
	}
	peak, at := 0.0, 0.0
	for i := range tau {
		if math.Abs(tau[i]) > math.Abs(peak) {
			peak, at = tau[i], ts[i]
		}
	}
	t.Logf("peak torque %.4g N·m at t = %g s; |alpha| after 3 s ≤ %.3g°, |theta| after 8 s ≤ %.3g°",
		peak, at, maxAbsAfter(ts, al, 3)*180/math.Pi, maxAbsAfter(ts, th, 8)*180/math.Pi)
}

// The gain designed from the engine's linearisation is the LQR of the
// closed-form model, and its closed-loop poles are those of the closed
// form; the simulated loop (sampled at 1 ms with a zero-order hold)
// decays at the rate of the dominant pole of the sampled closed form.
func TestFurutaClosedLoopPoles(t *testing.T) {
	m, _, w := runFuruta(t)
	d := m.comps[1].(*blockComp).design
	if d == nil {
		t.Fatal("no LQR design")
	}
	// The design's outputs are the reference's state, in its order.
	for i, o := range d.Outputs {
		if o != furutaStates[i] {
			t.Fatalf("LQR outputs %v, want %v", d.Outputs, furutaStates)
		}
	}
	A, B := furutaExample.linear()
	// cosim.xml: q = 1 1 1 1, r = 1
	K, _, err := control.LQR(A, B, eye(4), eye(1))
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 4; j++ {
		if got, want := d.K.At(0, j), K.At(0, j); math.Abs(got-want) > 1e-6*math.Abs(want) {
			t.Errorf("K[%d] = %.10g from the engine's linearisation, %.10g from the closed form", j, got, want)
		}
	}
	// The reference's gain (scipy, thin pendulum) within the effect of the
	// axial inertia.
	for j, want := range []float64{-1.0, -18.3030000516, -1.3164218028, -2.7748074401} {
		if got := d.K.At(0, j); math.Abs(got-want) > 1e-3*math.Abs(want) {
			t.Errorf("K[%d] = %.10g, reference note %.10g", j, got, want)
		}
	}
	cf := closedLoopPoles(t, A, B, d.K)
	if len(d.Poles) != 4 {
		t.Fatalf("design poles %v", d.Poles)
	}
	for _, p := range d.Poles {
		if dd := nearest(cf, p); dd > 1e-6*cmplx.Abs(p) {
			t.Errorf("design pole %v: nearest closed-form pole differs by %.3g", p, dd)
		}
		if real(p) >= 0 {
			t.Errorf("closed-loop pole %v is not stable", p)
		}
	}
	// Sampled-data loop: x⁺ = (Ad − Bd·K)·x, Ad, Bd the zero-order-hold
	// discretisation at the 1 ms macro step; its dominant pole as a rate
	// ln(z)/h, and the left eigenvector w of that pole gives the modal
	// coordinate η = wᴴ·x of the simulated state (x = the outputs).
	const h = 1e-3
	Ad, Bd, err := control.C2D(A, B, h)
	if err != nil {
		t.Fatal(err)
	}
	var bk, cl mat.Dense
	bk.Mul(Bd, d.K)
	cl.Sub(Ad, &bk)
	var eig mat.Eigen
	if !eig.Factorize(&cl, mat.EigenLeft) {
		t.Fatal("eigen decomposition failed")
	}
	zs := eig.Values(nil)
	var left mat.CDense
	eig.LeftVectorsTo(&left)
	dom := 0
	for i, z := range zs {
		if cmplx.Abs(z) > cmplx.Abs(zs[dom]) {
			dom = i
		}
	}
	lam := cmplx.Log(zs[dom]) / h
	if imag(lam) != 0 && math.Abs(imag(lam)) > 1e-9 {
		t.Fatalf("dominant sampled pole %v is not real", lam)
	}
	cont := 0.0
	for _, p := range d.Poles {
		if real(p) < 0 && (cont == 0 || real(p) > cont) {
			cont = real(p)
		}
	}
	cols := make([][]float64, 4)
	for i, o := range furutaStates {
		cols[i] = w.col(t, "plant."+o)
	}
	ts := w.col(t, "time")
	eta := func(mode int, at float64) complex128 {
		r := int(math.Round(at / 0.01))
		if math.Abs(ts[r]-at) > 1e-9 {
			t.Fatalf("row %d is at t = %g, want %g", r, ts[r], at)
		}
		var s complex128
		for i := range cols {
			s += cmplx.Conj(left.At(i, mode)) * complex(cols[i][r], 0)
		}
		return s
	}
	const t1, t2 = 4.0, 8.0
	rate := real(cmplx.Log(eta(dom, t2)/eta(dom, t1))) / (t2 - t1)
	t.Logf("dominant pole: continuous design %.7g 1/s, sampled at 1 ms %.7g 1/s; simulated decay rate %.7g 1/s", cont, real(lam), rate)
	if math.Abs(rate-real(lam)) > 1e-4*math.Abs(real(lam)) {
		t.Errorf("simulated decay rate %.7g 1/s, dominant pole of the sampled closed form %.7g 1/s", rate, real(lam))
	}
	// The oscillating pair, from 0.5 s (the pole at −386 1/s has long died
	// out) to 1 s; later its modal coordinate becomes small against the
	// error of the linear model of the slow mode (the arm is still 6° out
	// at 1 s), which leaks into the projection.
	osc := -1
	for i, z := range zs {
		if imag(z) > 0 {
			osc = i
		}
	}
	if osc < 0 {
		t.Fatalf("no oscillating pair among the sampled poles %v", zs)
	}
	lo := cmplx.Log(zs[osc]) / h
	const t3, t4 = 0.5, 1.0
	e3, e4 := eta(osc, t3), eta(osc, t4)
	got := complex(math.Log(cmplx.Abs(e4)/cmplx.Abs(e3))/(t4-t3), math.Remainder(cmplx.Phase(e4)-cmplx.Phase(e3)-imag(lo)*(t4-t3), 2*math.Pi)/(t4-t3)+imag(lo))
	t.Logf("oscillating pair: sampled closed form %.6g 1/s, simulated %.6g 1/s", lo, got)
	if cmplx.Abs(got-lo) > 1e-3*cmplx.Abs(lo) {
		t.Errorf("simulated oscillating mode %.6g 1/s, sampled closed form %.6g 1/s", got, lo)
	}
}
