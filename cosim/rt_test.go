package cosim

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"mbfmu/results"
)

// rtConfig is an allocation-free co-simulation: a free body (freeBody, a
// model file integrated by RK4) under PI velocity control.
const rtConfig = `<cosim name="rt">
  <settings end="10 s" step="1 ms"/>
  <model name="plant" path="body.xml"/>
  <signal name="ref" expr="1 + 0.5*sin(time)"/>
  <pid name="pid" kp="20" ki="5"/>
  <connect from="ref.y" to="pid.r"/>
  <connect from="plant.vx" to="pid.y"/>
  <connect from="pid.u" to="plant.F"/>
</cosim>`

// writeRTConfig writes rtConfig and its model into dir.
func writeRTConfig(t *testing.T, dir string) string {
	writeFile(t, dir, "body.xml", freeBody)
	return writeFile(t, dir, "rt.xml", rtConfig)
}

// garbageWriter drops the rows but allocates per row, as a careless
// results writer would.
type garbageWriter struct {
	size int
	keep []byte
}

func (w *garbageWriter) Header([]results.Column) error { return nil }
func (w *garbageWriter) Row([]float64) error {
	w.keep = make([]byte, w.size)
	return nil
}
func (w *garbageWriter) Close() error { return nil }

// A real-time run keeps the garbage collector out of its loop: a run of
// 2000 steps whose writer allocates 64 KiB per row (125 MiB in all) sees no
// collection, while the same run with KeepGC sees several; and without
// garbage from a writer the loop allocates nothing at all, so that no
// collection happens even with the collector on.
func TestRealTimeNoGC(t *testing.T) {
	dir := t.TempDir()
	p := writeRTConfig(t, dir)
	run := func(o RunOptions) *Summary {
		t.Helper()
		m := newMaster(t, p, Options{End: 2})
		o.RealTime, o.Speed = true, 1000 // 2 ms of wall time per simulated 2 s: paced, but quick
		sum, err := m.Run(o)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Steps != 2000 {
			t.Fatalf("%d steps", sum.Steps)
		}
		return sum
	}
	sum := run(RunOptions{Writer: &garbageWriter{size: 64 << 10}})
	if sum.GCCycles != 0 {
		t.Errorf("%d garbage collections in a real-time loop", sum.GCCycles)
	}
	if !strings.Contains(strings.Join(sum.RTSetup, ", "), "garbage collector off") {
		t.Errorf("setup %v", sum.RTSetup)
	}
	kept := run(RunOptions{Writer: &garbageWriter{size: 64 << 10}, KeepGC: true})
	if kept.GCCycles == 0 {
		t.Errorf("no garbage collection with the collector on and 125 MiB of garbage: the test cannot fail")
	}
	// Without the writer's garbage, even with the collector on, a run of
	// 2000 steps allocates nothing and triggers no collection. A collection
	// the previous run's garbage left pending is finished first: it is not
	// this run's.
	runtime.GC()
	clean := run(RunOptions{KeepGC: true})
	if clean.AllocsPerStep != 0 || clean.GCCycles != 0 {
		t.Errorf("%g allocations per step, %d garbage collections", clean.AllocsPerStep, clean.GCCycles)
	}
	// The settings are restored after the run.
	if debug := readGCPercent(); debug != 100 && os.Getenv("GOGC") == "" {
		t.Errorf("GOGC after the run: %d", debug)
	}
	t.Logf("GC cycles: %d with the collector off, %d on", sum.GCCycles, kept.GCCycles)
}

// readGCPercent returns the collector's setting (GOGC) without changing it.
func readGCPercent() int {
	old := debug.SetGCPercent(100)
	debug.SetGCPercent(old)
	return old
}

// The latency histogram counts every step in log-spaced bins, and the
// summary prints it with the overrun count.
func TestLatencyHistogram(t *testing.T) {
	var h histogram
	for _, d := range []time.Duration{500, 999, 1000, 1500, 2500, 7 * time.Microsecond, 3 * time.Millisecond, 2 * time.Second} {
		h.add(d)
	}
	want := map[time.Duration]int64{0: 2, time.Microsecond: 2, 2 * time.Microsecond: 1, 5 * time.Microsecond: 1, 2 * time.Millisecond: 1, time.Second: 1}
	var total int64
	for _, b := range h.binsOf() {
		if b.Count != want[b.Lo] {
			t.Errorf("bin %v–%v: %d, want %d", b.Lo, b.Hi, b.Count, want[b.Lo])
		}
		if b.Hi != 0 && b.Hi <= b.Lo {
			t.Errorf("bin %v–%v", b.Lo, b.Hi)
		}
		total += b.Count
	}
	if total != 8 {
		t.Errorf("%d counted", total)
	}
	s := &Summary{Steps: 8, Overruns: 1, RealTime: true, LatencyBins: h.binsOf(), LatenessBins: h.binsOf()}
	out := s.Histogram()
	for _, w := range []string{"latency histogram (8 steps, 1 overruns)", "< 1 µs", "1 µs – 2 µs", "2 ms – 5 ms", "≥ 1.000 s"} {
		if !strings.Contains(out, w) {
			t.Errorf("histogram lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "50 ms") { // empty bins inside the range are printed, none beyond
		t.Logf("%s", out)
	}
}
