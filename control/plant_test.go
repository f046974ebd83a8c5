package control_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
	"mbfmu/solver"
	"mbfmu/xml"
)

// linearise compiles a model file held in src, initialises it and
// linearises it about the initial state.
func linearise(t *testing.T, src string) *solver.Linear {
	t.Helper()
	spec, err := xml.Parse([]byte(src), "test.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{})
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
	return lin
}

// A cart of mass m on a rail pushed by F: ẍ = F/m. The rail's other two
// coordinates are constrained away, so z is the rail direction up to the
// sign and scale the SVD picks.
const cartModel = `<model name="cart">
  <input name="F" unit="N"/>
  <input name="G" unit="N"/>
  <ground><marker name="rail"/></ground>
  <body name="cart" mass="2.5 kg" inertia="0.1"><marker name="c"/></body>
  <translational name="slide" i="ground.rail" j="cart.c"/>
  <force name="push" i="cart.c" fx="F" fy="G"/>
  <output name="vx" channel="cart.vx"/>
  <output name="x" channel="slide.disp"/>
  <output name="x2" expr="2*dx(cart.c)" unit="m"/>
  <output name="ax" channel="cart.ax"/>
</model>`

// The LQR of the double integrator m·ẍ = u with cost ∫ q1·x² + q2·ẋ² + r·u²
// is u = −m·[√(q1/r'), √(q2/r' + 2√(q1/r'))]·(x, ẋ) with r' = r·m² (write
// u = m·v to get the unit double integrator).
func TestDesignPlantLQRDoubleIntegrator(t *testing.T) {
	lin := linearise(t, cartModel)
	const m, q1, q2, r = 2.5, 4.0, 0.5, 0.2
	rr := r * m * m
	want := []float64{m * math.Sqrt(q1/rr), m * math.Sqrt(q2/rr+2*math.Sqrt(q1/rr))}

	// Outputs given in the order (x, vx): K is on (x, vx).
	d, err := control.DesignPlantLQR(lin, control.PlantLQRConfig{
		Inputs: []string{"F"}, Outputs: []string{"x", "vx"},
		Q: mat.NewDiagDense(2, []float64{q1, q2}), R: mat.NewDense(1, 1, []float64{r}),
	})
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range want {
		if got := d.K.At(0, j); math.Abs(got-w) > 1e-6*w {
			t.Errorf("K[%d] = %.10g, closed form %.10g", j, got, w)
		}
	}
	// Closed-loop poles: s² + (K2/m)·s + K1/m = 0.
	a1, a0 := want[1]/m, want[0]/m
	disc := complex(a1*a1-4*a0, 0)
	sq := complex(math.Sqrt(math.Abs(real(disc))), 0)
	if real(disc) < 0 {
		sq = complex(0, math.Sqrt(-real(disc)))
	}
	p1, p2 := (complex(-a1, 0)+sq)/2, (complex(-a1, 0)-sq)/2
	for _, p := range d.Poles {
		if e := math.Min(cmplxAbs(p-p1), cmplxAbs(p-p2)); e > 1e-6*cmplxAbs(p1) {
			t.Errorf("closed-loop pole %v, closed form %v, %v", p, p1, p2)
		}
	}

	// A redundant output (x2 = 2x) with zero weight: the pseudo-inverse
	// gives the same law on consistent measurements.
	d3, err := control.DesignPlantLQR(lin, control.PlantLQRConfig{
		Inputs: []string{"F"}, Outputs: []string{"vx", "x", "x2"},
		Q: mat.NewDiagDense(3, []float64{q2, q1, 0}), R: mat.NewDense(1, 1, []float64{r}),
	})
	if err != nil {
		t.Fatal(err)
	}
	// y = (vx, x, 2x) = (1, 0), (0, 1) and (0, 2) per unit of ẋ and x.
	law := func(x, v float64) float64 {
		return d3.K.At(0, 0)*v + d3.K.At(0, 1)*x + d3.K.At(0, 2)*2*x
	}
	if got := law(1, 0); math.Abs(got-want[0]) > 1e-6*want[0] {
		t.Errorf("redundant outputs: gain on x %.10g, closed form %.10g", got, want[0])
	}
	if got := law(0, 1); math.Abs(got-want[1]) > 1e-6*want[1] {
		t.Errorf("redundant outputs: gain on v %.10g, closed form %.10g", got, want[1])
	}

	// A discrete design at a small sample time approaches the continuous
	// one (the weights are per sample: scaling Q and R alike keeps K).
	dd, err := control.DesignPlantLQR(lin, control.PlantLQRConfig{
		Inputs: []string{"F"}, Outputs: []string{"x", "vx"},
		Q: mat.NewDiagDense(2, []float64{q1, q2}), R: mat.NewDense(1, 1, []float64{r}), Dt: 1e-4,
	})
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range want {
		if got := dd.K.At(0, j); math.Abs(got-w) > 2e-3*w {
			t.Errorf("discrete K[%d] = %.6g, continuous closed form %.6g", j, got, w)
		}
	}
	for _, p := range dd.Poles {
		if cmplxAbs(p) >= 1 {
			t.Errorf("discrete closed-loop pole %v outside the unit circle", p)
		}
	}

	// The Block applies u = u0 − K·(y − y0).
	b, err := d.Block([]float64{0.5, 0}, []float64{3})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 1)
	if err := b.Step(0, 1e-3, []float64{1.5, 2}, out); err != nil {
		t.Fatal(err)
	}
	if w := 3 - want[0]*1 - want[1]*2; math.Abs(out[0]-w) > 1e-6*math.Abs(w) {
		t.Errorf("block output %.10g, want %.10g", out[0], w)
	}
}

func cmplxAbs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// The cart-pole linearised by the engine about the upright, mapped to the
// output coordinates y = (x, θ, ẋ, θ̇), equals the textbook model
//
//	(M + m)·ẍ − m·l·θ̈ = F,   (I + m·l²)·θ̈ − m·l·ẍ = m·g·l·θ,
//
// and the gain on y equals the LQR of the textbook model.
func TestDesignPlantLQRCartPole(t *testing.T) {
	const M, mp, l, I, g = 1.0, 0.2, 0.5, 0.0166667, 9.81
	src := strings.NewReplacer("MM", "1", "MP", "0.2", "II", "0.0166667").Replace(`<model name="cp">
  <input name="F" unit="N"/>
  <ground><marker name="rail"/></ground>
  <body name="cart" mass="MM" inertia="0.02"><marker name="c"/><marker name="pivot" angle="90 deg"/></body>
  <body name="pole" mass="MP" inertia="II" cm="0.5 0" angle="pi/2"/>
  <translational name="slide" i="ground.rail" j="cart.c"/>
  <revolute name="hinge" i="cart.pivot" j="pole"/>
  <force name="push" i="cart.c" fx="F"/>
  <output name="x" channel="slide.disp"/>
  <output name="theta" channel="hinge.angle"/>
  <output name="vx" channel="cart.vx"/>
  <output name="omega" channel="pole.omega"/>
</model>`)
	lin := linearise(t, src)
	del := (I+mp*l*l)*(M+mp) - mp*mp*l*l
	A := mat.NewDense(4, 4, []float64{
		0, 0, 1, 0,
		0, 0, 0, 1,
		0, mp * mp * l * l * g / del, 0, 0,
		0, mp * g * l * (M + mp) / del, 0, 0,
	})
	B := mat.NewDense(4, 1, []float64{0, 0, (I + mp*l*l) / del, mp * l / del})

	// The engine's model in output coordinates: T·A·T⁻¹ and T·B.
	T := lin.C
	var Ti, TA, Ay mat.Dense
	if err := Ti.Inverse(T); err != nil {
		t.Fatal(err)
	}
	TA.Mul(T, lin.A)
	Ay.Mul(&TA, &Ti)
	var By mat.Dense
	By.Mul(T, lin.B)
	if !mat.EqualApprox(&Ay, A, 1e-5) {
		t.Errorf("engine A in output coordinates\n%v\ntextbook\n%v", mat.Formatted(&Ay), mat.Formatted(A))
	}
	if !mat.EqualApprox(&By, B, 1e-6) {
		t.Errorf("engine B in output coordinates\n%v\ntextbook\n%v", mat.Formatted(&By), mat.Formatted(B))
	}

	Q := mat.NewDiagDense(4, []float64{10, 100, 1, 1})
	R := mat.NewDense(1, 1, []float64{0.1})
	d, err := control.DesignPlantLQR(lin, control.PlantLQRConfig{Q: Q, R: R})
	if err != nil {
		t.Fatal(err)
	}
	K, _, err := control.LQR(A, B, Q, R)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 4; j++ {
		if got, w := d.K.At(0, j), K.At(0, j); math.Abs(got-w) > 1e-4*math.Abs(w)+1e-6 {
			t.Errorf("K[%d] = %.8g, from the textbook model %.8g", j, got, w)
		}
	}
	for _, p := range d.Poles {
		if real(p) >= 0 {
			t.Errorf("closed-loop pole %v not in the left half plane", p)
		}
	}
}

func TestDesignPlantLQRErrors(t *testing.T) {
	lin := linearise(t, cartModel)
	R := mat.NewDense(1, 1, []float64{1})
	for _, c := range []struct {
		cfg  control.PlantLQRConfig
		want string
	}{
		{control.PlantLQRConfig{Inputs: []string{"F"}, Outputs: []string{"x"}, Q: mat.NewDiagDense(1, []float64{1}), R: R}, "determine only 1 of the 2 states"},
		{control.PlantLQRConfig{Inputs: []string{"F"}, Outputs: []string{"x", "ax"}, Q: mat.NewDiagDense(2, []float64{1, 1}), R: R}, "depends directly on input"},
		{control.PlantLQRConfig{Inputs: []string{"Fz"}, Outputs: []string{"x", "vx"}, Q: mat.NewDiagDense(2, []float64{1, 1}), R: R}, `no input "Fz"`},
		{control.PlantLQRConfig{Inputs: []string{"F"}, Outputs: []string{"x", "x"}, Q: mat.NewDiagDense(2, []float64{1, 1}), R: R}, "listed twice"},
		{control.PlantLQRConfig{Inputs: []string{"F"}, Outputs: []string{"x", "vx"}, Q: mat.NewDiagDense(3, []float64{1, 1, 1}), R: R}, "Q is 3×3"},
		{control.PlantLQRConfig{Inputs: []string{"G"}, Outputs: []string{"x", "vx"}, Q: mat.NewDiagDense(2, []float64{1, 1}), R: R}, "stabilis"},
		{control.PlantLQRConfig{Inputs: []string{"F"}, Outputs: []string{"x", "vx"}, Q: mat.NewDiagDense(2, []float64{1, 1}), R: R, Dt: -1}, "sample time"},
	} {
		_, err := control.DesignPlantLQR(lin, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.cfg.Outputs, err, c.want)
		}
	}
	if _, err := control.DesignPlantLQR(nil, control.PlantLQRConfig{}); err == nil {
		t.Error("nil model accepted")
	}
}
