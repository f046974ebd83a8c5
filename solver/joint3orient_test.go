package solver

import (
	"math"
	"testing"
)

// TestFixedJointAnyRelativeOrientation: a <fixed> joint freezes the
// markers' relative pose whatever it is at the start. Its orientation
// rows were xᵢ·zⱼ, yᵢ·zⱼ, xᵢ·yⱼ held at their start values, which have no
// gradient where two axes start parallel (marker j turned a quarter turn
// about z: xᵢ·yⱼ = −1), and the model failed to assemble with a
// misleading "badly scaled" message. A two-body compound pendulum (body b
// welded to a, hinged about the world y axis, released horizontal) must
// swing as one rigid body: I φ̈ = g Σ m r cos φ, integrated here by RK4 at
// a fine step; b's inertia is isotropic so its orientation does not
// matter.
func TestFixedJointAnyRelativeOrientation(t *testing.T) {
	const ma, mb, ra, rb, ia, ib, g = 1.0, 1.0, 0.1, 0.2, 0.02, 0.005, 9.81
	// reference: the compound pendulum
	I := ia + ma*ra*ra + ib + mb*rb*rb
	acc := func(phi float64) float64 { return g * (ma*ra + mb*rb) * math.Cos(phi) / I }
	phi, _ := RK4Angle(acc, 0, 0, 1e-5, 50000) // 0.5 s
	for _, orient := range []string{`axis="0 0 1" angle="90 deg"`, `axis="1 0 0" angle="180 deg"`, `axis="1 1 1" angle="70 deg"`, ``} {
		text := `<model name="weld" dimension="3"><settings end="0.5 s" step="1 ms" integrator="rk4" gravity="0 0 -9.81"/>
  <ground><marker name="O" axis="1 0 0" angle="-90 deg"/></ground>
  <body name="a" mass="1" inertia="0.01 0.02 0.03" at="0.1 0 0">
    <marker name="p" at="-0.1 0 0" axis="1 0 0" angle="-90 deg"/><marker name="m" at="0.1 0 0"/>
  </body>
  <body name="b" mass="1" inertia="0.005 0.005 0.005" at="0.2 0 0" ` + orient + `><marker name="m"/></body>
  <revolute name="hinge" i="ground.O" j="a.p"/>
  <fixed name="weld" i="a.m" j="b.m"/>
</model>`
		m, s := loadDrive(t, text)
		if err := m.AdvanceTo(s, 0.5); err != nil {
			t.Fatalf("b %s: %v", orient, err)
		}
		got := chanAt(t, m, s, "hinge.angle")
		xb, zb := chanAt(t, m, s, "b.x"), chanAt(t, m, s, "b.z")
		t.Logf("b %s: hinge angle %.10f rad, compound pendulum %.10f; b at (%.6f, %.6f)", orient, got, phi, xb, zb)
		if math.Abs(got-phi) > 1e-6 || math.Abs(xb-rb*math.Cos(phi)) > 1e-6 || math.Abs(zb+rb*math.Sin(phi)) > 1e-6 {
			t.Errorf("b %s: hinge angle %.10f, want %.10f; b at (%.6f, %.6f), want (%.6f, %.6f)", orient, got, phi, xb, zb, rb*math.Cos(phi), -rb*math.Sin(phi))
		}
	}
}

// TestPrismaticXAxesQuarterTurnApart: a prismatic joint whose markers'
// x axes start a quarter turn apart (its row xᵢ·yⱼ = −1 had no gradient)
// must still slide: a slider on a vertical rail falls freely, z = −½ g t²,
// without turning.
func TestPrismaticXAxesQuarterTurnApart(t *testing.T) {
	text := `<model name="rail" dimension="3"><settings end="0.5 s" step="1 ms" integrator="rk4" gravity="0 0 -9.81"/>
  <ground><marker name="R"/></ground>
  <body name="s" mass="2" inertia="0.01 0.02 0.03"><marker name="m" axis="0 0 1" angle="90 deg"/></body>
  <prismatic name="rail" i="ground.R" j="s.m"/>
</model>`
	m, s := loadDrive(t, text)
	if err := m.AdvanceTo(s, 0.5); err != nil {
		t.Fatal(err)
	}
	z, rz := chanAt(t, m, s, "s.z"), chanAt(t, m, s, "s.rz")
	t.Logf("slider z %.12f m (free fall %.12f), turned %.3g rad", z, -0.5*9.81*0.25, rz)
	if math.Abs(z+0.5*9.81*0.25) > 1e-9 || math.Abs(rz) > 1e-12 {
		t.Errorf("slider z %.12f m, want %.12f; turned %.3g rad", z, -0.5*9.81*0.25, rz)
	}
}

// RK4Angle integrates φ̈ = acc(φ) from (phi, w) by n classical
// Runge–Kutta steps of h: the tests' reference for one-degree-of-freedom
// pendulums (exported for the external test package).
func RK4Angle(acc func(float64) float64, phi, w, h float64, n int) (float64, float64) {
	for k := 0; k < n; k++ {
		k1p, k1v := w, acc(phi)
		k2p, k2v := w+0.5*h*k1v, acc(phi+0.5*h*k1p)
		k3p, k3v := w+0.5*h*k2v, acc(phi+0.5*h*k2p)
		k4p, k4v := w+h*k3v, acc(phi+h*k3p)
		phi += h / 6 * (k1p + 2*k2p + 2*k3p + k4p)
		w += h / 6 * (k1v + 2*k2v + 2*k3v + k4v)
	}
	return phi, w
}
