package solver

import (
	"math"
	"mbfmu/spec"
	"testing"
)

// seed003 holds the parameters of seed 003 (free-standing body on a moving
// platform, Zhang & Wang 2017, Table 1 and cases 1–3).
type seed003 struct {
	e, b0, h0       float64 // centre-of-mass offset, half hinge spacing, CM height above hinges (m)
	mu0             float64 // static friction; kinetic μ = 0.8 μ0
	X0, wx, Y0, wy  float64 // platform motion x0 = X0 sin(ωx t), y0 = Y0 sin(ωy t)
	vy              float64 // initial vertical velocity of the body relative to the platform
	m1, m2, J1, J2  float64
	k, c            float64 // hinge torsional stiffness and damping
	K1, c2, n       float64 // extended Hertz law
	l0, th20, th30  float64
	drop            float64 // initial height of the leg tips above the platform
	integ, friction string
	h, end          float64
	baumA, baumB    float64 // ours: Φ” + 2α Φ' + β² Φ = 0
}

// seed003Case1 is case 1: μ0 = 0.6, horizontal platform motion
// X0 = 0.8 m at π rad/s, body at rest on the platform.
func seed003Case1(e float64) seed003 {
	return seed003{e: e, b0: 3.415, h0: 4.330, mu0: 0.6, X0: 0.8, wx: math.Pi,
		m1: 500, m2: 10, J1: 4166.7, J2: 0.208, k: 1e6, c: 1e6, K1: 1e6, c2: 1e7, n: 1.5,
		l0: 0.25, th20: -math.Pi / 3, th30: math.Pi / 3,
		integ: "rk4", h: 1e-6, end: 10,
		// the paper's α = 1e4, β = 2e4 in Φ” + αΦ' + βΦ = 0
		baumA: 5e3, baumB: math.Sqrt(2e4)}
}

// seed003Drop is the step-size test of seed 003 (its Fig. 4–5): a small
// symmetric body dropped from 0.4 m onto a fixed platform, no damping
// (k = 1e5, c = 0, K1 = 2e7, c2 = 0), μ0 = 0.6, μ = 0.48. The paper gives
// masses and force laws but no geometry: we take a 0.2 m × 0.2 m body
// (hinges 0.2 m apart, 0.1 m below its centre of mass) on 0.1 m legs at
// ±22.5° from the vertical. (At impact a leg acts nearly as a two-force
// member, so its foot needs a friction ratio of about tan θ: legs splayed
// near or beyond atan μ0 = 31° slip and dissipate energy.)
func seed003Drop() seed003 {
	return seed003{b0: 0.1, h0: 0.1, mu0: 0.6,
		m1: 1.2, m2: 0.1, J1: 1.2 * 0.08 / 12, J2: 0.1 * 0.01 / 12, k: 1e5, K1: 2e7, n: 1.5,
		l0: 0.05, th20: -math.Pi / 8, th30: math.Pi / 8, drop: 0.4,
		integ: "rk4", h: 2e-5, end: 2, baumA: 100, baumB: 100}
}

// seed003Case2 is case 2: μ0 = 0.2, vertical platform motion Y0 = 0.99
// mm at 30π rad/s, h0 = 3.536 m, b0 = 7.208 m, the body starting with a
// vertical velocity of −1 m/s relative to the platform.
func seed003Case2(e float64) seed003 {
	p := seed003Case1(e)
	p.mu0, p.X0, p.wx, p.Y0, p.wy = 0.2, 0, 0, 0.99e-3, 30*math.Pi
	p.h0, p.b0, p.vy = 3.536, 7.208, -1
	return p
}

// seed003Case3 is case 3: μ0 = 0.8, X0 = 1 m, ωx = ωy = π rad/s,
// b0 = 2.5 m, e = 0, vertical amplitude Y0.
func seed003Case3(Y0 float64) seed003 {
	p := seed003Case1(0)
	p.mu0, p.X0, p.wx, p.Y0, p.wy, p.b0 = 0.8, 1, math.Pi, Y0, math.Pi, 2.5
	return p
}

func (p seed003) spec() *spec.Model {
	f := ftoa
	// body 1: frame at its centre of mass; hinges A, B at (∓b0 − e, −h0)
	// legs: rods along their y axis, hinge at +l0, tip at −l0; body angle
	// = the paper's θi. Tips start on the platform surface (y = 0).
	ax, bx := -p.b0-p.e, p.b0-p.e
	y1 := p.h0 + 2*p.l0*math.Cos(p.th20) + p.drop
	leg := func(th float64, hx float64) (cx, cy float64) {
		return hx + p.l0*math.Sin(th), y1 - p.h0 - p.l0*math.Cos(th)
	}
	c2x, c2y := leg(p.th20, ax)
	c3x, c3y := leg(p.th30, bx)
	vx0 := p.X0 * p.wx
	vy0 := p.Y0*p.wy + p.vy
	vel := vec(vx0, vy0)
	contact := func(name, leg string) spec.Contact {
		a := []string{"i", leg + ".tip", "j", "platform.surface", "law", "hertz", "k", f(p.K1), "c", f(p.c2),
			"exponent", f(p.n), "mu-static", f(p.mu0), "mu-dynamic", f(0.8 * p.mu0)}
		if p.friction != "" {
			a = append(a, "friction", p.friction)
		}
		return spec.Contact{Kind: "point-line", Name: name, Attr: attrs(a...)}
	}
	legBody := func(name string, cx, cy, th float64) spec.Body {
		return spec.Body{Name: name, Mass: num(p.m2), Inertia: num(p.J2), At: vec(cx, cy), Angle: num(th), Vel: vel,
			Markers: []spec.Marker{{Name: "top", At: vec(0, p.l0)}, {Name: "tip", At: vec(0, -p.l0)}}}
	}
	return &spec.Model{
		Name: "seed003",
		Settings: spec.Settings{End: p.end, Step: p.h, Integrator: p.integ,
			BaumgarteAlpha: p.baumA, BaumgarteBeta: p.baumB},
		Bodies: []spec.Body{
			{Name: "platform", Mass: num(1000), Inertia: num(1000), Vel: vec(vx0, p.Y0*p.wy),
				Markers: []spec.Marker{{Name: "surface"}}},
			{Name: "main", Mass: num(p.m1), Inertia: num(p.J1), At: vec(0, y1), Vel: vel,
				Markers: []spec.Marker{{Name: "A", At: vec(ax, -p.h0)}, {Name: "B", At: vec(bx, -p.h0)}}},
			legBody("leg2", c2x, c2y, p.th20),
			legBody("leg3", c3x, c3y, p.th30),
		},
		Joints: []spec.Joint{
			{Kind: "revolute", Name: "hingeA", I: "main.A", J: "leg2.top"},
			{Kind: "revolute", Name: "hingeB", I: "main.B", J: "leg3.top"},
		},
		Drivers: []spec.Driver{
			{Name: "px", Body: "platform", Coord: "x", Value: ex(f(p.X0) + "*sin(" + f(p.wx) + "*t)")},
			{Name: "py", Body: "platform", Coord: "y", Value: ex(f(p.Y0) + "*sin(" + f(p.wy) + "*t)")},
			{Name: "pa", Body: "platform", Coord: "angle", Value: num(0)},
		},
		Forces: []spec.Force{
			{Kind: "rspring", Name: "springA", I: "main", J: "leg2", K: num(p.k), C: num(p.c), Angle: num(p.th20)},
			{Kind: "rspring", Name: "springB", I: "main", J: "leg3", K: num(p.k), C: num(p.c), Angle: num(p.th30)},
		},
		Contacts: []spec.Contact{contact("footA", "leg2"), contact("footB", "leg3")},
	}
}

// xxd returns the body's horizontal position relative to the platform,
// x1 − x0 − x1(0) (the paper's x_xd).
func xxd(s *State, x10 float64) float64 { return s.q[3] - s.q[0] - x10 }

// seed003Run integrates p and returns x_xd at every period end (2 s for
// ωx = π) over p.end.
func seed003Run(t testing.TB, p seed003, period float64) []float64 {
	t.Helper()
	m := mustCompile(t, p.spec())
	s := mustInit(t, m)
	x10 := s.q[3]
	var out []float64
	for k := 1; float64(k)*period <= p.end+1e-9; k++ {
		if err := m.AdvanceTo(s, float64(k)*period); err != nil {
			t.Fatal(err)
		}
		out = append(out, xxd(s, x10))
	}
	return out
}

// TestSeed003Findings reproduces the findings of seed 003's cases 1 and 3
// (its Figs. 6 and 11): under horizontal platform motion the body with its
// centre of mass offset by e = −0.915 m walks one way along the platform
// while the symmetric one (e = 0) moves periodically; with combined
// horizontal and vertical motion (case 3) the symmetric body walks one way
// when Y0 = 0.9 m and moves periodically when Y0 = 0. Exact Coulomb
// friction, generalized-α at h = 1 ms (see BenchmarkSeed003Case1 for the
// paper's RK4 at 1 µs).
func TestSeed003Findings(t *testing.T) {
	walks := func(name string, x []float64, minStep float64) {
		for i := 1; i < len(x); i++ {
			if d := x[i] - x[i-1]; d < minStep {
				t.Errorf("%s: x_xd %v: period %d moved %.4f m, want a walk of ≥ %g m per period", name, x, i+1, d, minStep)
			}
		}
	}
	periodic := func(name string, x []float64) {
		for i := 2; i < len(x); i++ { // after the first period's transient
			if d := math.Abs(x[i] - x[i-1]); d > 1e-3 {
				t.Errorf("%s: x_xd %v: not periodic (period %d moved %.4f m)", name, x, i+1, d)
			}
		}
	}
	run := func(p seed003) []float64 {
		p.integ, p.h = "genalpha", 1e-3
		return seed003Run(t, p, 2)
	}
	walks("case 1, e = −0.915 m", run(seed003Case1(-0.915)), 0.01)
	periodic("case 1, e = 0", run(seed003Case1(0)))
	walks("case 3, Y0 = 0.9 m", run(seed003Case3(0.9)), 1)
	periodic("case 3, Y0 = 0", run(seed003Case3(0)))
}

// TestSeed003Drop is seed 003's step-size test: the symmetric body dropped
// from 0.4 m keeps bouncing back to the same height, because friction does
// no work (the feet stick) and there is no damping: the total mechanical
// energy (kinetic + gravity + hinge springs + contact) is conserved and
// every rebound peaks at the drop height.
func TestSeed003Drop(t *testing.T) {
	for _, integ := range []string{"rk4"} {
		p := seed003Drop()
		p.integ = integ
		m := mustCompile(t, p.spec())
		s := mustInit(t, m)
		etot := func() float64 { return m.kinetic(s.v, s.tmp) + m.gravityPotential(s.q) + m.springEnergy(s) }
		e0 := etot()
		y0 := s.q[4]
		var peaks []float64
		ymax, rising := -1.0, false
		prev := y0
		for s.T < p.end-1e-9 {
			if err := m.AdvanceTo(s, s.T+1e-4); err != nil {
				t.Fatal(err)
			}
			y := s.q[4]
			if y > prev {
				rising = true
				ymax = y
			} else if rising {
				peaks = append(peaks, ymax)
				rising = false
			}
			prev = y
			if de := math.Abs(etot()-e0) / e0; de > 1e-4 {
				t.Fatalf("t=%g: energy drifted by %g (relative)", s.T, de)
			}
		}
		if len(peaks) < 2 {
			t.Fatalf("%d rebounds, want ≥ 2", len(peaks))
		}
		for i, pk := range peaks {
			if math.Abs(pk-y0) > 1e-3 {
				t.Errorf("rebound %d peaks at %.5f m, dropped from %.5f m", i+1, pk, y0)
			}
		}
		t.Logf("%s: %d rebounds %v, events %d, energy %g → %g", integ, len(peaks), peaks, s.cw.events, e0, etot())
	}
}
