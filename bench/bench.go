// Package bench holds the benchmark cases of mbfmu and prints them as a
// table with their targets and the figures of the reference engine (a
// mature C++ engine measured on the same machine kind, generalized-α).
package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
	"mbfmu/fmu"
	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

func num(v float64) spec.Expr { return spec.Expr{Src: strconv.FormatFloat(v, 'g', -1, 64)} }

func vec(x, y float64) spec.Vec { return spec.Vec{num(x), num(y)} }

// Pendulum is IFToMM A01 as a 2D rigid body on a revolute joint: a 1 kg
// point mass (inertia 1e-10 kg·m²) on a massless 1 m link, released
// horizontal, g = 9.81, generalized-α with ρ∞ = 1 and step h.
func Pendulum(h float64) *spec.Model {
	return &spec.Model{
		Name:     "pendulum",
		Settings: spec.Settings{End: 10, Step: h, Integrator: "genalpha", RhoInf: 1, RhoSet: true},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "bob", Mass: num(1), Inertia: num(1e-10), At: vec(1, 0),
			Markers: []spec.Marker{{Name: "pin", At: vec(-1, 0)}}}},
		Joints: []spec.Joint{{Kind: "revolute", Name: "pivot", I: "ground.O", J: "bob.pin"}},
	}
}

// Chain is an N-link pendulum chain of uniform 1 kg, 1 m bars on revolute
// joints, released horizontal.
func Chain(n int, h float64) *spec.Model {
	s := &spec.Model{Name: "chain", Settings: spec.Settings{End: 1, Step: h},
		Ground: spec.Ground{Markers: []spec.Marker{{Name: "O"}}}}
	for i := 0; i < n; i++ {
		name := "b" + strconv.Itoa(i)
		s.Bodies = append(s.Bodies, spec.Body{Name: name, Mass: num(1), Inertia: num(1.0 / 12), CM: vec(0.5, 0),
			At: vec(float64(i), 0), Markers: []spec.Marker{{Name: "a"}, {Name: "b", At: vec(1, 0)}}})
		prev := "ground.O"
		if i > 0 {
			prev = "b" + strconv.Itoa(i-1) + ".b"
		}
		s.Joints = append(s.Joints, spec.Joint{Kind: "revolute", Name: "j" + strconv.Itoa(i), I: prev, J: name + ".a"})
	}
	return s
}

func vec3(x, y, z float64) spec.Vec { return spec.Vec{num(x), num(y), num(z)} }

// SpatialChain is the spatial N-link chain of the benchmark: 1 kg boxes
// 1 m × 0.1 m × 0.1 m along +x joined by spherical joints (link 0 to the
// ground at the origin), at rest but for a rigid rotation about z at
// 0.5 rad/s, gravity −z, generalized-α with ρ∞ = 0.9 and step h.
func SpatialChain(n int, h float64) *spec.Model {
	jx, jyz := 0.02/12, 1.01/12
	s := &spec.Model{Name: "spatial_chain", Dimension: 3,
		Settings: spec.Settings{End: 1, Step: h, Integrator: "genalpha", RhoInf: 0.9, RhoSet: true, Gravity: vec3(0, 0, -9.81)},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}}}
	for i := 0; i < n; i++ {
		name := "b" + strconv.Itoa(i)
		s.Bodies = append(s.Bodies, spec.Body{Name: name, Mass: num(1),
			InertiaTensor: [6]spec.Expr{num(jx), num(jyz), num(jyz)},
			At:            vec3(float64(i)+0.5, 0, 0), Vel: vec3(0, 0.5*(float64(i)+0.5), 0), AngVel: vec3(0, 0, 0.5),
			Markers: []spec.Marker{{Name: "a", At: vec3(-0.5, 0, 0)}, {Name: "b", At: vec3(0.5, 0, 0)}}})
		prev := "ground.O"
		if i > 0 {
			prev = "b" + strconv.Itoa(i-1) + ".b"
		}
		s.Joints = append(s.Joints, spec.Joint{Kind: "spherical", Name: "j" + strconv.Itoa(i), I: prev, J: name + ".a"})
	}
	return s
}

// HeavyTop is the heavy top of Arnold & Brüls (2007) (examples/heavy-top).
func HeavyTop(h float64) *spec.Model {
	return &spec.Model{
		Name: "heavy_top", Dimension: 3,
		Settings: spec.Settings{End: 2, Step: h, Gravity: vec3(0, 0, -9.81)},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "top", Mass: num(15),
			InertiaTensor: [6]spec.Expr{num(0.234375), num(0.46875), num(0.234375)},
			CM:            vec3(0, 1, 0), AngVel: vec3(0, 150, -4.61538),
			Markers: []spec.Marker{{Name: "tip"}}}},
		Joints: []spec.Joint{{Kind: "spherical", Name: "pivot", I: "ground.O", J: "top.tip"}},
	}
}

// Row is one line of the benchmark table.
type Row struct {
	Case, Metric string
	Value        float64
	Unit         string
	Target       string // "≤ 0.7" or ""
	Reference    string // the reference engine's figure
	Pass         string // "yes", "NO" or ""
}

func compileInit(ms *spec.Model) (*solver.Model, *solver.State, error) {
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		return nil, nil, err
	}
	s := m.NewState()
	return m, s, m.Init(s)
}

func pass(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

// StepTime measures one integrator step of a model during its first second
// of motion (median of rounds runs).
func StepTime(ms *spec.Model, h float64, rounds int) (time.Duration, error) {
	m, s, err := compileInit(ms)
	if err != nil {
		return 0, err
	}
	if err := m.AdvanceTo(s, 2*h); err != nil {
		return 0, err
	}
	var runErr error
	res := make([]float64, 0, rounds)
	for r := 0; r < rounds; r++ {
		br := testing.Benchmark(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				// the case is the motion after release: restart every 1 s
				if s.T >= 1 {
					b.StopTimer()
					if err := m.Init(s); err != nil {
						runErr = err
						b.FailNow()
					}
					b.StartTimer()
				}
				if err := m.Step(s, h); err != nil {
					runErr = err
					b.FailNow()
				}
			}
		})
		res = append(res, float64(br.NsPerOp()))
	}
	return time.Duration(median(res)), runErr
}

func median(x []float64) float64 {
	y := append([]float64(nil), x...)
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if y[j] < y[i] {
				y[i], y[j] = y[j], y[i]
			}
		}
	}
	if len(y) == 0 {
		return math.NaN()
	}
	return y[len(y)/2]
}

// Pendulum10s runs A01 for 10 s at h = 0.8 ms; it returns the wall time
// (median of rounds) and the largest energy deviation sampled every 10 ms.
func Pendulum10s(rounds int) (time.Duration, float64, error) {
	m, s, err := compileInit(Pendulum(8e-4))
	if err != nil {
		return 0, 0, err
	}
	var times []float64
	for r := 0; r < rounds; r++ {
		if err := m.Init(s); err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		if err := m.AdvanceTo(s, 10); err != nil {
			return 0, 0, err
		}
		times = append(times, float64(time.Since(t0)))
	}
	// energy
	if err := m.Init(s); err != nil {
		return 0, 0, err
	}
	k, _ := m.ChannelIndex("energy.total")
	ch := make([]float64, len(m.Channels()))
	m.EvalChannels(s, ch)
	e0, maxd := ch[k], 0.0
	for i := 1; i <= 1000; i++ {
		if err := m.AdvanceTo(s, float64(i)*0.01); err != nil {
			return 0, 0, err
		}
		m.EvalChannels(s, ch)
		maxd = math.Max(maxd, math.Abs(ch[k]-e0))
	}
	return time.Duration(median(times)), maxd, nil
}

// ExampleRun runs an example model file from its start to its end time
// (median wall time of rounds runs) and returns the step count.
func ExampleRun(examples, name string, rounds int) (time.Duration, int64, error) {
	return ExampleRunParams(examples, name, nil, rounds)
}

// ExampleRunParams is ExampleRun with parameter overrides.
func ExampleRunParams(examples, name string, params map[string]float64, rounds int) (time.Duration, int64, error) {
	return exampleFileRunParams(filepath.Join(examples, name, "model.xml"), params, rounds)
}

// exampleFileRun times a model file's run (median of rounds).
func exampleFileRun(path string, rounds int) (time.Duration, int64, error) {
	return exampleFileRunParams(path, nil, rounds)
}

func exampleFileRunParams(path string, params map[string]float64, rounds int) (time.Duration, int64, error) {
	ms, err := xml.LoadFile(path)
	if err != nil {
		return 0, 0, err
	}
	return specRunParams(ms, params, rounds)
}

// specRun times a loaded model's run from Init to its end (median of
// rounds).
func specRun(ms *spec.Model, rounds int) (time.Duration, error) {
	d, _, err := specRunParams(ms, nil, rounds)
	return d, err
}

func specRunParams(ms *spec.Model, params map[string]float64, rounds int) (time.Duration, int64, error) {
	m, err := solver.Compile(ms, solver.CompileOptions{Params: params})
	if err != nil {
		return 0, 0, err
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		return 0, 0, err
	}
	var times []float64
	for r := 0; r < rounds; r++ {
		t0 := time.Now()
		if err := m.Init(s); err != nil {
			return 0, 0, err
		}
		if err := m.AdvanceTo(s, m.Settings().End); err != nil {
			return 0, 0, err
		}
		times = append(times, float64(time.Since(t0)))
	}
	return time.Duration(median(times)), s.Stats().Steps, nil
}

// StepTimes summarises the times of individual steps.
type StepTimes struct {
	Median, P99 time.Duration
	N           int     // steps timed
	Allocs      float64 // heap allocations per step
}

// furutaGain returns the state feedback of the balancing loop of
// examples/furuta (cosim.xml), u = Σ gain[y]·y: minus the gain of the continuous LQR with Q = I on the outputs theta, alpha,
// theta_dot, alpha_dot and R = 1 on the input tau, designed from the
// engine's linearisation about the upright at rest.
func furutaGain(model string) (map[string]float64, error) {
	ms, err := xml.LoadFile(model)
	if err != nil {
		return nil, err
	}
	m, err := solver.Compile(ms, solver.CompileOptions{Params: map[string]float64{"tilt0": 0, "theta0": 0}})
	if err != nil {
		return nil, err
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		return nil, err
	}
	lin, err := m.Linearize(s)
	if err != nil {
		return nil, err
	}
	outs := []string{"theta", "alpha", "theta_dot", "alpha_dot"}
	eye := mat.NewDiagDense(4, []float64{1, 1, 1, 1})
	d, err := control.DesignPlantLQR(lin, control.PlantLQRConfig{Inputs: []string{"tau"}, Outputs: outs, Q: eye, R: mat.NewDiagDense(1, []float64{1})})
	if err != nil {
		return nil, err
	}
	g := map[string]float64{}
	for j, o := range outs {
		g[o] = -d.K.At(0, j)
	}
	return g, nil
}

// FMUDoStep measures the communication step of a model file packed as an
// FMU, run in-process through package fmu (the code the runtime library's
// fmi2DoStep calls, without the C call itself, about 0.1 µs) in a closed
// loop: before each step the input is set to Σ gain[y]·y over the outputs
// y, then one doStep of h is taken and the outputs are read. rounds runs
// of steps each start from the model's initial state; the median and 99th
// percentile are over every step timed, the allocations are counted over
// further steps of the last run.
func FMUDoStep(model, input string, gain map[string]float64, h float64, steps, rounds int) (StepTimes, error) {
	return FMUDoStepBias(model, input, 0, gain, h, steps, rounds)
}

// FMUDoStepBias is FMUDoStep with the input set to bias + Σ gain[y]·y.
func FMUDoStepBias(model, input string, bias float64, gain map[string]float64, h float64, steps, rounds int) (StepTimes, error) {
	var st StepTimes
	data, err := os.ReadFile(model)
	if err != nil {
		return st, err
	}
	abs, err := filepath.Abs(model)
	if err != nil {
		return st, err
	}
	times := make([]float64, 0, steps*rounds)
	for r := 0; r < rounds; r++ {
		in, err := fmu.Instantiate(fmu.Config{InstanceName: "bench", GUID: fmu.GUID(data), ResourceLocation: abs})
		if err != nil {
			return st, err
		}
		vr := map[string]uint32{}
		for _, v := range in.Description().Variables {
			vr[v.Name] = v.VR
		}
		vu, ok := vr[input]
		if !ok {
			return st, fmt.Errorf("%s has no input %q", model, input)
		}
		var vy []uint32
		var g []float64
		names := make([]string, 0, len(gain))
		for name := range gain {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			v, ok := vr[name]
			if !ok {
				return st, fmt.Errorf("%s has no output %q", model, name)
			}
			vy, g = append(vy, v), append(g, gain[name])
		}
		if in.SetupExperiment(false, 0, 0, false, 0) != fmu.OK || in.EnterInitializationMode() != fmu.OK || in.ExitInitializationMode() != fmu.OK {
			return st, fmt.Errorf("%s: the FMU does not initialise", model)
		}
		vin, u, y := []uint32{vu}, []float64{0}, make([]float64, len(vy))
		in.GetReal(vy, y)
		step := func() fmu.Status {
			u[0] = bias
			for i := range y {
				u[0] += g[i] * y[i]
			}
			in.SetReal(vin, u)
			stat := in.DoStep(in.Time(), h, true)
			in.GetReal(vy, y)
			return stat
		}
		for k := 0; k < steps; k++ {
			t0 := time.Now()
			stat := step()
			times = append(times, float64(time.Since(t0)))
			if stat != fmu.OK {
				return st, fmt.Errorf("%s: doStep at t = %g s failed", model, in.Time())
			}
		}
		if r == rounds-1 {
			st.Allocs = testing.AllocsPerRun(200, func() { step() })
		}
	}
	sort.Float64s(times)
	st.N = len(times)
	st.Median = time.Duration(times[len(times)/2])
	st.P99 = time.Duration(times[int(0.99*float64(len(times)-1))])
	return st, nil
}

// doStepRows adds the rows of an FMU's doStep times: the median against
// the 3 µs target, the 99th percentile, the allocations.
func doStepRows(label string, st StepTimes, add func(Row)) {
	med, p99 := float64(st.Median)/1e3, float64(st.P99)/1e3
	add(Row{label, "median per doStep", med, "µs", "≤ 3", "", pass(med <= 3)})
	add(Row{label, "99th percentile", p99, "µs", "", "", ""})
	add(Row{label, "allocations per doStep", st.Allocs, "", "0", "", pass(st.Allocs == 0)})
}

// Run measures every case and prints the table to w.
func Run(w io.Writer, examples string, quick bool) ([]Row, error) {
	rounds := 5
	if quick {
		rounds = 1
	}
	var rows []Row
	add := func(r Row) {
		rows = append(rows, r)
		fmt.Fprintf(w, "%-34s %-26s %12.4g %-6s %-10s %-12s %s\n", r.Case, r.Metric, r.Value, r.Unit, r.Target, r.Reference, r.Pass)
	}
	fmt.Fprintf(w, "%-34s %-26s %12s %-6s %-10s %-12s %s\n", "case", "metric", "value", "unit", "target", "reference", "pass")
	d, err := StepTime(Pendulum(8e-4), 8e-4, rounds)
	if err != nil {
		return rows, err
	}
	us := float64(d) / 1e3
	add(Row{"A01 pendulum, genalpha", "one implicit step", us, "µs", "≤ 0.7", "1.4", pass(us <= 0.7)})
	wall, de, err := Pendulum10s(rounds)
	if err != nil {
		return rows, err
	}
	ms := float64(wall) / 1e6
	add(Row{"A01 pendulum 10 s, h = 0.8 ms", "wall time", ms, "ms", "≤ 6", "13", pass(ms <= 6)})
	add(Row{"A01 pendulum 10 s, h = 0.8 ms", "max energy error", de, "J", "≤ 5e-5", "4.7e-5", pass(de <= 5e-5)})
	// Andrews' model runs to the reference time 0.03 s
	if wall, steps, err := ExampleRun(examples, "andrews", rounds); err == nil {
		per := float64(wall) / float64(max(steps, 1))
		add(Row{"Andrews squeezing mechanism", "cost per step", per / 1e3, "µs", "", "", ""})
		add(Row{"Andrews squeezing mechanism", "steps to t = 0.03 s", float64(steps), "", "", "", ""})
	} else if !os.IsNotExist(err) {
		fmt.Fprintf(w, "# Andrews: %v\n", err)
	}
	for _, c := range []struct {
		name, label, target, ref string
		lim                      float64
	}{
		{"ancf-pendulum", "ANCF pendulum, 160 el., 1.1 s", "≤ 0.3", "0.64 (seed 787)", 0.3},
		{"three-rrr", "3-RRR, 3×100 ANCF el., 2 s", "≤ 1.5", "seed 1391", 1.5},
		{"seed003-case1", "seed 003 case 1 contact, 10 s", "", "RK4 1e7 steps", 0},
	} {
		wall, steps, err := ExampleRun(examples, c.name, rounds)
		if err != nil {
			if !os.IsNotExist(err) {
				fmt.Fprintf(w, "# %s: %v\n", c.name, err)
			}
			continue
		}
		sec := wall.Seconds()
		r := Row{c.label, "wall time", sec, "s", c.target, c.ref, ""}
		if c.lim > 0 {
			r.Pass = pass(sec <= c.lim)
		}
		add(r)
		add(Row{c.label, "steps", float64(steps), "", "", "", ""})
	}
	// the spatial ANCF cable pendulum (issue 23): the strongest open peer
	// on this machine kind, sparse LU and modified Newton, 0.232 s with
	// 40 elements and 1.55 s with 160; cost linear in the elements
	for _, c := range []struct {
		n      float64
		target string
		ref    string
		lim    float64
	}{{40, "", "peer 0.232", 0}, {160, "≤ 0.35", "peer 1.55", 0.35}, {640, "", "", 0}} {
		label := fmt.Sprintf("spatial ANCF pendulum, %.0f el., 1.1 s", c.n)
		wall, steps, err := ExampleRunParams(examples, "ancf-pendulum-3d", map[string]float64{"n": c.n}, rounds)
		if err != nil {
			if !os.IsNotExist(err) {
				fmt.Fprintf(w, "# %s: %v\n", label, err)
			}
			continue
		}
		r := Row{label, "wall time", wall.Seconds(), "s", c.target, c.ref, ""}
		if c.lim > 0 {
			r.Pass = pass(wall.Seconds() <= c.lim)
		}
		add(r)
		add(Row{label, "steps", float64(steps), "", "", "", ""})
	}
	// seed 004's adaptive modal selection (issue 23) on its case 1 against
	// the full ANCF with the same integrator (BDF-1), the first 0.1 s of
	// the 1.1 s (the whole run takes about a minute reduced)
	if ms, err := xml.LoadFile(filepath.Join(examples, "ancf-pendulum", "adaptive.xml")); err == nil {
		ms.Settings.End = 0.1
		red, rerr := specRun(ms, rounds)
		for k := range ms.Beams {
			for _, a := range []string{"reduction", "sparsity", "samples"} {
				delete(ms.Beams[k].Attr, a)
			}
		}
		full, ferr := specRun(ms, rounds)
		const label = "seed 004 case 1 (160 el.), BDF-1, first 0.1 s"
		if rerr != nil || ferr != nil {
			fmt.Fprintf(w, "# %s: %v %v\n", label, rerr, ferr)
		} else {
			add(Row{label, "full ANCF", full.Seconds(), "s", "", "", ""})
			add(Row{label, "adaptive modal selection, 100 modes", red.Seconds(), "s", "", "seed 532 s / 787 s full, 1.1 s", ""})
			add(Row{label, "reduced / full", red.Seconds() / full.Seconds(), "", "", "seed 0.68", ""})
		}
	}
	// the 45° bend's static solve (issue 23): 16 rod elements
	if ms, err := xml.LoadFile(filepath.Join(examples, "bend-45", "model.xml")); err == nil {
		if m, err := solver.Compile(ms, solver.CompileOptions{}); err == nil {
			var times []float64
			var ferr error
			for r := 0; r < rounds && ferr == nil; r++ {
				s := m.NewState()
				if ferr = m.Init(s); ferr != nil {
					break
				}
				t0 := time.Now()
				ferr = m.Static(s)
				times = append(times, float64(time.Since(t0)))
			}
			if ferr == nil {
				add(Row{"45° bend, 16 rod elements", "static solve", median(times) / 1e6, "ms", "", "", ""})
			} else {
				fmt.Fprintf(w, "# 45° bend: %v\n", ferr)
			}
		}
	}
	// floating-frame bodies (issue 23): one step of the imported rotor
	// (8 modes), and Wu and Haug's slewing beam as an FFR beam (Krylov,
	// 20 vectors) beside the geometrically exact rod (10 elements)
	if wall, steps, err := ExampleRun(examples, "fe-rotor", rounds); err == nil && steps > 0 {
		add(Row{"FE rotor (ANSYS matrices, 8 modes), h = 0.5 ms", "one step", wall.Seconds() / float64(steps) * 1e6, "µs", "", "", ""})
	} else if err != nil && !os.IsNotExist(err) {
		fmt.Fprintf(w, "# fe-rotor: %v\n", err)
	}
	for _, c := range []struct{ file, label string }{
		{"ffr.xml", "slewing beam 20 s, FFR beam (Krylov 20)"},
		{"model.xml", "slewing beam 20 s, rod (10 el.)"},
	} {
		if wall, steps, err := exampleFileRun(filepath.Join(examples, "slewing-beam", c.file), rounds); err == nil {
			add(Row{c.label, "wall time", wall.Seconds(), "s", "", "", ""})
			add(Row{c.label, "steps", float64(steps), "", "", "", ""})
		} else if !os.IsNotExist(err) {
			fmt.Fprintf(w, "# %s: %v\n", c.label, err)
		}
	}
	for _, n := range []int{10, 100, 1000} {
		d, err := StepTime(Chain(n, 1e-3), 1e-3, rounds)
		if err != nil {
			return rows, err
		}
		us := float64(d) / 1e3
		r := Row{fmt.Sprintf("N-link chain, N = %d", n), "one step (h = 1 ms)", us, "µs", "", "", ""}
		switch n {
		case 10:
			r.Reference = "42"
		case 100:
			r.Target, r.Reference, r.Pass = "≤ 100", "363", pass(us <= 100)
		case 1000:
			r.Target, r.Pass = "≤ 1000", pass(us <= 1000)
		}
		add(r)
	}
	d, err = StepTime(HeavyTop(1e-3), 1e-3, rounds)
	if err != nil {
		return rows, err
	}
	us = float64(d) / 1e3
	add(Row{"heavy top, genalpha", "one step (h = 1 ms)", us, "µs", "≤ 1", "", pass(us <= 1)})
	for _, n := range []int{10, 100, 1000} {
		d, err := StepTime(SpatialChain(n, 1e-3), 1e-3, rounds)
		if err != nil {
			return rows, err
		}
		us := float64(d) / 1e3
		r := Row{fmt.Sprintf("spatial chain, N = %d", n), "one step (h = 1 ms)", us, "µs", "", "", ""}
		switch n {
		case 10:
			r.Target, r.Reference, r.Pass = "≤ 25", "106", pass(us <= 25)
		case 100:
			r.Target, r.Reference, r.Pass = "≤ 250", "1097", pass(us <= 250)
		case 1000:
			r.Target, r.Pass = "≤ 2500", pass(us <= 2500)
		}
		add(r)
	}
	if err := SizeRows(quick, add); err != nil {
		return rows, err
	}
	if err := StudyRows(w, examples, rounds, add); err != nil {
		fmt.Fprintf(w, "# design study: %v\n", err)
	}
	// The spatial flagship's FMU in its balancing loop (5 s from the
	// model's 5° tilt per round).
	furuta := filepath.Join(examples, "furuta", "model.xml")
	if g, err := furutaGain(furuta); err == nil {
		st, err := FMUDoStep(furuta, "tau", g, 1e-3, 5000, rounds)
		if err != nil {
			return rows, err
		}
		doStepRows("furuta FMU doStep (h = 1 ms)", st, add)
	} else if !os.IsNotExist(err) {
		fmt.Fprintf(w, "# furuta: %v\n", err)
	}
	// The servo axis (motor current and bristles in the state, backlash,
	// stops) under a P loop to 0.5 rad: it moves, then friction holds it.
	servo := filepath.Join(examples, "servo-axis", "model.xml")
	if _, err := os.Stat(servo); err == nil {
		st, err := FMUDoStepBias(servo, "V", 7.5, map[string]float64{"theta": -15}, 1e-3, 4000, rounds)
		if err != nil {
			return rows, err
		}
		doStepRows("servo-axis FMU doStep (h = 1 ms)", st, add)
	}
	// The truck tipping mechanism (subsystems, four hydraulic pressure
	// states) under a P loop on its angle: the valve opens, the body
	// rises. A communication step is ten engine steps.
	truck := filepath.Join(examples, "truck-tipping", "model.xml")
	if _, err := os.Stat(truck); err == nil {
		st, err := FMUDoStepBias(truck, "valve", 2.5, map[string]float64{"angle": -5}, 1e-2, 300, rounds)
		if err != nil {
			return rows, err
		}
		doStepRows("truck-tipping FMU doStep (h = 10 ms)", st, add)
	}
	// The six-axis arm imported from URDF (joint friction states), its
	// shoulder under a PD loop, the rest free.
	ur5 := filepath.Join(examples, "ur5", "model.xml")
	if _, err := os.Stat(ur5); err == nil {
		st, err := FMUDoStepBias(ur5, "tau_shoulder_lift_joint", -40, map[string]float64{"q_shoulder_lift_joint": -300, "qd_shoulder_lift_joint": -30}, 1e-3, 2000, rounds)
		if err != nil {
			return rows, err
		}
		doStepRows("ur5 FMU doStep (h = 1 ms)", st, add)
	}
	return rows, nil
}
