package solver

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestRodStressAtStations: a marker of a rod with a stress point
// (fiber-y, fiber-z) has the channel M.stress, the normal stress
// N/A + M_y z/I_y − M_z y/I_z at that point of the section. A cantilever
// (10 mm square steel bar, 1 m, 20 elements) clamped at its root and
// loaded at its tip, statically: by beam theory (small deflection, P = 1 N
// so the tip moves 2 mm) the bending stress at the section point (y, z)
// of the station at s is ∓P (L − s) c/I: tension on the side away from
// which the load pulls; a linear element carries its section loads at its
// centre, so the root station reads the moment at s = l/2. An axial tip
// load gives P/A everywhere.
func TestRodStressAtStations(t *testing.T) {
	const L, P, a, E = 1.0, 1.0, 0.01, 2e11
	const ne = 20
	A, I := a*a, a*a*a*a/12
	l := L / ne
	for _, c := range []struct {
		load   string
		fy, fz float64
		want   float64
	}{
		{`fz="-1"`, 0, a / 2, P * (L - l/2) * (a / 2) / I},   // top fibre, load down: tension
		{`fz="-1"`, 0, -a / 2, -P * (L - l/2) * (a / 2) / I}, // bottom fibre: compression
		{`fy="-1"`, a / 2, 0, P * (L - l/2) * (a / 2) / I},   // side away from the load: tension
		{`fx="1"`, a / 2, a / 2, P / A},                      // axial: uniform
	} {
		text := fmt.Sprintf(`<model name="bar" dimension="3"><settings gravity="0 0 0"/>
  <ground><marker name="root"/></ground>
  <beam kind="rod" name="bar" at="0 0 0" x-axis="1 0 0" y-axis="0 1 0" length="1" elements="%d"
        area="%g" area-moment-y="%g" area-moment-z="%g" torsion-constant="%g" youngs="%g" poisson="0.3" density="7800" i="ground.root">
    <marker name="r" s="0" fiber-y="%g" fiber-z="%g"/>
    <marker name="tip" s="1"/>
  </beam>
  <force name="P" i="bar.tip" %s/>
</model>`, ne, A, I, I, 0.141*a*a*a*a, E, c.fy, c.fz, c.load)
		m, s := loadDrive(t, text)
		if err := m.Static(s); err != nil {
			t.Fatal(err)
		}
		got := chanAt(t, m, s, "bar.r.stress")
		t.Logf("load %s, point (%g, %g): σ = %.6g Pa, beam theory %.6g", c.load, c.fy, c.fz, got, c.want)
		if math.Abs(got-c.want) > 1e-4*math.Abs(c.want) {
			t.Errorf("load %s, point (%g, %g): σ = %.6g Pa, want %.6g", c.load, c.fy, c.fz, got, c.want)
		}
	}
}

// TestRodStressRefusals: a stress point needs a rod given by its
// geometry, and belongs to rods only.
func TestRodStressRefusals(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`<model name="x" dimension="3"><ground><marker name="O"/></ground>
  <beam kind="rod" name="b" at="0 0 0" length="1" axial-stiffness="1e6" bending-stiffness-y="10" bending-stiffness-z="10" torsional-stiffness="5" mass-per-length="1" i="ground.O">
    <marker name="r" s="0" fiber-z="0.01"/></beam></model>`, "needs the section's area"},
		{`<model name="x"><ground><marker name="O"/></ground>
  <beam kind="ancf" name="b" at="0 0" length="1" area="1e-4" area-moment="1e-9" youngs="1e9" density="1000">
    <marker name="r" s="0" fiber-y="0.01"/></beam></model>`, "apply to the markers of spatial rods"},
	} {
		_, err := compileText(t, c.text, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
