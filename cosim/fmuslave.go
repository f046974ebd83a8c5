package cosim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mbfmu/fmu"
	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// slave is an FMI 2.0 or FMI 3.0 co-simulation instance as the master
// drives it: a third-party FMU loaded with dlopen (dlSlave, dlSlave3) or an
// mbfmu FMU run in-process (goSlave, goSlave3). The calls are named after
// FMI 2.0's; an FMI 3.0 slave maps them onto its own (setup keeps the
// times for fmi3EnterInitializationMode, setReal is fmi3SetFloat64, …).
type slave interface {
	setup(start, stop float64) error
	enterInit() error
	exitInit() error
	setReal(vr []uint32, v []float64) error
	getReal(vr []uint32, v []float64) error
	doStep(t, h float64) error
	// hasDerivatives reports whether fmi2SetRealInputDerivatives (in) and
	// fmi2GetRealOutputDerivatives or fmi3GetOutputDerivatives (out) can be
	// called (FMI 3.0 has no input derivatives: in is false).
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

// statusName names an fmi2Status or fmi3Status value (the same numbers up
// to Fatal; Pending is FMI 2.0's only).
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
	// detail, if set, follows the status (FMI 3.0 fmi3DoStep's
	// terminateSimulation and lastSuccessfulTime).
	detail string
}

func (e *slaveError) Error() string {
	prefix := "fmi2"
	if strings.HasPrefix(e.fn, "fmi3") {
		prefix = "fmi3"
	}
	return fmt.Sprintf("%s returned %s%s%s: %s", e.fn, prefix, statusName(e.status), e.detail, orNoMessage(e.msg))
}

// doStep3Error turns the results of fmi3DoStep into an error, as the FMI
// 2.0 path treats a step that is not OK: a status other than OK or
// Warning, terminateSimulation (the FMU cannot go on) and an early return
// (the master instantiates with earlyReturnAllowed false: the FMU must not
// return early) stop the run. eventHandlingNeeded is not looked at: with
// eventModeUsed false the FMU handles its events itself.
func doStep3Error(sink *logSink, t, h float64, st int, terminate, early bool, last float64) error {
	const fn = "fmi3DoStep"
	switch {
	case st > 1:
		e := &slaveError{fn: fn, status: st, msg: sink.last}
		if terminate {
			e.detail = fmt.Sprintf(" with terminateSimulation (lastSuccessfulTime %.17g s)", last)
		}
		return e
	case terminate:
		return &slaveError{fn: fn, status: st, msg: sink.last,
			detail: fmt.Sprintf(" and asked to terminate the simulation (terminateSimulation, lastSuccessfulTime %.17g s)", last)}
	case early:
		return fmt.Errorf("fmi3DoStep from t = %.17g s by %g s returned early at lastSuccessfulTime %.17g s, but the master instantiated the FMU with earlyReturnAllowed false: the FMU broke the FMI 3.0 rules", t, h, last)
	}
	return nil
}

// goSlave runs an FMU packed by mbfmu in-process through package fmu: the
// same FMI state machine and engine as its binary, without loading a
// second Go runtime into this process.
type goSlave struct {
	in   *fmu.Instance
	sink *logSink
}

func openGo(a *fmuArchive, name string, sink *logSink, logging bool) (*goSlave, error) {
	in, err := instantiateGo(a, name, sink, logging)
	if err != nil {
		return nil, err
	}
	return &goSlave{in: in, sink: sink}, nil
}

// instantiateGo instantiates an mbfmu FMU in-process, as its binary's
// fmi2Instantiate or fmi3InstantiateCoSimulation does.
func instantiateGo(a *fmuArchive, name string, sink *logSink, logging bool) (*fmu.Instance, error) {
	res, err := a.resources()
	if err != nil {
		return nil, err
	}
	cfg := fmu.Config{
		InstanceName: name, GUID: a.md.GUID, ResourceLocation: res, LoggingOn: logging,
		Logger: func(st fmu.Status, category, message string) { sink.add(name, int(st), category, message) },
	}
	if a.md.fmi3() {
		cfg.FMIVersion = 3
	}
	return fmu.Instantiate(cfg)
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

// goSlave3 runs an FMI 3.0 FMU packed by mbfmu in-process: the FMI 3.0
// calls of package fmu, as its binary's fmi3* functions make them.
type goSlave3 struct {
	in          *fmu.Instance
	sink        *logSink
	start, stop float64
}

func openGo3(a *fmuArchive, name string, sink *logSink, logging bool) (*goSlave3, error) {
	in, err := instantiateGo(a, name, sink, logging)
	if err != nil {
		return nil, err
	}
	return &goSlave3{in: in, sink: sink}, nil
}

func (s *goSlave3) status(fn string, st fmu.Status) error {
	if st == fmu.OK || st == fmu.Warning {
		return nil
	}
	return &slaveError{fn: fn, status: int(st), msg: s.sink.last}
}

func (s *goSlave3) setup(start, stop float64) error {
	s.start, s.stop = start, stop
	return nil
}
func (s *goSlave3) enterInit() error {
	return s.status("fmi3EnterInitializationMode", s.in.EnterInitializationMode3(false, 0, s.start, true, s.stop))
}
func (s *goSlave3) exitInit() error {
	return s.status("fmi3ExitInitializationMode", s.in.ExitInitializationMode())
}
func (s *goSlave3) setReal(vr []uint32, v []float64) error {
	return s.status("fmi3SetFloat64", s.in.SetFloat64(vr, v))
}
func (s *goSlave3) getReal(vr []uint32, v []float64) error {
	return s.status("fmi3GetFloat64", s.in.GetFloat64(vr, v))
}
func (s *goSlave3) doStep(t, h float64) error {
	st, term, early, last := s.in.DoStep3(t, h, true)
	return doStep3Error(s.sink, t, h, int(st), term, early, last)
}
func (s *goSlave3) hasDerivatives() (in, out bool) { return false, true }
func (s *goSlave3) setInputDerivatives(vr []uint32, order []int32, v []float64) error {
	if len(vr) == 0 {
		return nil
	}
	return fmt.Errorf("FMI 3.0 has no input derivatives")
}
func (s *goSlave3) getOutputDerivatives(vr []uint32, order []int32, v []float64) error {
	return s.status("fmi3GetOutputDerivatives", s.in.GetOutputDerivatives3(vr, order, v))
}
func (s *goSlave3) terminate() error { return s.status("fmi3Terminate", s.in.Terminate()) }
func (s *goSlave3) free()            {}

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
	interp  bool // canInterpolateInputs (FMI 2.0)
	outDer  bool // maxOutputDerivativeOrder ≥ 1
	// ours: packed by mbfmu (its model file is at hand, for <lqr>); inProc:
	// run in-process (ours, unless MBFMU_COSIM_DLOPEN forces dlopen)
	ours, inProc bool
	file         string // the FMU's file name, for messages
	path         string // the FMU's path (an SSP package copies it)
	// extrapolation (master.go): value references and orders (all 1) of
	// the inputs that get derivatives and of the outputs whose
	// derivatives are read, and the latter's buffer
	dInVR, dOutVR   []uint32
	dInOrd, dOutOrd []int32
	dOutBuf         []float64
	params          map[string]float64 // parameter values given in the file (for the LQR design)
	logging         bool
	running         bool // initialised: fmi2Terminate is due at close
	// ft lists, per output port, the input ports it depends on directly
	// as <ModelStructure> declares (see feedthrough); nil: none declared
	ft [][]int
	// groups are the refreshes of the direct phase (master.go): each sets
	// some connected inputs and reads the outputs that depend on them
	groups []refreshGroup
}

// refreshGroup is one refresh of a feedthrough FMU in the direct phase:
// the input ports ins are set from the values at the communication point,
// then the output ports outs are read again. The value-reference and value
// buffers are made once, so that a refresh allocates nothing.
type refreshGroup struct {
	ins, outs   []int
	inVR, outVR []uint32
	inV, outV   []float64
}

// dlopenEnv, set to 1 (or true) in the environment, makes the master load
// the binary of every FMU with dlopen, FMUs packed by mbfmu too (which
// otherwise run in-process): a check of an mbfmu FMU's binary through its
// C ABI. The runtime of an mbfmu FMU is a Go library: every such binary
// loaded starts a Go runtime of its own, which stays until the process
// ends (the library is marked NODELETE), so keep them few.
const dlopenEnv = "MBFMU_COSIM_DLOPEN"

// forceDLOpen reports whether dlopenEnv asks for dlopen.
func forceDLOpen() bool {
	b, _ := strconv.ParseBool(os.Getenv(dlopenEnv))
	return b
}

// newFMUComp opens the FMU of element e and declares its ports: its Real
// (FMI 2.0) or scalar Float64 (FMI 3.0) inputs and outputs; variables of
// other types and arrays are left out (whyNotPort explains). Parameters and
// start values are checked here and set at start.
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
	c.file, c.path = filepath.Base(path), path
	c.ours = a.ours()
	c.inProc = c.ours && !forceDLOpen()
	cs := a.md.CoSimulation
	c.varStep = cs.CanHandleVariableCommunicationStepSize == "true"
	c.interp = cs.CanInterpolateInputs == "true"
	if n, err := strconv.Atoi(strings.TrimSpace(cs.MaxOutputDerivativeOrder)); err == nil && n >= 1 {
		c.outDer = true
	}
	for _, v := range a.md.Variables {
		if !v.connectable() {
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
	c.ft = feedthrough(a.md)
	for _, p := range e.Params {
		v := a.md.variable(p.Name)
		switch {
		case v == nil:
			el.add(p.Line, "FMU %s has no variable %q", filepath.Base(path), p.Name)
		case v.Causality != "parameter":
			el.add(p.Line, "FMU variable %q is a%s %s, not a parameter (use <start> for inputs)", p.Name, nIf(v.Causality), v.Causality)
		case !v.connectable():
			el.add(p.Line, "FMU parameter %q is a%s %s: only scalar %s parameters can be set", p.Name, nIf(strings.ToLower(v.what())), v.what(), c.floatType())
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
			if why := c.whyNotPort(s.Name, true); why != "" {
				el.add(s.Line, "<start name=%q>: %s", s.Name, why)
			} else {
				el.add(s.Line, "FMU %s has no %s input %q", filepath.Base(path), c.floatType(), s.Name)
			}
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

// floatType names the variable type the master connects: Real (FMI 2.0)
// or Float64 (FMI 3.0).
func (c *fmuComp) floatType() string {
	if c.arch.md.fmi3() {
		return "Float64"
	}
	return "Real"
}

// whyNotPort explains why the FMU's variable name is not an input (input
// true) or output the master can connect: an array, a variable of another
// type than Real/Float64, or of another causality. It returns "" when the
// FMU has no variable of that name (or it is such a port).
func (c *fmuComp) whyNotPort(name string, input bool) string {
	v := c.arch.md.variable(name)
	if v == nil {
		return ""
	}
	want := "output"
	if input {
		want = "input"
	}
	fmuName := c.file
	switch {
	case len(v.Dims) > 0:
		msg := fmt.Sprintf("variable %q of FMU %s (%s) is a %s %s: only scalar Float64 variables can be connected or set", name, c.name, fmuName, v.what(), v.Causality)
		var elems []string
		for _, w := range c.arch.md.Variables {
			if w.connectable() && w.Causality == v.Causality && (strings.HasPrefix(w.Name, name+".") || strings.HasPrefix(w.Name, name+"[")) {
				elems = append(elems, w.Name)
			}
		}
		if len(elems) > 0 {
			msg += fmt.Sprintf("; connect its elements, the scalar %ss %s", v.Causality, strings.Join(elems, ", "))
		}
		return msg
	case !v.connectable():
		return fmt.Sprintf("variable %q of FMU %s (%s) is a%s %s %s: only %s variables can be connected or set", name, c.name, fmuName, nIf(strings.ToLower(v.what())), v.what(), v.Causality, c.floatType())
	case v.Causality == "independent":
		return fmt.Sprintf("variable %q of FMU %s (%s) is the independent variable, not a%s %s (the master's time is the results' time column)", name, c.name, fmuName, nIf(want), want)
	case v.Causality != want:
		return fmt.Sprintf("variable %q of FMU %s (%s) is a%s %s, not a%s %s", name, c.name, fmuName, nIf(v.Causality), v.Causality, nIf(want), want)
	}
	return ""
}

func nIf(word string) string {
	if word != "" && (word[0] == 'i' || word[0] == 'o' || word[0] == 'a' || word[0] == 'e') {
		return "n"
	}
	return ""
}

func (c *fmuComp) start(m *Master) error {
	sink := &logSink{log: m.log}
	var err error
	switch fmi3 := c.arch.md.fmi3(); {
	case c.inProc && fmi3:
		c.sl, err = openGo3(c.arch, c.name, sink, c.logging)
	case c.inProc:
		c.sl, err = openGo(c.arch, c.name, sink, c.logging)
	case fmi3:
		c.sl, err = openDL3(c.arch, c.name, sink, c.logging)
	default:
		c.sl, err = openDL(c.arch, c.name, sink, c.logging)
	}
	if err != nil {
		c.sl = nil
		return err
	}
	if in, out := c.sl.hasDerivatives(); len(c.dIn) > 0 && !in || len(c.dOut) > 0 && !out {
		if c.arch.md.fmi3() {
			return fmt.Errorf("the FMU declares maxOutputDerivativeOrder=%q but does not export fmi3GetOutputDerivatives (set extrapolate=\"false\" in <settings>)",
				c.arch.md.CoSimulation.MaxOutputDerivativeOrder)
		}
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

// feedthrough finds, for each Real (Float64) output port of the FMU, the
// Real (Float64) input ports it depends on directly: those the output's
// dependencies in <ModelStructure> list (FMI 2.0: ModelVariables
// indices, FMI 3.0: value references; every dependenciesKind counts).
// It returns nil when no output has any.
//
// An output whose dependencies attribute is absent may, by the standard,
// depend on every known, inputs included. It is NOT taken as a direct
// feedthrough: most plant FMUs leave the attribute out (their outputs
// depend on states only), and taking them as feedthrough would close
// algebraic loops with their controllers that do not exist. Such an
// output is exchanged as before (Jacobi: its value after the step). An
// FMU whose outputs do depend directly on its inputs must say so in
// dependencies to be refreshed at the communication points.
func feedthrough(md *modelDescription) [][]int {
	// variable position → input port, output port (the order of newFMUComp)
	inPort, outPort := make([]int, len(md.Variables)), make([]int, len(md.Variables))
	nin, nout := 0, 0
	for i := range md.Variables {
		inPort[i], outPort[i] = -1, -1
		v := &md.Variables[i]
		if !v.connectable() {
			continue
		}
		switch v.Causality {
		case "input":
			inPort[i] = nin
			nin++
		case "output":
			outPort[i] = nout
			nout++
		}
	}
	var ft [][]int
	for i := range md.Variables {
		v := &md.Variables[i]
		if outPort[i] < 0 || !v.DepsGiven {
			continue
		}
		var ins []int
		for _, d := range v.Deps {
			if p := inPort[d]; p >= 0 && !slices.Contains(ins, p) {
				ins = append(ins, p)
			}
		}
		if len(ins) == 0 {
			continue
		}
		slices.Sort(ins)
		if ft == nil {
			ft = make([][]int, nout)
		}
		ft[outPort[i]] = ins
	}
	return ft
}

// feedthrough returns, per output port, the input ports it depends on
// directly (nil: none).
func (c *fmuComp) feedthrough() [][]int { return c.ft }

// setRefreshGroups sets the refreshes the master's direct phase makes,
// in its order: group k sets the input ports ins[k] and reads the output
// ports outs[k].
func (c *fmuComp) setRefreshGroups(ins, outs [][]int) {
	c.groups = make([]refreshGroup, len(ins))
	for k := range ins {
		g := &c.groups[k]
		g.ins, g.outs = ins[k], outs[k]
		g.inVR, g.inV = make([]uint32, len(g.ins)), make([]float64, len(g.ins))
		g.outVR, g.outV = make([]uint32, len(g.outs)), make([]float64, len(g.outs))
		for j, i := range g.ins {
			g.inVR[j] = c.inVR[i]
		}
		for j, o := range g.outs {
			g.outVR[j] = c.outVR[o]
		}
	}
}

// refresh makes refresh k of the direct phase at a communication point,
// after the step (or the initialisation): it sets the group's inputs to
// the connected values vals, then reads the group's outputs, which FMI
// allows (fmi2SetReal, then fmi2GetReal at the same communication point;
// fmi3SetFloat64, then fmi3GetFloat64 in step mode) and which then follow
// the new inputs. It allocates nothing.
func (c *fmuComp) refresh(k int, vals []float64) error {
	g := &c.groups[k]
	for j, i := range g.ins {
		v := vals[c.src[i]]
		c.in[i], g.inV[j] = v, v
	}
	if err := c.sl.setReal(g.inVR, g.inV); err != nil {
		return err
	}
	if err := c.sl.getReal(g.outVR, g.outV); err != nil {
		return err
	}
	for j, o := range g.outs {
		c.out[o] = g.outV[j]
	}
	return nil
}

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
	if !c.ours {
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
