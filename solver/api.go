package solver

import "mbfmu/spec"

// This file is the public face of the engine used by the FMU, the command
// line and the co-simulation master. The implementation is spread over the
// rest of the package.

// CompileOptions adjust a compilation.
type CompileOptions struct {
	// Params overrides parameter values by name (fixed and tunable).
	Params map[string]float64
}

// ParamInfo describes a model parameter.
type ParamInfo struct {
	Name, Unit, Description string
	Value                   float64 // value the model was compiled with
	// Tunable is true when every use of the parameter is re-evaluated
	// during the run (State.SetParam may change it between steps); fixed
	// parameters (masses, geometry) need a recompile.
	Tunable bool
}

// VarInfo describes a model input or declared output.
type VarInfo struct {
	Name, Unit, Description string
	Start                   float64 // inputs: start value
	// Array names the vector or matrix output this scalar is an element
	// of (an <output> of a vector channel such as body.r or body.R); Dims
	// are the array's dimensions and Elem the element's 0-based position
	// in row-major order. Array is "" for a plain scalar.
	Array string
	Dims  []int
	Elem  int
	// Channel is the channel an output reads (o.Channel of its <output>;
	// "" for an expression).
	Channel string
}

// Settings are the resolved analysis settings of a compiled model.
type Settings struct {
	Start, End, Step, OutputStep float64
	Integrator                   string
	Formulation                  string // index3 or index2
	RhoInf                       float64
	Adaptive                     bool
	RelTol, AbsTol               float64
	MinStep, MaxStep             float64
	NewtonTol                    float64
	MaxIter                      int
	BaumgarteAlpha               float64
	BaumgarteBeta                float64
	Gravity                      [3]float64
}

// Stats counts solver work since the state was initialised.
type Stats struct {
	Steps          int64 // accepted steps
	Short          int64 // accepted fixed steps shorter than the step: to reach an output or end time off the grid, or halves of a retried step
	Rejected       int64 // rejected steps (adaptive error control or Newton failure retries)
	NewtonIters    int64
	Factorizations int64
}

// StepError reports a failed integration: the state is left at LastTime,
// the last successfully reached time.
type StepError struct {
	Time     float64 // time at which the failing step started
	LastTime float64
	Msg      string
	// Source is the element, field and file:line found to cause the
	// failure (a force, driver, parameter or input whose value is not
	// finite, a mass out of scale), nil when none was; Msg begins with it.
	Source *spec.Error
}

// Error formats the failure.
func (e *StepError) Error() string {
	return "step failed at t=" + ftoa(e.Time) + " s: " + e.Msg
}
