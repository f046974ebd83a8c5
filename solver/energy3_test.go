package solver_test

import (
	"math"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// The gravitational potential energy of several spatial bodies is
// Σ −mᵢ g·rᵢ (rᵢ the centres of mass), and it turns into kinetic energy
// exactly in free fall: three bodies (orientation quaternions between
// their translations in the coordinates) at different heights and
// orientations, one with its centre of mass off the body frame.
func TestSpatialPotentialSeveralBodies(t *testing.T) {
	src := `<model name="fall" dimension="3">
  <settings end="1 s" step="1 ms" gravity="0.5 -1 -9.81"/>
  <body name="a" mass="2" inertia="0.1 0.2 0.3" at="1 2 3" axis="1 1 0" angle="0.3" velocity="0.1 0 0"/>
  <body name="b" mass="3" inertia="0.2 0.2 0.2" at="-1 0.5 7" angles="0.1 0.2 0.3" sequence="zxz" cm="0 0 -1"/>
  <body name="c" mass="0.5" inertia="0.01 0.02 0.02" at="0 0 -2" omega="1 2 3"/>
</model>`
	ms, err := xml.Parse([]byte(src), "fall.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	ch := func(name string) float64 {
		k, ok := m.ChannelIndex(name)
		if !ok {
			t.Fatalf("no channel %s", name)
		}
		row := make([]float64, len(m.Channels()))
		m.EvalChannels(s, row)
		return row[k]
	}
	g := [3]float64{0.5, -1, -9.81}
	// centres of mass: a and c at their frames; b's frame is turned, its
	// centre of mass 1 m along the body's −z axis
	b := [3]float64{-1, 0.5, 7}
	qw, qx, qy, qz := ch("b.qw"), ch("b.qx"), ch("b.qy"), ch("b.qz")
	zAxis := [3]float64{2 * (qx*qz + qw*qy), 2 * (qy*qz - qw*qx), 1 - 2*(qx*qx+qy*qy)}
	for k := range b {
		b[k] -= zAxis[k]
	}
	want := 0.0
	for k := 0; k < 3; k++ {
		want -= g[k] * (2*[3]float64{1, 2, 3}[k] + 3*b[k] + 0.5*[3]float64{0, 0, -2}[k])
	}
	if got := ch("energy.potential"); math.Abs(got-want) > 1e-9 {
		t.Errorf("potential energy %.12g J, want Σ −m g·r = %.12g J", got, want)
	}
	e0 := ch("energy.total")
	if err := m.AdvanceTo(s, 1); err != nil {
		t.Fatal(err)
	}
	if e1 := ch("energy.total"); math.Abs(e1-e0) > 1e-6*math.Abs(e0) {
		t.Errorf("free fall: total energy %.9g J at 1 s, %.9g J at the start", e1, e0)
	}
}
