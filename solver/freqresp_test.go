package solver_test

import (
	"math"
	"math/cmplx"
	"os"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// The two-mass example's closed-form response X2/F (see
// examples/two-mass-bode/README.md).
func twoMassX2(f float64) complex128 {
	const m1, m2, k1, k2, c1, c2 = 1, 0.5, 400, 200, 2, 0.5
	s := complex(0, 2*math.Pi*f)
	z11 := m1*s*s + (c1+c2)*s + k1 + k2
	z12 := -(c2*s + k2)
	z22 := m2*s*s + c2*s + k2
	return -z12 / (z11*z22 - z12*z12)
}

// The direct frequency response (time integration with a harmonic input)
// of a linear plant converges to the closed form at second order in the
// step (generalized-α): the error falls about 4 times each time the steps
// per cycle double; and the linearisation's response matches to 1e-9.
func TestDirectResponseConverges(t *testing.T) {
	src, err := os.ReadFile("../examples/two-mass-bode/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := xml.Parse(src, "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	const f = 3.2 // between the modes at 2.25 and 4.50 Hz
	ref := twoMassX2(f)
	H, err := lin.Response([]float64{f})
	if err != nil {
		t.Fatal(err)
	}
	if e := cmplx.Abs(H[0][1]/ref - 1); e > 1e-9 {
		t.Errorf("linear response off the closed form by %.3g", e)
	}
	var errs []float64
	for _, per := range []int{500, 1000, 2000} { // (the model's 1 ms step is 313 a cycle)
		y, err := m.DirectResponse(s, 0, f, solver.DirectOptions{Amplitude: 1, Settle: lin.SettleTime(), PerCycle: per, Lin: lin})
		if err != nil {
			t.Fatal(err)
		}
		e := cmplx.Abs(y[1]/ref - 1)
		errs = append(errs, e)
		t.Logf("%d steps per cycle: relative error %.3g", per, e)
	}
	for k := 1; k < len(errs); k++ {
		if q := errs[k-1] / errs[k]; q < 3.3 || q > 4.8 {
			t.Errorf("error ratio %.2f on halving the step, want about 4", q)
		}
	}
	if errs[0] > 5e-5 {
		t.Errorf("at 500 steps per cycle the direct response is off by %.3g (≤ 5e-5)", errs[0])
	}
}
