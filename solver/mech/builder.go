package mech

import (
	"mbfmu/expr"
	"mbfmu/spec"
)

// Builder is what an element package sees of the engine while a model is
// compiled: problems are reported through it, expressions compiled,
// coordinates allocated, markers resolved and elements added. The engine's
// compiler implements it.
type Builder interface {
	// Errorf records a problem at a position and attribute.
	Errorf(pos spec.Pos, field, format string, args ...any)
	// Claim registers an element name in the namespace that joints,
	// drivers, forces, beams, contacts and outputs share; it reports a
	// duplicate (and returns false).
	Claim(name string, pos spec.Pos, what string) bool
	// Const evaluates a compile-time attribute (numbers and parameters),
	// def when it is not given.
	Const(e spec.Expr, def float64) float64
	// Run compiles a run-time attribute (time, inputs, parameters,
	// measures, tables), def when it is not given.
	Run(e spec.Expr, def float64) Param
	// Program compiles a run-time expression (nil after an error).
	Program(e spec.Expr) *expr.Program

	// Dim is 2 for a planar model, 3 for a spatial one.
	Dim() int
	// Gravity is the gravity vector (planar: z = 0).
	Gravity() Vec3
	// Integrator names the model's integrator (genalpha, rk4, ...).
	Integrator() string
	// BaumgarteAlpha is the Baumgarte position gain (also the drift gain
	// of stick constraints).
	BaumgarteAlpha() float64

	// Grow appends n linear coordinates (one position and one velocity
	// each) and returns the index of the first velocity (its position is
	// at len(Q0()) before the call).
	Grow(n int) int
	// GrowRot appends the orientation of a spatial body: a unit quaternion
	// (four positions) and a rotation vector (three velocities); it
	// returns their first indices.
	GrowRot() (q, v int)
	// Q0 and V0 are the approximate initial positions and velocities (the
	// slices change when coordinates are added).
	Q0() []float64
	V0() []float64
	// AddMass adds a diagonal mass entry to velocity coordinate i.
	AddMass(i int, m float64)
	// AddMassBlock adds a dense symmetric mass block on the velocity
	// coordinates dofs (m row-major, len(dofs)²).
	AddMassBlock(dofs []int, m []float64)
	// SetLength sets the length by which velocity coordinate i becomes a
	// displacement (the slope of an ANCF node: the largest displacement
	// of the axis a unit slope change causes, 4/27 of its element's
	// length): the Newton test weighs the coordinate's increments by it
	// (default 1).
	SetLength(i int, l float64)
	// AddGravity adds a constant generalized gravity force to velocity
	// coordinate i (and its potential −q·g for linear coordinates).
	AddGravity(i int, g float64)

	// AddBody registers a rigid body (for channels, markers, drawing).
	AddBody(b BodyInfo) int
	// Body finds a body by name.
	Body(name string) (int, bool)
	// BodyInfo returns body i.
	BodyInfo(i int) *BodyInfo
	// BodyNames lists "ground" and the bodies (for suggestions).
	BodyNames() []string
	// DefineMarker defines "body.marker" (or "body", "ground.marker").
	DefineMarker(name string, mk Marker) bool
	// Marker resolves a marker reference of attribute field at pos.
	Marker(ref string, pos spec.Pos, field string) (Marker, bool)

	// AddForce adds a force element.
	AddForce(name string, f Force)
	// AddJoint registers a joint or driver and returns its index, the
	// owner of the constraint elements that follow.
	AddJoint(j JointInfo) int
	// Joint finds a joint or driver by name.
	Joint(name string) (*JointInfo, int, bool)
	// AddConstraint adds a constraint element of joint owner.
	AddConstraint(c Constraint, owner int)
	// Multiplier returns a measure of the Lagrange multiplier of joint
	// owner's first constraint row (a coupler's λ) at the state it is
	// evaluated at (0 when the row was found redundant and removed).
	Multiplier(owner int) Measure
	// TurnSlot registers an angle that counts whole turns and returns its
	// slot in Ctx.Turns. The engine keeps there, in the state (so saved
	// and restored states and replays keep it), the angle's value at the
	// last accepted step, c's Value after each step; c measures the
	// angle in (−π, π] and makes it continuous with Unwrap from that
	// reference. (An angle that turns more than π in one step cannot be
	// followed.)
	TurnSlot(c Coordinate) int
	// StateSlots reserves n slots of element state for the element e
	// (a Stateful force) and returns the first: its values at the last
	// accepted step are Ctx.ES[first : first+n].
	StateSlots(e Stateful, n int) int
	// DiscreteSlot reserves one group of discrete state (CSStride slots
	// of Ctx.CS: an open/closed contact, a stick/slip mode, a stick
	// force) and returns its index: the group is Ctx.CS[i*CSStride:].
	DiscreteSlot() int
}

// BodyInfo describes a rigid body.
type BodyInfo struct {
	Name    string
	Spatial bool
	// Node marks a spatial beam's node: a body for the engine (markers,
	// joints, forces, coordinates) without channels or drawing of its own
	// (its beam has them)
	Node    bool
	Q, V    int     // first position and velocity coordinate
	Mass    float64 // kg
	J       float64 // planar: inertia about the centre of mass (kg·m²)
	Inertia Mat3    // spatial: inertia tensor about the centre of mass, body frame
	CM      Vec3    // centre of mass in the body frame (planar: z = 0)
	Outline [][2]float64
	Radius  float64
	Shapes  []GeomShape
	Markers []string // names of the markers, in declaration order
	Local   []Frame  // their frames in the body frame (from the body frame origin)
}

// Marker is a resolved marker reference: a planar point or a spatial frame.
type Marker struct {
	P Point // planar models
	F Frame // spatial models
}

// OnGround reports whether the marker is fixed in the ground frame.
func (m Marker) OnGround(dim int) bool {
	if dim == 3 {
		return m.F.Body < 0
	}
	return m.P.Body < 0
}

// BodyIndex returns the index of the marker's body (-1: ground).
func (m Marker) BodyIndex(dim int) int {
	if dim == 3 {
		return m.F.Body
	}
	return m.P.Body
}

// JointInfo describes a joint or driver: its name and kind, its markers
// and, for a driver, what it drives. Its rows are the constraint elements
// added with its index as owner.
type JointInfo struct {
	Name string
	Kind JointKind // JointRevolute, JointTranslational, ..., JointDriver, JointBeamPin, ...
	I, J Marker
	// Driver is what a driver prescribes: joint-angle, joint-disp,
	// body-x, body-y, body-z, body-angle; Of names the driven joint.
	Driver string
	Of     string
	// Coord is the joint's free coordinate for channels, measures and
	// drivers (revolute angle, prismatic displacement), nil when it has
	// none; Coord2 a second one (a cylindrical joint's displacement).
	Coord, Coord2 Coordinate
	// CoordRow is Coord's row as a one-row constraint element (its value
	// wrapped to (−π, π], its gradient, γ and Hessian), for the joints whose
	// markers are not rigid frames (a revolute joint at a node that moves
	// with an FE body's modes): drivers and drive-train elements take the
	// coordinate from it. Nil: from the markers' frames.
	CoordRow Constraint
	// Value is a driver's prescribed value (a function of time).
	Value Param
}

// Coordinate is a joint coordinate: a relative angle or displacement.
type Coordinate interface {
	// Value returns the coordinate and its rate at x.
	Value(x *Ctx) (c, rate float64)
	// Unit is "rad" or "m".
	Unit() string
}

// GrowFrame appends the coordinates of a spatial frame (a body, a beam
// node, an FE body's floating frame), three translations then the
// orientation, with the initial values: origin r, rotation R, velocity v
// (world) and angular velocity w (its own frame). It returns the first
// position and velocity indices (mech.Frame's layout).
func GrowFrame(b Builder, r Vec3, R Mat3, v, w Vec3) (q, vi int) {
	q = len(b.Q0()) // positions and velocities of earlier bodies differ in number
	vi = b.Grow(3)
	qr, vr := b.GrowRot()
	if qr != q+3 || vr != vi+3 {
		panic("mech: frame coordinates are not contiguous")
	}
	q0, v0 := b.Q0(), b.V0()
	copy(q0[q:q+3], r[:])
	p := MatQuat(&R)
	copy(q0[qr:qr+4], p[:])
	copy(v0[vi:vi+3], v[:])
	copy(v0[vr:vr+3], w[:])
	return q, vi
}
