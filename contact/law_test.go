package contact

import (
	"math"
	"testing"
)

// impact integrates one central impact m δ” = −F(δ, δ') from δ = 0,
// δ' = v0 > 0 with classical RK4 and fixed step h until the body has left
// (δ < 0). It returns the rebound ratio e = −δ'_exit/v0, the time spent at
// δ > 0 and the maximum penetration.
func impact(t *testing.T, l NormalLaw, m, v0, h float64) (e, tc, dmax float64) {
	t.Helper()
	acc := func(d, v float64) float64 {
		if d == 0 {
			d = math.SmallestNonzeroFloat64 // contact is active from t = 0+
		}
		f, _, _ := l.Force(d, v)
		return -f / m
	}
	d, v, time := 0.0, v0, 0.0
	for step := 0; step < 50_000_000; step++ {
		k1d, k1v := v, acc(d, v)
		k2d, k2v := v+0.5*h*k1v, acc(d+0.5*h*k1d, v+0.5*h*k1v)
		k3d, k3v := v+0.5*h*k2v, acc(d+0.5*h*k2d, v+0.5*h*k2v)
		k4d, k4v := v+h*k3v, acc(d+h*k3d, v+h*k3v)
		dn := d + h/6*(k1d+2*k2d+2*k3d+k4d)
		vn := v + h/6*(k1v+2*k2v+2*k3v+k4v)
		if dn < 0 {
			return -vn / v0, time + h*d/(d-dn), dmax
		}
		d, v, time = dn, vn, time+h
		dmax = math.Max(dmax, d)
	}
	t.Fatal("impact did not end")
	return
}

// Hertz time scale δmax/v0 for F = K δ^n: δmax = ((n+1) m v0²/(2K))^(1/(n+1)).
func hertzDeltaMax(K, n, m, v0 float64) float64 {
	return math.Pow((n+1)*m*v0*v0/(2*K), 1/(n+1))
}

func beta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return math.Exp(la + lb - lab)
}

// Elastic Hertz impact (extended Hertz law with C = 0): e = 1, maximum
// penetration from energy conservation, and contact duration
// 2 (δmax/v0) ∫₀¹ du/√(1−u^p) = 2 (δmax/v0) B(1/p, 1/2)/p, p = n+1
// (= 2.9432 δmax/v0 for n = 3/2, the classical Hertz value).
func TestHertzElasticImpact(t *testing.T) {
	for _, c := range []struct{ K, n, m, v0 float64 }{
		{1e6, 1.5, 1, 1}, {2e7, 1.5, 0.1, 2.5}, {5e4, 1, 2, 0.3}, {1e9, 2.3, 0.5, 1.2},
	} {
		l := NormalLaw{Kind: LawHertzExtended, K: c.K, N: c.n}
		dm := hertzDeltaMax(c.K, c.n, c.m, c.v0)
		p := c.n + 1
		tcRef := 2 * dm / c.v0 * beta(1/p, 0.5) / p
		e, tc, dmax := impact(t, l, c.m, c.v0, tcRef/40000)
		if math.Abs(e-1) > 1e-12 || math.Abs(dmax/dm-1) > 1e-10 || math.Abs(tc/tcRef-1) > 1e-9 {
			t.Errorf("%+v: e=%.12f dmax/ref=%.10f tc/ref=%.10f", c, e, dmax/dm, tc/tcRef)
		}
	}
	if got := 2 * beta(0.4, 0.5) / 2.5; math.Abs(got-2.9432) > 1e-4 {
		t.Errorf("Hertz duration constant %.5f, want 2.9432", got)
	}
}

// Extended Hertz law with small damping C: first-order energy loss along
// the elastic path, ΔE = C ∫ δ δ'² dt = 2 C v0 δm² B(2/p, 3/2)/p, hence
// 1 − e² ≈ 4 C δm² B(2/p, 3/2)/(p m v0), with relative error O(1 − e²).
func TestHertzExtendedSmallDamping(t *testing.T) {
	K, n, m, v0 := 1e6, 1.5, 1.0, 1.0
	p := n + 1
	dm := hertzDeltaMax(K, n, m, v0)
	unit := 4 * dm * dm * beta(2/p, 1.5) / (p * m * v0) // (1−e²) per unit C
	for _, loss := range []float64{1e-3, 5e-3} {
		C := loss / unit
		e, _, _ := impact(t, NormalLaw{Kind: LawHertzExtended, K: K, N: n, C: C}, m, v0, 2.94*dm/v0/40000)
		got := 1 - e*e
		if math.Abs(got/loss-1) > loss {
			t.Errorf("loss %g: 1−e² = %g (ratio %.5f)", loss, got, got/loss)
		}
	}
}

// The hysteresis law F = K δ^n (1 + α δ'): the RK4 rebound ratio equals the
// exact closed form RestitutionHysteresis(α v0), for any m, K and n.
func TestHysteresisRestitutionRK4(t *testing.T) {
	for _, n := range []float64{1, 1.5, 2.2} {
		for _, x := range []float64{0.01, 0.1, 0.5, 1, 3, 10} {
			K, m, v0 := 3e5*(1+n), 0.7, 1.9
			l := NormalLaw{Kind: LawHysteresis, K: K, N: n, C: x / v0}
			dm := hertzDeltaMax(K, n, m, v0)
			e, _, _ := impact(t, l, m, v0, 3*dm/v0/40000)
			want := RestitutionHysteresis(x)
			if math.Abs(e-want) > 1e-10 {
				t.Errorf("n=%g x=%g: RK4 e=%.10f closed form %.10f", n, x, e, want)
			}
		}
	}
}

// Closed form against its independent expansions: e = 1 − 2x/3 + 4x²/9 +
// O(x³) for small x and e·x → 1 for large x; plus exact values at x = 1:
// y − ln(1+y) = 1 − ln 2 has the root y = −0.5468... (checked by direct
// bisection here).
func TestRestitutionHysteresisClosedForm(t *testing.T) {
	for _, x := range []float64{1e-8, 1e-5, 1e-3, 1e-2, 0.05} {
		s := 1 - 2*x/3 + 4*x*x/9
		if e := RestitutionHysteresis(x); math.Abs(e-s) > x*x*x+1e-15 {
			t.Errorf("x=%g: e=%.17g series %.17g", x, e, s)
		}
	}
	for _, x := range []float64{1e3, 1e6} {
		if e := RestitutionHysteresis(x); math.Abs(e*x-1) > 1e-2 {
			t.Errorf("x=%g: e·x=%g", x, e*x)
		}
	}
	// Independent bisection on y for x = 1.
	c := 1 - math.Log(2)
	lo, hi := -1+1e-15, 0.0
	for i := 0; i < 200; i++ {
		mid := 0.5 * (lo + hi)
		if mid-math.Log1p(mid) > c {
			lo = mid
		} else {
			hi = mid
		}
	}
	if e := RestitutionHysteresis(1); math.Abs(e+lo) > 1e-13 {
		t.Errorf("x=1: e=%.15f bisection %.15f", e, -lo)
	}
	if !math.IsNaN(RestitutionHysteresis(-1)) || RestitutionHysteresis(0) != 1 {
		t.Error("edge cases")
	}
	for _, e := range []float64{0.05, 0.3, 0.5, 0.8, 0.95, 0.999} {
		x := HysteresisDamping(e)
		if got := RestitutionHysteresis(x); math.Abs(got-e) > 1e-12 {
			t.Errorf("inverse: e=%g x=%g -> %g", e, x, got)
		}
	}
	if HysteresisDamping(1) != 0 || !math.IsNaN(HysteresisDamping(0)) || !math.IsNaN(HysteresisDamping(1.1)) {
		t.Error("HysteresisDamping edge cases")
	}
}

// Accuracy of the design formulas, measured by RK4 impact simulation and
// compared with the series of the exact relation (derived in law.go):
// Hunt–Crossley e = E + (1−E)² + O((1−E)³); Lankarani–Nikravesh
// e = E + 1.5(1−E)² + O((1−E)³); Flores e = E − (1−E)/15 + O((1−E)²) near 1
// and |e − E| < 0.05 on [0.2, 1].
func TestRestitutionDesignFormulas(t *testing.T) {
	K, n, m, v0 := 1e6, 1.5, 1.0, 1.0
	h := 3 * hertzDeltaMax(K, n, m, v0) / v0 / 40000
	sim := func(kind LawKind, E float64) float64 {
		e, _, _ := impact(t, NormalLaw{Kind: kind, K: K, N: n, E: E, V0: v0}, m, v0, h)
		return e
	}
	for _, E := range []float64{0.9, 0.95, 0.99} {
		eps := 1 - E
		if e := sim(LawHuntCrossley, E); math.Abs(e-E-eps*eps) > 1.2*eps*eps*eps {
			t.Errorf("Hunt–Crossley E=%g: e=%.8f", E, e)
		}
		if e := sim(LawLankaraniNikravesh, E); math.Abs(e-E-1.5*eps*eps) > 2.2*eps*eps*eps {
			t.Errorf("Lankarani–Nikravesh E=%g: e=%.8f", E, e)
		}
		if e := sim(LawFlores, E); math.Abs(e-E+eps/15) > eps*eps {
			t.Errorf("Flores E=%g: e=%.8f", E, e)
		}
	}
	for _, E := range []float64{0.2, 0.4, 0.6, 0.8, 1} {
		if e := sim(LawFlores, E); math.Abs(e-E) > 0.05 {
			t.Errorf("Flores E=%g: e=%.6f", E, e)
		}
	}
}

// Linear spring–damper with the max(·,0) clamp: RK4 against the closed
// form RestitutionLinear, through under-, critically and over-damped cases.
// Without damping e = 1; for ζ → 0, e ≈ 1 − πζ.
func TestLinearRestitution(t *testing.T) {
	k, m, v0 := 1e4, 0.5, 2.0
	w := math.Sqrt(k / m)
	for _, z := range []float64{0, 0.01, 0.2, 0.5, 1 / math.Sqrt2, 0.9, 1, 1.5, 4} {
		c := 2 * z * m * w
		want := RestitutionLinear(k, c, m)
		e, _, _ := impact(t, NormalLaw{Kind: LawLinear, K: k, C: c}, m, v0, 1/w/20000)
		if math.Abs(e-want) > 1e-9 {
			t.Errorf("ζ=%g: RK4 e=%.9f closed form %.9f", z, e, want)
		}
	}
	if e := RestitutionLinear(1, 0, 1); e != 1 {
		t.Errorf("undamped e=%g", e)
	}
	z := 1e-4
	if e := RestitutionLinear(1, 2*z, 1); math.Abs(e-(1-math.Pi*z)) > 10*z*z {
		t.Errorf("small ζ: e=%g", e)
	}
	if !math.IsNaN(RestitutionLinear(0, 1, 1)) || !math.IsNaN(RestitutionLinear(1, -1, 1)) {
		t.Error("invalid input must give NaN")
	}
}

func allLaws() []NormalLaw {
	return []NormalLaw{
		{Kind: LawLinear, K: 1e5, C: 300},
		{Kind: LawHertzExtended, K: 1e6, N: 1.5, C: 1e7},
		{Kind: LawHertzExtended, K: 1e6, N: 1.8, C: 2e5},
		{Kind: LawHysteresis, K: 2e6, N: 1.5, C: 0.4},
		{Kind: LawHysteresis, K: 2e6, N: 1, C: 0.4},
		{Kind: LawHysteresis, K: 2e6, N: 2, C: 0.4},
		{Kind: LawHuntCrossley, K: 2e6, N: 1.5, E: 0.7, V0: 1.3},
		{Kind: LawLankaraniNikravesh, K: 2e6, N: 1.3, E: 0.7, V0: 1.3},
		{Kind: LawFlores, K: 2e6, N: 1.5, E: 0.4, V0: 0.8},
	}
}

// Analytic partial derivatives against central finite differences.
func TestForceDerivatives(t *testing.T) {
	for _, l := range allLaws() {
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, d := range []float64{1e-4, 2e-3} {
			for _, dd := range []float64{-0.5, -0.01, 0, 0.3} {
				f, fd, fv := l.Force(d, dd)
				if f <= 0 {
					continue
				}
				hd, hv := 1e-6*d, 1e-6
				fp, _, _ := l.Force(d+hd, dd)
				fm, _, _ := l.Force(d-hd, dd)
				gp, _, _ := l.Force(d, dd+hv)
				gm, _, _ := l.Force(d, dd-hv)
				nd, nv := (fp-fm)/(2*hd), (gp-gm)/(2*hv)
				if math.Abs(nd-fd) > 1e-6*math.Abs(fd)+1e-9*f/d || math.Abs(nv-fv) > 1e-6*math.Abs(fv)+1e-9 {
					t.Errorf("%v δ=%g δ'=%g: analytic (%g,%g) FD (%g,%g)", l.Kind, d, dd, fd, fv, nd, nv)
				}
			}
		}
	}
}

// Hand-computed values, zero force off contact, and the no-adhesion clamp.
func TestForceValues(t *testing.T) {
	// Seed 003: K1 = 1e6, c2 = 1e7, n = 1.5; δ = 1e-4 m, δ' = 0.01 m/s:
	// F = 1e6·1e-6 + 1e7·1e-4·0.01 = 1 + 10 = 11 N.
	l := NormalLaw{Kind: LawHertzExtended, K: 1e6, N: 1.5, C: 1e7}
	if f, fd, fv := l.Force(1e-4, 0.01); math.Abs(f-11) > 1e-12 || math.Abs(fd-(1.5e6*1e-2+1e7*0.01)) > 1e-9 || math.Abs(fv-1e3) > 1e-9 {
		t.Errorf("Hertz extended: %g %g %g", f, fd, fv)
	}
	// Withdrawing fast: 1 + 1e7·1e-4·(−0.01) = 1 − 10 < 0 -> clamped.
	if f, fd, fv := l.Force(1e-4, -0.01); f != 0 || fd != 0 || fv != 0 {
		t.Errorf("clamp: %g %g %g", f, fd, fv)
	}
	// Hunt–Crossley E = 0.8, V0 = 2: α = 3·0.2/(2·2) = 0.15 s/m.
	hc := NormalLaw{Kind: LawHuntCrossley, K: 1e5, N: 1, E: 0.8, V0: 2}
	if a := hc.Alpha(); math.Abs(a-0.15) > 1e-15 {
		t.Errorf("HC alpha %g", a)
	}
	if f, _, _ := hc.Force(0.01, 1); math.Abs(f-1e3*1.15) > 1e-9 {
		t.Errorf("HC force %g", f)
	}
	// LN α = 3·(1−0.64)/(4·2) = 0.135; Flores α = 8·0.2/(5·0.8·2) = 0.2.
	if a := (NormalLaw{Kind: LawLankaraniNikravesh, E: 0.8, V0: 2}).Alpha(); math.Abs(a-0.135) > 1e-15 {
		t.Errorf("LN alpha %g", a)
	}
	if a := (NormalLaw{Kind: LawFlores, E: 0.8, V0: 2}).Alpha(); math.Abs(a-0.2) > 1e-15 {
		t.Errorf("Flores alpha %g", a)
	}
	for _, l := range allLaws() {
		for _, d := range []float64{0, -1e-3} {
			if f, fd, fv := l.Force(d, 1); f != 0 || fd != 0 || fv != 0 {
				t.Errorf("%v: nonzero force at δ=%g", l.Kind, d)
			}
		}
	}
	lin := NormalLaw{Kind: LawLinear, K: 100, C: 10}
	if f, _, _ := lin.Force(0.01, -0.2); f != 0 {
		t.Errorf("linear clamp: %g", f)
	}
}

func TestValidate(t *testing.T) {
	bad := []NormalLaw{
		{Kind: LawLinear, K: -1},
		{Kind: LawLinear, K: 1, C: math.NaN()},
		{Kind: LawHertzExtended, K: 1, N: 0.5},
		{Kind: LawHysteresis, K: 1, N: 1.5, C: -1},
		{Kind: LawHuntCrossley, K: 1, N: 1.5, E: 0, V0: 1},
		{Kind: LawLankaraniNikravesh, K: 1, N: 1.5, E: 1.2, V0: 1},
		{Kind: LawFlores, K: 1, N: 1.5, E: 0.5, V0: 0},
		{Kind: LawKind(42), K: 1},
	}
	for _, l := range bad {
		if err := l.Validate(); err == nil {
			t.Errorf("%+v: expected an error", l)
		}
	}
	if LawFlores.String() != "flores" || LawKind(42).String() != "LawKind(42)" {
		t.Error("String")
	}
}

func TestForceNoAllocs(t *testing.T) {
	laws := allLaws()
	allocs := testing.AllocsPerRun(100, func() {
		for _, l := range laws {
			_, _, _ = l.Force(1e-3, 0.1)
		}
		_, _ = RegularisedCoulomb(0.01, 10, 0.5, 1e-3)
		_, _ = StribeckMu(0.01, 0.6, 0.48, 1e-2)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}

var sink float64

func BenchmarkForce(b *testing.B) {
	for _, l := range []NormalLaw{
		{Kind: LawHertzExtended, K: 1e6, N: 1.5, C: 1e7},
		{Kind: LawHuntCrossley, K: 1e6, N: 1.7, E: 0.8, V0: 1},
		{Kind: LawLinear, K: 1e5, C: 100},
	} {
		b.Run(l.Kind.String(), func(b *testing.B) {
			s := 0.0
			for i := 0; i < b.N; i++ {
				f, fd, fv := l.Force(1e-4+1e-9*float64(i&1023), 0.01)
				s += f + fd + fv
			}
			sink = s
		})
	}
}
