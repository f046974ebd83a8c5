package flex

import (
	"math"
	"mbfmu/solver/mech"
)

// Exact-curvature bending (curvature="exact") and engineering axial strain
// (axial-strain="engineering") of the planar ANCF beam.
//
// The default element (ancf.go) takes the bending strain as |r_xx|, which
// is the curvature only while the axis is unstretched (|r_x| = 1). With
// r_x = λ t(θ) (stretch λ, tangent angle θ) one has r_xx = λ_x t + λ θ_x n,
// so |r_xx|² = λ² θ_x² + λ_x²: a stretched rod is stiffer in bending by λ²
// and its stretch gradient costs bending energy. The exact option uses
// instead the material measure of curvature of the ANCF cable element
// (Gerstmayr & Irschik 2008; Gerstmayr, Sugiyama & Mikkola 2013; the
// ObjectANCFCable2D element of Exudyn)
//
//	κ = (r_x × r_xx) / (r_x · r_x) = θ_x,
//
// the rotation of the cross-section per unit reference length: the bending
// strain of Reissner's geometrically exact, shear-rigid rod, conjugate to
// the bending moment M = EI κ. (The geometric curvature of the deformed
// axis, per deformed arc length, is (r_x × r_xx)/|r_x|³ = κ/λ; the energy
// ½ EI ∫ κ² dx is per reference length, so the material measure is the
// one whose pure-moment solution is the circle κ = M/EI for any EA.) The
// bending energy
//
//	U_b = ½ EI ∫ κ² dx
//
// is integrated by an n-point Gauss rule per element (the integrand is
// rational; n = 5 by default, converged to round-off against n = 9 in
// TestANCFExactQuadrature). Its gradient and Hessian are exact: with
// a = r_x, b = r_xx, g = a·a, f = a × b, S b = (b_y, −b_x),
//
//	∂κ/∂a = α = (S b − 2κ a)/g,        ∂κ/∂b = γ = (−a_y, a_x)/g,
//	∂²κ/∂a² = −2(κ I + α aᵀ + a αᵀ)/g, ∂²κ/∂a∂b = (S − 2 a γᵀ)/g,  ∂²κ/∂b² = 0,
//
// and a = Σ s_k' e_k, b = Σ s_k” e_k map them to the nodal vectors.
//
// The axial energy of the default element uses the Green strain
// ε = ½(|r_x|² − 1) (precomputed tensors, ancf.go). The engineering strain
// ε = |r_x| − 1 of the same cable element (Exudyn's ObjectANCFCable2D) is
// a different material law: for the same stretch λ its
// normal force EA(λ − 1) is smaller than the Green one EA ½(λ² − 1) λ by
// a factor 2/(λ(λ + 1)), 15 % at λ = 1.1. Its energy ½ EA ∫ ε² dx uses the
// same Gauss points as the exact curvature, with t = a/|a|:
//
//	∂ε/∂a = t,   ∂²ε/∂a² = (I − t tᵀ)/|a|.
//
// Kelvin–Voigt damping acts as in the default element, through the rates
// of the measures in use: the moment is EI (κ + β κ̇), κ̇ = ∂κ/∂e · ė, the
// normal force EA (ε + β ε̇), so the dissipation β (EI κ̇² + EA ε̇²) ≥ 0.

// ancfExactGauss is the number of Gauss points per element of the exact
// curvature and engineering strain energies (see TestANCFExactQuadrature).
const ancfExactGauss = 5

// ancfMaxGauss bounds the number of Gauss points of the exact terms.
const ancfMaxGauss = 12

// ancfExact is the quadrature of the exact terms, shared by the
// elements of a beam: weights (times l/2) and the first and second
// derivatives of the Hermite functions at the points.
type ancfExact struct {
	n    int
	curv bool // bending from the material curvature
	eng  bool // axial energy from the engineering strain |r_x| − 1
	w    [ancfMaxGauss]float64
	d    [ancfMaxGauss][4]float64
	dd   [ancfMaxGauss][4]float64
}

// gaussLegendre returns the n-point Gauss–Legendre rule on [−1, 1]
// (Newton iteration on the Legendre polynomial from the Chebyshev guess).
func gaussLegendre(n int) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for i := 0; i < (n+1)/2; i++ {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for it := 0; it < 100; it++ {
			p0, p1 := 1.0, z
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*z*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (z*p1 - p0) / (z*z - 1)
			dz := p1 / dp
			z -= dz
			if math.Abs(dz) < 1e-16 {
				break
			}
		}
		x[i], x[n-1-i] = -z, z
		w[i] = 2 / ((1 - z*z) * dp * dp)
		w[n-1-i] = w[i]
	}
	return
}

// newANCFExact tabulates the n-point rule on an element of length l for
// the exact curvature (curv) and/or the engineering axial strain (eng).
func newANCFExact(l float64, n int, curv, eng bool) *ancfExact {
	n = min(max(n, 1), ancfMaxGauss)
	q := &ancfExact{n: n, curv: curv, eng: eng}
	xg, wg := gaussLegendre(n)
	for g := range xg {
		_, d, dd := hermite(0.5*(xg[g]+1), l)
		q.w[g], q.d[g], q.dd[g] = 0.5*l*wg[g], d, dd
	}
	return q
}

// exactCurv returns r_x, r_xx and κ at Gauss point g.
func (q *ancfExact) exactCurv(g int, ev *[4][2]float64) (a, b [2]float64, kap, gg float64) {
	d, dd := &q.d[g], &q.dd[g]
	for k := 0; k < 4; k++ {
		a[0] += d[k] * ev[k][0]
		a[1] += d[k] * ev[k][1]
		b[0] += dd[k] * ev[k][0]
		b[1] += dd[k] * ev[k][1]
	}
	gg = a[0]*a[0] + a[1]*a[1]
	kap = (a[0]*b[1] - a[1]*b[0]) / gg
	return
}

// energies returns ½ EI ∫ κ² dx and ½ EA ∫ (|r_x| − 1)² dx over the
// element.
func (q *ancfExact) energies(ei, ea float64, ev *[4][2]float64) (bending, axial float64) {
	for g := 0; g < q.n; g++ {
		_, _, kap, gg := q.exactCurv(g, ev)
		eps := math.Sqrt(gg) - 1
		bending += q.w[g] * kap * kap
		axial += q.w[g] * eps * eps
	}
	return 0.5 * ei * bending, 0.5 * ea * axial
}

// exactForces adds the element's exact-curvature bending force and/or
// engineering-strain axial force to f and, when k is not nil, their
// Jacobians K = −∂Q/∂e and C = −∂Q/∂ė. It allocates nothing.
func (e *ancfElem) exactForces(x *mech.Ctx, ev *[4][2]float64, f, k, c []float64) {
	q := e.b.exact
	beta := e.b.beta
	var ed [4][2]float64
	if beta > 0 {
		ed = e.nodal(x.V)
	}
	var fl [8]float64
	var kl, cl [64]float64 // K and C; without damping only the blocks k ≤ m of K
	tan := k != nil
	for g := 0; g < q.n; g++ {
		a, bb, kap, gg := q.exactCurv(g, ev)
		var ad, bd [2]float64 // ȧ, ḃ
		if beta > 0 {
			d, dd := &q.d[g], &q.dd[g]
			for m := 0; m < 4; m++ {
				ad[0] += d[m] * ed[m][0]
				ad[1] += d[m] * ed[m][1]
				bd[0] += dd[m] * ed[m][0]
				bd[1] += dd[m] * ed[m][1]
			}
		}
		if q.curv {
			e.bendPoint(g, a, bb, ad, bd, kap, gg, &fl, &kl, &cl, tan)
		}
		if q.eng {
			e.axialPoint(g, a, ad, gg, &fl, &kl, &cl, tan)
		}
	}
	f = f[:8:8]
	for i := range fl {
		f[i] += fl[i]
	}
	if !tan {
		return
	}
	if beta == 0 {
		// symmetric: mirror the blocks k < m
		for kk := 0; kk < 4; kk++ {
			for m := kk + 1; m < 4; m++ {
				for i := 0; i < 2; i++ {
					for j := 0; j < 2; j++ {
						kl[(2*m+j)*8+2*kk+i] = kl[(2*kk+i)*8+2*m+j]
					}
				}
			}
		}
	}
	k = k[:64:64]
	for i := range kl {
		k[i] += kl[i]
	}
	if beta > 0 {
		c = c[:64:64]
		for i := range cl {
			c[i] += cl[i]
		}
	}
}

// bendPoint adds the exact bending terms of Gauss point g: r_x = a,
// r_xx = b, their rates ad, bd, κ and g = a·a.
func (e *ancfElem) bendPoint(g int, a, bb, ad, bd [2]float64, kap, gg float64, f *[8]float64, k, c *[64]float64, tan bool) {
	b := e.b
	q := b.exact
	beta := b.beta
	d, dd := &q.d[g], &q.dd[g]
	ig := 1 / gg
	al := [2]float64{(bb[1] - 2*kap*a[0]) * ig, (-bb[0] - 2*kap*a[1]) * ig}
	ga := [2]float64{-a[1] * ig, a[0] * ig}
	kd := 0.0 // κ̇
	if beta > 0 {
		kd = al[0]*ad[0] + al[1]*ad[1] + ga[0]*bd[0] + ga[1]*bd[1]
	}
	wei := q.w[g] * b.ei
	sm := wei * (kap + beta*kd) // moment × weight
	for m := 0; m < 4; m++ {
		f[2*m] -= sm * (d[m]*al[0] + dd[m]*ga[0])
		f[2*m+1] -= sm * (d[m]*al[1] + dd[m]*ga[1])
	}
	if !tan {
		return
	}
	// Hessian of κ in (a, b): haa (symmetric), hab; hbb = 0
	haa := [4]float64{
		-2 * (kap + 2*al[0]*a[0]) * ig, -2 * (al[0]*a[1] + a[0]*al[1]) * ig,
		-2 * (al[1]*a[0] + a[1]*al[0]) * ig, -2 * (kap + 2*al[1]*a[1]) * ig,
	}
	hab := [4]float64{
		-2 * a[0] * ga[0] * ig, (1 - 2*a[0]*ga[1]) * ig,
		(-1 - 2*a[1]*ga[0]) * ig, -2 * a[1] * ga[1] * ig,
	}
	// X_pq: the 2×2 blocks multiplying φ_p(k) φ_q(m), p, q ∈ {s', s”}
	var x11, x12, x21, x22 [4]float64
	s := kap + beta*kd
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			x11[2*i+j] = al[i]*al[j] + s*haa[2*i+j]
			x12[2*i+j] = al[i]*ga[j] + s*hab[2*i+j]
			x21[2*i+j] = ga[i]*al[j] + s*hab[2*j+i]
			x22[2*i+j] = ga[i] * ga[j]
		}
	}
	if beta > 0 {
		// β ∂κ (∂²κ ė)ᵀ: ∂²κ ė = s' pa + s” pb per node
		pa := [2]float64{
			haa[0]*ad[0] + haa[1]*ad[1] + hab[0]*bd[0] + hab[1]*bd[1],
			haa[2]*ad[0] + haa[3]*ad[1] + hab[2]*bd[0] + hab[3]*bd[1],
		}
		pb := [2]float64{hab[0]*ad[0] + hab[2]*ad[1], hab[1]*ad[0] + hab[3]*ad[1]}
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				x11[2*i+j] += beta * al[i] * pa[j]
				x12[2*i+j] += beta * al[i] * pb[j]
				x21[2*i+j] += beta * ga[i] * pa[j]
				x22[2*i+j] += beta * ga[i] * pb[j]
			}
		}
	}
	m0 := 0
	for kk := 0; kk < 4; kk++ {
		if beta == 0 {
			m0 = kk // symmetric: the blocks k ≤ m (exactForces mirrors them)
		}
		for m := m0; m < 4; m++ {
			c11, c12, c21, c22 := wei*d[kk]*d[m], wei*d[kk]*dd[m], wei*dd[kk]*d[m], wei*dd[kk]*dd[m]
			r0, c0 := 2*kk, 2*m
			for i := 0; i < 2; i++ {
				for j := 0; j < 2; j++ {
					ij := 2*i + j
					k[(r0+i)*8+c0+j] += c11*x11[ij] + c12*x12[ij] + c21*x21[ij] + c22*x22[ij]
				}
			}
			if beta > 0 {
				// C = β EI ∂κ ∂κᵀ
				gk := [2]float64{d[kk]*al[0] + dd[kk]*ga[0], d[kk]*al[1] + dd[kk]*ga[1]}
				gm := [2]float64{d[m]*al[0] + dd[m]*ga[0], d[m]*al[1] + dd[m]*ga[1]}
				bw := beta * wei
				c[r0*8+c0] += bw * gk[0] * gm[0]
				c[r0*8+c0+1] += bw * gk[0] * gm[1]
				c[(r0+1)*8+c0] += bw * gk[1] * gm[0]
				c[(r0+1)*8+c0+1] += bw * gk[1] * gm[1]
			}
		}
	}
}

// axialPoint adds the engineering-strain axial terms of Gauss point g:
// ε = λ − 1, λ = |a|, t = a/λ, normal force N = EA (ε + β ε̇), ε̇ = t·ȧ;
// Q = −N t s', K_aa = EA (t tᵀ + β t ((I − t tᵀ) ȧ/λ)ᵀ) + N (I − t tᵀ)/λ,
// C_aa = β EA t tᵀ.
func (e *ancfElem) axialPoint(g int, a, ad [2]float64, gg float64, f *[8]float64, k, c *[64]float64, tan bool) {
	b := e.b
	q := b.exact
	beta := b.beta
	d := &q.d[g]
	lam := math.Sqrt(gg)
	t := [2]float64{a[0] / lam, a[1] / lam}
	epsd := t[0]*ad[0] + t[1]*ad[1]
	wea := q.w[g] * b.ea
	nf := wea * (lam - 1 + beta*epsd) // N × weight
	for m := 0; m < 4; m++ {
		f[2*m] -= nf * d[m] * t[0]
		f[2*m+1] -= nf * d[m] * t[1]
	}
	if !tan {
		return
	}
	il := nf / lam
	h := [4]float64{wea*t[0]*t[0] + il*(1-t[0]*t[0]), (wea - il) * t[0] * t[1], (wea - il) * t[0] * t[1], wea*t[1]*t[1] + il*(1-t[1]*t[1])}
	if beta > 0 {
		// (I − t tᵀ) ȧ/λ
		p := [2]float64{(ad[0] - epsd*t[0]) / lam, (ad[1] - epsd*t[1]) / lam}
		bw := beta * wea
		h[0] += bw * t[0] * p[0]
		h[1] += bw * t[0] * p[1]
		h[2] += bw * t[1] * p[0]
		h[3] += bw * t[1] * p[1]
	}
	m0 := 0
	for kk := 0; kk < 4; kk++ {
		if beta == 0 {
			m0 = kk
		}
		for m := m0; m < 4; m++ {
			dkm := d[kk] * d[m]
			r0, c0 := 2*kk, 2*m
			k[r0*8+c0] += dkm * h[0]
			k[r0*8+c0+1] += dkm * h[1]
			k[(r0+1)*8+c0] += dkm * h[2]
			k[(r0+1)*8+c0+1] += dkm * h[3]
			if beta > 0 {
				bw := beta * wea * dkm
				c[r0*8+c0] += bw * t[0] * t[0]
				c[r0*8+c0+1] += bw * t[0] * t[1]
				c[(r0+1)*8+c0] += bw * t[1] * t[0]
				c[(r0+1)*8+c0+1] += bw * t[1] * t[1]
			}
		}
	}
}
