package solver

import (
	"math"
	"sort"
	"strings"

	"mbfmu/expr"
	"mbfmu/linalg"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Compile turns a specification into a Model. Every problem found is
// reported, each with the file, line and field it comes from, as an
// spec.ErrorList.
func Compile(ms *spec.Model, opt CompileOptions) (*Model, error) {
	dim := 2
	if ms.Dimension == 3 {
		dim = 3
	}
	c := &compiler{spec: ms, m: &Model{name: ms.Name, spec: ms, dim: dim, markers: map[string]mech.Marker{}}}
	c.run(opt)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	c.m.indexElements()
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
	user      *userVars // <state>s and <variable>s, or nil
}

// The compiler is the element packages' view of the model being built.
var _ mech.Builder = (*compiler)(nil)

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

// NameMeasure refuses the user's states and variables in a constant
// attribute (expr.NameMeasurer).
func (r constResolver) NameMeasure(name string) (int, bool, error) {
	if u := r.c.user; u != nil {
		if _, ok := u.sIdx[name]; ok {
			return 0, true, errorf("%q is a <state>, which changes in time: this attribute takes numbers and parameters only", name)
		}
		if _, ok := u.vIdx[name]; ok {
			return 0, true, errorf("%q is a <variable>, evaluated as the model runs: this attribute takes numbers and parameters only", name)
		}
	}
	return 0, false, nil
}
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

// NameMeasure resolves the user's states and variables
// (expr.NameMeasurer).
func (r runResolver) NameMeasure(name string) (int, bool, error) {
	return userResolver{r, false}.NameMeasure(name)
}

func (r runResolver) Measure(fn string, args []string) (int, bool, error) {
	return r.c.measure(fn, args)
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
	c.inRange(e, v)
	return v
}

func (c *compiler) constVars() []float64 {
	v := make([]float64, 1+len(c.pvals))
	copy(v[1:], c.pvals)
	return v
}

// runExpr compiles a run-time attribute; a constant folds to Param.C.
func (c *compiler) runExpr(e spec.Expr, def float64) mech.Param {
	if !e.Given() {
		return mech.Param{C: def}
	}
	p, err := expr.Compile(e.Src, runResolver{c})
	if err != nil {
		c.errf(e.Pos, e.Field, "%s in %q", exprMsg(err), e.Src)
		return mech.Param{C: def}
	}
	if v, ok := p.Const(); ok {
		if !finite(v) {
			c.errf(e.Pos, e.Field, "value %q is not finite", e.Src)
			return mech.Param{C: def}
		}
		c.inRange(e, v)
		return mech.Param{C: v}
	}
	c.source(p, e)
	return mech.Param{P: p}
}

func (c *compiler) runProgram(e spec.Expr) *expr.Program {
	p, err := expr.Compile(e.Src, runResolver{c})
	if err != nil {
		c.errf(e.Pos, e.Field, "%s in %q", exprMsg(err), e.Src)
		return nil
	}
	c.source(p, e)
	return p
}

func exprMsg(err error) string {
	if e, ok := err.(*expr.Error); ok {
		return "column " + itoa(e.Col) + ": " + e.Msg
	}
	return err.Error()
}

// markerRef resolves "body.marker", "body", "ground.marker" or "ground".
func (c *compiler) markerRef(ref string) (mech.Marker, error) {
	if p, ok := c.m.markers[ref]; ok {
		return p, nil
	}
	if ref == "ground" {
		return mech.Marker{P: mech.Point{Body: -1}, F: mech.Frame{Body: -1, Q: -1, V: -1, R: mech.Ident}}, nil
	}
	b, mk, _ := strings.Cut(ref, ".")
	for i := range c.spec.Beams {
		if bs := &c.spec.Beams[i]; bs.Name == b && c.m.dim == 3 && (bs.Kind == "ffr" || strings.HasPrefix(bs.Kind, "fe-")) {
			if _, ok := bs.Attr["marker."+mk]; ok {
				built := false
				for i := range c.m.bodies {
					built = built || c.m.bodies[i].Name == b
				}
				if !built {
					return mech.Marker{}, errorf("marker %q of flexible body %q: the body has errors (above)", mk, b)
				}
				return mech.Marker{}, errorf("marker %q of flexible body %q moves with its shapes: only <force> and <torque> attach there; joints, springs and contacts attach to rigid markers (an fe-body's clamped nodes, an ffr beam's body)", mk, b)
			}
		}
	}
	if _, ok := c.bodyIndex[b]; !ok && b != "ground" {
		return mech.Marker{}, errorf("unknown body %q in marker reference %q%s", b, ref, suggest(b, c.bodyNames()))
	}
	return mech.Marker{}, errorf("unknown marker %q on %s%s", mk, b, suggest(ref, c.markerNames()))
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
		if !mech.ValidName(p.Name) {
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
	c.declareUser()
	c.elements()
	c.compileUser()
	if len(c.errs) > 0 {
		return
	}

	m.nc = len(m.rowCon)
	c.contactSet()
	c.channels()
	c.outputs()
	for i, p := range s.Params {
		m.params = append(m.params, ParamInfo{Name: p.Name, Unit: p.Unit, Description: p.Description,
			Value: c.pvals[i], Tunable: !c.fixedUse[i]})
	}
	if len(c.errs) > 0 {
		return
	}
	m.meas = make([]mech.Measure, len(m.measures))
	for i := range m.measures {
		m.meas[i] = &m.measures[i]
	}
	c.plan()
}

// reservedVar reports names that expressions read as built-in constants or
// as time, so a parameter or input of that name could never be used.
func reservedVar(s string) bool { return s == "pi" || s == "e" || s == "time" || s == "t" }

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
	rho := 0.8
	if ss.RhoSet {
		rho = ss.RhoInf
	}
	if rho < 0 || rho > 1 {
		c.errf(ss.Pos, "rho-inf", "spectral radius ρ∞ must be in [0, 1], got %g", rho)
		rho = 0.8
	}
	st.RhoInf = rho
	c.timeGrid(st)
	in, err := newIntegrator(st.Integrator, rho, ss.Alpha, ss.Beta, ss.Gamma)
	if err != nil {
		c.errf(ss.Pos, "integrator", "%v", err)
	}
	c.m.integ = in
	switch strings.ToLower(ss.Formulation) {
	case "", "auto":
		// No numerical dissipation at infinity: index-3 would be only
		// weakly stable. Spatial models: the index-3 form's parasitic
		// constraint mode, damped only by ρ∞ per step, couples with a
		// body's turn per step; on the Simo–Wong top (h|ω| = 0.45 rad a
		// step) generalized-α with ρ∞ = 0.8 and HHT gained energy until
		// the top fell over, where the index-2 form dissipates as it
		// should at every ρ∞ (solver/stability_test.go).
		c.m.index2 = in.family == famAlpha && (in.am == in.af && math.Abs(in.g-0.5) < 1e-12 || c.spec.Dimension == 3)
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
	for range n {
		m.lq = append(m.lq, 1)
	}
	m.q0 = append(m.q0, make([]float64, n)...)
	m.v0 = append(m.v0, make([]float64, n)...)
	return base
}

// addCon adds a constraint element of joint or driver owner.
func (c *compiler) addCon(k mech.Constraint, owner int) {
	m := c.m
	ce := conElem{c: k, d: k.Dofs(), r0: len(m.rowCon), nr: k.Rows(), owner: owner}
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
		for _, d := range f.Dofs() {
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
	m.gramPlan(m.plan.Perm())
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
	m.rotInertia()
	m.fpos = make([][]int, len(m.forces))
	m.flive = make([][]int, len(m.forces))
	m.fdTan = make([]bool, len(m.forces))
	m.frot = make([][]rotCol, len(m.forces))
	for k, f := range m.forces {
		m.fpos[k] = pos(f.Dofs())
		for e, p := range m.fpos[k] {
			if p >= 0 {
				m.flive[k] = append(m.flive[k], e)
			}
		}
		m.fdTan[k] = mech.FiniteDifferenceTangent(f)
		if _, ok := f.(mech.MassCorrector); ok {
			m.mcorr = append(m.mcorr, k)
		}
		m.frot[k] = m.rotCols(f.Dofs())
	}
	m.inputDependence()
	c.compileAdaptive()
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
		ce.rot = m.rotCols(ce.d)
		ce.setLive()
	}
	// a Newton iteration: one solve and the evaluation of every element
	eval := 0.0
	for _, f := range m.forces {
		eval += 20 * float64(len(f.Dofs()))
	}
	for _, ce := range m.cons {
		eval += 20 * float64(ce.nr*(len(ce.d)+3))
	}
	m.factorIters = m.plan.FactorCost() / (m.plan.SolveCost() + eval)
	for _, f := range m.forces {
		m.readsLam = m.readsLam || m.readsReactions(f)
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
	m.groupMass()
	// a diagonal matrix (every planar model, spatial bodies with their
	// principal axes along the body axes) multiplies entry by entry
	m.mDiag = make([]float64, m.nv)
	for i := range m.mDiag {
		for e := m.mPtr[i]; e < m.mPtr[i+1]; e++ {
			if int(m.mCol[e]) != i {
				m.mDiag = nil
				return
			}
			m.mDiag[i] = m.mVal[e]
		}
	}
}

// groupMass finds the runs of g = 3 or 2 consecutive mass rows whose
// entries are those of the first row shifted by 1, 2 columns, as the
// mass of a vector's components is (an ANCF node's position and slope:
// the element mass is the shape functions' times the identity, M_s ⊗ I),
// and stores each run's first row once (m.mGrp): massMul then reads a
// value and a column index once for g products.
func (m *Model) groupMass() {
	m.mGrp, m.gCol, m.gVal = nil, nil, nil
	row := func(i int) ([]int32, []float64) { return m.mCol[m.mPtr[i]:m.mPtr[i+1]], m.mVal[m.mPtr[i]:m.mPtr[i+1]] }
	shifted := func(i, by int) bool {
		c0, v0 := row(i)
		c1, v1 := row(i + by)
		if len(c1) != len(c0) || len(c0) == 0 {
			return false
		}
		for k := range c0 {
			if c1[k] != c0[k]+int32(by) || v1[k] != v0[k] {
				return false
			}
		}
		return true
	}
	for i := 0; i < m.nv; {
		g := 1
		for g < 3 && i+g < m.nv && shifted(i, g) {
			g++
		}
		c, v := row(i)
		m.mGrp = append(m.mGrp, massGroup{row: int32(i), g: int32(g), k0: int32(len(m.gCol)), k1: int32(len(m.gCol) + len(c))})
		m.gCol = append(m.gCol, c...)
		m.gVal = append(m.gVal, v...)
		i += g
	}
}

// massGroup is a run of g mass rows from row (groupMass): the entries of
// its first row are gCol[k0:k1], gVal[k0:k1].
type massGroup struct{ row, g, k0, k1 int32 }

// rotInertia classifies each rotation's inertia (its 3×3 block of the
// constant mass matrix, in the body frame) for coRotate: the body axis of
// symmetry of an axisymmetric body (two equal principal moments, the
// principal axes along the body axes), isotropic, or neither.
func (m *Model) rotInertia() {
	m.rotSym = make([]int8, len(m.rots))
	for k, r := range m.rots {
		m.rotSym[k] = symNone
		var J mech.Mat3
		for a := 0; a < 3; a++ {
			i := r.v + a
			for e := m.mPtr[i]; e < m.mPtr[i+1]; e++ {
				if b := int(m.mCol[e]) - r.v; b >= 0 && b < 3 {
					J[3*a+b] += m.mVal[e]
				}
			}
		}
		n := max(math.Abs(J[0]), math.Abs(J[4]), math.Abs(J[8]))
		if !(n > 0) || math.Abs(J[1])+math.Abs(J[2])+math.Abs(J[3])+math.Abs(J[5])+math.Abs(J[6])+math.Abs(J[7]) > 1e-12*n {
			continue
		}
		eq := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*n }
		d := [3]float64{J[0], J[4], J[8]}
		switch {
		case eq(d[0], d[1]) && eq(d[1], d[2]):
			m.rotSym[k] = symIso
		case eq(d[0], d[1]):
			m.rotSym[k] = 2
		case eq(d[0], d[2]):
			m.rotSym[k] = 1
		case eq(d[1], d[2]):
			m.rotSym[k] = 0
		}
	}
}
