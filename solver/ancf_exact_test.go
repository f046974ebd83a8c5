package solver

import (
	"math"
	"mbfmu/spec"
	"testing"
)

// endMomentSpec is a cantilever along +x clamped at the origin whose tip
// is welded to a light rigid plate loaded by the torque of input 0 (no
// gravity).
func endMomentSpec(n int, L, EA, EI float64, curvature string) *spec.Model {
	const A = 1e-4
	sp := cantileverSpec(n, L, EA/A, A, EI/(EA/A), 1000)
	sp.Beams[0].Attr["curvature"] = spec.Expr{Src: curvature, Field: "curvature"}
	sp.Inputs = []spec.Input{{Name: "load"}}
	sp.Bodies = []spec.Body{{Name: "plate", Mass: num(1e-3), Inertia: num(1e-6), At: vec(L, 0)}}
	sp.Joints = []spec.Joint{{Kind: "fixed", Name: "weld", I: "plate", J: "b.tip"}}
	sp.Forces = []spec.Force{{Kind: "torque", Name: "M", I: "plate", T: spec.Expr{Src: "load"}}}
	return sp
}

// staticRamp finds the static equilibrium under the load value v of
// input 0, reached in steps equal increments from zero (the static solver
// takes full Newton steps, which a large rotation of a soft rod defeats).
func staticRamp(t *testing.T, m *Model, v float64, steps int) *State {
	t.Helper()
	s := mustInit(t, m)
	for k := 1; k <= steps; k++ {
		s.SetInput(0, v*float64(k)/float64(steps))
		if err := m.Static(s); err != nil {
			t.Fatalf("load step %d of %d: %v", k, steps, err)
		}
	}
	return s
}

// smallStrainArc is the equilibrium of the small-strain model under an
// end moment: a circle of uniform stretch λ, where the bending energy
// ½ EI λ² θ'² pulls the axis shorter: EI λ² θ' = M, EA ε = −EI θ'²,
// ε = ½(λ² − 1). It returns λ and θ'.
func smallStrainArc(EA, EI, M float64) (lam, th float64) {
	lam = 1
	for it := 0; it < 100; it++ {
		// F(λ) = EA ½(λ² − 1) λ⁴ + M²/EI = 0
		F := 0.5*EA*(lam*lam-1)*math.Pow(lam, 4) + M*M/EI
		dF := EA * (3*math.Pow(lam, 5) - 2*lam*lam*lam)
		lam -= F / dF
	}
	return lam, M / (EI * lam * lam)
}

// An end moment M bends the exact-curvature cantilever into a circle of
// material curvature κ = M/EI whatever EA: the tip is at (sin κL, 1 −
// cos κL)/κ. The small-strain model gives a shorter circle (its own
// closed form, smallStrainArc; it has no equilibrium at all beyond
// M² = (2/27) EI EA): for a soft axis (EA = 20 M²/EI) the two differ by
// a tenth of the length. The exact model converges to the circle at
// fourth order in the element length.
func TestANCFExactEndMoment(t *testing.T) {
	const L, EI = 1.0, 1.0
	for _, kl := range []float64{math.Pi / 2, math.Pi} {
		M := kl * EI / L
		kap := M / EI
		wx, wy := math.Sin(kap*L)/kap, (1-math.Cos(kap*L))/kap
		for _, EA := range []float64{20 * M * M / EI, 5e4} {
			var prev float64
			for _, n := range []int{4, 8, 16} {
				m := mustCompile(t, endMomentSpec(n, L, EA, EI, "exact"))
				s := staticRamp(t, m, M, 10)
				x, y := chanValue(t, m, s, "b.tip.x"), chanValue(t, m, s, "b.tip.y")
				e := math.Hypot(x-wx, y-wy)
				t.Logf("κL = %.4f, EA = %.4g N, %2d elements: exact tip (%.8f, %.8f), circle (%.8f, %.8f), error %.2g", kap*L, EA, n, x, y, wx, wy, e)
				if n == 16 && e > 2e-5*L {
					t.Errorf("κL = %.4f, EA = %g, %d elements: tip off the circle by %.3g m", kap*L, EA, n, e)
				}
				if prev > 1e-9 && e > prev/8 {
					t.Errorf("κL = %.4f, EA = %g: error %.3g with %d elements, %.3g with half as many", kap*L, EA, e, n, prev)
				}
				prev = e
			}
			// the small-strain model against its own closed form
			lam, th := smallStrainArc(EA, EI, M)
			sx, sy := lam*math.Sin(th*L)/th, lam*(1-math.Cos(th*L))/th
			m := mustCompile(t, endMomentSpec(16, L, EA, EI, "small-strain"))
			s := staticRamp(t, m, M, 10)
			x, y := chanValue(t, m, s, "b.tip.x"), chanValue(t, m, s, "b.tip.y")
			t.Logf("κL = %.4f, EA = %.4g N: small-strain tip (%.6f, %.6f), its closed form (%.6f, %.6f) (λ = %.5f), %.3g m from the exact circle",
				kap*L, EA, x, y, sx, sy, lam, math.Hypot(x-wx, y-wy))
			if math.Hypot(x-sx, y-sy) > 2e-4*L {
				t.Errorf("κL = %.4f, EA = %g: small-strain tip (%.6f, %.6f), closed form (%.6f, %.6f)", kap*L, EA, x, y, sx, sy)
			}
		}
	}
}

// extElastica integrates the extensible elastica of a cantilever clamped
// at the origin along +x under a dead tip force F (Reissner's shear-rigid
// rod, as an independent reference): along the reference arc length x,
//
//	θ' = m/EI,  m' = −λ t × F,  r' = λ t,  t = (cos θ, sin θ),
//
// with the stretch λ from the axial force N = F·t: N = EA (λ − 1)
// (engineering strain) or N = EA ½(λ² − 1) λ (Green strain, the
// derivative of ½ EA ε² with respect to λ). θ(0) = 0, m(L) = 0: shooting
// on m(0) (RK4, 4000 steps, bisection). It returns the tip position.
func extElastica(F [2]float64, EA, EI, L float64, eng bool) (x, y float64) {
	stretch := func(th float64) float64 {
		N := F[0]*math.Cos(th) + F[1]*math.Sin(th)
		if eng {
			return 1 + N/EA
		}
		lam := 1.0
		for it := 0; it < 50; it++ {
			d := (0.5*EA*(lam*lam-1)*lam - N) / (0.5 * EA * (3*lam*lam - 1))
			lam -= d
			if math.Abs(d) < 1e-15 {
				break
			}
		}
		return lam
	}
	rhs := func(s [4]float64) [4]float64 {
		lam := stretch(s[0])
		c, sn := math.Cos(s[0]), math.Sin(s[0])
		return [4]float64{s[1] / EI, -lam * (c*F[1] - sn*F[0]), lam * c, lam * sn}
	}
	run := func(m0 float64) [4]float64 {
		const n = 4000
		h := L / n
		st := [4]float64{0, m0, 0, 0}
		for i := 0; i < n; i++ {
			k1 := rhs(st)
			var s2, s3, s4 [4]float64
			for j := range st {
				s2[j] = st[j] + h/2*k1[j]
			}
			k2 := rhs(s2)
			for j := range st {
				s3[j] = st[j] + h/2*k2[j]
			}
			k3 := rhs(s3)
			for j := range st {
				s4[j] = st[j] + h*k3[j]
			}
			k4 := rhs(s4)
			for j := range st {
				st[j] += h / 6 * (k1[j] + 2*k2[j] + 2*k3[j] + k4[j])
			}
		}
		return st
	}
	// m(L) > 0 at m0 = 0 for a downward load; m0 = −2 L |F| λ overshoots
	lo, hi := -2*L*math.Hypot(F[0], F[1])*stretch(math.Atan2(F[1], F[0])), 0.0
	for i := 0; i < 80; i++ {
		mid := 0.5 * (lo + hi)
		if run(mid)[1] > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	st := run(0.5 * (lo + hi))
	return st[2], st[3]
}

// The reference itself: an inextensible rod (EA huge) under PL²/EI = 1
// has the tip deflection 0.30172 L of Bisshopp & Drucker (1945) and the
// tip of the independent inextensible integration (elastica); a pure axial
// pull stretches by λ − 1 = P/EA (engineering) or λ³ − λ = 2P/EA (Green).
func TestExtElasticaReference(t *testing.T) {
	x, y := extElastica([2]float64{0, -1}, 1e12, 1, 1, false)
	ex, ey := elastica(1, 1)
	t.Logf("EA → ∞: tip (%.6f, %.6f), inextensible elastica (%.6f, %.6f)", x, y, ex, ey)
	if math.Abs(y+0.30172) > 2e-5 || math.Hypot(x-ex, y-ey) > 1e-6 {
		t.Errorf("EA → ∞: tip (%.6f, %.6f), elastica (%.6f, %.6f), Bisshopp–Drucker y = −0.30172", x, y, ex, ey)
	}
	x, _ = extElastica([2]float64{3, 0}, 20, 1, 1, true)
	if math.Abs(x-1.15) > 1e-9 {
		t.Errorf("axial pull, engineering strain: tip x = %.10g, want 1.15", x)
	}
	x, _ = extElastica([2]float64{3, 0}, 20, 1, 1, false)
	if r := x*x*x - x - 0.3; math.Abs(r) > 1e-9 {
		t.Errorf("axial pull, Green strain: tip x = %.10g, λ³ − λ − 2P/EA = %.3g", x, r)
	}
}

// tipLoadSpec is a cantilever (EI = 1 N·m², EA given, L = 1 m) under the
// dead tip force input0 × F.
func tipLoadSpec(n int, EA float64, F [2]float64, curvature, strain string) *spec.Model {
	const A, EI = 1e-4, 1.0
	sp := cantileverSpec(n, 1, EA/A, A, EI/(EA/A), 1000)
	sp.Beams[0].Attr["curvature"] = spec.Expr{Src: curvature, Field: "curvature"}
	sp.Beams[0].Attr["axial-strain"] = spec.Expr{Src: strain, Field: "axial-strain"}
	sp.Inputs = []spec.Input{{Name: "load"}}
	sp.Forces = []spec.Force{{Kind: "force", Name: "F", I: "b.tip",
		FX: spec.Expr{Src: num(F[0]).Src + "*load"}, FY: spec.Expr{Src: num(F[1]).Src + "*load"}}}
	return sp
}

// Large deflection with large axial strain: a soft cantilever (EA = 20 N,
// EI = 1 N·m², L = 1 m) under the tip force (2, −2) N stretches by up to
// 12–14 % and turns by about 60°. The exact-curvature beam converges to the
// extensible elastica of its own axial law (Green or engineering strain)
// at about fourth order; the small-strain beam, whose bending stiffness
// grows as λ², stays centimetres away.
func TestANCFExactExtensibleElastica(t *testing.T) {
	const EA = 20.0
	F := [2]float64{2, -2}
	for _, strain := range []string{"green", "engineering"} {
		wx, wy := extElastica(F, EA, 1, 1, strain == "engineering")
		var prev float64
		for _, n := range []int{4, 8, 16, 32} {
			m := mustCompile(t, tipLoadSpec(n, EA, F, "exact", strain))
			s := staticRamp(t, m, 1, 10)
			x, y := chanValue(t, m, s, "b.tip.x"), chanValue(t, m, s, "b.tip.y")
			e := math.Hypot(x-wx, y-wy)
			t.Logf("%s strain, %2d elements: exact-curvature tip (%.7f, %.7f), elastica (%.7f, %.7f), error %.2g m; tip strain %.4f",
				strain, n, x, y, wx, wy, e, chanValue(t, m, s, "b.tip.strain"))
			if n == 32 && e > 1e-8 {
				t.Errorf("%s strain, %d elements: tip %.3g m from the elastica", strain, n, e)
			}
			if prev > 0 && e > prev/8 {
				t.Errorf("%s strain: error %.3g with %d elements, %.3g with half as many", strain, e, n, prev)
			}
			prev = e
		}
		m := mustCompile(t, tipLoadSpec(32, EA, F, "small-strain", strain))
		s := staticRamp(t, m, 1, 10)
		x, y := chanValue(t, m, s, "b.tip.x"), chanValue(t, m, s, "b.tip.y")
		d := math.Hypot(x-wx, y-wy)
		t.Logf("%s strain, 32 elements: small-strain tip (%.6f, %.6f), %.3g m from the elastica", strain, x, y, d)
		if d < 0.01 {
			t.Errorf("%s strain: the small-strain beam is only %.3g m from the extensible elastica", strain, d)
		}
	}
}

// setGauss sets the quadrature of the exact terms of every ANCF beam of
// a specification to n points.
func setGauss(sp *spec.Model, n int) *spec.Model {
	for i := range sp.Beams {
		sp.Beams[i].Attr["gauss-points"] = spec.Expr{Src: itoa(n), Field: "gauss-points"}
	}
	return sp
}

// The quadrature of the exact terms is converged with 5
// points: on coarse elements of the strongly stretched elastica (4
// elements, 14 % strain) the tip moves by less than 1e-9 m from 5 to 9
// points, and the free end of the seed's pendulum (20 elements, 0.5 s)
// by less than 1e-8 m.
func TestANCFExactQuadrature(t *testing.T) {
	F := [2]float64{2, -2}
	tip := func(n int) (float64, float64) {
		m := mustCompile(t, setGauss(tipLoadSpec(4, 20, F, "exact", "engineering"), n))
		s := staticRamp(t, m, 1, 10)
		return chanValue(t, m, s, "b.tip.x"), chanValue(t, m, s, "b.tip.y")
	}
	rx, ry := tip(9)
	for _, n := range []int{3, 4, 5, 7} {
		x, y := tip(n)
		d := math.Hypot(x-rx, y-ry)
		t.Logf("elastica, %d Gauss points: tip differs from 9 points by %.2g m", n, d)
		if n >= 5 && d > 1e-9 {
			t.Errorf("elastica: %d Gauss points differ from 9 by %.3g m", n, d)
		}
	}
	pend := func(n int) (float64, float64) {
		sp := ancfPendulumSpec(20, 1e-3, 0.5)
		sp.Beams[0].Attr["curvature"] = spec.Expr{Src: "exact", Field: "curvature"}
		sp.Beams[0].Attr["axial-strain"] = spec.Expr{Src: "engineering", Field: "axial-strain"}
		m := mustCompile(t, setGauss(sp, n))
		s := mustInit(t, m)
		if err := m.AdvanceTo(s, 0.5); err != nil {
			t.Fatal(err)
		}
		return chanValue(t, m, s, "b.tip.x"), chanValue(t, m, s, "b.tip.y")
	}
	rx, ry = pend(9)
	for _, n := range []int{3, 4, 5, 7} {
		x, y := pend(n)
		d := math.Hypot(x-rx, y-ry)
		t.Logf("pendulum, %d Gauss points: tip at 0.5 s differs from 9 points by %.2g m", n, d)
		if n >= 5 && d > 1e-8 {
			t.Errorf("pendulum: %d Gauss points differ from 9 by %.3g m", n, d)
		}
	}
}

// exactPendulumSpec is the seed's pendulum with the given curvature and
// axial strain options.
func exactPendulumSpec(n int, h, end float64, curvature, strain string) *spec.Model {
	sp := ancfPendulumSpec(n, h, end)
	sp.Beams[0].Attr["curvature"] = spec.Expr{Src: curvature, Field: "curvature"}
	sp.Beams[0].Attr["axial-strain"] = spec.Expr{Src: strain, Field: "axial-strain"}
	return sp
}

// Stepping and output evaluation allocate nothing with the exact terms,
// with and without damping.
func TestANCFExactNoAllocs(t *testing.T) {
	for _, beta := range []float64{0, 1e-3} {
		for _, o := range [][2]string{{"exact", "green"}, {"small-strain", "engineering"}, {"exact", "engineering"}} {
			sp := exactPendulumSpec(16, 1e-3, 1, o[0], o[1])
			sp.Beams[0].Attr["damping"] = num(beta)
			m := mustCompile(t, sp)
			s := mustInit(t, m)
			ch := make([]float64, len(m.Channels()))
			if err := m.AdvanceTo(s, 0.01); err != nil {
				t.Fatal(err)
			}
			n := testing.AllocsPerRun(20, func() {
				if err := m.AdvanceTo(s, s.T+0.003); err != nil {
					t.Fatal(err)
				}
				m.EvalChannels(s, ch)
			})
			if n != 0 {
				t.Errorf("%s curvature, %s strain, β = %g: %v allocations per step", o[0], o[1], beta, n)
			}
		}
	}
}

// Energy balance of the seed's pendulum (20 elements) with the exact
// terms: with the trapezoidal generalized-α (ρ∞ = 1) the total energy,
// whose strain part is the energy the forces derive from, stays within
// 2e-4 of the peak kinetic energy over 1.1 s and its error falls as h².
// With damping (β = 1 ms) it only decreases.
func TestANCFExactPendulumEnergy(t *testing.T) {
	run := func(h, beta float64, o [2]string) (maxDev, maxUp, kmax float64) {
		sp := exactPendulumSpec(20, h, 1.1, o[0], o[1])
		sp.Settings.RhoInf, sp.Settings.RhoSet = 1, true
		sp.Beams[0].Attr["damping"] = num(beta)
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		e0 := chanValue(t, m, s, "energy.total")
		prev := e0
		for k := 1; k <= 110; k++ {
			if err := m.AdvanceTo(s, 0.01*float64(k)); err != nil {
				t.Fatal(err)
			}
			e := chanValue(t, m, s, "energy.total")
			maxDev = math.Max(maxDev, math.Abs(e-e0))
			maxUp = math.Max(maxUp, e-prev)
			prev = e
			kmax = math.Max(kmax, chanValue(t, m, s, "energy.kinetic"))
		}
		return
	}
	for _, o := range [][2]string{{"exact", "green"}, {"exact", "engineering"}} {
		d1, _, k1 := run(1e-3, 0, o)
		d2, _, _ := run(5e-4, 0, o)
		t.Logf("%s curvature, %s strain: max |ΔE| %.3g J (h = 1 ms), %.3g J (h = 0.5 ms), peak kinetic energy %.3g J", o[0], o[1], d1, d2, k1)
		if d1 > 2e-4*k1 {
			t.Errorf("%v: energy drift %.3g J, %.2g of the peak kinetic energy", o, d1, d1/k1)
		}
		if r := d1 / d2; r < 3 || r > 5.5 {
			t.Errorf("%v: energy error ratio %.3g when halving h, want ≈ 4", o, r)
		}
		dd, up, _ := run(1e-3, 1e-3, o)
		t.Logf("%s curvature, %s strain, β = 1 ms: lost %.3g J, largest gain over 10 ms %.2g J", o[0], o[1], dd, up)
		if up > 1e-4*k1 || dd < 10*d1 {
			t.Errorf("%v, damped: lost %.3g J, gained up to %.3g J in 10 ms", o, dd, up)
		}
	}
}
