package cosim

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// freeBody is a plant with an exact zero-order-hold response: a free body
// pushed by F, integrated by RK4 (exact for a force constant over the
// step): v⁺ = v + h·F/m, x⁺ = x + h·v + h²·F/(2m).
const freeBody = `<model name="free_body">
  <settings step="1 ms" integrator="rk4" gravity="0 0"/>
  <input name="F" unit="N"/>
  <body name="b" mass="2 kg" inertia="0.1"><marker name="c"/></body>
  <force name="push" i="b.c" fx="F"/>
  <output name="x" channel="b.x"/>
  <output name="vx" channel="b.vx"/>
</model>`

const bodyMass = 2.0

// A third-party FMU written in C (testdata/pi, a PI controller) is built
// with gcc, zipped, loaded with dlopen and closes a velocity loop around an
// in-process model. The loop is checked step by step against the difference
// equations it must follow: the FMU's output at t_k comes from the inputs
// it got at t_{k−1} (stepped components exchange with one macro step of
// delay).
func TestThirdPartyCFMU(t *testing.T) {
	dir := t.TempDir()
	pi := piFMU(t, dir)
	writeFile(t, dir, "body.xml", freeBody)
	cfgPath := writeFile(t, dir, "loop.xml", `<cosim name="pi-loop">
  <settings end="1 s" step="1 ms"/>
  <model name="plant" path="body.xml"/>
  <fmu name="pi" path="pi_controller.fmu" logging="true">
    <parameter name="kp" value="20"/>
    <parameter name="ki" value="40"/>
  </fmu>
  <signal name="ref" expr="1" unit="m/s"/>
  <connect from="ref.y" to="pi.r"/>
  <connect from="plant.vx" to="pi.y"/>
  <connect from="pi.u" to="plant.F"/>
</cosim>`)
	_ = pi
	cfg, err := LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	m, err := New(cfg, Options{Log: func(s string) { logs = append(logs, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if f := m.comps[1].(*fmuComp); f.inProc {
		t.Fatal("the C FMU was taken for an mbfmu FMU")
	}
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Steps != 1000 {
		t.Errorf("%d steps, want 1000", sum.Steps)
	}
	// The FMU logged through the variadic C logger.
	if len(logs) == 0 || !strings.Contains(logs[0], "instantiated") || !strings.Contains(logs[0], "pi [OK, logAll]") {
		t.Errorf("log messages %q, want the FMU's \"instantiated\"", logs)
	}
	// Reference recursion.
	const kp, ki, h, r = 20.0, 40.0, 1e-3, 1.0
	v, x, in, u := 0.0, 0.0, 0.0, 0.0 // u at t0: kp·(r − y) with the start values r = y = 0
	xs, vs, us := w.col(t, "plant.x"), w.col(t, "plant.vx"), w.col(t, "pi.u")
	for k := range w.rows {
		if d := math.Max(math.Abs(vs[k]-v), math.Abs(xs[k]-x)); d > 1e-12 {
			t.Fatalf("step %d: plant (x, v) = (%.15g, %.15g), reference (%.15g, %.15g)", k, xs[k], vs[k], x, v)
		}
		if math.Abs(us[k]-u) > 1e-12 {
			t.Fatalf("step %d: FMU output %.15g, reference %.15g", k, us[k], u)
		}
		e := r - v
		x, v = x+h*v+h*h*u/(2*bodyMass), v+h*u/bodyMass
		in += ki * e * h
		u = kp*e + in
	}
	if math.Abs(vs[len(vs)-1]-1) > 0.05 {
		t.Errorf("final speed %g, want near 1", vs[len(vs)-1])
	}
}

// A C FMU whose GUID does not match its modelDescription.xml is refused,
// with the FMU's own log message.
func TestThirdPartyCFMUErrors(t *testing.T) {
	dir := t.TempDir()
	pi := piFMU(t, dir)
	_ = pi
	// Unpacked folder with a wrong GUID.
	root := filepath.Join(dir, "pi_unpacked")
	md, err := os.ReadFile(filepath.Join(root, "modelDescription.xml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "modelDescription.xml"), []byte(strings.Replace(string(md), "f000}", "f001}", 1)), 0o644)
	cfgPath := writeFile(t, dir, "bad.xml", `<cosim><settings end="0.01" step="1 ms"/>
  <fmu name="pi" path="pi_unpacked"/>
  <signal name="a" expr="1"/>
  <connect from="a.y" to="pi.r"/>
</cosim>`)
	cfg, err := LoadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	err = m.Init()
	if err == nil || !strings.Contains(err.Error(), "wrong fmuType or GUID") {
		t.Errorf("error %v, want the FMU's GUID message", err)
	}
	// A missing binary is a clear error too.
	os.Remove(filepath.Join(root, "binaries", "linux64", "pi_controller.so"))
	m2, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if err := m2.Init(); err == nil || !strings.Contains(err.Error(), "pi_controller.so") {
		t.Errorf("error %v, want one naming the missing binary", err)
	}
}
