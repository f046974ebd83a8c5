package study

import (
	"math"
	"testing"
)

// sample returns t and f(t) on [0, end] with n intervals.
func sample(end float64, n int, f func(float64) float64) (t, v []float64) {
	for i := 0; i <= n; i++ {
		x := end * float64(i) / float64(n)
		t = append(t, x)
		v = append(v, f(x))
	}
	return
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.12g, want %.12g (± %g)", what, got, want, tol)
	}
}

// TestResponsesClosedForm checks each response kind on signals whose
// figures are known in closed form.
func TestResponsesClosedForm(t *testing.T) {
	nan := math.NaN()
	resp := func(kind string) *Response {
		return &Response{Kind: kind, From: math.Inf(-1), Until: math.Inf(1), At: nan, Target: nan}
	}
	// sin over [0, 2π], 2000 intervals: the trapezoidal rule's error is
	// below h²/12 × max|f''| × length
	tt, v := sample(2*math.Pi, 2000, math.Sin)
	h := 2 * math.Pi / 2000
	trapTol := h * h / 12 * 2 * math.Pi
	r := resp(KindIntegral)
	r.From, r.Until = 0, math.Pi
	near(t, "∫₀^π sin", compute(r, tt, v, nil), 2, trapTol)
	r = resp(KindRMS)
	near(t, "rms sin over a period", compute(r, tt, v, nil), 1/math.Sqrt2, trapTol)
	r = resp(KindMean)
	r.From, r.Until = 0, math.Pi/2
	near(t, "mean of sin over [0, π/2]", compute(r, tt, v, nil), 2/math.Pi, trapTol)
	r = resp(KindMax)
	near(t, "max sin", compute(r, tt, v, nil), 1, 1e-12)
	r = resp(KindTimeOfMax)
	near(t, "time of max sin", compute(r, tt, v, nil), math.Pi/2, h/2)
	r = resp(KindTimeOfMin)
	near(t, "time of min sin", compute(r, tt, v, nil), 1.5*math.Pi, h/2)
	r = resp(KindMaxAbs)
	r.From, r.Until = 5, 6 // sin rises from −0.959 to −0.279 there
	near(t, "max |sin| over [5, 6]", compute(r, tt, v, nil), math.Abs(math.Sin(5)), 1e-5)
	r = resp(KindFinal)
	r.Until = 1.00005 // between rows: interpolated
	near(t, "value at 1.00005 (interpolated)", compute(r, tt, v, nil), math.Sin(1.00005), h*h)
	r = resp(KindInitial)
	r.From = 2
	near(t, "initial value of a window", compute(r, tt, v, nil), math.Sin(2), h*h)
	r = resp(KindAt)
	r.At = 3
	near(t, "value at t = 3", compute(r, tt, v, nil), math.Sin(3), h*h)
	r.At = 7
	if x := compute(r, tt, v, nil); !math.IsNaN(x) {
		t.Errorf("value after the end = %g, want NaN", x)
	}
	// crossing: when = cos t − 0.3 first reaches 0 from below never (it
	// starts at 0.7); when = 0.3 − cos t does at acos(0.3)
	_, w := sample(2*math.Pi, 2000, func(x float64) float64 { return 0.3 - math.Cos(x) })
	r = resp(KindCrossing)
	near(t, "first crossing of 0.3 − cos t", compute(r, tt, nil, w), math.Acos(0.3), h*h)
	r = resp(KindAt)
	r.When = "x"
	near(t, "sin at that crossing", compute(r, tt, v, w), math.Sin(math.Acos(0.3)), h*h)
	// settling: e^−t settles within 0.01 of 0 at ln 100 (linear
	// interpolation of the exit between rows)
	te, ve := sample(10, 10000, func(x float64) float64 { return math.Exp(-x) })
	r = resp(KindSettling)
	r.Target, r.Band = 0, 0.01
	near(t, "settling time of e^−t in ±0.01", compute(r, te, ve, nil), math.Log(100), 1e-6)
	r.Band, r.BandRel = 0.02, true // 2 % of |0 − 1|
	near(t, "settling time of e^−t in 2 %", compute(r, te, ve, nil), math.Log(50), 1e-6)
	r.Band, r.BandRel = 1e-9, false
	if x := compute(r, te, ve, nil); !math.IsInf(x, 1) {
		t.Errorf("a signal outside the band at the end settles at %g, want +Inf", x)
	}
	// overshoot of a second-order step response, ζ = 0.3:
	// exp(−ζπ/√(1−ζ²)) (in %)
	zeta, wn := 0.3, 2.0
	wd := wn * math.Sqrt(1-zeta*zeta)
	ts, vs := sample(20, 200000, func(x float64) float64 {
		return 1 - math.Exp(-zeta*wn*x)*(math.Cos(wd*x)+zeta/math.Sqrt(1-zeta*zeta)*math.Sin(wd*x))
	})
	r = resp(KindOvershoot)
	r.Target = 1
	near(t, "overshoot of a ζ = 0.3 step response [%]", compute(r, ts, vs, nil), 100*math.Exp(-zeta*math.Pi/math.Sqrt(1-zeta*zeta)), 1e-5)
	r.Target = nan // the final value, 1 to 1e-5 at t = 20
	near(t, "overshoot with the final value as target", compute(r, ts, vs, nil), 100*math.Exp(-zeta*math.Pi/math.Sqrt(1-zeta*zeta)), 1e-2)
}

// TestWindow checks the interpolated ends of a window.
func TestWindow(t *testing.T) {
	tt := []float64{0, 1, 2, 3}
	v := []float64{0, 10, 20, 30}
	wt, wv := window(tt, v, 0.5, 2.25)
	want := [][2]float64{{0.5, 5}, {1, 10}, {2, 20}, {2.25, 22.5}}
	if len(wt) != len(want) {
		t.Fatalf("window = %v %v", wt, wv)
	}
	for i := range want {
		if wt[i] != want[i][0] || wv[i] != want[i][1] {
			t.Errorf("sample %d = (%g, %g), want %v", i, wt[i], wv[i], want[i])
		}
	}
	if wt, _ := window(tt, v, 5, 6); len(wt) != 0 {
		t.Errorf("a window after the run has %d samples", len(wt))
	}
}
