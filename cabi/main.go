// Command cabi is the FMU runtime library: built with
// go build -buildmode=c-shared (scripts/build-runtime.sh) it exports the
// FMI 2.0 common and co-simulation functions and the FMI 3.0 functions
// with their standard prototypes (fmi2.h, fmi3.h), and nothing else (the build links with the version
// script exports.map: -ldflags=-extldflags=-Wl,--version-script=...). Every export is a
// thin shim over package fmu: it finds the instance, serialises calls on
// it, converts C arrays to Go slices without copying and recovers from
// panics.
//
// An fmi2Component (and an fmi2FMUstate) is calloc'd C memory holding a
// magic number and a runtime/cgo.Handle of the Go object; the handle table
// of runtime/cgo is the only process-wide state, and it is goroutine-safe.
package main

/*
#cgo CFLAGS: -O2 -Wall
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime/cgo"
	"sync"
	"unsafe"

	"mbfmu/fmu"
)

func main() {}

// component is the Go side of an fmi2Component.
type component struct {
	mu     sync.Mutex // serialises calls on the instance
	inst   *fmu.Instance
	box    *C.mbfmu_box
	logger C.fmi2CallbackLogger
	env    C.uintptr_t // the importer's componentEnvironment (opaque: never a Go pointer)
	name   *C.char     // C copy of the instance name, freed with the component
	states map[*C.mbfmu_box]*stateObj
	// an instance of fmi3InstantiateCoSimulation: FMI 3.0's logger, and
	// the FMI 3.0 calls only (fmi3.go)
	fmi3    bool
	logger3 C.fmi3LogMessageCallback
	env3    C.uintptr_t // the importer's instanceEnvironment (opaque)
	// intermediate update: the master's callback, and whether it is
	// running (the instance's lock is released meanwhile, so that the
	// master can call back in; fmi3FreeInstance is refused then)
	iu   C.fmi3IntermediateUpdateCallback
	inIU bool
}

// stateObj is the Go side of an fmi2FMUstate.
type stateObj struct {
	owner *component
	snap  *fmu.Snapshot
	box   *C.mbfmu_box
}

// handleValue returns the object of a handle, or nil if the handle is not
// valid (cgo.Handle.Value panics on a deleted handle).
func handleValue(h uintptr) (v any) {
	defer func() {
		if recover() != nil {
			v = nil
		}
	}()
	if h == 0 {
		return nil
	}
	return cgo.Handle(h).Value()
}

// lookup returns the component behind c, or nil when c is NULL, freed or
// not an fmi2Component of this library.
func lookup(c C.fmi2Component) *component {
	if c == nil {
		return nil
	}
	b := (*C.mbfmu_box)(c)
	if b.magic != C.MBFMU_COMPONENT_MAGIC {
		return nil
	}
	x, _ := handleValue(uintptr(b.handle)).(*component)
	if x == nil || x.box != b {
		return nil
	}
	return x
}

// badComponent reports a call with an invalid fmi2Component: there is no
// logger to use, so it goes to stderr.
func badComponent(fn string) C.fmi2Status {
	fmt.Fprintf(os.Stderr, "mbfmu: %s: invalid fmi2Component (NULL, already freed, not from this FMU, or an FMI 3.0 instance)\n", fn)
	return C.fmi2Error
}

// enter finds and locks the component of an FMI 2.0 entry point (an
// instance of fmi3InstantiateCoSimulation is refused: enter3). The caller
// must defer x.leave(fn, &status) when ok.
func enter(c C.fmi2Component, fn string) (*component, bool) { return enterVersion(c, false) }

// enterVersion finds and locks the component behind c if it is an FMI 3.0
// instance when fmi3 is set, an FMI 2.0 one otherwise.
func enterVersion(c C.fmi2Component, fmi3 bool) (x *component, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			x, ok = nil, false
		}
	}()
	x = lookup(c)
	if x == nil {
		return nil, false
	}
	x.mu.Lock()
	if x.box == nil || x.fmi3 != fmi3 { // freed by another thread while we waited, or the other FMI version's
		x.mu.Unlock()
		return nil, false
	}
	return x, true
}

// leave unlocks the component; a panic in the call is recovered, logged,
// and turned into fmi2Error with the instance in the error state.
func (x *component) leave(fn string, st *C.fmi2Status) {
	if r := recover(); r != nil {
		*st = C.fmi2Status(x.inst.Abort(fn, r))
	}
	x.mu.Unlock()
}

// open instantiates the model for x and gives x its box, the pointer the
// importer holds (fmi2Component, fmi3Instance).
func (x *component) open(cfg fmu.Config) (unsafe.Pointer, error) {
	inst, err := fmu.Instantiate(cfg)
	if err != nil {
		return nil, err
	}
	x.inst = inst
	h := cgo.NewHandle(x)
	x.box = C.mbfmu_box_new(C.MBFMU_COMPONENT_MAGIC, C.uintptr_t(h))
	if x.box == nil {
		h.Delete()
		return nil, errors.New("out of memory")
	}
	return unsafe.Pointer(x.box), nil
}

// log sends a message to the importer's logger, on the calling thread.
func (x *component) log(st fmu.Status, category, msg string) {
	if x.fmi3 {
		log3C(x.logger3, x.env3, st, category, msg)
		return
	}
	logC(x.logger, x.env, x.name, st, category, msg)
}

func log3C(logger C.fmi3LogMessageCallback, env C.uintptr_t, st fmu.Status, category, msg string) {
	if logger == nil {
		return
	}
	ccat, cmsg := C.CString(category), C.CString(msg)
	defer C.free(unsafe.Pointer(ccat))
	defer C.free(unsafe.Pointer(cmsg))
	C.mbfmu_log3(logger, env, C.fmi3Status(st), ccat, cmsg)
}

func logC(logger C.fmi2CallbackLogger, env C.uintptr_t, name *C.char, st fmu.Status, category, msg string) {
	if logger == nil {
		return
	}
	ccat, cmsg := C.CString(category), C.CString(msg)
	defer C.free(unsafe.Pointer(ccat))
	defer C.free(unsafe.Pointer(cmsg))
	C.mbfmu_log(logger, env, name, C.fmi2Status(st), ccat, cmsg)
}

// arg reports a bad pointer argument through the instance's log.
func (x *component) arg(fn, msg string) C.fmi2Status { return C.fmi2Status(x.argErr(fn, msg)) }

// maxN bounds array lengths passed by the importer.
const maxN = 1 << 30

func vrSlice(p C.mbfmu_ConstVRPtr, n C.size_t) []uint32 {
	if n == 0 || p == nil {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(p)), int(n))
}

// orderValues views the order (fmi2Integer) and value (fmi2Real) arrays of
// the input- and output-derivative calls, n entries each (nil when n = 0).
func orderValues(order, value unsafe.Pointer, n C.size_t) ([]int32, []float64) {
	if n == 0 {
		return nil, nil
	}
	return unsafe.Slice((*int32)(order), int(n)), unsafe.Slice((*float64)(value), int(n))
}

// state returns the stateObj behind an fmi2FMUstate of this component. It
// looks the pointer up without dereferencing it, so a freed or foreign
// state is rejected safely.
func (x *component) state(s C.fmi2FMUstate) *stateObj {
	if s == nil {
		return nil
	}
	return x.states[(*C.mbfmu_box)(s)]
}

// newState wraps a snapshot in an fmi2FMUstate.
func (x *component) newState(snap *fmu.Snapshot) *stateObj {
	so := &stateObj{owner: x, snap: snap}
	h := cgo.NewHandle(so)
	so.box = C.mbfmu_box_new(C.MBFMU_STATE_MAGIC, C.uintptr_t(h))
	if so.box == nil {
		h.Delete()
		return nil
	}
	x.states[so.box] = so
	return so
}

// freeState releases an fmi2FMUstate.
func (x *component) freeState(so *stateObj) {
	delete(x.states, so.box)
	cgo.Handle(so.box.handle).Delete()
	C.mbfmu_box_free(so.box)
	so.box = nil
}
