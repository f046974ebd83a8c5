package solver

import (
	"fmt"
	"math"
	"testing"
)

// TestRodRingClosedByAJoint: two markers of one beam may be joined (the
// model reader refused "i and j on the same body"). A rod bent into a full
// circle (R = 0.2 m) and closed by a <fixed> joint between its two ends,
// clamped there and pulled at the opposite point by P: the pinched ring.
// Roark (Formulas for Stress and Strain, ring case 1, with the hoop and
// shear deformation factors α = I/(AR²), β = E I/(κ G A R²)) gives the
// change of the diameter along the load
//
//	ΔD = P R³/EI · (π/4 k₁ − 2 k₂²/π),  k₁ = 1 − α + β, k₂ = 1 − α.
//
// The rod's linear elements converge at second order: the Richardson
// extrapolation of 96 and 192 elements must match it to 2e-4, and 192
// elements alone to 1e-3.
func TestRodRingClosedByAJoint(t *testing.T) {
	const R, P, A, I, E, nu, kappa = 0.2, 0.1, 1e-4, 1e-9, 1e9, 0.3, 5.0 / 6
	G := E / (2 * (1 + nu))
	al, be := I/(A*R*R), E*I/(kappa*G*A*R*R)
	k1, k2 := 1-al+be, 1-al
	want := P * R * R * R / (E * I) * (math.Pi/4*k1 - 2*k2*k2/math.Pi)
	var got []float64
	for _, n := range []int{96, 192} {
		text := fmt.Sprintf(`<model name="pinch" dimension="3"><settings gravity="0 0 0"/>
  <ground><marker name="O"/></ground>
  <beam kind="rod" name="r" at="0 0 0" x-axis="1 0 0" y-axis="0 1 0" length="2*pi*%g" radius="%g" bend-axis="0 0 1" elements="%d"
        area="%g" area-moment-y="%g" area-moment-z="%g" torsion-constant="2e-9" youngs="%g" poisson="%g" density="1000">
    <marker name="a" s="0"/><marker name="b" s="2*pi*%g"/><marker name="h" s="pi*%g"/>
  </beam>
  <fixed name="clamp" i="ground.O" j="r.a"/>
  <fixed name="close" i="r.a" j="r.b"/>
  <force name="P" i="r.h" fy="%g"/>
</model>`, R, R, n, A, I, I, E, nu, R, R, P)
		m, s := loadDrive(t, text)
		if err := m.Static(s); err != nil {
			t.Fatal(err)
		}
		got = append(got, chanAt(t, m, s, "r.h.uy"))
	}
	rich := got[1] + (got[1]-got[0])/3
	t.Logf("ΔD: 96 el. %.7g m, 192 el. %.7g m, extrapolated %.7g m; Roark %.7g m (relative %.2g)", got[0], got[1], rich, want, rich/want-1)
	if math.Abs(rich/want-1) > 2e-4 || math.Abs(got[1]/want-1) > 1e-3 {
		t.Errorf("ΔD = %.7g (192 el.), extrapolated %.7g, want %.7g", got[1], rich, want)
	}
}
