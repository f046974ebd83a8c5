package solver

import (
	"math"
	"mbfmu/spec"
	"testing"
)

// beamAttrs builds the Attr map of a beam from name/value pairs (numbers)
// and marker references (strings).
func beamAttrs(kv ...any) map[string]spec.Expr {
	m := map[string]spec.Expr{}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case float64:
			m[k] = spec.Expr{Src: num(v).Src, Field: k}
		case int:
			m[k] = spec.Expr{Src: itoa(v), Field: k}
		case string:
			m[k] = spec.Expr{Src: v, Field: k}
		}
	}
	return m
}

// cantileverSpec is an ANCF cantilever along +x clamped at the origin,
// with a marker at the tip and no gravity.
func cantileverSpec(n int, L, E, A, I, rho float64) *spec.Model {
	return &spec.Model{
		Name:     "cantilever",
		Settings: spec.Settings{End: 1, Step: 1e-3, Gravity: vec(0, 0)},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "w"}}},
		Beams: []spec.Beam{{Kind: "ancf", Name: "b", Attr: beamAttrs("at.x", 0.0, "at.y", 0.0, "length", L,
			"elements", n, "area", A, "area-moment", I, "youngs", E, "density", rho, "i", "ground.w",
			"marker.tip", L, "marker.mid", L/2, "marker.q", L/4)}},
	}
}

// Static deflection of a cantilever under a small tip load P against
// Euler–Bernoulli: δ = PL³/(3EI) at the tip, P a²(3L − a)/(6EI) at a = L/2.
// A single gradient-deficient element is stiffened by the coupling of
// axial strain and bending (ε varies along a bent cubic: "membrane
// locking"); the error must vanish quickly as the mesh is refined.
func TestANCFCantileverTipLoad(t *testing.T) {
	L, E, A, I := 1.0, 2.1e11, 1e-4, 8.33e-10
	EI := E * I
	P := 1e-4 * 3 * EI / (L * L) // δ/L = 1e-4
	var errs []float64
	for _, n := range []int{1, 2, 4, 8, 16} {
		sp := cantileverSpec(n, L, E, A, I, 7850)
		sp.Forces = []spec.Force{{Kind: "force", Name: "P", I: "b.tip", FY: num(-P)}}
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		if err := m.Static(s); err != nil {
			t.Fatal(err)
		}
		tip := chanValue(t, m, s, "b.tip.defl")
		mid := chanValue(t, m, s, "b.mid.defl")
		wantTip := -P * L * L * L / (3 * EI)
		a := L / 2
		wantMid := -P * a * a * (3*L - a) / (6 * EI)
		et, em := tip/wantTip-1, mid/wantMid-1
		t.Logf("%2d elements: tip %.10g (EB %.10g, rel. error %.2g), mid-span rel. error %.2g", n, tip, wantTip, et, em)
		errs = append(errs, math.Abs(et))
		if n >= 4 && (math.Abs(et) > 1e-6 || math.Abs(em) > 1e-6) {
			t.Errorf("%d elements: tip error %.3g, mid-span error %.3g (want < 1e-6)", n, et, em)
		}
	}
	// convergence towards the fine-mesh value (which carries the
	// geometric nonlinearity, O((δ/L)²))
	for i := 0; i+1 < 3; i++ {
		if math.Abs(errs[i+1]-errs[4]) > math.Abs(errs[i]-errs[4])/8 {
			t.Errorf("no convergence: errors %v", errs)
		}
	}
}

// A uniform load q (the beam's weight) on a cantilever: EB gives
// qL⁴/(8EI) at the tip and 17qL⁴/(384EI) at mid-span.
func TestANCFCantileverUniformLoad(t *testing.T) {
	L, E, A, I, rho := 2.0, 7e10, 4e-4, 1.333e-8, 7.2e3
	g := 1e-3 // small, to stay linear
	for _, n := range []int{4, 16} {
		sp := cantileverSpec(n, L, E, A, I, rho)
		sp.Settings.Gravity = vec(0, -g)
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		if err := m.Static(s); err != nil {
			t.Fatal(err)
		}
		q := rho * A * g
		wantTip := -q * math.Pow(L, 4) / (8 * E * I)
		wantMid := -17 * q * math.Pow(L, 4) / (384 * E * I)
		tip, mid := chanValue(t, m, s, "b.tip.defl"), chanValue(t, m, s, "b.mid.defl")
		t.Logf("%2d elements: tip %.8g (EB %.8g), mid %.8g (EB %.8g)", n, tip, wantTip, mid, wantMid)
		if math.Abs(tip/wantTip-1) > 1e-5 || math.Abs(mid/wantMid-1) > 1e-5 {
			t.Errorf("%d elements: tip %.8g (EB %.8g), mid %.8g (EB %.8g)", n, tip, wantTip, mid, wantMid)
		}
	}
}

// elastica integrates the inextensible cantilever elastica under a tip
// load P (downwards): EI θ' = −P (x_tip − x), so θ” = α cos θ / L² (α =
// PL²/EI) with θ(0) = 0, θ'(L) = 0, by shooting on θ'(0) (RK4, bisection), and
// returns the tip position (x, y).
func elastica(alpha, L float64) (x, y float64) {
	run := func(k0 float64) (th, k, xx, yy float64) {
		const n = 4000
		h := L / n
		f := func(s [4]float64) [4]float64 {
			return [4]float64{s[1], alpha / (L * L) * math.Cos(s[0]), math.Cos(s[0]), math.Sin(s[0])}
		}
		st := [4]float64{0, k0, 0, 0}
		for i := 0; i < n; i++ {
			k1 := f(st)
			var s2, s3, s4 [4]float64
			for j := range st {
				s2[j] = st[j] + h/2*k1[j]
			}
			k2 := f(s2)
			for j := range st {
				s3[j] = st[j] + h/2*k2[j]
			}
			k3 := f(s3)
			for j := range st {
				s4[j] = st[j] + h*k3[j]
			}
			k4 := f(s4)
			for j := range st {
				st[j] += h / 6 * (k1[j] + 2*k2[j] + 2*k3[j] + k4[j])
			}
		}
		return st[0], st[1], st[2], st[3]
	}
	// θ'(0) = −κ0 < 0 bends downwards; θ'(L)(κ0) is monotone for these loads
	lo, hi := -3*alpha/L, 0.0
	for i := 0; i < 80; i++ {
		mid := 0.5 * (lo + hi)
		if _, k, _, _ := run(mid); k > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	_, _, x, y = run(0.5 * (lo + hi))
	return
}

// Large deflection: the tip of a slender cantilever under PL²/EI = 1 and 2
// against the elastica (Bisshopp & Drucker 1945 tabulate 0.3017L and
// 0.4935L vertical deflection), here integrated independently.
func TestANCFCantileverElastica(t *testing.T) {
	L, E, A, I := 1.0, 2.1e11, 1e-4, 8.33e-10
	EI := E * I
	for _, alpha := range []float64{1, 2} {
		sp := cantileverSpec(16, L, E, A, I, 7850)
		sp.Forces = []spec.Force{{Kind: "force", Name: "P", I: "b.tip", FY: num(-alpha * EI / (L * L))}}
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		if err := m.Static(s); err != nil {
			t.Fatal(err)
		}
		x, y := chanValue(t, m, s, "b.tip.x"), chanValue(t, m, s, "b.tip.y")
		ex, ey := elastica(alpha, L)
		t.Logf("PL²/EI = %g: tip (%.6f, %.6f), elastica (%.6f, %.6f)", alpha, x, y, ex, ey)
		if math.Hypot(x-ex, y-ey) > 2e-4*L {
			t.Errorf("PL²/EI = %g: tip (%.6f, %.6f), elastica (%.6f, %.6f)", alpha, x, y, ex, ey)
		}
	}
}

// Natural frequencies of an ANCF cantilever (Linearize) against Euler–
// Bernoulli, ω_i = (β_i L)² √(EI/(ρA L⁴)), and their convergence: the
// error of the third bending mode falls by about 2⁴ per mesh halving
// (cubic Hermite elements, consistent mass).
func TestANCFCantileverFrequencies(t *testing.T) {
	L, E, A, I, rho := 1.0, 2.1e11, 1e-4, 8.33e-10, 7850.0
	betaL := []float64{1.8751040687, 4.6940911330, 7.8547574382}
	w0 := math.Sqrt(E * I / (rho * A * math.Pow(L, 4)))
	var prev float64
	for _, n := range []int{4, 8, 16} {
		m := mustCompile(t, cantileverSpec(n, L, E, A, I, rho))
		s := mustInit(t, m)
		lin, err := m.Linearize(s)
		if err != nil {
			t.Fatal(err)
		}
		var e3 float64
		for i, bl := range betaL {
			want := bl * bl * w0 / (2 * math.Pi)
			got := lin.Modes[i].Freq
			rel := got/want - 1
			t.Logf("%2d elements: mode %d %.6f Hz (EB %.6f Hz, rel. error %.2g)", n, i+1, got, want, rel)
			if tol := 0.02 * math.Pow(4/float64(n), 4); rel < -1e-9 || rel > tol {
				t.Errorf("%d elements, mode %d: %.6f Hz, EB %.6f Hz", n, i+1, got, want)
			}
			e3 = rel
		}
		if prev != 0 {
			if r := prev / e3; r < 12 || r > 20 {
				t.Errorf("third-mode error ratio %.3g per halving, want ≈ 16", r)
			}
		}
		prev = e3
	}
}

// chanValue evaluates a named channel.
func chanValue(t testing.TB, m *Model, s *State, name string) float64 {
	t.Helper()
	k, ok := m.ChannelIndex(name)
	if !ok {
		t.Fatalf("no channel %q", name)
	}
	return m.evalChannel(s, k)
}

// Energy balance of the free-falling flexible pendulum (seed 004 case 1,
// 20 elements here): with the trapezoidal generalized-α (ρ∞ = 1) the total
// energy (kinetic + gravity + strain) stays within 2e-4 of the peak
// kinetic energy over 1.1 s, and the drift falls as h² (second order);
// with ρ∞ = 0.8 the numerical dissipation never adds energy.
func TestANCFPendulumEnergy(t *testing.T) {
	drift := func(h, rho float64) (maxDev, maxUp, kmax float64) {
		sp := ancfPendulumSpec(20, h, 1.1)
		sp.Settings.RhoInf, sp.Settings.RhoSet = rho, true
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		e0 := chanValue(t, m, s, "energy.total")
		for k := 1; k <= 110; k++ {
			if err := m.AdvanceTo(s, 0.01*float64(k)); err != nil {
				t.Fatal(err)
			}
			e := chanValue(t, m, s, "energy.total") - e0
			maxDev = math.Max(maxDev, math.Abs(e))
			maxUp = math.Max(maxUp, e)
			kmax = math.Max(kmax, chanValue(t, m, s, "energy.kinetic"))
		}
		return
	}
	d1, _, k1 := drift(1e-3, 1)
	d2, _, _ := drift(5e-4, 1)
	t.Logf("ρ∞ = 1: max |ΔE| %.3g J (h = 1 ms), %.3g J (h = 0.5 ms), peak kinetic energy %.3g J", d1, d2, k1)
	if d1 > 2e-4*k1 {
		t.Errorf("energy drift %.3g J, %.2g of the peak kinetic energy", d1, d1/k1)
	}
	if r := d1 / d2; r < 3 || r > 5.5 {
		t.Errorf("energy error ratio %.3g when halving h, want ≈ 4", r)
	}
	_, up, _ := drift(1e-3, 0.8)
	if up > 1e-4*k1 {
		t.Errorf("ρ∞ = 0.8 gained %.3g J", up)
	}
}

// A stiff pendulum (E × 10⁵) behaves as the rigid uniform bar: released
// horizontal, it reaches the vertical after a quarter period of the
// physical pendulum, √(2L/3g) K(sin 45°).
func TestANCFStiffPendulum(t *testing.T) {
	sp := ancfPendulumSpec(4, 2.5e-4, 0.6)
	sp.Beams[0].Attr["youngs"] = num(7e10)
	m := mustCompile(t, sp)
	s := mustInit(t, m)
	want := math.Sqrt(2.0/(3*9.81)) * ellipticK(math.Sin(math.Pi/4))
	prevX, prevT := 1.0, 0.0
	cross := 0.0
	for s.T < 0.6 && cross == 0 {
		if err := m.AdvanceTo(s, s.T+2.5e-4); err != nil {
			t.Fatal(err)
		}
		x := chanValue(t, m, s, "b.tip.x")
		if prevX > 0 && x <= 0 {
			cross = prevT + (s.T-prevT)*prevX/(prevX-x)
		}
		prevX, prevT = x, s.T
	}
	t.Logf("vertical at %.6f s, rigid bar %.6f s", cross, want)
	if math.Abs(cross-want) > 2e-4 {
		t.Errorf("vertical at %.6f s, rigid bar %.6f s", cross, want)
	}
}
