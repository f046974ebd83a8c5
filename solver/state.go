package solver

import (
	"encoding/binary"
	"errors"
	"math"

	"mbfmu/linalg"
	"mbfmu/solver/mech"
)

// State is the mutable simulation state of one instance of a Model:
// time, coordinates, velocities, accelerations, multipliers, integrator
// memory, inputs and tunable parameters, plus preallocated work space.
// Copying it (CopyFrom, MarshalBinary) is a complete snapshot.
type State struct {
	m *Model
	// T is the current time (s).
	T float64

	// core holds, contiguously: q (nq), v a aa (nv), qp (nq), vp (nv),
	// λ (nc), the contact state, the whole-turn angles, the parameters and
	// inputs at the end of the last step, the input ramps and the
	// predictor memory
	core                     []float64
	q, v, a, aa, qp, vp, lam []float64
	cs                       []float64 // contact discrete state (contacts.go)
	csAt                     int       // where cs starts in core
	turns                    []float64 // the whole-turn angles at the last accepted step (Model.turnCoords)
	es                       []float64 // the element states at the last accepted step (Model.stateful)
	ulast                    []float64 // parameters and inputs at the end of the last step (restart.go)
	ramp                     []float64 // input ramps: values at tref, first and second derivatives, tref (ramp.go)
	ph                       []float64 // predictor memory (predict.go)
	vars                     []float64 // time, parameters, inputs
	red                      []bool    // redundant constraint rows (found at Init)
	nred                     int
	h, hp                    float64 // adaptive step; previous step (BDF)
	nhist                    int     // BDF history available
	g0                       float64 // origin of the time grid of fixed steps (grid.go)
	initialized              bool
	stats                    Stats
	// The factorisation of the iteration matrix is reused across steps
	// and across AdvanceTo calls. What the state keeps is the decision
	// (needFactor, reuseHold) and the anchor: the state at which the
	// factors in use were computed, from which they are rebuilt exactly
	// when the linear solver held something else (after a restored state,
	// an acceleration solve, a linearisation). So a restored or copied
	// state continues bit for bit as the original.
	needFactor bool
	reuseHold  int     // steps that start with a fresh factorisation (implicitStep)
	reuseLen   int     // the length of the last such hold (0: old factors last served)
	hFact      float64 // the step size the factors were computed for
	anchor     []float64
	hasAnchor  bool

	// work space (not part of the snapshot)
	x                mech.Ctx
	phi, phit, gamma []float64 // constraint rows: Φ, ∂Φ/∂t, the acceleration term γ
	jac              []float64 // constraint Jacobians, per element (conElem.jo)
	hs               []float64 // one element's constraint Hessian (nd²)
	vg               []float64 // one element's ∂(Φq v)/∂q (index-2: addVelRowTangent)
	ls               []float64 // the scaled multipliers of the Newton residual (nc)
	res, dx          []float64
	fq, tmp          []float64
	fl, kl, cl       []float64
	fl2, fl3         []float64   // force scratch for finite-difference tangents
	dma              []float64   // (M(q) − M̄)·a of the configuration-dependent inertias at the last assemble
	q0s, dq          []float64   // positions at the start of an implicit step; the step's increment (rotation blocks)
	qf               []float64   // the rotations at which lin's iteration matrix was assembled (coRotate)
	rc               []mech.Mat3 // their turns since then (setCoRot)
	rcOn             []bool      // whether coRotate applies them
	tops             []mech.Mat3 // tangent operators T(Δθ) of the rotation blocks (coords.go)
	useT             bool        // the iteration matrix's unknown is the step's increment: apply T
	lin              *linalg.Solver
	ramped           bool      // some input has a nonzero derivative (ramp.go)
	linValid         bool      // lin holds the factors of the anchor
	swap             []float64 // the state while the factors are rebuilt from the anchor
	yd               []float64 // outputs at the points of OutputDerivatives
	save, save2      []float64 // core snapshots for retries and step doubling
	start            []float64
	rk               []float64 // RK4 stages
	pc               predCache
	pred             []float64   // the predictor's extrapolation of q̈ and λ
	aPrev            []float64   // q̈ at the start of the step (predict)
	rm               []mech.Mat3 // the rotations' matrices at the start of the step (predict)
	cw               *contactWork
	aw               *adWork   // adaptive modal selection (modalselect.go); nil: none
	dw               *dirWork  // state derivatives and directional derivatives (dirderiv.go), made on first use
	sw               *singWork // solves near singular positions (singular.go)
}

// NewState allocates a state with inputs at their start values and
// parameters at their compiled values. Call Model.Init before stepping.
func (m *Model) NewState() *State {
	nq, nv, nc := m.nq, m.nv, m.nc
	s := &State{m: m}
	ncs := m.contacts.csLen()
	nu := m.vars - 1
	ni := len(m.inputs)
	nt := len(m.turnCoords)
	s.core = make([]float64, 2*nq+4*nv+nc+ncs+nt+m.nes+nu+3*ni+1+predLen(nv, nc, len(m.rots)))
	c := s.core
	take := func(n int) []float64 { x := c[:n:n]; c = c[n:]; return x }
	s.q, s.v, s.a, s.aa = take(nq), take(nv), take(nv), take(nv)
	s.qp, s.vp, s.lam = take(nq), take(nv), take(nc)
	s.csAt = len(s.core) - len(c)
	s.cs = take(ncs)
	s.turns = take(nt)
	s.es = take(m.nes)
	s.ulast = take(nu)
	s.ramp = take(3*ni + 1)
	s.ph = c
	s.vars = make([]float64, m.vars)
	s.red = make([]bool, nc)
	for i, p := range m.params {
		s.vars[1+i] = p.Value
	}
	for i, in := range m.inputs {
		s.vars[1+len(m.params)+i] = in.Start
	}
	n := nv + nc
	s.res, s.dx = make([]float64, n), make([]float64, n)
	s.fq, s.tmp, s.dma = make([]float64, nv), make([]float64, nv), make([]float64, nv)
	mx := 0
	for _, f := range m.forces {
		mx = max(mx, len(f.Dofs()))
	}
	s.fl, s.kl, s.cl = make([]float64, mx), make([]float64, mx*mx), make([]float64, mx*mx)
	s.fl2, s.fl3 = make([]float64, mx), make([]float64, mx)
	s.phi, s.phit, s.gamma = make([]float64, nc), make([]float64, nc), make([]float64, nc)
	s.ls = make([]float64, nc)
	nj, nh := 0, 0
	for _, ce := range m.cons {
		nj += ce.nr * len(ce.d)
		nh = max(nh, len(ce.d)*len(ce.d))
	}
	nh = max(nh, nj) // also a transformed copy of one element's Jacobian
	s.jac, s.hs = make([]float64, nj), make([]float64, nh)
	if m.index2 {
		ng := 0
		for _, ce := range m.cons {
			ng = max(ng, ce.nr*len(ce.d))
		}
		s.vg = make([]float64, ng)
	}
	s.q0s, s.dq = make([]float64, nq), make([]float64, nv)
	s.qf = make([]float64, 4*len(m.rots))
	s.rc = make([]mech.Mat3, len(m.rots))
	s.rcOn = make([]bool, len(m.rots))
	s.tops = make([]mech.Mat3, len(m.rots))
	s.lin = m.plan.NewSolver()
	s.anchor = make([]float64, anchorLen(m, len(s.core)))
	s.swap = make([]float64, len(s.anchor))
	s.yd = make([]float64, 4*len(m.outChan))
	s.save, s.save2 = make([]float64, len(s.core)), make([]float64, len(s.core))
	s.start = make([]float64, len(s.core))
	if m.integ.family == famRK {
		s.rk = make([]float64, nq+6*nv)
	}
	nw := 0
	for _, r := range m.jrows {
		n := 0
		for k := m.rowCon[r.r0]; r.nr > 0 && k <= m.rowCon[r.r0+r.nr-1]; k++ {
			n += m.cons[k].nr * (3 + len(m.cons[k].d))
		}
		nw = max(nw, n)
	}
	s.x = mech.Ctx{Q: s.q, V: s.v, A: s.a, Lam: s.lam, Vars: s.vars, CS: s.cs, Meas: m.meas, Work: make([]float64, nw), Turns: s.turns, ES: s.es, UW: make([]float64, m.uworkFor(len(s.lam)))}
	// work space for the drive-train elements on joint coordinates with
	// many dofs (at a node of an FE body; couplers, which would take a
	// union of two, are refused there)
	ncw := 0
	for i := range m.joints {
		if r := m.joints[i].CoordRow; r != nil {
			ncw = max(ncw, len(r.Dofs()))
		}
	}
	if ncw > 0 {
		s.x.CW = mech.NewCoordWork(ncw)
	}
	copy(s.ulast, s.vars[1:])
	s.cw = m.newContactWork()
	s.aw = m.newAdWork()
	if nc > 0 {
		s.sw = m.newSingWork(s)
	}
	s.h = m.settings.Step
	s.pred = make([]float64, n)
	s.aPrev = make([]float64, m.nv)
	s.rm = make([]mech.Mat3, len(m.rots))
	return s
}

// Model returns the model the state belongs to.
func (s *State) Model() *Model { return s.m }

// SetInput sets input i (SI units).
func (s *State) SetInput(i int, v float64) { s.vars[1+len(s.m.params)+i] = v }

// Input returns input i.
func (s *State) Input(i int) float64 { return s.vars[1+len(s.m.params)+i] }

// SetParam changes tunable parameter i; a fixed parameter needs a recompile.
func (s *State) SetParam(i int, v float64) error {
	if i < 0 || i >= len(s.m.params) {
		return errors.New("parameter index out of range")
	}
	if !s.m.params[i].Tunable {
		return errorf("parameter %q is fixed (it sets a mass, geometry or initial state): recompile to change it", s.m.params[i].Name)
	}
	if !finite(v) {
		return errorf("parameter %q: value is not finite", s.m.params[i].Name)
	}
	s.vars[1+i] = v
	return nil
}

// Param returns parameter i.
func (s *State) Param(i int) float64 { return s.vars[1+i] }

// Redundant names the joints and drivers whose constraint equations were
// found redundant at Init and removed, with the number of equations each.
func (s *State) Redundant() []string {
	if s.nred == 0 {
		return nil
	}
	count := map[int]int{}
	var order []int
	for r, x := range s.red {
		if x {
			o := s.m.cons[s.m.rowCon[r]].owner
			if count[o] == 0 {
				order = append(order, o)
			}
			count[o]++
		}
	}
	out := make([]string, len(order))
	for i, o := range order {
		out[i] = s.m.joints[o].Name + " (" + itoa(count[o]) + ")"
	}
	return out
}

// ContactModes appends each contact's discrete mode to dst: closed (1)
// or open (0), and for Coulomb friction sticking or sliding — what a
// contact event changes. It allocates nothing when dst has room.
func (s *State) ContactModes(dst []float64) []float64 {
	for k := 0; k+mech.CSStride <= len(s.cs); k += mech.CSStride {
		dst = append(dst, s.cs[k+mech.CSClosed], s.cs[k+mech.CSMode])
	}
	return dst
}

// Stats returns solver statistics.
func (s *State) Stats() Stats { return s.stats }

// Q returns the position coordinates (read-only view).
func (s *State) Q() []float64 { return s.q }

// V returns the velocity coordinates (read-only view).
func (s *State) V() []float64 { return s.v }

// Lambda returns the Lagrange multipliers (read-only view).
func (s *State) Lambda() []float64 { return s.lam }

// CopyFrom makes s an exact copy of o (same model).
func (s *State) CopyFrom(o *State) {
	s.T = o.T
	copy(s.core, o.core)
	copy(s.vars, o.vars)
	copy(s.red, o.red)
	s.nred = o.nred
	s.h, s.hp, s.nhist, s.g0, s.initialized, s.stats = o.h, o.hp, o.nhist, o.g0, o.initialized, o.stats
	s.needFactor, s.reuseHold, s.reuseLen, s.hFact = o.needFactor, o.reuseHold, o.reuseLen, o.hFact
	copy(s.anchor, o.anchor)
	s.hasAnchor = o.hasAnchor
	s.linValid = false // rebuilt from the anchor when reused
	s.setRamped()
}

const stateMagic = 0x6d62666d75537432 // "mbfmuSt2"

// MarshalBinary serialises the complete state.
func (s *State) MarshalBinary() ([]byte, error) {
	n := s.blobLen()
	b := make([]byte, 0, n)
	u := func(x uint64) { b = binary.LittleEndian.AppendUint64(b, x) }
	f := func(x float64) { u(math.Float64bits(x)) }
	u(stateMagic)
	u(uint64(len(s.core)))
	u(uint64(len(s.vars)))
	f(s.T)
	f(s.h)
	f(s.hp)
	u(uint64(s.nhist))
	init := uint64(0)
	if s.initialized {
		init = 1
	}
	u(init)
	for _, x := range s.core {
		f(x)
	}
	for _, x := range s.vars {
		f(x)
	}
	for _, x := range s.red {
		if x {
			u(1)
		} else {
			u(0)
		}
	}
	u(uint64(s.stats.Steps))
	u(uint64(s.stats.Rejected))
	u(uint64(s.stats.NewtonIters))
	u(uint64(s.stats.Factorizations))
	u(uint64(s.stats.Short))
	f(s.g0)
	f(s.hFact)
	u(uint64(uint32(s.reuseHold)) | uint64(s.reuseLen)<<32)
	flags := uint64(0)
	if s.needFactor {
		flags |= 1
	}
	if s.hasAnchor {
		flags |= 2
	}
	u(flags)
	for _, x := range s.anchor {
		f(x)
	}
	return b, nil
}

// statsWords is the number of Stats counters in a state blob.
const statsWords = 5

// blobLen is the length of MarshalBinary's output.
func (s *State) blobLen() int {
	return 8 * (8 + len(s.core) + len(s.vars) + len(s.red) + statsWords + 4 + len(s.anchor))
}

// UnmarshalBinary restores a state serialised by MarshalBinary from a state
// of the same model. Every number is range-checked (finite values, counts
// and flags within what a run produces, a time grid the run can step on),
// so a damaged state is refused instead of making the next step run for
// ever; s is changed only when the whole blob is accepted.
func (s *State) UnmarshalBinary(b []byte) error {
	if err := s.checkBlob(b); err != nil {
		return err
	}
	return s.unmarshal(b)
}

// blobReader reads the 8-byte words of a state blob in order.
type blobReader struct {
	b []byte
	p int
}

func (r *blobReader) u() uint64 {
	x := binary.LittleEndian.Uint64(r.b[r.p:])
	r.p += 8
	return x
}

func (r *blobReader) f() float64 { return math.Float64frombits(r.u()) }

// openBlob checks a blob's length, magic number and sizes against s and
// returns a reader past them.
func (s *State) openBlob(b []byte) (*blobReader, error) {
	if want := s.blobLen(); len(b) != want {
		return nil, errorf("state blob has %d bytes, this model's state needs %d", len(b), want)
	}
	r := &blobReader{b: b}
	if r.u() != stateMagic {
		return nil, errors.New("not an mbfmu state blob")
	}
	if int(r.u()) != len(s.core) || int(r.u()) != len(s.vars) {
		return nil, errors.New("state blob belongs to a different model")
	}
	return r, nil
}

// checkBlob range-checks a serialised state without restoring it.
func (s *State) checkBlob(b []byte) error {
	r, err := s.openBlob(b)
	if err != nil {
		return err
	}
	u, f := r.u, r.f
	bad := func(what string) error { return errorf("damaged state blob: %s", what) }
	T, h, hp := f(), f(), f()
	if !finite(T) || !finite(h) || !finite(hp) || h < 0 || hp < 0 {
		return bad("time or step not finite or negative")
	}
	if nh := u(); nh > 1 {
		return bad("integrator history count out of range")
	}
	if in := u(); in > 1 {
		return bad("initialisation flag out of range")
	}
	core := make([]float64, len(s.core))
	for i := range core {
		if core[i] = f(); !finite(core[i]) {
			return bad("a coordinate, velocity, multiplier or integrator memory is not finite")
		}
	}
	if err := s.checkMemory(core); err != nil {
		return bad(err.Error())
	}
	for range s.vars {
		if !finite(f()) {
			return bad("a parameter or input is not finite")
		}
	}
	for range s.red {
		if u() > 1 {
			return bad("redundancy flag out of range")
		}
	}
	for k := 0; k < statsWords; k++ {
		if int64(u()) < 0 {
			return bad("negative work counter")
		}
	}
	g0, hFact := f(), f()
	if !finite(g0) || !finite(hFact) || hFact < 0 {
		return bad("time grid origin or factor step not finite")
	}
	if st := s.m.settings; !st.Adaptive && math.Abs(T-g0)/st.Step > 2*MaxGridSteps {
		return bad("time " + ftoa(T) + " s is beyond the time grid from " + ftoa(g0) + " s")
	}
	hold := u()
	if int(uint32(hold)) > reuseHoldMax || int(hold>>32) > reuseHoldMax {
		return bad("factor reuse counters out of range")
	}
	if flags := u(); flags > 3 {
		return bad("flags out of range")
	}
	for range s.anchor {
		if !finite(f()) {
			return bad("the factors' anchor is not finite")
		}
	}
	return nil
}

// checkMemory range-checks the counts and flags a state's core holds
// among its numbers: the predictor's (its count of remembered steps, the
// hold flag, the frames of the rotations, the steps' sizes) and the
// contacts' discrete state.
func (s *State) checkMemory(core []float64) error {
	ph := core[len(core)-len(s.ph):]
	n := len(ph)
	if c := ph[n-2]; c < 0 || c > predBack || c != math.Trunc(c) {
		return errors.New("predictor memory count out of range")
	}
	if hold := ph[n-1]; hold != 0 && hold != 1 {
		return errors.New("predictor hold flag out of range")
	}
	for _, h := range ph[n-predBack-2 : n-2] {
		if h < 0 {
			return errors.New("negative step in the predictor memory")
		}
	}
	nw := len(s.m.rots)
	for _, w := range ph[n-predBack-2-nw : n-predBack-2] {
		if w != 0 && w != 1 {
			return errors.New("predictor frame flag out of range")
		}
	}
	cs := core[s.csAt : s.csAt+len(s.cs)]
	for k := 0; k+mech.CSStride <= len(cs); k += mech.CSStride {
		st := cs[k : k+mech.CSStride]
		if c, md := st[mech.CSClosed], st[mech.CSMode]; c != 0 && c != 1 || md != 0 && md != 1 && md != -1 || st[mech.CSAlpha] < 0 {
			return errors.New("contact state out of range")
		}
		if g := k / mech.CSStride; s.m.contacts.joint[g] {
			// a joint's friction always acts; a set's rows hold the
			// model's step in their α slot (its slip blend), a scalar's 0
			alpha := 0.0
			if s.m.contacts.lead[g] >= 0 {
				alpha = s.m.settings.Step
			}
			if st[mech.CSClosed] != 1 || st[mech.CSAlpha] != alpha {
				return errors.New("joint friction state out of range")
			}
		}
		g := k / mech.CSStride
		if l := s.m.contacts.lead[g]; l >= 0 && (cs[l*mech.CSStride+mech.CSClosed] != st[mech.CSClosed] || cs[l*mech.CSStride+mech.CSMode] != st[mech.CSMode] || st[mech.CSMode] < 0) {
			return errors.New("contact friction state out of range")
		}
		if s.m.contacts.lead[g] == g && st[mech.CSMode] != 0 {
			d := 0.0
			for r := 0; r < s.m.contacts.setN[g]; r++ {
				d += cs[(g+r)*mech.CSStride+mech.CSStick] * cs[(g+r)*mech.CSStride+mech.CSStick]
			}
			if d > 1+2e-9 {
				return errors.New("contact slip direction out of range")
			}
		}
	}
	return nil
}

// unmarshal restores a state blob that checkBlob accepted.
func (s *State) unmarshal(b []byte) error {
	r, err := s.openBlob(b)
	if err != nil {
		return err
	}
	u, f := r.u, r.f
	s.T, s.h, s.hp = f(), f(), f()
	s.nhist = int(u())
	s.initialized = u() == 1
	for i := range s.core {
		s.core[i] = f()
	}
	for i := range s.vars {
		s.vars[i] = f()
	}
	s.nred = 0
	for i := range s.red {
		s.red[i] = u() == 1
		if s.red[i] {
			s.nred++
		}
	}
	s.stats.Steps, s.stats.Rejected = int64(u()), int64(u())
	s.stats.NewtonIters, s.stats.Factorizations = int64(u()), int64(u())
	s.stats.Short = int64(u())
	s.g0, s.hFact = f(), f()
	hold := u()
	s.reuseHold, s.reuseLen = int(uint32(hold)), int(hold>>32)
	flags := u()
	s.needFactor, s.hasAnchor = flags&1 != 0, flags&2 != 0
	for i := range s.anchor {
		s.anchor[i] = f()
	}
	s.linValid = false
	s.setRamped()
	return nil
}
