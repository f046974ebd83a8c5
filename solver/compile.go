package solver

import (
	"math"
	"sort"
	"strings"

	"mbfmu/expr"
	"mbfmu/linalg"
	"mbfmu/spec"
)

// Compile turns a specification into a Model. Every problem found is
// reported, each with the file, line and field it comes from, as an
// spec.ErrorList.
func Compile(ms *spec.Model, opt CompileOptions) (*Model, error) {
	c := &compiler{spec: ms, m: &Model{name: ms.Name, spec: ms, markers: map[string]point{}}}
	c.run(opt)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return c.m, nil
}

type compiler struct {
	spec      *spec.Model
	m         *Model
	errs      spec.ErrorList
	pvals     []float64
	pindex    map[string]int
	iindex    map[string]int
	tables    map[string]*expr.Table
	fixedUse  []bool
	tunUse    []bool
	names     map[string]spec.Pos // element names (joints, drivers, forces, outputs share one namespace)
	bodyIndex map[string]int
	jointIdx  map[string]int
}

func (c *compiler) errf(pos spec.Pos, field, format string, args ...any) {
	c.errs.Add(pos, field, format, args...)
}

// ---- resolvers ----

// constResolver resolves parameters only (compile-time values).
type constResolver struct{ c *compiler }

func (r constResolver) Var(name string) (int, bool) {
	if i, ok := r.c.pindex[name]; ok {
		r.c.fixedUse[i] = true
		return 1 + i, true
	}
	return 0, false
}
func (r constResolver) Measure(fn string, args []string) (int, bool, error) { return 0, false, nil }
func (r constResolver) Table(name string) (*expr.Table, bool) {
	t, ok := r.c.tables[name]
	return t, ok
}

// runResolver resolves time, parameters, inputs, measures and tables.
type runResolver struct {
	c *compiler
}

func (r runResolver) Var(name string) (int, bool) {
	if name == "time" || name == "t" {
		return slotTime, true
	}
	if i, ok := r.c.pindex[name]; ok {
		r.c.tunUse[i] = true
		return 1 + i, true
	}
	if i, ok := r.c.iindex[name]; ok {
		return 1 + len(r.c.spec.Params) + i, true
	}
	return 0, false
}

func (r runResolver) Table(name string) (*expr.Table, bool) {
	t, ok := r.c.tables[name]
	return t, ok
}

func (r runResolver) Measure(fn string, args []string) (int, bool, error) {
	k, ok := measureKinds[fn]
	if !ok {
		return 0, false, nil
	}
	want := 1
	if k == msDist {
		want = 2
	}
	if len(args) != want {
		return 0, true, errorf("%s takes %d marker name(s), got %d", fn, want, len(args))
	}
	ms := measure{kind: k}
	p, err := r.c.pointRef(args[0])
	if err != nil {
		return 0, true, err
	}
	ms.p1 = p
	if want == 2 {
		if ms.p2, err = r.c.pointRef(args[1]); err != nil {
			return 0, true, err
		}
	}
	r.c.m.measures = append(r.c.m.measures, ms)
	return len(r.c.m.measures) - 1, true, nil
}

// constExpr evaluates a compile-time attribute (default def when absent).
func (c *compiler) constExpr(e spec.Expr, def float64) float64 {
	if !e.Given() {
		return def
	}
	p, err := expr.Compile(e.Src, constResolver{c})
	if err != nil {
		c.errf(e.Pos, e.Field, "%s (it must be a number or an expression of parameters: %q)", exprMsg(err), e.Src)
		return def
	}
	v := p.Eval(c.constVars(), nil)
	if !finite(v) {
		c.errf(e.Pos, e.Field, "value %q is not finite", e.Src)
		return def
	}
	return v
}

func (c *compiler) constVars() []float64 {
	v := make([]float64, 1+len(c.pvals))
	copy(v[1:], c.pvals)
	return v
}

// runExpr compiles a run-time attribute; a constant folds to param.c.
func (c *compiler) runExpr(e spec.Expr, def float64) param {
	if !e.Given() {
		return param{c: def}
	}
	p, err := expr.Compile(e.Src, runResolver{c})
	if err != nil {
		c.errf(e.Pos, e.Field, "%s in %q", exprMsg(err), e.Src)
		return param{c: def}
	}
	if v, ok := p.Const(); ok {
		return param{c: v}
	}
	return param{p: p}
}

func (c *compiler) runProgram(e spec.Expr) *expr.Program {
	p, err := expr.Compile(e.Src, runResolver{c})
	if err != nil {
		c.errf(e.Pos, e.Field, "%s in %q", exprMsg(err), e.Src)
		return nil
	}
	return p
}

func exprMsg(err error) string {
	if e, ok := err.(*expr.Error); ok {
		return "column " + itoa(e.Col) + ": " + e.Msg
	}
	return err.Error()
}

func (c *compiler) vec(v spec.Vec, def [2]float64) [2]float64 {
	return [2]float64{c.constExpr(v[0], def[0]), c.constExpr(v[1], def[1])}
}

// pointRef resolves "body.marker", "body", "ground.marker" or "ground".
func (c *compiler) pointRef(ref string) (point, error) {
	if p, ok := c.m.markers[ref]; ok {
		return p, nil
	}
	if ref == "ground" {
		return point{body: -1}, nil
	}
	b, mk, _ := strings.Cut(ref, ".")
	if _, ok := c.bodyIndex[b]; !ok && b != "ground" {
		return point{}, errorf("unknown body %q in marker reference %q%s", b, ref, suggest(b, c.bodyNames()))
	}
	return point{}, errorf("unknown marker %q on %s%s", mk, b, suggest(ref, c.markerNames()))
}

func (c *compiler) bodyNames() []string {
	n := []string{"ground"}
	for _, b := range c.spec.Bodies {
		n = append(n, b.Name)
	}
	return n
}

func (c *compiler) markerNames() []string {
	n := make([]string, 0, len(c.m.markers))
	for k := range c.m.markers {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// ---- the compilation ----

func (c *compiler) run(opt CompileOptions) {
	s, m := c.spec, c.m
	c.settings()
	c.names = map[string]spec.Pos{}
	c.bodyIndex = map[string]int{}
	c.jointIdx = map[string]int{}
	// parameters
	c.pindex = map[string]int{}
	c.pvals = make([]float64, len(s.Params))
	c.fixedUse = make([]bool, len(s.Params))
	c.tunUse = make([]bool, len(s.Params))
	for i, p := range s.Params {
		if _, dup := c.pindex[p.Name]; dup {
			c.errf(p.Pos, "name", "duplicate parameter %q", p.Name)
		}
		if !validName(p.Name) {
			c.errf(p.Pos, "name", "parameter name %q is not a valid identifier", p.Name)
		}
		if reservedVar(p.Name) {
			c.errf(p.Pos, "name", "parameter name %q is reserved in expressions (pi, e, time, t): choose another name", p.Name)
		}
		c.pindex[p.Name] = i
		c.pvals[i] = p.Value
	}
	for k, v := range opt.Params {
		i, ok := c.pindex[k]
		if !ok {
			c.errf(s.Pos, "parameter", "override of unknown parameter %q", k)
			continue
		}
		if !finite(v) {
			c.errf(s.Pos, "parameter", "override of %q is not finite", k)
			continue
		}
		c.pvals[i] = v
	}
	c.iindex = map[string]int{}
	for i, in := range s.Inputs {
		if _, dup := c.iindex[in.Name]; dup {
			c.errf(in.Pos, "name", "duplicate input %q", in.Name)
		}
		if reservedVar(in.Name) {
			c.errf(in.Pos, "name", "input name %q is reserved in expressions (pi, e, time, t): choose another name", in.Name)
		}
		if _, clash := c.pindex[in.Name]; clash {
			c.errf(in.Pos, "name", "input %q has the name of a parameter", in.Name)
		}
		c.iindex[in.Name] = i
		m.inputs = append(m.inputs, VarInfo{Name: in.Name, Unit: in.Unit, Description: in.Description, Start: in.Start})
	}
	m.vars = 1 + len(s.Params) + len(s.Inputs)
	c.tables = map[string]*expr.Table{}
	for _, t := range s.Tables {
		kind := t.Kind
		if kind == "" {
			kind = "linear"
		}
		tk, err := expr.ParseTableKind(kind)
		if err != nil {
			c.errf(t.Pos, "kind", "%v", err)
			continue
		}
		tb, err := expr.NewTable(t.X, t.Y, tk)
		if err != nil {
			c.errf(t.Pos, "table", "table %q: %v", t.Name, err)
			continue
		}
		if _, dup := c.tables[t.Name]; dup {
			c.errf(t.Pos, "name", "duplicate table %q", t.Name)
		}
		c.tables[t.Name] = tb
	}
	c.bodies()
	c.joints()
	c.drivers()
	c.forceElems()
	c.flexible()
	c.contacts()
	if len(c.errs) > 0 {
		return
	}
	c.groupRows()
	m.nc = len(m.rowCon)
	c.channels()
	c.outputs()
	for i, p := range s.Params {
		m.params = append(m.params, ParamInfo{Name: p.Name, Unit: p.Unit, Description: p.Description,
			Value: c.pvals[i], Tunable: !c.fixedUse[i]})
	}
	if len(c.errs) > 0 {
		return
	}
	c.plan()
}

// reservedVar reports names that expressions read as built-in constants or
// as time, so a parameter or input of that name could never be used.
func reservedVar(s string) bool { return s == "pi" || s == "e" || s == "time" || s == "t" }

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}

func (c *compiler) claim(name string, pos spec.Pos, what string) bool {
	if name == "" {
		c.errf(pos, "name", "%s needs a name", what)
		return false
	}
	if prev, dup := c.names[name]; dup {
		c.errf(pos, "name", "duplicate name %q (first used at %s)", name, prev)
		return false
	}
	c.names[name] = pos
	return true
}

func (c *compiler) settings() {
	ss := c.spec.Settings
	st := Settings{Start: ss.Start, End: ss.End, Step: ss.Step, OutputStep: ss.OutputStep,
		Integrator: strings.ToLower(ss.Integrator), Adaptive: ss.Adaptive,
		RelTol: ss.RelTol, AbsTol: ss.AbsTol, MinStep: ss.MinStep, MaxStep: ss.MaxStep,
		NewtonTol: ss.NewtonTol, MaxIter: ss.MaxIter,
		BaumgarteAlpha: ss.BaumgarteAlpha, BaumgarteBeta: ss.BaumgarteBeta}
	if st.End == 0 && st.Start == 0 {
		st.End = 1
	}
	if st.End <= st.Start {
		c.errf(ss.Pos, "end", "end time %g s must be after start time %g s", st.End, st.Start)
	}
	if st.Step == 0 {
		st.Step = 1e-3
	}
	if st.Step < 0 || !finite(st.Step) {
		c.errf(ss.Pos, "step", "step must be positive, got %g", st.Step)
		st.Step = 1e-3
	}
	if st.OutputStep == 0 {
		st.OutputStep = st.Step
	}
	if st.OutputStep < 0 {
		c.errf(ss.Pos, "output-step", "output step must be positive, got %g", st.OutputStep)
		st.OutputStep = st.Step
	}
	if st.Integrator == "" {
		st.Integrator = "genalpha"
	}
	if st.RelTol == 0 {
		st.RelTol = 1e-6
	}
	if st.AbsTol == 0 {
		st.AbsTol = 1e-8
	}
	if st.MinStep == 0 {
		st.MinStep = 1e-12
	}
	if st.MaxStep == 0 {
		st.MaxStep = math.Max(st.Step*100, (st.End-st.Start)/10)
	}
	if st.NewtonTol == 0 {
		st.NewtonTol = 1e-8
	}
	if st.MaxIter == 0 {
		st.MaxIter = 10
	}
	if st.BaumgarteAlpha == 0 {
		st.BaumgarteAlpha = 10
	}
	if st.BaumgarteBeta == 0 {
		st.BaumgarteBeta = 10
	}
	st.Gravity = [2]float64{0, -9.81}
	rho := 0.8
	if ss.RhoSet {
		rho = ss.RhoInf
	}
	if rho < 0 || rho > 1 {
		c.errf(ss.Pos, "rho-inf", "spectral radius ρ∞ must be in [0, 1], got %g", rho)
		rho = 0.8
	}
	st.RhoInf = rho
	in, err := newIntegrator(st.Integrator, rho, ss.Alpha, ss.Beta, ss.Gamma)
	if err != nil {
		c.errf(ss.Pos, "integrator", "%v", err)
	}
	c.m.integ = in
	switch strings.ToLower(ss.Formulation) {
	case "", "auto":
		// no numerical dissipation at infinity: index-3 would be only weakly stable
		c.m.index2 = in.family == famAlpha && in.am == in.af && math.Abs(in.g-0.5) < 1e-12
	case "index2", "index-2":
		c.m.index2 = true
	case "index3", "index-3":
	default:
		c.errf(ss.Pos, "formulation", "formulation must be auto, index3 or index2, got %q", ss.Formulation)
	}
	if in.family != famAlpha && in.family != famBDF {
		c.m.index2 = false
	}
	switch {
	case in.family == famRK:
		st.Formulation = "index1+baumgarte"
	case c.m.index2:
		st.Formulation = "index2"
	default:
		st.Formulation = "index3"
	}
	c.m.settings = st
}

func (c *compiler) bodies() {
	s, m := c.spec, c.m
	g := [2]float64{0, -9.81}
	if s.Settings.Gravity.Given() {
		g = c.vec(s.Settings.Gravity, [2]float64{0, 0})
	}
	m.settings.Gravity = g
	for _, mk := range s.Ground.Markers {
		at := c.vec(mk.At, [2]float64{})
		key := "ground." + mk.Name
		if _, dup := m.markers[key]; dup {
			c.errf(mk.Pos, "name", "duplicate ground marker %q", mk.Name)
		}
		m.markers[key] = point{body: -1, s: at, ang: c.constExpr(mk.Angle, 0)}
	}
	n := len(s.Bodies)
	c.grow(3 * n)
	for i := range s.Bodies {
		b := &s.Bodies[i]
		if b.Name == "ground" {
			c.errf(b.Pos, "name", "\"ground\" is reserved for the fixed frame")
		}
		if !validName(b.Name) {
			c.errf(b.Pos, "name", "body name %q is not a valid identifier (letters, digits, _)", b.Name)
		}
		if _, dup := c.bodyIndex[b.Name]; dup {
			c.errf(b.Pos, "name", "duplicate body %q", b.Name)
		}
		c.bodyIndex[b.Name] = i
		mass := c.constExpr(b.Mass, math.NaN())
		if !b.Mass.Given() {
			c.errf(b.Pos, "mass", "body %q needs a mass", b.Name)
		} else if !(mass > 0) {
			c.errf(b.Mass.Pos, "mass", "mass of body %q must be positive, got %g kg", b.Name, mass)
		}
		jj := c.constExpr(b.Inertia, math.NaN())
		if !b.Inertia.Given() {
			c.errf(b.Pos, "inertia", "body %q needs an inertia about its centre of mass", b.Name)
		} else if !(jj > 0) {
			c.errf(b.Inertia.Pos, "inertia", "inertia of body %q must be positive, got %g kg·m²", b.Name, jj)
		}
		cm := c.vec(b.CM, [2]float64{})
		at := c.vec(b.At, [2]float64{})
		ang := c.constExpr(b.Angle, 0)
		vel := c.vec(b.Vel, [2]float64{})
		om := c.constExpr(b.Omega, 0)
		sn, cs := math.Sincos(ang)
		acm := [2]float64{cs*cm[0] - sn*cm[1], sn*cm[0] + cs*cm[1]}
		o := 3 * i
		m.q0[o], m.q0[o+1], m.q0[o+2] = at[0]+acm[0], at[1]+acm[1], ang
		m.v0[o], m.v0[o+1], m.v0[o+2] = vel[0]-acm[1]*om, vel[1]+acm[0]*om, om
		m.mdiag[o], m.mdiag[o+1], m.mdiag[o+2] = mass, mass, jj
		if mass > 0 {
			m.gq[o], m.gq[o+1] = mass*g[0], mass*g[1]
		}
		bi := bodyInfo{name: b.Name, mass: mass, j: jj, cm: cm, shape: b.Shape}
		m.markers[b.Name] = point{body: i, s: [2]float64{-cm[0], -cm[1]}}
		for _, mk := range b.Markers {
			p := c.vec(mk.At, [2]float64{})
			key := b.Name + "." + mk.Name
			if _, dup := m.markers[key]; dup {
				c.errf(mk.Pos, "name", "duplicate marker %q on body %q", mk.Name, b.Name)
			}
			m.markers[key] = point{body: i, s: [2]float64{p[0] - cm[0], p[1] - cm[1]}, ang: c.constExpr(mk.Angle, 0)}
			bi.markers = append(bi.markers, mk.Name)
			bi.mlocal = append(bi.mlocal, p)
		}
		m.bodies = append(m.bodies, bi)
	}
}

// point position at q0.
func (c *compiler) pos0(p point) [2]float64 {
	var k kinPoint
	p.eval(c.m.q0, nil, &k)
	return k.r
}

func (c *compiler) angle0(p point) float64 {
	if p.body < 0 {
		return p.ang
	}
	return c.m.q0[3*p.body+2] + p.ang
}

func rowDofs(pi, pj point) [6]int {
	var d [6]int
	for k := 0; k < 3; k++ {
		d[k], d[3+k] = -1, -1
		if pi.body >= 0 {
			d[k] = 3*pi.body + k
		}
		if pj.body >= 0 {
			d[3+k] = 3*pj.body + k
		}
	}
	return d
}

func (c *compiler) markerField(ref string, pos spec.Pos, field string) (point, bool) {
	if ref == "" {
		c.errf(pos, field, "missing marker reference")
		return point{}, false
	}
	p, err := c.pointRef(ref)
	if err != nil {
		c.errf(pos, field, "%v", err)
		return point{}, false
	}
	return p, true
}

func (c *compiler) addRow(r row) {
	r.dofs = rowDofs(r.pi, r.pj)
	c.m.rows = append(c.m.rows, r)
}

func (c *compiler) joints() {
	m := c.m
	for _, j := range c.spec.Joints {
		if c.beamJoint(j) {
			continue // compiled with the beams (flexible.go)
		}
		c.claim(j.Name, j.Pos, "joint")
		pi, ok1 := c.markerField(j.I, j.Pos, "i")
		pj, ok2 := c.markerField(j.J, j.Pos, "j")
		if !ok1 || !ok2 {
			continue
		}
		if pi.body == pj.body {
			c.errf(j.Pos, "j", "joint %q connects %s to itself", j.Name, j.I)
			continue
		}
		ji := jointInfo{name: j.Name, kind: j.Kind, r0: len(m.rows), pi: pi, pj: pj}
		owner := len(m.joints)
		switch j.Kind {
		case "revolute":
			c.addRow(row{kind: rowPoint, pi: pi, pj: pj, axis: 0, owner: owner})
			c.addRow(row{kind: rowPoint, pi: pi, pj: pj, axis: 1, owner: owner})
		case "translational", "prismatic":
			ji.kind = "translational"
			// J's origin stays on I's x axis: n·(rj − ri) = n·d0.
			d0 := sub2(c.pos0(pj), c.pos0(pi))
			a := c.angle0(pi)
			nrm := [2]float64{-math.Sin(a), math.Cos(a)}
			c.addRow(row{kind: rowProj, pi: pi, pj: pj, psi: pi.ang + math.Pi/2, c0: dot2(nrm, d0), owner: owner})
			c.addRow(row{kind: rowAngle, pi: pi, pj: pj, c0: c.angle0(pj) - c.angle0(pi) - (pj.ang - pi.ang), owner: owner})
		case "fixed":
			c.addRow(row{kind: rowPoint, pi: pi, pj: pj, axis: 0, owner: owner})
			c.addRow(row{kind: rowPoint, pi: pi, pj: pj, axis: 1, owner: owner})
			c.addRow(row{kind: rowAngle, pi: pi, pj: pj, c0: c.angle0(pj) - c.angle0(pi) - (pj.ang - pi.ang), owner: owner})
		default:
			c.errf(j.Pos, "kind", "unknown joint kind %q (revolute, translational, fixed)", j.Kind)
			continue
		}
		ji.nr = len(m.rows) - ji.r0
		c.jointIdx[j.Name] = owner
		m.joints = append(m.joints, ji)
	}
}

func sub2(a, b [2]float64) [2]float64 { return [2]float64{a[0] - b[0], a[1] - b[1]} }

func (c *compiler) drivers() {
	m := c.m
	for _, d := range c.spec.Drivers {
		c.claim(d.Name, d.Pos, "driver")
		if !d.Value.Given() {
			c.errf(d.Pos, "value", "driver %q needs a value (a function of time)", d.Name)
			continue
		}
		prog := c.runProgram(d.Value)
		if prog == nil {
			continue
		}
		f, df, ddf := timeDerivs(prog)
		owner := len(m.joints)
		ji := jointInfo{name: d.Name, kind: "driver", r0: len(m.rows), nr: 1}
		switch {
		case d.Joint != "" && d.Body != "":
			c.errf(d.Pos, "joint", "driver %q names both a joint and a body: choose one", d.Name)
			continue
		case d.Joint != "":
			jk, ok := c.jointIdx[d.Joint]
			if !ok {
				c.errf(d.Pos, "joint", "driver %q: unknown joint %q", d.Name, d.Joint)
				continue
			}
			jt := m.joints[jk]
			ji.pi, ji.pj = jt.pi, jt.pj
			switch jt.kind {
			case "revolute":
				ji.dkind = "joint-angle"
				c.addRow(row{kind: rowAngle, pi: jt.pi, pj: jt.pj, c0: jt.pi.ang - jt.pj.ang, f: f, df: df, ddf: ddf, owner: owner})
			case "translational":
				ji.dkind = "joint-disp"
				c.addRow(row{kind: rowProj, pi: jt.pi, pj: jt.pj, psi: jt.pi.ang, f: f, df: df, ddf: ddf, owner: owner})
			default:
				c.errf(d.Pos, "joint", "driver %q: a %s joint has no free coordinate to drive", d.Name, jt.kind)
				continue
			}
		case d.Body != "":
			_, ok := c.bodyIndex[d.Body]
			if !ok {
				c.errf(d.Pos, "body", "driver %q: unknown body %q%s", d.Name, d.Body, suggest(d.Body, c.bodyNames()))
				continue
			}
			pj := m.markers[d.Body]
			ji.pj = pj
			ji.pi = point{body: -1}
			switch d.Coord {
			case "x", "y":
				ax := 0
				if d.Coord == "y" {
					ax = 1
				}
				ji.dkind = "body-" + d.Coord
				c.addRow(row{kind: rowPoint, pi: point{body: -1}, pj: pj, axis: ax, f: f, df: df, ddf: ddf, owner: owner})
			case "angle":
				ji.dkind = "body-angle"
				c.addRow(row{kind: rowAngle, pi: point{body: -1}, pj: pj, f: f, df: df, ddf: ddf, owner: owner})
			default:
				c.errf(d.Pos, "coord", "driver %q: coord must be x, y or angle, got %q", d.Name, d.Coord)
				continue
			}
		default:
			c.errf(d.Pos, "joint", "driver %q needs a joint or a body to drive", d.Name)
			continue
		}
		m.joints = append(m.joints, ji)
	}
}

func (c *compiler) bodyOf(ref string, pos spec.Pos, field string) (int, bool) {
	if ref == "" || ref == "ground" {
		return -1, true
	}
	p, ok := c.markerField(ref, pos, field)
	return p.body, ok
}

func (c *compiler) forceElems() {
	m := c.m
	for _, f := range c.spec.Forces {
		if c.beamForce(f) {
			continue // compiled with the beams (flexible.go)
		}
		c.claim(f.Name, f.Pos, "force")
		var el forceElement
		switch f.Kind {
		case "force":
			p, ok := c.markerField(f.I, f.Pos, "i")
			if !ok {
				continue
			}
			fol := false
			switch f.Frame {
			case "", "global":
			case "marker", "local", "body":
				fol = true
			default:
				c.errf(f.Pos, "frame", "frame must be global or marker, got %q", f.Frame)
			}
			pf := &pointForce{name: f.Name, pt: p, fx: c.runExpr(f.FX, 0), fy: c.runExpr(f.FY, 0), follower: fol}
			pf.d = [3]int{-1, -1, -1}
			if p.body >= 0 {
				pf.d = [3]int{3 * p.body, 3*p.body + 1, 3*p.body + 2}
			}
			el = pf
		case "torque":
			bj, ok1 := c.bodyOf(f.I, f.Pos, "i")
			bi, ok2 := c.bodyOf(f.J, f.Pos, "j")
			if !ok1 || !ok2 {
				continue
			}
			if !f.T.Given() {
				c.errf(f.Pos, "t", "torque %q needs a value t", f.Name)
			}
			te := &torqueElem{name: f.Name, bi: bi, bj: bj, t: c.runExpr(f.T, 0)}
			te.d = rowDofs(point{body: bi}, point{body: bj})
			el = te
		case "spring":
			pi, ok1 := c.markerField(f.I, f.Pos, "i")
			pj, ok2 := c.markerField(f.J, f.Pos, "j")
			if !ok1 || !ok2 {
				continue
			}
			l0 := math.Hypot(sub2(c.pos0(pj), c.pos0(pi))[0], sub2(c.pos0(pj), c.pos0(pi))[1])
			sp := &spring{name: f.Name, pi: pi, pj: pj, k: c.runExpr(f.K, 0), c: c.runExpr(f.C, 0),
				l: c.runExpr(f.Length, l0), p: c.runExpr(f.Preload, 0)}
			c.checkNonNeg(sp.k, f.K)
			c.checkNonNeg(sp.c, f.C)
			sp.d = rowDofs(pi, pj)
			el = sp
		case "rspring":
			pi, ok1 := c.markerField(f.I, f.Pos, "i")
			pj, ok2 := c.markerField(f.J, f.Pos, "j")
			if !ok1 || !ok2 {
				continue
			}
			a0 := 0.0
			if pj.body >= 0 {
				a0 += m.q0[3*pj.body+2]
			}
			if pi.body >= 0 {
				a0 -= m.q0[3*pi.body+2]
			}
			rs := &rspring{name: f.Name, bi: pi.body, bj: pj.body, k: c.runExpr(f.K, 0), c: c.runExpr(f.C, 0),
				a: c.runExpr(f.Angle, a0), p: c.runExpr(f.Preload, 0)}
			c.checkNonNeg(rs.k, f.K)
			c.checkNonNeg(rs.c, f.C)
			rs.d = rowDofs(point{body: pi.body}, point{body: pj.body})
			el = rs
		default:
			c.errf(f.Pos, "kind", "unknown force kind %q (force, torque, spring, rspring)", f.Kind)
			continue
		}
		c.addForce(f.Name, el)
	}
}

func (c *compiler) checkNonNeg(p param, e spec.Expr) {
	if p.p == nil && p.c < 0 {
		c.errf(e.Pos, e.Field, "must not be negative, got %g", p.c)
	}
}

func (c *compiler) addForce(name string, el forceElement) {
	m := c.m
	n := len(el.dofs())
	m.forces = append(m.forces, el)
	m.fnames = append(m.fnames, name)
	m.foff = append(m.foff, m.fsize, m.fksize)
	m.fsize += n
	m.fksize += n * n
}

// grow appends n linear coordinates (a position and a velocity each) and
// returns the index of the first.
func (c *compiler) grow(n int) int {
	m := c.m
	base := m.nv
	for i := 0; i < n; i++ {
		m.qOf = append(m.qOf, m.nq+i)
	}
	m.nq += n
	m.nv += n
	m.mdiag = append(m.mdiag, make([]float64, n)...)
	m.gq = append(m.gq, make([]float64, n)...)
	m.q0 = append(m.q0, make([]float64, n)...)
	m.v0 = append(m.v0, make([]float64, n)...)
	return base
}

// groupRows turns the planar rows into constraint elements: consecutive
// rows of one owner on the same points and coordinates form one element.
func (c *compiler) groupRows() {
	m := c.m
	for r := 0; r < len(m.rows); {
		e := r + 1
		for e < len(m.rows) && m.rows[e].owner == m.rows[r].owner && m.rows[e].dofs == m.rows[r].dofs &&
			m.rows[e].pi == m.rows[r].pi && m.rows[e].pj == m.rows[r].pj {
			e++
		}
		c.addCon(&rowSet{rows: m.rows[r:e:e]}, m.rows[r].owner)
		r = e
	}
}

// addCon adds a constraint element of joint or driver owner.
func (c *compiler) addCon(k constraint, owner int) {
	m := c.m
	ce := conElem{c: k, d: k.dofs(), r0: len(m.rowCon), nr: k.nrows(), owner: owner}
	if n := len(m.cons); n > 0 {
		p := &m.cons[n-1]
		ce.jo = p.jo + p.nr*len(p.d)
	}
	for i := 0; i < ce.nr; i++ {
		m.rowCon = append(m.rowCon, int32(len(m.cons)))
	}
	m.cons = append(m.cons, ce)
}

// plan builds the sparsity pattern of the augmented Newton matrix and the
// linear-solver plan.
func (c *compiler) plan() {
	m := c.m
	nv := m.nv
	n := nv + m.nc
	p := linalg.NewPattern(n)
	for i := 0; i < n; i++ {
		p.Add(i, i)
	}
	for _, b := range m.mblocks {
		p.AddBlock(b.dofs)
	}
	idx := make([]int, 0, 64)
	for _, f := range m.forces {
		idx = idx[:0]
		for _, d := range f.dofs() {
			if d >= 0 {
				idx = append(idx, d)
			}
		}
		p.AddBlock(idx)
	}
	for _, ce := range m.cons {
		idx = idx[:0]
		for _, d := range ce.d {
			if d >= 0 {
				idx = append(idx, d)
				for r := ce.r0; r < ce.r0+ce.nr; r++ {
					p.Add(nv+r, d)
				}
			}
		}
		p.AddBlock(idx)
	}
	m.plan = linalg.NewPlan(p)
	pos := func(dofs []int) []int {
		n := len(dofs)
		ps := make([]int, n*n)
		for a, i := range dofs {
			for b, j := range dofs {
				ps[a*n+b] = -1
				if i >= 0 && j >= 0 {
					ps[a*n+b] = m.plan.Pos(i, j) // in the pattern: ≥ 0
				}
			}
		}
		return ps
	}
	m.mpos = make([]int, len(m.mdiag))
	for i := range m.mdiag {
		m.mpos[i] = m.plan.Pos(i, i)
	}
	m.blkPos = make([][]int, len(m.mblocks))
	for k, b := range m.mblocks {
		m.blkPos[k] = pos(b.dofs)
	}
	m.compressMass()
	m.fpos = make([][]int, len(m.forces))
	m.fdTan = make([]bool, len(m.forces))
	for k, f := range m.forces {
		m.fpos[k] = pos(f.dofs())
		m.fdTan[k] = readsMeasures(f)
	}
	for k := range m.cons {
		ce := &m.cons[k]
		nd := len(ce.d)
		ce.jpos, ce.jtpos = make([]int, ce.nr*nd), make([]int, ce.nr*nd)
		for r := 0; r < ce.nr; r++ {
			for a, d := range ce.d {
				ce.jpos[r*nd+a], ce.jtpos[r*nd+a] = -1, -1
				if d >= 0 {
					ce.jpos[r*nd+a] = m.plan.Pos(nv+ce.r0+r, d)
					ce.jtpos[r*nd+a] = m.plan.Pos(d, nv+ce.r0+r)
				}
			}
		}
		ce.hpos = pos(ce.d)
	}
	m.rdiag = make([]int, m.nc)
	for r := range m.rdiag {
		m.rdiag[r] = m.plan.Pos(nv+r, nv+r)
	}
}

// compressMass assembles the constant mass matrix (diagonal plus blocks,
// overlapping entries summed) into compressed rows for massMul.
func (m *Model) compressMass() {
	rows := make([]map[int32]float64, m.nv)
	add := func(i, j int, v float64) {
		if rows[i] == nil {
			rows[i] = map[int32]float64{}
		}
		rows[i][int32(j)] += v
	}
	for i, d := range m.mdiag {
		add(i, i, d)
	}
	for _, b := range m.mblocks {
		n := len(b.dofs)
		for r, i := range b.dofs {
			for c, j := range b.dofs {
				add(i, j, b.m[r*n+c])
			}
		}
	}
	m.mPtr = make([]int32, m.nv+1)
	m.mCol, m.mVal = nil, nil
	for i, r := range rows {
		cols := make([]int, 0, len(r))
		for j, v := range r {
			if v != 0 {
				cols = append(cols, int(j))
			}
		}
		sort.Ints(cols)
		for _, j := range cols {
			m.mCol = append(m.mCol, int32(j))
			m.mVal = append(m.mVal, r[int32(j)])
		}
		m.mPtr[i+1] = int32(len(m.mCol))
	}
}
