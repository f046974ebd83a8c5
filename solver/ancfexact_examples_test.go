package solver_test

// The seed 004 pendulum with the exact-curvature and cable-element options
// (issue 12, item 5), and the generator of its README figure (set
// MBFMU_FIGURES=1).

import (
	"fmt"
	"math"
	"os"
	"testing"

	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// pendulumVariant runs a model of examples/ancf-pendulum with the given
// curvature and axial strain ("": as in the file), elements and step,
// sampling the free end every dt.
func pendulumVariant(t testing.TB, file, curvature, strain string, elements int, h, dt float64) (ts []float64, x, y []float64) {
	t.Helper()
	ms, err := xml.LoadFile("../examples/ancf-pendulum/" + file)
	if err != nil {
		t.Fatal(err)
	}
	a := ms.Beams[0].Attr
	for k, v := range map[string]string{"curvature": curvature, "axial-strain": strain} {
		if v != "" {
			a[k] = spec.Expr{Src: v, Field: k}
		}
	}
	a["elements"] = spec.Expr{Src: fmt.Sprint(elements), Field: "elements"}
	ms.Settings.Step = h
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts, v, err := series(t, m, dt, "rod.tip.x", "rod.tip.y")
	if err != nil {
		t.Fatal(err)
	}
	return ts, v[0], v[1]
}

// Issue 12 quotes the free end of the seed's pendulum against an
// exact-curvature ANCF cable model: 3 cm apart at t = 0.5 s, 14 cm at
// 1.1 s, converged in h on both sides. The cable element of the literature
// (Exudyn's ObjectANCFCable2D) has the exact curvature and the engineering
// axial strain |r_x| − 1 (cable.xml); with both options the difference is
// 3.1 cm (vertical) at 0.5 s and 14 cm at 1.1 s, the same at h = 1 ms and
// 0.5 ms. The exact curvature alone, with the seed's Green strain, moves
// the free end by 0.7 mm at 0.5 s and 2.6 mm at 1.1 s: the quoted
// difference is the axial law.
func TestExampleANCFPendulumCurvature(t *testing.T) {
	if testing.Short() {
		t.Skip("six 1.1 s runs of the 160-element pendulum")
	}
	type run struct{ x, y []float64 }
	var base, curv, cable [2]run
	for k, h := range []float64{1e-3, 5e-4} {
		_, x, y := pendulumVariant(t, "model.xml", "", "", 160, h, 0.1)
		base[k] = run{x, y}
		_, x, y = pendulumVariant(t, "model.xml", "exact", "", 160, h, 0.1)
		curv[k] = run{x, y}
		_, x, y = pendulumVariant(t, "cable.xml", "", "", 160, h, 0.1)
		cable[k] = run{x, y}
	}
	dist := func(a, b run, i int) float64 { return math.Hypot(a.x[i]-b.x[i], a.y[i]-b.y[i]) }
	for k, h := range []float64{1e-3, 5e-4} {
		for _, i := range []int{5, 11} {
			t.Logf("h = %g s, t = %.1f s: seed (%.4f, %.4f); exact curvature %.4f m away; cable element (%.4f, %.4f), %.4f m away (vertical %+.4f m)",
				h, 0.1*float64(i), base[k].x[i], base[k].y[i], dist(curv[k], base[k], i),
				cable[k].x[i], cable[k].y[i], dist(cable[k], base[k], i), cable[k].y[i]-base[k].y[i])
		}
	}
	for k := range base {
		if dy := base[k].y[5] - cable[k].y[5]; dy < 0.028 || dy > 0.034 {
			t.Errorf("t = 0.5 s: the cable element is %.4f m below the seed's model, issue 12 says 3 cm", dy)
		}
		if d := dist(cable[k], base[k], 11); d < 0.135 || d > 0.15 {
			t.Errorf("t = 1.1 s: the cable element is %.4f m from the seed's model, issue 12 says 14 cm", d)
		}
		if d := math.Max(dist(curv[k], base[k], 5), dist(curv[k], base[k], 11)); d > 0.004 {
			t.Errorf("the exact curvature alone moves the free end by %.4f m", d)
		}
	}
	// converged in h: the differences change by less than 2 mm
	for _, i := range []int{5, 11} {
		d1, d2 := dist(cable[0], base[0], i), dist(cable[1], base[1], i)
		if math.Abs(d1-d2) > 2e-3 {
			t.Errorf("t = %.1f s: difference %.4f m at h = 1 ms, %.4f m at 0.5 ms", 0.1*float64(i), d1, d2)
		}
	}
}

func TestANCFCurvatureFigures(t *testing.T) {
	if os.Getenv("MBFMU_FIGURES") == "" {
		t.Skip("set MBFMU_FIGURES=1 to write the README figures of examples/ancf-pendulum")
	}
	var ts []float64
	var y, d [3][2][]float64
	for k, h := range []float64{1e-3, 5e-4} {
		var x [3][]float64
		for v, o := range [][2]string{{"model.xml", ""}, {"model.xml", "exact"}, {"cable.xml", ""}} {
			ts, x[v], y[v][k] = pendulumVariant(t, o[0], o[1], "", 160, h, 0.005)
		}
		for v := 1; v < 3; v++ {
			d[v][k] = make([]float64, len(ts))
			for i := range ts {
				d[v][k][i] = 100 * math.Hypot(x[v][i]-x[0][i], y[v][k][i]-y[0][k][i])
			}
		}
	}
	for v, name := range []string{"", "exact curvature", "cable element"} {
		for k := 0; k < 2 && v > 0; k++ {
			i := 0
			for j := range ts {
				if d[v][k][j] > d[v][k][i] {
					i = j
				}
			}
			t.Logf("%s, h = %g ms: largest distance %.2f cm at t = %.3f s", name, []float64{1, 0.5}[k], d[v][k][i], ts[i])
		}
	}
	svgPlot(t, "../examples/ancf-pendulum/curvature.svg", "Flexible pendulum: free end, vertical position", "time [s]", "y [m]",
		[]curve{{"seed: Green strain, κ ≈ |r''|", ts, y[0][0]}, {"exact curvature, Green strain", ts, y[1][0]},
			{"exact curvature, engineering strain (cable element)", ts, y[2][0]}})
	svgPlot(t, "../examples/ancf-pendulum/curvature-diff.svg", "Flexible pendulum: distance of the free end from the seed's model", "time [s]", "distance [cm]",
		[]curve{{"cable element, h = 1 ms", ts, d[2][0]}, {"cable element, h = 0.5 ms", ts, d[2][1]},
			{"exact curvature only, h = 1 ms", ts, d[1][0]}, {"exact curvature only, h = 0.5 ms", ts, d[1][1]}})
}
