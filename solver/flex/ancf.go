package flex

import (
	"math"
	"mbfmu/solver/mech"
)

// Planar gradient-deficient ANCF Euler–Bernoulli beam element (Omar &
// Shabana 2001; Berzeri & Shabana 2000; seed 004).
//
// An element of length l has the nodal coordinates
//
//	e = [r(0), r_x(0), r(l), r_x(l)] ∈ R⁸,   r(x) = S(x) e = Σ_k s_k(x) e_k,
//
// with the cubic Hermite functions s_1 = 1 − 3ξ² + 2ξ³, s_2 = l(ξ − 2ξ² + ξ³),
// s_3 = 3ξ² − 2ξ³, s_4 = l(ξ³ − ξ²), ξ = x/l (e_k ∈ R² are the four nodal
// vectors). The mass matrix M = ρA ∫ SᵀS dx is constant. The strain energy
//
//	U = ½ ∫ EA ε² dx + ½ ∫ EI r_xxᵀ r_xx dx,   ε = ½ (r_xᵀ r_x − 1),
//
// uses the small-axial-strain curvature κ ≈ |r_xx|, so the bending stiffness
// K_t = EI ∫ S_xxᵀ S_xx dx is constant (the default, curvature="small-strain";
// curvature="exact" replaces the bending part by the material curvature
// κ = (r_x × r_xx)/|r_x|², axial-strain="engineering" the axial part by
// the energy of ε = |r_x| − 1, see ancf_exact.go). The axial force is
//
//	Q_l,k = −EA Σ_l K̃_kl e_l,   K̃_kl = ∫ ε s_k' s_l' dx = ½ Σ_mn T_klmn (e_m·e_n) − ½ D_kl,
//
// with the constant tensors T_klmn = ∫ s_k' s_l' s_m' s_n' dx and
// D_kl = ∫ s_k' s_l' dx, integrated exactly (five-point Gauss) once per beam:
// the axial stiffness update at each evaluation is a few hundred flops and
// no quadrature (the "cheap axial stiffness update" of seed 004). The
// analytic tangent is
//
//	∂(−Q_l)_{k,i}/∂e_{p,j} = EA (K̃_kp δ_ij + Σ_l e_{l,i} a_{kpl,j}),   a_{kpl} = Σ_n T_klpn e_n.
//
// Material (Kelvin–Voigt) damping with coefficient β adds the stresses
// βE ε̇ and βE κ̇: Q_d = −β (EA Σ_l D'_kl e_l + K_t ė), D'_kl = Σ_mn T_klmn (e_m·ė_n).

// gauss5 returns the five-point Gauss–Legendre rule on [−1, 1] (exact for
// polynomials up to degree 9).
func gauss5() (x, w [5]float64) {
	const (
		x1 = 0.5384693101056831
		x2 = 0.9061798459386640
		w0 = 0.5688888888888889
		w1 = 0.4786286704993665
		w2 = 0.2369268850561891
	)
	return [5]float64{-x2, -x1, 0, x1, x2}, [5]float64{w2, w1, w0, w1, w2}
}

// hermite returns the cubic Hermite functions and their first and second
// derivatives with respect to x at ξ = x/l.
func hermite(xi, l float64) (s, d, dd [4]float64) {
	x2, x3 := xi*xi, xi*xi*xi
	s = [4]float64{1 - 3*x2 + 2*x3, l * (xi - 2*x2 + x3), 3*x2 - 2*x3, l * (x3 - x2)}
	d = [4]float64{(-6*xi + 6*x2) / l, 1 - 4*xi + 3*x2, (6*xi - 6*x2) / l, 3*x2 - 2*xi}
	dd = [4]float64{(-6 + 12*xi) / (l * l), (-4 + 6*xi) / l, (6 - 12*xi) / (l * l), (6*xi - 2) / l}
	return
}

// ancfConst holds the integrals of one element length, shared by all the
// elements of a beam.
type ancfConst struct {
	l    float64
	m4   [16]float64 // ∫ s_k s_l dx
	kb4  [16]float64 // ∫ s_k'' s_l'' dx
	d10  [10]float64 // ∫ s_k' s_l' dx, per pair (k ≤ l)
	d4   [16]float64 // the same, full
	gv   [4]float64  // ∫ s_k dx
	t3   [20][4]float64
	tt   [10][10]float64 // T as pairs × pairs: (k,l) × (m,n), doubled for m ≠ n
	pair [10][2]uint8    // the pairs k ≤ l
	pm   [10][4]uint8    // triple index of (pair, m)
}

// slopeLength is the length by which an ANCF node's slope coordinate
// becomes a displacement (mech.Builder.SetLength): the largest
// displacement of the axis that a unit change of the slope causes in an
// element of length l, the Hermite shape function's maximum 4l/27 (at a
// third of the element). Without it Newton held slopes to a tolerance
// 27/(4l) times tighter than positions (1000 times on the 160-element
// cable): their first increments were the largest, and a step took 4.3
// iterations where 3.7 give the same motion to 3e-9 m.
func slopeLength(l float64) float64 { return 4 * l / 27 }

// newANCFConst integrates the element matrices and the axial tensor.
func newANCFConst(l float64) *ancfConst {
	c := &ancfConst{l: l}
	var t4 [256]float64
	xg, wg := gauss5()
	for g := range xg {
		xi := 0.5 * (xg[g] + 1)
		w := 0.5 * l * wg[g]
		s, d, dd := hermite(xi, l)
		for k := 0; k < 4; k++ {
			c.gv[k] += w * s[k]
			for m := 0; m < 4; m++ {
				c.m4[4*k+m] += w * s[k] * s[m]
				c.kb4[4*k+m] += w * dd[k] * dd[m]
				c.d4[4*k+m] += w * d[k] * d[m]
				for n := 0; n < 4; n++ {
					for p := 0; p < 4; p++ {
						t4[((4*k+m)*4+n)*4+p] += w * d[k] * d[m] * d[n] * d[p]
					}
				}
			}
		}
	}
	// unique triples k ≤ l ≤ m and their index
	var idx [64]uint8
	nt := 0
	for k := 0; k < 4; k++ {
		for l := k; l < 4; l++ {
			for m := l; m < 4; m++ {
				for n := 0; n < 4; n++ {
					c.t3[nt][n] = t4[((4*k+l)*4+m)*4+n]
				}
				for _, p := range [6][3]int{{k, l, m}, {k, m, l}, {l, k, m}, {l, m, k}, {m, k, l}, {m, l, k}} {
					idx[16*p[0]+4*p[1]+p[2]] = uint8(nt)
				}
				nt++
			}
		}
	}
	np := 0
	for k := 0; k < 4; k++ {
		for l := k; l < 4; l++ {
			c.pair[np] = [2]uint8{uint8(k), uint8(l)}
			c.d10[np] = c.d4[4*k+l]
			for m := 0; m < 4; m++ {
				c.pm[np][m] = idx[16*k+4*l+m]
			}
			np++
		}
	}
	for p, pk := range c.pair {
		for r, pr := range c.pair {
			v := t4[((4*int(pk[0])+int(pk[1]))*4+int(pr[0]))*4+int(pr[1])]
			if pr[0] != pr[1] {
				v *= 2
			}
			c.tt[p][r] = v
		}
	}
	return c
}

// elasticWeights returns, from the Gram products g = e_k·e_l of an
// element's nodal vectors, K̃ per pair (K̃ = ½(Σ T G − D)) and the 4×4
// weights w = EA K̃ + EI K_t of its elastic force −(w ⊗ I) e (pairs in the
// order 00 01 02 03 11 12 13 22 23 33).
func (c *ancfConst) elasticWeights(g *[10]float64, ea, ei float64) (kt [10]float64, w [16]float64) {
	kt = c.pairSum(g)
	for p := range kt {
		kt[p] = 0.5 * (kt[p] - c.d10[p])
	}
	w = [16]float64{
		kt[0], kt[1], kt[2], kt[3],
		kt[1], kt[4], kt[5], kt[6],
		kt[2], kt[5], kt[7], kt[8],
		kt[3], kt[6], kt[8], kt[9],
	}
	kb := &c.kb4
	for i := range w {
		w[i] = ea*w[i] + ei*kb[i]
	}
	return kt, w
}

// pairMatrix returns the symmetric 4×4 matrix of s·v, v given per pair.
func (c *ancfConst) pairMatrix(v *[10]float64, s float64) (m [16]float64) {
	for p, pr := range c.pair {
		i, j := int(pr[0]), int(pr[1])
		x := s * v[p]
		m[4*i+j], m[4*j+i] = x, x
	}
	return m
}

// gram returns the pair products e_k·f_l (symmetrized: ½(e_k·f_l + e_l·f_k)),
// pairs in the order 00 01 02 03 11 12 13 22 23 33, of nodal vectors
// relative to the first node (relative2: e_0 = f_0 = 0, so the pairs 0l
// are zero).
func (c *ancfConst) gram(ev, fv *[4][2]float64) (g [10]float64) {
	if ev == fv {
		d := func(i, j int) float64 { return ev[i][0]*ev[j][0] + ev[i][1]*ev[j][1] }
		return [10]float64{4: d(1, 1), 5: d(1, 2), 6: d(1, 3), 7: d(2, 2), 8: d(2, 3), 9: d(3, 3)}
	}
	d := func(i, j int) float64 {
		return 0.5 * (ev[i][0]*fv[j][0] + ev[i][1]*fv[j][1] + ev[j][0]*fv[i][0] + ev[j][1]*fv[i][1])
	}
	return [10]float64{4: d(1, 1), 5: d(1, 2), 6: d(1, 3), 7: d(2, 2), 8: d(2, 3), 9: d(3, 3)}
}

// pairSum returns Σ_q tt[p][q] g[q] for every pair p: Σ_mn T_klmn G_mn,
// for the products g of nodal vectors taken relative to the first node
// (relative2, relative3: e_0 = 0), whose pairs 00, 01, 02, 03 are zero and
// skipped (the sums are those of all ten terms bit for bit, up to the sign
// of a zero).
func (c *ancfConst) pairSum(g *[10]float64) (out [10]float64) {
	for p := range out {
		r := &c.tt[p]
		out[p] = r[4]*g[4] + (r[5]*g[5] + r[6]*g[6] + r[7]*g[7] + r[8]*g[8] + r[9]*g[9])
	}
	return
}

// ancfBeam is a compiled ANCF beam: nodes 0..ne, node k has the
// coordinates base+4k .. base+4k+3 = (x, y, ∂x/∂s, ∂y/∂s).
type ancfBeam struct {
	name   string
	ne     int
	length float64
	base   int
	qbase  int // spatial cables: the first position coordinate (base is the first velocity)
	ea, ei float64
	rhoA   float64
	beta   float64 // Kelvin–Voigt damping time, s
	k      *ancfConst
	exact  *ancfExact // exact curvature and/or engineering strain (ancf_exact.go); nil: the seed's element
	// adaptive is the reduction data of reduction="adaptive" (seed 004's
	// adaptive modal selection, modalselect.go); nil: none
	adaptive *mech.AdaptiveBasis
	markers  []flexMarker
}

// node returns the first coordinate of node k.
func (b *ancfBeam) node(k int) int { return b.base + 4*k }

// locate returns the element containing arc length s and ξ = local x / l.
func (b *ancfBeam) locate(s float64) (el int, xi float64) {
	l := b.k.l
	el = int(math.Floor(s / l))
	el = min(max(el, 0), b.ne-1)
	xi = (s - float64(el)*l) / l
	return
}

// ancfElem is one element of an ANCF beam, a force element over the 8
// coordinates of its two nodes (contiguous).
type ancfElem struct {
	b *ancfBeam
	d [8]int
}

func (e *ancfElem) Dofs() []int { return e.d[:] }

// nodal gathers the element's nodal vectors.
func (e *ancfElem) nodal(q []float64) (ev [4][2]float64) {
	o := e.d[0]
	q = q[o : o+8 : o+8]
	for i := 0; i < 4; i++ {
		ev[i][0], ev[i][1] = q[2*i], q[2*i+1]
	}
	return
}

// relative2 takes the nodal positions (vectors 0 and 2) relative to the
// first node's, as relative3 does for the spatial cable.
func relative2(ev *[4][2]float64) {
	for i := 0; i < 2; i++ {
		ev[2][i] -= ev[0][i]
		ev[0][i] = 0
	}
}

// triples returns a_t = Σ_n T_t,n e_n for the 20 index triples.
func (c *ancfConst) triples(ev *[4][2]float64, a *[20][2]float64) {
	for t := range a {
		tt := &c.t3[t]
		a[t][0] = tt[0]*ev[0][0] + tt[1]*ev[1][0] + tt[2]*ev[2][0] + tt[3]*ev[3][0]
		a[t][1] = tt[0]*ev[0][1] + tt[1]*ev[1][1] + tt[2]*ev[2][1] + tt[3]*ev[3][1]
	}
}

// contract returns, per pair (k, l), Σ_m e_m·a_(k,l,m).
func (c *ancfConst) contract(ev *[4][2]float64, a *[20][2]float64, out *[10]float64) {
	for p := range out {
		pm := &c.pm[p]
		s := 0.0
		for m := 0; m < 4; m++ {
			am := &a[pm[m]]
			s += ev[m][0]*am[0] + ev[m][1]*am[1]
		}
		out[p] = s
	}
}

func (e *ancfElem) Eval(x *mech.Ctx, f, k, c []float64) {
	b := e.b
	cs := b.k
	ev := e.nodal(x.Q)
	ea, ei := b.ea, b.ei
	if q := b.exact; q != nil {
		e.exactForces(x, &ev, f, k, c)
		if q.curv && q.eng {
			return // nothing left below
		}
		// the terms below that these replace
		if q.curv {
			ei = 0
		}
		if q.eng {
			ea = 0
		}
	}
	relative2(&ev)
	g := cs.gram(&ev, &ev)
	kt, w := cs.elasticWeights(&g, ea, ei)
	for kk := 0; kk < 4; kk++ {
		// (the terms of e_0 = 0 left out)
		r := w[4*kk : 4*kk+4 : 4*kk+4]
		f[2*kk] -= r[1]*ev[1][0] + r[2]*ev[2][0] + r[3]*ev[3][0]
		f[2*kk+1] -= r[1]*ev[1][1] + r[2]*ev[2][1] + r[3]*ev[3][1]
	}
	var dv [10]float64 // D'
	var ed [4][2]float64
	beta := b.beta
	if beta > 0 {
		ed = e.nodal(x.V)
		relative2(&ed)
		gd := cs.gram(&ev, &ed)
		dv = cs.pairSum(&gd)
		wd := cs.pairMatrix(&dv, beta*ea)
		for kk := 0; kk < 4; kk++ {
			var s0, s1 float64
			for l := 0; l < 4; l++ {
				kb := beta * ei * cs.kb4[4*kk+l]
				s0 += wd[4*kk+l]*ev[l][0] + kb*ed[l][0]
				s1 += wd[4*kk+l]*ev[l][1] + kb*ed[l][1]
			}
			f[2*kk] -= s0
			f[2*kk+1] -= s1
		}
	}
	if k == nil {
		return
	}
	var a, bt [20][2]float64
	cs.triples(&ev, &a)
	if beta > 0 {
		cs.triples(&ed, &bt)
	}
	for p, pr := range cs.pair {
		kk, pp := int(pr[0]), int(pr[1])
		pm := &cs.pm[p]
		// Y_kp,ij = Σ_l e_l,i a_(k,p,l),j (symmetric in i, j)
		var y00, y01, y11 float64
		for l := 0; l < 4; l++ {
			al := &a[pm[l]]
			y00 += ev[l][0] * al[0]
			y01 += ev[l][0] * al[1]
			y11 += ev[l][1] * al[1]
		}
		diag := ea*kt[p] + ei*cs.kb4[4*kk+pp]
		blk := [4]float64{diag + ea*y00, ea * y01, ea * y01, diag + ea*y11}
		var cb [4]float64
		if beta > 0 {
			// W̃_kp,ij = Σ_l e_l,i b_(k,p,l),j
			var w00, w01, w10, w11 float64
			for l := 0; l < 4; l++ {
				bl := &bt[pm[l]]
				w00 += ev[l][0] * bl[0]
				w01 += ev[l][0] * bl[1]
				w10 += ev[l][1] * bl[0]
				w11 += ev[l][1] * bl[1]
			}
			bd := beta * ea * dv[p]
			blk[0] += bd + beta*ea*w00
			blk[1] += beta * ea * w01
			blk[2] += beta * ea * w10
			blk[3] += bd + beta*ea*w11
			cd := beta * ei * cs.kb4[4*kk+pp]
			cb = [4]float64{cd + beta*ea*y00, beta * ea * y01, beta * ea * y01, cd + beta*ea*y11}
		}
		r0, c0 := 2*kk, 2*pp
		k[r0*8+c0] += blk[0]
		k[r0*8+c0+1] += blk[1]
		k[(r0+1)*8+c0] += blk[2]
		k[(r0+1)*8+c0+1] += blk[3]
		if beta > 0 {
			c[r0*8+c0] += cb[0]
			c[r0*8+c0+1] += cb[1]
			c[(r0+1)*8+c0] += cb[2]
			c[(r0+1)*8+c0+1] += cb[3]
		}
		if kk != pp {
			// block (p, k) has the same 2×2 entries (the triple is symmetric)
			k[c0*8+r0] += blk[0]
			k[c0*8+r0+1] += blk[1]
			k[(c0+1)*8+r0] += blk[2]
			k[(c0+1)*8+r0+1] += blk[3]
			if beta > 0 {
				c[c0*8+r0] += cb[0]
				c[c0*8+r0+1] += cb[1]
				c[(c0+1)*8+r0] += cb[2]
				c[(c0+1)*8+r0+1] += cb[3]
			}
		}
	}
}

// energy returns the axial and the bending strain energy of the element,
// ½ EA ∫ ε² dx and ½ EI ∫ r_xx·r_xx dx, by five-point Gauss quadrature
// (exact: the integrands are polynomials of degree 8 and 2) of the strain
// and the curvature at the points, written with the second node's
// position relative to the first (s₁' = −s₃', s₁” = −s₃”). The energy of
// an undeformed element is then zero to round-off wherever it lies; the
// contracted form of the force (Gram matrix of the absolute nodal
// coordinates) would leave 1e-10 J of noise per element a metre from the
// origin, and the energy channels and their derivatives (the outputs of a
// linearisation) with it.
func (e *ancfElem) energy(q []float64) (axial, bending float64) {
	cs := e.b.k
	ev := e.nodal(q)
	p := [2]float64{ev[2][0] - ev[0][0], ev[2][1] - ev[0][1]}
	xg, wg := gauss5()
	var sa, sb float64
	for g := range xg {
		_, d, dd := hermite(0.5*(xg[g]+1), cs.l)
		w := 0.5 * cs.l * wg[g]
		var rx, rxx [2]float64
		for i := 0; i < 2; i++ {
			rx[i] = d[2]*p[i] + d[1]*ev[1][i] + d[3]*ev[3][i]
			rxx[i] = dd[2]*p[i] + dd[1]*ev[1][i] + dd[3]*ev[3][i]
		}
		eps := 0.5 * (rx[0]*rx[0] + rx[1]*rx[1] - 1)
		sa += w * eps * eps
		sb += w * (rxx[0]*rxx[0] + rxx[1]*rxx[1])
	}
	axial = 0.5 * e.b.ea * sa
	bending = 0.5 * e.b.ei * sb
	if q := e.b.exact; q != nil {
		bq, aq := q.energies(e.b.ei, e.b.ea, &ev)
		if q.curv {
			bending = bq
		}
		if q.eng {
			axial = aq
		}
	}
	return
}

func (e *ancfElem) Potential(x *mech.Ctx) float64 {
	a, b := e.energy(x.Q)
	return a + b
}

// ancfPoint evaluates position r, slope r' and their rates at arc length s.
func (b *ancfBeam) point(q, v []float64, s float64) (r, rx, vr, vrx [2]float64) {
	el, xi := b.locate(s)
	sh, d, _ := hermite(xi, b.k.l)
	o := b.node(el)
	for k := 0; k < 4; k++ {
		for i := 0; i < 2; i++ {
			r[i] += sh[k] * q[o+2*k+i]
			rx[i] += d[k] * q[o+2*k+i]
			if v != nil {
				vr[i] += sh[k] * v[o+2*k+i]
				vrx[i] += d[k] * v[o+2*k+i]
			}
		}
	}
	return
}

// ancfLoad is a point force at arc length s of an ANCF beam: components
// in the global frame, or (follower) along the deformed tangent and normal.
type ancfLoad struct {
	b        *ancfBeam
	name     string
	s, xi    float64
	fx, fy   mech.Param
	follower bool
	d        [8]int
	sh, dsh  [4]float64
}

func (e *ancfLoad) Dofs() []int { return e.d[:] }

// Params lists the load's run-time parameters.
func (e *ancfLoad) Params() []*mech.Param { return []*mech.Param{&e.fx, &e.fy} }

// force returns the global force and, for a follower, the tangent
// quantities.
func (e *ancfLoad) force(x *mech.Ctx) (F, f [2]float64, t [2]float64, nr float64) {
	f = [2]float64{e.fx.Get(x), e.fy.Get(x)}
	if !e.follower {
		return f, f, t, 0
	}
	o := e.d[0]
	var rx [2]float64
	for k := 0; k < 4; k++ {
		rx[0] += e.dsh[k] * x.Q[o+2*k]
		rx[1] += e.dsh[k] * x.Q[o+2*k+1]
	}
	nr = math.Hypot(rx[0], rx[1])
	if nr < 1e-300 {
		return [2]float64{}, f, t, 0
	}
	t = [2]float64{rx[0] / nr, rx[1] / nr}
	F = [2]float64{f[0]*t[0] - f[1]*t[1], f[0]*t[1] + f[1]*t[0]}
	return
}

func (e *ancfLoad) Eval(x *mech.Ctx, f, k, c []float64) {
	F, fl, t, nr := e.force(x)
	for kk := 0; kk < 4; kk++ {
		f[2*kk] += e.sh[kk] * F[0]
		f[2*kk+1] += e.sh[kk] * F[1]
	}
	if k == nil || !e.follower || nr == 0 {
		return
	}
	// ∂F/∂r' = (fx I + fy Ĩ)(I − t tᵀ)/|r'|
	P := [2][2]float64{{(1 - t[0]*t[0]) / nr, -t[0] * t[1] / nr}, {-t[0] * t[1] / nr, (1 - t[1]*t[1]) / nr}}
	A := [2][2]float64{{fl[0], -fl[1]}, {fl[1], fl[0]}}
	var dF [2][2]float64
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			dF[i][j] = A[i][0]*P[0][j] + A[i][1]*P[1][j]
		}
	}
	for kk := 0; kk < 4; kk++ {
		for i := 0; i < 2; i++ {
			for pp := 0; pp < 4; pp++ {
				for j := 0; j < 2; j++ {
					k[(2*kk+i)*8+2*pp+j] -= e.sh[kk] * dF[i][j] * e.dsh[pp]
				}
			}
		}
	}
}

func (e *ancfLoad) Potential(*mech.Ctx) float64 { return 0 }

func (e *ancfLoad) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".fx", Unit: "N", Group: "force", Description: "force " + name + " x component (global)"},
		{Name: name + ".fy", Unit: "N", Group: "force", Description: "force " + name + " y component (global)"},
	}
}

func (e *ancfLoad) Channel(x *mech.Ctx, sub int) float64 {
	F, _, _, _ := e.force(x)
	return F[sub]
}
