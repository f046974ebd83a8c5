package main

// Tests of the built command, from outside: exit status, standard output
// and error, files left behind, signals.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"mbfmu/results"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// mbfmuBin builds the command once per test run.
func mbfmuBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mbfmu-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mbfmu")
		goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		out, err := exec.Command(goBin, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// result is what a run of the command gave.
type result struct {
	code           int
	stdout, stderr string
}

// run runs the command in dir with args.
func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(mbfmuBin(t), args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// fileLine matches a "file.xml:12:" position.
var fileLine = regexp.MustCompile(`\.xml:[0-9]+:`)

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// names lists a folder, with its subfolders' files as "sub/name".
func names(t *testing.T, dir string) []string {
	var s []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			r, _ := filepath.Rel(dir, p)
			s = append(s, r)
		}
		return nil
	})
	return s
}

// Every command line the tool cannot honour is refused before anything
// runs, with exit status 2 and a message naming the flag; nothing is
// written, and no input is ever overwritten.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.xml")
	copyFile(t, "../../examples/pendulum/model.xml", model)
	chain := filepath.Join(dir, "chain.xml")
	copyFile(t, "../../examples/spring-chain/model.xml", chain)
	os.WriteFile(filepath.Join(dir, "afile"), []byte("x"), 0o644)
	cosimDir := filepath.Join(dir, "cs")
	os.Mkdir(cosimDir, 0o755)
	copyFile(t, "../../examples/slider-crank-pid/cosim.xml", filepath.Join(cosimDir, "cosim.xml"))
	copyFile(t, "../../examples/slider-crank-pid/model.xml", filepath.Join(cosimDir, "model.xml"))
	cosimFile := filepath.Join(cosimDir, "cosim.xml")
	copyFile(t, "../../examples/slider-crank-pid/study.xml", filepath.Join(cosimDir, "study.xml"))
	csStudy := filepath.Join(cosimDir, "study.xml")
	stDir := filepath.Join(dir, "st")
	os.Mkdir(stDir, 0o755)
	copyFile(t, "../../examples/catapult/study.xml", filepath.Join(stDir, "study.xml"))
	copyFile(t, "../../examples/catapult/model.xml", filepath.Join(stDir, "model.xml"))
	study := filepath.Join(stDir, "study.xml")
	// links to the inputs, named like outputs: refused through the link
	os.Symlink(model, filepath.Join(dir, "link.csv"))
	os.Symlink(filepath.Join(stDir, "model.xml"), filepath.Join(dir, "link.xlsx"))
	os.Symlink(filepath.Join(cosimDir, "model.xml"), filepath.Join(dir, "cslink.csv"))
	before := map[string][]byte{}
	for _, p := range []string{model, chain, cosimFile, filepath.Join(cosimDir, "model.xml"), csStudy, study, filepath.Join(stDir, "model.xml")} {
		before[p], _ = os.ReadFile(p)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate", model, "--end", "-1"}, 2, "mbfmu simulate: --end: must be after the start time 0 s, got -1 s"},
		{[]string{"simulate", model, "--end", "0"}, 2, "--end: must be after the start time 0 s, got 0 s"},
		{[]string{"simulate", model, "--step", "0"}, 2, "--step: must be > 0, got 0 s"},
		{[]string{"simulate", model, "--step", "-1ms"}, 2, "--step: must be > 0, got -0.001 s"},
		{[]string{"simulate", model, "--output-step", "0"}, 2, "--output-step: must be > 0, got 0 s"},
		{[]string{"simulate", model, "--end", "2 kg"}, 2, `invalid value "2 kg" for flag -end: unit "kg" is a mass; time needs s`},
		{[]string{"simulate", model, "--integrator", "foo"}, 2, `--integrator: unknown integrator "foo"; want one of genalpha, hht, newmark, bdf1, bdf2, rk4`},
		{[]string{"simulate", chain, "--param", "k=20 kg"}, 2, `--param k=20 kg: unit "kg" is a mass, but parameter k is in N/m (a stiffness)`},
		{[]string{"simulate", chain, "--param", "nope=1"}, 2, `--param nope=1: the model has no parameter "nope" (it has a, k, m)`},
		{[]string{"simulate", model, "-o", model}, 2, "-o " + model + ": would overwrite the input file"},
		{[]string{"simulate", model, "-o", "model.xml"}, 2, "would overwrite the input file"},
		{[]string{"simulate", model, "-o", "./sub/../model.xml"}, 2, "would overwrite the input file"},
		{[]string{"simulate", model, "--xlsx", "r.csv"}, 2, "--xlsx r.csv: a workbook's name must end in .xlsx"},
		{[]string{"simulate", model, "-o", "r.xlsx", "--xlsx", "r.xlsx"}, 2, "--xlsx r.xlsx: -o names the same file"},
		{[]string{"simulate", model, "-o", "r.csv", "--xlsx", "afile/r.xlsx"}, 2, "--xlsx afile/r.xlsx: " + filepath.Join("afile") + " is a file, not a folder"},
		{[]string{"simulate", model, "-o", dir}, 2, "is a folder"},
		{[]string{"simulate", model, "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"simulate", model, model}, 2, "expected one model file, got 2 arguments"},
		{[]string{"static", model, "--end", "1"}, 2, "mbfmu static: flag provided but not defined: -end"},
		{[]string{"static", model, "--integrator", "rk4"}, 2, "flag provided but not defined: -integrator"},
		{[]string{"eigen", model, "--step", "1ms"}, 2, "mbfmu eigen: flag provided but not defined: -step"},
		{[]string{"kinematics", model, "--integrator", "rk4"}, 2, "flag provided but not defined: -integrator"},
		{[]string{"eigen", model, "--at", "-1"}, 2, "--at: must be at or after the start time 0 s, got -1 s"},
		{[]string{"eigen", model, "--abcd", model}, 2, "--abcd " + model + ": would overwrite the input file"},
		{[]string{"bode", model, "--svg", model}, 2, "--svg " + model + ": would overwrite the input file"},
		{[]string{"bode", model, "-o", model}, 2, "-o " + model + ": would overwrite the input file"},
		{[]string{"bode", model, "--points", "1"}, 2, "--points: must be 2 to 100000, got 1"},
		{[]string{"bode", model, "--from", "10 Hz", "--to", "1 Hz"}, 2, "--to (1 Hz) must be above --from (10 Hz)"},
		{[]string{"bode", model, "--from", "-1"}, 2, `"-1" is not a positive finite frequency`},
		{[]string{"bode", model, "--to", "3 m"}, 2, `unit "m" is a length; frequency needs Hz`},
		{[]string{"bode", model, "--at", "1", "--initial"}, 2, "--at and --initial: give one of them"},
		{[]string{"bode", model}, 1, "needs at least one <input> and one <output> for a frequency response"},
		{[]string{"pack", model, "-o", model}, 2, "-o " + model + ": would overwrite the input file"},
		{[]string{"export", model, model}, 2, "would overwrite the input file"},
		{[]string{"cosim", cosimFile, "-o", filepath.Join(cosimDir, "model.xml")}, 2, "would overwrite the input file"},
		{[]string{"cosim", cosimFile, "--xlsx", cosimFile}, 2, "would overwrite the input file"},
		{[]string{"cosim", cosimFile, "--end", "-1"}, 2, "--end: must be after the start time 0 s, got -1 s"},
		{[]string{"cosim", cosimFile, "--priority", "10"}, 2, "--priority: only with --rt"},
		{[]string{"cosim", cosimFile, "--rt", "--priority", "100"}, 2, "--priority: must be 1 to 99"},
		{[]string{"cosim", cosimFile, "--rt", "--cpu", "1023"}, 2, "--cpu: CPU 1023: not available to this process"},
		{[]string{"cosim", cosimFile, "--bench", "2", "-o", "r.csv"}, 2, "--bench: runs without results"},
		{[]string{"simulate", model, "-o", "link.csv"}, 2, "-o link.csv: would overwrite the input file"},
		{[]string{"kinematics", model, "-o", "link.csv"}, 2, "-o link.csv: would overwrite the input file"},
		{[]string{"study", study, "-o", study}, 2, "would overwrite the input file"},
		{[]string{"study", study, "-o", filepath.Join(stDir, "model.xml")}, 2, "would overwrite the input file"},
		{[]string{"study", study, "-o", "r.csv", "--xlsx", "link.xlsx"}, 2, "would overwrite the input file"},
		{[]string{"study", study, "-o", "r.csv", "--store", study}, 2, "--store " + study + ": would overwrite the input file"},
		{[]string{"study", csStudy, "-o", cosimFile}, 2, "would overwrite the input file"},
		{[]string{"study", csStudy, "-o", filepath.Join(cosimDir, "model.xml")}, 2, "would overwrite the input file"},
		{[]string{"study", csStudy, "-o", "cslink.csv"}, 2, "would overwrite the input file"},
		{[]string{"study", study, "--jobs", "0"}, 2, "--jobs 0: want at least 1"},
		{[]string{"study", study, "--task", "1"}, 2, "--task i and --tasks K go together"},
		{[]string{"study", study, "--xlsx", "r.csv"}, 2, "--xlsx r.csv: a workbook's name must end in .xlsx"},
		{[]string{"eigen", model, "--abcd", "link.csv"}, 2, "would overwrite the input file"},
		{[]string{"pack", model, "-o", "link.csv"}, 2, "would overwrite the input file"},
		{[]string{"cosim", cosimFile, "-o", "cslink.csv"}, 2, "would overwrite the input file"},
		{[]string{"cosim", cosimFile, "--rt", "--spin", "-1s"}, 2, "--spin -1s: must be ≥ 0"},
		{[]string{"simulate", model, "--step", "1e155"}, 2, `"1e155" is beyond ±1.3e+154 s`},
		{[]string{"simulate", model, "--end", "2000", "--output-step", "1ms", "-o", "r.csv", "--xlsx", "r.xlsx"}, 2, "--xlsx r.xlsx: 2000001 result rows are more than a worksheet holds"},
		{[]string{"eigen", model, "--at", "1e300"}, 2, `"1e300" is beyond ±1.3e+154 s`},
		{[]string{"eigen", model, "--at", "1e7"}, 2, "--at: a run to t = 1e+07 s with step 0.001 s spans 1e+10 steps"},
		{[]string{"cosim", cosimFile, "--end", "1e16"}, 2, "--end: a run to t = 1e+16 s"},
		{[]string{"cosim", cosimFile, "--end", "1e12"}, 2, "--end: a run to t = 1e+12 s"},
		{[]string{"bench", "--examples", "/nonexistent"}, 2, "--examples /nonexistent: not a folder"},
		{[]string{"simulate"}, 2, "usage: mbfmu simulate"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
	} {
		r := run(t, dir, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("mbfmu %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(c.args, " "), r.code, r.stderr, c.code, c.want)
		}
		if fileLine.MatchString(r.stderr) && c.code == 2 {
			t.Errorf("mbfmu %s: a flag blamed on a file line: %s", strings.Join(c.args, " "), r.stderr)
		}
	}
	for p, b := range before {
		if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
			t.Errorf("%s changed", p)
		}
	}
	// Nothing was written: no results file, no folder, no temporary file.
	want := "afile,chain.xml,cs,cs/cosim.xml,cs/model.xml,cs/study.xml,cslink.csv,link.csv,link.xlsx,model.xml,st,st/model.xml,st/study.xml"
	if got := strings.Join(names(t, dir), ","); got != want {
		t.Errorf("files after the refusals: %s, want %s", got, want)
	}
}

// -h prints the command's usage on standard output and succeeds; -o's
// help shows no "\x00"; static and eigen do not offer the time options
// (eigen offers -q, for the progress of --at).
func TestHelp(t *testing.T) {
	for _, cmd := range []string{"check", "simulate", "kinematics", "static", "eigen", "bode", "pack", "export", "cosim", "bench"} {
		r := run(t, ".", cmd, "-h")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "usage: mbfmu "+cmd) || r.stderr != "" {
			t.Errorf("%s -h: exit %d, stdout %q, stderr %q", cmd, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, `\x00`) || strings.Contains(r.stdout, "\x00") {
			t.Errorf("%s -h shows a NUL default:\n%s", cmd, r.stdout)
		}
		if cmd == "static" || cmd == "eigen" {
			flags := []string{"-end", "-step", "-integrator", "-output-step", "-q"}
			if cmd == "eigen" {
				flags = flags[:4] // eigen --at runs a simulation, with progress that -q silences
			}
			for _, f := range flags {
				if strings.Contains(r.stdout, "  "+f+" ") || strings.Contains(r.stdout, "  "+f+"\n") || strings.Contains(r.stdout, "  "+f+"\t") {
					t.Errorf("%s -h lists %s:\n%s", cmd, f, r.stdout)
				}
			}
		}
	}
	if r := run(t, ".", "--help"); r.code != 0 || !strings.Contains(r.stdout, "commands:") {
		t.Errorf("--help: %+v", r)
	}
}

// integrator="euler" in a file and --integrator euler are the same
// integrator, bdf1 (as are the other aliases the engine knows).
func TestIntegratorAliasesEverywhere(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile("../../examples/pendulum/model.xml")
	m := filepath.Join(dir, "m.xml")
	os.WriteFile(m, bytes.Replace(src, []byte(`integrator="genalpha"`), []byte(`integrator="euler"`), 1), 0o644)
	for _, args := range [][]string{
		{"simulate", m, "--end", "0.01", "-o", "a.csv"},
		{"simulate", "../../examples/pendulum/model.xml", "--end", "0.01", "--integrator", "euler", "-o", filepath.Join(dir, "b.csv")},
		{"simulate", "../../examples/pendulum/model.xml", "--end", "0.01", "--integrator", "implicit-euler", "-o", filepath.Join(dir, "c.csv")},
	} {
		wd := "."
		if args[1] == m {
			wd = dir
		}
		r := run(t, wd, args...)
		if r.code != 0 || !strings.Contains(r.stderr, "summary: bdf1 ") {
			t.Errorf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	if r := run(t, dir, "check", m); r.code != 0 || !strings.Contains(r.stdout, "bdf1") {
		t.Errorf("check: %+v", r)
	}
}

// Outputs in missing folders are created, for -o and --xlsx alike; a run
// to a pipe gets no carriage returns or escape codes.
func TestOutputFolders(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "simulate", abs(t, "../../examples/pendulum/model.xml"), "--end", "0.1",
		"-o", "a/b/r.csv", "--xlsx", "c/d/r.xlsx")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if got := strings.Join(names(t, dir), ","); got != "a,a/b,a/b/r.csv,c,c/d,c/d/r.xlsx" {
		t.Errorf("files %s", got)
	}
	if strings.ContainsAny(r.stderr, "\r\x1b") {
		t.Errorf("escapes written to a pipe: %q", r.stderr)
	}
	r = run(t, dir, "export", "a/b/r.csv", "e/r.xlsx")
	if r.code != 0 {
		t.Errorf("export: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "e", "r.xlsx")); err != nil {
		t.Error(err)
	}
}

// pack runs every check of `mbfmu check`, assembly at the start time
// included: a model whose joints cannot be assembled is refused with the
// assembly error, and no FMU is written.
func TestPackRunsCheck(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.xml")
	os.WriteFile(bad, []byte(`<model name="bad">
  <ground><marker name="O"/><marker name="P" at="5 0"/></ground>
  <body name="bob" mass="1 kg" inertia="0.1 kg*m^2" at="0.5 0">
    <marker name="a" at="-0.5 0"/>
    <marker name="b" at="0.5 0"/>
  </body>
  <revolute name="j1" i="ground.O" j="bob.a"/>
  <revolute name="j2" i="ground.P" j="bob.b"/>
</model>`), 0o644)
	chk := run(t, dir, "check", bad)
	r := run(t, dir, "pack", bad, "-o", "bad.fmu")
	if chk.code != 1 || r.code != 1 || !strings.Contains(r.stdout, "assembly failed") ||
		!strings.Contains(r.stderr, "does not pass 'mbfmu check'; no FMU written") {
		t.Errorf("check: %+v\npack: %+v", chk, r)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.fmu")); !os.IsNotExist(err) {
		t.Errorf("an FMU was written: %v", err)
	}
	// A model with a parse error too.
	os.WriteFile(bad, []byte(`<model name="bad"><body name="a" mass="-1"/></model>`), 0o644)
	if r := run(t, dir, "pack", bad); r.code != 1 || !strings.Contains(r.stdout, "bad.xml:1: mass: must be > 0") {
		t.Errorf("pack: %+v", r)
	}
}

// checkWholeRows checks a CSV file of an interrupted run: every line has
// the header's number of fields and parses, and the workbook opens and
// holds the same rows. It returns the number of data rows.
func checkWholeRows(t *testing.T, csvPath, xlsxPath string) int {
	t.Helper()
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := results.ReadCSV(f) // refuses a line with the wrong number of fields
	f.Close()
	if err != nil {
		t.Fatalf("%s: %v", csvPath, err)
	}
	b, _ := os.ReadFile(csvPath)
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Errorf("%s does not end with a whole line", csvPath)
	}
	x, err := excelize.OpenFile(xlsxPath)
	if err != nil {
		t.Fatalf("%s does not open: %v", xlsxPath, err)
	}
	defer x.Close()
	rows, err := x.GetRows(results.SheetResults, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	n := tab.Len()
	if len(rows) != n+2 {
		t.Fatalf("%s: %d data rows, %s: %d", csvPath, n, xlsxPath, len(rows)-2)
	}
	for _, r := range []int{0, n / 2, n - 1} {
		for c := range tab.Cols {
			var v float64
			fmt.Sscan(rows[r+2][c], &v)
			if d := v - tab.Data[c][r]; d > 1e-12*(1+abs64(v)) || -d > 1e-12*(1+abs64(v)) {
				t.Fatalf("row %d column %s: workbook %s, CSV %v", r, tab.Cols[c].Name, rows[r+2][c], tab.Data[c][r])
			}
		}
	}
	return n
}

func abs64(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// startAndSignal starts the command in dir, sends sig after wait and
// returns what it gave.
func startAndSignal(t *testing.T, dir string, sig syscall.Signal, wait time.Duration, args ...string) result {
	t.Helper()
	cmd := exec.Command(mbfmuBin(t), args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	r := result{stdout: o.String(), stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	return r
}

// Ctrl-C (SIGINT) on a 20 s simulation of the 3-RRR robot after 2.5 s:
// the run stops after the current step, both outputs hold every row
// computed, whole (432 columns each), the workbook opens with the same
// rows, stderr says where it stopped, the exit status is 130, and no
// temporary file is left.
func TestInterruptSimulate(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 3 s")
	}
	dir := t.TempDir()
	r := startAndSignal(t, dir, syscall.SIGINT, 2500*time.Millisecond, "simulate", abs(t, "../../examples/three-rrr/model.xml"),
		"--end", "20", "-o", "r.csv", "--xlsx", "r.xlsx")
	if r.code != 130 {
		t.Fatalf("exit status %d, want 130; stderr:\n%s", r.code, r.stderr)
	}
	n := checkWholeRows(t, filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.xlsx"))
	if n < 2 || n >= 4001 {
		t.Errorf("%d rows: the run was not interrupted part way", n)
	}
	names, _ := readCSV(t, filepath.Join(dir, "r.csv"))
	if len(names) != 432 {
		t.Errorf("%d columns, want 432", len(names))
	}
	want := fmt.Sprintf("simulate: interrupted by SIGINT (Ctrl-C) at t = ")
	if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, fmt.Sprintf("; %d rows written to r.csv, r.xlsx", n)) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if strings.ContainsAny(r.stderr, "\r\x1b") {
		t.Errorf("escapes on a pipe: %q", r.stderr)
	}
	if got := strings.Join(names2(t, dir), ","); got != "r.csv,r.xlsx" {
		t.Errorf("files left: %s", got)
	}
}

func names2(t *testing.T, dir string) []string { return names(t, dir) }

// SIGTERM (a cancelled Slurm job) on a real-time co-simulation: exit
// status 143, the rows up to the stop in both outputs, the summary
// printed.
func TestTerminateCosim(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 2 s")
	}
	dir := t.TempDir()
	r := startAndSignal(t, dir, syscall.SIGTERM, 1500*time.Millisecond, "cosim", abs(t, "../../examples/slider-crank-pid/cosim.xml"),
		"--rt", "-o", "r.csv", "--xlsx", "r.xlsx")
	if r.code != 143 {
		t.Fatalf("exit status %d, want 143; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	n := checkWholeRows(t, filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.xlsx"))
	if n < 2 || n >= 1201 {
		t.Errorf("%d rows: the run was not interrupted part way", n)
	}
	if !strings.Contains(r.stderr, "cosim: interrupted by SIGTERM at t = ") || !strings.Contains(r.stdout, "latency histogram") {
		t.Errorf("stderr:\n%s\nstdout:\n%s", r.stderr, r.stdout)
	}
	if got := strings.Join(names(t, dir), ","); got != "r.csv,r.xlsx" {
		t.Errorf("files left: %s", got)
	}
}

// A full disk (a 256 KiB tmpfs, when the test runs as root and may mount
// one) fails the run with a clear error and leaves neither a truncated CSV
// nor a 0-byte workbook under the requested names.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (package results injects the error instead)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
	}
	defer exec.Command("umount", dir).Run()
	r := run(t, dir, "simulate", abs(t, "../../examples/three-rrr/model.xml"), "--end", "2", "-o", "r.csv", "--xlsx", "r.xlsx")
	if r.code != 1 || !strings.Contains(r.stderr, "no space left on device") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("files on the full disk: %v", got)
	}
}
