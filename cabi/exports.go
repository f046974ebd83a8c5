package main

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"

	"mbfmu/fmu"
)

//export fmi2GetTypesPlatform
func fmi2GetTypesPlatform() C.fmi2String { return C.mbfmu_types_platform() }

//export fmi2GetVersion
func fmi2GetVersion() C.fmi2String { return C.mbfmu_version() }

//export fmi2Instantiate
func fmi2Instantiate(instanceName C.fmi2String, fmuType C.fmi2Type, fmuGUID C.fmi2String,
	fmuResourceLocation C.fmi2String, functions C.mbfmu_ConstCallbacksPtr,
	visible C.fmi2Boolean, loggingOn C.fmi2Boolean) (out C.fmi2Component) {
	var logger C.fmi2CallbackLogger
	var env C.uintptr_t
	if functions != nil {
		logger, env = functions.logger, C.mbfmu_callbacks_env(functions)
	}
	name := "mbfmu"
	if instanceName != nil {
		name = C.GoString(instanceName)
	}
	cname := C.CString(name)
	fail := func(msg string) C.fmi2Component {
		logC(logger, env, cname, fmu.Error, fmu.LogStatusError, "fmi2Instantiate: "+msg)
		C.free(unsafe.Pointer(cname))
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			out = fail(fmt.Sprintf("internal error: %v", r))
		}
	}()
	if fmuType != C.fmi2CoSimulation {
		return fail("this FMU supports co-simulation only (fmuType must be fmi2CoSimulation)")
	}
	x := &component{logger: logger, env: env, name: cname, states: map[*C.mbfmu_box]*stateObj{}}
	cfg := fmu.Config{InstanceName: name, LoggingOn: loggingOn != 0, Logger: x.log}
	if fmuGUID != nil {
		cfg.GUID = C.GoString(fmuGUID)
	}
	if fmuResourceLocation != nil {
		cfg.ResourceLocation = C.GoString(fmuResourceLocation)
	}
	p, err := x.open(cfg)
	if err != nil {
		return fail(err.Error())
	}
	return C.fmi2Component(p)
}

//export fmi2FreeInstance
func fmi2FreeInstance(c C.fmi2Component) {
	var st C.fmi2Status
	if c == nil {
		return // nothing to free (importers call it after a failed fmi2Instantiate)
	}
	x, ok := enter(c, "fmi2FreeInstance")
	if !ok {
		badComponent("fmi2FreeInstance")
		return
	}
	defer x.leave("fmi2FreeInstance", &st)
	for _, so := range x.states {
		x.freeState(so)
	}
	box := x.box
	x.box = nil
	cgo.Handle(box.handle).Delete()
	C.mbfmu_box_free(box)
	C.free(unsafe.Pointer(x.name))
	x.name = nil
	x.logger = nil
}

//export fmi2SetDebugLogging
func fmi2SetDebugLogging(c C.fmi2Component, loggingOn C.fmi2Boolean, nCategories C.size_t, categories C.mbfmu_ConstStringPtr) (st C.fmi2Status) {
	const fn = "fmi2SetDebugLogging"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if nCategories > 0 && categories == nil || nCategories > maxN {
		return x.arg(fn, "categories is NULL or nCategories is too large")
	}
	var cats []string
	if nCategories > 0 {
		for _, p := range unsafe.Slice((*C.fmi2String)(unsafe.Pointer(categories)), int(nCategories)) {
			if p == nil {
				return x.arg(fn, "a category is NULL")
			}
			cats = append(cats, C.GoString(p))
		}
	}
	return C.fmi2Status(x.inst.SetDebugLogging(loggingOn != 0, cats))
}

//export fmi2SetupExperiment
func fmi2SetupExperiment(c C.fmi2Component, toleranceDefined C.fmi2Boolean, tolerance C.fmi2Real,
	startTime C.fmi2Real, stopTimeDefined C.fmi2Boolean, stopTime C.fmi2Real) (st C.fmi2Status) {
	const fn = "fmi2SetupExperiment"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.inst.SetupExperiment(toleranceDefined != 0, float64(tolerance),
		float64(startTime), stopTimeDefined != 0, float64(stopTime)))
}

//export fmi2EnterInitializationMode
func fmi2EnterInitializationMode(c C.fmi2Component) (st C.fmi2Status) {
	const fn = "fmi2EnterInitializationMode"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.inst.EnterInitializationMode())
}

//export fmi2ExitInitializationMode
func fmi2ExitInitializationMode(c C.fmi2Component) (st C.fmi2Status) {
	const fn = "fmi2ExitInitializationMode"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.inst.ExitInitializationMode())
}

//export fmi2Terminate
func fmi2Terminate(c C.fmi2Component) (st C.fmi2Status) {
	const fn = "fmi2Terminate"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.inst.Terminate())
}

//export fmi2Reset
func fmi2Reset(c C.fmi2Component) (st C.fmi2Status) {
	const fn = "fmi2Reset"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.inst.Reset())
}

//export fmi2GetReal
func fmi2GetReal(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value *C.fmi2Real) (st C.fmi2Status) {
	const fn = "fmi2GetReal"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if nvr > 0 && (vr == nil || value == nil) || nvr > maxN {
		return x.arg(fn, "vr or value is NULL, or nvr is too large")
	}
	var v []float64
	if nvr > 0 {
		v = unsafe.Slice((*float64)(unsafe.Pointer(value)), int(nvr))
	}
	return C.fmi2Status(x.inst.GetReal(vrSlice(vr, nvr), v))
}

//export fmi2SetReal
func fmi2SetReal(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value C.mbfmu_ConstRealPtr) (st C.fmi2Status) {
	const fn = "fmi2SetReal"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if nvr > 0 && (vr == nil || value == nil) || nvr > maxN {
		return x.arg(fn, "vr or value is NULL, or nvr is too large")
	}
	var v []float64
	if nvr > 0 {
		v = unsafe.Slice((*float64)(unsafe.Pointer(value)), int(nvr))
	}
	return C.fmi2Status(x.inst.SetReal(vrSlice(vr, nvr), v))
}

// otherType handles the Integer, Boolean and String getters and setters:
// the FMU has no such variables.
func otherType(c C.fmi2Component, fn string, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value unsafe.Pointer,
	f func(in *fmu.Instance, vr []uint32) fmu.Status) (st C.fmi2Status) {
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if nvr > 0 && (vr == nil || value == nil) || nvr > maxN {
		return x.arg(fn, "vr or value is NULL, or nvr is too large")
	}
	return C.fmi2Status(f(x.inst, vrSlice(vr, nvr)))
}

//export fmi2GetInteger
func fmi2GetInteger(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value *C.fmi2Integer) C.fmi2Status {
	return otherType(c, "fmi2GetInteger", vr, nvr, unsafe.Pointer(value), (*fmu.Instance).GetInteger)
}

//export fmi2SetInteger
func fmi2SetInteger(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value C.mbfmu_ConstIntegerPtr) C.fmi2Status {
	return otherType(c, "fmi2SetInteger", vr, nvr, unsafe.Pointer(value), (*fmu.Instance).SetInteger)
}

//export fmi2GetBoolean
func fmi2GetBoolean(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value *C.fmi2Boolean) C.fmi2Status {
	return otherType(c, "fmi2GetBoolean", vr, nvr, unsafe.Pointer(value), (*fmu.Instance).GetBoolean)
}

//export fmi2SetBoolean
func fmi2SetBoolean(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value C.mbfmu_ConstBooleanPtr) C.fmi2Status {
	return otherType(c, "fmi2SetBoolean", vr, nvr, unsafe.Pointer(value), (*fmu.Instance).SetBoolean)
}

//export fmi2GetString
func fmi2GetString(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value *C.fmi2String) C.fmi2Status {
	return otherType(c, "fmi2GetString", vr, nvr, unsafe.Pointer(value), (*fmu.Instance).GetString)
}

//export fmi2SetString
func fmi2SetString(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t, value C.mbfmu_ConstStringPtr) C.fmi2Status {
	return otherType(c, "fmi2SetString", vr, nvr, unsafe.Pointer(value), (*fmu.Instance).SetString)
}

//export fmi2GetFMUstate
func fmi2GetFMUstate(c C.fmi2Component, FMUstate *C.fmi2FMUstate) (st C.fmi2Status) {
	const fn = "fmi2GetFMUstate"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.getState(fn, FMUstate))
}

//export fmi2SetFMUstate
func fmi2SetFMUstate(c C.fmi2Component, FMUstate C.fmi2FMUstate) (st C.fmi2Status) {
	const fn = "fmi2SetFMUstate"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.setState(fn, FMUstate))
}

//export fmi2FreeFMUstate
func fmi2FreeFMUstate(c C.fmi2Component, FMUstate *C.fmi2FMUstate) (st C.fmi2Status) {
	const fn = "fmi2FreeFMUstate"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.releaseState(fn, FMUstate))
}

//export fmi2SerializedFMUstateSize
func fmi2SerializedFMUstateSize(c C.fmi2Component, FMUstate C.fmi2FMUstate, size *C.size_t) (st C.fmi2Status) {
	const fn = "fmi2SerializedFMUstateSize"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.stateSize(fn, FMUstate, size))
}

//export fmi2SerializeFMUstate
func fmi2SerializeFMUstate(c C.fmi2Component, FMUstate C.fmi2FMUstate, serializedState *C.fmi2Byte, size C.size_t) (st C.fmi2Status) {
	const fn = "fmi2SerializeFMUstate"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.serialize(fn, FMUstate, unsafe.Pointer(serializedState), size))
}

//export fmi2DeSerializeFMUstate
func fmi2DeSerializeFMUstate(c C.fmi2Component, serializedState C.mbfmu_ConstBytePtr, size C.size_t, FMUstate *C.fmi2FMUstate) (st C.fmi2Status) {
	const fn = "fmi2DeSerializeFMUstate"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.deserialize(fn, unsafe.Pointer(serializedState), size, FMUstate))
}

//export fmi2GetDirectionalDerivative
func fmi2GetDirectionalDerivative(c C.fmi2Component, vUnknownRef C.mbfmu_ConstVRPtr, nUnknown C.size_t,
	vKnownRef C.mbfmu_ConstVRPtr, nKnown C.size_t, dvKnown C.mbfmu_ConstRealPtr, dvUnknown *C.fmi2Real) (st C.fmi2Status) {
	const fn = "fmi2GetDirectionalDerivative"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if nUnknown > 0 && (vUnknownRef == nil || dvUnknown == nil) || nKnown > 0 && (vKnownRef == nil || dvKnown == nil) ||
		nUnknown > maxN || nKnown > maxN {
		return x.arg(fn, "vUnknown_ref, vKnown_ref, dvKnown or dvUnknown is NULL, or nUnknown or nKnown is too large")
	}
	var seed, out []float64
	if nKnown > 0 {
		seed = unsafe.Slice((*float64)(unsafe.Pointer(dvKnown)), int(nKnown))
	}
	if nUnknown > 0 {
		out = unsafe.Slice((*float64)(unsafe.Pointer(dvUnknown)), int(nUnknown))
	}
	return C.fmi2Status(x.inst.GetDirectionalDerivative(vrSlice(vUnknownRef, nUnknown), vrSlice(vKnownRef, nKnown), seed, out))
}

//export fmi2SetRealInputDerivatives
func fmi2SetRealInputDerivatives(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t,
	order C.mbfmu_ConstIntegerPtr, value C.mbfmu_ConstRealPtr) (st C.fmi2Status) {
	const fn = "fmi2SetRealInputDerivatives"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if nvr > 0 && (vr == nil || order == nil || value == nil) || nvr > maxN {
		return x.arg(fn, "vr, order or value is NULL, or nvr is too large")
	}
	o, v := orderValues(unsafe.Pointer(order), unsafe.Pointer(value), nvr)
	return C.fmi2Status(x.inst.SetRealInputDerivatives(vrSlice(vr, nvr), o, v))
}

//export fmi2GetRealOutputDerivatives
func fmi2GetRealOutputDerivatives(c C.fmi2Component, vr C.mbfmu_ConstVRPtr, nvr C.size_t,
	order C.mbfmu_ConstIntegerPtr, value *C.fmi2Real) (st C.fmi2Status) {
	const fn = "fmi2GetRealOutputDerivatives"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if nvr > 0 && (vr == nil || order == nil || value == nil) || nvr > maxN {
		return x.arg(fn, "vr, order or value is NULL, or nvr is too large")
	}
	o, v := orderValues(unsafe.Pointer(order), unsafe.Pointer(value), nvr)
	return C.fmi2Status(x.inst.GetRealOutputDerivatives(vrSlice(vr, nvr), o, v))
}

//export fmi2DoStep
func fmi2DoStep(c C.fmi2Component, currentCommunicationPoint C.fmi2Real, communicationStepSize C.fmi2Real,
	noSetFMUStatePriorToCurrentPoint C.fmi2Boolean) (st C.fmi2Status) {
	const fn = "fmi2DoStep"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.inst.DoStep(float64(currentCommunicationPoint), float64(communicationStepSize),
		noSetFMUStatePriorToCurrentPoint != 0))
}

//export fmi2CancelStep
func fmi2CancelStep(c C.fmi2Component) (st C.fmi2Status) {
	const fn = "fmi2CancelStep"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	return C.fmi2Status(x.inst.CancelStep())
}

//export fmi2GetStatus
func fmi2GetStatus(c C.fmi2Component, s C.fmi2StatusKind, value *C.fmi2Status) (st C.fmi2Status) {
	const fn = "fmi2GetStatus"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if value == nil {
		return x.arg(fn, "value is NULL")
	}
	v, r := x.inst.GetStatus(fmu.StatusKind(s))
	if r == fmu.OK || r == fmu.Discard {
		*value = C.fmi2Status(v)
	}
	return C.fmi2Status(r)
}

//export fmi2GetRealStatus
func fmi2GetRealStatus(c C.fmi2Component, s C.fmi2StatusKind, value *C.fmi2Real) (st C.fmi2Status) {
	const fn = "fmi2GetRealStatus"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if value == nil {
		return x.arg(fn, "value is NULL")
	}
	v, r := x.inst.GetRealStatus(fmu.StatusKind(s))
	if r == fmu.OK {
		*value = C.fmi2Real(v)
	}
	return C.fmi2Status(r)
}

//export fmi2GetIntegerStatus
func fmi2GetIntegerStatus(c C.fmi2Component, s C.fmi2StatusKind, value *C.fmi2Integer) (st C.fmi2Status) {
	const fn = "fmi2GetIntegerStatus"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if value == nil {
		return x.arg(fn, "value is NULL")
	}
	v, r := x.inst.GetIntegerStatus(fmu.StatusKind(s))
	if r == fmu.OK {
		*value = C.fmi2Integer(v)
	}
	return C.fmi2Status(r)
}

//export fmi2GetBooleanStatus
func fmi2GetBooleanStatus(c C.fmi2Component, s C.fmi2StatusKind, value *C.fmi2Boolean) (st C.fmi2Status) {
	const fn = "fmi2GetBooleanStatus"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if value == nil {
		return x.arg(fn, "value is NULL")
	}
	v, r := x.inst.GetBooleanStatus(fmu.StatusKind(s))
	if r == fmu.OK {
		*value = C.fmi2False
		if v {
			*value = C.fmi2True
		}
	}
	return C.fmi2Status(r)
}

//export fmi2GetStringStatus
func fmi2GetStringStatus(c C.fmi2Component, s C.fmi2StatusKind, value *C.fmi2String) (st C.fmi2Status) {
	const fn = "fmi2GetStringStatus"
	x, ok := enter(c, fn)
	if !ok {
		return badComponent(fn)
	}
	defer x.leave(fn, &st)
	if value == nil {
		return x.arg(fn, "value is NULL")
	}
	_, r := x.inst.GetStringStatus(fmu.StatusKind(s))
	*value = C.mbfmu_empty()
	return C.fmi2Status(r)
}
