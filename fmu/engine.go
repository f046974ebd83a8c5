package fmu

// This file is the seam between the FMI layer and the engine. The FMI
// semantics in this package (instance state machine, variable table,
// snapshots, modelDescription.xml) only see the small interfaces below;
// engine_solver.go implements them with package solver, and the tests
// implement them with closed-form models.

// paramInfo describes a model parameter.
type paramInfo struct {
	name, unit, desc string
	value            float64 // value the model was compiled with
	tunable          bool
}

// varInfo describes a model input or output.
type varInfo struct {
	name, unit, desc string
	start            float64 // inputs only
	// where an output is declared in the model file, for messages:
	// "model.xml:20, expr sqrt(0.25 - time)" ("" when unknown)
	where string
	// outputs of a vector channel: the array (its name and dimensions) and
	// the element's 0-based row-major position in it ("" for a scalar)
	array string
	dims  []int
	elem  int
	// the channel an output reads ("" for an expression)
	channel string
}

// stateVar describes a continuous state of the engine (a position or a
// velocity coordinate), exposed as a local variable.
type stateVar struct {
	name, unit, desc string
	// deriv is, for the position of a linear coordinate, the velocity that
	// is its time derivative; -1 otherwise.
	deriv int
	// rotQ and rotV are, for a quaternion component or a body angular
	// velocity, the first position and velocity of its rotation block (4
	// positions, 3 velocities); -1 otherwise.
	rotQ, rotV int
}

// modelInfo is what a compiled model declares.
type modelInfo struct {
	name, desc     string
	params         []paramInfo
	inputs         []varInfo
	outputs        []varInfo
	qs, vs         []stateVar // continuous states: positions, velocities
	start, stop    float64    // default experiment
	step           float64    // output (communication) step
	tol            float64    // relative tolerance, 0 when the integrator is fixed-step
	integratorStep float64    // internal step, for documentation
	integrator     string
	// feedthrough: the outputs follow from the inputs at the same
	// communication point (a controller FMU, engine_controller.go)
	feedthrough bool
}

// engineModel is a compiled, immutable model.
type engineModel interface {
	info() *modelInfo
	newState() engineState
	// init sets the state's time to the model start and assembles it.
	init(s engineState) error
	// advanceTo integrates to t (fixed steps on a grid anchored at the
	// start time, see solver.AdvanceTo); a failed step is reported as
	// *stepFailure with the state left at its last time.
	advanceTo(s engineState, t float64) error
	// evalOutputs writes the declared outputs into dst.
	evalOutputs(s engineState, dst []float64)
	// outputDerivatives writes the outputs' first time derivatives at the
	// state into dst (the state is left as it was).
	outputDerivatives(s engineState, dst []float64) error
	// stateDerivatives writes the time derivatives of the positions and
	// velocities at the state, with the inputs as set, into dq and dv (the
	// state is left as it was).
	stateDerivatives(s engineState, dq, dv []float64) error
	// directional writes the directional derivative of the state
	// derivatives and outputs with respect to the states and inputs along
	// the seed (dq, dv, du) into jq, jv and jy (du nil: zero; jv or jy nil:
	// not computed). The state is left as it was.
	directional(s engineState, dq, dv, du, jq, jv, jy []float64) error
}

// engineState is the mutable state of one instance of an engineModel.
type engineState interface {
	// time is the state's own time: the engine's, never set from outside.
	time() float64
	// anchorGrid puts the origin of the internal time grid at time().
	anchorGrid()
	setInput(i int, v float64)
	// states copies the positions and velocities into q and v.
	states(q, v []float64)
	// setInputDerivative sets the order-th (1 or 2) time derivative of
	// input i, followed from the start of the next step.
	setInputDerivative(i, order int, v float64) error
	setParam(i int, v float64) error
	copyFrom(o engineState)
	marshal() ([]byte, error)
	unmarshal(b []byte) error
	// stats describes the solver work done so far (for logSolver).
	stats() string
	// stepSize tells the communication step size of the step about to be
	// taken (a controller FMU's dt; the engine keeps its own grid).
	stepSize(h float64)
	// contactModes appends the contacts' discrete modes (closed, sticking)
	// to dst: a change is a contact event (FMI 3.0 early return).
	contactModes(dst []float64) []float64
}

// compiler compiles the instance's model with parameter overrides by name.
type compiler func(overrides map[string]float64) (engineModel, error)

// stepFailure is an integration failure: the state is at last.
type stepFailure struct {
	at, last float64
	msg      string
}

// Error describes the failure.
func (e *stepFailure) Error() string {
	return "step failed at t=" + ftoa(e.at) + " s (last successful time " + ftoa(e.last) + " s): " + e.msg
}
