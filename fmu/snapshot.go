package fmu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// Snapshot is a saved FMU state (fmi2FMUstate): the engine state plus the
// instance's own FMI-level fields (state-machine phase, time, inputs,
// parameters, last outputs, experiment). It belongs to the instance that
// made it.
type Snapshot struct {
	owner *Instance
	model engineModel
	state engineState // nil when taken before initialisation

	phase                    Phase
	time, lastOK             float64
	clock                    commClock
	startTime, stopTime, tol float64
	stopDefined, tolDefined  bool
	terminated               bool
	initDone, dirty          bool
	lastStep                 Status
	inputs, params, outputs  []float64
	inDeriv                  []float64

	blob []byte // cached serialisation (fmi2SerializedFMUstateSize, then fmi2SerializeFMUstate)
}

// GetFMUState saves the instance's state. When reuse is a snapshot of this
// instance it is overwritten (without allocating when the model is the
// same) and returned; otherwise a new one is made.
func (in *Instance) GetFMUState(reuse *Snapshot) (*Snapshot, Status) {
	const fn = "fmi2GetFMUstate"
	if !in.allowed(fn, anyPhase) {
		return nil, Error
	}
	s := reuse
	if s == nil || s.owner != in {
		s = &Snapshot{owner: in,
			inputs:  make([]float64, len(in.inputs)),
			params:  make([]float64, len(in.params)),
			outputs: make([]float64, len(in.outputs)),
			inDeriv: make([]float64, len(in.inDeriv)),
		}
	}
	if in.state == nil {
		s.state = nil
	} else {
		if s.state == nil || s.model != in.model {
			s.state = in.model.newState()
		}
		s.state.copyFrom(in.state)
	}
	s.model = in.model
	s.phase = in.phase
	s.time, s.lastOK, s.clock = in.time, in.lastOK, in.clock
	s.startTime, s.stopTime, s.tol = in.startTime, in.stopTime, in.tol
	s.stopDefined, s.tolDefined = in.stopDefined, in.tolDefined
	s.terminated, s.initDone, s.dirty, s.lastStep = in.terminated, in.initDone, in.dirty, in.lastStep
	copy(s.inputs, in.inputs)
	copy(s.params, in.params)
	copy(s.outputs, in.outputs)
	copy(s.inDeriv, in.inDeriv)
	s.blob = s.blob[:0]
	return s, OK
}

// SetFMUState restores a state saved by GetFMUState or DeserializeFMUState
// of this instance, phase included: stepping on from it reproduces the
// original run bit for bit.
func (in *Instance) SetFMUState(s *Snapshot) Status {
	const fn = "fmi2SetFMUstate"
	if !in.allowed(fn, anyPhase) {
		return Error
	}
	if s == nil || s.owner != in {
		return in.errorf(fn, "the FMU state does not belong to this instance")
	}
	if s.state == nil {
		in.state = nil
	} else {
		if in.state == nil || in.model != s.model {
			in.state = s.model.newState()
		}
		in.state.copyFrom(s.state)
	}
	in.model = s.model
	in.phase = s.phase
	in.time, in.lastOK, in.clock = s.time, s.lastOK, s.clock
	in.startTime, in.stopTime, in.tol = s.startTime, s.stopTime, s.tol
	in.stopDefined, in.tolDefined = s.stopDefined, s.tolDefined
	in.terminated, in.initDone, in.dirty, in.lastStep = s.terminated, s.initDone, s.dirty, s.lastStep
	copy(in.inputs, s.inputs)
	copy(in.params, s.params)
	copy(in.outputs, s.outputs)
	copy(in.inDeriv, s.inDeriv)
	in.outDerivOK, in.derOK = false, false
	in.statesOK = in.model == in.base || in.model != nil && sameStates(in.model.info(), in.base.info())
	if in.logMask.on(catEvents) { // (the arguments would allocate)
		in.logf(catEvents, OK, "%s: restored state %s at t = %g", fn, in.phase, in.time)
	}
	return OK
}

// Serialized-state layout (little endian):
//
//	magic "MBFMUST\x00", uint32 version, uint16 len + GUID,
//	uint8 phase, uint8 flags, uint8 last step status, uint8 0,
//	float64 time, lastOK, startTime, stopTime, tol,
//	float64 clock base, clock step, uint64 clock count,
//	uint32 n + n float64 for parameters, inputs, outputs, input derivatives,
//	uint32 len + engine state (len 0: not initialised),
//	uint32 CRC-32C (Castagnoli) of everything before it.
//
// The checksum refuses a damaged state (every single-bit flip, most
// bursts); the numbers are range-checked besides (decodeState, and the
// engine's UnmarshalBinary), so that even a state with a valid checksum
// cannot make the next step run for ever.
const (
	stateMagic   = "MBFMUST\x00"
	stateVersion = 3
)

// crcTable is the CRC-32C table of the serialised states' checksum.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

const (
	flagStopDefined = 1 << iota
	flagTolDefined
	flagTerminated
	flagInitDone
	flagDirty
)

// SerializeFMUState returns the serialised form of s. The bytes are cached
// in s (and valid until s is overwritten).
func (in *Instance) SerializeFMUState(s *Snapshot) ([]byte, Status) {
	const fn = "fmi2SerializeFMUstate"
	if !in.allowed(fn, anyPhase) {
		return nil, Error
	}
	if s == nil || s.owner != in {
		return nil, in.errorf(fn, "the FMU state does not belong to this instance")
	}
	if len(s.blob) > 0 {
		return s.blob, OK
	}
	var eng []byte
	if s.state != nil {
		var err error
		if eng, err = s.state.marshal(); err != nil {
			return nil, in.errorf(fn, "serialising the engine state: %v", err)
		}
	}
	b := make([]byte, 0, 128+8*(len(s.params)+len(s.inputs)+len(s.outputs))+len(eng))
	b = append(b, stateMagic...)
	b = binary.LittleEndian.AppendUint32(b, stateVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(in.desc.GUID)))
	b = append(b, in.desc.GUID...)
	var flags byte
	for _, f := range [...]struct {
		on  bool
		bit byte
	}{{s.stopDefined, flagStopDefined}, {s.tolDefined, flagTolDefined}, {s.terminated, flagTerminated}, {s.initDone, flagInitDone}, {s.dirty, flagDirty}} {
		if f.on {
			flags |= f.bit
		}
	}
	b = append(b, byte(s.phase), flags, byte(s.lastStep), 0)
	for _, x := range [...]float64{s.time, s.lastOK, s.startTime, s.stopTime, s.tol, s.clock.base, s.clock.h} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(s.clock.n))
	for _, xs := range [...][]float64{s.params, s.inputs, s.outputs, s.inDeriv} {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(xs)))
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(eng)))
	b = append(b, eng...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
	s.blob = b
	return b, OK
}

// reader decodes the serialised layout.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errors.New("truncated")
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) u8() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) u16() int {
	if p := r.take(2); p != nil {
		return int(binary.LittleEndian.Uint16(p))
	}
	return 0
}

func (r *reader) u32() int {
	if p := r.take(4); p != nil {
		return int(binary.LittleEndian.Uint32(p))
	}
	return 0
}

func (r *reader) f64() float64 {
	if p := r.take(8); p != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	}
	return 0
}

func (r *reader) floats(want int, what string) []float64 {
	n := r.u32()
	if r.err == nil && n != want {
		r.err = fmt.Errorf("it has %d %s, this FMU has %d", n, what, want)
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = r.f64()
	}
	return out
}

// DeserializeFMUState rebuilds a snapshot from bytes made by
// SerializeFMUState of any instance of the same FMU (same GUID); a state of
// another FMU, or a damaged one, is rejected with a clear error.
func (in *Instance) DeserializeFMUState(data []byte) (*Snapshot, Status) {
	const fn = "fmi2DeSerializeFMUstate"
	if !in.allowed(fn, anyPhase) {
		return nil, Error
	}
	s, err := in.decodeState(data)
	if err != nil {
		return nil, in.errorf(fn, "%v", err)
	}
	return s, OK
}

func (in *Instance) decodeState(data []byte) (*Snapshot, error) {
	r := &reader{b: data}
	if string(r.take(len(stateMagic))) != stateMagic {
		return nil, errors.New("not a serialised mbfmu FMU state (bad magic number)")
	}
	if v := r.u32(); r.err == nil && v != stateVersion {
		return nil, fmt.Errorf("serialised FMU state has format version %d, this FMU reads version %d", v, stateVersion)
	}
	if len(data) < len(stateMagic)+8 {
		return nil, errors.New("damaged serialised FMU state: truncated")
	}
	body := data[:len(data)-4]
	if got, want := crc32.Checksum(body, crcTable), binary.LittleEndian.Uint32(data[len(data)-4:]); got != want {
		return nil, fmt.Errorf("damaged serialised FMU state: checksum %08x, the bytes give %08x", want, got)
	}
	r.b = body[len(stateMagic)+4:]
	guid := string(r.take(r.u16()))
	if r.err == nil && guid != in.desc.GUID {
		return nil, fmt.Errorf("the FMU state was serialised by a different FMU (GUID %s); this FMU is %s (%s)", guid, in.desc.GUID, in.desc.ModelName)
	}
	s := &Snapshot{owner: in}
	s.phase = Phase(r.u8())
	flags := r.u8()
	s.lastStep = Status(r.u8())
	r.u8()
	s.time, s.lastOK, s.startTime, s.stopTime, s.tol = r.f64(), r.f64(), r.f64(), r.f64(), r.f64()
	s.clock.base, s.clock.h = r.f64(), r.f64()
	s.clock.n = int64(math.Float64bits(r.f64()))
	s.stopDefined = flags&flagStopDefined != 0
	s.tolDefined = flags&flagTolDefined != 0
	s.terminated = flags&flagTerminated != 0
	s.initDone = flags&flagInitDone != 0
	s.dirty = flags&flagDirty != 0
	s.params = r.floats(len(in.params), "parameters")
	s.inputs = r.floats(len(in.inputs), "inputs")
	s.outputs = r.floats(len(in.outputs), "outputs")
	s.inDeriv = r.floats(len(in.inDeriv), "input derivatives")
	eng := r.take(r.u32())
	if r.err != nil {
		return nil, fmt.Errorf("damaged serialised FMU state: %v", r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("damaged serialised FMU state: %d trailing bytes", len(r.b))
	}
	if s.phase > ErrorPhase || s.lastStep < OK || s.lastStep > Pending {
		return nil, errors.New("damaged serialised FMU state: invalid phase or status")
	}
	if err := s.checkRanges(); err != nil {
		return nil, fmt.Errorf("damaged serialised FMU state: %v", err)
	}
	// The model: the one whose fixed parameters match the state's.
	model, err := in.modelFor(s.params)
	if err != nil {
		return nil, err
	}
	s.model = model
	if len(eng) > 0 {
		s.state = model.newState()
		if err := s.state.unmarshal(eng); err != nil {
			return nil, fmt.Errorf("restoring the engine state: %v", err)
		}
		if et := s.state.time(); s.phase == StepComplete && math.Abs(et-s.time) > timeTol(s.time) {
			return nil, fmt.Errorf("damaged serialised FMU state: the engine is at t = %g s, the FMU at %g s", et, s.time)
		}
	} else if s.phase == StepComplete || s.phase == StepFailed || s.phase == StepCanceled {
		return nil, errors.New("damaged serialised FMU state: no engine state for a running instance")
	}
	s.blob = append([]byte(nil), data...)
	return s, nil
}

// checkRanges refuses numbers a running instance cannot hold: non-finite
// times and values, a negative tolerance, a time before the start or after
// a defined stop time, and a communication clock whose count does not
// give back the state's time (a flipped count once made the next step
// integrate for hours).
func (s *Snapshot) checkRanges() error {
	for _, x := range [...]float64{s.time, s.lastOK, s.startTime, s.tol, s.clock.base, s.clock.h} {
		if !finite(x) {
			return errors.New("a time, tolerance or clock value is not finite")
		}
	}
	if s.stopDefined && !finite(s.stopTime) {
		return errors.New("the stop time is not finite")
	}
	for _, xs := range [...][]float64{s.params, s.inputs, s.outputs, s.inDeriv} {
		if !allFinite(xs) {
			return errors.New("a parameter, input, output or input derivative is not finite")
		}
	}
	switch {
	case s.tol < 0:
		return fmt.Errorf("negative tolerance %g", s.tol)
	case s.time < s.startTime-timeTol(s.time):
		return fmt.Errorf("time %g s before the start time %g s", s.time, s.startTime)
	case s.stopDefined && s.time > s.stopTime+timeTol(s.stopTime):
		return fmt.Errorf("time %g s after the stop time %g s", s.time, s.stopTime)
	case s.lastOK > s.time+timeTol(s.time):
		return fmt.Errorf("last successful time %g s after the time %g s", s.lastOK, s.time)
	case s.clock.h < 0 || s.clock.n < 0:
		return errors.New("negative communication step or count")
	case s.clock.h > 0 && math.Abs(s.clock.base+float64(s.clock.n)*s.clock.h-s.time) > 1e-6*s.clock.h+1e-12*math.Max(1, math.Abs(s.time)):
		return fmt.Errorf("communication clock (%g + %d × %g s) does not give the time %g s", s.clock.base, s.clock.n, s.clock.h, s.time)
	}
	return nil
}

// modelFor returns a compiled model whose fixed parameters equal those in
// params: the current or base model when they match, a recompiled one
// otherwise.
func (in *Instance) modelFor(params []float64) (engineModel, error) {
	match := func(m engineModel) bool {
		for i, p := range m.info().params {
			if !p.tunable && p.value != params[i] {
				return false
			}
		}
		return true
	}
	if match(in.model) {
		return in.model, nil
	}
	if match(in.base) {
		return in.base, nil
	}
	over := map[string]float64{}
	for i, p := range in.base.info().params {
		if params[i] != p.value {
			over[p.name] = params[i]
		}
	}
	m, err := in.compile(over)
	if err != nil {
		return nil, fmt.Errorf("recompiling the model for the state's fixed parameters: %v", err)
	}
	return m, nil
}
