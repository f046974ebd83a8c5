package solver

import (
	"math"
	"mbfmu/expr"
	"mbfmu/linalg"
	"mbfmu/solver/mech"

	"mbfmu/lcp"
	"mbfmu/solver/contacts"
)

// This file holds the non-smooth part of contact: Coulomb stick–slip and
// the event-located time stepping (docs/contact.md).
//
// Modes. Each contact has a normal state (open/closed) and, with exact
// Coulomb friction, a friction mode: slip in direction σ = ±1 (friction
// −μ F_N σ, smooth within a step) or stick (the slip velocity is held at
// zero by a tangential constraint whose multiplier is the friction force).
// Modes are frozen within a step, so every step integrates a smooth
// problem.
//
// Events. At the end of every step each contact's event function for its
// current mode is checked: −δ (open) / min(δ, F_raw) (closed), σ·vt (slip),
// μ0 F_N − |F_t| (stick). When one changes sign the step is repeated from
// its start with shorter lengths (Illinois regula falsi) until the first
// crossing is bracketed to 1e-9 of the step; the integration stops just
// past it, the modes are decided anew there, and the rest of the step is
// integrated with the new modes.
//
// Decisions. Contacts that stick, or whose slip velocity is zero, are
// decided together by seed 003's linear complementarity problem between
// the friction reserves F± = μ0 F_N ± F_t and the positive and negative
// parts of the slip acceleration, solved by Lemke's algorithm (mbfmu/lcp):
//
//	[at⁺]   [A  I] [F⁺ ]   [b − A μ0F_N]
//	[F⁻ ] = [−I 0] [at⁻] + [  2 μ0F_N  ],  all ≥ 0, complementary,
//
// with A = W K⁻¹ Wᵀ the Delassus matrix of the sticking contacts (K the
// factored constrained system [M Φqᵀ; Φq 0]) and b their slip accelerations
// without friction. at⁺ > 0 starts slip in +T, at⁻ > 0 in −T; otherwise the
// contact sticks with F_t = F⁺ − μ0 F_N.
//
// Hooks: Model.accelerations calls contactSet.accel after its solve (stick
// multipliers; the LCP at a decision); Model.step calls Model.contactStep
// instead of the plain integrator step; implicitStep calls
// contactSet.newton after each Newton solve (stick rows by block
// elimination); Init calls contactSet.begin.

// contactSet is the model's planar contact pairs, whose normal states the
// engine switches at events, and its elements with exact Coulomb friction
// (mech.Coulomb: those contacts with friction="coulomb" and the joints'
// frictions), whose stick and slip it decides.
type contactSet struct {
	elems  []*contacts.Elem // planar contacts (normal states)
	rows   []mech.Coulomb   // exact Coulomb friction
	groups int              // discrete-state groups (Model.ncs)
	joint  []bool           // per group: a joint's friction (always closed, no α)
	// lead holds, per group, the first group of its isotropic set
	// (friction in a plane or in space: a spatial contact, a ball joint,
	// mech.CoulombSet), −1 for a scalar row; setN the set's row count.
	// The first group leads (its events, its mode).
	lead, setN []int
	// byGroup is the friction row of each group (nil for a contact
	// without exact Coulomb friction)
	byGroup []mech.Coulomb
	maxd    int     // the most dofs of a friction row
	coulomb bool    // some element has exact Coulomb friction
	kappa   float64 // drift gain of the stick constraint: v̇t = −κ vt
}

// csLen returns the length of the discrete state in State.core.
func (cs *contactSet) csLen() int {
	if cs == nil {
		return 0
	}
	return cs.groups * mech.CSStride
}

// vtolStick is the slip speed below which a friction element is a stick
// candidate at a decision (m/s or rad/s).
const vtolStick = 1e-8

// maxContactEvents bounds the events handled within one step.
const maxContactEvents = 200

// contactWork is the per-State work space of the contact solver (not part
// of the snapshot).
type contactWork struct {
	decide bool   // the next accelerations() call decides stick/slip (LCP)
	fired  []bool // per group: its stick reserve ran out (stick → slip event)

	row  []float64 // scratch: one row W
	row2 []float64 // scratch: another
	qs   []float64 // saved positions (differences along the motion)
	unit []float64 // a unit velocity-space vector
	rev  []bool    // per group: a slipping set's slip velocity reversed at the event
	act  []int     // sticking (or candidate) friction rows (indices in rows)
	wr   []float64 // their rows W, maxd per active row
	vt   []float64 // their slip velocities
	gam  []float64 // and γ
	cap  []float64 // and static levels μ0 F_N
	y    []float64 // responses K⁻¹[Wᵀ; 0], one row of nv+nc per active row
	gq   []float64 // ∂vt/∂q rows (implicit), maxd per active row
	amat []float64 // n×n
	bvec []float64
	fvec []float64
	piv  []int
	sidx []int     // the scalar rows among the active (decide)
	dir  []float64 // a set's slip direction set by decide, per active row
	lm   []float64 // LCP matrix (2n)²
	lq   []float64
	lz   []float64
	lw   []float64
	lcp  *lcp.Solver
	mn   *linalg.MinNorm // least-norm solves of the sticking rows
	wd   []float64       // their capacity weights
	f0   []float64       // the forces the Newton increments start from

	start []float64 // core at the start of a sub-step
	g0    []float64 // event functions: 2 per group
	g1    []float64
	glo   []float64
	ghi   []float64

	// counters (diagnostics; not serialised)
	events, lcps int64
}

// newContactWork allocates the contact work space of a State (nil when the
// model has no contacts).
func (m *Model) newContactWork() *contactWork {
	cs := m.contacts
	if cs == nil {
		return nil
	}
	n, ng, md := len(cs.rows), cs.groups, cs.maxd
	nK := m.nv + m.nc
	return &contactWork{
		row: make([]float64, md), row2: make([]float64, md), qs: make([]float64, m.nq), unit: make([]float64, m.nv),
		rev: make([]bool, ng),
		act: make([]int, 0, n), fired: make([]bool, ng),
		wr: make([]float64, n*md), vt: make([]float64, n), gam: make([]float64, n), cap: make([]float64, n),
		y: make([]float64, n*nK), gq: make([]float64, n*md),
		amat: make([]float64, n*n), bvec: make([]float64, n), fvec: make([]float64, n), piv: make([]int, n), sidx: make([]int, n), dir: make([]float64, n),
		lm: make([]float64, 4*n*n), lq: make([]float64, 2*n), lz: make([]float64, 2*n), lw: make([]float64, 2*n),
		lcp: lcp.NewSolver(2 * n), mn: linalg.NewMinNorm(n), wd: make([]float64, n), f0: make([]float64, n),
		g0: make([]float64, 2*ng), g1: make([]float64, 2*ng), glo: make([]float64, 2*ng), ghi: make([]float64, 2*ng),
	}
}

// group returns the discrete state of friction row e.
func (cs *contactSet) group(s *State, e mech.Coulomb) []float64 {
	i := e.CoulombIndex() * mech.CSStride
	return s.cs[i : i+mech.CSStride]
}

// begin sets the initial discrete state of every contact and friction
// element (Init); the accelerations() call that follows decides stick or
// slip.
func (cs *contactSet) begin(m *Model, s *State) {
	s.cw.events, s.cw.lcps = 0, 0
	clear(s.cs)
	w := s.cw.row
	for _, e := range cs.rows {
		st := cs.group(s, e)
		if cs.joint[e.CoulombIndex()] {
			st[mech.CSClosed] = 1 // a joint's friction always acts
		}
		if cs.lead[e.CoulombIndex()] >= 0 {
			st[mech.CSMode] = 1 // settle decides (slipDirections: the direction)
			// the step, from which the friction's low-speed blend
			// follows (sphere.go: coulombForce)
			st[mech.CSAlpha] = m.settings.Step
			continue
		}
		vt, _ := e.Slip(&s.x, w[:len(e.Dofs())])
		st[mech.CSMode] = expr.Sign(vt)
		if st[mech.CSMode] == 0 {
			st[mech.CSMode] = 1
		}
	}
	cs.slipDirections(s)
	cs.settle(m, s)
}

// settle updates the contacts' normal states and marks the friction
// candidates at the current state, and arms the stick/slip decision of the
// next accelerations() call. It reports whether a decision is needed.
func (cs *contactSet) settle(m *Model, s *State) bool {
	x := &s.x
	for _, e := range cs.elems {
		st := s.cs[e.Idx*contacts.Stride : (e.Idx+1)*contacts.Stride]
		var k contacts.Kin
		e.Kin(x, &k)
		if k.Delta > 0 && k.Rate > 0 && st[contacts.SlotClosed] == 0 {
			st[contacts.SlotAlpha] = e.ImpactAlpha(k.Rate) // first touch: set α from the impact speed
		} else if st[contacts.SlotAlpha] == 0 {
			st[contacts.SlotAlpha] = e.ImpactAlpha(k.Rate)
		}
		st[contacts.SlotClosed] = 0
		if e.Touching(x, k.Delta, k.Rate) {
			st[contacts.SlotClosed] = 1
		}
	}
	need := false
	w := s.cw.row
	for _, e := range cs.rows {
		st := cs.group(s, e)
		if i, l := e.CoulombIndex(), cs.lead[e.CoulombIndex()]; l >= 0 {
			if l == i {
				need = cs.settleSet(s, e) || need
			}
			continue
		}
		vt, _ := e.Slip(x, w[:len(e.Dofs())])
		switch {
		case st[mech.CSClosed] == 0:
			if vt != 0 {
				st[mech.CSMode] = expr.Sign(vt)
			} else if st[mech.CSMode] == 0 {
				st[mech.CSMode] = 1
			}
			st[mech.CSStick] = 0
		case st[mech.CSMode] == 0 || math.Abs(vt) <= vtolStick || st[mech.CSMode]*vt <= 0:
			st[mech.CSMode] = 0
			need = true
		}
	}
	s.cw.decide = need
	return need
}

// settleSet settles the isotropic set led by row e: closed while its
// normal law pushes (a joint's: always); a closed set that sticks, slips
// at zero speed or whose slip velocity just reversed is a candidate.
func (cs *contactSet) settleSet(s *State, e mech.Coulomb) bool {
	i := e.CoulombIndex()
	st := cs.group(s, e)
	_, touching := e.(mech.CoulombSet).Touch(&s.x, st[mech.CSClosed] == 1)
	rev := s.cw.rev[i]
	s.cw.rev[i] = false
	if !touching {
		cs.setSlots(s, i, mech.CSClosed, 0)
		cs.setSlots(s, i, mech.CSMode, 1)
		cs.setSlots(s, i, mech.CSStick, 0)
		return false
	}
	cs.setSlots(s, i, mech.CSClosed, 1)
	v := cs.setSlip(s, i)
	if st[mech.CSMode] == 0 || norm(v[:cs.setN[i]]) <= vtolStick || rev {
		cs.setSlots(s, i, mech.CSMode, 0)
		return true
	}
	return false
}

// setSlots sets slot k of every row of the set led by group i to v.
func (cs *contactSet) setSlots(s *State, i, k int, v float64) {
	for r := 0; r < cs.setN[i]; r++ {
		s.cs[(i+r)*mech.CSStride+k] = v
	}
}

// setSlip returns the slip velocities of the rows of the set led by
// group i.
func (cs *contactSet) setSlip(s *State, i int) (v [mech.MaxCoulombSet]float64) {
	w := s.cw.row
	for k := 0; k < cs.setN[i]; k++ {
		e := cs.byGroup[i+k]
		v[k], _ = e.Slip(&s.x, w[:len(e.Dofs())])
	}
	return v
}

// norm returns the Euclidean norm of v.
func norm(v []float64) float64 {
	ss := 0.0
	for _, x := range v {
		ss += x * x
	}
	return math.Sqrt(ss)
}

// rowSlip evaluates row e's W into w and returns its slip velocity and γ;
// a set's row's γ = (dW/dt)·v is taken by central differences along the
// motion (q ⊕ ±ε v).
func (cs *contactSet) rowSlip(m *Model, s *State, e mech.Coulomb, w []float64) (vt, gamma float64) {
	vt, gamma = e.Slip(&s.x, w)
	if cs.lead[e.CoulombIndex()] < 0 {
		return vt, gamma
	}
	vm := 0.0
	for _, d := range e.Dofs() {
		if d >= 0 {
			vm = math.Max(vm, math.Abs(s.v[d]))
		}
	}
	if vm == 0 {
		return vt, 0
	}
	cw := s.cw
	nd := len(e.Dofs())
	eps := 1e-6 / vm
	r1, r2 := cw.row[:nd], cw.row2[:nd]
	copy(cw.qs, s.q)
	m.addTo(s.q, s.v, eps)
	e.Slip(&s.x, r1)
	copy(s.q, cw.qs)
	m.addTo(s.q, s.v, -eps)
	e.Slip(&s.x, r2)
	copy(s.q, cw.qs)
	gamma = 0
	for a, d := range e.Dofs() {
		if d >= 0 {
			gamma += (r1[a] - r2[a]) / (2 * eps) * s.v[d]
		}
	}
	return vt, gamma
}

// rowTangent writes cv W + ∂vt/∂q of row e into g; a set's row's ∂vt/∂q
// by central differences.
func (cs *contactSet) rowTangent(m *Model, s *State, e mech.Coulomb, cv float64, g []float64) {
	e.SlipTangent(&s.x, cv, g)
	if cs.lead[e.CoulombIndex()] < 0 {
		return
	}
	cw := s.cw
	const eps = 1e-6
	copy(cw.qs, s.q)
	for b, d := range e.Dofs() {
		if d < 0 {
			continue
		}
		cw.unit[d] = 1
		m.addTo(s.q, cw.unit, eps)
		vp, _ := e.Slip(&s.x, cw.row[:len(g)])
		copy(s.q, cw.qs)
		m.addTo(s.q, cw.unit, -eps)
		vm, _ := e.Slip(&s.x, cw.row[:len(g)])
		copy(s.q, cw.qs)
		cw.unit[d] = 0
		g[b] += (vp - vm) / (2 * eps)
	}
}

// active lists the friction rows in stick (or stick candidates) in w.act.
func (cs *contactSet) active(s *State) int {
	w := s.cw
	act := w.act[:0]
	for r, e := range cs.rows {
		if st := cs.group(s, e); st[mech.CSClosed] != 0 && st[mech.CSMode] == 0 {
			act = append(act, r)
		}
	}
	w.act = act
	return len(act)
}

// response evaluates active row j's W, vt, γ (and its static level) and
// its response y = K⁻¹[Wᵀ; 0].
func (cs *contactSet) response(m *Model, s *State, j int) {
	w := s.cw
	e := cs.rows[w.act[j]]
	nK := m.nv + m.nc
	wj := w.wr[j*cs.maxd : j*cs.maxd+len(e.Dofs())]
	w.vt[j], w.gam[j] = cs.rowSlip(m, s, e, wj)
	w.cap[j] = e.Static(&s.x)
	y := w.y[j*nK : (j+1)*nK]
	clear(y)
	for a, d := range e.Dofs() {
		if d >= 0 {
			y[d] += wj[a]
		}
	}
	s.lin.Solve(y)
}

// rowDot returns Σ W_a u[dof a] of active row j's W.
func (cs *contactSet) rowDot(s *State, j int, u []float64) float64 {
	e := cs.rows[s.cw.act[j]]
	wj := s.cw.wr[j*cs.maxd:]
	v := 0.0
	for a, d := range e.Dofs() {
		if d >= 0 {
			v += wj[a] * u[d]
		}
	}
	return v
}

// accel adds the friction of the sticking rows to the solution of
// [M Φqᵀ; Φq 0][q̈; λ] = rhs held in s.dx (factored in s.lin): with the
// responses Y = K⁻¹[Wᵀ; 0] and the Delassus matrix A = W Y, the stick
// forces f solve A f = −(W q̈ + γ + κ vt) (or the LCP at a decision), and
// q̈, λ gain Y f. The static levels (a joint's from its reaction) are
// those of the reactions of this solve before its own friction.
func (cs *contactSet) accel(m *Model, s *State) error {
	w := s.cw
	decide := w.decide
	w.decide = false
	if !cs.coulomb {
		return nil
	}
	n := cs.active(s)
	if n == 0 {
		return nil
	}
	x := &s.x
	nK := m.nv + m.nc
	copy(s.lam, s.dx[m.nv:nK]) // the levels read the reactions of this solve
	for j := range w.act {
		cs.response(m, s, j)
	}
	for i := range w.act {
		b := w.gam[i] + cs.kappa*w.vt[i] + cs.rowDot(s, i, s.dx)
		for j, r := range w.act {
			v := cs.rowDot(s, i, w.y[j*nK:(j+1)*nK])
			w.amat[i*n+j] = v
			// the forces already applied (State's stick forces, through
			// the element) are part of q̈: take them out of b
			b -= v * cs.group(s, cs.rows[r])[mech.CSStick]
		}
		w.bvec[i] = b
	}
	if decide {
		if err := cs.decide(s, n); err != nil {
			return err
		}
		// Rows that start to slip do so with their slip force (the
		// LCP's ∓μ0 F_N holds only at the instant of the switch): the
		// sticking ones are solved again with those forces. (A set's
		// slip force is set by its decision.)
		for j, r := range w.act {
			if cs.lead[cs.rows[r].CoulombIndex()] >= 0 {
				continue
			}
			if md := cs.group(s, cs.rows[r])[mech.CSMode]; md != 0 {
				w.fvec[j] = cs.rows[r].SlipForce(x, w.vt[j], md)
			}
		}
	}
	cs.stickSolve(s, n)
	if decide && cs.outsideCones(s, n) {
		// a set decided to stick with the forces of the first sweep
		// whose stick force, with the others' final ones, leaves its
		// cone: it slips against that force; solved once more
		cs.stickSolve(s, n)
	}
	for j, r := range w.act {
		f := w.fvec[j]
		st := cs.group(s, cs.rows[r])
		df := f - st[mech.CSStick]
		st[mech.CSStick] = f
		if st[mech.CSMode] != 0 && cs.lead[cs.rows[r].CoulombIndex()] >= 0 {
			// a set that starts to slip: its slot holds the direction
			st[mech.CSStick] = w.dir[j]
		}
		y := w.y[j*nK : (j+1)*nK]
		for i := range y {
			s.dx[i] += df * y[i]
		}
	}
	return nil
}

// stickSolve solves A f = −b for the forces of the sticking rows among
// the active ones (the others, just switched to slip, keep their forces in
// w.fvec). A is symmetric positive semidefinite; a statically
// indeterminate set (two corners of a block sticking on one surface, a
// sled on three feet) leaves internal forces that move nothing: of its
// solutions the one that loads each row in proportion to its friction
// capacity μ0 F_N is taken (stickWeighted).
func (cs *contactSet) stickSolve(s *State, n int) {
	w := s.cw
	idx := w.piv[:0] // positions in act of the sticking rows
	for j, r := range w.act {
		if cs.group(s, cs.rows[r])[mech.CSMode] == 0 {
			idx = append(idx, j)
		}
	}
	ns := len(idx)
	if ns == 0 {
		return
	}
	a, r := w.lm[:ns*ns], w.lq[:ns]
	for ii, i := range idx {
		rhs := -w.bvec[i]
		for j, rj := range w.act {
			if cs.group(s, cs.rows[rj])[mech.CSMode] != 0 {
				rhs -= w.amat[i*n+j] * w.fvec[j]
			}
		}
		r[ii] = rhs
		for jj, j := range idx {
			a[ii*ns+jj] = w.amat[i*n+j]
		}
	}
	cs.stickWeighted(s, idx, a, r, nil)
	for ii, i := range idx {
		w.fvec[i] = r[ii]
	}
}

// stickWeighted solves a f = r (ns×ns, the sticking rows idx of the
// active ones) for the forces f, returned in r, of least capacity-weighted
// norm Σ f_i²/(μ0F_N,i) in the least-squares sense, which loads the rows
// of a translation in proportion to their capacities (all reach their
// cones together): with D the diagonal of the capacities' square roots,
// f = D (a D)⁺ (r + a f0), which for the Newton increments
// (f0 the forces held, r their residual) makes the total f0 + Δf, Δf the
// returned r − f0, the least-weighted solution, so the internal forces of
// an indeterminate set never drift, and no round-off inconsistency of the
// dependent rows is amplified into forces (a regularized factorization
// does that by 1/ε). f0 nil: zero.
func (cs *contactSet) stickWeighted(s *State, idx []int, a, r, f0 []float64) {
	w := s.cw
	ns := len(idx)
	fbar := 0.0
	for _, j := range idx {
		fbar += math.Max(w.cap[j], 0)
	}
	fbar /= float64(ns)
	d := w.wd[:ns]
	for ii, j := range idx {
		// dimensionless weights (capacities that are all zero: equal)
		d[ii] = 1
		if fbar > 0 {
			d[ii] = math.Sqrt(math.Max(w.cap[j], 0)/fbar + 1e-6)
		}
	}
	if f0 != nil {
		for ii := 0; ii < ns; ii++ {
			for jj := 0; jj < ns; jj++ {
				r[ii] += a[ii*ns+jj] * f0[jj]
			}
		}
	}
	for ii := 0; ii < ns; ii++ {
		for jj := 0; jj < ns; jj++ {
			a[ii*ns+jj] *= d[jj]
		}
	}
	w.mn.Solve(a, ns, r)
	for ii := range r[:ns] {
		r[ii] *= d[ii]
	}
}

// decide sets the modes and friction forces (w.fvec) of the active rows
// at a decision. Without isotropic sets: the LCP over all of them. With
// sets (isotropic friction in a plane or in space): first every
// candidate sticks; each set whose stick force leaves its cone
// |F| ≤ μ0 F_N slips, in the direction d in which its slip acceleration,
// with its friction −μ F_N d and the others' forces held, points (a fixed
// point, exact for an isotropic Delassus block: a sphere's, a ball
// joint's about its centre of mass); then the scalar rows are decided by
// the LCP with the sets' forces held.
func (cs *contactSet) decide(s *State, n int) error {
	w := s.cw
	idx := w.sidx[:0]
	for j, r := range w.act {
		if cs.lead[cs.rows[r].CoulombIndex()] < 0 {
			idx = append(idx, j)
		}
	}
	if len(idx) == n {
		return cs.decideLCP(s, n, idx)
	}
	cs.stickSolve(s, n) // all candidates stick
	for _, r := range w.act {
		e := cs.rows[r]
		i := e.CoulombIndex()
		var pos [mech.MaxCoulombSet]int
		ns := cs.membersAt(s, e, &pos)
		if ns < 0 {
			continue // a scalar row, or a set's other row
		}
		var f, d [mech.MaxCoulombSet]float64
		for k := 0; k < ns; k++ {
			f[k] = w.fvec[pos[k]]
		}
		fm, r0 := norm(f[:ns]), w.cap[pos[0]]
		if fm <= r0*(1+1e-9) && !(w.fired[i] && fm >= (1-1e-6)*r0) {
			continue // it sticks
		}
		// start against the stick force (for an isotropic block the
		// direction of the slip acceleration)
		d[0] = 1
		if fm > 0 {
			for k := 0; k < ns; k++ {
				d[k] = -f[k] / fm
			}
		}
		mu := e.(mech.CoulombSet).Kinetic(&s.x)
		cs.slipDirection(s, n, pos[:ns], mu, d[:ns], fm == 0)
		cs.slipSet(s, i, pos[:ns], mu, d[:ns])
	}
	if len(idx) == 0 {
		return nil
	}
	return cs.decideLCP(s, n, idx)
}

// inSet reports whether position m is among pos.
func inSet(pos []int, m int) bool {
	for _, p := range pos {
		if p == m {
			return true
		}
	}
	return false
}

// slipDirection sets d (the set at active positions pos, slipping with
// the friction −mu d) to the direction in which its slip acceleration,
// with the other rows' forces w.fvec held, points: the fixed point of
// d = a/|a|, a = c − mu A_set d, c the slip acceleration without the set's
// friction, started at d (fromC: at the direction of c). Where the slip
// acceleration is at the noise level of its terms (a break-away with
// μ = μ0) or turns against d, d stays.
func (cs *contactSet) slipDirection(s *State, n int, pos []int, mu float64, d []float64, fromC bool) {
	w := s.cw
	ns := len(pos)
	var c [mech.MaxCoulombSet]float64
	for k, jk := range pos {
		c[k] = w.bvec[jk]
		for m := range w.act {
			if !inSet(pos, m) {
				c[k] += w.amat[jk*n+m] * w.fvec[m]
			}
		}
	}
	cm := norm(c[:ns])
	if fromC && cm > 0 {
		for k := range d {
			d[k] = c[k] / cm
		}
	}
	scale := cm
	for k := 0; k < ns; k++ {
		for l := 0; l < ns; l++ {
			scale += mu * math.Abs(w.amat[pos[k]*n+pos[l]])
		}
	}
	for it := 0; it < 50; it++ {
		var a [mech.MaxCoulombSet]float64
		ad := 0.0
		for k := 0; k < ns; k++ {
			a[k] = c[k]
			for l := 0; l < ns; l++ {
				a[k] -= mu * w.amat[pos[k]*n+pos[l]] * d[l]
			}
			ad += a[k] * d[k]
		}
		na := norm(a[:ns])
		if na <= 1e-6*scale || ad <= 0 {
			return
		}
		step := 0.0
		for k := 0; k < ns; k++ {
			step += math.Abs(a[k]/na - d[k])
			d[k] = a[k] / na
		}
		if step < 1e-15 {
			return
		}
	}
}

// outsideCones switches to slip every sticking set among the active rows
// whose stick force (w.fvec) lies outside its cone, against that force,
// and reports whether there was one.
func (cs *contactSet) outsideCones(s *State, n int) bool {
	w := s.cw
	any := false
	for _, r := range w.act {
		e := cs.rows[r]
		var pos [mech.MaxCoulombSet]int
		ns := cs.membersAt(s, e, &pos)
		if ns < 0 || cs.group(s, e)[mech.CSMode] != 0 {
			continue
		}
		var d [mech.MaxCoulombSet]float64
		for k := 0; k < ns; k++ {
			d[k] = w.fvec[pos[k]]
		}
		fm := norm(d[:ns])
		if fm <= w.cap[pos[0]]*(1+1e-6) || fm == 0 {
			continue
		}
		for k := 0; k < ns; k++ {
			d[k] /= -fm
		}
		cs.slipSet(s, e.CoulombIndex(), pos[:ns], e.(mech.CoulombSet).Kinetic(&s.x), d[:ns])
		any = true
	}
	return any
}

// membersAt writes, for the row e leading an isotropic set, the
// positions of the set's rows among the active rows into pos (the lead
// first) and returns their count; −1 for a scalar row, a set's other
// row, or a set not wholly active.
func (cs *contactSet) membersAt(s *State, e mech.Coulomb, pos *[mech.MaxCoulombSet]int) int {
	i := e.CoulombIndex()
	if cs.lead[i] != i {
		return -1
	}
	ns := cs.setN[i]
	found := 0
	for k, rk := range s.cw.act {
		if g := cs.rows[rk].CoulombIndex(); g >= i && g < i+ns {
			pos[g-i] = k
			found++
		}
	}
	if found != ns {
		return -1
	}
	return ns
}

// slipSet sets the set led by group i (active positions pos) slipping in
// direction d with the friction −mu d.
func (cs *contactSet) slipSet(s *State, i int, pos []int, mu float64, d []float64) {
	w := s.cw
	for k, j := range pos {
		w.fvec[j], w.dir[j] = -mu*d[k], d[k]
	}
	cs.setSlots(s, i, mech.CSMode, 1)
}

// decideLCP solves the stick–slip LCP for the active rows at positions
// idx (the others' forces in w.fvec held) and sets their modes and
// friction forces (in w.fvec).
func (cs *contactSet) decideLCP(s *State, n int, idx []int) error {
	w := s.cw
	nn := len(idx)
	N := 2 * nn
	M := w.lm[:N*N]
	clear(M)
	in := func(j int) bool {
		for _, k := range idx {
			if k == j {
				return true
			}
		}
		return false
	}
	for ii, i := range idx {
		w.lq[nn+ii] = 2 * w.cap[i]
		for jj, j := range idx {
			M[ii*N+jj] = w.amat[i*n+j]
		}
		M[ii*N+nn+ii] = 1
		M[(nn+ii)*N+ii] = -1
	}
	for ii, i := range idx {
		q := w.bvec[i]
		for j := 0; j < n; j++ {
			if in(j) {
				q -= w.amat[i*n+j] * w.cap[j]
			} else {
				q += w.amat[i*n+j] * w.fvec[j]
			}
		}
		w.lq[ii] = q
	}
	w.lcps++
	if _, err := w.lcp.Solve(M, w.lq[:N], N, w.lz[:N], w.lw[:N]); err != nil {
		return errorf("%s: stick–slip LCP (%d sticking) at t=%s s: %v",
			cs.rows[w.act[idx[0]]].CoulombName(), nn, ftoa(s.T), err)
	}
	for ii, i := range idx {
		e := cs.rows[w.act[i]]
		r := w.cap[i]
		f := w.lz[ii] - r
		ap, am := w.lw[ii], w.lz[nn+ii]
		scale := math.Abs(w.bvec[i]) + 1e-300
		for j := 0; j < n; j++ {
			scale += math.Abs(w.amat[i*n+j]) * (w.cap[j] + 1e-300)
		}
		tol := 1e-10 * scale
		mode := 0.0
		switch {
		case ap > tol:
			mode, f = 1, -r
		case am > tol:
			mode, f = -1, r
		case w.fired[e.CoulombIndex()] && math.Abs(f) >= (1-1e-6)*r:
			// at a stick → slip event the LCP is degenerate (the force
			// sits on the cone's edge, at = 0): the reserve was running
			// out, so slip starts, against the friction force
			mode, f = -expr.Sign(f), math.Copysign(r, f)
		}
		f = math.Max(-r, math.Min(r, f))
		cs.group(s, e)[mech.CSMode] = mode
		w.fvec[i] = f
	}
	return nil
}

// newton adds the stick constraints vt(q, v) = 0 of the sticking rows to
// an implicit Newton iteration by block elimination, using the factored
// iteration matrix K: with Y = K⁻¹[Wᵀ; 0], G = ∂vt/∂q along the scheme
// (cv W + ∂(W v)/∂q) and dx0 the solution without them, the multiplier
// increments solve s1 (G Y) Δf = −vt − G dx0 and dx gains s1 Y Δf. turn:
// the factors are an earlier step's, turned with the rotations
// (Model.coRotate), as for the Newton increment.
func (cs *contactSet) newton(m *Model, s *State, s1, cv float64, turn bool) {
	if !cs.coulomb {
		return
	}
	w := s.cw
	n := cs.active(s)
	if n == 0 {
		return
	}
	x := &s.x
	nK := m.nv + m.nc
	for j, r := range w.act {
		e := cs.rows[r]
		nd := len(e.Dofs())
		cs.rowTangent(m, s, e, cv, w.gq[j*cs.maxd:j*cs.maxd+nd])
		wj := w.wr[j*cs.maxd : j*cs.maxd+nd]
		w.vt[j], _ = e.Slip(x, wj)
		y := w.y[j*nK : (j+1)*nK]
		clear(y)
		for a, d := range e.Dofs() {
			if d >= 0 {
				y[d] += wj[a]
			}
		}
		// the factors may be an earlier step's: solve as the Newton
		// increment is solved (integrate.go)
		if turn {
			m.coRotate(s, y, false)
		}
		s.lin.Solve(y)
		if turn {
			m.coRotate(s, y, true)
		}
	}
	for i, ri := range w.act {
		e := cs.rows[ri]
		g := w.gq[i*cs.maxd:]
		r := -w.vt[i]
		for a, d := range e.Dofs() {
			if d >= 0 {
				r -= g[a] * s.dx[d]
			}
		}
		w.fvec[i] = r
		for j := range w.act {
			y := w.y[j*nK : (j+1)*nK]
			v := 0.0
			for a, d := range e.Dofs() {
				if d >= 0 {
					v += g[a] * y[d]
				}
			}
			w.amat[i*n+j] = s1 * v
		}
	}
	// a statically indeterminate set of sticking rows (more rows than the
	// motions they hold: a sled on three feet) makes G Y singular: the
	// total forces are taken of least capacity-weighted norm, so that the
	// internal ones stay distributed by capacity and do not drift
	idx := w.sidx[:n]
	f0 := w.f0[:n]
	for j, r := range w.act {
		idx[j] = j
		f0[j] = cs.group(s, cs.rows[r])[mech.CSStick]
		w.cap[j] = cs.rows[r].Static(x)
	}
	cs.stickWeighted(s, idx, w.amat[:n*n], w.fvec[:n], f0)
	for j := range w.act {
		w.fvec[j] -= f0[j]
	}
	for j, r := range w.act {
		df := w.fvec[j]
		cs.group(s, cs.rows[r])[mech.CSStick] += df
		y := w.y[j*nK : (j+1)*nK]
		for i := range y {
			s.dx[i] += s1 * df * y[i]
		}
	}
}

// eventFuncs evaluates the event function of every group's normal state
// (g[2i], contacts) and friction mode (g[2i+1]); each is positive while
// the mode is valid (1 where there is none).
func (cs *contactSet) eventFuncs(s *State, g []float64) {
	x := &s.x
	for i := range g {
		g[i] = 1
	}
	for _, e := range cs.elems {
		st := s.cs[e.Idx*contacts.Stride : (e.Idx+1)*contacts.Stride]
		var k contacts.Kin
		e.Kin(x, &k)
		// the law's force in length units: ~δ^n, below |δ| near 0
		raw, _, _ := e.LawForce(x, k.Delta, k.Rate)
		raw /= math.Max(e.K.Get(x), 1e-300)
		i := 2 * e.Idx
		if st[contacts.SlotClosed] == 0 {
			g[i] = math.Max(-k.Delta, -raw)
		} else {
			g[i] = math.Min(k.Delta, raw)
		}
	}
	w := s.cw.row
	for _, e := range cs.rows {
		st := cs.group(s, e)
		i := e.CoulombIndex()
		if l := cs.lead[i]; l >= 0 {
			if l == i {
				cs.setEvents(s, e, g)
			}
			continue
		}
		if st[mech.CSClosed] == 0 {
			continue
		}
		if st[mech.CSMode] == 0 {
			// the friction reserve, relative: in [−1, 1]
			r, f := e.Static(x), math.Abs(st[mech.CSStick])
			g[2*i+1] = (r - f) / (r + f + 1e-300)
		} else {
			// slip reversal, offset by the stick threshold: an element
			// that starts to slide from rest (|vt| at the noise level, of
			// either sign) has its reversal located, not found at the
			// step's end
			vt, _ := e.Slip(x, w[:len(e.Dofs())])
			g[2*i+1] = st[mech.CSMode]*vt + vtolStick
		}
	}
}

// setEvents evaluates the events of the isotropic set led by e: its
// normal state; in stick its reserve μ0 F_N − |F| (relative); in slip the
// slip velocity along the slip direction held over the step, offset by
// the stick threshold (a slip that stops, or turns back, crosses it).
func (cs *contactSet) setEvents(s *State, e mech.Coulomb, g []float64) {
	i := e.CoulombIndex()
	ns := cs.setN[i]
	st := cs.group(s, e)
	g[2*i], _ = e.(mech.CoulombSet).Touch(&s.x, st[mech.CSClosed] == 1)
	if st[mech.CSClosed] == 0 {
		return
	}
	var f [mech.MaxCoulombSet]float64
	for k := 0; k < ns; k++ {
		f[k] = s.cs[(i+k)*mech.CSStride+mech.CSStick]
	}
	if st[mech.CSMode] == 0 {
		r, fm := e.Static(&s.x), norm(f[:ns])
		g[2*i+1] = (r - fm) / (r + fm + 1e-300)
		return
	}
	v := cs.setSlip(s, i)
	g[2*i+1] = vtolStick
	for k := 0; k < ns; k++ {
		g[2*i+1] += f[k] * v[k]
	}
}

// slipDirections moves the slip direction d of every slipping set, at
// the start of a step, to the direction of the friction it applies there,
// u = v + v₀ d (v the slip velocity, v₀ the set's blend speed, the speed
// friction changes in a step): well above v₀ that is the slip velocity's
// direction; below it d turns towards v by the fraction |v|/v₀ a step, so
// a slow slip (a body turning about a foot that creeps, a slip that
// starts) is followed in a few steps while a slip velocity at the noise
// level, mostly the friction's own sideways relaxation, is not fed back.
// (Holding d fixed below v₀ left the friction of a foot slipping at
// 0.5 v₀ for tens of steps 40° away from its slip velocity, and the sled
// that turned on it chattering.) The event function measures the slip
// velocity along d, and the friction takes d below v₀. It is kept in the
// set's stick slots, which slip leaves free.
func (cs *contactSet) slipDirections(s *State) {
	for _, e := range cs.rows {
		i := e.CoulombIndex()
		if cs.lead[i] != i || cs.group(s, e)[mech.CSMode] == 0 {
			continue
		}
		ns := cs.setN[i]
		v := cs.setSlip(s, i)
		v0 := e.(mech.CoulombSet).SlipBlend(&s.x)
		for k := 0; k < ns; k++ {
			v[k] += v0 * s.cs[(i+k)*mech.CSStride+mech.CSStick]
		}
		if um := norm(v[:ns]); um > 0 {
			for k := 0; k < ns; k++ {
				s.cs[(i+k)*mech.CSStride+mech.CSStick] = v[k] / um
			}
		}
	}
}

// crossed reports whether some event function goes from positive (a) to
// non-positive (b).
func crossed(a, b []float64) bool {
	for i := range a {
		if a[i] > 0 && b[i] <= 0 {
			return true
		}
	}
	return false
}

// baseStep is one step of the model's integrator.
func (m *Model) baseStep(s *State, h float64) error {
	if m.integ.family == famRK {
		return m.rk4Step(s, h)
	}
	return m.implicitStep(s, h)
}

// contactStep advances s by h like baseStep, locating the contact events
// within the step and deciding the new modes at each of them.
func (m *Model) contactStep(s *State, h float64) error {
	cs, w := m.contacts, s.cw
	tEnd := s.T + h
	hMin := 0.0
	if m.integ.family != famRK {
		hMin = 1e-3 * h
	}
	for ev := 0; ; ev++ {
		hh := tEnd - s.T
		if hh <= 1e-15*math.Max(1, math.Abs(tEnd)) {
			s.T = tEnd
			return nil
		}
		if ev > maxContactEvents {
			return errorf("more than %d contact events within one step at t=%s s (stick–slip chattering?): reduce the step", maxContactEvents, ftoa(s.T))
		}
		if len(w.start) != len(s.core) {
			w.start = make([]float64, len(s.core)) // once
		}
		cs.slipDirections(s)
		copy(w.start, s.core)
		t0, hp0, nh0 := s.T, s.hp, s.nhist
		restore := func() {
			copy(s.core, w.start)
			s.T, s.hp, s.nhist = t0, hp0, nh0
			s.setTime(t0)
		}
		cs.eventFuncs(s, w.g0)
		// failHi: the step to hi did not converge (an implicit scheme's
		// Newton iteration across a jump the events have not yet cut:
		// a contact touching with its damping on at once); the sub-steps
		// search, by bisection, for an event before it
		stepErr := m.baseStep(s, hh)
		failHi := stepErr != nil
		if !failHi {
			cs.eventFuncs(s, w.g1)
		}
		if !failHi && !crossed(w.g0, w.g1) {
			for _, g := range w.g1 {
				if g < 0 {
					// a mode that was not valid at the start of the step
					// and could not be located: decide at the end
					cs.markFired(s, w.g1)
					return m.contactDecide(s)
				}
			}
			cs.trackOpen(s)
			return nil
		}
		// Illinois regula falsi on the step fraction θ. The implicit
		// schemes take no sub-step shorter than hMin (their index-3
		// iteration matrices are ill-conditioned as h → 0): an event
		// within hMin of either end of the step is taken at that end.
		copy(w.glo, w.g0)
		copy(w.ghi, w.g1)
		lo, hi := 0.0, 1.0
		thMin, thMax := hMin/hh, 1-hMin/hh
		atHi := true
		side := 0
		for it := 0; it < 100 && hi-lo > 1e-9; it++ {
			// Illinois: an end kept twice in a row has its values halved
			switch {
			case side <= -2:
				for i := range w.ghi {
					w.ghi[i] *= 0.5
				}
			case side >= 2:
				for i := range w.glo {
					w.glo[i] *= 0.5
				}
			}
			th := hi
			for i := range w.glo {
				if w.glo[i] > 0 && w.ghi[i] <= 0 {
					gl, gh := w.glo[i], w.ghi[i]
					th = math.Min(th, lo+(hi-lo)*gl/(gl-gh))
				}
			}
			if failHi {
				th = (lo + hi) / 2
			}
			d := hi - lo
			th = math.Max(math.Min(math.Max(th, lo+1e-3*d), hi-1e-3*d), thMin)
			if th >= hi || th > thMax {
				break
			}
			restore()
			if err := m.baseStep(s, th*hh); err != nil {
				hi, failHi, stepErr, atHi, side = th, true, err, false, 0
				continue
			}
			cs.eventFuncs(s, w.g1)
			if crossed(w.glo, w.g1) {
				hi = th
				copy(w.ghi, w.g1)
				atHi, failHi = true, false
				if side > 0 {
					side++
				} else {
					side = 1
				}
			} else {
				lo = th
				copy(w.glo, w.g1)
				atHi = false
				if side < 0 {
					side--
				} else {
					side = -1
				}
			}
		}
		if failHi {
			// no event before the point the scheme cannot pass
			restore()
			return stepErr
		}
		if hMin > 0 && hi <= thMin && ev == 0 && cs.frictionCrossed(w.glo, w.ghi) {
			// a friction event lies within hMin of the step's start (a
			// slip that ended exactly at the last step's end, a reserve
			// that ran out there): decide the modes there; a sub-step
			// of hMin with the old modes would carry them past the
			// event. (Not after an event within the step: a sub-step
			// there keeps chattering modes moving.)
			restore()
			cs.markFired(s, w.ghi) // a reserve that runs out within hMin runs out here
			if err := m.contactDecide(s); err != nil {
				return err
			}
			if !sameModes(s.cs, w.start[s.csAt:s.csAt+len(s.cs)]) {
				w.events++
				continue
			}
			// no mode changed: take the sub-step to the event with the
			// modes of the step's start
			restore()
			atHi = false
		}
		if hi > thMax {
			hi, atHi = 1, hi == 1 && atHi
		}
		if !atHi {
			restore()
			if err := m.baseStep(s, hi*hh); err != nil {
				return err
			}
		}
		s.T = t0 + hi*hh
		s.setTime(s.T)
		w.events++
		cs.eventFuncs(s, w.g1)
		cs.markFired(s, w.g1)
		if err := m.contactDecide(s); err != nil {
			return err
		}
	}
}

// sameModes reports whether two discrete states have the same normal
// states and friction modes (their stick forces and α may differ).
func sameModes(a, b []float64) bool {
	for k := 0; k+mech.CSStride <= len(a); k += mech.CSStride {
		if a[k+mech.CSClosed] != b[k+mech.CSClosed] || a[k+mech.CSMode] != b[k+mech.CSMode] {
			return false
		}
	}
	return true
}

// frictionCrossed reports whether a friction event function (odd index)
// goes from positive (a) to non-positive (b) and no normal one does.
func (cs *contactSet) frictionCrossed(a, b []float64) bool {
	fric := false
	for i := range a {
		if a[i] > 0 && b[i] <= 0 {
			if i%2 == 0 {
				return false
			}
			fric = true
		}
	}
	return fric
}

// markFired flags the sticking rows whose friction reserve is used up at
// b (within 1e-9: a symmetric twin of the row whose event was located is
// switched with it), and the slipping sets whose slip velocity turned.
func (cs *contactSet) markFired(s *State, b []float64) {
	for _, e := range cs.rows {
		i := e.CoulombIndex()
		md := cs.group(s, e)[mech.CSMode]
		s.cw.fired[i] = md == 0 && b[2*i+1] <= 1e-9
		s.cw.rev[i] = md != 0 && cs.lead[i] == i && b[2*i+1] <= 1e-9
	}
}

// contactDecide settles the contact modes at the current state (after an
// event): normal states, stick/slip by the LCP, and consistent
// accelerations. The implicit schemes restart there (accelerations from the
// new modes, no step history), as at Init: the accelerations jump at the
// event.
func (m *Model) contactDecide(s *State) error {
	if !m.contacts.settle(m, s) && m.integ.family == famRK {
		return nil
	}
	err := m.accelerations(s, s.a, m.integ.family == famRK)
	clear(s.cw.fired)
	if err != nil {
		return err
	}
	if m.integ.family != famRK {
		copy(s.aa, s.a)
		s.restartHistory()
	}
	s.needFactor = true
	return nil
}

// trackOpen keeps the slip direction of open contacts equal to the sign
// of their slip velocity, so that a contact closes in the right mode.
func (cs *contactSet) trackOpen(s *State) {
	if !cs.coulomb {
		return
	}
	w := s.cw.row
	for _, e := range cs.rows {
		st := cs.group(s, e)
		if st[mech.CSClosed] != 0 || cs.lead[e.CoulombIndex()] >= 0 {
			continue
		}
		if vt, _ := e.Slip(&s.x, w[:len(e.Dofs())]); vt != 0 {
			st[mech.CSMode] = expr.Sign(vt)
		}
	}
}
