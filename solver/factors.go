package solver

// The factorisation of the Newton iteration matrix is a cache: the state
// keeps the anchor — the core, the expression variables, the step's
// rotation increments and the coefficients at which the factors in use
// were computed — and the factors are rebuilt from it, bit for bit,
// whenever the linear solver held something else when they are needed
// (after a state was restored or copied, after an acceleration solve, a
// linearisation or a static analysis). Reusing the factorisation across
// steps and across AdvanceTo calls therefore never makes the numbers
// depend on how the run was asked for.

// anchorLen is the length of a state's anchor: core, variables, the
// rotation increments (nv), s1, cv and the tangent-operator flag.
func anchorLen(m *Model, ncore int) int { return ncore + m.vars + m.nv + 3 }

// setAnchor records the state at which the iteration matrix was just
// factored.
func (s *State) setAnchor(s1, cv float64) {
	a := s.anchor
	n := copy(a, s.core)
	n += copy(a[n:], s.vars)
	n += copy(a[n:], s.dq)
	a[n], a[n+1] = s1, cv
	a[n+2] = 0
	if s.useT {
		a[n+2] = 1
	}
	s.hasAnchor = true
	s.linValid = true
}

// rebuildFactors factors the iteration matrix of the anchor again, with
// the state's own values put back afterwards. It fails when there is no
// anchor or the matrix is singular (the caller then factors afresh).
func (m *Model) rebuildFactors(s *State) error {
	if !s.hasAnchor {
		return errNewton
	}
	a, w := s.anchor, s.swap
	// keep the current state
	n := copy(w, s.core)
	n += copy(w[n:], s.vars)
	copy(w[n:], s.dq)
	useT := s.useT
	// put the anchor in, factor, put the state back
	n = copy(s.core, a)
	n += copy(s.vars, a[n:])
	n += copy(s.dq, a[n:n+m.nv])
	s1, cv := a[n], a[n+1]
	s.useT = a[n+2] != 0
	if s.useT {
		m.setTangentOps(s)
	}
	m.newtonResidual(s, s1, cv, true)
	err := s.lin.Factor()
	n = copy(s.core, w)
	n += copy(s.vars, w[n:])
	copy(s.dq, w[n:n+m.nv])
	s.useT = useT
	if useT {
		m.setTangentOps(s)
	}
	if err != nil {
		return err
	}
	s.linValid = true
	return nil
}
