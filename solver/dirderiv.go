package solver

import (
	"math"
	"strings"

	"mbfmu/solver/mech"
)

// The continuous states and their Jacobian, for masters that couple FMUs
// through it (FMI 2.0 <Derivatives>, fmi2GetDirectionalDerivative).
//
// The states are x = (q, v): the positions (nq: linear coordinates and the
// unit quaternions of spatial bodies) and the velocities (nv: the
// derivatives of the linear coordinates and the body-frame angular
// velocities). Their time derivatives are
//
//	q̇ = v                  (linear coordinates)
//	ṗ = ½ p ⊗ (0, ω)       (a quaternion p and its body's angular velocity ω)
//	v̇ = a(q, v, u, t)      the accelerations of [M Φqᵀ; Φq 0][a; λ] = [g + Q; γ]
//
// (no Baumgarte terms: the accelerations of the equations of motion, not
// those of a stabilised integrator). The accelerations and the outputs
// depend on a quaternion through its direction only: they are evaluated
// at p/|p|, the rotation the engine uses. Contact modes (stick, slip,
// open) are held.

// StateVar describes one position or velocity coordinate as a continuous
// state.
type StateVar struct {
	// Name is unique among the states and cannot clash with a parameter,
	// input or output (it holds a dot): "cart.cm.x", "top.qw" for
	// positions, "der(cart.cm.x)", "top.wbx" for velocities.
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
}

// StateVars describes the positions (NumCoords) and velocities
// (NumVelocities) as continuous states, in storage order; none (nil) for
// a model whose elements have states of their own (a motor).
func (m *Model) StateVars() (q, v []StateVar) {
	if m.nes > 0 {
		// elements with states of their own (a motor's current): the
		// positions and velocities are not the whole state, so none is
		// declared rather than an incomplete set
		return nil, nil
	}
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
	return q, v
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
	keep  []float64 // the core and the variables, restored afterwards
	acc   []float64 // accelerations at the + point of a central difference
	y     []float64 // outputs at the + point
	y2    []float64 // outputs at the − point
	stats Stats
}

func (s *State) dirWork() *dirWork {
	if s.dw == nil {
		s.dw = &dirWork{
			keep: make([]float64, len(s.core)+len(s.vars)),
			acc:  make([]float64, s.m.nv),
			y:    make([]float64, len(s.m.outChan)),
			y2:   make([]float64, len(s.m.outChan)),
		}
	}
	return s.dw
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
// (NumCoords) and dv (NumVelocities): q̇ = v for the linear coordinates,
// ½ p ⊗ (0, ω) for the quaternions, and the accelerations of the equations
// of motion with the inputs and parameters as they are set. The state is
// left as it was (bit for bit); the factors of the next implicit step are
// rebuilt from their anchor.
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
//	jq = ∂q̇/∂x · (dq, dv)                  (exact)
//	jv = ∂a/∂x · (dq, dv) + ∂a/∂u · du
//	jy = ∂y/∂x · (dq, dv) + ∂y/∂u · du
//
// dq has NumCoords entries, dv NumVelocities, du one per input (nil: zero);
// jv may be nil to skip the accelerations, jy (one per declared output) to
// skip the outputs. The
// accelerations and outputs are differentiated by central differences
// along the seed with Richardson extrapolation (four consistent
// acceleration solves; outputs that read accelerations, forces or
// reactions see the accelerations and multipliers of the equations of
// motion at each point). A quaternion's seed acts through the rotation it
// changes: its component along p does nothing. The state is left as it was
// (bit for bit); nothing is allocated after the first call on s.
func (m *Model) DirectionalDerivative(s *State, dq, dv, du, jq, jv, jy []float64) error {
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
	in := s.vars[1+len(m.params):]
	if du != nil {
		for i, x := range in {
			rel(du[i], x)
		}
	}
	clear(jv)
	clear(jy)
	if sc == 0 || jv == nil && jy == nil {
		return nil
	}
	if !(sc < math.Inf(1)) {
		return errorf("directional derivative: the seed is not finite")
	}
	d := dirRel / sc
	w := s.dirWork()
	w.save(s)
	defer w.restore(s)
	t := s.T
	// at ±f along the seed: the accelerations into s.a, the outputs into y
	at := func(f float64, y []float64) error {
		w.restore(s)
		for i := range s.q {
			s.q[i] += f * dq[i]
		}
		m.normalizeRots(s.q)
		for i := range s.v {
			s.v[i] += f * dv[i]
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
		return nil
	}
	var yp, ym []float64
	if jy != nil {
		yp, ym = w.y, w.y2
	}
	// D(h) = (F(h) − F(−h))/(2h); J = (4 D(d) − D(2d))/3
	for pass, h := range [2]float64{d, 2 * d} {
		if err := at(h, yp); err != nil {
			return err
		}
		copy(w.acc, s.a)
		if err := at(-h, ym); err != nil {
			return err
		}
		rich(jv, w.acc, s.a, h, pass)
		if jy != nil {
			rich(jy, yp, ym, h, pass)
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
