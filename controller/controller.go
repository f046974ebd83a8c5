// Package controller holds the controllers of a co-simulation resolved to
// numbers (Spec): a PID, a state feedback (an LQR's too), a discrete state
// space, a signal source or a limiter, with its ports and the macro step.
// `mbfmu cosim` builds its controller components from Specs (package
// cosim reads its own file syntax into them), and a controller FMU carries
// one as resources/model.xml with the root <controller> (package fmu runs
// it), so both run the same Runner.
package controller

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
	"mbfmu/expr"
)

// The kinds of controller.
const (
	KindPID           = "pid"
	KindStateFeedback = "state-feedback"
	KindStateSpace    = "state-space"
	KindSignal        = "signal"
	KindLimit         = "limit"
)

// Port is an input or output of a controller.
type Port struct {
	Name string `xml:"name,attr"`
	Unit string `xml:"unit,attr,omitempty"`
}

// Matrix is a dense matrix, row-major; in XML its values are the element's
// text, each written exactly (shortest round-trip form).
type Matrix struct {
	Rows   int    `xml:"rows,attr"`
	Cols   int    `xml:"cols,attr"`
	Values string `xml:",chardata"`
}

// NewMatrix makes a Matrix of rows.
func NewMatrix(rows [][]float64) *Matrix {
	if len(rows) == 0 {
		return nil
	}
	var v []float64
	for _, r := range rows {
		v = append(v, r...)
	}
	return &Matrix{Rows: len(rows), Cols: len(rows[0]), Values: Vector(v)}
}

// DenseMatrix makes a Matrix of a gonum matrix.
func DenseMatrix(a mat.Matrix) *Matrix {
	r, c := a.Dims()
	v := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v = append(v, a.At(i, j))
		}
	}
	return &Matrix{Rows: r, Cols: c, Values: Vector(v)}
}

// Dense returns the matrix as gonum's, checking its size.
func (m *Matrix) Dense(name string) (*mat.Dense, error) {
	v, err := ParseVector(m.Values)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if m.Rows <= 0 || m.Cols <= 0 || len(v) != m.Rows*m.Cols {
		return nil, fmt.Errorf("%s: %d values for %d×%d", name, len(v), m.Rows, m.Cols)
	}
	return mat.NewDense(m.Rows, m.Cols, v), nil
}

// Vector writes values exactly, separated by spaces.
func Vector(v []float64) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return b.String()
}

// ParseVector reads the values Vector writes.
func ParseVector(s string) ([]float64, error) {
	var v []float64
	for _, f := range strings.Fields(s) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		v = append(v, x)
	}
	return v, nil
}

// Spec is one controller, resolved to numbers. Limits of ±Inf mean none.
type Spec struct {
	XMLName     xml.Name `xml:"controller"`
	Name        string   `xml:"name,attr"`
	Kind        string   `xml:"kind,attr"`
	Description string   `xml:"description,attr,omitempty"`
	// Step is the macro step: a controller is evaluated once per
	// communication point, dt after the one before, and the first time
	// (at Start) with dt = Step. Start and End are the default experiment
	// of a controller FMU.
	Step    float64 `xml:"step,attr"`
	Start   float64 `xml:"start,attr"`
	End     float64 `xml:"end,attr"`
	Inputs  []Port  `xml:"input"`
	Outputs []Port  `xml:"output"`

	// pid, state-feedback, state-space: limits of the outputs (the PID's
	// own, with its anti-windup); limit: the band
	Min float64 `xml:"min,attr"`
	Max float64 `xml:"max,attr"`

	// pid (control.PIDConfig)
	Kp              float64 `xml:"kp,attr,omitempty"`
	Ki              float64 `xml:"ki,attr,omitempty"`
	Kd              float64 `xml:"kd,attr,omitempty"`
	Tf              float64 `xml:"tf,attr,omitempty"`
	N               float64 `xml:"n,attr,omitempty"`
	B               float64 `xml:"b,attr,omitempty"`
	C               float64 `xml:"c,attr,omitempty"`
	Tt              float64 `xml:"tt,attr,omitempty"`
	ExplicitWeights bool    `xml:"explicit-weights,attr,omitempty"`
	AntiWindup      string  `xml:"anti-windup,attr,omitempty"`

	// state-feedback: u = −K (x − xref) + uff
	K    *Matrix `xml:"k,omitempty"`
	Xref string  `xml:"xref,omitempty"`
	Uff  string  `xml:"uff,omitempty"`

	// state-space (discrete, sample time Dt)
	SA *Matrix `xml:"a,omitempty"`
	SB *Matrix `xml:"b,omitempty"`
	SC *Matrix `xml:"c,omitempty"`
	SD *Matrix `xml:"d,omitempty"`
	Dt float64 `xml:"dt,attr,omitempty"`

	// signal: an expression of time
	Expr string `xml:"expr,attr,omitempty"`

	// limit: rates of rise and fall (0: none)
	Rise float64 `xml:"rise,attr,omitempty"`
	Fall float64 `xml:"fall,attr,omitempty"`
}

// Runner runs a Spec: Eval once per communication point. Its state (a
// PID's, a state space's, a rate limiter's) is a flat vector (State,
// SetState), so that an FMU state and a replay are a copy.
type Runner struct {
	spec   *Spec
	block  control.Block        // pid, state feedback, state space
	pid    *control.PID         // the PID of a pid block
	ss     *control.StateSpace  // the system of a state-space block
	rl     *control.RateLimiter // a limit's rate limiter
	prog   *expr.Program        // a signal's expression
	vars   []float64
	lo, hi float64
}

// Build checks the spec and makes its Runner.
func (s *Spec) Build() (*Runner, error) {
	r := &Runner{spec: s, lo: s.Min, hi: s.Max}
	if math.IsNaN(s.Min) || math.IsNaN(s.Max) || !(s.Min < s.Max) {
		return nil, fmt.Errorf("controller %q: limits [%v, %v]: min must be below max", s.Name, s.Min, s.Max)
	}
	if !(s.Step > 0) || math.IsInf(s.Step, 0) {
		return nil, fmt.Errorf("controller %q: macro step %v must be positive", s.Name, s.Step)
	}
	nin, nout := len(s.Inputs), len(s.Outputs)
	want := func(ni, no int) error {
		if nin != ni || nout != no {
			return fmt.Errorf("controller %q (%s): %d inputs and %d outputs, want %d and %d", s.Name, s.Kind, nin, nout, ni, no)
		}
		return nil
	}
	switch s.Kind {
	case KindPID:
		if err := want(2, 1); err != nil {
			return nil, err
		}
		pc := control.PIDConfig{Kp: s.Kp, Ki: s.Ki, Kd: s.Kd, Tf: s.Tf, N: s.N, B: s.B, C: s.C, Tt: s.Tt,
			ExplicitWeights: s.ExplicitWeights}
		if !math.IsInf(s.Min, -1) || !math.IsInf(s.Max, 1) {
			pc.Umin, pc.Umax = s.Min, s.Max
		}
		r.lo, r.hi = math.Inf(-1), math.Inf(1) // the PID limits itself
		switch s.AntiWindup {
		case "", "back-calculation":
			pc.AntiWindup = control.AntiWindupBackCalculation
		case "conditional":
			pc.AntiWindup = control.AntiWindupConditional
		case "none":
			pc.AntiWindup = control.AntiWindupNone
		default:
			return nil, fmt.Errorf("controller %q: anti-windup %q: want back-calculation, conditional or none", s.Name, s.AntiWindup)
		}
		b, err := control.NewPIDBlock(pc)
		if err != nil {
			return nil, err
		}
		r.block, r.pid = b, b.PID()
	case KindStateFeedback:
		if s.K == nil {
			return nil, fmt.Errorf("controller %q: a state feedback needs k", s.Name)
		}
		K, err := s.K.Dense("k")
		if err != nil {
			return nil, err
		}
		sf, err := control.NewStateFeedback(control.StateFeedbackConfig{K: K, StateNames: names(s.Inputs), OutputNames: names(s.Outputs)})
		if err != nil {
			return nil, err
		}
		xr, err := ParseVector(s.Xref)
		if err != nil {
			return nil, err
		}
		uf, err := ParseVector(s.Uff)
		if err != nil {
			return nil, err
		}
		if err := sf.SetReference(xr, uf); err != nil {
			return nil, err
		}
		r.block = sf
	case KindStateSpace:
		if s.SA == nil || s.SB == nil || s.SC == nil {
			return nil, fmt.Errorf("controller %q: a state space needs a, b and c", s.Name)
		}
		A, err := s.SA.Dense("a")
		if err != nil {
			return nil, err
		}
		B, err := s.SB.Dense("b")
		if err != nil {
			return nil, err
		}
		C, err := s.SC.Dense("c")
		if err != nil {
			return nil, err
		}
		var D mat.Matrix
		if s.SD != nil {
			if D, err = s.SD.Dense("d"); err != nil {
				return nil, err
			}
		}
		ss, err := control.NewDiscreteSS(A, B, C, D, s.Dt)
		if err != nil {
			return nil, err
		}
		b, err := control.NewSSBlock(ss, names(s.Inputs), names(s.Outputs))
		if err != nil {
			return nil, err
		}
		r.block, r.ss = b, ss
	case KindSignal:
		if err := want(0, 1); err != nil {
			return nil, err
		}
		p, err := CompileSignal(s.Expr)
		if err != nil {
			return nil, fmt.Errorf("controller %q: expr: %v", s.Name, err)
		}
		r.prog, r.vars = p, make([]float64, 1)
	case KindLimit:
		if err := want(1, 1); err != nil {
			return nil, err
		}
		if s.Rise != 0 || s.Fall != 0 {
			rise, fall := s.Rise, s.Fall
			if rise == 0 {
				rise = math.Inf(1)
			}
			if fall == 0 {
				fall = rise
			}
			rl, err := control.NewRateLimiter(rise, fall)
			if err != nil {
				return nil, err
			}
			r.rl = rl
		}
	default:
		return nil, fmt.Errorf("controller %q: unknown kind %q (pid, state-feedback, state-space, signal, limit)", s.Name, s.Kind)
	}
	return r, nil
}

func names(ps []Port) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// timeResolver resolves only the name "time" (slot 0).
type timeResolver struct{}

func (timeResolver) Var(name string) (int, bool) { return 0, name == "time" }
func (timeResolver) Measure(fn string, args []string) (int, bool, error) {
	return 0, false, nil
}
func (timeResolver) Table(name string) (*expr.Table, bool) { return nil, false }

// CompileSignal compiles a signal's expression: a function of time (the
// name "time"), in SI units.
func CompileSignal(src string) (*expr.Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("empty expression")
	}
	return expr.Compile(src, timeResolver{})
}

// Spec returns the spec the runner was built from.
func (r *Runner) Spec() *Spec { return r.spec }

// Block returns the control block of a pid, state-feedback or state-space
// controller (nil for a signal or limit).
func (r *Runner) Block() control.Block { return r.block }

// Reset returns the controller to its initial state.
func (r *Runner) Reset() {
	if r.block != nil {
		r.block.Reset()
	}
	if r.rl != nil {
		r.rl.Reset()
	}
}

// Eval evaluates the controller at time t, dt after its last evaluation:
// in one value per input, out one per output. It allocates nothing.
func (r *Runner) Eval(t, dt float64, in, out []float64) error {
	switch {
	case r.block != nil:
		if err := r.block.Step(t, dt, in, out); err != nil {
			return err
		}
		for i, v := range out {
			out[i] = control.Saturate(v, r.lo, r.hi)
		}
	case r.prog != nil:
		r.vars[0] = t
		v := r.prog.Eval(r.vars, nil)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("signal %q is %v at t = %g s", r.prog.Src(), v, t)
		}
		out[0] = v
	default: // limit
		v := control.Saturate(in[0], r.lo, r.hi)
		if r.rl != nil {
			v = r.rl.Step(v, dt)
			if math.IsNaN(v) {
				return fmt.Errorf("non-finite input %v", in[0])
			}
		}
		out[0] = v
	}
	return nil
}

// NumState is the length of the controller's state vector.
func (r *Runner) NumState() int {
	switch {
	case r.pid != nil:
		return 9
	case r.ss != nil:
		n, _, _ := r.ss.Dims()
		return n
	case r.rl != nil:
		return 2
	}
	return 0
}

// State appends the controller's state to dst.
func (r *Runner) State(dst []float64) []float64 {
	switch {
	case r.pid != nil:
		st := r.pid.State()
		return append(dst, st.Integral, st.Deriv, st.R, st.Y, st.U, st.V, b2f(st.Started), b2f(st.Manual), st.UManual)
	case r.ss != nil:
		return r.ss.State(dst)
	case r.rl != nil:
		return append(dst, r.rl.Output(), b2f(r.rl.Started()))
	}
	return dst
}

// SetState restores a state written by State (NumState values).
func (r *Runner) SetState(x []float64) error {
	if len(x) != r.NumState() {
		return fmt.Errorf("controller %q: state of %d values, want %d", r.spec.Name, len(x), r.NumState())
	}
	switch {
	case r.pid != nil:
		return r.pid.SetState(control.PIDState{Integral: x[0], Deriv: x[1], R: x[2], Y: x[3], U: x[4], V: x[5],
			Started: x[6] != 0, Manual: x[7] != 0, UManual: x[8]})
	case r.ss != nil:
		return r.ss.SetState(x)
	case r.rl != nil:
		if x[1] == 0 {
			r.rl.Reset()
			return nil
		}
		return r.rl.ResetTo(x[0])
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// XML renders the spec as a controller file (root <controller>).
func (s *Spec) XML() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	e := xml.NewEncoder(&b)
	e.Indent("", "  ")
	if err := e.Encode(s); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// Parse reads a controller file and checks that it builds.
func Parse(data []byte) (*Spec, error) {
	s := Spec{Min: math.Inf(-1), Max: math.Inf(1)} // limits left out: none
	if err := xml.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("controller file: %v", err)
	}
	if _, err := s.Build(); err != nil {
		return nil, err
	}
	return &s, nil
}

// IsFile reports whether data is a controller file (its root element is
// <controller>), not a model file.
func IsFile(data []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local == "controller"
		}
	}
}
