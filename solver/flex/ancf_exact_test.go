package flex

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"mbfmu/solver/mech"
)

// The n-point Gauss–Legendre rule integrates polynomials of degree 2n − 1
// exactly: ∫ x^p dx over [−1, 1] = 2/(p + 1) for even p, 0 for odd p.
func TestGaussLegendre(t *testing.T) {
	for n := 1; n <= ancfMaxGauss; n++ {
		x, w := gaussLegendre(n)
		for p := 0; p <= 2*n-1; p++ {
			s := 0.0
			for i := range x {
				s += w[i] * math.Pow(x[i], float64(p))
			}
			want := 0.0
			if p%2 == 0 {
				want = 2 / float64(p+1)
			}
			if math.Abs(s-want) > 1e-14 {
				t.Errorf("n = %d: ∫x^%d = %.16g, want %.16g", n, p, s, want)
			}
		}
	}
	// the five-point rule of ancf.go
	x, w := gaussLegendre(5)
	x5, w5 := gauss5()
	for i := range x {
		if math.Abs(x[i]-x5[i]) > 1e-15 || math.Abs(w[i]-w5[i]) > 1e-15 {
			t.Errorf("mech.Point %d: (%.16g, %.16g), gauss5 (%.16g, %.16g)", i, x[i], w[i], x5[i], w5[i])
		}
	}
}

// exactElem is one element with the exact curvature and/or the
// engineering strain on coordinates 0..7 in a random, strongly stretched
// and bent configuration with random rates.
func exactElem(seed int64, beta float64, curv, eng bool) (*ancfElem, *mech.Ctx) {
	rng := rand.New(rand.NewSource(seed))
	l := 0.7
	b := &ancfBeam{ne: 1, ea: 3e1, ei: 2.5, rhoA: 1, beta: beta, k: newANCFConst(l), exact: newANCFExact(l, ancfExactGauss, curv, eng)}
	el := &ancfElem{b: b}
	for i := range el.d {
		el.d[i] = i
	}
	// a quarter circle of radius 0.5 stretched by 1.3, then perturbed
	q := []float64{0, 0, 1.3, 0, 0.5, 0.5, 0, 1.3}
	v := make([]float64, 8)
	for i := range q {
		q[i] += 0.1 * rng.NormFloat64()
		v[i] = rng.NormFloat64()
	}
	return el, &mech.Ctx{Q: q, V: v}
}

// With the exact curvature, the engineering strain or both, the element
// force is −∂U/∂e (U = axial + bending energy), its Jacobians K = −∂Q/∂q,
// C = −∂Q/∂v agree with central differences of the force, with and
// without Kelvin–Voigt damping, and K is symmetric without damping.
func TestANCFExactDerivatives(t *testing.T) {
	const h = 1e-6
	for _, opt := range [][2]bool{{true, false}, {false, true}, {true, true}} {
		for _, beta := range []float64{0, 0.01} {
			for seed := int64(1); seed <= 4; seed++ {
				exactDerivatives(t, opt[0], opt[1], beta, seed, h)
			}
		}
	}
}

func exactDerivatives(t *testing.T, curv, eng bool, beta float64, seed int64, h float64) {
	t.Helper()
	tag := fmt.Sprintf("curvature %v, engineering %v, β = %g, seed %d", curv, eng, beta, seed)
	el, x := exactElem(seed, beta, curv, eng)
	q, v := x.Q, x.V
	f := make([]float64, 8)
	k := make([]float64, 64)
	c := make([]float64, 64)
	el.Eval(x, f, k, c)
	force := func() []float64 {
		g := make([]float64, 8)
		el.Eval(x, g, nil, nil)
		return g
	}
	fmax := maxAbsSlice(f)
	for j := 0; j < 8; j++ {
		for _, which := range []string{"q", "v"} {
			vec, J := q, k
			if which == "v" {
				vec, J = v, c
			}
			s := vec[j]
			vec[j] = s + h
			fp := force()
			vec[j] = s - h
			fm := force()
			vec[j] = s
			for i := 0; i < 8; i++ {
				fd := -(fp[i] - fm[i]) / (2 * h)
				if math.Abs(fd-J[i*8+j]) > 1e-6*(1+math.Abs(fd)) {
					t.Errorf("%s: %s Jacobian (%d,%d): analytic %.9g, differences %.9g", tag, which, i, j, J[i*8+j], fd)
				}
			}
		}
	}
	if beta > 0 {
		return
	}
	for j := 0; j < 8; j++ {
		s := q[j]
		q[j] = s + h
		a1, b1 := el.energy(q)
		q[j] = s - h
		a2, b2 := el.energy(q)
		q[j] = s
		fd := -((a1 + b1) - (a2 + b2)) / (2 * h)
		if math.Abs(fd-f[j]) > 1e-7*fmax {
			t.Errorf("%s: force %d: %.10g, −∂U/∂e %.10g", tag, j, f[j], fd)
		}
	}
	// the tangent of an energy is symmetric
	for i := 0; i < 8; i++ {
		for j := 0; j < i; j++ {
			if math.Abs(k[i*8+j]-k[j*8+i]) > 1e-12*(1+math.Abs(k[i*8+j])) {
				t.Errorf("%s: K not symmetric at (%d,%d): %g, %g", tag, i, j, k[i*8+j], k[j*8+i])
			}
		}
	}
}

func maxAbsSlice(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// The exact bending energy of a stretched circular arc: r(x) = R(sin φ,
// 1 − cos φ), φ = λx/R, has the material curvature κ = θ_x = λ/R, so
// U_b = ½ EI (λ/R)² l, while the small-strain energy is ½ EI λ⁴/R² l.
// The Hermite interpolant of the arc is not the arc: the element energy
// converges to these values as l/R → 0 (fourth order).
func TestANCFExactArcEnergy(t *testing.T) {
	const R, lam, ei = 0.5, 1.2, 3.0
	var prev float64
	for _, l := range []float64{0.4, 0.2, 0.1} {
		b := &ancfBeam{ne: 1, ea: 1, ei: ei, k: newANCFConst(l), exact: newANCFExact(l, ancfExactGauss, true, false)}
		el := &ancfElem{b: b}
		phi := lam * l / R
		q := []float64{0, 0, lam, 0, R * math.Sin(phi), R * (1 - math.Cos(phi)), lam * math.Cos(phi), lam * math.Sin(phi)}
		_, ub := el.energy(q)
		want := 0.5 * ei * (lam / R) * (lam / R) * l
		b.exact = nil
		_, us := el.energy(q)
		wantS := want * lam * lam
		rel := ub/want - 1
		t.Logf("l = %g: exact %.10g (arc %.10g, rel. %.2g); small-strain %.10g (arc %.10g)", l, ub, want, rel, us, wantS)
		if math.Abs(rel) > 0.01 || math.Abs(us/wantS-1) > 0.02 {
			t.Errorf("l = %g: exact %.8g want %.8g; small-strain %.8g want %.8g", l, ub, want, us, wantS)
		}
		if prev != 0 && math.Abs(prev/rel) < 12 {
			t.Errorf("l = %g: error ratio %.3g per halving, want ≈ 16", l, prev/rel)
		}
		prev = rel
	}
}
