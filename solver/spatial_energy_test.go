package solver_test

import (
	"math"
	"testing"

	"mbfmu/xml"
)

// The gravitational potential of a spatial model is Σ m g·(−r_cm) over all
// its bodies, the second and later included (their position coordinates
// sit after the first body's quaternion, not at its velocity indices).
func TestSpatialPotentialSeveralBodies(t *testing.T) {
	src := `<model name="three" dimension="3">
  <settings gravity="0.5 -1 -9.81"/>
  <body name="a" mass="0.12" inertia="1e-4 1e-4 1e-5" cm="0 0 0.04" at="0 0.1 0.12"/>
  <body name="b" mass="0.5" inertia="4e-4 4e-3 4e-3" at="0.1 0.05 0.1" axis="1 2 3" angle="0.7"/>
  <body name="c" mass="2" inertia="1e-4 1e-4 1e-4" cm="0.01 0.02 0.03" at="0.2 0 0" angles="0.3 -0.2 0.1" sequence="xyz"/>
</model>`
	ms, err := xml.Parse([]byte(src), "three.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := exCompile(t, ms)
	s := exInit(t, m)
	ch := exNewChannels(t, m, "energy.potential", "a.x", "a.y", "a.z", "b.x", "b.y", "b.z", "c.x", "c.y", "c.z",
		"c.qw", "c.qx", "c.qy", "c.qz")
	g := [3]float64{0.5, -1, -9.81}
	check := func(when string) {
		ch.eval(s)
		want := 0.0
		for _, b := range []struct {
			name string
			mass float64
			cm   [3]float64 // in the body frame
		}{{"a", 0.12, [3]float64{0, 0, 0.04}}, {"b", 0.5, [3]float64{}}, {"c", 2, [3]float64{0.01, 0.02, 0.03}}} {
			var qw, qx, qy, qz float64 = 1, 0, 0, 0
			if b.name == "c" {
				qw, qx, qy, qz = ch.get("c.qw"), ch.get("c.qx"), ch.get("c.qy"), ch.get("c.qz")
			}
			// R·cm with R from the quaternion (body a has the identity; b has its cm at the origin)
			c := b.cm
			rc := [3]float64{
				(1-2*(qy*qy+qz*qz))*c[0] + 2*(qx*qy-qw*qz)*c[1] + 2*(qx*qz+qw*qy)*c[2],
				2*(qx*qy+qw*qz)*c[0] + (1-2*(qx*qx+qz*qz))*c[1] + 2*(qy*qz-qw*qx)*c[2],
				2*(qx*qz-qw*qy)*c[0] + 2*(qy*qz+qw*qx)*c[1] + (1-2*(qx*qx+qy*qy))*c[2],
			}
			for k, ax := range []string{"x", "y", "z"} {
				want -= b.mass * g[k] * (ch.get(b.name+"."+ax) + rc[k])
			}
		}
		if got := ch.get("energy.potential"); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: energy.potential = %.12g J, Σ −m g·r_cm = %.12g J", when, got, want)
		}
	}
	check("t = 0")
	exAdvance(t, m, s, 0.3)
	check("t = 0.3 s")
}
