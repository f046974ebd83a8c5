package solver

import (
	"math"
	"strings"
	"testing"

	"mbfmu/solver/mech"
)

// Exact Coulomb friction on spherical and universal joints
// (<friction model="coulomb">, the default there): the friction torque is
// one vector within |T| ≤ F_s, decided by the engine's isotropic stick–slip
// sets (stickslip.go), as a spatial contact's tangent friction is.

// A body of isotropic inertia J = 0.01 kg·m² spinning at 10 rad/s about a
// skew axis on a ball joint with 0.1 N·m of Coulomb friction: the torque
// opposes the spin, so the spin keeps its axis and decelerates at
// 10 rad/s², stops at 1 s after turning 5 rad, and then does not move at
// all (exact stick: no creep as with the LuGre bristles).
func TestBallJointCoulombSpinDown(t *testing.T) {
	axis := [3]float64{1.0 / 3, 2.0 / 3, 2.0 / 3}
	m, s := loadDrive(t, ballModel("0 0 0", `<body name="b" mass="1" inertia="0.01 0.01 0.01" omega="10/3, 20/3, 20/3" omega-frame="global"/>`,
		`<friction name="f" joint="ball" preload="0.1"/>`))
	if err := m.AdvanceTo(s, 0.5); err != nil {
		t.Fatal(err)
	}
	for k, c := range []string{"b.wx", "b.wy", "b.wz"} {
		if w := chanAt(t, m, s, c); math.Abs(w-5*axis[k]) > 1e-12 {
			t.Errorf("%s at 0.5 s: %.15g rad/s, want %.15g (5 rad/s along the spin axis)", c, w, 5*axis[k])
		}
	}
	for k, c := range []string{"f.tx", "f.ty", "f.tz"} {
		if tq := chanAt(t, m, s, c); math.Abs(tq+0.1*axis[k]) > 1e-12 {
			t.Errorf("%s %.15g N·m while sliding, want %.15g (against the spin)", c, tq, -0.1*axis[k])
		}
	}
	if md := chanAt(t, m, s, "f.mode"); md != 1 {
		t.Errorf("mode %g while sliding, want 1", md)
	}
	if err := m.AdvanceTo(s, 1.5); err != nil {
		t.Fatal(err)
	}
	if md := chanAt(t, m, s, "f.mode"); md != 0 {
		t.Errorf("mode %g at rest, want 0 (stick)", md)
	}
	q := [4]float64{chanAt(t, m, s, "b.qw"), chanAt(t, m, s, "b.qx"), chanAt(t, m, s, "b.qy"), chanAt(t, m, s, "b.qz")}
	// turned 5 rad about the axis: q = (cos 2.5, sin 2.5 · axis)
	want := [4]float64{math.Cos(2.5), math.Sin(2.5) * axis[0], math.Sin(2.5) * axis[1], math.Sin(2.5) * axis[2]}
	for k := range q {
		if math.Abs(q[k]-want[k]) > 1e-12 {
			t.Errorf("orientation at rest %v, want %v (5 rad about the axis)", q, want)
			break
		}
	}
	if err := m.AdvanceTo(s, 10); err != nil {
		t.Fatal(err)
	}
	for k, c := range []string{"b.qw", "b.qx", "b.qy", "b.qz"} {
		if d := chanAt(t, m, s, c) - q[k]; d != 0 {
			t.Errorf("%s moved by %.3g from 1.5 s to 10 s: the friction must hold it", c, d)
		}
	}
}

// A ball-jointed body (J = 0.01 kg·m², no gravity) under a torque ramp
// T = t a about a skew axis a, with friction from a constant normal load:
// F_s = μs N r = 0.5 N·m, F_c = μk N r = 0.3 N·m. It does not turn at all
// until the load reaches F_s at 0.5 s, then spins up along a with
// J ω̇ = t − F_c: ω(1 s) = ((1 − 0.25)/2 − 0.3·0.5)/J = 22.5 rad/s
// (RK4 to 1e-9, generalized-α, second order, to 1e-6). The held state
// moves by round-off only (1e-15).
func TestBallJointCoulombBreakAway(t *testing.T) {
	for integ, tol := range map[string]float64{"genalpha": 1e-6, "rk4": 1e-9} {
		t.Run(integ, func(t *testing.T) {
			model := ballModel("0 0 0", `<body name="b" mass="1" inertia="0.01 0.01 0.01"/>`,
				`<torque name="T" i="b" tx="t*2/7" ty="t*3/7" tz="-t*6/7" frame="global"/>
  <friction name="f" joint="ball" normal="10" radius="0.1" mu-static="0.5" mu-kinetic="0.3"/>`)
			model = strings.Replace(model, `step="1 ms"`, `step="1 ms" integrator="`+integ+`"`, 1)
			m, s := loadDrive(t, model)
			if err := m.AdvanceTo(s, 0.499); err != nil {
				t.Fatal(err)
			}
			for _, c := range []string{"b.wx", "b.wy", "b.wz", "b.qx", "b.qy", "b.qz"} {
				if v := chanAt(t, m, s, c); math.Abs(v) > 1e-15 {
					t.Errorf("%s = %.3g at 0.499 s: the friction holds 0.499 N·m below F_s = 0.5 exactly", c, v)
				}
			}
			if tq := chanAt(t, m, s, "f.effort"); math.Abs(tq-0.499) > 1e-12 {
				t.Errorf("holding torque %.15g N·m, want the load 0.499", tq)
			}
			if err := m.AdvanceTo(s, 1); err != nil {
				t.Fatal(err)
			}
			a := [3]float64{2.0 / 7, 3.0 / 7, -6.0 / 7}
			for k, c := range []string{"b.wx", "b.wy", "b.wz"} {
				if w := chanAt(t, m, s, c); math.Abs(w-22.5*a[k]) > tol*22.5 {
					t.Errorf("%s at 1 s: %.12g rad/s, want %.12g", c, w, 22.5*a[k])
				}
			}
		})
	}
}

// A 1 kg lever 0.1 m long on a ball joint under gravity (m g l =
// 0.981 N·m about the joint): with 2 N·m of friction it is held to
// round-off over 10 s with the torque m g l; with 0.5 N·m it falls in its
// vertical plane as the planar equation J φ̈ = m g l cos φ − 0.5 says (J =
// 0.013 kg·m² about the joint), integrated here by RK4 with a 10 µs step:
// at h = 1 ms within 1e-5 rad after 0.2 s, the error falling by 4 at
// 0.5 ms (generalized-α is second order through the friction).
func TestBallJointCoulombLever(t *testing.T) {
	lever := `<body name="b" mass="1" inertia="0.001 0.003 0.003" cm="0.1 0 0"/>`
	m, s := loadDrive(t, ballModel("0 0 -9.81", lever, `<friction name="f" joint="ball" preload="2"/>`))
	if err := m.AdvanceTo(s, 10); err != nil {
		t.Fatal(err)
	}
	if qy := chanAt(t, m, s, "b.qy"); math.Abs(qy) > 1e-15 {
		t.Errorf("held lever tilted by %.3g", qy)
	}
	if tq := chanAt(t, m, s, "f.ty"); math.Abs(tq+0.981) > 1e-12 {
		t.Errorf("holding torque %.15g N·m about y, want −m g l = −0.981", tq)
	}
	f := func(p, w float64) (float64, float64) { return w, (0.981*math.Cos(p) - 0.5) / 0.013 }
	p, w := 0.0, 0.0
	const h = 1e-5
	for k := 0; k < 20000; k++ {
		k1p, k1w := f(p, w)
		k2p, k2w := f(p+h/2*k1p, w+h/2*k1w)
		k3p, k3w := f(p+h/2*k2p, w+h/2*k2w)
		k4p, k4w := f(p+h*k3p, w+h*k3w)
		p += h / 6 * (k1p + 2*k2p + 2*k3p + k4p)
		w += h / 6 * (k1w + 2*k2w + 2*k3w + k4w)
	}
	var errs [2]float64
	for k, h := range []string{"1 ms", "0.5 ms"} {
		model := strings.Replace(ballModel("0 0 -9.81", lever, `<friction name="f" joint="ball" preload="0.5"/>`), `step="1 ms"`, `step="`+h+`"`, 1)
		m, s := loadDrive(t, model)
		if err := m.AdvanceTo(s, 0.2); err != nil {
			t.Fatal(err)
		}
		phi := 2 * math.Atan2(chanAt(t, m, s, "b.qy"), chanAt(t, m, s, "b.qw"))
		errs[k] = math.Abs(phi - p)
		for _, c := range []string{"b.qx", "b.qz"} {
			if v := chanAt(t, m, s, c); math.Abs(v) > 1e-12 {
				t.Errorf("h = %s: %s = %.3g: the lever falls in its vertical plane", h, c, v)
			}
		}
	}
	if errs[0] > 1e-5 || errs[0]/errs[1] < 3.5 || errs[0]/errs[1] > 4.5 {
		t.Errorf("lever angle at 0.2 s (planar reference %.12g rad): error %.3g at 1 ms, %.3g at 0.5 ms; want < 1e-5, ratio ≈ 4", p, errs[0], errs[1])
	}
}

// On a universal joint the rows lie along the cross's arms: a shaft spun
// at 10 rad/s about the first arm (J = 0.01 kg·m² about it) with 0.1 N·m
// of friction stops at 1 s after 5 rad and stays; a torque of 0.09 N·m
// about the second arm, below the friction, moves nothing (round-off).
func TestUniversalJointCoulomb(t *testing.T) {
	model := func(omega, torque string) string {
		return `<model name="u" dimension="3"><settings end="3 s" step="1 ms" gravity="0 0 0"/>
  <ground><marker name="O" z-axis="1 0 0" x-axis="0 1 0"/></ground>
  <body name="b" mass="1" inertia="0.01 0.02 0.02" omega="` + omega + `" omega-frame="global"><marker name="m" z-axis="0 1 0" x-axis="1 0 0"/></body>
  <universal name="cross" i="ground.O" j="b.m"/>
  <friction name="f" joint="cross" preload="0.1"/>` + torque + `
</model>`
	}
	m, s := loadDrive(t, model("10, 0, 0", ""))
	if err := m.AdvanceTo(s, 0.5); err != nil {
		t.Fatal(err)
	}
	if w := chanAt(t, m, s, "b.wx"); math.Abs(w-5) > 1e-12 {
		t.Errorf("ω at 0.5 s: %.15g rad/s, want 5", w)
	}
	if err := m.AdvanceTo(s, 2); err != nil {
		t.Fatal(err)
	}
	a2 := 2 * math.Atan2(chanAt(t, m, s, "b.qx"), chanAt(t, m, s, "b.qw"))
	if math.Abs(a2-5) > 1e-12 {
		t.Errorf("stopped after %.15g rad, want 5", a2)
	}
	if err := m.AdvanceTo(s, 3); err != nil {
		t.Fatal(err)
	}
	if a3 := 2 * math.Atan2(chanAt(t, m, s, "b.qx"), chanAt(t, m, s, "b.qw")); a3 != a2 {
		t.Errorf("moved %.3g rad from 2 s to 3 s: the friction must hold it", a3-a2)
	}
	m, s = loadDrive(t, model("0, 0, 0", `<torque name="T" i="b" ty="0.09" frame="global"/>`))
	if err := m.AdvanceTo(s, 3); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"b.qx", "b.qy", "b.qz", "b.wy"} {
		if v := chanAt(t, m, s, c); math.Abs(v) > 1e-15 {
			t.Errorf("%s = %.3g under 0.09 N·m against 0.1 N·m of friction", c, v)
		}
	}
}

// The friction's modes and stick torques are in the state: a state saved
// while slipping and restored into a fresh one replays the stop and the
// stick bit for bit.
func TestBallJointCoulombReplay(t *testing.T) {
	m, s := loadDrive(t, ballModel("0 0 0", `<body name="b" mass="1" inertia="0.001 0.003 0.003" cm="0.1 0 0" omega="1, 2, 0" omega-frame="global"/>`,
		`<friction name="f" joint="ball" preload="0.03"/>`))
	if err := m.AdvanceTo(s, 0.05); err != nil {
		t.Fatal(err)
	}
	blob, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceTo(s, 2); err != nil {
		t.Fatal(err)
	}
	if md := chanAt(t, m, s, "f.mode"); md != 0 {
		t.Fatalf("mode %g at 2 s, want 0: the spin stops within 2 s", md)
	}
	s2 := m.NewState()
	if err := s2.UnmarshalBinary(blob); err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceTo(s2, 2); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"b.qw", "b.qx", "b.qy", "b.qz", "b.wx", "f.effort", "f.mode"} {
		if a, b := chanAt(t, m, s, c), chanAt(t, m, s2, c); math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("%s: replayed %.17g, want %.17g", c, b, a)
		}
	}
}

// A state blob whose ball-joint friction rows are open (a joint's friction
// always acts) or hold another blend step is refused: loaded, the rows
// would never be solved again and the stick slots' torques would act
// unbounded (a review found a lever spun up to 5e4 rad/s by 50 N·m
// "stick torques" against 2 N·m of friction).
func TestBallJointCoulombCorruptStateRefused(t *testing.T) {
	m, s := loadDrive(t, ballModel("0 0 -9.81", `<body name="b" mass="1" inertia="0.001 0.003 0.003" cm="0.1 0 0"/>`,
		`<friction name="f" joint="ball" preload="2"/>`))
	if err := m.AdvanceTo(s, 0.1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		edit func(st []float64)
	}{
		{"open", func(st []float64) { st[mech.CSClosed], st[mech.CSStick] = 0, 50 }},
		{"another step", func(st []float64) { st[mech.CSAlpha] = 0.5 }},
	} {
		s2 := m.NewState()
		s2.CopyFrom(s)
		for g := 0; g < 3; g++ {
			c.edit(s2.cs[g*mech.CSStride : (g+1)*mech.CSStride])
		}
		blob, err := s2.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.NewState().UnmarshalBinary(blob); err == nil || !strings.Contains(err.Error(), "joint friction state") {
			t.Errorf("%s: a blob with the ball joint's friction rows %s was accepted (%v)", c.what, c.what, err)
		}
	}
	blob, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.NewState().UnmarshalBinary(blob); err != nil {
		t.Errorf("the run's own state refused: %v", err)
	}
}
