package main

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readCSV reads a results file: the names row, then numbers.
func readCSV(t *testing.T, path string) (names []string, rows [][]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 0; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), ",")
		switch line {
		case 0:
			for _, f := range fields {
				name, _, _ := strings.Cut(f, " [")
				names = append(names, name)
			}
		default:
			row := make([]float64, len(fields))
			for i, s := range fields {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("%s line %d: %v", path, line+1, err)
				}
				row[i] = v
			}
			rows = append(rows, row)
		}
	}
	return names, rows
}

func col(t *testing.T, names []string, name string) int {
	t.Helper()
	for i, n := range names {
		if n == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, names)
	return -1
}

// TestSimulateOverrides runs `mbfmu simulate` on the A01 pendulum with the
// end time, step, output step and a parameter given on the command line,
// with units, and checks the rows against the overrides and the energy
// against its conservation (0 J from the release height).
func TestSimulateOverrides(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.csv")
	err := cmdSimulate([]string{"../../examples/pendulum/model.xml", "-o", out, "--end", "500ms",
		"--step", "0.25 ms", "--output-step", "0.1s", "--integrator", "bdf2", "-q"})
	if err != nil {
		t.Fatal(err)
	}
	names, rows := readCSV(t, out)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6 (t = 0, 0.1, …, 0.5 s)", len(rows))
	}
	ti, ei := col(t, names, "time"), col(t, names, "energy.total")
	for k, r := range rows {
		if math.Abs(r[ti]-0.1*float64(k)) > 1e-12 {
			t.Errorf("row %d at t = %g s", k, r[ti])
		}
		// bdf2 dissipates a little: well under 1e-3 of m g L in 0.5 s at h = 0.25 ms
		if math.Abs(r[ei]) > 1e-2 {
			t.Errorf("t = %g s: energy %g J, want ≈ 0", r[ti], r[ei])
		}
	}
}

// A parameter given with a unit is converted to the parameter's unit: the
// spring chain's first mass, pulled by k (4 springs of k in a fixed-free
// chain), starts from rest at its free length, so it stays put; with the
// masses halved (500 g) and k = 2 kN/m the lowest natural frequency of the
// chain is f1 = sqrt(k/m)·2·sin(π/18)/(2π) (fixed-free chain of 4 equal
// masses: ω_j = 2·sqrt(k/m)·sin((2j−1)π/(2(2n+1)))), checked via eigen.
func TestParamUnits(t *testing.T) {
	out := filepath.Join(t.TempDir(), "modes.csv")
	if err := cmdEigen([]string{"../../examples/spring-chain/model.xml", "-o", out,
		"--param", "k=2 kN/m", "--param", "m=500 g"}); err != nil {
		t.Fatal(err)
	}
	_, rows := readCSV(t, out)
	want := math.Sqrt(2000/0.5) * 2 * math.Sin(math.Pi/18) / (2 * math.Pi)
	if len(rows) == 0 || math.Abs(rows[0][1]-want) > 1e-6*want {
		t.Errorf("first mode %v Hz, want %g Hz", rows, want)
	}
}

// TestFlagUnits: times and parameters on the command line take units and
// reject wrong ones with a message naming the dimension.
func TestFlagUnits(t *testing.T) {
	var v float64
	f := timeFlag{&v}
	for s, want := range map[string]float64{"2": 2, "2 s": 2, "0.5ms": 5e-4, "1 min": 60, "250 us": 2.5e-4} {
		if err := f.Set(s); err != nil || math.Abs(v-want) > 1e-15*want {
			t.Errorf("time %q: %g, %v; want %g", s, v, err, want)
		}
	}
	for _, s := range []string{"2 kg", "inf", "NaN"} {
		if err := f.Set(s); err == nil {
			t.Errorf("time %q accepted", s)
		}
	}
	var p paramFlags
	for _, s := range []string{"k=2 kN/m", "m=500 g", "a=0.5"} {
		if err := p.Set(s); err != nil {
			t.Errorf("param %s: %v", s, err)
		}
	}
	for _, s := range []string{"m=abc", "m", "=1", "m="} {
		if err := p.Set(s); err == nil {
			t.Errorf("param %q accepted", s)
		}
	}
	got, err := p.resolve([]paramDecl{{"k", "N/m"}, {"m", "kg"}, {"a", "m"}})
	if err != nil || got["k"] != 2000 || got["m"] != 0.5 || got["a"] != 0.5 {
		t.Errorf("resolved %v, %v", got, err)
	}
}

// TestCheck: `mbfmu check` exits 1 on a model with problems (every one is
// printed, file:line: field: message) and 0 on the examples.
func TestCheck(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.xml")
	if err := os.WriteFile(bad, []byte(`<model name="bad">
  <ground/>
  <body name="a" mass="-1 kg" inertia="2 m"/>
  <revolute name="j" i="ground" j="nobody"/>
</model>`), 0o644); err != nil {
		t.Fatal(err)
	}
	var ex exitError
	if err := cmdCheck([]string{bad}); !errors.As(err, &ex) || ex != 1 {
		t.Errorf("check bad.xml: %v, want exit status 1", err)
	}
	if err := cmdCheck([]string{"../../examples/pendulum/model.xml", "../../examples/andrews/model.xml"}); err != nil {
		t.Errorf("check examples: %v", err)
	}
}

// Progress lines: a terminal gets a line rewritten in place (carriage
// return, erased with an escape code at the end); a file or a pipe gets
// plain lines, without either.
func TestProgressOnlyTerminalsGetEscapes(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var b bytes.Buffer
		p := &progress{w: &b, tty: tty, what: "simulate", start: time.Now().Add(-time.Minute), last: time.Now().Add(-time.Minute)}
		p.update(1, 0, 10)
		p.done()
		s := b.String()
		hasEsc := strings.ContainsAny(s, "\r\x1b")
		if hasEsc != tty || !strings.Contains(s, "simulate: t = 1 s of 10 s ( 10%)") {
			t.Errorf("tty=%v: %q", tty, s)
		}
		if !tty && !strings.HasSuffix(s, "\n") {
			t.Errorf("plain progress line not ended: %q", s)
		}
	}
	if isTerminal(os.Stdin) && isTerminal(os.Stdout) && isTerminal(os.Stderr) {
		t.Log("running on a terminal")
	}
	f, _ := os.CreateTemp(t.TempDir(), "x")
	defer f.Close()
	if isTerminal(f) {
		t.Error("a file is a terminal")
	}
}

// Output rows fall at whole multiples of the output step and at the end
// time, and the integrator keeps its step: `--end 10 --step 9ms` on the
// Simo–Wong top writes rows at 0, 9 ms, …, 9.999 s and 10 s, takes 1111
// steps of 9 ms and one of 1 ms, and says so. Before, every output
// interval was stretched to 9.0009 ms and each output took a sliver of a
// step (2213 steps for 1111; Newton then failed at t = 0.16 s).
func TestOutputTimesOnTheGrid(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "top.csv")
	r := run(t, dir, "simulate", abs(t, "../../examples/simo-wong-top/model.xml"), "-o", out, "--end", "10", "--step", "9ms", "--output-step", "9ms")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	names, rows := readCSV(t, out)
	ti := col(t, names, "time")
	if len(rows) != 1113 {
		t.Fatalf("%d rows, want 1113 (1112 multiples of 9 ms below 10 s, and 10 s)", len(rows))
	}
	for k, row := range rows[:1112] {
		if want := 0.009 * float64(k); math.Abs(row[ti]-want) > 1e-12 {
			t.Fatalf("row %d at t = %.15g s, want %.15g", k, row[ti], want)
		}
	}
	if last := rows[1112][ti]; last != 10 {
		t.Errorf("last row at t = %.15g s, want 10", last)
	}
	if !strings.Contains(r.stderr, "h=0.009 s, 1112 steps (1 of them shorter than h), ") {
		t.Errorf("summary does not report 1111 steps of h and one shorter:\n%s", r.stderr)
	}
}

// A step far longer than the output step (--step 1e10 on the pendulum, 10 ms
// rows) wrote 1001 rows all at t = 0 with the state never moving ("0
// steps", exit 0): every output time snapped back to the grid point 0. Now
// each row is at its time, the run is the one with a 10 ms step (to 1e-5 m,
// its steps factor afresh), and it says it steps by the output step.
func TestStepLongerThanOutputStep(t *testing.T) {
	dir := t.TempDir()
	long, ref := filepath.Join(dir, "long.csv"), filepath.Join(dir, "ref.csv")
	r := run(t, dir, "simulate", abs(t, "../../examples/pendulum/model.xml"), "-o", long, "--end", "1", "--step", "1e10", "--output-step", "10ms")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: the step 1e+10 s is longer than the output step 0.01 s") {
		t.Errorf("no warning about the step:\n%s", r.stderr)
	}
	if r := run(t, dir, "simulate", abs(t, "../../examples/pendulum/model.xml"), "-o", ref, "--end", "1", "--step", "10ms", "--output-step", "10ms"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	names, rows := readCSV(t, long)
	_, want := readCSV(t, ref)
	ti, yi := col(t, names, "time"), col(t, names, "bob.y")
	if len(rows) != 101 || rows[100][ti] != 1 {
		t.Fatalf("%d rows ending at %g s, want 101 ending at 1 s", len(rows), rows[len(rows)-1][ti])
	}
	for k := range rows {
		if math.Abs(rows[k][ti]-want[k][ti]) > 1e-12 || math.Abs(rows[k][yi]-want[k][yi]) > 1e-5 {
			t.Fatalf("row %d: t = %g s, bob.y = %.12g m; with a 10 ms step t = %g s, bob.y = %.12g m", k, rows[k][ti], rows[k][yi], want[k][ti], want[k][yi])
		}
	}
}
