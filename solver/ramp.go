package solver

// Input ramps. A co-simulation master that knows how its signals move
// within a communication step hands over their time derivatives with the
// values (fmi2SetRealInputDerivatives): the inputs then follow
//
//	u(t) = u(t_c) + u̇ (t − t_c) + ½ ü (t − t_c)²
//
// from the time t_c at which a step or AdvanceTo call starts, instead of
// being held. The derivatives stay until changed; the values they reach
// are what the inputs hold afterwards. The ramps are part of the state
// (s.ramp, in the core): values at t_c, first derivatives, second
// derivatives, t_c.

// SetInputDerivative sets the order-th time derivative (1 or 2) of input i
// (SI units per second^order), used from the start of the next step.
func (s *State) SetInputDerivative(i, order int, v float64) error {
	ni := len(s.m.inputs)
	switch {
	case i < 0 || i >= ni:
		return errorf("input index %d out of range (the model has %d inputs)", i, ni)
	case order < 1 || order > 2:
		return errorf("input %q: derivative order %d is not supported (1 or 2)", s.m.inputs[i].Name, order)
	case !finite(v):
		return errorf("input %q: derivative of order %d is not finite", s.m.inputs[i].Name, order)
	}
	s.ramp[order*ni+i] = v
	s.setRamped()
	return nil
}

// InputDerivative returns the order-th time derivative (1 or 2) of input
// i as set by SetInputDerivative (0 for another order).
func (s *State) InputDerivative(i, order int) float64 {
	ni := len(s.m.inputs)
	if i < 0 || i >= ni || order < 1 || order > 2 {
		return 0
	}
	return s.ramp[order*ni+i]
}

// setRamped caches whether any input has a nonzero derivative.
func (s *State) setRamped() {
	ni := len(s.m.inputs)
	s.ramped = false
	for _, d := range s.ramp[ni : 3*ni] {
		if d != 0 {
			s.ramped = true
		}
	}
}

// anchorRamps starts the ramps at the current time from the inputs'
// current values.
func (s *State) anchorRamps() {
	if !s.ramped {
		return
	}
	ni := len(s.m.inputs)
	copy(s.ramp[:ni], s.vars[1+len(s.m.params):])
	s.ramp[3*ni] = s.T
}

// rampInputs puts the ramped inputs' values at time t into the variables.
func (s *State) rampInputs(t float64) {
	ni := len(s.m.inputs)
	r := s.ramp
	dt := t - r[3*ni]
	in := s.vars[1+len(s.m.params):]
	for i := range in {
		if d1, d2 := r[ni+i], r[2*ni+i]; d1 != 0 || d2 != 0 {
			in[i] = r[i] + dt*(d1+0.5*dt*d2)
		}
	}
}

// stepped records the parameters and inputs at the end of a step or
// AdvanceTo call, against which restartIfChanged compares the next ones.
func (s *State) stepped() { copy(s.ulast, s.vars[1:]) }
