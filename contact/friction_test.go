package contact

import (
	"math"
	"testing"
)

func TestRegularisedCoulomb(t *testing.T) {
	mu, fn, eps := 0.48, 120.0, 1e-3
	// Far from zero: full Coulomb force opposing the slip.
	if ft, _ := RegularisedCoulomb(0.1, fn, mu, eps); math.Abs(ft+mu*fn) > 1e-12 {
		t.Errorf("saturation: %g", ft)
	}
	// tanh(1) = 0.76159..., slope at 0 = −μ fn/ε.
	if ft, _ := RegularisedCoulomb(eps, fn, mu, eps); math.Abs(ft+mu*fn*0.7615941559557649) > 1e-12 {
		t.Errorf("at vEps: %g", ft)
	}
	if ft, d := RegularisedCoulomb(0, fn, mu, eps); ft != 0 || math.Abs(d+mu*fn/eps) > 1e-9 {
		t.Errorf("at 0: %g %g", ft, d)
	}
	for _, v := range []float64{-3e-3, -1e-4, 2e-4, 1e-3, 5e-3} {
		f1, d := RegularisedCoulomb(v, fn, mu, eps)
		f2, _ := RegularisedCoulomb(-v, fn, mu, eps)
		fp, _ := RegularisedCoulomb(v+1e-8, fn, mu, eps)
		fm, _ := RegularisedCoulomb(v-1e-8, fn, mu, eps)
		if f1 != -f2 || math.Abs((fp-fm)/2e-8-d) > 1e-6*math.Abs(d)+1e-4 || math.Abs(f1) > mu*fn {
			t.Errorf("v=%g: odd/FD/bound failed (%g, %g, FD %g)", v, f1, d, (fp-fm)/2e-8)
		}
	}
	if ft, d := RegularisedCoulomb(0.1, -5, mu, eps); ft != 0 || d != 0 {
		t.Error("tensile normal force must give no friction")
	}
	if ft, _ := RegularisedCoulomb(-1e-9, fn, mu, 0); ft != mu*fn {
		t.Error("pure Coulomb")
	}
}

func TestStribeckMu(t *testing.T) {
	mus, muk, vs := 0.6, 0.48, 0.01
	if m, d := StribeckMu(0, mus, muk, vs); m != mus || d != 0 {
		t.Errorf("at rest: %g %g", m, d)
	}
	if m, _ := StribeckMu(vs, mus, muk, vs); math.Abs(m-(muk+(mus-muk)/math.E)) > 1e-15 {
		t.Errorf("at vs: %g", m)
	}
	if m, _ := StribeckMu(-1, mus, muk, vs); math.Abs(m-muk) > 1e-15 {
		t.Errorf("fast: %g", m)
	}
	for _, v := range []float64{-0.02, 0.003, 0.015} {
		_, d := StribeckMu(v, mus, muk, vs)
		mp, _ := StribeckMu(v+1e-8, mus, muk, vs)
		mm, _ := StribeckMu(v-1e-8, mus, muk, vs)
		if math.Abs((mp-mm)/2e-8-d) > 1e-6 {
			t.Errorf("v=%g: dμ %g FD %g", v, d, (mp-mm)/2e-8)
		}
	}
	if m, d := StribeckMu(0, mus, muk, 0); m != muk || d != 0 {
		t.Error("vs <= 0")
	}
}
