package solver

import (
	"math"
	"strings"

	"mbfmu/expr"
	"mbfmu/spec"
)

// This file holds the compiler's range checks: numbers a model may hold at
// double precision, and the extent of the time grid. What they cannot see
// before the model is assembled (a mass that makes the iteration matrix
// too badly scaled to factor, a force that is infinite at the start) is
// found at the assembled state by Init and CheckValues (diagnose.go).

// MaxNumber is the largest magnitude of a number in a model or on the
// command line: √(largest double) ≈ 1.34e154. The engine multiplies the
// numbers of a model with each other — Schur complements a_ik·a_kj/a_kk of
// the iteration matrix, stiffness times stretch, ½·m·v², the square of a
// length — and a product of two numbers beyond it overflows to infinity.
const MaxNumber = 1.3407807929942596e154 // math.Sqrt(math.MaxFloat64)

// MaxGridSteps bounds |t|/step over the run. The fixed-step time grid
// (grid.go) takes a time within gridTol = 1e-6 steps of a grid point as
// that point; a time carries a rounding of about 2.2e-16·|t|, which stays
// below a quarter of that tolerance up to |t| = 1e9 steps. (The step index
// itself is an int64, good to 9.2e18.)
const MaxGridSteps = 1e9

// maxOutputRows bounds the number of result rows (end − start)/output-step.
const maxOutputRows = 1e9

// inRange reports whether a compile-time value is within ±MaxNumber, and
// records an error at e when it is not (the caller goes on with the value:
// the compilation fails anyway).
func (c *compiler) inRange(e spec.Expr, v float64) bool {
	if math.Abs(v) <= MaxNumber {
		return true
	}
	what := e.Src
	if what != ftoa(v) {
		what += " = " + ftoa(v)
	}
	c.errf(e.Pos, e.Field, "%s is beyond ±%.2g (√ of the largest double): the engine multiplies a model's numbers with each other (the iteration matrix's pivots, k·x, ½·m·v²), and products of such numbers overflow to infinity",
		what, MaxNumber)
	return false
}

// source records the attribute a run-time expression was compiled from
// (for the diagnosis of non-finite values) and refuses an expression with
// a constant part that is not finite, such as 10^10^10 or 1/0: it could
// only give infinities or NaN.
func (c *compiler) source(p *expr.Program, e spec.Expr) {
	if c.m.srcs == nil {
		c.m.srcs = map[*expr.Program]spec.Expr{}
	}
	c.m.srcs[p] = e
	// String prints non-finite constants as (1/0), (-1/0) and (0/0)
	if f := p.String(); strings.Contains(f, "(1/0)") || strings.Contains(f, "(-1/0)") || strings.Contains(f, "(0/0)") {
		c.errf(e.Pos, e.Field, "%q has a constant part that is not finite (it folds to %s): every number in an expression must be finite", e.Src, f)
	}
}

// timeGrid checks the extent of the run against the time grid and the
// number of result rows.
func (c *compiler) timeGrid(st Settings) {
	if field, msg := TimeGridProblem(st.Start, st.End, st.Step, st.OutputStep, st.Adaptive); msg != "" {
		c.errf(c.spec.Settings.Pos, field, "%s", msg)
	}
}

// TimeGridProblem checks a run from start to end with a fixed step (or,
// when adaptive, an initial step) and an output step: it returns the
// setting at fault ("start", "end", "step", "output-step") and why, or
// "" when the run is within the limits of the engine's time grid
// (|t|/step ≤ 1e9 over the run, fixed steps) and of the results
// (at most 1e9 rows).
func TimeGridProblem(start, end, step, outputStep float64, adaptive bool) (field, msg string) {
	if !(step > 0) || !(outputStep > 0) || !(end > start) {
		return "", "" // reported elsewhere
	}
	if !adaptive {
		span := math.Max(math.Abs(start), math.Abs(end))
		if n := span / step; n > MaxGridSteps {
			field = "end"
			if math.Abs(start) > math.Abs(end) {
				field = "start"
			}
			return field, "a run to t = " + ftoa(span) + " s with step " + ftoa(step) + " s spans " + sprintf("%.3g", n) +
				" steps of the fixed-step time grid (start + k·step), which tells its points apart at double precision only up to |t|/step = 1e9 (a time's rounding, about 2.2e-16·|t|, must stay well below the grid's tolerance of 1e-6 steps): shorten the run or lengthen the step"
		}
	}
	if n := (end - start) / outputStep; n > maxOutputRows {
		return "output-step", "a run of " + ftoa(end-start) + " s with output step " + ftoa(outputStep) + " s would write " + sprintf("%.3g", n) +
			" result rows, more than 1e9: lengthen the output step or shorten the run"
	}
	return "", ""
}
