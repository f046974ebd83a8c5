package solver_test

// Tests of the contact examples in ../examples (issue 7): seed 003's drop
// test and cases 1–3, and the ball on a spring-supported plate. Each is
// checked against an independent reference: the paper's findings,
// conservation of energy, the two-body impact law. With MBFMU_FIGURES=1
// the test also draws the figures of the examples' READMEs (SVG).

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// ctRun runs example name with parameter overrides to its end time and
// returns the time and the named channels sampled at the output step.
func ctRun(t testing.TB, name string, params map[string]float64, chans ...string) (ts []float64, out map[string][]float64) {
	t.Helper()
	spec, err := xml.LoadFile("../examples/" + name + "/model.xml")
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{Params: params})
	if err != nil {
		t.Fatalf("%s: compile: %v", name, err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatalf("%s: init: %v", name, err)
	}
	idx := make([]int, len(chans))
	for i, c := range chans {
		k, ok := m.ChannelIndex(c)
		if !ok {
			t.Fatalf("%s: no channel %q", name, c)
		}
		idx[i] = k
	}
	row := make([]float64, len(m.Channels()))
	out = map[string][]float64{}
	st := m.Settings()
	n := int(math.Round((st.End - st.Start) / st.OutputStep))
	for k := 0; k <= n; k++ {
		if k > 0 {
			if err := m.AdvanceTo(s, st.Start+float64(k)*st.OutputStep); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		m.EvalChannels(s, row)
		ts = append(ts, s.T)
		for i, c := range chans {
			out[c] = append(out[c], row[idx[i]])
		}
	}
	return ts, out
}

// at returns the value of series y at time tt (nearest sample).
func at(ts, y []float64, tt float64) float64 {
	k := int(math.Round(tt / (ts[1] - ts[0])))
	return y[min(max(k, 0), len(y)-1)]
}

func TestContactExamplesSeed003(t *testing.T) {
	periods := func(ts, x []float64) []float64 {
		var p []float64
		for tt := 2.0; tt <= ts[len(ts)-1]+1e-9; tt += 2 {
			p = append(p, at(ts, x, tt))
		}
		return p
	}
	walks := func(name string, x []float64, minStep float64) {
		for i := 1; i < len(x); i++ {
			if x[i]-x[i-1] < minStep {
				t.Errorf("%s: x_xd at period ends %.4f: no walk of ≥ %g m per period", name, x, minStep)
				return
			}
		}
	}
	periodic := func(name string, x []float64) {
		for i := 2; i < len(x); i++ {
			if math.Abs(x[i]-x[i-1]) > 1e-3 {
				t.Errorf("%s: x_xd at period ends %.4f: not periodic", name, x)
				return
			}
		}
	}
	ts, r := ctRun(t, "seed003-case1", nil, "xxd")
	walks("case 1, e = −0.915 m", periods(ts, r["xxd"]), 0.01)
	ts, r = ctRun(t, "seed003-case1", map[string]float64{"ecm": 0}, "xxd")
	periodic("case 1, e = 0", periods(ts, r["xxd"]))
	// case 2: the offset body moves sideways (2.5 mm, settling after ~5 s),
	// the symmetric one does not (beyond sub-millimetre symmetry breaking)
	ts, r = ctRun(t, "seed003-case2", nil, "xxd")
	if x := at(ts, r["xxd"], 10); x > -2e-3 {
		t.Errorf("case 2, e = −3.673 m: x_xd(10 s) = %.5f m, want a sideways motion (< −2 mm)", x)
	}
	ts, r = ctRun(t, "seed003-case2", map[string]float64{"ecm": 0}, "xxd")
	for k, x := range r["xxd"] {
		if math.Abs(x) > 1e-3 {
			t.Errorf("case 2, e = 0: x_xd(%g s) = %.5f m, want no sideways motion", ts[k], x)
			break
		}
	}
	ts, r = ctRun(t, "seed003-case3", nil, "xxd")
	walks("case 3, Y0 = 0.9 m", periods(ts, r["xxd"]), 1)
	ts, r = ctRun(t, "seed003-case3", map[string]float64{"Y0": 0}, "xxd")
	periodic("case 3, Y0 = 0", periods(ts, r["xxd"]))
}

// The drop test: every rebound of the main body peaks at its drop height
// and the total energy is conserved (the feet stick: friction does no
// work; there is no damping).
func TestContactExampleDrop(t *testing.T) {
	ts, r := ctRun(t, "seed003-drop", nil, "main.y", "energy.total")
	y, e := r["main.y"], r["energy.total"]
	var peaks []float64
	for k := 1; k+1 < len(y); k++ {
		if y[k] > y[k-1] && y[k] >= y[k+1] && ts[k] > 0.1 {
			peaks = append(peaks, y[k])
		}
	}
	if len(peaks) < 2 {
		t.Fatalf("%d rebounds", len(peaks))
	}
	for i, p := range peaks {
		if math.Abs(p-y[0]) > 1e-3 {
			t.Errorf("rebound %d peaks at %.5f m, dropped from %.5f m", i+1, p, y[0])
		}
	}
	for k := range e {
		if math.Abs(e[k]-e[0]) > 1e-4*math.Abs(e[0]) {
			t.Fatalf("t = %g s: energy %g, at start %g", ts[k], e[k], e[0])
		}
	}
}

// The ball on the plate: the first impact is short against the plate's
// spring period, so it follows the two-body impact law with restitution
// e: v_ball' = (m1 − e m2) v0/(m1 + m2), v_plate' = (1 + e) m1 v0/(m1 + m2).
func TestContactExampleBallOnPlate(t *testing.T) {
	_, r := ctRun(t, "ball-on-plate", nil, "time", "ball.vy", "plate.vy", "impact.force")
	f, vb, vp := r["impact.force"], r["ball.vy"], r["plate.vy"]
	k0 := -1
	for k := range f {
		if f[k] > 0 {
			k0 = k
			break
		}
	}
	if k0 < 1 {
		t.Fatal("no impact")
	}
	k1 := k0
	for f[k1] > 0 {
		k1++
	}
	const m1, m2, e = 0.5, 2.0, 0.8
	v0 := vb[k0-1]
	wantB, wantP := (m1-e*m2)*v0/(m1+m2), (1+e)*m1*v0/(m1+m2)
	if math.Abs(vb[k1]-wantB) > 0.01*math.Abs(v0) || math.Abs(vp[k1]-wantP) > 0.01*math.Abs(v0) {
		t.Errorf("after the impact at %.3f m/s: ball %.4f m/s (want %.4f), plate %.4f m/s (want %.4f)", v0, vb[k1], wantB, vp[k1], wantP)
	}
	if e2 := (vb[k1] - vp[k1]) / -(v0); math.Abs(e2-e) > 0.01 {
		t.Errorf("restitution of the first impact %.4f, want %g", e2, e)
	}
}

// ---- figures (MBFMU_FIGURES=1) ----

type ctSeries struct {
	label string
	x, y  []float64
}

// ctSVG draws a line chart.
func ctSVG(path, title, xl, yl string, series ...ctSeries) error {
	const W, H, ml, mr, mt, mb = 720.0, 360.0, 70.0, 20.0, 30.0, 45.0
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for i := range s.x {
			x0, x1 = math.Min(x0, s.x[i]), math.Max(x1, s.x[i])
			y0, y1 = math.Min(y0, s.y[i]), math.Max(y1, s.y[i])
		}
	}
	if y1 == y0 {
		y0, y1 = y0-1, y1+1
	}
	pad := 0.05 * (y1 - y0)
	y0, y1 = y0-pad, y1+pad
	px := func(x float64) float64 { return ml + (x-x0)/(x1-x0)*(W-ml-mr) }
	py := func(y float64) float64 { return H - mb - (y-y0)/(y1-y0)*(H-mt-mb) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%g" y="18" text-anchor="middle" font-size="14">%s</text>`+"\n", W/2, title)
	for _, tk := range ctTicks(x0, x1) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#ddd"/><text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n",
			px(tk), mt, px(tk), H-mb, px(tk), H-mb+16, ctFmt(tk))
	}
	for _, tk := range ctTicks(y0, y1) {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n",
			ml, py(tk), W-mr, py(tk), ml-5, py(tk)+4, ctFmt(tk))
	}
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="black"/>`+"\n", ml, mt, W-ml-mr, H-mt-mb)
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", (ml+W-mr)/2, H-8, xl)
	fmt.Fprintf(&b, `<text x="14" y="%g" text-anchor="middle" transform="rotate(-90 14 %g)">%s</text>`+"\n", (mt+H-mb)/2, (mt+H-mb)/2, yl)
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e"}
	for i, s := range series {
		c := colors[i%len(colors)]
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.3" points="`, c)
		for k := range s.x {
			fmt.Fprintf(&b, "%.1f,%.1f ", px(s.x[k]), py(s.y[k]))
		}
		b.WriteString("\"/>\n")
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/><text x="%g" y="%g">%s</text>`+"\n",
			ml+10, mt+14+16*float64(i), ml+30, mt+14+16*float64(i), c, ml+35, mt+18+16*float64(i), s.label)
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func ctTicks(a, b float64) []float64 {
	step := math.Pow(10, math.Floor(math.Log10((b-a)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (b-a)/(step*m) <= 7 {
			step *= m
			break
		}
	}
	var t []float64
	for v := math.Ceil(a/step) * step; v <= b+1e-9*step; v += step {
		t = append(t, math.Round(v/step)*step)
	}
	return t
}

func ctFmt(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.6g", v), ".0") }

// window returns the part of a series with t0 ≤ t ≤ t1.
func window(ts, y []float64, t0, t1 float64) (x, yy []float64) {
	for k := range ts {
		if ts[k] >= t0-1e-12 && ts[k] <= t1+1e-12 {
			x = append(x, ts[k])
			yy = append(yy, y[k])
		}
	}
	return
}

func TestContactExampleFigures(t *testing.T) {
	if os.Getenv("MBFMU_FIGURES") == "" {
		t.Skip("set MBFMU_FIGURES=1 to draw the examples' figures")
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	d := "../examples/"
	// case 1 (Figs. 6–8)
	ts, a := ctRun(t, "seed003-case1", nil, "xxd", "footA.slip", "footB.slip", "footA.force", "footB.force", "footA.friction", "footB.friction")
	_, b := ctRun(t, "seed003-case1", map[string]float64{"ecm": 0}, "xxd")
	must(ctSVG(d+"seed003-case1/xxd.svg", "Case 1: body position on the platform (cf. Fig. 6)", "time (s)", "x_xd (m)",
		ctSeries{"e = −0.915 m", ts, a["xxd"]}, ctSeries{"e = 0", ts, b["xxd"]}))
	x, y := window(ts, a["footA.slip"], 0, 4)
	_, y2 := window(ts, a["footB.slip"], 0, 4)
	must(ctSVG(d+"seed003-case1/slip.svg", "Case 1, e = −0.915 m: slip velocities (cf. Fig. 7)", "time (s)", "slip velocity (m/s)",
		ctSeries{"foot A (leg 2)", x, y}, ctSeries{"foot B (leg 3)", x, y2}))
	_, fa := window(ts, a["footA.force"], 0, 4)
	_, fb := window(ts, a["footB.force"], 0, 4)
	_, ffa := window(ts, a["footA.friction"], 0, 4)
	_, ffb := window(ts, a["footB.friction"], 0, 4)
	must(ctSVG(d+"seed003-case1/forces.svg", "Case 1, e = −0.915 m: normal and friction forces (cf. Fig. 8)", "time (s)", "force (N)",
		ctSeries{"F_N foot A", x, fa}, ctSeries{"F_N foot B", x, fb}, ctSeries{"F_f foot A", x, ffa}, ctSeries{"F_f foot B", x, ffb}))
	// case 2 (Figs. 9–10)
	ts, a = ctRun(t, "seed003-case2", nil, "xxd", "footA.force", "footB.force")
	_, b = ctRun(t, "seed003-case2", map[string]float64{"ecm": 0}, "xxd")
	must(ctSVG(d+"seed003-case2/xxd.svg", "Case 2: body position on the platform (cf. Fig. 9)", "time (s)", "x_xd (m)",
		ctSeries{"e = −3.673 m", ts, a["xxd"]}, ctSeries{"e = 0", ts, b["xxd"]}))
	x, y = window(ts, a["footA.force"], 0, 1)
	_, y2 = window(ts, a["footB.force"], 0, 1)
	must(ctSVG(d+"seed003-case2/force.svg", "Case 2, e = −3.673 m: normal forces (cf. Fig. 10)", "time (s)", "F_N (N)",
		ctSeries{"foot A", x, y}, ctSeries{"foot B", x, y2}))
	// case 3 (Fig. 11)
	ts, a = ctRun(t, "seed003-case3", nil, "xxd")
	_, b = ctRun(t, "seed003-case3", map[string]float64{"Y0": 0}, "xxd")
	must(ctSVG(d+"seed003-case3/xxd.svg", "Case 3: body position on the platform (cf. Fig. 11)", "time (s)", "x_xd (m)",
		ctSeries{"Y0 = 0.9 m", ts, a["xxd"]}, ctSeries{"Y0 = 0", ts, b["xxd"]}))
	// drop test (Fig. 5)
	ts, a = ctRun(t, "seed003-drop", nil, "main.y", "energy.total")
	must(ctSVG(d+"seed003-drop/y1.svg", "Drop test: height of the main body (cf. Fig. 5)", "time (s)", "y1 (m)",
		ctSeries{"y1", ts, a["main.y"]}))
	// ball on plate
	ts, a = ctRun(t, "ball-on-plate", nil, "ball.y", "plate.y", "energy.total")
	must(ctSVG(d+"ball-on-plate/heights.svg", "Ball on a spring-supported plate", "time (s)", "height (m)",
		ctSeries{"ball centre", ts, a["ball.y"]}, ctSeries{"plate", ts, a["plate.y"]}))
}
