package main

// These tests drive the runtime library through the real C ABI: they build
// it with go build -buildmode=c-shared (once per test binary), pack the test
// models of package fmu with it, unpack them as an importer does, and run
// the C host testdata/host.c (compiled with gcc) against them. The C host's
// outputs are compared bit for bit with the engine run in-process.

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"mbfmu/fmu"
	"mbfmu/solver"
	"mbfmu/xml"
)

// env is what every test needs: the library, the host and unpacked FMUs.
type env struct {
	lib  string            // the runtime library
	host string            // the compiled C host
	dirs map[string]string // test model → unpacked FMU folder
	err  error
	skip string
}

var (
	setupOnce sync.Once
	shared    env
	tmpRoot   string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tmpRoot != "" {
		os.RemoveAll(tmpRoot)
	}
	os.Exit(code)
}

// versionScript is the -ldflags part that limits the Linux library's
// exports to the fmi2 functions.
func versionScript() string {
	wd, _ := os.Getwd()
	return " -extldflags=-Wl,--version-script=" + filepath.Join(wd, "exports.map")
}

// goTool returns the go command that runs this test.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// testModels are packed from ../fmu/testdata.
var testModels = []string{"pendulum", "pendulum2", "pendulum_nan", "pendulum_rk4"}

// setup builds everything once per test binary; it skips when gcc is
// missing and fails when a build fails.
func setup(tb testing.TB) *env {
	tb.Helper()
	setupOnce.Do(func() {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			shared.skip = "gcc not found: the C ABI tests need gcc (Debian package gcc) to build the runtime library and the C host"
			return
		}
		if tmpRoot, err = os.MkdirTemp("", "mbfmu-cabi-test"); err != nil {
			shared.err = err
			return
		}
		shared.lib = filepath.Join(tmpRoot, "lib", fmu.RuntimeLibName)
		if err := buildRuntime(shared.lib, versionScript()); err != nil {
			shared.err = err
			return
		}
		shared.host = filepath.Join(tmpRoot, "host")
		cc := exec.Command(gcc, "-O2", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off", "-I.",
			"-o", shared.host, filepath.Join("testdata", "host.c"), "-ldl", "-lpthread", "-lm")
		if out, err := cc.CombinedOutput(); err != nil {
			shared.err = fmt.Errorf("compiling the C host: %v\n%s", err, out)
			return
		}
		// Unpack into a folder with a space, so resource URIs are
		// percent-encoded.
		shared.dirs = map[string]string{}
		for _, m := range testModels {
			fmuPath := filepath.Join(tmpRoot, m+".fmu")
			if err := fmu.Pack(filepath.Join("..", "fmu", "testdata", m+".xml"), fmuPath, shared.lib); err != nil {
				shared.err = fmt.Errorf("packing %s: %v", m, err)
				return
			}
			dir := filepath.Join(tmpRoot, "unpacked fmus", m)
			if err := unzip(fmuPath, dir); err != nil {
				shared.err = err
				return
			}
			shared.dirs[m] = dir
		}
	})
	if shared.skip != "" {
		tb.Skip(shared.skip)
	}
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return &shared
}

// unzip extracts an FMU as importers do.
func unzip(src, dst string) error { return fmu.Unzip(src, dst) }

// runHost runs the C host and returns its standard output.
func (e *env) runHost(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(e.host, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("host %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// parseOutputs reads the host's "TAG k x y omega" lines (hex floats).
func parseOutputs(t *testing.T, out, tag string) [][]float64 {
	t.Helper()
	var rows [][]float64
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 5 || f[0] != tag {
			continue
		}
		row := make([]float64, 3)
		for i := range row {
			v, err := strconv.ParseFloat(f[2+i], 64)
			if err != nil {
				t.Fatalf("bad output line %q: %v", sc.Text(), err)
			}
			row[i] = v
		}
		rows = append(rows, row)
	}
	return rows
}

// parseChecks counts the "ok" lines of the host's checks and collects the
// "FAIL" lines.
func parseChecks(out string) (passed int, failed []string) {
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "FAIL"):
			failed = append(failed, l)
		case strings.HasPrefix(l, "ok"):
			passed++
		}
	}
	return passed, failed
}

// buildRuntime builds the runtime library of this package at out with go
// build -buildmode=c-shared; ldflags are added to "-s -w" and env to the
// environment (CC, GOOS...).
func buildRuntime(out, ldflags string, env ...string) error {
	build := exec.Command(goTool(), "build", "-buildmode=c-shared", "-trimpath",
		"-ldflags=-s -w"+ldflags, "-o", out, ".")
	build.Env = append(append(os.Environ(), "CGO_ENABLED=1"), env...)
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the runtime library %s: %v\n%s", out, err, b)
	}
	return nil
}

// tau is the host's input during step k (exact in binary64).
func tau(k int) float64 { return float64(0.01*float64((k*7)%23)) - 0.1 }

// reference runs the host's call sequence (run_sequence in host.c)
// in-process on the engine: m = 1.5, tau(k) before step k, c = 0.2 from
// step n/2, steps to (k−1)·h + h.
func reference(t *testing.T, model string, n int) [][]float64 {
	t.Helper()
	spec, err := xml.LoadFile(filepath.Join("..", "fmu", "testdata", model+".xml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{Params: map[string]float64{"m": 1.5}})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	s.SetInput(0, tau(1))
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	const h = 0.01
	out := make([][]float64, n)
	y := make([]float64, len(m.OutputInfo()))
	for k := 1; k <= n; k++ {
		s.SetInput(0, tau(k))
		if k == n/2 {
			if err := s.SetParam(1, 0.2); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.AdvanceTo(s, float64(k-1)*h+h); err != nil {
			t.Fatal(err)
		}
		m.EvalOutputs(s, y)
		out[k-1] = append([]float64(nil), y[:3]...)
	}
	return out
}

func compareBits(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d output rows, want %d", what, len(got), len(want))
	}
	for k := range got {
		for j := range got[k] {
			if math.Float64bits(got[k][j]) != math.Float64bits(want[k][j]) {
				t.Fatalf("%s: step %d output %d = %.17g through the C ABI, %.17g in-process", what, k+1, j, got[k][j], want[k][j])
			}
		}
	}
}

// TestExports checks that the library exports exactly the FMI 2.0 common
// and co-simulation functions and every FMI 3.0 function (the prototypes
// are checked by the C compiler when the library is built: fmi2.h and
// fmi3.h are in the cgo preamble).
func TestExports(t *testing.T) {
	e := setup(t)
	nm, err := exec.LookPath("nm")
	if err != nil {
		t.Skip("nm (binutils) not found")
	}
	out, err := exec.Command(nm, "-D", "--defined-only", e.lib).Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		got = append(got, f[len(f)-1])
	}
	sort.Strings(got)
	want := []string{
		// common
		"fmi2GetTypesPlatform", "fmi2GetVersion", "fmi2SetDebugLogging", "fmi2Instantiate",
		"fmi2FreeInstance", "fmi2SetupExperiment", "fmi2EnterInitializationMode",
		"fmi2ExitInitializationMode", "fmi2Terminate", "fmi2Reset", "fmi2GetReal",
		"fmi2GetInteger", "fmi2GetBoolean", "fmi2GetString", "fmi2SetReal", "fmi2SetInteger",
		"fmi2SetBoolean", "fmi2SetString", "fmi2GetFMUstate", "fmi2SetFMUstate",
		"fmi2FreeFMUstate", "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate",
		"fmi2DeSerializeFMUstate", "fmi2GetDirectionalDerivative",
		// co-simulation
		"fmi2SetRealInputDerivatives", "fmi2GetRealOutputDerivatives", "fmi2DoStep",
		"fmi2CancelStep", "fmi2GetStatus", "fmi2GetRealStatus", "fmi2GetIntegerStatus",
		"fmi2GetBooleanStatus", "fmi2GetStringStatus",
		// FMI 3.0 (fmi3FunctionTypes.h): common
		"fmi3GetVersion", "fmi3SetDebugLogging", "fmi3InstantiateModelExchange",
		"fmi3InstantiateCoSimulation", "fmi3InstantiateScheduledExecution", "fmi3FreeInstance",
		"fmi3EnterInitializationMode", "fmi3ExitInitializationMode", "fmi3EnterEventMode",
		"fmi3Terminate", "fmi3Reset",
		"fmi3GetFloat32", "fmi3GetFloat64", "fmi3GetInt8", "fmi3GetUInt8", "fmi3GetInt16",
		"fmi3GetUInt16", "fmi3GetInt32", "fmi3GetUInt32", "fmi3GetInt64", "fmi3GetUInt64",
		"fmi3GetBoolean", "fmi3GetString", "fmi3GetBinary", "fmi3GetClock",
		"fmi3SetFloat32", "fmi3SetFloat64", "fmi3SetInt8", "fmi3SetUInt8", "fmi3SetInt16",
		"fmi3SetUInt16", "fmi3SetInt32", "fmi3SetUInt32", "fmi3SetInt64", "fmi3SetUInt64",
		"fmi3SetBoolean", "fmi3SetString", "fmi3SetBinary", "fmi3SetClock",
		"fmi3GetNumberOfVariableDependencies", "fmi3GetVariableDependencies",
		"fmi3GetFMUState", "fmi3SetFMUState", "fmi3FreeFMUState", "fmi3SerializedFMUStateSize",
		"fmi3SerializeFMUState", "fmi3DeserializeFMUState",
		"fmi3GetDirectionalDerivative", "fmi3GetAdjointDerivative",
		"fmi3EnterConfigurationMode", "fmi3ExitConfigurationMode",
		"fmi3GetIntervalDecimal", "fmi3GetIntervalFraction", "fmi3GetShiftDecimal",
		"fmi3GetShiftFraction", "fmi3SetIntervalDecimal", "fmi3SetIntervalFraction",
		"fmi3SetShiftDecimal", "fmi3SetShiftFraction",
		"fmi3EvaluateDiscreteStates", "fmi3UpdateDiscreteStates",
		// FMI 3.0 Model Exchange
		"fmi3EnterContinuousTimeMode", "fmi3CompletedIntegratorStep", "fmi3SetTime",
		"fmi3SetContinuousStates", "fmi3GetContinuousStateDerivatives", "fmi3GetEventIndicators",
		"fmi3GetContinuousStates", "fmi3GetNominalsOfContinuousStates",
		"fmi3GetNumberOfEventIndicators", "fmi3GetNumberOfContinuousStates",
		// FMI 3.0 Co-Simulation and Scheduled Execution
		"fmi3EnterStepMode", "fmi3GetOutputDerivatives", "fmi3DoStep",
		"fmi3ActivateModelPartition",
	}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("exported symbols:\n%s\nwant:\n%s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

// TestRun is the normal call sequence of a master through the C ABI.
func TestRun(t *testing.T) {
	e := setup(t)
	const n = 500
	got := parseOutputs(t, e.runHost(t, "run", e.dirs["pendulum"], strconv.Itoa(n)), "A")
	compareBits(t, "run", got, reference(t, "pendulum", n))
}

// TestThreads runs two instances of one library in two threads at once.
func TestThreads(t *testing.T) {
	e := setup(t)
	const n = 500
	got := parseOutputs(t, e.runHost(t, "threads", e.dirs["pendulum"], strconv.Itoa(n)), "A")
	compareBits(t, "threads", got, reference(t, "pendulum", n))
}

// TestTwoFMUs loads two different packed FMUs (two Go runtimes) into one
// process and runs them in two threads at once.
func TestTwoFMUs(t *testing.T) {
	e := setup(t)
	const n = 300
	out := e.runHost(t, "two", e.dirs["pendulum"], e.dirs["pendulum2"], strconv.Itoa(n))
	compareBits(t, "FMU A", parseOutputs(t, out, "A"), reference(t, "pendulum", n))
	compareBits(t, "FMU B", parseOutputs(t, out, "B"), reference(t, "pendulum2", n))
}

// TestChecks runs the host's checks: wrong-state calls, invalid value
// references, NULL pointers, unsupported functions, status queries, FMU
// state round trips, a discarded step, resource-location variants and
// instantiate/free cycles.
func TestChecks(t *testing.T) {
	e := setup(t)
	cmd := exec.Command(e.host, "checks", e.dirs["pendulum"], e.dirs["pendulum2"], e.dirs["pendulum_nan"])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	passed, failed := parseChecks(string(out))
	if err != nil || len(failed) > 0 || passed < 150 {
		t.Fatalf("host checks: %v, %d passed\n%s\nstderr:\n%s", err, passed, strings.Join(failed, "\n"), stderr.String())
	}
	t.Logf("%d checks passed through the C ABI", passed)
}

// The steady-state allocation test is TestNoAllocInSteadyState
// (alloc_test.go).

// BenchmarkCABI reports the cost of calls through the C ABI as measured by
// the C host (go test -run '^$' -bench CABI -benchtime 1x ./cabi).
func BenchmarkCABI(b *testing.B) {
	e := setup(b)
	var out string
	for b.Loop() {
		o, err := exec.Command(e.host, "bench", e.dirs["pendulum"]).Output()
		if err != nil {
			b.Fatal(err)
		}
		out = string(o)
	}
	r := strings.NewReplacer("(", "", ")", "", "=", "", ",", "")
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || f[0] != "bench" {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-2], 64)
		if err != nil {
			continue
		}
		b.ReportMetric(v, "ns/"+r.Replace(strings.Join(f[1:len(f)-2], "_")))
	}
}

// runtimeCopy makes the folder tmpRoot/name holding a copy of the Linux
// runtime library, beside which a test builds another platform's runtime
// (so that fmu.Pack adds it), and returns the folder and the copy's path.
func (e *env) runtimeCopy(t *testing.T, name string) (dir, lib string) {
	t.Helper()
	dir = filepath.Join(tmpRoot, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lib = filepath.Join(dir, fmu.RuntimeLibName)
	data, err := os.ReadFile(e.lib)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, lib
}
