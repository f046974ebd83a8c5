package study

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Effect is the main effect of one factor in a design with levels: the
// mean of each response over the runs at each level of the factor.
type Effect struct {
	Factor int
	// Levels are the factor's values, increasing; Mean[l][r] the mean of
	// response r over the successful runs at level l, Count[l] their number.
	Levels []float64
	Mean   [][]float64
	Count  []int
	// Range[r] is max − min over the levels of Mean[·][r]: the size of the
	// effect.
	Range []float64
}

// Regression is a linear least-squares fit of each response on the factors
// over the design's successful runs (for sampled designs, whose factor
// values do not repeat).
type Regression struct {
	// Coef[r][j] is ∂response r/∂factor j of the fit; Effect[r][j] the
	// change of the fit over the sampled range of factor j; Std[r][j] the
	// standardised coefficient Coef·sd(factor)/sd(response).
	Coef, Effect, Std [][]float64
	// R2[r] is the coefficient of determination of the fit of response r.
	R2 []float64
	N  int
}

// Stats are sample statistics of a response over the design's
// successful runs where it is finite (a settling time that never came is
// +Inf, and left out: N counts the values used).
type Stats struct {
	N                  int
	Mean, SD, Min, Max float64
	P05, P50, P95      float64
}

// Sensitivities are finite-difference derivatives of the responses by
// the factors at a point.
type Sensitivities struct {
	// At is the run at the point.
	At *Run
	// Factors are the factor indices; Step[j] the step taken.
	Factors []int
	Step    []float64
	// D[j][r] is ∂response r/∂factor j (central differences, one-sided at
	// a bound); Elasticity[j][r] = D·x/response. NaN where a run failed.
	D, Elasticity [][]float64
	// Runs[j] are the two runs of factor j (minus side, plus side).
	Runs [][2]*Run
}

// designRuns returns the successful runs of the design phase.
func designRuns(runs []*Run) []*Run {
	var out []*Run
	for _, r := range runs {
		if r != nil && r.Phase == "design" && r.OK() {
			out = append(out, r)
		}
	}
	return out
}

// mainEffects computes main effects for a design whose factors take
// levels (full factorial, one at a time, cases with repeated values).
func (p *Prepared) mainEffects(runs []*Run) []Effect {
	if p.Design == nil {
		return nil
	}
	ok := designRuns(runs)
	var out []Effect
	for i, f := range p.Factors {
		sub := ok
		if p.Design.Kind == "one-at-a-time" {
			sub = nil
			for _, r := range ok {
				if r.Label == "nominal" || r.Label == f.Name {
					sub = append(sub, r)
				}
			}
		}
		levels := map[float64][]*Run{}
		for _, r := range sub {
			levels[r.X[i]] = append(levels[r.X[i]], r)
		}
		if len(levels) < 2 || len(levels) > 50 || len(levels) == len(sub) && p.Design.Kind != "one-at-a-time" {
			continue
		}
		e := Effect{Factor: i}
		for v := range levels {
			e.Levels = append(e.Levels, v)
		}
		sort.Float64s(e.Levels)
		e.Range = make([]float64, len(p.Responses))
		lo := make([]float64, len(p.Responses))
		hi := make([]float64, len(p.Responses))
		for r := range lo {
			lo[r], hi[r] = math.Inf(1), math.Inf(-1)
		}
		for _, v := range e.Levels {
			m := make([]float64, len(p.Responses))
			rs := levels[v]
			for r := range m {
				s, n := 0.0, 0
				for _, run := range rs {
					if x := run.R[r]; !math.IsNaN(x) && !math.IsInf(x, 0) {
						s += x
						n++
					}
				}
				m[r] = math.NaN()
				if n > 0 {
					m[r] = s / float64(n)
					lo[r], hi[r] = math.Min(lo[r], m[r]), math.Max(hi[r], m[r])
				}
			}
			e.Mean = append(e.Mean, m)
			e.Count = append(e.Count, len(rs))
		}
		for r := range e.Range {
			e.Range[r] = hi[r] - lo[r]
			if math.IsInf(e.Range[r], 0) {
				e.Range[r] = math.NaN()
			}
		}
		out = append(out, e)
	}
	return out
}

// regression fits each response linearly on the factors over the
// design's successful runs (sampled designs).
func (p *Prepared) regression(runs []*Run) *Regression {
	if p.Design == nil || (p.Design.Kind != "monte-carlo" && p.Design.Kind != "latin-hypercube") {
		return nil
	}
	ok := designRuns(runs)
	nf, nr := len(p.Factors), len(p.Responses)
	if len(ok) < nf+2 {
		return nil
	}
	reg := &Regression{N: len(ok)}
	sdx := make([]float64, nf)
	rangex := make([]float64, nf)
	for j := 0; j < nf; j++ {
		col := make([]float64, len(ok))
		for k, r := range ok {
			col[k] = r.X[j]
		}
		_, sdx[j] = meanSD(col)
		lo, hi := minMax(col)
		rangex[j] = hi - lo
	}
	for r := 0; r < nr; r++ {
		var rows []*Run
		for _, run := range ok {
			if v := run.R[r]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				rows = append(rows, run)
			}
		}
		coef := make([]float64, nf)
		eff := make([]float64, nf)
		std := make([]float64, nf)
		for j := range coef {
			coef[j], eff[j], std[j] = math.NaN(), math.NaN(), math.NaN()
		}
		r2 := math.NaN()
		if len(rows) >= nf+2 {
			// centre and scale the columns for conditioning
			a := mat.NewDense(len(rows), nf+1, nil)
			b := mat.NewVecDense(len(rows), nil)
			mx := make([]float64, nf)
			for j := 0; j < nf; j++ {
				for _, run := range rows {
					mx[j] += run.X[j]
				}
				mx[j] /= float64(len(rows))
			}
			ys := make([]float64, len(rows))
			for k, run := range rows {
				a.Set(k, 0, 1)
				for j := 0; j < nf; j++ {
					s := sdx[j]
					if s == 0 {
						s = 1
					}
					a.Set(k, j+1, (run.X[j]-mx[j])/s)
				}
				b.SetVec(k, run.R[r])
				ys[k] = run.R[r]
			}
			var qr mat.QR
			qr.Factorize(a)
			var sol mat.VecDense
			if err := qr.SolveVecTo(&sol, false, b); err == nil {
				my, sdy := meanSD(ys)
				ssr, sst := 0.0, 0.0
				for k := range ys {
					fit := sol.AtVec(0)
					for j := 0; j < nf; j++ {
						fit += sol.AtVec(j+1) * a.At(k, j+1)
					}
					ssr += (ys[k] - fit) * (ys[k] - fit)
					sst += (ys[k] - my) * (ys[k] - my)
				}
				if sst > 0 {
					r2 = 1 - ssr/sst
				}
				for j := 0; j < nf; j++ {
					if sdx[j] == 0 {
						continue
					}
					coef[j] = sol.AtVec(j+1) / sdx[j]
					eff[j] = coef[j] * rangex[j]
					if sdy > 0 {
						std[j] = sol.AtVec(j+1) / sdy
					}
				}
			}
		}
		reg.Coef = append(reg.Coef, coef)
		reg.Effect = append(reg.Effect, eff)
		reg.Std = append(reg.Std, std)
		reg.R2 = append(reg.R2, r2)
	}
	return reg
}

// statistics summarises each response over the design's successful runs.
func (p *Prepared) statistics(runs []*Run) []Stats {
	if p.Design == nil {
		return nil
	}
	ok := designRuns(runs)
	out := make([]Stats, len(p.Responses))
	for r := range out {
		var v []float64
		for _, run := range ok {
			if x := run.R[r]; !math.IsNaN(x) && !math.IsInf(x, 0) {
				v = append(v, x)
			}
		}
		s := Stats{N: len(v), Mean: math.NaN(), SD: math.NaN(), Min: math.NaN(), Max: math.NaN(), P05: math.NaN(), P50: math.NaN(), P95: math.NaN()}
		if len(v) > 0 {
			s.Mean, s.SD = meanSD(v)
			s.Min, s.Max = minMax(v)
			sort.Float64s(v)
			s.P05, s.P50, s.P95 = quantile(v, 0.05), quantile(v, 0.5), quantile(v, 0.95)
		}
		out[r] = s
	}
	return out
}

// meanSD returns the mean and the sample standard deviation.
func meanSD(v []float64) (float64, float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	if len(v) < 2 {
		return m, math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return m, math.Sqrt(s / float64(len(v)-1))
}

func minMax(v []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// quantile of sorted v (linear interpolation between order statistics,
// Hyndman & Fan type 7, as spreadsheets compute it).
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	h := q * float64(len(v)-1)
	i := int(math.Floor(h))
	if i+1 >= len(v) {
		return v[len(v)-1]
	}
	return v[i] + (h-float64(i))*(v[i+1]-v[i])
}

// sensitivityPoints lists the runs of finite differences about x.
func (p *Prepared) sensitivityPoints(x []float64) ([]point, []int, []float64) {
	s := p.Sensitivity
	var fs []int
	if len(s.Factors) == 0 {
		for i := range p.Factors {
			fs = append(fs, i)
		}
	} else {
		for _, name := range s.Factors {
			fs = append(fs, p.factorIndex(name))
		}
	}
	pts := []point{{x: append([]float64(nil), x...), phase: "sensitivity", label: "centre"}}
	steps := make([]float64, len(fs))
	for k, i := range fs {
		f := p.Factors[i]
		h := s.Step * math.Abs(x[i])
		if !math.IsNaN(f.Min) && !math.IsNaN(f.Max) {
			h = s.Step * (f.Max - f.Min)
		}
		if h == 0 {
			h = s.Step
		}
		steps[k] = h
		lo, hi := x[i]-h, x[i]+h
		if !math.IsNaN(f.Min) && lo < f.Min {
			lo = x[i]
		}
		if !math.IsNaN(f.Max) && hi > f.Max {
			hi = x[i]
		}
		xm := append([]float64(nil), x...)
		xp := append([]float64(nil), x...)
		xm[i], xp[i] = lo, hi
		pts = append(pts, point{x: xm, phase: "sensitivity", label: f.Name + "-"}, point{x: xp, phase: "sensitivity", label: f.Name + "+"})
	}
	return pts, fs, steps
}

// sensitivities computes the derivatives from the runs of
// sensitivityPoints.
func (p *Prepared) sensitivities(runs []*Run, fs []int, steps []float64) *Sensitivities {
	s := &Sensitivities{At: runs[0], Factors: fs, Step: steps}
	c := runs[0]
	for k, i := range fs {
		lo, hi := runs[1+2*k], runs[2+2*k]
		s.Runs = append(s.Runs, [2]*Run{lo, hi})
		d := make([]float64, len(p.Responses))
		el := make([]float64, len(p.Responses))
		for r := range d {
			d[r], el[r] = math.NaN(), math.NaN()
			if lo.OK() && hi.OK() && hi.X[i] != lo.X[i] {
				d[r] = (hi.R[r] - lo.R[r]) / (hi.X[i] - lo.X[i])
				if c.OK() && c.R[r] != 0 {
					el[r] = d[r] * c.X[i] / c.R[r]
				}
			}
		}
		s.D = append(s.D, d)
		s.Elasticity = append(s.Elasticity, el)
	}
	return s
}
