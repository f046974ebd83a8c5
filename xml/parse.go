package xml

import (
	"fmt"
	"io"
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
	data, err := ReadInput(path)
	if err != nil {
		return nil, fmt.Errorf("read model: %w", err)
	}
	return Parse(data, path)
}

// MaxInputSize is the largest model, study or co-simulation file read
// (bytes): far above a model of 10⁵ bodies (about 30 MB), far below what
// would exhaust the memory.
const MaxInputSize = 1 << 30

// ReadInput reads an input file of the tools (model, study, co-simulation
// configuration): a regular file of at most MaxInputSize bytes. A device
// or a pipe (mbfmu check /dev/zero read until the machine ran out of
// memory) or a larger file is refused with what it is.
func ReadInput(path string) ([]byte, error) {
	fi, err := os.Stat(path) // (before opening: opening a pipe waits for a writer)
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder, not a file", path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (a device, a pipe or a socket)", path)
	case fi.Size() > MaxInputSize:
		return nil, fmt.Errorf("%s has %d bytes, more than the %d an input file may have", path, fi.Size(), MaxInputSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxInputSize+1))
	if err == nil && len(data) > MaxInputSize {
		return nil, fmt.Errorf("%s grew beyond %d bytes while it was read", path, MaxInputSize)
	}
	return data, err
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
	root, line, err := ReadTree(data, "model")
	if err != nil {
		p.errs.Add(p.pos(line), "", "malformed XML: %s", err)
	}
	switch {
	case root == nil:
	case root.Name != "model":
		p.errs.Add(p.pos(root.Line), "<"+root.Name+">", "the root element must be <model>")
	default:
		// The root's dimension chooses the schema, so it is read first
		// (and checked with the other attributes by checkModel).
		p.dim, p.root = 2, schema()
		if d, _ := root.Get("dimension"); strings.TrimSpace(d) == "3" {
			p.dim, p.root = 3, schema3()
		}
		p.expandIncludes(root)
		p.element(p.root, root, nil)
	}
	if err == nil {
		p.resolve()
	}
	// by line within each file; the model file's first, then each
	// subsystem's (with its include chain) in the order first reported
	key := func(q spec.Pos) string { return q.File + "\x00" + q.Via }
	rank := map[string]int{key(spec.Pos{File: filename}): 0, key(spec.Pos{}): 0}
	for _, e := range p.errs {
		if _, ok := rank[key(e.Pos)]; !ok {
			rank[key(e.Pos)] = len(rank)
		}
	}
	sort.SliceStable(p.errs, func(i, j int) bool {
		ri, rj := rank[key(p.errs[i].Pos)], rank[key(p.errs[j].Pos)]
		if ri != rj {
			return ri < rj
		}
		return p.errs[i].Pos.Line < p.errs[j].Pos.Line
	})
	return p.spec, p.errs.Err()
}

// parser holds the state of one Parse call.
type parser struct {
	file  string
	via   string // the include chain of the element being read (spec.Pos.Via)
	spec  *spec.Model
	errs  spec.ErrorList
	dim   int               // 2 (planar) or 3 (spatial): the number of vector components
	root  *elemDef          // the schema of that dimension
	elems map[string]*entry // bodies, joints, drivers, forces, beams, contacts
	vars  map[string]*entry // parameters, inputs, tables, outputs

	// Checks that need the whole file, run by resolve.
	refs     []pendingRef
	pairs    []jointPair
	drivers  []pendingDriver
	channels []pendingRef
	revRefs  []pendingRef // joints a spatial <rspring> acts on
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
	n   *Node
	obj any
	ok  map[string]bool // attributes present and valid
	pos spec.Pos
}

// has reports whether the attribute is present (valid or not).
func (c *elemCtx) has(name string) bool {
	_, ok := c.n.Get(name)
	return ok
}

func (c *elemCtx) attrPos(p *parser, name string) spec.Pos { return p.pos(c.n.AttrLine(name)) }

func (p *parser) pos(line int) spec.Pos { return spec.Pos{File: p.file, Line: line, Via: p.via} }

// element reads node n as an element of kind def into parent.
func (p *parser) element(def *elemDef, n *Node, parent any) {
	if n.File != "" && (n.File != p.file || n.Via != p.via) {
		file, via := p.file, p.via
		p.file, p.via = n.File, n.Via
		defer func() { p.file, p.via = file, via }()
	}
	var obj any = p.spec
	if def.new != nil {
		obj = def.new(parent)
	}
	c := &elemCtx{n: n, obj: obj, ok: map[string]bool{}, pos: p.pos(n.Line)}

	var kind *kindDef
	if def.kinds != nil {
		if k, ok := n.Get("kind"); ok {
			kind = def.kind(k)
			if h, ok := def.planarHints["kind:"+k]; ok && kind == nil {
				p.errs.Add(c.attrPos(p, "kind"), "kind", "%s", h)
			} else if kind == nil {
				names := make([]string, len(def.kinds))
				for i, kd := range def.kinds {
					names[i] = kd.name
				}
				p.errs.Add(c.attrPos(p, "kind"), "kind", "unknown <%s> kind %q; want one of %s%s",
					def.name, k, strings.Join(names, ", "), DidYouMean(k, names))
			} else {
				c.ok["kind"] = true
				switch o := obj.(type) {
				case *spec.Beam:
					o.Kind = k
				case *spec.Contact:
					o.Kind = k
				case *spec.Drive:
					o.Kind = k
				}
			}
		}
	}
	// With an unknown kind the kind's attributes and children cannot be
	// checked: report only the kind.
	unchecked := def.kinds != nil && kind == nil

	seen := map[string]int{}
	for _, a := range n.Attrs {
		if l, dup := seen[a.Name]; dup {
			p.errs.Add(p.pos(a.Line), a.Name, "attribute given twice (first on line %d)", l)
			continue
		}
		seen[a.Name] = a.Line
		if def.kinds != nil && a.Name == "kind" {
			continue // read above
		}
		ad := def.attr(a.Name, kind)
		if ad == nil {
			if !unchecked {
				p.errs.Add(p.pos(a.Line), a.Name, "%s", p.unknownAttr(a.Name, def, kind))
			}
			continue
		}
		if ad.kind != vManual && p.setAttr(ad, a, obj) {
			c.ok[a.Name] = true
		}
	}
	for _, ad := range allAttrs(def, kind) {
		if _, ok := seen[ad.name]; ad.req && !ok {
			p.errs.Add(c.pos, ad.name, "required attribute of <%s> is missing", def.name)
		}
	}
	if !def.text {
		if t := strings.TrimSpace(n.Text.String()); t != "" {
			if r := []rune(t); len(r) > 20 {
				t = string(r[:20]) + "..."
			}
			p.errs.Add(p.pos(n.TextLine), "<"+def.name+">", "unexpected text %q", t)
		}
	}

	children := def.children
	if kind != nil {
		children = kind.children
	}
	first := map[string]int{}
	for _, ch := range n.Children {
		var cd *elemDef
		for _, d := range children {
			if d.name == ch.Name {
				cd = d
			}
		}
		if cd == nil {
			if !unchecked {
				p.errs.Add(p.pos(ch.Line), "<"+ch.Name+">", "%s", p.unknownElement(ch.Name, def, children))
			}
			continue
		}
		if cd.once {
			if l, ok := first[cd.name]; ok {
				p.errs.Add(p.pos(ch.Line), "<"+ch.Name+">", "given twice in <%s> (first on line %d)", def.name, l)
				continue
			}
			first[cd.name] = ch.Line
		}
		p.element(cd, ch, obj)
	}

	setPos(obj, c.pos)
	if def.check != nil {
		def.check(p, c)
	}
	if def.ns == nsElement || def.ns == nsVariable {
		if name, ok := n.Get("name"); ok && c.ok["name"] {
			p.declare(def, name, c.attrPos(p, "name"), c.pos)
		}
	}
	if def.add != nil {
		def.add(parent, obj)
	}
}

// unknownElement words the error for an element that is not allowed in def.
func (p *parser) unknownElement(name string, def *elemDef, allowed []*elemDef) string {
	if h, ok := def.planarHints["<"+name+">"]; ok {
		return h
	}
	names := make([]string, len(allowed))
	for i, d := range allowed {
		names[i] = d.name
	}
	// Is it an element of the format that belongs elsewhere?
	var parents []string
	for _, d := range parentsOf(p.root, name) {
		if !contains(parents, "<"+d.name+">") {
			parents = append(parents, "<"+d.name+">")
		}
	}
	if len(parents) > 0 {
		return fmt.Sprintf("<%s> is not allowed inside <%s>; it belongs inside %s", name, def.name, strings.Join(parents, " or "))
	}
	msg := fmt.Sprintf("unknown element inside <%s>", def.name)
	if len(parentsOf(p.otherSchema(), name)) > 0 {
		return msg + "; <" + name + "> " + p.otherDimension()
	}
	if c := nearest(name, names); c != "" {
		msg += "; did you mean <" + c + ">?"
	}
	return msg
}

// unknownAttr words the error for an attribute that def (of kind k) does
// not have.
func (p *parser) unknownAttr(name string, def *elemDef, k *kindDef) string {
	if h, ok := def.planarHints[name]; ok {
		return h
	}
	msg := "unknown attribute of <" + def.name + ">"
	for _, parent := range parentsOf(p.otherSchema(), def.name) {
		for _, d := range parent.children {
			if d.name != def.name {
				continue
			}
			var dk *kindDef
			if k != nil {
				if dk = d.kind(k.name); dk == nil {
					continue
				}
			}
			if d.attr(name, dk) != nil {
				return msg + "; " + name + " " + p.otherDimension()
			}
		}
	}
	return msg + DidYouMean(name, attrNames(def, k))
}

// otherSchema returns the schema of the other dimension (for messages).
func (p *parser) otherSchema() *elemDef {
	if p.dim == 3 {
		return schema()
	}
	return schema3()
}

// otherDimension says where an element or attribute that is not in this
// model's schema belongs.
func (p *parser) otherDimension() string {
	if p.dim == 3 {
		return "is planar: it belongs to models without dimension=\"3\""
	}
	return "is spatial: it belongs to models with <model dimension=\"3\">"
}

// parentsOf returns the elements of the schema rooted at root that have a
// child element called name.
func parentsOf(root *elemDef, name string) []*elemDef {
	var parents []*elemDef
	seen := map[*elemDef]bool{}
	var walk func(d *elemDef)
	walk = func(d *elemDef) {
		if seen[d] {
			return
		}
		seen[d] = true
		children := d.children
		for _, k := range d.kinds {
			children = append(children[:len(children):len(children)], k.children...)
		}
		for _, c := range children {
			if c.name == name && (len(parents) == 0 || parents[len(parents)-1] != d) {
				parents = append(parents, d)
			}
			walk(c)
		}
	}
	walk(root)
	return parents
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
	case *spec.Solid:
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
	case *beamMarker:
		o.pos = pos
	case *prestressDef:
		o.pos = pos
	case *spec.Contact:
		o.Pos = pos
	case *spec.Drive:
		o.Pos = pos
	case *spec.State:
		o.Pos = pos
	case *spec.Variable:
		o.Pos = pos
	case *spec.Output:
		o.Pos = pos
	}
}

// setAttr reads one attribute into obj; it reports problems and returns
// whether the value was valid.
func (p *parser) setAttr(ad *attrDef, a Attr, obj any) bool {
	pos := p.pos(a.Line)
	v := a.Value
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
		if c, ok := ad.aliases[strings.TrimSpace(v)]; ok {
			p.put(obj, ad, c, pos)
			return true
		}
		if !contains(ad.enum, v) {
			if ad.aliases != nil {
				return fail("unknown value %q; want one of %s (aliases: %s)%s", v, strings.Join(ad.enum, ", "),
					aliasList(ad.enum, ad.aliases), DidYouMean(v, append(append([]string(nil), ad.enum...), sortedAliasNames(ad.aliases)...)))
			}
			return fail("unknown value %q; want one of %s%s", v, strings.Join(ad.enum, ", "), DidYouMean(v, ad.enum))
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
		comps, ok := p.components(ad, v, pos)
		if !ok {
			return false
		}
		var vec spec.Vec
		copy(vec[:], comps)
		p.put(obj, ad, vec, pos)
		return true
	case vQuat, vTensor, vVec6:
		comps, ok := p.components(ad, v, pos)
		if !ok {
			return false
		}
		p.put(obj, ad, comps, pos)
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
		pts, errs := parsePoints(v, a.Line)
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
		case *[4]spec.Expr:
			copy(dst[:], v.([]spec.Expr))
		case *[6]spec.Expr:
			copy(dst[:], v.([]spec.Expr))
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
	case *spec.Drive:
		m = o.Attr
	default:
		return
	}
	switch x := v.(type) {
	case spec.Expr:
		m[ad.name] = x
	case spec.Vec:
		m[ad.name+".x"], m[ad.name+".y"] = x[0], x[1]
		if p.dim == 3 {
			m[ad.name+".z"] = x[2]
		}
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
	return p.scalarExprDim(ad.name, "", ad.dim, v, pos, positive)
}

// scalarExprDim is scalarExpr for one value of dimension dim in
// attribute field; what (such as "component 4 (rotation about x): ")
// starts the messages about it.
func (p *parser) scalarExprDim(field, what string, dim Dim, v string, pos spec.Pos, positive bool) (spec.Expr, bool) {
	sc, err := parseScalar(v)
	if err != nil {
		p.errs.Add(pos, field, "%s%v", what, err)
		return spec.Expr{}, false
	}
	e := spec.Expr{Pos: pos, Field: field}
	if sc.expr {
		e.Src = strings.TrimSpace(v)
		return e, true
	}
	if sc.unit != "" {
		if err := checkDim(sc.unit, sc.u, dim); err != nil {
			p.errs.Add(pos, field, "%s%v", what, err)
			return e, false
		}
	}
	if positive && !(sc.value > 0) {
		p.errs.Add(pos, field, "%smust be > 0 (got %s)", what, strings.TrimSpace(v))
		return e, false
	}
	e.Src = formatNumber(sc.value)
	return e, true
}

// compSpec says how many components a vector-like attribute takes and how
// its errors are worded.
type compSpec struct {
	noun   string // "vector", "quaternion", ...
	counts []int  // accepted numbers of components
	dims   []Dim  // dimension of each component (nil: the attribute's)
	want   string // what to write, for the message of a bad value
}

// countWord spells a component count.
func countWord(n int) string {
	if n >= 0 && n < 7 {
		return [...]string{"zero", "one", "two", "three", "four", "five", "six"}[n]
	}
	return strconv.Itoa(n)
}

// compSpecOf returns the component rules of a vector-like attribute in
// this model (vectors have two components in a planar model, three in a
// spatial one).
func (p *parser) compSpecOf(ad *attrDef) compSpec {
	switch ad.kind {
	case vQuat:
		return compSpec{noun: "quaternion", counts: []int{4},
			want: `want four numbers (w x y z, scalar first: "1 0 0 0") or four expressions separated by commas ("cos(a/2), 0, 0, sin(a/2)")`}
	case vTensor:
		return compSpec{noun: "inertia", counts: []int{3, 6},
			want: `want three numbers Jxx Jyy Jzz or six Jxx Jyy Jzz Jxy Jxz Jyz, with an optional unit ("40 60 80 kg*mm^2"), or as many expressions separated by commas ("Jt, Jt, Ja")`}
	case vVec6:
		ex := make([]string, len(ad.dims))
		for i, d := range ad.dims {
			ex[i] = "1 " + d.SI()
		}
		return compSpec{noun: "value", counts: []int{6}, dims: ad.dims,
			want: fmt.Sprintf(`want six numbers in SI units (translations x, y, z, then rotations x, y, z) or six values separated by commas, each with its own unit (%q)`, strings.Join(ex, ", "))}
	}
	if p.dim == 3 {
		return compSpec{noun: "vector", counts: []int{3},
			want: `want three numbers and an optional unit ("0 0 500 mm") or three expressions separated by commas ("L/2, 0, h")`}
	}
	return compSpec{noun: "vector", counts: []int{2},
		want: `want two numbers and an optional unit ("500 0 mm") or two expressions separated by a comma ("L/2, 0")`}
}

// compLabel names component i of a value with mixed dimensions in
// messages: "component 4 (rotation about x): ".
func compLabel(cs compSpec, i int) string {
	if cs.dims == nil {
		return ""
	}
	axis := string("xyz"[i%3])
	what := "translation along " + axis
	if i >= 3 {
		what = "rotation about " + axis
	}
	return fmt.Sprintf("component %d (%s): ", i+1, what)
}

// isSingle reports whether v is one value (a number with an optional unit,
// or one expression) rather than the components of a vector.
func isSingle(v string) bool {
	if len(splitTopLevel(v, ',')) > 1 {
		return false
	}
	// Two or more plain numbers separated by spaces ("1.92 -0.96 0.48
	// rad/s") are components, although "1.92 -0.96" alone would read as
	// the expression 1.92 − 0.96.
	if f := strings.Fields(v); len(f) >= 2 && numberPrefix(f[0]) == len(f[0]) && numberPrefix(f[1]) == len(f[1]) {
		return false
	}
	sc, err := parseScalar(v)
	return err == nil && (!sc.expr || len(strings.Fields(v)) == 1 || strings.ContainsAny(v, "*/+-()^"))
}

// components reads a vector-like attribute (vector, quaternion, inertia,
// six-vector): numbers separated by spaces with an optional shared unit
// ("1 2 3 mm"), or expressions separated by commas, each of which may be a
// number with its own unit ("L/2, 0, 5 mm").
func (p *parser) components(ad *attrDef, v string, pos spec.Pos) ([]spec.Expr, bool) {
	cs := p.compSpecOf(ad)
	dimOf := func(i int) Dim {
		if cs.dims != nil {
			return cs.dims[i]
		}
		return ad.dim
	}
	fail := func(format string, args ...any) ([]spec.Expr, bool) {
		p.errs.Add(pos, ad.name, format, args...)
		return nil, false
	}
	bad := func() ([]spec.Expr, bool) {
		return fail("bad %s %q: %s", cs.noun, strings.TrimSpace(v), cs.want)
	}
	maxCount := cs.counts[len(cs.counts)-1]
	more := func() ([]spec.Expr, bool) {
		return fail("bad %s %q: more than %s numbers", cs.noun, strings.TrimSpace(v), countWord(maxCount))
	}
	if ad.hint != "" && isSingle(v) {
		return fail("%s", ad.hint)
	}
	if parts := splitTopLevel(v, ','); len(parts) > 1 {
		if !containsInt(cs.counts, len(parts)) {
			return bad()
		}
		out := make([]spec.Expr, len(parts))
		ok := true
		for i, s := range parts {
			if strings.TrimSpace(s) == "" {
				return bad()
			}
			e, good := p.scalarExprDim(ad.name, compLabel(cs, i), dimOf(i), s, pos, false)
			out[i], ok = e, ok && good
		}
		return out, ok
	}
	f := strings.Fields(v)
	if containsInt(cs.counts, len(f)) {
		// One number per field, each with an optional unit ("1mm").
		out := make([]spec.Expr, len(f))
		for i, s := range f {
			sc, err := parseScalar(s)
			if err != nil {
				return fail("%s%v", compLabel(cs, i), err)
			}
			if sc.expr {
				return bad()
			}
			if sc.unit != "" {
				if err := checkDim(sc.unit, sc.u, dimOf(i)); err != nil {
					return fail("%s%v", compLabel(cs, i), err)
				}
			}
			out[i] = spec.Expr{Src: formatNumber(sc.value), Pos: pos, Field: ad.name}
		}
		return out, true
	}
	// Numbers followed by a shared unit. With a single accepted count the
	// first that many fields must be numbers; otherwise the count is that
	// of the leading numbers.
	n := cs.counts[0]
	if len(cs.counts) > 1 {
		n = 0
		for n < len(f) && numberPrefix(f[n]) == len(f[n]) {
			n++
		}
		switch {
		case n > maxCount:
			return more()
		case !containsInt(cs.counts, n):
			return bad()
		}
	}
	if len(f) <= n {
		return bad()
	}
	x := make([]float64, n)
	for i := range x {
		if numberPrefix(f[i]) != len(f[i]) {
			return bad()
		}
		val, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return fail("number %q is out of range", f[i])
		}
		x[i] = val
	}
	unit := strings.Join(f[n:], " ")
	// "1/s" and "1 / s" are units; a lone "1" is one number too many.
	if numberPrefix(f[n]) > 0 && !strings.HasPrefix(f[n], "1/") && (f[n] != "1" || len(f) == n+1) {
		return more()
	}
	u, err := parseUnit(unit)
	if err != nil {
		return fail("%v", err)
	}
	if cs.dims != nil {
		for i := 1; i < n; i++ {
			if cs.dims[i] != cs.dims[0] {
				return fail("one unit (%q) cannot serve every component (%s and %s): write the values in SI without a unit, or give each its own unit and separate them by commas",
					unit, cs.dims[0].SI(), cs.dims[i].SI())
			}
		}
	}
	if err := checkDim(unit, u, dimOf(0)); err != nil {
		return fail("%v", err)
	}
	out := make([]spec.Expr, n)
	for i := range x {
		si := u.toSI(x[i])
		if math.IsInf(si, 0) {
			return fail("number %q is out of range", f[i])
		}
		out[i] = spec.Expr{Src: formatNumber(si), Pos: pos, Field: ad.name}
	}
	return out, true
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
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
		ns, family = p.vars, "parameters, inputs, tables, states, variables and outputs"
		reserved = []string{"time", "pi"}
	}
	if contains(reserved, name) {
		p.errs.Add(pos, "name", "%q is a reserved name", name)
		return
	}
	if prev, ok := ns[name]; ok {
		where := fmt.Sprintf("on line %d", prev.pos.Line)
		if prev.pos.File != "" && (prev.pos.File != pos.File || prev.pos.Via != pos.Via) {
			where = "at " + prev.pos.String()
		}
		p.errs.Add(pos, "name", "duplicate name %q: <%s> %s has it already (%s share one namespace)", name, prev.tag, where, family)
		return
	}
	ns[name] = &entry{tag: def.name, family: def.family, pos: at}
}
