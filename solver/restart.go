package solver

import "mbfmu/solver/mech"

// Restarting the accelerations where inputs or parameters change.
//
// A co-simulation master changes the inputs at communication points and
// holds them over the next macro step (zero-order hold). The generalized-α
// family carries the accelerations a and the algorithmic accelerations ā
// from one step to the next; both were computed with the old inputs. Left
// alone, the change acts only through the equations at the end of the
// next step, and ā (and the first step's a₀) still hold the old values:
// the input then acts half a step late, a first-order error in h (the
// position of a spring–mass driven through its input at 1 ms was off by
// 0.4 % of its amplitude; a step input came 0.5 ms late).
//
// So when the parameters and inputs differ from those of the last step,
// the accelerations and multipliers are made consistent with the new ones
// before stepping on: with r the residual of the equations of motion at
// the current state, M q̈ − g − Q + Φqᵀλ, the correction solves
//
//	[M Φqᵀ; Φq 0] [Δq̈; Δλ] = [−r; 0]
//
// and shifts a, ā, λ and the predictor's memory of them by it (ā keeps the
// part of order h that places it at t + (αm − αf)h, see startAlgorithmic).
// When the linear solver holds the factors of the Newton iteration matrix
// (they are kept across steps), those replace the matrix above: it is
// M + (C γ' + K)/c_a with c_a of order 1/h², so the correction is exact up
// to a relative O(h), which keeps the scheme second order; there is no
// extra factorisation then (or one, to rebuild them bit for bit after the
// state was restored). Before the first step (no factors yet) and with
// Coulomb contacts, the matrix above is factored once.
// BDF carries no algorithmic accelerations but differentiates its
// history, which the change puts a kink in: the history is moved as if
// the new accelerations had acted over the last step. RK4 carries nothing
// between steps and needs nothing.

// restartIfChanged compares the parameters and inputs with those at the
// end of the last step and, when they changed, restarts the accelerations
// (above); then it starts the input ramps (ramp.go) from here. It
// allocates nothing.
func (m *Model) restartIfChanged(s *State) {
	defer s.anchorRamps()
	u := s.vars[1:]
	changed, params := false, false
	np := len(m.params)
	for i, x := range u {
		if x != s.ulast[i] {
			changed = true
			if i < np {
				params = true
			}
		}
	}
	if !changed || !s.initialized {
		return
	}
	if params {
		// a parameter may change the iteration matrix itself
		s.needFactor = true
	}
	if m.integ.family == famRK || !params && len(m.uForces) == 0 && !m.uOther {
		// nothing in the equations of motion reads what changed
		return
	}
	m.restartAccelerations(s, !params)
	// (s.ulast is brought up to date at the end of the step: stepped)
}

// restartAccelerations applies the correction of the accelerations and
// multipliers described above. A failure (a singular matrix) leaves them
// as they were: the step then starts from them as before.
func (m *Model) restartAccelerations(s *State, inputsOnly bool) {
	nv := m.nv
	var scale float64
	// (the choice depends on the state alone, never on what the linear
	// solver happens to hold: results must not depend on interruptions)
	// A configuration-dependent inertia (a floating-frame body) makes the
	// anchor's matrix, whose mass part is that of the anchor's
	// configuration, wrong by M(q) − M(q_anchor): O(1) once the body has
	// turned, and the error, left in ā at every change of the inputs,
	// built up until a flexible arm driven at 1 kHz failed. Such models
	// take the exact acceleration matrix (addMassCorrection).
	iter := s.hasAnchor && (m.contacts == nil || !m.contacts.coulomb) && len(m.mcorr) == 0
	if iter && !s.linValid {
		if m.rebuildFactors(s) != nil {
			iter = false
		}
	}
	if iter {
		// the iteration matrix of the anchor, in its own scaling
		a := s.anchor[len(s.anchor)-3:]
		s1, cv := a[0], a[1]
		if inputsOnly && !m.uOther {
			m.inputResidual(s, s1)
		} else {
			m.newtonResidual(s, s1, cv, false)
		}
		scale = 1 / s1
	} else {
		// the acceleration matrix [M Φqᵀ; Φq 0]
		if m.assemble(s, false) != nil {
			return
		}
		m.newtonResidual(s, 1, 1, false)
		scale = 1
		// the step starts with a fresh iteration matrix
		s.needFactor = true
	}
	for i := range s.res {
		s.dx[i] = -s.res[i]
	}
	for r := nv; r < len(s.dx); r++ {
		s.dx[r] = 0
	}
	s.lin.Solve(s.dx)
	for i := range s.dx {
		if !finite(s.dx[i]) {
			return
		}
	}
	if m.integ.family == famBDF {
		// BDF differentiates its history: v₋₁ and q₋₁ are moved to where
		// the new accelerations would have put them, so the formula sees
		// no kink at the change (a kink leaves Δq̈/2 in its derivative)
		hp := s.hp
		for i := 0; i < nv; i++ {
			d := s.dx[i] * scale
			s.a[i] += d
			if s.nhist > 0 {
				s.vp[i] -= d * hp
				s.qp[m.qOf[i]] += 0.5 * d * hp * hp
			}
		}
		for r := range s.lam {
			s.lam[r] += s.dx[nv+r] * scale
		}
		return
	}
	hist, world := s.predMem()
	for i := range s.dx {
		d := s.dx[i] * scale
		if i < nv {
			s.a[i] += d
			s.aa[i] += d
		} else {
			s.lam[i-nv] += d
		}
		s.dx[i] = d
	}
	// the memory holds a fast rotation's angular accelerations in the
	// world frame (predict.go)
	for k, r := range m.rots {
		if world[k] == 0 {
			continue
		}
		A := mech.QuatMat(mech.Quat(s.q[r.q : r.q+4]))
		d := (*[3]float64)(s.dx[r.v : r.v+3])
		*d = mech.MulMV(&A, *d)
	}
	for i, d := range s.dx {
		p := hist[i*predBack : (i+1)*predBack]
		for k := range p {
			p[k] += d
		}
	}
}

// inputDependence finds the forces whose run-time parameters read an
// input, and whether a driver or constraint does.
func (m *Model) inputDependence() {
	lo, hi := 1+len(m.params), 1+len(m.params)+len(m.inputs)
	reads := func(p *mech.Param) bool {
		if p == nil || p.P == nil {
			return false
		}
		for _, sl := range p.P.Slots() {
			if sl >= lo && sl < hi {
				return true
			}
		}
		return false
	}
	readsAny := func(e any) bool {
		pl, ok := e.(mech.ParamLister)
		if !ok {
			return false
		}
		for _, p := range pl.Params() {
			if reads(p) {
				return true
			}
		}
		return false
	}
	m.uForces, m.uOther = nil, false
	for k, f := range m.forces {
		if readsAny(f) {
			m.uForces = append(m.uForces, k)
		}
	}
	for k := range m.cons {
		m.uOther = m.uOther || readsAny(m.cons[k].c)
	}
	for i := range m.joints {
		m.uOther = m.uOther || reads(&m.joints[i].Value)
	}
}

// inputResidual writes into s.res the change of the scaled residual of the
// equations of motion, −s1·ΔQ, that the inputs' change from s.ulast to
// their current values makes, over the forces that read them (the
// residual at the end of the last step was zero to the Newton tolerance).
func (m *Model) inputResidual(s *State, s1 float64) {
	clear(s.res)
	nu := len(s.ulast)
	keep := s.swap[:nu]
	copy(keep, s.vars[1:])
	for _, k := range m.uForces {
		f := m.forces[k]
		d := f.Dofs()
		n := len(d)
		old, now := s.fl2[:n], s.fl3[:n]
		clear(old)
		clear(now)
		copy(s.vars[1:], s.ulast)
		f.Eval(&s.x, old, nil, nil)
		copy(s.vars[1:], keep)
		f.Eval(&s.x, now, nil, nil)
		for a, i := range d {
			if i >= 0 {
				s.res[i] -= s1 * (now[a] - old[a])
			}
		}
	}
}
