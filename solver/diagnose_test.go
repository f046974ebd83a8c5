package solver

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"mbfmu/spec"
	"mbfmu/xml"
)

// Tests of the range checks (limits.go) and of the diagnosis of
// non-finite values (diagnose.go): every message must name the element,
// the attribute and its line in the model file.

// pendulumXML is IFToMM A01 (examples/pendulum) with extra lines inserted
// after the revolute, which is on line 6; an inserted element is on line 7.
func pendulumXML(settings, mass, extra string) string {
	if !strings.Contains(settings, "end=") {
		settings += ` end="1 s"`
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<model name="p">
  <settings step="1 ms" ` + settings + `/>
  <ground><marker name="O"/></ground>
  <body name="bob" mass="` + mass + `" inertia="1e-10" at="1 0"><marker name="pin" at="-1 0"/></body>
  <revolute name="pivot" i="ground.O" j="bob.pin"/>
  ` + extra + `
  <output name="y" channel="bob.y"/>
</model>
`
}

// compileText parses and compiles a model held in a string (file name
// m.xml).
func compileText(t *testing.T, text string, over map[string]float64) (*Model, error) {
	t.Helper()
	ms, err := xml.Parse([]byte(text), "m.xml")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Compile(ms, CompileOptions{Params: over})
}

// wantProblem checks that err holds a problem at m.xml:line in field
// whose message contains every one of subs.
func wantProblem(t *testing.T, err error, line int, field string, subs ...string) *spec.Error {
	t.Helper()
	var el spec.ErrorList
	var se *StepError
	var e *spec.Error
	var full string
	switch {
	case errors.As(err, &el) && len(el) > 0:
		e = el[0]
		full = e.Error()
	case errors.As(err, &se) && se.Source != nil:
		e = se.Source
		full = se.Error()
		if !strings.Contains(full, e.Error()) {
			t.Errorf("step error %q does not begin with its source", full)
		}
	default:
		t.Fatalf("error %v: want a problem at m.xml:%d, %s", err, line, field)
	}
	if e.Pos.File != "m.xml" || e.Pos.Line != line || e.Field != field {
		t.Errorf("problem at %s, field %q (%s); want m.xml:%d, field %q", e.Pos, e.Field, e.Msg, line, field)
	}
	for _, s := range subs {
		if !strings.Contains(full, s) {
			t.Errorf("message %q lacks %q", full, s)
		}
	}
	return e
}

func initText(t *testing.T, text string, over map[string]float64) (*Model, *State, error) {
	t.Helper()
	m, err := compileText(t, text, over)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	s := m.NewState()
	return m, s, m.Init(s)
}

// The four cases of the issue.

func TestForceInfiniteAtStartNamed(t *testing.T) {
	_, _, err := initText(t, pendulumXML("", "1", `<force name="kick" i="bob" fy="1/(time-time)"/>`), nil)
	wantProblem(t, err, 7, "fy", `force "kick"`, "1/(time-time) is +Inf at t = 0 s", "(time = 0 s)")
}

func TestConstantPartNotFiniteRefused(t *testing.T) {
	_, err := compileText(t, pendulumXML("", "1", `<force name="kick" i="bob" fx="10^10^10*time"/>`), nil)
	wantProblem(t, err, 7, "fx", "10^10^10*time", "(1/0)*time")
	// a constant that folds to infinity
	_, err = compileText(t, pendulumXML("", "1", `<force name="kick" i="bob" fx="1e300*1e300"/>`), nil)
	wantProblem(t, err, 7, "fx", "not finite")
}

func TestEndBeyondTimeGridRefused(t *testing.T) {
	_, err := compileText(t, pendulumXML(`end="1e20 s"`, "1", ""), nil)
	wantProblem(t, err, 3, "end", "1e+23 steps", "|t|/step = 1e9")
	// the limit: |t|/step = 1e9 is accepted, 1.01e9 is not; more than 1e9
	// result rows are refused; adaptive runs have no fixed grid
	if f, msg := TimeGridProblem(0, 1e6, 1e-3, 1e-3, false); msg != "" {
		t.Errorf("1e9 steps refused: %s: %s", f, msg)
	}
	if f, _ := TimeGridProblem(0, 1.01e6, 1e-3, 1, false); f != "end" {
		t.Errorf("1.01e9 steps: field %q, want end", f)
	}
	if f, _ := TimeGridProblem(-2e6, 1, 1e-3, 1, false); f != "start" {
		t.Errorf("start -2e6 s: field %q, want start", f)
	}
	if f, _ := TimeGridProblem(0, 1e20, 1e-3, 1e12, true); f != "" {
		t.Errorf("adaptive run to 1e20 s with 1e10 rows refused (%s)", f)
	}
	if f, _ := TimeGridProblem(0, 10, 1e-3, 1e-9, false); f != "output-step" {
		t.Errorf("1e10 rows: field %q, want output-step", f)
	}
}

// The reason for the grid limit: at |t|/h = 1e9 a time computed by adding
// h up in a master (t += h, a few roundings of ulp(t)) still falls within
// gridTol of its grid point, and the grid index round-trips exactly.
func TestTimeGridHoldsUpToLimit(t *testing.T) {
	const h = 1e-3
	k := int64(MaxGridSteps)
	g := gridTime(0, h, k)
	for _, d := range []float64{-4, -1, 1, 4} {
		tt := g + d*math.Abs(math.Nextafter(g, math.Inf(1))-g) // a few ulp off
		if kk, on := gridIndex(0, h, tt); kk != k || !on {
			t.Errorf("t = grid point %d %+g ulp: index %d on=%v", k, d, kk, on)
		}
	}
	if r := math.Nextafter(g, math.Inf(1)) - g; r > 0.25*gridTol*h {
		t.Errorf("ulp at |t|/h = 1e9 is %g, more than a quarter of the grid tolerance %g", r, gridTol*h)
	}
}

func TestMassBeyondRangeRefused(t *testing.T) {
	_, err := compileText(t, pendulumXML("", "1e300", ""), nil)
	wantProblem(t, err, 5, "mass", "1e+300", "beyond ±1.3e+154")
	var el spec.ErrorList
	errors.As(err, &el)
	if len(el) != 1 {
		t.Errorf("%d problems, want 1 (the mass): %v", len(el), el)
	}
	// √(largest double) itself is accepted
	if _, err := compileText(t, pendulumXML("", "1.3e154", ""), nil); err != nil {
		t.Errorf("mass 1.3e154: %v", err)
	}
}

// A constrained body's mass out of scale: the pendulum's x row of the
// revolute has Jacobian [1 0 0] on the bob at θ = 0, so its pivot after
// the mass is −1/m against the tolerance 1e-14·m: the matrix can be
// factored for m below 1e7 and not above.
func TestMassOutOfScaleNamedAtAssembly(t *testing.T) {
	if _, _, err := initText(t, pendulumXML("", "0.9e7", ""), nil); err != nil {
		t.Errorf("mass 0.9e7: %v", err)
	}
	_, _, err := initText(t, pendulumXML("", "1.1e7", ""), nil)
	wantProblem(t, err, 5, "mass", `body "bob"`, "too badly scaled", `revolute "pivot"`, "1e7")
	// an inertia far below everything else
	text := strings.Replace(pendulumXML("", "1", ""), `inertia="1e-10"`, `inertia="1e-30"`, 1)
	text = strings.Replace(text, `<revolute name="pivot" i="ground.O" j="bob.pin"/>`, "", 1)
	_, _, err = initText(t, text, nil)
	wantProblem(t, err, 5, "inertia", `body "bob"`, "inertia 1e-30", "bob.angle", "1e+30 times smaller")
}

// Run-time failures.

func TestStepFailureNamesForce(t *testing.T) {
	for _, integ := range []string{"genalpha", "rk4", "bdf2"} {
		m, s, err := initText(t, pendulumXML(`integrator="`+integ+`"`, "1", `<force name="kick" i="bob" fy="sqrt(0.5-time)"/>`), nil)
		if err != nil {
			t.Fatal(err)
		}
		err = m.AdvanceTo(s, 1)
		wantProblem(t, err, 7, "fy", `force "kick"`, "sqrt(0.5-time) is NaN at t = 0.50", "step failed at t=0.5")
		var se *StepError
		errors.As(err, &se)
		if se.LastTime < 0.5 || se.LastTime > 0.5+1e-3 {
			t.Errorf("%s: last time %g, want the step after 0.5 s", integ, se.LastTime)
		}
	}
}

// A force finite along the whole motion but undefined where a step's
// predictor overshoots (a barrier 1/y that stops a falling body short of
// y = 0, with log y defined for y > 0 only): the step whose predictor
// lands below y = 0 is retried in halves and the run goes on (found by a
// review: failing such steps at once stopped this run at 0.45 s).
func TestPredictorOvershootRetried(t *testing.T) {
	m, s, err := initText(t, `<?xml version="1.0" encoding="UTF-8"?>
<model name="w">
  <settings end="1 s" step="6 ms" integrator="genalpha" rho-inf="0.8" gravity="0 -9.81"/>
  <ground><marker name="O"/></ground>
  <body name="bob" mass="1 kg" inertia="1 kg*m^2" at="0 1"><marker name="c"/></body>
  <force name="wall" i="bob.c" fy="5*max(0, 1/dy(bob.c) - 20) + 0*log(dy(bob.c))"/>
</model>`, nil)
	if err != nil {
		t.Fatal(err)
	}
	ymin := math.Inf(1)
	for k := 1; k <= 166; k++ { // (on the step grid)
		if err := m.AdvanceTo(s, float64(k)*0.006); err != nil {
			t.Fatalf("the run stopped: %v", err)
		}
		ymin = math.Min(ymin, s.Q()[1])
	}
	if st := s.Stats(); st.Rejected == 0 {
		t.Errorf("no step was retried: the case no longer overshoots (%+v)", st)
	}
	if !(ymin > 0 && ymin < 0.05) {
		t.Errorf("lowest y %g: want the body turned back by the barrier, 0 < y < 0.05", ymin)
	}
}

func TestDriverValueNamed(t *testing.T) {
	// at the start: the value, and a value whose rate is infinite
	_, _, err := initText(t, pendulumXML("", "1", `<driver name="turn" joint="pivot" value="1/(time-time)"/>`), nil)
	wantProblem(t, err, 7, "value", `driver "turn"`, "+Inf")
	_, _, err = initText(t, pendulumXML("", "1", `<driver name="turn" joint="pivot" value="sqrt(time)"/>`), nil)
	wantProblem(t, err, 7, "value", `driver "turn"`, "rate")
	// during the run
	m, s, err := initText(t, pendulumXML("", "1", `<driver name="turn" joint="pivot" value="1/(0.3-time)"/>`), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, m.AdvanceTo(s, 1), 7, "value", `driver "turn"`, "at t = 0.3 s")
}

func TestSpringParameterNamed(t *testing.T) {
	text := strings.Replace(pendulumXML("", "1", `<spring name="sp" i="ground.O" j="bob" k="k0*k0" length="0.5"/>`),
		"<ground>", `<parameter name="k0" value="10"/><ground>`, 1)
	if _, _, err := initText(t, text, nil); err != nil {
		t.Fatal(err)
	}
	// the override (as --param k0=1e200) makes k infinite
	_, _, err := initText(t, text, map[string]float64{"k0": 1e200})
	wantProblem(t, err, 7, "k", `spring "sp"`, "k0*k0 is +Inf", "k0 = 1e+200 (parameter, m.xml:4)")
	// a stiffness so large the iteration matrix is singular at a step
	m, s, err := initText(t, pendulumXML("", "1", `<spring name="sp" i="ground.O" j="bob" k="1e100" length="0.5"/>`), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, m.AdvanceTo(s, 0.01), 7, "", `spring "sp"`, "iteration matrix")
}

func TestInputNamed(t *testing.T) {
	text := strings.Replace(pendulumXML("", "1", `<force name="push" i="bob" fx="F*10"/>`),
		"<ground>", `<input name="F" unit="N" start="1e308"/><ground>`, 1)
	_, _, err := initText(t, text, nil)
	wantProblem(t, err, 7, "fx", `force "push"`, "F*10 is +Inf", "F = 1e+308 N (input, m.xml:4)")
	// an input set to NaN between steps (by a master) is named itself
	m, s, err := initText(t, strings.Replace(text, `start="1e308"`, `start="1"`, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.SetInput(0, math.Inf(1))
	wantProblem(t, m.AdvanceTo(s, 0.1), 7, "fx", `force "push"`, "F = +Inf N (input, m.xml:4)")
}

func TestOutputNamedByCheckValues(t *testing.T) {
	text := strings.Replace(pendulumXML("", "1", ""), `<output name="y" channel="bob.y"/>`, `<output name="r" expr="1/time"/>`, 1)
	m, s, err := initText(t, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, m.CheckValues(s), 8, "expr", `output "r"`, "1/time is +Inf at t = 0 s")
}

// check evaluates every expression: a contact's stiffness that is
// infinite is reported while the contact is still open.
func TestContactParameterNamed(t *testing.T) {
	data, err := os.ReadFile("../examples/ball-on-plate/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `k="1e7"`, `k="1e7/(time-time)"`, 1)
	line := 1 + strings.Count(text[:strings.Index(text, `k="1e7/(time-time)"`)], "\n")
	m, s, err := initText(t, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, m.CheckValues(s), line, "k", `contact "impact"`, "+Inf")
}

func TestSpatialNamed(t *testing.T) {
	data, err := os.ReadFile("../examples/heavy-top/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	base := string(data)
	anchor := `<spherical name="pivot" i="ground.O" j="top.pin"/>`
	line := 2 + strings.Count(base[:strings.Index(base, anchor)], "\n")
	text := strings.Replace(base, anchor, anchor+"\n  "+`<force name="kick" i="top.cm" fz="1/(time-0.01)"/>`, 1)
	m, s, err := initText(t, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantProblem(t, m.AdvanceTo(s, 0.02), line, "fz", `force "kick"`, "at t = 0.01 s")
	bodyLine := 1 + strings.Count(base[:strings.Index(base, `mass="15 kg"`)], "\n")
	_, _, err = initText(t, strings.Replace(base, `mass="15 kg"`, `mass="1e100"`, 1), nil)
	wantProblem(t, err, bodyLine, "mass", `body "top"`, "too badly scaled")
}

// No false alarms: every example assembles and CheckValues finds nothing,
// and a run's numbers do not depend on the diagnosis being there (it
// runs only on failure; compared with a run that never calls it).
func TestExamplesPassCheckValues(t *testing.T) {
	dirs, err := os.ReadDir("../examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		ms, err := xml.LoadFile("../examples/" + d.Name() + "/model.xml")
		if err != nil {
			continue
		}
		m, err := Compile(ms, CompileOptions{})
		if err != nil {
			t.Errorf("%s: %v", d.Name(), err)
			continue
		}
		s := m.NewState()
		if err := m.Init(s); err != nil {
			t.Errorf("%s: %v", d.Name(), err)
			continue
		}
		before := append([]float64(nil), s.core...)
		if errs := m.CheckValues(s); len(errs) > 0 {
			t.Errorf("%s: %v", d.Name(), errs)
		}
		for i := range before {
			if math.Float64bits(before[i]) != math.Float64bits(s.core[i]) {
				t.Errorf("%s: CheckValues changed the state", d.Name())
				break
			}
		}
	}
}
