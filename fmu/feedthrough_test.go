package fmu

import (
	"math"
	"testing"
)

// feedModel is a 2 kg body pushed by an input force, with outputs that read
// an acceleration and a force.
const feedModel = `<?xml version="1.0" encoding="UTF-8"?>
<model name="feed">
  <settings end="1 s" step="1 ms" output-step="10 ms" gravity="0 0"/>
  <input name="F" unit="N" start="0"/>
  <ground><marker name="O"/></ground>
  <body name="cart" mass="2 kg" inertia="0.01 kg*m^2"/>
  <force name="push" i="cart" fx="F"/>
  <output name="a" channel="cart.ax"/>
  <output name="x" channel="cart.x"/>
  <output name="f" channel="push.fx"/>
</model>
`

// The outputs declare no dependency on the inputs (ModelStructure), and the
// FMU behaves so: outputs are those of the last communication point, and
// setting an input does not change them — not even an acceleration or a
// force that reads the input — until the next fmi2DoStep, after which they
// are those of the new input (a = F/m, x = ½ a h², f = F). The directional
// derivative ∂y/∂u reports the same: 0.
func TestOutputsChangeOnlyAtDoStep(t *testing.T) {
	in, _ := instantiateText(t, feedModel)
	startInstance(t, in)
	vr := map[string]uint32{}
	for _, v := range in.desc.Variables {
		vr[v.Name] = v.VR
	}
	outs := []uint32{vr["a"], vr["x"], vr["f"]}
	get := func() []float64 {
		v := make([]float64, 3)
		if st := in.GetReal(outs, v); st != OK {
			t.Fatalf("GetReal: %s", st)
		}
		return v
	}
	if st := in.DoStep(0, 0.01, true); st != OK {
		t.Fatal(st)
	}
	before := get()
	if st := in.SetReal([]uint32{vr["F"]}, []float64{4}); st != OK {
		t.Fatal(st)
	}
	if after := get(); after[0] != before[0] || after[1] != before[1] || after[2] != before[2] {
		t.Errorf("outputs changed when the input was set without a step: %v → %v", before, after)
	}
	dy := make([]float64, 3)
	if st := in.GetDirectionalDerivative(outs, []uint32{vr["F"]}, []float64{1}, dy); st != OK {
		t.Fatal(st)
	}
	if dy[0] != 0 || dy[1] != 0 || dy[2] != 0 {
		t.Errorf("∂y/∂u = %v, want 0 (declared: no input dependency)", dy)
	}
	if st := in.DoStep(0.01, 0.01, true); st != OK {
		t.Fatal(st)
	}
	y := get()
	if math.Abs(y[0]-2) > 1e-12 || math.Abs(y[1]-1e-4) > 1e-15 || y[2] != 4 {
		t.Errorf("after the step: a, x, f = %v, want 2 m/s², 1e-4 m, 4 N", y)
	}
}

// A communication step the FMU cannot compute in bounded time returns
// fmi2Error with a log line instead of fmi2OK with the time jumped and
// frozen outputs (h = 1e16…1e300), or hours of computing (1e5…1e15 s at a
// 1 ms model step), or a hang (DBL_MAX); the instance then goes on.
func TestHugeCommunicationStepsRefused(t *testing.T) {
	in, l := instantiateText(t, feedModel)
	startInstance(t, in)
	for _, h := range []float64{1e5, 1e15, 1e16, 1e300, math.MaxFloat64} {
		if st := in.DoStep(0, h, true); st != Error {
			t.Errorf("fmi2DoStep(0, %g): %s, want fmi2Error", h, st)
		}
	}
	if !l.has("internal steps of 0.001 s, more than the 1e+07 one call may take") {
		t.Error("no log line says why")
	}
	if st := in.DoStep(0, 0.01, true); st != OK {
		t.Fatalf("a normal step after the refusals: %s", st)
	}
}
