package cosim

/*
#cgo CFLAGS: -I${SRCDIR}/../cabi
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "fmi3_shim.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"strings"
	"unsafe"
)

// This file is the importer of FMI 3.0 co-simulation FMUs: their
// x86_64-linux binary is loaded with dlopen (fmi3_shim.c) and driven
// through its fmi3* functions. FMUs packed by mbfmu are not loaded this way
// unless MBFMU_COSIM_DLOPEN asks for it: they run in-process through
// package fmu (see fmuslave.go).

// dlSlave3 is one instance of a dlopened FMI 3.0 FMU.
type dlSlave3 struct {
	h           *C.mbfmu_dl3
	env         cgo.Handle // of a *namedSink
	sink        *logSink
	start, stop float64
}

// namedSink is what the FMI 3.0 logger's instanceEnvironment stands for:
// FMI 3.0's callback does not pass the instance name.
type namedSink struct {
	name string
	sink *logSink
}

// goFMI3Log is the FMI 3.0 logger's way into Go (called by mbfmu_logger3).
//
//export goFMI3Log
func goFMI3Log(env C.uintptr_t, status C.int, category *C.char, message *C.char) {
	defer func() { _ = recover() }() // never panic into C
	if env == 0 {
		return
	}
	s, ok := cgo.Handle(env).Value().(*namedSink)
	if !ok {
		return
	}
	s.sink.add(s.name, int(status), C.GoString(category), C.GoString(message))
}

// openDL3 loads the FMU's binary and instantiates it.
func openDL3(a *fmuArchive, name string, sink *logSink, logging bool) (slave, error) {
	lib := a.binary()
	cpath := C.CString(lib)
	defer C.free(unsafe.Pointer(cpath))
	var ebuf [512]C.char
	h := C.mbfmu_dl3_open(cpath, &ebuf[0], C.size_t(len(ebuf)))
	if h == nil {
		return nil, fmt.Errorf("loading %s: %s", lib, C.GoString(&ebuf[0]))
	}
	if v := C.GoString(C.mbfmu_dl3_version(h)); !strings.HasPrefix(v, "3.") {
		C.mbfmu_dl3_close(h)
		return nil, fmt.Errorf("%s: fmi3GetVersion returns %q, want 3.0", lib, v)
	}
	res, err := a.resources()
	if err != nil {
		C.mbfmu_dl3_close(h)
		return nil, err
	}
	s := &dlSlave3{h: h, sink: sink}
	s.env = cgo.NewHandle(&namedSink{name: name, sink: sink})
	cname, ctoken, cres := C.CString(name), C.CString(a.md.GUID), C.CString(res)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(ctoken))
	defer C.free(unsafe.Pointer(cres))
	lg := C.int(0)
	if logging {
		lg = 1
	}
	if C.mbfmu_dl3_instantiate(h, cname, ctoken, cres, C.uintptr_t(s.env), lg) != 0 {
		msg := sink.last
		s.env.Delete()
		C.mbfmu_dl3_close(h)
		return nil, fmt.Errorf("fmi3InstantiateCoSimulation of %s failed: %s", lib, orNoMessage(msg))
	}
	return s, nil
}

// status turns an fmi3Status into an error naming the call.
func (s *dlSlave3) status(fn string, st C.int) error {
	if st == 0 || st == 1 {
		return nil
	}
	return &slaveError{fn: fn, status: int(st), msg: s.sink.last}
}

// setup keeps the times for fmi3EnterInitializationMode, which takes them.
func (s *dlSlave3) setup(start, stop float64) error {
	s.start, s.stop = start, stop
	return nil
}

func (s *dlSlave3) enterInit() error {
	return s.status("fmi3EnterInitializationMode", C.mbfmu_dl3_enter_init(s.h, C.double(s.start), 1, C.double(s.stop)))
}

func (s *dlSlave3) exitInit() error {
	return s.status("fmi3ExitInitializationMode", C.mbfmu_dl3_exit_init(s.h))
}

func (s *dlSlave3) setReal(vr []uint32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	st := C.mbfmu_dl3_set_float64(s.h, (*C.uint32_t)(unsafe.Pointer(&vr[0])), C.size_t(len(vr)), (*C.double)(unsafe.Pointer(&v[0])))
	return s.status("fmi3SetFloat64", st)
}

func (s *dlSlave3) getReal(vr []uint32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	st := C.mbfmu_dl3_get_float64(s.h, (*C.uint32_t)(unsafe.Pointer(&vr[0])), C.size_t(len(vr)), (*C.double)(unsafe.Pointer(&v[0])))
	return s.status("fmi3GetFloat64", st)
}

func (s *dlSlave3) doStep(t, h float64) error {
	r := C.mbfmu_dl3_do_step(s.h, C.double(t), C.double(h), 1)
	return doStep3Error(s.sink, t, h, int(r.status), r.flags&2 != 0, r.flags&4 != 0, float64(r.last))
}

// hasDerivatives: FMI 3.0 has no input derivatives.
func (s *dlSlave3) hasDerivatives() (in, out bool) {
	return false, C.mbfmu_dl3_has_output_derivs(s.h) != 0
}

func (s *dlSlave3) setInputDerivatives(vr []uint32, order []int32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	return fmt.Errorf("FMI 3.0 has no input derivatives")
}

func (s *dlSlave3) getOutputDerivatives(vr []uint32, order []int32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	st := C.mbfmu_dl3_get_output_derivs(s.h, (*C.uint32_t)(unsafe.Pointer(&vr[0])), C.size_t(len(vr)),
		(*C.int32_t)(unsafe.Pointer(&order[0])), (*C.double)(unsafe.Pointer(&v[0])))
	return s.status("fmi3GetOutputDerivatives", st)
}

func (s *dlSlave3) terminate() error {
	return s.status("fmi3Terminate", C.mbfmu_dl3_terminate(s.h))
}

func (s *dlSlave3) free() {
	if s.h != nil {
		C.mbfmu_dl3_close(s.h)
		s.h = nil
		s.env.Delete()
	}
}
