package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"mbfmu/fmu"
)

// The spatial flagship, examples/furuta, through the C ABI: the balancing
// loop run by the C host (set the motor torque, fmi2DoStep of 1 ms, read
// the four outputs) on the FMU packed with the runtime library.

// furutaGain is the state feedback of the loop, u = Σ gₖ·yₖ on the outputs
// theta, theta_dot, alpha, alpha_dot: the LQR of the reference example
// (examples/furuta/README.md, Q = I, R = 1, u = −K·x), which
// examples/furuta/cosim.xml designs from the engine's linearisation.
var furutaGain = []struct {
	name string
	g    float64
}{{"theta", 1.0}, {"theta_dot", 1.3164218028}, {"alpha", 18.3030000516}, {"alpha_dot", 2.7748074401}}

var (
	furutaOnce sync.Once
	furutaDir  string
	furutaErr  error
)

// furutaFMU packs examples/furuta/model.xml with the runtime library and
// unpacks it, once per test binary.
func furutaFMU(tb testing.TB) (e *env, dir string) {
	tb.Helper()
	e = setup(tb)
	furutaOnce.Do(func() {
		p := filepath.Join(tmpRoot, "furuta.fmu")
		if furutaErr = fmu.Pack(filepath.Join("..", "examples", "furuta", "model.xml"), p, e.lib); furutaErr != nil {
			return
		}
		furutaDir = filepath.Join(tmpRoot, "unpacked fmus", "furuta")
		furutaErr = unzip(p, furutaDir)
	})
	if furutaErr != nil {
		tb.Fatal(furutaErr)
	}
	return e, furutaDir
}

// furutaLoopArgs returns the host's arguments for the loop: N, H, the
// value references of tau and of the outputs with their gains.
func furutaLoopArgs(tb testing.TB, dir string, n int) []string {
	tb.Helper()
	d, err := fmu.Describe(filepath.Join(dir, "resources", fmu.ModelFileName))
	if err != nil {
		tb.Fatal(err)
	}
	vr := map[string]uint32{}
	for _, v := range d.Variables {
		vr[v.Name] = v.VR
	}
	args := []string{"loop", dir, strconv.Itoa(n), "0.001", strconv.Itoa(int(vr["tau"]))}
	for _, o := range furutaGain {
		args = append(args, strconv.Itoa(int(vr[o.name])), strconv.FormatFloat(o.g, 'g', -1, 64))
	}
	return args
}

// loopResult is the host's report of a loop run.
type loopResult struct {
	median, p99, max float64 // ns per fmi2DoStep
	u                float64
	y                []float64
	stderr           string
}

func runLoop(tb testing.TB, e *env, args []string, envv ...string) loopResult {
	tb.Helper()
	cmd := exec.Command(e.host, args...)
	cmd.Env = append(os.Environ(), envv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("host %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	var r loopResult
	r.stderr = stderr.String()
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 17 && f[0] == "loop" && strings.HasPrefix(f[1], "fmi2DoStep"):
			r.median, _ = strconv.ParseFloat(f[9], 64)
			r.p99, _ = strconv.ParseFloat(f[12], 64)
			r.max, _ = strconv.ParseFloat(f[15], 64)
		case len(f) > 7 && f[0] == "loop" && f[1] == "last":
			r.u, _ = strconv.ParseFloat(f[4], 64)
			for _, s := range f[7:] {
				v, _ := strconv.ParseFloat(s, 64)
				r.y = append(r.y, v)
			}
		}
	}
	if r.median == 0 || len(r.y) != len(furutaGain) {
		tb.Fatalf("unexpected host output:\n%s", out)
	}
	return r
}

// TestFurutaCABILoop runs the balancing loop for 5 s through the C ABI:
// the pendulum ends upright, and the last outputs are bit for bit those of
// the same loop run in-process on package fmu. (That the loop allocates
// nothing is checked by TestNoAllocInSteadyState, which counts the
// allocations.)
func TestFurutaCABILoop(t *testing.T) {
	e, dir := furutaFMU(t)
	const n = 5000
	r := runLoop(t, e, furutaLoopArgs(t, dir, n))
	if a := math.Abs(r.y[2]); a > 1e-4 {
		t.Errorf("pendulum at %g rad after 5 s: the loop did not balance it", r.y[2])
	}
	t.Logf("fmi2DoStep (h = 1 ms) through the C ABI: median %.0f ns, p99 %.0f ns, max %.0f ns", r.median, r.p99, r.max)

	// the same loop in-process
	data, err := os.ReadFile(filepath.Join(dir, "resources", fmu.ModelFileName))
	if err != nil {
		t.Fatal(err)
	}
	in, err := fmu.Instantiate(fmu.Config{InstanceName: "furuta", GUID: fmu.GUID(data), ResourceLocation: filepath.Join(dir, "resources")})
	if err != nil {
		t.Fatal(err)
	}
	vr := map[string]uint32{}
	for _, v := range in.Description().Variables {
		vr[v.Name] = v.VR
	}
	if in.SetupExperiment(false, 0, 0, false, 0) != fmu.OK || in.EnterInitializationMode() != fmu.OK || in.ExitInitializationMode() != fmu.OK {
		t.Fatal("initialisation failed")
	}
	vy := make([]uint32, len(furutaGain))
	for i, o := range furutaGain {
		vy[i] = vr[o.name]
	}
	y, u := make([]float64, len(vy)), []float64{0}
	in.GetReal(vy, y)
	for k := 0; k < n; k++ {
		u[0] = 0
		for i, o := range furutaGain {
			u[0] += float64(o.g * y[i]) // no fused multiply-add: as the C host
		}
		in.SetReal([]uint32{vr["tau"]}, u)
		if st := in.DoStep(float64(k)*1e-3, 1e-3, true); st != fmu.OK {
			t.Fatalf("in-process doStep %d: %v", k, st)
		}
		in.GetReal(vy, y)
	}
	for i := range y {
		if math.Float64bits(y[i]) != math.Float64bits(r.y[i]) {
			t.Errorf("output %s after %d steps: %.17g through the C ABI, %.17g in-process", furutaGain[i].name, n, r.y[i], y[i])
		}
	}
}

// BenchmarkCABIFuruta reports the time of one fmi2DoStep (h = 1 ms) of the
// Furuta FMU in the balancing loop, measured call by call by the C host
// over 20 s of simulated time (go test -run '^$' -bench CABIFuruta
// -benchtime 1x ./cabi): median and 99th percentile.
func BenchmarkCABIFuruta(b *testing.B) {
	e, dir := furutaFMU(b)
	var r loopResult
	for b.Loop() {
		r = runLoop(b, e, furutaLoopArgs(b, dir, 20000))
	}
	b.ReportMetric(r.median, "ns/doStep-median")
	b.ReportMetric(r.p99, "ns/doStep-p99")
	fmt.Fprintf(os.Stderr, "furuta fmi2DoStep (h = 1 ms) through the C ABI: median %.2f µs, p99 %.2f µs, max %.2f µs\n", r.median/1e3, r.p99/1e3, r.max/1e3)
}
