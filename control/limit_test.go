package control

import (
	"math"
	"testing"
)

func TestSaturate(t *testing.T) {
	for _, c := range []struct{ u, lo, hi, want float64 }{
		{0.5, -1, 1, 0.5}, {2, -1, 1, 1}, {-3, -1, 1, -1},
		{5, math.Inf(-1), math.Inf(1), 5}, {1, 1, 1, 1},
	} {
		if got := Saturate(c.u, c.lo, c.hi); got != c.want {
			t.Errorf("Saturate(%g, %g, %g) = %g, want %g", c.u, c.lo, c.hi, got, c.want)
		}
	}
	if !math.IsNaN(Saturate(math.NaN(), -1, 1)) {
		t.Errorf("Saturate(NaN) is not NaN")
	}
}

// A step from 0 to 1 through a limiter with rising rate 2/s and falling rate
// 0.5/s becomes the ramp 2t until it reaches 1; stepping back to 0 gives
// 1 − 0.5·t until it reaches 0.
func TestRateLimiterRamps(t *testing.T) {
	r, err := NewRateLimiter(2, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	const dt = 0.01
	if y := r.Step(0, dt); y != 0 {
		t.Fatalf("first step %g, want pass-through 0", y)
	}
	for k := 1; k <= 100; k++ {
		y := r.Step(1, dt)
		want := math.Min(1, 2*float64(k)*dt)
		if math.Abs(y-want) > 1e-12 {
			t.Fatalf("rise step %d: %g, want %g", k, y, want)
		}
	}
	for k := 1; k <= 300; k++ {
		y := r.Step(0, dt)
		want := math.Max(0, 1-0.5*float64(k)*dt)
		if math.Abs(y-want) > 1e-12 {
			t.Fatalf("fall step %d: %g, want %g", k, y, want)
		}
	}
	// Small changes pass unchanged; bad samples do not touch the state.
	if y := r.Step(0.001, dt); y != 0.001 {
		t.Errorf("small change limited to %g", y)
	}
	if y := r.Step(math.NaN(), dt); !math.IsNaN(y) || r.Output() != 0.001 {
		t.Errorf("NaN input: got %g, state %g", y, r.Output())
	}
	if err := r.ResetTo(5); err != nil || r.Step(0, dt) != 5-0.5*dt {
		t.Errorf("ResetTo(5) then step to 0: %g", r.Output())
	}
	r.Reset()
	if y := r.Step(-7, dt); y != -7 {
		t.Errorf("after Reset the first step should pass through, got %g", y)
	}
	// Unlimited falling rate.
	u, _ := NewRateLimiter(1, math.Inf(1))
	u.Step(3, dt)
	if y := u.Step(-3, 0); y != -3 {
		t.Errorf("infinite falling rate with dt = 0: %g, want -3", y)
	}
	for _, c := range [][2]float64{{0, 1}, {1, -1}, {math.NaN(), 1}} {
		if _, err := NewRateLimiter(c[0], c[1]); err == nil {
			t.Errorf("NewRateLimiter(%g, %g) accepted", c[0], c[1])
		}
	}
	if a := testing.AllocsPerRun(100, func() { r.Step(1, dt) }); a != 0 {
		t.Errorf("RateLimiter.Step allocates %v", a)
	}
}
