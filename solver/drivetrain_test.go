package solver

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"mbfmu/solver/mech"
	"strings"
	"testing"

	"mbfmu/xml"
)

// loadDrive compiles and initialises a model written as XML text.
func loadDrive(t *testing.T, text string) (*Model, *State) {
	t.Helper()
	m, _ := loadText(t, text)
	return m, mustInit(t, m)
}

// chanAt reads channel name at the state.
func chanAt(t *testing.T, m *Model, s *State, name string) float64 {
	t.Helper()
	k, ok := m.ChannelIndex(name)
	if !ok {
		t.Fatalf("no channel %q", name)
	}
	out := make([]float64, len(m.channels))
	m.EvalChannels(s, out)
	return out[k]
}

const gearPlanar = `<model name="g"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <ground><marker name="A"/><marker name="B" at="0.3 0"/><marker name="rail" at="0 -0.2"/></ground>
  <body name="pinion" mass="1" inertia="0.01"/>
  <body name="wheel" mass="2" inertia="0.08" at="0.3 0"/>
  <body name="rack" mass="2" inertia="0.01" at="0 -0.2"><marker name="c"/></body>
  <revolute name="pa" i="ground.A" j="pinion"/>
  <revolute name="pb" i="ground.B" j="wheel"/>
  <translational name="slide" i="ground.rail" j="rack.c"/>
  %s
</model>`

const gearSpatial = `<model name="g3" dimension="3"><settings end="1 s" step="1 ms" gravity="0 0 0"/>
  <ground><marker name="A"/><marker name="B" at="0.3 0 0" x-axis="0 1 0" z-axis="1 0 0"/><marker name="C" at="0 0.5 0"/></ground>
  <body name="pinion" mass="1" inertia="0.01 0.01 0.02"/>
  <body name="wheel" mass="2" inertia="0.08 0.05 0.05" at="0.3 0 0"><marker name="hub" x-axis="0 1 0" z-axis="1 0 0"/></body>
  <body name="screw" mass="3" inertia="0.004 0.004 0.002" at="0 0.5 0"/>
  <body name="rack" mass="2" inertia="0.01 0.01 0.01" at="0 -0.2 0"><marker name="c" x-axis="0 1 0" z-axis="1 0 0"/></body>
  <revolute name="pa" i="ground.A" j="pinion"/>
  <revolute name="pb" i="ground.B" j="wheel.hub"/>
  <cylindrical name="cyl" i="ground.C" j="screw"/>
  <prismatic name="slide" i="ground.B" j="rack.c"/>
  %s
</model>`

func fill(tmpl, elems string) string { return strings.Replace(tmpl, "%s", elems, 1) }

// Every coupler and stop, planar and spatial, exact and compliant, has
// its Jacobian, γ, Hessian and tangent checked against finite
// differences at random states (the stops and the backlash in contact).
func TestDriveDerivatives(t *testing.T) {
	for _, c := range []struct{ tmpl, elems string }{
		{gearPlanar, `<coupler kind="gear" name="g" i="pa" j="pb" ratio="3"/><coupler kind="rack" name="r" i="pa" j="slide" radius="0.05"/>`},
		{gearPlanar, `<coupler kind="gear" name="g" i="pa" j="pb" ratio="3" stiffness="1e4" damping="2" backlash="0.001"/>
		  <stop name="s" joint="slide" lower="-0.01" upper="0.01" k="1e5" c="30" exponent="1.5"/><stop name="s2" joint="pb" upper="0" k="100" c="1"/>
		  <motor name="mot" joint="pa" voltage="12" resistance="1" inductance="0.01" kt="0.1"/><motor name="lin" joint="slide" voltage="3" resistance="2" kt="5" ke="4"/>
		  <friction name="fr" joint="pb" model="lugre" preload="0.3" viscous="0.01" bristle-stiffness="1e3" bristle-damping="2" mu-static="0"/>
		  <friction name="fc" joint="slide" preload="0.3" mu-static="0.2" mu-kinetic="0.1" normal="20" viscous="0.05" v-stribeck="0.5"/>
		  <friction name="fa" joint="pa" preload="0.1" viscous="0.02"/>`},
		{gearSpatial, `<coupler kind="gear" name="bevel" i="pa" j="pb" ratio="2" internal="true"/>
		  <coupler kind="screw" name="sc" i="cyl" coord-i="angle" j="cyl" coord-j="disp" lead="10 mm"/>
		  <coupler kind="rack" name="r" i="pa" j="slide" radius="0.05"/>`},
		{gearSpatial, `<coupler kind="belt" name="bevel" i="pa" j="pb" ratio="2" stiffness="1e3" damping="1" backlash="0.002"/>
		  <stop name="s" joint="cyl" coord="disp" upper="0" k="1e4" c="10"/><stop name="s2" joint="slide" lower="0" k="1e4" exponent="2"/>
		  <motor name="mot" joint="pb" voltage="12" resistance="1" inductance="0.01" kt="0.1"/>
		  <friction name="fr" joint="slide" model="lugre" preload="2" viscous="0.5" bristle-stiffness="1e4" bristle-damping="20"/>
		  <friction name="fc" joint="cyl" coord="angle" preload="0.3" mu-static="0.2" mu-kinetic="0.1" normal="20" radius="0.02" v-stribeck="0.5"/>
		  <friction name="fa" joint="pa" preload="0.1" viscous="0.02"/>`},
		{gearSpatial, `<friction name="fp" joint="slide" preload="0.3" viscous="0.1" v-stribeck="0.5" mu-static="0.2" normal="5"/>`},
	} {
		m, _ := loadText(t, fill(c.tmpl, c.elems))
		s := m.NewState()
		rng := rand.New(rand.NewSource(3))
		for trial := 0; trial < 3; trial++ {
			copy(s.q, m.q0)
			for i := range s.v {
				s.v[i] = rng.NormFloat64()
				s.dq[i] = 0.05 * rng.NormFloat64()
			}
			m.addTo(s.q, s.dq, 1)
			s.setTime(0.2)
			for g := 0; g < m.ncs; g++ {
				// exact Coulomb frictions in slip, one each way
				s.cs[g*mech.CSStride+mech.CSClosed] = 1
				s.cs[g*mech.CSStride+mech.CSMode] = float64(1 - 2*(g%2))
			}
			checkElementDerivatives(t, m, s, rng)
		}
	}
}

// A torque drives a pinion meshed with a wheel (ratio 3, external) and a
// rack (radius 0.05 m): the coordinates keep their ratios to round-off,
// the pinion accelerates as T over the inertia reduced to it, J1 + J2/9 +
// m r², and the efforts are in the ratio of the coefficients.
func TestGearTrainPlanar(t *testing.T) {
	m, s := loadDrive(t, fill(gearPlanar, `<coupler kind="gear" name="g" i="pa" j="pb" ratio="3"/>
	  <coupler kind="rack" name="r" i="pa" j="slide" radius="0.05"/><torque name="T" i="pinion" t="1"/>`))
	if err := m.AdvanceTo(s, 1); err != nil {
		t.Fatal(err)
	}
	jeq := 0.01 + 0.08/9 + 2*0.05*0.05
	alpha := 1 / jeq
	th1, th2, x := chanAt(t, m, s, "pa.angle"), chanAt(t, m, s, "pb.angle"), chanAt(t, m, s, "slide.disp")
	if e := math.Abs(th1-alpha/2) / (alpha / 2); e > 1e-9 {
		t.Errorf("pinion at 1 s: %.12g rad, want %.12g (relative %.2g)", th1, alpha/2, e)
	}
	if e := math.Abs(th1 + 3*th2); e > 1e-12 {
		t.Errorf("θ1 + 3 θ2 = %.3g (want round-off)", e)
	}
	if e := math.Abs(x - 0.05*th1); e > 1e-12 {
		t.Errorf("x − r θ1 = %.3g (want round-off)", e)
	}
	// efforts: on the wheel J2 α2 = J2 (−α/3); through the gear on the pinion 3 times less and opposite
	ei, ej := chanAt(t, m, s, "g.effort-i"), chanAt(t, m, s, "g.effort-j")
	if want := 0.08 * (-alpha / 3); math.Abs(ej-want) > 1e-8*math.Abs(want) || math.Abs(ej/ei-3) > 1e-8 {
		t.Errorf("gear efforts %.10g on the pinion, %.10g on the wheel; want %.10g on the wheel, ratio 3", ei, ej, want)
	}
	if want := 2 * 0.05 * alpha; math.Abs(chanAt(t, m, s, "r.effort-j")-want) > 1e-7*want {
		t.Errorf("rack effort %.10g N, want m r α = %.10g", chanAt(t, m, s, "r.effort-j"), want)
	}
}

// Backlash: the pinion turns at 2 rad/s through half the 0.02 rad gap
// while the wheel stays exactly at rest (5 ms), then the mesh engages
// elastically: no energy is lost (no damping), and after the contact the
// wheel turns.
func TestGearBacklash(t *testing.T) {
	text := strings.Replace(fill(gearPlanar, `<coupler kind="gear" name="g" i="pa" j="pb" ratio="3" stiffness="100" backlash="0.02"/>`),
		`<body name="pinion" mass="1" inertia="0.01"/>`, `<body name="pinion" mass="1" inertia="0.01" omega="2"/>`, 1)
	text = strings.Replace(text, `step="1 ms"`, `step="0.1 ms" rho-inf="1"`, 1) // no numerical dissipation
	m, s := loadDrive(t, text)
	e0 := chanAt(t, m, s, "energy.total")
	if err := m.AdvanceTo(s, 0.0049); err != nil {
		t.Fatal(err)
	}
	if w := chanAt(t, m, s, "pb.angle"); w != 0 {
		t.Errorf("wheel moved %.3g rad inside the backlash", w)
	}
	if err := m.AdvanceTo(s, 0.2); err != nil {
		t.Fatal(err)
	}
	if w := chanAt(t, m, s, "pb.angle"); !(w < -1e-3) {
		t.Errorf("wheel at %.3g rad after the mesh engaged, want turning negative", w)
	}
	if e := chanAt(t, m, s, "energy.total"); math.Abs(e-e0) > 1e-5*e0 {
		t.Errorf("energy %.10g, was %.10g", e, e0)
	}
}

// A rotor at 1 rad/s hits a linear stop (k = 100 N·m/rad, no damping) at
// 0.1 rad: it stays in contact for π √(J/k), goes in by ω √(J/k) and comes
// back at −1 rad/s.
func TestStopRebound(t *testing.T) {
	m, s := loadDrive(t, strings.Replace(fill(gearPlanar, `<stop name="s" joint="pa" upper="0.1" k="100"/>`),
		`<body name="pinion" mass="1" inertia="0.01"/>`, `<body name="pinion" mass="1" inertia="0.01" omega="1"/>`, 1)+"")
	m.settings.Step = 1e-4
	s.h = 1e-4
	maxTh := 0.0
	for k := 1; k <= 2000; k++ {
		if err := m.AdvanceTo(s, float64(k)*1e-4); err != nil {
			t.Fatal(err)
		}
		maxTh = math.Max(maxTh, chanAt(t, m, s, "pa.angle"))
	}
	tc := math.Pi * math.Sqrt(0.01/100)
	want := 0.1 - (0.2 - 0.1 - tc)
	th, om := chanAt(t, m, s, "pa.angle"), chanAt(t, m, s, "pinion.omega")
	if math.Abs(th-want) > 2e-5 || math.Abs(om+1) > 1e-4 {
		t.Errorf("at 0.2 s: %.8g rad at %.8g rad/s, want %.8g at −1", th, om, want)
	}
	if pen := maxTh - 0.1; math.Abs(pen-0.01) > 1e-4 {
		t.Errorf("went %.6g rad past the stop, want ω√(J/k) = 0.01", pen)
	}
}

// Spatial: a bevel pair (axes at right angles, internal: same sense, ratio
// 2) driven by a torque turns the pinion through many whole turns with
// the ratio held; a screw on a cylindrical joint advances lead/2π per
// radian under a torque: α = T/(J + m p²).
func TestGearScrewSpatial(t *testing.T) {
	m, s := loadDrive(t, fill(gearSpatial, `<coupler kind="gear" name="bevel" i="pa" j="pb" ratio="2" internal="true"/>
	  <coupler kind="screw" name="sc" i="cyl" coord-i="angle" j="cyl" coord-j="disp" lead="10 mm"/>
	  <torque name="T" i="pinion" tz="1"/><torque name="Ts" i="screw" tz="0.01"/>
	  <stop name="keep" joint="slide" upper="1" k="1"/>`))
	if err := m.AdvanceTo(s, 1); err != nil {
		t.Fatal(err)
	}
	jeq := 0.02 + 0.08/4
	want := 0.5 / jeq // θ at 1 s
	th1, th2 := chanAt(t, m, s, "pa.angle"), chanAt(t, m, s, "pb.angle")
	if math.Abs(th1-want) > 1e-7*want || math.Abs(th1-2*th2) > 1e-9*want {
		t.Errorf("pinion %.10g rad (want %.10g, %.1f turns), wheel %.10g (want half)", th1, want, want/(2*math.Pi), th2)
	}
	p := 0.01 / (2 * math.Pi)
	as := 0.01 / (0.002 + 3*p*p)
	ang, disp := chanAt(t, m, s, "cyl.angle"), chanAt(t, m, s, "cyl.disp")
	if math.Abs(ang-as/2) > 1e-7*as || math.Abs(disp-p*ang) > 1e-11 {
		t.Errorf("screw turned %.10g rad (want %.10g), advanced %.10g m (want %.10g)", ang, as/2, disp, p*ang)
	}
}

// Bad input: each refused with its attribute named.
func TestDriveRefusals(t *testing.T) {
	for _, c := range []struct{ elems, want string }{
		{`<coupler kind="gear" name="g" i="pa" j="nope" ratio="3"/>`, `j: coupler "g": unknown joint "nope"`},
		{`<coupler kind="gear" name="g" i="pa" j="slide" ratio="3"/>`, `couples an angle at i to an angle at j; got rad and m`},
		{`<coupler kind="gear" name="g" i="pa" j="pb" ratio="0"/>`, `ratio: must be > 0`},
		{`<coupler kind="gear" name="g" i="pa" j="pb" ratio="2" backlash="0.1"/>`, `backlash: coupler "g": backlash needs a stiffness`},
		{`<coupler kind="gear" name="g" i="pa" j="pa" ratio="2"/>`, `couples a coordinate of "pa" to itself`},
		{`<stop name="s" joint="pa" k="1"/>`, `needs a lower or an upper limit`},
		{`<stop name="s" joint="pa" lower="1" upper="0" k="1"/>`, `upper limit 0 must be above the lower 1`},
		{`<stop name="s" joint="pa" upper="1" k="-1"/>`, `k: must be > 0`},
		{`<stop name="s" joint="pa" upper="1" k="1" c="-1"/>`, `c: must not be negative`},
		{`<friction name="f" joint="slide" mu-kinetic="-0.1" normal="10"/>`, `mu-kinetic: must not be negative`},
		{`<friction name="f" joint="slide" mu-static="0.1" mu-kinetic="0.3" normal="10"/>`, `the static coefficient 0.1 is below the kinetic 0.3`},
		{`<friction name="f" joint="pa" mu-kinetic="0.3" normal="10"/>`, `needs the radius it acts at`},
		{`<friction name="f" joint="pa"/>`, `needs a preload, a normal load`},
		{`<friction name="f" joint="slide" preload="1" radius="0.01"/>`, `radius (the arm of the friction force) belongs to a rotary joint`},
		{`<motor name="m" joint="pa" voltage="1" resistance="0" kt="1"/>`, `resistance: must be > 0`},
		{`<motor name="m" joint="pa" voltage="1" resistance="1" kt="1" inductance="-1"/>`, `inductance: must not be negative`},
	} {
		_, err := compileDrive(fill(gearPlanar, c.elems))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.elems, err, c.want)
		}
	}
}

// compileDrive parses and compiles a model written as XML text.
func compileDrive(text string) (*Model, error) {
	ms, err := xml.Parse([]byte(text), "model.xml")
	if err != nil {
		return nil, err
	}
	return Compile(ms, CompileOptions{})
}

// Couplers and stops allocate nothing in a step.
func TestDriveStepAllocatesNothing(t *testing.T) {
	for _, text := range []string{
		fill(gearPlanar, `<coupler kind="gear" name="g" i="pa" j="pb" ratio="3"/><coupler kind="rack" name="r" i="pa" j="slide" radius="0.05" stiffness="1e4" backlash="1e-3"/>
		  <stop name="s" joint="pb" upper="0.01" k="1e3" c="1"/><torque name="T" i="pinion" t="1"/>
		  <motor name="mot" joint="pa" voltage="12" resistance="1" inductance="0.01" kt="0.1" rotor-inertia="0.001"/>
		  <friction name="fr" joint="pb" model="lugre" preload="0.1" bristle-damping="10"/>`),
		fill(gearSpatial, `<coupler kind="gear" name="bevel" i="pa" j="pb" ratio="2"/><coupler kind="screw" name="sc" i="cyl" coord-i="angle" j="cyl" coord-j="disp" lead="10 mm" stiffness="1e3"/>
		  <stop name="s" joint="slide" lower="-0.01" k="1e3"/><torque name="T" i="pinion" tz="1"/>`),
		// exact Coulomb friction: one joint slipping, one stuck
		fill(gearPlanar, `<torque name="T" i="pinion" t="1"/><friction name="fa" joint="pa" preload="0.2" viscous="0.01"/>
		  <friction name="fb" joint="pb" preload="0.5"/><torque name="Tb" i="wheel" t="0.3"/>`),
	} {
		m, s := loadDrive(t, text)
		if allocs := stepAllocs(t, m, s); allocs != 0 {
			t.Errorf("%s: %v allocations per AdvanceTo", m.Name(), allocs)
		}
	}
}

// motorModel is a flywheel (J = 0.01 kg·m² in all, 0.002 of it the
// motor's rotor) on a DC motor: R = 1 Ω, L = 10 mH, k = 0.1 N·m/A.
func motorModel(extra string) string {
	return `<model name="servo"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <input name="V" start="12" description="armature voltage, V"/>
  <ground><marker name="A"/></ground>
  <body name="wheel" mass="1" inertia="0.008"/>
  <revolute name="shaft" i="ground.A" j="wheel"/>
  <motor name="m" joint="shaft" voltage="V" resistance="1" inductance="0.01" kt="0.1" rotor-inertia="0.002" ` + extra + `/>
</model>`
}

// The motor's speed and current against the closed form of
// J ω̇ = k i, L i̇ = V − R i − k ω from rest (eigenvalues of the 2×2
// system, real here: −1.0102 and −98.99 1/s), at second order in the
// step.
func TestMotorSpinUp(t *testing.T) {
	checkMotorSpinUp(t, motorModel(""), "m.current", nil)
}

// checkMotorSpinUp checks a DC motor model (the flywheel of motorModel,
// its current the channel current) against the closed form of
// J ω̇ = k i, L i̇ = V − R i − k ω from rest at h = 2, 1 and 0.5 ms: within
// 1e-3 of ω_ss and the peak current at 1 ms, error ratio about 4 on
// halving; sample, if not nil, checks more at each sampled state.
func checkMotorSpinUp(t *testing.T, model, current string, sample func(m *Model, s *State)) {
	t.Helper()
	const J, R, L, k, V = 0.01, 1.0, 0.01, 0.1, 12.0
	// λ² + (R/L) λ + k²/(J L) = 0
	p, q := R/L, k*k/(J*L)
	l1, l2 := (-p+math.Sqrt(p*p-4*q))/2, (-p-math.Sqrt(p*p-4*q))/2
	wss := V / k
	A, B := -wss*l2/(l2-l1), wss*l1/(l2-l1)
	omega := func(t float64) float64 { return wss + A*math.Exp(l1*t) + B*math.Exp(l2*t) }
	cur := func(t float64) float64 { return J / k * (A*l1*math.Exp(l1*t) + B*l2*math.Exp(l2*t)) }
	var errs []float64
	for _, h := range []float64{2e-3, 1e-3, 5e-4} {
		m, s := loadDrive(t, model)
		m.settings.Step = h
		s.h = h
		var worst float64
		for n := 1; n <= 10; n++ {
			tt := 0.05 * float64(n)
			if err := m.AdvanceTo(s, tt); err != nil {
				t.Fatal(err)
			}
			w, i := chanAt(t, m, s, "wheel.omega"), chanAt(t, m, s, current)
			if sample != nil {
				sample(m, s)
			}
			worst = math.Max(worst, math.Max(math.Abs(w-omega(tt))/wss, math.Abs(i-cur(tt))/cur(0.01)))
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

// With a current limit of 2 A, starting at it, the motor holds it: ω grows at
// k·2/J = 20 rad/s² exactly until the back EMF brings the current under
// it.
func TestMotorCurrentLimit(t *testing.T) {
	m, s := loadDrive(t, motorModel(`current-limit="2" current="2"`))
	if err := m.AdvanceTo(s, 0.1); err != nil {
		t.Fatal(err)
	}
	if w, i := chanAt(t, m, s, "wheel.omega"), chanAt(t, m, s, "m.current"); math.Abs(w-2) > 1e-9 || i != 2 {
		t.Errorf("at 0.1 s: ω = %.12g rad/s (want 2), i = %g A (want the limit 2)", w, i)
	}
}

// The motor's current is in the state: a state saved at 0.3 s and
// restored into a fresh one replays the rest bit for bit.
func TestMotorStateReplay(t *testing.T) {
	m, s := loadDrive(t, motorModel(""))
	if err := m.AdvanceTo(s, 0.3); err != nil {
		t.Fatal(err)
	}
	blob, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	s.SetInput(0, 6)
	if err := m.AdvanceTo(s, 0.5); err != nil {
		t.Fatal(err)
	}
	want := chanAt(t, m, s, "m.current")
	s2 := m.NewState()
	if err := s2.UnmarshalBinary(blob); err != nil {
		t.Fatal(err)
	}
	s2.SetInput(0, 6)
	if err := m.AdvanceTo(s2, 0.5); err != nil {
		t.Fatal(err)
	}
	if got := chanAt(t, m, s2, "m.current"); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("replayed current %.17g, want %.17g", got, want)
	}
}

// The motor's current is a state of the linearisation: x = (θ, ω, i),
// eigenvalues 0 and those of J ω̇ = k i, L i̇ = V − R i − k ω, and the
// frequency responses ω/V = k/(J L s² + J R s + k²) and
// i/V = J s/(J L s² + J R s + k²) to 1e-8.
func TestMotorLinearised(t *testing.T) {
	checkMotorLinearised(t, strings.Replace(motorModel(""), "</model>", `<output name="w" channel="wheel.omega"/><output name="i" channel="m.current"/></model>`, 1), "m.current")
}

// checkMotorLinearised linearises a DC motor model (outputs ω, then the
// current, the element state named state): A is 3×3 with that state,
// its eigenvalues 0 and the 2×2 motor's, and ω/V = k/(J L s² + J R s + k²),
// i/V = J s/(…) to 1e-8 at 0.3, 3 and 30 Hz.
func checkMotorLinearised(t *testing.T, model, state string) {
	t.Helper()
	const J, R, L, k = 0.01, 1.0, 0.01, 0.1
	m, s := loadDrive(t, model)
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := lin.A.Dims(); r != 3 || c != 3 || len(lin.States) != 1 || lin.States[0] != state {
		t.Fatalf("A is %d×%d with element states %v; want 3×3 with %s", r, c, lin.States, state)
	}
	p, q := R/L, k*k/(J*L)
	for _, w := range []float64{0, (-p + math.Sqrt(p*p-4*q)) / 2, (-p - math.Sqrt(p*p-4*q)) / 2} {
		found := false
		for _, md := range lin.Modes {
			if math.Abs(real(md.Eig)-w) <= 1e-6*math.Max(1, math.Abs(w)) && math.Abs(imag(md.Eig)) < 1e-6 {
				found = true
			}
		}
		if !found {
			t.Errorf("no eigenvalue %.8g among %v", w, lin.Modes)
		}
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

// frictionModels are the two laws of <friction> a reference test runs:
// exact Coulomb stick by complementarity (the default) and LuGre bristles
// (the attributes given for bristles whose pre-sliding is well damped).
var frictionModels = []struct{ name, attrs string }{
	{"coulomb", ``},
	{"lugre", ` model="lugre" bristle-stiffness="1e5" bristle-damping="%g"`},
}

// frictionAttrs returns a friction model's attributes with the bristle
// damping d (LuGre).
func frictionAttrs(attrs string, d float64) string {
	if strings.Contains(attrs, "%") {
		return fmt.Sprintf(attrs, d)
	}
	return attrs
}

// A flywheel at 10 rad/s with Coulomb bearing friction (0.1 N·m)
// decelerates at 10 rad/s² to rest at 1 s, after 5 rad, and stays there:
// no creep, to round-off, from 2 s to 10 s. With exact Coulomb friction
// the stop is located to round-off and the wheel does not move at all
// afterwards.
func TestFrictionFlywheelStops(t *testing.T) {
	for _, fm := range frictionModels {
		t.Run(fm.name, func(t *testing.T) {
			m, s := loadDrive(t, `<model name="fw"><settings end="10 s" step="1 ms" gravity="0 0"/>
  <ground><marker name="A"/></ground>
  <body name="wheel" mass="1" inertia="0.01" omega="10"/>
  <revolute name="shaft" i="ground.A" j="wheel"/>
  <friction name="bearing" joint="shaft" preload="0.1 N*m"`+frictionAttrs(fm.attrs, 63)+`/>
</model>`)
			tol := 1e-5
			if fm.name == "coulomb" {
				tol = 1e-11
			}
			if err := m.AdvanceTo(s, 0.5); err != nil {
				t.Fatal(err)
			}
			if w := chanAt(t, m, s, "wheel.omega"); math.Abs(w-5) > tol {
				t.Errorf("ω at 0.5 s: %.12g rad/s, want 5", w)
			}
			if err := m.AdvanceTo(s, 2); err != nil {
				t.Fatal(err)
			}
			th2 := chanAt(t, m, s, "shaft.angle")
			if math.Abs(th2-5) > 20*tol {
				t.Errorf("stopped at %.12g rad, want 5", th2)
			}
			if err := m.AdvanceTo(s, 10); err != nil {
				t.Fatal(err)
			}
			if th, w := chanAt(t, m, s, "shaft.angle"), chanAt(t, m, s, "wheel.omega"); math.Abs(th-th2) > 1e-12 || math.Abs(w) > 1e-10 {
				t.Errorf("from 2 s to 10 s it moved %.3g rad (ω %.3g rad/s): friction must hold it", th-th2, w)
			}
		})
	}
}

// A 1 kg block on a 20° incline, its friction from the rail's reaction
// (normal = |reaction|): with μ = 0.5 > tan 20° it stays put, to
// round-off, from 1 s to 10 s (exact Coulomb: from the start); with
// μ = 0.2 it slides at g (sin α − μ cos α).
func TestFrictionIncline(t *testing.T) {
	for _, fm := range frictionModels {
		t.Run(fm.name, func(t *testing.T) {
			model := func(mu string) string {
				return `<model name="incline"><settings end="10 s" step="1 ms"/>
  <ground><marker name="rail" angle="-20 deg"/></ground>
  <body name="block" mass="1" inertia="0.01"><marker name="c"/></body>
  <translational name="slide" i="ground.rail" j="block.c"/>
  <friction name="f" joint="slide" mu-static="` + mu + `" mu-kinetic="` + mu + `" normal="sqrt(fx(slide)^2 + fy(slide)^2)"` + frictionAttrs(fm.attrs, 632) + `/>
</model>`
			}
			m, s := loadDrive(t, model("0.5"))
			if err := m.AdvanceTo(s, 1); err != nil {
				t.Fatal(err)
			}
			x1 := chanAt(t, m, s, "slide.disp")
			pre := 1e-4 // LuGre: the pre-sliding deflection
			if fm.name == "coulomb" {
				pre = 1e-13
			}
			if err := m.AdvanceTo(s, 10); err != nil {
				t.Fatal(err)
			}
			if x := chanAt(t, m, s, "slide.disp"); math.Abs(x-x1) > 1e-12 || math.Abs(x1) > pre {
				t.Errorf("μ = 0.5: at %.6g m at 1 s, moved %.3g m by 10 s (want pre-sliding only, then nothing)", x1, x-x1)
			}
			m, s = loadDrive(t, model("0.2"))
			if err := m.AdvanceTo(s, 1); err != nil {
				t.Fatal(err)
			}
			tol := 1e-4
			if fm.name == "coulomb" {
				tol = 1e-10
			}
			a := 9.81 * (math.Sin(20*math.Pi/180) - 0.2*math.Cos(20*math.Pi/180))
			if x := chanAt(t, m, s, "slide.disp"); math.Abs(x-a/2) > tol*a/2 {
				t.Errorf("μ = 0.2: slid %.12g m in 1 s, want g(sin α − μ cos α)/2 = %.12g", x, a/2)
			}
		})
	}
}

// A flywheel held by a bearing friction of 0.3 N·m static, 0.2 N·m
// kinetic, under a torque ramp T = t N·m/s: it stays still until
// t = 0.3 s, to round-off, then accelerates at (t − 0.2)/J; ω(t) =
// ((t² − 0.3²)/2 − 0.2 (t − 0.3))/J.
func TestFrictionBreakaway(t *testing.T) {
	m, s := loadDrive(t, `<model name="ba"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <ground><marker name="A"/></ground>
  <body name="wheel" mass="1" inertia="0.01"/>
  <revolute name="shaft" i="ground.A" j="wheel"/>
  <torque name="T" i="wheel" t="time"/>
  <friction name="bearing" joint="shaft" preload="0.2" mu-static="0.1" mu-kinetic="0" normal="1" radius="1"/>
</model>`)
	if err := m.AdvanceTo(s, 0.2995); err != nil {
		t.Fatal(err)
	}
	if th, f := chanAt(t, m, s, "shaft.angle"), chanAt(t, m, s, "bearing.effort"); math.Abs(th) > 1e-15 || math.Abs(f+0.2995) > 1e-12 {
		t.Errorf("at 0.2995 s: angle %.3g rad, friction %.12g N·m: want 0 and −0.2995", th, f)
	}
	for _, tt := range []float64{0.5, 1} {
		if err := m.AdvanceTo(s, tt); err != nil {
			t.Fatal(err)
		}
		want := ((tt*tt-0.09)/2 - 0.2*(tt-0.3)) / 0.01
		if w := chanAt(t, m, s, "wheel.omega"); math.Abs(w-want) > 1e-6*want {
			t.Errorf("ω at %g s: %.12g rad/s, want %.12g", tt, w, want)
		}
	}
}

// A 1 kg mass on a spring (k = 100 N/m) to the ground rides a belt moving
// at v_b = 0.1 m/s, with friction between them (F_s = 5.0033 N, F_c = 3 N:
// with F_s = 5 N the first break-away fell exactly on a step's end, t =
// 0.5 s, where the force's round-off decided which step broke away): the
// closed-form stick–slip cycle. It sticks while the spring stretches to
// x_s = F_s/k, then slips, a harmonic motion about x_c = F_c/k, until its
// speed is the belt's again at x₁ = 2 x_c − x_s, and sticks again: period
// (x_s − x₁)/v_b + (2π − 2 atan(ω (x_s − x_c)/v_b))/ω, ω = √(k/m). The
// position follows the closed form over three cycles (amplitude 0.02 m):
// with generalized-α to 2e-6 m at a 1 ms step and 5e-8 m at 0.1 ms (its
// restart at each event costs it part of its second order), with RK4 to
// 2e-9 m (the events located to round-off).
func TestFrictionBeltStickSlip(t *testing.T) {
	const k, mass, vb, fs, fc = 100.0, 1.0, 0.1, 5.0033, 3.0
	xs, xc := fs/k, fc/k
	om := math.Sqrt(k / mass)
	x1 := 2*xc - xs
	tStick := (xs - x1) / vb
	tSlip := (2*math.Pi - 2*math.Atan(om*(xs-xc)/vb)) / om
	period := tStick + tSlip
	t0 := xs / vb // the first break-away (stuck from x = 0)
	ref := func(tt float64) (x, mode float64) {
		if tt <= t0 {
			return vb * tt, 0
		}
		tau := math.Mod(tt-t0, period)
		if tau < tSlip {
			return xc + (xs-xc)*math.Cos(om*tau) + vb/om*math.Sin(om*tau), -1
		}
		return x1 + vb*(tau-tSlip), 0
	}
	errAt := func(step, integ string) float64 {
		m, s := loadDrive(t, `<model name="belt"><settings end="3 s" step="`+step+`" gravity="0 0" integrator="`+integ+`"/>
  <ground><marker name="O"/><marker name="anchor" at="-1 0"/></ground>
  <body name="belt" mass="10" inertia="1" velocity="0.1 0"><marker name="c"/></body>
  <body name="mass" mass="1" inertia="0.01" velocity="0.1 0"><marker name="c"/></body>
  <translational name="rail" i="ground.O" j="belt.c"/>
  <driver name="drive" joint="rail" value="0.1*time"/>
  <translational name="ride" i="belt.c" j="mass.c"/>
  <spring name="k" i="ground.anchor" j="mass.c" k="100" length="1"/>
  <friction name="f" joint="ride" mu-static="0.50033" mu-kinetic="0.3" normal="10"/>
</model>`)
		worst, modes := 0.0, 0
		for i := 1; i <= 300; i++ {
			tt := float64(i) * 0.01
			if err := m.AdvanceTo(s, tt); err != nil {
				t.Fatal(err)
			}
			x, md := ref(tt)
			worst = math.Max(worst, math.Abs(chanAt(t, m, s, "mass.x")-x))
			if chanAt(t, m, s, "f.mode") == md {
				modes++
			}
		}
		if modes < 295 {
			t.Errorf("step %s: the friction's mode agrees with the closed form's at %d of 300 samples", step, modes)
		}
		return worst
	}
	e1, e2 := errAt("1 ms", "genalpha"), errAt("0.1 ms", "genalpha")
	r1 := errAt("1 ms", "rk4")
	t.Logf("period %.9g s (stick %.6g, slip %.6g); worst position error: generalized-α %.3g m at 1 ms, %.3g m at 0.1 ms; RK4 %.3g m at 1 ms", period, tStick, tSlip, e1, e2, r1)
	if e1 > 3e-6 || e2 > 1e-7 || r1 > 1e-8 {
		t.Errorf("position off the closed-form stick–slip cycle by %.3g m (generalized-α, 1 ms), %.3g m (0.1 ms), %.3g m (RK4, 1 ms)", e1, e2, r1)
	}
}

// A gear pair with an efficiency: a torque T = 1 N·m on the pinion
// (J_p = 0.01, ratio N = 3, wheel J_w = 0.08, η = 0.9) accelerates the
// wheel at T/(J_p N + J_w/(η N)); the same torque on the wheel back-drives
// the pinion, the wheel then at T/(J_w + J_p N²/η); the power lost is
// (1 − η) of what the driving side gives (checked by energy: the torque's
// work less the kinetic energy is the lost energy).
func TestCouplerEfficiency(t *testing.T) {
	const Jp, Jw, N, eta, T = 0.01, 0.08, 3.0, 0.9, 1.0
	for _, c := range []struct {
		name, load string
		alpha      float64
	}{
		{"pinion drives", `<torque name="T" i="pinion" t="1"/>`, T / (Jp*N + Jw/(eta*N))},
		{"wheel drives", `<torque name="T" i="wheel" t="1"/>`, T / (Jw + Jp*N*N/eta)},
	} {
		m, s := loadDrive(t, fill(gearPlanar, `<coupler kind="gear" name="g" i="pa" j="pb" ratio="3" efficiency="0.9"/>`+c.load))
		if err := m.AdvanceTo(s, 1); err != nil {
			t.Fatal(err)
		}
		ww, wp := chanAt(t, m, s, "wheel.omega"), chanAt(t, m, s, "pinion.omega")
		if math.Abs(math.Abs(ww)-c.alpha)/c.alpha > 1e-4 {
			t.Errorf("%s: wheel at %.9g rad/s after 1 s, want %.9g", c.name, math.Abs(ww), c.alpha)
		}
		if math.Abs(wp+N*ww) > 1e-9 {
			t.Errorf("%s: ratio: pinion %.12g, wheel %.12g rad/s", c.name, wp, ww)
		}
		// energy: the torque's work T·θ (θ the driven body's angle) less
		// the kinetic energy is what was lost; the loss is (1 − η) of the
		// power through the mesh, which is the driving side's T ω less its
		// own kinetic energy rate
		work := T * math.Abs(map[bool]float64{true: chanAt(t, m, s, "pa.angle"), false: chanAt(t, m, s, "pb.angle")}[c.name == "pinion drives"])
		ke := 0.5*Jp*wp*wp + 0.5*Jw*ww*ww
		var keDriver float64
		if c.name == "pinion drives" {
			keDriver = 0.5 * Jp * wp * wp
		} else {
			keDriver = 0.5 * Jw * ww * ww
		}
		passed := work - keDriver
		if lost := work - ke; math.Abs(lost-(1-eta)*passed) > 1e-4*passed {
			t.Errorf("%s: lost %.9g J, want (1 − η) of the %.9g J passed = %.9g", c.name, lost, passed, (1-eta)*passed)
		}
		// the channel: (1 − η) of the power through the mesh now,
		// (T − J_d α_d) ω_d on the driving side d
		Jd, ad, wd := Jp, N*c.alpha, math.Abs(wp)
		if c.name == "wheel drives" {
			Jd, ad, wd = Jw, c.alpha, math.Abs(ww)
		}
		if p, want := chanAt(t, m, s, "g.loss"), (1-eta)*(T-Jd*ad)*wd; math.Abs(p-want) > 1e-4*want {
			t.Errorf("%s: g.loss %.9g W, want %.9g", c.name, p, want)
		}
	}
}

// A compliant gear pair (stiff mesh) with an efficiency behaves as the
// exact one: the wheel accelerates at T/(J_p N + J_w/(η N)) driven by the
// pinion and the power lost is (1 − η) of the power through the mesh.
func TestCompliantCouplerEfficiency(t *testing.T) {
	const Jp, Jw, N, eta, T = 0.01, 0.08, 3.0, 0.9, 1.0
	m, s := loadDrive(t, fill(gearPlanar, `<coupler kind="gear" name="g" i="pa" j="pb" ratio="3" stiffness="1e5" damping="5" efficiency="0.9"/><torque name="T" i="pinion" t="1"/>`))
	if err := m.AdvanceTo(s, 1); err != nil {
		t.Fatal(err)
	}
	want := T / (Jp*N + Jw/(eta*N))
	if ww := math.Abs(chanAt(t, m, s, "wheel.omega")); math.Abs(ww-want)/want > 2e-3 {
		t.Errorf("wheel at %.9g rad/s after 1 s, want %.9g", ww, want)
	}
	wp := math.Abs(chanAt(t, m, s, "pinion.omega"))
	passed := (T - Jp*N*want) * wp
	if p := chanAt(t, m, s, "g.loss"); math.Abs(p-(1-eta)*passed) > 5e-3*passed {
		t.Errorf("g.loss %.9g W, want (1 − η) of %.9g W", p, passed)
	}
}

// The same references in a spatial model: a block on a 20° incline on a
// prismatic joint (friction from its reaction) stays put with μ = 0.5 and
// slides at g (sin α − μ cos α) with μ = 0.2; a wheel on a revolute joint
// with 0.1 N·m of bearing friction stops at 5 rad after 1 s and stays.
func TestFrictionSpatial(t *testing.T) {
	incline := func(mu string) string {
		return `<model name="incline3" dimension="3"><settings end="10 s" step="1 ms" gravity="0 0 -9.81"/>
  <ground><marker name="rail" x-axis="0 1 0" z-axis="0.9396926207859084 0 -0.3420201433256687"/></ground>
  <body name="block" mass="1" inertia="0.01 0.01 0.01"><marker name="c" x-axis="0 1 0" z-axis="0.9396926207859084 0 -0.3420201433256687"/></body>
  <prismatic name="slide" i="ground.rail" j="block.c"/>
  <friction name="f" joint="slide" mu-static="` + mu + `" mu-kinetic="` + mu + `" normal="sqrt(fx(slide)^2 + fy(slide)^2 + fz(slide)^2)"/>
</model>`
	}
	m, s := loadDrive(t, incline("0.5"))
	if err := m.AdvanceTo(s, 10); err != nil {
		t.Fatal(err)
	}
	if x := chanAt(t, m, s, "slide.disp"); math.Abs(x) > 1e-13 {
		t.Errorf("μ = 0.5: moved %.3g m in 10 s, want to stay put", x)
	}
	m, s = loadDrive(t, incline("0.2"))
	if err := m.AdvanceTo(s, 1); err != nil {
		t.Fatal(err)
	}
	a := 9.81 * (math.Sin(20*math.Pi/180) - 0.2*math.Cos(20*math.Pi/180))
	if x := chanAt(t, m, s, "slide.disp"); math.Abs(x-a/2) > 1e-10*a/2 {
		t.Errorf("μ = 0.2: slid %.12g m in 1 s, want g(sin α − μ cos α)/2 = %.12g", x, a/2)
	}
	m, s = loadDrive(t, `<model name="fw3" dimension="3"><settings end="10 s" step="1 ms" gravity="0 0 0"/>
  <ground><marker name="A" z-axis="1 1 0" x-axis="0 0 1"/></ground>
  <body name="wheel" mass="1" inertia="0.01 0.01 0.01" omega="10 10 0" omega-frame="global"><marker name="hub" z-axis="1 1 0" x-axis="0 0 1"/></body>
  <revolute name="shaft" i="ground.A" j="wheel.hub"/>
  <friction name="bearing" joint="shaft" preload="0.1 N*m"/>
</model>`)
	if err := m.AdvanceTo(s, 2); err != nil {
		t.Fatal(err)
	}
	th2 := chanAt(t, m, s, "shaft.angle")
	w0 := 10 * math.Sqrt2
	if want := w0 * w0 / 2 / 10; math.Abs(th2-want) > 1e-9 {
		t.Errorf("stopped at %.12g rad, want %.12g", th2, want)
	}
	if err := m.AdvanceTo(s, 10); err != nil {
		t.Fatal(err)
	}
	if th := chanAt(t, m, s, "shaft.angle"); math.Abs(th-th2) > 1e-12 {
		t.Errorf("from 2 s to 10 s it moved %.3g rad: friction must hold it", th-th2)
	}
}
