package solver

import "math"

// The time grid. A run with a fixed step h takes its steps on the grid
// g₀ + k·h anchored at the start time g₀ (computed as g₀ + float64(k)·h,
// never by accumulating h). A target time within rounding of a grid point
// — what masters that compute communication points as t += H and as
// t₀ + n·H hand over for the same point — is that grid point, so both get
// the same steps, bit for bit. A target between grid points ends with a
// partial step (merged into the last full step when it would be a sliver),
// and the next call goes on to the next grid point.

// gridTol is the distance (relative to the step) within which a target is
// a grid point: far above the rounding of a time computed either way (a few
// units in the last place of t, below 1e-6·h up to t = 10⁶ s at h = 1 ms),
// far below any meant difference.
const gridTol = 1e-6

// sliver is the shortest partial step, relative to h: a shorter remainder
// is merged into the step beside it.
const sliver = 1e-3

// gridIndex returns the grid index of t and whether t is a grid point
// (within gridTol·h).
func gridIndex(g0, h, t float64) (int64, bool) {
	x := (t - g0) / h
	k := math.Round(x)
	return int64(k), math.Abs(x-k) <= gridTol
}

// gridTime is grid point k.
func gridTime(g0, h float64, k int64) float64 { return g0 + float64(k)*h }

// AdvanceTo integrates from s.T to t. A fixed-step run takes its steps on
// the time grid anchored at the start time (see above; a t within rounding
// of a grid point ends exactly there, and s.T is then that grid point);
// adaptive integration controls the local error by step doubling. Inputs
// or tunable parameters changed since the last step restart the
// integrator's accelerations there (restart.go). On failure it returns
// *StepError and leaves s at the last time it reached successfully; the
// error names the force, driver, parameter or input at fault when one is
// found (diagnose.go). It allocates nothing, except to diagnose a failure.
func (m *Model) AdvanceTo(s *State, t float64) error {
	if !s.initialized {
		return &StepError{Time: s.T, LastTime: s.T, Msg: "state is not initialised (call Init)"}
	}
	if !finite(t) || t < s.T-1e-12*math.Max(1, math.Abs(t)) {
		return &StepError{Time: s.T, LastTime: s.T, Msg: "target time " + ftoa(t) + " s is before the current time or not finite"}
	}
	h := m.settings.Step
	if !m.settings.Adaptive {
		if n := math.Abs(t-s.g0) / h; n > 2*MaxGridSteps {
			return &StepError{Time: s.T, LastTime: s.T, Msg: "target time " + ftoa(t) + " s is " + sprintf("%.3g", n) + " steps of " + ftoa(h) + " s from the time grid's origin, beyond the 1e9 steps it tells apart at double precision"}
		}
		// a target within rounding of a grid point is that point; the
		// snap never moves it by more than gridTol of the advance (a step
		// far longer than the advance — 1e10 s to reach 10 ms — would
		// otherwise snap every target back to the start and freeze the run)
		if k, on := gridIndex(s.g0, h, t); on {
			if g := gridTime(s.g0, h, k); math.Abs(t-g) <= gridTol*math.Max(t-s.T, 0) {
				t = g
			}
		}
	}
	if t-s.T <= 1e-13*math.Max(1, math.Abs(t)) {
		return nil
	}
	m.restartIfChanged(s)
	defer s.stepped()
	if m.settings.Adaptive {
		return m.advanceAdaptive(s, t)
	}
	for s.T < t {
		// the step ends at the next grid point, at least a sliver ahead,
		// or at t when that is nearer or only a sliver beyond
		k := int64(math.Floor((s.T - s.g0) / h))
		for gridTime(s.g0, h, k)-s.T <= sliver*h {
			k++
		}
		end := gridTime(s.g0, h, k)
		if t <= end+sliver*h {
			end = t
		}
		hs := end - s.T
		if math.Abs(hs-h) <= gridTol*h {
			// a whole step: exactly h (the difference of two grid points
			// differs from it in the last bits)
			hs = h
		}
		if err := m.step(s, hs, 0); err != nil {
			return m.stepError(s, err, s.T, end) // names the source (diagnose.go)
		}
		t0 := s.T
		s.T = end
		s.setTime(end)
		if !m.finiteState(s) {
			return m.stepError(s, errNonFiniteState, t0, end)
		}
	}
	return nil
}

// advanceAdaptive integrates to t with error control.
func (m *Model) advanceAdaptive(s *State, t float64) error {
	for s.T < t {
		rem := t - s.T
		h := math.Min(s.h, m.settings.MaxStep)
		switch {
		case rem <= h*(1+1e-9):
			h = rem
		case rem < 2*h:
			h = rem / 2
		}
		if err := m.adaptiveStep(s, h); err != nil {
			return err
		}
		// snap to t only when the step reached it: a rejected step was
		// retried shorter and stopped before t
		if t-s.T <= 1e-9*h || t-s.T <= 1e-13*math.Max(1, math.Abs(t)) {
			s.T = t
		}
	}
	s.setTime(t)
	return nil
}

// AnchorGrid puts the origin of the time grid of fixed steps at the
// state's current time (Init puts it at the model's start time). An FMU
// whose master starts later than the model calls it after integrating to
// the master's start time, so the master's communication points are grid
// points.
func (s *State) AnchorGrid() { s.g0 = s.T }

// OutputRows returns the number of result rows after the one at the start
// time: one at every whole multiple of the output step after the start
// that lies before the end time, and one at the end time (a multiple
// within gridTol output steps of the end time is the end time itself).
func (st Settings) OutputRows() int {
	x := (st.End - st.Start) / st.OutputStep
	if !(x > 0) {
		return 0
	}
	k := math.Round(x)
	if math.Abs(x-k) <= gridTol && k >= 1 {
		return int(k)
	}
	return int(math.Floor(x)) + 1
}

// OutputTime returns the time of result row k (1 ≤ k ≤ OutputRows()):
// start + k·output step, computed from k (never accumulated), and the end
// time for the last row.
func (st Settings) OutputTime(k int) float64 {
	if k >= st.OutputRows() {
		return st.End
	}
	return st.Start + float64(k)*st.OutputStep
}
