package solver

// This file holds the model specification: plain structs that a model file
// parses into (package mbfmu/xml) and that Compile turns into a Model. Every
// node carries its source position so that errors name file, line and field.

// Pos is a position in a model file.
type Pos struct {
	File string
	Line int
}

// String formats the position as file:line (or just the file, or "").
func (p Pos) String() string {
	switch {
	case p.File == "" && p.Line == 0:
		return ""
	case p.Line == 0:
		return p.File
	}
	return p.File + ":" + itoa(p.Line)
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

// Vec2 is a pair of expressions (x, y).
type Vec2 [2]Expr

// Given reports whether either component was present.
func (v Vec2) Given() bool { return v[0].Given() || v[1].Given() }

// Spec is a whole model as written in a model file.
type Spec struct {
	Name        string
	Description string
	Pos         Pos
	Settings    SettingsSpec
	Params      []ParamSpec
	Inputs      []InputSpec
	Tables      []TableSpec
	Ground      GroundSpec
	Bodies      []BodySpec
	Joints      []JointSpec
	Drivers     []DriverSpec
	Forces      []ForceSpec
	Beams       []BeamSpec
	Contacts    []ContactSpec
	Outputs     []OutputSpec
}

// SettingsSpec holds analysis settings. Zero values mean "use the default".
type SettingsSpec struct {
	Pos        Pos
	Start      float64 // s, default 0
	End        float64 // s, default 1
	Step       float64 // s, integrator (fixed) step or initial step, default 1e-3
	OutputStep float64 // s, results sampling interval, default = Step
	Integrator string  // genalpha (default), hht, newmark, bdf1, bdf2, rk4
	RhoInf     float64 // generalized-α spectral radius at infinity, default 0.8 (negative: use default)
	RhoSet     bool    // RhoInf was given (so 0 is meaningful)
	Alpha      float64 // HHT α in [-1/3, 0], default -0.05
	Beta       float64 // Newmark β, default 0.25 (+ numerical damping if Gamma > 0.5)
	Gamma      float64 // Newmark γ, default 0.5
	// Formulation of the implicit schemes: "index3" (positions constrained
	// directly), "index2" (velocity constraints plus position projection),
	// or "" / "auto": index-2 for schemes without numerical dissipation
	// (ρ∞ = 1, trapezoidal Newmark), where index-3 is only weakly stable.
	Formulation string
	Adaptive    bool    // error-controlled variable step
	RelTol      float64 // default 1e-6 (adaptive)
	AbsTol      float64 // default 1e-8 (adaptive)
	MinStep     float64 // default 1e-10
	MaxStep     float64 // default (End-Start)/10
	NewtonTol   float64 // default 1e-8: stop when |Δq| ≤ tol·(1+|q|) and |Δv| ≤ tol·(1+|v|)
	MaxIter     int     // default 8
	// Baumgarte stabilisation for rk4: Φ'' + 2α Φ' + β² Φ = 0.
	BaumgarteAlpha float64
	BaumgarteBeta  float64
	Gravity        Vec2 // m/s², default (0, -9.81)
}

// ParamSpec is a named parameter that expressions may use. It becomes an
// FMU parameter: tunable if every use of it is re-evaluated during the run
// (force laws, driver functions), fixed otherwise (mass, geometry).
type ParamSpec struct {
	Name, Unit, Description string
	Value                   float64
	Pos                     Pos
}

// InputSpec is a named input (a future FMU input).
type InputSpec struct {
	Name, Unit, Description string
	Start                   float64
	Pos                     Pos
}

// TableSpec is an interpolation table usable as a function name(x).
type TableSpec struct {
	Name string
	Kind string // linear (default), spline, akima
	X, Y []float64
	Pos  Pos
}

// MarkerSpec is a named point (and direction) fixed in a body frame.
type MarkerSpec struct {
	Name  string
	At    Vec2 // m, in the body frame
	Angle Expr // rad, orientation of the marker x axis in the body frame
	Pos   Pos
}

// ShapeSpec is optional drawing geometry for the viewer.
type ShapeSpec struct {
	Outline [][2]float64 // polygon in the body frame, m
	Radius  float64      // circle radius about the body frame origin, m
}

// GroundSpec holds the markers of the fixed ground frame.
type GroundSpec struct {
	Markers []MarkerSpec
	Pos     Pos
}

// BodySpec is a planar rigid body.
type BodySpec struct {
	Name    string
	Mass    Expr // kg, > 0
	Inertia Expr // kg·m², about the centre of mass, > 0
	CM      Vec2 // m, centre of mass in the body frame (default 0, 0)
	At      Vec2 // m, initial position of the body frame origin (approximate: assembled)
	Angle   Expr // rad, initial orientation
	Vel     Vec2 // m/s, initial velocity of the body frame origin (approximate)
	Omega   Expr // rad/s, initial angular velocity
	Markers []MarkerSpec
	Shape   ShapeSpec
	Pos     Pos
}

// JointSpec is a kinematic joint between two markers ("body.marker", or
// "body" for the body frame origin; "ground.marker" for ground).
//
//	revolute:      the two marker origins coincide.
//	translational: marker J's origin stays on the x axis of marker I and the
//	               relative angle stays at its initial value.
//	fixed:         origins coincide and the relative angle stays constant.
type JointSpec struct {
	Kind string
	Name string
	I, J string
	Pos  Pos
}

// DriverSpec prescribes, as a function of time (and inputs, parameters),
// either a joint coordinate (Joint: revolute relative angle, or
// translational displacement along the axis) or a coordinate of a body
// frame (Body with Coord x, y or angle).
type DriverSpec struct {
	Name  string
	Joint string
	Body  string
	Coord string
	Value Expr
	Pos   Pos
}

// ForceSpec is an applied force element.
//
//	force:   point force (FX, FY) at marker I; Frame "global" (default) or
//	         "marker" (components in marker I's frame: a follower force).
//	torque:  torque T on the body of marker I (reaction on J's body if J set).
//	spring:  translational spring–damper between markers I and J:
//	         f = K (l − Length) + C l' + Preload (tension positive).
//	rspring: rotational spring–damper between the bodies of markers I and J:
//	         τ = −K (θJ − θI − Angle) − C (ωJ − ωI) + Preload, acting on J
//	         (and −τ on I).
type ForceSpec struct {
	Kind    string
	Name    string
	I, J    string
	FX, FY  Expr
	T       Expr
	Frame   string
	K, C    Expr
	Length  Expr // free length (spring) — default: initial distance
	Angle   Expr // free angle (rspring) — default: initial relative angle
	Preload Expr
	Pos     Pos
}

// BeamSpec is a flexible beam (issue 6; reserved).
type BeamSpec struct {
	Kind string // ancf, ffr
	Name string
	Pos  Pos
	Attr map[string]Expr
}

// ContactSpec is a contact pair (issue 7; reserved).
type ContactSpec struct {
	Kind string
	Name string
	Pos  Pos
	Attr map[string]Expr
}

// OutputSpec declares an output: a named channel (see Model.Channels), or
// an expression (Expr) with a unit.
type OutputSpec struct {
	Name        string
	Channel     string
	Expr        Expr
	Unit        string
	Description string
	Pos         Pos
}
