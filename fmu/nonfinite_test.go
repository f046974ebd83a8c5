package fmu

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A model whose torque becomes NaN after t = 0.25 s (line 8), and the
// same with a torque infinite from the start.
const nanTorque = `<?xml version="1.0" encoding="UTF-8"?>
<model name="nan_torque">
  <settings end="1 s" step="1 ms" output-step="10 ms"/>
  <ground><marker name="O"/></ground>
  <body name="link" mass="1 kg" inertia="0.01 kg*m^2" at="0.5 0"><marker name="pin" at="-0.5 0"/></body>
  <revolute name="pivot" i="ground.O" j="link.pin"/>
  <output name="omega" channel="link.omega"/>
  <torque name="kick" i="link" t="sqrt(0.25 - time)"/>
</model>
`

// instantiateText writes a model as an unpacked FMU's resources and
// instantiates it.
func instantiateText(t testing.TB, text string) (*Instance, *testLog) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "resources"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "resources", ModelFileName), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &testLog{}
	in, err := Instantiate(Config{GUID: GUID([]byte(text)), ResourceLocation: dir + "/resources/", Logger: l.logger()})
	if err != nil {
		t.Fatal(err)
	}
	return in, l
}

// A force that becomes NaN during the run: fmi2DoStep returns
// fmi2Discard at the step that crosses t = 0.25 s, and the log names the
// torque, its attribute and its line.
func TestNonFiniteForceDiscardsNamingIt(t *testing.T) {
	in, l := instantiateText(t, nanTorque)
	startInstance(t, in)
	st := OK
	k := 0
	for ; st == OK && k < 100; k++ {
		st = in.DoStep(float64(k)*0.01, 0.01, true)
	}
	if st != Discard || k != 26 {
		t.Fatalf("step %d returned %s; want fmi2Discard at the step ending at 0.26 s", k, st)
	}
	if lt, _ := in.GetRealStatus(LastSuccessfulTime); lt < 0.25-1e-12 || lt > 0.26 {
		t.Errorf("LastSuccessfulTime %v, want within the failing step [0.25, 0.26]", lt)
	}
	if !l.has(`model.xml:8: t: torque "kick": sqrt(0.25 - time) is NaN at t = 0.25`) {
		t.Errorf("log does not name the torque: %v", l.recs)
	}
	for _, v := range getReal(t, in, 0) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("output after the discard is %v", v)
		}
	}
}

// A force infinite at the start: fmi2ExitInitializationMode fails with a
// message naming it.
func TestNonFiniteForceAtStartFailsInit(t *testing.T) {
	in, l := instantiateText(t, strings.Replace(nanTorque, "sqrt(0.25 - time)", "1/(time-time)", 1))
	must(t, in.SetupExperiment(false, 0, 0, false, 0), "setup")
	must(t, in.EnterInitializationMode(), "enter")
	if st := in.ExitInitializationMode(); st != Error {
		t.Fatalf("ExitInitializationMode: %s, want fmi2Error", st)
	}
	if !l.has(`model.xml:8: t: torque "kick": 1/(time-time) is +Inf at t = 0 s`) {
		t.Errorf("log does not name the torque: %v", l.recs)
	}
}
