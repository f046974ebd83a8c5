package cosim

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"mbfmu/fmu"
	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// slave is an FMI 2.0 co-simulation instance as the master drives it: a
// third-party FMU loaded with dlopen (dlSlave) or an mbfmu FMU run
// in-process (goSlave).
type slave interface {
	setup(start, stop float64) error
	enterInit() error
	exitInit() error
	setReal(vr []uint32, v []float64) error
	getReal(vr []uint32, v []float64) error
	doStep(t, h float64) error
	// hasDerivatives reports whether fmi2SetRealInputDerivatives (in) and
	// fmi2GetRealOutputDerivatives (out) can be called.
	hasDerivatives() (in, out bool)
	// setInputDerivatives hands input derivatives for the next step;
	// getOutputDerivatives reads output derivatives at the current point.
	setInputDerivatives(vr []uint32, order []int32, v []float64) error
	getOutputDerivatives(vr []uint32, order []int32, v []float64) error
	terminate() error
	free()
}

// logSink receives an instance's log messages.
type logSink struct {
	// log prints a message (nil: drop it).
	log func(msg string)
	// last is the most recent message with status Warning or worse, for
	// error reports.
	last string
}

func (s *logSink) add(instance string, status int, category, msg string) {
	line := fmt.Sprintf("%s [%s, %s]: %s", instance, statusName(status), category, msg)
	if status >= 1 {
		s.last = msg
	}
	if s.log != nil {
		s.log(line)
	}
}

// statusName names an fmi2Status value.
func statusName(s int) string {
	switch s {
	case 0:
		return "OK"
	case 1:
		return "Warning"
	case 2:
		return "Discard"
	case 3:
		return "Error"
	case 4:
		return "Fatal"
	case 5:
		return "Pending"
	}
	return fmt.Sprintf("status %d", s)
}

func orNoMessage(s string) string {
	if s == "" {
		return "(no log message)"
	}
	return s
}

// slaveError is a failed FMI call.
type slaveError struct {
	fn     string
	status int
	msg    string
}

func (e *slaveError) Error() string {
	return fmt.Sprintf("%s returned fmi2%s: %s", e.fn, statusName(e.status), orNoMessage(e.msg))
}

// goSlave runs an FMU packed by mbfmu in-process through package fmu: the
// same FMI state machine and engine as its binary, without loading a
// second Go runtime into this process.
type goSlave struct {
	in   *fmu.Instance
	sink *logSink
}

func openGo(a *fmuArchive, name string, sink *logSink, logging bool) (*goSlave, error) {
	res, err := a.resources()
	if err != nil {
		return nil, err
	}
	s := &goSlave{sink: sink}
	inst, err := fmu.Instantiate(fmu.Config{
		InstanceName: name, GUID: a.md.GUID, ResourceLocation: res, LoggingOn: logging,
		Logger: func(st fmu.Status, category, message string) { sink.add(name, int(st), category, message) },
	})
	if err != nil {
		return nil, err
	}
	s.in = inst
	return s, nil
}

func (s *goSlave) status(fn string, st fmu.Status) error {
	if st == fmu.OK || st == fmu.Warning {
		return nil
	}
	return &slaveError{fn: fn, status: int(st), msg: s.sink.last}
}

func (s *goSlave) setup(start, stop float64) error {
	return s.status("fmi2SetupExperiment", s.in.SetupExperiment(false, 0, start, true, stop))
}
func (s *goSlave) enterInit() error {
	return s.status("fmi2EnterInitializationMode", s.in.EnterInitializationMode())
}
func (s *goSlave) exitInit() error {
	return s.status("fmi2ExitInitializationMode", s.in.ExitInitializationMode())
}
func (s *goSlave) setReal(vr []uint32, v []float64) error {
	return s.status("fmi2SetReal", s.in.SetReal(vr, v))
}
func (s *goSlave) getReal(vr []uint32, v []float64) error {
	return s.status("fmi2GetReal", s.in.GetReal(vr, v))
}
func (s *goSlave) doStep(t, h float64) error {
	return s.status("fmi2DoStep", s.in.DoStep(t, h, true))
}
func (s *goSlave) hasDerivatives() (in, out bool) { return true, true }
func (s *goSlave) setInputDerivatives(vr []uint32, order []int32, v []float64) error {
	return s.status("fmi2SetRealInputDerivatives", s.in.SetRealInputDerivatives(vr, order, v))
}
func (s *goSlave) getOutputDerivatives(vr []uint32, order []int32, v []float64) error {
	return s.status("fmi2GetRealOutputDerivatives", s.in.GetRealOutputDerivatives(vr, order, v))
}
func (s *goSlave) terminate() error { return s.status("fmi2Terminate", s.in.Terminate()) }
func (s *goSlave) free()            {}

// fmuComp is a stepped component backed by an FMU.
type fmuComp struct {
	comp
	arch    *fmuArchive
	sl      slave
	inVR    []uint32
	outVR   []uint32
	parVR   []uint32
	parV    []float64
	varStep bool // canHandleVariableCommunicationStepSize
	interp  bool // canInterpolateInputs
	outDer  bool // maxOutputDerivativeOrder ≥ 1
	inProc  bool
	// extrapolation (master.go): value references and orders (all 1) of
	// the inputs that get derivatives and of the outputs whose
	// derivatives are read, and the latter's buffer
	dInVR, dOutVR   []uint32
	dInOrd, dOutOrd []int32
	dOutBuf         []float64
	params          map[string]float64 // parameter values given in the file (for the LQR design)
	logging         bool
	running         bool // initialised: fmi2Terminate is due at close
}

// newFMUComp opens the FMU of element e and declares its ports: its Real
// inputs and outputs. Parameters and start values are checked here and set
// at start.
func newFMUComp(el *errList, cfg *Config, e *Element) *fmuComp {
	c := &fmuComp{comp: comp{name: e.Name, kind: e.Kind, line: e.Line}, params: map[string]float64{}}
	path := cfg.path(e.str("path"))
	c.logging = e.boolean(el, "logging", false)
	if path == "" {
		el.add(e.Line, "<fmu> needs path=\"file.fmu\"")
		return nil
	}
	a, err := openFMU(path)
	if err != nil {
		el.add(e.Line, "%v", err)
		return nil
	}
	c.arch = a
	c.inProc = a.ours()
	cs := a.md.CoSimulation
	c.varStep = cs.CanHandleVariableCommunicationStepSize == "true"
	c.interp = cs.CanInterpolateInputs == "true"
	if n, err := strconv.Atoi(strings.TrimSpace(cs.MaxOutputDerivativeOrder)); err == nil && n >= 1 {
		c.outDer = true
	}
	for _, v := range a.md.Variables {
		if v.Real == nil {
			continue
		}
		switch v.Causality {
		case "input":
			c.ins = append(c.ins, Port{Name: v.Name, Unit: v.Real.Unit})
			c.inVR = append(c.inVR, v.VR)
			c.start0 = append(c.start0, v.realStart())
		case "output":
			c.outs = append(c.outs, Port{Name: v.Name, Unit: v.Real.Unit})
			c.outVR = append(c.outVR, v.VR)
		}
	}
	for _, p := range e.Params {
		v := a.md.variable(p.Name)
		switch {
		case v == nil:
			el.add(p.Line, "FMU %s has no variable %q", filepath.Base(path), p.Name)
		case v.Causality != "parameter":
			el.add(p.Line, "FMU variable %q is a%s %s, not a parameter (use <start> for inputs)", p.Name, nIf(v.Causality), v.Causality)
		case v.Real == nil:
			el.add(p.Line, "FMU parameter %q is not a Real (only Real parameters can be set)", p.Name)
		default:
			val, err := p.In(v.Real.Unit)
			if err != nil {
				el.add(p.Line, "<parameter name=%q>: %v", p.Name, err)
				continue
			}
			c.parVR = append(c.parVR, v.VR)
			c.parV = append(c.parV, val)
			c.params[p.Name] = val
		}
	}
	for _, s := range e.Starts {
		i := c.inputIndex(s.Name)
		if i < 0 {
			el.add(s.Line, "FMU %s has no Real input %q", filepath.Base(path), s.Name)
			continue
		}
		val, err := s.In(c.ins[i].Unit)
		if err != nil {
			el.add(s.Line, "<start name=%q>: %v", s.Name, err)
			continue
		}
		c.start0[i] = val
	}
	return c
}

func nIf(word string) string {
	if word != "" && (word[0] == 'i' || word[0] == 'o' || word[0] == 'a' || word[0] == 'e') {
		return "n"
	}
	return ""
}

func (c *fmuComp) start(m *Master) error {
	sink := &logSink{log: m.log}
	if c.inProc {
		sl, err := openGo(c.arch, c.name, sink, c.logging)
		if err != nil {
			return err
		}
		c.sl = sl
	} else {
		sl, err := openDL(c.arch, c.name, sink, c.logging)
		if err != nil {
			return err
		}
		c.sl = sl
	}
	if in, out := c.sl.hasDerivatives(); len(c.dIn) > 0 && !in || len(c.dOut) > 0 && !out {
		return fmt.Errorf("the FMU declares canInterpolateInputs=%q and maxOutputDerivativeOrder=%q but does not export fmi2SetRealInputDerivatives or fmi2GetRealOutputDerivatives (set extrapolate=\"false\" in <settings>)",
			c.arch.md.CoSimulation.CanInterpolateInputs, c.arch.md.CoSimulation.MaxOutputDerivativeOrder)
	}
	c.dInVR, c.dInOrd = make([]uint32, len(c.dIn)), make([]int32, len(c.dIn))
	for k, i := range c.dIn {
		c.dInVR[k], c.dInOrd[k] = c.inVR[i], 1
	}
	c.dOutVR, c.dOutOrd, c.dOutBuf = make([]uint32, len(c.dOut)), make([]int32, len(c.dOut)), make([]float64, len(c.dOut))
	for k, o := range c.dOut {
		c.dOutVR[k], c.dOutOrd[k] = c.outVR[o], 1
	}
	copy(c.in, c.start0)
	s := m.cfg.Settings
	if err := c.sl.setup(s.Start, s.End); err != nil {
		return err
	}
	if err := c.sl.enterInit(); err != nil {
		return err
	}
	if err := c.sl.setReal(c.parVR, c.parV); err != nil {
		return err
	}
	if err := c.sl.setReal(c.inVR, c.in); err != nil {
		return err
	}
	if err := c.sl.exitInit(); err != nil {
		return err
	}
	c.running = true
	return c.sl.getReal(c.outVR, c.out)
}

func (c *fmuComp) eval(t, dt float64) error { return nil }

func (c *fmuComp) step(t, h float64) error {
	if err := c.sl.setReal(c.inVR, c.in); err != nil {
		return err
	}
	if err := c.sl.setInputDerivatives(c.dInVR, c.dInOrd, c.din); err != nil {
		return err
	}
	if err := c.sl.doStep(t, h); err != nil {
		return err
	}
	return c.sl.getReal(c.outVR, c.out)
}

func (c *fmuComp) canExtrapolate() (outDerivs, inDerivs bool) { return c.outDer, c.interp }

func (c *fmuComp) outputDerivatives() error {
	if err := c.sl.getOutputDerivatives(c.dOutVR, c.dOutOrd, c.dOutBuf); err != nil {
		return err
	}
	for k, o := range c.dOut {
		c.dout[o] = c.dOutBuf[k]
	}
	return nil
}

func (c *fmuComp) close() error {
	var err error
	if c.sl != nil {
		if c.running {
			err = c.sl.terminate()
			c.running = false
		}
		c.sl.free()
		c.sl = nil
	}
	if c.arch != nil {
		c.arch.close()
	}
	return err
}

// linearize compiles the FMU's model file (mbfmu FMUs only) with the
// parameters given in the file plus over, and linearises it about its
// initial state with the inputs at their start values.
func (c *fmuComp) linearize(over map[string]float64) (*solver.Linear, []float64, []float64, error) {
	if !c.inProc {
		return nil, nil, nil, fmt.Errorf("FMU %q was not packed by mbfmu: its linear model is unknown (give the gain to a <state-feedback> instead)", c.name)
	}
	ms, err := xml.LoadFile(filepath.Join(c.arch.dir, "resources", "model.xml"))
	if err != nil {
		return nil, nil, nil, err
	}
	return linearizeSpec(ms, merge(c.params, over), c.ins, c.start0)
}

// linearizeSpec compiles spec with params, sets the inputs named in ins to
// start, initialises and linearises about the initial state; it returns the
// model, the declared outputs y0 and the inputs u0 there.
func linearizeSpec(ms *spec.Model, params map[string]float64, ins []Port, start []float64) (*solver.Linear, []float64, []float64, error) {
	for name := range params {
		found := false
		for _, p := range ms.Params {
			found = found || p.Name == name
		}
		if !found {
			return nil, nil, nil, fmt.Errorf("the model has no parameter %q", name)
		}
	}
	m, err := solver.Compile(ms, solver.CompileOptions{Params: params})
	if err != nil {
		return nil, nil, nil, err
	}
	s := m.NewState()
	u0 := make([]float64, len(m.InputInfo()))
	for i, in := range m.InputInfo() {
		u0[i] = in.Start
		for j, p := range ins {
			if p.Name == in.Name {
				u0[i] = start[j]
			}
		}
		s.SetInput(i, u0[i])
	}
	if err := m.Init(s); err != nil {
		return nil, nil, nil, err
	}
	lin, err := m.Linearize(s)
	if err != nil {
		return nil, nil, nil, err
	}
	y0 := make([]float64, len(m.OutputInfo()))
	m.EvalOutputs(s, y0)
	for _, v := range append(append([]float64(nil), y0...), u0...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, nil, fmt.Errorf("the operating point has a non-finite output or input")
		}
	}
	return lin, y0, u0, nil
}

func merge(a, b map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
