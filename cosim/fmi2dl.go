package cosim

/*
#cgo CFLAGS: -I${SRCDIR}/../cabi
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "fmi2_shim.h"
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// This file is the importer of third-party FMI 2.0 co-simulation FMUs:
// their linux64 binary is loaded with dlopen (fmi2_shim.c) and driven
// through its fmi2* functions. FMUs packed by mbfmu are not loaded this way:
// they run in-process through package fmu (see fmuslave.go).

// dlSlave is one instance of a dlopened FMU.
type dlSlave struct {
	h    *C.mbfmu_dl
	env  cgo.Handle
	name string
	sink *logSink
}

// goFMI2Log is the FMI logger's way into Go (called by mbfmu_logger).
//
//export goFMI2Log
func goFMI2Log(env C.uintptr_t, instance *C.char, status C.int, category *C.char, message *C.char) {
	defer func() { _ = recover() }() // never panic into C
	if env == 0 {
		return
	}
	s, ok := cgo.Handle(env).Value().(*logSink)
	if !ok {
		return
	}
	s.add(C.GoString(instance), int(status), C.GoString(category), C.GoString(message))
}

// openDL loads the FMU's binary and instantiates it.
func openDL(a *fmuArchive, name string, sink *logSink, logging bool) (slave, error) {
	lib := a.binary()
	cpath := C.CString(lib)
	defer C.free(unsafe.Pointer(cpath))
	var ebuf [512]C.char
	h := C.mbfmu_dl_open(cpath, &ebuf[0], C.size_t(len(ebuf)))
	if h == nil {
		return nil, fmt.Errorf("loading %s: %s", lib, C.GoString(&ebuf[0]))
	}
	s := &dlSlave{h: h, name: name, sink: sink}
	if v := C.GoString(C.mbfmu_dl_version(h)); len(v) < 2 || v[:2] != "2." {
		C.mbfmu_dl_close(h)
		return nil, fmt.Errorf("%s: fmi2GetVersion returns %q, want 2.0", lib, v)
	}
	if p := C.GoString(C.mbfmu_dl_platform(h)); p != "default" {
		C.mbfmu_dl_close(h)
		return nil, fmt.Errorf("%s: fmi2GetTypesPlatform returns %q, want \"default\"", lib, p)
	}
	res, err := a.resources()
	if err != nil {
		C.mbfmu_dl_close(h)
		return nil, err
	}
	s.env = cgo.NewHandle(sink)
	cname, cguid, cres := C.CString(name), C.CString(a.md.GUID), C.CString(res)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(cguid))
	defer C.free(unsafe.Pointer(cres))
	lg := C.int(0)
	if logging {
		lg = 1
	}
	if C.mbfmu_dl_instantiate(h, cname, cguid, cres, C.uintptr_t(s.env), lg) != 0 {
		msg := sink.last
		s.env.Delete()
		C.mbfmu_dl_close(h)
		return nil, fmt.Errorf("fmi2Instantiate of %s failed: %s", lib, orNoMessage(msg))
	}
	return s, nil
}

// status turns an fmi2Status into an error naming the call.
func (s *dlSlave) status(fn string, st C.int) error {
	if st == 0 || st == 1 {
		return nil
	}
	return &slaveError{fn: fn, status: int(st), msg: s.sink.last}
}

func (s *dlSlave) setup(start, stop float64) error {
	return s.status("fmi2SetupExperiment", C.mbfmu_dl_setup(s.h, C.double(start), 1, C.double(stop)))
}

func (s *dlSlave) enterInit() error {
	return s.status("fmi2EnterInitializationMode", C.mbfmu_dl_enter_init(s.h))
}

func (s *dlSlave) exitInit() error {
	return s.status("fmi2ExitInitializationMode", C.mbfmu_dl_exit_init(s.h))
}

func (s *dlSlave) setReal(vr []uint32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	st := C.mbfmu_dl_set_real(s.h, (*C.uint)(unsafe.Pointer(&vr[0])), C.size_t(len(vr)), (*C.double)(unsafe.Pointer(&v[0])))
	return s.status("fmi2SetReal", st)
}

func (s *dlSlave) getReal(vr []uint32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	st := C.mbfmu_dl_get_real(s.h, (*C.uint)(unsafe.Pointer(&vr[0])), C.size_t(len(vr)), (*C.double)(unsafe.Pointer(&v[0])))
	return s.status("fmi2GetReal", st)
}

func (s *dlSlave) doStep(t, h float64) error {
	return s.status("fmi2DoStep", C.mbfmu_dl_do_step(s.h, C.double(t), C.double(h), 1))
}

func (s *dlSlave) hasDerivatives() (in, out bool) {
	f := C.mbfmu_dl_has_derivs(s.h)
	return f&1 != 0, f&2 != 0
}

func (s *dlSlave) setInputDerivatives(vr []uint32, order []int32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	st := C.mbfmu_dl_set_input_derivs(s.h, (*C.uint)(unsafe.Pointer(&vr[0])), C.size_t(len(vr)),
		(*C.int)(unsafe.Pointer(&order[0])), (*C.double)(unsafe.Pointer(&v[0])))
	return s.status("fmi2SetRealInputDerivatives", st)
}

func (s *dlSlave) getOutputDerivatives(vr []uint32, order []int32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	st := C.mbfmu_dl_get_output_derivs(s.h, (*C.uint)(unsafe.Pointer(&vr[0])), C.size_t(len(vr)),
		(*C.int)(unsafe.Pointer(&order[0])), (*C.double)(unsafe.Pointer(&v[0])))
	return s.status("fmi2GetRealOutputDerivatives", st)
}

func (s *dlSlave) terminate() error {
	return s.status("fmi2Terminate", C.mbfmu_dl_terminate(s.h))
}

func (s *dlSlave) free() {
	if s.h != nil {
		C.mbfmu_dl_close(s.h)
		s.h = nil
		s.env.Delete()
	}
}
