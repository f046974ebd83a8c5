package solver_test

// Reference tests of the example models in ../examples (issue 2, planar
// rigid engine): every figure is checked against an independent reference
// (closed form, published benchmark solution, convergence order,
// conservation of energy), never against earlier output of the engine.

import (
	"math"
	"strconv"
	"testing"

	"mbfmu/solver"
	"mbfmu/spec"
)

// exLoad reads and compiles an example model; edit (if not nil) may change
// its settings first.
func exLoad(t testing.TB, name string, edit func(*spec.Settings)) *solver.Model {
	t.Helper()
	ms := exLoadSpec(t, name+"/model.xml")
	if edit != nil {
		edit(&ms.Settings)
	}
	return specCompile(t, ms, nil, name)
}

func exCompile(t testing.TB, spec *spec.Model) *solver.Model {
	t.Helper()
	m, err := solver.Compile(spec, solver.CompileOptions{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return m
}

func exInit(t testing.TB, m *solver.Model) *solver.State {
	t.Helper()
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatalf("%s: init: %v", m.Name(), err)
	}
	return s
}

// exChannels reads named channels of a model.
type exChannels struct {
	m   *solver.Model
	row []float64
	idx map[string]int
}

func exNewChannels(t testing.TB, m *solver.Model, names ...string) *exChannels {
	t.Helper()
	c := &exChannels{m: m, row: make([]float64, len(m.Channels())), idx: map[string]int{}}
	for _, n := range names {
		k, ok := m.ChannelIndex(n)
		if !ok {
			t.Fatalf("%s: no channel %q", m.Name(), n)
		}
		c.idx[n] = k
	}
	return c
}

// eval evaluates every channel at the state; get then returns one.
func (c *exChannels) eval(s *solver.State)    { c.m.EvalChannels(s, c.row) }
func (c *exChannels) get(name string) float64 { return c.row[c.idx[name]] }
func exNum(v float64) spec.Expr {
	return spec.Expr{Src: strconv.FormatFloat(v, 'g', -1, 64), Field: "test"}
}
func exVec(x, y float64) spec.Vec { return spec.Vec{exNum(x), exNum(y)} }
func exAdvance(t testing.TB, m *solver.Model, s *solver.State, to float64) {
	t.Helper()
	if err := m.AdvanceTo(s, to); err != nil {
		t.Fatalf("%s: %v", m.Name(), err)
	}
}

// exEllipticK is the complete elliptic integral of the first kind K(k),
// by the arithmetic–geometric mean.
func exEllipticK(k float64) float64 {
	a, b := 1.0, math.Sqrt(1-k*k)
	for i := 0; i < 40; i++ {
		a, b = 0.5*(a+b), math.Sqrt(a*b)
	}
	return math.Pi / (2 * a)
}

// exSimpson integrates f over [a, b] with n (even) intervals.
func exSimpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

// IFToMM A01: the period of the pendulum released horizontal is
// 4 √(L/g) K(sin 45°) = 2.3678 s; energy is conserved.
func TestExamplePendulum(t *testing.T) {
	m := exLoad(t, "pendulum", nil)
	s := exInit(t, m)
	ch := exNewChannels(t, m, "bob.x", "energy.total")
	const L, g, mass = 1.0, 9.81, 1.0
	exact := 4 * math.Sqrt(L/g) * exEllipticK(math.Sin(math.Pi/4))
	h := m.Settings().Step
	var cross []float64
	ch.eval(s)
	prevX, prevT, e0 := ch.get("bob.x"), s.T, ch.get("energy.total")
	maxDE := 0.0
	for k := 1; s.T < 10-h/2; k++ {
		exAdvance(t, m, s, float64(k)*h)
		ch.eval(s)
		x := ch.get("bob.x")
		if prevX > 0 && x <= 0 { // passes the bottom moving left, once per period
			cross = append(cross, prevT+(s.T-prevT)*prevX/(prevX-x))
		}
		prevX, prevT = x, s.T
		maxDE = math.Max(maxDE, math.Abs(ch.get("energy.total")-e0))
	}
	if len(cross) < 4 {
		t.Fatalf("found %d bottom passages in 10 s, want 4: %v", len(cross), cross)
	}
	for i := 1; i < len(cross); i++ {
		p := cross[i] - cross[i-1]
		if math.Abs(p-exact) > 1e-5 {
			t.Errorf("period %d: %.8f s, exact %.8f s (error %.2e s)", i, p, exact, p-exact)
		}
	}
	if maxDE > 1e-5*mass*g*L {
		t.Errorf("energy error %.3e J over 10 s, want ≤ %.3e J", maxDE, 1e-5*mass*g*L)
	}
	t.Logf("period %.8f s (exact %.8f s), max energy error %.2e J, %+v", cross[1]-cross[0], exact, maxDE, s.Stats())
}

// Slider–crank driven at constant speed: the slider position is
// x(θ) = r cos θ + √(l² − r² sin² θ), its velocity the time derivative.
func TestExampleSliderCrankKinematics(t *testing.T) {
	m := exLoad(t, "slider-crank", nil)
	s := exInit(t, m)
	if d := m.DOF(s); d != 0 {
		t.Fatalf("the slider-crank has %d degrees of freedom, want 0 (fully driven)", d)
	}
	ch := exNewChannels(t, m, "slider.x", "slider.vx", "slider.y", "crank.angle")
	const r, l, w = 0.1, 0.3, 2 * math.Pi
	worstX, worstV := 0.0, 0.0
	for k := 0; k <= 200; k++ {
		tm := float64(k) * 0.005
		if k > 0 {
			if err := m.Kinematics(s, tm); err != nil {
				t.Fatalf("t=%g: %v", tm, err)
			}
		}
		ch.eval(s)
		th := w * tm
		sn, cs := math.Sincos(th)
		root := math.Sqrt(l*l - r*r*sn*sn)
		x := r*cs + root
		v := -r*w*sn - r*r*w*sn*cs/root
		worstX = math.Max(worstX, math.Abs(ch.get("slider.x")-x))
		worstV = math.Max(worstV, math.Abs(ch.get("slider.vx")-v))
		if math.Abs(ch.get("slider.y")) > 1e-12 || math.Abs(ch.get("crank.angle")-th) > 1e-12 {
			t.Fatalf("t=%g: slider y %g, crank angle %g (want 0, %g)", tm, ch.get("slider.y"), ch.get("crank.angle"), th)
		}
	}
	if worstX > 1e-12 || worstV > 1e-10 {
		t.Errorf("slider position error %.2e m, velocity error %.2e m/s against the closed form", worstX, worstV)
	}
	t.Logf("max error: position %.2e m, velocity %.2e m/s", worstX, worstV)
}

// Fixed–free chain of N equal masses and springs: ω_j = 2 √(k/m)
// sin((2j − 1) π / (2 (2N + 1))).
func TestExampleSpringChainModes(t *testing.T) {
	m := exLoad(t, "spring-chain", nil)
	s := exInit(t, m)
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	const n, k, mass = 4, 100.0, 1.0
	if len(lin.Modes) != n {
		t.Fatalf("%d modes, want %d", len(lin.Modes), n)
	}
	for j, md := range lin.Modes {
		w := 2 * math.Sqrt(k/mass) * math.Sin(float64(2*j+1)*math.Pi/float64(2*(2*n+1)))
		got := 2 * math.Pi * md.Freq
		if math.Abs(got-w) > 1e-9*w || math.Abs(md.Damping) > 1e-9 {
			t.Errorf("mode %d: ω = %.12g rad/s, ζ = %g; closed form ω = %.12g rad/s, ζ = 0", j+1, got, md.Damping, w)
		}
	}
}

// IFToMM A02 with N = 2. The mechanism keeps the parallelogram branch, so
// it reduces to one coordinate φ (crank angle from the x axis):
// ((N+1)/3 + N) φ̈ = −((N+1)/2 + N) g cos φ, i.e. φ̈ = −(7/6) g cos φ, with
// φ(0) = π/2, φ̇(0) = −1 rad/s (B0 at +1 m/s). The reference φ(t) is
// integrated here with a fine scalar RK4; the time of one revolution is
// the quadrature T = ∫ dφ / √(1 + (7/3) g (1 − sin φ)) over 2π.
func TestExampleDoubleFourBar(t *testing.T) {
	const g = 9.81
	c := 7.0 / 6 * g
	omega := func(phi float64) float64 { return math.Sqrt(1 + 2*c*(1-math.Sin(phi))) }
	period := exSimpson(func(p float64) float64 { return 1 / omega(p) }, -1.5*math.Pi, 0.5*math.Pi, 20000)
	// reference φ(t) at whole seconds
	phi, w := math.Pi/2, -1.0
	ref := []float64{phi}
	acc := func(p float64) float64 { return -c * math.Cos(p) }
	for k := 1; k <= 10; k++ {
		phi, w = solver.RK4Angle(acc, phi, w, 1e-5, 100000)
		ref = append(ref, phi)
	}
	// The example's RK4 is held to the reference tightly; the implicit
	// schemes (second order at h = 1 ms) must pass every singular
	// (horizontal) position on the parallelogram branch, within their
	// accuracy. The index-2 form (ρ∞ = 1, trapezoidal Newmark) used to stop
	// at the first singular position.
	for _, c := range []struct {
		name       string
		edit       func(*spec.Settings)
		tolB, tolT float64 // B0 position (m), revolution time (s)
		tolE       float64 // energy, relative
	}{
		{"rk4", nil, 1e-6, 1e-6, 1e-6},
		{"genalpha ρ∞ = 1 (index 2)", func(st *spec.Settings) {
			st.Integrator, st.RhoInf, st.RhoSet, st.NewtonTol = "genalpha", 1, true, 1e-10
		}, 3e-4, 1e-4, 1e-4},
		{"newmark (index 2)", func(st *spec.Settings) { st.Integrator = "newmark" }, 3e-4, 1e-4, 1e-4},
		{"genalpha ρ∞ = 0.8", func(st *spec.Settings) { st.Integrator = "genalpha" }, 3e-4, 1e-4, 1e-4},
		{"hht", func(st *spec.Settings) { st.Integrator = "hht" }, 3e-4, 1e-4, 1e-4},
		{"bdf2", func(st *spec.Settings) { st.Integrator = "bdf2" }, 2e-3, 1e-4, 1e-3},
	} {
		m := exLoad(t, "double-four-bar", c.edit)
		s := exInit(t, m)
		ch := exNewChannels(t, m, "crank0.B.x", "crank0.B.y", "crank0.angle", "crank1.angle", "crank2.angle",
			"coupler1.angle", "coupler2.angle", "energy.total")
		ch.eval(s)
		e0 := ch.get("energy.total")
		maxDE, worstB, worstBranch := 0.0, 0.0, 0.0
		h := m.Settings().Step
		prevA, prevT, tRev := ch.get("crank0.angle"), s.T, math.NaN()
		for k := 1; s.T < 10-h/2; k++ {
			if err := m.AdvanceTo(s, float64(k)*h); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			ch.eval(s)
			a := ch.get("crank0.angle")
			if target := math.Pi/2 - 2*math.Pi; prevA > target && a <= target {
				tRev = prevT + (s.T-prevT)*(prevA-target)/(prevA-a)
			}
			prevA, prevT = a, s.T
			maxDE = math.Max(maxDE, math.Abs(ch.get("energy.total")-e0))
			// the parallelogram branch: cranks parallel, couplers horizontal
			worstBranch = math.Max(worstBranch, math.Max(math.Abs(ch.get("crank1.angle")-a), math.Abs(ch.get("crank2.angle")-a)))
			worstBranch = math.Max(worstBranch, math.Max(math.Abs(ch.get("coupler1.angle")), math.Abs(ch.get("coupler2.angle"))))
			if k%1000 == 0 {
				p := ref[k/1000]
				worstB = math.Max(worstB, math.Hypot(ch.get("crank0.B.x")-math.Cos(p), ch.get("crank0.B.y")-math.Sin(p)))
			}
		}
		if worstBranch > 1e-6 {
			t.Errorf("%s: the mechanism left the parallelogram branch by %.2e rad", c.name, worstBranch)
		}
		if worstB > c.tolB {
			t.Errorf("%s: B0 position error %.2e m at whole seconds against the one-coordinate reference", c.name, worstB)
		}
		if !(math.Abs(tRev-period) <= c.tolT) {
			t.Errorf("%s: first revolution took %.9f s, quadrature gives %.9f s", c.name, tRev, period)
		}
		if maxDE > c.tolE*e0 {
			t.Errorf("%s: energy error %.2e J of %.4f J", c.name, maxDE, e0)
		}
		t.Logf("%s: revolution %.9f s (quadrature %.9f s), B0 error %.2e m, energy error %.2e J, branch %.1e, %+v",
			c.name, tRev, period, worstB, maxDE, worstBranch, s.Stats())
	}
}

// Andrews' squeezing mechanism against the reference solution at
// t = 0.03 s of the Test Set for IVP Solvers (Mazzia, Magherini;
// computed with PSIDE at tolerance 1e-14). The test set's coordinates are
// relative angles; our body angles are β, β+Θ, γ, Φ+δ, δ, Ω+ε, ε.
func TestExampleAndrews(t *testing.T) {
	m := exLoad(t, "andrews", nil)
	s := exInit(t, m)
	bodies := []string{"b1", "b2", "b3", "b4", "b5", "b6", "b7"}
	names := make([]string, 0, 14)
	for _, b := range bodies {
		names = append(names, b+".angle", b+".omega")
	}
	ch := exNewChannels(t, m, names...)
	// test set: y(1..7) = β, Θ, γ, Φ, δ, Ω, ε and y(8..14) their rates
	body := func(y []float64) []float64 {
		return []float64{y[0], y[0] + y[1], y[2], y[3] + y[4], y[4], y[5] + y[6], y[6]}
	}
	y0 := []float64{-0.0617138900142764496358948458001, 0, 0.455279819163070380255912382449,
		0.222668390165885884674473185609, 0.487364979543842550225598953530,
		-0.222668390165885884674473185609, 1.23054744454982119249735015568}
	yq := []float64{0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
		-0.5347301163226948e+0, 0.5244099658805304e+0, 0.5347301163226948e+0, 0.1048080741042263e+1}
	yv := []float64{0.1139920302151208e+4, -0.1424379294994111e+4, 0.1103291221937134e+2,
		0.1929337464421385e+2, 0.5735699284790808e+0, -0.1929337464421385e+2, 0.3231791658026955e+0}
	ch.eval(s)
	for i, a := range body(y0) {
		if got := ch.get(bodies[i] + ".angle"); math.Abs(got-a) > 1e-12 {
			t.Errorf("initial angle of %s: %.15g, test set %.15g (the assembly moved it: inconsistent geometry)", bodies[i], got, a)
		}
	}
	exAdvance(t, m, s, 0.03)
	ch.eval(s)
	worstQ, worstV := 0.0, 0.0
	rq, rv := body(yq), body(yv)
	for i, b := range bodies {
		dq := ch.get(b+".angle") - rq[i]
		dv := ch.get(b+".omega") - rv[i]
		worstQ = math.Max(worstQ, math.Abs(dq))
		worstV = math.Max(worstV, math.Abs(dv)/math.Max(1, math.Abs(rv[i])))
		if math.Abs(dq) > 1e-6 {
			t.Errorf("%s angle at 0.03 s: %.12f rad, reference %.12f rad (error %.2e rad)", b, ch.get(b+".angle"), rq[i], dq)
		}
	}
	if worstV > 1e-5 {
		t.Errorf("angular velocities at 0.03 s: relative error %.2e against the reference", worstV)
	}
	t.Logf("%s h=%g: angle error %.2e rad, rate error %.2e (relative), %+v",
		m.Settings().Integrator, m.Settings().Step, worstQ, worstV, s.Stats())
}

// exDoublePendulum is a chain of two uniform bars (1 kg, 1 m) pinned at
// the ends, released horizontal: a smooth nonlinear constrained system.
func exDoublePendulum(integ string, h, end float64) *spec.Model {
	s := &spec.Model{Name: "double_pendulum",
		Settings: spec.Settings{End: end, Step: h, Integrator: integ, RhoInf: 1, RhoSet: true, NewtonTol: 1e-12, MaxIter: 20},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}}}
	for i, name := range []string{"l1", "l2"} {
		s.Bodies = append(s.Bodies, spec.Body{Name: name, Mass: exNum(1), Inertia: exNum(1.0 / 12),
			CM: exVec(0.5, 0), At: exVec(float64(i), 0),
			Markers: []spec.Marker{{Name: "a"}, {Name: "b", At: exVec(1, 0)}}})
	}
	s.Joints = []spec.Joint{
		{Kind: "revolute", Name: "j1", I: "ground.O", J: "l1.a"},
		{Kind: "revolute", Name: "j2", I: "l1.b", J: "l2.a"},
	}
	return s
}

// The observed order of convergence when halving the step: 2 for
// generalized-α, HHT and (trapezoidal) Newmark, 1 for BDF1, 2 for BDF2,
// 4 for RK4. Error: largest coordinate error at t = 1 s against a fine
// RK4 reference run.
func TestConvergenceOrder(t *testing.T) {
	const end = 1.0
	refM := exCompile(t, exDoublePendulum("rk4", 2e-5, end))
	ref := exInit(t, refM)
	exAdvance(t, refM, ref, end)
	cases := []struct {
		integ string
		rho   float64 // genalpha ρ∞
		order float64
		h0    float64
	}{
		{"genalpha", 0.8, 2, 4e-3}, {"genalpha", 1, 2, 4e-3}, {"hht", 0, 2, 4e-3}, {"newmark", 0, 2, 4e-3},
		{"bdf1", 0, 1, 1e-3}, {"bdf2", 0, 2, 2e-3}, {"rk4", 0, 4, 1e-2},
	}
	for _, c := range cases {
		var errs []float64
		for _, h := range []float64{c.h0, c.h0 / 2, c.h0 / 4} {
			spec := exDoublePendulum(c.integ, h, end)
			if c.integ == "genalpha" {
				spec.Settings.RhoInf = c.rho // 0.8: index-3 formulation, 1: index-2
			}
			m := exCompile(t, spec)
			s := exInit(t, m)
			exAdvance(t, m, s, end)
			e := 0.0
			for i, q := range s.Q() {
				e = math.Max(e, math.Abs(q-ref.Q()[i]))
			}
			errs = append(errs, e)
		}
		p1 := math.Log2(errs[0] / errs[1])
		p2 := math.Log2(errs[1] / errs[2])
		name := c.integ
		if c.integ == "genalpha" {
			name += " ρ∞=" + strconv.FormatFloat(c.rho, 'g', -1, 64)
		}
		t.Logf("%-14s h=%g..%g errors %.3e %.3e %.3e: observed order %.3f, %.3f", name, c.h0, c.h0/4, errs[0], errs[1], errs[2], p1, p2)
		if math.Abs(p2-c.order) > 0.3 {
			t.Errorf("%s: observed order %.3f (errors %.3e → %.3e), want %g ± 0.3", name, p2, errs[1], errs[2], c.order)
		}
	}
}

// Generalized-α with ρ∞ = 1 on conservative constrained systems over
// 100 s: the energy error stays bounded, with no drift between the first
// and the last 10 s.
func TestGenAlphaEnergyLongRun(t *testing.T) {
	pend := exLoad(t, "pendulum", func(st *spec.Settings) { st.End = 100 })
	cases := []*solver.Model{pend, exCompile(t, exDoublePendulum("genalpha", 1e-3, 100))}
	for _, m := range cases {
		if m.Settings().Integrator != "genalpha" || m.Settings().RhoInf != 1 {
			t.Fatalf("%s: want genalpha with ρ∞ = 1, got %s %g", m.Name(), m.Settings().Integrator, m.Settings().RhoInf)
		}
		s := exInit(t, m)
		ch := exNewChannels(t, m, "energy.total")
		ch.eval(s)
		e0 := ch.get("energy.total")
		var first, last, all float64
		var meanFirst, meanLast float64
		var nf, nl int
		const dt = 0.01
		for k := 1; k <= 10000; k++ {
			tm := float64(k) * dt
			exAdvance(t, m, s, tm)
			ch.eval(s)
			de := ch.get("energy.total") - e0
			all = math.Max(all, math.Abs(de))
			switch {
			case tm <= 10:
				first = math.Max(first, math.Abs(de))
				meanFirst += de
				nf++
			case tm > 90:
				last = math.Max(last, math.Abs(de))
				meanLast += de
				nl++
			}
		}
		meanFirst /= float64(nf)
		meanLast /= float64(nl)
		t.Logf("%s: |ΔE| max first 10 s %.3e J, last 10 s %.3e J, whole run %.3e J; mean first %.3e J, last %.3e J; %+v",
			m.Name(), first, last, all, meanFirst, meanLast, s.Stats())
		if last > 2*first || all > 3*first {
			t.Errorf("%s: energy error grows: max |ΔE| %.3e J in the first 10 s, %.3e J in the last 10 s, %.3e J overall", m.Name(), first, last, all)
		}
		if math.Abs(meanLast-meanFirst) > first {
			t.Errorf("%s: energy drifts: mean ΔE %.3e J in the first 10 s, %.3e J in the last 10 s", m.Name(), meanFirst, meanLast)
		}
	}
}

// BenchmarkExampleAndrews runs Andrews' mechanism from 0 to 0.03 s with
// the steps that reach 1e-6 rad at 0.03 s: RK4 (the example's setting)
// and generalized-α (refactorised every step; see the example's README).
func BenchmarkExampleAndrews(b *testing.B) {
	for _, c := range []struct {
		integ string
		h     float64
	}{{"rk4", 2e-5}, {"genalpha", 1e-6}} {
		b.Run(c.integ, func(b *testing.B) {
			m := exLoad(b, "andrews", func(st *spec.Settings) {
				st.Integrator, st.Step, st.NewtonTol, st.MaxIter = c.integ, c.h, 1e-12, 20
			})
			s := m.NewState()
			n := int(0.03/c.h + 0.5)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.Init(s); err != nil {
					b.Fatal(err)
				}
				for k := 1; k <= n; k++ {
					if err := m.AdvanceTo(s, float64(k)*c.h); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/step")
			b.ReportMetric(float64(n), "steps")
		})
	}
}
