package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Values out of range and non-finite values (docs/model-format.md):
// check and pack refuse what they can see, naming the file, line, field
// and element; a run that fails names the source.

// pendulum writes examples/pendulum/model.xml to dir/name with edit
// applied (old → new pairs); the revolute is on line 13 of that file, so
// an element added after it is on line 14.
func pendulum(t *testing.T, dir, name string, edit ...string) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/pendulum/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(edit); i += 2 {
		if !strings.Contains(s, edit[i]) {
			t.Fatalf("pendulum has no %q", edit[i])
		}
		s = strings.Replace(s, edit[i], edit[i+1], 1)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const pivot = `<revolute name="pivot" i="ground.O" j="bob.pin"/>`

// The four cases of the issue: check and pack refuse each with its line,
// field and element; before, check said ok for three of them and the run
// failed naming nothing.
func TestCheckAndPackRefuseOutOfRange(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		edit []string
		want string
	}{
		{"fy.xml", []string{pivot, pivot + "\n  " + `<force name="kick" i="bob" fy="1/(time-time)"/>`},
			`fy.xml:14: fy: force "kick": 1/(time-time) is +Inf at t = 0 s`},
		{"fx.xml", []string{pivot, pivot + "\n  " + `<force name="kick" i="bob" fx="10^10^10*time"/>`},
			`fx.xml:14: fx: "10^10^10*time" has a constant part that is not finite (it folds to (1/0)*time)`},
		{"end.xml", []string{`end="10 s"`, `end="1e20 s"`},
			`end.xml:4: end: a run to t = 1e+20 s with step 0.001 s spans 1e+23 steps`},
		{"mass.xml", []string{`mass="1 kg"`, `mass="1e300"`},
			`mass.xml:9: mass: 1e+300 is beyond ±1.3e+154`},
		{"omega.xml", []string{`mass="1 kg"`, `mass="1 kg" omega="1e150"`},
			`omega.xml:9: omega: body "bob": 1e+150 is beyond ±1e+100`},
		{"mass7.xml", []string{`mass="1 kg"`, `mass="2e7"`},
			`mass7.xml:9: mass: body "bob": mass 2e+07 (the mass-matrix entry of bob.cm.x) makes the iteration matrix too badly scaled`},
		{"driver.xml", []string{pivot, pivot + "\n  " + `<driver name="turn" joint="pivot" value="sqrt(time)"/>`},
			`driver.xml:14: value: driver "turn": its value sqrt(time) is finite at t = 0 s but not its rate`},
		{"output.xml", []string{`channel="energy.total"`, `expr="1/time" unit="J"`},
			`output.xml:16: expr: output "energy": 1/time is +Inf at t = 0 s (time = 0 s)`},
	} {
		p := pendulum(t, dir, c.name, c.edit...)
		chk := run(t, dir, "check", p)
		if chk.code != 1 || !strings.Contains(chk.stdout, c.want) {
			t.Errorf("check %s: exit %d, stdout %q; want exit 1 and %q", c.name, chk.code, chk.stdout, c.want)
		}
		fmu := strings.TrimSuffix(c.name, ".xml") + ".fmu"
		pk := run(t, dir, "pack", p, "-o", fmu)
		if pk.code != 1 || !strings.Contains(pk.stdout, c.want) || !strings.Contains(pk.stderr, "no FMU written") {
			t.Errorf("pack %s: exit %d, stdout %q, stderr %q", c.name, pk.code, pk.stdout, pk.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, fmu)); !os.IsNotExist(err) {
			t.Errorf("pack %s wrote an FMU", c.name)
		}
	}
}

// Flags that take the run beyond the time grid are refused naming the
// flag; a --param that makes a force infinite is named with the
// parameter's line.
func TestSimulateFlagsOutOfRange(t *testing.T) {
	dir := t.TempDir()
	p := pendulum(t, dir, "p.xml")
	r := run(t, dir, "simulate", p, "-o", "", "--end", "1e20")
	if r.code != 2 || !strings.Contains(r.stderr, "--end: a run to t = 1e+20 s with step 0.001 s spans 1e+23 steps") {
		t.Errorf("--end 1e20: %+v", r)
	}
	r = run(t, dir, "simulate", p, "-o", "", "--output-step", "1e-12")
	if r.code != 2 || !strings.Contains(r.stderr, "--output-step: a run of 10 s with output step 1e-12 s would write 1e+13 result rows") {
		t.Errorf("--output-step 1e-12: %+v", r)
	}
	k := pendulum(t, dir, "k.xml", `<ground>`, `<parameter name="k0" value="10"/>`+"\n  <ground>",
		pivot, pivot+"\n  "+`<spring name="sp" i="ground.O" j="bob" k="k0*k0" length="0.5"/>`)
	r = run(t, dir, "simulate", k, "-o", "", "-q", "--param", "k0=1e200")
	if r.code != 1 || !strings.Contains(r.stderr, `k.xml:15: k: spring "sp": k0*k0 is +Inf at t = 0 s (k0 = 1e+200 (parameter, `) || !strings.Contains(r.stderr, "k.xml:6))") {
		t.Errorf("--param k0=1e200: %+v", r)
	}
}

// A force that becomes infinite during the run, exactly at an output time
// (t = 0.5 s): simulate stops at the last state it reached (0.4999375 s,
// after halving the last step four times: a non-finite value may be the
// predictor's overshoot, which halving cures), keeps the rows up to the
// failure and names the force and its line — before, the +Inf was
// written and the run went on through it for another 12 ms.
func TestSimulateNamesFailingForce(t *testing.T) {
	dir := t.TempDir()
	p := pendulum(t, dir, "late.xml", pivot, pivot+"\n  "+`<force name="kick" i="bob" fy="1/(time-0.5)"/>`)
	if r := run(t, dir, "check", p); r.code != 0 {
		t.Fatalf("check: %+v", r)
	}
	r := run(t, dir, "simulate", p, "-o", "r.csv", "-q")
	if r.code != 1 || !strings.Contains(r.stderr, `late.xml:14: fy: force "kick": 1/(time-0.5) is +Inf at t = 0.5 s (time = 0.5 s)`) || !strings.Contains(r.stderr, "stopped at t = 0.49993750") {
		t.Errorf("simulate: %+v", r)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "r.csv"))
	if rows := strings.Count(string(b), "\n"); rows != 51 || strings.Contains(string(b), "Inf") {
		t.Errorf("%d lines in r.csv, want the header and the 50 rows up to t = 0.49 s, none infinite", rows)
	}
}

// A co-simulation whose signal drives the plant's input beyond range:
// the failure names the plant's force, the input and their lines.
func TestCosimNamesPlantSource(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "../../examples/slider-crank-pid/model.xml", filepath.Join(dir, "model.xml"))
	b, err := os.ReadFile("../../examples/slider-crank-pid/cosim.xml")
	if err != nil {
		t.Fatal(err)
	}
	cs := strings.Replace(string(b), `expr="20*(time >= 4)"`, `expr="1e300*(time >= 0.1)"`, 1)
	os.WriteFile(filepath.Join(dir, "cosim.xml"), []byte(cs), 0o644)
	r := run(t, dir, "cosim", "cosim.xml", "-o", "")
	if r.code != 1 || !strings.Contains(r.stderr, `model.xml:31: fx: force "load": -F_load*tanh(vx(slider.c)/v_s) is 9.999999999999978e+299 at t = 0.1 s, beyond ±1.3e+154`) ||
		!strings.Contains(r.stderr, "F_load = 1e+300 N (input, model.xml:8)") {
		t.Errorf("cosim: %+v", r)
	}
}

// One rule for simulate and the FMU: an output that becomes non-finite
// (sqrt(0.5 − t) past 0.5 s) stops the run at that output time, naming the
// output at its line, with every row before it written — where simulate
// wrote 50 rows of NaN and exited 0 while the FMU discarded the step.
func TestSimulateStopsAtNonFiniteOutput(t *testing.T) {
	dir := t.TempDir()
	p := pendulum(t, dir, "nan.xml", `channel="energy.total"`, `expr="sqrt(0.5-time)" unit="1"`)
	out := filepath.Join(dir, "nan.csv")
	r := run(t, dir, "simulate", p, "-o", out, "--end", "1", "--output-step", "10ms")
	if r.code != 1 || !strings.Contains(r.stderr, `nan.xml:16: expr: output "energy": sqrt(0.5-time) is NaN at t = 0.51 s`) {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 52 || strings.Contains(strings.ToLower(string(data)), "nan") {
		t.Errorf("%d lines (want the header and the 51 rows up to 0.5 s), NaN written: %v", n, strings.Contains(strings.ToLower(string(data)), "nan"))
	}
}
