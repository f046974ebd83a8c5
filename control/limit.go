package control

import (
	"fmt"
	"math"
)

// Saturate returns u limited to [lo, hi]. It assumes lo ≤ hi; a NaN u is
// returned unchanged.
func Saturate(u, lo, hi float64) float64 {
	if u > hi {
		return hi
	}
	if u < lo {
		return lo
	}
	return u
}

// RateLimiter limits how fast a signal may change: its output rises by at
// most Rising·dt and falls by at most Falling·dt per step. It is not safe for
// concurrent use; create one with NewRateLimiter.
type RateLimiter struct {
	rising, falling float64
	y               float64
	started         bool
}

// NewRateLimiter returns a rate limiter with the given maximum rising and
// falling rates, both given as positive magnitudes (units per second; +Inf
// means unlimited in that direction).
func NewRateLimiter(rising, falling float64) (*RateLimiter, error) {
	if math.IsNaN(rising) || !(rising > 0) {
		return nil, fmt.Errorf("control: rate limiter rising rate %v: must be > 0", rising)
	}
	if math.IsNaN(falling) || !(falling > 0) {
		return nil, fmt.Errorf("control: rate limiter falling rate %v: must be > 0 (a magnitude; the output may fall at most this fast)", falling)
	}
	return &RateLimiter{rising: rising, falling: falling}, nil
}

// Step returns u limited so that it differs from the previous output by at
// most rising·dt upwards and falling·dt downwards. The first step after
// NewRateLimiter or Reset passes u through. A non-finite u or dt, or dt < 0,
// returns NaN and leaves the state unchanged. Step allocates nothing.
func (r *RateLimiter) Step(u, dt float64) float64 {
	if !finite(u) || !finite(dt) || dt < 0 {
		return math.NaN()
	}
	if !r.started {
		r.y, r.started = u, true
		return u
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if !math.IsInf(r.falling, 1) {
		lo = r.y - r.falling*dt
	}
	if !math.IsInf(r.rising, 1) {
		hi = r.y + r.rising*dt
	}
	r.y = Saturate(u, lo, hi)
	return r.y
}

// Output returns the last output (0 before the first step).
func (r *RateLimiter) Output() float64 { return r.y }

// Started reports whether the limiter has a previous output (a step since
// NewRateLimiter or Reset, or ResetTo).
func (r *RateLimiter) Started() bool { return r.started }

// Reset forgets the previous output: the next step passes its input through.
func (r *RateLimiter) Reset() { r.y, r.started = 0, false }

// ResetTo sets the previous output to y, so the next step starts from it.
func (r *RateLimiter) ResetTo(y float64) error {
	if !finite(y) {
		return fmt.Errorf("control: rate limiter output %v: must be finite", y)
	}
	r.y, r.started = y, true
	return nil
}
