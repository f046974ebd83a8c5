package study

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// The optimisation: Nelder–Mead (gonum.org/v1/gonum/optimize) on the
// continuous factors, with
//
//   - bounds by a change of variable: each factor x in [lo, hi] is
//     x = lo + (hi − lo)(1 − cos z)/2 (in log x for a log-scale factor),
//     so that the simplex moves freely in z and every point it asks for
//     lies within the bounds (a penalty would waste runs outside them,
//     where the model may not even assemble);
//   - constraints by an augmented Lagrangian (Rockafellar's form for
//     inequalities): Nelder–Mead minimises
//     Φ = f/|f₀| + Σ [max(0, λᵢ + μ gᵢ)² − λᵢ²] / (2μ), gᵢ the constraint
//     violations scaled by their bounds, then the multipliers are updated,
//     λᵢ ← max(0, λᵢ + μ gᵢ), μ grows tenfold when the violation did not
//     shrink fourfold, and Nelder–Mead restarts from the last point with a
//     smaller simplex. Unlike a plain penalty, the multipliers let the
//     iterates reach the constraint boundary with a finite μ.
//
// A failed run (or an undefined objective) counts as +∞. Every evaluated
// point is a run of the study, kept in the outputs.

// feasTol is the relative tolerance of constraint satisfaction.
const feasTol = 1e-6

// Optimum summarises an optimisation.
type Optimum struct {
	// Factors are the optimised factors.
	Factors []string
	// Best is the best feasible run among the optimisation's evaluations
	// (nil when none was feasible).
	Best *Run
	// Evals lists the evaluations in the order they were asked for
	// (repeats included), with the best feasible objective so far.
	Evals []OptEval
	// Status is gonum's termination status of the last Nelder–Mead pass;
	// Outer the number of augmented-Lagrangian passes; Multipliers the
	// final λ of each constraint.
	Status      string
	Outer       int
	Multipliers []float64
	// MaxViolation is the largest relative constraint violation of Best.
	MaxViolation float64
}

// OptEval is one evaluation of the optimisation.
type OptEval struct {
	Run       *Run
	Value     float64 // objective (NaN when failed)
	BestSoFar float64
	Feasible  bool
}

// objective returns the objective value of a run (NaN when it failed).
func (p *Prepared) objective(r *Run) float64 {
	if r == nil || !r.OK() || p.Objective == nil {
		return math.NaN()
	}
	return r.R[p.responseIndex(p.Objective.Response)]
}

// violation returns the largest relative constraint violation of a run
// (≤ 0 when feasible; +Inf when it failed).
func (p *Prepared) violation(r *Run) float64 {
	if len(p.Constraints) == 0 {
		if r.OK() {
			return 0
		}
		return math.Inf(1)
	}
	if !r.OK() {
		return math.Inf(1)
	}
	worst := math.Inf(-1)
	for _, c := range p.Constraints {
		v := r.R[p.responseIndex(c.Response)]
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		if !math.IsNaN(c.Max) {
			worst = math.Max(worst, (v-c.Max)/math.Max(math.Abs(c.Max), 1e-300))
		}
		if !math.IsNaN(c.Min) {
			worst = math.Max(worst, (c.Min-v)/math.Max(math.Abs(c.Min), 1e-300))
		}
	}
	return worst
}

// Feasible reports whether the run satisfies every constraint (within a
// relative 1e-6).
func (p *Prepared) Feasible(r *Run) bool { return r.OK() && p.violation(r) <= feasTol }

// better reports whether objective a beats b.
func (p *Prepared) better(a, b float64) bool {
	if math.IsNaN(b) {
		return !math.IsNaN(a)
	}
	if p.Objective.Maximize {
		return a > b
	}
	return a < b
}

// bestRun returns the best feasible run with a defined objective.
func (p *Prepared) bestRun(runs []*Run) *Run {
	if p.Objective == nil {
		return nil
	}
	var best *Run
	for _, r := range runs {
		if r == nil || !p.Feasible(r) {
			continue
		}
		v := p.objective(r)
		if math.IsNaN(v) {
			continue
		}
		if best == nil || p.better(v, p.objective(best)) {
			best = r
		}
	}
	return best
}

// optimize runs the optimisation from start.
func (p *Prepared) optimize(rn *runner, start []float64) (*Optimum, error) {
	o := p.Optimize
	idx := make([]int, len(o.Factors))
	for j, name := range o.Factors {
		idx[j] = p.factorIndex(name)
	}
	dim := len(idx)
	opt := &Optimum{Factors: o.Factors, Multipliers: make([]float64, len(p.Constraints))}
	toX := func(z []float64) []float64 {
		x := append([]float64(nil), start...)
		for j, i := range idx {
			f := p.Factors[i]
			u := (1 - math.Cos(z[j])) / 2
			if f.Log {
				x[i] = math.Exp(math.Log(f.Min) + u*(math.Log(f.Max)-math.Log(f.Min)))
			} else {
				x[i] = f.Min + u*(f.Max-f.Min)
			}
			x[i] = math.Min(math.Max(x[i], f.Min), f.Max)
		}
		return x
	}
	z0 := make([]float64, dim)
	for j, i := range idx {
		f := p.Factors[i]
		x := math.Min(math.Max(start[i], f.Min), f.Max)
		u := (x - f.Min) / (f.Max - f.Min)
		if f.Log {
			u = math.Log(x/f.Min) / math.Log(f.Max/f.Min)
		}
		z0[j] = math.Acos(1 - 2*u)
	}
	rn.extra = o.MaxRuns - 1
	// scales, from the starting point
	first, err := rn.eval([]point{{x: toX(z0), phase: "optimize", label: "start"}}, nil)
	if err != nil {
		return nil, err
	}
	f0 := p.objective(first[0])
	if math.IsNaN(f0) {
		return nil, fmt.Errorf("optimisation: the starting point (run %d) gives no objective: %s", first[0].Index, orReason(first[0]))
	}
	fscale := math.Max(math.Abs(f0), 1e-12)
	sign := 1.0
	if p.Objective.Maximize {
		sign = -1
	}
	lam := opt.Multipliers
	mu := 100.0
	gvec := func(r *Run) []float64 {
		g := make([]float64, 0, 2*len(p.Constraints))
		for _, c := range p.Constraints {
			v := r.R[p.responseIndex(c.Response)]
			hi, lo := math.NaN(), math.NaN()
			if !math.IsNaN(c.Max) {
				hi = (v - c.Max) / math.Max(math.Abs(c.Max), 1e-300)
			}
			if !math.IsNaN(c.Min) {
				lo = (c.Min - v) / math.Max(math.Abs(c.Min), 1e-300)
			}
			switch {
			case math.IsNaN(hi):
				g = append(g, lo)
			case math.IsNaN(lo):
				g = append(g, hi)
			default:
				g = append(g, math.Max(hi, lo))
			}
		}
		return g
	}
	merit := func(r *Run) float64 {
		f := p.objective(r)
		if math.IsNaN(f) {
			return math.Inf(1)
		}
		phi := sign * f / fscale
		for i, g := range gvec(r) {
			if math.IsNaN(g) {
				return math.Inf(1)
			}
			a := math.Max(0, lam[i]+mu*g)
			phi += (a*a - lam[i]*lam[i]) / (2 * mu)
		}
		return phi
	}
	best := math.NaN()
	record := func(r *Run) {
		v := p.objective(r)
		feas := p.Feasible(r)
		if feas && !math.IsNaN(v) && (math.IsNaN(best) || p.better(v, best)) {
			best = v
		}
		opt.Evals = append(opt.Evals, OptEval{Run: r, Value: v, BestSoFar: best, Feasible: feas})
	}
	record(first[0])
	newRuns := func() int {
		n := 0
		seen := map[*Run]bool{}
		for _, e := range opt.Evals {
			if !seen[e.Run] {
				seen[e.Run] = true
				n++
			}
		}
		return n
	}
	var evalErr error
	evalBatch := func(zs [][]float64, label string) ([]*Run, error) {
		pts := make([]point, len(zs))
		for k, z := range zs {
			pts[k] = point{x: toX(z), phase: "optimize", label: label}
		}
		runs, err := rn.eval(pts, nil)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			record(r)
		}
		rn.note = fmt.Sprintf("best %s %.6g", p.Objective.Response, best)
		rn.extra = max(0, o.MaxRuns-newRuns())
		return runs, nil
	}
	z := z0
	delta := o.Simplex * math.Pi
	prevViol := math.Inf(1)
	prevPhi := math.Inf(1)
	for outer := 0; outer < 12; outer++ {
		budget := o.MaxRuns - newRuns()
		if budget <= dim+1 {
			break
		}
		opt.Outer = outer + 1
		// the initial simplex, evaluated in parallel
		verts := make([][]float64, dim+1)
		verts[0] = append([]float64(nil), z...)
		for j := 0; j < dim; j++ {
			v := append([]float64(nil), z...)
			v[j] += delta
			if z[j]+delta > math.Pi {
				v[j] = z[j] - delta // stay on the side where the change of variable moves x
			}
			verts[j+1] = v
		}
		runs, err := evalBatch(verts, "simplex")
		if err != nil {
			return opt, err
		}
		vals := make([]float64, dim+1)
		allInf := true
		for k, r := range runs {
			vals[k] = merit(r)
			if !math.IsInf(vals[k], 1) {
				allInf = false
			}
		}
		if allInf {
			return opt, errors.New("optimisation: every point of the initial simplex failed or gave no objective")
		}
		problem := optimize.Problem{
			Func: func(zz []float64) float64 {
				if evalErr != nil {
					return math.Inf(1)
				}
				rs, err := evalBatch([][]float64{zz}, "")
				if err != nil {
					evalErr = err
					return math.Inf(1)
				}
				return merit(rs[0])
			},
			Status: func() (optimize.Status, error) {
				if evalErr != nil {
					return optimize.Failure, evalErr
				}
				if newRuns() >= o.MaxRuns {
					return optimize.FunctionEvaluationLimit, nil
				}
				return optimize.NotTerminated, nil
			},
		}
		settings := &optimize.Settings{
			InitValues: &optimize.Location{F: vals[0]},
			Converger:  &optimize.FunctionConverge{Absolute: o.Tol * 1e-3, Relative: o.Tol, Iterations: 10 + 5*dim},
		}
		nm := &optimize.NelderMead{InitialVertices: verts, InitialValues: vals}
		res, err := optimize.Minimize(problem, z, settings, nm)
		if evalErr != nil {
			return opt, evalErr
		}
		if res == nil {
			return opt, err
		}
		opt.Status = res.Status.String()
		z = res.X
		// the run at the simplex's best point
		rs, err := evalBatch([][]float64{z}, "")
		if err != nil {
			return opt, err
		}
		r := rs[0]
		phi := merit(r)
		viol := 0.0
		for i, g := range gvec(r) {
			viol = math.Max(viol, g)
			lam[i] = math.Max(0, lam[i]+mu*g)
		}
		converged := viol <= feasTol && math.Abs(prevPhi-phi) <= o.Tol*math.Max(1, math.Abs(phi))
		if len(p.Constraints) == 0 && outer > 0 && math.Abs(prevPhi-phi) <= o.Tol*math.Max(1, math.Abs(phi)) {
			converged = true
		}
		if converged {
			break
		}
		if viol > 0.25*prevViol {
			mu *= 10
		}
		prevViol, prevPhi = viol, phi
		delta = math.Max(delta/2, 1e-3)
	}
	rn.extra = 0
	var runs []*Run
	for _, e := range opt.Evals {
		runs = append(runs, e.Run)
	}
	opt.Best = p.bestRun(runs)
	if opt.Best != nil {
		opt.MaxViolation = math.Max(0, p.violation(opt.Best))
	}
	return opt, nil
}

func orReason(r *Run) string {
	if r.Reason != "" {
		return r.Reason
	}
	if r.Status == StatusOK {
		return "the objective is undefined (NaN)"
	}
	return r.Status
}
