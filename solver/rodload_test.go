package solver

import (
	"fmt"
	"math"
	"testing"
)

// TestRodLineLoads: a rod's line-load. In the world frame on a cantilever
// (small deflection) the tip deflects q L⁴/(8 EI) + q L²/(2 κ G A)
// (Timoshenko: bending and shear); as a follower pressure p (the section
// frame's y axis points to the centre of a ring bent about z) on a ring
// clamped at one point, the ring contracts uniformly, its hoop force p R:
// the opposite point moves 2 ΔR = 2 p R²/(EA) towards the clamp, and the
// ring stays round (no bending: the points a quarter turn away move by
// ΔR both ways).
func TestRodLineLoads(t *testing.T) {
	const A, I, E, nu, kappa = 1e-4, 1e-9, 1e9, 0.3, 5.0 / 6
	G := E / (2 * (1 + nu))
	// cantilever, global load along −z
	const L, q = 1.0, 0.05
	text := fmt.Sprintf(`<model name="cl" dimension="3"><settings gravity="0 0 0"/>
  <ground><marker name="O"/></ground>
  <beam kind="rod" name="r" at="0 0 0" x-axis="1 0 0" y-axis="0 1 0" length="%g" elements="64" line-load="0 0 %g"
        area="%g" area-moment-y="%g" area-moment-z="%g" torsion-constant="2e-9" youngs="%g" poisson="%g" density="1000" i="ground.O">
    <marker name="tip" s="%g"/>
  </beam>
</model>`, L, -q, A, I, I, E, nu, L)
	m, s := loadDrive(t, text)
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	want := q*L*L*L*L/(8*E*I) + q*L*L/(2*kappa*G*A)
	got := -chanAt(t, m, s, "r.tip.uz")
	t.Logf("cantilever under %g N/m: tip %.7g m, beam theory %.7g m", q, got, want)
	if math.Abs(got/want-1) > 2e-3 {
		t.Errorf("cantilever: tip %.7g m, want %.7g", got, want)
	}
	// ring under follower pressure
	const R, p = 0.2, 10.0
	text = fmt.Sprintf(`<model name="ring" dimension="3"><settings gravity="0 0 0"/>
  <ground><marker name="O"/></ground>
  <beam kind="rod" name="r" at="0 0 0" x-axis="1 0 0" y-axis="0 1 0" length="2*pi*%g" radius="%g" bend-axis="0 0 1" elements="96"
        line-load="0 %g 0" line-load-frame="section"
        area="%g" area-moment-y="%g" area-moment-z="%g" torsion-constant="2e-9" youngs="%g" poisson="%g" density="1000">
    <marker name="a" s="0"/><marker name="b" s="2*pi*%g"/><marker name="h" s="pi*%g"/><marker name="q" s="pi*%g/2"/>
  </beam>
  <fixed name="clamp" i="ground.O" j="r.a"/>
  <fixed name="close" i="r.a" j="r.b"/>
</model>`, R, R, p, A, I, I, E, nu, R, R, R)
	m, s = loadDrive(t, text)
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	dR := p * R * R / (E * A)
	uy, qx, qy := chanAt(t, m, s, "r.h.uy"), chanAt(t, m, s, "r.q.ux"), chanAt(t, m, s, "r.q.uy")
	t.Logf("ring under %g N/m: opposite point %.7g m (want %.7g), quarter point (%.7g, %.7g) (want (%.7g, %.7g))", p, uy, -2*dR, qx, qy, -dR, -dR)
	if math.Abs(uy/(-2*dR)-1) > 2e-3 || math.Abs(qx/(-dR)-1) > 2e-3 || math.Abs(qy/(-dR)-1) > 2e-3 {
		t.Errorf("ring: opposite point %.7g, quarter point (%.7g, %.7g); want %.7g and (%.7g, %.7g)", uy, qx, qy, -2*dR, -dR, -dR)
	}
}

// TestStaticStiffRodClampedBothEnds: a rod of a steel-like axial
// stiffness (EA/l = 4e8) clamped at both ends: the static solve's
// constraint pivots were about 1/K, below the LU tolerance, and it failed
// at once; with the constraint rows equilibrated it sags under its weight
// by about w L⁴/(384 EI) (1 % less: the membrane stiffening of a
// clamped-clamped beam at δ/r = 0.11) and its first bending frequency is
// (4.730)² √(EI/μL⁴)/2π within 1 %.
func TestStaticStiffRodClampedBothEnds(t *testing.T) {
	const text = `<model name="cc" dimension="3"><settings gravity="0 0 -9.81"/>
  <ground><marker name="A"/><marker name="B" at="1 0 0"/></ground>
  <beam kind="rod" name="r" at="0 0 0" x-axis="1 0 0" length="1" elements="20"
        axial-stiffness="2e7" bending-stiffness-y="100" bending-stiffness-z="100" torsional-stiffness="80" mass-per-length="1" i="ground.A" j="ground.B">
    <marker name="m" s="0.5"/>
  </beam>
</model>`
	m, s := loadDrive(t, text)
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	want := 9.81 / (384 * 100.0)
	got := -chanAt(t, m, s, "r.m.uz")
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	f1 := 4.730040745 * 4.730040745 * math.Sqrt(100.0) / (2 * math.Pi)
	t.Logf("mid-span sag %.6g m (w L⁴/384EI %.6g); first frequency %.4f Hz (%.4f)", got, want, lin.Modes[0].Freq, f1)
	if math.Abs(got/want-1) > 0.02 || math.Abs(lin.Modes[0].Freq/f1-1) > 0.01 {
		t.Errorf("sag %.6g m (want about %.6g), first frequency %.4f Hz (want %.4f)", got, want, lin.Modes[0].Freq, f1)
	}
}
