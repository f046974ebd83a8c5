package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"mbfmu/fmu"
)

// The allocation tests count the Go heap allocations made while a C host
// calls the runtime library in a steady-state loop: the count must not
// change. The count is runtime.MemStats.Mallocs (every heap object,
// tiny ones included; ReadMemStats flushes the per-P caches, so it is
// exact), read by the C host at the loop's BEGIN and END markers through
// mbfmuTestMallocs, a function that only the probe build of the library
// exports. The probe build is the package as it is plus two test-only
// changes, made with go build -overlay so that no source file changes:
//
//   - probeSource, a file exporting mbfmuTestMallocs and defining
//     mbfmuTestInject, which allocates (and keeps) one 16-byte object when
//     the environment variable injectEnv is 1 and does nothing otherwise;
//   - a copy of exports.go whose fmi2DoStep calls mbfmuTestInject first.
//
// With injectEnv set every fmi2DoStep allocates: TestAllocCountSeesInjected
// proves that the check of TestNoAllocInSteadyState then fails (a leak of
// 3.2 MB, which the former criterion — no garbage collection in the loop,
// GODEBUG=gctrace=1 — let through).

// injectEnv, set to 1, makes every fmi2DoStep of the probe build allocate.
const injectEnv = "MBFMU_TEST_ALLOC_PER_DOSTEP"

// probeSource is added to the package in the probe build.
const probeSource = `package main

import "C"

import (
	"os"
	"runtime"
)

var probeStats runtime.MemStats // global: reading allocates nothing

//export mbfmuTestMallocs
func mbfmuTestMallocs() C.ulonglong {
	runtime.ReadMemStats(&probeStats)
	return C.ulonglong(probeStats.Mallocs)
}

type probeLeak struct {
	next *probeLeak
	pad  uint64
}

var (
	probeInject = os.Getenv("` + injectEnv + `") == "1"
	probeLeaks  *probeLeak
)

// mbfmuTestInject allocates and keeps 16 bytes when injectEnv is 1.
func mbfmuTestInject() {
	if probeInject {
		probeLeaks = &probeLeak{next: probeLeaks}
	}
}
`

// doStepAnchor is the line of fmi2DoStep after which the probe build calls
// mbfmuTestInject.
const doStepAnchor = "\tconst fn = \"fmi2DoStep\"\n"

// probe is the probe build and the FMUs packed with it.
type probe struct {
	lib  string
	dirs map[string]string // "pendulum", "furuta" → unpacked FMU folder
	err  error
}

var (
	probeOnce sync.Once
	probed    probe
)

// probeEnv builds the probe library once per test binary and packs the
// pendulum test model and examples/furuta with it.
func probeEnv(tb testing.TB) (*env, *probe) {
	tb.Helper()
	e := setup(tb)
	probeOnce.Do(func() { probed.err = buildProbe(&probed) })
	if probed.err != nil {
		tb.Fatal(probed.err)
	}
	return e, &probed
}

func buildProbe(p *probe) error {
	dir := filepath.Join(tmpRoot, "probe")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	src, err := os.ReadFile("exports.go")
	if err != nil {
		return err
	}
	if n := strings.Count(string(src), doStepAnchor); n != 1 {
		return fmt.Errorf("exports.go has %d lines %q, want 1: the probe build cannot put its allocation hook into fmi2DoStep (update doStepAnchor)", n, strings.TrimSpace(doStepAnchor))
	}
	patched := strings.Replace(string(src), doStepAnchor, doStepAnchor+"\tmbfmuTestInject()\n", 1)
	files := map[string]string{
		filepath.Join(dir, "probe.go"):    probeSource,
		filepath.Join(dir, "exports.go"):  patched,
		filepath.Join(dir, "exports.map"): "{\n  global: fmi2*; fmi3*; mbfmuTestMallocs;\n  local: *;\n};\n",
	}
	for f, s := range files {
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			return err
		}
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {
		filepath.Join(wd, "zz_probe.go"): filepath.Join(dir, "probe.go"),
		filepath.Join(wd, "exports.go"):  filepath.Join(dir, "exports.go"),
	}})
	if err != nil {
		return err
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return err
	}
	p.lib = filepath.Join(dir, "lib", fmu.RuntimeLibName)
	if err := buildRuntime(p.lib, " -extldflags=-Wl,--version-script="+filepath.Join(dir, "exports.map"), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -overlay="+overlay)); err != nil {
		return err
	}
	p.dirs = map[string]string{}
	for name, model := range map[string]string{
		"pendulum": filepath.Join("..", "fmu", "testdata", "pendulum.xml"),
		"furuta":   filepath.Join("..", "examples", "furuta", "model.xml"),
		"furuta3":  filepath.Join("..", "examples", "furuta", "model.xml"), // FMI 3.0 (host3.c)
	} {
		f := filepath.Join(dir, name+".fmu")
		version := 2
		if strings.HasSuffix(name, "3") {
			version = 3
		}
		if _, err := fmu.PackVersion(model, f, p.lib, version); err != nil {
			return fmt.Errorf("packing %s with the probe library: %v", name, err)
		}
		p.dirs[name] = filepath.Join(dir, "unpacked", name)
		if err := unzip(f, p.dirs[name]); err != nil {
			return err
		}
	}
	return nil
}

// loopAllocs returns the number of Go heap allocations between the
// host's markers, from its "MALLOCS BEGIN n" and "MALLOCS END n" lines.
func loopAllocs(stderr string) (uint64, error) {
	var at [2]uint64
	var seen [2]bool
	for _, l := range strings.Split(stderr, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != "MALLOCS" {
			continue
		}
		i := 0
		switch f[1] {
		case "BEGIN":
		case "END":
			i = 1
		default:
			return 0, fmt.Errorf("bad line %q", l)
		}
		v, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil || seen[i] {
			return 0, fmt.Errorf("bad or repeated line %q", l)
		}
		at[i], seen[i] = v, true
	}
	if !seen[0] || !seen[1] {
		return 0, fmt.Errorf("the host printed no allocation counts (is mbfmuTestMallocs exported?):\n%s", stderr)
	}
	if at[1] < at[0] {
		return 0, fmt.Errorf("allocation count went down, %d → %d", at[0], at[1])
	}
	return at[1] - at[0], nil
}

// checkNoAllocs is the criterion of TestNoAllocInSteadyState: it returns
// an error when the loop allocated.
func checkNoAllocs(stderr string) error {
	n, err := loopAllocs(stderr)
	if err != nil {
		return err
	}
	if n != 0 {
		return fmt.Errorf("%d Go heap allocations during the steady-state loop, want 0", n)
	}
	return nil
}

// runProbeHost runs the C host with extra environment variables and
// returns its standard error.
func runProbeHost(t *testing.T, e *env, envv []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(e.host, args...)
	cmd.Env = append(os.Environ(), envv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("host %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return stderr.String()
}

// TestNoAllocInSteadyState counts the Go heap allocations of the calls a
// real-time master makes in its steady state, through the C ABI: the
// host's "alloc" loop on the pendulum (2·10⁵ × set input, fmi2DoStep, get
// outputs, status, a reused FMU state) and its "loop" mode on
// examples/furuta (5000 steps of the balancing loop). Both must make no
// allocation at all: the path, exports included, allocates nothing, so a
// real-time master never waits for the garbage collector.
func TestNoAllocInSteadyState(t *testing.T) {
	e, p := probeEnv(t)
	if err := checkNoAllocs(runProbeHost(t, e, nil, "alloc", p.dirs["pendulum"])); err != nil {
		t.Errorf("pendulum, host alloc: %v", err)
	}
	if err := checkNoAllocs(runProbeHost(t, e, nil, furutaLoopArgs(t, p.dirs["furuta"], 5000)...)); err != nil {
		t.Errorf("furuta, host loop: %v", err)
	}
	// FMI 3.0: fmi3SetFloat64, fmi3DoStep, fmi3GetFloat64 of arrays, scalars
	// and time in one call (host3 alloc, 10⁴ steps)
	_, e3 := setup3(t)
	h3 := *e
	h3.host = e3.host
	args := append([]string{"alloc", p.dirs["furuta3"]}, newSpec3(t, e3.descs["furuta3"]).args()...)
	if err := checkNoAllocs(runProbeHost(t, &h3, nil, args...)); err != nil {
		t.Errorf("furuta FMI 3.0, host3 alloc: %v", err)
	}
	// and fmi3DoStep with an intermediate-update callback that reads and
	// sets values at each internal point (its answer once came back
	// through two heap-allocated Go variables, at every internal point)
	args[0] = "allociu"
	if err := checkNoAllocs(runProbeHost(t, &h3, nil, args...)); err != nil {
		t.Errorf("furuta FMI 3.0, host3 allociu: %v", err)
	}
}

// TestAllocCountSeesInjected proves that TestNoAllocInSteadyState can
// fail: with the probe build's hook on, every fmi2DoStep allocates one
// 16-byte object (3.2 MB kept over the loop), the count between the
// markers is at least the number of fmi2DoStep calls, and checkNoAllocs
// reports it. It also runs GODEBUG=gctrace=1 and logs how many garbage
// collections the former criterion would have seen.
func TestAllocCountSeesInjected(t *testing.T) {
	e, p := probeEnv(t)
	stderr := runProbeHost(t, e, []string{injectEnv + "=1", "GODEBUG=gctrace=1"}, "alloc", p.dirs["pendulum"])
	n, err := loopAllocs(stderr)
	if err != nil {
		t.Fatal(err)
	}
	const steps = 200000 // fmi2DoStep calls between the host's markers
	if n < steps {
		t.Errorf("%d allocations counted with one injected per fmi2DoStep, want at least %d", n, steps)
	}
	if checkNoAllocs(stderr) == nil {
		t.Error("checkNoAllocs passed a loop that allocates at every fmi2DoStep")
	}
	b, en := strings.Index(stderr, "BEGIN\n"), strings.Index(stderr, "END\n")
	if b < 0 || en < b {
		t.Fatalf("markers missing:\n%s", stderr)
	}
	t.Logf("injected: %d allocations counted in the loop; garbage collections in it (the former criterion): %d", n, strings.Count(stderr[b:en], "gc "))
}
