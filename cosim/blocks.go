package cosim

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
	"mbfmu/controller"
	"mbfmu/solver"
	mxml "mbfmu/xml"
)

// blockComp runs a controller (package controller: a PID, state feedback
// — an LQR's too —, state space, signal source or limiter) as a direct
// component. Its Spec is what a controller FMU of an SSP package holds.
type blockComp struct {
	comp
	r      *controller.Runner
	dt     float64 // sample time of a discrete system (0: any step)
	note   string  // design summary
	design *control.PlantLQR
}

func (c *blockComp) start(m *Master) error { c.r.Reset(); return nil }

func (c *blockComp) eval(t, dt float64) error { return c.r.Eval(t, dt, c.in, c.out) }

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

// newSpec starts the spec of controller element e: name, kind and the
// macro step and span of the run.
func newSpec(cfg *Config, e *Element, kind string) *controller.Spec {
	s := &cfg.Settings
	return &controller.Spec{Name: e.Name, Kind: kind, Step: s.Step, Start: s.Start, End: s.End,
		Min: math.Inf(-1), Max: math.Inf(1)}
}

// build makes the component of a spec; dt is its sample time.
func build(el *errList, e *Element, base comp, s *controller.Spec, dt float64, note string) component {
	r, err := s.Build()
	if err != nil {
		el.add(e.Line, "%v", err)
		return nil
	}
	base.ins, base.outs = specPorts(s.Inputs), specPorts(s.Outputs)
	return &blockComp{comp: base, r: r, dt: dt, note: note}
}

func specPorts(ps []controller.Port) []Port {
	out := make([]Port, len(ps))
	for i, p := range ps {
		out[i] = Port{Name: p.Name, Unit: p.Unit}
	}
	return out
}

func ctlPorts(names []string) []controller.Port {
	out := make([]controller.Port, len(names))
	for i, n := range names {
		out[i] = controller.Port{Name: n}
	}
	return out
}

func newBlockComp(el *errList, cfg *Config, e *Element) component {
	base := comp{name: e.Name, kind: e.Kind, line: e.Line, direct: true}
	switch e.Kind {
	case "pid":
		return newPIDComp(el, cfg, e, base)
	case "state-feedback":
		return newStateFeedbackComp(el, cfg, e, base)
	case "state-space":
		return newStateSpaceComp(el, cfg, e, base)
	case "signal":
		return newSignalComp(el, cfg, e, base)
	case "limit":
		return newLimitComp(el, cfg, e, base)
	}
	el.add(e.Line, "unknown component kind <%s>", e.Kind)
	return nil
}

func newPIDComp(el *errList, cfg *Config, e *Element, base comp) component {
	s := newSpec(cfg, e, controller.KindPID)
	s.Kp = e.num(el, "kp", mxml.Any, 0)
	s.Ki = e.num(el, "ki", mxml.Any, 0)
	s.Kd = e.num(el, "kd", mxml.Any, 0)
	s.Tf = e.num(el, "tf", mxml.Time, 0)
	s.N = e.num(el, "n", mxml.Dimensionless, 0)
	s.B = e.num(el, "b", mxml.Dimensionless, 0)
	s.C = e.num(el, "c", mxml.Dimensionless, 0)
	s.Tt = e.num(el, "tt", mxml.Time, 0)
	s.ExplicitWeights = e.has("b")
	if !e.has("b") {
		s.B = 1
	}
	s.Min, s.Max = limits(el, e)
	switch aw := e.str("anti-windup"); aw {
	case "", "back-calculation", "conditional", "none":
		s.AntiWindup = aw
	default:
		el.add(e.Line, "anti-windup %q: want back-calculation, conditional or none", aw)
	}
	s.Inputs = ctlPorts([]string{"r", "y"})
	s.Outputs = ctlPorts([]string{"u"})
	return build(el, e, base, s, 0, fmt.Sprintf("PID Kp = %g, Ki = %g, Kd = %g, output limits [%g, %g]", s.Kp, s.Ki, s.Kd, s.Min, s.Max))
}

func newStateFeedbackComp(el *errList, cfg *Config, e *Element, base comp) component {
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
	s := newSpec(cfg, e, controller.KindStateFeedback)
	s.K = controller.NewMatrix(k)
	if ref := e.matrix(el, "reference"); ref != nil {
		s.Xref = controller.Vector(flat(ref))
	}
	if ff := e.matrix(el, "feedforward"); ff != nil {
		s.Uff = controller.Vector(flat(ff))
	}
	s.Min, s.Max = limits(el, e)
	s.Inputs, s.Outputs = ctlPorts(ins), ctlPorts(outs)
	return build(el, e, base, s, 0, "")
}

func newStateSpaceComp(el *errList, cfg *Config, e *Element, base comp) component {
	A, B, C, D := e.matrix(el, "a"), e.matrix(el, "b"), e.matrix(el, "c"), e.matrix(el, "d")
	if A == nil || B == nil || C == nil {
		el.add(e.Line, "<state-space> needs a, b and c (rows separated by ;)")
		return nil
	}
	s := newSpec(cfg, e, controller.KindStateSpace)
	s.SA, s.SB, s.SC = controller.NewMatrix(A), controller.NewMatrix(B), controller.NewMatrix(C)
	if D != nil {
		s.SD = controller.NewMatrix(D)
	}
	dt := e.num(el, "dt", mxml.Time, 0)
	how := "discrete"
	if dt == 0 {
		// Continuous: zero-order-hold discretisation at the macro step.
		dt = cfg.Settings.Step
		how = "continuous, discretised (zero-order hold) at the macro step"
		a, b, err := control.C2D(dense(A), dense(B), dt)
		if err != nil {
			el.add(e.Line, "%v", err)
			return nil
		}
		s.SA, s.SB = controller.DenseMatrix(a), controller.DenseMatrix(b)
	}
	s.Dt = dt
	ins, outs := e.names("inputs"), e.names("outputs")
	if ins == nil {
		ins = defaultNames("u", len(B[0]))
	}
	if outs == nil {
		outs = defaultNames("y", len(C))
	}
	s.Inputs, s.Outputs = ctlPorts(ins), ctlPorts(outs)
	return build(el, e, base, s, dt, fmt.Sprintf("state space, %d states, %s, sample time %g s", len(A), how, dt))
}

// defaultNames returns prefix1 … prefixN (package control's defaults).
func defaultNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}

// newControllerFMUComp runs the controller of an mbfmu controller FMU
// (spec) as a controller component.
func newControllerFMUComp(el *errList, e *Element, s *controller.Spec) component {
	e.str("path")
	e.boolean(el, "logging", false)
	if len(e.Params) > 0 || len(e.Starts) > 0 {
		el.add(e.Line, "<fmu name=%q>: a controller FMU has no parameters or start values to set", e.Name)
		return nil
	}
	base := comp{name: e.Name, kind: e.Kind, line: e.Line, direct: true}
	dt := 0.0
	if s.Kind == controller.KindStateSpace {
		dt = s.Dt
	}
	return build(el, e, base, s, dt, fmt.Sprintf("controller FMU (%s), run as the controller", s.Kind))
}

// newSignalComp is a source: one output "y" = expression of time.
func newSignalComp(el *errList, cfg *Config, e *Element, base comp) component {
	src := e.str("expr")
	if src == "" {
		el.add(e.Line, "<signal> needs expr=\"…\" (an expression of time, SI units)")
		return nil
	}
	if _, err := controller.CompileSignal(src); err != nil {
		el.add(e.Line, "expr: %v", err)
		return nil
	}
	s := newSpec(cfg, e, controller.KindSignal)
	s.Expr = src
	s.Outputs = []controller.Port{{Name: "y", Unit: e.str("unit")}}
	return build(el, e, base, s, 0, "")
}

// newLimitComp limits a signal u to [min, max] and its rate of change: y.
func newLimitComp(el *errList, cfg *Config, e *Element, base comp) component {
	s := newSpec(cfg, e, controller.KindLimit)
	s.Min = e.num(el, "min", mxml.Any, math.Inf(-1))
	s.Max = e.num(el, "max", mxml.Any, math.Inf(1))
	if !(s.Min < s.Max) {
		el.add(e.Line, "<limit>: min %g must be below max %g", s.Min, s.Max)
		return nil
	}
	if e.has("rise") || e.has("fall") {
		s.Rise = e.num(el, "rise", mxml.Any, math.Inf(1))
		s.Fall = e.num(el, "fall", mxml.Any, s.Rise)
		if _, err := control.NewRateLimiter(s.Rise, s.Fall); err != nil {
			el.add(e.Line, "%v", err)
			return nil
		}
	}
	s.Inputs = ctlPorts([]string{"u"})
	s.Outputs = ctlPorts([]string{"y"})
	return build(el, e, base, s, 0, "")
}

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
	// u = u0 − K (y − y0): a state feedback with the reference y0 and the
	// feed-forward u0
	s := newSpec(cfg, e, controller.KindStateFeedback)
	s.K = controller.DenseMatrix(d.K)
	s.Xref = controller.Vector(pick(y0, lin.Outputs, d.Outputs))
	s.Uff = controller.Vector(pick(u0, lin.Inputs, d.Inputs))
	s.Min, s.Max = lo, hi
	pb := pc.base()
	for _, o := range d.Outputs {
		s.Inputs = append(s.Inputs, controller.Port{Name: o, Unit: pb.outs[pb.outputIndex(o)].Unit})
	}
	for _, i := range d.Inputs {
		s.Outputs = append(s.Outputs, controller.Port{Name: i, Unit: pb.ins[pb.inputIndex(i)].Unit})
	}
	c, _ := build(el, e, base, s, dt, lqrNote(d, pn)).(*blockComp)
	if c == nil {
		return nil
	}
	c.design = d
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
