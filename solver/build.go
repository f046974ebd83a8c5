package solver

import (
	"math"

	"mbfmu/expr"
	"mbfmu/solver/contacts"
	"mbfmu/solver/flex"
	"mbfmu/solver/mech"
	"mbfmu/solver/rigid"
	"mbfmu/spec"
)

// This file is the compiler's side of the element packages: it dispatches
// the model's elements to them (rigid bodies, joints, drivers and forces in
// solver/rigid, beams in solver/flex, contacts in solver/contacts) and
// implements mech.Builder, through which they add coordinates, mass,
// markers and elements.

// elements compiles the model's bodies and elements in dependency order.
func (c *compiler) elements() {
	ms, m := c.spec, c.m
	g := mech.Vec3{0, -9.81, 0}
	if m.dim == 3 {
		g = mech.Vec3{0, 0, -9.81}
	}
	if ms.Settings.Gravity.Given() {
		g = mech.Vec3{c.constExpr(ms.Settings.Gravity[0], 0), c.constExpr(ms.Settings.Gravity[1], 0), 0}
		if m.dim == 3 {
			g[2] = c.constExpr(ms.Settings.Gravity[2], 0)
		}
	}
	m.settings.Gravity = g
	for i := range ms.Bodies {
		b := &ms.Bodies[i]
		if b.Name == "ground" {
			c.errf(b.Pos, "name", "\"ground\" is reserved for the fixed frame")
		}
		if !mech.ValidName(b.Name) {
			c.errf(b.Pos, "name", "body name %q is not a valid identifier (letters, digits, _)", b.Name)
		}
		if _, dup := c.bodyIndex[b.Name]; dup {
			c.errf(b.Pos, "name", "duplicate body %q", b.Name)
		}
		c.bodyIndex[b.Name] = i
	}
	if m.dim == 3 {
		if m.integ.family == famBDF {
			c.errf(ms.Settings.Pos, "integrator", "%s combines past positions linearly and is not available for spatial models (orientations are rotations, not vectors): use genalpha, hht, newmark or rk4", m.integ.name)
		}
		rigid.SpatialBodies(c, ms)
		clamps := flex.Spatial(c, ms) // beams' nodes are bodies: before the joints
		for _, j := range ms.Joints {
			if !flex.SpatialRefers(ms, j.I, j.J) {
				rigid.SpatialJoint(c, j)
			}
		}
		for _, j := range clamps {
			rigid.SpatialJoint(c, j)
		}
		for _, d := range ms.Drivers {
			rigid.SpatialDriver(c, d)
		}
		for _, f := range ms.Forces {
			if !flex.SpatialRefers(ms, f.I, f.J) {
				rigid.SpatialForce(c, f)
			}
		}
		for _, d := range ms.Drives {
			rigid.Drive(c, d)
		}
		contacts.CompileSpatial(c, ms)
		return
	}
	rigid.PlanarBodies(c, ms)
	for _, j := range ms.Joints {
		if !flex.Refers(c, ms, j.I) && !flex.Refers(c, ms, j.J) {
			rigid.PlanarJoint(c, j)
		}
	}
	for _, d := range ms.Drivers {
		rigid.PlanarDriver(c, d)
	}
	for _, f := range ms.Forces {
		if !flex.Refers(c, ms, f.I) && !flex.Refers(c, ms, f.J) {
			rigid.PlanarForce(c, f)
		}
	}
	for _, d := range ms.Drives {
		rigid.Drive(c, d)
	}
	flex.Compile(c, ms)
	contacts.Compile(c, ms)
}

// contactSet gathers the planar contact elements, whose normal states
// the engine switches at events, and the elements with exact Coulomb
// friction, whose stick and slip it decides (stickslip.go).
func (c *compiler) contactSet() {
	set := &contactSet{kappa: 2 * c.m.settings.BaumgarteAlpha, groups: c.m.ncs, joint: make([]bool, c.m.ncs), lead: make([]int, c.m.ncs), setN: make([]int, c.m.ncs), byGroup: make([]mech.Coulomb, c.m.ncs)}
	for i := range set.lead {
		set.lead[i] = -1
	}
	for _, f := range c.m.forces {
		if e, ok := f.(*contacts.Elem); ok {
			set.elems = append(set.elems, e)
			if e.Fric != contacts.FricCoulomb {
				continue
			}
		}
		if e, ok := f.(mech.Coulomb); ok && e.CoulombIndex() >= 0 {
			_, contact := f.(*contacts.Elem)
			set.joint[e.CoulombIndex()] = !contact
			set.byGroup[e.CoulombIndex()] = e
			set.rows = append(set.rows, e)
			set.maxd = max(set.maxd, len(e.Dofs()))
		}
		if r, ok := f.(mech.CoulombRows); ok {
			for _, e := range r.CoulombRows() {
				set.byGroup[e.CoulombIndex()] = e
				set.rows = append(set.rows, e)
				set.maxd = max(set.maxd, len(e.Dofs()))
				if p, ok := e.(mech.CoulombSet); ok {
					l, n := p.Set()
					if g := e.CoulombIndex(); g < l || g >= l+n || n < 2 || n > mech.MaxCoulombSet {
						panic("solver: a Coulomb set's rows must be 2 or 3 consecutive groups from its lead")
					}
					set.lead[e.CoulombIndex()], set.setN[e.CoulombIndex()] = l, n
					set.joint[e.CoulombIndex()] = p.Joint()
				}
			}
		}
	}
	set.coulomb = len(set.rows) > 0
	if len(set.elems) > 0 || set.coulomb {
		c.m.contacts = set
	}
}

// Errorf records a problem (mech.Builder).
func (c *compiler) Errorf(pos spec.Pos, field, format string, args ...any) {
	c.errf(pos, field, format, args...)
}

// Claim registers an element name (mech.Builder).
func (c *compiler) Claim(name string, pos spec.Pos, what string) bool {
	return c.claim(name, pos, what)
}

// Const evaluates a compile-time attribute (mech.Builder).
func (c *compiler) Const(e spec.Expr, def float64) float64 { return c.constExpr(e, def) }

// Run compiles a run-time attribute (mech.Builder).
func (c *compiler) Run(e spec.Expr, def float64) mech.Param { return c.runExpr(e, def) }

// Program compiles a run-time expression (mech.Builder).
func (c *compiler) Program(e spec.Expr) *expr.Program { return c.runProgram(e) }

// Dim is the model's dimension (mech.Builder).
func (c *compiler) Dim() int { return c.m.dim }

// Gravity is the gravity vector (mech.Builder).
func (c *compiler) Gravity() mech.Vec3 { return c.m.settings.Gravity }

// Integrator names the integrator (mech.Builder).
func (c *compiler) Integrator() string { return c.m.integ.name }

// BaumgarteAlpha is the Baumgarte position gain (mech.Builder).
func (c *compiler) BaumgarteAlpha() float64 { return c.m.settings.BaumgarteAlpha }

// Grow appends linear coordinates (mech.Builder).
func (c *compiler) Grow(n int) int { return c.grow(n) }

// GrowRot appends a rotation block (mech.Builder).
func (c *compiler) GrowRot() (q, v int) {
	m := c.m
	q, v = m.nq, m.nv
	m.nq += 4
	m.nv += 3
	m.qOf = append(m.qOf, -1, -1, -1)
	m.rots = append(m.rots, rotBlock{q: q, v: v})
	m.mdiag = append(m.mdiag, 0, 0, 0)
	m.gq = append(m.gq, 0, 0, 0)
	m.lq = append(m.lq, 1, 1, 1)
	m.q0 = append(m.q0, 1, 0, 0, 0)
	m.v0 = append(m.v0, 0, 0, 0)
	return q, v
}

// Q0 returns the approximate initial positions (mech.Builder).
func (c *compiler) Q0() []float64 { return c.m.q0 }

// V0 returns the approximate initial velocities (mech.Builder).
func (c *compiler) V0() []float64 { return c.m.v0 }

// AddMass adds a diagonal mass entry (mech.Builder).
func (c *compiler) AddMass(i int, m float64) { c.m.mdiag[i] += m }

// AddMassBlock adds a dense mass block (mech.Builder).
func (c *compiler) AddMassBlock(dofs []int, m []float64) {
	c.m.mblocks = append(c.m.mblocks, massBlock{dofs: dofs, m: m})
}

// AddGravity adds a generalized gravity force (mech.Builder).
func (c *compiler) AddGravity(i int, g float64) { c.m.gq[i] += g }

// SetLength sets the length scale of a velocity coordinate (mech.Builder).
func (c *compiler) SetLength(i int, l float64) { c.m.lq[i] = l }

// AddBody registers a rigid body (mech.Builder).
func (c *compiler) AddBody(b mech.BodyInfo) int {
	c.m.bodies = append(c.m.bodies, b)
	return len(c.m.bodies) - 1
}

// Body finds a body by name (mech.Builder).
func (c *compiler) Body(name string) (int, bool) {
	i, ok := c.bodyIndex[name]
	return i, ok
}

// BodyInfo returns body i (mech.Builder).
func (c *compiler) BodyInfo(i int) *mech.BodyInfo { return &c.m.bodies[i] }

// BodyNames lists ground and the bodies (mech.Builder).
func (c *compiler) BodyNames() []string { return c.bodyNames() }

// DefineMarker defines a marker; false if the name is taken (mech.Builder).
func (c *compiler) DefineMarker(name string, mk mech.Marker) bool {
	if _, dup := c.m.markers[name]; dup {
		return false
	}
	c.m.markers[name] = mk
	return true
}

// Marker resolves a marker reference of attribute field (mech.Builder).
func (c *compiler) Marker(ref string, pos spec.Pos, field string) (mech.Marker, bool) {
	if ref == "" {
		c.errf(pos, field, "missing marker reference")
		return mech.Marker{}, false
	}
	mk, err := c.markerRef(ref)
	if err != nil {
		c.errf(pos, field, "%v", err)
		return mech.Marker{}, false
	}
	return mk, true
}

// AddForce adds a force element (mech.Builder).
func (c *compiler) AddForce(name string, f mech.Force) {
	c.m.forces = append(c.m.forces, f)
	c.m.fnames = append(c.m.fnames, name)
}

// Multiplier returns a measure of joint owner's first multiplier
// (mech.Builder).
func (c *compiler) Multiplier(owner int) mech.Measure { return multiplier{c.m, owner} }

// multiplier is the Lagrange multiplier of a joint's first row.
type multiplier struct {
	m     *Model
	owner int
}

// Eval returns the multiplier at x.
func (l multiplier) Eval(x *mech.Ctx) float64 {
	rr := l.m.jrows[l.owner]
	if rr.nr == 0 {
		return 0
	}
	return x.Lam[rr.r0]
}

// AddJoint registers a joint or driver (mech.Builder).
func (c *compiler) AddJoint(j mech.JointInfo) int {
	m := c.m
	m.joints = append(m.joints, j)
	m.jrows = append(m.jrows, rowRange{r0: len(m.rowCon)})
	c.jointIdx[j.Name] = len(m.joints) - 1
	return len(m.joints) - 1
}

// Joint finds a joint or driver by name (mech.Builder).
func (c *compiler) Joint(name string) (*mech.JointInfo, int, bool) {
	i, ok := c.jointIdx[name]
	if !ok {
		return nil, -1, false
	}
	return &c.m.joints[i], i, true
}

// TurnSlot registers an angle that counts whole turns (mech.Builder).
func (c *compiler) TurnSlot(co mech.Coordinate) int {
	c.m.turnCoords = append(c.m.turnCoords, co)
	return len(c.m.turnCoords) - 1
}

// StateSlots reserves element state slots (mech.Builder).
func (c *compiler) StateSlots(e mech.Stateful, n int) int {
	c.m.stateful = append(c.m.stateful, e)
	c.m.nes += n
	return c.m.nes - n
}

// DiscreteSlot reserves a discrete-state group (mech.Builder).
func (c *compiler) DiscreteSlot() int {
	c.m.ncs++
	return c.m.ncs - 1
}

// AddConstraint adds a constraint element of joint owner (mech.Builder).
func (c *compiler) AddConstraint(k mech.Constraint, owner int) {
	c.addCon(k, owner)
	c.m.jrows[owner].nr += k.Rows()
}

func finite3(v mech.Vec3) bool { return finite(v[0]) && finite(v[1]) && finite(v[2]) }

var _ = math.Inf
