package study

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"mbfmu/atomicfile"
	"mbfmu/results"
)

// header lists the columns of the runs table: run, phase, label, the
// factors, the responses, feasible (with constraints), status, reason,
// wall time and id.
func (r *Result) header() (names, units []string) {
	add := func(n, u string) { names, units = append(names, n), append(units, u) }
	add("run", "")
	add("phase", "")
	add("label", "")
	for _, f := range r.Factors {
		add(f.Name, f.Unit)
	}
	for _, s := range r.Responses {
		add(s.Name, s.Unit)
	}
	if len(r.Constraints) > 0 {
		add("feasible", "")
	}
	add("status", "")
	add("reason", "")
	add("wall", "s")
	add("id", "")
	return
}

func (r *Result) firstResponseCol() int { return 3 + len(r.Factors) }

// row returns the cells of a run: float64 or string.
func (r *Result) row(run *Run) []any {
	c := []any{float64(run.Index), run.Phase, run.Label}
	for _, x := range run.X {
		c = append(c, x)
	}
	for _, x := range run.R {
		c = append(c, x)
	}
	if len(r.Constraints) > 0 {
		f := "no"
		if r.Feasible(run) {
			f = "yes"
		}
		c = append(c, f)
	}
	c = append(c, run.Status, run.Reason, run.Wall, run.ID)
	return c
}

// WriteCSV writes one row per run (see docs/study.md) to w: a header of
// "name [unit]" fields, values as the shortest text that reads back
// exactly, NaN and ±Inf spelled out.
func (r *Result) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	names, units := r.header()
	h := make([]string, len(names))
	for i := range names {
		h[i] = results.HeaderField(results.Column{Name: names[i], Unit: units[i]})
	}
	if err := cw.Write(h); err != nil {
		return err
	}
	for _, run := range r.Runs {
		cells := r.row(run)
		rec := make([]string, len(cells))
		for i, c := range cells {
			switch v := c.(type) {
			case float64:
				rec[i] = strconv.FormatFloat(v, 'g', -1, 64)
				if math.IsInf(v, 1) {
					rec[i] = "+Inf"
				}
			case string:
				rec[i] = v
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeAtomic writes a file (its folder created if missing) through an
// atomicfile.File, which appears under path only when write succeeded.
func writeAtomic(path string, write func(w io.Writer) error) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// SaveCSV writes the runs table to path atomically.
func (r *Result) SaveCSV(path string) error {
	return writeAtomic(path, r.WriteCSV)
}

// describe formats a run's factors and responses.
func (r *Result) describe(run *Run) string {
	var b strings.Builder
	for i, f := range r.Factors {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %s", f.Name, fmtValue(run.X[i], f.Unit))
	}
	b.WriteString(" → ")
	for i, s := range r.Responses {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = %s", s.Name, fmtValue(run.R[i], s.Unit))
	}
	return b.String()
}

// Summary is the text report of the study for the terminal.
func (r *Result) Summary() string {
	var b strings.Builder
	ok := 0
	for _, run := range r.Runs {
		if run.OK() {
			ok++
		}
	}
	fmt.Fprintf(&b, "study %s: %d runs (%d ok, %d failed", r.Name, len(r.Runs), ok, r.Failed())
	if m := r.Missing(); m > 0 {
		fmt.Fprintf(&b, ", %d missing", m)
	}
	fmt.Fprintf(&b, "), %d simulated now, %d from the store; wall %.3g s\n", r.Simulated, len(r.Runs)-r.Simulated-r.Missing(), r.Wall.Seconds())
	if r.Interrupted {
		fmt.Fprintf(&b, "INTERRUPTED: the runs done are kept; run the same command again to do the rest\n")
	}
	shown := 0
	for _, run := range r.Runs {
		if run.Status == StatusFailed && shown < 5 {
			fmt.Fprintf(&b, "  run %d failed: %s\n", run.Index, run.Reason)
			shown++
		}
	}
	if f := r.Failed(); f > shown {
		fmt.Fprintf(&b, "  (%d more failed runs: see the status and reason columns)\n", f-shown)
	}
	if o := r.Optimum; o != nil {
		fmt.Fprintf(&b, "optimisation of %s over %s: %d evaluations, %d augmented-Lagrangian pass(es), last Nelder–Mead status %s\n",
			r.Objective.Response, strings.Join(o.Factors, ", "), len(o.Evals), o.Outer, o.Status)
		if o.Best != nil {
			fmt.Fprintf(&b, "  optimum: run %d: %s\n", o.Best.Index, r.describe(o.Best))
			if len(r.Constraints) > 0 {
				fmt.Fprintf(&b, "  largest constraint violation %.2g (relative)\n", o.MaxViolation)
			}
		} else {
			fmt.Fprintf(&b, "  no feasible point found\n")
		}
	}
	if r.Best != nil {
		goal := "minimum"
		if r.Objective.Maximize {
			goal = "maximum"
		}
		fmt.Fprintf(&b, "best run (%s %s, feasible): run %d (%s): %s\n", goal, r.Objective.Response, r.Best.Index, runWhat(r.Best), r.describe(r.Best))
	} else if r.Objective != nil {
		fmt.Fprintf(&b, "best run: none (no feasible run with a defined %s)\n", r.Objective.Response)
	}
	for _, e := range r.Effects {
		f := r.Factors[e.Factor]
		fmt.Fprintf(&b, "main effect of %s:", f.Name)
		for k, s := range r.Responses {
			fmt.Fprintf(&b, " %s range %s;", s.Name, fmtValue(e.Range[k], s.Unit))
		}
		b.WriteString("\n")
	}
	if len(r.Stats) > 0 && r.Design != nil && r.Design.Kind != "cases" {
		fmt.Fprintf(&b, "responses over the design (%s):\n", r.Design.Kind)
		fmt.Fprintf(&b, "  %-16s %6s %12s %12s %12s %12s %12s %12s\n", "response", "n", "mean", "sd", "min", "p5", "p95", "max")
		for k, s := range r.Stats {
			fmt.Fprintf(&b, "  %-16s %6d %12.6g %12.6g %12.6g %12.6g %12.6g %12.6g %s\n", r.Responses[k].Name, s.N, s.Mean, s.SD, s.Min, s.P05, s.P95, s.Max, r.Responses[k].Unit)
		}
	}
	if g := r.Regression; g != nil {
		fmt.Fprintf(&b, "linear fit over the design (%d runs): standardised coefficients (R²)\n", g.N)
		for k, s := range r.Responses {
			fmt.Fprintf(&b, "  %-16s", s.Name)
			for j, f := range r.Factors {
				fmt.Fprintf(&b, " %s %+.3f", f.Name, g.Std[k][j])
			}
			fmt.Fprintf(&b, " (R² %.4f)\n", g.R2[k])
		}
	}
	if s := r.Sensitivities; s != nil {
		fmt.Fprintf(&b, "sensitivities at run %d (%s), finite differences:\n", s.At.Index, r.Sensitivity.At)
		for k, i := range s.Factors {
			f := r.Factors[i]
			for q, resp := range r.Responses {
				fmt.Fprintf(&b, "  d %s / d %s = %.6g %s   (elasticity %.4g)\n", resp.Name, f.Name, s.D[k][q], perUnit(resp.Unit, f.Unit), s.Elasticity[k][q])
			}
		}
	}
	return b.String()
}

// runWhat names a run's phase and label.
func runWhat(r *Run) string {
	if r.Label == "" {
		return r.Phase
	}
	return r.Phase + ", " + r.Label
}

// perUnit writes the unit of a derivative.
func perUnit(num, den string) string {
	switch {
	case den == "" && num == "":
		return ""
	case den == "":
		return num
	case num == "":
		return "1/(" + den + ")"
	}
	return num + "/(" + den + ")"
}

// Sheet names of the study workbook.
const (
	SheetRuns          = "Runs"
	SheetCharts        = "Charts"
	SheetSummary       = "Summary"
	SheetEffects       = "Effects"
	SheetOptimization  = "Optimization"
	SheetSensitivities = "Sensitivities"
)

// SaveXLSX writes the workbook: Runs (one row per run, names in row 1,
// units in row 2, the best run highlighted), Charts (each response
// against each factor with the main effects, the convergence of an
// optimisation), Summary (the study, the best run, statistics, fits),
// and Effects, Optimization and Sensitivities when there are any.
func (r *Result) SaveXLSX(path string) error {
	if !strings.EqualFold(filepath.Ext(path), ".xlsx") {
		return fmt.Errorf("%s: the file name must end in .xlsx", path)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f := excelize.NewFile()
	defer f.Close()
	if err := r.buildWorkbook(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := results.SaveWorkbook(f, path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

type wbStyles struct {
	bold, unit, best, failed, num int
}

func (r *Result) buildWorkbook(f *excelize.File) error {
	if err := f.SetSheetName(f.GetSheetName(0), SheetRuns); err != nil {
		return err
	}
	var st wbStyles
	var err error
	if st.bold, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}}); err != nil {
		return err
	}
	if st.unit, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Italic: true, Color: "666666"}}); err != nil {
		return err
	}
	if st.best, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"C6EFCE"}}}); err != nil {
		return err
	}
	if st.failed, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Color: "C00000"}}); err != nil {
		return err
	}
	for _, s := range []string{SheetCharts, SheetSummary} {
		if _, err := f.NewSheet(s); err != nil {
			return err
		}
	}
	nonFinite, err := r.writeRuns(f, st)
	if err != nil {
		return err
	}
	effRef, err := r.writeEffects(f, st)
	if err != nil {
		return err
	}
	if err := r.writeOptimization(f, st); err != nil {
		return err
	}
	if err := r.writeSensitivities(f, st); err != nil {
		return err
	}
	if err := r.writeSummary(f, st); err != nil {
		return err
	}
	if err := r.writeCharts(f, effRef); err != nil {
		return err
	}
	if nonFinite {
		on := true
		if err := f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &on}); err != nil {
			return err
		}
	}
	f.SetActiveSheet(0)
	return nil
}

func cellName(col, row int) string {
	s, _ := excelize.CoordinatesToCellName(col, row)
	return s
}

func colName(col int) string {
	s, _ := excelize.ColumnNumberToName(col)
	return s
}

// writeRuns streams the Runs sheet. Non-finite numbers become =NA() (the
// CSV spells them out).
func (r *Result) writeRuns(f *excelize.File, st wbStyles) (bool, error) {
	sw, err := f.NewStreamWriter(SheetRuns)
	if err != nil {
		return false, err
	}
	names, units := r.header()
	if err := sw.SetColWidth(1, 3, 10); err != nil {
		return false, err
	}
	h1, h2 := make([]any, len(names)), make([]any, len(names))
	for i := range names {
		h1[i] = excelize.Cell{StyleID: st.bold, Value: names[i]}
		h2[i] = excelize.Cell{StyleID: st.unit, Value: units[i]}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, XSplit: 1, YSplit: 2, TopLeftCell: "B3", ActivePane: "bottomRight"}); err != nil {
		return false, err
	}
	if err := sw.SetRow("A1", h1); err != nil {
		return false, err
	}
	if err := sw.SetRow("A2", h2); err != nil {
		return false, err
	}
	nonFinite := false
	for k, run := range r.Runs {
		cells := r.row(run)
		style := 0
		switch {
		case run == r.Best:
			style = st.best
		case !run.OK():
			style = st.failed
		}
		row := make([]any, len(cells))
		for i, c := range cells {
			cell := excelize.Cell{StyleID: style, Value: c}
			if v, ok := c.(float64); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
				cell.Value = nil
				cell.Formula = "NA()"
				nonFinite = true
			}
			row[i] = cell
		}
		if err := sw.SetRow(cellName(1, 3+k), row); err != nil {
			return false, err
		}
	}
	return nonFinite, sw.Flush()
}

// effectRef locates the level means of one (factor, response) pair in the
// Effects sheet.
type effectRef struct {
	x, y, name string
}

func (r *Result) writeEffects(f *excelize.File, st wbStyles) (map[[2]int]effectRef, error) {
	refs := map[[2]int]effectRef{}
	if len(r.Effects) == 0 {
		return refs, nil
	}
	if _, err := f.NewSheet(SheetEffects); err != nil {
		return nil, err
	}
	row := 1
	set := func(cells ...any) error {
		err := f.SetSheetRow(SheetEffects, cellName(1, row), &cells)
		row++
		return err
	}
	if err := set("Main effects: the mean of each response over the successful design runs at each level of a factor."); err != nil {
		return nil, err
	}
	row++
	for _, e := range r.Effects {
		fa := r.Factors[e.Factor]
		head := []any{withUnit(fa.Name, fa.Unit), "runs"}
		for _, s := range r.Responses {
			head = append(head, "mean "+withUnit(s.Name, s.Unit))
		}
		if err := set(head...); err != nil {
			return nil, err
		}
		if err := f.SetCellStyle(SheetEffects, cellName(1, row-1), cellName(len(head), row-1), st.bold); err != nil {
			return nil, err
		}
		headRow := row - 1
		first := row
		for l, v := range e.Levels {
			cells := []any{v, e.Count[l]}
			for _, m := range e.Mean[l] {
				cells = append(cells, finiteOrText(m))
			}
			if err := set(cells...); err != nil {
				return nil, err
			}
		}
		last := row - 1
		for k := range r.Responses {
			col := colName(3 + k)
			refs[[2]int{e.Factor, k}] = effectRef{
				x:    fmt.Sprintf("%s!$A$%d:$A$%d", SheetEffects, first, last),
				y:    fmt.Sprintf("%s!$%s$%d:$%s$%d", SheetEffects, col, first, col, last),
				name: fmt.Sprintf("%s!$%s$%d", SheetEffects, col, headRow),
			}
		}
		range_ := []any{"range", ""}
		for _, v := range e.Range {
			range_ = append(range_, finiteOrText(v))
		}
		if err := set(range_...); err != nil {
			return nil, err
		}
		row++
	}
	return refs, f.SetColWidth(SheetEffects, "A", colName(2+len(r.Responses)), 18)
}

func finiteOrText(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return v
}

func withUnit(s, u string) string {
	if u == "" {
		return s
	}
	return s + " [" + u + "]"
}

func (r *Result) writeOptimization(f *excelize.File, st wbStyles) error {
	o := r.Optimum
	if o == nil {
		return nil
	}
	if _, err := f.NewSheet(SheetOptimization); err != nil {
		return err
	}
	obj := r.Responses[r.responseIndex(r.Objective.Response)]
	head := []any{"evaluation", "run", withUnit(obj.Name, obj.Unit), "best feasible so far", "feasible"}
	for _, name := range o.Factors {
		fa := r.Factors[r.factorIndex(name)]
		head = append(head, withUnit(fa.Name, fa.Unit))
	}
	if err := f.SetSheetRow(SheetOptimization, "A1", &head); err != nil {
		return err
	}
	if err := f.SetCellStyle(SheetOptimization, "A1", cellName(len(head), 1), st.bold); err != nil {
		return err
	}
	for k, e := range o.Evals {
		feas := "no"
		if e.Feasible {
			feas = "yes"
		}
		cells := []any{k + 1, e.Run.Index, finiteOrBlank(e.Value), finiteOrBlank(e.BestSoFar), feas}
		for _, name := range o.Factors {
			cells = append(cells, e.Run.X[r.factorIndex(name)])
		}
		if err := f.SetSheetRow(SheetOptimization, cellName(1, k+2), &cells); err != nil {
			return err
		}
	}
	return f.SetColWidth(SheetOptimization, "A", colName(len(head)), 16)
}

func finiteOrBlank(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func (r *Result) writeSensitivities(f *excelize.File, st wbStyles) error {
	s := r.Sensitivities
	if s == nil {
		return nil
	}
	if _, err := f.NewSheet(SheetSensitivities); err != nil {
		return err
	}
	row := 1
	set := func(cells ...any) error {
		err := f.SetSheetRow(SheetSensitivities, cellName(1, row), &cells)
		row++
		return err
	}
	if err := set(fmt.Sprintf("Finite-difference sensitivities at run %d (%s): d response / d factor (central differences; one-sided at a bound), and elasticities d ln(response) / d ln(factor).", s.At.Index, r.Sensitivity.At)); err != nil {
		return err
	}
	row++
	head := []any{"factor", "value", "step"}
	for _, resp := range r.Responses {
		head = append(head, "d "+resp.Name)
	}
	for _, resp := range r.Responses {
		head = append(head, "elasticity "+resp.Name)
	}
	if err := set(head...); err != nil {
		return err
	}
	if err := f.SetCellStyle(SheetSensitivities, cellName(1, row-1), cellName(len(head), row-1), st.bold); err != nil {
		return err
	}
	for k, i := range s.Factors {
		fa := r.Factors[i]
		cells := []any{withUnit(fa.Name, fa.Unit), s.At.X[i], s.Step[k]}
		for q := range r.Responses {
			cells = append(cells, finiteOrText(s.D[k][q]))
		}
		for q := range r.Responses {
			cells = append(cells, finiteOrText(s.Elasticity[k][q]))
		}
		if err := set(cells...); err != nil {
			return err
		}
	}
	row++
	units := []any{"units of d:", "", ""}
	for _, resp := range r.Responses {
		units = append(units, resp.Unit+" per factor unit")
	}
	if err := set(units...); err != nil {
		return err
	}
	return f.SetColWidth(SheetSensitivities, "A", colName(len(head)), 18)
}

func (r *Result) writeSummary(f *excelize.File, st wbStyles) error {
	row := 1
	set := func(cells ...any) error {
		err := f.SetSheetRow(SheetSummary, cellName(1, row), &cells)
		row++
		return err
	}
	bold := func() error {
		return f.SetCellStyle(SheetSummary, cellName(1, row-1), cellName(1, row-1), st.bold)
	}
	items := [][2]string{
		{"study", r.Name},
		{"description", r.Description},
		{"study file", r.File},
		{r.Target.Kind + " file", r.Target.Path},
	}
	if r.Design != nil {
		d := r.Design.Kind
		if r.Design.Runs > 0 {
			d += fmt.Sprintf(", %d runs, seed %d", r.Design.Runs, r.Design.Seed)
		}
		items = append(items, [2]string{"design", d})
	}
	items = append(items,
		[2]string{"runs", fmt.Sprintf("%d (%d failed, %d missing)", len(r.Runs), r.Failed(), r.Missing())},
		[2]string{"simulated by this command", fmt.Sprint(r.Simulated)},
		[2]string{"wall time (s)", strconv.FormatFloat(r.Wall.Seconds(), 'f', 3, 64)},
	)
	if r.Interrupted {
		items = append(items, [2]string{"warning", "interrupted: some runs are not done yet; run the study again"})
	}
	for _, c := range r.Constraints {
		var parts []string
		if !math.IsNaN(c.Min) {
			parts = append(parts, "≥ "+strconv.FormatFloat(c.Min, 'g', -1, 64))
		}
		if !math.IsNaN(c.Max) {
			parts = append(parts, "≤ "+strconv.FormatFloat(c.Max, 'g', -1, 64))
		}
		items = append(items, [2]string{"constraint", c.Response + " " + strings.Join(parts, " and ")})
	}
	if r.Objective != nil {
		goal := "minimize"
		if r.Objective.Maximize {
			goal = "maximize"
		}
		items = append(items, [2]string{"objective", goal + " " + r.Objective.Response})
		if r.Best != nil {
			items = append(items, [2]string{"best run", fmt.Sprintf("run %d (%s): %s", r.Best.Index, runWhat(r.Best), r.describe(r.Best))})
		} else {
			items = append(items, [2]string{"best run", "none feasible"})
		}
	}
	if o := r.Optimum; o != nil {
		items = append(items, [2]string{"optimisation", fmt.Sprintf("Nelder–Mead (gonum) over %s, bounds by a change of variable, constraints by an augmented Lagrangian: %d evaluations, %d passes, status %s",
			strings.Join(o.Factors, ", "), len(o.Evals), o.Outer, o.Status)})
		if o.Best != nil {
			items = append(items, [2]string{"optimum", fmt.Sprintf("run %d: %s", o.Best.Index, r.describe(o.Best))})
		}
	}
	for _, it := range items {
		if err := set(it[0], it[1]); err != nil {
			return err
		}
		if err := bold(); err != nil {
			return err
		}
	}
	if len(r.Stats) > 0 {
		row++
		if err := set("statistics over the design's successful runs"); err != nil {
			return err
		}
		if err := bold(); err != nil {
			return err
		}
		if err := set("response", "unit", "n", "mean", "sd", "min", "p5", "median", "p95", "max"); err != nil {
			return err
		}
		for k, s := range r.Stats {
			if err := set(r.Responses[k].Name, r.Responses[k].Unit, s.N, finiteOrText(s.Mean), finiteOrText(s.SD), finiteOrText(s.Min),
				finiteOrText(s.P05), finiteOrText(s.P50), finiteOrText(s.P95), finiteOrText(s.Max)); err != nil {
				return err
			}
		}
	}
	if g := r.Regression; g != nil {
		row++
		if err := set(fmt.Sprintf("linear fit over %d design runs: coefficient, effect over the sampled range, standardised coefficient", g.N)); err != nil {
			return err
		}
		if err := bold(); err != nil {
			return err
		}
		head := []any{"response", "R²"}
		for _, fa := range r.Factors {
			head = append(head, "d/d "+fa.Name, "effect "+fa.Name, "std "+fa.Name)
		}
		if err := set(head...); err != nil {
			return err
		}
		for k, s := range r.Responses {
			cells := []any{s.Name, finiteOrText(g.R2[k])}
			for j := range r.Factors {
				cells = append(cells, finiteOrText(g.Coef[k][j]), finiteOrText(g.Effect[k][j]), finiteOrText(g.Std[k][j]))
			}
			if err := set(cells...); err != nil {
				return err
			}
		}
	}
	row++
	if err := set("factors"); err != nil {
		return err
	}
	if err := bold(); err != nil {
		return err
	}
	if err := set("name", "unit", "sets", "nominal", "min", "max", "levels", "distribution"); err != nil {
		return err
	}
	for _, fa := range r.Factors {
		lv := ""
		if len(fa.Levels) > 0 {
			s := make([]string, len(fa.Levels))
			for i, v := range fa.Levels {
				s[i] = strconv.FormatFloat(v, 'g', 6, 64)
			}
			lv = strings.Join(s, " ")
		}
		dist := fa.Dist
		if dist == "normal" {
			dist = fmt.Sprintf("normal(%g, %g)", fa.Mean, fa.SD)
		}
		if err := set(fa.Name, fa.Unit, fa.Param, finiteOrText(fa.Nominal), finiteOrText(fa.Min), finiteOrText(fa.Max), lv, dist); err != nil {
			return err
		}
	}
	row++
	if err := set("responses"); err != nil {
		return err
	}
	if err := bold(); err != nil {
		return err
	}
	for _, s := range r.Responses {
		what := s.Kind + " of " + s.Signal + s.Channel
		if s.Kind == KindExpression {
			what = s.Expr
		}
		if err := set(withUnit(s.Name, s.Unit), what, s.Description); err != nil {
			return err
		}
	}
	if err := f.SetColWidth(SheetSummary, "A", "A", 26); err != nil {
		return err
	}
	return f.SetColWidth(SheetSummary, "B", "B", 60)
}

// writeCharts draws the convergence of an optimisation and each response
// against each factor (all successful runs, with the main effects).
func (r *Result) writeCharts(f *excelize.File, eff map[[2]int]effectRef) error {
	n := len(r.Runs)
	if n == 0 {
		return f.SetCellValue(SheetCharts, "A1", "No runs; no charts.")
	}
	const width, height, rowsPer, colsPer = 620, 360, 19, 10
	k := 0
	place := func() string {
		c := cellName(1+(k%2)*colsPer, 1+(k/2)*rowsPer)
		k++
		return c
	}
	marker := func(sym string) excelize.ChartMarker { return excelize.ChartMarker{Symbol: sym, Size: 5} }
	if o := r.Optimum; o != nil && len(o.Evals) > 0 {
		last := len(o.Evals) + 1
		obj := r.Responses[r.responseIndex(r.Objective.Response)]
		xs := fmt.Sprintf("%s!$A$2:$A$%d", SheetOptimization, last)
		ch := &excelize.Chart{
			Type: excelize.Scatter,
			Series: []excelize.ChartSeries{
				{Name: SheetOptimization + "!$C$1", Categories: xs, Values: fmt.Sprintf("%s!$C$2:$C$%d", SheetOptimization, last),
					Line: excelize.LineOptions{Type: excelize.LineNone}, Marker: marker("circle")},
				{Name: SheetOptimization + "!$D$1", Categories: xs, Values: fmt.Sprintf("%s!$D$2:$D$%d", SheetOptimization, last),
					Line: excelize.LineOptions{Type: excelize.LineSolid, Width: 1.5}, Marker: marker("none")},
			},
			Title:     chartTitle("convergence of the optimisation: " + obj.Name),
			Dimension: excelize.ChartDimension{Width: width, Height: height},
			Legend:    excelize.ChartLegend{Position: "bottom"},
			XAxis:     excelize.ChartAxis{MajorGridLines: true, Title: chartTitle("evaluation")},
			YAxis:     excelize.ChartAxis{MajorGridLines: true, Title: chartTitle(withUnit(obj.Name, obj.Unit))},
		}
		if err := f.AddChart(SheetCharts, place(), ch); err != nil {
			return err
		}
	}
	// responses: the objective and the constrained ones first
	order := []int{}
	seen := map[int]bool{}
	push := func(i int) {
		if i >= 0 && !seen[i] {
			seen[i] = true
			order = append(order, i)
		}
	}
	if r.Objective != nil {
		push(r.responseIndex(r.Objective.Response))
	}
	for _, c := range r.Constraints {
		push(r.responseIndex(c.Response))
	}
	for i := range r.Responses {
		push(i)
	}
	const maxCharts = 64
	first, last := 3, 2+n
	for _, q := range order {
		resp := r.Responses[q]
		ycol := colName(1 + r.firstResponseCol() + q)
		for j, fa := range r.Factors {
			if k >= maxCharts {
				break
			}
			xcol := colName(1 + 3 + j)
			// series names are cell references (excelize writes a name
			// as a reference formula)
			series := []excelize.ChartSeries{{
				Name:       fmt.Sprintf("%s!$%s$1", SheetRuns, ycol),
				Categories: fmt.Sprintf("%s!$%s$%d:$%s$%d", SheetRuns, xcol, first, xcol, last),
				Values:     fmt.Sprintf("%s!$%s$%d:$%s$%d", SheetRuns, ycol, first, ycol, last),
				Line:       excelize.LineOptions{Type: excelize.LineNone},
				Marker:     marker("circle"),
			}}
			if ref, ok := eff[[2]int{j, q}]; ok {
				series = append(series, excelize.ChartSeries{
					Name: ref.name, Categories: ref.x, Values: ref.y,
					Line: excelize.LineOptions{Type: excelize.LineSolid, Width: 1.5}, Marker: marker("diamond"),
				})
			}
			ch := &excelize.Chart{
				Type:      excelize.Scatter,
				Series:    series,
				Title:     chartTitle(resp.Name + " against " + fa.Name),
				Dimension: excelize.ChartDimension{Width: width, Height: height},
				Legend:    excelize.ChartLegend{Position: "bottom"},
				XAxis:     excelize.ChartAxis{MajorGridLines: true, Title: chartTitle(withUnit(fa.Name, fa.Unit))},
				YAxis:     excelize.ChartAxis{MajorGridLines: true, Title: chartTitle(withUnit(resp.Name, resp.Unit))},
			}
			if err := f.AddChart(SheetCharts, place(), ch); err != nil {
				return err
			}
		}
	}
	return nil
}

func chartTitle(s string) excelize.ChartTitle {
	return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s}}}
}
