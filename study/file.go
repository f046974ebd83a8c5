package study

// Study is a parsed study file (docs/study.md): the model or co-simulation
// it runs, the factors it varies, how it chooses their values (a design of
// experiments, an optimisation, finite-difference sensitivities) and the
// responses it computes from each run's results.
type Study struct {
	// Name and Description come from the root element.
	Name, Description string
	// File is the study file's path; relative paths in it are resolved
	// against its folder.
	File string
	// Target is the model file or co-simulation every run simulates.
	Target Target
	// Factors are the varied quantities, in file order.
	Factors []*Factor
	// Design chooses the runs of a design of experiments; nil when the
	// study has none.
	Design *Design
	// Responses are computed from each run's results, in file order.
	Responses []*Response
	// Objective names the response to optimise and the best run; nil when
	// the study has none.
	Objective *Objective
	// Constraints bound responses (feasibility of a run).
	Constraints []*Constraint
	// Optimize asks for an optimisation of the objective; nil when none.
	Optimize *Optimize
	// Sensitivity asks for finite-difference sensitivities; nil when none.
	Sensitivity *Sensitivity
}

// Target is the <model> or <cosim> element: what every run simulates.
type Target struct {
	// Kind is "model" or "cosim".
	Kind string
	// Path is the model or configuration file, resolved against the
	// study file's folder.
	Path string
	// End, Step and OutputStep override the file's settings when > 0 (a
	// co-simulation takes End and OutputStep).
	End, Step, OutputStep float64
	// Integrator overrides the model's integrator when not empty.
	Integrator string
	// Checks (cosim only) says whether the configuration's <check>s make a
	// run fail (default true).
	Checks bool
	// Params are fixed overrides applied to every run (<parameter> children).
	Params []Setting
	// Line is the element's line.
	Line int
}

// Setting is a fixed value given to a parameter of the target.
type Setting struct {
	// Name is a model parameter, or for a co-simulation
	// "component.parameter", "component.attribute" or
	// "component.attribute[k]" (the k-th number of a list, from 1).
	Name  string
	Value float64
	Line  int
}

// Factor is a quantity a study varies: a parameter of the target (Param)
// or a value used only in response expressions.
type Factor struct {
	// Name identifies the factor in designs, cases and expressions.
	Name string
	// Param is the target parameter it sets (see Setting.Name); empty
	// when the factor only enters response expressions.
	Param string
	// Unit is the SI unit of the values (from the parameter or the unit
	// attribute).
	Unit string
	// Min and Max bound the factor (NaN when not given).
	Min, Max float64
	// Levels are the values of a full-factorial or one-at-a-time design
	// (from levels= or values=).
	Levels []float64
	// Log spaces levels logarithmically and optimises in log scale.
	Log bool
	// Nominal is the value when the factor is not varied; NaN until
	// resolved from the target.
	Nominal float64
	// Dist is "" (uniform over [Min, Max] where sampled), "uniform" or
	// "normal"; Mean and SD parametrise a normal distribution (truncated
	// to [Min, Max] when those are given).
	Dist     string
	Mean, SD float64
	// Description is free text.
	Description string
	// Line is the element's line.
	Line int

	unitGiven string     // unit attribute as written
	raw       []rawValue // values as written, for the dimension check
	nomGiven  bool
	meanGiven bool
}

type rawValue struct {
	field, text string
	line        int
}

// Design is the <design> element.
type Design struct {
	// Kind is full-factorial, latin-hypercube, monte-carlo, cases or
	// one-at-a-time.
	Kind string
	// Runs is the number of runs of a sampled design.
	Runs int
	// Seed seeds the random generator of a sampled design.
	Seed uint64
	// Centered puts Latin hypercube samples at the centres of their strata.
	Centered bool
	// Cases are the <case> rows: one value per factor (NaN: nominal).
	Cases [][]float64
	// Labels name the cases (may be empty).
	Labels []string
	// Line is the element's line.
	Line int

	caseNodes []*node
}

// Response kinds.
const (
	KindFinal      = "final"
	KindInitial    = "initial"
	KindAt         = "at"
	KindMin        = "min"
	KindMax        = "max"
	KindMaxAbs     = "max-abs"
	KindMean       = "mean"
	KindRMS        = "rms"
	KindIntegral   = "integral"
	KindTimeOfMin  = "time-of-min"
	KindTimeOfMax  = "time-of-max"
	KindCrossing   = "crossing"
	KindSettling   = "settling-time"
	KindOvershoot  = "overshoot"
	KindExpression = "expr"
)

var responseKinds = []string{KindFinal, KindInitial, KindAt, KindMin, KindMax, KindMaxAbs, KindMean, KindRMS,
	KindIntegral, KindTimeOfMin, KindTimeOfMax, KindCrossing, KindSettling, KindOvershoot, KindExpression}

// Response is a figure computed from each run: a statistic of a signal
// over a time window, or an expression of other responses and factors.
type Response struct {
	Name, Kind string
	// Signal is an expression of result channels, factors and time
	// ("plant.omega", "w_ref.y - plant.omega").
	Signal string
	// Channel names one result channel, as an alternative to Signal for
	// names an expression cannot hold.
	Channel string
	// From and Until bound the time window (−Inf/+Inf: the whole run).
	From, Until float64
	// At is the time of an "at" response (NaN when When is used).
	At float64
	// When is an expression whose first upward zero crossing in the
	// window is the instant of an "at" or "crossing" response.
	When string
	// Target is the value a settling-time or overshoot response settles
	// to (NaN: the signal's final value in the window).
	Target float64
	// Band is the settling band: absolute, or relative to
	// |target − initial| when BandRel.
	Band    float64
	BandRel bool
	// Expr is the expression of an "expr" response over earlier responses
	// and factors.
	Expr string
	// Unit is the SI unit (from the unit attribute, else derived).
	Unit        string
	Description string
	Line        int
	signalLine  int
	whenLine    int
	exprLine    int
}

// Objective is the <objective> element.
type Objective struct {
	Response string
	Maximize bool
	Line     int
}

// Constraint bounds a response: Min ≤ response ≤ Max (NaN: no bound).
type Constraint struct {
	Response string
	Min, Max float64
	Line     int
}

// Optimize is the <optimize> element.
type Optimize struct {
	// Factors are the optimised factors (by name); the others stay at
	// their nominal values.
	Factors []string
	// MaxRuns bounds the number of evaluations.
	MaxRuns int
	// Tol is the relative tolerance on the objective.
	Tol float64
	// Start is "nominal" or "best" (the best run of the design).
	Start string
	// Simplex is the initial simplex size as a fraction of each range.
	Simplex float64
	Line    int
}

// Sensitivity is the <sensitivity> element.
type Sensitivity struct {
	// Step is the finite-difference step as a fraction of each factor's
	// range (or of |nominal| for a factor without bounds).
	Step float64
	// At is "nominal" or "best" (the optimum, or the best run).
	At string
	// Factors restricts the factors (all when empty).
	Factors []string
	Line    int
}
