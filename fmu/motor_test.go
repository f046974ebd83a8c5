package fmu

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// A DC motor's current is a state of its own: through the FMU the run
// equals the engine's bit for bit, a saved and restored FMU state replays
// bit for bit, and the modelDescription (valid against the XSD) declares
// the current among the continuous states, with der(m.current) in
// <Derivatives> (TestElementStatesFMI2).
const motorModel = `<model name="servo"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <input name="V" start="12" description="armature voltage, V"/>
  <ground><marker name="A"/></ground>
  <body name="wheel" mass="1" inertia="0.008"/>
  <revolute name="shaft" i="ground.A" j="wheel"/>
  <motor name="m" joint="shaft" voltage="V" resistance="1" inductance="0.01" kt="0.1" rotor-inertia="0.002"/>
  <output name="omega" channel="wheel.omega"/>
  <output name="i" channel="m.current"/>
</model>
`

func TestMotorThroughFMU(t *testing.T) {
	in, _ := instantiateText(t, motorModel)
	startInstance(t, in)
	vrs := varRefs(t, in, "V", "omega", "i")
	uV, outs := vrs[0], vrs[1:]
	doSteps(t, in, 0, 200, 1e-3)
	want := replaysFromSaved(t, in, uV, 6, 200, 400, 1e-3, outs)
	// the engine alone, the same steps
	ms, err := xml.Parse([]byte(motorModel), "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 400; k++ {
		if k == 200 {
			s.SetInput(0, 6)
		}
		if err := m.Step(s, 1e-3); err != nil {
			t.Fatal(err)
		}
	}
	y := make([]float64, 2)
	m.EvalOutputs(s, y)
	if math.Float64bits(y[0]) != math.Float64bits(want[0]) || math.Float64bits(y[1]) != math.Float64bits(want[1]) {
		t.Errorf("FMU %v, engine %v", want, y)
	}
	// the current is a declared state; the description is valid
	dir := t.TempDir()
	path := filepath.Join(dir, "model.xml")
	if err := os.WriteFile(path, []byte(motorModel), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Describe(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(d.XML())
	if !strings.Contains(md, "<Derivatives>") || !strings.Contains(md, `<ScalarVariable name="m.current"`) || !strings.Contains(md, `<ScalarVariable name="der(m.current)"`) {
		t.Errorf("the description does not declare the motor's current as a continuous state:\n%s", md)
	}
	validateXSD(t, d.XML())
}
