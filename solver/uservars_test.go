package solver

import (
	"math"
	"math/cmplx"
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
	const J, R, L, k, V = 0.01, 1.0, 0.01, 0.1, 12.0
	p, q := R/L, k*k/(J*L)
	l1, l2 := (-p+math.Sqrt(p*p-4*q))/2, (-p-math.Sqrt(p*p-4*q))/2
	wss := V / k
	A, B := -wss*l2/(l2-l1), wss*l1/(l2-l1)
	omega := func(t float64) float64 { return wss + A*math.Exp(l1*t) + B*math.Exp(l2*t) }
	current := func(t float64) float64 { return J / k * (A*l1*math.Exp(l1*t) + B*l2*math.Exp(l2*t)) }
	var errs []float64
	for _, h := range []float64{2e-3, 1e-3, 5e-4} {
		m, s := loadDrive(t, userMotor(""))
		m.settings.Step = h
		s.h = h
		var worst float64
		for n := 1; n <= 10; n++ {
			tt := 0.05 * float64(n)
			if err := m.AdvanceTo(s, tt); err != nil {
				t.Fatal(err)
			}
			w, i := chanAt(t, m, s, "wheel.omega"), chanAt(t, m, s, "i")
			if tq := chanAt(t, m, s, "tq"); math.Abs(tq-k*i) > 1e-12*math.Abs(tq) {
				t.Errorf("variable tq = %.15g, want k·i = %.15g", tq, k*i)
			}
			worst = math.Max(worst, math.Max(math.Abs(w-omega(tt))/wss, math.Abs(i-current(tt))/current(0.01)))
		}
		errs = append(errs, worst)
		t.Logf("h = %g: largest error %.3g (relative to ω_ss and the peak current)", h, worst)
	}
	if errs[1] > 1e-3 {
		t.Errorf("at h = 1 ms the motor is off by %.3g", errs[1])
	}
	for n := 1; n < len(errs); n++ {
		if q := errs[n-1] / errs[n]; q < 3.3 || q > 4.8 {
			t.Errorf("error ratio %.2f on halving the step, want about 4", q)
		}
	}
}

// The user state is a state of the linearisation, as the motor element's
// current is: eigenvalues 0 and those of the 2×2 motor, and ω/V =
// k/(J L s² + J R s + k²), i/V = J s/(…) to 1e-8.
func TestUserStateLinearised(t *testing.T) {
	const J, R, L, k = 0.01, 1.0, 0.01, 0.1
	m, s := loadDrive(t, userMotor(`<output name="w" channel="wheel.omega"/><output name="io" channel="i"/>`))
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := lin.A.Dims(); r != 3 || c != 3 || len(lin.States) != 1 || lin.States[0] != "i" {
		t.Fatalf("A is %d×%d with element states %v; want 3×3 with i", r, c, lin.States)
	}
	f := []float64{0.3, 3, 30}
	H, err := lin.Response(f)
	if err != nil {
		t.Fatal(err)
	}
	for n, fr := range f {
		sj := complex(0, 2*math.Pi*fr)
		den := J*L*sj*sj + J*R*sj + k*k
		for o, ref := range []complex128{k / den, J * sj / den} {
			if e := cmplx.Abs(H[n][o]/ref - 1); e > 1e-8 {
				t.Errorf("output %d at %g Hz: %v, want %v (relative %.2g)", o, fr, H[n][o], ref, e)
			}
		}
	}
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
  <variable name="b2" value="2*a"/>`, "bad.xml:3: value: variable a is defined through itself"},
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
