package solver

import (
	"math"
	"mbfmu/spec"
	"testing"
)

// predState makes a bare state with n history entries of the given step
// sizes (newest first) for testing predWeights.
func predState(steps []float64) *State {
	s := &State{ph: make([]float64, predLen(1, 0, 0))}
	st := s.ph[len(s.ph)-predBack-2 : len(s.ph)-2]
	copy(st, steps)
	s.ph[len(s.ph)-2] = float64(len(steps))
	return s
}

// TestPredictorWeights checks the extrapolation weights against the
// functions they must reproduce exactly: with four equal steps a quadratic
// plus (−1)ⁿ and n(−1)ⁿ; with unequal steps a quadratic; with a step far
// from the history, nothing but the current value.
func TestPredictorWeights(t *testing.T) {
	const h = 0.01
	eval := func(w *[predBack + 1]float64, f func(k int, tk float64) float64, steps []float64) (pred, exact float64) {
		tk := 0.0
		pred = w[0] * f(0, 0)
		for k := 1; k <= len(steps); k++ {
			tk -= steps[k-1]
			pred += w[k] * f(-k, tk)
		}
		return pred, f(1, h)
	}
	uniform := []float64{h, h, h, h}
	s := predState(uniform)
	w := s.predWeights(h)
	for name, f := range map[string]func(k int, t float64) float64{
		"1":       func(k int, t float64) float64 { return 1 },
		"t":       func(k int, t float64) float64 { return 3 * t },
		"t²":      func(k int, t float64) float64 { return 1e4 * t * t },
		"(−1)ⁿ":   func(k int, t float64) float64 { return math.Pow(-1, float64(k)) },
		"n·(−1)ⁿ": func(k int, t float64) float64 { return float64(k) * math.Pow(-1, float64(k)) },
		"mixed": func(k int, t float64) float64 {
			return 2 - 5*t + 7e3*t*t + 0.3*math.Pow(-1, float64(k))*(1+0.1*float64(k))
		},
		"sawtooth": func(k int, t float64) float64 { return float64(k&1) - 0.5 },
	} {
		p, e := eval(w, f, uniform)
		if math.Abs(p-e) > 1e-10*math.Max(1, math.Abs(e)) {
			t.Errorf("uniform steps, f = %s: predicted %.15g, exact %.15g", name, p, e)
		}
	}
	for _, steps := range [][]float64{{0.8 * h, 1.3 * h}, {1.9 * h, 0.6 * h, h}, {h, h, 1.5 * h, h}} {
		s := predState(steps)
		w := s.predWeights(h)
		f := func(k int, t float64) float64 { return 1 - 40*t + 3e3*t*t }
		if p, e := eval(w, f, steps); math.Abs(p-e) > 1e-12 {
			t.Errorf("steps %v: quadratic predicted %.15g, exact %.15g", steps, p, e)
		}
	}
	// a step more than twice the last one: hold the value
	s = predState([]float64{h / 3, h / 3, h / 3, h / 3})
	if w := s.predWeights(h); *w != [predBack + 1]float64{1} {
		t.Errorf("step tripled: weights %v, want hold", *w)
	}
	// no history: hold
	s = predState(nil)
	if w := s.predWeights(h); *w != [predBack + 1]float64{1} {
		t.Errorf("no history: weights %v, want hold", *w)
	}
}

// TestPredictorNewtonIterations: on A01 (ρ∞ = 1, h = 0.8 ms, default
// Newton tolerance) the extrapolating predictor lets nearly every step
// converge after one Newton iteration without refactorising; holding q̈ and
// λ needed 2.45 iterations and 0.45 factorisations per step. The result must
// not depend on the predictor beyond the Newton tolerance: the period still
// matches the elliptic-integral value as closely as the integrator allows.
func TestPredictorNewtonIterations(t *testing.T) {
	ms := pendulumSpec("genalpha", 8e-4)
	ms.Settings.NewtonTol = 0 // default 1e-8
	m := mustCompile(t, ms)
	s := mustInit(t, m)
	// Step by step (Step reuses the factorisation like one long run);
	// the first return to the release height is half a period.
	prevY, tHalf := 0.0, 0.0
	for k := 1; k <= 12500; k++ {
		if err := m.Step(s, 8e-4); err != nil {
			t.Fatal(err)
		}
		s.T = float64(k) * 8e-4
		y := s.Q()[1]
		if tHalf == 0 && k > 10 && prevY < 0 && y >= 0 {
			tHalf = s.T - 8e-4*y/(y-prevY)
		}
		prevY = y
	}
	st := s.Stats()
	it := float64(st.NewtonIters) / float64(st.Steps)
	fa := float64(st.Factorizations) / float64(st.Steps)
	t.Logf("A01 h = 0.8 ms: %.3f Newton iterations and %.4f factorisations per step", it, fa)
	if it > 1.2 || fa > 0.05 {
		t.Errorf("%.3f iterations and %.4f factorisations per step, want ≤ 1.2 and ≤ 0.05", it, fa)
	}
	period := 4 * math.Sqrt(1/9.81) * ellipticK(math.Sin(math.Pi/4))
	if d := math.Abs(2*tHalf - period); d > 2e-4 {
		t.Errorf("period %.6f s, exact %.6f s (|Δ| = %.2g)", 2*tHalf, period, d)
	}
}

// TestMeasuredForceTangent: a stiff bushing written as an expression force
// on measures, fx = −k dx(b.c) − c vx(b.c) (and the same in y), k = 1e8 N/m
// on 1 kg, at h = 1 ms (h²k/m = 100: the mode is far beyond the step and
// generalized-α damps it). Without the derivatives of the measures in the
// Newton matrix the iteration diverged and every step was halved; with the
// finite-difference tangent each step converges in a few iterations and the
// body settles at the static deflection −m g / k.
func TestMeasuredForceTangent(t *testing.T) {
	const k, c, m, g = 1e8, 2e4, 1.0, 9.81
	ms := &spec.Model{
		Name:     "bushing",
		Settings: spec.Settings{End: 0.2, Step: 1e-3, Integrator: "genalpha", RhoInf: 0.8, RhoSet: true},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "b", Mass: num(m), Inertia: num(0.1),
			Markers: []spec.Marker{{Name: "c"}}}},
		Forces: []spec.Force{{Kind: "force", Name: "bushing", I: "b.c",
			FX: ex("-1e8*dx(b.c) - 2e4*vx(b.c)"), FY: ex("-1e8*dy(b.c) - 2e4*vy(b.c)")}},
	}
	mod := mustCompile(t, ms)
	s := mustInit(t, mod)
	if err := mod.AdvanceTo(s, 0.2); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	it := float64(st.NewtonIters) / float64(st.Steps)
	y, want := s.Q()[1], -m*g/k
	t.Logf("y = %.6g m (static %.6g m), %d steps, %.2f iterations per step, %d rejected", y, want, st.Steps, it, st.Rejected)
	if st.Rejected > 0 || it > 4 {
		t.Errorf("%d rejected steps, %.2f Newton iterations per step: the measures' derivatives are missing from the Newton matrix", st.Rejected, it)
	}
	if math.Abs(y-want) > 1e-3*math.Abs(want) || math.Abs(s.Q()[0]) > 1e-12 {
		t.Errorf("settled at (%g, %g) m, static deflection (0, %g) m", s.Q()[0], y, want)
	}
	// the finite differences allocate nothing
	tEnd := 0.2
	if n := testing.AllocsPerRun(50, func() {
		tEnd += 1e-3
		if err := mod.AdvanceTo(s, tEnd); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per AdvanceTo", n)
	}
}
