package fmu

import (
	"math"
	"path/filepath"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// Value references of the oscillator's states: the position, the velocity
// (its derivative) and the acceleration (der of the velocity).
const (
	vrSX = 5
	vrSV = 6
	vrSA = 7
)

// The states of the closed-form oscillator m x″ = u − k x and their exact
// Jacobian through the FMI layer: ∂ẍ/∂x = −k/m, ∂ẍ/∂u = 1/m, ∂ẋ/∂v = 1,
// the outputs x, v follow the states and do not depend on the input.
func TestDirectionalDerivativeOscillator(t *testing.T) {
	const k, m = 4.0, 2.0
	in, l := newOscInstance(t, newOsc(k, m), "g")
	var dv [4]float64
	if st := in.GetDirectionalDerivative([]uint32{vrSA}, []uint32{vrSX}, []float64{1}, dv[:1]); st != Error {
		t.Errorf("before initialisation: %s, want fmi2Error", st)
	}
	startInstance(t, in)
	must(t, in.SetReal([]uint32{vrU}, []float64{0.6}), "u")
	must(t, in.DoStep(0, 0.37, true), "step")
	x := getReal(t, in, vrX, vrV, vrSX, vrSV, vrSA)
	if x[2] != x[0] || x[3] != x[1] || math.Abs(x[4]-(0.6-k*x[0])/m) > 1e-15 {
		t.Errorf("states %v, want x, v and (u − k x)/m", x)
	}
	// the derivatives follow the input as set
	must(t, in.SetReal([]uint32{vrU}, []float64{1.6}), "u")
	if a := getReal(t, in, vrSA)[0]; math.Abs(a-(1.6-k*x[0])/m) > 1e-15 {
		t.Errorf("acceleration after setting u: %g, want %g", a, (1.6-k*x[0])/m)
	}
	for _, c := range []struct {
		what           string
		unknown, known []uint32
		seed, want     []float64
	}{
		{"∂(ẍ, x, v, ẋ)/∂x", []uint32{vrSA, vrX, vrV, vrSV}, []uint32{vrSX}, []float64{1}, []float64{-k / m, 1, 0, 0}},
		{"∂(ẍ, x, v, ẋ)/∂v", []uint32{vrSA, vrX, vrV, vrSV}, []uint32{vrSV}, []float64{1}, []float64{0, 0, 1, 1}},
		{"∂(ẍ, x, v)/∂u: no feedthrough to the outputs", []uint32{vrSA, vrX, vrV}, []uint32{vrU}, []float64{1}, []float64{1 / m, 0, 0}},
		{"a combined seed", []uint32{vrSA, vrX}, []uint32{vrU, vrSX, vrSX}, []float64{2, 0.5, 0.25}, []float64{(2 - k*0.75) / m, 0.75}},
	} {
		got := make([]float64, len(c.unknown))
		must(t, in.GetDirectionalDerivative(c.unknown, c.known, c.seed, got), c.what)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-15 {
				t.Errorf("%s: %v, want %v", c.what, got, c.want)
				break
			}
		}
	}
	// misuse: an input or a parameter as unknown, an output or a derivative
	// as known, a non-finite seed, a state set
	for _, c := range []struct {
		unknown, known []uint32
		seed           float64
		log            string
	}{
		{[]uint32{vrU}, []uint32{vrSX}, 1, "the unknowns are outputs"},
		{[]uint32{vrK}, []uint32{vrSX}, 1, "the unknowns are outputs"},
		{[]uint32{vrSA}, []uint32{vrX}, 1, "is not a known"},
		{[]uint32{vrSA}, []uint32{vrSA}, 1, "is not a known"},
		{[]uint32{vrSA}, []uint32{vrSX}, math.NaN(), "not finite"},
		{[]uint32{99}, []uint32{vrSX}, 1, "unknown value reference 99"},
	} {
		if st := in.GetDirectionalDerivative(c.unknown, c.known, []float64{c.seed}, dv[:1]); st != Error || !l.has(c.log) {
			t.Errorf("GetDirectionalDerivative(%v, %v, %v): %s, want fmi2Error logging %q", c.unknown, c.known, c.seed, st, c.log)
		}
	}
	if st := in.SetReal([]uint32{vrSX}, []float64{1}); st != Error || !l.has("cannot be set") {
		t.Errorf("SetReal of a state: %s", st)
	}
}

// The pendulum on the engine through the FMI layer: the states read as
// the engine's, the derivatives and the directional derivatives equal
// package solver's bit for bit, the outputs' derivative with respect to
// the input is zero, stepping on is not disturbed, and nothing is
// allocated after the first call.
func TestDirectionalDerivativeEngine(t *testing.T) {
	in, _ := newPendulum(t)
	startInstance(t, in)
	spec, err := xml.LoadFile(filepath.Join("testdata", "pendulum.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	const h = 0.01
	vr := map[string]uint32{}
	for _, v := range in.Description().Variables {
		vr[v.Name] = v.VR
	}
	states := []string{"link.cm.x", "link.cm.y", "link.angle", "der(link.cm.x)", "der(link.cm.y)", "der(link.angle)"}
	unknowns := []uint32{vr["tip_x"], vr["tip_y"], vr["omega"], vr["der(der(link.cm.x))"], vr["der(der(link.cm.y))"], vr["der(der(link.angle))"], vr["der(link.angle)"]}
	got := make([]float64, len(unknowns))
	jq, jv, jy := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	for k := 1; k <= 50; k++ {
		u := 0.3 * math.Sin(0.2*float64(k))
		must(t, in.SetReal([]uint32{pvTau}, []float64{u}), "tau")
		must(t, in.DoStep(float64(k-1)*h, h, true), "step")
		s.SetInput(0, u)
		if err := m.AdvanceTo(s, float64(k)*h); err != nil {
			t.Fatal(err)
		}
		if k%10 != 0 {
			continue
		}
		// the states and their derivatives
		st := getReal(t, in, vr["link.cm.x"], vr["der(link.angle)"], vr["der(der(link.angle))"])
		dq, dv := make([]float64, 3), make([]float64, 3)
		if err := m.StateDerivatives(s, dq, dv); err != nil {
			t.Fatal(err)
		}
		if st[0] != s.Q()[0] || st[1] != s.V()[2] || st[2] != dv[2] {
			t.Errorf("step %d: states and derivative %v, engine %v %v %v", k, st, s.Q()[0], s.V()[2], dv[2])
		}
		// with respect to each state: as package solver computes it
		for j, name := range states {
			must(t, in.GetDirectionalDerivative(unknowns, []uint32{vr[name]}, []float64{1}, got), "dirderiv")
			sq, sv := make([]float64, 3), make([]float64, 3)
			if j < 3 {
				sq[j] = 1
			} else {
				sv[j-3] = 1
			}
			if err := m.DirectionalDerivative(s, sq, sv, nil, jq, jv, jy); err != nil {
				t.Fatal(err)
			}
			want := []float64{jy[0], jy[1], jy[2], jv[0], jv[1], jv[2], sv[2]}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("step %d, ∂/∂%s: %v, package solver %v", k, name, got, want)
					break
				}
			}
		}
		// with respect to the input: the accelerations move, the outputs do not
		must(t, in.GetDirectionalDerivative(unknowns, []uint32{pvTau}, []float64{1}, got), "dirderiv tau")
		if err := m.DirectionalDerivative(s, make([]float64, 3), make([]float64, 3), []float64{1}, jq, jv, nil); err != nil {
			t.Fatal(err)
		}
		if got[0] != 0 || got[1] != 0 || got[2] != 0 || got[3] != jv[0] || got[4] != jv[1] || got[5] != jv[2] || got[6] != 0 {
			t.Errorf("step %d, ∂/∂tau: %v, want 0 0 0 %v 0", k, got, jv)
		}
	}
	// the calls did not disturb the run
	y := make([]float64, 3)
	m.EvalOutputs(s, y)
	if o := getReal(t, in, pvTipX, pvTipY, pvOmega); o[0] != y[0] || o[1] != y[1] || o[2] != y[2] {
		t.Errorf("outputs after the calls %v, engine %v", o, y)
	}
	known := []uint32{vr["link.angle"], vr["der(link.angle)"], pvTau}
	seed := []float64{0.1, -0.2, 0.3}
	der := []uint32{vr["der(der(link.angle))"]}
	if a := testing.AllocsPerRun(50, func() {
		must(t, in.GetDirectionalDerivative(unknowns, known, seed, got), "dirderiv")
		must(t, in.SetReal([]uint32{pvTau}, []float64{0.1}), "tau")
		must(t, in.GetReal(der, got[:1]), "der")
	}); a != 0 {
		t.Errorf("%v allocations per GetDirectionalDerivative, SetReal and GetReal of a derivative", a)
	}
}

// A fixed parameter that changes the number of coordinates (beam elements)
// recompiles a model whose states the variable table cannot hold: they
// are then refused with a message, and everything else works.
func TestStatesOfAnotherLayout(t *testing.T) {
	o := newOsc(4, 1)
	o2 := newOsc(4, 1)
	o2.mi.qs = append(o2.mi.qs, stateVar{name: "extra", deriv: 1, rotQ: -1, rotV: -1})
	in, l := newOscInstance(t, o, "g")
	in.compile = func(map[string]float64) (engineModel, error) { return o2, nil }
	must(t, in.SetReal([]uint32{vrM}, []float64{2}), "m")
	startInstance(t, in)
	v := make([]float64, 1)
	if st := in.GetReal([]uint32{vrSX}, v); st != Error || !l.has("number of beam elements") {
		t.Errorf("state of another layout: %s", st)
	}
	if st := in.GetDirectionalDerivative([]uint32{vrSA}, []uint32{vrSX}, []float64{1}, v); st != Error {
		t.Errorf("directional derivative of another layout: %s", st)
	}
	must(t, in.DoStep(0, 0.1, true), "step")
	getReal(t, in, vrX, vrV)
}
