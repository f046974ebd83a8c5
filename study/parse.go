package study

import (
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"mbfmu/spec"
	"mbfmu/suggest"
	"mbfmu/xml"
)

// Load reads and parses a study file; every problem is reported at once
// as a spec.ErrorList (file:line: field: message).
func Load(path string) (*Study, error) {
	data, err := xml.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// parser collects errors while reading a study file.
type parser struct {
	file     string
	errs     spec.ErrorList
	rootLine int
}

func (p *parser) errf(line int, field, format string, args ...any) {
	p.errs.Add(spec.Pos{File: p.file, Line: line}, field, format, args...)
}

// attrs checks the attributes of n against the allowed ones.
func (p *parser) attrs(n *node, allowed ...string) {
	seen := map[string]bool{}
	for _, a := range n.Attrs {
		if seen[a.Name] {
			p.errf(a.Line, a.Name, "given twice")
		}
		seen[a.Name] = true
		ok := false
		for _, w := range allowed {
			ok = ok || w == a.Name
		}
		if !ok {
			p.errf(a.Line, a.Name, "unknown attribute of <%s>%s", n.Name, didYouMean(a.Name, allowed))
		}
	}
}

// children checks the child elements of n against the allowed ones.
func (p *parser) children(n *node, allowed ...string) {
	for _, c := range n.Children {
		ok := false
		for _, w := range allowed {
			ok = ok || w == c.Name
		}
		if !ok {
			if len(allowed) == 0 {
				p.errf(c.Line, "<"+c.Name+">", "<%s> has no child elements", n.Name)
			} else {
				p.errf(c.Line, "<"+c.Name+">", "unknown element in <%s>%s", n.Name, didYouMean(c.Name, allowed))
			}
		}
	}
}

// quantity parses attribute name of n as a number with an optional unit
// (converted to SI); def when absent.
func (p *parser) quantity(n *node, name string, dim xml.Dim, def float64) float64 {
	s, ok := attr(n, name)
	if !ok {
		return def
	}
	v, err := xml.ParseQuantity(s, dim)
	if err != nil {
		p.errf(n.AttrLine(name), name, "%v", err)
		return def
	}
	return v
}

func (p *parser) integer(n *node, name string, def int) int {
	s, ok := attr(n, name)
	if !ok {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		p.errf(n.AttrLine(name), name, "%q is not a whole number", s)
		return def
	}
	return v
}

func (p *parser) boolean(n *node, name string, def bool) bool {
	s, ok := attr(n, name)
	if !ok {
		return def
	}
	switch strings.ToLower(s) {
	case "true", "1", "yes":
		return true
	case "false", "0", "no":
		return false
	}
	p.errf(n.AttrLine(name), name, "%q is not true or false", s)
	return def
}

func (p *parser) required(n *node, name string) (string, bool) {
	s, ok := attr(n, name)
	if !ok || s == "" {
		p.errf(n.Line, name, "<%s> needs %s=\"…\"", n.Name, name)
		return "", false
	}
	return s, true
}

// Parse parses a study file held in data; file names it in errors and
// anchors relative paths.
func Parse(data []byte, file string) (*Study, error) {
	p := &parser{file: file}
	root, line, err := readTree(data)
	if err != nil {
		p.errf(line, "<study>", "%v", err)
		return nil, p.errs
	}
	if root.Name != "study" {
		p.errf(root.Line, "<"+root.Name+">", "the root element must be <study>")
		return nil, p.errs
	}
	st := &Study{File: file}
	p.rootLine = root.Line
	p.attrs(root, "name", "description")
	st.Name, _ = attr(root, "name")
	st.Description, _ = attr(root, "description")
	if st.Name == "" {
		st.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	seen := map[string]int{}
	once := func(c *node) bool {
		if l, dup := seen[c.Name]; dup {
			p.errf(c.Line, "<"+c.Name+">", "<%s> given twice (first on line %d)", c.Name, l)
			return false
		}
		seen[c.Name] = c.Line
		return true
	}
	var targets []*node
	factorNames := map[string]int{}
	for _, c := range root.Children {
		switch c.Name {
		case "model", "cosim":
			targets = append(targets, c)
		case "factor":
			f := p.factor(c)
			if f == nil {
				continue
			}
			if l, dup := factorNames[f.Name]; dup {
				p.errf(c.AttrLine("name"), "name", "factor %q already defined on line %d", f.Name, l)
				continue
			}
			factorNames[f.Name] = c.Line
			st.Factors = append(st.Factors, f)
		case "response":
			if r := p.response(c); r != nil {
				st.Responses = append(st.Responses, r)
			}
		case "design":
			if once(c) {
				st.Design = p.design(c)
			}
		case "objective":
			if once(c) {
				st.Objective = p.objective(c)
			}
		case "constraint":
			if k := p.constraint(c); k != nil {
				st.Constraints = append(st.Constraints, k)
			}
		case "optimize", "optimise":
			if once(c) {
				st.Optimize = p.optimize(c)
			}
		case "sensitivity":
			if once(c) {
				st.Sensitivity = p.sensitivity(c)
			}
		default:
			p.errf(c.Line, "<"+c.Name+">", "unknown element in <study>%s", didYouMean(c.Name, []string{
				"model", "cosim", "factor", "design", "response", "objective", "constraint", "optimize", "sensitivity"}))
		}
	}
	switch len(targets) {
	case 0:
		p.errf(root.Line, "<study>", "no <model path=\"…\"/> or <cosim path=\"…\"/>: name what the runs simulate")
	case 1:
		st.Target = p.target(targets[0], file)
	default:
		p.errf(targets[1].Line, "<"+targets[1].Name+">", "a study runs one model or co-simulation (the first is on line %d)", targets[0].Line)
	}
	if st.Design != nil {
		for _, c := range st.Design.caseNodes {
			p.caseRow(st, c)
		}
	}
	p.crossCheck(st)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return st, nil
}

func (p *parser) target(n *node, file string) Target {
	t := Target{Kind: n.Name, Line: n.Line, Checks: true}
	if n.Name == "model" {
		p.attrs(n, "path", "end", "step", "output-step", "integrator")
		t.Step = p.quantity(n, "step", xml.Time, 0)
		t.Integrator, _ = attr(n, "integrator")
		switch t.Integrator {
		case "", "genalpha", "hht", "newmark", "bdf1", "bdf2", "rk4":
		default:
			p.errf(n.AttrLine("integrator"), "integrator", "unknown integrator %q (genalpha, hht, newmark, bdf1, bdf2, rk4)", t.Integrator)
		}
	} else {
		p.attrs(n, "path", "end", "output-step", "checks")
		t.Checks = p.boolean(n, "checks", true)
	}
	if s, ok := p.required(n, "path"); ok {
		if !filepath.IsAbs(s) {
			s = filepath.Join(filepath.Dir(file), s)
		}
		t.Path = s
	}
	t.End = p.quantity(n, "end", xml.Time, 0)
	t.OutputStep = p.quantity(n, "output-step", xml.Time, 0)
	for _, v := range []struct {
		name string
		x    float64
	}{{"end", t.End}, {"step", t.Step}, {"output-step", t.OutputStep}} {
		if _, ok := attr(n, v.name); ok && !(v.x > 0) {
			p.errf(n.AttrLine(v.name), v.name, "must be > 0")
		}
	}
	p.children(n, "parameter")
	names := map[string]int{}
	for _, c := range n.Children {
		if c.Name != "parameter" {
			continue
		}
		p.attrs(c, "name", "value")
		name, ok1 := p.required(c, "name")
		_, ok2 := p.required(c, "value")
		if !ok1 || !ok2 {
			continue
		}
		if l, dup := names[name]; dup {
			p.errf(c.AttrLine("name"), "name", "parameter %q already set on line %d", name, l)
			continue
		}
		names[name] = c.Line
		t.Params = append(t.Params, Setting{Name: name, Value: p.quantity(c, "value", xml.Any, 0), Line: c.AttrLine("value")})
	}
	return t
}

// dimOf returns the dimension of a unit written in a model file, if it
// has one of the known dimensions.
func dimOf(unit string) (xml.Dim, bool) {
	if unit == "" || unit == "1" {
		return xml.Dimensionless, true
	}
	for d := xml.Dimensionless + 1; d < xml.Any; d++ {
		if _, err := xml.ParseQuantity("1 "+unit, d); err == nil {
			return d, true
		}
	}
	return xml.Any, false
}

// factorValue parses one value of a factor: a number with an optional
// unit, or a plain number in unit (the factor's unit attribute).
func (p *parser) factorValue(f *Factor, field, s string, line int) float64 {
	f.raw = append(f.raw, rawValue{field: field, text: s, line: line})
	if f.unitGiven != "" && isPlainNumber(s) {
		s += " " + f.unitGiven
	}
	v, err := xml.ParseQuantity(s, xml.Any)
	if err != nil {
		p.errf(line, field, "%v", err)
		return math.NaN()
	}
	if f.unitGiven != "" {
		if d, ok := dimOf(f.unitGiven); ok && d != xml.Dimensionless {
			if _, err := xml.ParseQuantity(s, d); err != nil {
				p.errf(line, field, "%v", err)
			}
		}
	}
	return v
}

func isPlainNumber(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

func (p *parser) factor(n *node) *Factor {
	p.attrs(n, "name", "param", "min", "max", "levels", "values", "scale", "nominal", "unit",
		"distribution", "mean", "sd", "description")
	p.children(n)
	name, ok := p.required(n, "name")
	if !ok {
		return nil
	}
	if !isIdent(name) {
		p.errf(n.AttrLine("name"), "name", "%q is not a name (a letter or _, then letters, digits and _; not pi, e, t or time)", name)
		return nil
	}
	f := &Factor{Name: name, Line: n.Line, Min: math.NaN(), Max: math.NaN(), Nominal: math.NaN(), Mean: math.NaN()}
	f.Param, _ = attr(n, "param")
	f.Description, _ = attr(n, "description")
	if u, ok := attr(n, "unit"); ok {
		if _, known := dimOf(u); !known {
			if _, err := xml.ParseQuantity("1 "+u, xml.Any); err != nil {
				p.errf(n.AttrLine("unit"), "unit", "%v", err)
			}
		}
		f.unitGiven = u
	}
	get := func(name string) (float64, bool) {
		s, ok := attr(n, name)
		if !ok {
			return math.NaN(), false
		}
		return p.factorValue(f, name, s, n.AttrLine(name)), true
	}
	f.Min, _ = get("min")
	f.Max, _ = get("max")
	f.Nominal, f.nomGiven = get("nominal")
	f.Mean, f.meanGiven = get("mean")
	if s, ok := attr(n, "sd"); ok {
		f.SD = p.factorValue(f, "sd", s, n.AttrLine("sd"))
		if !(f.SD > 0) {
			p.errf(n.AttrLine("sd"), "sd", "the standard deviation must be > 0")
		}
	}
	if !math.IsNaN(f.Min) && !math.IsNaN(f.Max) && !(f.Max > f.Min) {
		p.errf(n.AttrLine("max"), "max", "max %g must be greater than min %g", f.Max, f.Min)
	}
	switch s, _ := attr(n, "scale"); s {
	case "", "linear":
	case "log":
		f.Log = true
		if !(f.Min > 0) {
			p.errf(n.AttrLine("scale"), "scale", "a log scale needs min > 0")
		}
	default:
		p.errf(n.AttrLine("scale"), "scale", "%q: want linear or log", s)
	}
	dist, _ := attr(n, "distribution")
	switch dist {
	case "", "uniform":
		if dist == "uniform" && (math.IsNaN(f.Min) || math.IsNaN(f.Max)) {
			p.errf(n.AttrLine("distribution"), "distribution", "a uniform distribution needs min and max")
		}
		if f.SD > 0 {
			p.errf(n.AttrLine("sd"), "sd", "sd belongs to distribution=\"normal\"")
		}
	case "normal":
		if !(f.SD > 0) {
			p.errf(n.AttrLine("distribution"), "distribution", "a normal distribution needs sd=\"…\" (and mean, or nominal, or the parameter's value)")
		}
	default:
		p.errf(n.AttrLine("distribution"), "distribution", "%q: want uniform or normal", dist)
	}
	f.Dist = dist
	if f.meanGiven && dist != "normal" {
		p.errf(n.AttrLine("mean"), "mean", "mean belongs to distribution=\"normal\"")
	}
	lv, hasLevels := attr(n, "levels")
	vs, hasValues := attr(n, "values")
	switch {
	case hasLevels && hasValues:
		p.errf(n.AttrLine("values"), "values", "give levels (with min and max) or values, not both")
	case hasLevels:
		k, err := strconv.Atoi(lv)
		switch {
		case err != nil || k < 2:
			p.errf(n.AttrLine("levels"), "levels", "%q: want a whole number ≥ 2", lv)
		case k > 1000:
			p.errf(n.AttrLine("levels"), "levels", "%d levels: at most 1000", k)
		case math.IsNaN(f.Min) || math.IsNaN(f.Max):
			p.errf(n.AttrLine("levels"), "levels", "levels needs min and max")
		case f.Max > f.Min:
			f.Levels = spaced(f.Min, f.Max, k, f.Log)
		}
	case hasValues:
		f.Levels = p.valueList(f, vs, n.AttrLine("values"))
	}
	return f
}

// spaced returns k values from a to b, evenly spaced (geometrically when
// log), with the ends exact.
func spaced(a, b float64, k int, log bool) []float64 {
	v := make([]float64, k)
	for i := range v {
		s := float64(i) / float64(k-1)
		if log {
			v[i] = a * math.Pow(b/a, s)
		} else {
			v[i] = a + s*(b-a)
		}
	}
	v[0], v[k-1] = a, b
	return v
}

// valueList parses "1 2 5", "1 2 5 mm", "1 mm, 2 mm".
func (p *parser) valueList(f *Factor, s string, line int) []float64 {
	var out []float64
	var items []string
	if strings.Contains(s, ",") || strings.Contains(s, ";") {
		for _, it := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
	} else {
		items = strings.Fields(s)
		if len(items) > 1 && !isPlainNumber(items[len(items)-1]) && isPlainNumber(items[0]) {
			unit := items[len(items)-1]
			items = items[:len(items)-1]
			for i := range items {
				items[i] += " " + unit
			}
		}
	}
	for _, it := range items {
		out = append(out, p.factorValue(f, "values", it, line))
	}
	if len(out) == 0 {
		p.errf(line, "values", "no values")
	}
	return out
}

func (p *parser) design(n *node) *Design {
	p.attrs(n, "kind", "runs", "seed", "centered")
	d := &Design{Line: n.Line}
	d.Kind, _ = p.required(n, "kind")
	switch d.Kind {
	case "full-factorial", "one-at-a-time", "cases":
		for _, a := range []string{"runs", "seed", "centered"} {
			if _, ok := attr(n, a); ok {
				p.errf(n.AttrLine(a), a, "not used by a %s design", d.Kind)
			}
		}
	case "latin-hypercube", "lhs", "monte-carlo":
		if d.Kind == "lhs" {
			d.Kind = "latin-hypercube"
		}
		d.Runs = p.integer(n, "runs", 0)
		if d.Runs < 1 {
			p.errf(n.Line, "runs", "a %s design needs runs=\"N\" (N ≥ 1)", d.Kind)
		}
		if _, ok := attr(n, "seed"); !ok {
			p.errf(n.Line, "seed", "a %s design needs seed=\"…\" (a whole number) so that it can be repeated", d.Kind)
		} else if s, _ := attr(n, "seed"); true {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				p.errf(n.AttrLine("seed"), "seed", "%q is not a whole number ≥ 0", s)
			}
			d.Seed = v
		}
		d.Centered = p.boolean(n, "centered", false)
		if d.Centered && d.Kind != "latin-hypercube" {
			p.errf(n.AttrLine("centered"), "centered", "only for latin-hypercube")
		}
	case "":
	default:
		p.errf(n.AttrLine("kind"), "kind", "unknown design %q (full-factorial, latin-hypercube, monte-carlo, cases, one-at-a-time)", d.Kind)
	}
	if d.Kind == "cases" {
		p.children(n, "case")
		for _, c := range n.Children {
			if c.Name == "case" {
				d.caseNodes = append(d.caseNodes, c)
			}
		}
		if len(d.caseNodes) == 0 {
			p.errf(n.Line, "<design>", "a cases design needs <case factor=\"value\" …/> children")
		}
	} else {
		p.children(n)
	}
	return d
}

func (p *parser) caseRow(st *Study, c *node) {
	d := st.Design
	row := make([]float64, len(st.Factors))
	for i := range row {
		row[i] = math.NaN()
	}
	label := ""
	for _, a := range c.Attrs {
		if a.Name == "label" {
			label = strings.TrimSpace(a.Value)
			continue
		}
		k := -1
		names := make([]string, len(st.Factors))
		for i, f := range st.Factors {
			names[i] = f.Name
			if f.Name == a.Name {
				k = i
			}
		}
		if k < 0 {
			p.errf(a.Line, a.Name, "no factor %q%s", a.Name, didYouMean(a.Name, names))
			continue
		}
		row[k] = p.factorValue(st.Factors[k], a.Name, strings.TrimSpace(a.Value), a.Line)
	}
	p.children(c)
	d.Cases = append(d.Cases, row)
	d.Labels = append(d.Labels, label)
}

func (p *parser) response(n *node) *Response {
	p.attrs(n, "name", "kind", "signal", "channel", "from", "until", "at", "when", "target", "band", "expr", "unit", "description")
	p.children(n)
	name, ok := p.required(n, "name")
	if !ok {
		return nil
	}
	if !isIdent(name) {
		p.errf(n.AttrLine("name"), "name", "%q is not a name (a letter or _, then letters, digits and _; not pi, e, t or time)", name)
		return nil
	}
	r := &Response{Name: name, Line: n.Line, From: math.Inf(-1), Until: math.Inf(1), At: math.NaN(), Target: math.NaN()}
	r.Kind, _ = attr(n, "kind")
	r.Signal, _ = attr(n, "signal")
	r.signalLine = n.AttrLine("signal")
	if ch, ok := attr(n, "channel"); ok {
		if r.Signal != "" {
			p.errf(n.AttrLine("channel"), "channel", "give signal or channel, not both")
		}
		r.Channel = ch
		r.signalLine = n.AttrLine("channel")
	}
	r.When, _ = attr(n, "when")
	r.whenLine = n.AttrLine("when")
	r.Expr, _ = attr(n, "expr")
	r.exprLine = n.AttrLine("expr")
	r.Unit, _ = attr(n, "unit")
	r.Description, _ = attr(n, "description")
	if r.Kind == "" && r.Expr != "" {
		r.Kind = KindExpression
	}
	r.From = p.quantity(n, "from", xml.Time, r.From)
	r.Until = p.quantity(n, "until", xml.Time, r.Until)
	if !(r.Until > r.From) {
		p.errf(n.AttrLine("until"), "until", "the window ends (%g s) before it starts (%g s)", r.Until, r.From)
	}
	r.At = p.quantity(n, "at", xml.Time, r.At)
	r.Target = p.quantity(n, "target", xml.Any, r.Target)
	if b, ok := attr(n, "band"); ok {
		if strings.HasSuffix(b, "%") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(b, "%")), 64)
			if err != nil || !(v > 0) {
				p.errf(n.AttrLine("band"), "band", "%q: want a percentage > 0 (2%%) or a value with a unit", b)
			}
			r.Band, r.BandRel = v/100, true
		} else {
			r.Band = p.quantity(n, "band", xml.Any, 0)
			if !(r.Band > 0) {
				p.errf(n.AttrLine("band"), "band", "must be > 0")
			}
		}
	}
	// what each kind needs and allows
	needSignal := true
	allowed := map[string]bool{"signal": true, "channel": true, "from": true, "until": true, "unit": true, "description": true, "name": true, "kind": true}
	switch r.Kind {
	case "":
		p.errf(n.Line, "kind", "<response> needs kind=\"…\" (%s) or expr=\"…\"", strings.Join(responseKinds[:len(responseKinds)-1], ", "))
		return nil
	case KindFinal, KindInitial, KindMin, KindMax, KindMaxAbs, KindMean, KindRMS, KindIntegral, KindTimeOfMin, KindTimeOfMax:
	case KindAt:
		allowed["at"], allowed["when"] = true, true
		_, hasAt := attr(n, "at")
		if hasAt == (r.When != "") {
			p.errf(n.Line, "at", "an \"at\" response needs at=\"time\" or when=\"expression\" (not both)")
		}
	case KindCrossing:
		allowed["when"] = true
		needSignal = false
		delete(allowed, "signal")
		delete(allowed, "channel")
		if r.When == "" {
			p.errf(n.Line, "when", "a crossing response needs when=\"expression\" (its first upward zero crossing)")
		}
	case KindSettling:
		allowed["band"], allowed["target"] = true, true
		if _, ok := attr(n, "band"); !ok {
			p.errf(n.Line, "band", "a settling-time response needs band=\"…\" (a value with a unit, or a percentage)")
		}
	case KindOvershoot:
		allowed["target"] = true
	case KindExpression:
		needSignal = false
		allowed = map[string]bool{"expr": true, "unit": true, "description": true, "name": true, "kind": true}
		if r.Expr == "" {
			p.errf(n.Line, "expr", "an expr response needs expr=\"…\"")
		}
	default:
		p.errf(n.AttrLine("kind"), "kind", "unknown response kind %q%s", r.Kind, didYouMean(r.Kind, responseKinds))
		return nil
	}
	for _, a := range n.Attrs {
		if !allowed[a.Name] && a.Name != "signal" && a.Name != "channel" {
			if known := contains([]string{"from", "until", "at", "when", "target", "band", "expr"}, a.Name); known {
				p.errf(a.Line, a.Name, "not used by a %s response", r.Kind)
			}
		}
	}
	if !needSignal && (r.Signal != "" || r.Channel != "") {
		p.errf(r.signalLine, "signal", "not used by a %s response", r.Kind)
	}
	if needSignal && r.Signal == "" && r.Channel == "" {
		p.errf(n.Line, "signal", "a %s response needs signal=\"…\" (an expression of result channels) or channel=\"…\"", r.Kind)
	}
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) objective(n *node) *Objective {
	p.attrs(n, "response", "goal")
	p.children(n)
	o := &Objective{Line: n.Line}
	o.Response, _ = p.required(n, "response")
	g, _ := p.required(n, "goal")
	switch g {
	case "minimize", "minimise", "min":
	case "maximize", "maximise", "max":
		o.Maximize = true
	case "":
	default:
		p.errf(n.AttrLine("goal"), "goal", "%q: want minimize or maximize", g)
	}
	return o
}

func (p *parser) constraint(n *node) *Constraint {
	p.attrs(n, "response", "min", "max")
	p.children(n)
	c := &Constraint{Line: n.Line}
	c.Response, _ = p.required(n, "response")
	c.Min = p.quantity(n, "min", xml.Any, math.NaN())
	c.Max = p.quantity(n, "max", xml.Any, math.NaN())
	_, hasMin := attr(n, "min")
	_, hasMax := attr(n, "max")
	if !hasMin && !hasMax {
		p.errf(n.Line, "max", "a constraint needs min=\"…\", max=\"…\" or both")
	}
	if c.Max <= c.Min {
		p.errf(n.AttrLine("max"), "max", "max %g is not greater than min %g", c.Max, c.Min)
	}
	return c
}

func (p *parser) optimize(n *node) *Optimize {
	p.attrs(n, "factors", "max-runs", "tol", "start", "simplex")
	p.children(n)
	o := &Optimize{Line: n.Line}
	if s, ok := attr(n, "factors"); ok {
		o.Factors = nameList(s)
	}
	o.MaxRuns = p.integer(n, "max-runs", 0)
	if _, ok := attr(n, "max-runs"); ok && o.MaxRuns < 2 {
		p.errf(n.AttrLine("max-runs"), "max-runs", "want at least 2")
	}
	o.Tol = p.quantity(n, "tol", xml.Dimensionless, 1e-4)
	if !(o.Tol > 0) {
		p.errf(n.AttrLine("tol"), "tol", "must be > 0")
	}
	o.Start, _ = attr(n, "start")
	switch o.Start {
	case "", "nominal", "best":
	default:
		p.errf(n.AttrLine("start"), "start", "%q: want nominal or best", o.Start)
	}
	o.Simplex = p.quantity(n, "simplex", xml.Dimensionless, 0.1)
	if !(o.Simplex > 0 && o.Simplex <= 0.5) {
		p.errf(n.AttrLine("simplex"), "simplex", "want a fraction of the range in (0, 0.5]")
	}
	return o
}

func (p *parser) sensitivity(n *node) *Sensitivity {
	p.attrs(n, "step", "at", "factors")
	p.children(n)
	s := &Sensitivity{Line: n.Line}
	s.Step = p.quantity(n, "step", xml.Dimensionless, 0.01)
	if !(s.Step > 0 && s.Step < 0.5) {
		p.errf(n.AttrLine("step"), "step", "want a fraction in (0, 0.5)")
	}
	s.At, _ = attr(n, "at")
	switch s.At {
	case "", "nominal", "best":
	default:
		p.errf(n.AttrLine("at"), "at", "%q: want nominal or best", s.At)
	}
	if f, ok := attr(n, "factors"); ok {
		s.Factors = nameList(f)
	}
	return s
}

func nameList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == ';' })
}

// crossCheck checks references between the elements of the file.
func (p *parser) crossCheck(st *Study) {
	fidx := map[string]*Factor{}
	fnames := make([]string, len(st.Factors))
	for i, f := range st.Factors {
		fidx[f.Name] = f
		fnames[i] = f.Name
	}
	ridx := map[string]*Response{}
	rnames := []string{}
	for _, r := range st.Responses {
		if _, dup := ridx[r.Name]; dup {
			p.errf(r.Line, "name", "response %q already defined", r.Name)
		}
		if _, clash := fidx[r.Name]; clash {
			p.errf(r.Line, "name", "%q is also a factor's name", r.Name)
		}
		ridx[r.Name] = r
		rnames = append(rnames, r.Name)
	}
	if len(st.Responses) == 0 {
		p.errf(p.rootLine, "<study>", "no <response>: say what to compute from each run")
	}
	if len(st.Factors) == 0 {
		p.errf(p.rootLine, "<study>", "no <factor>: say what the study varies")
	}
	if st.Design == nil && st.Optimize == nil && st.Sensitivity == nil {
		p.errf(p.rootLine, "<study>", "nothing to run: add a <design>, an <optimize> or a <sensitivity>")
	}
	if d := st.Design; d != nil {
		for _, f := range st.Factors {
			switch d.Kind {
			case "full-factorial", "one-at-a-time":
				if len(f.Levels) == 0 {
					p.errf(f.Line, "levels", "factor %s needs levels (with min and max) or values for a %s design", f.Name, d.Kind)
				}
			case "latin-hypercube", "monte-carlo":
				if f.Dist != "normal" && (math.IsNaN(f.Min) || math.IsNaN(f.Max)) {
					p.errf(f.Line, "min", "factor %s needs min and max (or distribution=\"normal\") for a %s design", f.Name, d.Kind)
				}
			}
		}
		if d.Kind == "full-factorial" {
			n := 1.0
			for _, f := range st.Factors {
				n *= float64(max(1, len(f.Levels)))
			}
			if n > 1e6 {
				p.errf(d.Line, "kind", "a full factorial of these levels has %.3g runs: too many", n)
			}
		}
	}
	check := func(line int, field, name string) {
		if _, ok := ridx[name]; !ok && name != "" {
			p.errf(line, field, "no response %q%s", name, didYouMean(name, rnames))
		}
	}
	if o := st.Objective; o != nil {
		check(o.Line, "response", o.Response)
	}
	for _, c := range st.Constraints {
		check(c.Line, "response", c.Response)
	}
	if o := st.Optimize; o != nil {
		if st.Objective == nil {
			p.errf(o.Line, "<optimize>", "an optimisation needs an <objective response=\"…\" goal=\"minimize|maximize\"/>")
		}
		if len(o.Factors) == 0 {
			for _, f := range st.Factors {
				if !math.IsNaN(f.Min) && !math.IsNaN(f.Max) {
					o.Factors = append(o.Factors, f.Name)
				}
			}
			if len(o.Factors) == 0 {
				p.errf(o.Line, "factors", "no factor has min and max to optimise within")
			}
		}
		for _, name := range o.Factors {
			f, ok := fidx[name]
			switch {
			case !ok:
				p.errf(o.Line, "factors", "no factor %q%s", name, didYouMean(name, fnames))
			case math.IsNaN(f.Min) || math.IsNaN(f.Max):
				p.errf(f.Line, "min", "factor %s is optimised: it needs min and max", name)
			}
		}
		if o.MaxRuns == 0 {
			o.MaxRuns = 100 * (len(o.Factors) + 1)
		}
		if o.Start == "" {
			o.Start = "nominal"
			if st.Design != nil {
				o.Start = "best"
			}
		}
		if o.Start == "best" && st.Design == nil {
			p.errf(o.Line, "start", "start=\"best\" needs a <design> to take the best run from")
		}
	}
	if s := st.Sensitivity; s != nil {
		for _, name := range s.Factors {
			if _, ok := fidx[name]; !ok {
				p.errf(s.Line, "factors", "no factor %q%s", name, didYouMean(name, fnames))
			}
		}
		if s.At == "" {
			s.At = "nominal"
			if st.Optimize != nil {
				s.At = "best"
			}
		}
		if s.At == "best" && st.Objective == nil {
			p.errf(s.Line, "at", "at=\"best\" needs an <objective>")
		}
	}
}

func isIdent(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return s != "" && s != "pi" && s != "e" && s != "time" && s != "t"
}

// didYouMean suggests the nearest candidate: `; did you mean "x"?` or "".
func didYouMean(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := suggest.Distance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	limit := 1
	if len(s) > 5 {
		limit = 2
	}
	if len(s) > 9 {
		limit = 3
	}
	if best == "" || bestD > limit || best == s {
		return ""
	}
	return "; did you mean \"" + best + "\"?"
}

// factorIndex returns the index of a factor by name, or -1.
func (st *Study) factorIndex(name string) int {
	for i, f := range st.Factors {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// responseIndex returns the index of a response by name, or -1.
func (st *Study) responseIndex(name string) int {
	for i, r := range st.Responses {
		if r.Name == name {
			return i
		}
	}
	return -1
}

// sortedNames returns the keys of m in order.
func sortedNames[T any](m map[string]T) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// errorf is a problem at a line of the study file, in the file's format.
func (st *Study) errorf(line int, field, format string, args ...any) error {
	var l spec.ErrorList
	l.Add(spec.Pos{File: st.File, Line: line}, field, format, args...)
	return l
}

// String formats a factor value with its unit.
func fmtValue(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'g', 6, 64)
	if unit != "" {
		s += " " + unit
	}
	return s
}
