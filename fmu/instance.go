package fmu

import (
	"fmt"
	"math"

	"mbfmu/solver"
)

// Logger receives the instance's log messages, synchronously, on the
// goroutine (and so the thread) of the call that produced them. category is
// one of the declared log categories.
type Logger func(status Status, category, message string)

// Instance is one FMI 2.0 co-simulation slave: a compiled model, its state,
// the input/parameter/output buffers and the FMI state machine. Methods
// return the fmi2Status of the corresponding C function and log every
// failure. An Instance is not safe for concurrent use (the C ABI serialises
// the calls on one instance); distinct instances share nothing mutable.
//
// A call in the wrong state or with bad arguments returns Error and leaves
// the instance unchanged. A failure of the engine during initialisation
// moves it to the error state; a failed step returns Discard and moves it
// to stepFailed with Terminated reported true.
type Instance struct {
	name    string
	desc    *Description
	log     Logger
	logMask logMask

	compile compiler
	base    engineModel // compiled with the model file's parameter values
	model   engineModel // base, or recompiled with changed fixed parameters
	state   engineState // nil until initialised
	phase   Phase

	startTime, stopTime, tol float64
	stopDefined, tolDefined  bool

	time       float64 // current communication point (the master's)
	clock      commClock
	lastOK     float64 // fmi2LastSuccessfulTime
	terminated bool    // fmi2Terminated
	lastStep   Status  // status of the last fmi2DoStep
	initDone   bool    // state initialised for the current values
	dirty      bool    // a value set in initialisation mode since initDone

	inputs  []float64
	params  []float64
	outputs []float64
	scratch []float64
	// inDeriv holds the inputs' first then second time derivatives set
	// for the next step (fmi2SetRealInputDerivatives; cleared by the step)
	inDeriv []float64
	// outDeriv caches the outputs' derivatives at the current state
	// (fmi2GetRealOutputDerivatives) while outDerivOK
	outDeriv   []float64
	outDerivOK bool
	// the continuous states: statesOK when the model in use has the states
	// the description declares (a fixed parameter that changes the number
	// of beam elements recompiles another layout); sq, sv their values
	// (read on request: sq the first-order states, the nqc positions then
	// the element states); dq, dv their time derivatives while derOK
	statesOK bool
	sq, sv   []float64
	dq, dv   []float64
	derOK    bool
	nqc      int
	// directional derivatives: seeds and results (made on first use)
	jw *jacWork

	// FMI 3.0 (fmi3.go): the instance was made by
	// fmi3InstantiateCoSimulation; vr3, kn3, ord3 and adj3 are reusable
	// buffers of the calls with array value references
	fmi3     bool
	iu       IntermediateUpdateFunc // nil: no intermediate update
	early    bool                   // earlyReturnAllowed
	cm0, cm1 []float64              // contact modes before and after an internal step
	vr3, kn3 []uint32
	ord3     []int32
	adj3     []float64
}

// jacWork holds the seeds and results of GetDirectionalDerivative.
type jacWork struct {
	sq, sv, su    []float64 // seeds on positions, velocities, inputs
	jq, jv, jy    []float64 // results
	jq2, jv2, jy2 []float64 // results of the outputs' pass (seed on the states only)
}

// newInstance creates an instance of a compiled model.
func newInstance(name string, desc *Description, compile compiler, base engineModel, log Logger, loggingOn bool) *Instance {
	mi := base.info()
	in := &Instance{
		name:    name,
		desc:    desc,
		log:     log,
		compile: compile,
		base:    base,
		inputs:  make([]float64, len(mi.inputs)),
		params:  make([]float64, len(mi.params)),
		outputs: make([]float64, len(mi.outputs)),
		scratch: make([]float64, len(mi.outputs)),
		inDeriv: make([]float64, 2*len(mi.inputs)),
		sq:      make([]float64, len(mi.qs)),
		sv:      make([]float64, len(mi.vs)),
		dq:      make([]float64, len(mi.qs)),
		dv:      make([]float64, len(mi.vs)),
		nqc:     numCoordQ(mi.qs),
		// (outDeriv and jw are made on first use)
	}
	in.logMask = catWarning | catDiscard | catError | catFatal
	if loggingOn {
		in.logMask |= catEvents | catSolver
	}
	in.reset()
	return in
}

// reset puts the instance in the state right after instantiation.
func (in *Instance) reset() {
	mi := in.base.info()
	in.model = in.base
	in.state = nil
	in.phase = Instantiated
	in.startTime, in.stopTime, in.tol = mi.start, mi.stop, 0
	in.stopDefined, in.tolDefined = false, false
	in.time, in.lastOK = mi.start, mi.start
	in.clock = commClock{}
	in.terminated, in.initDone, in.dirty = false, false, false
	in.lastStep = OK
	for i, v := range mi.inputs {
		in.inputs[i] = v.start
	}
	for i, p := range mi.params {
		in.params[i] = p.value
	}
	clear(in.outputs)
	clear(in.scratch)
	clear(in.inDeriv)
	in.outDerivOK, in.derOK, in.statesOK = false, false, false
}

// Name returns the instance name given at instantiation.
func (in *Instance) Name() string { return in.name }

// Description returns the variable table and model data of the FMU.
func (in *Instance) Description() *Description { return in.desc }

// Phase returns the current state of the FMI state machine.
func (in *Instance) Phase() Phase { return in.phase }

// Time returns the current communication point.
func (in *Instance) Time() float64 { return in.time }

func (in *Instance) logf(cat logMask, st Status, format string, args ...any) {
	if in.log == nil || !in.logMask.on(cat) {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if in.fmi3 {
		msg = fmi3Name(msg)
	}
	in.log(st, categoryName(cat), msg)
}

// errorf logs a rejected call and returns Error; the instance is unchanged.
func (in *Instance) errorf(fn, format string, args ...any) Status {
	in.logf(catError, Error, fn+": "+format, args...)
	return Error
}

// failf logs an engine failure, moves the instance to the error state and
// returns Error.
func (in *Instance) failf(fn, format string, args ...any) Status {
	in.phase = ErrorPhase
	in.logf(catError, Error, fn+": "+format+" (instance is now in the error state: call fmi2Reset, fmi2SetFMUstate or fmi2FreeInstance)", args...)
	return Error
}

// allowed checks that fn may be called in the current phase.
func (in *Instance) allowed(fn string, ps phaseSet) bool {
	if ps.has(in.phase) {
		return true
	}
	in.logf(catError, Error, "%s: not allowed in state %s", fn, in.phase)
	return false
}

// Abort records an unexpected failure inside fn (a recovered panic): the
// instance moves to the error state and the failure is logged.
func (in *Instance) Abort(fn string, reason any) Status {
	return in.failf(fn, "internal error: %v", reason)
}

// SetDebugLogging switches log categories on or off (all of them when
// categories is empty). Errors, discards and warnings are logged from the
// start; events and solver statistics only when loggingOn was true at
// instantiation or they are switched on here.
func (in *Instance) SetDebugLogging(on bool, categories []string) Status {
	const fn = "fmi2SetDebugLogging"
	if !in.allowed(fn, anyPhase|1<<IntermediateUpdate) {
		return Error
	}
	if len(categories) == 0 {
		if on {
			in.logMask = catAll | catEvents | catSolver | catWarning | catDiscard | catError | catFatal
		} else {
			in.logMask = 0
		}
		return OK
	}
	var set logMask
	for _, c := range categories {
		bit, ok := categoryBit(c)
		if !ok {
			return in.errorf(fn, "unknown log category %q (declared: logEvents, logSolver, logStatusWarning, logStatusDiscard, logStatusError, logStatusFatal, logAll)", c)
		}
		set |= bit
	}
	if on {
		in.logMask |= set
	} else {
		in.logMask &^= set
	}
	return OK
}

// SetupExperiment records the tolerance (unused: the model's integrator
// settings apply), the start time and the optional stop time.
func (in *Instance) SetupExperiment(tolDefined bool, tol, start float64, stopDefined bool, stop float64) Status {
	const fn = "fmi2SetupExperiment"
	if !in.allowed(fn, instPhase) {
		return Error
	}
	if !finite(start) {
		return in.errorf(fn, "startTime %v is not finite", start)
	}
	if stopDefined && (!finite(stop) || stop < start) {
		return in.errorf(fn, "stopTime %v is invalid for startTime %v", stop, start)
	}
	if tolDefined && !(tol > 0) {
		return in.errorf(fn, "tolerance %v must be positive", tol)
	}
	in.tolDefined, in.tol = tolDefined, tol
	in.startTime = start
	in.stopDefined, in.stopTime = stopDefined, stop
	in.time, in.lastOK = start, start
	in.logf(catEvents, OK, "%s: start %g, stop %g (defined %t), tolerance %g (defined %t; the model's own integrator settings apply)", fn, start, stop, stopDefined, tol, tolDefined)
	return OK
}

// EnterInitializationMode starts initialisation: values set from now on
// are applied when the instance is initialised (at the first output read or
// at ExitInitializationMode).
func (in *Instance) EnterInitializationMode() Status {
	const fn = "fmi2EnterInitializationMode"
	if !in.allowed(fn, instPhase) {
		return Error
	}
	in.phase = InitializationMode
	in.initDone, in.dirty = false, true
	in.logf(catEvents, OK, "%s", fn)
	return OK
}

// ExitInitializationMode initialises the model (recompiling it first if a
// fixed parameter changed) and enters stepComplete.
func (in *Instance) ExitInitializationMode() Status {
	const fn = "fmi2ExitInitializationMode"
	if !in.allowed(fn, initPhase) {
		return Error
	}
	if st := in.initialize(fn); st != OK {
		return st
	}
	in.phase = StepComplete
	in.logf(catEvents, OK, "%s: t = %g", fn, in.time)
	return OK
}

// initialize builds a consistent state from the current inputs and
// parameters unless it is up to date.
func (in *Instance) initialize(fn string) Status {
	if in.initDone && !in.dirty {
		return OK
	}
	bmi := in.base.info()
	var over map[string]float64
	fixedSame := true
	mi := in.model.info()
	for i, p := range bmi.params {
		if in.params[i] != p.value {
			if over == nil {
				over = map[string]float64{}
			}
			over[p.name] = in.params[i]
		}
		if !p.tunable && in.params[i] != mi.params[i].value {
			fixedSame = false
		}
	}
	if !fixedSame {
		if over == nil {
			in.model = in.base
		} else {
			m, err := in.compile(over)
			if err != nil {
				return in.failf(fn, "recompiling the model with the new parameter values: %v", err)
			}
			in.model = m
		}
		in.logf(catEvents, OK, "%s: model recompiled for changed fixed parameters", fn)
	}
	mi = in.model.info()
	s := in.model.newState()
	for i, v := range in.inputs {
		s.setInput(i, v)
	}
	for i, p := range mi.params {
		if p.tunable && in.params[i] != p.value {
			if err := s.setParam(i, in.params[i]); err != nil {
				return in.failf(fn, "setting parameter %q: %v", p.name, err)
			}
		}
	}
	if err := in.model.init(s); err != nil {
		return in.failf(fn, "initialisation failed: %v", err)
	}
	if c, ok := s.(*controllerState); ok {
		// a controller has nothing to integrate: its first evaluation is
		// at the master's start time (it once was evaluated and committed
		// at its file's start time, with the inputs' start values, and a
		// start time before that was refused)
		c.t = in.startTime
	}
	t0 := s.time()
	switch tol := timeTol(in.startTime); {
	case in.startTime < t0-tol:
		return in.failf(fn, "startTime %g is before the model's start time %g", in.startTime, t0)
	case in.startTime > t0+tol:
		if err := in.model.advanceTo(s, in.startTime); err != nil {
			return in.failf(fn, "integrating from the model's start time %g to startTime %g: %v", t0, in.startTime, err)
		}
	}
	s.anchorGrid() // the master's communication points t₀ + n·H are grid points
	in.model.evalOutputs(s, in.scratch)
	for i, v := range in.scratch {
		if !finite(v) {
			return in.failf(fn, "output %q is %v after initialisation", mi.outputs[i].name, v)
		}
	}
	copy(in.outputs, in.scratch)
	in.state = s
	in.outDerivOK, in.derOK = false, false
	in.statesOK = in.model == in.base || sameStates(mi, bmi)
	in.time, in.lastOK = in.startTime, in.startTime
	in.clock = commClock{}
	in.initDone, in.dirty = true, false
	return OK
}

// elementStater is an engine state whose elements have continuous states
// of their own (modelInfo.qs after the positions): elementStates copies
// them into dst. (The engine seam's states copies the positions and
// velocities only.)
type elementStater interface {
	elementStates(dst []float64)
}

func (ss *solverState) elementStates(dst []float64) { ss.s.ElementStates(dst) }

// sameStates reports whether a recompiled model has the continuous states
// of the base model (a fixed parameter may change the number of beam
// elements, and so the coordinates, while the variable table is fixed).
func sameStates(a, b *modelInfo) bool {
	if len(a.qs) != len(b.qs) || len(a.vs) != len(b.vs) {
		return false
	}
	for i := range a.qs {
		if a.qs[i] != b.qs[i] {
			return false
		}
	}
	for i := range a.vs {
		if a.vs[i] != b.vs[i] {
			return false
		}
	}
	return true
}

// timeTol is the tolerance within which a communication point is taken to
// equal the instance's time.
func timeTol(t float64) float64 { return 1e-9 * math.Max(1, math.Abs(t)) }

// Terminate ends the simulation run.
func (in *Instance) Terminate() Status {
	const fn = "fmi2Terminate"
	if !in.allowed(fn, termPhases) {
		return Error
	}
	in.phase = TerminatedPhase
	in.logf(catEvents, OK, "%s: t = %g", fn, in.time)
	if in.state != nil {
		in.logf(catSolver, OK, "%s: solver statistics: %s", fn, in.state.stats())
	}
	return OK
}

// Reset returns the instance to the instantiated state with the start
// values of the model file (the log settings are kept).
func (in *Instance) Reset() Status {
	const fn = "fmi2Reset"
	if !in.allowed(fn, anyPhase) {
		return Error
	}
	in.reset()
	in.logf(catEvents, OK, "%s", fn)
	return OK
}

// variable returns the variable with value reference vr, or nil.
func (in *Instance) variable(vr uint32) *Variable {
	if int64(vr) < int64(len(in.desc.Variables)) {
		return &in.desc.Variables[vr]
	}
	return nil
}

// unknownRef reports a Real value reference that names no variable.
func (in *Instance) unknownRef(fn string, r uint32) Status {
	if in.fmi3 {
		if in.array(r) != nil {
			return in.errorf(fn, "value reference %d is the array output %q, which this call does not take", r, in.array(r).Name)
		}
		return in.errorf(fn, "unknown value reference %d (Float64 value references are 0..%d)", r, in.desc.TimeVR)
	}
	return in.errorf(fn, "unknown value reference %d (Real value references are 0..%d)", r, len(in.desc.Variables)-1)
}

// GetReal reads Real variables into v (len(v) == len(vr)). The states are
// read from the engine; their derivatives are computed on request from the
// state and the inputs as set (and kept until the state or an input
// changes).
func (in *Instance) GetReal(vr []uint32, v []float64) Status {
	const fn = "fmi2GetReal"
	if !in.allowed(fn, getPhases) {
		return Error
	}
	if len(v) < len(vr) {
		return in.errorf(fn, "value array shorter than the value-reference array")
	}
	states, derivs := false, false
	for _, r := range vr {
		x := in.variable(r)
		if x == nil && in.isTime(r) {
			continue
		}
		if x == nil {
			return in.unknownRef(fn, r)
		}
		if (x.Causality == CausalityOutput || x.Causality == CausalityLocal) && in.phase == InitializationMode && (!in.initDone || in.dirty) {
			if st := in.initialize(fn); st != OK {
				return st
			}
		}
		if x.Causality == CausalityLocal {
			states = true
			derivs = derivs || x.Local == LocalQuatRate || x.Local == LocalAcceleration || x.Local == LocalElementRate
		}
	}
	if states {
		if st := in.readStates(fn, derivs); st != OK {
			return st
		}
	}
	if in.state != nil && in.model.info().feedthrough {
		// a controller's outputs follow its inputs as set (evaluated once
		// per change)
		in.model.evalOutputs(in.state, in.outputs)
		if !allFinite(in.outputs) {
			return in.errorf(fn, "the controller cannot be evaluated with the inputs set (a non-finite input, or a step against its sample time)")
		}
	}
	for k, r := range vr {
		if in.isTime(r) {
			v[k] = in.time
			continue
		}
		x := &in.desc.Variables[r]
		switch x.Causality {
		case CausalityInput:
			v[k] = in.inputs[x.Index]
		case CausalityOutput:
			v[k] = in.outputs[x.Index]
		case CausalityLocal:
			switch x.Local {
			case LocalPosition, LocalElementState:
				v[k] = in.sq[x.Index]
			case LocalVelocity:
				v[k] = in.sv[x.Index]
			case LocalQuatRate, LocalElementRate:
				v[k] = in.dq[x.Index]
			default:
				v[k] = in.dv[x.Index]
			}
		default:
			v[k] = in.params[x.Index]
		}
	}
	return OK
}

// readStates reads the states into sq, sv and, when derivs is set, makes
// sure dq, dv hold their derivatives.
func (in *Instance) readStates(fn string, derivs bool) Status {
	if in.state == nil {
		return in.errorf(fn, "the states are not available: the FMU was not initialised")
	}
	if !in.statesOK {
		return in.errorf(fn, "the states are not available: the fixed parameters set change the model's states (the number of beam elements, or an element's own states: a motor's inductance set to or from 0), which the variable table cannot follow")
	}
	in.state.states(in.sq, in.sv)
	if in.nqc < len(in.sq) {
		es, ok := in.state.(elementStater)
		if !ok {
			return in.errorf(fn, "the element states are not available from this engine")
		}
		es.elementStates(in.sq[in.nqc:])
	}
	if derivs && !in.derOK {
		if err := in.model.stateDerivatives(in.state, in.dq, in.dv); err != nil {
			return in.errorf(fn, "state derivatives: %v", err)
		}
		in.derOK = true
	}
	return OK
}

// SetReal sets inputs and parameters. Inputs may be set before
// initialisation and between steps, tunable parameters too, fixed
// parameters only before and during initialisation mode. Non-finite
// values are rejected. Either every value is set or none.
func (in *Instance) SetReal(vr []uint32, v []float64) Status {
	const fn = "fmi2SetReal"
	if !in.allowed(fn, setPhases) {
		return Error
	}
	if len(v) < len(vr) {
		return in.errorf(fn, "value array shorter than the value-reference array")
	}
	for k, r := range vr {
		x := in.variable(r)
		switch {
		case x == nil && in.isTime(r):
			return in.errorf(fn, "time (value reference %d) is the independent variable and cannot be set", r)
		case x == nil:
			return in.unknownRef(fn, r)
		case x.Causality == CausalityOutput:
			return in.errorf(fn, "%q (value reference %d) is an output and cannot be set", x.Name, r)
		case x.Causality == CausalityLocal:
			return in.errorf(fn, "%q (value reference %d) is a state or state derivative of the engine and cannot be set", x.Name, r)
		case x.Causality != CausalityInput && in.phase == IntermediateUpdate:
			return in.errorf(fn, "%q (value reference %d) is no input: in intermediate update mode only inputs can be set", x.Name, r)
		case x.Variability == VariabilityFixed && in.phase == StepComplete:
			return in.errorf(fn, "%q (value reference %d) is a fixed parameter: it can be set only before fmi2ExitInitializationMode", x.Name, r)
		case !finite(v[k]):
			return in.errorf(fn, "value %v for %q (value reference %d) is not finite", v[k], x.Name, r)
		}
	}
	for k, r := range vr {
		x := &in.desc.Variables[r]
		val := v[k]
		switch x.Causality {
		case CausalityInput:
			in.inputs[x.Index] = val
			if in.phase == StepComplete || in.phase == IntermediateUpdate {
				in.state.setInput(x.Index, val)
			}
		default:
			if in.phase == StepComplete {
				if err := in.state.setParam(x.Index, val); err != nil {
					return in.errorf(fn, "setting %q: %v", x.Name, err)
				}
			}
			in.params[x.Index] = val
		}
	}
	if in.phase == InitializationMode && len(vr) > 0 {
		in.dirty = true
	}
	in.outDerivOK, in.derOK = false, false
	return OK
}

// noVariables handles the getters and setters of a type the FMU has no
// variables of: only an empty request succeeds.
func (in *Instance) noVariables(fn, typ string, ps phaseSet, vr []uint32) Status {
	if !in.allowed(fn, ps) {
		return Error
	}
	if len(vr) > 0 {
		return in.errorf(fn, "unknown value reference %d: this FMU has no %s variables", vr[0], typ)
	}
	return OK
}

// GetInteger fails for any value reference: the FMU has no Integer variables.
func (in *Instance) GetInteger(vr []uint32) Status {
	return in.noVariables("fmi2GetInteger", "Integer", getPhases, vr)
}

// SetInteger fails for any value reference: the FMU has no Integer variables.
func (in *Instance) SetInteger(vr []uint32) Status {
	return in.noVariables("fmi2SetInteger", "Integer", setPhases, vr)
}

// GetBoolean fails for any value reference: the FMU has no Boolean variables.
func (in *Instance) GetBoolean(vr []uint32) Status {
	return in.noVariables("fmi2GetBoolean", "Boolean", getPhases, vr)
}

// SetBoolean fails for any value reference: the FMU has no Boolean variables.
func (in *Instance) SetBoolean(vr []uint32) Status {
	return in.noVariables("fmi2SetBoolean", "Boolean", setPhases, vr)
}

// GetString fails for any value reference: the FMU has no String variables.
func (in *Instance) GetString(vr []uint32) Status {
	return in.noVariables("fmi2GetString", "String", getPhases, vr)
}

// SetString fails for any value reference: the FMU has no String variables.
func (in *Instance) SetString(vr []uint32) Status {
	return in.noVariables("fmi2SetString", "String", setPhases, vr)
}

// DoStep advances from the master's currentCommunicationPoint t by h.
//
// t must agree with the instance's time within 1e-9·max(1,|t|) (a larger
// mismatch is an error). The engine keeps its own time: the step's target
// is counted in the master's steps (commClock) and lands on the engine's
// fixed time grid, anchored at the start time, so masters that compute
// their communication points as t += h or as t₀ + n·h get the same steps,
// bit for bit. A failed integration or a non-finite output returns Discard
// (fmi2LastSuccessfulTime tells how far it got, fmi2Terminated is true).
// A normal step never returns Warning.
func (in *Instance) DoStep(t, h float64, noSetFMUStatePriorToCurrentPoint bool) Status {
	st, _ := in.doStep(t, h, false)
	return st
}

// doStep is DoStep; with intermediate it calls the instance's
// intermediate-update callback (FMI 3.0, fmi3.go) at every internal grid
// point inside the step, and reports whether the master ended the step
// there (early).
func (in *Instance) doStep(t, h float64, intermediate bool) (st Status, early bool) {
	const fn = "fmi2DoStep"
	if !in.allowed(fn, stepPhase) {
		return Error, false
	}
	if !finite(t) || !(h > 0) || math.IsInf(h, 0) {
		return in.errorf(fn, "invalid currentCommunicationPoint %v or communicationStepSize %v (must be finite and > 0)", t, h), false
	}
	if math.Abs(t-in.time) > timeTol(t) {
		return in.errorf(fn, "currentCommunicationPoint %.17g does not match the FMU's time %.17g (difference %.3g s); steps must be contiguous (use fmi2SetFMUstate to go back)", t, in.time, t-in.time), false
	}
	target := t + h
	if in.stopDefined && target > in.stopTime+timeTol(in.stopTime) {
		return in.errorf(fn, "step to %.17g s goes past the stopTime %.17g s given to fmi2SetupExperiment", target, in.stopTime), false
	}
	// A step the FMU cannot finish in bounded time is refused, not run for
	// hours (or frozen, beyond the time grid): at most maxStepsPerCall
	// internal steps per call, and a target within maxGridSpan steps of
	// the start.
	if hi := in.model.info().integratorStep; hi > 0 {
		if n := h / hi; n > maxStepsPerCall {
			return in.errorf(fn, "communicationStepSize %g s is %.3g internal steps of %g s, more than the %g one call may take: take shorter communication steps", h, n, hi, float64(maxStepsPerCall)), false
		}
		if n := math.Abs(target-in.startTime) / hi; n > solver.MaxGridSteps {
			return in.errorf(fn, "step to %.17g s is %.3g internal steps of %g s from the start time, beyond the %g the time grid tells apart at double precision", target, n, hi, float64(solver.MaxGridSteps)), false
		}
	}
	ni := len(in.inputs)
	for i := 0; i < ni; i++ {
		for o := 1; o <= 2; o++ {
			if err := in.state.setInputDerivative(i, o, in.inDeriv[(o-1)*ni+i]); err != nil {
				return in.errorf(fn, "%v", err), false
			}
		}
	}
	// the ramps apply to this step only: the inputs then hold what they
	// reached (until set again)
	defer in.endRamps()
	in.outDerivOK, in.derOK = false, false
	end := in.clock.next(in.state.time(), h)
	in.state.stepSize(h)
	if intermediate {
		var st Status
		if st, early = in.intermediateSteps(fn, t, end); st != OK || early {
			return st, early
		}
		// the master may have read derivatives at the last internal point
		// (they are cached): the state moves on
		in.outDerivOK, in.derOK = false, false
	}
	if err := in.model.advanceTo(in.state, end); err != nil {
		sf, ok := err.(*stepFailure)
		if !ok {
			return in.failf(fn, "%v", err), false
		}
		in.time, in.lastOK = sf.last, sf.last
		in.model.evalOutputs(in.state, in.scratch)
		if allFinite(in.scratch) {
			copy(in.outputs, in.scratch)
		}
		return in.discard(fn, "%v", sf), false
	}
	in.model.evalOutputs(in.state, in.scratch)
	for i, v := range in.scratch {
		if !finite(v) {
			// the outputs keep the values of the last good point: t, or
			// the last internal point of an intermediate update
			in.lastOK = in.time
			o := in.base.info().outputs[i]
			where := ""
			if o.where != "" {
				where = " (" + o.where + ")"
			}
			return in.discard(fn, "output %q%s is %v at t = %.17g s: the simulation cannot go on (outputs keep their values at t = %.17g s)", o.name, where, v, target, in.time), false
		}
	}
	copy(in.outputs, in.scratch)
	in.time, in.lastOK = target, target
	in.clock.n++
	in.lastStep = OK
	return OK, false
}

// endRamps clears the inputs' derivatives after a step.
func (in *Instance) endRamps() {
	if in.state == nil {
		return
	}
	ni := len(in.inputs)
	for k, d := range in.inDeriv {
		if d != 0 {
			in.state.setInputDerivative(k%ni, 1+k/ni, 0)
			in.inDeriv[k] = 0
		}
	}
}

// SetRealInputDerivatives sets first or second time derivatives of inputs
// (canInterpolateInputs): during the next fmi2DoStep input i follows
// u + u̇ (t − t_c) + ½ ü (t − t_c)² from the communication point t_c, and
// holds the value it reached afterwards. The derivatives apply to that
// one step. Every value is checked before any is set.
func (in *Instance) SetRealInputDerivatives(vr []uint32, order []int32, v []float64) Status {
	const fn = "fmi2SetRealInputDerivatives"
	if !in.allowed(fn, setPhases) {
		return Error
	}
	if len(order) < len(vr) || len(v) < len(vr) {
		return in.errorf(fn, "order or value array shorter than the value-reference array")
	}
	if in.desc.Controller && len(vr) > 0 {
		// (accepted here, they would make every following fmi2DoStep fail)
		return in.errorf(fn, "a controller FMU takes no input derivatives (canInterpolateInputs=\"false\")")
	}
	for k, r := range vr {
		x := in.variable(r)
		switch {
		case x == nil:
			return in.unknownRef(fn, r)
		case x.Causality != CausalityInput:
			return in.errorf(fn, "%q (value reference %d) is not an input: only inputs have derivatives to set", x.Name, r)
		case order[k] < 1 || order[k] > 2:
			return in.errorf(fn, "derivative order %d for %q: this FMU interpolates inputs with first and second derivatives (order 1 or 2)", order[k], x.Name)
		case !finite(v[k]):
			return in.errorf(fn, "derivative %v for %q (value reference %d) is not finite", v[k], x.Name, r)
		}
	}
	ni := len(in.inputs)
	for k, r := range vr {
		x := &in.desc.Variables[r]
		in.inDeriv[int(order[k]-1)*ni+x.Index] = v[k]
	}
	return OK
}

// GetRealOutputDerivatives returns first time derivatives of outputs at
// the current state (maxOutputDerivativeOrder = 1): after a step, at its
// end, with the inputs held. They are taken along the motion, with the
// accelerations of the equations of motion (solver.OutputDerivatives).
func (in *Instance) GetRealOutputDerivatives(vr []uint32, order []int32, v []float64) Status {
	const fn = "fmi2GetRealOutputDerivatives"
	// (FMI 3.0 allows fmi3GetOutputDerivatives in intermediate update mode)
	if !in.allowed(fn, statusPhases|1<<IntermediateUpdate) {
		return Error
	}
	if len(order) < len(vr) || len(v) < len(vr) {
		return in.errorf(fn, "order or value array shorter than the value-reference array")
	}
	for k, r := range vr {
		x := in.variable(r)
		switch {
		case x == nil:
			return in.unknownRef(fn, r)
		case x.Causality != CausalityOutput:
			return in.errorf(fn, "%q (value reference %d) is not an output", x.Name, r)
		case order[k] != 1:
			return in.errorf(fn, "derivative order %d for %q: this FMU provides first derivatives (maxOutputDerivativeOrder = 1)", order[k], x.Name)
		}
	}
	if in.state == nil {
		return in.errorf(fn, "no state: the FMU was not initialised")
	}
	if !in.outDerivOK {
		if in.outDeriv == nil {
			in.outDeriv = make([]float64, len(in.outputs))
		}
		if err := in.model.outputDerivatives(in.state, in.outDeriv); err != nil {
			return in.errorf(fn, "%v", err)
		}
		in.outDerivOK = true
	}
	for k, r := range vr {
		v[k] = in.outDeriv[in.desc.Variables[r].Index]
	}
	return OK
}

// GetDirectionalDerivative computes dvUnknown = J·dvKnown at the current
// point (providesDirectionalDerivative), J the partial derivatives of the
// unknowns — outputs and state derivatives (the states themselves too) —
// with respect to the knowns — inputs and states (positions, velocities,
// element states). The state derivatives depend on the states and inputs
// (solver.Model.DirectionalDerivative: q̇ exactly, the accelerations and
// the element states' rates by Richardson-extrapolated central
// differences of consistent acceleration solves; an element state moves
// the forces that read it, a motor's current its torque). The outputs
// depend on the states only: they are computed at the end of a step and
// setting an input does not change them (no direct feedthrough, as ModelStructure
// declares), so their derivative with respect to an input is zero; with
// respect to the states they are differentiated as computed from the
// state, with the accelerations of the equations of motion. The states
// cannot be set (they are knowns of the Jacobian only).
func (in *Instance) GetDirectionalDerivative(unknown, known []uint32, dvKnown, dvUnknown []float64) Status {
	const fn = "fmi2GetDirectionalDerivative"
	if !in.allowed(fn, getPhases&^(1<<IntermediateUpdate)) {
		return Error
	}
	if in.desc.Controller {
		return in.errorf(fn, "a controller FMU provides no directional derivatives (providesDirectionalDerivative=\"false\")")
	}
	if len(dvKnown) < len(known) || len(dvUnknown) < len(unknown) {
		return in.errorf(fn, "dvKnown or dvUnknown shorter than its value-reference array")
	}
	needA, needQ, needE, needY := false, false, false, false
	for _, r := range unknown {
		x := in.variable(r)
		switch {
		case x == nil:
			return in.unknownRef(fn, r)
		case x.Causality != CausalityOutput && x.Causality != CausalityLocal:
			return in.errorf(fn, "%q (value reference %d) is a%s %s: the unknowns are outputs, states and state derivatives", x.Name, r, article(x.Causality), x.Causality)
		}
		needA = needA || x.Local == LocalAcceleration
		needQ = needQ || x.Local == LocalQuatRate
		needE = needE || x.Local == LocalElementRate
		needY = needY || x.Causality == CausalityOutput
	}
	for k, r := range known {
		x := in.variable(r)
		switch {
		case x == nil:
			return in.unknownRef(fn, r)
		case x.Causality != CausalityInput && !x.IsState():
			return in.errorf(fn, "%q (value reference %d) is not a known: the knowns are inputs and states (positions, velocities, element states)", x.Name, r)
		case !finite(dvKnown[k]):
			return in.errorf(fn, "seed %v for %q (value reference %d) is not finite", dvKnown[k], x.Name, r)
		}
	}
	if in.phase == InitializationMode && (!in.initDone || in.dirty) {
		if st := in.initialize(fn); st != OK {
			return st
		}
	}
	if in.state == nil {
		return in.errorf(fn, "no state: the FMU was not initialised")
	}
	if !in.statesOK {
		return in.errorf(fn, "the states are not available: the fixed parameters set change the model's states (the number of beam elements, or an element's own states: a motor's inductance set to or from 0), which the variable table cannot follow")
	}
	w := in.jacWork()
	clear(w.sq)
	clear(w.sv)
	clear(w.su)
	seedX, seedU := false, false
	for k, r := range known {
		x := &in.desc.Variables[r]
		d := dvKnown[k]
		switch {
		case x.Causality == CausalityInput:
			w.su[x.Index] += d
			seedU = seedU || d != 0
		case x.Local == LocalPosition || x.Local == LocalElementState:
			w.sq[x.Index] += d
			seedX = seedX || d != 0
		default:
			w.sv[x.Index] += d
			seedX = seedX || d != 0
		}
	}
	// the state derivatives with the inputs' seed; the outputs with the
	// states' seed only (in the same pass when the inputs have none); the
	// element states' rates, jq's entries after the positions', only when
	// asked for
	yDone := false
	if needA || needQ || needE {
		var su, jv, jy []float64
		jq := w.jq[:in.nqc]
		if needE {
			jq = w.jq
		}
		if seedU {
			su = w.su
		}
		if needA {
			jv = w.jv
		}
		if needY && !seedU {
			jy, yDone = w.jy, true
		}
		if err := in.model.directional(in.state, w.sq, w.sv, su, jq, jv, jy); err != nil {
			return in.errorf(fn, "%v", err)
		}
	}
	if needY && !yDone {
		if seedX {
			if err := in.model.directional(in.state, w.sq, w.sv, nil, w.jq2[:in.nqc], nil, w.jy); err != nil {
				return in.errorf(fn, "%v", err)
			}
		} else {
			clear(w.jy)
		}
	}
	for k, r := range unknown {
		x := &in.desc.Variables[r]
		switch {
		case x.Causality == CausalityOutput:
			dvUnknown[k] = w.jy[x.Index]
		case x.Local == LocalPosition || x.Local == LocalElementState:
			dvUnknown[k] = w.sq[x.Index]
		case x.Local == LocalVelocity:
			dvUnknown[k] = w.sv[x.Index]
		case x.Local == LocalQuatRate || x.Local == LocalElementRate:
			dvUnknown[k] = w.jq[x.Index]
		default:
			dvUnknown[k] = w.jv[x.Index]
		}
	}
	return OK
}

// jacWork returns the work space of GetDirectionalDerivative.
func (in *Instance) jacWork() *jacWork {
	if in.jw == nil {
		nq, nv, ny := len(in.sq), len(in.sv), len(in.outputs)
		in.jw = &jacWork{
			sq: make([]float64, nq), sv: make([]float64, nv), su: make([]float64, len(in.inputs)),
			jq: make([]float64, nq), jv: make([]float64, nv), jy: make([]float64, ny),
			jq2: make([]float64, nq),
		}
	}
	return in.jw
}

// article returns "n" before a word that starts with a vowel.
func article(c Causality) string {
	if s := c.String(); s[0] == 'i' || s[0] == 'o' {
		return "n"
	}
	return ""
}

// commClock counts the master's communication steps. A master that
// advances its time as t += H and one that computes t₀ + n·H hand over
// step sizes that differ in the last bits; both are taken as the same H,
// and the engine's target is computed as base + n·H from the engine's own
// time at the first such step, never by accumulation. So both masters get
// the same targets, and (with the engine's time grid) the same numbers,
// bit for bit. A genuinely different step size starts the count again.
// maxStepsPerCall bounds the internal steps of one fmi2DoStep (about 10 s
// of computing at 1 µs a step); the internal steps from the start time to
// a communication point are bounded by the time grid's limit,
// solver.MaxGridSteps.
const maxStepsPerCall = 1e7

type commClock struct {
	base, h float64
	n       int64
}

// next returns the engine's target for a step of size h from the
// engine's time t (the count is advanced by the caller on success).
func (c *commClock) next(t, h float64) float64 {
	if c.h == 0 || math.Abs(h-c.h) > 1e-9*c.h+1e-15*(math.Abs(t)+h) {
		c.base, c.h, c.n = t, h, 0
	}
	return c.base + float64(c.n+1)*c.h
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if !finite(v) {
			return false
		}
	}
	return true
}

// discard ends a failed step: stepFailed, Terminated true.
func (in *Instance) discard(fn, format string, args ...any) Status {
	in.phase = StepFailed
	in.terminated = true
	in.lastStep = Discard
	in.logf(catDiscard, Discard, fn+": "+format, args...)
	return Discard
}

// CancelStep always fails: fmi2DoStep is synchronous, no step is ever pending.
func (in *Instance) CancelStep() Status {
	return in.errorf("fmi2CancelStep", "no asynchronous step is in progress (fmi2DoStep is synchronous, canRunAsynchronuously=false)")
}

// GetStatus answers fmi2GetStatus. fmi2DoStepStatus is only meaningful while
// an asynchronous step is pending, which never happens: it returns Discard
// (status not available) with the status of the last step in value.
func (in *Instance) GetStatus(k StatusKind) (value Status, st Status) {
	const fn = "fmi2GetStatus"
	if !in.allowed(fn, statusPhases) {
		return OK, Error
	}
	if k == DoStepStatus {
		in.logf(catDiscard, Discard, "%s: fmi2DoStepStatus is not available: no asynchronous step is pending (fmi2DoStep is synchronous); the last step returned %s", fn, in.lastStep)
		return in.lastStep, Discard
	}
	return OK, in.noStatus(fn, k)
}

// noStatus reports a status kind the function cannot deliver.
func (in *Instance) noStatus(fn string, k StatusKind) Status {
	if k < DoStepStatus || k > Terminated {
		return in.errorf(fn, "invalid status kind %d", int(k))
	}
	in.logf(catDiscard, Discard, "%s: %s is not available from this function", fn, k)
	return Discard
}

// GetRealStatus answers fmi2GetRealStatus(fmi2LastSuccessfulTime).
func (in *Instance) GetRealStatus(k StatusKind) (float64, Status) {
	const fn = "fmi2GetRealStatus"
	if !in.allowed(fn, statusPhases) {
		return 0, Error
	}
	if k == LastSuccessfulTime {
		return in.lastOK, OK
	}
	return 0, in.noStatus(fn, k)
}

// GetIntegerStatus has no status kind to answer.
func (in *Instance) GetIntegerStatus(k StatusKind) (int32, Status) {
	const fn = "fmi2GetIntegerStatus"
	if !in.allowed(fn, statusPhases) {
		return 0, Error
	}
	return 0, in.noStatus(fn, k)
}

// GetBooleanStatus answers fmi2GetBooleanStatus(fmi2Terminated): true after
// a failed step (the simulation cannot go on).
func (in *Instance) GetBooleanStatus(k StatusKind) (bool, Status) {
	const fn = "fmi2GetBooleanStatus"
	if !in.allowed(fn, statusPhases) {
		return false, Error
	}
	if k == Terminated {
		return in.terminated, OK
	}
	return false, in.noStatus(fn, k)
}

// GetStringStatus answers fmi2GetStringStatus(fmi2PendingStatus) with
// Discard: no step is ever pending.
func (in *Instance) GetStringStatus(k StatusKind) (string, Status) {
	const fn = "fmi2GetStringStatus"
	if !in.allowed(fn, statusPhases) {
		return "", Error
	}
	if k == PendingStatus {
		in.logf(catDiscard, Discard, "%s: no asynchronous step is pending", fn)
		return "", Discard
	}
	return "", in.noStatus(fn, k)
}
