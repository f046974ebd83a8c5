package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Options adjust Execute.
type Options struct {
	// Jobs is the number of runs simulated at once (≥ 1).
	Jobs int
	// Store is the folder that keeps finished runs (see docs/study.md);
	// StoreFile the file of it this process appends to ("local.jsonl"
	// when empty).
	Store, StoreFile string
	// KeepResults writes each run's results to Store/results/ID.csv.
	KeepResults bool
	// RetryFailed runs again the runs the store holds as failed.
	RetryFailed bool
	// Collect simulates nothing: runs not in the store are "missing".
	Collect bool
	// TaskIndex and TaskCount select a slice of the runs (a Slurm array
	// task): the runs whose index modulo TaskCount is TaskIndex. The
	// study then stops after running its slice (no analysis). TaskCount 0
	// or 1 runs everything.
	TaskIndex, TaskCount int
	// Progress, if set, receives a progress report after every run (and
	// at the start of each batch of runs).
	Progress func(Progress)
}

// Result is the outcome of a study.
type Result struct {
	*Prepared
	// Runs are the runs in index order (those of other Slurm tasks and
	// those an interruption left undone excluded).
	Runs []*Run
	// Best is the best feasible run of the objective (nil without an
	// objective or a feasible run).
	Best *Run
	// Optimum summarises the optimisation (nil without one).
	Optimum *Optimum
	// Effects are the main effects of a design with levels; Regression the
	// linear fit of a sampled design; Stats the statistics of the
	// responses over the design.
	Effects    []Effect
	Regression *Regression
	Stats      []Stats
	// Sensitivities are the finite-difference derivatives (nil without a
	// <sensitivity>).
	Sensitivities *Sensitivities
	// Interrupted is true when the context was cancelled: the runs done
	// are kept (in the store and in Runs), the rest is not.
	Interrupted bool
	// Simulated counts the runs simulated by this call (not taken from
	// the store); SimWall is their total wall time (s).
	Simulated int
	SimWall   float64
	// Wall is the study's wall time.
	Wall time.Duration
	// Slice is true for a Slurm task's slice (no analysis).
	Slice bool
}

// Missing counts the runs not in the store (--collect).
func (r *Result) Missing() int {
	n := 0
	for _, run := range r.Runs {
		if run.Status == StatusMissing {
			n++
		}
	}
	return n
}

// Failed counts the failed runs.
func (r *Result) Failed() int {
	n := 0
	for _, run := range r.Runs {
		if run.Status == StatusFailed {
			n++
		}
	}
	return n
}

// Sliceable reports whether the study's runs are all known before any
// runs (no optimisation, no sensitivity about a best run), so that
// several processes (Slurm array tasks) can share them.
func (p *Prepared) Sliceable() bool {
	return p.Optimize == nil && (p.Sensitivity == nil || p.Sensitivity.At == "nominal")
}

// Execute runs the study: the design, then the optimisation, then the
// sensitivities, through the store (runs already there are not run
// again), on o.Jobs workers. Cancelling ctx stops it: the runs finished
// are kept, those in flight are dropped, and the result has Interrupted
// set (with errInterrupted not returned as an error).
func (p *Prepared) Execute(ctx context.Context, o Options) (*Result, error) {
	if o.Store == "" {
		return nil, errors.New("study: no store folder")
	}
	if o.Jobs < 1 {
		o.Jobs = 1
	}
	name := o.StoreFile
	if name == "" {
		name = "local.jsonl"
	}
	st, err := openStore(o.Store, name)
	if err != nil {
		return nil, err
	}
	defer st.close()
	rn := newRunner(ctx, p, &o, st)
	defer rn.stop()
	res := &Result{Prepared: p}
	t0 := time.Now()
	var skip func(int) bool
	if o.TaskCount > 1 {
		if !p.Sliceable() {
			return nil, fmt.Errorf("study %s: an optimisation (or sensitivities about its optimum) cannot be split between tasks: run it as one task", p.File)
		}
		k, n := o.TaskIndex, o.TaskCount
		skip = func(index int) bool { return (index-1)%n != k }
		res.Slice = true
	}
	finish := func(err error) (*Result, error) {
		res.Runs = rn.plannedRuns()
		res.Simulated, res.SimWall = rn.simulated, rn.newWall
		res.Wall = time.Since(t0)
		if errors.Is(err, errInterrupted) {
			res.Interrupted = true
			err = nil
		}
		rn.report(true)
		if err != nil {
			return res, err
		}
		if !res.Slice {
			p.analyse(res)
		}
		return res, nil
	}
	var dRuns []*Run
	if p.Design != nil {
		rn.phase = "design"
		dRuns, err = rn.eval(p.Study.designPoints(), skip)
		if err != nil {
			return finish(err)
		}
	}
	if p.Optimize != nil {
		rn.phase = "optimize"
		start := p.nominal()
		if p.Optimize.Start == "best" {
			b := p.bestRun(dRuns)
			if b == nil {
				return finish(fmt.Errorf("study %s: no feasible run in the design to start the optimisation from", p.File))
			}
			start = append([]float64(nil), b.X...)
		}
		opt, err := p.optimize(rn, start)
		res.Optimum = opt
		if err != nil {
			return finish(err)
		}
	}
	if s := p.Sensitivity; s != nil {
		rn.phase = "sensitivity"
		x := p.nominal()
		if s.At == "best" {
			var b *Run
			if res.Optimum != nil {
				b = res.Optimum.Best
			} else {
				b = p.bestRun(dRuns)
			}
			if b == nil {
				return finish(fmt.Errorf("study %s: no feasible best run to take sensitivities about", p.File))
			}
			x = b.X
		}
		pts, fs, steps := p.sensitivityPoints(x)
		runs, err := rn.eval(pts, skip)
		if err != nil {
			return finish(err)
		}
		if !res.Slice {
			res.Sensitivities = p.sensitivities(runs, fs, steps)
		}
	}
	return finish(nil)
}

// analyse computes the best run, effects and statistics.
func (p *Prepared) analyse(res *Result) {
	res.Best = p.bestRun(res.Runs)
	res.Effects = p.mainEffects(res.Runs)
	res.Regression = p.regression(res.Runs)
	res.Stats = p.statistics(res.Runs)
}

// Describe lists what the study will run, for `mbfmu study --check`.
func (p *Prepared) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ok — study %q on the %s %s (%d result channels)\n", p.File, p.Name, p.Target.Kind, p.Target.Path, len(p.cols))
	for _, f := range p.Factors {
		fmt.Fprintf(&b, "  factor %-12s", f.Name)
		if f.Param != "" {
			fmt.Fprintf(&b, " sets %s,", f.Param)
		}
		fmt.Fprintf(&b, " nominal %s", fmtValue(f.Nominal, f.Unit))
		if !math.IsNaN(f.Min) || !math.IsNaN(f.Max) {
			fmt.Fprintf(&b, ", range [%s, %s]", fmtValue(f.Min, ""), fmtValue(f.Max, f.Unit))
		}
		if len(f.Levels) > 0 {
			fmt.Fprintf(&b, ", %d levels", len(f.Levels))
		}
		if f.Dist == "normal" {
			fmt.Fprintf(&b, ", normal(mean %g, sd %g)", f.Mean, f.SD)
		}
		b.WriteString("\n")
	}
	for _, r := range p.Responses {
		what := r.Kind + " of " + r.Signal + r.Channel
		if r.Kind == KindExpression {
			what = "= " + r.Expr
		}
		fmt.Fprintf(&b, "  response %-10s %s [%s]\n", r.Name, what, r.Unit)
	}
	if p.Design != nil {
		fmt.Fprintf(&b, "  design %s: %d runs\n", p.Design.Kind, len(p.designPoints()))
	}
	if o := p.Optimize; o != nil {
		goal := "minimize"
		if p.Objective.Maximize {
			goal = "maximize"
		}
		fmt.Fprintf(&b, "  optimisation: %s %s over %s, at most %d runs, start %s\n", goal, p.Objective.Response, strings.Join(o.Factors, ", "), o.MaxRuns, o.Start)
	}
	for _, c := range p.Constraints {
		fmt.Fprintf(&b, "  constraint on %s: min %g, max %g\n", c.Response, c.Min, c.Max)
	}
	if s := p.Sensitivity; s != nil {
		fmt.Fprintf(&b, "  sensitivities about the %s point, step %g of each range\n", s.At, s.Step)
	}
	return b.String()
}
