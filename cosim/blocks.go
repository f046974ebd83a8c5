package cosim

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
	"mbfmu/expr"
	"mbfmu/solver"
	mxml "mbfmu/xml"
)

// blockComp runs a controller of package control (a control.Block) as a
// direct component, with optional output limits.
type blockComp struct {
	comp
	b      control.Block
	lo, hi float64 // output limits (±Inf: none)
	dt     float64 // sample time of a discrete system (0: any step)
	note   string  // design summary
	design *control.PlantLQR
}

func (c *blockComp) start(m *Master) error { c.b.Reset(); return nil }

func (c *blockComp) eval(t, dt float64) error {
	if err := c.b.Step(t, dt, c.in, c.out); err != nil {
		return err
	}
	for i, v := range c.out {
		c.out[i] = control.Saturate(v, c.lo, c.hi)
	}
	return nil
}

func (c *blockComp) step(t, h float64) error { return nil }
func (c *blockComp) close() error            { return nil }

func (c *blockComp) needsStep() (float64, bool) { return c.dt, c.dt > 0 }

// limits reads umin/umax (either may be absent).
func limits(el *errList, e *Element) (lo, hi float64) {
	lo = e.num(el, "umin", mxml.Any, math.Inf(-1))
	hi = e.num(el, "umax", mxml.Any, math.Inf(1))
	if !(lo < hi) {
		el.add(e.Line, "umin %g must be below umax %g", lo, hi)
	}
	return lo, hi
}

func newBlockComp(el *errList, cfg *Config, e *Element) component {
	base := comp{name: e.Name, kind: e.Kind, line: e.Line, direct: true}
	switch e.Kind {
	case "pid":
		return newPIDComp(el, e, base)
	case "state-feedback":
		return newStateFeedbackComp(el, e, base)
	case "state-space":
		return newStateSpaceComp(el, cfg, e, base)
	case "signal":
		return newSignalComp(el, e, base)
	case "limit":
		return newLimitComp(el, e, base)
	}
	el.add(e.Line, "unknown component kind <%s>", e.Kind)
	return nil
}

func newPIDComp(el *errList, e *Element, base comp) component {
	pc := control.PIDConfig{
		Kp: e.num(el, "kp", mxml.Any, 0),
		Ki: e.num(el, "ki", mxml.Any, 0),
		Kd: e.num(el, "kd", mxml.Any, 0),
		Tf: e.num(el, "tf", mxml.Time, 0),
		N:  e.num(el, "n", mxml.Dimensionless, 0),
		B:  e.num(el, "b", mxml.Dimensionless, 0),
		C:  e.num(el, "c", mxml.Dimensionless, 0),
		Tt: e.num(el, "tt", mxml.Time, 0),
	}
	pc.ExplicitWeights = e.has("b")
	if !e.has("b") {
		pc.B = 1
	}
	lo, hi := limits(el, e)
	if !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		pc.Umin, pc.Umax = lo, hi
	}
	switch aw := e.str("anti-windup"); aw {
	case "", "back-calculation":
		pc.AntiWindup = control.AntiWindupBackCalculation
	case "conditional":
		pc.AntiWindup = control.AntiWindupConditional
	case "none":
		pc.AntiWindup = control.AntiWindupNone
	default:
		el.add(e.Line, "anti-windup %q: want back-calculation, conditional or none", aw)
	}
	b, err := control.NewPIDBlock(pc)
	if err != nil {
		el.add(e.Line, "%v", err)
		return nil
	}
	base.ins = []Port{{Name: "r"}, {Name: "y"}}
	base.outs = []Port{{Name: "u"}}
	return &blockComp{comp: base, b: b, lo: math.Inf(-1), hi: math.Inf(1),
		note: fmt.Sprintf("PID Kp = %g, Ki = %g, Kd = %g, output limits [%g, %g]", pc.Kp, pc.Ki, pc.Kd, lo, hi)}
}

func newStateFeedbackComp(el *errList, e *Element, base comp) component {
	k := e.matrix(el, "k")
	ins, outs := e.names("inputs"), e.names("outputs")
	if k == nil {
		el.add(e.Line, "<state-feedback> needs k (the gain: m rows of n entries, rows separated by ;)")
		return nil
	}
	m, n := len(k), len(k[0])
	if len(ins) != n {
		el.add(e.Line, "<state-feedback>: k has %d columns but %d inputs are named (inputs=\"…\", one per state)", n, len(ins))
		return nil
	}
	if outs == nil {
		outs = []string{"u"}
		if m > 1 {
			outs = nil
			for i := 1; i <= m; i++ {
				outs = append(outs, fmt.Sprintf("u%d", i))
			}
		}
	}
	sf, err := control.NewStateFeedback(control.StateFeedbackConfig{K: dense(k), StateNames: ins, OutputNames: outs})
	if err != nil {
		el.add(e.Line, "%v", err)
		return nil
	}
	ref, ff := e.matrix(el, "reference"), e.matrix(el, "feedforward")
	var xr, uf []float64
	if ref != nil {
		xr = flat(ref)
	}
	if ff != nil {
		uf = flat(ff)
	}
	if err := sf.SetReference(xr, uf); err != nil {
		el.add(e.Line, "%v", err)
		return nil
	}
	lo, hi := limits(el, e)
	base.ins, base.outs = ports(ins), ports(outs)
	return &blockComp{comp: base, b: sf, lo: lo, hi: hi}
}

func newStateSpaceComp(el *errList, cfg *Config, e *Element, base comp) component {
	A, B, C, D := e.matrix(el, "a"), e.matrix(el, "b"), e.matrix(el, "c"), e.matrix(el, "d")
	if A == nil || B == nil || C == nil {
		el.add(e.Line, "<state-space> needs a, b and c (rows separated by ;)")
		return nil
	}
	var Dm mat.Matrix
	if D != nil {
		Dm = dense(D)
	}
	Ad, Bd := mat.Matrix(dense(A)), mat.Matrix(dense(B))
	dt := e.num(el, "dt", mxml.Time, 0)
	how := "discrete"
	if dt == 0 {
		// Continuous: zero-order-hold discretisation at the macro step.
		dt = cfg.Settings.Step
		how = "continuous, discretised (zero-order hold) at the macro step"
		a, b, err := control.C2D(Ad, Bd, dt)
		if err != nil {
			el.add(e.Line, "%v", err)
			return nil
		}
		Ad, Bd = a, b
	}
	ss, err := control.NewDiscreteSS(Ad, Bd, dense(C), Dm, dt)
	if err != nil {
		el.add(e.Line, "%v", err)
		return nil
	}
	b, err := control.NewSSBlock(ss, e.names("inputs"), e.names("outputs"))
	if err != nil {
		el.add(e.Line, "%v", err)
		return nil
	}
	base.ins, base.outs = ports(b.Inputs()), ports(b.Outputs())
	n, _, _ := ss.Dims()
	return &blockComp{comp: base, b: b, lo: math.Inf(-1), hi: math.Inf(1), dt: dt,
		note: fmt.Sprintf("state space, %d states, %s, sample time %g s", n, how, dt)}
}

// signalComp is a source: one output "y" = expression of time.
type signalComp struct {
	comp
	p    *expr.Program
	vars []float64
}

// timeResolver resolves only the name "time" (slot 0).
type timeResolver struct{}

func (timeResolver) Var(name string) (int, bool) { return 0, name == "time" }
func (timeResolver) Measure(fn string, args []string) (int, bool, error) {
	return 0, false, nil
}
func (timeResolver) Table(name string) (*expr.Table, bool) { return nil, false }

// CompileSignal compiles a <signal> expression: a function of time (the
// name "time"), in SI units.
func CompileSignal(src string) (*expr.Program, error) { return expr.Compile(src, timeResolver{}) }

func newSignalComp(el *errList, e *Element, base comp) component {
	src := e.str("expr")
	if src == "" {
		el.add(e.Line, "<signal> needs expr=\"…\" (an expression of time, SI units)")
		return nil
	}
	p, err := CompileSignal(src)
	if err != nil {
		el.add(e.Line, "expr: %v", err)
		return nil
	}
	base.outs = []Port{{Name: "y", Unit: e.str("unit")}}
	return &signalComp{comp: base, p: p, vars: make([]float64, 1)}
}

func (c *signalComp) start(m *Master) error { return nil }
func (c *signalComp) eval(t, dt float64) error {
	c.vars[0] = t
	v := c.p.Eval(c.vars, nil)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("signal %q is %v at t = %g s", c.p.Src(), v, t)
	}
	c.out[0] = v
	return nil
}
func (c *signalComp) step(t, h float64) error { return nil }
func (c *signalComp) close() error            { return nil }

// limitComp limits a signal u to [min, max] and its rate of change: y.
type limitComp struct {
	comp
	lo, hi float64
	rl     *control.RateLimiter
}

func newLimitComp(el *errList, e *Element, base comp) component {
	c := &limitComp{comp: base}
	c.lo = e.num(el, "min", mxml.Any, math.Inf(-1))
	c.hi = e.num(el, "max", mxml.Any, math.Inf(1))
	if !(c.lo < c.hi) {
		el.add(e.Line, "<limit>: min %g must be below max %g", c.lo, c.hi)
	}
	if e.has("rise") || e.has("fall") {
		rise := e.num(el, "rise", mxml.Any, math.Inf(1))
		fall := e.num(el, "fall", mxml.Any, rise)
		rl, err := control.NewRateLimiter(rise, fall)
		if err != nil {
			el.add(e.Line, "%v", err)
			return nil
		}
		c.rl = rl
	}
	c.ins, c.outs = []Port{{Name: "u"}}, []Port{{Name: "y"}}
	return c
}

func (c *limitComp) start(m *Master) error {
	if c.rl != nil {
		c.rl.Reset()
	}
	return nil
}
func (c *limitComp) eval(t, dt float64) error {
	v := control.Saturate(c.in[0], c.lo, c.hi)
	if c.rl != nil {
		v = c.rl.Step(v, dt)
		if math.IsNaN(v) {
			return fmt.Errorf("non-finite input %v", c.in[0])
		}
	}
	c.out[0] = v
	return nil
}
func (c *limitComp) step(t, h float64) error { return nil }
func (c *limitComp) close() error            { return nil }

// linearizer is a plant whose linear model the engine can compute.
type linearizer interface {
	component
	linearize(over map[string]float64) (lin *solver.Linear, y0, u0 []float64, err error)
}

// newLQRComp designs an LQR controller from the linearisation of its plant
// about the plant's initial state (with design-parameters overriding the
// plant's parameters, e.g. to start upright) and runs it as state feedback
// on the plant's outputs: u = u0 − K·(y − y0).
func newLQRComp(el *errList, cfg *Config, e *Element, built map[string]component) component {
	base := comp{name: e.Name, kind: e.Kind, line: e.Line, direct: true}
	pn := e.str("plant")
	pc, ok := built[pn]
	if pn == "" || !ok {
		el.add(e.Line, "<lqr> needs plant=\"…\" naming a <model> or an mbfmu <fmu> component (got %q)", pn)
		return nil
	}
	lp, ok := pc.(linearizer)
	if !ok {
		el.add(e.Line, "<lqr>: plant %q is a %s: only a <model> or an mbfmu <fmu> can be linearised", pn, pc.base().kind)
		return nil
	}
	over := e.assignments(el, "design-parameters")
	ins, outs := e.names("inputs"), e.names("outputs")
	q, r := e.matrix(el, "q"), e.matrix(el, "r")
	discrete := e.boolean(el, "discrete", false)
	lo, hi := limits(el, e)
	if q == nil || r == nil {
		el.add(e.Line, "<lqr> needs q (weights of the measured outputs) and r (weights of the inputs)")
		return nil
	}
	lin, y0, u0, err := lp.linearize(over)
	if err != nil {
		el.add(e.Line, "<lqr>: linearising %s: %v", pn, err)
		return nil
	}
	if outs == nil {
		outs = lin.Outputs
	}
	if ins == nil {
		ins = lin.Inputs
	}
	Q, err := weight("q", q, len(outs))
	if err != nil {
		el.add(e.Line, "<lqr>: %v", err)
		return nil
	}
	R, err := weight("r", r, len(ins))
	if err != nil {
		el.add(e.Line, "<lqr>: %v", err)
		return nil
	}
	dc := control.PlantLQRConfig{Inputs: ins, Outputs: outs, Q: Q, R: R}
	dt := 0.0
	if discrete {
		if cfg.Settings.Variable {
			el.add(e.Line, "<lqr discrete=\"true\"> needs a fixed macro step")
			return nil
		}
		dt = cfg.Settings.Step
		dc.Dt = dt
	}
	d, err := control.DesignPlantLQR(lin, dc)
	if err != nil {
		el.add(e.Line, "<lqr>: %v", err)
		return nil
	}
	ysel := pick(y0, lin.Outputs, d.Outputs)
	usel := pick(u0, lin.Inputs, d.Inputs)
	sf, err := d.Block(ysel, usel)
	if err != nil {
		el.add(e.Line, "<lqr>: %v", err)
		return nil
	}
	pb := pc.base()
	for _, o := range d.Outputs {
		base.ins = append(base.ins, Port{Name: o, Unit: pb.outs[pb.outputIndex(o)].Unit})
	}
	for _, i := range d.Inputs {
		base.outs = append(base.outs, Port{Name: i, Unit: pb.ins[pb.inputIndex(i)].Unit})
	}
	c := &blockComp{comp: base, b: sf, lo: lo, hi: hi, dt: dt, design: d}
	c.note = lqrNote(d, pn)
	return c
}

// lqrNote summarises a design: gain and closed-loop poles.
func lqrNote(d *control.PlantLQR, plant string) string {
	var b strings.Builder
	kind := "continuous-time"
	if d.Dt > 0 {
		kind = fmt.Sprintf("discrete-time (%g s)", d.Dt)
	}
	fmt.Fprintf(&b, "LQR (%s) on the linearisation of %s: (%s) = (%s)0 − K·(y − y0), y = (%s), K = [",
		kind, plant, strings.Join(d.Inputs, ", "), strings.Join(d.Inputs, ", "), strings.Join(d.Outputs, ", "))
	r, c := d.K.Dims()
	for i := 0; i < r; i++ {
		if i > 0 {
			b.WriteString("; ")
		}
		for j := 0; j < c; j++ {
			if j > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%.5g", d.K.At(i, j))
		}
	}
	b.WriteString("];")
	b.WriteString(" closed-loop poles")
	for _, p := range d.Poles {
		if d.Dt > 0 && p != 0 {
			p = cmplx.Log(p) / complex(d.Dt, 0) // as continuous-time equivalents
		}
		if imag(p) < 0 {
			continue
		}
		if imag(p) == 0 {
			fmt.Fprintf(&b, " %.4g", real(p))
		} else {
			fmt.Fprintf(&b, " %.4g±%.4gi", real(p), imag(p))
		}
	}
	b.WriteString(" 1/s")
	return b.String()
}

// weight turns q or r into a matrix: one row of n entries is a diagonal,
// n rows of n entries a full matrix.
func weight(name string, w [][]float64, n int) (*mat.Dense, error) {
	switch {
	case len(w) == 1 && len(w[0]) == n:
		d := mat.NewDense(n, n, nil)
		for i, v := range w[0] {
			d.Set(i, i, v)
		}
		return d, nil
	case len(w) == n && len(w[0]) == n:
		return dense(w), nil
	}
	return nil, fmt.Errorf("%s: give %d diagonal entries or a %d×%d matrix (rows separated by ;)", name, n, n, n)
}

func pick(vals []float64, names, want []string) []float64 {
	out := make([]float64, len(want))
	for i, w := range want {
		for j, n := range names {
			if n == w {
				out[i] = vals[j]
			}
		}
	}
	return out
}

func dense(rows [][]float64) *mat.Dense {
	return mat.NewDense(len(rows), len(rows[0]), flat(rows))
}

func flat(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func ports(names []string) []Port {
	p := make([]Port, len(names))
	for i, n := range names {
		p[i] = Port{Name: n}
	}
	return p
}

// Notes returns one line per component with a design summary (LQR gains
// and closed-loop poles, PID gains, state-space discretisation).
func (m *Master) Notes() []string {
	var out []string
	for _, c := range m.comps {
		if b, ok := c.(*blockComp); ok && b.note != "" {
			out = append(out, b.name+": "+b.note)
		}
	}
	return out
}
