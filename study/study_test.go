package study

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/results"
)

// prepareSrc writes a study file into a temporary folder (paths in it
// are made absolute from the package folder) and prepares it.
func prepareSrc(t testing.TB, src string) (*Prepared, string) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"oscillator.xml", "driven.xml"} {
		abs, _ := filepath.Abs(filepath.Join("testdata", name))
		src = strings.ReplaceAll(src, `"testdata/`+name+`"`, `"`+abs+`"`)
	}
	path := filepath.Join(dir, "study.xml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(st)
	if err != nil {
		t.Fatal(err)
	}
	return p, dir
}

func execute(t testing.TB, p *Prepared, o Options) *Result {
	t.Helper()
	res, err := p.Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOscillatorSweep runs a full factorial on the spring–mass model and
// checks every run against x(t) = x0 cos(√k t): the quarter period
// π/(2√k) and the peak speed x0 √k. x0 places the body (a fixed
// parameter: each run compiles the model), k is tunable.
func TestOscillatorSweep(t *testing.T) {
	p, dir := prepareSrc(t, goodStudy)
	res := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "store")})
	if len(res.Runs) != 8 || res.Failed() != 0 {
		t.Fatalf("%d runs, %d failed", len(res.Runs), res.Failed())
	}
	for i, r := range res.Runs {
		if r.Index != i+1 {
			t.Errorf("run %d has index %d", i+1, r.Index)
		}
		k, x0 := r.X[0], r.X[1]
		w := math.Sqrt(k)
		near(t, "quarter period", r.R[0], math.Pi/(2*w), 1e-4*math.Pi/(2*w))
		near(t, "peak speed", r.R[1], x0*w, 1e-4*x0*w)
		near(t, "ω", r.R[2], w, 1e-4*w)
	}
	// the first factor varies slowest
	if res.Runs[1].X[0] != 50 || res.Runs[1].X[1] != 0.1 {
		t.Errorf("run 2 = %v, want k = 50, x0 = 0.1", res.Runs[1].X)
	}
	if res.Effects == nil || len(res.Effects) != 2 {
		t.Fatalf("main effects: %+v", res.Effects)
	}
	// main effect of x0 on the peak speed: the mean of x0 √k over the k
	// levels, at each x0
	var mw float64
	for _, k := range []float64{50, 100, 150, 200} {
		mw += math.Sqrt(k) / 4
	}
	e := res.Effects[1]
	near(t, "main effect of x0 on vmax (level 0.05)", e.Mean[0][1], 0.05*mw, 1e-4)
	near(t, "main effect of x0 on vmax (level 0.1)", e.Mean[1][1], 0.1*mw, 1e-4)
}

// TestTunableAndCompiledAgree checks that a run reached through a
// tunable parameter (one compiled model, State.SetParam) and through a
// recompile with the value give the same responses.
func TestTunableAndCompiledAgree(t *testing.T) {
	pk, dir := prepareSrc(t, strings.NewReplacer(`<factor name="x0" param="x0" values="50 100 mm"/>`, "", `vmax/x0`, `vmax/0.1`).Replace(goodStudy))
	if !pk.tgt.(*modelTarget).tunable {
		t.Fatal("k should be tunable")
	}
	rk := execute(t, pk, Options{Jobs: 1, Store: filepath.Join(dir, "a")})
	px, dir2 := prepareSrc(t, strings.Replace(goodStudy, `values="50 100 mm"`, `values="100 mm"`, 1))
	if px.tgt.(*modelTarget).tunable {
		t.Fatal("x0 is fixed")
	}
	rx := execute(t, px, Options{Jobs: 1, Store: filepath.Join(dir2, "b")})
	for i := range rk.Runs {
		for j := range rk.Runs[i].R {
			a, b := rk.Runs[i].R[j], rx.Runs[i].R[j]
			if math.Abs(a-b) > 1e-12*math.Abs(a) {
				t.Errorf("run %d response %d: tunable %.17g, compiled %.17g", i+1, j, a, b)
			}
		}
	}
}

// TestSameRowsWhateverTheJobs runs one Latin hypercube on 1 and 3
// workers and compares every factor and response bit for bit.
func TestSameRowsWhateverTheJobs(t *testing.T) {
	src := strings.Replace(goodStudy, `<design kind="full-factorial"/>`, `<design kind="latin-hypercube" runs="12" seed="5"/>`, 1)
	src = strings.Replace(src, `values="50 100 mm"`, `min="50 mm" max="100 mm"`, 1)
	src = strings.Replace(src, `levels="4"`, ``, 1)
	p, dir := prepareSrc(t, src)
	r1 := execute(t, p, Options{Jobs: 1, Store: filepath.Join(dir, "s1")})
	r3 := execute(t, p, Options{Jobs: 3, Store: filepath.Join(dir, "s3")})
	if len(r1.Runs) != 12 || len(r3.Runs) != 12 {
		t.Fatalf("%d and %d runs", len(r1.Runs), len(r3.Runs))
	}
	for i := range r1.Runs {
		a, b := r1.Runs[i], r3.Runs[i]
		if a.ID != b.ID {
			t.Errorf("run %d: ids %s and %s", i+1, a.ID, b.ID)
		}
		for j := range a.R {
			if math.Float64bits(a.R[j]) != math.Float64bits(b.R[j]) {
				t.Errorf("run %d response %d: %v with 1 job, %v with 3", i+1, j, a.R[j], b.R[j])
			}
		}
	}
	if r1.Regression == nil || r1.Regression.R2[1] < 0.9 {
		t.Errorf("regression of vmax on (k, x0): %+v", r1.Regression)
	}
}

// TestResume interrupts a study after a few runs, runs it again and
// checks that only the missing runs are simulated and that the outputs
// equal those of an uninterrupted study.
func TestResume(t *testing.T) {
	p, dir := prepareSrc(t, goodStudy)
	store := filepath.Join(dir, "store")
	ctx, cancel := context.WithCancel(context.Background())
	o := Options{Jobs: 1, Store: store, Progress: func(pr Progress) {
		if pr.Done >= 3 {
			cancel()
		}
	}}
	first, err := p.Execute(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Interrupted || len(first.Runs) < 3 || len(first.Runs) >= 8 {
		t.Fatalf("interrupted %v after %d runs", first.Interrupted, len(first.Runs))
	}
	done := len(first.Runs)
	second := execute(t, p, Options{Jobs: 2, Store: store})
	if second.Simulated != 8-done || len(second.Runs) != 8 {
		t.Errorf("second pass simulated %d runs of 8 (%d were done)", second.Simulated, done)
	}
	fresh := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "fresh")})
	var a, b strings.Builder
	if err := second.WriteCSV(&a); err != nil {
		t.Fatal(err)
	}
	if err := fresh.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if stripWall(a.String()) != stripWall(b.String()) {
		t.Errorf("resumed study differs from a fresh one:\n%s\n%s", a.String(), b.String())
	}
	third := execute(t, p, Options{Jobs: 2, Store: store})
	if third.Simulated != 0 {
		t.Errorf("a finished study ran %d runs again", third.Simulated)
	}
}

// stripWall removes the wall-time column (the 3rd from the end) of a runs
// CSV.
func stripWall(s string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		f := strings.Split(line, ",")
		if len(f) >= 3 {
			f = append(f[:len(f)-2:len(f)-2], f[len(f)-1])
		}
		out = append(out, strings.Join(f, ","))
	}
	return strings.Join(out, "\n")
}

// TestKeepResults checks the kept results of a run against its responses.
func TestKeepResults(t *testing.T) {
	p, dir := prepareSrc(t, goodStudy)
	store := filepath.Join(dir, "store")
	res := execute(t, p, Options{Jobs: 2, Store: store, KeepResults: true})
	r := res.Runs[5]
	f, err := os.Open(filepath.Join(store, "results", r.ID+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := results.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	vx, ok := tab.Col("m.vx")
	if !ok {
		t.Fatal("no m.vx column")
	}
	m := 0.0
	for _, v := range vx {
		m = math.Max(m, math.Abs(v))
	}
	if m != r.R[1] {
		t.Errorf("max |m.vx| from the kept results %g, response %g", m, r.R[1])
	}
}

const drivenStudy = `<study name="driven">
  <model path="testdata/driven.xml"/>
  <factor name="p" param="p" min="-3" max="3" nominal="-2"/>
  <factor name="q" param="q" min="-3" max="3" nominal="2.5"/>
  <response name="pa" kind="final" signal="a.x"/>
  <response name="qb" kind="final" signal="b.x"/>
  <response name="f" expr="(pa - 1)^2 + (qb - 2)^2"/>
  <response name="sum" expr="pa + qb"/>
  <objective response="f" goal="minimize"/>
  <constraint response="sum" max="2"/>
  <optimize max-runs="300" tol="1e-9"/>
  <sensitivity step="1e-4"/>
</study>`

// TestOptimizeConstrained minimises (p−1)² + (q−2)² with p + q ≤ 2 in
// [−3, 3]²: the optimum is (0.5, 1.5), f = 0.5, and there the gradient of
// f is −λ times that of the constraint, λ = 1 (KKT).
func TestOptimizeConstrained(t *testing.T) {
	p, dir := prepareSrc(t, drivenStudy)
	res := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "store")})
	o := res.Optimum
	if o == nil || o.Best == nil {
		t.Fatalf("no optimum: %+v", o)
	}
	b := o.Best
	near(t, "p*", b.X[0], 0.5, 2e-3)
	near(t, "q*", b.X[1], 1.5, 2e-3)
	near(t, "f*", b.R[2], 0.5, 2e-3)
	if b.R[3] > 2*(1+feasTol) {
		t.Errorf("optimum violates p + q ≤ 2: %g", b.R[3])
	}
	if res.Best != b {
		t.Errorf("best run %d is not the optimum %d", res.Best.Index, b.Index)
	}
	s := res.Sensitivities
	if s == nil || s.At != b {
		t.Fatal("no sensitivities at the optimum")
	}
	near(t, "∂f/∂p at the optimum", s.D[0][2], 2*(b.X[0]-1), 1e-3)
	near(t, "∂f/∂q at the optimum", s.D[1][2], 2*(b.X[1]-2), 1e-3)
	// every evaluation is a run of the study, in order
	for i, e := range o.Evals {
		if e.Run == nil || e.Run.Phase != "optimize" {
			t.Fatalf("evaluation %d is not an optimisation run", i+1)
		}
	}
	if n := len(res.Runs); n > 300+5 {
		t.Errorf("%d runs for a budget of 300", n)
	}
}

// TestOptimizeBound maximises −(p − 5)² over p in [−3, 3] (the optimum is
// on the bound p = 3) and checks that no run left the bounds.
func TestOptimizeBound(t *testing.T) {
	src := strings.NewReplacer(`<constraint response="sum" max="2"/>`, ``,
		`expr="(pa - 1)^2 + (qb - 2)^2"`, `expr="-(pa - 5)^2 - (qb - 1)^2"`,
		`goal="minimize"`, `goal="maximize"`, `<sensitivity step="1e-4"/>`, ``).Replace(drivenStudy)
	p, dir := prepareSrc(t, src)
	res := execute(t, p, Options{Jobs: 1, Store: filepath.Join(dir, "store")})
	b := res.Optimum.Best
	near(t, "p* on the bound", b.X[0], 3, 1e-3)
	near(t, "q*", b.X[1], 1, 1e-3)
	for _, r := range res.Runs {
		if r.X[0] < -3 || r.X[0] > 3 || r.X[1] < -3 || r.X[1] > 3 {
			t.Fatalf("run %d outside the bounds: %v", r.Index, r.X)
		}
	}
}

// TestFailedRunsRecorded gives the oscillator a negative stiffness for
// some runs... no: a model that cannot assemble. The driven model with
// an impossible constraint is not expressible, so use a response that
// reads a failing expression: a run whose Init fails (a driver whose value
// is NaN for q < 0) is recorded as failed with its reason and the study
// goes on.
func TestFailedRunsRecorded(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.xml")
	data, _ := os.ReadFile("testdata/driven.xml")
	os.WriteFile(model, []byte(strings.Replace(string(data), `value="q"`, `value="sqrt(q)"`, 1)), 0o644)
	src := `<study name="f">
  <model path="` + model + `"/>
  <factor name="q" param="q" values="1 -1 4"/>
  <design kind="full-factorial"/>
  <response name="qb" kind="final" signal="b.x"/>
</study>`
	path := filepath.Join(dir, "s.xml")
	os.WriteFile(path, []byte(src), 0o644)
	st, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(st)
	if err != nil {
		t.Fatal(err)
	}
	res := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "store")})
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	if !res.Runs[0].OK() || !res.Runs[2].OK() || res.Runs[1].OK() {
		t.Fatalf("statuses %s %s %s", res.Runs[0].Status, res.Runs[1].Status, res.Runs[2].Status)
	}
	if res.Runs[1].Reason == "" || !math.IsNaN(res.Runs[1].R[0]) {
		t.Errorf("failed run: reason %q, response %g", res.Runs[1].Reason, res.Runs[1].R[0])
	}
	near(t, "√4", res.Runs[2].R[0], 2, 1e-9)
	// a failed run is kept in the store and not run again (unless asked)
	again := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "store")})
	if again.Simulated != 0 {
		t.Errorf("ran %d runs again", again.Simulated)
	}
	retry := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "store"), RetryFailed: true})
	if retry.Simulated != 1 {
		t.Errorf("--retry-failed ran %d runs, want 1", retry.Simulated)
	}
}

// TestRunIDsIgnorePaths checks that a run's identity depends on the
// files' contents, not on the path they are reached by (a Slurm task
// gets absolute paths, the user may give relative ones).
func TestRunIDsIgnorePaths(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile("testdata/oscillator.xml")
	os.WriteFile(filepath.Join(dir, "oscillator.xml"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "s.xml"), []byte(goodStudy), 0o644)
	os.Mkdir(filepath.Join(dir, "testdata"), 0o755)
	os.WriteFile(filepath.Join(dir, "testdata", "oscillator.xml"), data, 0o644)
	ids := func(path string) []string {
		st, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(st)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, pt := range p.designPoints() {
			out = append(out, p.RunID(pt.x))
		}
		return out
	}
	abs := ids(filepath.Join(dir, "s.xml"))
	t.Chdir(dir)
	rel := ids("s.xml")
	for i := range abs {
		if abs[i] != rel[i] {
			t.Fatalf("run %d: id %s by an absolute path, %s by a relative one", i+1, abs[i], rel[i])
		}
	}
}

// TestOneAtATime checks the runs and main effects of a one-at-a-time
// design: each factor's effect is read on its own runs and the nominal
// one (vmax = x0 √k with the other factor nominal: k = 100 N/m from the
// model, x0 = 0.1 m).
func TestOneAtATime(t *testing.T) {
	p, dir := prepareSrc(t, strings.Replace(goodStudy, `kind="full-factorial"`, `kind="one-at-a-time"`, 1))
	res := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "store")})
	if len(res.Runs) != 5 || res.Runs[0].Label != "nominal" || res.Runs[0].X[0] != 100 || res.Runs[0].X[1] != 0.1 {
		t.Fatalf("runs: %d, first %+v", len(res.Runs), res.Runs[0])
	}
	for _, e := range res.Effects {
		f := res.Factors[e.Factor]
		for l, v := range e.Levels {
			k, x0 := 100.0, 0.1
			if f.Name == "k" {
				k = v
			} else {
				x0 = v
			}
			near(t, "vmax at "+f.Name+" level", e.Mean[l][1], x0*math.Sqrt(k), 1e-4*x0*math.Sqrt(k))
		}
		if want := map[string]int{"k": 4, "x0": 2}[f.Name]; len(e.Levels) != want {
			t.Errorf("factor %s: %d levels in its main effect, want %d", f.Name, len(e.Levels), want)
		}
	}
}

// TestCases runs a list of cases: values with units, labels, a factor
// left out takes its nominal value.
func TestCases(t *testing.T) {
	src := strings.Replace(goodStudy, `<design kind="full-factorial"/>`, `<design kind="cases">
    <case label="soft" k="0.05 kN/m"/>
    <case label="stiff" k="400" x0="20 mm"/>
  </design>`, 1)
	p, dir := prepareSrc(t, src)
	res := execute(t, p, Options{Jobs: 1, Store: filepath.Join(dir, "store")})
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	a, b := res.Runs[0], res.Runs[1]
	if a.Label != "soft" || a.X[0] != 50 || a.X[1] != 0.1 || b.Label != "stiff" || b.X[0] != 400 || b.X[1] != 0.02 {
		t.Errorf("cases %q %v, %q %v", a.Label, a.X, b.Label, b.X)
	}
	near(t, "vmax of the stiff case", b.R[1], 0.02*20, 1e-4*0.4)
}
