package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"mbfmu/cosim"
	"mbfmu/results"
)

// cmdCosim implements `mbfmu cosim config.xml`: it runs the co-simulation
// described by the configuration file (docs/cosim.md), writes the results
// (-o, --xlsx, --live), prints a summary with the macro-step latency, the
// real-time factor and the outcome of the file's <check>s, and fails when a
// check fails. --rt paces the run by the wall clock; --bench N runs it N
// times as fast as possible without results and prints the medians.
func cmdCosim(args []string) error {
	fs := flag.NewFlagSet("cosim", flag.ContinueOnError)
	out := fs.String("o", "", "results CSV `file` (\"-\" for standard output)")
	xlsx := fs.String("xlsx", "", "results spreadsheet with charts `file`.xlsx")
	live := fs.String("live", "", "also send the results to the viewer at `host:port` (UDP)")
	end := new(float64)
	timeVar(fs, end, "end", 0, "end `time` (s, or with a unit: 500ms; default: the file's)")
	rt := fs.Bool("rt", false, "real time: pace the macro steps by the wall clock")
	speed := fs.Float64("speed", 1, "with --rt: simulated seconds per wall-clock second")
	spin := fs.Duration("spin", 200*time.Microsecond, "with --rt: poll the clock for this long before each step instead of sleeping")
	bench := fs.Int("bench", 0, "run `N` times without results, as fast as possible, and print the median latency and real-time factor")
	verbose := fs.Bool("v", false, "print the components' log messages")
	quiet := fs.Bool("q", false, "no progress output")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mbfmu cosim config.xml [-o results.csv] [--xlsx results.xlsx] [--rt] [--bench N] [options]\n\n"+
			"Runs the co-simulation described by config.xml (see docs/cosim.md): plants (model files, FMUs),\n"+
			"controllers (PID, LQR from the plant's linearisation, state feedback, state space), signals and\n"+
			"UDP bridges to a rig. Prints the macro-step latency, the real-time factor and the checks.")
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
	cfg, err := cosim.LoadConfig(pos[0])
	if err != nil {
		return err
	}
	logf := func(msg string) {
		if *verbose {
			fmt.Fprintln(os.Stderr, msg)
		}
	}
	if *bench > 0 {
		return cosimBench(cfg, *bench, *end)
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
	var ws []results.Writer
	var files []io.Closer
	var targets []string
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	switch *out {
	case "":
	case "-":
		ws = append(ws, results.NewCSVWriter(os.Stdout))
	default:
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			return err
		}
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		files = append(files, f)
		ws = append(ws, results.NewCSVWriter(f))
		targets = append(targets, *out)
	}
	var xw *results.XLSXWriter
	if *xlsx != "" {
		if err := os.MkdirAll(filepath.Dir(*xlsx), 0o755); err != nil {
			return err
		}
		if xw, err = results.NewXLSXWriter(*xlsx); err != nil {
			return err
		}
		ws = append(ws, xw)
		targets = append(targets, *xlsx)
	}
	if *live != "" {
		conn, err := net.Dial("udp", *live)
		if err != nil {
			return fmt.Errorf("--live %s: %v", *live, err)
		}
		files = append(files, conn)
		ws = append(ws, results.NewLiveWriter(conn))
	}
	var w results.Writer
	if len(ws) > 0 {
		w = results.MultiWriter(ws...)
	}
	ro := cosim.RunOptions{Writer: w, RealTime: *rt, Speed: *speed, Spin: *spin}
	pr := &progress{quiet: *quiet || *out == "-", start: time.Now(), what: "cosim"}
	st := m.Settings()
	ro.Progress = func(t float64) { pr.update(t, st.Start, st.End) }
	if err := m.Init(); err != nil {
		return err
	}
	sum, runErr := m.Run(ro)
	pr.done()
	if sum == nil {
		return runErr
	}
	if xw != nil {
		var ri results.RunInfo
		ri.Add("configuration", pos[0])
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
			ri.Add("error", runErr.Error())
		}
		xw.SetRunInfo(ri)
	}
	if w != nil {
		if err := w.Close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	fmt.Print(sum.String())
	fmt.Print(finalValues(sum))
	if len(targets) > 0 {
		fmt.Printf("results: %d rows → %s\n", sum.Rows, strings.Join(targets, ", "))
	}
	if runErr != nil {
		return runErr
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
