package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mbfmu/results"
	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// Options a command may offer; each command lists only those it honours.
const (
	optOut        = 1 << iota // -o, --xlsx
	optParam                  // --param
	optEnd                    // --end
	optStep                   // --step
	optOutputStep             // --output-step
	optIntegrator             // --integrator
	optQuiet                  // -q
)

// runOpts are the options of the commands that load a model and write
// results.
type runOpts struct {
	fs         *flag.FlagSet
	out, xlsx  string
	params     paramFlags
	end, step  float64
	outStep    float64
	integrator string
	quiet      bool
}

// register defines the options of which on fs; outHelp is the help of -o.
func (o *runOpts) register(fs *flag.FlagSet, which int, outHelp string) {
	o.fs = fs
	if which&optOut != 0 {
		fs.StringVar(&o.out, "o", "", outHelp)
		fs.StringVar(&o.xlsx, "xlsx", "", "also write the results as a spreadsheet with charts to `file`.xlsx")
	}
	if which&optParam != 0 {
		fs.Var(&o.params, "param", "override a parameter: `name=value` (in the parameter's unit, or with a unit: k=2 kN/m; repeatable)")
	}
	if which&optEnd != 0 {
		timeVar(fs, &o.end, "end", 0, "end `time` (s, or with a unit: 500ms; default: the model's)")
	}
	if which&optStep != 0 {
		timeVar(fs, &o.step, "step", 0, "integrator step `h` (s, or with a unit: 0.5ms; default: the model's)")
	}
	if which&optOutputStep != 0 {
		timeVar(fs, &o.outStep, "output-step", 0, "results interval `dt` (s, or with a unit; default: the model's)")
	}
	if which&optIntegrator != 0 {
		fs.StringVar(&o.integrator, "integrator", "", "`name` of the integrator: "+strings.Join(xml.IntegratorNames(), ", ")+
			" (also euler, bdf, hht-alpha, gen-alpha; default: the model's)")
	}
	if which&optQuiet != 0 {
		fs.BoolVar(&o.quiet, "q", false, "no progress output")
	}
}

// set reports whether the option called name was given.
func (o *runOpts) set(name string) bool { return o.fs != nil && isSet(o.fs, name) }

// loadModel parses and compiles a model file with the overrides of o (nil:
// none). Overrides are checked against the model (the end after the
// start, steps > 0, a known integrator, parameters the model has, in
// their units); a refused override is a usageError naming the flag.
func loadModel(path string, o *runOpts) (*solver.Model, error) {
	ms, err := xml.LoadFile(path)
	if err != nil {
		return nil, err
	}
	var params map[string]float64
	if o != nil {
		if params, err = o.apply(ms); err != nil {
			return nil, err
		}
	}
	return solver.Compile(ms, solver.CompileOptions{Params: params})
}

// apply checks the overrides of o against the model and writes them into
// its settings; it returns the parameter overrides in SI.
func (o *runOpts) apply(ms *spec.Model) (map[string]float64, error) {
	st := &ms.Settings
	if o.set("end") {
		if !(o.end > st.Start) {
			return nil, usagef("--end: must be after the start time %g s, got %g s", st.Start, o.end)
		}
		st.End = o.end
	}
	if o.set("step") {
		if !(o.step > 0) {
			return nil, usagef("--step: must be > 0, got %g s", o.step)
		}
		st.Step = o.step
	}
	if o.set("output-step") {
		if !(o.outStep > 0) {
			return nil, usagef("--output-step: must be > 0, got %g s", o.outStep)
		}
		st.OutputStep = o.outStep
	}
	if o.set("integrator") {
		c, err := xml.CanonicalIntegrator(o.integrator)
		if err != nil {
			return nil, usagef("--integrator: %v", err)
		}
		st.Integrator = c
	}
	if err := o.checkTimeGrid(st); err != nil {
		return nil, err
	}
	decl := make([]paramDecl, len(ms.Params))
	for i, p := range ms.Params {
		decl[i] = paramDecl{p.Name, p.Unit}
	}
	return o.params.resolve(decl)
}

// checkTimeGrid refuses --end, --step and --output-step that take the run
// beyond the engine's time grid or number of result rows (a problem the
// model file itself has is reported by the compiler, at its line).
func (o *runOpts) checkTimeGrid(st *spec.Settings) error {
	step, out := st.Step, st.OutputStep
	if step == 0 {
		step = 1e-3
	}
	if out == 0 {
		out = step
	}
	end := st.End
	if end == 0 && st.Start == 0 {
		end = 1
	}
	field, msg := solver.TimeGridProblem(st.Start, end, step, out, st.Adaptive)
	if msg == "" {
		return nil
	}
	flags := map[string][]string{"start": {"end", "step"}, "end": {"end", "step"}, "output-step": {"end", "output-step"}}[field]
	var given []string
	for _, f := range flags {
		if o.set(f) {
			given = append(given, "--"+f)
		}
	}
	if len(given) == 0 {
		return nil
	}
	return usagef("%s: %s", strings.Join(given, ", "), msg)
}

func columns(m *solver.Model) []results.Column {
	ch := m.Channels()
	cols := make([]results.Column, len(ch))
	for i, c := range ch {
		cols[i] = results.Column{Name: c.Name, Unit: c.Unit, Group: c.Group, Description: c.Description}
	}
	return cols
}

// printModelErrors prints the problems of a model file, one per line
// (file:line: field: message), on standard output, and says how many.
func printModelErrors(path string, err error) {
	var el spec.ErrorList
	if errors.As(err, &el) {
		for _, e := range el {
			fmt.Println(e)
		}
		fmt.Printf("%s: %d problem(s)\n", path, len(el))
		return
	}
	fmt.Println(err)
}

// checkModel runs every check of `mbfmu check` on a model file: it parses
// and compiles it, assembles it at the start time and evaluates every
// run-time expression there (forces, drivers, outputs), refusing values
// that are not finite. It returns the model and its assembled state.
func checkModel(path string) (*solver.Model, *solver.State, error) {
	m, err := loadModel(path, nil)
	if err != nil {
		return nil, nil, err
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		var el spec.ErrorList
		if errors.As(err, &el) {
			return nil, nil, err // file:line: field: message
		}
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if errs := m.CheckValues(s); len(errs) > 0 {
		return nil, nil, errs
	}
	return m, s, nil
}

func cmdCheck(args []string) error {
	fs := newFlagSet("check", "usage: mbfmu check model.xml...\n\n"+
		"Reports every problem in the model files (file:line: field: message) and assembles\n"+
		"each model at its start time. Exit status 1 when a file has a problem.")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.SetOutput(os.Stderr)
		fs.Usage()
		return exitError(2)
	}
	bad := 0
	for _, p := range pos {
		m, s, err := checkModel(p)
		if err != nil {
			bad++
			printModelErrors(p, err)
			continue
		}
		if r := s.Redundant(); r != nil {
			fmt.Printf("%s: note: redundant constraint equations removed: %s\n", p, strings.Join(r, ", "))
		}
		for _, w := range m.StepWarnings(s) {
			fmt.Printf("%s: warning: %s\n", p, w)
		}
		sp := m.Spec()
		beams, fe := 0, 0
		for _, b := range sp.Beams {
			if strings.HasPrefix(b.Kind, "fe-") {
				fe++
			} else {
				beams++
			}
		}
		flex := fmt.Sprintf("%d beams", beams)
		if fe > 0 {
			flex += fmt.Sprintf(", %d FE bodies", fe)
		}
		fmt.Printf("%s: ok — %d rigid bodies, %s, %d contacts, %d coordinates, %d constraint equations, %d degrees of freedom, %s, %s linear solver\n",
			p, len(sp.Bodies), flex, len(sp.Contacts), m.NumCoords(), m.NumConstraints(), m.DOF(s), m.Settings().Integrator, m.SolverKind())
	}
	if bad > 0 {
		return exitError(1)
	}
	return nil
}

// modelCommand parses the flags of a command that takes one model file
// (the options of which, then those registered by extra), checks the
// output names and loads the model. defOut is the suffix of the default
// results file ("" for none); head is the usage text.
func modelCommand(name, head string, which int, defOut string, args []string, extra func(fs *flag.FlagSet)) (*solver.Model, string, *runOpts, error) {
	fs := newFlagSet(name, head)
	o := &runOpts{}
	help := "results CSV `file` (\"-\" for standard output; default: none)"
	switch {
	case name == "eigen":
		help = "modes CSV `file`: frequencies, damping ratios, eigenvalues, mode shapes (\"-\" for standard output; default: none)"
	case defOut != "":
		help = "results CSV `file` (\"-\" for standard output, \"\" for none; default: the model file's name with " + defOut + ", in the current folder)"
	}
	o.register(fs, which, help)
	if f := fs.Lookup("xlsx"); f != nil && name == "eigen" {
		f.Usage = "also write the modes to a spreadsheet `file`.xlsx"
	}
	if extra != nil {
		extra(fs)
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, "", nil, err
	}
	if err := wantArgs(fs, pos, 1, "one model file"); err != nil {
		return nil, "", nil, err
	}
	model := pos[0]
	if !o.set("o") && defOut != "" {
		o.out = defaultOut(model, defOut)
	}
	if err := checkOutputs([]string{model}, outputFlag{"-o", o.out}, outputFlag{"--xlsx", o.xlsx}); err != nil {
		return nil, "", nil, err
	}
	m, err := loadModel(model, o)
	return m, model, o, err
}

func defaultOut(model, suffix string) string {
	return strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)) + suffix
}

func cmdSimulate(args []string) error {
	m, model, o, err := modelCommand("simulate", "usage: mbfmu simulate model.xml [-o results.csv] [--xlsx results.xlsx] [options]\n\n"+
		"Dynamic simulation; one results row per output step. SIGINT (Ctrl-C) or SIGTERM stop it\n"+
		"when the output step in progress is done, with every row computed written (exit status 130 or 143).",
		optOut|optParam|optEnd|optStep|optOutputStep|optIntegrator|optQuiet, ".csv", args, nil)
	if err != nil {
		return err
	}
	return simulate(m, model, o)
}

func simulate(m *solver.Model, model string, o *runOpts) error {
	st := m.Settings()
	if err := xlsxRowsFit(o.xlsx, st); err != nil {
		return err
	}
	s := m.NewState()
	wall := time.Now()
	if err := m.Init(s); err != nil {
		return err
	}
	if r := s.Redundant(); r != nil {
		fmt.Fprintf(os.Stderr, "note: redundant constraint equations removed: %s\n", strings.Join(r, ", "))
	}
	for _, w := range m.StepWarnings(s) {
		fmt.Fprintf(os.Stderr, "warning: %s\n", w)
	}
	rc, err := startRun("simulate", o.out, o.xlsx)
	if err != nil {
		return err
	}
	pr := newProgress("simulate", o.quiet)
	rows, runErr := outputLoop(m, s, rc, pr, func(t float64) error { return m.AdvanceTo(s, t) })
	el := time.Since(wall)
	stats := s.Stats()
	if rc.xw != nil {
		var ri results.RunInfo
		ri.Add("model file", model)
		ri.Add("model", m.Name())
		ri.Add("analysis", "dynamics")
		addSettings(&ri, st)
		ri.Add("wall time", el.String())
		ri.Add("steps", fmt.Sprint(stats.Steps))
		ri.Add("rejected steps", fmt.Sprint(stats.Rejected))
		ri.Add("Newton iterations", fmt.Sprint(stats.NewtonIters))
		ri.Add("factorizations", fmt.Sprint(stats.Factorizations))
		if runErr != nil {
			ri.Add("stopped", fmt.Sprintf("at t = %g s: %v", s.T, runErr))
		}
		rc.xw.SetRunInfo(ri)
	}
	err = rc.finish(runErr, fmt.Sprintf("t = %g s (%d steps)", s.T, stats.Steps))
	if err == nil {
		to := strings.Join(rc.outs.Names(), ", ")
		if to == "" {
			to = "no output (-o \"\")"
		}
		fmt.Fprintf(os.Stderr, "%s: t = %g..%g s, %d rows → %s\n", m.Name(), st.Start, s.T, rows, to)
	}
	fmt.Fprintf(os.Stderr, "summary: %s %s h=%g s, %s, %d Newton iterations, %d rejected steps, %d factorizations, wall time %s\n",
		st.Integrator, st.Formulation, st.Step, stepsTaken(st, stats), stats.NewtonIters, stats.Rejected, stats.Factorizations, el.Round(time.Microsecond))
	return err
}

// outputLoop writes the state at the start and after advancing to every
// output time, until the end, an error of advance or of an output, or a
// signal (checked before each advance: the step in progress is finished).
// It returns the rows written and what stopped the run early.
func outputLoop(m *solver.Model, s *solver.State, rc *runControl, pr *progress, advance func(t float64) error) (rows int, runErr error) {
	defer pr.done()
	st := m.Settings()
	if err := rc.outs.Header(columns(m)); err != nil {
		return 0, err
	}
	row := make([]float64, len(m.Channels()))
	m.EvalChannels(s, row)
	if err := rc.outs.Row(row); err != nil {
		return 0, err
	}
	rows = 1
	n := st.OutputRows()
	for k := 1; k <= n; k++ {
		if err := rc.stopped(); err != nil {
			return rows, err
		}
		t := st.OutputTime(k)
		if err := advance(t); err != nil {
			return rows, err
		}
		m.EvalChannels(s, row)
		if err := m.CheckRow(s, row); err != nil {
			// the rule the FMU follows too: a value that is no longer finite
			// stops the run at that time, named, with the rows before it
			return rows, err
		}
		if err := rc.outs.Row(row); err != nil {
			return rows, err
		}
		rows++
		pr.update(t, st.Start, st.End)
	}
	return rows, nil
}

// xlsxRowsFit refuses, before a run, a workbook that could not hold its
// rows (a worksheet holds 1,048,576 rows): found after the run, the rows
// past the limit were lost and the time spent on them too.
func xlsxRowsFit(xlsx string, st solver.Settings) error {
	if xlsx == "" {
		return nil
	}
	if n := st.OutputRows() + 1; n > results.MaxXLSXRows {
		return usagef("--xlsx %s: %d result rows are more than a worksheet holds (%d): lengthen the output step (--output-step) or write CSV only", xlsx, n, results.MaxXLSXRows)
	}
	return nil
}

// stepsTaken says how many steps a run took and, with a fixed step, how
// many of them were shorter than the step (to reach an output or the end
// time off the step's grid, or halves of a step retried after Newton
// failed).
func stepsTaken(st solver.Settings, stats solver.Stats) string {
	if st.Adaptive || stats.Short == 0 {
		return fmt.Sprintf("%d steps", stats.Steps)
	}
	return fmt.Sprintf("%d steps (%d of them shorter than h)", stats.Steps, stats.Short)
}

func addSettings(ri *results.RunInfo, st solver.Settings) {
	ri.Add("integrator", st.Integrator)
	ri.Add("formulation", st.Formulation)
	if st.Integrator == "genalpha" {
		ri.Add("rho-inf", fmt.Sprint(st.RhoInf))
	}
	ri.Add("step (s)", fmt.Sprint(st.Step))
	ri.Add("output step (s)", fmt.Sprint(st.OutputStep))
	ri.Add("start (s)", fmt.Sprint(st.Start))
	ri.Add("end (s)", fmt.Sprint(st.End))
	ri.Add("adaptive", fmt.Sprint(st.Adaptive))
	if st.Adaptive {
		ri.Add("rel-tol", fmt.Sprint(st.RelTol))
		ri.Add("abs-tol", fmt.Sprint(st.AbsTol))
	}
	ri.Add("newton-tol", fmt.Sprint(st.NewtonTol))
}

func cmdKinematics(args []string) error {
	m, model, o, err := modelCommand("kinematics", "usage: mbfmu kinematics model.xml [-o results.csv] [--xlsx results.xlsx] [options]\n\n"+
		"Kinematic analysis of a fully driven mechanism: positions, velocities and accelerations\n"+
		"from the drivers at every output time. SIGINT or SIGTERM stop it with every row written.",
		optOut|optParam|optEnd|optOutputStep|optQuiet, ".csv", args, nil)
	if err != nil {
		return err
	}
	s := m.NewState()
	wall := time.Now()
	if err := m.Init(s); err != nil {
		return err
	}
	if d := m.DOF(s); d != 0 {
		return fmt.Errorf("kinematics: %s has %d degree(s) of freedom (%s); drive every one of them or use 'mbfmu simulate'", model, d, strings.Join(m.FreeMotions(s), "; "))
	}
	if err := xlsxRowsFit(o.xlsx, m.Settings()); err != nil {
		return err
	}
	rc, err := startRun("kinematics", o.out, o.xlsx)
	if err != nil {
		return err
	}
	pr := newProgress("kinematics", o.quiet)
	tReached := m.Settings().Start
	n, runErr := outputLoop(m, s, rc, pr, func(t float64) error {
		if err := m.Kinematics(s, t); err != nil {
			return fmt.Errorf("kinematics at t=%g s: %w", t, err)
		}
		tReached = t
		return nil
	})
	if rc.xw != nil {
		var ri results.RunInfo
		ri.Add("model file", model)
		ri.Add("model", m.Name())
		ri.Add("analysis", "kinematics")
		ri.Add("wall time", time.Since(wall).String())
		if runErr != nil {
			ri.Add("stopped", fmt.Sprintf("at t = %g s: %v", tReached, runErr))
		}
		rc.xw.SetRunInfo(ri)
	}
	if err := rc.finish(runErr, fmt.Sprintf("t = %g s (%d positions)", tReached, n)); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "summary: kinematics, %d positions, wall time %s → %s\n", n, time.Since(wall).Round(time.Microsecond), strings.Join(rc.outs.Names(), ", "))
	return nil
}

func cmdStatic(args []string) error {
	m, model, o, err := modelCommand("static", "usage: mbfmu static model.xml [-o results.csv] [--xlsx results.xlsx] [--param name=value]\n\n"+
		"Static equilibrium near the initial positions; prints the positions, forces and energies\n"+
		"(all channels with -o file.csv). A load too large for one Newton sequence (a large\n"+
		"deflection) is stepped from zero automatically.",
		optOut|optParam, "", args, nil)
	if err != nil {
		return err
	}
	stop := catchQuit(o.out, o.xlsx)
	defer stop.Stop()
	s := m.NewState()
	wall := time.Now()
	if err := m.Init(s); err != nil {
		return err
	}
	if err := m.Static(s); err != nil {
		return err
	}
	row := make([]float64, len(m.Channels()))
	m.EvalChannels(s, row)
	if o.out != "" || o.xlsx != "" {
		var outs results.Outputs
		if err := writeRows(&outs, o, columns(m), func(ri *results.RunInfo) {
			ri.Add("model file", model)
			ri.Add("model", m.Name())
			ri.Add("analysis", "static equilibrium")
			ri.Add("wall time", time.Since(wall).String())
		}, row); err != nil {
			return err
		}
	}
	if o.out != "-" {
		fmt.Printf("%s: static equilibrium (positions, forces, stresses and energies; all channels with -o file.csv)\n", m.Name())
		ch := m.Channels()
		for i, c := range ch {
			if c.Group == "position" || c.Group == "force" || c.Group == "stress" || c.Group == "energy" {
				v := row[i]
				if math.Abs(v) < 1e-12 {
					v = 0
				}
				fmt.Printf("  %-28s %16.10g %s\n", c.Name, v, c.Unit)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "summary: static equilibrium found, wall time %s\n", time.Since(wall).Round(time.Microsecond))
	return nil
}

// writeRows writes a few rows computed at once to the -o and --xlsx
// outputs of o, all or nothing.
func writeRows(outs *results.Outputs, o *runOpts, cols []results.Column, info func(ri *results.RunInfo), rows ...[]float64) error {
	var xw *results.XLSXWriter
	var err error
	switch o.out {
	case "":
	case "-":
		outs.AddStream(results.NewCSVWriter(os.Stdout), "standard output")
	default:
		err = outs.AddCSV(o.out)
	}
	if err == nil && o.xlsx != "" {
		xw, err = outs.AddXLSX(o.xlsx)
	}
	if err == nil {
		err = outs.Header(cols)
	}
	for _, r := range rows {
		if err == nil {
			err = outs.Row(r)
		}
	}
	if err != nil {
		outs.Abort()
		return err
	}
	if xw != nil {
		var ri results.RunInfo
		info(&ri)
		xw.SetRunInfo(ri)
	}
	return outs.Close()
}

func cmdExport(args []string) error {
	fs := newFlagSet("export", "usage: mbfmu export results.csv out.xlsx\n\n"+
		"Converts a results CSV file to a spreadsheet with charts (see docs: results).")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, 2, "a results file and a workbook name"); err != nil {
		return err
	}
	in, out := pos[0], pos[1]
	if err := checkOutputs([]string{in}, outputFlag{"--xlsx", out}); err != nil {
		var ue usageError
		if errors.As(err, &ue) { // name the argument, not a flag
			return usagef("%s", strings.Replace(ue.err.Error(), "--xlsx ", "", 1))
		}
		return err
	}
	if err := results.MakeParentDirs(out); err != nil {
		return err
	}
	stop := catchQuit(out)
	defer stop.Stop()
	wall := time.Now()
	var ri results.RunInfo
	ri.Add("source", in)
	if err := results.CSVToXLSX(in, out, ri); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%s)\n", out, time.Since(wall).Round(time.Millisecond))
	return nil
}
