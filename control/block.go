package control

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Block is a discrete controller that a co-simulation master can run by
// name: it reads named inputs and writes named outputs once per
// communication step.
type Block interface {
	// Inputs returns the input names, in the order Step expects them.
	Inputs() []string
	// Outputs returns the output names, in the order Step writes them.
	Outputs() []string
	// Step reads in (one value per input) at time t, dt seconds after the
	// previous step, and writes out (one value per output). It must not
	// allocate.
	Step(t, dt float64, in, out []float64) error
	// Reset returns the block to its initial state.
	Reset()
}

// Compile-time checks.
var (
	_ Block = (*PIDBlock)(nil)
	_ Block = (*StateFeedback)(nil)
	_ Block = (*SSBlock)(nil)
)

func checkLens(name string, in, out []float64, nin, nout int) error {
	if len(in) != nin {
		return fmt.Errorf("control: %s block: %d inputs given, want %d", name, len(in), nin)
	}
	if len(out) != nout {
		return fmt.Errorf("control: %s block: output buffer has length %d, want %d", name, len(out), nout)
	}
	return nil
}

func checkStep(name string, t, dt float64) error {
	if !finite(t) || !finite(dt) || dt < 0 {
		return fmt.Errorf("control: %s block: time %v, step %v: must be finite with step ≥ 0", name, t, dt)
	}
	return nil
}

func cloneNames(s []string) []string { return append([]string(nil), s...) }

// defaultNames returns prefix1 … prefixN, or just prefix when n == 1 and
// single is true.
func defaultNames(prefix string, n int, single bool) []string {
	if n == 1 && single {
		return []string{prefix}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}

func checkNames(what string, names []string, n int) error {
	if len(names) != n {
		return fmt.Errorf("control: %d %s names given, want %d", len(names), what, n)
	}
	seen := make(map[string]bool, n)
	for _, s := range names {
		if s == "" {
			return fmt.Errorf("control: empty %s name", what)
		}
		if seen[s] {
			return fmt.Errorf("control: duplicate %s name %q", what, s)
		}
		seen[s] = true
	}
	return nil
}

// PIDBlock runs a PID as a Block with inputs "r" (setpoint), "y"
// (measurement) and output "u".
type PIDBlock struct {
	pid *PID
}

// NewPIDBlock returns a PID block configured by cfg.
func NewPIDBlock(cfg PIDConfig) (*PIDBlock, error) {
	p, err := NewPID(cfg)
	if err != nil {
		return nil, err
	}
	return &PIDBlock{pid: p}, nil
}

// PID returns the underlying controller (for manual mode, gain changes and
// state snapshots).
func (b *PIDBlock) PID() *PID { return b.pid }

// Inputs returns ["r", "y"].
func (b *PIDBlock) Inputs() []string { return []string{"r", "y"} }

// Outputs returns ["u"].
func (b *PIDBlock) Outputs() []string { return []string{"u"} }

// Step computes u = PID.Update(r, y, dt). It fails, leaving the state
// unchanged, on wrong buffer lengths or non-finite inputs.
func (b *PIDBlock) Step(t, dt float64, in, out []float64) error {
	if err := checkLens("PID", in, out, 2, 1); err != nil {
		return err
	}
	if err := checkStep("PID", t, dt); err != nil {
		return err
	}
	u := b.pid.Update(in[0], in[1], dt)
	if math.IsNaN(u) {
		return fmt.Errorf("control: PID block: non-finite input r = %v, y = %v at t = %g", in[0], in[1], t)
	}
	out[0] = u
	return nil
}

// Reset resets the PID (see PID.Reset).
func (b *PIDBlock) Reset() { b.pid.Reset() }

// StateFeedbackConfig configures a StateFeedback block.
type StateFeedbackConfig struct {
	// K is the m×n gain (for example from LQR or DLQR).
	K mat.Matrix
	// StateNames name the n state inputs; nil gives x1 … xn.
	StateNames []string
	// OutputNames name the m outputs; nil gives u (m = 1) or u1 … um.
	OutputNames []string
	// RefInputs adds inputs after the states: n references named
	// "<state>_ref" and m feed-forwards named "<output>_ff". Without it the
	// reference and feed-forward are parameters set by SetReference.
	RefInputs bool
}

// StateFeedback is the Block u = −K·(x − x_ref) + u_ff.
type StateFeedback struct {
	n, m    int
	k       []float64 // m×n row-major
	inputs  []string
	outputs []string
	refIn   bool
	xref    []float64
	uff     []float64
}

// NewStateFeedback returns a state-feedback block; x_ref and u_ff start at
// zero.
func NewStateFeedback(cfg StateFeedbackConfig) (*StateFeedback, error) {
	m, n, err := dimsOf("K", cfg.K)
	if err != nil {
		return nil, err
	}
	sn := cfg.StateNames
	if sn == nil {
		sn = defaultNames("x", n, false)
	}
	if err := checkNames("state", sn, n); err != nil {
		return nil, err
	}
	on := cfg.OutputNames
	if on == nil {
		on = defaultNames("u", m, true)
	}
	if err := checkNames("output", on, m); err != nil {
		return nil, err
	}
	in := cloneNames(sn)
	if cfg.RefInputs {
		for _, s := range sn {
			in = append(in, s+"_ref")
		}
		for _, s := range on {
			in = append(in, s+"_ff")
		}
	}
	if err := checkNames("input", in, len(in)); err != nil {
		return nil, err
	}
	return &StateFeedback{n: n, m: m, k: flatten(cfg.K), inputs: in, outputs: cloneNames(on),
		refIn: cfg.RefInputs, xref: make([]float64, n), uff: make([]float64, m)}, nil
}

// Inputs returns the state names, followed by the reference and
// feed-forward names when RefInputs is set.
func (f *StateFeedback) Inputs() []string { return cloneNames(f.inputs) }

// Outputs returns the output names.
func (f *StateFeedback) Outputs() []string { return cloneNames(f.outputs) }

// SetReference sets the parameters x_ref (n entries) and u_ff (m entries)
// used when RefInputs is false; nil leaves that vector unchanged.
func (f *StateFeedback) SetReference(xref, uff []float64) error {
	if xref != nil && len(xref) != f.n {
		return fmt.Errorf("control: state feedback: x_ref has %d entries, want %d", len(xref), f.n)
	}
	if uff != nil && len(uff) != f.m {
		return fmt.Errorf("control: state feedback: u_ff has %d entries, want %d", len(uff), f.m)
	}
	for _, v := range append(append([]float64(nil), xref...), uff...) {
		if !finite(v) {
			return fmt.Errorf("control: state feedback: reference value %v: must be finite", v)
		}
	}
	copy(f.xref, xref)
	copy(f.uff, uff)
	return nil
}

// Step writes u = −K·(x − x_ref) + u_ff. It fails, writing nothing, on wrong
// buffer lengths or non-finite inputs.
func (f *StateFeedback) Step(t, dt float64, in, out []float64) error {
	if err := checkLens("state feedback", in, out, len(f.inputs), f.m); err != nil {
		return err
	}
	if err := checkStep("state feedback", t, dt); err != nil {
		return err
	}
	for i, v := range in {
		if !finite(v) {
			return fmt.Errorf("control: state feedback block: input %q = %v at t = %g: must be finite", f.inputs[i], v, t)
		}
	}
	n, m := f.n, f.m
	x := in[:n]
	xref, uff := f.xref, f.uff
	if f.refIn {
		xref, uff = in[n:2*n], in[2*n:2*n+m]
	}
	for i := 0; i < m; i++ {
		ki := f.k[i*n : i*n+n]
		acc := uff[i]
		for j, kij := range ki {
			acc -= kij * (x[j] - xref[j])
		}
		out[i] = acc
	}
	return nil
}

// Reset does nothing: state feedback is static (the reference is a
// parameter and survives).
func (f *StateFeedback) Reset() {}

// SSBlock runs a discrete StateSpace as a Block. It must be stepped at the
// system's sample time; a step with dt = 0 only evaluates the output.
type SSBlock struct {
	ss      *StateSpace
	inputs  []string
	outputs []string
}

// NewSSBlock wraps ss; nil names give u1 … um and y1 … yp.
func NewSSBlock(ss *StateSpace, inputs, outputs []string) (*SSBlock, error) {
	if ss == nil {
		return nil, fmt.Errorf("control: NewSSBlock: nil state space")
	}
	_, m, p := ss.Dims()
	if inputs == nil {
		inputs = defaultNames("u", m, false)
	}
	if outputs == nil {
		outputs = defaultNames("y", p, false)
	}
	if err := checkNames("input", inputs, m); err != nil {
		return nil, err
	}
	if err := checkNames("output", outputs, p); err != nil {
		return nil, err
	}
	return &SSBlock{ss: ss, inputs: cloneNames(inputs), outputs: cloneNames(outputs)}, nil
}

// StateSpace returns the wrapped system.
func (b *SSBlock) StateSpace() *StateSpace { return b.ss }

// Inputs returns the input names.
func (b *SSBlock) Inputs() []string { return cloneNames(b.inputs) }

// Outputs returns the output names.
func (b *SSBlock) Outputs() []string { return cloneNames(b.outputs) }

// Step writes y = C·x + D·u and advances the state. dt must equal the
// system's sample time (relative tolerance 1e-9) or be 0 (output only, no
// advance).
func (b *SSBlock) Step(t, dt float64, in, out []float64) error {
	if err := checkStep("state space", t, dt); err != nil {
		return err
	}
	if dt == 0 {
		return b.ss.Output(in, out)
	}
	if math.Abs(dt-b.ss.dt) > 1e-9*b.ss.dt {
		return fmt.Errorf("control: state space block: stepped with dt = %g s, its sample time is %g s", dt, b.ss.dt)
	}
	return b.ss.Step(in, out)
}

// Reset sets the state to zero.
func (b *SSBlock) Reset() { b.ss.Reset() }
