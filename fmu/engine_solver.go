package fmu

import (
	"errors"
	"fmt"
	"os"

	"mbfmu/controller"
	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// solverModel adapts a compiled *solver.Model to the engine seam.
type solverModel struct {
	m  *solver.Model
	mi modelInfo
}

func newSolverModel(m *solver.Model) *solverModel {
	st := m.Settings()
	sm := &solverModel{m: m, mi: modelInfo{
		name:           m.Name(),
		start:          st.Start,
		stop:           st.End,
		step:           st.OutputStep,
		integrator:     st.Integrator,
		integratorStep: st.Step,
	}}
	if ms := m.Spec(); ms != nil {
		sm.mi.desc = ms.Description
	}
	if sm.mi.step <= 0 {
		sm.mi.step = st.Step
	}
	if st.Adaptive {
		sm.mi.tol = st.RelTol
		sm.mi.integratorStep = st.MaxStep
	}
	for _, p := range m.ParamInfo() {
		sm.mi.params = append(sm.mi.params, paramInfo{name: p.Name, unit: p.Unit, desc: p.Description, value: p.Value, tunable: p.Tunable})
	}
	for _, v := range m.InputInfo() {
		sm.mi.inputs = append(sm.mi.inputs, varInfo{name: v.Name, unit: v.Unit, desc: v.Description, start: v.Start})
	}
	for _, v := range m.OutputInfo() {
		where := v.Name
		if v.Array != "" {
			where = v.Array
		}
		sm.mi.outputs = append(sm.mi.outputs, varInfo{name: v.Name, unit: v.Unit, desc: v.Description,
			where: outputWhere(m.Spec(), where), array: v.Array, dims: v.Dims, elem: v.Elem, channel: v.Channel})
	}
	qs, vs := m.StateVars()
	posOf := make([]int, len(vs)) // velocity → the position it is the derivative of
	for _, x := range qs {
		d := "state: position coordinate"
		if x.Deriv < 0 {
			d = "state: orientation quaternion component (body frame to world)"
		}
		sm.mi.qs = append(sm.mi.qs, stateVar{name: x.Name, unit: x.Unit, desc: d, deriv: x.Deriv, rotQ: x.RotQ, rotV: x.RotV})
	}
	for i, x := range qs {
		if x.Deriv >= 0 {
			posOf[x.Deriv] = i
		}
	}
	for j, x := range vs {
		d := "state: angular velocity about the body axis"
		if x.RotV < 0 {
			d = "state: velocity, the time derivative of position " + qs[posOf[j]].Name
		}
		sm.mi.vs = append(sm.mi.vs, stateVar{name: x.Name, unit: x.Unit, desc: d, deriv: -1, rotQ: x.RotQ, rotV: x.RotV})
	}
	return sm
}

func (sm *solverModel) info() *modelInfo { return &sm.mi }

func (sm *solverModel) newState() engineState { return &solverState{s: sm.m.NewState()} }

func (sm *solverModel) init(s engineState) error { return sm.m.Init(s.(*solverState).s) }

func (sm *solverModel) advanceTo(s engineState, t float64) error {
	err := sm.m.AdvanceTo(s.(*solverState).s, t)
	if err == nil {
		return nil
	}
	var se *solver.StepError
	if errors.As(err, &se) {
		return &stepFailure{at: se.Time, last: se.LastTime, msg: se.Msg}
	}
	return err
}

func (sm *solverModel) evalOutputs(s engineState, dst []float64) {
	sm.m.EvalOutputs(s.(*solverState).s, dst)
}

func (sm *solverModel) outputDerivatives(s engineState, dst []float64) error {
	return sm.m.OutputDerivatives(s.(*solverState).s, dst)
}

func (sm *solverModel) stateDerivatives(s engineState, dq, dv []float64) error {
	return sm.m.StateDerivatives(s.(*solverState).s, dq, dv)
}

func (sm *solverModel) directional(s engineState, dq, dv, du, jq, jv, jy []float64) error {
	return sm.m.DirectionalDerivative(s.(*solverState).s, dq, dv, du, jq, jv, jy)
}

// solverState adapts a *solver.State.
type solverState struct{ s *solver.State }

func (ss *solverState) time() float64             { return ss.s.T }
func (ss *solverState) anchorGrid()               { ss.s.AnchorGrid() }
func (ss *solverState) setInput(i int, v float64) { ss.s.SetInput(i, v) }
func (ss *solverState) states(q, v []float64)     { copy(q, ss.s.Q()); copy(v, ss.s.V()) }
func (ss *solverState) setInputDerivative(i, order int, v float64) error {
	return ss.s.SetInputDerivative(i, order, v)
}
func (ss *solverState) setParam(i int, v float64) error { return ss.s.SetParam(i, v) }
func (ss *solverState) copyFrom(o engineState)          { ss.s.CopyFrom(o.(*solverState).s) }
func (ss *solverState) marshal() ([]byte, error)        { return ss.s.MarshalBinary() }
func (ss *solverState) unmarshal(b []byte) error        { return ss.s.UnmarshalBinary(b) }

func (ss *solverState) stepSize(float64) {}

func (ss *solverState) contactModes(dst []float64) []float64 { return ss.s.ContactModes(dst) }

func (ss *solverState) stats() string {
	st := ss.s.Stats()
	return fmt.Sprintf("%d steps, %d rejected, %d Newton iterations, %d factorisations",
		st.Steps, st.Rejected, st.NewtonIters, st.Factorizations)
}

// loaded is a parsed and compiled model file (or controller file).
type loaded struct {
	spec  *spec.Model // nil for a controller
	model engineModel
	desc  *Description
}

// load parses and compiles a model file held in data and describes it; a
// controller file (root <controller>) makes a controller FMU.
func load(data []byte, filename string) (*loaded, error) {
	if controller.IsFile(data) {
		cs, err := controller.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filename, err)
		}
		cm := newControllerModel(cs)
		d, err := describe(&cm.mi, GUID(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filename, err)
		}
		return &loaded{model: cm, desc: d}, nil
	}
	ms, err := xml.Parse(data, filename)
	if err != nil {
		return nil, err
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		return nil, err
	}
	sm := newSolverModel(m)
	d, err := describe(&sm.mi, GUID(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filename, err)
	}
	return &loaded{spec: ms, model: sm, desc: d}, nil
}

func (l *loaded) compiler() compiler {
	return func(over map[string]float64) (engineModel, error) {
		if l.spec == nil {
			return nil, errors.New("a controller FMU has no parameters")
		}
		m, err := solver.Compile(l.spec, solver.CompileOptions{Params: over})
		if err != nil {
			return nil, err
		}
		return newSolverModel(m), nil
	}
}

// Describe reads a model file and returns what its FMU declares.
func Describe(modelPath string) (*Description, error) {
	data, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, err
	}
	l, err := load(data, modelPath)
	if err != nil {
		return nil, err
	}
	return l.desc, nil
}

// Config holds the arguments of fmi2Instantiate.
type Config struct {
	InstanceName     string
	GUID             string // fmuGUID: must match the model in the resources
	ResourceLocation string // fmuResourceLocation (any form, see ResolveResources)
	Logger           Logger // may be nil
	LoggingOn        bool
	// FMIVersion is 3 for an instance of fmi3InstantiateCoSimulation (the
	// FMI 3.0 calls of fmi3.go, time and the array outputs), else FMI 2.0.
	FMIVersion int
	// IntermediateUpdate, when not nil, is called by fmi3DoStep at every
	// internal step (FMI 3.0 intermediate update, fmi3.go);
	// EarlyReturnAllowed lets it end the step there.
	IntermediateUpdate IntermediateUpdateFunc
	EarlyReturnAllowed bool
}

// Instantiate creates an instance from the FMU's resources/model.xml (it
// never reads modelDescription.xml): it checks the GUID against the model
// file's bytes, parses and compiles it.
func Instantiate(cfg Config) (*Instance, error) {
	if cfg.GUID == "" {
		return nil, errors.New("fmuGUID is empty: pass the guid attribute of modelDescription.xml")
	}
	path, err := ResolveResources(cfg.ResourceLocation)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if g := GUID(data); g != cfg.GUID {
		return nil, fmt.Errorf("fmuGUID %s does not match this FMU's model file %s (GUID %s): modelDescription.xml and resources/%s come from different packs (re-run mbfmu pack)", cfg.GUID, path, g, ModelFileName)
	}
	l, err := load(data, path)
	if err != nil {
		return nil, err
	}
	in := newInstance(cfg.InstanceName, l.desc, l.compiler(), l.model, cfg.Logger, cfg.LoggingOn)
	in.fmi3 = cfg.FMIVersion == 3
	if in.fmi3 {
		in.iu, in.early = cfg.IntermediateUpdate, cfg.EarlyReturnAllowed
	}
	return in, nil
}

// outputWhere locates output name in the model file: its file:line and
// what it reads (an expression or a channel).
func outputWhere(ms *spec.Model, name string) string {
	if ms == nil {
		return ""
	}
	for _, o := range ms.Outputs {
		if o.Name != name {
			continue
		}
		w := o.Pos.String()
		if w != "" {
			w += ", "
		}
		if o.Expr.Given() {
			return w + "expr " + o.Expr.Src
		}
		return w + "channel " + o.Channel
	}
	return ""
}
