package solver

import "mbfmu/solver/mech"

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
	m.recordRot(s)
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

// recordRot notes the rotations at which the iteration matrix now in the
// linear solver was assembled (s.q), for coRotate.
func (m *Model) recordRot(s *State) {
	for k, r := range m.rots {
		copy(s.qf[4*k:4*k+4], s.q[r.q:r.q+4])
	}
}

// Symmetries of a body's inertia that coRotate relies on (rotInertia):
// none, the axis of an axisymmetric body (body x, y or z), isotropic.
const (
	symNone = -1
	symIso  = 3
)

// setCoRot computes, for each rotation, R = A_fᵀ A (s.rc): the turn of
// its body frame from the factorisation in use (s.qf) to now (s.q, the
// step's predicted end), and whether coRotate applies it (s.rcOn). It
// does where the turn leaves the body's inertia as it is: about the axis
// of symmetry of an axisymmetric body (within a tenth of the angle:
// (v·u)² > 0.99 |v|² for the turn's quaternion vector part v), or any turn
// of an isotropic one. Elsewhere co-rotating would trade the world-fixed
// parts of the matrix (constraint rows), off by about the turn's angle,
// for the inertia, which weighs more and would be off as much (a link of
// a chain turning about a short axis).
func (m *Model) setCoRot(s *State) {
	for k, r := range m.rots {
		s.rcOn[k] = false
		sym := m.rotSym[k]
		if sym == symNone {
			continue
		}
		rel := mech.QuatMul(mech.QuatConj(mech.Quat(s.qf[4*k:4*k+4])), mech.Quat(s.q[r.q:r.q+4]))
		if sym != symIso {
			vu := rel[1+sym]
			if !(vu*vu > 0.99*(rel[1]*rel[1]+rel[2]*rel[2]+rel[3]*rel[3])) {
				continue
			}
		}
		mech.QuatMatTo(&s.rc[k], rel[0], rel[1], rel[2], rel[3])
		s.rcOn[k] = true
	}
}

// coRotate carries the rotation blocks of a right-hand side (back =
// false) or of a solution (back = true) between the body frames of now
// and of the factors in use (s.rc). A rotation's unknowns and equations
// are in its body frame, so to a body that turned by R since the
// factorisation that iteration matrix is Qᵀ J Q (Q = R on its rotation
// blocks), exactly so for its constraint rows and for its inertia where R
// turns about an axis of symmetry: J_now⁻¹ ≈ Qᵀ J⁻¹ Q. Old factors then
// stay good for a spinning body (the heavy top turns 0.15 rad a step,
// which otherwise defeats them at once: with them its Newton increments
// contract by about 0.01 instead of 0.3).
func (m *Model) coRotate(s *State, x []float64, back bool) {
	for k, r := range m.rots {
		if !s.rcOn[k] {
			continue
		}
		v := (*[3]float64)(x[r.v : r.v+3])
		if back {
			*v = mech.MulMTV(&s.rc[k], *v)
		} else {
			*v = mech.MulMV(&s.rc[k], *v)
		}
	}
}
