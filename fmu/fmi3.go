package fmu

import (
	"math"
	"strings"
)

// The FMI 3.0 co-simulation interface of an Instance (Config.FMIVersion 3).
// It is the FMI 2.0 instance with FMI 3.0's calls on top: the same engine,
// state machine (Step Mode is stepComplete) and value references, plus the
// independent variable time and the array outputs of vector channels
// (Description.Arrays), whose values are their scalar elements', and
// intermediate update with early return on the master's request
// (intermediateSteps). Event mode and clocks are not offered (describe3.go
// declares them false), so their calls return Error.

// fmi3Name turns a log message of the FMI 2.0 calls into FMI 3.0's names.
func fmi3Name(msg string) string {
	return strings.NewReplacer(
		"fmi2SetupExperiment", "fmi3EnterInitializationMode",
		"fmi2GetRealOutputDerivatives", "fmi3GetOutputDerivatives",
		"fmi2GetReal", "fmi3GetFloat64",
		"fmi2SetReal", "fmi3SetFloat64",
		"fmi2GetFMUstate", "fmi3GetFMUState",
		"fmi2SetFMUstate", "fmi3SetFMUState",
		"fmi2FreeFMUstate", "fmi3FreeFMUState",
		"fmi2SerializedFMUstateSize", "fmi3SerializedFMUStateSize",
		"fmi2SerializeFMUstate", "fmi3SerializeFMUState",
		"fmi2DeSerializeFMUstate", "fmi3DeserializeFMUState",
		"fmi2LastSuccessfulTime", "lastSuccessfulTime",
		"fmi2Terminated", "terminateSimulation",
		"fmuGUID", "instantiationToken",
		"Real value references", "Float64 value references",
		"fmi2", "fmi3",
	).Replace(msg)
}

// isTime reports whether r is the FMI 3.0 independent variable.
func (in *Instance) isTime(r uint32) bool { return in.fmi3 && r == in.desc.TimeVR }

// array returns the FMI 3.0 array output with value reference r, or nil.
func (in *Instance) array(r uint32) *ArrayVar {
	if !in.fmi3 || r < uint32(len(in.desc.Variables)) {
		return nil
	}
	if k := int(r) - len(in.desc.Variables); k < len(in.desc.Arrays) {
		return &in.desc.Arrays[k]
	}
	return nil
}

// expand replaces the array outputs among vr by their elements (into the
// instance's reusable buffer) and checks that nValues values go with them.
func (in *Instance) expand(fn string, vr []uint32, nValues int, buf *[]uint32) ([]uint32, Status) {
	n := 0
	plain := true
	for _, r := range vr {
		if a := in.array(r); a != nil {
			n += len(a.Elems)
			plain = false
		} else {
			n++
		}
	}
	if n != nValues {
		return nil, in.errorf(fn, "nValues is %d, but the %d value references given have %d values (an array counts all its elements)", nValues, len(vr), n)
	}
	if plain {
		return vr, OK
	}
	out := (*buf)[:0]
	for _, r := range vr {
		if a := in.array(r); a != nil {
			out = append(out, a.Elems...)
		} else {
			out = append(out, r)
		}
	}
	*buf = out
	return out, OK
}

// EnterInitializationMode3 is fmi3EnterInitializationMode: FMI 2.0's
// fmi2SetupExperiment and fmi2EnterInitializationMode in one call.
func (in *Instance) EnterInitializationMode3(tolDefined bool, tol, start float64, stopDefined bool, stop float64) Status {
	if st := in.SetupExperiment(tolDefined, tol, start, stopDefined, stop); st != OK {
		return st
	}
	return in.EnterInitializationMode()
}

// GetFloat64 is fmi3GetFloat64: scalars, the array outputs (all elements,
// row-major) and time; len(v) must be the number of values.
func (in *Instance) GetFloat64(vr []uint32, v []float64) Status {
	ex, st := in.expand("fmi2GetReal", vr, len(v), &in.vr3)
	if st != OK {
		return st
	}
	return in.GetReal(ex, v)
}

// SetFloat64 is fmi3SetFloat64 (inputs and parameters, which are scalars).
func (in *Instance) SetFloat64(vr []uint32, v []float64) Status {
	ex, st := in.expand("fmi2SetReal", vr, len(v), &in.vr3)
	if st != OK {
		return st
	}
	return in.SetReal(ex, v)
}

// NoVariables3 is a getter or setter of an FMI 3.0 type the FMU has no
// variables of (every type but Float64): only an empty request succeeds.
func (in *Instance) NoVariables3(fn, typ string, set bool, vr []uint32) Status {
	ps := getPhases
	if set {
		ps = setPhases
	}
	return in.noVariables(fn, typ, ps, vr)
}

// Unsupported3 refuses an FMI 3.0 call of a capability the FMU does not
// declare (event mode, configuration mode, clocks, per-element
// dependencies).
func (in *Instance) Unsupported3(fn, why string) Status {
	return in.errorf(fn, "%s", why)
}

// IntermediateUpdateFunc is the master's intermediate-update callback as
// the instance calls it, at internal time t, in intermediate update mode
// (inputs may be set, values read): canReturnEarly tells whether the master
// may end the step there; it answers whether to, and at which time
// (earlyReturn, earlyTime).
type IntermediateUpdateFunc func(t float64, canReturnEarly bool) (earlyReturn bool, earlyTime float64)

// DoStep3 is fmi3DoStep: fmi2DoStep with FMI 3.0's results. No event needs
// handling; terminate is true when the FMU cannot go on (a discarded
// step), lastSuccessful the time it reached, early whether the master ended
// the step early from its intermediate-update callback.
func (in *Instance) DoStep3(t, h float64, noSetFMUStatePriorToCurrentPoint bool) (st Status, terminate, early bool, lastSuccessful float64) {
	st, early = in.doStep(t, h, in.iu != nil || in.early)
	return st, st == Discard && in.terminated, early, in.lastOK
}

// intermediateSteps advances the state grid point by grid point towards
// end (the step's end, excluded) and calls the intermediate-update
// callback at each, in intermediate update mode, with the outputs and time
// of that point: the master may read them and set inputs, which act from
// there as if it had stepped at the internal step (an internal step of a
// fixed-step integrator; an adaptive one is not split, so its steps stay
// those of one call). With early return allowed and asked for, the step
// ends at the first grid point at or after the time the master gives.
// Without changes by the master the step is bit for bit the one without
// callbacks (the engine's grid steps are the same).
func (in *Instance) intermediateSteps(fn string, t, end float64) (Status, bool) {
	mi := in.model.info()
	hi := mi.integratorStep
	if mi.tol > 0 || !(hi > 0) {
		return OK, false
	}
	if in.iu == nil && len(in.state.contactModes(in.cm0[:0])) == 0 {
		return OK, false // early return allowed, but no contact to end a step
	}
	wantEarly, earlyAt := false, 0.0
	for {
		now := in.state.time()
		k := math.Floor((now-in.startTime)/hi + 1e-6)
		g := in.startTime + (k+1)*hi
		if g > end-1e-3*hi {
			return OK, false
		}
		if in.early {
			in.cm0 = in.state.contactModes(in.cm0[:0])
		}
		if err := in.model.advanceTo(in.state, g); err != nil {
			sf, ok := err.(*stepFailure)
			if !ok {
				return in.failf(fn, "%v", err), false
			}
			in.time, in.lastOK = sf.last, sf.last
			return in.discard(fn, "%v", sf), false
		}
		in.outDerivOK, in.derOK = false, false
		event := false
		if in.early {
			// a contact event (a contact closes or opens, sticks or
			// slips) ends the step here, the master allowing it
			in.cm1 = in.state.contactModes(in.cm1[:0])
			for i, m := range in.cm1 {
				event = event || m != in.cm0[i]
			}
		}
		if in.iu == nil && !event {
			continue // nobody looks at this point: no outputs needed
		}
		in.model.evalOutputs(in.state, in.scratch)
		for i, v := range in.scratch {
			if !finite(v) {
				// the outputs keep their values at the last internal point
				in.lastOK = in.time
				o := in.base.info().outputs[i]
				return in.discard(fn, "output %q is %v at t = %.17g s: the simulation cannot go on (outputs keep their values at t = %.17g s)", o.name, v, g, in.time), false
			}
		}
		copy(in.outputs, in.scratch)
		in.time = g
		if wantEarly && g >= earlyAt-1e-9*hi {
			return in.endEarly(g, "as the master asked"), true
		}
		if event {
			return in.endEarly(g, "at a contact event"), true
		}
		in.phase = IntermediateUpdate
		req, at := in.iu(g, in.early)
		if in.phase != IntermediateUpdate {
			// a call from the callback failed inside (a recovered panic
			// moved the instance to the error state): the step ends there
			return in.errorf(fn, "the instance left intermediate update mode during the callback at t = %.17g s (state %s)", g, in.phase), false
		}
		in.phase = StepComplete
		if in.early && req {
			if at <= g+1e-9*hi {
				return in.endEarly(g, "as the master asked"), true
			}
			wantEarly, earlyAt = true, at
		}
	}
}

// endEarly ends a step at internal time g (early return): the master's
// next step starts there, and the communication clock starts anew.
func (in *Instance) endEarly(g float64, why string) Status {
	in.time, in.lastOK = g, g
	in.clock = commClock{}
	in.lastStep = OK
	if in.logMask.on(catEvents) { // (the arguments would allocate)
		in.logf(catEvents, OK, "fmi3DoStep: returned early at t = %.17g s, %s", g, why)
	}
	return OK
}

// GetOutputDerivatives3 is fmi3GetOutputDerivatives: first derivatives of
// outputs, an array's for all its elements (order given per value
// reference).
func (in *Instance) GetOutputDerivatives3(vr []uint32, order []int32, v []float64) Status {
	const fn = "fmi2GetRealOutputDerivatives"
	ex, st := in.expand(fn, vr, len(v), &in.vr3)
	if st != OK {
		return st
	}
	if len(ex) != len(vr) {
		o := in.ord3[:0]
		for k, r := range vr {
			n := 1
			if a := in.array(r); a != nil {
				n = len(a.Elems)
			}
			for ; n > 0; n-- {
				o = append(o, order[k])
			}
		}
		in.ord3, order = o, o
	}
	return in.GetRealOutputDerivatives(ex, order, v)
}

// GetDirectionalDerivative3 is fmi3GetDirectionalDerivative: as FMI 2.0's,
// with arrays among the unknowns (seed and sensitivity count elements).
func (in *Instance) GetDirectionalDerivative3(unknown, known []uint32, seed, sens []float64) Status {
	const fn = "fmi2GetDirectionalDerivative"
	kn, st := in.expand(fn, known, len(seed), &in.kn3)
	if st != OK {
		return st
	}
	un, st := in.expand(fn, unknown, len(sens), &in.vr3)
	if st != OK {
		return st
	}
	return in.GetDirectionalDerivative(un, kn, seed, sens)
}

// GetAdjointDerivative is fmi3GetAdjointDerivative: sens = Jᵀ·seed, J the
// Jacobian of GetDirectionalDerivative (the unknowns' partial derivatives
// with respect to the knowns), seed one value per unknown element and sens
// one per known element. It takes one directional derivative per known
// element (the same tangent, column by column).
func (in *Instance) GetAdjointDerivative(unknown, known []uint32, seed, sens []float64) Status {
	const fn = "fmi3GetAdjointDerivative"
	kn, st := in.expand(fn, known, len(sens), &in.kn3)
	if st != OK {
		return st
	}
	un, st := in.expand(fn, unknown, len(seed), &in.vr3)
	if st != OK {
		return st
	}
	for i, w := range seed {
		if !finite(w) {
			return in.errorf(fn, "seed %v for unknown element %d is not finite", w, i)
		}
	}
	if cap(in.adj3) < len(kn)+len(un) {
		in.adj3 = make([]float64, len(kn)+len(un))
	}
	e, col := in.adj3[:len(kn)], in.adj3[len(kn):len(kn)+len(un)]
	for j := range kn {
		clear(e)
		e[j] = 1
		if st := in.GetDirectionalDerivative(un, kn, e, col); st != OK {
			return st
		}
		s := 0.0
		for i, c := range col {
			s += seed[i] * c
		}
		if math.IsNaN(s) {
			return in.errorf(fn, "the derivative with respect to value reference %d is not finite", kn[j])
		}
		sens[j] = s
	}
	return OK
}
