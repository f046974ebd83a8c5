package solver

import "math"

// OutputDerivatives writes the first time derivatives of the declared
// outputs at the current state into dst (len(OutputInfo())), for masters
// that extrapolate the outputs over their next communication step
// (fmi2GetRealOutputDerivatives).
//
// The derivative is taken along the motion: with the accelerations a
// solved from the equations of motion at the state, the state is moved to
// t ± δ by its Taylor expansion (q ⊕ (±δ v + ½δ² a), v ± δ a, the inputs along
// their ramps), the accelerations and multipliers are solved there from
// the equations of motion (so outputs that read accelerations, forces or
// reactions move consistently), and the central differences at δ and 2δ
// are combined by Richardson extrapolation: the error is of order δ⁴ in
// the motion's fifth derivative, with δ = 10⁻³ of the integration step.
// The contact modes are held. The state is left as it was (bit for bit).
func (m *Model) OutputDerivatives(s *State, dst []float64) error {
	n := len(m.outChan)
	if n == 0 {
		return nil
	}
	if len(s.yd) < 4*n {
		s.yd = make([]float64, 4*n)
	}
	h := m.settings.Step
	if m.settings.Adaptive {
		h = math.Min(s.h, m.settings.MaxStep)
	}
	d := 1e-3 * h
	nc, nv := len(s.core), len(s.vars)
	keep := s.swap[:nc+nv]
	copy(keep, s.core)
	copy(keep[nc:], s.vars)
	t0, st := s.T, s.stats
	defer func() {
		copy(s.core, keep[:nc])
		copy(s.vars, keep[nc:])
		s.T, s.stats = t0, st
		s.linValid = false
	}()
	// the accelerations of the equations of motion at the state (those of
	// the integrator's state carry its algorithmic error)
	if err := m.accelerations(s, s.a, false); err != nil {
		return err
	}
	a0 := s.pred[:m.nv]
	copy(a0, s.a)
	for j, f := range [4]float64{d, -d, 2 * d, -2 * d} {
		copy(s.core, keep[:nc])
		copy(s.vars, keep[nc:])
		copy(s.a, a0)
		for i := range s.v {
			s.dq[i] = f*s.v[i] + 0.5*f*f*s.a[i]
		}
		m.addTo(s.q, s.dq, 1)
		for i := range s.v {
			s.v[i] += f * s.a[i]
		}
		s.T = t0 + f
		s.setTime(s.T)
		if err := m.accelerations(s, s.a, false); err != nil {
			return err
		}
		m.EvalOutputs(s, s.yd[j*n:(j+1)*n])
	}
	y := s.yd
	for i := 0; i < n; i++ {
		d1 := (y[i] - y[n+i]) / (2 * d)
		d2 := (y[2*n+i] - y[3*n+i]) / (4 * d)
		dst[i] = (4*d1 - d2) / 3
	}
	return nil
}
