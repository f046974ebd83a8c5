package xml

import (
	"math"
	"os"
	"path/filepath"
	"strings"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Subsystems: <include name="lift1" file="lift.xml" at="..." angle="...">
// reads a <subsystem> file (its own <parameter>s, <port>s and elements) and
// puts its elements in the model with their names prefixed by the
// instance ("lift1_arm"), its parameters set by <set> (or their defaults)
// as parameters of the model ("lift1_L"; a <set> expression instead put
// in place of the parameter where it is used), its ports replaced by the
// markers <connect> names, and its bodies placed by at and angle. The
// expansion happens on the element tree before the schema reads it, so a
// model with includes is read exactly as the same model written flat
// (Flatten writes it), and every position keeps the file and line it
// came from with the include chain (spec.Pos.Via).

// incCtx is the context a file's elements are expanded in.
type incCtx struct {
	file   string   // the file being read
	via    string   // its include chain ("" for the model file)
	stack  []string // absolute paths of the files being included
	prefix string   // the names' prefix ("" for the model file)
	// rename maps a reference written in the file to the model's name
	rename func(head string) string
	place  placement // the file's frame in the model's
}

// placement is a frame in the model's frame: the origin (x, y, z) and, in
// a planar model, the angle about z; in a spatial one the rotation r (nil:
// none).
type placement struct {
	x, y, z, angle float64
	r              *mech.Mat3
}

// then returns the placement of frame q given in p's frame.
func (p placement) then(q placement) placement {
	if p.r != nil || q.r != nil {
		rp, rq := mech.Ident, mech.Ident
		if p.r != nil {
			rp = *p.r
		}
		if q.r != nil {
			rq = *q.r
		}
		o := mech.Add(mech.Vec3{p.x, p.y, p.z}, mech.MulMV(&rp, mech.Vec3{q.x, q.y, q.z}))
		r := mech.MulMM(&rp, &rq)
		return placement{x: o[0], y: o[1], z: o[2], r: &r}
	}
	c, s := math.Cos(p.angle), math.Sin(p.angle)
	return placement{p.x + c*q.x - s*q.y, p.y + s*q.x + c*q.y, p.z + q.z, p.angle + q.angle, nil}
}

// expandIncludes replaces the <include>s among the children of the model
// root by the subsystems' elements.
func (p *parser) expandIncludes(root *Node) {
	has := false
	for _, c := range root.Children {
		if c.Name == "include" {
			has = true
		}
	}
	if !has {
		return
	}
	abs, _ := filepath.Abs(p.file)
	ctx := &incCtx{file: p.file, stack: []string{abs}, rename: func(h string) string { return h }}
	root.Children = p.expandChildren(root.Children, ctx, nil)
}

// expandChildren expands the includes among children read in ctx.
func (p *parser) expandChildren(children []*Node, ctx *incCtx, out []*Node) []*Node {
	seen := map[string]int{}
	for _, c := range children {
		if c.Name == "include" {
			if p.dupInstance(c, ctx, seen) {
				continue
			}
			out = p.include(c, ctx, out)
			continue
		}
		out = append(out, c)
	}
	return out
}

// errAt records an error at line of the file read in ctx.
func (p *parser) errAt(ctx *incCtx, line int, field, format string, args ...any) {
	p.errs.Add(spec.Pos{File: ctx.file, Line: line, Via: ctx.via}, field, format, args...)
}

// include expands one <include> read in ctx, appending the elements to out.
func (p *parser) include(inc *Node, ctx *incCtx, out []*Node) []*Node {
	known := []string{"name", "file", "at", "angle", "description"}
	if p.dim == 3 {
		known = append(known, "axis", "quaternion")
	}
	for _, a := range inc.Attrs {
		if !contains(known, a.Name) {
			p.errAt(ctx, a.Line, a.Name, "unknown attribute of <include>; want %s%s", strings.Join(known, ", "), DidYouMean(a.Name, known))
		}
	}
	name, ok := inc.Get("name")
	if !ok || !isIdent(name) {
		p.errAt(ctx, inc.AttrLine("name"), "name", "<include> needs a name: an identifier that prefixes the subsystem's names (lift1 gives lift1_arm)")
		return out
	}
	rel, ok := inc.Get("file")
	if !ok || strings.TrimSpace(rel) == "" {
		p.errAt(ctx, inc.AttrLine("file"), "file", "<include> needs the subsystem's file (relative to this file)")
		return out
	}
	path := resolvePath(ctx.file, rel)
	abs, _ := filepath.Abs(path)
	for k, f := range ctx.stack {
		if f == abs {
			chain := make([]string, 0, len(ctx.stack)-k+1)
			for _, g := range ctx.stack[k:] {
				chain = append(chain, filepath.Base(g))
			}
			p.errAt(ctx, inc.AttrLine("file"), "file", "subsystem %s includes itself (%s → %s)", rel, strings.Join(chain, " → "), filepath.Base(abs))
			return out
		}
	}
	if len(ctx.stack) > 32 {
		p.errAt(ctx, inc.AttrLine("file"), "file", "includes nested more than 32 deep")
		return out
	}
	data, err := os.ReadFile(path)
	if err != nil {
		p.errAt(ctx, inc.AttrLine("file"), "file", "cannot read subsystem %s: %v", rel, errText(err))
		return out
	}
	sub := &incCtx{file: path, stack: append(append([]string(nil), ctx.stack...), abs),
		prefix: ctx.prefix + name + "_", via: "in " + ctx.prefix + name + " included at " + spec.Pos{File: ctx.file, Line: inc.Line}.String()}
	if ctx.via != "" {
		sub.via += ", " + ctx.via
	}
	root, line, err := ReadTree(data, "subsystem")
	if err != nil {
		p.errAt(sub, line, "", "malformed XML: %s", err)
		return out
	}
	if root.Name != "subsystem" {
		p.errAt(sub, root.Line, "<"+root.Name+">", "the root element of an included file must be <subsystem>")
		return out
	}
	if d, ok := root.Get("dimension"); ok && strings.TrimSpace(d) != "2" && strings.TrimSpace(d) != "3" {
		p.errAt(sub, root.AttrLine("dimension"), "dimension", "must be 2 or 3, got %q", d)
	} else if dim := 2; true {
		if strings.TrimSpace(d) == "3" {
			dim = 3
		}
		if dim != p.dim {
			p.errAt(ctx, inc.Line, "file", "subsystem %s is %s but the model is %s", rel, dimWord(dim), dimWord(p.dim))
			return out
		}
	}
	for _, a := range root.Attrs {
		if a.Name != "name" && a.Name != "description" && a.Name != "dimension" {
			p.errAt(sub, a.Line, a.Name, "unknown attribute of <subsystem>; want name, description or dimension")
		}
	}

	// the subsystem's names: parameters, ports, elements, nested instances
	params := map[string]*Node{}
	var pnames []string
	ports := map[string]*Node{}
	var portNames []string
	locals := map[string]bool{}
	nested := map[string]bool{} // the names nested instances declare, prefixed

	for _, c := range root.Children {
		n, _ := c.Get("name")
		switch c.Name {
		case "parameter":
			params[n], pnames = c, append(pnames, n)
		case "port":
			if !isIdent(n) {
				p.errAt(sub, c.AttrLine("name"), "name", "<port> needs a name (an identifier)")
				continue
			}
			ports[n], portNames = c, append(portNames, n)
			continue
		case "include":
			if f, ok := c.Get("file"); ok && isIdent(n) {
				for _, d := range declaredNames(resolvePath(path, f), sub.stack) {
					nested[n+"_"+d] = true
				}
			}
			continue
		case "settings", "ground":
			p.errAt(sub, c.Line, "<"+c.Name+">", "a subsystem has no <%s>: the model that includes it has it (connect the subsystem to the ground through a <port>)", c.Name)
			continue
		}
		if n != "" {
			locals[n] = true
		}
	}
	// what the include sets and connects
	sets := map[string]*Node{}
	conns := map[string]string{}
	for _, c := range inc.Children {
		switch c.Name {
		case "set":
			n, _ := c.Get("name")
			if _, ok := params[n]; !ok {
				p.errAt(ctx, c.AttrLine("name"), "name", "subsystem %s has no parameter %q%s", rel, n, DidYouMean(n, pnames))
				continue
			}
			if _, dup := sets[n]; dup {
				p.errAt(ctx, c.Line, "name", "parameter %q set twice", n)
			}
			if _, ok := c.Get("value"); !ok {
				p.errAt(ctx, c.Line, "value", "<set> needs a value")
				continue
			}
			sets[n] = c
		case "connect":
			port, _ := c.Get("port")
			to, ok := c.Get("to")
			if _, isPort := ports[port]; !isPort {
				p.errAt(ctx, c.AttrLine("port"), "port", "subsystem %s has no port %q%s", rel, port, DidYouMean(port, portNames))
				continue
			}
			if !ok || !isRef(strings.TrimSpace(to)) {
				p.errAt(ctx, c.AttrLine("to"), "to", "<connect> needs to=\"body.marker\" (a marker of the including model)")
				continue
			}
			if _, dup := conns[port]; dup {
				p.errAt(ctx, c.Line, "port", "port %q connected twice", port)
			}
			conns[port] = ctx.rename(strings.TrimSpace(to))
		default:
			p.errAt(ctx, c.Line, "<"+c.Name+">", "unknown element in <include>; want <set name value> or <connect port to>")
		}
	}
	for _, n := range portNames {
		if _, ok := conns[n]; !ok {
			p.errAt(ctx, inc.Line, "<connect>", "port %q of subsystem %s is not connected: add <connect port=%q to=\"body.marker\"/>", n, rel, n)
		}
	}
	// a <set> whose value is an expression (of the including file's
	// parameters, inputs, time) is put in place of the parameter wherever
	// the subsystem uses it: no parameter of its own, so the expression
	// follows the parameters it reads, in the FMU too
	inline := map[string]string{}
	for n, c := range sets {
		v, _ := c.Get("value")
		if sc, err := parseScalar(v); err == nil && sc.expr {
			inline[n] = "(" + renameExpr(v, ctx.rename) + ")"
		}
	}
	sub.rename = func(h string) string {
		if t, ok := conns[h]; ok {
			return t
		}
		if e, ok := inline[h]; ok {
			return e
		}
		if locals[h] || nested[h] {
			return sub.prefix + h
		}
		return ctx.rename(h) // a name of the including file (an input, a parameter)
	}
	pl := placement{}
	if v, ok := inc.Get("at"); ok {
		ad := &attrDef{name: "at", kind: vVec, dim: Length}
		if cs, ok := p.components(ad, v, spec.Pos{File: ctx.file, Line: inc.AttrLine("at"), Via: ctx.via}); ok {
			vals, ok := numValues(cs...)
			if !ok {
				p.errAt(ctx, inc.AttrLine("at"), "at", "a placement is numbers (with a unit), not expressions")
			} else {
				pl.x, pl.y = vals[0], vals[1]
				if len(vals) > 2 {
					pl.z = vals[2]
				}
			}
		}
	}
	if p.dim == 3 {
		if r, ok := p.includeRotation(inc, ctx); ok {
			pl.r = r
		}
	} else if v, ok := inc.Get("angle"); ok {
		if e, ok := p.scalarExprDim("angle", "", Angle, v, spec.Pos{File: ctx.file, Line: inc.AttrLine("angle"), Via: ctx.via}, false); ok {
			if a, ok := numValue(e); ok {
				pl.angle = a
			} else {
				p.errAt(ctx, inc.AttrLine("angle"), "angle", "a placement is a number (with a unit), not an expression")
			}
		}
	}
	sub.place = ctx.place.then(pl)

	// the elements, renamed
	seenNested := map[string]int{}
	for _, c := range root.Children {
		switch c.Name {
		case "port", "settings", "ground":
			continue
		case "parameter":
			if _, ok := inline[mustGet(c, "name")]; !ok {
				out = append(out, p.instanceParam(c, sets[mustGet(c, "name")], inc, ctx, sub))
			}
			continue
		case "include":
			if !p.dupInstance(c, sub, seenNested) {
				out = p.include(c, sub, out)
			}
			continue
		}
		c = cloneNode(c)
		p.rewrite(c, p.root.childDef(c.Name), sub, true)
		if c.Name == "body" {
			p.place(c, sub)
		}
		if c.Name == "fe-body" {
			// its data files are named relative to the subsystem's file:
			// made absolute, they survive Flatten (pack)
			for _, a := range feFileAttrs(c) {
				if a.Value != "" && !filepath.IsAbs(a.Value) {
					if abs, err := filepath.Abs(filepath.Join(filepath.Dir(sub.file), a.Value)); err == nil {
						a.Value = abs
					}
				}
			}
			p.placeFE(c, sub)
		}
		out = append(out, c)
	}
	return out
}

// dupInstance reports an <include> whose instance name an earlier one in
// the same file has (seen: name → line).
func (p *parser) dupInstance(inc *Node, ctx *incCtx, seen map[string]int) bool {
	n, _ := inc.Get("name")
	if n == "" {
		return false
	}
	if l, dup := seen[n]; dup {
		p.errAt(ctx, inc.AttrLine("name"), "name", "instance %q is already included on line %d: give each <include> its own name", n, l)
		return true
	}
	seen[n] = inc.Line
	return false
}

// resolvePath resolves an include's file against the including file.
func resolvePath(from, rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(filepath.Dir(from), rel)
}

// declaredNames lists the names a subsystem file declares at its top
// level, with those of its own includes prefixed by their instance
// names (what an including file may refer to); problems are left to the
// expansion to report.
func declaredNames(path string, stack []string) []string {
	abs, _ := filepath.Abs(path)
	for _, f := range stack {
		if f == abs {
			return nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	root, _, err := ReadTree(data, "subsystem")
	if err != nil || root == nil {
		return nil
	}
	var out []string
	for _, c := range root.Children {
		n, _ := c.Get("name")
		switch c.Name {
		case "port", "settings", "ground":
		case "include":
			if f, ok := c.Get("file"); ok && isIdent(n) {
				for _, d := range declaredNames(resolvePath(path, f), append(stack, abs)) {
					out = append(out, n+"_"+d)
				}
			}
		default:
			if n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// dimWord names a model dimension.
func dimWord(d int) string {
	if d == 3 {
		return "spatial (dimension=\"3\")"
	}
	return "planar"
}

// errText shortens a file error.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

func mustGet(n *Node, name string) string {
	v, _ := n.Get(name)
	return v
}

// instanceParam is the model parameter of a subsystem parameter: its name
// prefixed, its value the <set> one (positions in the including file) or
// the default.
func (p *parser) instanceParam(def, set, inc *Node, ctx, sub *incCtx) *Node {
	n := cloneNode(def)
	n.File, n.Via = sub.file, sub.via
	for k := range n.Attrs {
		if n.Attrs[k].Name == "name" {
			n.Attrs[k].Value = sub.prefix + n.Attrs[k].Value
		}
	}
	if set == nil {
		if _, ok := n.Get("value"); !ok {
			p.errAt(ctx, inc.Line, "<set>", "subsystem parameter %q has no default: set it with <set name=%q value=\"...\"/>", mustGet(def, "name"), mustGet(def, "name"))
		}
		return n
	}
	// the value comes from the <set>, read at its place
	n.File, n.Via, n.Line = ctx.file, ctx.via, set.Line
	v, _ := set.Get("value")
	attrs := []Attr{{Name: "name", Value: sub.prefix + mustGet(def, "name"), Line: set.Line}, {Name: "value", Value: v, Line: set.AttrLine("value")}}
	for _, a := range def.Attrs {
		if a.Name == "unit" || a.Name == "description" {
			attrs = append(attrs, Attr{Name: a.Name, Value: a.Value, Line: set.Line})
		}
	}
	n.Attrs = attrs
	return n
}

// childDef returns the schema of child element name, or nil.
func (e *elemDef) childDef(name string) *elemDef {
	for _, d := range e.children {
		if d.name == name {
			return d
		}
	}
	return nil
}

// cloneNode copies a node and its children.
func cloneNode(n *Node) *Node {
	c := &Node{Name: n.Name, Line: n.Line, Attrs: append([]Attr(nil), n.Attrs...), TextLine: n.TextLine, File: n.File, Via: n.Via}
	c.Text.WriteString(n.Text.String())
	for _, ch := range n.Children {
		c.Children = append(c.Children, cloneNode(ch))
	}
	return c
}

// rewrite renames what element n (schema def, nil if unknown) declares
// and refers to for the subsystem instance ctx, and marks where it comes
// from.
func (p *parser) rewrite(n *Node, def *elemDef, ctx *incCtx, top bool) {
	n.File, n.Via = ctx.file, ctx.via
	var kind *kindDef
	if def != nil && def.kinds != nil {
		if k, ok := n.Get("kind"); ok {
			kind = def.kind(k)
		}
	}
	for k := range n.Attrs {
		a := &n.Attrs[k]
		if def == nil {
			continue
		}
		ad := def.attr(a.Name, kind)
		if ad == nil {
			continue
		}
		switch ad.kind {
		case vName:
			if top {
				a.Value = ctx.prefix + a.Value
			}
		case vRef, vElemRef, vChannel:
			a.Value = renameRef(a.Value, ctx.rename)
		case vExpr, vVec, vQuat, vTensor, vVec6:
			a.Value = renameExpr(a.Value, ctx.rename)
		}
	}
	for _, ch := range n.Children {
		var cd *elemDef
		if def != nil {
			children := def.children
			if kind != nil {
				children = kind.children
			}
			for _, d := range children {
				if d.name == ch.Name {
					cd = d
				}
			}
		}
		p.rewrite(ch, cd, ctx, false)
	}
}

// renameRef renames the head of a reference ("arm.tip", "arm").
func renameRef(v string, rename func(string) string) string {
	t := strings.TrimSpace(v)
	head, rest, _ := strings.Cut(t, ".")
	if rest != "" {
		rest = "." + rest
	}
	return rename(head) + rest
}

// renameExpr renames the names in an expression, or in a number with a
// unit: a name right after a number starts a unit ("0.5 kg*m^2",
// "100mm"), which runs to the next comma (a vector's next component) and
// is left alone — units never appear inside expressions.
func renameExpr(v string, rename func(string) string) string {
	var b strings.Builder
	afterNumber, unit := false, false
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case unit && c != ',':
			b.WriteByte(c)
			i++
		case c == ',':
			b.WriteByte(c)
			i, afterNumber, unit = i+1, false, false
		case isDigit(c) || (c == '.' && i+1 < len(v) && isDigit(v[i+1])):
			j := i
			for j < len(v) && (isDigit(v[j]) || v[j] == '.') {
				j++
			}
			if j < len(v) && (v[j] == 'e' || v[j] == 'E') {
				k := j + 1
				if k < len(v) && (v[k] == '+' || v[k] == '-') {
					k++
				}
				if k < len(v) && isDigit(v[k]) {
					for k < len(v) && isDigit(v[k]) {
						k++
					}
					j = k
				}
			}
			b.WriteString(v[i:j])
			i, afterNumber = j, true
		case isIdentStart(c):
			j := i
			for j < len(v) && (isIdentStart(v[j]) || isDigit(v[j]) || v[j] == '.') {
				j++
			}
			w := v[i:j]
			if afterNumber { // a unit, to the next comma
				b.WriteString(w)
				unit = true
			} else {
				b.WriteString(renameRef(w, rename))
			}
			i, afterNumber = j, false
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i, afterNumber = i+1, false
		}
	}
	return b.String()
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80 }

// place moves a subsystem body to the instance's placement: its position,
// orientation and initial velocity (planar), its position (spatial).
func (p *parser) place(n *Node, ctx *incCtx) {
	pl := ctx.place
	if pl == (placement{}) {
		return
	}
	if pl.r != nil {
		p.place3(n, ctx)
		return
	}
	def := p.root.childDef("body")
	c, s := math.Cos(pl.angle), math.Sin(pl.angle)
	get := func(name string) ([]spec.Expr, bool) { return p.nodeComps(n, def, ctx, name) }
	set := func(name, v string) { setNodeAttr(n, name, v) }
	rot := func(cs []spec.Expr, off [3]float64) string {
		if v, ok := numValues(cs...); ok {
			out := []string{formatNumber(off[0] + c*v[0] - s*v[1]), formatNumber(off[1] + s*v[0] + c*v[1])}
			if len(v) > 2 {
				out = append(out, formatNumber(off[2]+v[2]))
			}
			return strings.Join(out, " ")
		}
		cx, cy := "("+cs[0].Src+")", "("+cs[1].Src+")"
		out := []string{formatNumber(off[0]) + " + " + formatNumber(c) + "*" + cx + " - " + formatNumber(s) + "*" + cy,
			formatNumber(off[1]) + " + " + formatNumber(s) + "*" + cx + " + " + formatNumber(c) + "*" + cy}
		if len(cs) > 2 {
			out = append(out, formatNumber(off[2])+" + ("+cs[2].Src+")")
		}
		return strings.Join(out, ", ")
	}
	if cs, ok := get("at"); ok {
		set("at", rot(cs, [3]float64{pl.x, pl.y, pl.z}))
	} else if _, given := n.Get("at"); !given {
		at := []string{formatNumber(pl.x), formatNumber(pl.y)}
		if p.dim == 3 {
			at = append(at, formatNumber(pl.z))
		}
		set("at", strings.Join(at, " "))
	}
	if p.dim == 3 || pl.angle == 0 {
		return
	}
	if v, ok := n.Get("angle"); ok {
		if e, ok := (&parser{}).scalarExprDim("angle", "", Angle, v, spec.Pos{}, false); ok {
			if a, ok := numValue(e); ok {
				set("angle", formatNumber(pl.angle+a))
			} else {
				set("angle", formatNumber(pl.angle)+" + ("+e.Src+")")
			}
		}
	} else {
		set("angle", formatNumber(pl.angle))
	}
	if cs, ok := get("velocity"); ok {
		set("velocity", rot(cs, [3]float64{}))
	}
}

// includeRotation reads a spatial include's rotation: quaternion="w, x,
// y, z" or axis="x y z" with angle (numbers, with units).
func (p *parser) includeRotation(inc *Node, ctx *incCtx) (*mech.Mat3, bool) {
	def := p.root.childDef("body")
	pos := func(a string) spec.Pos { return spec.Pos{File: ctx.file, Line: inc.AttrLine(a), Via: ctx.via} }
	nums := func(a string) ([]float64, bool) {
		v, _ := inc.Get(a)
		cs, ok := p.components(def.attr(a, nil), v, pos(a))
		if !ok {
			return nil, false
		}
		vals, ok := numValues(cs...)
		if !ok {
			p.errAt(ctx, inc.AttrLine(a), a, "a placement is numbers (with a unit), not expressions")
		}
		return vals, ok
	}
	_, hasQ := inc.Get("quaternion")
	_, hasAx := inc.Get("axis")
	_, hasAn := inc.Get("angle")
	switch {
	case hasQ && (hasAx || hasAn):
		p.errAt(ctx, inc.AttrLine("quaternion"), "quaternion", "give the include's rotation as a quaternion or as an axis and an angle, not both")
	case hasQ:
		q, ok := nums("quaternion")
		if !ok {
			return nil, false
		}
		n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
		if math.Abs(n-1) > 1e-6 {
			p.errAt(ctx, inc.AttrLine("quaternion"), "quaternion", "the quaternion has length %.9g, not 1", n)
			return nil, false
		}
		r := mech.QuatMat(mech.QuatNormalize(mech.Quat{q[0], q[1], q[2], q[3]}))
		return &r, true
	case hasAx != hasAn:
		p.errAt(ctx, inc.Line, "angle", "a spatial include turns by an axis and an angle: give both")
	case hasAx:
		ax, ok := nums("axis")
		if !ok {
			return nil, false
		}
		v, _ := inc.Get("angle")
		e, ok := p.scalarExprDim("angle", "", Angle, v, pos("angle"), false)
		if !ok {
			return nil, false
		}
		a, ok := numValue(e)
		n := math.Sqrt(ax[0]*ax[0] + ax[1]*ax[1] + ax[2]*ax[2])
		if !ok || !(n > 0) {
			p.errAt(ctx, inc.AttrLine("angle"), "angle", "a placement is a nonzero axis and a number (with a unit)")
			return nil, false
		}
		r := mech.QuatMat(mech.QuatExp(mech.Vec3{a * ax[0] / n, a * ax[1] / n, a * ax[2] / n}))
		return &r, true
	}
	return nil, false
}

// place3 moves a spatial subsystem body to a rotated placement: its
// position and initial velocity turned and shifted, its orientation
// composed (written as a quaternion: the body's own must be numbers),
// its angular velocity turned when given in the world frame.
func (p *parser) place3(n *Node, ctx *incCtx) {
	pl := ctx.place
	R := *pl.r
	def := p.root.childDef("body")
	tmp := &parser{file: ctx.file, dim: 3, root: p.root}
	comps := func(name string) ([]spec.Expr, bool) { return p.nodeComps(n, def, ctx, name) }
	set := func(name, v string) { setNodeAttr(n, name, v) }
	drop := func(names ...string) {
		kept := n.Attrs[:0]
		for _, a := range n.Attrs {
			if !contains(names, a.Name) {
				kept = append(kept, a)
			}
		}
		n.Attrs = kept
	}
	turn := func(cs []spec.Expr, off mech.Vec3) string { return turnVec(&R, cs, off) }
	off := mech.Vec3{pl.x, pl.y, pl.z}
	if cs, ok := comps("at"); ok {
		set("at", turn(cs, off))
	} else if _, given := n.Get("at"); !given {
		set("at", formatNumber(off[0])+" "+formatNumber(off[1])+" "+formatNumber(off[2]))
	}
	if cs, ok := comps("velocity"); ok {
		set("velocity", turn(cs, mech.Vec3{}))
	}
	if f, _ := n.Get("omega-frame"); strings.TrimSpace(f) == "global" {
		if cs, ok := comps("omega"); ok {
			set("omega", turn(cs, mech.Vec3{}))
		}
	}
	// the body's own orientation, as numbers
	name, _ := n.Get("name")
	bad := func() {
		p.errAt(ctx, n.Line, "<include>", "body %q: a rotated spatial subsystem needs its bodies' orientations as numbers", name)
	}
	num := func(attr string) ([]float64, bool) {
		cs, ok := comps(attr)
		if !ok {
			return nil, false
		}
		return numValues(cs...)
	}
	Rb := mech.Ident
	_, hasQ := n.Get("quaternion")
	_, hasAx := n.Get("axis")
	_, hasAn := n.Get("angles")
	switch {
	case hasQ:
		q, ok := num("quaternion")
		if !ok {
			bad()
			return
		}
		Rb = mech.QuatMat(mech.QuatNormalize(mech.Quat{q[0], q[1], q[2], q[3]}))
	case hasAx:
		ax, ok1 := num("axis")
		v, _ := n.Get("angle")
		e, ok2 := tmp.scalarExprDim("angle", "", Angle, v, spec.Pos{}, false)
		a, ok3 := numValue(e)
		nrm := 0.0
		if ok1 {
			nrm = math.Sqrt(ax[0]*ax[0] + ax[1]*ax[1] + ax[2]*ax[2])
		}
		if !ok1 || !ok2 || !ok3 || !(nrm > 0) {
			bad()
			return
		}
		Rb = mech.QuatMat(mech.QuatExp(mech.Vec3{a * ax[0] / nrm, a * ax[1] / nrm, a * ax[2] / nrm}))
	case hasAn:
		an, ok := num("angles")
		seq, _ := n.Get("sequence")
		seq = strings.ToLower(strings.TrimSpace(seq))
		if !ok || len(seq) != 3 {
			bad()
			return
		}
		Rb = mech.QuatMat(mech.SequenceQuat(seq, mech.Vec3{an[0], an[1], an[2]}))
	default:
		type given struct {
			k int
			v []float64
		}
		var gs []given
		for k, a := range []string{"x-axis", "y-axis", "z-axis"} {
			if _, ok := n.Get(a); ok {
				v, ok := num(a)
				if !ok {
					bad()
					return
				}
				gs = append(gs, given{k, v})
			}
		}
		if len(gs) == 2 {
			keep, other := gs[0], gs[1]
			if other.k == 2 || (other.k == 0 && keep.k == 1) {
				keep, other = other, keep
			}
			r, ok := mech.AxesMat(keep.k, mech.Vec3{keep.v[0], keep.v[1], keep.v[2]}, other.k, mech.Vec3{other.v[0], other.v[1], other.v[2]})
			if !ok {
				return // the reader reports the axes
			}
			Rb = r
		} else if len(gs) != 0 {
			return // the reader reports it
		}
	}
	q := mech.MatQuat(ptr(mech.MulMM(&R, &Rb)))
	drop("quaternion", "axis", "angle", "angles", "sequence", "x-axis", "y-axis", "z-axis")
	set("quaternion", formatNumber(q[0])+", "+formatNumber(q[1])+", "+formatNumber(q[2])+", "+formatNumber(q[3]))
}

func ptr(m mech.Mat3) *mech.Mat3 { return &m }

// setNodeAttr sets attribute name of n (adding it).
func setNodeAttr(n *Node, name, v string) {
	for k := range n.Attrs {
		if n.Attrs[k].Name == name {
			n.Attrs[k].Value = v
			return
		}
	}
	n.Attrs = append(n.Attrs, Attr{Name: name, Value: v, Line: n.Line})
}

// nodeComps reads the components of vector attribute name of body node
// n (schema def) as the reader would, quietly (the reader reports its
// problems when it reads the node).
func (p *parser) nodeComps(n *Node, def *elemDef, ctx *incCtx, name string) ([]spec.Expr, bool) {
	v, ok := n.Get(name)
	if !ok {
		return nil, false
	}
	return (&parser{file: ctx.file, dim: p.dim, root: p.root}).components(def.attr(name, nil), v, spec.Pos{})
}

// Flatten returns the model file data (named filename, its includes
// relative to it) written as one file: the subsystems expanded as the
// model reader does. A file without includes is returned as it is.
func Flatten(data []byte, filename string) ([]byte, error) {
	root, _, err := ReadTree(data, "model")
	if err != nil || root == nil || root.Name != "model" {
		_, perr := Parse(data, filename)
		return nil, perr
	}
	has := false
	for _, c := range root.Children {
		has = has || c.Name == "include"
	}
	if !has {
		return data, nil
	}
	p := &parser{file: filename, dim: 2, root: schema()}
	if d, _ := root.Get("dimension"); strings.TrimSpace(d) == "3" {
		p.dim, p.root = 3, schema3()
	}
	p.expandIncludes(root)
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by mbfmu from " + xmlEscape(filepath.Base(filename)) + " and its subsystems -->\n")
	writeNode(&b, root, "")
	return []byte(b.String()), nil
}

// writeNode writes n as XML.
func writeNode(b *strings.Builder, n *Node, indent string) {
	b.WriteString(indent + "<" + n.Name)
	for _, a := range n.Attrs {
		b.WriteString(" " + a.Name + "=\"" + xmlEscape(a.Value) + "\"")
	}
	text := n.Text.String()
	if len(n.Children) == 0 && strings.TrimSpace(text) == "" {
		b.WriteString("/>\n")
		return
	}
	b.WriteString(">")
	if strings.TrimSpace(text) != "" {
		b.WriteString(xmlEscape(text))
	}
	if len(n.Children) > 0 {
		b.WriteString("\n")
		for _, c := range n.Children {
			writeNode(b, c, indent+"  ")
		}
		b.WriteString(indent)
	}
	b.WriteString("</" + n.Name + ">\n")
}

// xmlEscape escapes text for an attribute value or character data.
func xmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;", "\n", "&#10;", "\t", "&#9;", "\r", "&#13;")
	return r.Replace(s)
}

// placeFE places an <fe-body> of a spatial subsystem: its at, velocity and
// omega (world components) turned by the include's rotation and at moved
// by its offset, and its axes (x-axis, y-axis, numbers) turned.
func (p *parser) placeFE(n *Node, ctx *incCtx) {
	pl := ctx.place
	if pl == (placement{}) {
		return
	}
	R := mech.Ident
	if pl.r != nil {
		R = *pl.r
	}
	def := p.root.childDef("body")
	comps := func(name string) ([]spec.Expr, bool) { return p.nodeComps(n, def, ctx, name) }
	set := func(name, v string) { setNodeAttr(n, name, v) }
	turn := func(cs []spec.Expr, off mech.Vec3) string { return turnVec(&R, cs, off) }
	vec := func(v mech.Vec3) string {
		return formatNumber(v[0]) + " " + formatNumber(v[1]) + " " + formatNumber(v[2])
	}
	off := mech.Vec3{pl.x, pl.y, pl.z}
	if cs, ok := comps("at"); ok {
		set("at", turn(cs, off))
	} else {
		set("at", vec(off))
	}
	for _, a := range []string{"velocity", "omega"} {
		if cs, ok := comps(a); ok {
			set(a, turn(cs, mech.Vec3{}))
		}
	}
	if pl.r == nil {
		return
	}
	// the FE model's axes as the flex compiler reads them (y = z × x
	// when only x is given), turned
	name, _ := n.Get("name")
	num := func(attr string, def mech.Vec3) (mech.Vec3, bool, bool) {
		cs, ok := comps(attr)
		if !ok {
			return def, false, true
		}
		v, ok := numValues(cs...)
		if !ok || len(v) != 3 {
			return def, true, false
		}
		return mech.Vec3{v[0], v[1], v[2]}, true, true
	}
	xa, _, ok1 := num("x-axis", mech.Vec3{1, 0, 0})
	ya, yg, ok2 := num("y-axis", mech.Vec3{})
	if !ok1 || !ok2 {
		p.errAt(ctx, n.Line, "<include>", "fe-body %q: a rotated spatial subsystem needs its FE bodies' axes as numbers", name)
		return
	}
	Rb, ok := mech.XAxes(xa, ya, yg)
	if !ok {
		return // the compiler reports the axes
	}
	W := mech.MulMM(&R, &Rb)
	set("x-axis", vec(mech.Vec3{W[0], W[3], W[6]}))
	set("y-axis", vec(mech.Vec3{W[1], W[4], W[7]}))
}

// turnVec writes off + R v for a vector attribute's components: numbers
// when they are, else an expression per component.
func turnVec(R *mech.Mat3, cs []spec.Expr, off mech.Vec3) string {
	if v, ok := numValues(cs...); ok && len(v) == 3 {
		w := mech.Add(off, mech.MulMV(R, mech.Vec3{v[0], v[1], v[2]}))
		return formatNumber(w[0]) + " " + formatNumber(w[1]) + " " + formatNumber(w[2])
	}
	var out []string
	for i := 0; i < 3; i++ {
		t := formatNumber(off[i])
		for j := 0; j < 3 && j < len(cs); j++ {
			t += " + " + formatNumber(R[3*i+j]) + "*(" + cs[j].Src + ")"
		}
		out = append(out, t)
	}
	return strings.Join(out, ", ")
}
