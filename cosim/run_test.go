package cosim

import (
	"math"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// modelCartpole returns the flagship configuration with the plant run as a
// model file (no FMU), ending at end.
func modelCartpole(t testing.TB) *Config {
	t.Helper()
	cfg, err := LoadConfig("../examples/cartpole/cosim.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cfg.Components {
		if e.Name == "plant" {
			e.Kind = "model"
			e.Attr["path"] = "model.xml"
		}
	}
	return cfg
}

// Real-time pacing: every step waits for its wall-clock start, so a run
// of 0.2 simulated seconds takes at least 0.2 s of wall time at speed 1
// (0.05 s at speed 4) and the statistics count every step. No assertion
// on how fast the machine is.
func TestRealTimePacing(t *testing.T) {
	for _, speed := range []float64{1, 4} {
		cfg := modelCartpole(t)
		m, err := New(cfg, Options{End: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := m.Run(RunOptions{RealTime: true, Speed: speed})
		m.Close()
		if err != nil {
			t.Fatal(err)
		}
		span := 0.2 / speed
		if sum.Steps != 200 || sum.Latency.N != 200 || sum.Lateness.N != 200 {
			t.Errorf("speed %g: %d steps, %d latency and %d lateness samples, want 200 each", speed, sum.Steps, sum.Latency.N, sum.Lateness.N)
		}
		// The last step starts no earlier than its schedule.
		if sum.Wall.Seconds() < span-1e-3-1e-9 {
			t.Errorf("speed %g: wall time %v, the schedule needs at least %g s", speed, sum.Wall, span-1e-3)
		}
		if sum.RealTimeFactor > speed*1.01 {
			t.Errorf("speed %g: real-time factor %g, pacing allows at most %g", speed, sum.RealTimeFactor, speed)
		}
		if sum.Overruns < 0 || sum.Overruns > sum.Steps {
			t.Errorf("overruns %d of %d steps", sum.Overruns, sum.Steps)
		}
		s := sum.Latency
		if !(s.P50 <= s.P99 && s.P99 <= s.Max && s.Mean <= s.Max && s.P50 > 0) {
			t.Errorf("latency statistics out of order: %+v", s)
		}
		if !strings.Contains(sum.String(), "real time: ") {
			t.Errorf("summary lacks the real-time line:\n%s", sum)
		}
	}
}

// The histogram's quantiles are within its resolution (1/64) of the exact
// order statistics.
func TestHistogramQuantiles(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var h histogram
	var xs []float64
	for i := 0; i < 20000; i++ {
		d := time.Duration(math.Exp(rng.NormFloat64()*1.5 + 9)) // ~8 µs, wide spread
		h.add(d)
		xs = append(xs, float64(d))
	}
	h.add(3) // exact small bucket
	xs = append(xs, 3)
	sort.Float64s(xs)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999} {
		exact := xs[int(math.Ceil(q*float64(len(xs))))-1]
		got := float64(h.quantile(q))
		if math.Abs(got-exact) > exact/64+1 {
			t.Errorf("q%g: histogram %g ns, exact %g ns", q, got, exact)
		}
	}
	st := h.stats()
	if st.Max != time.Duration(xs[len(xs)-1]) || st.N != int64(len(xs)) {
		t.Errorf("max %v n %d", st.Max, st.N)
	}
	for b := 0; b < len(h.counts); b++ {
		if got := bucketOf(uint64(bucketMid(b))); got != b && b < len(h.counts)-1 {
			t.Fatalf("bucket %d: middle %g falls in bucket %d", b, bucketMid(b), got)
		}
	}
}

// A variable macro step grows while the coupling signals are smooth and
// the run stays accurate: a free body pushed by F = sin(2πt) held over
// each step ends near the closed form x = (t − sin(ωt)/ω)/(m·ω).
func TestVariableStep(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "body.xml", freeBody)
	p := writeFile(t, dir, "var.xml", `<cosim name="var">
  <settings end="2 s" step="1 ms" variable="true" min-step="0.1 ms" max-step="20 ms" rel-tol="1e-4" abs-tol="1e-6"/>
  <model name="plant" path="body.xml"/>
  <signal name="f" expr="sin(2*pi*time)" unit="N"/>
  <connect from="f.y" to="plant.F"/>
</cosim>`)
	m := newMaster(t, p, Options{})
	sum, err := m.Run(RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !(sum.MaxStep > 4*sum.MinStep) || sum.Steps >= 2000 {
		t.Errorf("steps %d between %g and %g s: the step did not adapt", sum.Steps, sum.MinStep, sum.MaxStep)
	}
	if sum.End != 2 {
		t.Errorf("ended at %.17g s, want 2", sum.End)
	}
	x, _ := m.Value("plant.x")
	w := 2 * math.Pi
	want := (2 - math.Sin(w*2)/w) / (bodyMass * w)
	if math.Abs(x-want) > 1e-2*want { // the hold on F delays it by ~h/2
		t.Errorf("x(2) = %.6g m, closed form %.6g m (%d steps)", x, want, sum.Steps)
	}
	t.Logf("%d steps of %g … %g s, x error %.2g", sum.Steps, sum.MinStep, sum.MaxStep, (x-want)/want)
}

// One macro step of the master allocates nothing: with an in-process
// model or an mbfmu FMU as plant and the LQR, with PID, signal, limit and
// state-space blocks, and with a C FMU (FMI 2.0 and 3.0) through dlopen.
func TestAdvanceAllocatesNothing(t *testing.T) {
	dir := t.TempDir()
	fmuPath := packFMU(t, "../examples/cartpole/model.xml", dir)
	pi := piFMU(t, dir)
	writeFile(t, dir, "body.xml", freeBody)
	sc, _ := filepath.Abs("../examples/slider-crank-pid/model.xml")
	blocks := writeFile(t, dir, "blocks.xml", `<cosim name="blocks">
  <settings end="100 s" step="1 ms"/>
  <model name="plant" path="`+sc+`"/>
  <signal name="ref" expr="10 + 5*sin(time)"/>
  <pid name="pid" kp="5" ki="50" kd="0.01" tf="0.005" umin="-10" umax="10"/>
  <limit name="lim" min="-8" max="8" rise="500" fall="500"/>
  <state-space name="filt" a="-50" b="50" c="1" d="0"/>
  <connect from="ref.y" to="pid.r"/>
  <connect from="plant.omega" to="filt.u1"/>
  <connect from="filt.y1" to="pid.y"/>
  <connect from="pid.u" to="lim.u"/>
  <connect from="lim.y" to="plant.tau"/>
</cosim>`)
	cfmu := writeFile(t, dir, "cfmu.xml", `<cosim name="cfmu">
  <settings end="100 s" step="1 ms"/>
  <model name="plant" path="body.xml"/>
  <fmu name="pi" path="`+pi+`"><parameter name="kp" value="20"/></fmu>
  <signal name="ref" expr="1"/>
  <connect from="ref.y" to="pi.r"/>
  <connect from="plant.vx" to="pi.y"/>
  <connect from="pi.u" to="plant.F"/>
</cosim>`)
	pi3 := pi3Folder(t, dir, "pi3_unpacked", true)
	cfmu3 := writeFile(t, dir, "cfmu3.xml", `<cosim name="cfmu3">
  <settings end="100 s" step="1 ms"/>
  <model name="plant" path="body.xml"/>
  <fmu name="pi" path="`+pi3+`"><parameter name="kp" value="20"/></fmu>
  <signal name="ref" expr="1"/>
  <connect from="ref.y" to="pi.r"/>
  <connect from="plant.vx" to="pi.y"/>
  <connect from="pi.u" to="plant.F"/>
</cosim>`)
	cases := map[string]func() *Config{
		"model+lqr": func() *Config { return modelCartpole(t) },
		"fmu+lqr": func() *Config {
			return loadWithPaths(t, "../examples/cartpole/cosim.xml", map[string]string{"plant": fmuPath})
		},
		"blocks": func() *Config { c, _ := LoadConfig(blocks); return c },
		"cfmu":   func() *Config { c, _ := LoadConfig(cfmu); return c },
		// FMI 3.0 through dlopen: fmi3DoStep's results once came back
		// through two heap-allocated variables a step
		"cfmu3": func() *Config { c, _ := LoadConfig(cfmu3); return c },
	}
	for name, mk := range cases {
		cfg := mk()
		if cfg == nil {
			t.Fatalf("%s: no configuration", name)
		}
		m, err := New(cfg, Options{End: 100})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := m.Init(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := 0; i < 50; i++ {
			if err := m.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		var stepErr error
		a := testing.AllocsPerRun(500, func() {
			if err := m.Advance(); err != nil && stepErr == nil {
				stepErr = err
			}
		})
		if stepErr != nil {
			t.Errorf("%s: %v", name, stepErr)
		}
		if a != 0 {
			t.Errorf("%s: %g allocations per macro step, want 0", name, a)
		}
		m.Close()
	}
}

// Configuration errors are reported with the file and line, all at once.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "body.xml", freeBody)
	for _, c := range []struct{ src, want string }{
		{`<cosim><model name="p" path="body.xml"/><bogus/></cosim>`, "c.xml:1: unknown element <bogus>"},
		{`<cosim><model name="p" path="body.xml" colour="red"/></cosim>`, `unknown attribute "colour"`},
		{`<cosim><model name="p" path="body.xml"/><model name="p" path="body.xml"/></cosim>`, `component name "p" already used`},
		{`<cosim><settings end="1 kg"/><model name="p" path="body.xml"/></cosim>`, "end: unit"},
		{`<cosim><settings end="1" step="0.3"/><model name="p" path="body.xml"/></cosim>`, "not a whole number of steps"},
		{`<cosim><settings output-step="1.5 ms"/><model name="p" path="body.xml"/></cosim>`, "not a whole multiple"},
		{`<cosim><model name="p" path="nothere.xml"/></cosim>`, "nothere.xml"},
		{`<cosim><model name="p" path="body.xml"><parameter name="zz" value="1"/></model></cosim>`, `no parameter "zz"`},
		{`<cosim><model name="p" path="body.xml"><start name="G" value="1"/></model></cosim>`, `no input "G"`},
		{`<cosim><model name="p" path="body.xml"/><connect from="p.x" to="p.Q"/></cosim>`, `p has no input "Q" (inputs: F)`},
		{`<cosim><model name="p" path="body.xml"/><connect from="p.y" to="p.F"/></cosim>`, `p has no output "y" (outputs: x, vx)`},
		{`<cosim><model name="p" path="body.xml"/><connect from="q.x" to="p.F"/></cosim>`, `no component "q"`},
		{`<cosim><model name="p" path="body.xml"/><pid name="c" kp="1"/><connect from="p.vx" to="c.y"/></cosim>`, `c input "r" is not connected`},
		{`<cosim><model name="p" path="body.xml"/><pid name="c" kp="1" ki="-1"/></cosim>`, "mixed signs"},
		{`<cosim><pid name="a" kp="1"/><pid name="b" kp="1"/><connect from="a.u" to="b.r"/><connect from="b.u" to="a.r"/><connect from="a.u" to="a.y"/><connect from="b.u" to="b.y"/></cosim>`, "algebraic loop"},
		{`<cosim><model name="p" path="body.xml"/><lqr name="k" plant="p" q="1 1" r="1"/></cosim>`, "determine only"},
		{`<cosim><model name="p" path="body.xml"/><lqr name="k" plant="p" outputs="x vx" q="1 1 1" r="1"/></cosim>`, "give 2 diagonal entries"},
		{`<cosim><signal name="s" expr="sin(tim)"/></cosim>`, "expr:"},
		{`<cosim><udp name="u" inputs="a"/></cosim>`, "needs remote"},
		{`<cosim><udp name="u" remote="127.0.0.1:9" inputs="a" on-timeout="retry"/></cosim>`, `on-timeout "retry"`},
		{`<cosim><model name="p" path="body.xml"/><check signal="p.x" after="1"/></cosim>`, "<check> needs max-abs"},
		{`<cosim><settings variable="true"/><model name="p" path="body.xml"/><state-space name="f" a="-1" b="1" c="1" dt="1 ms"/><connect from="p.x" to="f.u1"/></cosim>`, "needs a fixed macro step"},
		{`<cosim><model name="p" path="body.xml"/><state-space name="f" a="-1" b="1" c="1" dt="2 ms"/><connect from="p.x" to="f.u1"/></cosim>`, "sample time 0.002 s but the macro step is 0.001 s"},
	} {
		cfg, err := ParseConfig([]byte(c.src), filepath.Join(dir, "c.xml"))
		if err == nil {
			var m *Master
			m, err = New(cfg, Options{})
			if err == nil {
				m.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n  error %v\n  want one containing %q", c.src, err, c.want)
		}
	}
}

// A <check> is evaluated on the recorded rows; a failing one fails the
// summary.
func TestChecks(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "body.xml", freeBody)
	p := writeFile(t, dir, "chk.xml", `<cosim name="chk">
  <settings end="1 s" step="1 ms" output-step="10 ms"/>
  <model name="plant" path="body.xml"/>
  <signal name="f" expr="2" unit="N"/>
  <connect from="f.y" to="plant.F"/>
  <check signal="plant.vx" after="0.5 s" until="0.5 s" near="0.5" tol="1e-12"/>
  <check signal="plant.vx" mean="true" near="0.5" tol="1e-12"/>
  <check signal="plant.x" max-abs="0.4"/>
</cosim>`)
	m := newMaster(t, p, Options{})
	sum, err := m.Run(RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// v = t (F/m = 1): v(0.5) = 0.5 exactly, mean over 0 … 1 s = 0.5;
	// x(1) = 0.5 > 0.4.
	c := sum.Checks
	if !c[0].Pass || c[0].Rows != 1 || !c[1].Pass || c[1].Rows != 101 || c[2].Pass || math.Abs(c[2].Worst-0.5) > 1e-12 {
		t.Errorf("checks:\n%s", sum)
	}
	if sum.Passed() {
		t.Error("summary passed with a failing check")
	}
}

// A check with minus applies to the difference of two signals (a tracking
// error), one with rms to the root mean square over its window.
func TestChecksMinusRMS(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "body.xml", freeBody)
	p := writeFile(t, dir, "chk.xml", `<cosim name="chk">
  <settings end="1 s" step="1 ms" output-step="10 ms"/>
  <model name="plant" path="body.xml"/>
  <signal name="f" expr="2" unit="N"/>
  <signal name="ramp" expr="time" unit="m/s"/>
  <connect from="f.y" to="plant.F"/>
  <check signal="plant.vx" rms="true" tol="0.5788"/>
  <check signal="plant.vx" rms="true" near="1" tol="0.3"/>
  <check signal="plant.vx" minus="ramp.y" max-abs="1e-12" description="v = t"/>
  <check signal="plant.x" minus="plant.vx" after="0.5 s" max-abs="0.4"/>
  <check signal="plant.x" minus="plant.vx" mean="true" near="-1.2" tol="1"/>
</cosim>`)
	m := newMaster(t, p, Options{})
	sum, err := m.Run(RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := sum.Checks
	// v = t on the rows t = k/100, k = 0 … 100: mean(v²) = 100·101·201/6 /
	// (10⁴·101) = 0.335, mean((v − 1)²) = mean(v²) − 2·mean(v) + 1 = 0.335.
	if want := math.Sqrt(0.335); math.Abs(c[0].Worst-want) > 1e-12 || !c[0].Pass || c[0].Rows != 101 {
		t.Errorf("rms of v: %.15g, want √0.335 = %.15g (%s)", c[0].Worst, want, c[0])
	}
	if want := math.Sqrt(0.335); math.Abs(c[1].Worst-want) > 1e-12 || c[1].Pass {
		t.Errorf("rms of v − 1: %.15g, want √0.335 = %.15g and a failure (%s)", c[1].Worst, want, c[1])
	}
	if !c[2].Pass || c[2].Worst > 1e-12 {
		t.Errorf("v − t: %s", c[2])
	}
	// x − v = t²/2 − t: largest |·| at t = 1 (0.5) on t ≥ 0.5; mean over
	// 0 … 1 s: 0.335/2 − 0.5 = −0.3325.
	if c[3].Pass || math.Abs(c[3].Worst-0.5) > 1e-12 || c[3].At != 1 {
		t.Errorf("x − v: %s", c[3])
	}
	if !c[4].Pass || math.Abs(c[4].Worst-math.Abs(-0.3325+1.2)) > 1e-12 {
		t.Errorf("mean(x − v): %s", c[4])
	}
	for i, want := range []string{
		"PASS  rms(plant.vx) ≤ 0.5788: 0.5788 over 101 rows",
		"FAIL  rms(plant.vx − 1) ≤ 0.3: 0.5788 over 101 rows",
		"PASS  |plant.vx − ramp.y| ≤ 1e-12",
		"FAIL  |plant.x − plant.vx| ≤ 0.4 for t ≥ 0.5 s: worst 0.5 at t = 1 s",
		"PASS  |mean(plant.x − plant.vx) − -1.2| ≤ 1",
	} {
		if got := c[i].String(); !strings.HasPrefix(got, want) {
			t.Errorf("check %d prints %q, want it to start with %q", i, got, want)
		}
	}
	for _, bad := range []struct{ src, want string }{
		{`<check signal="plant.x" minus="plant.nope" max-abs="1"/>`, `minus: no signal "plant.nope"`},
		{`<check signal="plant.x" mean="true" rms="true" max-abs="1"/>`, "mean or rms, not both"},
		{`<check signal="plant.x" rms="yes please" max-abs="1"/>`, `rms: "yes please" is not true or false`},
	} {
		cfg, err := ParseConfig([]byte(`<cosim><model name="plant" path="body.xml"/><signal name="f" expr="0"/><connect from="f.y" to="plant.F"/>`+bad.src+`</cosim>`), filepath.Join(dir, "c.xml"))
		if err == nil {
			var m *Master
			if m, err = New(cfg, Options{End: 0.01}); err == nil {
				_, err = m.Run(RunOptions{})
				m.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want %q", bad.src, err, bad.want)
		}
	}
}
