package fmu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"

	"mbfmu/solver"
)

// layoutVersion enters the GUID: bump it whenever the variable table or the
// meaning of a value reference changes, so that an FMU packed with an older
// layout is rejected by a newer runtime (and vice versa). 3: a model whose
// elements have states of their own declares its continuous states too
// (the element states among them).
const layoutVersion = "3"

// Causality is the FMI causality of a variable.
type Causality uint8

// The causalities used by this FMU.
const (
	CausalityParameter Causality = iota
	CausalityInput
	CausalityOutput
	// CausalityLocal marks the continuous states and their derivatives.
	CausalityLocal
)

// String returns the modelDescription.xml spelling.
func (c Causality) String() string {
	switch c {
	case CausalityParameter:
		return "parameter"
	case CausalityInput:
		return "input"
	case CausalityLocal:
		return "local"
	}
	return "output"
}

// LocalKind tells what a local variable is.
type LocalKind uint8

// The local variables: the continuous states (positions and velocities of
// the engine's coordinates, and the elements' own states) and the
// derivatives that are not states themselves.
const (
	// NotLocal: a parameter, input or output.
	NotLocal LocalKind = iota
	// LocalPosition is position coordinate Index (a state).
	LocalPosition
	// LocalVelocity is velocity coordinate Index (a state; for a linear
	// coordinate also the derivative of its position).
	LocalVelocity
	// LocalQuatRate is the time derivative of quaternion component Index
	// (position coordinate Index).
	LocalQuatRate
	// LocalAcceleration is the time derivative of velocity coordinate Index.
	LocalAcceleration
	// LocalElementState is an element's own continuous state (a motor's
	// current, a friction's bristle deflection, a user <state>): first-order
	// state Index, after the positions (a state).
	LocalElementState
	// LocalElementRate is the time derivative of element state Index (the
	// element's rate at the state).
	LocalElementRate
)

// Variability is the FMI variability of a variable.
type Variability uint8

// The variabilities used by this FMU.
const (
	VariabilityFixed Variability = iota
	VariabilityTunable
	VariabilityContinuous
)

// String returns the modelDescription.xml spelling.
func (v Variability) String() string {
	switch v {
	case VariabilityFixed:
		return "fixed"
	case VariabilityTunable:
		return "tunable"
	}
	return "continuous"
}

// Variable is one Real scalar variable of the FMU.
//
// Allowed combinations (FMI 2.0 table in section 2.2.7): parameters are
// fixed or tunable with initial="exact" and a start value; inputs are
// continuous with a start value and no initial; outputs are continuous with
// initial="calculated" (the default) and no start value.
type Variable struct {
	Name        string
	VR          uint32 // value reference (Real); also its 0-based position in ModelVariables
	Causality   Causality
	Variability Variability
	Unit        string
	Description string
	Start       float64 // parameters and inputs
	// Index is the index into the model's ParamInfo, InputInfo or
	// OutputInfo, or for a local variable into the first-order states (the
	// positions, then the element states: position, quaternion rate,
	// element state and its rate) or the velocities (velocity,
	// acceleration).
	Index int
	Local LocalKind
	// Derivative is, for a state derivative, the 1-based index in
	// ModelVariables of its state (the derivative attribute); 0 otherwise.
	Derivative uint32
}

// HasStart reports whether the variable declares a start value.
func (v *Variable) HasStart() bool {
	return v.Causality != CausalityOutput && v.Causality != CausalityLocal
}

// Description is the FMI view of a model: everything modelDescription.xml
// declares. Describe builds it; the runtime rebuilds the same table from
// resources/model.xml at fmi2Instantiate and never reads modelDescription.xml.
type Description struct {
	ModelName       string
	ModelIdentifier string // C identifier; also the binary's file name
	Description     string
	GUID            string // derived from the model file's bytes
	Variables       []Variable
	StartTime       float64
	StopTime        float64
	StepSize        float64 // preferred communication step = the model's output step
	Tolerance       float64 // 0 when the model uses a fixed-step integrator
	Integrator      string
	IntegratorStep  float64
	Platforms       []string // binaries packed (set by Pack: linux64, win64)
	// Controller: a controller FMU (engine_controller.go): outputs with
	// direct feedthrough from the inputs, no states, no derivatives
	Controller bool

	// the continuous states are Variables[stateLo:stateHi] (positions,
	// velocities, element states); derivs are the <Derivatives> in state
	// order
	stateLo, stateHi int
	derivs           []derivUnknown

	// FMI 3.0 only: the array outputs (value references after the
	// Variables') and the independent variable time (the last value
	// reference)
	Arrays    []ArrayVar
	TimeVR    uint32
	Terminals []Terminal
}

// Terminal groups the outputs that read the channels of one element (a
// body, marker, joint or force) for FMI 3.0's terminalsAndIcons.xml: a
// tool connects an element's port at once, member by member.
type Terminal struct {
	Name    string      // the element
	Members [][2]string // variable name, member name (the channel's last part)
}

// ArrayVar is an FMI 3.0 Float64 array output: an <output> of a vector or
// matrix channel (body.r, body.R). Its elements are also scalar outputs
// (FMI 2.0 has only those): Elems are their value references, row-major.
type ArrayVar struct {
	Name, Unit, Description string
	VR                      uint32
	Dims                    []int
	Elems                   []uint32
}

// derivUnknown is one entry of <Derivatives>: the 0-based position of the
// derivative variable and its dependencies (0-based positions, ascending;
// all: every known, the attribute omitted; constant: the known enters with
// a constant factor).
type derivUnknown struct {
	at       int
	deps     []int
	all      bool
	constant bool
}

// GUID derives the FMU's GUID from the model file's bytes (and the layout
// version of the variable table): the runtime recomputes it from
// resources/model.xml at fmi2Instantiate and rejects a mismatch.
func GUID(modelData []byte) string {
	h := sha256.New()
	h.Write([]byte("mbfmu-fmi2 layout " + layoutVersion + "\x00"))
	h.Write(modelData)
	sum := h.Sum(nil)
	sum[6] = sum[6]&0x0f | 0x80 // RFC 9562 version 8 (custom)
	sum[8] = sum[8]&0x3f | 0x80 // variant 10
	x := hex.EncodeToString(sum[:16])
	return "{" + x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32] + "}"
}

// ModelIdentifier turns a model name into a C identifier usable as the
// FMU's modelIdentifier and binary name ("slider-crank 2" → "slider_crank_2").
func ModelIdentifier(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if b.Len() == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "model"
	}
	return b.String()
}

// describe builds the variable table of a model: inputs, then outputs, then
// parameters, each in declaration order; the value reference is the
// variable's position.
func describe(mi *modelInfo, guid string) (*Description, error) {
	d := &Description{
		ModelName:       mi.name,
		ModelIdentifier: ModelIdentifier(mi.name),
		Description:     mi.desc,
		GUID:            guid,
		StartTime:       mi.start,
		StopTime:        mi.stop,
		StepSize:        mi.step,
		Tolerance:       mi.tol,
		Integrator:      mi.integrator,
		IntegratorStep:  mi.integratorStep,
	}
	if d.ModelName == "" {
		d.ModelName = d.ModelIdentifier
	}
	d.Controller = mi.feedthrough
	add := func(v Variable) {
		v.VR = uint32(len(d.Variables))
		d.Variables = append(d.Variables, v)
	}
	for i, in := range mi.inputs {
		add(Variable{Name: in.name, Causality: CausalityInput, Variability: VariabilityContinuous,
			Unit: in.unit, Description: in.desc, Start: in.start, Index: i})
	}
	for i, out := range mi.outputs {
		add(Variable{Name: out.name, Causality: CausalityOutput, Variability: VariabilityContinuous,
			Unit: out.unit, Description: out.desc, Index: i})
	}
	for i, p := range mi.params {
		v := VariabilityFixed
		if p.tunable {
			v = VariabilityTunable
		}
		add(Variable{Name: p.name, Causality: CausalityParameter, Variability: v,
			Unit: p.unit, Description: p.desc, Start: p.value, Index: i})
	}
	d.describeStates(mi, add)
	d.describeArrays(mi)
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// describeStates appends the continuous states and their derivatives:
// the positions, the velocities (a linear coordinate's velocity is the
// derivative of its position), the elements' own states (a motor's
// current), the derivatives of the quaternion components, the
// accelerations, the element states' rates; and lists <Derivatives>.
//
// For a model without element states the table is what it was before
// they were declared (the same value references); for one with them,
// every local variable is new (no state was declared at all), and the
// inputs, outputs and parameters keep their value references.
func (d *Description) describeStates(mi *modelInfo, add func(Variable)) {
	local := func(name, unit, desc string, k LocalKind, i int) {
		add(Variable{Name: name, Causality: CausalityLocal, Variability: VariabilityContinuous,
			Unit: unit, Description: desc, Local: k, Index: i})
	}
	d.stateLo = len(d.Variables)
	pos := make([]int, len(mi.qs)) // each first-order state's 0-based position in Variables
	for i, x := range mi.qs {
		if !x.element() {
			pos[i] = len(d.Variables)
			local(x.name, x.unit, x.desc, LocalPosition, i)
		}
	}
	v0 := len(d.Variables)
	for j, x := range mi.vs {
		local(x.name, x.unit, x.desc, LocalVelocity, j)
	}
	for i, x := range mi.qs {
		if x.element() {
			pos[i] = len(d.Variables)
			local(x.name, x.unit, "state: an element's own continuous state, integrated with the mechanism", LocalElementState, i)
		}
	}
	d.stateHi = len(d.Variables)
	derQ := make([]int, len(mi.qs))
	for i, x := range mi.qs {
		switch {
		case x.element():
			continue
		case x.deriv >= 0:
			derQ[i] = v0 + x.deriv
		default:
			derQ[i] = len(d.Variables)
			local("der("+x.name+")", solver.PerSecond(x.unit), "time derivative of "+x.name, LocalQuatRate, i)
		}
		d.Variables[derQ[i]].Derivative = uint32(pos[i] + 1)
	}
	a0 := len(d.Variables)
	for j, x := range mi.vs {
		local("der("+x.name+")", solver.PerSecond(x.unit), "time derivative of "+x.name+" (acceleration of the equations of motion)", LocalAcceleration, j)
		d.Variables[a0+j].Derivative = uint32(v0 + j + 1)
	}
	for i, x := range mi.qs {
		if x.element() {
			derQ[i] = len(d.Variables)
			local("der("+x.name+")", solver.PerSecond(x.unit), "time derivative of "+x.name+" (the element's rate at the state)", LocalElementRate, i)
			d.Variables[derQ[i]].Derivative = uint32(pos[i] + 1)
		}
	}
	// <Derivatives> in state order: positions, velocities, element states
	for i, x := range mi.qs {
		u := derivUnknown{at: derQ[i]}
		switch {
		case x.element():
			continue
		case x.deriv >= 0:
			u.deps, u.constant = []int{v0 + x.deriv}, true
		default:
			r := pos[x.rotQ]
			u.deps = []int{r, r + 1, r + 2, r + 3, v0 + x.rotV, v0 + x.rotV + 1, v0 + x.rotV + 2}
		}
		d.derivs = append(d.derivs, u)
	}
	for j := range mi.vs {
		d.derivs = append(d.derivs, derivUnknown{at: a0 + j, all: true})
	}
	for i, x := range mi.qs {
		if x.element() {
			// a rate depends on every state and input, as the
			// accelerations (a motor's: its current, its coordinate's
			// velocity and the voltage's inputs)
			d.derivs = append(d.derivs, derivUnknown{at: derQ[i], all: true})
		}
	}
}

// element reports whether a first-order state is an element's own (a
// motor's current, a friction's bristles, a user <state>): the engine
// (solver.Model.StateVars) lists them after the positions, and they are
// neither a linear coordinate's position (deriv) nor a quaternion
// component (rotQ).
func (x *stateVar) element() bool { return x.deriv < 0 && x.rotQ < 0 }

// numCoordQ returns the number of positions among the first-order states
// qs: the element states follow them.
func numCoordQ(qs []stateVar) int {
	for i := range qs {
		if qs[i].element() {
			return i
		}
	}
	return len(qs)
}

// IsState reports whether the variable is a continuous state: a position,
// a velocity or an element's own state.
func (v *Variable) IsState() bool {
	return v.Local == LocalPosition || v.Local == LocalVelocity || v.Local == LocalElementState
}

// check verifies what the schema cannot: unique non-empty names, finite
// start values, valid experiment.
func (d *Description) check() error {
	seen := make(map[string]*Variable, len(d.Variables))
	for i := range d.Variables {
		v := &d.Variables[i]
		if strings.TrimSpace(v.Name) == "" {
			return fmt.Errorf("fmu: %s %d has an empty name", v.Causality, v.Index+1)
		}
		if o := seen[v.Name]; o != nil {
			return fmt.Errorf("fmu: the name %q is used by both %s %d and %s %d: FMI variable names must be unique", v.Name, o.Causality, o.Index+1, v.Causality, v.Index+1)
		}
		seen[v.Name] = v
		if v.HasStart() && !finite(v.Start) {
			return fmt.Errorf("fmu: %s %q has a non-finite start value %v", v.Causality, v.Name, v.Start)
		}
	}
	if !finite(d.StartTime) || !finite(d.StopTime) || !(d.StepSize > 0) || math.IsInf(d.StepSize, 0) {
		return fmt.Errorf("fmu: invalid default experiment (start %v, stop %v, output step %v)", d.StartTime, d.StopTime, d.StepSize)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// units returns the distinct units used, sorted, with extra ones.
func (d *Description) units(extra ...string) []string {
	set := map[string]bool{}
	for _, u := range extra {
		set[u] = true
	}
	for _, v := range d.Variables {
		if v.Unit != "" {
			set[v.Unit] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// xmlAttr writes ` name="value"` with the value escaped.
func xmlAttr(b *strings.Builder, name, value string) {
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteString(`="`)
	for _, r := range value {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\n':
			b.WriteString("&#10;")
		case '\r':
			b.WriteString("&#13;")
		case '\t':
			b.WriteString("&#9;")
		default:
			if r < 0x20 {
				b.WriteByte(' ') // not representable in XML 1.0
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// XML renders modelDescription.xml (FMI 2.0, co-simulation).
func (d *Description) XML() []byte {
	var b strings.Builder
	d.writeHead(&b, "2.0", "guid")
	for _, f := range [...][2]string{
		{"needsExecutionTool", "false"},
		{"canHandleVariableCommunicationStepSize", "true"},
		{"canInterpolateInputs", d.engineFlag()},
		{"maxOutputDerivativeOrder", map[bool]string{true: "0", false: "1"}[d.Controller]},
		{"canRunAsynchronuously", "false"},
		{"canBeInstantiatedOnlyOncePerProcess", "false"},
		{"canNotUseMemoryManagementFunctions", "true"},
		{"canGetAndSetFMUstate", "true"},
		{"canSerializeFMUstate", "true"},
		{"providesDirectionalDerivative", d.engineFlag()},
	} {
		xmlAttr(&b, f[0], f[1])
	}
	b.WriteString("/>\n")
	d.writeCommon(&b, false)
	b.WriteString("  <ModelVariables>\n")
	for i := range d.Variables {
		v := &d.Variables[i]
		fmt.Fprintf(&b, "    <!-- index %d -->\n", i+1)
		b.WriteString("    <ScalarVariable")
		xmlAttr(&b, "name", v.Name)
		xmlAttr(&b, "valueReference", strconv.FormatUint(uint64(v.VR), 10))
		if v.Description != "" {
			xmlAttr(&b, "description", v.Description)
		}
		xmlAttr(&b, "causality", v.Causality.String())
		xmlAttr(&b, "variability", v.Variability.String())
		switch v.Causality {
		case CausalityParameter:
			xmlAttr(&b, "initial", "exact")
		case CausalityOutput, CausalityLocal:
			xmlAttr(&b, "initial", "calculated")
		}
		b.WriteString(">\n      <Real")
		if v.Unit != "" {
			xmlAttr(&b, "unit", v.Unit)
		}
		if v.HasStart() {
			xmlAttr(&b, "start", ftoa(v.Start))
		}
		if v.Derivative > 0 {
			xmlAttr(&b, "derivative", strconv.FormatUint(uint64(v.Derivative), 10))
		}
		b.WriteString("/>\n    </ScalarVariable>\n")
	}
	b.WriteString("  </ModelVariables>\n  <ModelStructure>\n")
	d.writeStructure(&b)
	b.WriteString("  </ModelStructure>\n</fmiModelDescription>\n")
	return []byte(b.String())
}

// writeHead writes the XML declaration, <fmiModelDescription> with its
// attributes (FMI version, the GUID under the version's name) and the
// opening of <CoSimulation> up to its modelIdentifier.
func (d *Description) writeHead(b *strings.Builder, version, guidAttr string) {
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString("<fmiModelDescription")
	xmlAttr(b, "fmiVersion", version)
	xmlAttr(b, "modelName", d.ModelName)
	xmlAttr(b, guidAttr, d.GUID)
	if d.Description != "" {
		xmlAttr(b, "description", d.Description)
	}
	xmlAttr(b, "generationTool", "mbfmu")
	xmlAttr(b, "variableNamingConvention", "flat")
	b.WriteString(">\n  <CoSimulation")
	xmlAttr(b, "modelIdentifier", d.ModelIdentifier)
}

// engineFlag is "true" for a model's FMU and "false" for a controller
// FMU: the capabilities only the engine has (input interpolation,
// directional derivatives).
func (d *Description) engineFlag() string {
	if d.Controller {
		return "false"
	}
	return "true"
}

// outputDeps lists what every output depends on: the states (0-based
// positions), or for a controller FMU the inputs.
func (d *Description) outputDeps() []int {
	var at []int
	for i := range d.Variables {
		if d.Controller && d.Variables[i].Causality == CausalityInput || !d.Controller && i >= d.stateLo && i < d.stateHi {
			at = append(at, i)
		}
	}
	return at
}

// writeCommon writes the elements FMI 2.0 and 3.0 spell alike:
// <UnitDefinitions>, <LogCategories> and <DefaultExperiment>.
func (d *Description) writeCommon(b *strings.Builder, fmi3 bool) {
	var extra []string
	if fmi3 {
		extra = []string{"s"} // the unit of time
	}
	if us := d.units(extra...); len(us) > 0 {
		b.WriteString("  <UnitDefinitions>\n")
		for _, name := range us {
			b.WriteString("    <Unit")
			xmlAttr(b, "name", name)
			attrs, ok := BaseUnitAttrs(name)
			if !ok {
				b.WriteString("/>\n")
				continue
			}
			su, _ := parseUnit(name)
			b.WriteString(">\n      <BaseUnit" + attrs + "/>\n")
			if su.exp == [8]int{7: 1} && su.factor == 1 { // rad
				b.WriteString(`      <DisplayUnit name="deg" factor="` + ftoa(180/math.Pi) + `"/>` + "\n")
			}
			b.WriteString("    </Unit>\n")
		}
		b.WriteString("  </UnitDefinitions>\n")
	}
	b.WriteString("  <LogCategories>\n")
	for _, c := range logCategories() {
		b.WriteString("    <Category")
		xmlAttr(b, "name", c.name)
		desc := c.desc
		if fmi3 {
			desc = strings.ReplaceAll(desc, "fmi2", "fmi3")
		}
		xmlAttr(b, "description", desc)
		b.WriteString("/>\n")
	}
	b.WriteString("  </LogCategories>\n  <DefaultExperiment")
	xmlAttr(b, "startTime", ftoa(d.StartTime))
	xmlAttr(b, "stopTime", ftoa(d.StopTime))
	if d.Tolerance > 0 {
		xmlAttr(b, "tolerance", ftoa(d.Tolerance))
	}
	xmlAttr(b, "stepSize", ftoa(d.StepSize))
	b.WriteString("/>\n")
}

// writeStructure writes the children of <ModelStructure>.
//
// Outputs are computed at the end of fmi2DoStep (and at initialisation)
// from the state there; setting an input does not change them until the
// next step: no direct feedthrough. So an output depends on the states and
// on no input. <Derivatives> lists, in state order, the derivative of each
// position (a velocity, or the rate of a quaternion component), of each
// velocity (an acceleration, which depends on every state and input) and
// of each element state (its rate, which does too).
// InitialUnknowns holds the outputs, the states and the derivatives, in
// index order; in initialisation mode they may depend on every input and
// parameter (assembly), so their dependencies are omitted.
func (d *Description) writeStructure(b *strings.Builder) {
	idx := func(dst []byte, at []int) []byte {
		for k, i := range at {
			if k > 0 {
				dst = append(dst, ' ')
			}
			dst = strconv.AppendInt(dst, int64(i+1), 10)
		}
		return dst
	}
	states := idx(nil, d.outputDeps()) // the 1-based indices of what outputs depend on
	var outs, initial []int
	for i := range d.Variables {
		switch d.Variables[i].Causality {
		case CausalityOutput:
			outs = append(outs, i)
			initial = append(initial, i)
		case CausalityLocal:
			initial = append(initial, i)
		}
	}
	if len(outs) > 0 {
		b.WriteString("    <Outputs>\n")
		for _, i := range outs {
			fmt.Fprintf(b, "      <Unknown index=\"%d\" dependencies=\"%s\"/>\n", i+1, states)
		}
		b.WriteString("    </Outputs>\n")
	}
	if len(d.derivs) > 0 {
		b.WriteString("    <Derivatives>\n")
		var buf []byte
		for _, u := range d.derivs {
			buf = append(buf[:0], "      <Unknown index=\""...)
			buf = strconv.AppendInt(buf, int64(u.at+1), 10)
			buf = append(buf, '"')
			if !u.all {
				buf = append(buf, " dependencies=\""...)
				buf = idx(buf, u.deps)
				buf = append(buf, '"')
				if u.constant {
					buf = append(buf, " dependenciesKind=\"constant\""...)
				}
			}
			buf = append(buf, "/>\n"...)
			b.Write(buf)
		}
		b.WriteString("    </Derivatives>\n")
	}
	if len(initial) > 0 {
		b.WriteString("    <InitialUnknowns>\n")
		for _, i := range initial {
			fmt.Fprintf(b, "      <Unknown index=\"%d\"/>\n", i+1)
		}
		b.WriteString("    </InitialUnknowns>\n")
	}
}

// HTML renders documentation/index.html: the variables and how to import.
func (d *Description) HTML() []byte {
	var b strings.Builder
	e := html.EscapeString
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s — FMU</title>\n", e(d.ModelName))
	b.WriteString("<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px;text-align:left}</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n", e(d.ModelName))
	if d.Description != "" {
		fmt.Fprintf(&b, "<p>%s</p>\n", e(d.Description))
	}
	fmt.Fprintf(&b, "<p>FMI 2.0 Co-Simulation FMU generated by mbfmu. modelIdentifier <code>%s</code>, GUID <code>%s</code>.</p>\n", e(d.ModelIdentifier), e(d.GUID))
	fmt.Fprintf(&b, "<p>Default experiment: start %s s, stop %s s, communication step %s s", ftoa(d.StartTime), ftoa(d.StopTime), ftoa(d.StepSize))
	if d.Integrator != "" {
		fmt.Fprintf(&b, "; integrator %s", e(d.Integrator))
		if d.IntegratorStep > 0 {
			fmt.Fprintf(&b, " with internal step %s s (steps on a fixed grid from the start time; a communication point within rounding of a grid point is that point, so replays are bit-exact whatever the master's time arithmetic; a point between grid points ends with a partial step)", ftoa(d.IntegratorStep))
		}
	}
	b.WriteString(".</p>\n")
	b.WriteString("<h2>Variables</h2>\n<table>\n<tr><th>value reference</th><th>name</th><th>causality</th><th>variability</th><th>unit</th><th>start</th><th>description</th></tr>\n")
	for _, v := range d.Variables {
		start := ""
		if v.HasStart() {
			start = ftoa(v.Start)
		}
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			v.VR, e(v.Name), v.Causality, v.Variability, e(v.Unit), start, e(v.Description))
	}
	b.WriteString("</table>\n")
	b.WriteString(`<h2>Notes</h2>
<ul>
<li>Outputs are computed at the end of each fmi2DoStep and at the end of initialisation; setting an input changes them only at the next step (no direct feedthrough).</li>
<li>The local variables are the continuous states (the positions and velocities of the engine's coordinates; a spatial body's orientation is a unit quaternion qw, qx, qy, qz with the body-frame angular velocity wbx, wby, wbz; and the elements' own states, integrated with the mechanism: a motor's current, a friction's bristle deflection, a user &lt;state&gt;) and their time derivatives der(…), computed on request from the state and the inputs as set (accelerations of the equations of motion, the elements' rates). fmi2GetDirectionalDerivative gives the derivatives of the outputs and state derivatives with respect to the inputs and states at the current point.</li>
<li>Fixed parameters can be set before or during initialisation mode (the model is then recompiled); tunable parameters and inputs also between steps.</li>
<li>fmi2DoStep checks the master's currentCommunicationPoint against the FMU's time and advances on the internal time grid (above). Inputs changed since the last step act from the communication point: the integrator's accelerations are restarted there. A failed step returns fmi2Discard with fmi2Terminated = true and fmi2LastSuccessfulTime.</li>
<li>FMU state get/set and serialisation are supported; a serialised state can be restored into any instance of this FMU.</li>
<li>The binary is a Go c-shared library: it is never unloaded, the process must not fork after loading it, and each unpacked copy brings its own Go runtime (reuse the unpacked folder in parameter sweeps).</li>
</ul>
</body>
</html>
`)
	return []byte(b.String())
}
