// Package contact holds the pure mathematics of planar contact: compliant
// normal-force laws with their analytic partial derivatives (for Newton
// Jacobians), closed-form coefficients of restitution, planar contact
// geometry (circle/point against half-plane, segment and circle) with
// gradients of the penetration and of the normal direction, and regularised
// Coulomb/Stribeck friction.
//
// Everything is a pure function of its arguments: no state, no allocation,
// safe for concurrent use.
//
// Sign conventions: the penetration δ is positive when the bodies overlap
// (negative values are gaps); δ' = dδ/dt is positive while approaching. Normal
// forces are compressive magnitudes (>= 0, never adhesive).
package contact

import (
	"errors"
	"fmt"
	"math"
)

// LawKind selects the normal-force law of a NormalLaw.
type LawKind int

// Normal-force laws. In all of them F = 0 for δ <= 0 and the result is
// clamped by max(·, 0) so that damping never produces adhesion.
const (
	// LawLinear is the linear spring–damper (Kelvin–Voigt):
	// F = max(K δ + C δ', 0).
	LawLinear LawKind = iota
	// LawHertzExtended is the extended Hertz law of seed 003:
	// F = max(K δ^N + C δ δ', 0) (C in N·s/m², damping proportional to δ).
	LawHertzExtended
	// LawHysteresis is the velocity-independent Hunt–Crossley form
	// F = max(K δ^N (1 + C δ'), 0) with a fixed hysteresis factor C in s/m.
	// Its exact coefficient of restitution for impact speed v0 is
	// RestitutionHysteresis(C·v0); HysteresisDamping inverts it.
	LawHysteresis
	// LawHuntCrossley is F = K δ^N (1 + α δ') with Hunt & Crossley's (1975)
	// factor α = 3(1−E)/(2 V0): E the target restitution, V0 the impact speed.
	// Accurate for E near 1: the exact restitution is E + (1−E)² + O((1−E)³).
	LawHuntCrossley
	// LawLankaraniNikravesh is F = K δ^N (1 + α δ') with Lankarani &
	// Nikravesh's (1990) α = 3(1−E²)/(4 V0). Exact restitution
	// E + 1.5(1−E)² + O((1−E)³).
	LawLankaraniNikravesh
	// LawFlores is F = K δ^N (1 + α δ') with Flores et al.'s (2011)
	// α = 8(1−E)/(5 E V0), fitted for the whole range 0 < E <= 1: the exact
	// restitution is within 0.05 of E for 0.2 <= E <= 1 and E − (1−E)/15 +
	// O((1−E)²) near 1.
	LawFlores
)

// String returns the name of the law kind.
func (k LawKind) String() string {
	switch k {
	case LawLinear:
		return "linear"
	case LawHertzExtended:
		return "hertz-extended"
	case LawHysteresis:
		return "hysteresis"
	case LawHuntCrossley:
		return "hunt-crossley"
	case LawLankaraniNikravesh:
		return "lankarani-nikravesh"
	case LawFlores:
		return "flores"
	}
	return fmt.Sprintf("LawKind(%d)", int(k))
}

// NormalLaw is a compliant normal-force law. Which fields matter depends on
// Kind:
//
//	LawLinear:             K [N/m], C [N·s/m]
//	LawHertzExtended:      K [N/m^N], N, C [N·s/m²]
//	LawHysteresis:         K, N, C = α [s/m]
//	LawHuntCrossley,
//	LawLankaraniNikravesh,
//	LawFlores:             K, N, E (restitution), V0 (reference impact speed [m/s])
//
// For the three restitution-based kinds the hysteresis factor α depends on
// the impact speed V0; a contact element that wants the model's e at every
// impact sets V0 to the approach speed recorded at first touch. Call
// Validate once when the parameters are set; Force does not check them.
type NormalLaw struct {
	Kind           LawKind
	K, N, C, E, V0 float64
	// Dmax ramps the damping of LawLinear in over the penetrations
	// [0, Dmax] (a cubic step; 0: full damping at once).
	Dmax float64
}

// Validate reports whether the parameters are usable for the law's kind.
func (l NormalLaw) Validate() error {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("contact: %s law: %s", l.Kind, fmt.Sprintf(f, a...))
	}
	fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !fin(l.K) || l.K < 0 {
		return bad("stiffness K = %g must be finite and >= 0", l.K)
	}
	switch l.Kind {
	case LawLinear:
		if !fin(l.C) || l.C < 0 {
			return bad("damping C = %g must be finite and >= 0", l.C)
		}
		return nil
	case LawHertzExtended, LawHysteresis:
		if !fin(l.C) || l.C < 0 {
			return bad("damping C = %g must be finite and >= 0", l.C)
		}
	case LawHuntCrossley, LawLankaraniNikravesh, LawFlores:
		if !(l.E > 0 && l.E <= 1) {
			return bad("restitution E = %g must be in (0, 1]", l.E)
		}
		if !fin(l.V0) || !(l.V0 > 0) {
			return bad("reference impact speed V0 = %g must be finite and > 0", l.V0)
		}
	default:
		return ErrUnknownLaw
	}
	if !fin(l.N) || l.N < 1 {
		return bad("exponent N = %g must be finite and >= 1 (bounded stiffness dF/dδ)", l.N)
	}
	return nil
}

// ErrUnknownLaw is returned by Validate for an undefined LawKind.
var ErrUnknownLaw = errors.New("contact: unknown normal-force law kind")

// Alpha returns the hysteresis damping factor α [s/m] of the laws of the
// form F = K δ^N (1 + α δ') (LawHysteresis and the restitution-based kinds),
// and 0 for the other kinds.
func (l NormalLaw) Alpha() float64 {
	switch l.Kind {
	case LawHysteresis:
		return l.C
	case LawHuntCrossley:
		return 1.5 * (1 - l.E) / l.V0
	case LawLankaraniNikravesh:
		return 0.75 * (1 - l.E*l.E) / l.V0
	case LawFlores:
		return 1.6 * (1 - l.E) / (l.E * l.V0)
	}
	return 0
}

// Force returns the normal force f >= 0 for penetration delta and
// penetration rate deltaDot, with its partial derivatives. When the
// penetration is not positive, or the clamp max(·, 0) is active, f and both
// derivatives are zero (the one-sided derivative of the active branch).
func (l NormalLaw) Force(delta, deltaDot float64) (f, dfdDelta, dfdDeltaDot float64) {
	if delta <= 0 {
		return 0, 0, 0
	}
	f, dfdDelta, dfdDeltaDot = l.Smooth(delta, deltaDot)
	if f <= 0 {
		return 0, 0, 0
	}
	return f, dfdDelta, dfdDeltaDot
}

// Smooth returns the law's force without the clamp max(·, 0), its elastic
// part extended to δ < 0 as an odd function (k·sign(δ)|δ|^N), with its
// partial derivatives: a smooth function for integrators that locate the
// instants where the clamped force switches (event-located contact). For
// LawLinear, N (default 1) is the exponent of the elastic part and Dmax
// ramps the damping in.
func (l NormalLaw) Smooth(delta, deltaDot float64) (f, dfdDelta, dfdDeltaDot float64) {
	n := l.N
	if n == 0 && l.Kind == LawLinear {
		n = 1
	}
	p, dp := powAbs(delta, n)
	switch l.Kind {
	case LawLinear:
		s, ds := 1.0, 0.0
		if l.Dmax > 0 && delta < l.Dmax {
			u := math.Max(delta, 0) / l.Dmax
			s = u * u * (3 - 2*u)
			if delta > 0 {
				ds = 6 * u * (1 - u) / l.Dmax
			}
		}
		return l.K*p + l.C*s*deltaDot, l.K*dp + l.C*ds*deltaDot, l.C * s
	case LawHertzExtended:
		return l.K*p + l.C*delta*deltaDot, l.K*dp + l.C*deltaDot, l.C * delta
	}
	a := l.Alpha()
	g := 1 + a*deltaDot
	return l.K * p * g, l.K * dp * g, l.K * p * a
}

// powAbs returns sign(x)|x|^n and its derivative n|x|^(n−1).
func powAbs(x, n float64) (p, dp float64) {
	if x == 0 {
		if n == 1 {
			return 0, 1
		}
		return 0, 0
	}
	p, dp = powN(math.Abs(x), n)
	if x < 0 {
		p = -p
	}
	return p, dp
}

// powN returns x^n and its derivative n·x^(n−1) for x > 0, with fast paths
// for the common exponents 1 and 3/2.
func powN(x, n float64) (p, dp float64) {
	switch n {
	case 1:
		return x, 1
	case 1.5:
		s := math.Sqrt(x)
		return x * s, 1.5 * s
	case 2:
		return x * x, 2 * x
	}
	p = math.Pow(x, n)
	return p, n * p / x
}

// xlog1p returns x − ln(1+x) for x > −1, accurate also for small |x|.
func xlog1p(x float64) float64 {
	if math.Abs(x) < 0.1 {
		// Σ_{k>=2} (−1)^k x^k / k, 20 terms: truncation < 1e-19·x².
		s, xk := 0.0, x*x
		for k := 2; k <= 21; k++ {
			if k%2 == 0 {
				s += xk / float64(k)
			} else {
				s -= xk / float64(k)
			}
			xk *= x
		}
		return s
	}
	return x - math.Log1p(x)
}

// RestitutionHysteresis returns the exact coefficient of restitution of a
// single impact governed by m δ” = −K δ^n (1 + α δ') with impact speed v0,
// as a function of the dimensionless damping x = α·v0 >= 0. It depends on
// neither m, K nor n: integrating m v dv/(1 + α v) = −K δ^n dδ from entry to
// exit (δ = 0 at both) gives, with y = α·v_exit (the force stays positive
// because y > −1),
//
//	y − ln(1 + y) = x − ln(1 + x),   −1 < y <= 0,   e = −y/x.
//
// For small x, e = 1 − 2x/3 + 4x²/9 + O(x³); for large x, e ≈ 1/x.
// Returns NaN for x < 0 or NaN.
func RestitutionHysteresis(x float64) float64 {
	if !(x >= 0) {
		return math.NaN()
	}
	if x == 0 {
		return 1
	}
	if math.IsInf(x, 1) {
		return 0
	}
	c := xlog1p(x)
	// Solve φ(s) = −s − ln(1 − s) = c for s = −y ∈ (0, 1): φ is increasing
	// and convex, φ' = s/(1−s). Safeguarded Newton in the bracket [lo, hi].
	lo, hi := 0.0, 1.0
	s := x * (1 - x*(2.0/3) + x*x*(4.0/9)) // series guess (good for small x)
	if !(s > 0 && s < 1) {
		s = 1 - math.Exp(-1-c) // large-x asymptote of 1 − s = exp(−1 − c + (1 − s))
	}
	for it := 0; it < 200; it++ {
		f := xlog1p(-s) - c
		if f > 0 {
			hi = s
		} else {
			lo = s
		}
		next := s - f*(1-s)/s
		if !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		}
		if math.Abs(next-s) <= 1e-16*s || hi-lo <= 1e-16*hi {
			s = next
			break
		}
		s = next
	}
	return s / x
}

// HysteresisDamping returns the dimensionless damping x = α·v0 for which the
// law F = K δ^n (1 + α δ') has exact coefficient of restitution e at impact
// speed v0 (the inverse of RestitutionHysteresis); set α = x / v0. It returns
// 0 for e = 1 and NaN for e outside (0, 1].
func HysteresisDamping(e float64) float64 {
	if !(e > 0 && e <= 1) {
		return math.NaN()
	}
	if e == 1 {
		return 0
	}
	// RestitutionHysteresis decreases from 1 (x = 0) and is below 1/x, so
	// the root lies in (0, 1/e). Bisection on the monotone function.
	lo, hi := 0.0, 1/e
	for it := 0; it < 200 && hi-lo > 1e-15*hi; it++ {
		mid := 0.5 * (lo + hi)
		if RestitutionHysteresis(mid) > e {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// RestitutionLinear returns the exact coefficient of restitution of a mass m
// hitting a linear spring–damper F = max(k δ + c δ', 0) (LawLinear), which
// is independent of the impact speed. With ω = √(k/m) and ζ = c/(2 m ω),
// separation happens when the force vanishes (before δ returns to 0):
//
//	ζ < 1:  e = exp(−ζ (π − ψ)/√(1−ζ²)),  ψ = atan2(2ζ√(1−ζ²), 1 − 2ζ²)
//	ζ = 1:  e = exp(−2)
//	ζ > 1:  e = exp(−ζ θ/β) (ζ sinh θ/β − cosh θ),  β = √(ζ²−1),
//	        θ = atanh(2ζβ/(2ζ²−1))
//
// (the same result as Schwager & Pöschel 2007). Returns NaN unless k > 0,
// c >= 0, m > 0.
func RestitutionLinear(k, c, m float64) float64 {
	if !(k > 0 && c >= 0 && m > 0) || math.IsInf(k, 0) || math.IsInf(c, 0) || math.IsInf(m, 0) {
		return math.NaN()
	}
	z := c / (2 * math.Sqrt(k*m))
	switch {
	case z < 1:
		r := math.Sqrt(1 - z*z)
		psi := math.Atan2(2*z*r, 1-2*z*z)
		return math.Exp(-z * (math.Pi - psi) / r)
	case z == 1:
		return math.Exp(-2)
	default:
		b := math.Sqrt(z*z - 1)
		th := math.Atanh(2 * z * b / (2*z*z - 1))
		return math.Exp(-z*th/b) * (z*math.Sinh(th)/b - math.Cosh(th))
	}
}
