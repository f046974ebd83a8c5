package flex

import (
	"math"
	"math/rand"
	"testing"

	"mbfmu/solver/mech"
)

// The analytic element Jacobians K = −∂Q/∂q and C = −∂Q/∂v agree with
// central differences, and the elastic force is −∂U/∂e.
func TestANCFElementDerivatives(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	b := &ancfBeam{ne: 1, ea: 3e4, ei: 2.5, rhoA: 1, beta: 0.01, k: newANCFConst(0.7)}
	el := &ancfElem{b: b}
	for i := range el.d {
		el.d[i] = i
	}
	q := []float64{0.1, 0.2, 0.9, 0.3, 0.75, 0.35, 0.8, -0.4}
	v := make([]float64, 8)
	for i := range q {
		q[i] += 0.05 * rng.NormFloat64()
		v[i] = rng.NormFloat64()
	}
	x := &mech.Ctx{Q: q, V: v}
	f := make([]float64, 8)
	k := make([]float64, 64)
	c := make([]float64, 64)
	el.Eval(x, f, k, c)
	force := func() []float64 {
		g := make([]float64, 8)
		el.Eval(x, g, nil, nil)
		return g
	}
	const h = 1e-6
	for j := 0; j < 8; j++ {
		for _, which := range []string{"q", "v"} {
			vec := q
			J := k
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
					t.Errorf("%s Jacobian (%d,%d): analytic %g, differences %g", which, i, j, J[i*8+j], fd)
				}
			}
		}
	}
	// elastic force = −∂U/∂e (damping off)
	b.beta = 0
	f0 := force()
	for j := 0; j < 8; j++ {
		s := q[j]
		q[j] = s + h
		a1, b1 := el.energy(q)
		q[j] = s - h
		a2, b2 := el.energy(q)
		q[j] = s
		fd := -((a1 + b1) - (a2 + b2)) / (2 * h)
		if math.Abs(fd-f0[j]) > 1e-6*(1+math.Abs(fd)) {
			t.Errorf("force %d: %g, −∂U/∂e %g", j, f0[j], fd)
		}
	}
}

// The strain energies of an element in closed form, and unchanged when the
// element is moved far from the origin and turned: r(x) = c + R (x, κx²/2)
// has r_xx = R (0, κ), ε = κ²x²/2, so U_bend = ½ EI κ² l and U_axial =
// ½ EA κ⁴ l⁵/20 (exactly represented by the cubic element); a stretched
// element r = c + λ R (x, 0) has ε = (λ² − 1)/2 and U_axial = ½ EA l ε².
// To 1e-13 relative at the origin and 1e-10 at 1000 m (the energy is
// differences of positions: 1e-16 of 1000 m over a 0.7 m element is 2e-13
// in r_x, 1e-11 of these strains); the undeformed element's energy is zero
// to 1e-20 J at both places.
func TestANCFElementEnergy(t *testing.T) {
	const l, ea, ei = 0.7, 3e4, 2.5
	b := &ancfBeam{ne: 1, ea: ea, ei: ei, rhoA: 1, k: newANCFConst(l)}
	el := &ancfElem{b: b}
	for i := range el.d {
		el.d[i] = i
	}
	// nodal coordinates of r(x) = c + R (x + a x², b x²) (r_x = R (1 + 2a x, 2 b x))
	nodes := func(c [2]float64, th, a, bb, lam float64) []float64 {
		sn, cs := math.Sincos(th)
		rot := func(x, y float64) (float64, float64) { return c[0] + lam*(cs*x-sn*y), c[1] + lam*(sn*x+cs*y) }
		rotd := func(x, y float64) (float64, float64) { return lam * (cs*x - sn*y), lam * (sn*x + cs*y) }
		q := make([]float64, 8)
		q[0], q[1] = rot(0, 0)
		q[2], q[3] = rotd(1, 0)
		q[4], q[5] = rot(l+a*l*l, bb*l*l)
		q[6], q[7] = rotd(1+2*a*l, 2*bb*l)
		return q
	}
	const kap = 0.3
	for _, c := range []struct {
		name string
		c    [2]float64
		th   float64
		tol  float64
	}{{"at the origin", [2]float64{0, 0}, 0, 1e-13}, {"1000 m away, turned", [2]float64{1000, -700}, 2.1, 1e-10}} {
		ax, bd := el.energy(nodes(c.c, c.th, 0, kap/2, 1))
		wantB, wantA := 0.5*ei*kap*kap*l, 0.5*ea*math.Pow(kap, 4)*math.Pow(l, 5)/20
		if math.Abs(bd/wantB-1) > c.tol || math.Abs(ax/wantA-1) > c.tol {
			t.Errorf("bent element %s: bending %.15g (closed form %.15g), axial %.15g (%.15g)", c.name, bd, wantB, ax, wantA)
		}
		lam := 1.001
		ax, bd = el.energy(nodes(c.c, c.th, 0, 0, lam))
		eps := 0.5 * (lam*lam - 1)
		if want := 0.5 * ea * l * eps * eps; math.Abs(ax/want-1) > c.tol*1e3 || math.Abs(bd) > 1e-16 {
			t.Errorf("stretched element %s: axial %.15g (closed form %.15g), bending %g (0)", c.name, ax, want, bd)
		}
		ax, bd = el.energy(nodes(c.c, c.th, 0, 0, 1))
		if math.Abs(ax) > 1e-20 || math.Abs(bd) > 1e-20 {
			t.Errorf("undeformed element %s: energies %g, %g (0)", c.name, ax, bd)
		}
	}
}
