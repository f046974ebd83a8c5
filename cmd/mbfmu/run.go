package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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

// common options of the commands that load a model and write results.
type runOpts struct {
	out, xlsx  string
	params     paramFlags
	end, step  float64
	outStep    float64
	integrator string
	quiet      bool
}

func (o *runOpts) register(fs *flag.FlagSet, defOut string) {
	o.params = paramFlags{}
	fs.StringVar(&o.out, "o", defOut, "results CSV `file` (\"-\" for standard output, \"\" for none)")
	fs.StringVar(&o.xlsx, "xlsx", "", "also write the results as a spreadsheet with charts to `file`.xlsx")
	fs.Var(o.params, "param", "override a parameter: `name=value` (SI, or with a unit: k=2 kN/m; repeatable)")
	timeVar(fs, &o.end, "end", 0, "end `time` (s, or with a unit: 500ms; default: the model's)")
	timeVar(fs, &o.step, "step", 0, "integrator step `h` (s, or with a unit: 0.5ms; default: the model's)")
	timeVar(fs, &o.outStep, "output-step", 0, "results interval `dt` (s, or with a unit; default: the model's)")
	fs.StringVar(&o.integrator, "integrator", "", "genalpha, hht, newmark, bdf1, bdf2 or rk4 (default: the model's)")
	fs.BoolVar(&o.quiet, "q", false, "no progress output")
}

// loadModel parses and compiles a model file, printing every problem.
func loadModel(path string, o *runOpts) (*solver.Model, error) {
	ms, err := xml.LoadFile(path)
	if err != nil {
		return nil, err
	}
	if o != nil {
		st := &ms.Settings
		if o.end > 0 {
			st.End = o.end
		}
		if o.step > 0 {
			st.Step = o.step
		}
		if o.outStep > 0 {
			st.OutputStep = o.outStep
		}
		if o.integrator != "" {
			st.Integrator = o.integrator
		}
	}
	var params map[string]float64
	if o != nil {
		params = o.params
	}
	return solver.Compile(ms, solver.CompileOptions{Params: params})
}

func columns(m *solver.Model) []results.Column {
	ch := m.Channels()
	cols := make([]results.Column, len(ch))
	for i, c := range ch {
		cols[i] = results.Column{Name: c.Name, Unit: c.Unit, Group: c.Group, Description: c.Description}
	}
	return cols
}

// sink opens the result writers chosen by the options.
type sink struct {
	w      results.Writer
	files  []io.Closer
	xw     *results.XLSXWriter
	ri     results.RunInfo
	target []string
}

func openSink(o *runOpts, m *solver.Model, model string) (*sink, error) {
	s := &sink{}
	var ws []results.Writer
	switch o.out {
	case "":
	case "-":
		ws = append(ws, results.NewCSVWriter(os.Stdout))
	default:
		if dir := filepath.Dir(o.out); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
		f, err := os.Create(o.out)
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, f)
		ws = append(ws, results.NewCSVWriter(f))
		s.target = append(s.target, o.out)
	}
	if o.xlsx != "" {
		xw, err := results.NewXLSXWriter(o.xlsx)
		if err != nil {
			return nil, err
		}
		s.xw = xw
		ws = append(ws, xw)
		s.target = append(s.target, o.xlsx)
	}
	s.w = results.MultiWriter(ws...)
	s.ri.Add("model file", model)
	s.ri.Add("model", m.Name())
	return s, s.w.Header(columns(m))
}

func (s *sink) close() error {
	if s.xw != nil {
		s.xw.SetRunInfo(s.ri)
	}
	err := s.w.Close()
	for _, f := range s.files {
		if e := f.Close(); err == nil {
			err = e
		}
	}
	return err
}

// progress prints a progress line at most every half second on stderr.
type progress struct {
	quiet bool
	start time.Time
	last  time.Time
	what  string
}

func (p *progress) update(t, t0, t1 float64) {
	if p.quiet {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 500*time.Millisecond {
		return
	}
	p.last = now
	frac := (t - t0) / (t1 - t0)
	el := now.Sub(p.start).Seconds()
	eta := ""
	if frac > 0.01 {
		eta = fmt.Sprintf(", %.0f s left", el/frac-el)
	}
	fmt.Fprintf(os.Stderr, "\r%s: t = %.4g s of %.4g s (%3.0f%%)%s   ", p.what, t, t1, 100*frac, eta)
}

func (p *progress) done() {
	if !p.quiet && p.last.After(p.start) {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}

func cmdCheck(args []string) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mbfmu check model.xml...\n\nReports every problem in the model files (file:line: field: message).")
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return exitError(2)
	}
	bad := 0
	for _, p := range pos {
		m, err := loadModel(p, nil)
		if err != nil {
			bad++
			var el spec.ErrorList
			if errors.As(err, &el) {
				for _, e := range el {
					fmt.Println(e)
				}
				fmt.Printf("%s: %d problem(s)\n", p, len(el))
			} else {
				fmt.Println(err)
			}
			continue
		}
		s := m.NewState()
		if err := m.Init(s); err != nil {
			bad++
			fmt.Printf("%s: %v\n", p, err)
			continue
		}
		if r := s.Redundant(); r != nil {
			fmt.Printf("%s: note: redundant constraint equations removed: %s\n", p, strings.Join(r, ", "))
		}
		sp := m.Spec()
		fmt.Printf("%s: ok — %d rigid bodies, %d beams, %d contacts, %d coordinates, %d constraint equations, %d degrees of freedom, %s, %s linear solver\n",
			p, len(sp.Bodies), len(sp.Beams), len(sp.Contacts), m.NumCoords(), m.NumConstraints(), m.DOF(s), m.Settings().Integrator, m.SolverKind())
	}
	if bad > 0 {
		return exitError(1)
	}
	return nil
}

// modelCommand parses the flags of a command that takes one model file
// (flags registered by extra, after the common ones), applies the default
// results file, and loads the model. usage is the first line of help.
func modelCommand(name, usage, defOut string, args []string, extra func(fs *flag.FlagSet)) (*solver.Model, string, *runOpts, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	o := &runOpts{}
	o.register(fs, "\x00")
	if extra != nil {
		extra(fs)
	}
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: "+usage)
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, "", nil, err
	}
	if len(pos) != 1 {
		fs.Usage()
		return nil, "", nil, exitError(2)
	}
	if o.out == "\x00" {
		o.out = ""
		if defOut != "" {
			o.out = defaultOut(pos[0], defOut)
		}
	}
	m, err := loadModel(pos[0], o)
	return m, pos[0], o, err
}

func defaultOut(model, suffix string) string {
	return strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)) + suffix
}

func cmdSimulate(args []string) error {
	m, model, o, err := modelCommand("simulate", "mbfmu simulate model.xml [-o results.csv] [--xlsx results.xlsx] [options]\n\nDynamic simulation; one results row per output step.", ".csv", args, nil)
	if err != nil {
		return err
	}
	return simulate(m, model, o)
}

func simulate(m *solver.Model, model string, o *runOpts) error {
	st := m.Settings()
	s := m.NewState()
	wall := time.Now()
	if err := m.Init(s); err != nil {
		return err
	}
	if r := s.Redundant(); r != nil {
		fmt.Fprintf(os.Stderr, "note: redundant constraint equations removed: %s\n", strings.Join(r, ", "))
	}
	sk, err := openSink(o, m, model)
	if err != nil {
		return err
	}
	pr := &progress{quiet: o.quiet, start: wall, last: wall, what: "simulate"}
	rows, runErr, err := outputLoop(m, s, sk, pr, func(t float64) error { return m.AdvanceTo(s, t) })
	if err != nil {
		return err
	}
	el := time.Since(wall)
	stats := s.Stats()
	sk.ri.Add("analysis", "dynamics")
	addSettings(&sk.ri, st)
	sk.ri.Add("wall time", el.String())
	sk.ri.Add("steps", fmt.Sprint(stats.Steps))
	sk.ri.Add("rejected steps", fmt.Sprint(stats.Rejected))
	sk.ri.Add("Newton iterations", fmt.Sprint(stats.NewtonIters))
	sk.ri.Add("factorizations", fmt.Sprint(stats.Factorizations))
	if runErr != nil {
		sk.ri.Add("error", runErr.Error())
	}
	if err := sk.close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: t = %g..%g s, %d rows → %s\n", m.Name(), st.Start, s.T, rows, strings.Join(sk.target, ", "))
	fmt.Fprintf(os.Stderr, "summary: %s %s h=%g s, %d steps, %d Newton iterations, %d rejected steps, %d factorizations, wall time %s\n",
		st.Integrator, st.Formulation, st.Step, stats.Steps, stats.NewtonIters, stats.Rejected, stats.Factorizations, el.Round(time.Microsecond))
	return runErr
}

// outputLoop writes the state at the start and after advancing to every
// output time. It returns the rows written, the error that stopped the run
// (the rows up to it are kept) and any write error.
func outputLoop(m *solver.Model, s *solver.State, sk *sink, pr *progress, advance func(t float64) error) (rows int, runErr, err error) {
	st := m.Settings()
	row := make([]float64, len(m.Channels()))
	m.EvalChannels(s, row)
	if err := sk.w.Row(row); err != nil {
		return 0, nil, err
	}
	rows = 1
	n := max(1, int((st.End-st.Start)/st.OutputStep+0.5))
	for k := 1; k <= n; k++ {
		t := st.Start + float64(k)*(st.End-st.Start)/float64(n)
		if runErr = advance(t); runErr != nil {
			break
		}
		m.EvalChannels(s, row)
		if err := sk.w.Row(row); err != nil {
			return rows, runErr, err
		}
		rows++
		pr.update(t, st.Start, st.End)
	}
	pr.done()
	return rows, runErr, nil
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
	m, model, o, err := modelCommand("kinematics", "mbfmu kinematics model.xml [-o results.csv] [--xlsx results.xlsx]\n\nKinematic analysis of a fully driven mechanism.", ".csv", args, nil)
	if err != nil {
		return err
	}
	s := m.NewState()
	wall := time.Now()
	if err := m.Init(s); err != nil {
		return err
	}
	if d := m.DOF(s); d != 0 {
		return fmt.Errorf("kinematics: %s has %d degree(s) of freedom; drive every one of them or use 'mbfmu simulate'", model, d)
	}
	sk, err := openSink(o, m, model)
	if err != nil {
		return err
	}
	pr := &progress{quiet: o.quiet, start: wall, last: wall, what: "kinematics"}
	n, runErr, err := outputLoop(m, s, sk, pr, func(t float64) error {
		if err := m.Kinematics(s, t); err != nil {
			return fmt.Errorf("kinematics at t=%g s: %w", t, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sk.ri.Add("analysis", "kinematics")
	sk.ri.Add("wall time", time.Since(wall).String())
	if err := sk.close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "summary: kinematics, %d positions, wall time %s → %s\n", n, time.Since(wall).Round(time.Microsecond), strings.Join(sk.target, ", "))
	return runErr
}

func cmdStatic(args []string) error {
	m, model, o, err := modelCommand("static", "mbfmu static model.xml [-o results.csv] [--xlsx results.xlsx]\n\nStatic equilibrium near the initial positions.", "", args, nil)
	if err != nil {
		return err
	}
	s := m.NewState()
	wall := time.Now()
	if err := m.Init(s); err != nil {
		return err
	}
	if err := m.Static(s); err != nil {
		return err
	}
	sk, err := openSink(o, m, model)
	if err != nil {
		return err
	}
	row := make([]float64, len(m.Channels()))
	m.EvalChannels(s, row)
	sk.w.Row(row)
	sk.ri.Add("analysis", "static equilibrium")
	sk.ri.Add("wall time", time.Since(wall).String())
	if err := sk.close(); err != nil {
		return err
	}
	if o.out != "-" {
		fmt.Printf("%s: static equilibrium (positions and forces; all channels with -o file.csv)\n", m.Name())
		ch := m.Channels()
		for i, c := range ch {
			if c.Group == "position" || c.Group == "force" || c.Group == "energy" {
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

func cmdExport(args []string) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mbfmu export results.csv out.xlsx")
		return exitError(2)
	}
	wall := time.Now()
	var ri results.RunInfo
	ri.Add("source", pos[0])
	if err := results.CSVToXLSX(pos[0], pos[1], ri); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%s)\n", pos[1], time.Since(wall).Round(time.Millisecond))
	return nil
}
