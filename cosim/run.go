package cosim

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"mbfmu/results"
)

// RunOptions adjust Master.Run.
type RunOptions struct {
	// Writer receives the results (header, then one row per output step);
	// nil writes nothing.
	Writer results.Writer
	// RealTime paces the run by the wall clock: the macro step from t to
	// t+h starts when (t − start)/Speed seconds have passed since the run
	// started. A step that finishes after its deadline, the wall-clock time
	// of t+h, is an overrun; the next step then starts at once (steps are
	// never skipped, so the run catches up on the schedule).
	RealTime bool
	// Speed is the pace of a real-time run in simulated seconds per wall
	// second (0 means 1).
	Speed float64
	// Spin is how long before each step's start time the runner at least
	// stops sleeping and polls the clock, for precise starts (0 means
	// 200 µs; negative: only sleep). On top of it the runner learns how much
	// its sleeps overshoot (about 1 ms on a typical Linux box, so at 1 kHz
	// it polls all the time: a real-time run keeps one core busy).
	Spin time.Duration
	// Progress, if set, is called about every 0.5 s of wall time.
	Progress func(t float64)
	// Stop, if set, is called after every macro step; when it returns an
	// error the run stops there (the rows recorded so far are kept) and
	// Run returns the summary with that error. It is called in the
	// real-time loop and must not allocate (interrupt.Catcher.Err does not).
	Stop func() error
	// NoMemStats skips counting the loop's garbage collections and
	// allocations (GCCycles and AllocsPerStep stay 0). Counting them
	// exactly takes two runtime.ReadMemStats, which stop the world: every
	// other goroutine pauses, so callers that run co-simulations on
	// several goroutines at once (a study's workers) set it.
	NoMemStats bool

	// The settings below are for a real-time run (RealTime) on a
	// real-time Linux PC (docs/cosim.md); each fails with an *RTError
	// saying what is needed when the system does not permit it.

	// MemLock locks all of the process's memory, present and future
	// (mlockall), for the run, so that the loop never waits for a page.
	// Needs CAP_IPC_LOCK or a large enough RLIMIT_MEMLOCK.
	MemLock bool
	// Priority, when not 0, runs the loop's thread under SCHED_FIFO at
	// this priority (1..99). Needs CAP_SYS_NICE or RLIMIT_RTPRIO.
	Priority int
	// CPUs, when not empty, pins the loop's thread to these CPUs (ideally
	// one core isolated from the scheduler, isolcpus=).
	CPUs []int
	// KeepGC leaves the garbage collector on in a real-time loop. By
	// default a real-time run collects the garbage after its first row,
	// then turns the collector off for the loop (debug.SetGCPercent(-1))
	// with a memory limit of GCMemoryLimit as a safety net: the macro step
	// allocates nothing, so no collection happens during the run unless a
	// results writer allocates past the limit.
	KeepGC bool
	// GCMemoryLimit is the memory limit during a real-time loop with the
	// collector off (0: the memory in use at the start plus 1 GiB).
	GCMemoryLimit int64
}

// RTError is a real-time setting of RunOptions that could not be applied.
type RTError struct {
	// Setting is "mlock", "priority" or "cpu" (the command line's flag).
	Setting string
	// What is what was attempted.
	What string
	// Err is the system's error.
	Err error
	// Need says what is needed (a capability, a limit), if known.
	Need string
}

// Error says what was attempted, why it failed and what is needed.
func (e *RTError) Error() string {
	s := e.What + ": " + e.Err.Error()
	if e.Need != "" {
		s += "; " + e.Need
	}
	return s
}

// Unwrap returns the system's error.
func (e *RTError) Unwrap() error { return e.Err }

// LatencyStats summarises durations. Quantiles come from a log-linear
// histogram with a relative resolution better than 1/64.
type LatencyStats struct {
	N                   int64
	Mean, P50, P99, Max time.Duration
}

// String formats the statistics.
func (s LatencyStats) String() string {
	if s.N == 0 {
		return "none"
	}
	return fmt.Sprintf("p50 %s, p99 %s, max %s (mean %s, %d samples)", dur(s.P50), dur(s.P99), dur(s.Max), dur(s.Mean), s.N)
}

func dur(d time.Duration) string {
	round := func(v float64, unit string) string {
		if v == math.Trunc(v) {
			return fmt.Sprintf("%.0f %s", v, unit)
		}
		return fmt.Sprintf("%.3g %s", v, unit)
	}
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		if d%time.Microsecond == 0 {
			return round(float64(d)/1e3, "µs")
		}
		return fmt.Sprintf("%.1f µs", float64(d)/1e3)
	case d < time.Second:
		if d%time.Millisecond == 0 {
			return round(float64(d)/1e6, "ms")
		}
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}

// histogram counts durations in log-linear buckets: exact below 128 ns,
// then 64 buckets per power of two (for quantiles), and in the bins of
// BinEdges (for the printed histogram). It allocates nothing.
type histogram struct {
	counts   [128 + 40*64]uint32
	bins     [len(binEdges) + 1]int64
	n        int64
	sum, max time.Duration
}

// binEdges are the upper edges of the bins of the printed latency
// histogram, log-spaced in a 1-2-5 series; a last bin holds the rest.
var binEdges = [...]time.Duration{
	time.Microsecond, 2 * time.Microsecond, 5 * time.Microsecond,
	10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second,
}

// Bin is a bin of a latency histogram: the count of durations d with
// Lo ≤ d < Hi (Hi = 0: no upper bound).
type Bin struct {
	Lo, Hi time.Duration
	Count  int64
}

// binsOf returns the histogram's bins from the first to the last that
// holds a count.
func (h *histogram) binsOf() []Bin {
	var out []Bin
	for i, c := range h.bins {
		b := Bin{Count: c}
		if i > 0 {
			b.Lo = binEdges[i-1]
		}
		if i < len(binEdges) {
			b.Hi = binEdges[i]
		}
		out = append(out, b)
	}
	return out
}

func bucketOf(ns uint64) int {
	if ns < 128 {
		return int(ns)
	}
	shift := bits.Len64(ns) - 7 // ns>>shift in [64, 128)
	b := 128 + (shift-1)*64 + int(ns>>uint(shift)) - 64
	if b >= 128+40*64 {
		b = 128 + 40*64 - 1
	}
	return b
}

// bucketMid returns the middle of bucket b in ns.
func bucketMid(b int) float64 {
	if b < 128 {
		return float64(b)
	}
	shift := (b-128)/64 + 1
	j := (b - 128) % 64
	lo := float64(uint64(64+j) << uint(shift))
	return lo + float64(uint64(1)<<uint(shift))/2
}

func (h *histogram) add(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	k := 0
	for k < len(binEdges) && d >= binEdges[k] {
		k++
	}
	h.bins[k]++
	h.n++
	h.sum += d
	if d > h.max {
		h.max = d
	}
}

func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	target := int64(math.Ceil(q * float64(h.n)))
	if target < 1 {
		target = 1
	}
	var acc int64
	for b, c := range h.counts {
		acc += int64(c)
		if acc >= target {
			v := time.Duration(bucketMid(b))
			if v > h.max {
				v = h.max
			}
			return v
		}
	}
	return h.max
}

func (h *histogram) stats() LatencyStats {
	if h.n == 0 {
		return LatencyStats{}
	}
	return LatencyStats{N: h.n, Mean: h.sum / time.Duration(h.n), P50: h.quantile(0.5), P99: h.quantile(0.99), Max: h.max}
}

// CheckResult is the outcome of one <check>.
type CheckResult struct {
	Check
	// Worst is the largest |value − Near| seen in the window, At its time;
	// for a Mean check, |mean − Near|, for an RMS check the root mean
	// square of value − Near (At is then the window's end).
	Worst, At float64
	sum       float64
	// Rows is the number of rows checked.
	Rows int
	// Skipped is true when no row fell in the window (a run cut short
	// with Options.End): the check neither passes nor fails.
	Skipped bool
	// Pass is true when Worst ≤ Tol, or the check was skipped.
	Pass bool
}

// String formats the result.
func (r CheckResult) String() string {
	verdict := "PASS"
	switch {
	case r.Skipped:
		verdict = "SKIP"
	case !r.Pass:
		verdict = "FAIL"
	}
	sig := r.Signal
	if r.Minus != "" {
		sig += " − " + r.Minus
	}
	switch {
	case r.Mean && r.Minus != "":
		sig = "mean(" + sig + ")"
	case r.Mean:
		sig = "mean " + sig
	case r.RMS:
		sig = "rms(" + sig + ")"
	}
	what := fmt.Sprintf("|%s| ≤ %.4g", sig, r.Tol)
	switch {
	case r.RMS && r.Near != 0:
		what = fmt.Sprintf("rms(%s − %.6g) ≤ %.4g", strings.TrimSuffix(strings.TrimPrefix(sig, "rms("), ")"), r.Near, r.Tol)
	case r.RMS:
		what = fmt.Sprintf("%s ≤ %.4g", sig, r.Tol)
	case r.Near != 0:
		what = fmt.Sprintf("|%s − %.6g| ≤ %.4g", sig, r.Near, r.Tol)
	}
	var win string
	switch {
	case !math.IsInf(r.After, -1) && !math.IsInf(r.Until, 1):
		win = fmt.Sprintf(" for %g s ≤ t ≤ %g s", r.After, r.Until)
	case !math.IsInf(r.After, -1):
		win = fmt.Sprintf(" for t ≥ %g s", r.After)
	case !math.IsInf(r.Until, 1):
		win = fmt.Sprintf(" for t ≤ %g s", r.Until)
	}
	if r.Rows == 0 {
		return fmt.Sprintf("%s  %s%s: no results rows there", verdict, what, win)
	}
	s := fmt.Sprintf("%s  %s%s: worst %.4g at t = %.6g s", verdict, what, win, r.Worst, r.At)
	if r.Mean || r.RMS {
		s = fmt.Sprintf("%s  %s%s: %.4g over %d rows", verdict, what, win, r.Worst, r.Rows)
	}
	if r.Description != "" {
		s += " — " + r.Description
	}
	return s
}

// Summary reports a run.
type Summary struct {
	// Name is the configuration's name, File its file.
	Name, File string
	// Steps is the number of macro steps, Rows the number of results rows.
	Steps, Rows int64
	// Start and End are the simulated span (s).
	Start, End float64
	// MinStep and MaxStep are the smallest and largest macro steps taken.
	MinStep, MaxStep float64
	// Wall is the wall-clock time of the stepping loop, and RealTimeFactor
	// the simulated time per wall time (> 1: faster than real time).
	Wall           time.Duration
	RealTimeFactor float64
	// Latency is the compute time of one macro step (exchange of values,
	// controllers, plant steps; results writing excluded).
	Latency LatencyStats
	// RealTime is true for a paced run; Overruns counts steps that ended
	// after their deadline and Lateness how late steps started.
	RealTime bool
	Overruns int64
	Lateness LatencyStats
	// LatencyBins and LatenessBins are the histograms of the macro-step
	// compute time and of the start lateness of a real-time run, in the
	// log-spaced bins of 1, 2, 5, 10 µs ... 1 s.
	LatencyBins, LatenessBins []Bin
	// RTSetup lists the real-time settings applied ("memory locked",
	// "on CPU 2", "SCHED_FIFO priority 80", "garbage collector off").
	RTSetup []string
	// RTWarnings are problems of the system found when applying them
	// (real-time throttling on).
	RTWarnings []string
	// GCCycles is the number of garbage collections during the loop.
	GCCycles uint32
	// Stopped is the error that stopped the run early (RunOptions.Stop
	// or a failure), nil when it reached the end.
	Stopped error
	// UDP holds the counters of each UDP bridge.
	UDP []UDPStats
	// Checks holds the outcome of each <check>.
	Checks []CheckResult
	// AllocsPerStep is the number of heap allocations per macro step
	// during the stepping loop (results writing included when a writer is
	// given).
	AllocsPerStep float64
	// Final holds the last row (time first), Columns its names.
	Final   []float64
	Columns []string
}

// Passed reports whether every check passed.
func (s *Summary) Passed() bool {
	for _, c := range s.Checks {
		if !c.Pass {
			return false
		}
	}
	return true
}

// String formats the summary for the command line.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d macro steps", s.Name, s.Steps)
	if s.MinStep == s.MaxStep {
		fmt.Fprintf(&b, " of %g s", s.MinStep)
	} else {
		fmt.Fprintf(&b, " of %g … %g s", s.MinStep, s.MaxStep)
	}
	fmt.Fprintf(&b, ", t = %g … %g s, %d results rows, wall %s, real-time factor %.3g\n",
		s.Start, s.End, s.Rows, dur(s.Wall), s.RealTimeFactor)
	fmt.Fprintf(&b, "macro-step latency: %s\n", s.Latency)
	if s.RealTime {
		if len(s.RTSetup) > 0 {
			fmt.Fprintf(&b, "real-time setup: %s\n", strings.Join(s.RTSetup, ", "))
		}
		for _, w := range s.RTWarnings {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
		fmt.Fprintf(&b, "real time: %d overruns in %d steps; start lateness %s; %d garbage collections during the loop\n",
			s.Overruns, s.Steps, s.Lateness, s.GCCycles)
		b.WriteString(s.Histogram())
	}
	for _, u := range s.UDP {
		fmt.Fprintf(&b, "udp %s: %d sent, %d received, %d timeouts, %d late, %d bad; round trip %s\n",
			u.Name, u.Sent, u.Received, u.Timeouts, u.Late, u.Bad, u.RoundTrip)
	}
	for _, c := range s.Checks {
		if !c.Pass && s.File != "" {
			fmt.Fprintf(&b, "check %s (%s:%d)\n", c, s.File, c.Line)
			continue
		}
		fmt.Fprintf(&b, "check %s\n", c)
	}
	return b.String()
}

// Histogram formats the latency histograms of a real-time run: one line
// per bin from the first to the last that holds a count, with the number
// of steps whose start was that late and whose computation took that long.
func (s *Summary) Histogram() string {
	if len(s.LatencyBins) == 0 || len(s.LatencyBins) != len(s.LatenessBins) {
		return ""
	}
	first, last := -1, -1
	for i := range s.LatencyBins {
		if s.LatencyBins[i].Count+s.LatenessBins[i].Count > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "latency histogram (%d steps, %d overruns):\n  %-17s %12s %12s\n", s.Steps, s.Overruns, "bin", "start late", "step time")
	for i := first; i <= last; i++ {
		lb := s.LatencyBins[i]
		var name string
		switch {
		case lb.Lo == 0:
			name = "< " + dur(lb.Hi)
		case lb.Hi == 0:
			name = "≥ " + dur(lb.Lo)
		default:
			name = dur(lb.Lo) + " – " + dur(lb.Hi)
		}
		fmt.Fprintf(&b, "  %-17s %12d %12d\n", name, s.LatenessBins[i].Count, lb.Count)
	}
	return b.String()
}

// checker evaluates the checks on each recorded row.
type checker struct {
	res   []CheckResult
	col   []int
	minus []int // column subtracted, or -1
}

func newChecker(cfg *Config, cols []results.Column) (*checker, error) {
	ch := &checker{}
	el := &errList{file: cfg.File}
	for _, c := range cfg.Checks {
		k := -1
		for i, col := range cols {
			if col.Name == c.Signal {
				k = i
			}
		}
		if k < 0 {
			el.add(c.Line, "<check>: no signal %q (signals are component.output)", c.Signal)
		}
		km := -1
		if c.Minus != "" {
			for i, col := range cols {
				if col.Name == c.Minus {
					km = i
				}
			}
			if km < 0 {
				el.add(c.Line, "<check>: minus: no signal %q (signals are component.output)", c.Minus)
			}
		}
		ch.col = append(ch.col, k)
		ch.minus = append(ch.minus, km)
		ch.res = append(ch.res, CheckResult{Check: c})
	}
	return ch, el.err()
}

func (ch *checker) add(row []float64) {
	for i := range ch.res {
		r := &ch.res[i]
		if row[0] < r.After-1e-12 || row[0] > r.Until+1e-12 {
			continue
		}
		v := row[ch.col[i]]
		if k := ch.minus[i]; k >= 0 {
			v -= row[k]
		}
		r.Rows++
		if r.RMS {
			d := v - r.Near
			r.sum += d * d
			r.Worst, r.At = math.Sqrt(r.sum/float64(r.Rows)), row[0]
			if math.IsNaN(r.Worst) {
				r.Worst = math.Inf(1)
			}
			continue
		}
		if r.Mean {
			r.sum += v
			r.Worst, r.At = math.Abs(r.sum/float64(r.Rows)-r.Near), row[0]
			if math.IsNaN(r.Worst) {
				r.Worst = math.Inf(1)
			}
			continue
		}
		d := math.Abs(v - r.Near)
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		if r.Rows == 1 || d > r.Worst {
			r.Worst, r.At = d, row[0]
		}
	}
}

func (ch *checker) results() []CheckResult {
	for i := range ch.res {
		r := &ch.res[i]
		r.Skipped = r.Rows == 0
		r.Pass = r.Skipped || r.Worst <= r.Tol
	}
	return ch.res
}

// Run initialises the master if needed and runs it to the end time,
// writing results and pacing by the wall clock as o asks. The summary is
// returned also when the run fails part way (with the error).
func (m *Master) Run(o RunOptions) (*Summary, error) {
	if !m.started {
		if err := m.Init(); err != nil {
			return nil, err
		}
	}
	s := m.cfg.Settings
	sum := &Summary{Name: m.cfg.Name, File: m.cfg.File, Start: m.t, RealTime: o.RealTime, MinStep: math.Inf(1)}
	chk, err := newChecker(m.cfg, m.cols)
	if err != nil {
		return nil, err
	}
	every := int64(1)
	if !s.Variable && s.OutputStep > 0 {
		every = int64(math.Round(s.OutputStep / s.Step))
	}
	row := make([]float64, len(m.cols))
	if o.Writer != nil {
		if err := o.Writer.Header(m.cols); err != nil {
			return nil, err
		}
	}
	record := func() error {
		m.Row(row)
		chk.add(row)
		sum.Rows++
		if o.Writer != nil {
			return o.Writer.Row(row)
		}
		return nil
	}
	if err := record(); err != nil {
		return nil, err
	}
	speed := o.Speed
	if !(speed > 0) {
		speed = 1
	}
	spin := o.Spin
	if spin == 0 {
		spin = 200 * time.Microsecond
	}
	if o.RealTime {
		// The loop runs on one OS thread: the one that gets the CPU
		// affinity and the real-time priority.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		setup, warnings, restore, err := setupRT(o)
		if err != nil {
			return nil, err
		}
		defer restore()
		sum.RTSetup, sum.RTWarnings = setup, warnings
		if !o.KeepGC {
			// Warmed up (the first row is recorded): collect now, then
			// keep the collector out of the loop.
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			limit := o.GCMemoryLimit
			if limit <= 0 {
				limit = int64(ms.Sys) + 1<<30
			}
			oldPercent := debug.SetGCPercent(-1)
			oldLimit := debug.SetMemoryLimit(limit)
			defer func() {
				debug.SetMemoryLimit(oldLimit)
				debug.SetGCPercent(oldPercent)
			}()
			sum.RTSetup = append(sum.RTSetup, fmt.Sprintf("garbage collector off (memory limit %d MiB)", limit>>20))
		}
	}
	var lat, late histogram
	pc := &pacer{spin: spin, slack: 2 * time.Millisecond}
	var ms0, ms1 runtime.MemStats
	if !o.NoMemStats {
		runtime.ReadMemStats(&ms0)
	}
	t0 := m.t
	wall0 := time.Now()
	lastProg := wall0
	wallAt := func(t float64) time.Time {
		return wall0.Add(time.Duration((t - t0) / speed * 1e9))
	}
	var runErr error
	for !m.Done() {
		if o.RealTime {
			start := wallAt(m.t)
			pc.waitUntil(start)
			late.add(time.Since(start))
		}
		tPrev := m.t
		begin := time.Now()
		if err := m.Advance(); err != nil {
			runErr = err
			break
		}
		end := time.Now()
		lat.add(end.Sub(begin))
		h := m.t - tPrev
		sum.MinStep, sum.MaxStep = math.Min(sum.MinStep, h), math.Max(sum.MaxStep, h)
		if o.RealTime && end.After(wallAt(m.t)) {
			sum.Overruns++
		}
		if m.k%every == 0 || m.Done() {
			if err := record(); err != nil {
				runErr = err
				break
			}
		}
		if o.Progress != nil && end.Sub(lastProg) > 500*time.Millisecond {
			lastProg = end
			o.Progress(m.t)
		}
		if o.Stop != nil {
			if err := o.Stop(); err != nil {
				runErr = err
				break
			}
		}
	}
	sum.Wall = time.Since(wall0)
	if !o.NoMemStats {
		runtime.ReadMemStats(&ms1)
	}
	sum.GCCycles = ms1.NumGC - ms0.NumGC
	sum.Stopped = runErr
	sum.Steps = m.k
	if sum.Steps > 0 {
		sum.AllocsPerStep = float64(ms1.Mallocs-ms0.Mallocs) / float64(sum.Steps)
	}
	sum.End = m.t
	if sum.Wall > 0 {
		sum.RealTimeFactor = (sum.End - sum.Start) / sum.Wall.Seconds()
	}
	if sum.Steps == 0 || !s.Variable {
		sum.MinStep, sum.MaxStep = s.Step, s.Step
	}
	sum.Latency = lat.stats()
	sum.Lateness = late.stats()
	if o.RealTime {
		sum.LatencyBins, sum.LatenessBins = lat.binsOf(), late.binsOf()
	}
	for _, u := range m.udp {
		sum.UDP = append(sum.UDP, u.stats())
	}
	sum.Checks = chk.results()
	sum.Final = append([]float64(nil), row...)
	for _, c := range m.cols {
		sum.Columns = append(sum.Columns, c.Name)
	}
	return sum, runErr
}

// pacer waits for the start of each real-time step: it sleeps while the
// wait is long enough for the sleep's own overshoot (learnt as a slowly
// decaying maximum of the overshoots seen: often ~1 ms, so at 1 kHz it
// never sleeps), then polls the clock for the rest.
type pacer struct {
	spin  time.Duration // poll at least this long (negative: never poll)
	slack time.Duration // expected overshoot of a sleep
}

func (p *pacer) waitUntil(t time.Time) {
	d := time.Until(t)
	if p.spin < 0 {
		if d > 0 {
			time.Sleep(d)
		}
		return
	}
	if sl := d - p.spin - p.slack; sl > 0 {
		t0 := time.Now()
		time.Sleep(sl)
		over := time.Since(t0) - sl
		p.slack -= p.slack / 256
		if over > p.slack {
			p.slack = over
		}
	}
	for time.Now().Before(t) {
	}
}
