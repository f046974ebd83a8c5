package solver

import (
	"math"
	"strings"

	"mbfmu/solver/mech"
)

// The continuous states and their Jacobian, for masters that couple FMUs
// through it (FMI 2.0 <Derivatives>, fmi2GetDirectionalDerivative).
//
// The states are x = (q, e, v): the positions (nq: linear coordinates and
// the unit quaternions of spatial bodies), the elements' own states (ne:
// a motor's current, a friction's bristle deflections, the user <state>s,
// mech.Stateful, in the order of Linearize's) and the velocities (nv: the
// derivatives of the linear coordinates and the body-frame angular
// velocities). Their time derivatives are
//
//	q̇ = v                  (linear coordinates)
//	ṗ = ½ p ⊗ (0, ω)       (a quaternion p and its body's angular velocity ω)
//	ė = r(q, v, e, u, t)   the elements' rates (mech.Stateful.Rates)
//	v̇ = a(q, v, e, u, t)   the accelerations of [M Φqᵀ; Φq 0][a; λ] = [g + Q; γ]
//
// (no Baumgarte terms: the accelerations of the equations of motion, not
// those of a stabilised integrator). The accelerations, the rates and the
// outputs depend on a quaternion through its direction only: they are
// evaluated at p/|p|, the rotation the engine uses. Contact modes (stick,
// slip, open) are held. The element states are the values the state holds
// (those of the last accepted step, at its time), so the forces that read
// them (a motor's torque k·i) and their rates are evaluated with them as
// they are.
//
// The first-order states q and e share one list in StateVars,
// StateDerivatives and DirectionalDerivative (the positions, then the
// element states), so that callers that know the positions only go on
// working with NumCoords entries.

// StateVar describes one continuous state: a position or velocity
// coordinate, or an element's own state.
type StateVar struct {
	// Name is unique among the states and cannot clash with a parameter,
	// input or output: a coordinate's holds a dot ("cart.cm.x", "top.qw"
	// for positions, "der(cart.cm.x)", "top.wbx" for velocities), an
	// element state's is the element's (mech.StateInfo: "m.current",
	// "bearing.bristle") or a user <state>'s, which shares the model
	// file's namespace with parameters, inputs and outputs.
	Name string
	// Unit is the SI unit ("" for a quaternion component or a slope).
	Unit string
	// Deriv is, for a position of a linear coordinate, the index of the
	// velocity that is its time derivative; -1 otherwise.
	Deriv int
	// RotQ and RotV are, for a quaternion component or a body angular
	// velocity, the indices of the first position and velocity of its
	// rotation block (four positions, three velocities); -1 otherwise.
	RotQ, RotV int
	// Element marks an element's own state (Deriv, RotQ and RotV are -1):
	// its derivative is the element's rate, which depends on every state
	// and input.
	Element bool
}

// StateVars describes the continuous states in storage order: q the
// first-order ones, the positions (NumCoords) and then the elements' own
// states (NumElementStates, Element set), and v the velocities
// (NumVelocities).
func (m *Model) StateVars() (q, v []StateVar) {
	names := m.CoordNames()
	units := m.coordUnits(names)
	q, v = make([]StateVar, m.nq), make([]StateVar, m.nv)
	for j, qi := range m.qOf {
		n := names[j]
		if n == "" {
			n = "coord" + itoa(j)
		}
		if qi >= 0 {
			q[qi] = StateVar{Name: n, Unit: units[j], Deriv: j, RotQ: -1, RotV: -1}
			v[j] = StateVar{Name: "der(" + n + ")", Unit: PerSecond(units[j]), Deriv: -1, RotQ: -1, RotV: -1}
		}
	}
	for _, r := range m.rots {
		body := m.rotBody(r, names)
		for k, c := range [4]string{"qw", "qx", "qy", "qz"} {
			q[r.q+k] = StateVar{Name: body + "." + c, Deriv: -1, RotQ: r.q, RotV: r.v}
		}
		for k, c := range [3]string{"wbx", "wby", "wbz"} {
			v[r.v+k] = StateVar{Name: body + "." + c, Unit: "rad/s", Deriv: -1, RotQ: r.q, RotV: r.v}
		}
	}
	for _, e := range m.stateful {
		for _, st := range e.States() {
			q = append(q, StateVar{Name: st.Name, Unit: st.Unit, Deriv: -1, RotQ: -1, RotV: -1, Element: true})
		}
	}
	return q, v
}

// NumElementStates returns the number of the elements' own continuous
// states (a motor's current, a friction's bristles, the user <state>s).
func (m *Model) NumElementStates() int {
	n := 0
	for _, e := range m.stateful {
		n += len(e.States())
	}
	return n
}

// ElementStates copies the element states of s (those of its last
// accepted step, at time s.T), in StateVars' order, into dst
// (NumElementStates). Nothing is allocated after the first call on s.
func (s *State) ElementStates(dst []float64) {
	for k, sl := range s.dirWork().eslot {
		dst[k] = s.es[sl]
	}
}

// SetElementStates sets the element states of s (as of time s.T) from src
// (NumElementStates, StateVars' order), as Q and V give write access to the
// coordinates: for analyses and tests that move the state and put it back
// (central differences). Only the states are set, not what an element
// keeps beside them (a user state's previous value for its BDF2 update).
func (s *State) SetElementStates(src []float64) {
	for k, sl := range s.dirWork().eslot {
		s.es[sl] = src[k]
	}
}

// rotBody names the body of rotation block r.
func (m *Model) rotBody(r rotBlock, names []string) string {
	for _, b := range m.bodies {
		if b.Spatial && b.V+3 == r.v {
			return b.Name
		}
	}
	if n, ok := strings.CutSuffix(names[r.v], ".rx"); ok && n != "" {
		return n
	}
	return "rot" + itoa(r.v)
}

// coordUnits returns the SI unit of each velocity coordinate's position
// (rad for a rotation): bodies from their layout, beams' nodal coordinates
// from the kind their names give (flex/beams.go: x, y, u, w in m; slope in
// rad; dx, dy, the ANCF slopes, and modal amplitudes dimensionless).
func (m *Model) coordUnits(names []string) []string {
	u := make([]string, m.nv)
	for j, n := range names {
		k := strings.LastIndexByte(n, '.')
		switch n[k+1:] {
		case "x", "y", "z", "u", "w":
			u[j] = "m"
		case "angle", "slope", "rx", "ry", "rz":
			u[j] = "rad"
		}
	}
	for _, b := range m.bodies {
		if b.Spatial {
			for k := 0; k < 3; k++ {
				u[b.V+k], u[b.V+3+k] = "m", "rad"
			}
			continue
		}
		u[b.V], u[b.V+1], u[b.V+2] = "m", "m", "rad"
	}
	return u
}

// PerSecond returns the unit of the time derivative of a quantity in
// unit ("m" → "m/s", "m/s" → "m/s2", "" → "1/s").
func PerSecond(unit string) string {
	switch {
	case unit == "":
		return "1/s"
	case strings.HasSuffix(unit, "/s"):
		return unit + "2"
	}
	return unit + "/s"
}

// dirWork is the work space of StateDerivatives and DirectionalDerivative
// (made on first use; not part of the state's snapshot).
type dirWork struct {
	keep   []float64 // the core and the variables, restored afterwards
	acc    []float64 // accelerations at the + point of a central difference
	y      []float64 // outputs at the + point
	y2     []float64 // outputs at the − point
	eslot  []int     // the element states' slots in State.es, in StateVars' order
	nst    []int     // the number of states of each of Model.stateful
	ep, em []float64 // the element states' rates at the + and − points
	stats  Stats
}

func (s *State) dirWork() *dirWork {
	if s.dw == nil {
		m := s.m
		w := &dirWork{
			keep: make([]float64, len(s.core)+len(s.vars)),
			acc:  make([]float64, m.nv),
			y:    make([]float64, len(m.outChan)),
			y2:   make([]float64, len(m.outChan)),
			nst:  make([]int, len(m.stateful)),
		}
		for k, e := range m.stateful {
			st := e.States()
			w.nst[k] = len(st)
			for _, x := range st {
				w.eslot = append(w.eslot, x.Slot)
			}
		}
		w.ep, w.em = make([]float64, len(w.eslot)), make([]float64, len(w.eslot))
		s.dw = w
	}
	return s.dw
}

// elementRates writes the rates of the element states at s (as stored
// there) into dst (NumElementStates).
func (m *Model) elementRates(s *State, w *dirWork, dst []float64) {
	off := 0
	for k, e := range m.stateful {
		if n := w.nst[k]; n > 0 {
			e.Rates(&s.x, dst[off:off+n])
			off += n
		}
	}
}

// save keeps what the evaluations change; restore puts it back (bit for
// bit: core, variables, statistics) and marks the linear solver's factors
// as not the anchor's, so the next implicit step rebuilds them exactly.
func (w *dirWork) save(s *State) {
	n := copy(w.keep, s.core)
	copy(w.keep[n:], s.vars)
	w.stats = s.stats
}

func (w *dirWork) restore(s *State) {
	n := copy(s.core, w.keep)
	copy(s.vars, w.keep[n:])
	s.stats = w.stats
	s.linValid = false
}

// quatRates writes ṗ = ½ p ⊗ (0, ω) of every rotation block of q and v into
// the quaternion entries of dst (nq).
func (m *Model) quatRates(dst, q, v []float64) {
	for _, r := range m.rots {
		p := mech.Quat(q[r.q : r.q+4])
		w := mech.Quat{0, v[r.v], v[r.v+1], v[r.v+2]}
		d := mech.QuatMul(p, w)
		for k := range d {
			dst[r.q+k] = 0.5 * d[k]
		}
	}
}

// normalizeRots scales every quaternion of q to unit length.
func (m *Model) normalizeRots(q []float64) {
	for _, r := range m.rots {
		p := (*mech.Quat)(q[r.q : r.q+4])
		*p = mech.QuatNormalize(*p)
	}
}

// StateDerivatives writes the time derivatives of the states at s into dq
// (NumCoords, or NumCoords + NumElementStates to have the element states'
// rates after the positions') and dv (NumVelocities): q̇ = v for the
// linear coordinates, ½ p ⊗ (0, ω) for the quaternions, the elements'
// rates and the accelerations of the equations of motion with the inputs
// and parameters as they are set. The state is left as it was (bit for
// bit); the factors of the next implicit step are rebuilt from their
// anchor.
func (m *Model) StateDerivatives(s *State, dq, dv []float64) error {
	w := s.dirWork()
	w.save(s)
	defer w.restore(s)
	for j, qi := range m.qOf {
		if qi >= 0 {
			dq[qi] = s.v[j]
		}
	}
	m.quatRates(dq, s.q, s.v)
	m.normalizeRots(s.q)
	s.vars[slotTime] = s.T
	if err := m.accelerations(s, s.a, false); err != nil {
		return err
	}
	copy(dv, s.a)
	if len(dq) > m.nq {
		// after the accelerations: a rate may read the multipliers (a
		// ball joint's friction, from its reaction)
		m.elementRates(s, w, dq[m.nq:])
	}
	return nil
}

// dirRel is the relative size of the perturbation of the central
// differences in DirectionalDerivative: the largest component of the
// seed moves its coordinate by dirRel·(1 + |x|). With Richardson
// extrapolation the truncation error is of order dirRel⁴ and the
// round-off about 1e-16/dirRel.
const dirRel = 1e-4

// DirectionalDerivative writes the directional derivative of the states'
// time derivatives and of the declared outputs with respect to the states
// and inputs at s, along the seed (dq, dv, du):
//
//	jq = ∂q̇/∂x · (dq, dv)                  (exact; the positions' entries)
//	jq = ∂ė/∂x · (dq, de, dv) + ∂ė/∂u · du  (the element states' entries)
//	jv = ∂a/∂x · (dq, de, dv) + ∂a/∂u · du
//	jy = ∂y/∂x · (dq, de, dv) + ∂y/∂u · du
//
// dq has NumCoords entries, or NumCoords + NumElementStates with the
// element states' seed de after the positions'; jq has NumCoords entries,
// or NumCoords + NumElementStates to have the derivative of the element
// states' rates too (each length independent of the other). dv has
// NumVelocities entries, du one per input (nil: zero); jv may be nil to
// skip the accelerations, jy (one per declared output) to skip the
// outputs. The accelerations, the element rates and the outputs are
// differentiated by central differences along the seed with Richardson
// extrapolation (four consistent acceleration solves; outputs that read
// accelerations, forces or reactions see the accelerations and
// multipliers of the equations of motion at each point; an element state
// moves the forces that read it, a motor's torque). A quaternion's seed
// acts through the rotation it changes: its component along p does
// nothing. The state is left as it was (bit for bit); nothing is allocated
// after the first call on s.
func (m *Model) DirectionalDerivative(s *State, dq, dv, du, jq, jv, jy []float64) error {
	var de, je []float64 // the element states' seed and rates' derivative
	if len(dq) > m.nq {
		dq, de = dq[:m.nq], dq[m.nq:]
	}
	if len(jq) > m.nq {
		jq, je = jq[:m.nq], jq[m.nq:]
	}
	// q̇: exact (linear in v, bilinear in p and ω)
	for j, qi := range m.qOf {
		if qi >= 0 {
			jq[qi] = dv[j]
		}
	}
	for _, r := range m.rots {
		p, w := mech.Quat(s.q[r.q:r.q+4]), mech.Quat{0, s.v[r.v], s.v[r.v+1], s.v[r.v+2]}
		dp, dw := mech.Quat(dq[r.q:r.q+4]), mech.Quat{0, dv[r.v], dv[r.v+1], dv[r.v+2]}
		a, b := mech.QuatMul(dp, w), mech.QuatMul(p, dw)
		for k := range a {
			jq[r.q+k] = 0.5 * (a[k] + b[k])
		}
	}
	w := s.dirWork()
	// the perturbation: the seed's largest relative component moves by dirRel
	sc := 0.0
	rel := func(d, x float64) {
		if r := math.Abs(d) / (1 + math.Abs(x)); r > sc {
			sc = r
		}
	}
	for i, x := range s.q {
		rel(dq[i], x)
	}
	for i, x := range s.v {
		rel(dv[i], x)
	}
	if de != nil {
		for k, sl := range w.eslot {
			rel(de[k], s.es[sl])
		}
	}
	in := s.vars[1+len(m.params):]
	if du != nil {
		for i, x := range in {
			rel(du[i], x)
		}
	}
	clear(jv)
	clear(jy)
	clear(je)
	if sc == 0 || jv == nil && jy == nil && je == nil {
		return nil
	}
	if !(sc < math.Inf(1)) {
		return errorf("directional derivative: the seed is not finite")
	}
	d := dirRel / sc
	w.save(s)
	defer w.restore(s)
	t := s.T
	// at ±f along the seed: the accelerations into s.a, the outputs into
	// y, the element rates into e
	at := func(f float64, y, e []float64) error {
		w.restore(s)
		for i := range s.q {
			s.q[i] += f * dq[i]
		}
		m.normalizeRots(s.q)
		for i := range s.v {
			s.v[i] += f * dv[i]
		}
		if de != nil {
			for k, sl := range w.eslot {
				s.es[sl] += f * de[k]
			}
		}
		if du != nil {
			for i := range in {
				in[i] += f * du[i]
			}
		}
		s.vars[slotTime] = t
		if err := m.accelerations(s, s.a, false); err != nil {
			return err
		}
		if y != nil {
			m.EvalOutputs(s, y)
		}
		if e != nil {
			m.elementRates(s, w, e)
		}
		return nil
	}
	var yp, ym, ep, em []float64
	if jy != nil {
		yp, ym = w.y, w.y2
	}
	if je != nil {
		ep, em = w.ep, w.em
	}
	// D(h) = (F(h) − F(−h))/(2h); J = (4 D(d) − D(2d))/3
	for pass, h := range [2]float64{d, 2 * d} {
		if err := at(h, yp, ep); err != nil {
			return err
		}
		copy(w.acc, s.a)
		if err := at(-h, ym, em); err != nil {
			return err
		}
		rich(jv, w.acc, s.a, h, pass)
		if jy != nil {
			rich(jy, yp, ym, h, pass)
		}
		if je != nil {
			rich(je, ep, em, h, pass)
		}
	}
	return nil
}

// rich accumulates the Richardson extrapolation of central differences:
// pass 0 stores D(h) = (fp − fm)/(2h) in j, pass 1 (with 2h) makes it
// (4 D(h) − D(2h))/3.
func rich(j, fp, fm []float64, h float64, pass int) {
	for i := range j {
		d := (fp[i] - fm[i]) / (2 * h)
		if pass == 0 {
			j[i] = d
		} else {
			j[i] = (4*j[i] - d) / 3
		}
	}
}
