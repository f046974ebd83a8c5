package xml

import (
	"fmt"
	"math"
	"mbfmu/spec"
	"os"
	"sort"
	"strconv"
	"strings"
)

// LoadFile reads and parses a model file. I/O errors name the file; model
// problems are returned as a spec.ErrorList holding every problem found
// (see Parse).
func LoadFile(path string) (*spec.Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	return Parse(data, path)
}

// Parse parses a model file held in data; filename is used in error
// positions. All numeric values with units are converted to SI.
//
// On problems the error is a spec.ErrorList with every problem found,
// each with file:line, field (the attribute, or <element> for element
// problems) and message, sorted by line. The returned Spec is never nil:
// it holds what could be read, which is enough for further checks but not
// for a simulation.
func Parse(data []byte, filename string) (*spec.Model, error) {
	p := &parser{
		file:  filename,
		spec:  &spec.Model{},
		elems: map[string]*entry{"ground": {tag: "ground", family: "body"}},
		vars:  map[string]*entry{},
	}
	root, line, err := readTree(data)
	if err != nil {
		p.errs.Add(p.pos(line), "", "malformed XML: %s", err)
	}
	switch {
	case root == nil:
	case root.name != "model":
		p.errs.Add(p.pos(root.line), "<"+root.name+">", "the root element must be <model>")
	default:
		p.element(schema(), root, nil)
	}
	if err == nil {
		p.resolve()
	}
	sort.SliceStable(p.errs, func(i, j int) bool {
		return p.errs[i].Pos.Line < p.errs[j].Pos.Line
	})
	return p.spec, p.errs.Err()
}

// parser holds the state of one Parse call.
type parser struct {
	file  string
	spec  *spec.Model
	errs  spec.ErrorList
	elems map[string]*entry // bodies, joints, drivers, forces, beams, contacts
	vars  map[string]*entry // parameters, inputs, tables, outputs

	// Checks that need the whole file, run by resolve.
	refs     []pendingRef
	pairs    []jointPair
	drivers  []pendingDriver
	channels []pendingRef
}

// entry is a declared name.
type entry struct {
	tag     string // element: "body", "revolute", ...
	family  string // "body", "joint", ...
	pos     spec.Pos
	markers []string
}

type pendingRef struct {
	pos   spec.Pos
	field string
	ref   string
}

type jointPair struct {
	pos  spec.Pos // of attribute j
	i, j string
}

// elemCtx is what an element's check function sees.
type elemCtx struct {
	n   *node
	obj any
	ok  map[string]bool // attributes present and valid
	pos spec.Pos
}

// has reports whether the attribute is present (valid or not).
func (c *elemCtx) has(name string) bool {
	_, ok := c.n.get(name)
	return ok
}

func (c *elemCtx) attrPos(p *parser, name string) spec.Pos { return p.pos(c.n.attrLine(name)) }

func (p *parser) pos(line int) spec.Pos { return spec.Pos{File: p.file, Line: line} }

// element reads node n as an element of kind def into parent.
func (p *parser) element(def *elemDef, n *node, parent any) {
	var obj any = p.spec
	if def.new != nil {
		obj = def.new(parent)
	}
	c := &elemCtx{n: n, obj: obj, ok: map[string]bool{}, pos: p.pos(n.line)}

	var kind *kindDef
	if def.kinds != nil {
		if k, ok := n.get("kind"); ok {
			kind = def.kind(k)
			if kind == nil {
				names := make([]string, len(def.kinds))
				for i, kd := range def.kinds {
					names[i] = kd.name
				}
				p.errs.Add(c.attrPos(p, "kind"), "kind", "unknown <%s> kind %q; want one of %s%s",
					def.name, k, strings.Join(names, ", "), didYouMean(k, names))
			} else {
				c.ok["kind"] = true
				switch o := obj.(type) {
				case *spec.Beam:
					o.Kind = k
				case *spec.Contact:
					o.Kind = k
				}
			}
		}
	}
	// With an unknown kind the kind's attributes and children cannot be
	// checked: report only the kind.
	unchecked := def.kinds != nil && kind == nil

	seen := map[string]int{}
	for _, a := range n.attrs {
		if l, dup := seen[a.name]; dup {
			p.errs.Add(p.pos(a.line), a.name, "attribute given twice (first on line %d)", l)
			continue
		}
		seen[a.name] = a.line
		if def.kinds != nil && a.name == "kind" {
			continue // read above
		}
		ad := def.attr(a.name, kind)
		if ad == nil {
			if !unchecked {
				p.errs.Add(p.pos(a.line), a.name, "unknown attribute of <%s>%s", def.name, didYouMean(a.name, attrNames(def, kind)))
			}
			continue
		}
		if ad.kind != vManual && p.setAttr(ad, a, obj) {
			c.ok[a.name] = true
		}
	}
	for _, ad := range allAttrs(def, kind) {
		if _, ok := seen[ad.name]; ad.req && !ok {
			p.errs.Add(c.pos, ad.name, "required attribute of <%s> is missing", def.name)
		}
	}
	if !def.text {
		if t := strings.TrimSpace(n.text.String()); t != "" {
			if r := []rune(t); len(r) > 20 {
				t = string(r[:20]) + "..."
			}
			p.errs.Add(p.pos(n.textLine), "<"+def.name+">", "unexpected text %q", t)
		}
	}

	children := def.children
	if kind != nil {
		children = kind.children
	}
	first := map[string]int{}
	for _, ch := range n.children {
		var cd *elemDef
		for _, d := range children {
			if d.name == ch.name {
				cd = d
			}
		}
		if cd == nil {
			if !unchecked {
				p.errs.Add(p.pos(ch.line), "<"+ch.name+">", "%s", p.unknownElement(ch.name, def, children))
			}
			continue
		}
		if cd.once {
			if l, ok := first[cd.name]; ok {
				p.errs.Add(p.pos(ch.line), "<"+ch.name+">", "given twice in <%s> (first on line %d)", def.name, l)
				continue
			}
			first[cd.name] = ch.line
		}
		p.element(cd, ch, obj)
	}

	setPos(obj, c.pos)
	if def.check != nil {
		def.check(p, c)
	}
	if def.ns == nsElement || def.ns == nsVariable {
		if name, ok := n.get("name"); ok && c.ok["name"] {
			p.declare(def, name, c.attrPos(p, "name"), c.pos)
		}
	}
	if def.add != nil {
		def.add(parent, obj)
	}
}

// unknownElement words the error for an element that is not allowed in def.
func (p *parser) unknownElement(name string, def *elemDef, allowed []*elemDef) string {
	names := make([]string, len(allowed))
	for i, d := range allowed {
		names[i] = d.name
	}
	// Is it an element of the format that belongs elsewhere?
	var parents []string
	var walk func(d *elemDef, seen map[*elemDef]bool)
	walk = func(d *elemDef, seen map[*elemDef]bool) {
		if seen[d] {
			return
		}
		seen[d] = true
		children := d.children
		for _, k := range d.kinds {
			children = append(children[:len(children):len(children)], k.children...)
		}
		for _, c := range children {
			if c.name == name && !contains(parents, "<"+d.name+">") {
				parents = append(parents, "<"+d.name+">")
			}
			walk(c, seen)
		}
	}
	walk(schema(), map[*elemDef]bool{})
	if len(parents) > 0 {
		return fmt.Sprintf("<%s> is not allowed inside <%s>; it belongs inside %s", name, def.name, strings.Join(parents, " or "))
	}
	msg := fmt.Sprintf("unknown element inside <%s>", def.name)
	if c := nearest(name, names); c != "" {
		msg += "; did you mean <" + c + ">?"
	}
	return msg
}

func allAttrs(def *elemDef, k *kindDef) []attrDef {
	if k == nil {
		return def.attrs
	}
	return append(def.attrs[:len(def.attrs):len(def.attrs)], k.attrs...)
}

func attrNames(def *elemDef, k *kindDef) []string {
	var s []string
	for _, a := range allAttrs(def, k) {
		s = append(s, a.name)
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// setPos records the element's position in its spec object.
func setPos(obj any, pos spec.Pos) {
	switch o := obj.(type) {
	case *spec.Model:
		o.Pos = pos
	case *spec.Settings:
		o.Pos = pos
	case *spec.Param:
		o.Pos = pos
	case *spec.Input:
		o.Pos = pos
	case *spec.Table:
		o.Pos = pos
	case *spec.Marker:
		o.Pos = pos
	case *spec.Ground:
		o.Pos = pos
	case *spec.Body:
		o.Pos = pos
	case *spec.Joint:
		o.Pos = pos
	case *spec.Driver:
		o.Pos = pos
	case *spec.Force:
		o.Pos = pos
	case *spec.Beam:
		o.Pos = pos
	case *spec.Contact:
		o.Pos = pos
	case *spec.Output:
		o.Pos = pos
	}
}

// setAttr reads one attribute into obj; it reports problems and returns
// whether the value was valid.
func (p *parser) setAttr(ad *attrDef, a nodeAttr, obj any) bool {
	pos := p.pos(a.line)
	v := a.value
	fail := func(format string, args ...any) bool {
		p.errs.Add(pos, ad.name, format, args...)
		return false
	}
	switch ad.kind {
	case vName:
		if !isIdent(v) {
			return fail("%q is not a valid name (use letters, digits and _, not starting with a digit)", v)
		}
	case vText:
	case vEnum:
		if !contains(ad.enum, v) {
			return fail("unknown value %q; want one of %s%s", v, strings.Join(ad.enum, ", "), didYouMean(v, ad.enum))
		}
	case vRef:
		if !isRef(v) {
			return fail("bad reference %q: want \"body.marker\" or \"body\"", v)
		}
		p.refs = append(p.refs, pendingRef{pos: pos, field: ad.name, ref: v})
	case vElemRef:
		if !isIdent(v) {
			return fail("%q is not a valid name (use letters, digits and _, not starting with a digit)", v)
		}
	case vChannel:
		parts := strings.Split(v, ".")
		bad := len(parts) > 3
		for _, s := range parts {
			bad = bad || !isIdent(s)
		}
		if bad {
			return fail("bad channel %q: want \"element.quantity\" or \"body.marker.quantity\" (such as \"link.x\", \"link.tip.vy\", \"energy.total\"), \"time\" or an input", v)
		}
		p.channels = append(p.channels, pendingRef{pos: pos, field: ad.name, ref: v})
	case vUnit:
		u, err := parseUnit(v)
		if err != nil {
			return fail("%v", err)
		}
		if err := checkDim(v, u, ad.dim); err != nil {
			return fail("%v", err)
		}
	case vExpr:
		e, ok := p.scalarExpr(ad, v, pos, ad.positive)
		if !ok {
			return false
		}
		p.put(obj, ad, e, pos)
		return true
	case vVec:
		vec, ok := p.vector(ad, v, pos)
		if !ok {
			return false
		}
		p.put(obj, ad, vec, pos)
		return true
	case vNum:
		sc, err := parseScalar(v)
		switch {
		case err != nil:
			return fail("%v", err)
		case sc.expr:
			return fail("%q must be a number with an optional unit; expressions are not allowed here", strings.TrimSpace(v))
		}
		if sc.unit != "" {
			if err := checkDim(sc.unit, sc.u, ad.dim); err != nil {
				return fail("%v", err)
			}
		}
		if ad.positive && !(sc.value > 0) {
			return fail("must be > 0 (got %s)", strings.TrimSpace(v))
		}
		p.put(obj, ad, sc.value, pos)
		return true
	case vInt:
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fail("%q is not an integer", v)
		}
		if ad.positive && i < 1 {
			return fail("must be at least 1 (got %d)", i)
		}
		p.put(obj, ad, i, pos)
		return true
	case vBool:
		switch strings.TrimSpace(v) {
		case "true", "1", "yes":
			p.put(obj, ad, true, pos)
		case "false", "0", "no":
			p.put(obj, ad, false, pos)
		default:
			return fail("%q is not a boolean (true or false)", v)
		}
		return true
	case vList:
		list, err := parseList(v)
		if err != nil {
			return fail("%v", err)
		}
		p.put(obj, ad, list, pos)
		return true
	case vPoints:
		pts, errs := parsePoints(v, a.line)
		for _, e := range errs {
			p.errs.Add(p.pos(e.line), ad.name, "%s", e.msg)
		}
		if len(errs) > 0 {
			return false
		}
		p.put(obj, ad, pts, pos)
		return true
	}
	p.put(obj, ad, v, pos)
	return true
}

// put stores a value in its field, or in the Attr map of a beam or contact.
func (p *parser) put(obj any, ad *attrDef, v any, pos spec.Pos) {
	if ad.field != nil {
		switch dst := ad.field(obj).(type) {
		case *string:
			*dst = v.(string)
		case *float64:
			*dst = v.(float64)
		case *int:
			*dst = v.(int)
		case *bool:
			*dst = v.(bool)
		case *spec.Expr:
			*dst = v.(spec.Expr)
		case *spec.Vec:
			*dst = v.(spec.Vec)
		case *[]float64:
			*dst = v.([]float64)
		case *[][2]float64:
			*dst = v.([][2]float64)
		}
		return
	}
	var m map[string]spec.Expr
	switch o := obj.(type) {
	case *spec.Beam:
		m = o.Attr
	case *spec.Contact:
		m = o.Attr
	default:
		return
	}
	switch x := v.(type) {
	case spec.Expr:
		m[ad.name] = x
	case spec.Vec:
		m[ad.name+".x"], m[ad.name+".y"] = x[0], x[1]
	case string:
		m[ad.name] = spec.Expr{Src: x, Pos: pos, Field: ad.name}
	case float64:
		m[ad.name] = spec.Expr{Src: formatNumber(x), Pos: pos, Field: ad.name}
	case int:
		m[ad.name] = spec.Expr{Src: strconv.Itoa(x), Pos: pos, Field: ad.name}
	case bool:
		m[ad.name] = spec.Expr{Src: map[bool]string{false: "0", true: "1"}[x], Pos: pos, Field: ad.name}
	}
}

// scalarExpr reads a numeric attribute: a number with an optional unit
// (converted to SI, dimension checked, positivity checked if asked) or an
// expression (kept as written).
func (p *parser) scalarExpr(ad *attrDef, v string, pos spec.Pos, positive bool) (spec.Expr, bool) {
	sc, err := parseScalar(v)
	if err != nil {
		p.errs.Add(pos, ad.name, "%v", err)
		return spec.Expr{}, false
	}
	e := spec.Expr{Pos: pos, Field: ad.name}
	if sc.expr {
		e.Src = strings.TrimSpace(v)
		return e, true
	}
	if sc.unit != "" {
		if err := checkDim(sc.unit, sc.u, ad.dim); err != nil {
			p.errs.Add(pos, ad.name, "%v", err)
			return e, false
		}
	}
	if positive && !(sc.value > 0) {
		p.errs.Add(pos, ad.name, "must be > 0 (got %s)", strings.TrimSpace(v))
		return e, false
	}
	e.Src = formatNumber(sc.value)
	return e, true
}

// vector reads a vector attribute: "x y [unit]" with numbers, or
// "expr, expr" (each part may carry its own unit).
func (p *parser) vector(ad *attrDef, v string, pos spec.Pos) (spec.Vec, bool) {
	var vec spec.Vec
	bad := func() (spec.Vec, bool) {
		p.errs.Add(pos, ad.name, "bad vector %q: want two numbers and an optional unit (\"500 0 mm\") or two expressions separated by a comma (\"L/2, 0\")", strings.TrimSpace(v))
		return vec, false
	}
	if parts := splitTopLevel(v, ','); len(parts) > 1 {
		if len(parts) != 2 {
			return bad()
		}
		ok := true
		for i, s := range parts {
			if strings.TrimSpace(s) == "" {
				return bad()
			}
			e, good := p.scalarExpr(ad, s, pos, false)
			vec[i], ok = e, ok && good
		}
		return vec, ok
	}
	f := strings.Fields(v)
	switch {
	case len(f) == 2:
		for i, s := range f {
			sc, err := parseScalar(s)
			if err != nil {
				p.errs.Add(pos, ad.name, "%v", err)
				return vec, false
			}
			if sc.expr {
				return bad()
			}
			if sc.unit != "" {
				if err := checkDim(sc.unit, sc.u, ad.dim); err != nil {
					p.errs.Add(pos, ad.name, "%v", err)
					return vec, false
				}
			}
			vec[i] = spec.Expr{Src: formatNumber(sc.value), Pos: pos, Field: ad.name}
		}
		return vec, true
	case len(f) >= 3:
		var x [2]float64
		for i := range x {
			n := numberPrefix(f[i])
			if n != len(f[i]) {
				return bad()
			}
			val, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				p.errs.Add(pos, ad.name, "number %q is out of range", f[i])
				return vec, false
			}
			x[i] = val
		}
		unit := strings.Join(f[2:], " ")
		if numberPrefix(f[2]) > 0 && !strings.HasPrefix(f[2], "1/") && f[2] != "1" {
			p.errs.Add(pos, ad.name, "bad vector %q: more than two numbers", strings.TrimSpace(v))
			return vec, false
		}
		u, err := parseUnit(unit)
		if err != nil {
			p.errs.Add(pos, ad.name, "%v", err)
			return vec, false
		}
		if err := checkDim(unit, u, ad.dim); err != nil {
			p.errs.Add(pos, ad.name, "%v", err)
			return vec, false
		}
		for i := range x {
			si := u.toSI(x[i])
			if math.IsInf(si, 0) {
				p.errs.Add(pos, ad.name, "number %q is out of range", f[i])
				return vec, false
			}
			vec[i] = spec.Expr{Src: formatNumber(si), Pos: pos, Field: ad.name}
		}
		return vec, true
	}
	return bad()
}

// splitTopLevel splits s at sep outside parentheses.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case sep:
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// parseList reads plain numbers separated by spaces or commas.
func parseList(s string) ([]float64, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || isSpace(r) })
	list := make([]float64, 0, len(f))
	for i, w := range f {
		x, err := plainNumber(w)
		if err != nil {
			return nil, fmt.Errorf("value %d (%q) is not a number (give units with the x-unit and y-unit attributes)", i+1, w)
		}
		list = append(list, x)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no values")
	}
	return list, nil
}

// plainNumber parses a finite decimal number and nothing else.
func plainNumber(s string) (float64, error) {
	if n := numberPrefix(s); n == 0 || n != len(s) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("number %q is out of range", s)
	}
	return x, nil
}

type lineError struct {
	line int
	msg  string
}

// parsePoints reads rows "x y" separated by ";" or new lines; line is the
// line of the first character of s.
func parsePoints(s string, line int) ([][2]float64, []lineError) {
	var pts [][2]float64
	var errs []lineError
	row := 0
	for _, l := range strings.Split(s, "\n") {
		for _, r := range strings.Split(l, ";") {
			f := strings.FieldsFunc(r, func(c rune) bool { return c == ',' || isSpace(c) })
			if len(f) == 0 {
				continue
			}
			row++
			if len(f) != 2 {
				errs = append(errs, lineError{line, fmt.Sprintf("row %d (%q) must be two numbers \"x y\"", row, strings.TrimSpace(r))})
				continue
			}
			var pt [2]float64
			for i, w := range f {
				x, err := plainNumber(w)
				if err != nil {
					errs = append(errs, lineError{line, fmt.Sprintf("row %d: %v", row, err)})
				}
				pt[i] = x
			}
			pts = append(pts, pt)
		}
		line++
	}
	if row == 0 && len(errs) == 0 {
		errs = append(errs, lineError{line - 1, "no points"})
	}
	return pts, errs
}

func isIdent(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func isRef(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) > 2 {
		return false
	}
	for _, x := range parts {
		if !isIdent(x) {
			return false
		}
	}
	return true
}

// declare enters a name in its namespace.
// pos is the name attribute's position, at the element's.
func (p *parser) declare(def *elemDef, name string, pos, at spec.Pos) {
	ns, family := p.elems, "bodies, beams, joints, drivers, forces and contacts"
	reserved := []string{"ground", "energy", "constraint", "time"}
	if def.ns == nsVariable {
		ns, family = p.vars, "parameters, inputs, tables and outputs"
		reserved = []string{"time", "pi"}
	}
	if contains(reserved, name) {
		p.errs.Add(pos, "name", "%q is a reserved name", name)
		return
	}
	if prev, ok := ns[name]; ok {
		p.errs.Add(pos, "name", "duplicate name %q: <%s> on line %d has it already (%s share one namespace)", name, prev.tag, prev.pos.Line, family)
		return
	}
	ns[name] = &entry{tag: def.name, family: def.family, pos: at}
}
