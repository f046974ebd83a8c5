package flex

import (
	"math"

	"mbfmu/solver/mech"
)

// Spatial gradient-deficient ANCF cable element: the planar element of
// ancf.go (seed 004) with three components per nodal vector. A node has
// six coordinates, the position r and the slope r_x (x, y, z, dx, dy,
// dz); r(x) = Σ_k s_k(x) e_k with the same cubic Hermite functions, so the
// mass matrix ρA ∫ SᵀS dx ⊗ I₃, the bending stiffness EI ∫ S_xxᵀ S_xx dx ⊗
// I₃ (κ ≈ |r_xx|: no torsion, equal bending stiffness about every axis)
// and the axial tensor T_klmn of the Green strain ε = ½(r_x·r_x − 1) are
// the planar element's, and the forces and tangents are its formulas with
// i, j running over three components. It is the element of Gerstmayr and
// Shabana's spatial cable (Exudyn's ObjectANCFCable, Chrono's
// ChElementCableANCF) with the seed's cheap axial stiffness update.

// ancf3Elem is one element of a spatial ANCF cable, a force element over
// the 12 coordinates of its two nodes (contiguous).
type ancf3Elem struct {
	b  *ancfBeam
	d  [12]int
	qo int // first position coordinate (the velocities' d[0] differs when rotations come before)
}

func (e *ancf3Elem) Dofs() []int { return e.d[:] }

// nodal3 gathers an element's four nodal vectors from q at o.
func nodal3(q []float64, o int) (ev [4][3]float64) {
	q = q[o : o+12 : o+12]
	for i := 0; i < 4; i++ {
		ev[i][0], ev[i][1], ev[i][2] = q[3*i], q[3*i+1], q[3*i+2]
	}
	return
}

// relative3 takes the nodal positions (vectors 0 and 2) relative to the
// first node's (the slopes stay): the strain and the curvature, and so the
// element's forces and tangent, do not change under a translation (the
// position shape functions' derivatives sum to zero), and the Gram
// products of positions a metre from the origin would cancel to about
// 1e-16/l² of the strain: with 640 elements of 1.6 mm the forces' noise
// held Newton's increments above 1e-9 m, so that old factors never
// seemed to converge.
func relative3(ev *[4][3]float64) {
	for i := 0; i < 3; i++ {
		ev[2][i] -= ev[0][i]
		ev[0][i] = 0
	}
}

// gram3 is gram for spatial nodal vectors.
func gram3(ev, fv *[4][3]float64) (g [10]float64) {
	// (pairs 0l are zero: e_0 = f_0 = 0, see relative3)
	if ev == fv {
		d := func(i, j int) float64 { return ev[i][0]*ev[j][0] + ev[i][1]*ev[j][1] + ev[i][2]*ev[j][2] }
		return [10]float64{4: d(1, 1), 5: d(1, 2), 6: d(1, 3), 7: d(2, 2), 8: d(2, 3), 9: d(3, 3)}
	}
	d := func(i, j int) float64 {
		return 0.5 * (ev[i][0]*fv[j][0] + ev[i][1]*fv[j][1] + ev[i][2]*fv[j][2] +
			ev[j][0]*fv[i][0] + ev[j][1]*fv[i][1] + ev[j][2]*fv[i][2])
	}
	return [10]float64{4: d(1, 1), 5: d(1, 2), 6: d(1, 3), 7: d(2, 2), 8: d(2, 3), 9: d(3, 3)}
}

// triples3 is triples for spatial nodal vectors relative to the first
// node (relative3: the terms of e_0 = 0 left out).
func (c *ancfConst) triples3(ev *[4][3]float64, a *[20][3]float64) {
	for t := range a {
		tt := &c.t3[t]
		for i := 0; i < 3; i++ {
			a[t][i] = tt[1]*ev[1][i] + tt[2]*ev[2][i] + tt[3]*ev[3][i]
		}
	}
}

func (e *ancf3Elem) Eval(x *mech.Ctx, f, k, c []float64) {
	b := e.b
	if b.exact != nil {
		e.evalExact(x, f)
		return
	}
	cs := b.k
	ev := nodal3(x.Q, e.qo)
	relative3(&ev)
	ea, ei := b.ea, b.ei
	g := gram3(&ev, &ev)
	kt, w := cs.elasticWeights(&g, ea, ei)
	f = f[:12:12]
	for kk := 0; kk < 4; kk++ {
		// (the terms of e_0 = 0 left out)
		r1, r2, r3 := w[4*kk+1], w[4*kk+2], w[4*kk+3]
		f[3*kk] -= r1*ev[1][0] + r2*ev[2][0] + r3*ev[3][0]
		f[3*kk+1] -= r1*ev[1][1] + r2*ev[2][1] + r3*ev[3][1]
		f[3*kk+2] -= r1*ev[1][2] + r2*ev[2][2] + r3*ev[3][2]
	}
	var dv [10]float64 // D'
	var ed [4][3]float64
	beta := b.beta
	if beta > 0 {
		ed = nodal3(x.V, e.d[0])
		relative3(&ed)
		gd := gram3(&ev, &ed)
		dv = cs.pairSum(&gd)
		wd := cs.pairMatrix(&dv, beta*ea)
		for kk := 0; kk < 4; kk++ {
			var s [3]float64
			for l := 0; l < 4; l++ {
				kb := beta * ei * cs.kb4[4*kk+l]
				for i := 0; i < 3; i++ {
					s[i] += wd[4*kk+l]*ev[l][i] + kb*ed[l][i]
				}
			}
			for i := 0; i < 3; i++ {
				f[3*kk+i] -= s[i]
			}
		}
	}
	if k == nil {
		return
	}
	var a, bt [20][3]float64
	cs.triples3(&ev, &a)
	if beta > 0 {
		cs.triples3(&ed, &bt)
	}
	if beta == 0 {
		e.stiffness((*[144]float64)(k), &ev, &a, &kt, ea, ei)
		return
	}
	for p, pr := range cs.pair {
		kk, pp := int(pr[0]), int(pr[1])
		pm := &cs.pm[p]
		// Y_kp,ij = Σ_l e_l,i a_(k,p,l),j (symmetric in i, j; e_0 = 0)
		var y [3][3]float64
		for l := 1; l < 4; l++ {
			al := &a[pm[l]]
			for i := 0; i < 3; i++ {
				for j := i; j < 3; j++ {
					y[i][j] += ev[l][i] * al[j]
				}
			}
		}
		y[1][0], y[2][0], y[2][1] = y[0][1], y[0][2], y[1][2]
		diag := ea*kt[p] + ei*cs.kb4[4*kk+pp]
		var blk, cb [3][3]float64
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				blk[i][j] = ea * y[i][j]
			}
			blk[i][i] += diag
		}
		if beta > 0 {
			// W̃_kp,ij = Σ_l e_l,i b_(k,p,l),j
			var wt [3][3]float64
			for l := 0; l < 4; l++ {
				bl := &bt[pm[l]]
				for i := 0; i < 3; i++ {
					for j := 0; j < 3; j++ {
						wt[i][j] += ev[l][i] * bl[j]
					}
				}
			}
			bd := beta * ea * dv[p]
			cd := beta * ei * cs.kb4[4*kk+pp]
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					blk[i][j] += beta * ea * wt[i][j]
					cb[i][j] = beta * ea * y[i][j]
				}
				blk[i][i] += bd
				cb[i][i] += cd
			}
		}
		r0, c0 := 3*kk, 3*pp
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				k[(r0+i)*12+c0+j] += blk[i][j]
				if beta > 0 {
					c[(r0+i)*12+c0+j] += cb[i][j]
				}
				if kk != pp {
					// block (p, k) has the same entries (the triple is symmetric)
					k[(c0+i)*12+r0+j] += blk[i][j]
					if beta > 0 {
						c[(c0+i)*12+r0+j] += cb[i][j]
					}
				}
			}
		}
	}
}

// stiffness adds the element's tangent stiffness without material
// damping, block (k, p) = EA Y_kp + (EA K̃_kp + EI K_t,kp) I and its
// mirror (p, k), to k (the loop of Eval for β > 0 without its damping
// terms: the same sums in the same order).
func (e *ancf3Elem) stiffness(k *[144]float64, ev *[4][3]float64, a *[20][3]float64, kt *[10]float64, ea, ei float64) {
	cs := e.b.k
	for p, pr := range cs.pair {
		kk, pp := int(pr[0]), int(pr[1])
		pm := &cs.pm[p]
		a1, a2, a3 := &a[pm[1]], &a[pm[2]], &a[pm[3]]
		e1, e2, e3 := &ev[1], &ev[2], &ev[3]
		// Y_kp,ij = Σ_l e_l,i a_(k,p,l),j (symmetric; e_0 = 0)
		y00 := e1[0]*a1[0] + e2[0]*a2[0] + e3[0]*a3[0]
		y01 := e1[0]*a1[1] + e2[0]*a2[1] + e3[0]*a3[1]
		y02 := e1[0]*a1[2] + e2[0]*a2[2] + e3[0]*a3[2]
		y11 := e1[1]*a1[1] + e2[1]*a2[1] + e3[1]*a3[1]
		y12 := e1[1]*a1[2] + e2[1]*a2[2] + e3[1]*a3[2]
		y22 := e1[2]*a1[2] + e2[2]*a2[2] + e3[2]*a3[2]
		diag := ea*kt[p] + ei*cs.kb4[4*kk+pp]
		b := [9]float64{
			ea*y00 + diag, ea * y01, ea * y02,
			ea * y01, ea*y11 + diag, ea * y12,
			ea * y02, ea * y12, ea*y22 + diag,
		}
		addBlock3(k, 3*kk, 3*pp, &b)
		if kk != pp {
			// block (p, k) has the same entries (the triple is symmetric)
			addBlock3(k, 3*pp, 3*kk, &b)
		}
	}
}

// addBlock3 adds the 3×3 block b (row-major) to the 12×12 matrix k at
// rows r0.., columns c0...
func addBlock3(k *[144]float64, r0, c0 int, b *[9]float64) {
	for i := 0; i < 3; i++ {
		row := k[(r0+i)*12+c0 : (r0+i)*12+c0+3 : (r0+i)*12+c0+3]
		row[0] += b[3*i]
		row[1] += b[3*i+1]
		row[2] += b[3*i+2]
	}
}

// energy returns the axial and bending strain energy of the element (as
// ancfElem.energy: five-point Gauss quadrature on positions relative to
// the first node).
func (e *ancf3Elem) energy(q []float64) (axial, bending float64) {
	if e.b.exact != nil {
		return e.exactEnergy(q)
	}
	cs := e.b.k
	ev := nodal3(q, e.qo)
	p := [3]float64{ev[2][0] - ev[0][0], ev[2][1] - ev[0][1], ev[2][2] - ev[0][2]}
	xg, wg := gauss5()
	var sa, sb float64
	for g := range xg {
		_, d, dd := hermite(0.5*(xg[g]+1), cs.l)
		w := 0.5 * cs.l * wg[g]
		var rx, rxx [3]float64
		for i := 0; i < 3; i++ {
			rx[i] = d[2]*p[i] + d[1]*ev[1][i] + d[3]*ev[3][i]
			rxx[i] = dd[2]*p[i] + dd[1]*ev[1][i] + dd[3]*ev[3][i]
		}
		eps := 0.5 * (rx[0]*rx[0] + rx[1]*rx[1] + rx[2]*rx[2] - 1)
		sa += w * eps * eps
		sb += w * (rxx[0]*rxx[0] + rxx[1]*rxx[1] + rxx[2]*rxx[2])
	}
	return 0.5 * e.b.ea * sa, 0.5 * e.b.ei * sb
}

func (e *ancf3Elem) Potential(x *mech.Ctx) float64 {
	a, b := e.energy(x.Q)
	return a + b
}

// point3 evaluates position r, slope r' and their rates at arc length s
// of a spatial cable.
func (b *ancfBeam) point3(q, v []float64, s float64) (r, rx, vr, vrx [3]float64) {
	el, xi := b.locate(s)
	sh, d, _ := hermite(xi, b.k.l)
	o, ov := b.qbase+6*el, b.base+6*el
	for k := 0; k < 4; k++ {
		for i := 0; i < 3; i++ {
			r[i] += sh[k] * q[o+3*k+i]
			rx[i] += d[k] * q[o+3*k+i]
			if v != nil {
				vr[i] += sh[k] * v[ov+3*k+i]
				vrx[i] += d[k] * v[ov+3*k+i]
			}
		}
	}
	return
}

// The spatial cable with the planar element's exact options
// (ancf_exact.go): the material curvature κ = |r_x × r_xx|/|r_x|², the
// rotation of the section per reference length, and/or the engineering
// strain ε = |r_x| − 1. With a = r_x, b = r_xx, g = a·a, h = b·b,
// c = a·b the bending energy density is ½ EI κ² with
// κ² = |a × b|²/g² = h/g − c²/g², whose gradients are
//
//	∂κ²/∂a = −2h a/g² − 2c b/g² + 4c² a/g³,   ∂κ²/∂b = 2b/g − 2c a/g²;
//
// the axial density ½ EA ε² has ∂ε/∂a = a/|a| (engineering) or a (Green).
// Every term is integrated by the beam's Gauss rule (5 points by default:
// exact for the Green and |r_xx| terms, converged for the rational ones);
// the tangent is taken by finite differences.

// NumericTangent: the exact options' tangent is the engine's finite
// differences (the default element's is analytic).
func (e *ancf3Elem) NumericTangent() bool { return e.b.exact != nil }

// exactPoint returns r_x and r_xx at Gauss point gp from the nodal vectors
// (the first node's position taken out: p = r(l) − r(0)).
func (e *ancf3Elem) exactPoint(gp int, p *[3]float64, ev *[4][3]float64) (a, b [3]float64) {
	q := e.b.exact
	d, dd := &q.d[gp], &q.dd[gp]
	for i := 0; i < 3; i++ {
		a[i] = d[2]*p[i] + d[1]*ev[1][i] + d[3]*ev[3][i]
		b[i] = dd[2]*p[i] + dd[1]*ev[1][i] + dd[3]*ev[3][i]
	}
	return
}

// exactDensity returns the strain energy density's axial and bending
// parts and its gradients by a and b.
func (e *ancf3Elem) exactDensity(a, b [3]float64) (ua, ub float64, ga, gb [3]float64) {
	q, ea, ei := e.b.exact, e.b.ea, e.b.ei
	g := a[0]*a[0] + a[1]*a[1] + a[2]*a[2]
	h := b[0]*b[0] + b[1]*b[1] + b[2]*b[2]
	c := a[0]*b[0] + a[1]*b[1] + a[2]*b[2]
	var eps, de float64 // ε and ∂ε/∂a = de·a
	if q.eng {
		sg := math.Sqrt(g)
		eps, de = sg-1, 1/sg
	} else {
		eps, de = 0.5*(g-1), 1
	}
	ua = 0.5 * ea * eps * eps
	for i := 0; i < 3; i++ {
		ga[i] = ea * eps * de * a[i]
	}
	if q.curv {
		g2 := g * g
		ub = 0.5 * ei * (h/g - c*c/g2)
		fa := 0.5 * ei * (-2*h/g2 + 4*c*c/(g2*g))
		fab := 0.5 * ei * (-2 * c / g2)
		for i := 0; i < 3; i++ {
			ga[i] += fa*a[i] + fab*b[i]
			gb[i] = 0.5*ei*2*b[i]/g + fab*a[i]
		}
	} else {
		ub = 0.5 * ei * h
		for i := 0; i < 3; i++ {
			gb[i] = ei * b[i]
		}
	}
	return
}

// evalExact adds −∂U/∂e of the exact options' energy to f.
func (e *ancf3Elem) evalExact(x *mech.Ctx, f []float64) {
	q := e.b.exact
	ev := nodal3(x.Q, e.qo)
	p := [3]float64{ev[2][0] - ev[0][0], ev[2][1] - ev[0][1], ev[2][2] - ev[0][2]}
	var fp, f1, f3 [3]float64
	for gp := 0; gp < q.n; gp++ {
		a, b := e.exactPoint(gp, &p, &ev)
		_, _, ga, gb := e.exactDensity(a, b)
		d, dd, w := &q.d[gp], &q.dd[gp], q.w[gp]
		for i := 0; i < 3; i++ {
			fp[i] += w * (d[2]*ga[i] + dd[2]*gb[i])
			f1[i] += w * (d[1]*ga[i] + dd[1]*gb[i])
			f3[i] += w * (d[3]*ga[i] + dd[3]*gb[i])
		}
	}
	// U depends on r(0) and r(l) through p = r(l) − r(0)
	f = f[:12:12]
	for i := 0; i < 3; i++ {
		f[i] += fp[i]
		f[3+i] -= f1[i]
		f[6+i] -= fp[i]
		f[9+i] -= f3[i]
	}
}

// exactEnergy returns the exact options' axial and bending energies.
func (e *ancf3Elem) exactEnergy(qv []float64) (axial, bending float64) {
	q := e.b.exact
	ev := nodal3(qv, e.qo)
	p := [3]float64{ev[2][0] - ev[0][0], ev[2][1] - ev[0][1], ev[2][2] - ev[0][2]}
	for gp := 0; gp < q.n; gp++ {
		a, b := e.exactPoint(gp, &p, &ev)
		ua, ub, _, _ := e.exactDensity(a, b)
		axial += q.w[gp] * ua
		bending += q.w[gp] * ub
	}
	return
}
