package fmu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"mbfmu/controller"
)

// A controller FMU: resources/model.xml is a controller file (package
// controller: a PID, state feedback, state space, signal or limit of a
// co-simulation, resolved to numbers), which this engine runs with direct
// feedthrough, as `mbfmu cosim` runs the same controller: at each
// communication point the outputs follow from the inputs set there (they
// are evaluated when read, again from the same starting state whenever an
// input changes), with dt the time since the last point (the controller's
// macro step at the first); fmi2DoStep commits the evaluation of the point
// it leaves and moves to the next. There are no parameters and no
// continuous states.

// controllerModel adapts a controller.Spec to the engine seam.
type controllerModel struct {
	spec *controller.Spec
	mi   modelInfo
}

func newControllerModel(s *controller.Spec) *controllerModel {
	cm := &controllerModel{spec: s, mi: modelInfo{
		name: s.Name, desc: s.Description, start: s.Start, stop: s.End, step: s.Step,
		integrator: "controller (" + s.Kind + "), evaluated at each communication point", feedthrough: true,
	}}
	if cm.mi.desc == "" {
		cm.mi.desc = "controller " + s.Name + " (" + s.Kind + ") of a co-simulation"
	}
	for _, p := range s.Inputs {
		cm.mi.inputs = append(cm.mi.inputs, varInfo{name: p.Name, unit: p.Unit, desc: "input " + p.Name})
	}
	for _, p := range s.Outputs {
		cm.mi.outputs = append(cm.mi.outputs, varInfo{name: p.Name, unit: p.Unit, desc: "output " + p.Name,
			where: "controller " + s.Name})
	}
	return cm
}

func (cm *controllerModel) info() *modelInfo { return &cm.mi }

func (cm *controllerModel) newState() engineState {
	r, err := cm.spec.Build() // checked when the file was loaded
	if err != nil {
		panic(err)
	}
	n := r.NumState()
	return &controllerState{r: r, in: make([]float64, len(cm.spec.Inputs)), out: make([]float64, len(cm.spec.Outputs)),
		base: make([]float64, 0, n), tmp: make([]float64, 0, n)}
}

func (cm *controllerModel) init(s engineState) error {
	cs := s.(*controllerState)
	cs.r.Reset()
	cs.base = cs.r.State(cs.base[:0])
	cs.t, cs.dt, cs.trial = cm.spec.Start, cm.spec.Step, false
	return nil
}

func (cm *controllerModel) advanceTo(s engineState, t float64) error {
	cs := s.(*controllerState)
	if err := cs.eval(); err != nil {
		return &stepFailure{at: cs.t, last: cs.t, msg: err.Error()}
	}
	cs.base = cs.r.State(cs.base[:0])
	// dt of the next point: the master's step as it gave it (a difference
	// of times would round it, and a PID's coefficients with it)
	cs.dt = t - cs.t
	if cs.h > 0 {
		cs.dt, cs.h = cs.h, 0
	}
	cs.t, cs.trial = t, false
	return nil
}

func (cm *controllerModel) evalOutputs(s engineState, dst []float64) {
	cs := s.(*controllerState)
	if err := cs.eval(); err != nil {
		for i := range dst {
			dst[i] = math.NaN() // reported as a non-finite output
		}
		return
	}
	copy(dst, cs.out)
}

var errNoDerivatives = errors.New("a controller FMU provides no derivatives")

func (cm *controllerModel) outputDerivatives(engineState, []float64) error { return errNoDerivatives }
func (cm *controllerModel) stateDerivatives(engineState, []float64, []float64) error {
	return errNoDerivatives
}
func (cm *controllerModel) directional(engineState, []float64, []float64, []float64, []float64, []float64, []float64) error {
	return errNoDerivatives
}

// controllerState is one controller's state: the time of the current
// communication point, dt since the one before, the inputs set, the
// controller's state at the start of the point (base) and, while trial,
// after its evaluation there with these inputs.
type controllerState struct {
	r       *controller.Runner
	t, dt   float64
	in, out []float64
	base    []float64
	tmp     []float64
	trial   bool
	h       float64 // the communication step size of the step being taken (stepSize)
}

// stepSize tells the controller the master's communication step size of
// the step about to be taken.
func (cs *controllerState) stepSize(h float64) { cs.h = h }

// eval evaluates the controller at the current point from base, unless it
// was with the inputs as they are.
func (cs *controllerState) eval() error {
	if cs.trial {
		return nil
	}
	if err := cs.r.SetState(cs.base); err != nil {
		return err
	}
	if err := cs.r.Eval(cs.t, cs.dt, cs.in, cs.out); err != nil {
		return err
	}
	cs.trial = true
	return nil
}

func (cs *controllerState) time() float64 { return cs.t }
func (cs *controllerState) anchorGrid()   {}
func (cs *controllerState) setInput(i int, v float64) {
	if cs.in[i] != v || math.Signbit(cs.in[i]) != math.Signbit(v) {
		cs.in[i] = v
		cs.trial = false
	}
}
func (cs *controllerState) states(q, v []float64) {}
func (cs *controllerState) setInputDerivative(i, order int, v float64) error {
	if v != 0 {
		return errors.New("a controller FMU takes no input derivatives (canInterpolateInputs=\"false\")")
	}
	return nil
}
func (cs *controllerState) setParam(i int, v float64) error {
	return errors.New("a controller FMU has no parameters")
}

func (cs *controllerState) copyFrom(o engineState) {
	x := o.(*controllerState)
	cs.t, cs.dt, cs.trial = x.t, x.dt, x.trial
	copy(cs.in, x.in)
	copy(cs.out, x.out)
	cs.base = append(cs.base[:0], x.base...)
	cs.tmp = x.r.State(cs.tmp[:0])
	if err := cs.r.SetState(cs.tmp); err != nil {
		panic(err) // a state of the same controller
	}
}

// marshal writes t, dt, trial, the inputs, outputs, base and the
// controller's current state as little-endian float64s.
func (cs *controllerState) marshal() ([]byte, error) {
	v := []float64{cs.t, cs.dt, b2f(cs.trial)}
	v = append(v, cs.in...)
	v = append(v, cs.out...)
	v = append(v, cs.base...)
	v = cs.r.State(v)
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b, nil
}

func (cs *controllerState) unmarshal(b []byte) error {
	n := cs.r.NumState()
	want := 3 + len(cs.in) + len(cs.out) + 2*n
	if len(b) != 8*want {
		return fmt.Errorf("controller state of %d bytes, want %d", len(b), 8*want)
	}
	v := make([]float64, want)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			return errors.New("controller state: a value is not finite")
		}
	}
	ni, no := len(cs.in), len(cs.out)
	if err := cs.r.SetState(v[3+ni+no+n:]); err != nil {
		return err
	}
	cs.t, cs.dt, cs.trial = v[0], v[1], v[2] != 0
	copy(cs.in, v[3:3+ni])
	copy(cs.out, v[3+ni:3+ni+no])
	cs.base = append(cs.base[:0], v[3+ni+no:3+ni+no+n]...)
	return nil
}

func (cs *controllerState) stats() string { return "controller" }

func (cs *controllerState) contactModes(dst []float64) []float64 { return dst }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
