// Package spec holds the model specification: plain structs that a model
// file parses into (package mbfmu/xml) and that the engine (package
// mbfmu/solver) compiles. Every node carries its source position so that
// errors name file, line and field. The package needs nothing of the engine.
package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Pos is a position in a model file.
type Pos struct {
	File string
	Line int
	// Via is the include chain of an element read from a subsystem file
	// ("in lift1 included at truck.xml:8"), "" otherwise.
	Via string
}

// String formats the position as file:line (or just the file, or "").
func (p Pos) String() string {
	switch {
	case p.File == "" && p.Line == 0:
		return ""
	case p.Line == 0:
		return p.File
	}
	s := p.File + ":" + strconv.Itoa(p.Line)
	if p.Via != "" {
		s += " (" + p.Via + ")"
	}
	return s
}

// Expr is a numeric attribute: an expression in SI units (see package
// mbfmu/expr) with the position and attribute name it came from. Plain
// numbers are expressions too; unit suffixes are converted to SI by the
// parser before they get here. An empty Src means "not given".
type Expr struct {
	Src   string
	Pos   Pos
	Field string
}

// Given reports whether the attribute was present.
func (e Expr) Given() bool { return e.Src != "" }

// Vec is a vector of expressions: (x, y) in a planar model, (x, y, z) in
// a spatial one (the parser checks the count).
type Vec [3]Expr

// Given reports whether any component was present.
func (v Vec) Given() bool { return v[0].Given() || v[1].Given() || v[2].Given() }

// Orientation is the orientation of a spatial frame relative to its
// parent (the world for a body, the body frame for a marker), in one of
// the forms engineers use; at most one form is given (the parser checks).
// The zero value is the identity.
type Orientation struct {
	// Quaternion (w, x, y, z), scalar first; it must be of unit length.
	Quaternion [4]Expr
	// Axis and Angle: a rotation by Angle about Axis (any length > 0).
	Axis  Vec
	Angle Expr
	// Angles and Sequence: three successive rotations about the named
	// axes of the rotating frame, e.g. Sequence "xyz" (Cardan angles,
	// R = Rx(a₁) Ry(a₂) Rz(a₃)) or "zxz" (Euler angles).
	Angles   Vec
	Sequence string
	// Two axis directions of the frame in the parent: the first given of
	// ZAxis, XAxis (in that priority) is kept exactly, the other is made
	// orthogonal to it; with XAxis and YAxis, XAxis is kept.
	XAxis, YAxis, ZAxis Vec
	Pos                 Pos
}

// Given reports whether any form was given.
func (o *Orientation) Given() bool {
	return o.Quaternion[0].Given() || o.Quaternion[1].Given() || o.Quaternion[2].Given() || o.Quaternion[3].Given() ||
		o.Axis.Given() || o.Angle.Given() || o.Angles.Given() || o.XAxis.Given() || o.YAxis.Given() || o.ZAxis.Given()
}

// Model is a whole model as written in a model file.
type Model struct {
	Name        string
	Description string
	// Dimension is 2 for a planar model (also when 0) and 3 for a spatial
	// one (<model dimension="3">).
	Dimension int
	Pos       Pos
	Settings  Settings
	Params    []Param
	Inputs    []Input
	Tables    []Table
	Ground    Ground
	Bodies    []Body
	Joints    []Joint
	Drivers   []Driver
	Forces    []Force
	Beams     []Beam
	Contacts  []Contact
	Drives    []Drive
	// States and Variables are the user's differential and algebraic
	// variables (<state>, <variable>).
	States    []State
	Variables []Variable
	Outputs   []Output
}

// Settings holds analysis settings. Zero values mean "use the default".
type Settings struct {
	Pos        Pos
	Start      float64 // s, default 0
	End        float64 // s, default 1 (when Start is 0 too)
	Step       float64 // s, integrator (fixed) step or initial step, default 1e-3
	OutputStep float64 // s, results sampling interval, default = Step
	Integrator string  // genalpha (default), hht, newmark, bdf1, bdf2, rk4
	RhoInf     float64 // generalized-α spectral radius at infinity in [0, 1], default 0.8 (used when RhoSet)
	RhoSet     bool    // RhoInf was given (so 0 is meaningful)
	Alpha      float64 // HHT α in [-1/3, 0], default -0.05
	Beta       float64 // Newmark β, default 0.25 (+ numerical damping if Gamma > 0.5)
	Gamma      float64 // Newmark γ, default 0.5
	// Formulation of the implicit schemes: "index3" (positions constrained
	// directly), "index2" (velocity constraints plus position projection),
	// or "" / "auto": index-2 for schemes without numerical dissipation
	// (ρ∞ = 1, trapezoidal Newmark), where index-3 is only weakly stable,
	// and for every spatial model, where index-3 is unstable at large
	// rotation increments.
	Formulation string
	Adaptive    bool    // error-controlled variable step
	RelTol      float64 // default 1e-6 (adaptive)
	AbsTol      float64 // default 1e-8 (adaptive)
	MinStep     float64 // default 1e-12 (adaptive)
	MaxStep     float64 // default max(100·Step, (End−Start)/10) (adaptive)
	// NewtonTol, default 1e-8: stop when |Δq| ≤ tol·(1+|q|) and
	// |Δv| ≤ tol·(1+|v|) and the error the last increment leaves, judged
	// by the observed contraction, is below a tenth of that
	NewtonTol float64
	MaxIter   int // default 10 Newton iterations per step (then a refreshed Jacobian, then halved steps)
	// Baumgarte stabilisation for rk4: Φ'' + 2α Φ' + β² Φ = 0, default
	// α = β = 10 (1/s).
	BaumgarteAlpha float64
	BaumgarteBeta  float64
	Gravity        Vec // m/s², default (0, -9.81) planar, (0, 0, -9.81) spatial
}

// Param is a named parameter that expressions may use. It becomes an
// FMU parameter: tunable if every use of it is re-evaluated during the run
// (force laws, driver functions), fixed otherwise (mass, geometry).
type Param struct {
	Name, Unit, Description string
	Value                   float64
	Pos                     Pos
}

// Input is a named input (a future FMU input).
type Input struct {
	Name, Unit, Description string
	Start                   float64
	Pos                     Pos
}

// Table is an interpolation table usable as a function name(x).
type Table struct {
	Name string
	Kind string // linear (default), spline, akima
	X, Y []float64
	Pos  Pos
}

// Marker is a named point (and direction) fixed in a body frame.
type Marker struct {
	Name  string
	At    Vec  // m, in the body frame
	Angle Expr // rad, orientation of the marker x axis in the body frame (planar)
	// Orient is the marker frame's orientation in the body frame
	// (spatial); joints use its axes (a revolute turns about z, a
	// prismatic slides along z).
	Orient Orientation
	Pos    Pos
}

// Shape is optional drawing geometry of a planar body for the viewer.
type Shape struct {
	Outline [][2]float64 // polygon in the body frame, m
	Radius  float64      // circle radius about the body frame origin, m
}

// Solid is a drawing solid of a spatial body for the viewer (<box>,
// <cylinder>, <sphere> in a <body>): a box of edge lengths Size, a
// cylinder of Radius and Length along its z axis, or a sphere of Radius,
// centred at At in the body frame and turned by Orient.
type Solid struct {
	Kind   string // box, cylinder, sphere
	Size   Vec
	Radius Expr
	Length Expr
	At     Vec
	Orient Orientation
	Color  string
	Pos    Pos
}

// Ground holds the markers of the fixed ground frame.
type Ground struct {
	Markers []Marker
	Pos     Pos
}

// Body is a rigid body.
type Body struct {
	Name    string
	Mass    Expr // kg, > 0
	Inertia Expr // kg·m², about the centre of mass, > 0 (planar)
	CM      Vec  // m, centre of mass in the body frame (default 0)
	At      Vec  // m, initial position of the body frame origin (approximate: assembled)
	Angle   Expr // rad, initial orientation (planar)
	Vel     Vec  // m/s, initial velocity of the body frame origin (approximate)
	Omega   Expr // rad/s, initial angular velocity (planar)
	Markers []Marker
	Shape   Shape
	Pos     Pos

	// Spatial bodies.
	//
	// InertiaTensor holds the inertia about the centre of mass in the
	// body frame: Jxx, Jyy, Jzz, then optionally the tensor's off-diagonal
	// entries Jxy, Jxz, Jyz (Jxy = −∫xy dm), kg·m². With InertiaOrient
	// the three diagonal entries are principal moments about the axes of
	// that orientation instead.
	InertiaTensor [6]Expr
	InertiaOrient Orientation
	// Orient is the initial orientation of the body frame.
	Orient Orientation
	// AngVel is the initial angular velocity, in the body frame when
	// AngVelFrame is "body" (the default), else in the world frame
	// ("global").
	AngVel      Vec
	AngVelFrame string
	Solids      []Solid
}

// Joint is a kinematic joint between two markers ("body.marker", or
// "body" for the body frame origin; "ground.marker" for ground).
//
//	revolute:      the two marker origins coincide.
//	translational: marker J's origin stays on the x axis of marker I and the
//	               relative angle stays at its initial value.
//	fixed:         origins coincide and the relative angle stays constant.
type Joint struct {
	Kind string
	Name string
	I, J string
	// Distance is the length of a distance joint (default: the initial
	// distance between the markers).
	Distance Expr
	Pos      Pos
}

// Driver prescribes, as a function of time (and inputs, parameters),
// either a joint coordinate (Joint: revolute relative angle, or
// translational displacement along the axis; for a spatial cylindrical
// joint Coord "angle" or "disp") or a coordinate of a body frame (Body
// with Coord x, y or angle planar; x, y or z spatial).
type Driver struct {
	Name  string
	Joint string
	Body  string
	Coord string
	Value Expr
	Pos   Pos
}

// Force is an applied force element.
//
//	force:   point force (FX, FY) at marker I; Frame "global" (default) or
//	         "marker" (components in marker I's frame: a follower force).
//	torque:  torque T on the body of marker I (reaction on J's body if J set).
//	spring:  translational spring–damper between markers I and J:
//	         f = K (l − Length) + C l' + Preload (tension positive).
//	rspring: rotational spring–damper between the bodies of markers I and J:
//	         τ = −K (θJ − θI − Angle) − C (ωJ − ωI) + Preload, acting on J
//	         (and −τ on I); spatial: on the revolute named Joint, about its
//	         axis.
//
// Spatial: force (FX, FY, FZ), torque (TX, TY, TZ; Frame as for forces),
// spring, rspring, and bushing (KV, CV in marker I's frame).
type Force struct {
	Kind       string
	Name       string
	I, J       string
	FX, FY, FZ Expr
	T          Expr // planar torque
	TX, TY, TZ Expr // spatial torque vector
	Frame      string
	K, C       Expr
	Length     Expr // free length (spring) — default: initial distance
	Angle      Expr // free angle (rspring) — default: initial relative angle
	Preload    Expr
	// Joint names the revolute a spatial rspring acts on.
	Joint string
	// KV and CV are a bushing's stiffness and damping in marker i's
	// frame: translations x, y, z then rotations x, y, z.
	KV, CV [6]Expr
	Pos    Pos
}

// Beam is a flexible beam: Kind "ancf" (absolute nodal coordinates) or
// "ffr" (floating frame of reference); Attr holds its attributes by name
// (solver/flex reads them).
type Beam struct {
	Kind string // ancf, ffr
	Name string
	Pos  Pos
	Attr map[string]Expr
}

// Contact is a contact pair: planar geometry pairs (circle, line,
// segment, point) or, in spatial models, sphere–plane and sphere–sphere,
// with a normal law and friction (solver/contacts).
type Contact struct {
	Kind string
	Name string
	Pos  Pos
	Attr map[string]Expr
}

// Drive is a drive-train element on joint coordinates: a coupler (Kind
// gear, belt, rack, screw or linear) between the coordinates of joints I
// and J, or end stops (Kind "stop") on the coordinate of joint I. Attr
// holds its other attributes by name (solver/rigid/drivetrain.go).
type Drive struct {
	Kind string
	Name string
	I, J string
	Pos  Pos
	Attr map[string]Expr
}

// State is a user differential variable (<state>): a continuous state x
// with ẋ = Rate (an expression of time, parameters, inputs, measures and
// the user states and variables) and x = Initial at the start (an
// expression of parameters).
type State struct {
	Name, Unit, Description string
	Initial, Rate           Expr
	Pos                     Pos
}

// Variable is a user algebraic variable (<variable>): a name for the
// expression Value, usable in other expressions and as a channel.
type Variable struct {
	Name, Unit, Description string
	Value                   Expr
	Pos                     Pos
}

// Output declares an output: a named channel (see Model.Channels), or
// an expression (Expr) with a unit.
type Output struct {
	Name        string
	Channel     string
	Expr        Expr
	Unit        string
	Description string
	Pos         Pos
}

// Error is a problem in a model, located at a file, line and field.
type Error struct {
	Pos   Pos
	Field string
	Msg   string
}

// Error formats the problem as "file:line: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList collects every problem found in a model.
type ErrorList []*Error

// Error joins the problems, one per line.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Add appends a problem.
func (l *ErrorList) Add(pos Pos, field, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// PrestressLoads names the loads an fe-body's <prestress> may give, in
// order: each is stored in Beam.Attr as "prestress-LOAD.I.x|y|z" beside
// the stiffness file "prestress.I" (I = 1, 2, … in the file's order).
func PrestressLoads() [3]string { return [3]string{"omega", "acceleration", "angular-acceleration"} }
