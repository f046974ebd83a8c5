package contact

import "math"

// RegularisedCoulomb returns the regularised Coulomb friction force
//
//	ft = −μ·max(fn, 0)·tanh(vt/vEps)
//
// acting on the body whose slip velocity (relative to the other body) is
// vt, and dft/dvt. The tanh regularisation is smooth (C∞) and odd, reaches
// 76 % of μ·fn at |vt| = vEps and 99.5 % at 3·vEps, and has the finite
// viscous slope −μ·fn/vEps at vt = 0, which is what makes it usable inside an
// implicit (Newton) step; it cannot hold a body at rest on a slope (it
// creeps at a speed ~ vEps·atanh(ratio)). For vEps <= 0 the pure Coulomb law
// −μ·fn·sign(vt) (0 at vt = 0) is returned with derivative 0.
func RegularisedCoulomb(vt, fn, mu, vEps float64) (ft, dftdvt float64) {
	if fn <= 0 {
		return 0, 0
	}
	mf := mu * fn
	if vEps <= 0 {
		switch {
		case vt > 0:
			return -mf, 0
		case vt < 0:
			return mf, 0
		}
		return 0, 0
	}
	th := math.Tanh(vt / vEps)
	return -mf * th, -mf * (1 - th*th) / vEps
}

// StribeckMu returns the Stribeck friction coefficient
//
//	μ(vt) = muk + (mus − muk)·exp(−(vt/vs)²)
//
// (static coefficient mus at rest decaying to the kinetic coefficient muk
// over the Stribeck speed vs), and dμ/dvt. For vs <= 0 it returns muk and 0
// (the jump at vt = 0 is left to the stick–slip logic).
func StribeckMu(vt, mus, muk, vs float64) (mu, dmudvt float64) {
	if vs <= 0 {
		return muk, 0
	}
	r := vt / vs
	g := math.Exp(-r * r)
	return muk + (mus-muk)*g, (mus - muk) * g * (-2 * r / vs)
}
