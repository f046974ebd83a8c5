package solver

import (
	"errors"
	"math"
	"strings"

	"mbfmu/expr"
	"mbfmu/linalg"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// This file names the source of a non-finite or out-of-range value: the
// force, driver, parameter or input whose value became infinite or NaN,
// or the mass, stiffness or lever arm that makes the iteration matrix too
// badly scaled to factor, with its file:line and field.
//
//   - CheckValues (mbfmu check, mbfmu pack) evaluates every run-time
//     expression once at the assembled start state.
//   - Init and a failed step (AdvanceTo, Step) diagnose before they
//     return: they evaluate the model's values at the last good state,
//     also moved on to the time of the failing step, and name the first
//     element whose value is not finite although what it reads is (so the
//     element to blame, not the ones that merely read its consequences);
//     when no element is to blame and the linear solver found no pivot,
//     they tell a matrix that is singular from one that is only badly
//     scaled, and name the entry's source.
//
// Everything here runs only on failure or on request: the stepping code
// calls it where it builds its error, and it may allocate.

// CheckValues evaluates every run-time expression of the model at the
// state s (normally just after Init): each parameter, input, force
// element's parameters and generalized force and tangent, each driver's
// value and each joint's constraint equations, and the declared outputs.
// It reports each non-finite value with the element, its field and
// file:line, and leaves s as it was.
func (m *Model) CheckValues(s *State) spec.ErrorList {
	defer m.keep(s)()
	return m.scan(s, true, true, true)
}

// CheckRow returns nil when every value of a row of channels (EvalChannels
// at s) is finite, else what is not: the model's own diagnosis (element,
// attribute, file:line; CheckValues) when it finds one, else the first
// channel that is not finite. Every runner stops on it at that output time
// (simulate, kinematics, studies), as the FMU discards the step.
func (m *Model) CheckRow(s *State, row []float64) error {
	if finiteAll(row) {
		return nil
	}
	if errs := m.CheckValues(s); len(errs) > 0 {
		return errs
	}
	for i, v := range row {
		if v*0 != 0 {
			return errorf("channel %s is %v at t = %s s", m.channels[i].info.Name, v, ftoa(s.T))
		}
	}
	return nil
}

// keep saves what a diagnosis may change in s (positions, velocities, the
// variables) and returns the function that restores it.
func (m *Model) keep(s *State) func() {
	core := append([]float64(nil), s.core...)
	vars := append([]float64(nil), s.vars...)
	t := s.T
	return func() {
		copy(s.core, core)
		copy(s.vars, vars)
		s.T = t
	}
}

// errNonFiniteState is what Init and AdvanceTo report for a state that
// became non-finite without a failure of the solver.
var (
	errNonFiniteState = errors.New("state became non-finite")
	errNonFiniteInit  = errors.New("the initial state (accelerations, constraint forces) is not finite")
)

// stepError builds the error of a failed step from t0 to t1 (s at the
// last good state, or, for a state that became non-finite, at the bad
// one): the solver's message, preceded by the source of the failure when
// one is found.
func (m *Model) stepError(s *State, err error, t0, t1 float64) *StepError {
	se := &StepError{Time: s.T, LastTime: s.T, Msg: err.Error()}
	if src := m.diagnose(s, err, t0, t1); src != nil {
		se.Source = src
		se.Msg = src.Error() + "; the step failed: " + se.Msg
	}
	return se
}

// initError explains a failure of Init (err) at the start time.
func (m *Model) initError(s *State, err error) error {
	var ae *AssemblyError
	if errors.As(err, &ae) && ae.Joint != "" && m.spec != nil {
		// reported at the joint's line
		if kind, name, pos := m.where(ae.Joint); pos.Line > 0 {
			return spec.ErrorList{&spec.Error{Pos: pos, Field: "<" + kind + ">", Msg: kind + " " + quote(name) + ": " + err.Error()}}
		}
	}
	t := m.settings.Start
	src := m.diagnose(s, err, t, t)
	if src == nil {
		return err
	}
	e := *src
	e.Msg += "; the model cannot be assembled at the start time: " + err.Error()
	return spec.ErrorList{&e}
}

// diagnose names the source of a failure err of a step from t0 to t1, or
// of Init (t0 = t1): nil when none is found. It leaves s as it was.
func (m *Model) diagnose(s *State, err error, t0, t1 float64) *spec.Error {
	defer m.keep(s)()
	orig := append([]float64(nil), s.core...)
	// the last good state: s, or the start of the last step taken (s.save)
	// when s became non-finite; at Init, the initial guess when the
	// assembly left s non-finite
	base := append([]float64(nil), s.core...)
	if !m.finiteState(s) {
		switch {
		case finiteAll(s.save[:len(base)-len(s.ph)]) && t1 > t0:
			copy(base, s.save)
		case t1 == t0 && (!finiteAll(s.q) || !finiteAll(s.v)):
			copy(s.q, m.q0)
			copy(s.v, m.v0)
			clear(s.a)
			clear(s.lam)
			copy(base, s.core)
		}
	}
	// the values at the last good state, then moved on (positions and
	// velocities extrapolated with its accelerations) to the time of the
	// shortest retry of the failing step and to its end
	for _, t := range []float64{t0, t0 + (t1-t0)/16, t1} {
		copy(s.core, base)
		if dt := t - t0; dt > 0 {
			nv := m.nv
			for i := 0; i < nv; i++ {
				s.dq[i] = dt*s.v[i] + 0.5*dt*dt*s.a[i]
			}
			m.addTo(s.q, s.dq, 1)
			for i := 0; i < nv; i++ {
				s.v[i] += dt * s.a[i]
			}
			if !finiteAll(s.q) || !finiteAll(s.v) {
				copy(s.core, base)
			}
		}
		s.setTime(t)
		if !finiteAll(s.q) || !finiteAll(s.v) {
			continue // no element can be blamed at such a state
		}
		// a joint is blamed only at the last good state itself: at the
		// extrapolated ones its equations may overflow with the motion
		if errs := m.scan(s, false, t == t0, false); len(errs) > 0 {
			return errs[0]
		}
	}
	copy(s.core, base)
	s.setTime(t0)
	var se *linalg.SingularError
	if errors.As(err, &se) || strings.Contains(err.Error(), "no pivot") {
		if e := m.scaleDiagnosis(s); e != nil {
			return e
		}
	}
	// no element to blame: the first non-finite coordinate
	return m.nonFiniteCoord(orig, t1)
}

// finiteAll reports whether every entry of x is finite.
func finiteAll(x []float64) bool {
	acc := 0.0
	for _, v := range x {
		acc += v * 0
	}
	return acc == 0
}

// scan evaluates the model's values at s (its positions and velocities
// finite) and returns a problem for each value that is not finite or out
// of range (beyond ±MaxNumber, whose square overflows), or only the first
// unless all is set. In order: every force element (its run-time
// parameters, then its generalized force and tangent), every driver (its
// value, then its constraint equations, which hold the value's time
// derivatives), the parameters and inputs themselves, with joints every
// joint's constraint equations (a joint holds no value of its own: at a
// finite state its equations overflow only after something else did),
// and with outputs the declared outputs. An expression's problem is
// reported at the attribute it comes from, with the variables it read.
func (m *Model) scan(s *State, all, joints, outputs bool) spec.ErrorList {
	var errs spec.ErrorList
	add := func(pos spec.Pos, field, msg string) bool {
		errs = append(errs, &spec.Error{Pos: pos, Field: field, Msg: msg})
		return !all
	}
	at := " at t = " + ftoa(s.vars[slotTime]) + " s"
	bad := func(what string, p *expr.Program, v float64, pos spec.Pos) bool {
		e, ok := m.srcs[p]
		if !ok {
			e = spec.Expr{Src: p.Src(), Pos: pos}
		}
		return add(e.Pos, e.Field, what+": "+e.Src+" is "+ftoa(v)+at+beyond(v)+m.reads(p, s.vars))
	}
	for k, f := range m.forces {
		kind, name, pos := m.where(m.fnames[k])
		what := kind + " " + quote(name)
		blamed := false
		if pl, ok := f.(mech.ParamLister); ok {
			for _, p := range pl.Params() {
				if p.P == nil {
					continue
				}
				if v := p.Get(&s.x); outOfRange(v) {
					blamed = true
					if bad(what, p.P, v, pos) {
						return errs
					}
				}
			}
		}
		if blamed {
			continue
		}
		n := len(f.Dofs())
		fl, kl, cl := make([]float64, n), make([]float64, n*n), make([]float64, n*n)
		f.Eval(&s.x, fl, kl, cl)
		switch {
		case !inRangeAll(fl):
			v := firstOut(fl)
			if add(pos, "", what+": its force is "+ftoa(v)+at+beyond(v)+", although its parameters are within range"+m.stateNote(f)) {
				return errs
			}
		case !finiteAll(kl) || !finiteAll(cl):
			if add(pos, "", what+": its tangent (−∂Q/∂q, −∂Q/∂v) is "+ftoa(firstOut(append(kl, cl...)))+at+m.stateNote(f)) {
				return errs
			}
		}
	}
	// the constraint elements of drivers (pass 0) or of joints (pass 1)
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			if errs = m.scanVars(s, errs, add); len(errs) > 0 && !all {
				return errs
			}
			if !joints {
				break
			}
		}
		for k := range m.cons {
			ce := &m.cons[k]
			j := &m.joints[ce.owner]
			if (j.Kind == mech.JointDriver) != (pass == 0) {
				continue
			}
			kind, name, pos := m.where(j.Name)
			what := kind + " " + quote(name)
			if j.Value.P != nil {
				if v := j.Value.Get(&s.x); outOfRange(v) {
					if bad(what, j.Value.P, v, pos) {
						return errs
					}
					continue
				}
			}
			out := mech.Rows{Phi: make([]float64, ce.nr), Phit: make([]float64, ce.nr), Gamma: make([]float64, ce.nr),
				Jac: make([]float64, ce.nr*len(ce.d))}
			ce.c.Eval(&s.x, out, true)
			if finiteAll(out.Phi) && finiteAll(out.Phit) && finiteAll(out.Gamma) && finiteAll(out.Jac) {
				continue
			}
			if j.Kind == mech.JointDriver {
				e := m.driverValue(j.Name)
				if add(e.Pos, e.Field, what+": its value "+e.Src+" is finite"+at+" but not its rate or acceleration (time derivatives of the value)") {
					return errs
				}
				continue
			}
			if add(pos, "", what+": its constraint equations are not finite"+at) {
				return errs
			}
		}
	}
	if outputs {
		for i, ch := range m.outChan {
			v := m.evalChannel(s, ch)
			if finite(v) {
				continue
			}
			o := m.spec.Outputs[m.outputSpec(i)]
			msg := "output " + quote(o.Name) + ": "
			field := "channel"
			if o.Expr.Given() {
				msg += o.Expr.Src
				field = "expr"
			} else {
				msg += "channel " + o.Channel
			}
			msg += " is " + ftoa(v) + at
			if p := m.channels[ch].prog; p != nil {
				msg += m.reads(p, s.vars)
			}
			if add(o.Pos, field, msg) {
				return errs
			}
		}
	}
	return errs
}

// scanVars adds a problem for each parameter and input of s that is not
// finite or out of range.
func (m *Model) scanVars(s *State, errs spec.ErrorList, add func(spec.Pos, string, string) bool) spec.ErrorList {
	np := len(m.params)
	for i := range m.params {
		if v := s.vars[1+i]; outOfRange(v) {
			p := m.spec.Params[i]
			if add(p.Pos, "value", "parameter "+quote(p.Name)+" is "+ftoa(v)+beyond(v)) {
				return errs
			}
		}
	}
	for i := range m.inputs {
		if v := s.vars[1+np+i]; outOfRange(v) {
			in := m.spec.Inputs[i]
			if add(in.Pos, "", "input "+quote(in.Name)+" is "+ftoa(v)+" at t = "+ftoa(s.vars[slotTime])+" s"+beyond(v)) {
				return errs
			}
		}
	}
	return errs
}

// outOfRange reports a value that is not finite or beyond ±MaxNumber.
func outOfRange(v float64) bool { return !(math.Abs(v) <= MaxNumber) }

// inRangeAll reports whether no entry of x is out of range.
func inRangeAll(x []float64) bool {
	for _, v := range x {
		if outOfRange(v) {
			return false
		}
	}
	return true
}

// firstOut returns the first entry of x out of range.
func firstOut(x []float64) float64 {
	for _, v := range x {
		if outOfRange(v) {
			return v
		}
	}
	return 0
}

// beyond explains a finite value out of range.
func beyond(v float64) string {
	if !finite(v) || math.Abs(v) <= MaxNumber {
		return ""
	}
	return sprintf(", beyond ±%.2g (the square of such a value overflows)", MaxNumber)
}

// outputSpec returns the index in the model file's outputs of declared
// output i (outputs that failed to compile are not declared).
func (m *Model) outputSpec(i int) int {
	name := m.outputs[i].Name
	if a := m.outputs[i].Array; a != "" {
		name = a
	}
	for k, o := range m.spec.Outputs {
		if o.Name == name {
			return k
		}
	}
	return i
}

// driverValue returns the value attribute of driver name.
func (m *Model) driverValue(name string) spec.Expr {
	for _, d := range m.spec.Drivers {
		if d.Name == name {
			return d.Value
		}
	}
	return spec.Expr{}
}

// stateNote says what a force element reads when none of its parameters
// is to blame.
func (m *Model) stateNote(f mech.Force) string {
	if _, ok := f.(mech.ParamLister); ok {
		return " (from the positions and velocities: a stiffness or a geometry too large?)"
	}
	return ""
}

func quote(s string) string { return "\"" + s + "\"" }

// reads lists the variables p reads, with their values and, for
// parameters and inputs, their declarations: "(time = 0 s, k = 1e+300
// (parameter, model.xml:4))".
func (m *Model) reads(p *expr.Program, vars []float64) string {
	var parts []string
	np := len(m.params)
	for _, slot := range p.Slots() {
		v := ftoa(vars[slot])
		switch {
		case slot == slotTime:
			parts = append(parts, "time = "+v+" s")
		case slot <= np:
			ps := m.spec.Params[slot-1]
			parts = append(parts, ps.Name+" = "+v+withUnit(ps.Unit)+" (parameter, "+ps.Pos.String()+")")
		case slot-1-np < len(m.spec.Inputs):
			in := m.spec.Inputs[slot-1-np]
			parts = append(parts, in.Name+" = "+v+withUnit(in.Unit)+" (input, "+in.Pos.String()+")")
		}
	}
	if p.UsesMeasures() {
		parts = append(parts, "and measures of the state")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func withUnit(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

// where finds an element of the model file by the name the compiler gave
// it (a beam's segments and a spatial body's gyroscopic forces are
// "name#..."): its kind as the model file writes it, its name and its
// position.
func (m *Model) where(name string) (kind, base string, pos spec.Pos) {
	base, _, _ = strings.Cut(name, "#")
	if e, ok := m.elems[base]; ok {
		return e.kind, base, e.pos
	}
	return "element", base, m.spec.Pos
}

// elemRef is an element of the model file as where reports it.
type elemRef struct {
	kind string
	pos  spec.Pos
}

// indexElements fills m.elems, the index of where: the forces, drivers,
// joints, contacts, beams, bodies, couplers and stops of the model file by
// name (the first
// of a name in that order keeps it).
func (m *Model) indexElements() {
	ms := m.spec
	m.elems = make(map[string]elemRef, len(ms.Forces)+len(ms.Drivers)+len(ms.Joints)+len(ms.Contacts)+len(ms.Beams)+len(ms.Bodies)+len(ms.Drives))
	add := func(name, kind string, pos spec.Pos) {
		if _, dup := m.elems[name]; !dup {
			m.elems[name] = elemRef{kind, pos}
		}
	}
	for _, f := range ms.Forces {
		add(f.Name, f.Kind, f.Pos)
	}
	for _, d := range ms.Drivers {
		add(d.Name, "driver", d.Pos)
	}
	for _, j := range ms.Joints {
		add(j.Name, j.Kind, j.Pos)
	}
	for _, c := range ms.Contacts {
		add(c.Name, "contact", c.Pos)
	}
	for _, b := range ms.Beams {
		add(b.Name, "beam", b.Pos)
	}
	for _, b := range ms.Bodies {
		add(b.Name, "body", b.Pos)
	}
	for _, d := range ms.Drives {
		kind := "coupler"
		if d.Kind != "" && d.Kind != "gear" && d.Kind != "belt" && d.Kind != "rack" && d.Kind != "screw" && d.Kind != "linear" {
			kind = d.Kind
		}
		add(d.Name, kind, d.Pos)
	}
}

// coordSource names velocity coordinate i: its name ("bob.cm.x") and
// the body or beam it belongs to, with the attribute its mass-matrix entry
// comes from (a rigid body's mass or inertia).
func (m *Model) coordSource(i int) (coord string, e spec.Expr, kind, name string) {
	coord = m.CoordNames()[i]
	kind, name, pos := m.where(strings.SplitN(coord, ".", 2)[0])
	e = spec.Expr{Pos: pos}
	if kind != "body" {
		return
	}
	for _, b := range m.spec.Bodies {
		if b.Name != name {
			continue
		}
		rot := strings.HasSuffix(coord, ".angle") || strings.HasSuffix(coord, ".rx") ||
			strings.HasSuffix(coord, ".ry") || strings.HasSuffix(coord, ".rz")
		switch {
		case !rot:
			e = b.Mass
		case b.Inertia.Given():
			e = b.Inertia
		default:
			e = b.InertiaTensor[0]
			e.Src = ""
			for k, x := range b.InertiaTensor {
				if x.Given() {
					if k > 0 {
						e.Src += ", "
					}
					e.Src += x.Src
				}
			}
			e.Field = "inertia"
		}
		if e.Pos == (spec.Pos{}) {
			e.Pos = b.Pos
		}
	}
	return
}

// rowSource names constraint row r: its joint or driver and position.
func (m *Model) rowSource(r int) (what string, pos spec.Pos) {
	kind, name, pos := m.where(m.joints[m.cons[m.rowCon[r]].owner].Name)
	return kind + " " + quote(name), pos
}

// nonFiniteCoord names the first non-finite coordinate of the state in
// core (positions, velocities, accelerations, multipliers) at time t: the
// body or joint it belongs to. It returns nil when the state is finite.
func (m *Model) nonFiniteCoord(core []float64, t float64) *spec.Error {
	nq, nv := m.nq, m.nv
	q, v, a := core[:nq], core[nq:nq+nv], core[nq+nv:nq+2*nv]
	lam := core[2*nq+4*nv : 2*nq+4*nv+m.nc]
	for i := 0; i < nv; i++ {
		x, what := math.NaN(), ""
		switch {
		case m.qOf[i] >= 0 && !finite(q[m.qOf[i]]):
			x, what = q[m.qOf[i]], "position"
		case m.qOf[i] < 0 && !finiteAll(q[m.rotOf(i).q:m.rotOf(i).q+4]):
			x, what = firstBadF(q[m.rotOf(i).q:m.rotOf(i).q+4]), "orientation"
		case !finite(v[i]):
			x, what = v[i], "velocity"
		case !finite(a[i]):
			x, what = a[i], "acceleration"
		default:
			continue
		}
		coord, _, kind, name := m.coordSource(i)
		_, _, pos := m.where(name)
		return &spec.Error{Pos: pos, Msg: kind + " " + quote(name) + ": its " + what + " " + coord + " is " + ftoa(x) +
			" at t = " + ftoa(t) + " s, and no force, driver, parameter or input is infinite or NaN there"}
	}
	for r, l := range lam {
		if !finite(l) {
			what, pos := m.rowSource(r)
			return &spec.Error{Pos: pos, Msg: what + ": its constraint force (Lagrange multiplier) is " + ftoa(l) +
				" at t = " + ftoa(t) + " s, and no force, driver, parameter or input is infinite or NaN there"}
		}
	}
	return nil
}

func firstBadF(x []float64) float64 {
	for _, v := range x {
		if !finite(v) {
			return v
		}
	}
	return 0
}

// maxDiagnosisSize bounds the size of the matrices scaleDiagnosis factors
// densely (O(n³) on failure only).
const maxDiagnosisSize = 1500

// scaleDiagnosis examines the matrix the linear solver last failed to
// factor (s.lin keeps its values). It factors a dense copy with the
// solver's test (pivots above linalg.PivotTol times the largest entry),
// and the same matrix equilibrated (rows and columns scaled to unit
// largest entries). When only the latter succeeds the matrix is not
// singular but too badly scaled for double precision, and the source of
// the entry out of scale is named: a body's mass or inertia, a force
// element's tangent, a joint's lever arm. When both fail the matrix is
// singular at this state: the source of its largest entry is named when
// that is far from order 1 (a stiffness of 1e100), else the element whose
// unknown found no pivot.
func (m *Model) scaleDiagnosis(s *State) *spec.Error {
	n := s.lin.N()
	if n == 0 || n > maxDiagnosisSize || n != m.nv+m.nc {
		return nil
	}
	a := make([]float64, n*n)
	big, bi, bj := 0.0, 0, 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x := s.lin.At(i, j)
			a[i*n+j] = x
			if !finite(x) {
				return nil // non-finite entries are not a matter of scale
			}
			if math.Abs(x) > big {
				big, bi, bj = math.Abs(x), i, j
			}
		}
	}
	// the dense solver factors the matrix as it is, the band solver
	// equilibrated (FactorScale)
	band := s.lin.Plan().Kind() == linalg.KindBand
	f := append([]float64(nil), a...)
	if band {
		d := make([]float64, n)
		s.lin.FactorScale(d)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				f[i*n+j] *= d[i] * d[j]
			}
		}
	}
	u, piv := pivotFail(f, n)
	if u < 0 {
		return nil
	}
	eq := append([]float64(nil), a...)
	equilibrate(eq, n)
	singular, _ := pivotFail(eq, n)
	t := " at t = " + ftoa(s.vars[slotTime]) + " s"
	lost := m.unknown(u)
	limit := ". The linear solver factors the matrix unscaled and accepts pivots above " + sprintf("%g", linalg.PivotTol) +
		" times its largest entry: the masses and inertias (kg, kg·m²) must stay within a factor of 1e14 of each other and, beside constraint Jacobian entries of order 1 (lever arms in m), those of constrained bodies within about 1e7 = √(1/" +
		sprintf("%g", linalg.PivotTol) + ") of 1"
	if band {
		limit = ". The linear solver scales the matrix's rows and columns symmetrically to a unit diagonal and accepts pivots above " +
			sprintf("%g", linalg.PivotTol) + " times the largest scaled entry: a coordinate's constraint Jacobian entries (lever arms in m) and force tangents must stay within about 1e7 = √(1/" +
			sprintf("%g", linalg.PivotTol) + ") of the square root of its own diagonal entry (its mass or inertia over βh², plus its stiffness)"
	}
	// a coordinate whose own entry is negligible, and farther from the
	// Jacobian's order 1 than the largest entry: its mass is too small
	// (the dense solver's failure; the band solver scales it up)
	if d := math.Abs(a[u*n+u]); !band && singular < 0 && u < m.nv && d <= 1e-7*big && math.Abs(math.Log(d)) > math.Abs(math.Log(big)) {
		coord, e, kind, name := m.coordSource(u)
		return &spec.Error{Pos: e.Pos, Field: e.Field, Msg: kind + " " + quote(name) + ": " + massText(e, coord, d) +
			" makes the iteration matrix too badly scaled to be factored at double precision" + t +
			": it is " + sprintf("%.3g", big/d) + " times smaller than the matrix's largest entry (" + ftoa(big) + ")" + limit}
	}
	if singular >= 0 && big < 1e7 {
		// singular whatever the scaling: say whose unknown has no pivot
		what, pos := m.unknownSource(u)
		return &spec.Error{Pos: pos, Msg: what + ": the iteration matrix is singular" + t + ": no pivot for " + lost +
			" (redundant or locked constraints, or a coordinate that neither mass nor constraint holds, at this configuration)"}
	}
	e := m.entrySource(s, bi, bj, big)
	if singular >= 0 {
		e.Msg += ", far from the order 1 of the constraint Jacobian, leaves the iteration matrix singular" + t + ": no pivot for " + lost
		return e
	}
	e.Msg += " makes the iteration matrix too badly scaled to be factored at double precision" + t +
		": it is the matrix's largest entry, and the pivot of " + lost + " falls to " + ftoa(piv) + limit
	return e
}

// entrySource names where entry (i, j) of the iteration matrix, of
// magnitude big, comes from: a joint's constraint Jacobian, a body's mass,
// or the force element with the largest tangent there. The message is
// left open for the caller to finish.
func (m *Model) entrySource(s *State, i, j int, big float64) *spec.Error {
	if i >= m.nv || j >= m.nv {
		what, pos := m.rowSource(max(i, j) - m.nv)
		return &spec.Error{Pos: pos, Msg: what + ": its constraint Jacobian entry " + sprintf("%.3g", big) + " (a lever arm, m)"}
	}
	if mij := m.massAt(i, j); math.Abs(mij) >= 0.5*big {
		coord, e, kind, name := m.coordSource(i)
		return &spec.Error{Pos: e.Pos, Field: e.Field, Msg: kind + " " + quote(name) + ": " + massText(e, coord, mij)}
	}
	best, bk := 0.0, -1
	for k, f := range m.forces {
		d := f.Dofs()
		ia, ib := -1, -1
		for x, c := range d {
			if c == i {
				ia = x
			}
			if c == j {
				ib = x
			}
		}
		if ia < 0 || ib < 0 {
			continue
		}
		nd := len(d)
		fl, kl, cl := make([]float64, nd), make([]float64, nd*nd), make([]float64, nd*nd)
		f.Eval(&s.x, fl, kl, cl)
		if x := math.Abs(kl[ia*nd+ib]) + math.Abs(cl[ia*nd+ib]); x > best {
			best, bk = x, k
		}
	}
	if bk >= 0 {
		kind, name, pos := m.where(m.fnames[bk])
		return &spec.Error{Pos: pos, Msg: kind + " " + quote(name) + ": its tangent at " + m.CoordNames()[i] + " (stiffness, damping: " + sprintf("%.3g", best) +
			", " + sprintf("%.3g", big) + " in the iteration matrix)"}
	}
	coord, e, kind, name := m.coordSource(i)
	return &spec.Error{Pos: e.Pos, Msg: kind + " " + quote(name) + ": the iteration matrix's entry at " + coord + " (" + sprintf("%.3g", big) + ")"}
}

// massText describes the attribute a mass-matrix entry comes from:
// "mass 1e+07 (the mass-matrix entry of bob.cm.x)".
func massText(e spec.Expr, coord string, v float64) string {
	if e.Field == "" || e.Src == "" {
		return "the mass-matrix entry of " + coord + ", " + ftoa(v) + ","
	}
	return e.Field + " " + e.Src + " (the mass-matrix entry of " + coord + ")"
}

// unknown names unknown u of the iteration matrix: a coordinate or a
// constraint row.
func (m *Model) unknown(u int) string {
	if u < m.nv {
		return "coordinate " + m.CoordNames()[u]
	}
	r := u - m.nv
	what, _ := m.rowSource(r)
	return "the constraint force of " + what + " (row " + itoa(r-m.jrowStart(r)) + ")"
}

// unknownSource returns the element unknown u belongs to and its position.
func (m *Model) unknownSource(u int) (string, spec.Pos) {
	if u < m.nv {
		_, e, kind, name := m.coordSource(u)
		return kind + " " + quote(name), e.Pos
	}
	return m.rowSource(u - m.nv)
}

// jrowStart returns the first row of the joint that row r belongs to.
func (m *Model) jrowStart(r int) int { return m.jrows[m.cons[m.rowCon[r]].owner].r0 }

// massAt returns the constant mass-matrix entry (i, j).
func (m *Model) massAt(i, j int) float64 {
	for k := m.mPtr[i]; k < m.mPtr[i+1]; k++ {
		if int(m.mCol[k]) == j {
			return m.mVal[k]
		}
	}
	return 0
}

// pivotFail runs Gaussian elimination with partial pivoting on a (n×n,
// row-major, overwritten) with the linear solver's test: it returns the
// first column whose pivot is at most linalg.PivotTol times the largest
// entry, and that pivot, or -1.
func pivotFail(a []float64, n int) (int, float64) {
	norm := 0.0
	for _, x := range a {
		norm = math.Max(norm, math.Abs(x))
	}
	tol := linalg.PivotTol * norm
	for k := 0; k < n; k++ {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(a[i*n+k]) > math.Abs(a[p*n+k]) {
				p = i
			}
		}
		if !(math.Abs(a[p*n+k]) > tol) {
			return k, a[p*n+k]
		}
		if p != k {
			for j := 0; j < n; j++ {
				a[p*n+j], a[k*n+j] = a[k*n+j], a[p*n+j]
			}
		}
		d := a[k*n+k]
		for i := k + 1; i < n; i++ {
			f := a[i*n+k] / d
			if f == 0 {
				continue
			}
			for j := k + 1; j < n; j++ {
				a[i*n+j] -= f * a[k*n+j]
			}
			a[i*n+k] = 0
		}
	}
	return -1, 0
}

// equilibrate scales the rows and columns of a (n×n) towards unit largest
// entries (Ruiz's iteration).
func equilibrate(a []float64, n int) {
	r, c := make([]float64, n), make([]float64, n)
	for it := 0; it < 20; it++ {
		clear(r)
		clear(c)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				x := math.Abs(a[i*n+j])
				r[i] = math.Max(r[i], x)
				c[j] = math.Max(c[j], x)
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if r[i] > 0 && c[j] > 0 {
					a[i*n+j] /= math.Sqrt(r[i]) * math.Sqrt(c[j])
				}
			}
		}
	}
}
