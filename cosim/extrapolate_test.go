package cosim

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The extrapolation of coupling signals between stepped components
// (Settings.Extrapolate), on examples/two-mass-cosim: a two-mass
// oscillator split into two models that exchange displacement and
// velocity, against the closed-form solution of the whole system.

const twoMass = "../examples/two-mass-cosim/cosim.xml"

// twoMassExact is the closed-form solution of the two-mass oscillator of
// the example (m1 = 1 kg, m2 = 1.5 kg, k1 = 100 N/m, k2 = 60 N/m,
// k12 = 150 N/m, c12 = 1 N·s/m; x1(0) = 0.1 m, at rest): z = (x1, x2, v1,
// v2), ż = A z, z(t) = exp(A t) z(0).
func twoMassExact(t float64) (x1, x2 float64) {
	const m1, m2, k1, k2, k12, c12 = 1.0, 1.5, 100.0, 60.0, 150.0, 1.0
	A := mat.NewDense(4, 4, []float64{
		0, 0, 1, 0,
		0, 0, 0, 1,
		-(k1 + k12) / m1, k12 / m1, -c12 / m1, c12 / m1,
		k12 / m2, -(k2 + k12) / m2, c12 / m2, -c12 / m2,
	})
	A.Scale(t, A)
	var E mat.Dense
	E.Exp(A)
	return E.At(0, 0) * 0.1, E.At(1, 0) * 0.1
}

// twoMassRun runs the example's two models (without the monolithic
// reference) with macro step h, extrapolating or not, and returns the
// largest error of the two displacements against the closed form. paths
// puts FMUs in place of the models.
func twoMassRun(t *testing.T, h float64, extrapolate bool, paths map[string]string) (float64, *Master, *memWriter) {
	t.Helper()
	cfg := loadWithPaths(t, twoMass, paths)
	var comps []*Element
	for _, e := range cfg.Components {
		if e.Name != "ref" {
			if _, ok := paths[e.Name]; ok {
				e.Kind = "fmu" // (every replacement is an FMU)
			}
			comps = append(comps, e)
		}
	}
	cfg.Components, cfg.Checks = comps, nil
	cfg.Settings.Step, cfg.Settings.Extrapolate = h, extrapolate
	m, w := runConfig(t, cfg)
	ts, x1, x2 := w.col(t, "time"), w.col(t, "a.x1"), w.col(t, "b.x2")
	worst := 0.0
	for i, tt := range ts {
		e1, e2 := twoMassExact(tt)
		worst = math.Max(worst, math.Max(math.Abs(x1[i]-e1), math.Abs(x2[i]-e2)))
	}
	return worst, m, w
}

// orders returns the observed orders log₂(e(h)/e(h/2)) of a sequence of
// errors at halved macro steps.
func orders(errs []float64) []float64 {
	var p []float64
	for i := 1; i < len(errs); i++ {
		p = append(p, math.Log2(errs[i-1]/errs[i]))
	}
	return p
}

// The example as shipped: its checks against the monolithic model pass,
// and the monolithic model itself follows the closed form.
func TestTwoMassExample(t *testing.T) {
	m := newMaster(t, twoMass, Options{})
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Passed() {
		t.Errorf("the example's checks failed:\n%s", sum)
	}
	if d := m.Describe(); !strings.Contains(d, "extrapolated over the macro step (output derivatives → input derivatives): b.x2 → a.x2, b.v2 → a.v2, a.x1 → b.x1, a.v1 → b.v1") {
		t.Errorf("the summary does not list the extrapolated connections:\n%s", d)
	}
	// extrapolate="false" in the file turns it off
	src, err := os.ReadFile(twoMass)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig([]byte(strings.Replace(string(src), `step="2 ms" extrapolate="true"`, `step="2 ms" extrapolate="false"`, 1)), twoMass)
	if err != nil {
		t.Fatal(err)
	}
	if off, err := New(cfg, Options{}); err != nil {
		t.Fatal(err)
	} else {
		if strings.Contains(off.Describe(), "extrapolated") || len(off.deriv) != 0 {
			t.Errorf("extrapolate=\"false\" still extrapolates:\n%s", off.Describe())
		}
		off.Close()
	}
	ts, r1, r2 := w.col(t, "time"), w.col(t, "ref.x1"), w.col(t, "ref.x2")
	worst := 0.0
	for i, tt := range ts {
		e1, e2 := twoMassExact(tt)
		worst = math.Max(worst, math.Max(math.Abs(r1[i]-e1), math.Abs(r2[i]-e2)))
	}
	if worst > 1e-9 {
		t.Errorf("the monolithic model is %.3g m from the closed form", worst)
	}
}

// The coupling error and its order in the macro step: first order with the
// inputs held (Jacobi, zero-order hold), second order with the output
// derivatives handed over (first-order extrapolation). The models
// integrate with RK4 at 0.1 ms, so their own error (< 1e-10 m) is far
// below the coupling error.
func TestExtrapolationOrder(t *testing.T) {
	hs := []float64{8e-3, 4e-3, 2e-3, 1e-3}
	var held, ext []float64
	for _, h := range hs {
		e0, _, _ := twoMassRun(t, h, false, nil)
		e1, _, _ := twoMassRun(t, h, true, nil)
		held, ext = append(held, e0), append(ext, e1)
		t.Logf("H = %g ms: largest displacement error %.4g m held, %.4g m extrapolated", h*1e3, e0, e1)
	}
	po, pe := orders(held), orders(ext)
	t.Logf("observed orders: held %.3f, extrapolated %.3f", po, pe)
	for i := range po {
		if po[i] < 0.85 || po[i] > 1.15 {
			t.Errorf("inputs held: observed order %.3f between H = %g and %g ms, want 1", po[i], hs[i]*1e3, hs[i+1]*1e3)
		}
		if pe[i] < 1.85 || pe[i] > 2.15 {
			t.Errorf("extrapolated: observed order %.3f between H = %g and %g ms, want 2", pe[i], hs[i]*1e3, hs[i+1]*1e3)
		}
	}
	if held[2] < 50*ext[2] {
		t.Errorf("at H = 2 ms the extrapolation reduces the error only from %.3g to %.3g m", held[2], ext[2])
	}
}

// The same through FMUs packed by mbfmu (run in-process through package
// fmu: fmi2SetRealInputDerivatives, fmi2GetRealOutputDerivatives): the
// same numbers as the models, and no allocation per macro step.
func TestExtrapolationThroughFMUs(t *testing.T) {
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.MkdirAll(fa, 0o755)
	os.MkdirAll(fb, 0o755)
	paths := map[string]string{
		"a": packFMU(t, "../examples/two-mass-cosim/mass1.xml", fa),
		"b": packFMU(t, "../examples/two-mass-cosim/mass2.xml", fb),
	}
	errF, m, wf := twoMassRun(t, 2e-3, true, paths)
	if f, ok := m.comps[0].(*fmuComp); !ok || !f.inProc || len(f.dIn) != 2 || len(f.dOut) != 2 {
		t.Fatalf("the packed models are not extrapolating mbfmu FMUs")
	}
	errM, _, wm := twoMassRun(t, 2e-3, true, nil)
	if errF != errM {
		t.Errorf("largest error %.6g m through FMUs, %.6g m with the models", errF, errM)
	}
	for _, c := range []string{"a.x1", "a.v1", "b.x2", "b.v2"} {
		f, g := wf.col(t, c), wm.col(t, c)
		for i := range f {
			if math.Abs(f[i]-g[i]) > 1e-14 {
				t.Errorf("%s row %d: %.17g through FMUs, %.17g with the models", c, i, f[i], g[i])
				break
			}
		}
	}
	for name, p := range map[string]map[string]string{"models": nil, "FMUs": paths} {
		cfg := loadWithPaths(t, twoMass, p)
		for _, e := range cfg.Components {
			if _, ok := p[e.Name]; ok {
				e.Kind = "fmu"
			}
		}
		cfg.Checks = nil
		m, err := New(cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Init(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if err := m.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		if a := testing.AllocsPerRun(100, func() {
			if err := m.Advance(); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %g allocations per macro step with extrapolation, want 0", name, a)
		}
		m.Close()
	}
}

// A third-party FMU (testdata/mass2, C, loaded with dlopen) that declares
// canInterpolateInputs and maxOutputDerivativeOrder = 1 takes part in the
// extrapolation: mass 1 as a model, mass 2 as the C FMU, second order in
// the macro step. Built without the two functions, while still declaring
// them, it is refused at the start with a message naming them.
func TestExtrapolationThirdPartyFMU(t *testing.T) {
	dir := t.TempDir()
	build := func(name string, flags ...string) string {
		root := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(root, "binaries", "linux64"), 0o755); err != nil {
			t.Fatal(err)
		}
		gcc(t, filepath.Join(root, "binaries", "linux64", "mass2.so"), append([]string{"testdata/mass2/mass2.c", "-lm"}, flags...)...)
		md, err := os.ReadFile("testdata/mass2/modelDescription.xml")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, root, "modelDescription.xml", string(md))
		return root
	}
	full := build("mass2_unpacked")
	var errs []float64
	for _, h := range []float64{4e-3, 2e-3, 1e-3} {
		e, m, _ := twoMassRun(t, h, true, map[string]string{"b": full})
		if f := m.comps[1].(*fmuComp); f.inProc || len(f.dIn) != 2 || len(f.dOut) != 2 {
			t.Fatalf("the C FMU does not take part in the extrapolation")
		}
		e0, _, _ := twoMassRun(t, h, false, map[string]string{"b": full})
		errs = append(errs, e)
		t.Logf("H = %g ms: largest displacement error %.4g m extrapolated, %.4g m held", h*1e3, e, e0)
	}
	p := orders(errs)
	t.Logf("observed orders %.3f", p)
	for _, x := range p {
		if x < 1.85 || x > 2.15 {
			t.Errorf("observed order %.3f with the C FMU, want 2", x)
		}
	}
	bare := build("mass2_bare_unpacked", "-DNO_DERIVS")
	cfg := loadWithPaths(t, twoMass, map[string]string{"b": bare})
	for _, e := range cfg.Components {
		if e.Name == "b" {
			e.Kind = "fmu"
		}
	}
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Init(); err == nil || !strings.Contains(err.Error(), "does not export fmi2SetRealInputDerivatives") {
		t.Errorf("an FMU declaring derivatives it does not export: %v", err)
	}
}
