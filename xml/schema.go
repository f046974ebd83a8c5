package xml

import "mbfmu/solver"

// This file is the schema of the model format: one table row per element
// and attribute, naming the attribute's value kind, dimension, whether it
// is required and the field of the spec it fills. The parser (parse.go) is
// generic over this table; element-specific rules live in the check
// functions. New <beam> and <contact> kinds are new kindDef rows.

// valKind says how an attribute's text is read.
type valKind int

const (
	vName    valKind = iota // identifier: the element's name
	vText                   // free text
	vEnum                   // one of attrDef.enum
	vRef                    // marker reference: "body.marker" or "body"
	vElemRef                // name of another element (checked by the element's check)
	vExpr                   // solver.Expr: number with optional unit, or SI expression
	vVec                    // solver.Vec2: "x y [unit]" or "expr, expr"
	vNum                    // float64: number with optional unit (no expressions)
	vInt                    // int
	vBool                   // true/false
	vList                   // []float64: plain numbers separated by spaces or commas
	vPoints                 // [][2]float64: "x y; x y; ..."
	vUnit                   // a unit ("N/m"), checked against dim unless Any
	vChannel                // output channel name (checked after the walk)
	vManual                 // read by the element's check function
)

// String names the value kind as the reference documentation does.
func (k valKind) String() string {
	return [...]string{"name", "text", "enum", "marker ref", "name ref", "expr", "vector",
		"number", "integer", "bool", "list", "points", "unit", "channel", "number"}[k]
}

// attrDef is one attribute of an element.
type attrDef struct {
	name     string
	kind     valKind
	dim      Dim
	req      bool
	positive bool     // plain numbers must be > 0
	enum     []string // vEnum: allowed values
	// field returns a pointer to the destination in the element's spec
	// object (*string, *float64, *int, *bool, *solver.Expr,
	// *solver.Vec2, *[]float64, *[][2]float64). nil: the Attr map of a
	// beam or contact (vectors as name.x and name.y).
	field func(obj any) any
}

// namespace is the scope an element's name is unique in.
type namespace int

const (
	nsNone     namespace = iota // unnamed element (settings, shape)
	nsElement                   // bodies, joints, drivers, forces, beams, contacts (channels name them)
	nsVariable                  // parameters, inputs, tables, outputs (FMU variables, expression names)
)

// elemDef is one element of the format.
type elemDef struct {
	name     string
	family   string // reference family: body, joint, driver, force, beam, contact, ...
	ns       namespace
	attrs    []attrDef
	children []*elemDef
	text     bool // character data allowed (table rows)
	once     bool // at most once in its parent
	kinds    []kindDef
	// new returns the object the attributes are written to (it may point
	// into parent); add stores it into parent (nil: nothing to do).
	new   func(parent any) any
	add   func(parent, obj any)
	check func(p *parser, c *elemCtx)
}

// kindDef is a kind of <beam> or <contact>: its own attributes and
// children, stored in the Attr map (provisional).
type kindDef struct {
	name     string
	attrs    []attrDef
	children []*elemDef
}

// attr looks up an attribute of the element (and of the kind, if any).
func (e *elemDef) attr(name string, k *kindDef) *attrDef {
	for i := range e.attrs {
		if e.attrs[i].name == name {
			return &e.attrs[i]
		}
	}
	if k != nil {
		for i := range k.attrs {
			if k.attrs[i].name == name {
				return &k.attrs[i]
			}
		}
	}
	return nil
}

// kind looks up a kind by name.
func (e *elemDef) kind(name string) *kindDef {
	for i := range e.kinds {
		if e.kinds[i].name == name {
			return &e.kinds[i]
		}
	}
	return nil
}

// schema returns the element table, rooted at <model>. It is built on
// each call (the package keeps no state); parsing is not a hot path.
func schema() *elemDef {
	integrators := []string{"genalpha", "hht", "newmark", "bdf1", "bdf2", "rk4"}
	tableKinds := []string{"linear", "spline", "akima"}
	coords := []string{"x", "y", "angle"}
	frames := []string{"global", "marker"}
	marker := &elemDef{
		name: "marker",
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.MarkerSpec).Name }},
			{name: "at", kind: vVec, dim: Length, field: func(o any) any { return &o.(*solver.MarkerSpec).At }},
			{name: "angle", kind: vExpr, dim: Angle, field: func(o any) any { return &o.(*solver.MarkerSpec).Angle }},
		},
		new: func(any) any { return &solver.MarkerSpec{} },
		add: func(parent, obj any) {
			m := *obj.(*solver.MarkerSpec)
			switch p := parent.(type) {
			case *solver.BodySpec:
				p.Markers = append(p.Markers, m)
			case *solver.GroundSpec:
				p.Markers = append(p.Markers, m)
			}
		},
	}
	shape := &elemDef{
		name: "shape", once: true,
		attrs: []attrDef{
			{name: "outline", kind: vPoints, dim: Length, field: func(o any) any { return &o.(*solver.ShapeSpec).Outline }},
			{name: "radius", kind: vNum, dim: Length, positive: true, field: func(o any) any { return &o.(*solver.ShapeSpec).Radius }},
			{name: "unit", kind: vUnit, dim: Length},
		},
		new:   func(parent any) any { return &parent.(*solver.BodySpec).Shape },
		check: (*parser).checkShape,
	}
	settings := &elemDef{
		name: "settings", once: true,
		attrs: []attrDef{
			{name: "start", kind: vNum, dim: Time, field: func(o any) any { return &o.(*solver.SettingsSpec).Start }},
			{name: "end", kind: vNum, dim: Time, field: func(o any) any { return &o.(*solver.SettingsSpec).End }},
			{name: "step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).Step }},
			{name: "output-step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).OutputStep }},
			{name: "integrator", kind: vEnum, enum: integrators, field: func(o any) any { return &o.(*solver.SettingsSpec).Integrator }},
			{name: "rho-inf", kind: vNum, dim: Dimensionless, field: func(o any) any { return &o.(*solver.SettingsSpec).RhoInf }},
			{name: "alpha", kind: vNum, dim: Dimensionless, field: func(o any) any { return &o.(*solver.SettingsSpec).Alpha }},
			{name: "beta", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).Beta }},
			{name: "gamma", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).Gamma }},
			{name: "adaptive", kind: vBool, field: func(o any) any { return &o.(*solver.SettingsSpec).Adaptive }},
			{name: "rel-tol", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).RelTol }},
			{name: "abs-tol", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).AbsTol }},
			{name: "min-step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).MinStep }},
			{name: "max-step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).MaxStep }},
			{name: "newton-tol", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).NewtonTol }},
			{name: "max-iter", kind: vInt, positive: true, field: func(o any) any { return &o.(*solver.SettingsSpec).MaxIter }},
			{name: "baumgarte-alpha", kind: vNum, dim: Frequency, field: func(o any) any { return &o.(*solver.SettingsSpec).BaumgarteAlpha }},
			{name: "baumgarte-beta", kind: vNum, dim: Frequency, field: func(o any) any { return &o.(*solver.SettingsSpec).BaumgarteBeta }},
			{name: "gravity", kind: vVec, dim: Acceleration, field: func(o any) any { return &o.(*solver.SettingsSpec).Gravity }},
		},
		new:   func(parent any) any { return &parent.(*solver.Spec).Settings },
		check: (*parser).checkSettings,
	}
	parameter := &elemDef{
		name: "parameter", family: "parameter", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.ParamSpec).Name }},
			{name: "value", kind: vManual, dim: Any, req: true},
			{name: "unit", kind: vUnit, dim: Any},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*solver.ParamSpec).Description }},
		},
		new: func(any) any { return &solver.ParamSpec{} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Params = append(s.Params, *obj.(*solver.ParamSpec))
		},
		check: (*parser).checkParameter,
	}
	input := &elemDef{
		name: "input", family: "input", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.InputSpec).Name }},
			{name: "unit", kind: vUnit, dim: Any},
			{name: "start", kind: vManual, dim: Any},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*solver.InputSpec).Description }},
		},
		new: func(any) any { return &solver.InputSpec{} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Inputs = append(s.Inputs, *obj.(*solver.InputSpec))
		},
		check: (*parser).checkInput,
	}
	table := &elemDef{
		name: "table", family: "table", ns: nsVariable, text: true,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.TableSpec).Name }},
			{name: "kind", kind: vEnum, enum: tableKinds, field: func(o any) any { return &o.(*solver.TableSpec).Kind }},
			{name: "x", kind: vList, field: func(o any) any { return &o.(*solver.TableSpec).X }},
			{name: "y", kind: vList, field: func(o any) any { return &o.(*solver.TableSpec).Y }},
			{name: "x-unit", kind: vUnit, dim: Any},
			{name: "y-unit", kind: vUnit, dim: Any},
		},
		new: func(any) any { return &solver.TableSpec{} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Tables = append(s.Tables, *obj.(*solver.TableSpec))
		},
		check: (*parser).checkTable,
	}
	ground := &elemDef{
		name: "ground", once: true,
		children: []*elemDef{marker},
		new:      func(parent any) any { return &parent.(*solver.Spec).Ground },
		check:    (*parser).checkMarkers,
	}
	body := &elemDef{
		name: "body", family: "body", ns: nsElement,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.BodySpec).Name }},
			{name: "mass", kind: vExpr, dim: Mass, req: true, positive: true, field: func(o any) any { return &o.(*solver.BodySpec).Mass }},
			{name: "inertia", kind: vExpr, dim: Inertia, req: true, positive: true, field: func(o any) any { return &o.(*solver.BodySpec).Inertia }},
			{name: "cm", kind: vVec, dim: Length, field: func(o any) any { return &o.(*solver.BodySpec).CM }},
			{name: "at", kind: vVec, dim: Length, field: func(o any) any { return &o.(*solver.BodySpec).At }},
			{name: "angle", kind: vExpr, dim: Angle, field: func(o any) any { return &o.(*solver.BodySpec).Angle }},
			{name: "velocity", kind: vVec, dim: Velocity, field: func(o any) any { return &o.(*solver.BodySpec).Vel }},
			{name: "omega", kind: vExpr, dim: AngularVelocity, field: func(o any) any { return &o.(*solver.BodySpec).Omega }},
		},
		children: []*elemDef{marker, shape},
		new:      func(any) any { return &solver.BodySpec{} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Bodies = append(s.Bodies, *obj.(*solver.BodySpec))
		},
		check: (*parser).checkMarkers,
	}
	joint := func(kind string) *elemDef {
		return &elemDef{
			name: kind, family: "joint", ns: nsElement,
			attrs: []attrDef{
				{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.JointSpec).Name }},
				{name: "i", kind: vRef, req: true, field: func(o any) any { return &o.(*solver.JointSpec).I }},
				{name: "j", kind: vRef, req: true, field: func(o any) any { return &o.(*solver.JointSpec).J }},
			},
			new: func(any) any { return &solver.JointSpec{Kind: kind} },
			add: func(parent, obj any) {
				s := parent.(*solver.Spec)
				s.Joints = append(s.Joints, *obj.(*solver.JointSpec))
			},
			check: (*parser).checkJoint,
		}
	}
	driver := &elemDef{
		name: "driver", family: "driver", ns: nsElement,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.DriverSpec).Name }},
			{name: "joint", kind: vElemRef, field: func(o any) any { return &o.(*solver.DriverSpec).Joint }},
			{name: "body", kind: vElemRef, field: func(o any) any { return &o.(*solver.DriverSpec).Body }},
			{name: "coord", kind: vEnum, enum: coords, field: func(o any) any { return &o.(*solver.DriverSpec).Coord }},
			// Dimension is angle or length depending on what is driven:
			// checked after the walk.
			{name: "value", kind: vExpr, dim: Any, req: true, field: func(o any) any { return &o.(*solver.DriverSpec).Value }},
		},
		new: func(any) any { return &solver.DriverSpec{} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Drivers = append(s.Drivers, *obj.(*solver.DriverSpec))
		},
		check: (*parser).checkDriver,
	}
	force := func(kind string, attrs ...attrDef) *elemDef {
		common := []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.ForceSpec).Name }},
		}
		return &elemDef{
			name: kind, family: "force", ns: nsElement,
			attrs: append(common, attrs...),
			new:   func(any) any { return &solver.ForceSpec{Kind: kind} },
			add: func(parent, obj any) {
				s := parent.(*solver.Spec)
				s.Forces = append(s.Forces, *obj.(*solver.ForceSpec))
			},
		}
	}
	fI := func(req bool) attrDef {
		return attrDef{name: "i", kind: vRef, req: req, field: func(o any) any { return &o.(*solver.ForceSpec).I }}
	}
	fJ := func(req bool) attrDef {
		return attrDef{name: "j", kind: vRef, req: req, field: func(o any) any { return &o.(*solver.ForceSpec).J }}
	}
	fExpr := func(name string, dim Dim, req bool, field func(*solver.ForceSpec) *solver.Expr) attrDef {
		return attrDef{name: name, kind: vExpr, dim: dim, req: req, field: func(o any) any { return field(o.(*solver.ForceSpec)) }}
	}
	pointForce := force("force", fI(true),
		fExpr("fx", Force, false, func(f *solver.ForceSpec) *solver.Expr { return &f.FX }),
		fExpr("fy", Force, false, func(f *solver.ForceSpec) *solver.Expr { return &f.FY }),
		attrDef{name: "frame", kind: vEnum, enum: frames, field: func(o any) any { return &o.(*solver.ForceSpec).Frame }},
	)
	torque := force("torque", fI(true), fJ(false),
		fExpr("t", Torque, true, func(f *solver.ForceSpec) *solver.Expr { return &f.T }),
	)
	spring := force("spring", fI(true), fJ(true),
		fExpr("k", Stiffness, false, func(f *solver.ForceSpec) *solver.Expr { return &f.K }),
		fExpr("c", Damping, false, func(f *solver.ForceSpec) *solver.Expr { return &f.C }),
		fExpr("length", Length, false, func(f *solver.ForceSpec) *solver.Expr { return &f.Length }),
		fExpr("preload", Force, false, func(f *solver.ForceSpec) *solver.Expr { return &f.Preload }),
	)
	rspring := force("rspring", fI(true), fJ(true),
		fExpr("k", RotStiffness, false, func(f *solver.ForceSpec) *solver.Expr { return &f.K }),
		fExpr("c", RotDamping, false, func(f *solver.ForceSpec) *solver.Expr { return &f.C }),
		fExpr("angle", Angle, false, func(f *solver.ForceSpec) *solver.Expr { return &f.Angle }),
		fExpr("preload", Torque, false, func(f *solver.ForceSpec) *solver.Expr { return &f.Preload }),
	)
	beam := &elemDef{
		name: "beam", family: "beam", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.BeamSpec).Name }},
		},
		kinds: beamKinds(),
		check: (*parser).checkMarkers,
		new:   func(any) any { return &solver.BeamSpec{Attr: map[string]solver.Expr{}} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Beams = append(s.Beams, *obj.(*solver.BeamSpec))
		},
	}
	contact := &elemDef{
		name: "contact", family: "contact", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.ContactSpec).Name }},
		},
		kinds: contactKinds(),
		new:   func(any) any { return &solver.ContactSpec{Attr: map[string]solver.Expr{}} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Contacts = append(s.Contacts, *obj.(*solver.ContactSpec))
		},
	}
	output := &elemDef{
		name: "output", family: "output", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.OutputSpec).Name }},
			{name: "channel", kind: vChannel, field: func(o any) any { return &o.(*solver.OutputSpec).Channel }},
			{name: "expr", kind: vExpr, dim: Any, field: func(o any) any { return &o.(*solver.OutputSpec).Expr }},
			{name: "unit", kind: vUnit, dim: Any, field: func(o any) any { return &o.(*solver.OutputSpec).Unit }},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*solver.OutputSpec).Description }},
		},
		new: func(any) any { return &solver.OutputSpec{} },
		add: func(parent, obj any) {
			s := parent.(*solver.Spec)
			s.Outputs = append(s.Outputs, *obj.(*solver.OutputSpec))
		},
		check: (*parser).checkOutput,
	}
	return &elemDef{
		name: "model",
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*solver.Spec).Name }},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*solver.Spec).Description }},
		},
		children: []*elemDef{settings, parameter, input, table, ground, body,
			joint("revolute"), joint("translational"), joint("fixed"),
			driver, pointForce, torque, spring, rspring, beam, contact, output},
	}
}

// beamKinds lists the flexible beam kinds. The attributes are stored in
// BeamSpec.Attr (SI units; vectors as name.x, name.y; enums and marker
// references as their text); each child <marker name s> as "marker.NAME"
// holding s. The solver reads them in solver/flexible.go.
func beamKinds() []kindDef {
	beamMarker := &elemDef{
		name: "marker",
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*beamMarker).name }},
			{name: "s", kind: vExpr, dim: Length, req: true, field: func(o any) any { return &o.(*beamMarker).s }},
		},
		new: func(any) any { return &beamMarker{} },
		add: func(parent, obj any) {
			if m := obj.(*beamMarker); m.name != "" {
				parent.(*solver.BeamSpec).Attr["marker."+m.name] = m.s
			}
		},
	}
	section := []attrDef{
		{name: "length", kind: vExpr, dim: Length, req: true, positive: true},
		{name: "elements", kind: vExpr, dim: Dimensionless, positive: true},
		{name: "area", kind: vExpr, dim: Area, req: true, positive: true},
		{name: "area-moment", kind: vExpr, dim: AreaMoment, req: true, positive: true},
		{name: "youngs", kind: vExpr, dim: Pressure, req: true, positive: true},
		{name: "density", kind: vExpr, dim: Density, req: true, positive: true},
		{name: "damping", kind: vExpr, dim: Time},
	}
	with := func(a []attrDef, extra ...attrDef) []attrDef {
		return append(append([]attrDef{}, a...), extra...)
	}
	return []kindDef{
		{name: "ancf", attrs: with(section,
			attrDef{name: "at", kind: vVec, dim: Length, req: true},
			attrDef{name: "angle", kind: vExpr, dim: Angle},
			attrDef{name: "velocity", kind: vVec, dim: Velocity},
			attrDef{name: "omega", kind: vExpr, dim: AngularVelocity},
			attrDef{name: "i", kind: vRef},
			attrDef{name: "j", kind: vRef},
		), children: []*elemDef{beamMarker}},
		{name: "ffr", attrs: with([]attrDef{{name: "i", kind: vRef, req: true}}, append(section,
			attrDef{name: "coupling", kind: vEnum, enum: []string{"zero-order", "stiffened"}},
			attrDef{name: "reduction", kind: vEnum, enum: []string{"none", "modal", "krylov", "craig-bampton"}},
			attrDef{name: "modes", kind: vExpr, dim: Dimensionless, positive: true},
			attrDef{name: "sigma", kind: vExpr, dim: AngularVelocity},
			attrDef{name: "krylov-input", kind: vEnum, enum: []string{"both", "transverse"}},
		)...), children: []*elemDef{beamMarker}},
	}
}

// contactKinds lists the contact kinds (attributes in ContactSpec.Attr, SI
// units; compiled by solver/contacts.go, described in docs/contact.md).
// Every kind is a point or circle on the body of marker i against a line,
// segment or circle on the body of marker j, with the same force-law and
// friction attributes.
func contactKinds() []kindDef {
	common := func(extra ...attrDef) []attrDef {
		return append(extra,
			attrDef{name: "law", kind: vEnum, enum: []string{"spring-damper", "hertz", "hunt-crossley"}},
			attrDef{name: "k", kind: vExpr, dim: Any, req: true, positive: true},
			attrDef{name: "exponent", kind: vExpr, dim: Dimensionless, positive: true},
			attrDef{name: "c", kind: vExpr, dim: Any},
			attrDef{name: "dmax", kind: vExpr, dim: Length, positive: true},
			attrDef{name: "restitution", kind: vExpr, dim: Dimensionless, positive: true},
			attrDef{name: "friction", kind: vEnum, enum: []string{"none", "coulomb", "regularized"}},
			attrDef{name: "mu-static", kind: vExpr, dim: Dimensionless},
			attrDef{name: "mu-dynamic", kind: vExpr, dim: Dimensionless},
			attrDef{name: "v-static", kind: vExpr, dim: Velocity, positive: true},
			attrDef{name: "v-dynamic", kind: vExpr, dim: Velocity, positive: true},
		)
	}
	i := attrDef{name: "i", kind: vRef, req: true}
	j := attrDef{name: "j", kind: vRef, req: true}
	jEnd := attrDef{name: "j-end", kind: vRef, req: true}
	radius := attrDef{name: "radius", kind: vExpr, dim: Length, req: true, positive: true}
	thick := attrDef{name: "radius-j", kind: vExpr, dim: Length}
	return []kindDef{
		{name: "circle-line", attrs: common(i, radius, j)},
		{name: "point-line", attrs: common(i, j)},
		{name: "circle-segment", attrs: common(i, radius, j, jEnd, thick)},
		{name: "point-segment", attrs: common(i, j, jEnd, thick)},
		{name: "circle-circle", attrs: common(i,
			attrDef{name: "radius-i", kind: vExpr, dim: Length, req: true, positive: true}, j,
			attrDef{name: "radius-j", kind: vExpr, dim: Length, req: true},
		)},
		{name: "point-circle", attrs: common(i, j,
			attrDef{name: "radius-j", kind: vExpr, dim: Length, req: true},
		)},
	}
}

// beamMarker is a <marker> of a beam: a point at arc length s from the
// beam's start, stored in BeamSpec.Attr as "marker.NAME".
type beamMarker struct {
	name string
	s    solver.Expr
}
