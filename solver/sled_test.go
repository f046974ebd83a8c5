package solver

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// sledModel is a sled of 2 kg on feet (spheres of 1 cm at the corners
// given) on a floor, with exact Coulomb friction μs = 0.5, μk = 0.4 at
// each, pushed along x at its centre of mass by F = 5 t N. Resting on
// three or four feet it is statically indeterminate in stick.
func sledModel(integ, step string, feet [][2]float64) string {
	var b strings.Builder
	// each foot's share of the weight for a centroid under the centre of
	// mass: the sled starts on its law's rest penetration
	n := float64(len(feet))
	delta := 2 * 9.81 / n / 1e6
	fmt.Fprintf(&b, `<model name="sled" dimension="3"><settings end="3 s" step="%s" gravity="0 0 -9.81" integrator="%s"/>
  <ground><marker name="floor"/></ground>
  <body name="sled" mass="2" inertia="0.02 0.03 0.04" at="0 0 %s">
`, step, integ, ftoa(0.05-delta))
	for i, f := range feet {
		fmt.Fprintf(&b, "    <marker name=\"f%d\" at=\"%s %s -0.04\"/>\n", i+1, ftoa(f[0]), ftoa(f[1]))
	}
	b.WriteString("  </body>\n")
	for i := range feet {
		fmt.Fprintf(&b, `  <contact kind="sphere-plane" name="c%d" i="sled.f%d" radius="0.01" j="ground.floor" k="1e6" c="2000" friction="coulomb" mu-static="0.5" mu-dynamic="0.4"/>
`, i+1, i+1)
	}
	b.WriteString(`  <force name="push" i="sled" fx="5*time" fy="0" fz="0"/>
</model>`)
	return b.String()
}

// TestSledOnFeetSticksAndSlides is a body on three and on four frictional
// spatial contacts (a sled, a box on its corners): statically
// indeterminate in stick, which made the stick forces drift apart
// internally and the contacts chatter. Under the push F = 5 t it must hold
// (no slip at any foot; the sled moves only by the tilt of its compliant
// feet) until F reaches μs m g = 9.81 N (t = 1.962 s), every foot reaching
// its cone together with the capacity-proportional distribution, then
// slide with m v̇ = F − μk m g: v(3) = ∫ (5t − 7.848)/2 dt from 1.962 s,
// and not drift sideways or turn (the model is symmetric about the x
// axis).
func TestSledOnFeetSticksAndSlides(t *testing.T) {
	const m, g, mus, muk = 2.0, 9.81, 0.5, 0.4
	tb := mus * m * g / 5
	vEnd := 1.25*(9-tb*tb) - muk*g*(3-tb)
	for _, c := range []struct {
		name, integ, step string
		feet              [][2]float64
		tol               float64
	}{
		{"three feet, genalpha 1 ms", "genalpha", "1 ms", [][2]float64{{0.2, 0}, {-0.1, 0.15}, {-0.1, -0.15}}, 2e-3},
		{"three feet, rk4 0.2 ms", "rk4", "0.2 ms", [][2]float64{{0.2, 0}, {-0.1, 0.15}, {-0.1, -0.15}}, 2e-4},
		{"four corners, genalpha 1 ms", "genalpha", "1 ms", [][2]float64{{0.15, 0.1}, {0.15, -0.1}, {-0.15, 0.1}, {-0.15, -0.1}}, 2e-3},
	} {
		t.Run(c.name, func(t *testing.T) {
			md, s := loadDrive(t, sledModel(c.integ, c.step, c.feet))
			maxSlip, maxX, tSlip := 0.0, 0.0, -1.0
			for k := 1; k <= 300; k++ {
				tk := float64(k) * 0.01
				if err := md.AdvanceTo(s, tk); err != nil {
					t.Fatalf("t = %g: %v", tk, err)
				}
				slip := 0.0
				for i := range c.feet {
					slip = math.Max(slip, math.Abs(chanAt(t, md, s, fmt.Sprintf("c%d.slip", i+1))))
				}
				if tk < tb-0.005 {
					maxSlip = math.Max(maxSlip, slip)
					maxX = math.Max(maxX, math.Abs(chanAt(t, md, s, "sled.x")))
				} else if tSlip < 0 && slip > 1e-6 {
					tSlip = tk
				}
			}
			v := chanAt(t, md, s, "sled.vx")
			y, rz := chanAt(t, md, s, "sled.y"), chanAt(t, md, s, "sled.rz")
			t.Logf("stick: max slip %.3g m/s, max x %.3g m; slipping from t = %g (closed form %.4g); v(3) = %.9g, closed form %.9g (relative %.2g); y %.3g m, rz %.3g rad",
				maxSlip, maxX, tSlip, tb, v, vEnd, v/vEnd-1, y, rz)
			if maxSlip > 1e-9 || maxX > 1e-6 {
				t.Errorf("the sled moved in stick: slip %.3g m/s, x %.3g m", maxSlip, maxX)
			}
			if tSlip < tb || tSlip > tb+0.02 {
				t.Errorf("slips from t = %g, want just after %g", tSlip, tb)
			}
			if math.Abs(v/vEnd-1) > c.tol {
				t.Errorf("v(3) = %.9g, want %.9g", v, vEnd)
			}
			if math.Abs(y) > 1e-5 || math.Abs(rz) > 1e-4 {
				t.Errorf("the sled drifted sideways: y %.3g m, rz %.3g rad", y, rz)
			}
		})
	}
}
