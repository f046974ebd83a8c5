package main

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mbfmu/fmu"
	"mbfmu/solver"
	"mbfmu/xml"
)

// fmi2GetDirectionalDerivative through the C ABI (providesDirectionalDerivative):
// the C host (mode jac) runs a model, then asks for the derivatives of the
// outputs and state derivatives with respect to every state and input.
// With respect to the inputs, which a master can set, they must match
// central differences of fmi2GetReal of the same variables as the input is
// set to u ± δ (zero for the outputs: no direct feedthrough); with respect
// to the states, which a master cannot set, they must equal, bit for bit,
// package solver's DirectionalDerivative on the engine run in-process. And
// the calls must not disturb the run.

// cantileverXML is a small flexible model: an ANCF cantilever under a tip
// load (input) and gravity.
const cantileverXML = `<model name="cantilever">
  <settings end="1 s" step="1 ms" output-step="1 ms" integrator="genalpha" gravity="0 -9.81"/>
  <input name="P" unit="N" start="-2"/>
  <ground><marker name="O"/></ground>
  <beam kind="ancf" name="rod" at="0 0" angle="0" length="1 m" elements="4"
        area="4e-4 m^2" area-moment="1.333e-8 m^4" youngs="2e8 Pa" density="7.2e3 kg/m^3">
    <marker name="root" s="0"/>
    <marker name="tip" s="1 m"/>
  </beam>
  <fixed name="clamp" i="ground.O" j="rod.root"/>
  <force name="load" i="rod.tip" fy="P"/>
  <output name="tip_y" channel="rod.tip.y"/>
  <output name="tip_vy" channel="rod.tip.vy"/>
  <output name="clamp_fy" channel="clamp.fy"/>
</model>`

// jacInput is the host's input i during step k (jac_input, exact in binary64).
func jacInput(amp float64, k, i int) float64 {
	return amp * (0.01*float64((7*k+5*i)%23) - 0.1)
}

func TestDirectionalDerivativeCABI(t *testing.T) {
	e := setup(t)
	cant := filepath.Join(tmpRoot, "cantilever.xml")
	if err := os.WriteFile(cant, []byte(cantileverXML), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, model string
		n           int
	}{
		{"pendulum (planar)", filepath.Join("..", "fmu", "testdata", "pendulum.xml"), 50},
		{"furuta (spatial, quaternions)", filepath.Join("..", "examples", "furuta", "model.xml"), 200},
		{"cantilever (ANCF)", cant, 50},
	} {
		t.Run(strings.Fields(c.name)[0], func(t *testing.T) {
			base := strings.Fields(c.name)[0]
			p := filepath.Join(tmpRoot, "jac-"+base+".fmu")
			d, err := fmu.PackDescribe(c.model, p, e.lib)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(tmpRoot, "unpacked fmus", "jac-"+base)
			if err := unzip(p, dir); err != nil {
				t.Fatal(err)
			}
			jacCABI(t, e, c.model, dir, d, c.n)
		})
	}
}

func jacCABI(t *testing.T, e *env, model, dir string, d *fmu.Description, n int) {
	const m = 20
	h := d.StepSize
	// the knowns (states, inputs) and unknowns (outputs, quaternion rates,
	// accelerations) and where each unknown's value lies
	var ins, states, unknowns []fmu.Variable
	for _, v := range d.Variables {
		switch {
		case v.Causality == fmu.CausalityInput:
			ins = append(ins, v)
		case v.Local == fmu.LocalPosition || v.Local == fmu.LocalVelocity:
			states = append(states, v)
		case v.Causality == fmu.CausalityOutput:
			unknowns = append(unknowns, v)
		}
	}
	for _, v := range d.Variables {
		if v.Local == fmu.LocalQuatRate || v.Local == fmu.LocalAcceleration {
			unknowns = append(unknowns, v)
		}
	}
	amp := func(i int) float64 { return 1 + float64(i) }
	args := []string{"jac", dir, strconv.Itoa(n), strconv.FormatFloat(h, 'g', -1, 64), strconv.Itoa(len(ins))}
	for i, v := range ins {
		args = append(args, strconv.Itoa(int(v.VR)), strconv.FormatFloat(amp(i), 'g', -1, 64))
	}
	args = append(args, strconv.Itoa(len(states)))
	for _, v := range states {
		args = append(args, strconv.Itoa(int(v.VR)))
	}
	args = append(args, strconv.Itoa(len(unknowns)))
	for _, v := range unknowns {
		args = append(args, strconv.Itoa(int(v.VR)))
	}
	args = append(args, strconv.Itoa(m))
	rows := map[string][][]float64{}
	sc := bufio.NewScanner(strings.NewReader(e.runHost(t, args...)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		row := make([]float64, 0, len(f))
		for _, x := range f[2:] {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				t.Fatalf("bad line %q", sc.Text())
			}
			row = append(row, v)
		}
		if len(row) != len(unknowns) {
			t.Fatalf("line %q: %d values, want %d", sc.Text(), len(row), len(unknowns))
		}
		rows[f[0]] = append(rows[f[0]], row)
	}
	if len(rows["S"]) != len(states) || len(rows["U"]) != len(ins) || len(rows["F"]) != len(ins) || len(rows["M"]) != 1 || len(rows["Y"]) != m {
		t.Fatalf("host printed %d S, %d U, %d F, %d M, %d Y rows", len(rows["S"]), len(rows["U"]), len(rows["F"]), len(rows["M"]), len(rows["Y"]))
	}

	// the engine in-process, with the same inputs
	spec, err := xml.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := solver.Compile(spec, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := mod.NewState()
	if err := mod.Init(s); err != nil {
		t.Fatal(err)
	}
	step := func(k int) {
		for i := range ins {
			s.SetInput(ins[i].Index, jacInput(amp(i), k, i))
		}
		if err := mod.AdvanceTo(s, float64(k+1)*h); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < n; k++ {
		step(k)
	}
	nq, nv, nu, ny := mod.NumCoords(), mod.NumVelocities(), len(mod.InputInfo()), len(mod.OutputInfo())
	sq, sv, su := make([]float64, nq), make([]float64, nv), make([]float64, nu)
	jq, jv, jy, jq2 := make([]float64, nq), make([]float64, nv), make([]float64, ny), make([]float64, nq)
	pick := func() []float64 { // the unknowns from jy, jq, jv
		out := make([]float64, len(unknowns))
		for k, v := range unknowns {
			switch v.Local {
			case fmu.LocalQuatRate:
				out[k] = jq[v.Index]
			case fmu.LocalAcceleration:
				out[k] = jv[v.Index]
			default:
				out[k] = jy[v.Index]
			}
		}
		return out
	}
	seedOf := func(v fmu.Variable, x float64) {
		switch v.Local {
		case fmu.LocalPosition:
			sq[v.Index] += x
		case fmu.LocalVelocity:
			sv[v.Index] += x
		default:
			su[v.Index] += x
		}
	}
	same := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("%s: %s = %.17g through the C ABI, %.17g in-process", what, unknowns[i].Name, got[i], want[i])
				return
			}
		}
	}
	// with respect to each state: bit for bit
	for j, x := range states {
		clear(sq)
		clear(sv)
		seedOf(x, 1)
		if err := mod.DirectionalDerivative(s, sq, sv, nil, jq, jv, jy); err != nil {
			t.Fatal(err)
		}
		same("∂/∂"+x.Name, rows["S"][j], pick())
	}
	// with respect to each input: in-process bit for bit (outputs zero), and
	// the host's central differences of fmi2GetReal
	worst := 0.0
	for i, x := range ins {
		clear(sq)
		clear(sv)
		clear(su)
		seedOf(x, 1)
		if err := mod.DirectionalDerivative(s, sq, sv, su, jq, jv, nil); err != nil {
			t.Fatal(err)
		}
		clear(jy)
		same("∂/∂"+x.Name, rows["U"][i], pick())
		sc := 1e-9
		for _, v := range rows["F"][i] {
			sc = math.Max(sc, math.Abs(v))
		}
		for k, v := range rows["U"][i] {
			fd := rows["F"][i][k]
			if unknowns[k].Causality == fmu.CausalityOutput && (v != 0 || fd != 0) {
				t.Errorf("∂%s/∂%s = %g, central difference %g: an output does not depend on an input", unknowns[k].Name, x.Name, v, fd)
			}
			e := math.Abs(v-fd) / sc
			worst = math.Max(worst, e)
			if e > 1e-6 {
				t.Errorf("∂%s/∂%s = %.12g, central difference of fmi2GetReal %.12g", unknowns[k].Name, x.Name, v, fd)
			}
		}
	}
	// a seed on every state and input at once: the state derivatives with
	// all of it, the outputs with the states' part
	clear(sq)
	clear(sv)
	clear(su)
	for k, x := range append(append([]fmu.Variable(nil), states...), ins...) {
		seedOf(x, 0.25*float64((3*k)%7-3))
	}
	if err := mod.DirectionalDerivative(s, sq, sv, su, jq, jv, nil); err != nil {
		t.Fatal(err)
	}
	if err := mod.DirectionalDerivative(s, sq, sv, nil, jq2, nil, jy); err != nil {
		t.Fatal(err)
	}
	same("combined seed", rows["M"][0], pick())
	// the run goes on as if nothing had been asked
	dq, dv := make([]float64, nq), make([]float64, nv)
	for k := n; k < n+m; k++ {
		step(k)
		mod.EvalOutputs(s, jy)
		if err := mod.StateDerivatives(s, dq, dv); err != nil {
			t.Fatal(err)
		}
		copy(jq, dq)
		copy(jv, dv)
		same("step "+strconv.Itoa(k+1)+" after the calls", rows["Y"][k-n], pick())
	}
	t.Logf("%d states, %d inputs, %d unknowns: state columns bit-equal to the engine; input columns within %.2g (relative) of central differences of fmi2GetReal", len(states), len(ins), len(unknowns), worst)
}
