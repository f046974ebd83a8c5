package solver

import (
	"math"

	"mbfmu/expr"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// The user's differential and algebraic variables (<state>, <variable>).
//
// A <variable> is a named expression: expressions that use its name read
// its value at the state they are evaluated at (a measure), so a force
// written with it gets the same tangent as one written out.
//
// The <state>s are one element with states of its own (mech.Stateful),
// condensed as a motor's current is: at an evaluation time t after the
// last accepted step t₀ the states are the solution of the variable-step
// BDF2 formula (backward Euler on the first step after the start or a
// static equilibrium)
//
//	e − a₀ e₀ − a₁ e₋₁ = b (t − t₀) f(e, x)
//
// for the configuration x at t, solved by Newton's method on the states
// alone. The formula is L-stable and of second order, so stiff state
// equations (a hydraulic chamber) are safe at the mechanism's step, and a
// force that reads a state is a function of the configuration at t with
// the states' dependence on it in its (finite-difference) tangent.

// userVars holds a model's user states and variables.
type userVars struct {
	m      *Model
	states []spec.State
	vars   []spec.Variable
	sIdx   map[string]int
	vIdx   map[string]int
	rates  []*expr.Program // ẋ = f(e, x), compiled with the states as trial values
	init   []float64
	scale  []float64       // the size of each state (convergence)
	val    []*expr.Program // each variable, reading solved states
	trial  []*expr.Program // each variable, reading trial states
	vstate []int8          // variable compilation: 0 not yet, 1 under way, 2 done
	slot   int             // in Ctx.ES: t₀, t₋₁, history?, e₀ (n), e₋₁ (n)
	key    int             // in Ctx.UW: where the key of the last solve starts (to a flag at the end)
	ids    map[[2]int]int  // measure id of (kind, index)
	ready  bool            // the elements are built: variables may be compiled
}

// The kinds of user measures.
const (
	umState    = iota // a state's solved value
	umTrial           // a state's trial value (inside the solve)
	umVar             // a variable, with solved states
	umVarTrial        // a variable, with trial states
	umZero            // a variable that did not compile (its error is reported): 0
)

// userMeasure is a measure that reads a user state or variable.
type userMeasure struct {
	u    *userVars
	kind int
	k    int
}

// Eval returns the measured value at x.
func (um *userMeasure) Eval(x *mech.Ctx) float64 {
	u := um.u
	switch um.kind {
	case umState:
		return u.solve(x)[um.k]
	case umTrial:
		return x.UW[um.k]
	case umVar:
		return u.val[um.k].Eval(x.Vars, x)
	case umVarTrial:
		return u.trial[um.k].Eval(x.Vars, x)
	default:
		return 0
	}
}

// userResolver resolves the names of a run-time expression, the user's
// states and variables among them (as solved values, or trial values
// inside the states' own equations).
type userResolver struct {
	runResolver
	trial bool
}

// NameMeasure resolves a user state or variable (expr.NameMeasurer).
func (r userResolver) NameMeasure(name string) (int, bool, error) {
	u := r.c.user
	if u == nil {
		return 0, false, nil
	}
	if k, ok := u.sIdx[name]; ok {
		kind := umState
		if r.trial {
			kind = umTrial
		}
		return u.measureID(kind, k), true, nil
	}
	k, ok := u.vIdx[name]
	if !ok {
		return 0, false, nil
	}
	kind := umVar
	if r.trial {
		kind = umVarTrial
	}
	if u.ready {
		if err := r.c.compileVariable(k, r.trial); err != nil {
			return 0, true, err
		}
		if (r.trial && u.trial[k] == nil) || (!r.trial && u.val[k] == nil) {
			// its own error is reported at it; read it as 0 here
			return u.measureID(umZero, k), true, nil
		}
	}
	return u.measureID(kind, k), true, nil
}

// measureID returns the measure id of a user state or variable.
func (u *userVars) measureID(kind, k int) int {
	key := [2]int{kind, k}
	if id, ok := u.ids[key]; ok {
		return id
	}
	m := u.m
	m.measures = append(m.measures, measure{m: m, joint: -1, user: &userMeasure{u: u, kind: kind, k: k}})
	id := len(m.measures) - 1
	u.ids[key] = id
	return id
}

// declareUser registers the user states and variables (before the
// elements, whose expressions may use them).
func (c *compiler) declareUser() {
	s := c.spec
	if len(s.States) == 0 && len(s.Variables) == 0 {
		return
	}
	u := &userVars{m: c.m, states: s.States, vars: s.Variables, sIdx: map[string]int{}, vIdx: map[string]int{}, ids: map[[2]int]int{}}
	check := func(name string, pos spec.Pos, what string) bool {
		_, p := c.pindex[name]
		_, i := c.iindex[name]
		_, t := c.tables[name]
		_, s := u.sIdx[name]
		_, v := u.vIdx[name]
		switch {
		case reservedVar(name):
			c.errf(pos, "name", "%s name %q is reserved in expressions (pi, e, time, t): choose another name", what, name)
		case !mech.ValidName(name):
			c.errf(pos, "name", "%s name %q is not a valid identifier", what, name)
		case p || i || t || s || v:
			c.errf(pos, "name", "%s %q has the name of another parameter, input, table, state or variable", what, name)
		default:
			return true
		}
		return false
	}
	for k, st := range s.States {
		if check(st.Name, st.Pos, "state") {
			u.sIdx[st.Name] = k
		}
	}
	for k, v := range s.Variables {
		if check(v.Name, v.Pos, "variable") {
			u.vIdx[v.Name] = k
		}
	}
	c.user = u
	if n := len(s.States); n > 0 {
		u.slot = c.StateSlots(u, 3+2*n)
	}
}

// compileUser compiles the user states' equations and the variables (after
// the elements: their measures may name any marker or joint).
func (c *compiler) compileUser() {
	u := c.user
	if u == nil {
		return
	}
	u.ready = true
	if n := len(u.states); n > 0 {
		// t, r, out, the Jacobian, then the key of the last solve: its
		// variables, positions, velocities and stored states, and a flag
		m := c.m
		u.key = 3*n + n*n
		// the key: variables, positions, velocities, stored states, and
		// the multipliers (added with the state: uworkFor), then the flag
		m.uwork = u.key + m.vars + m.nq + m.nv + 3 + 2*n + 1
	}
	u.val = make([]*expr.Program, len(u.vars))
	u.trial = make([]*expr.Program, len(u.vars))
	u.vstate = make([]int8, 2*len(u.vars))
	for k := range u.vars {
		for _, trial := range []bool{false, true} {
			c.compileVariable(k, trial)
		}
	}
	n := len(u.states)
	u.rates = make([]*expr.Program, n)
	u.init = make([]float64, n)
	u.scale = make([]float64, n)
	for k, st := range u.states {
		u.init[k] = c.constExpr(st.Initial, 0)
		// the size of the state, for convergence and difference steps
		// (a state starting at 0 is taken as of size 1)
		u.scale[k] = math.Max(math.Abs(u.init[k]), 1)
		p, err := expr.Compile(st.Rate.Src, userResolver{runResolver{c}, true})
		if err != nil {
			c.errf(st.Rate.Pos, st.Rate.Field, "%s in %q", exprMsg(err), st.Rate.Src)
			continue
		}
		u.rates[k] = p
	}
}

// uworkFor is the size of Ctx.UW for a state with nlam multipliers (the
// user states' solve key holds them).
func (m *Model) uworkFor(nlam int) int {
	if m.uwork == 0 {
		return 0
	}
	return m.uwork + nlam
}

// errCycle reports a variable defined through itself.
type errCycle struct{ name string }

func (e errCycle) Error() string {
	return "variable " + e.name + " is defined through itself (a <variable> may use other variables, but not in a cycle)"
}

// compileVariable compiles variable k (reading solved or trial states),
// the variables it uses first. Its own errors are reported at its own
// position (once: in the solved-state compile); the error returned is a
// cycle through it, which the variable that closes the cycle reports.
func (c *compiler) compileVariable(k int, trial bool) error {
	u := c.user
	at := k
	if trial {
		at += len(u.vars)
	}
	switch u.vstate[at] {
	case 1:
		return errCycle{u.vars[k].Name}
	case 2:
		return nil
	}
	u.vstate[at] = 1
	v := u.vars[k]
	p, err := expr.Compile(v.Value.Src, userResolver{runResolver{c}, trial})
	u.vstate[at] = 2
	if err != nil {
		var ce errCycle
		if e, ok := err.(*expr.Error); ok {
			ce, ok = e.Err.(errCycle)
			if ok && ce.name != v.Name {
				return ce // not closed here: the variable it names reports it
			}
		}
		if !trial {
			c.errf(v.Value.Pos, v.Value.Field, "%s in %q", exprMsg(err), v.Value.Src)
		}
		return nil
	}
	if trial {
		u.trial[k] = p
	} else {
		u.val[k] = p
	}
	return nil
}

// States lists the user states (mech.Stateful).
func (u *userVars) States() []mech.StateInfo {
	out := make([]mech.StateInfo, len(u.states))
	for k, st := range u.states {
		out[k] = mech.StateInfo{Slot: u.slot + 3 + k, Name: st.Name, Unit: st.Unit}
	}
	return out
}

// Rates writes the states' rates at x, the states as stored
// (mech.Stateful).
func (u *userVars) Rates(x *mech.Ctx, dst []float64) {
	n := len(u.states)
	copy(x.UW[:n], x.ES[u.slot+3:u.slot+3+n])
	u.rateAt(x, dst)
}

// rateAt writes f(e, x) for the trial states in x.UW[:n].
func (u *userVars) rateAt(x *mech.Ctx, dst []float64) {
	for k, p := range u.rates {
		dst[k] = p.Eval(x.Vars, x)
	}
}

// Commit stores the states at x (mech.Stateful).
func (u *userVars) Commit(x *mech.Ctx, mode mech.CommitMode) {
	n := len(u.states)
	es := x.ES[u.slot : u.slot+3+2*n]
	e0, e1 := es[3:3+n], es[3+n:]
	switch mode {
	case mech.CommitInit:
		copy(e0, u.init)
		es[2] = 0
	case mech.CommitSteady:
		u.steady(x, e0)
		es[2] = 0
	default:
		e := u.solve(x)
		copy(e1, e0)
		copy(e0, e[:n])
		es[1] = es[0]
		es[2] = 1
	}
	es[0] = x.Time()
}

// steady sets the states to a root of f(e, x) = 0 near e by damped
// Gauss–Newton steps, (JᵀJ + μI) Δ = −Jᵀf: a state whose rate does not
// depend on the states (a closed chamber) keeps its value, the others go
// to their rest.
func (u *userVars) steady(x *mech.Ctx, e []float64) {
	n := len(u.states)
	w := x.UW
	t, r, jac := w[:n], w[n:2*n], w[3*n:3*n+n*n]
	copy(t, e)
	jtj := make([]float64, n*n) // (Static is no hot path)
	g := make([]float64, n)
	for it := 0; it < 100; it++ {
		u.rateAt(x, r)
		if maxAbs(r) == 0 {
			break
		}
		u.jacobian(x, r, jac, 0)
		big := 0.0
		for a := 0; a < n; a++ {
			g[a] = 0
			for b := 0; b < n; b++ {
				v := 0.0
				for k := 0; k < n; k++ {
					v += jac[k*n+a] * jac[k*n+b]
				}
				jtj[a*n+b] = v
				big = math.Max(big, v)
			}
			for k := 0; k < n; k++ {
				g[a] -= jac[k*n+a] * r[k]
			}
		}
		if big == 0 {
			break
		}
		for a := 0; a < n; a++ {
			jtj[a*n+a] += 1e-14 * big
		}
		if !solveSmall(jtj, g, n) {
			break
		}
		done := true
		for k := range t {
			t[k] += g[k]
			if math.Abs(g[k]) > 1e-12*(math.Abs(t[k])+u.scale[k]) {
				done = false
			}
		}
		if done {
			break
		}
	}
	for k := range t {
		if finite(t[k]) {
			e[k] = t[k]
		}
	}
}

// solve returns the states at x (in x.UW[2n:3n]).
func (u *userVars) solve(x *mech.Ctx) []float64 {
	n := len(u.states)
	es := x.ES[u.slot : u.slot+3+2*n]
	e0, e1 := es[3:3+n], es[3+n:]
	w := x.UW
	t, r, out, jac := w[:n], w[n:2*n], w[2*n:3*n], w[3*n:3*n+n*n]
	dt := x.Time() - es[0]
	if dt == 0 {
		copy(out, e0)
		return out
	}
	// the states read by several expressions at one configuration are
	// solved once
	key, valid := w[u.key:len(w)-1], &w[len(w)-1]
	if *valid != 0 && u.sameKey(x, key, es) {
		return out
	}
	// e − a₀ e₀ − a₁ e₋₁ − b dt f(e) = 0
	a0, a1, b := 1.0, 0.0, 1.0
	if hp := es[0] - es[1]; es[2] != 0 && dt > 0 && hp > 0 {
		om := dt / hp
		a0 = (1 + om) * (1 + om) / (1 + 2*om)
		a1 = -om * om / (1 + 2*om)
		b = (1 + om) / (1 + 2*om)
	}
	copy(t, e0)
	for it := 0; it < 50; it++ {
		u.rateAt(x, r)
		for k := range r {
			r[k] = -(t[k] - a0*e0[k] - a1*e1[k] - b*dt*r[k])
		}
		u.jacobian(x, r, jac, b*dt)
		if !solveSmall(jac, r, n) {
			break
		}
		done := true
		for k := range t {
			t[k] += r[k]
			if math.Abs(r[k]) > 1e-13*(math.Abs(t[k])+u.scale[k]) {
				done = false
			}
		}
		if done {
			break
		}
	}
	copy(out, t)
	u.storeKey(x, key, es)
	*valid = 1
	return out
}

// sameKey reports whether x and the stored states are those of key.
func (u *userVars) sameKey(x *mech.Ctx, key, es []float64) bool {
	for _, part := range [][]float64{x.Vars, x.Q, x.V, es, x.Lam} {
		for i, v := range part {
			if math.Float64bits(key[i]) != math.Float64bits(v) {
				return false
			}
		}
		key = key[len(part):]
	}
	return true
}

// storeKey stores x and the stored states as key.
func (u *userVars) storeKey(x *mech.Ctx, key, es []float64) {
	for _, part := range [][]float64{x.Vars, x.Q, x.V, es, x.Lam} {
		copy(key, part)
		key = key[len(part):]
	}
}

// jacobian writes, for h ≠ 0, I − h ∂f/∂e, and for h = 0, ∂f/∂e at the
// trial states (finite differences; r is not changed, out is n × n).
func (u *userVars) jacobian(x *mech.Ctx, r, out []float64, h float64) {
	n := len(u.states)
	t := x.UW[:n]
	fp := x.UW[2*n : 3*n]
	for k := 0; k < n; k++ {
		tk := t[k]
		d := 1e-7 * (math.Abs(tk) + u.scale[k])
		t[k] = tk + d
		u.rateAt(x, fp)
		t[k] = tk - d
		for i := 0; i < n; i++ {
			out[i*n+k] = fp[i]
		}
		u.rateAt(x, fp)
		t[k] = tk
		for i := 0; i < n; i++ {
			dfd := (out[i*n+k] - fp[i]) / (2 * d)
			if h == 0 {
				out[i*n+k] = dfd
				continue
			}
			out[i*n+k] = -h * dfd
			if i == k {
				out[i*n+k]++
			}
		}
	}
}

// solveSmall solves a x = b in place (a n × n, row-major; b becomes x) by
// Gaussian elimination with partial pivoting; false if a is singular.
func solveSmall(a, b []float64, n int) bool {
	for c := 0; c < n; c++ {
		p := c
		for i := c + 1; i < n; i++ {
			if math.Abs(a[i*n+c]) > math.Abs(a[p*n+c]) {
				p = i
			}
		}
		if a[p*n+c] == 0 || !finite(a[p*n+c]) {
			return false
		}
		if p != c {
			for j := 0; j < n; j++ {
				a[c*n+j], a[p*n+j] = a[p*n+j], a[c*n+j]
			}
			b[c], b[p] = b[p], b[c]
		}
		for i := c + 1; i < n; i++ {
			f := a[i*n+c] / a[c*n+c]
			for j := c; j < n; j++ {
				a[i*n+j] -= f * a[c*n+j]
			}
			b[i] -= f * b[c]
		}
	}
	for c := n - 1; c >= 0; c-- {
		s := b[c]
		for j := c + 1; j < n; j++ {
			s -= a[c*n+j] * b[j]
		}
		b[c] = s / a[c*n+c]
	}
	return true
}
