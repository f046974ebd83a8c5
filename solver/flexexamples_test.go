package solver_test

// Tests of the flexible-body example models in ../examples (issue 6), and
// the generator of their README figures (set MBFMU_FIGURES=1).

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// flexLoad reads and compiles an example model file with parameter
// overrides.
func flexLoad(t testing.TB, path string, params map[string]float64) *solver.Model {
	t.Helper()
	return fileLoad(t, "../examples/"+path, params)
}

// fileLoad reads and compiles a model file (its path as given).
func fileLoad(t testing.TB, path string, params map[string]float64) *solver.Model {
	t.Helper()
	ms, err := xml.LoadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return specCompile(t, ms, params, path)
}

// specCompile compiles a model read (and perhaps edited) by a test; what
// names it in a failure.
func specCompile(t testing.TB, ms *spec.Model, params map[string]float64, what string) *solver.Model {
	t.Helper()
	m, err := solver.Compile(ms, solver.CompileOptions{Params: params})
	if err != nil {
		t.Fatalf("%s: compile: %v", what, err)
	}
	return m
}

// series runs a model to its end time (or until it fails), sampling the
// named channels every dt; it returns the times, the values per channel
// and the error that stopped it, if any.
func series(t testing.TB, m *solver.Model, dt float64, names ...string) ([]float64, [][]float64, error) {
	t.Helper()
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(names))
	for i, n := range names {
		k, ok := m.ChannelIndex(n)
		if !ok {
			t.Fatalf("no channel %q", n)
		}
		idx[i] = k
	}
	ch := make([]float64, len(m.Channels()))
	ts := []float64{}
	out := make([][]float64, len(names))
	sample := func() {
		m.EvalChannels(s, ch)
		ts = append(ts, s.T)
		for i, k := range idx {
			out[i] = append(out[i], ch[k])
		}
	}
	sample()
	end := m.Settings().End
	for k := 1; float64(k)*dt <= end+1e-9; k++ {
		if err := m.AdvanceTo(s, float64(k)*dt); err != nil {
			return ts, out, err
		}
		sample()
	}
	return ts, out, nil
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func maxDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// Seed 001: the Krylov (5 coordinates) and modal (25) models follow the
// full FE model (60 coordinates) — the seed's claim, with the full model
// as the reference.
func TestExampleHubBeam(t *testing.T) {
	for _, w0 := range []float64{1, 2} {
		m := flexLoad(t, "hub-beam/model.xml", map[string]float64{"omega0": w0})
		_, v, err := series(t, m, 0.01, "beam_full.tip.defl", "beam_krylov.tip.defl", "beam_modal.tip.defl", "hub_full.omega")
		if err != nil {
			t.Fatal(err)
		}
		peak := maxAbs(v[0])
		ek, em := maxDiff(v[1], v[0]), maxDiff(v[2], v[0])
		t.Logf("ω0 = %g rad/s: peak tip deflection %.4f m, hub at %.3f rad/s after 10 s; max error Krylov-5 %.2g m (%.2g), modal-25 %.2g m (%.2g)",
			w0, peak, v[3][len(v[3])-1], ek, ek/peak, em, em/peak)
		if ek > 0.01*peak || em > 1e-3*peak {
			t.Errorf("ω0 = %g: errors Krylov %.3g m, modal %.3g m of a %.3g m deflection", w0, ek, em, peak)
		}
	}
}

// Seed 004 case 1: the 160-element pendulum conserves its energy up to the
// numerical dissipation of generalized-α (ρ∞ = 0.8: it may only lose
// energy, little), and its free-end path is converged in the mesh (80
// elements agree to 2 mm).
func TestExampleANCFPendulum(t *testing.T) {
	m := flexLoad(t, "ancf-pendulum/model.xml", nil)
	_, v, err := series(t, m, 0.01, "rod.tip.y", "energy.total", "energy.kinetic")
	if err != nil {
		t.Fatal(err)
	}
	e0, kmax := v[1][0], maxAbs(v[2])
	for i, e := range v[1] {
		if e-e0 > 1e-5*kmax || e0-e > 5e-4*kmax {
			t.Errorf("t = %.2f s: energy %.6g J, initially %.6g J (peak kinetic %.3g J)", 0.01*float64(i), e, e0, kmax)
			break
		}
	}
	ms, err := xml.LoadFile("../examples/ancf-pendulum/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	ms.Beams[0].Attr["elements"] = spec.Expr{Src: "80", Field: "elements"}
	coarse, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, vc, err := series(t, coarse, 0.01, "rod.tip.y")
	if err != nil {
		t.Fatal(err)
	}
	d := maxDiff(v[0], vc[0])
	lowest := 0.0
	for _, y := range v[0] {
		lowest = math.Min(lowest, y)
	}
	t.Logf("lowest tip %.4f m, tip at 1.1 s %.4f m, 80 vs 160 elements max diff %.2g m", lowest, v[0][len(v[0])-1], d)
	if d > 2e-3 {
		t.Errorf("80 and 160 elements differ by %.3g m", d)
	}
}

// Seed 004 case 2: the driving links follow the inverse kinematics of the
// rigid mechanism, so the platform stays on the prescribed circle up to
// the small elastic deformation of the passive links.
func TestExampleThreeRRR(t *testing.T) {
	if testing.Short() {
		t.Skip("2 s of a 1224-coordinate model")
	}
	m := flexLoad(t, "three-rrr/model.xml", nil)
	ts, v, err := series(t, m, 0.01, "platform.x", "platform.y", "platform.angle", "rod1.mid.defl", "rod2.mid.defl", "rod3.mid.defl")
	if err != nil {
		t.Fatal(err)
	}
	worst, defl := 0.0, 0.0
	for i, tt := range ts {
		e := math.Hypot(v[0][i]-0.1*math.Cos(2*math.Pi*tt), v[1][i]-0.1*math.Sin(2*math.Pi*tt))
		worst = math.Max(worst, math.Max(e, 0.1*math.Abs(v[2][i])))
		defl = math.Max(defl, math.Max(math.Abs(v[3][i]), math.Max(math.Abs(v[4][i]), math.Abs(v[5][i]))))
	}
	t.Logf("platform off the circle by at most %.3g m; passive links' mid-span deflection up to %.3g m", worst, defl)
	if worst > 1e-4 || defl > 2e-3 || defl < 1e-6 {
		t.Errorf("platform error %.3g m, deflection %.3g m", worst, defl)
	}
}

// The spin-up example: ANCF and the stiffened floating frame agree; the
// zero-order floating frame diverges.
func TestExampleSpinUp(t *testing.T) {
	m := flexLoad(t, "spin-up/model.xml", nil)
	_, v, err := series(t, m, 0.1, "ancf.tip.defl", "ffr.tip.defl")
	if err != nil {
		t.Fatal(err)
	}
	peak, d := maxAbs(v[0]), maxDiff(v[0], v[1])
	t.Logf("ANCF peak %.4f m, stiffened FFR − ANCF ≤ %.2g m", peak, d)
	if d > 0.01*peak {
		t.Errorf("stiffened FFR and ANCF differ by %.3g m (peak %.3g m)", d, peak)
	}
	z := flexLoad(t, "spin-up/zero-order.xml", nil)
	_, vz, err := series(t, z, 0.1, "ffr0.tip.defl")
	t.Logf("zero-order: max |deflection| %.3g m (%v)", maxAbs(vz[0]), err)
	if maxAbs(vz[0]) < 10*peak {
		t.Errorf("zero-order model did not diverge: %.3g m", maxAbs(vz[0]))
	}
}

// ---- figures (MBFMU_FIGURES=1 go test -run TestFlexFigures) ----

type curve struct {
	name string
	x, y []float64
}

// svgPlot writes a line chart.
func svgPlot(t *testing.T, path, title, xl, yl string, cs []curve, ylim ...float64) {
	const W, H, l, r, top, bot = 720.0, 420.0, 80.0, 20.0, 40.0, 60.0
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, c := range cs {
		for i := range c.x {
			x0, x1 = math.Min(x0, c.x[i]), math.Max(x1, c.x[i])
			y0, y1 = math.Min(y0, c.y[i]), math.Max(y1, c.y[i])
		}
	}
	if len(ylim) == 2 {
		y0, y1 = ylim[0], ylim[1]
	}
	if y1 == y0 {
		y1 = y0 + 1
	}
	pad := 0.05 * (y1 - y0)
	y0, y1 = y0-pad, y1+pad
	px := func(x float64) float64 { return l + (x-x0)/(x1-x0)*(W-l-r) }
	py := func(y float64) float64 { return top + (y1-math.Max(y0, math.Min(y1, y)))/(y1-y0)*(H-top-bot) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%g" y="22" text-anchor="middle" font-size="14">%s</text>`+"\n", W/2, title)
	ticks := func(a, z float64) []float64 {
		step := math.Pow(10, math.Floor(math.Log10((z-a)/5)))
		for _, m := range []float64{1, 2, 5, 10} {
			if (z-a)/(step*m) <= 7 {
				step *= m
				break
			}
		}
		var out []float64
		for v := math.Ceil(a/step) * step; v <= z+1e-12*step; v += step {
			if math.Abs(v) < 1e-9*step {
				v = 0
			}
			out = append(out, v)
		}
		return out
	}
	for _, v := range ticks(x0, x1) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#ddd"/><text x="%.1f" y="%g" text-anchor="middle">%.4g</text>`+"\n",
			px(v), top, px(v), H-bot, px(v), H-bot+16, v)
	}
	for _, v := range ticks(y0, y1) {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%.4g</text>`+"\n",
			l, py(v), W-r, py(v), l-6, py(v)+4, v)
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="black"/>`+"\n", l, top, W-l-r, H-top-bot)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", (W+l-r)/2, H-18, xl)
	fmt.Fprintf(&b, `<text x="18" y="%g" text-anchor="middle" transform="rotate(-90 18 %g)">%s</text>`+"\n", (H+top-bot)/2, (H+top-bot)/2, yl)
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"}
	dash := []string{"", "6 3", "2 2", "8 3 2 3", "", ""}
	for k, c := range cs {
		var p strings.Builder
		for i := range c.x {
			fmt.Fprintf(&p, "%.1f,%.1f ", px(c.x[i]), py(c.y[i]))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6" stroke-dasharray="%s" points="%s"/>`+"\n", colors[k%6], dash[k%6], p.String())
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2" stroke-dasharray="%s"/><text x="%g" y="%g">%s</text>`+"\n",
			l+12, top+16+16*float64(k), l+40, top+16+16*float64(k), colors[k%6], dash[k%6], l+46, top+20+16*float64(k), c.name)
	}
	b.WriteString("</svg>\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func diff(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func shift(a []float64, d float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + d
	}
	return out
}

func scale(a []float64, f float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = f * a[i]
	}
	return out
}

func TestFlexFigures(t *testing.T) {
	if os.Getenv("MBFMU_FIGURES") == "" {
		t.Skip("set MBFMU_FIGURES=1 to write the README figures of the flexible examples")
	}
	// hub–beam
	for _, w0 := range []float64{1, 2} {
		m := flexLoad(t, "hub-beam/model.xml", map[string]float64{"omega0": w0})
		ts, v, err := series(t, m, 0.01, "beam_full.tip.defl", "beam_krylov.tip.defl", "beam_modal.tip.defl")
		if err != nil {
			t.Fatal(err)
		}
		tag := fmt.Sprintf("w%g", w0)
		svgPlot(t, "../examples/hub-beam/deflection-"+tag+".svg", fmt.Sprintf("Hub–beam, ω0 = %g rad/s: tip deflection (floating frame)", w0), "time [s]", "deflection [mm]",
			[]curve{{"full FE (60 coordinates)", ts, scale(v[0], 1e3)}, {"Krylov, 5 coordinates", ts, scale(v[1], 1e3)}, {"modal, 25 modes", ts, scale(v[2], 1e3)}})
		svgPlot(t, "../examples/hub-beam/error-"+tag+".svg", fmt.Sprintf("Hub–beam, ω0 = %g rad/s: tip deflection error against the full FE model", w0), "time [s]", "error [mm]",
			[]curve{{"Krylov, 5 coordinates", ts, scale(diff(v[1], v[0]), 1e3)}, {"modal, 25 modes", ts, scale(diff(v[2], v[0]), 1e3)}})
	}
	// pendulum
	m := flexLoad(t, "ancf-pendulum/model.xml", nil)
	ts, v, err := series(t, m, 0.005, "rod.tip.y", "rod.tip.x", "energy.total", "energy.kinetic", "rod.energy")
	if err != nil {
		t.Fatal(err)
	}
	svgPlot(t, "../examples/ancf-pendulum/tip.svg", "Flexible pendulum (160 ANCF elements): free end", "time [s]", "position [m]",
		[]curve{{"vertical", ts, v[0]}, {"horizontal", ts, v[1]}})
	svgPlot(t, "../examples/ancf-pendulum/energy.svg", "Flexible pendulum: energy", "time [s]", "energy [J]",
		[]curve{{"total − initial (×1000)", ts, scale(shift(v[2], -v[2][0]), 1e3)}, {"kinetic", ts, v[3]}, {"strain", ts, v[4]}})
	// shapes
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	names := m.CoordNames()
	var xs, ys []int
	for i, n := range names {
		if strings.HasPrefix(n, "rod.n") && strings.HasSuffix(n, ".x") {
			xs = append(xs, i)
		}
		if strings.HasPrefix(n, "rod.n") && strings.HasSuffix(n, ".y") {
			ys = append(ys, i)
		}
	}
	var shapes []curve
	for _, tt := range []float64{0.2, 0.4, 0.5, 0.6, 0.8, 1.0, 1.1} {
		if err := m.AdvanceTo(s, tt); err != nil {
			t.Fatal(err)
		}
		c := curve{name: fmt.Sprintf("t = %.1f s", tt)}
		for k := range xs {
			c.x = append(c.x, s.Q()[xs[k]])
			c.y = append(c.y, s.Q()[ys[k]])
		}
		shapes = append(shapes, c)
	}
	svgPlot(t, "../examples/ancf-pendulum/shapes.svg", "Flexible pendulum: shapes (x horizontal, y vertical, m)", "x [m]", "y [m]", shapes[:6])
	// spin-up
	m = flexLoad(t, "spin-up/model.xml", nil)
	ts, v, err = series(t, m, 0.02, "ancf.tip.defl", "ffr.tip.defl", "hub.omega")
	if err != nil {
		t.Fatal(err)
	}
	z := flexLoad(t, "spin-up/zero-order.xml", nil)
	tz, vz, _ := series(t, z, 0.02, "ffr0.tip.defl")
	svgPlot(t, "../examples/spin-up/deflection.svg", "Spin-up (Ωs = 6 rad/s, Ts = 15 s): tip deflection in the rotating frame", "time [s]", "deflection [m]",
		[]curve{{"ANCF (10 elements)", ts, v[0]}, {"floating frame, stiffened", ts, v[1]}, {"floating frame, zero-order", tz, vz[0]}}, -1.5, 0.5)
	svgPlot(t, "../examples/spin-up/difference.svg", "Spin-up: stiffened floating frame − ANCF", "time [s]", "difference [mm]",
		[]curve{{"stiffened FFR − ANCF", ts, scale(diff(v[1], v[0]), 1e3)}})
	// 3-RRR
	m = flexLoad(t, "three-rrr/model.xml", nil)
	ts, v, err = series(t, m, 0.005, "platform.x", "platform.y", "rod1.mid.defl", "rod2.mid.defl", "rod3.mid.defl", "drive1.force", "drive2.force", "drive3.force")
	if err != nil {
		t.Fatal(err)
	}
	ex := make([]float64, len(ts))
	for i, tt := range ts {
		ex[i] = 1e6 * math.Hypot(v[0][i]-0.1*math.Cos(2*math.Pi*tt), v[1][i]-0.1*math.Sin(2*math.Pi*tt))
	}
	svgPlot(t, "../examples/three-rrr/deflection.svg", "3-RRR: mid-span deflection of the passive links", "time [s]", "deflection [mm]",
		[]curve{{"link 1", ts, scale(v[2], 1e3)}, {"link 2", ts, scale(v[3], 1e3)}, {"link 3", ts, scale(v[4], 1e3)}})
	svgPlot(t, "../examples/three-rrr/tracking.svg", "3-RRR: platform centre distance from the prescribed circle", "time [s]", "error [µm]",
		[]curve{{"|P − P_ref|", ts, ex}})
	svgPlot(t, "../examples/three-rrr/torque.svg", "3-RRR: motor torques", "time [s]", "torque [N·m]",
		[]curve{{"motor 1", ts, v[5]}, {"motor 2", ts, v[6]}, {"motor 3", ts, v[7]}})
}
