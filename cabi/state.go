package main

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"mbfmu/fmu"
)

// The FMU state calls of both FMI versions (fmi2GetFMUstate and
// fmi3GetFMUState, ...) on a locked component: an fmi2FMUstate and an
// fmi3FMUState are the same kind of pointer (a box holding the handle of a
// stateObj).

// argErr reports a bad pointer argument through the instance's log.
func (x *component) argErr(fn, msg string) fmu.Status {
	x.log(fmu.Error, fmu.LogStatusError, fn+": "+msg)
	return fmu.Error
}

// getState saves the instance's state into *p: a new state when *p is
// NULL, else the state *p (reused).
func (x *component) getState(fn string, p *C.fmi2FMUstate) fmu.Status {
	if p == nil {
		return x.argErr(fn, "the FMU state pointer is NULL")
	}
	var reuse *stateObj
	if *p != nil {
		if reuse = x.state(*p); reuse == nil {
			return x.argErr(fn, "the FMU state given is neither NULL nor a state of this instance")
		}
	}
	var prev *fmu.Snapshot
	if reuse != nil {
		prev = reuse.snap
	}
	snap, s := x.inst.GetFMUState(prev)
	if s != fmu.OK {
		return s
	}
	if reuse != nil {
		reuse.snap = snap
		return fmu.OK
	}
	so := x.newState(snap)
	if so == nil {
		return x.argErr(fn, "out of memory")
	}
	*p = C.fmi2FMUstate(unsafe.Pointer(so.box))
	return fmu.OK
}

// setState restores the instance from state s.
func (x *component) setState(fn string, s C.fmi2FMUstate) fmu.Status {
	so := x.state(s)
	if so == nil {
		return x.argErr(fn, "the FMU state is NULL, freed, or not a state of this instance")
	}
	return x.inst.SetFMUState(so.snap)
}

// releaseState frees the state *p and sets *p to NULL (nothing to do when
// either is NULL).
func (x *component) releaseState(fn string, p *C.fmi2FMUstate) fmu.Status {
	if p == nil || *p == nil {
		return fmu.OK
	}
	so := x.state(*p)
	if so == nil {
		return x.argErr(fn, "the FMU state is not a live state of this instance")
	}
	x.freeState(so)
	*p = nil
	return fmu.OK
}

// stateSize writes the serialised size of state s to *size.
func (x *component) stateSize(fn string, s C.fmi2FMUstate, size *C.size_t) fmu.Status {
	so := x.state(s)
	if so == nil || size == nil {
		return x.argErr(fn, "the FMU state is not a live state of this instance, or size is NULL")
	}
	b, st := x.inst.SerializeFMUState(so.snap)
	if st == fmu.OK {
		*size = C.size_t(len(b))
	}
	return st
}

// serialize writes state s into buf (size bytes).
func (x *component) serialize(fn string, s C.fmi2FMUstate, buf unsafe.Pointer, size C.size_t) fmu.Status {
	so := x.state(s)
	if so == nil || buf == nil {
		return x.argErr(fn, "the FMU state is not a live state of this instance, or the buffer is NULL")
	}
	b, st := x.inst.SerializeFMUState(so.snap)
	if st != fmu.OK {
		return st
	}
	if int(size) < len(b) {
		return x.argErr(fn, fmt.Sprintf("size %d is smaller than the serialised state (%d bytes)", size, len(b)))
	}
	copy(unsafe.Slice((*byte)(buf), len(b)), b)
	return fmu.OK
}

// deserialize reads a serialised state into *p (a new state when *p is
// not a state of this instance).
func (x *component) deserialize(fn string, data unsafe.Pointer, size C.size_t, p *C.fmi2FMUstate) fmu.Status {
	if data == nil || p == nil || size > maxN {
		return x.argErr(fn, "the serialised state or the FMU state pointer is NULL, or size is too large")
	}
	snap, st := x.inst.DeserializeFMUState(unsafe.Slice((*byte)(data), int(size)))
	if st != fmu.OK {
		return st
	}
	if old := x.state(*p); old != nil {
		old.snap = snap
		return fmu.OK
	}
	so := x.newState(snap)
	if so == nil {
		return x.argErr(fn, "out of memory")
	}
	*p = C.fmi2FMUstate(unsafe.Pointer(so.box))
	return fmu.OK
}
