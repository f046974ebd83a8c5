package xml

import (
	"fmt"
	"math"
	"mbfmu/spec"
	"sort"
	"strings"
)

// This file holds the element-specific rules (the check functions of the
// schema) and resolve, which checks every reference once the whole file
// is read.

func (p *parser) checkSettings(c *elemCtx) {
	s := c.obj.(*spec.Settings)
	s.RhoSet = c.ok["rho-inf"]
	if c.ok["rho-inf"] && (s.RhoInf < 0 || s.RhoInf > 1) {
		p.errs.Add(c.attrPos(p, "rho-inf"), "rho-inf", "must be in [0, 1] (got %g)", s.RhoInf)
	}
	if c.ok["alpha"] && (s.Alpha < -1.0/3 || s.Alpha > 0) {
		p.errs.Add(c.attrPos(p, "alpha"), "alpha", "must be in [-1/3, 0] (got %g)", s.Alpha)
	}
	if c.ok["end"] && (c.ok["start"] || !c.has("start")) && !(s.End > s.Start) {
		p.errs.Add(c.attrPos(p, "end"), "end", "must be after start (%g s), got %g s", s.Start, s.End)
	}
	if c.ok["min-step"] && c.ok["max-step"] && s.MinStep > s.MaxStep {
		p.errs.Add(c.attrPos(p, "min-step"), "min-step", "is larger than max-step (%g s > %g s)", s.MinStep, s.MaxStep)
	}
}

// valueWithUnit reads a number attribute (value, start) together with the
// element's unit attribute: the value's own unit, else unit=, converts it
// to SI. It returns the SI value and the SI unit to record.
func (p *parser) valueWithUnit(c *elemCtx, field string) (float64, string) {
	// unit itself was checked as an attribute.
	unit, _ := c.n.Get("unit")
	hasUnit := c.ok["unit"]
	u, _ := parseUnit(unit)
	record := func(name string, u unitVal) string {
		if u.isSI() {
			return name
		}
		return siName(u.vec)
	}
	recorded := ""
	if hasUnit {
		recorded = record(unit, u)
	}
	raw, ok := c.n.Get(field)
	if !ok {
		return 0, recorded
	}
	pos := c.attrPos(p, field)
	sc, err := parseScalar(raw)
	switch {
	case err != nil:
		p.errs.Add(pos, field, "%v", err)
		return 0, recorded
	case sc.expr:
		p.errs.Add(pos, field, "%q must be a number with an optional unit; expressions are not allowed here", strings.TrimSpace(raw))
		return 0, recorded
	case sc.unit != "":
		if hasUnit && sc.u.vec != u.vec {
			p.errs.Add(pos, field, "unit %q %s but unit=%q %s", sc.unit, describeDims(sc.u.vec), unit, describeDims(u.vec))
			return 0, recorded
		}
		if !hasUnit {
			recorded = record(sc.unit, sc.u)
		}
		c.ok[field] = true
		return sc.value, recorded
	case hasUnit:
		c.ok[field] = true
		v := u.toSI(sc.value)
		if math.IsInf(v, 0) {
			p.errs.Add(pos, field, "number %q is out of range", strings.TrimSpace(raw))
			return 0, recorded
		}
		return v, recorded
	}
	c.ok[field] = true
	return sc.value, recorded
}

func (p *parser) checkParameter(c *elemCtx) {
	ps := c.obj.(*spec.Param)
	ps.Value, ps.Unit = p.valueWithUnit(c, "value")
}

func (p *parser) checkInput(c *elemCtx) {
	in := c.obj.(*spec.Input)
	in.Start, in.Unit = p.valueWithUnit(c, "start")
}

func (p *parser) checkTable(c *elemCtx) {
	t := c.obj.(*spec.Table)
	if t.Kind == "" {
		t.Kind = "linear"
	}
	text := c.n.Text.String()
	xPos, yPos := c.attrPos(p, "x"), c.attrPos(p, "y")
	switch {
	case strings.TrimSpace(text) != "":
		if c.has("x") || c.has("y") {
			p.errs.Add(p.pos(c.n.TextLine), "<table>", "give the points either as x and y attributes or as rows of text, not both")
			return
		}
		// Rows start on the line of the element's first text.
		start := c.n.TextLine - strings.Count(text[:strings.IndexFunc(text, func(r rune) bool { return !isSpace(r) })], "\n")
		pts, errs := parsePoints(text, start)
		for _, e := range errs {
			p.errs.Add(p.pos(e.line), "<table>", "%s", e.msg)
		}
		if len(errs) > 0 {
			return
		}
		t.X, t.Y = make([]float64, len(pts)), make([]float64, len(pts))
		for i, pt := range pts {
			t.X[i], t.Y[i] = pt[0], pt[1]
		}
		xPos, yPos = p.pos(c.n.TextLine), p.pos(c.n.TextLine)
	case !c.has("x") && !c.has("y"):
		p.errs.Add(c.pos, "x", "required attribute of <table> is missing (give x and y, or rows \"x y; x y\" as text)")
		return
	case !c.has("x"):
		p.errs.Add(c.pos, "x", "required attribute of <table> is missing")
		return
	case !c.has("y"):
		p.errs.Add(c.pos, "y", "required attribute of <table> is missing")
		return
	case !c.ok["x"] || !c.ok["y"]:
		return
	}
	scale := func(attr string, v []float64) bool {
		if !c.has(attr) {
			return true
		}
		if !c.ok[attr] {
			return false
		}
		s, _ := c.n.Get(attr)
		u, _ := parseUnit(s)
		for i := range v {
			v[i] = u.toSI(v[i])
		}
		return true
	}
	if !scale("x-unit", t.X) || !scale("y-unit", t.Y) {
		return
	}
	if len(t.X) != len(t.Y) {
		p.errs.Add(yPos, "y", "has %d values but x has %d", len(t.Y), len(t.X))
		return
	}
	if len(t.X) < 2 {
		p.errs.Add(xPos, "x", "a table needs at least 2 points")
		return
	}
	for i := 1; i < len(t.X); i++ {
		if !(t.X[i] > t.X[i-1]) {
			p.errs.Add(xPos, "x", "must be strictly increasing (x[%d] = %g after x[%d] = %g)", i+1, t.X[i], i, t.X[i-1])
			return
		}
	}
}

// checkMarkers reports duplicate marker names among the <marker>
// children of a body, the ground or a beam.
func (p *parser) checkMarkers(c *elemCtx) {
	first := map[string]int{}
	for _, ch := range c.n.Children {
		name, ok := ch.Get("name")
		if ch.Name != "marker" || !ok || !isIdent(name) {
			continue
		}
		if l, dup := first[name]; dup {
			p.errs.Add(p.pos(ch.AttrLine("name")), "name", "duplicate marker %q (first on line %d)", name, l)
			continue
		}
		first[name] = ch.Line
	}
}

func (p *parser) checkShape(c *elemCtx) {
	s := c.obj.(*spec.Shape)
	if !c.has("outline") && !c.has("radius") {
		p.errs.Add(c.pos, "<shape>", "needs outline or radius")
	}
	if c.ok["outline"] {
		if len(s.Outline) < 3 {
			p.errs.Add(c.attrPos(p, "outline"), "outline", "a polygon needs at least 3 points")
		}
		if c.ok["unit"] {
			unit, _ := c.n.Get("unit")
			u, _ := parseUnit(unit)
			for i := range s.Outline {
				s.Outline[i][0] = u.toSI(s.Outline[i][0])
				s.Outline[i][1] = u.toSI(s.Outline[i][1])
			}
		}
	}
}

func (p *parser) checkJoint(c *elemCtx) {
	j := c.obj.(*spec.Joint)
	if c.ok["i"] && c.ok["j"] {
		p.pairs = append(p.pairs, jointPair{pos: c.attrPos(p, "j"), i: j.I, j: j.J})
	}
}

func (p *parser) checkDriver(c *elemCtx) {
	d := c.obj.(*spec.Driver)
	hasJ, hasB := c.has("joint"), c.has("body")
	switch {
	case hasJ && hasB:
		p.errs.Add(c.attrPos(p, "body"), "body", "give either joint or body (with coord), not both")
		return
	case !hasJ && !hasB:
		p.errs.Add(c.pos, "joint", "missing: give joint=\"...\" (a revolute or translational joint) or body=\"...\" with coord=\"x|y|angle\"")
		return
	case hasJ && c.has("coord"):
		p.errs.Add(c.attrPos(p, "coord"), "coord", "is only for body drivers (a joint driver drives the joint's own coordinate)")
		return
	case hasB && !c.has("coord"):
		p.errs.Add(c.pos, "coord", "required attribute of <driver> is missing (with body: x, y or angle)")
		return
	}
	if (hasJ && !c.ok["joint"]) || (hasB && (!c.ok["body"] || !c.ok["coord"])) {
		return
	}
	pd := pendingDriver{joint: d.Joint, body: d.Body, coord: d.Coord}
	if hasJ {
		pd.pos = c.attrPos(p, "joint")
	} else {
		pd.pos = c.attrPos(p, "body")
	}
	if c.ok["value"] {
		pd.value, _ = c.n.Get("value")
		pd.valuePos = c.attrPos(p, "value")
	}
	p.drivers = append(p.drivers, pd)
}

func (p *parser) checkOutput(c *elemCtx) {
	switch hasC, hasE := c.has("channel"), c.has("expr"); {
	case hasC && hasE:
		p.errs.Add(c.attrPos(p, "expr"), "expr", "give either channel or expr, not both")
	case !hasC && !hasE:
		p.errs.Add(c.pos, "channel", "missing: give channel=\"body.quantity\" (such as \"link.x\") or expr=\"...\"")
	}
	if c.ok["unit"] {
		unit, _ := c.n.Get("unit")
		if u, _ := parseUnit(unit); !u.isSI() {
			si := siName(u.vec)
			p.errs.Add(c.attrPos(p, "unit"), "unit", "unit %q is not SI: outputs are in SI units; write %q (or scale an expression output and name its unit)", unit, si)
			c.obj.(*spec.Output).Unit = si
		}
	}
}

// checkUserUnit refuses a unit that is not SI on a <state> or
// <variable>: their expressions are in SI units.
func (p *parser) checkUserUnit(c *elemCtx) {
	if !c.ok["unit"] {
		return
	}
	unit, _ := c.n.Get("unit")
	if u, _ := parseUnit(unit); !u.isSI() {
		si := siName(u.vec)
		p.errs.Add(c.attrPos(p, "unit"), "unit", "unit %q is not SI: expressions are in SI units, so the value is in %q; write that", unit, si)
		switch o := c.obj.(type) {
		case *spec.State:
			o.Unit = si
		case *spec.Variable:
			o.Unit = si
		}
	}
}

// pendingDriver is a driver whose target is checked by resolve.
type pendingDriver struct {
	pos                spec.Pos // of the joint or body attribute
	joint, body, coord string
	value              string // raw value, "" if invalid
	valuePos           spec.Pos
	elemPos, coordPos  spec.Pos // of the element and its coord (spatial)
}

// resolve checks what needs the whole file: marker references, joint
// pairs, driver targets and output channels.
func (p *parser) resolve() {
	done := map[string]bool{}
	setMarkers := func(name string, ms []string) {
		if e := p.elems[name]; e != nil && !done[name] {
			e.markers, done[name] = ms, true
		}
	}
	markerNames := func(ms []spec.Marker) []string {
		s := make([]string, 0, len(ms))
		for _, m := range ms {
			s = append(s, m.Name)
		}
		return s
	}
	setMarkers("ground", markerNames(p.spec.Ground.Markers))
	for _, b := range p.spec.Bodies {
		if e := p.elems[b.Name]; e != nil && e.tag == "body" {
			setMarkers(b.Name, markerNames(b.Markers))
		}
	}
	for _, b := range p.spec.Beams {
		if e := p.elems[b.Name]; e != nil && (e.tag == "beam" || e.tag == "fe-body") {
			var ms []string
			for k := range b.Attr {
				if m, ok := strings.CutPrefix(k, "marker."); ok {
					ms = append(ms, m)
				}
			}
			sort.Strings(ms)
			setMarkers(b.Name, ms)
		}
	}

	for _, r := range p.refs {
		if _, err := p.lookupRef(r.ref); err != "" {
			p.errs.Add(r.pos, r.field, "%s", err)
		}
	}
	for _, jp := range p.pairs {
		bi, erri := p.lookupRef(jp.i)
		bj, errj := p.lookupRef(jp.j)
		if erri == "" && errj == "" && bi == bj {
			// two markers of one beam may be joined (a cable closed into
			// a loop, two nodes of a rod pinned): its nodes move apart
			if e := p.elems[bi]; e != nil && e.tag == "beam" && jp.i != jp.j {
				continue
			}
			p.errs.Add(jp.pos, "j", "i and j are on the same body %q; a joint connects two bodies", bi)
		}
	}
	for _, d := range p.drivers {
		p.resolveDriver(d)
	}
	for _, r := range p.revRefs {
		p.resolveRevolute(r)
	}
	for _, ch := range p.channels {
		p.resolveChannel(ch)
	}
}

// names lists the declared element names of the given families, sorted.
func (p *parser) names(families ...string) []string {
	var s []string
	for n, e := range p.elems {
		if contains(families, e.family) {
			s = append(s, n)
		}
	}
	sort.Strings(s)
	return s
}

// describe names an element for messages: `revolute joint "pin"`.
func (p *parser) describe(name string, e *entry) string {
	if e.tag == "ground" {
		return "ground"
	}
	return fmt.Sprintf("<%s> %q", e.tag, name)
}

// lookupRef resolves a marker reference "body.marker" or "body" to its
// body, or returns an error message.
func (p *parser) lookupRef(ref string) (body, errMsg string) {
	body, marker, hasMarker := strings.Cut(ref, ".")
	e := p.elems[body]
	switch {
	case e == nil:
		return "", fmt.Sprintf("unknown body %q%s", body, DidYouMean(body, p.names("body", "beam")))
	case e.family != "body" && e.family != "beam":
		return "", fmt.Sprintf("%q is a <%s>, not a body", body, e.tag)
	case hasMarker && !contains(e.markers, marker):
		msg := fmt.Sprintf("%s has no marker %q", p.describe(body, e), marker)
		if len(e.markers) == 0 {
			return "", msg + " (it has no markers)"
		}
		return "", msg + DidYouMean(marker, e.markers)
	}
	return body, ""
}

func (p *parser) resolveDriver(d pendingDriver) {
	var want Dim
	if d.joint != "" {
		e := p.elems[d.joint]
		switch {
		case e == nil:
			p.errs.Add(d.pos, "joint", "unknown joint %q%s", d.joint, DidYouMean(d.joint, p.names("joint")))
			return
		case e.family != "joint":
			p.errs.Add(d.pos, "joint", "%q is a <%s>, not a joint", d.joint, e.tag)
			return
		case p.dim == 3:
			var ok bool
			if want, ok = p.jointDriverDim(d, e); !ok {
				return
			}
		case e.tag == "revolute":
			want = Angle
		case e.tag == "translational":
			want = Length
		default:
			p.errs.Add(d.pos, "joint", "%q is a <%s> joint; a driver needs a revolute or translational joint", d.joint, e.tag)
			return
		}
	} else {
		e := p.elems[d.body]
		switch {
		case d.body == "ground":
			p.errs.Add(d.pos, "body", "the ground cannot be driven")
			return
		case e == nil:
			p.errs.Add(d.pos, "body", "unknown body %q%s", d.body, DidYouMean(d.body, p.names("body")))
			return
		case e.tag != "body":
			p.errs.Add(d.pos, "body", "%q is a <%s>, not a rigid body", d.body, e.tag)
			return
		case d.coord == "angle":
			want = Angle
		default:
			want = Length
		}
	}
	if d.value == "" {
		return
	}
	if sc, err := parseScalar(d.value); err == nil && sc.unit != "" {
		if err := checkDim(sc.unit, sc.u, want); err != nil {
			p.errs.Add(d.valuePos, "value", "%v", err)
		}
	}
}

// resolveChannel checks the names a channel refers to: the element (and
// marker), or an input. Which quantities an element has is the solver's
// to check (Model.Channels).
func (p *parser) resolveChannel(ch pendingRef) {
	parts := strings.Split(ch.ref, ".")
	head := parts[0]
	switch {
	case len(parts) == 1:
		if e := p.vars[head]; head != "time" && (e == nil || (e.family != "input" && e.family != "state" && e.family != "variable")) {
			p.errs.Add(ch.pos, ch.field, "unknown channel %q: a one-word channel is \"time\", an input, a <state> or a <variable>", ch.ref)
		}
		return
	case head == "energy" || head == "constraint":
		if len(parts) != 2 {
			p.errs.Add(ch.pos, ch.field, "bad channel %q: want %s.quantity", ch.ref, head)
		}
		return
	}
	e := p.elems[head]
	if e == nil {
		cands := append(p.names("body", "beam", "joint", "driver", "force", "contact"), "energy", "constraint")
		p.errs.Add(ch.pos, ch.field, "unknown element %q in channel %q%s", head, ch.ref, DidYouMean(head, cands))
		return
	}
	if len(parts) == 3 {
		what := p.describe(head, e)
		switch {
		case e.family != "body" && e.family != "beam":
			p.errs.Add(ch.pos, ch.field, "%s has no markers (channel %q)", what, ch.ref)
		case !contains(e.markers, parts[1]):
			p.errs.Add(ch.pos, ch.field, "%s has no marker %q%s", what, parts[1], DidYouMean(parts[1], e.markers))
		}
	}
}
