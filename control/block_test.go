package control

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The PID block is the PID with inputs r, y and output u; the P-only loop
// reaches Kp/(1+Kp)·r through the block interface too.
func TestPIDBlock(t *testing.T) {
	b, err := NewPIDBlock(PIDConfig{Kp: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.Inputs(), []string{"r", "y"}) || !reflect.DeepEqual(b.Outputs(), []string{"u"}) {
		t.Fatalf("names %v → %v", b.Inputs(), b.Outputs())
	}
	const dt = 0.01
	plant := newFirstOrder(1, 1, dt, 0)
	in, out := make([]float64, 2), make([]float64, 1)
	for k := 0; k < 2000; k++ {
		in[0], in[1] = 2, plant.y
		if err := b.Step(float64(k)*dt, dt, in, out); err != nil {
			t.Fatal(err)
		}
		plant.step(out[0])
	}
	if want := 3.0 / 4 * 2; math.Abs(plant.y-want) > 1e-12 {
		t.Errorf("y = %g, want %g", plant.y, want)
	}
	in[1] = math.NaN()
	if err := b.Step(20, dt, in, out); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("NaN input: err = %v", err)
	}
	if err := b.Step(20, dt, in[:1], out); err == nil {
		t.Errorf("short input accepted")
	}
	b.Reset()
	if b.PID().State().Started {
		t.Errorf("Reset did not reset the PID")
	}
}

// u = −K(x − x_ref) + u_ff with hand numbers, as parameters and as inputs.
func TestStateFeedbackBlock(t *testing.T) {
	K := mat.NewDense(2, 3, []float64{1, 2, 3, -1, 0, 0.5})
	f, err := NewStateFeedback(StateFeedbackConfig{K: K})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Inputs(), []string{"x1", "x2", "x3"}) || !reflect.DeepEqual(f.Outputs(), []string{"u1", "u2"}) {
		t.Fatalf("names %v → %v", f.Inputs(), f.Outputs())
	}
	if err := f.SetReference([]float64{1, 0, 0}, []float64{0.5, -0.5}); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 2)
	if err := f.Step(0, 0.01, []float64{2, 1, -1}, out); err != nil {
		t.Fatal(err)
	}
	// x − x_ref = [1, 1, −1]: K·e = [1 + 2 − 3, −1 + 0 − 0.5] = [0, −1.5].
	if out[0] != 0.5 || out[1] != 1.0 {
		t.Errorf("u = %v, want [0.5 1]", out)
	}
	g, err := NewStateFeedback(StateFeedbackConfig{K: mat.NewDense(1, 2, []float64{1, 2}),
		StateNames: []string{"pos", "vel"}, RefInputs: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"pos", "vel", "pos_ref", "vel_ref", "u_ff"}; !reflect.DeepEqual(g.Inputs(), want) {
		t.Errorf("inputs %v, want %v", g.Inputs(), want)
	}
	o := make([]float64, 1)
	if err := g.Step(0, 0.01, []float64{1, 1, 3, 0, 0.25}, o); err != nil || o[0] != -(1*(1-3)+2*1)+0.25 {
		t.Errorf("u = %v (%v)", o, err)
	}
	if _, err := NewStateFeedback(StateFeedbackConfig{K: K, StateNames: []string{"a", "a", "b"}}); err == nil {
		t.Errorf("duplicate state names accepted")
	}
	if err := g.Step(0, 0.01, []float64{1, 1, 3, 0}, o); err == nil {
		t.Errorf("short input accepted")
	}
}

// Closing an LQR state-feedback block around the ZOH-discretised double
// integrator drives x to x_ref; with DLQR on the same discretisation the
// discrete cost-to-go at x0 equals x0ᵀ·S·x0 (sum of stage costs).
func TestStateFeedbackDLQRLoop(t *testing.T) {
	const dt = 0.05
	A := mat.NewDense(2, 2, []float64{0, 1, 0, 0})
	B := mat.NewDense(2, 1, []float64{0, 1})
	Ad, Bd, err := C2D(A, B, dt)
	if err != nil {
		t.Fatal(err)
	}
	Q, R := eye(2), scalar(0.1)
	K, S, err := DLQR(Ad, Bd, Q, R)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewStateFeedback(StateFeedbackConfig{K: K})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{1, -0.5}
	x0 := mat.NewVecDense(2, append([]float64(nil), x...))
	u := make([]float64, 1)
	cost := 0.0
	for k := 0; k < 2000; k++ {
		if err := f.Step(float64(k)*dt, dt, x, u); err != nil {
			t.Fatal(err)
		}
		cost += x[0]*x[0] + x[1]*x[1] + 0.1*u[0]*u[0]
		x0n := Ad.At(0, 0)*x[0] + Ad.At(0, 1)*x[1] + Bd.At(0, 0)*u[0]
		x1n := Ad.At(1, 0)*x[0] + Ad.At(1, 1)*x[1] + Bd.At(1, 0)*u[0]
		x[0], x[1] = x0n, x1n
	}
	if math.Hypot(x[0], x[1]) > 1e-12 {
		t.Errorf("state not regulated: %v", x)
	}
	if want := mat.Inner(x0, S, x0); relErr(cost, want) > 1e-12 {
		t.Errorf("accumulated cost %.15g, x0ᵀSx0 = %.15g", cost, want)
	}
}

func TestSSBlock(t *testing.T) {
	ss := benchSS(t)
	b, err := NewSSBlock(ss, nil, []string{"p1", "p2"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.Inputs(), []string{"u1", "u2"}) || !reflect.DeepEqual(b.Outputs(), []string{"p1", "p2"}) {
		t.Errorf("names %v → %v", b.Inputs(), b.Outputs())
	}
	out := make([]float64, 2)
	if err := b.Step(0, 2e-3, []float64{1, 0}, out); err == nil || !strings.Contains(err.Error(), "sample time") {
		t.Errorf("wrong dt: err = %v", err)
	}
	if _, err := NewSSBlock(ss, []string{"a"}, nil); err == nil {
		t.Errorf("wrong number of input names accepted")
	}
	// Step agrees with the system's own Step.
	twin := benchSS(t)
	y := make([]float64, 2)
	for k := 0; k < 10; k++ {
		u := []float64{math.Sin(float64(k)), 1}
		if err := b.Step(float64(k)*1e-3, 1e-3, u, out); err != nil {
			t.Fatal(err)
		}
		if err := twin.Step(u, y); err != nil {
			t.Fatal(err)
		}
		if out[0] != y[0] || out[1] != y[1] {
			t.Fatalf("k=%d: block %v, system %v", k, out, y)
		}
	}
	b.Reset()
	if x := ss.State(nil); x[0] != 0 || x[3] != 0 {
		t.Errorf("Reset left %v", x)
	}
}

func TestBlocksZeroAlloc(t *testing.T) {
	pb, _ := NewPIDBlock(PIDConfig{Kp: 1, Ki: 1, Kd: 0.1, Tf: 0.01, Umin: -1, Umax: 1})
	fb, _ := NewStateFeedback(StateFeedbackConfig{K: mat.NewDense(1, 4, []float64{1, 2, 3, 4}), RefInputs: true})
	sb, _ := NewSSBlock(benchSS(t), nil, nil)
	cases := []struct {
		name    string
		b       Block
		in, out []float64
	}{
		{"PID", pb, []float64{1, 0.5}, make([]float64, 1)},
		{"state feedback", fb, make([]float64, 9), make([]float64, 1)},
		{"state space", sb, []float64{0.1, 0.2}, make([]float64, 2)},
	}
	for _, c := range cases {
		tk := 0.0
		a := testing.AllocsPerRun(1000, func() {
			if err := c.b.Step(tk, 1e-3, c.in, c.out); err != nil {
				t.Fatal(err)
			}
			tk += 1e-3
		})
		if a != 0 {
			t.Errorf("%s block Step allocates %v", c.name, a)
		}
	}
}

func BenchmarkPIDBlockStep(b *testing.B) {
	pb, _ := NewPIDBlock(PIDConfig{Kp: 1, Ki: 1, Kd: 0.1, Tf: 0.01, Umin: -1, Umax: 1})
	in, out := []float64{1, 0}, make([]float64, 1)
	for i := 0; i < b.N; i++ {
		in[1] += 1e-3 * out[0]
		_ = pb.Step(float64(i)*1e-3, 1e-3, in, out)
	}
}

func BenchmarkStateFeedbackStep4(b *testing.B) {
	fb, _ := NewStateFeedback(StateFeedbackConfig{K: mat.NewDense(2, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8})})
	in, out := []float64{0.1, 0.2, 0.3, 0.4}, make([]float64, 2)
	for i := 0; i < b.N; i++ {
		_ = fb.Step(0, 1e-3, in, out)
	}
}
