package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"mbfmu/cosim"
	"mbfmu/results"
	"mbfmu/solver"
)

// cmdCosim implements `mbfmu cosim config.xml`: it runs the co-simulation
// described by the configuration file (docs/cosim.md), writes the results
// (-o, --xlsx, --live), prints a summary with the macro-step latency, the
// real-time factor and the outcome of the file's <check>s, and fails when a
// check fails. --rt paces the run by the wall clock (with --mlock,
// --priority and --cpu for a real-time PC); --bench N runs it N times as
// fast as possible without results and prints the medians. SIGINT and
// SIGTERM stop it after the current macro step with every row written.
// configFiles lists the files a co-simulation configuration at file names
// (models and FMUs), resolved against its folder.
func configFiles(file string, cfg *cosim.Config) []string {
	var fs []string
	for _, e := range cfg.Components {
		if p := e.Attr["path"]; p != "" {
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(file), p)
			}
			fs = append(fs, p)
		}
	}
	return fs
}

func cmdCosim(args []string) error {
	fs := newFlagSet("cosim", "usage: mbfmu cosim config.xml|loop.ssp [-o results.csv] [--xlsx results.xlsx] [--rt [--mlock] [--priority N] [--cpu K]] [--bench N] [options]\n"+
		"       mbfmu cosim config.xml --ssp loop.ssp\n\n"+
		"Runs the co-simulation described by config.xml (see docs/cosim.md): plants (model files, FMUs),\n"+
		"controllers (PID, LQR from the plant's linearisation, state feedback, state space), signals and\n"+
		"UDP bridges to a rig. Prints the macro-step latency, the real-time factor and the checks.\n"+
		"An SSP 1.0 package (.ssp) runs as well; --ssp writes the loop as one (plants and controllers as\n"+
		"FMUs) instead of running it.\n"+
		"SIGINT (Ctrl-C) or SIGTERM stop it after the current macro step with every row written.")
	out := fs.String("o", "", "results CSV `file` (\"-\" for standard output; default: none)")
	xlsx := fs.String("xlsx", "", "results spreadsheet with charts `file`.xlsx")
	live := fs.String("live", "", "also send the results to the viewer at `host:port` (UDP)")
	end := new(float64)
	timeVar(fs, end, "end", 0, "end `time` (s, or with a unit: 500ms; default: the file's)")
	rt := fs.Bool("rt", false, "real time: pace the macro steps by the wall clock")
	speed := fs.Float64("speed", 1, "with --rt: simulated seconds per wall-clock second")
	spin := fs.Duration("spin", 200*time.Microsecond, "with --rt: poll the clock for this long before each step instead of sleeping")
	mlock := fs.Bool("mlock", false, "with --rt: lock the process's memory (mlockall; needs CAP_IPC_LOCK or ulimit -l)")
	priority := fs.Int("priority", 0, "with --rt: run the loop under SCHED_FIFO at priority `N` (1-99; needs CAP_SYS_NICE or ulimit -r)")
	cpu := fs.Int("cpu", -1, "with --rt: pin the loop's thread to CPU `K` (an isolated core)")
	keepGC := fs.Bool("keep-gc", false, "with --rt: leave the garbage collector on during the loop")
	bench := fs.Int("bench", 0, "run `N` times without results, as fast as possible, and print the median latency and real-time factor")
	verbose := fs.Bool("v", false, "print the components' log messages")
	quiet := fs.Bool("q", false, "no progress output")
	ssp := fs.String("ssp", "", "write the loop as an SSP 1.0 `package` (.ssp) instead of running it")
	runtime := fs.String("runtime", "", "with --ssp: the runtime `library` libmbfmu-fmi2.so (default: $MBFMU_RUNTIME, beside mbfmu, or ./bin)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, 1, "one configuration file"); err != nil {
		return err
	}
	for _, f := range []string{"speed", "spin", "mlock", "priority", "cpu", "keep-gc"} {
		if isSet(fs, f) && !*rt {
			return usagef("--%s: only with --rt", f)
		}
	}
	if *spin < 0 {
		return usagef("--spin %s: must be ≥ 0", *spin)
	}
	switch {
	case !(*speed > 0) || math.IsInf(*speed, 0):
		return usagef("--speed: must be > 0, got %g", *speed)
	case isSet(fs, "priority") && (*priority < 1 || *priority > 99):
		return usagef("--priority: must be 1 to 99 (SCHED_FIFO), got %d", *priority)
	case isSet(fs, "cpu") && *cpu < 0:
		return usagef("--cpu: must be a CPU number ≥ 0, got %d", *cpu)
	case *bench < 0:
		return usagef("--bench: must be ≥ 0, got %d", *bench)
	case *bench > 0 && (*out != "" || *xlsx != "" || *live != "" || *rt):
		return usagef("--bench: runs without results and as fast as possible: drop -o, --xlsx, --live and --rt")
	}
	file := pos[0]
	if isSet(fs, "runtime") && *ssp == "" {
		return usagef("--runtime: only with --ssp")
	}
	var cfg *cosim.Config
	if strings.EqualFold(filepath.Ext(file), ".ssp") {
		if *ssp != "" {
			return usagef("--ssp: %s is a package already", file)
		}
		dir, err := os.MkdirTemp("", "mbfmu-ssp-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if cfg, err = cosim.ReadSSP(file, dir); err != nil {
			return err
		}
	} else if cfg, err = cosim.LoadConfig(file); err != nil {
		return err
	}
	if *ssp != "" {
		return writeSSP(file, cfg, *ssp, *runtime, fs)
	}
	if isSet(fs, "end") && !(*end > cfg.Settings.Start) {
		return usagef("--end: must be after the start time %g s, got %g s", cfg.Settings.Start, *end)
	}
	if isSet(fs, "end") && cfg.Settings.Step > 0 {
		if _, msg := solver.TimeGridProblem(cfg.Settings.Start, *end, cfg.Settings.Step, cfg.Settings.Step, false); msg != "" {
			return usagef("--end: %s (macro steps of the co-simulation)", msg)
		}
	}
	if *bench > 0 {
		stop := catchQuit()
		defer stop.Stop()
		return cosimBench(cfg, *bench, *end)
	}
	// Inputs: the configuration and every file it names.
	inputs := []string{file}
	if !strings.EqualFold(filepath.Ext(file), ".ssp") {
		inputs = append(inputs, configFiles(file, cfg)...)
	}
	if err := checkOutputs(inputs, outputFlag{"-o", *out}, outputFlag{"--xlsx", *xlsx}); err != nil {
		return err
	}
	logf := func(msg string) {
		if *verbose {
			fmt.Fprintln(os.Stderr, msg)
		}
	}
	wall := time.Now()
	m, err := cosim.New(cfg, cosim.Options{Log: logf, End: *end})
	if err != nil {
		return err
	}
	defer m.Close()
	fmt.Printf("%s: %d components\n%s", cfg.Name, len(cfg.Components), m.Describe())
	for _, n := range m.Notes() {
		fmt.Println("  " + n)
	}
	var conn net.Conn
	if *live != "" {
		if conn, err = net.Dial("udp", *live); err != nil {
			return fmt.Errorf("--live %s: %v", *live, err)
		}
		defer conn.Close()
	}
	if err := m.Init(); err != nil {
		return err
	}
	rc, err := startRun("cosim", *out, *xlsx)
	if err != nil {
		return err
	}
	if conn != nil {
		rc.outs.AddStream(results.NewLiveWriter(conn), "live "+*live)
	}
	ro := cosim.RunOptions{RealTime: *rt, Speed: *speed, Spin: *spin, Stop: rc.stopped,
		MemLock: *mlock, Priority: *priority, KeepGC: *keepGC}
	if rc.outs.Len() > 0 {
		ro.Writer = rc.outs
	}
	if *cpu >= 0 {
		ro.CPUs = []int{*cpu}
	}
	// The loop only stores the time reached; another goroutine prints it,
	// so that a real-time loop never waits for the terminal.
	st := m.Settings()
	var reached atomic.Uint64
	reached.Store(math.Float64bits(st.Start))
	ro.Progress = func(t float64) { reached.Store(math.Float64bits(t)) }
	pr := newProgress("cosim", *quiet || *out == "-")
	progDone := make(chan struct{})
	progStopped := make(chan struct{})
	go func() {
		defer close(progStopped)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-progDone:
				pr.done()
				return
			case <-tick.C:
				pr.update(math.Float64frombits(reached.Load()), st.Start, st.End)
			}
		}
	}()
	sum, runErr := m.Run(ro)
	close(progDone)
	<-progStopped
	var re *cosim.RTError
	if errors.As(runErr, &re) {
		rc.outs.Abort()
		rc.stop.Stop()
		return usagef("--%s: %v", re.Setting, re)
	}
	if sum == nil {
		rc.outs.Abort()
		rc.stop.Stop()
		return runErr
	}
	if rc.xw != nil {
		var ri results.RunInfo
		ri.Add("configuration", file)
		ri.Add("co-simulation", cfg.Name)
		for _, line := range strings.Split(strings.TrimRight(m.Describe(), "\n"), "\n") {
			ri.Add("component", strings.TrimSpace(line))
		}
		for _, n := range m.Notes() {
			ri.Add("design", n)
		}
		for _, line := range strings.Split(strings.TrimRight(sum.String(), "\n"), "\n") {
			ri.Add("summary", line)
		}
		ri.Add("wall time", time.Since(wall).String())
		if runErr != nil {
			ri.Add("stopped", fmt.Sprintf("at t = %g s: %v", sum.End, runErr))
		}
		rc.xw.SetRunInfo(ri)
	}
	fmt.Print(sum.String())
	fmt.Print(finalValues(sum))
	err = rc.finish(runErr, fmt.Sprintf("t = %g s (%d macro steps)", sum.End, sum.Steps))
	if err != nil {
		return err
	}
	if files := rc.outs.Written(); len(files) > 0 {
		fmt.Printf("results: %d rows → %s\n", sum.Rows, strings.Join(files, ", "))
	}
	if err := m.Close(); err != nil {
		return err
	}
	if !sum.Passed() {
		fmt.Fprintln(os.Stderr, "mbfmu: cosim: a check failed")
		return exitError(1)
	}
	return nil
}

// finalValues lists the last row.
func finalValues(s *cosim.Summary) string {
	var b strings.Builder
	b.WriteString("final:")
	for i, c := range s.Columns {
		fmt.Fprintf(&b, " %s = %.6g", c, s.Final[i])
		if i < len(s.Columns)-1 {
			b.WriteString(",")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// cosimBench runs the co-simulation n times without results and prints
// each run's figures and their medians.
func cosimBench(cfg *cosim.Config, n int, end float64) error {
	type run struct {
		p50, p99, max time.Duration
		rtf, allocs   float64
		steps         int64
	}
	var runs []run
	for i := 0; i < n; i++ {
		m, err := cosim.New(cfg, cosim.Options{End: end})
		if err != nil {
			return err
		}
		if err := m.Init(); err != nil {
			m.Close()
			return err
		}
		sum, err := m.Run(cosim.RunOptions{})
		m.Close()
		if err != nil {
			return err
		}
		r := run{sum.Latency.P50, sum.Latency.P99, sum.Latency.Max, sum.RealTimeFactor, sum.AllocsPerStep, sum.Steps}
		runs = append(runs, r)
		fmt.Printf("run %d: %d macro steps, latency p50 %v, p99 %v, max %v, real-time factor %.4g, %.3g allocations per step\n",
			i+1, r.steps, r.p50, r.p99, r.max, r.rtf, r.allocs)
	}
	med := func(f func(run) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	d := func(f func(run) time.Duration) time.Duration {
		return time.Duration(med(func(r run) float64 { return float64(f(r)) }))
	}
	fmt.Printf("median of %d runs (%s): macro-step latency p50 %v, p99 %v, max %v; real-time factor %.4g; %.3g allocations per step\n",
		n, cfg.Name, d(func(r run) time.Duration { return r.p50 }), d(func(r run) time.Duration { return r.p99 }),
		d(func(r run) time.Duration { return r.max }), med(func(r run) float64 { return r.rtf }),
		med(func(r run) float64 { return r.allocs }))
	return nil
}

// writeSSP writes the loop of cfg (from file) as an SSP package.
func writeSSP(file string, cfg *cosim.Config, out, runtime string, fs *flag.FlagSet) error {
	for _, f := range []string{"o", "xlsx", "live", "rt", "bench", "end"} {
		if isSet(fs, f) {
			return usagef("--%s: --ssp writes a package and runs nothing", f)
		}
	}
	if !strings.EqualFold(filepath.Ext(out), ".ssp") {
		return usagef("--ssp %s: name the package .ssp", out)
	}
	inputs := append([]string{file}, configFiles(file, cfg)...)
	if err := checkOutputs(inputs, outputFlag{"--ssp", out}); err != nil {
		return err
	}
	m, err := cosim.New(cfg, cosim.Options{})
	if err != nil {
		return err
	}
	defer m.Close()
	if err := results.MakeParentDirs(out); err != nil {
		return err
	}
	if err := m.WriteSSP(out, runtime); err != nil {
		return err
	}
	size := int64(0)
	if fi, err := os.Stat(out); err == nil {
		size = fi.Size()
	}
	fmt.Printf("wrote %s: SSP 1.0, %d components as FMUs, %d connections, macro step %g s, %.1f MB\n",
		out, len(cfg.Components), len(cfg.Connections), cfg.Settings.Step, float64(size)/1e6)
	return nil
}
