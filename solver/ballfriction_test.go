package solver

import (
	"math"
	"math/rand"
	"testing"
)

// ballModel is a body of isotropic inertia J = 0.01 kg·m² (or a lever
// under gravity) on a spherical joint to the ground, with friction extra.
func ballModel(gravity, body, extra string) string {
	return `<model name="ball" dimension="3"><settings end="10 s" step="1 ms" gravity="` + gravity + `"/>
  <ground><marker name="O"/></ground>
  ` + body + `
  <spherical name="ball" i="ground.O" j="b"/>
  ` + extra + `
</model>`
}

// A body of isotropic inertia spinning at 10 rad/s about a skew axis on a
// ball joint with Coulomb friction of 0.1 N·m: the friction torque opposes
// the spin, so the spin keeps its axis and decelerates at T/J = 10
// rad/s² to rest at 1 s, then stays: no creep of the orientation from 2 s
// to 10 s. The element's derivatives check against differences.
func TestBallJointFrictionSpinDown(t *testing.T) {
	axis := [3]float64{1.0 / 3, 2.0 / 3, 2.0 / 3}
	m, s := loadDrive(t, ballModel("0 0 0", `<body name="b" mass="1" inertia="0.01 0.01 0.01" omega="10/3, 20/3, 20/3" omega-frame="global"/>`,
		`<friction name="f" joint="ball" model="lugre" preload="0.1" bristle-stiffness="1e5" bristle-damping="63"/>`))
	if err := m.AdvanceTo(s, 0.5); err != nil {
		t.Fatal(err)
	}
	for k, c := range []string{"b.wx", "b.wy", "b.wz"} {
		if w := chanAt(t, m, s, c); math.Abs(w-5*axis[k]) > 1e-5 {
			t.Errorf("%s at 0.5 s: %.9g rad/s, want %.9g (5 rad/s along the spin axis)", c, w, 5*axis[k])
		}
	}
	if tq := chanAt(t, m, s, "f.effort"); math.Abs(tq-0.1) > 1e-9 {
		t.Errorf("friction torque %.12g N·m while sliding, want 0.1", tq)
	}
	checkElementDerivatives(t, m, s, rand.New(rand.NewSource(5)))
	if err := m.AdvanceTo(s, 2); err != nil {
		t.Fatal(err)
	}
	q2 := [4]float64{chanAt(t, m, s, "b.qw"), chanAt(t, m, s, "b.qx"), chanAt(t, m, s, "b.qy"), chanAt(t, m, s, "b.qz")}
	// turned 5 rad about the axis: q = (cos 2.5, sin 2.5 · axis)
	want := [4]float64{math.Cos(2.5), math.Sin(2.5) * axis[0], math.Sin(2.5) * axis[1], math.Sin(2.5) * axis[2]}
	for k := range q2 {
		if math.Abs(q2[k]-want[k]) > 1e-4 {
			t.Errorf("orientation at rest %v, want %v (5 rad about the axis)", q2, want)
			break
		}
	}
	if err := m.AdvanceTo(s, 10); err != nil {
		t.Fatal(err)
	}
	for k, c := range []string{"b.qw", "b.qx", "b.qy", "b.qz"} {
		if d := chanAt(t, m, s, c) - q2[k]; math.Abs(d) > 1e-12 {
			t.Errorf("%s moved by %.3g from 2 s to 10 s: the friction must hold it", c, d)
		}
	}
}

// A 1 kg lever 0.1 m long on a ball joint under gravity (0.981 N·m about
// the joint) stays put to round-off over 10 s with 2 N·m of friction, and
// with a normal-load law (μ = 0.8 on a 25 mm ball under the joint's own
// reaction, 9.81 N: 0.196 N·m) it falls.
func TestBallJointFrictionHolds(t *testing.T) {
	lever := `<body name="b" mass="1" inertia="0.001 0.003 0.003" cm="0.1 0 0"/>`
	m, s := loadDrive(t, ballModel("0 0 -9.81", lever, `<friction name="f" joint="ball" model="lugre" preload="2" bristle-stiffness="1e4" bristle-damping="10"/>`))
	if err := m.AdvanceTo(s, 1); err != nil {
		t.Fatal(err)
	}
	z1 := chanAt(t, m, s, "b.qy")
	if err := m.AdvanceTo(s, 10); err != nil {
		t.Fatal(err)
	}
	if d := chanAt(t, m, s, "b.qy") - z1; math.Abs(d) > 1e-12 || math.Abs(z1) > 1e-3 {
		t.Errorf("held lever: tilt %g at 1 s, moved %.3g to 10 s", z1, d)
	}
	if tq := chanAt(t, m, s, "f.effort"); math.Abs(tq-0.981) > 1e-6 {
		t.Errorf("holding torque %.9g N·m, want m g l = 0.981", tq)
	}
	m, s = loadDrive(t, ballModel("0 0 -9.81", lever, `<friction name="f" joint="ball" model="lugre" mu-kinetic="0.8" radius="25 mm" normal="sqrt(fx(ball)^2 + fy(ball)^2 + fz(ball)^2)" bristle-stiffness="1e4" bristle-damping="10"/>`))
	if err := m.AdvanceTo(s, 0.3); err != nil {
		t.Fatal(err)
	}
	if tilt := chanAt(t, m, s, "b.qy"); tilt < 0.1 {
		t.Errorf("with 0.2 N·m of friction the lever should fall: qy = %g at 0.3 s", tilt)
	}
}

// On a universal joint the same law acts on the relative rotation about
// the cross's two arms: a shaft spun at 10 rad/s about the first arm
// (J = 0.01 kg·m² about it) with 0.1 N·m of friction stops at 1 s after
// 5 rad and stays.
func TestUniversalJointFriction(t *testing.T) {
	m, s := loadDrive(t, `<model name="u" dimension="3"><settings end="3 s" step="1 ms" gravity="0 0 0"/>
  <ground><marker name="O" z-axis="1 0 0" x-axis="0 1 0"/></ground>
  <body name="b" mass="1" inertia="0.01 0.02 0.02" omega="10, 0, 0" omega-frame="global"><marker name="m" z-axis="0 1 0" x-axis="1 0 0"/></body>
  <universal name="cross" i="ground.O" j="b.m"/>
  <friction name="f" joint="cross" model="lugre" preload="0.1" bristle-stiffness="1e5" bristle-damping="63"/>
</model>`)
	if err := m.AdvanceTo(s, 0.5); err != nil {
		t.Fatal(err)
	}
	if w := chanAt(t, m, s, "b.wx"); math.Abs(w-5) > 1e-5 {
		t.Errorf("ω at 0.5 s: %.9g rad/s, want 5", w)
	}
	if err := m.AdvanceTo(s, 2); err != nil {
		t.Fatal(err)
	}
	a2 := 2 * math.Atan2(chanAt(t, m, s, "b.qx"), chanAt(t, m, s, "b.qw"))
	if math.Abs(a2-5) > 1e-4 {
		t.Errorf("stopped after %.9g rad, want 5", a2)
	}
	if err := m.AdvanceTo(s, 3); err != nil {
		t.Fatal(err)
	}
	if a3 := 2 * math.Atan2(chanAt(t, m, s, "b.qx"), chanAt(t, m, s, "b.qw")); math.Abs(a3-a2) > 1e-12 {
		t.Errorf("moved %.3g rad from 2 s to 3 s: the friction must hold it", a3-a2)
	}
}
