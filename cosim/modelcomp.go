package cosim

import (
	"errors"
	"fmt"

	"mbfmu/solver"
	"mbfmu/spec"
)

// modelComp is a model file of this project run in-process directly on the
// engine (no FMI layer): a stepped component whose ports are the model's
// inputs and declared outputs.
type modelComp struct {
	comp
	path   string
	spec   *spec.Model
	params map[string]float64
	m      *solver.Model
	s      *solver.State
	cache  *ModelCache
}

func newModelComp(el *errList, cfg *Config, e *Element, cache *ModelCache) *modelComp {
	c := &modelComp{comp: comp{name: e.Name, kind: e.Kind, line: e.Line}, params: map[string]float64{}, cache: cache}
	c.path = cfg.path(e.str("path"))
	if c.path == "" {
		el.add(e.Line, "<model> needs path=\"model.xml\"")
		return nil
	}
	ms, err := cache.load(c.path)
	if err != nil {
		el.add(e.Line, "model %s: %v", c.path, err)
		return nil
	}
	c.spec = ms
	for _, in := range ms.Inputs {
		c.ins = append(c.ins, Port{Name: in.Name, Unit: in.Unit})
		c.start0 = append(c.start0, in.Start)
	}
	for _, p := range e.Params {
		k := -1
		for j, sp := range ms.Params {
			if sp.Name == p.Name {
				k = j
			}
		}
		if k < 0 {
			el.add(p.Line, "model %s has no parameter %q", c.path, p.Name)
			continue
		}
		v, err := p.In(ms.Params[k].Unit)
		if err != nil {
			el.add(p.Line, "<parameter name=%q>: %v", p.Name, err)
			continue
		}
		c.params[p.Name] = v
	}
	for _, s := range e.Starts {
		i := c.inputIndex(s.Name)
		if i < 0 {
			el.add(s.Line, "model %s has no input %q", c.path, s.Name)
			continue
		}
		v, err := s.In(c.ins[i].Unit)
		if err != nil {
			el.add(s.Line, "<start name=%q>: %v", s.Name, err)
			continue
		}
		c.start0[i] = v
	}
	// The outputs need the compiled model (units of channels).
	m, err := c.compile()
	if err != nil {
		el.add(e.Line, "model %s: %v", c.path, err)
		return nil
	}
	for _, o := range m.OutputInfo() {
		c.outs = append(c.outs, Port{Name: o.Name, Unit: o.Unit})
	}
	c.m = m
	return c
}

// compile compiles the model with the file's parameters over the run's
// span (the span sets the solver's defaults, e.g. its largest step).
func (c *modelComp) compile() (*solver.Model, error) {
	return c.cache.compile(c.path, c.spec, c.params)
}

func (c *modelComp) start(m *Master) error {
	st := m.cfg.Settings
	ms := *c.spec
	ms.Settings.Start, ms.Settings.End = st.Start, st.End
	mod, err := c.cache.compile(c.path, &ms, c.params)
	if err != nil {
		return err
	}
	c.m = mod
	c.s = mod.NewState()
	copy(c.in, c.start0)
	for i, v := range c.in {
		c.s.SetInput(i, v)
	}
	if err := mod.Init(c.s); err != nil {
		return err
	}
	c.s.T = st.Start
	mod.EvalOutputs(c.s, c.out)
	return nil
}

func (c *modelComp) eval(t, dt float64) error { return nil }

func (c *modelComp) step(t, h float64) error {
	for i, v := range c.in {
		c.s.SetInput(i, v)
	}
	// extrapolated inputs follow u + u̇ (τ − t) over the step (solver
	// input ramps), then hold what they reached
	for k, i := range c.dIn {
		if err := c.s.SetInputDerivative(i, 1, c.din[k]); err != nil {
			return fmt.Errorf("model %s: %v", c.path, err)
		}
	}
	c.s.T = t
	err := c.m.AdvanceTo(c.s, t+h)
	for _, i := range c.dIn {
		_ = c.s.SetInputDerivative(i, 1, 0) // (a valid input, order and value)
	}
	if err != nil {
		var se *solver.StepError
		if errors.As(err, &se) {
			return fmt.Errorf("model %s: %v", c.path, se)
		}
		return err
	}
	c.m.EvalOutputs(c.s, c.out)
	return nil
}

func (c *modelComp) canExtrapolate() (outDerivs, inDerivs bool) { return true, true }

// outputDerivatives writes the time derivatives of the outputs at the
// state, inputs held (solver.Model.OutputDerivatives), as an FMU does.
func (c *modelComp) outputDerivatives() error {
	if err := c.m.OutputDerivatives(c.s, c.dout); err != nil {
		return fmt.Errorf("model %s: output derivatives: %v", c.path, err)
	}
	return nil
}

func (c *modelComp) close() error { return nil }

// linearize linearises the model with the file's parameters plus over
// about its initial state, the inputs at their start values.
func (c *modelComp) linearize(over map[string]float64) (*solver.Linear, []float64, []float64, error) {
	return linearizeSpec(c.spec, merge(c.params, over), c.ins, c.start0)
}
