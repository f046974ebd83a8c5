package main

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/cgo"
	"unsafe"

	"mbfmu/fmu"
)

// The FMI 3.0 exports: every function of fmi3Functions.h, so any importer
// finds the symbols it looks up. Co-Simulation is implemented; Model
// Exchange and Scheduled Execution instances cannot be made, and the calls
// of capabilities the description declares false (event mode,
// configuration mode, clocks, per-element dependencies) return fmi3Error
// with a log line. Intermediate update is offered: the callback runs at every
// internal step with the instance's lock released (intermediateUpdate). Every call checks its instance as the FMI 2.0 exports
// do, and an FMI 2.0 instance is refused by the FMI 3.0 calls (and the
// other way round).

// enter3 finds and locks the FMI 3.0 instance of an entry point; the caller
// must defer x.leave3(&status) when ok.
func enter3(c C.fmi3Instance, fn string) (*component, bool) {
	return enterVersion(C.fmi2Component(unsafe.Pointer(c)), true)
}

// leave3 is leave for the FMI 3.0 calls.
func (x *component) leave3(fn string, st *C.fmi3Status) {
	if r := recover(); r != nil {
		*st = C.fmi3Status(x.inst.Abort(fn, r))
	}
	x.mu.Unlock()
}

func badInstance(fn string) C.fmi3Status {
	fmt.Fprintf(os.Stderr, "mbfmu: %s: invalid fmi3Instance (NULL, already freed, not from this FMU, or an FMI 2.0 instance)\n", fn)
	return C.fmi3Error
}

// arg3 reports a bad pointer argument through the instance's log.
func (x *component) arg3(fn, msg string) C.fmi3Status { return C.fmi3Status(x.argErr(fn, msg)) }

func vr3Slice(p C.mbfmu_ConstVR3Ptr, n C.size_t) []uint32 {
	if n == 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(p)), int(n))
}

func f64Slice(p unsafe.Pointer, n C.size_t) []float64 {
	if n == 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*float64)(p), int(n))
}

//export fmi3GetVersion
func fmi3GetVersion() C.fmi3String { return C.mbfmu_version3() }

//export fmi3InstantiateCoSimulation
func fmi3InstantiateCoSimulation(instanceName C.fmi3String, instantiationToken C.fmi3String, resourcePath C.fmi3String,
	visible C.fmi3Boolean, loggingOn C.fmi3Boolean, eventModeUsed C.fmi3Boolean, earlyReturnAllowed C.fmi3Boolean,
	requiredIntermediateVariables C.mbfmu_ConstVR3Ptr, nRequiredIntermediateVariables C.size_t,
	instanceEnvironment C.uintptr_t, logMessage C.fmi3LogMessageCallback,
	intermediateUpdate C.fmi3IntermediateUpdateCallback) (out C.fmi3Instance) {
	name := "mbfmu"
	if instanceName != nil {
		name = C.GoString(instanceName)
	}
	cname := C.CString(name)
	fail := func(msg string) C.fmi3Instance {
		log3C(logMessage, instanceEnvironment, fmu.Error, fmu.LogStatusError, "fmi3InstantiateCoSimulation: "+msg)
		C.free(unsafe.Pointer(cname))
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			out = fail(fmt.Sprintf("internal error: %v", r))
		}
	}()
	if bool(eventModeUsed) {
		return fail("eventModeUsed is true, but this FMU has no event mode (hasEventMode=\"false\")")
	}
	// requiredIntermediateVariables need not be checked: every input and
	// output is available in intermediate update mode
	x := &component{name: cname, states: map[*C.mbfmu_box]*stateObj{}, fmi3: true, logger3: logMessage, env3: instanceEnvironment,
		iu: intermediateUpdate}
	cfg := fmu.Config{InstanceName: name, LoggingOn: bool(loggingOn), Logger: x.log, FMIVersion: 3,
		EarlyReturnAllowed: bool(earlyReturnAllowed)}
	if intermediateUpdate != nil {
		cfg.IntermediateUpdate = x.intermediateUpdate
	}
	if instantiationToken != nil {
		cfg.GUID = C.GoString(instantiationToken)
	}
	if resourcePath != nil {
		cfg.ResourceLocation = C.GoString(resourcePath)
	}
	p, err := x.open(cfg)
	if err != nil {
		return fail(err.Error())
	}
	return C.fmi3Instance(p)
}

// intermediateUpdate calls the master's callback from inside fmi3DoStep,
// which holds the instance's lock: it is released for the callback, so the
// master can call fmi3GetFloat64 and fmi3SetFloat64 from it.
func (x *component) intermediateUpdate(t float64, canReturnEarly bool) (bool, float64) {
	x.inIU = true
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		x.inIU = false
	}()
	// (the answer comes back by value: pointers to Go variables passed to
	// C would move them to the heap, two allocations per internal step)
	a := C.mbfmu_iu(x.iu, x.env3, C.fmi3Float64(t), C.fmi3Boolean(canReturnEarly))
	return bool(a.earlyReturnRequested), float64(a.earlyReturnTime)
}

//export fmi3InstantiateModelExchange
func fmi3InstantiateModelExchange(instanceName C.fmi3String, instantiationToken C.fmi3String, resourcePath C.fmi3String,
	visible C.fmi3Boolean, loggingOn C.fmi3Boolean, instanceEnvironment C.uintptr_t,
	logMessage C.fmi3LogMessageCallback) C.fmi3Instance {
	log3C(logMessage, instanceEnvironment, fmu.Error, fmu.LogStatusError, "fmi3InstantiateModelExchange: this FMU supports co-simulation only (fmi3InstantiateCoSimulation)")
	return nil
}

//export fmi3InstantiateScheduledExecution
func fmi3InstantiateScheduledExecution(instanceName C.fmi3String, instantiationToken C.fmi3String, resourcePath C.fmi3String,
	visible C.fmi3Boolean, loggingOn C.fmi3Boolean, instanceEnvironment C.uintptr_t,
	logMessage C.fmi3LogMessageCallback, clockUpdate C.fmi3ClockUpdateCallback,
	lockPreemption C.fmi3LockPreemptionCallback, unlockPreemption C.fmi3UnlockPreemptionCallback) C.fmi3Instance {
	log3C(logMessage, instanceEnvironment, fmu.Error, fmu.LogStatusError, "fmi3InstantiateScheduledExecution: this FMU supports co-simulation only (fmi3InstantiateCoSimulation)")
	return nil
}

//export fmi3FreeInstance
func fmi3FreeInstance(c C.fmi3Instance) {
	if c == nil {
		return
	}
	x, ok := enter3(c, "fmi3FreeInstance")
	if !ok {
		badInstance("fmi3FreeInstance")
		return
	}
	var st C.fmi3Status
	defer x.leave3("fmi3FreeInstance", &st)
	if x.inIU {
		x.arg3("fmi3FreeInstance", "called from the intermediate-update callback, inside fmi3DoStep: not freed")
		return
	}
	for _, so := range x.states {
		x.freeState(so)
	}
	box := x.box
	x.box = nil
	cgo.Handle(box.handle).Delete()
	C.mbfmu_box_free(box)
	C.free(unsafe.Pointer(x.name))
	x.name = nil
	x.logger3 = nil
}

// call3 runs f on the locked FMI 3.0 instance behind c.
func call3(c C.fmi3Instance, fn string, f func(x *component) C.fmi3Status) (st C.fmi3Status) {
	x, ok := enter3(c, fn)
	if !ok {
		return badInstance(fn)
	}
	defer x.leave3(fn, &st)
	return f(x)
}

//export fmi3SetDebugLogging
func fmi3SetDebugLogging(c C.fmi3Instance, loggingOn C.fmi3Boolean, nCategories C.size_t, categories C.mbfmu_ConstString3Ptr) C.fmi3Status {
	const fn = "fmi3SetDebugLogging"
	return call3(c, fn, func(x *component) C.fmi3Status {
		if nCategories > 0 && categories == nil || nCategories > maxN {
			return x.arg3(fn, "categories is NULL or nCategories is too large")
		}
		var cats []string
		if nCategories > 0 {
			for _, p := range unsafe.Slice((*C.fmi3String)(unsafe.Pointer(categories)), int(nCategories)) {
				if p == nil {
					return x.arg3(fn, "a category is NULL")
				}
				cats = append(cats, C.GoString(p))
			}
		}
		return C.fmi3Status(x.inst.SetDebugLogging(bool(loggingOn), cats))
	})
}

//export fmi3EnterInitializationMode
func fmi3EnterInitializationMode(c C.fmi3Instance, toleranceDefined C.fmi3Boolean, tolerance C.fmi3Float64,
	startTime C.fmi3Float64, stopTimeDefined C.fmi3Boolean, stopTime C.fmi3Float64) C.fmi3Status {
	return call3(c, "fmi3EnterInitializationMode", func(x *component) C.fmi3Status {
		return C.fmi3Status(x.inst.EnterInitializationMode3(bool(toleranceDefined), float64(tolerance),
			float64(startTime), bool(stopTimeDefined), float64(stopTime)))
	})
}

//export fmi3ExitInitializationMode
func fmi3ExitInitializationMode(c C.fmi3Instance) C.fmi3Status {
	return call3(c, "fmi3ExitInitializationMode", func(x *component) C.fmi3Status {
		return C.fmi3Status(x.inst.ExitInitializationMode())
	})
}

//export fmi3Terminate
func fmi3Terminate(c C.fmi3Instance) C.fmi3Status {
	return call3(c, "fmi3Terminate", func(x *component) C.fmi3Status { return C.fmi3Status(x.inst.Terminate()) })
}

//export fmi3Reset
func fmi3Reset(c C.fmi3Instance) C.fmi3Status {
	return call3(c, "fmi3Reset", func(x *component) C.fmi3Status { return C.fmi3Status(x.inst.Reset()) })
}

// unsupported3 is a call of a capability the FMU does not declare.
func unsupported3(c C.fmi3Instance, fn, why string) C.fmi3Status {
	return call3(c, fn, func(x *component) C.fmi3Status { return C.fmi3Status(x.inst.Unsupported3(fn, why)) })
}

const (
	noEventMode = "this FMU has no event mode (hasEventMode=\"false\"): after fmi3ExitInitializationMode it is in Step Mode"
	noClocks    = "this FMU has no clocks"
	noME        = "this FMU is a co-simulation FMU: Model Exchange calls are not supported"
)

//export fmi3EnterEventMode
func fmi3EnterEventMode(c C.fmi3Instance) C.fmi3Status {
	return unsupported3(c, "fmi3EnterEventMode", noEventMode)
}

//export fmi3EnterStepMode
func fmi3EnterStepMode(c C.fmi3Instance) C.fmi3Status {
	return unsupported3(c, "fmi3EnterStepMode", noEventMode)
}

//export fmi3EnterConfigurationMode
func fmi3EnterConfigurationMode(c C.fmi3Instance) C.fmi3Status {
	return unsupported3(c, "fmi3EnterConfigurationMode", "this FMU has no structural parameters (no configuration mode)")
}

//export fmi3ExitConfigurationMode
func fmi3ExitConfigurationMode(c C.fmi3Instance) C.fmi3Status {
	return unsupported3(c, "fmi3ExitConfigurationMode", "this FMU has no structural parameters (no configuration mode)")
}

//export fmi3EvaluateDiscreteStates
func fmi3EvaluateDiscreteStates(c C.fmi3Instance) C.fmi3Status {
	return unsupported3(c, "fmi3EvaluateDiscreteStates", "providesEvaluateDiscreteStates is false")
}

//export fmi3UpdateDiscreteStates
func fmi3UpdateDiscreteStates(c C.fmi3Instance, discreteStatesNeedUpdate *C.fmi3Boolean, terminateSimulation *C.fmi3Boolean,
	nominalsOfContinuousStatesChanged *C.fmi3Boolean, valuesOfContinuousStatesChanged *C.fmi3Boolean,
	nextEventTimeDefined *C.fmi3Boolean, nextEventTime *C.fmi3Float64) C.fmi3Status {
	return unsupported3(c, "fmi3UpdateDiscreteStates", noEventMode)
}

//export fmi3GetFloat64
func fmi3GetFloat64(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Float64, nValues C.size_t) C.fmi3Status {
	const fn = "fmi3GetFloat64"
	return call3(c, fn, func(x *component) C.fmi3Status {
		if nvr > 0 && vr == nil || nValues > 0 && values == nil || nvr > maxN || nValues > maxN {
			return x.arg3(fn, "valueReferences or values is NULL, or nValueReferences or nValues is too large")
		}
		return C.fmi3Status(x.inst.GetFloat64(vr3Slice(vr, nvr), f64Slice(unsafe.Pointer(values), nValues)))
	})
}

//export fmi3SetFloat64
func fmi3SetFloat64(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstFloat64Ptr, nValues C.size_t) C.fmi3Status {
	const fn = "fmi3SetFloat64"
	return call3(c, fn, func(x *component) C.fmi3Status {
		if nvr > 0 && vr == nil || nValues > 0 && values == nil || nvr > maxN || nValues > maxN {
			return x.arg3(fn, "valueReferences or values is NULL, or nValueReferences or nValues is too large")
		}
		return C.fmi3Status(x.inst.SetFloat64(vr3Slice(vr, nvr), f64Slice(unsafe.Pointer(values), nValues)))
	})
}

// noType3 is a getter or setter of a type the FMU has no variables of.
func noType3(c C.fmi3Instance, fn, typ string, set bool, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values unsafe.Pointer, nValues C.size_t) C.fmi3Status {
	return call3(c, fn, func(x *component) C.fmi3Status {
		if nvr > 0 && (vr == nil || values == nil) || nvr > maxN || nValues > maxN {
			return x.arg3(fn, "valueReferences or values is NULL, or nValueReferences or nValues is too large")
		}
		return C.fmi3Status(x.inst.NoVariables3(fn, typ, set, vr3Slice(vr, nvr)))
	})
}

//export fmi3GetFloat32
func fmi3GetFloat32(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Float32, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetFloat32", "Float32", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetFloat32
func fmi3SetFloat32(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstFloat32Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetFloat32", "Float32", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetInt8
func fmi3GetInt8(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Int8, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetInt8", "Int8", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetInt8
func fmi3SetInt8(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstInt8Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetInt8", "Int8", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetUInt8
func fmi3GetUInt8(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3UInt8, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetUInt8", "UInt8", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetUInt8
func fmi3SetUInt8(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstUInt8Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetUInt8", "UInt8", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetInt16
func fmi3GetInt16(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Int16, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetInt16", "Int16", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetInt16
func fmi3SetInt16(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstInt16Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetInt16", "Int16", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetUInt16
func fmi3GetUInt16(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3UInt16, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetUInt16", "UInt16", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetUInt16
func fmi3SetUInt16(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstUInt16Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetUInt16", "UInt16", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetInt32
func fmi3GetInt32(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Int32, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetInt32", "Int32", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetInt32
func fmi3SetInt32(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstInt32Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetInt32", "Int32", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetUInt32
func fmi3GetUInt32(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3UInt32, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetUInt32", "UInt32", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetUInt32
func fmi3SetUInt32(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstUInt32Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetUInt32", "UInt32", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetInt64
func fmi3GetInt64(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Int64, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetInt64", "Int64", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetInt64
func fmi3SetInt64(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstInt64Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetInt64", "Int64", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetUInt64
func fmi3GetUInt64(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3UInt64, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetUInt64", "UInt64", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetUInt64
func fmi3SetUInt64(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstUInt64Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetUInt64", "UInt64", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetBoolean
func fmi3GetBoolean(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Boolean, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetBoolean", "Boolean", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetBoolean
func fmi3SetBoolean(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstBoolean3Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetBoolean", "Boolean", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetString
func fmi3GetString(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3String, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetString", "String", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetString
func fmi3SetString(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstString3Ptr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetString", "String", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetBinary
func fmi3GetBinary(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, valueSizes *C.size_t, values *C.fmi3Binary, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3GetBinary", "Binary", false, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3SetBinary
func fmi3SetBinary(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, valueSizes C.mbfmu_ConstSizePtr, values C.mbfmu_ConstBinaryPtr, nValues C.size_t) C.fmi3Status {
	return noType3(c, "fmi3SetBinary", "Binary", true, vr, nvr, unsafe.Pointer(values), nValues)
}

//export fmi3GetClock
func fmi3GetClock(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values *C.fmi3Clock) C.fmi3Status {
	return noType3(c, "fmi3GetClock", "Clock", false, vr, nvr, unsafe.Pointer(values), nvr)
}

//export fmi3SetClock
func fmi3SetClock(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, values C.mbfmu_ConstClockPtr) C.fmi3Status {
	return noType3(c, "fmi3SetClock", "Clock", true, vr, nvr, unsafe.Pointer(values), nvr)
}

//export fmi3GetIntervalDecimal
func fmi3GetIntervalDecimal(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, intervals *C.fmi3Float64, qualifiers *C.fmi3IntervalQualifier) C.fmi3Status {
	return unsupported3(c, "fmi3GetIntervalDecimal", noClocks)
}

//export fmi3GetIntervalFraction
func fmi3GetIntervalFraction(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, counters *C.fmi3UInt64, resolutions *C.fmi3UInt64, qualifiers *C.fmi3IntervalQualifier) C.fmi3Status {
	return unsupported3(c, "fmi3GetIntervalFraction", noClocks)
}

//export fmi3GetShiftDecimal
func fmi3GetShiftDecimal(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, shifts *C.fmi3Float64) C.fmi3Status {
	return unsupported3(c, "fmi3GetShiftDecimal", noClocks)
}

//export fmi3GetShiftFraction
func fmi3GetShiftFraction(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, counters *C.fmi3UInt64, resolutions *C.fmi3UInt64) C.fmi3Status {
	return unsupported3(c, "fmi3GetShiftFraction", noClocks)
}

//export fmi3SetIntervalDecimal
func fmi3SetIntervalDecimal(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, intervals C.mbfmu_ConstFloat64Ptr) C.fmi3Status {
	return unsupported3(c, "fmi3SetIntervalDecimal", noClocks)
}

//export fmi3SetIntervalFraction
func fmi3SetIntervalFraction(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, counters C.mbfmu_ConstUInt64Ptr, resolutions C.mbfmu_ConstUInt64Ptr) C.fmi3Status {
	return unsupported3(c, "fmi3SetIntervalFraction", noClocks)
}

//export fmi3SetShiftDecimal
func fmi3SetShiftDecimal(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, shifts C.mbfmu_ConstFloat64Ptr) C.fmi3Status {
	return unsupported3(c, "fmi3SetShiftDecimal", noClocks)
}

//export fmi3SetShiftFraction
func fmi3SetShiftFraction(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, counters C.mbfmu_ConstUInt64Ptr, resolutions C.mbfmu_ConstUInt64Ptr) C.fmi3Status {
	return unsupported3(c, "fmi3SetShiftFraction", noClocks)
}

//export fmi3ActivateModelPartition
func fmi3ActivateModelPartition(c C.fmi3Instance, clockReference C.fmi3ValueReference, activationTime C.fmi3Float64) C.fmi3Status {
	return unsupported3(c, "fmi3ActivateModelPartition", "this FMU is a co-simulation FMU: Scheduled Execution calls are not supported")
}

//export fmi3GetNumberOfVariableDependencies
func fmi3GetNumberOfVariableDependencies(c C.fmi3Instance, vr C.fmi3ValueReference, nDependencies *C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetNumberOfVariableDependencies", "providesPerElementDependencies is false: the dependencies are in modelDescription.xml's ModelStructure")
}

//export fmi3GetVariableDependencies
func fmi3GetVariableDependencies(c C.fmi3Instance, dependent C.fmi3ValueReference, elementIndicesOfDependent *C.size_t,
	independents *C.fmi3ValueReference, elementIndicesOfIndependents *C.size_t, dependencyKinds *C.fmi3DependencyKind, nDependencies C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetVariableDependencies", "providesPerElementDependencies is false: the dependencies are in modelDescription.xml's ModelStructure")
}

//export fmi3EnterContinuousTimeMode
func fmi3EnterContinuousTimeMode(c C.fmi3Instance) C.fmi3Status {
	return unsupported3(c, "fmi3EnterContinuousTimeMode", noME)
}

//export fmi3CompletedIntegratorStep
func fmi3CompletedIntegratorStep(c C.fmi3Instance, noSetFMUStatePriorToCurrentPoint C.fmi3Boolean, enterEventMode *C.fmi3Boolean, terminateSimulation *C.fmi3Boolean) C.fmi3Status {
	return unsupported3(c, "fmi3CompletedIntegratorStep", noME)
}

//export fmi3SetTime
func fmi3SetTime(c C.fmi3Instance, t C.fmi3Float64) C.fmi3Status {
	return unsupported3(c, "fmi3SetTime", noME)
}

//export fmi3SetContinuousStates
func fmi3SetContinuousStates(c C.fmi3Instance, x C.mbfmu_ConstFloat64Ptr, n C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3SetContinuousStates", noME)
}

//export fmi3GetContinuousStateDerivatives
func fmi3GetContinuousStateDerivatives(c C.fmi3Instance, d *C.fmi3Float64, n C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetContinuousStateDerivatives", noME)
}

//export fmi3GetEventIndicators
func fmi3GetEventIndicators(c C.fmi3Instance, e *C.fmi3Float64, n C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetEventIndicators", noME)
}

//export fmi3GetContinuousStates
func fmi3GetContinuousStates(c C.fmi3Instance, x *C.fmi3Float64, n C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetContinuousStates", noME)
}

//export fmi3GetNominalsOfContinuousStates
func fmi3GetNominalsOfContinuousStates(c C.fmi3Instance, x *C.fmi3Float64, n C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetNominalsOfContinuousStates", noME)
}

//export fmi3GetNumberOfEventIndicators
func fmi3GetNumberOfEventIndicators(c C.fmi3Instance, n *C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetNumberOfEventIndicators", noME)
}

//export fmi3GetNumberOfContinuousStates
func fmi3GetNumberOfContinuousStates(c C.fmi3Instance, n *C.size_t) C.fmi3Status {
	return unsupported3(c, "fmi3GetNumberOfContinuousStates", noME)
}

//export fmi3GetFMUState
func fmi3GetFMUState(c C.fmi3Instance, FMUState *C.fmi3FMUState) C.fmi3Status {
	const fn = "fmi3GetFMUState"
	return call3(c, fn, func(x *component) C.fmi3Status {
		return C.fmi3Status(x.getState(fn, (*C.fmi2FMUstate)(unsafe.Pointer(FMUState))))
	})
}

//export fmi3SetFMUState
func fmi3SetFMUState(c C.fmi3Instance, FMUState C.fmi3FMUState) C.fmi3Status {
	const fn = "fmi3SetFMUState"
	return call3(c, fn, func(x *component) C.fmi3Status {
		return C.fmi3Status(x.setState(fn, C.fmi2FMUstate(unsafe.Pointer(FMUState))))
	})
}

//export fmi3FreeFMUState
func fmi3FreeFMUState(c C.fmi3Instance, FMUState *C.fmi3FMUState) C.fmi3Status {
	const fn = "fmi3FreeFMUState"
	return call3(c, fn, func(x *component) C.fmi3Status {
		return C.fmi3Status(x.releaseState(fn, (*C.fmi2FMUstate)(unsafe.Pointer(FMUState))))
	})
}

//export fmi3SerializedFMUStateSize
func fmi3SerializedFMUStateSize(c C.fmi3Instance, FMUState C.fmi3FMUState, size *C.size_t) C.fmi3Status {
	const fn = "fmi3SerializedFMUStateSize"
	return call3(c, fn, func(x *component) C.fmi3Status {
		return C.fmi3Status(x.stateSize(fn, C.fmi2FMUstate(unsafe.Pointer(FMUState)), size))
	})
}

//export fmi3SerializeFMUState
func fmi3SerializeFMUState(c C.fmi3Instance, FMUState C.fmi3FMUState, serializedState *C.fmi3Byte, size C.size_t) C.fmi3Status {
	const fn = "fmi3SerializeFMUState"
	return call3(c, fn, func(x *component) C.fmi3Status {
		return C.fmi3Status(x.serialize(fn, C.fmi2FMUstate(unsafe.Pointer(FMUState)), unsafe.Pointer(serializedState), size))
	})
}

//export fmi3DeserializeFMUState
func fmi3DeserializeFMUState(c C.fmi3Instance, serializedState C.mbfmu_ConstByte3Ptr, size C.size_t, FMUState *C.fmi3FMUState) C.fmi3Status {
	const fn = "fmi3DeserializeFMUState"
	return call3(c, fn, func(x *component) C.fmi3Status {
		return C.fmi3Status(x.deserialize(fn, unsafe.Pointer(serializedState), size, (*C.fmi2FMUstate)(unsafe.Pointer(FMUState))))
	})
}

//export fmi3GetDirectionalDerivative
func fmi3GetDirectionalDerivative(c C.fmi3Instance, unknowns C.mbfmu_ConstVR3Ptr, nUnknowns C.size_t,
	knowns C.mbfmu_ConstVR3Ptr, nKnowns C.size_t, seed C.mbfmu_ConstFloat64Ptr, nSeed C.size_t,
	sensitivity *C.fmi3Float64, nSensitivity C.size_t) C.fmi3Status {
	const fn = "fmi3GetDirectionalDerivative"
	return call3(c, fn, func(x *component) C.fmi3Status {
		if nUnknowns > 0 && unknowns == nil || nKnowns > 0 && knowns == nil || nSeed > 0 && seed == nil ||
			nSensitivity > 0 && sensitivity == nil || nUnknowns > maxN || nKnowns > maxN || nSeed > maxN || nSensitivity > maxN {
			return x.arg3(fn, "unknowns, knowns, seed or sensitivity is NULL, or a count is too large")
		}
		return C.fmi3Status(x.inst.GetDirectionalDerivative3(vr3Slice(unknowns, nUnknowns), vr3Slice(knowns, nKnowns),
			f64Slice(unsafe.Pointer(seed), nSeed), f64Slice(unsafe.Pointer(sensitivity), nSensitivity)))
	})
}

//export fmi3GetAdjointDerivative
func fmi3GetAdjointDerivative(c C.fmi3Instance, unknowns C.mbfmu_ConstVR3Ptr, nUnknowns C.size_t,
	knowns C.mbfmu_ConstVR3Ptr, nKnowns C.size_t, seed C.mbfmu_ConstFloat64Ptr, nSeed C.size_t,
	sensitivity *C.fmi3Float64, nSensitivity C.size_t) C.fmi3Status {
	const fn = "fmi3GetAdjointDerivative"
	return call3(c, fn, func(x *component) C.fmi3Status {
		if nUnknowns > 0 && unknowns == nil || nKnowns > 0 && knowns == nil || nSeed > 0 && seed == nil ||
			nSensitivity > 0 && sensitivity == nil || nUnknowns > maxN || nKnowns > maxN || nSeed > maxN || nSensitivity > maxN {
			return x.arg3(fn, "unknowns, knowns, seed or sensitivity is NULL, or a count is too large")
		}
		return C.fmi3Status(x.inst.GetAdjointDerivative(vr3Slice(unknowns, nUnknowns), vr3Slice(knowns, nKnowns),
			f64Slice(unsafe.Pointer(seed), nSeed), f64Slice(unsafe.Pointer(sensitivity), nSensitivity)))
	})
}

//export fmi3GetOutputDerivatives
func fmi3GetOutputDerivatives(c C.fmi3Instance, vr C.mbfmu_ConstVR3Ptr, nvr C.size_t, orders C.mbfmu_ConstInt32Ptr,
	values *C.fmi3Float64, nValues C.size_t) C.fmi3Status {
	const fn = "fmi3GetOutputDerivatives"
	return call3(c, fn, func(x *component) C.fmi3Status {
		if nvr > 0 && (vr == nil || orders == nil) || nValues > 0 && values == nil || nvr > maxN || nValues > maxN {
			return x.arg3(fn, "valueReferences, orders or values is NULL, or a count is too large")
		}
		var o []int32
		if nvr > 0 {
			o = unsafe.Slice((*int32)(unsafe.Pointer(orders)), int(nvr))
		}
		return C.fmi3Status(x.inst.GetOutputDerivatives3(vr3Slice(vr, nvr), o, f64Slice(unsafe.Pointer(values), nValues)))
	})
}

//export fmi3DoStep
func fmi3DoStep(c C.fmi3Instance, currentCommunicationPoint C.fmi3Float64, communicationStepSize C.fmi3Float64,
	noSetFMUStatePriorToCurrentPoint C.fmi3Boolean, eventHandlingNeeded *C.fmi3Boolean, terminateSimulation *C.fmi3Boolean,
	earlyReturn *C.fmi3Boolean, lastSuccessfulTime *C.fmi3Float64) C.fmi3Status {
	const fn = "fmi3DoStep"
	return call3(c, fn, func(x *component) C.fmi3Status {
		if eventHandlingNeeded == nil || terminateSimulation == nil || earlyReturn == nil || lastSuccessfulTime == nil {
			return x.arg3(fn, "eventHandlingNeeded, terminateSimulation, earlyReturn or lastSuccessfulTime is NULL")
		}
		st, term, early, last := x.inst.DoStep3(float64(currentCommunicationPoint), float64(communicationStepSize), bool(noSetFMUStatePriorToCurrentPoint))
		*eventHandlingNeeded = false
		*earlyReturn = C.fmi3Boolean(early)
		*terminateSimulation = C.fmi3Boolean(term)
		*lastSuccessfulTime = C.fmi3Float64(last)
		return C.fmi3Status(st)
	})
}
