package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"mbfmu/cosim"
	"mbfmu/interrupt"
	"mbfmu/results"
	"mbfmu/spec"
	"mbfmu/study"
)

// cmdStudy implements `mbfmu study study.xml`: a design study (docs/study.md)
// run on every core, or through Slurm as a job array.
func cmdStudy(args []string) error {
	fs := flag.NewFlagSet("study", flag.ContinueOnError)
	out := fs.String("o", "", "runs table `file`.csv, one row per run (default NAME.csv, NAME the study's name; \"-\" for standard output)")
	xlsx := fs.String("xlsx", "", "also write the runs, charts and summary to `file`.xlsx")
	jobs := fs.Int("jobs", runtime.NumCPU(), "runs simulated at once")
	store := fs.String("store", "", "`folder` keeping every finished run, for resuming (default: the -o file's name with .runs instead of .csv)")
	keep := fs.Bool("keep-results", false, "also keep each run's results (every channel) as STORE/results/ID.csv")
	retry := fs.Bool("retry-failed", false, "run again the runs the store holds as failed")
	quiet := fs.Bool("q", false, "no progress output")
	check := fs.Bool("check", false, "only check the study file and its model, print the planned runs and exit")
	channels := fs.Bool("channels", false, "list the result channels the signals of the study can read, and exit")
	collect := fs.Bool("collect", false, "simulate nothing: gather the runs in the store (after --slurm --no-wait) into the outputs")
	var so slurmOpts
	fs.BoolVar(&so.enabled, "slurm", false, "run the study as a Slurm job array (sbatch), wait for it and gather the results")
	fs.StringVar(&so.partition, "partition", "", "with --slurm: Slurm `partition`")
	fs.StringVar(&so.time, "time", "", "with --slurm: time limit of each array task (Slurm's --time, e.g. 30 or 1:00:00)")
	fs.IntVar(&so.arraySize, "array-size", 0, "with --slurm: number of array tasks `K` (default: one per run, at most 100; 1 for an optimisation)")
	fs.IntVar(&so.cpus, "cpus-per-task", 1, "with --slurm: CPUs of each array task (its runs use them all)")
	fs.BoolVar(&so.noWait, "no-wait", false, "with --slurm: submit and return; gather later with --collect")
	fs.BoolVar(&so.scriptOnly, "slurm-script-only", false, "write the batch script (STORE/slurm/study.sbatch) for submitting by hand, and exit")
	task := fs.Int("task", -1, "run only the array task `i`'s slice of the runs (used by the batch script)")
	tasks := fs.Int("tasks", 0, "number of array tasks of the slice (used by the batch script)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mbfmu study study.xml [-o runs.csv] [--xlsx study.xlsx] [--jobs N] [--slurm [--partition P --time T --array-size K]] [options]\n\n"+
			"Runs a design study (docs/study.md): a sweep or design of experiments, an optimisation under\n"+
			"constraints, sensitivities, on every core (or a Slurm job array). Finished runs are kept in a store\n"+
			"folder: a study run again skips them, so a killed study loses only the runs in flight.")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitError(2)
	}
	if *jobs < 1 {
		return usagef("--jobs %d: want at least 1", *jobs)
	}
	if (*task >= 0) != (*tasks > 0) || *task >= *tasks && *tasks > 0 {
		return usagef("--task i and --tasks K go together, with 0 ≤ i < K")
	}
	if so.arraySize < 0 || so.cpus < 1 {
		return usagef("--array-size and --cpus-per-task must be ≥ 1")
	}
	if !so.enabled && !so.scriptOnly && (so.partition != "" || so.time != "" || so.arraySize > 0 || so.noWait) {
		return usagef("--partition, --time, --array-size and --no-wait go with --slurm")
	}
	st, err := study.Load(pos[0])
	if err != nil {
		return reportFileErrors(err)
	}
	if *channels {
		cols, err := study.Channels(st)
		if err != nil {
			return reportFileErrors(err)
		}
		for _, c := range cols {
			fmt.Printf("%-32s %-10s %s\n", c.Name, c.Unit, c.Description)
		}
		return nil
	}
	p, err := study.Prepare(st)
	if err != nil {
		return reportFileErrors(err)
	}
	if *out == "" {
		*out = safeFile(st.Name) + ".csv"
	}
	if *store == "" {
		base := *out
		if base == "-" {
			base = safeFile(st.Name) + ".csv"
		}
		*store = strings.TrimSuffix(base, filepath.Ext(base)) + ".runs"
	}
	// Inputs: the study file, its target and, for a co-simulation, every
	// file the configuration names; no output may overwrite one.
	inputs := []string{pos[0], st.Target.Path}
	if st.Target.Kind == "cosim" {
		if cfg, err := cosim.LoadConfig(st.Target.Path); err == nil {
			inputs = append(inputs, configFiles(st.Target.Path, cfg)...)
		}
	}
	if err := checkOutputs(inputs, outputFlag{"-o", *out}, outputFlag{"--xlsx", *xlsx}); err != nil {
		return err
	}
	for _, in := range inputs {
		if results.SamePath(*store, in) {
			return usagef("--store %s: would overwrite the input file %s; choose another name", *store, in)
		}
	}
	if *check {
		fmt.Print(p.Describe())
		return nil
	}
	o := study.Options{Jobs: *jobs, Store: *store, KeepResults: *keep, RetryFailed: *retry, Collect: *collect}
	if so.enabled || so.scriptOnly {
		so.study, so.store, so.keep, so.retry = pos[0], *store, *keep, *retry
		done, err := runSlurm(p, &so, *quiet)
		if err != nil || !done {
			return err
		}
		o.Collect = true // gather what the tasks left in the store
	}
	if *tasks > 0 {
		o.TaskIndex, o.TaskCount = *task, *tasks
		o.StoreFile = taskStoreFile(*task)
	}
	ctx, stop, caught := signalContext()
	defer stop()
	pr := newStudyProgress(*quiet || *out == "-" && !isTerminal(os.Stderr), st.Name)
	o.Progress = pr.update
	res, err := p.Execute(ctx, o)
	pr.done()
	if err != nil && res == nil {
		return err
	}
	if *tasks > 0 {
		msg := fmt.Sprintf("task %d of %d: %d runs (%d simulated now, %d from the store, %d failed), wall %.3g s",
			*task, *tasks, len(res.Runs), res.Simulated, len(res.Runs)-res.Simulated, res.Failed(), res.Wall.Seconds())
		fmt.Println(msg)
		if err != nil {
			return err
		}
		if res.Interrupted {
			return exitError(signalStatus(caught()))
		}
		if job := os.Getenv("SLURM_ARRAY_JOB_ID"); job != "" {
			return study.WriteTaskMarker(*store, job, *task, msg)
		}
		return nil
	}
	var targets []string
	if *out == "-" {
		if werr := res.WriteCSV(os.Stdout); werr != nil {
			return werr
		}
	} else {
		if werr := res.SaveCSV(*out); werr != nil {
			return werr
		}
		targets = append(targets, *out)
	}
	if *xlsx != "" {
		if werr := res.SaveXLSX(*xlsx); werr != nil {
			return werr
		}
		targets = append(targets, *xlsx)
	}
	summary := os.Stdout
	if *out == "-" {
		summary = os.Stderr
	}
	fmt.Fprint(summary, res.Summary())
	if len(targets) > 0 {
		fmt.Fprintf(summary, "runs: %d rows → %s (store %s)\n", len(res.Runs), strings.Join(targets, ", "), *store)
	}
	if err != nil {
		return err
	}
	if res.Interrupted {
		fmt.Fprintf(os.Stderr, "mbfmu: study interrupted: %d runs done and kept in %s; run the same command again to finish\n", len(res.Runs), *store)
		return exitError(signalStatus(caught()))
	}
	if m := res.Missing(); m > 0 {
		fmt.Fprintf(os.Stderr, "mbfmu: %d runs are not in the store %s yet (rows with status \"missing\")\n", m, *store)
		return exitError(1)
	}
	return nil
}

// reportFileErrors prints a list of file:line problems, one per line.
func reportFileErrors(err error) error {
	var el spec.ErrorList
	if errors.As(err, &el) {
		for _, e := range el {
			fmt.Fprintln(os.Stderr, e)
		}
		fmt.Fprintf(os.Stderr, "mbfmu: study: %d problem(s)\n", len(el))
		return exitError(1)
	}
	return err
}

func safeFile(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}

func taskStoreFile(task int) string {
	job := os.Getenv("SLURM_ARRAY_JOB_ID")
	if job == "" {
		job = os.Getenv("SLURM_JOB_ID")
	}
	if job == "" {
		job = "manual"
	}
	return fmt.Sprintf("task-%s-%d.jsonl", job, task)
}

// signalContext returns a context cancelled by SIGINT or SIGTERM, a
// function that stops listening, and one that tells which signal came
// (nil if none). A second signal exits at once (the runs finished are in
// the store already).
func signalContext() (context.Context, func(), func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	c := interrupt.Catch(os.Stderr)
	go func() {
		select {
		case <-c.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	stop := func() {
		c.Stop()
		cancel()
	}
	caught := func() os.Signal {
		if e, ok := interrupt.Is(c.Err()); ok {
			return e.Signal
		}
		return nil
	}
	return ctx, stop, caught
}

// signalStatus is the shell's exit status for a signal (128 + number).
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}

// studyProgress shows the progress of a study on stderr: a bar with the
// time left on a terminal, plain lines (no \r, no escape codes) otherwise.
type studyProgress struct {
	quiet, tty bool
	name       string
	w          io.Writer
	last       time.Time
	lastFrac   float64
	shown      bool
}

func newStudyProgress(quiet bool, name string) *studyProgress {
	return &studyProgress{quiet: quiet, tty: isTerminal(os.Stderr), name: name, w: os.Stderr, lastFrac: -1}
}

func (s *studyProgress) update(p study.Progress) {
	if s.quiet || p.Total == 0 {
		return
	}
	frac := float64(p.Done) / float64(p.Total)
	left := "?"
	if p.Left >= 0 {
		left = p.Left.Round(time.Second).String()
	}
	info := fmt.Sprintf("%d/%d runs", p.Done, p.Total)
	if p.Failed > 0 {
		info += fmt.Sprintf(", %d failed", p.Failed)
	}
	if p.Cached > 0 {
		info += fmt.Sprintf(", %d from the store", p.Cached)
	}
	if s.tty {
		now := time.Now()
		if p.Done < p.Total && now.Sub(s.last) < 100*time.Millisecond {
			return
		}
		s.last = now
		const width = 28
		n := int(frac*width + 0.5)
		bar := strings.Repeat("#", n) + strings.Repeat(".", width-n)
		line := fmt.Sprintf("%s %s [%s] %s, %s elapsed, %s left", s.name, p.Phase, bar, info, p.Elapsed.Round(time.Second), left)
		if p.Note != "" {
			line += ", " + p.Note
		}
		fmt.Fprintf(s.w, "\r\033[K%s", line)
		s.shown = true
		return
	}
	// plain lines: every 10 % or 10 s, and at the end of a phase
	if p.Done == 0 {
		return
	}
	now := time.Now()
	if p.Done < p.Total && frac-s.lastFrac < 0.1 && now.Sub(s.last) < 10*time.Second {
		return
	}
	if p.Done == p.Total && frac == s.lastFrac {
		return
	}
	s.last, s.lastFrac = now, frac
	line := fmt.Sprintf("%s %s: %s, %s elapsed, %s left", s.name, p.Phase, info, p.Elapsed.Round(time.Second), left)
	if p.Note != "" {
		line += ", " + p.Note
	}
	fmt.Fprintln(s.w, line)
}

func (s *studyProgress) done() {
	if s.shown {
		fmt.Fprint(s.w, "\r\033[K")
	}
}

// slurmOpts are the --slurm options.
type slurmOpts struct {
	enabled, noWait, scriptOnly bool
	partition, time             string
	arraySize, cpus             int
	study, store                string
	keep, retry                 bool
}

// runSlurm writes the batch script, submits it and waits for the job.
// done is true when the job has left the queue and its runs are ready to
// be gathered from the store.
func runSlurm(p *study.Prepared, so *slurmOpts, quiet bool) (done bool, err error) {
	exe, err := os.Executable()
	if err != nil {
		return false, err
	}
	job, err := p.WriteSlurmScript(study.SlurmOptions{Study: so.study, Store: so.store, Exe: exe, Partition: so.partition,
		Time: so.time, ArraySize: so.arraySize, CPUs: so.cpus, KeepResults: so.keep, RetryFailed: so.retry})
	if err != nil {
		return false, err
	}
	what := fmt.Sprintf("%d array tasks for %d runs", job.Tasks, job.Runs)
	if job.Runs == 0 {
		what = "1 task (the study optimises: its runs depend on one another)"
	}
	collect := fmt.Sprintf("mbfmu study %s --collect --store %s [-o runs.csv] [--xlsx study.xlsx]", so.study, so.store)
	if so.scriptOnly {
		fmt.Printf("wrote %s (%s)\nsubmit it with: sbatch %s\nthen gather the runs with: %s\n", job.Script, what, job.Script, collect)
		return false, nil
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return false, fmt.Errorf("--slurm: sbatch is not on the PATH (is Slurm installed here?); --slurm-script-only writes the batch script (%s) without submitting it", job.Script)
	}
	t0 := time.Now()
	if err := job.Submit(); err != nil {
		return false, err
	}
	fmt.Fprintf(os.Stderr, "submitted Slurm job %s: %s (script %s)\n", job.ID, what, job.Script)
	if so.noWait {
		fmt.Printf("job %s submitted; when it has finished (squeue -j %s shows nothing), gather the runs with:\n  %s\n", job.ID, job.ID, collect)
		return false, nil
	}
	ctx, stop, _ := signalContext()
	defer stop()
	tty := isTerminal(os.Stderr)
	var last time.Time
	report := func(pend, run int) {
		if quiet {
			return
		}
		line := fmt.Sprintf("slurm job %s: %d tasks pending, %d running; %d runs in the store; %s", job.ID, pend, run, study.StoreCount(so.store), time.Since(t0).Round(time.Second))
		if tty {
			fmt.Fprintf(os.Stderr, "\r\033[K%s", line)
		} else if time.Since(last) >= 10*time.Second {
			fmt.Fprintln(os.Stderr, line)
			last = time.Now()
		}
	}
	err = job.Wait(ctx, time.Second, report)
	if tty && !quiet {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(os.Stderr, "mbfmu: stopped waiting; job %s keeps running (scancel %s to stop it); gather its runs later with:\n  %s\n", job.ID, job.ID, collect)
			return false, exitError(130)
		}
		return false, err
	}
	bad := 0
	for _, t := range job.Report() {
		if t.State != "COMPLETED" {
			bad++
			fmt.Fprintf(os.Stderr, "mbfmu: slurm task %d: %s (from %s); its output: %s\n", t.Task, t.State, t.Source, t.Output)
		}
	}
	fmt.Fprintf(os.Stderr, "slurm job %s done in %s (%d of %d tasks completed)\n", job.ID, time.Since(t0).Round(time.Millisecond), job.Tasks-bad, job.Tasks)
	return true, nil
}
