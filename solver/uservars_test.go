package solver

import (
	"math"
	"strings"
	"testing"

	"mbfmu/xml"
)

// userMotor is the DC motor of motorModel written by hand: its current a
// <state>, its torque a <torque> reading it (J = 0.01 kg·m² in all).
func userMotor(extra string) string {
	return `<model name="usermotor"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <input name="V" start="12"/>
  <parameter name="R" value="1"/><parameter name="L" value="0.01"/><parameter name="k" value="0.1"/>
  <ground><marker name="A"/></ground>
  <body name="wheel" mass="1" inertia="0.01"/>
  <revolute name="shaft" i="ground.A" j="wheel"/>
  <state name="i" rate="(V - R*i - k*omega(shaft))/L" description="armature current, A"/>
  <variable name="tq" value="k*i" unit="N*m"/>
  <torque name="drive" i="wheel" j="ground" t="tq"/>
  ` + extra + `
</model>`
}

// A DC motor written as a user state and a torque follows the closed form
// of J ω̇ = k i, L i̇ = V − R i − k ω from rest at second order in the step
// (the state's BDF2 update is condensed into the torque: the same
// reference the <motor> element is checked against).
func TestUserStateMotor(t *testing.T) {
	checkMotorSpinUp(t, userMotor(""), "i", func(m *Model, s *State) {
		if i, tq := chanAt(t, m, s, "i"), chanAt(t, m, s, "tq"); math.Abs(tq-0.1*i) > 1e-12*math.Abs(tq) {
			t.Errorf("variable tq = %.15g, want k·i = %.15g", tq, 0.1*i)
		}
	})
}

// The user state is a state of the linearisation, as the motor element's
// current is: eigenvalues 0 and those of the 2×2 motor, and ω/V =
// k/(J L s² + J R s + k²), i/V = J s/(…) to 1e-8.
func TestUserStateLinearised(t *testing.T) {
	checkMotorLinearised(t, userMotor(`<output name="w" channel="wheel.omega"/><output name="io" channel="i"/>`), "i")
}

// A stiff state equation (time constant 1 µs) at a 10 ms step: the BDF2
// update is L-stable, so the state follows its quasi-steady value
// sin t − 10⁻⁶ cos t without ringing; a state saved and restored replays
// bit for bit; and a step allocates nothing.
func TestUserStateStiffReplayAllocs(t *testing.T) {
	m, s := loadDrive(t, `<model name="stiff"><settings end="2 s" step="10 ms" gravity="0 0"/>
  <ground/><body name="b" mass="1" inertia="1"/><fixed name="f" i="ground" j="b"/>
  <state name="y" rate="-1e6*(y - sin(time))"/>
  <state name="z" rate="y - z" initial="1"/>
</model>`)
	var worst float64
	for n := 1; n <= 100; n++ {
		tt := 0.01 * float64(n)
		if err := m.AdvanceTo(s, tt); err != nil {
			t.Fatal(err)
		}
		if n > 2 {
			worst = math.Max(worst, math.Abs(chanAt(t, m, s, "y")-(math.Sin(tt)-1e-6*math.Cos(tt))))
		}
	}
	if worst > 1e-7 {
		t.Errorf("stiff state off its quasi-steady value by %.3g", worst)
	}
	blob, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceTo(s, 1.5); err != nil {
		t.Fatal(err)
	}
	want := chanAt(t, m, s, "z")
	// z' = y − z with y ≈ sin t: z = (sin t − cos t)/2 + C e^{−t}
	if ref := (math.Sin(1.5)-math.Cos(1.5))/2 + 1.5*math.Exp(-1.5); math.Abs(want-ref) > 1e-4 {
		t.Errorf("z(1.5) = %.9g, want %.9g", want, ref)
	}
	s2 := m.NewState()
	if err := s2.UnmarshalBinary(blob); err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceTo(s2, 1.5); err != nil {
		t.Fatal(err)
	}
	if got := chanAt(t, m, s2, "z"); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("replayed z %.17g, want %.17g", got, want)
	}
	m2, s3 := loadDrive(t, userMotor(""))
	if a := stepAllocs(t, m2, s3); a != 0 {
		t.Errorf("%g allocations per step with a user state", a)
	}
}

// Bad user states and variables are refused with the file position.
func TestUserVarErrors(t *testing.T) {
	base := `<model name="bad"><ground/><body name="b" mass="1" inertia="1"/><fixed name="f" i="ground" j="b"/>
  <parameter name="p" value="1"/>
  %s
</model>`
	for _, c := range []struct{ body, want string }{
		{`<variable name="a" value="b2 + 1"/>
  <variable name="b2" value="2*a"/>`, "bad.xml:3: value: column 1: variable a is defined through itself"},
		{`<state name="p" rate="1"/>`, `bad.xml:3: name: duplicate name "p": <parameter> on line 2 has it already`},
		{`<state name="s" rate="1"/>
  <parameter name="q" value="1"/>
  <state name="s2" rate="1" initial="s"/>`, `bad.xml:5: initial:`},
		{`<state name="s" rate="1 + nope"/>`, `bad.xml:3: rate: column 5: unknown identifier "nope"`},
	} {
		ms, err := xml.Parse([]byte(strings.Replace(base, "%s", c.body, 1)), "bad.xml")
		if err != nil {
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: reader error %v, want %q", c.body, err, c.want)
			}
			continue
		}
		_, err = Compile(ms, CompileOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.body, err, c.want)
		}
	}
}

// Linearising a model with element states hands its state back as it
// was: the inputs too (the rates' differences in an input used to leave
// it moved by −1e-6, which shifted everything evaluated after them).
func TestLinearizeLeavesInputs(t *testing.T) {
	m, s := loadDrive(t, userMotor(`<output name="w" channel="wheel.omega"/>`))
	before := s.Input(0)
	if _, err := m.Linearize(s); err != nil {
		t.Fatal(err)
	}
	if after := s.Input(0); math.Float64bits(after) != math.Float64bits(before) {
		t.Errorf("input V is %.17g after Linearize, was %.17g", after, before)
	}
}

// Cases found in review: a stiff nonlinear state starting at 0 (the
// difference step must not vanish with it), the static equilibrium with
// a state that follows the position (found by re-solving until the
// states hold), a state whose rate does not depend on it beside one that
// goes to its rest, a driver reading a state at the initial assembly, and
// a state reading a joint reaction (the solve's cache must see the
// multipliers change).
func TestUserStateReviewCases(t *testing.T) {
	m, s := loadDrive(t, `<model name="nl"><settings end="0.05 s" step="10 ms" gravity="0 0"/>
  <ground><marker name="O"/></ground><body name="b" mass="1" inertia="1"/>
  <revolute name="r" i="ground.O" j="b"/>
  <state name="y" rate="1e4*(2 - exp(y))"/>
</model>`)
	if err := m.AdvanceTo(s, 0.05); err != nil {
		t.Fatal(err)
	}
	if y := chanAt(t, m, s, "y"); math.Abs(y-math.Ln2) > 1e-6 {
		t.Errorf("stiff state from 0: y = %.9g, want ln 2", y)
	}

	m, s = loadDrive(t, `<model name="st5"><settings end="1 s" step="1 ms"/>
  <ground><marker name="O"/><marker name="up" angle="90 deg"/></ground>
  <body name="b" mass="1" inertia="1"><marker name="c" angle="90 deg"/></body>
  <translational name="slide" i="ground.up" j="b.c"/>
  <state name="f" rate="(dy(b.c) - f)/0.1"/>
  <state name="z" rate="0" initial="0.25"/>
  <force name="k" i="b.c" fy="-5*f - 10*dy(b.c) - 2*vy(b.c)"/>
</model>`)
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	// −9.81 − 5 y − 10 y = 0 with f = y
	if y, f, z := chanAt(t, m, s, "b.y"), chanAt(t, m, s, "f"), chanAt(t, m, s, "z"); math.Abs(y+9.81/15) > 1e-9 || math.Abs(f-y) > 1e-9 || z != 0.25 {
		t.Errorf("static: y = %.12g (want %.12g), f = %.12g (want y), z = %g (want 0.25 kept)", y, -9.81/15, f, z)
	}

	m, s = loadDrive(t, `<model name="drv"><settings end="0.01 s" step="1 ms" gravity="0 0"/>
  <ground><marker name="O"/></ground><body name="b" mass="1" inertia="1"/>
  <revolute name="r" i="ground.O" j="b"/>
  <state name="x" rate="0" initial="1"/>
  <driver name="d" joint="r" value="x"/>
</model>`)
	if a := chanAt(t, m, s, "b.angle"); math.Abs(a-1) > 1e-9 {
		t.Errorf("driver of a state at the start: angle %g, want 1", a)
	}
	if err := m.AdvanceTo(s, 0.01); err != nil {
		t.Fatal(err)
	}
	if w := chanAt(t, m, s, "b.omega"); math.Abs(w) > 1e-6 {
		t.Errorf("driver of a constant state: ω = %g", w)
	}

	m, s = loadDrive(t, `<model name="lam"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <ground><marker name="O"/></ground><body name="b" mass="1" inertia="1"><marker name="c"/></body>
  <fixed name="fix" i="ground.O" j="b.c"/>
  <force name="p" i="b.c" fx="10*sin(2*pi*time) + 0*s"/>
  <state name="s" rate="fx(fix)"/>
  <state name="s2" rate="-10*sin(2*pi*time)"/>
</model>`)
	if err := m.AdvanceTo(s, 0.1); err != nil {
		t.Fatal(err)
	}
	// fx(fix) is the reaction on marker i's body (the ground): +10 sin 2πt
	if a, b := chanAt(t, m, s, "s"), -chanAt(t, m, s, "s2"); math.Abs(a-b) > 1e-12 {
		t.Errorf("a state reading a reaction: %.15g, the same integral written out %.15g", a, b)
	}
}

// A state or variable in a constant attribute is refused as such; an
// error in a variable is reported at that variable, once.
func TestUserVarMessages(t *testing.T) {
	for _, c := range []struct{ body, want, not string }{
		{`<state name="p2" rate="1"/><body name="c" mass="p2" inertia="1"/>`, `"p2" is a <state>, which changes in time`, ""},
		{`<variable name="a" value="b2 + 1"/>
  <variable name="b2" value="nosuch*2"/>`, `bad.xml:3: value: column 1: unknown identifier "nosuch"`, `bad.xml:2:`},
	} {
		ms, err := xml.Parse([]byte(`<model name="bad"><ground/><body name="b" mass="1" inertia="1"/><fixed name="f" i="ground" j="b"/>
  `+c.body+`
</model>`), "bad.xml")
		if err == nil {
			_, err = Compile(ms, CompileOptions{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.not != "" && strings.Contains(err.Error(), c.not)) || strings.Count(err.Error(), c.want) > 1 {
			t.Errorf("%s:\n got %v\nwant %q once", c.body, err, c.want)
		}
	}
}
