package xml

import (
	"fmt"
	"sort"
	"strings"

	"mbfmu/spec"
)

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
	vExpr                   // spec.Expr: number with optional unit, or SI expression
	vVec                    // spec.Vec: "x y [unit]" or "expr, expr"
	vNum                    // float64: number with optional unit (no expressions)
	vInt                    // int
	vBool                   // true/false
	vList                   // []float64: plain numbers separated by spaces or commas
	vPoints                 // [][2]float64: "x y; x y; ..."
	vUnit                   // a unit ("N/m"), checked against dim unless Any
	vChannel                // output channel name (checked after the walk)
	vManual                 // read by the element's check function
	vQuat                   // [4]spec.Expr: a quaternion "w x y z" or "w, x, y, z"
	vTensor                 // [6]spec.Expr: inertia "Jxx Jyy Jzz [Jxy Jxz Jyz] [unit]"
	vVec6                   // [6]spec.Expr: six components of the dimensions attrDef.dims
)

// String names the value kind as the reference documentation does.
func (k valKind) String() string {
	return [...]string{"name", "text", "enum", "marker ref", "name ref", "expr", "vector",
		"number", "integer", "bool", "list", "points", "unit", "channel", "number",
		"quaternion", "tensor", "6-vector"}[k]
}

// attrDef is one attribute of an element.
type attrDef struct {
	name     string
	kind     valKind
	dim      Dim
	req      bool
	positive bool     // plain numbers must be > 0
	enum     []string // vEnum: allowed values
	dims     []Dim    // vVec6: the dimension of each component (dim is unused)
	// hint replaces the bad-vector message when a vector attribute is
	// given a single value: the planar meaning of the attribute and its
	// spatial form.
	hint string
	// aliases maps other accepted names of a vEnum value to the value
	// stored (integrator="euler" stores "bdf1").
	aliases map[string]string
	// field returns a pointer to the destination in the element's spec
	// object (*string, *float64, *int, *bool, *spec.Expr,
	// *spec.Vec, *[4]spec.Expr, *[6]spec.Expr, *[]float64,
	// *[][2]float64). nil: the Attr map of a beam or contact (vectors as
	// name.x, name.y and, in a spatial model, name.z).
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
	// planarHints holds the messages for what a spatial element refuses
	// because it is planar: an attribute ("t"), a child ("<shape>") or a
	// kind ("kind:circle-line"), each saying what to write instead.
	planarHints map[string]string
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

// IntegratorNames returns the names of the integrators, as
// <settings integrator="..."> and the command line's --integrator take them
// and as results and summaries report them.
func IntegratorNames() []string {
	return []string{"genalpha", "hht", "newmark", "bdf1", "bdf2", "rk4"}
}

// integratorAliases maps the other names the engine knows to the names of
// IntegratorNames.
func integratorAliases() map[string]string {
	return map[string]string{
		"generalized-alpha": "genalpha", "gen-alpha": "genalpha",
		"hht-alpha": "hht",
		"euler":     "bdf1", "implicit-euler": "bdf1",
		"bdf": "bdf2",
	}
}

// CanonicalIntegrator returns the integrator called name (one of
// IntegratorNames, or an alias: euler and implicit-euler for bdf1, bdf for
// bdf2, hht-alpha for hht, gen-alpha and generalized-alpha for genalpha)
// by its name in IntegratorNames. It returns an error listing the names
// when name is none of them.
func CanonicalIntegrator(name string) (string, error) {
	n := strings.TrimSpace(name)
	for _, c := range IntegratorNames() {
		if n == c {
			return c, nil
		}
	}
	if c, ok := integratorAliases()[n]; ok {
		return c, nil
	}
	return "", fmt.Errorf("unknown integrator %q; want one of %s (aliases: %s)%s", name,
		strings.Join(IntegratorNames(), ", "), aliasList(IntegratorNames(), integratorAliases()), DidYouMean(n, append(IntegratorNames(), sortedAliasNames(integratorAliases())...)))
}

// aliasList formats the aliases of the values of enum, in its order:
// "gen-alpha, generalized-alpha for genalpha; euler, implicit-euler for bdf1".
func aliasList(enum []string, m map[string]string) string {
	var parts []string
	for _, v := range enum {
		var names []string
		for _, k := range sortedAliasNames(m) {
			if m[k] == v {
				names = append(names, k)
			}
		}
		if len(names) > 0 {
			parts = append(parts, strings.Join(names, ", ")+" for "+v)
		}
	}
	return strings.Join(parts, "; ")
}

func sortedAliasNames(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// schema returns the element table, rooted at <model>. It is built on
// each call (the package keeps no state); parsing is not a hot path.
func schema() *elemDef {
	integrators := IntegratorNames()
	tableKinds := []string{"linear", "spline", "akima"}
	coords := []string{"x", "y", "angle"}
	frames := []string{"global", "marker"}
	marker := &elemDef{
		name: "marker",
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Marker).Name }},
			{name: "at", kind: vVec, dim: Length, field: func(o any) any { return &o.(*spec.Marker).At }},
			{name: "angle", kind: vExpr, dim: Angle, field: func(o any) any { return &o.(*spec.Marker).Angle }},
		},
		new: func(any) any { return &spec.Marker{} },
		add: func(parent, obj any) {
			m := *obj.(*spec.Marker)
			switch p := parent.(type) {
			case *spec.Body:
				p.Markers = append(p.Markers, m)
			case *spec.Ground:
				p.Markers = append(p.Markers, m)
			}
		},
	}
	shape := &elemDef{
		name: "shape", once: true,
		attrs: []attrDef{
			{name: "outline", kind: vPoints, dim: Length, field: func(o any) any { return &o.(*spec.Shape).Outline }},
			{name: "radius", kind: vNum, dim: Length, positive: true, field: func(o any) any { return &o.(*spec.Shape).Radius }},
			{name: "unit", kind: vUnit, dim: Length},
		},
		new:   func(parent any) any { return &parent.(*spec.Body).Shape },
		check: (*parser).checkShape,
	}
	settings := &elemDef{
		name: "settings", once: true,
		attrs: []attrDef{
			{name: "start", kind: vNum, dim: Time, field: func(o any) any { return &o.(*spec.Settings).Start }},
			{name: "end", kind: vNum, dim: Time, field: func(o any) any { return &o.(*spec.Settings).End }},
			{name: "step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*spec.Settings).Step }},
			{name: "output-step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*spec.Settings).OutputStep }},
			{name: "integrator", kind: vEnum, enum: integrators, aliases: integratorAliases(), field: func(o any) any { return &o.(*spec.Settings).Integrator }},
			{name: "formulation", kind: vEnum, enum: []string{"auto", "index3", "index2"}, aliases: map[string]string{"index-3": "index3", "index-2": "index2"}, field: func(o any) any { return &o.(*spec.Settings).Formulation }},
			{name: "rho-inf", kind: vNum, dim: Dimensionless, field: func(o any) any { return &o.(*spec.Settings).RhoInf }},
			{name: "alpha", kind: vNum, dim: Dimensionless, field: func(o any) any { return &o.(*spec.Settings).Alpha }},
			{name: "beta", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*spec.Settings).Beta }},
			{name: "gamma", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*spec.Settings).Gamma }},
			{name: "adaptive", kind: vBool, field: func(o any) any { return &o.(*spec.Settings).Adaptive }},
			{name: "rel-tol", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*spec.Settings).RelTol }},
			{name: "abs-tol", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*spec.Settings).AbsTol }},
			{name: "min-step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*spec.Settings).MinStep }},
			{name: "max-step", kind: vNum, dim: Time, positive: true, field: func(o any) any { return &o.(*spec.Settings).MaxStep }},
			{name: "newton-tol", kind: vNum, dim: Dimensionless, positive: true, field: func(o any) any { return &o.(*spec.Settings).NewtonTol }},
			{name: "max-iter", kind: vInt, positive: true, field: func(o any) any { return &o.(*spec.Settings).MaxIter }},
			{name: "baumgarte-alpha", kind: vNum, dim: Frequency, field: func(o any) any { return &o.(*spec.Settings).BaumgarteAlpha }},
			{name: "baumgarte-beta", kind: vNum, dim: Frequency, field: func(o any) any { return &o.(*spec.Settings).BaumgarteBeta }},
			{name: "gravity", kind: vVec, dim: Acceleration, field: func(o any) any { return &o.(*spec.Settings).Gravity }},
		},
		new:   func(parent any) any { return &parent.(*spec.Model).Settings },
		check: (*parser).checkSettings,
	}
	parameter := &elemDef{
		name: "parameter", family: "parameter", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Param).Name }},
			{name: "value", kind: vManual, dim: Any, req: true},
			{name: "unit", kind: vUnit, dim: Any},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*spec.Param).Description }},
		},
		new: func(any) any { return &spec.Param{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Params = append(s.Params, *obj.(*spec.Param))
		},
		check: (*parser).checkParameter,
	}
	input := &elemDef{
		name: "input", family: "input", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Input).Name }},
			{name: "unit", kind: vUnit, dim: Any},
			{name: "start", kind: vManual, dim: Any},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*spec.Input).Description }},
		},
		new: func(any) any { return &spec.Input{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Inputs = append(s.Inputs, *obj.(*spec.Input))
		},
		check: (*parser).checkInput,
	}
	table := &elemDef{
		name: "table", family: "table", ns: nsVariable, text: true,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Table).Name }},
			{name: "kind", kind: vEnum, enum: tableKinds, field: func(o any) any { return &o.(*spec.Table).Kind }},
			{name: "x", kind: vList, field: func(o any) any { return &o.(*spec.Table).X }},
			{name: "y", kind: vList, field: func(o any) any { return &o.(*spec.Table).Y }},
			{name: "x-unit", kind: vUnit, dim: Any},
			{name: "y-unit", kind: vUnit, dim: Any},
		},
		new: func(any) any { return &spec.Table{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Tables = append(s.Tables, *obj.(*spec.Table))
		},
		check: (*parser).checkTable,
	}
	ground := &elemDef{
		name: "ground", once: true,
		children: []*elemDef{marker},
		new:      func(parent any) any { return &parent.(*spec.Model).Ground },
		check:    (*parser).checkMarkers,
	}
	body := &elemDef{
		name: "body", family: "body", ns: nsElement,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Body).Name }},
			{name: "mass", kind: vExpr, dim: Mass, req: true, positive: true, field: func(o any) any { return &o.(*spec.Body).Mass }},
			{name: "inertia", kind: vExpr, dim: Inertia, req: true, positive: true, field: func(o any) any { return &o.(*spec.Body).Inertia }},
			{name: "cm", kind: vVec, dim: Length, field: func(o any) any { return &o.(*spec.Body).CM }},
			{name: "at", kind: vVec, dim: Length, field: func(o any) any { return &o.(*spec.Body).At }},
			{name: "angle", kind: vExpr, dim: Angle, field: func(o any) any { return &o.(*spec.Body).Angle }},
			{name: "velocity", kind: vVec, dim: Velocity, field: func(o any) any { return &o.(*spec.Body).Vel }},
			{name: "omega", kind: vExpr, dim: AngularVelocity, field: func(o any) any { return &o.(*spec.Body).Omega }},
		},
		children: []*elemDef{marker, shape},
		new:      func(any) any { return &spec.Body{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Bodies = append(s.Bodies, *obj.(*spec.Body))
		},
		check: (*parser).checkMarkers,
	}
	joint := func(kind string) *elemDef {
		return &elemDef{
			name: kind, family: "joint", ns: nsElement,
			attrs: []attrDef{
				{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Joint).Name }},
				{name: "i", kind: vRef, req: true, field: func(o any) any { return &o.(*spec.Joint).I }},
				{name: "j", kind: vRef, req: true, field: func(o any) any { return &o.(*spec.Joint).J }},
			},
			new: func(any) any { return &spec.Joint{Kind: kind} },
			add: func(parent, obj any) {
				s := parent.(*spec.Model)
				s.Joints = append(s.Joints, *obj.(*spec.Joint))
			},
			check: (*parser).checkJoint,
		}
	}
	driver := driverDef(coords, (*parser).checkDriver)
	force := func(kind string, attrs ...attrDef) *elemDef {
		common := []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Force).Name }},
		}
		return &elemDef{
			name: kind, family: "force", ns: nsElement,
			attrs: append(common, attrs...),
			new:   func(any) any { return &spec.Force{Kind: kind} },
			add: func(parent, obj any) {
				s := parent.(*spec.Model)
				s.Forces = append(s.Forces, *obj.(*spec.Force))
			},
		}
	}
	fI := func(req bool) attrDef {
		return attrDef{name: "i", kind: vRef, req: req, field: func(o any) any { return &o.(*spec.Force).I }}
	}
	fJ := func(req bool) attrDef {
		return attrDef{name: "j", kind: vRef, req: req, field: func(o any) any { return &o.(*spec.Force).J }}
	}
	fExpr := func(name string, dim Dim, req bool, field func(*spec.Force) *spec.Expr) attrDef {
		return attrDef{name: name, kind: vExpr, dim: dim, req: req, field: func(o any) any { return field(o.(*spec.Force)) }}
	}
	pointForce := force("force", fI(true),
		fExpr("fx", Force, false, func(f *spec.Force) *spec.Expr { return &f.FX }),
		fExpr("fy", Force, false, func(f *spec.Force) *spec.Expr { return &f.FY }),
		attrDef{name: "frame", kind: vEnum, enum: frames, field: func(o any) any { return &o.(*spec.Force).Frame }},
	)
	torque := force("torque", fI(true), fJ(false),
		fExpr("t", Torque, true, func(f *spec.Force) *spec.Expr { return &f.T }),
	)
	spring := force("spring", fI(true), fJ(true),
		fExpr("k", Stiffness, false, func(f *spec.Force) *spec.Expr { return &f.K }),
		fExpr("c", Damping, false, func(f *spec.Force) *spec.Expr { return &f.C }),
		fExpr("length", Length, false, func(f *spec.Force) *spec.Expr { return &f.Length }),
		fExpr("preload", Force, false, func(f *spec.Force) *spec.Expr { return &f.Preload }),
	)
	rspring := force("rspring", fI(true), fJ(true),
		fExpr("k", RotStiffness, false, func(f *spec.Force) *spec.Expr { return &f.K }),
		fExpr("c", RotDamping, false, func(f *spec.Force) *spec.Expr { return &f.C }),
		fExpr("angle", Angle, false, func(f *spec.Force) *spec.Expr { return &f.Angle }),
		fExpr("preload", Torque, false, func(f *spec.Force) *spec.Expr { return &f.Preload }),
	)
	beam := &elemDef{
		name: "beam", family: "beam", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Beam).Name }},
		},
		kinds: beamKinds(),
		check: (*parser).checkMarkers,
		new:   func(any) any { return &spec.Beam{Attr: map[string]spec.Expr{}} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Beams = append(s.Beams, *obj.(*spec.Beam))
		},
	}
	contact := &elemDef{
		name: "contact", family: "contact", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Contact).Name }},
		},
		kinds: contactKinds(),
		new:   func(any) any { return &spec.Contact{Attr: map[string]spec.Expr{}} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Contacts = append(s.Contacts, *obj.(*spec.Contact))
		},
	}
	output := &elemDef{
		name: "output", family: "output", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Output).Name }},
			{name: "channel", kind: vChannel, field: func(o any) any { return &o.(*spec.Output).Channel }},
			{name: "expr", kind: vExpr, dim: Any, field: func(o any) any { return &o.(*spec.Output).Expr }},
			{name: "unit", kind: vUnit, dim: Any, field: func(o any) any { return &o.(*spec.Output).Unit }},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*spec.Output).Description }},
		},
		new: func(any) any { return &spec.Output{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Outputs = append(s.Outputs, *obj.(*spec.Output))
		},
		check: (*parser).checkOutput,
	}
	coupler, stop, motor, fric := driveElems()
	state, variable := userElems()
	return &elemDef{
		name:  "model",
		attrs: modelAttrs(),
		children: []*elemDef{settings, parameter, input, table, ground, body,
			joint("revolute"), joint("translational"), joint("fixed"),
			driver, pointForce, torque, spring, rspring, beam, contact, coupler, stop, motor, fric, state, variable, output},
		check: (*parser).checkModel,
	}
}

// userElems are <state> and <variable>, the user's differential and
// algebraic variables (planar and spatial).
func userElems() (state, variable *elemDef) {
	state = &elemDef{
		name: "state", family: "state", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.State).Name }},
			{name: "rate", kind: vExpr, dim: Any, req: true, field: func(o any) any { return &o.(*spec.State).Rate }},
			{name: "initial", kind: vExpr, dim: Any, field: func(o any) any { return &o.(*spec.State).Initial }},
			{name: "unit", kind: vUnit, dim: Any, field: func(o any) any { return &o.(*spec.State).Unit }},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*spec.State).Description }},
		},
		new: func(any) any { return &spec.State{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.States = append(s.States, *obj.(*spec.State))
		},
		check: (*parser).checkUserUnit,
	}
	variable = &elemDef{
		name: "variable", family: "variable", ns: nsVariable,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Variable).Name }},
			{name: "value", kind: vExpr, dim: Any, req: true, field: func(o any) any { return &o.(*spec.Variable).Value }},
			{name: "unit", kind: vUnit, dim: Any, field: func(o any) any { return &o.(*spec.Variable).Unit }},
			{name: "description", kind: vText, field: func(o any) any { return &o.(*spec.Variable).Description }},
		},
		new: func(any) any { return &spec.Variable{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Variables = append(s.Variables, *obj.(*spec.Variable))
		},
		check: (*parser).checkUserUnit,
	}
	return state, variable
}

// modelAttrs are the attributes of <model>, planar or spatial. Parse reads
// dimension before anything else to choose the schema.
func modelAttrs() []attrDef {
	return []attrDef{
		{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Model).Name }},
		{name: "description", kind: vText, field: func(o any) any { return &o.(*spec.Model).Description }},
		{name: "dimension", kind: vInt, field: func(o any) any { return &o.(*spec.Model).Dimension }},
	}
}

// beamSection lists the length, element count, section and material
// attributes of the planar beams and of the spatial ANCF cable.
func beamSection() []attrDef {
	return []attrDef{
		{name: "length", kind: vExpr, dim: Length, req: true, positive: true},
		{name: "elements", kind: vExpr, dim: Dimensionless, positive: true},
		{name: "area", kind: vExpr, dim: Area, req: true, positive: true},
		{name: "area-moment", kind: vExpr, dim: AreaMoment, req: true, positive: true},
		{name: "youngs", kind: vExpr, dim: Pressure, req: true, positive: true},
		{name: "density", kind: vExpr, dim: Density, req: true, positive: true},
		{name: "damping", kind: vExpr, dim: Time},
	}
}

// adaptiveAttrs are the attributes of seed 004's adaptive modal selection
// on ANCF beams (solver/flex/adaptive.go).
func adaptiveAttrs() []attrDef {
	return []attrDef{
		{name: "reduction", kind: vEnum, enum: []string{"none", "adaptive"}},
		{name: "sparsity", kind: vExpr, dim: Dimensionless, positive: true},
		{name: "samples", kind: vExpr, dim: Dimensionless, positive: true},
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
			{name: "fiber-y", kind: vExpr, dim: Length, field: func(o any) any { return &o.(*beamMarker).fy }},
			{name: "fiber-z", kind: vExpr, dim: Length, field: func(o any) any { return &o.(*beamMarker).fz }},
		},
		new: func(any) any { return &beamMarker{} },
		add: func(parent, obj any) {
			if m := obj.(*beamMarker); m.name != "" {
				parent.(*spec.Beam).Attr["marker."+m.name] = m.s
				if m.fy.Given() || m.fz.Given() {
					m.fy.Field, m.fz.Field = "fiber-y", "fiber-z"
					parent.(*spec.Beam).Attr["fiber."+m.name+".y"] = m.fy
					parent.(*spec.Beam).Attr["fiber."+m.name+".z"] = m.fz
				}
			}
		},
	}
	section := beamSection()
	with := func(a []attrDef, extra ...attrDef) []attrDef {
		return append(append([]attrDef{}, a...), extra...)
	}
	return []kindDef{
		{name: "ancf", attrs: append(with(section,
			attrDef{name: "at", kind: vVec, dim: Length, req: true},
			attrDef{name: "angle", kind: vExpr, dim: Angle},
			attrDef{name: "velocity", kind: vVec, dim: Velocity},
			attrDef{name: "omega", kind: vExpr, dim: AngularVelocity},
			attrDef{name: "i", kind: vRef},
			attrDef{name: "j", kind: vRef},
			attrDef{name: "curvature", kind: vEnum, enum: []string{"small-strain", "exact"}},
			attrDef{name: "axial-strain", kind: vEnum, enum: []string{"green", "engineering"}},
			attrDef{name: "gauss-points", kind: vExpr, dim: Dimensionless, positive: true},
		), adaptiveAttrs()...), children: []*elemDef{beamMarker}},
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
	common := func(extra ...attrDef) []attrDef { return append(extra, contactLaw()...) }
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

// driveElems are <coupler> (kinds gear, belt, rack, screw, linear),
// <stop> and <motor>, planar or spatial (solver/rigid/drivetrain.go).
func driveElems() (coupler, stop, motor, fric *elemDef) {
	add := func(parent, obj any) {
		s := parent.(*spec.Model)
		s.Drives = append(s.Drives, *obj.(*spec.Drive))
	}
	coord := func(name string) attrDef {
		return attrDef{name: name, kind: vEnum, enum: []string{"angle", "disp"}}
	}
	common := func(extra ...attrDef) []attrDef {
		return append(extra,
			coord("coord-i"), coord("coord-j"),
			attrDef{name: "stiffness", kind: vExpr, dim: Any, positive: true},
			attrDef{name: "damping", kind: vExpr, dim: Any},
			attrDef{name: "backlash", kind: vExpr, dim: Any},
			attrDef{name: "efficiency", kind: vExpr, dim: Dimensionless},
		)
	}
	ratio := attrDef{name: "ratio", kind: vExpr, dim: Dimensionless, req: true, positive: true}
	coupler = &elemDef{
		name: "coupler", family: "coupler", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Drive).Name }},
			{name: "i", kind: vElemRef, req: true, field: func(o any) any { return &o.(*spec.Drive).I }},
			{name: "j", kind: vElemRef, req: true, field: func(o any) any { return &o.(*spec.Drive).J }},
		},
		kinds: []kindDef{
			{name: "gear", attrs: common(ratio, attrDef{name: "internal", kind: vBool})},
			{name: "belt", attrs: common(ratio)},
			{name: "rack", attrs: common(attrDef{name: "radius", kind: vExpr, dim: Length, req: true})},
			{name: "screw", attrs: common(attrDef{name: "lead", kind: vExpr, dim: Length, req: true})},
			{name: "linear", attrs: common(attrDef{name: "ratio", kind: vExpr, dim: Any, req: true})},
		},
		new: func(any) any { return &spec.Drive{Attr: map[string]spec.Expr{}} },
		add: add,
	}
	stop = &elemDef{
		name: "stop", family: "coupler", ns: nsElement,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Drive).Name }},
			{name: "joint", kind: vElemRef, req: true, field: func(o any) any { return &o.(*spec.Drive).I }},
			coord("coord"),
			{name: "lower", kind: vExpr, dim: Any},
			{name: "upper", kind: vExpr, dim: Any},
			{name: "k", kind: vExpr, dim: Any, req: true, positive: true},
			{name: "c", kind: vExpr, dim: Any},
			{name: "exponent", kind: vExpr, dim: Dimensionless, positive: true},
			{name: "restitution", kind: vExpr, dim: Dimensionless},
		},
		new: func(any) any { return &spec.Drive{Kind: "stop", Attr: map[string]spec.Expr{}} },
		add: add,
	}
	motor = &elemDef{
		name: "motor", family: "coupler", ns: nsElement,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Drive).Name }},
			{name: "joint", kind: vElemRef, req: true, field: func(o any) any { return &o.(*spec.Drive).I }},
			coord("coord"),
			{name: "voltage", kind: vExpr, dim: Any, req: true},
			{name: "resistance", kind: vExpr, dim: Any, req: true, positive: true},
			{name: "inductance", kind: vExpr, dim: Any},
			{name: "kt", kind: vExpr, dim: Any, req: true, positive: true},
			{name: "ke", kind: vExpr, dim: Any},
			{name: "rotor-inertia", kind: vExpr, dim: Any},
			{name: "current-limit", kind: vExpr, dim: Any, positive: true},
			{name: "current", kind: vExpr, dim: Any},
		},
		new: func(any) any { return &spec.Drive{Kind: "motor", Attr: map[string]spec.Expr{}} },
		add: add,
	}
	fric = &elemDef{
		name: "friction", family: "coupler", ns: nsElement,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Drive).Name }},
			{name: "joint", kind: vElemRef, req: true, field: func(o any) any { return &o.(*spec.Drive).I }},
			coord("coord"),
			{name: "model", kind: vEnum, enum: []string{"coulomb", "lugre"}},
			{name: "preload", kind: vExpr, dim: Any},
			{name: "mu-static", kind: vExpr, dim: Dimensionless},
			{name: "mu-kinetic", kind: vExpr, dim: Dimensionless},
			{name: "normal", kind: vExpr, dim: Force},
			{name: "radius", kind: vExpr, dim: Length},
			{name: "v-stribeck", kind: vExpr, dim: Any, positive: true},
			{name: "viscous", kind: vExpr, dim: Any},
			{name: "bristle-stiffness", kind: vExpr, dim: Any, positive: true},
			{name: "bristle-damping", kind: vExpr, dim: Any},
		},
		new: func(any) any { return &spec.Drive{Kind: "friction", Attr: map[string]spec.Expr{}} },
		add: add,
	}
	return coupler, stop, motor, fric
}

// contactLaw lists the force-law and friction attributes every contact
// kind takes, planar or spatial.
func contactLaw() []attrDef {
	return []attrDef{
		{name: "law", kind: vEnum, enum: []string{"spring-damper", "hertz", "hunt-crossley"}},
		{name: "k", kind: vExpr, dim: Any, req: true, positive: true},
		{name: "exponent", kind: vExpr, dim: Dimensionless, positive: true},
		{name: "c", kind: vExpr, dim: Any},
		{name: "dmax", kind: vExpr, dim: Length, positive: true},
		{name: "restitution", kind: vExpr, dim: Dimensionless, positive: true},
		{name: "friction", kind: vEnum, enum: []string{"none", "coulomb", "regularized"}},
		{name: "mu-static", kind: vExpr, dim: Dimensionless},
		{name: "mu-dynamic", kind: vExpr, dim: Dimensionless},
		{name: "v-static", kind: vExpr, dim: Velocity, positive: true},
		{name: "v-dynamic", kind: vExpr, dim: Velocity, positive: true},
	}
}

// beamMarker is a <marker> of a beam: a point at arc length s from the
// beam's start, stored in BeamSpec.Attr as "marker.NAME".
type beamMarker struct {
	name   string
	s      spec.Expr
	fy, fz spec.Expr // a rod's stress point in the section (fiber-y, fiber-z)
	node   int       // an fe-body's marker: the node label
	pos    spec.Pos  // where the marker is written
}

// driverDef is the <driver> element of a model whose drivable coordinates
// are coords, checked by check (planar and spatial models differ only
// there).
func driverDef(coords []string, check func(p *parser, c *elemCtx)) *elemDef {
	return &elemDef{
		name: "driver", family: "driver", ns: nsElement,
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Driver).Name }},
			{name: "joint", kind: vElemRef, field: func(o any) any { return &o.(*spec.Driver).Joint }},
			{name: "body", kind: vElemRef, field: func(o any) any { return &o.(*spec.Driver).Body }},
			{name: "coord", kind: vEnum, enum: coords, field: func(o any) any { return &o.(*spec.Driver).Coord }},
			// Dimension is angle or length depending on what is driven:
			// checked after the walk.
			{name: "value", kind: vExpr, dim: Any, req: true, field: func(o any) any { return &o.(*spec.Driver).Value }},
		},
		new: func(any) any { return &spec.Driver{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Drivers = append(s.Drivers, *obj.(*spec.Driver))
		},
		check: check,
	}
}
