package flex

import (
	"fmt"
	"math"
	"mbfmu/solver/mech"
)

// Floating-frame-of-reference (FFR) planar beam (Shabana, Dynamics of
// Multibody Systems, ch. 5; seed 001).
//
// The beam is clamped at a marker of a rigid body, whose frame is the
// floating frame: a material point at arc length ξ is at
//
//	r = R + A(θ) ū,   ū = ū₀(ξ) + Φ(ξ) η,   ū₀ = s_a + ξ t,
//
// R, θ the body's coordinates (centre of mass), s_a the root in the body
// frame (from the centre of mass), t and n the beam's axis and normal in the
// body frame. Φ(ξ) = [t n] N(ξ) V: N the planar Euler–Bernoulli frame
// elements (axial u linear, transverse w cubic Hermite, nodes with u, w,
// w'; the root node clamped), V the reduction basis (identity for the full
// model), η the elastic coordinates appended to q. With S_t = ∫ρū,
// S̄ = ∫ρΦ, a = ∫ρ ΦᵀĨū, b = ∫ρ Φᵀū, Ŝ = ∫ρ ΦᵀĨΦ (Ĩ the 90° rotation)
// and J = ∫ρ ūᵀū, the generalized inertia forces ∫ρ (∂r/∂q)ᵀ (r̈ − g) are
//
//	G_R = m R̈ + A (θ̈ ĨS_t + S̄η̈ − θ̇² S_t + 2θ̇ ĨS̄η̇)              (− m g: in gq)
//	G_θ = (ĨS_t)·ρ_g + θ̈ J + a·η̈ + 2θ̇ b·η̇
//	G_η = S̄ᵀρ_g + θ̈ a + M_ηη η̈ − θ̇² b + 2θ̇ Ŝη̇,   ρ_g = Aᵀ(R̈ − g).
//
// The mass matrix M(q) of these terms depends on θ and η; the integrators
// keep a constant mass, so the element (ffrElem) contributes
// Q = M̄ q̈ − G(q, q̇, q̈) − f_int − f_damp with M̄ = M(q₀) in the model's
// mass blocks, and its Jacobian includes the acceleration coupling
// c_a (M(q) − M̄) (context.ca, set by the Newton iteration). The converged
// solution is exact; the Newton matrix is the exact one.
//
// Elastic forces: the zero-order coupling model (seed 001) uses the linear
// strain energy ½ ηᵀK_ηη η; the stiffened model uses the von Kármán axial
// strain ε = u' + ½ w'², U = ½∫EA ε² + ½∫EI w''², whose axial force
// stiffens the bending (geometric or dynamic stiffening: Kane, Ryan &
// Banerjee 1987; Sharf 1996). With u linear per element, ½ w'² is replaced
// by its element average (so ε and the axial force are constant per
// element): the pointwise form locks (a 10-element beam was 20 % too stiff
// in the spin-up); the averaged form gives the classical geometric
// stiffness N ∫H'ᵀH' dx. The zero-order model keeps the centrifugal
// softening −θ̇² M_ηη and diverges once the spin exceeds the first bending
// frequency.

// ffrMaxCoords bounds the elastic coordinates of one FFR beam (scratch
// arrays live on the stack).
const ffrMaxCoords = 240

// ffrBeam is a compiled FFR beam.
type ffrBeam struct {
	name       string
	body       int
	d          [3]int // rigid coordinates of the body
	e0, ns     int    // first elastic coordinate, number of them
	ne, nf     int    // elements, full FE coordinates
	le, length float64
	sa         [2]float64 // root in the body frame, from the centre of mass
	t, n       [2]float64 // axis and normal in the body frame
	ea, ei     float64
	rhoA       float64
	beta       float64
	stiff      bool
	full       bool      // no reduction: V = I
	v          []float64 // nf×ns basis (nil when full)
	edof       [][6]int  // per element: full coordinate of each local dof, -1 clamped
	g          [2]float64
	// reduced constant integrals
	mass   float64
	s0     [2]float64
	i0     float64
	sb     []float64 // S̄: 2×ns
	a0, b0 []float64 // ns
	mee    []float64 // ns×ns
	kee    []float64
	sh     []float64 // Ŝ, skew
	mbar   []float64 // M(q₀), (3+ns)², row-major
	gp     [5]ffrGauss
	gw     [16]float64 // G = ∫ H'ᵀH' dx over one element (transverse dofs w, w' of both nodes)
	kind   string      // reduction: none, modal, krylov, craig-bampton
	coords []string
	mk     []flexMarker
	shape  []flexMarker // evenly spaced drawing points
	dofl   []int        // the element's dofs: body coords then elastic coords
}

// ffrGauss holds the shape-function derivatives at one Gauss point of an
// element (all elements have the same length).
type ffrGauss struct {
	w       float64 // weight × le
	r       float64 // local ξ/le
	hd, hdd [4]float64
	hs      [4]float64
}

// feMatrices assembles the full FE matrices of the clamped beam in its own
// axes and the shape-function integrals: mass, stiffness, X = ∫ρA N_wᵀN_u,
// a_u = ∫ρA N_uᵀ, a_w, c_u = ∫ρA ξ N_uᵀ, c_w.
func (b *ffrBeam) feMatrices() (M, K, X []float64, au, aw, cu, cw []float64) {
	nf := b.nf
	M, K, X = make([]float64, nf*nf), make([]float64, nf*nf), make([]float64, nf*nf)
	au, aw, cu, cw = make([]float64, nf), make([]float64, nf), make([]float64, nf), make([]float64, nf)
	le := b.le
	for e := 0; e < b.ne; e++ {
		idx := b.edof[e]
		for _, g := range b.gp {
			var nu, nw, nud, nwdd [6]float64
			nu[0], nu[3] = 1-g.r, g.r
			nud[0], nud[3] = -1/le, 1/le
			nw[1], nw[2], nw[4], nw[5] = g.hs[0], g.hs[1], g.hs[2], g.hs[3]
			nwdd[1], nwdd[2], nwdd[4], nwdd[5] = g.hdd[0], g.hdd[1], g.hdd[2], g.hdd[3]
			xi := (float64(e) + g.r) * le
			w := g.w
			for a := 0; a < 6; a++ {
				i := idx[a]
				if i < 0 {
					continue
				}
				au[i] += w * b.rhoA * nu[a]
				aw[i] += w * b.rhoA * nw[a]
				cu[i] += w * b.rhoA * xi * nu[a]
				cw[i] += w * b.rhoA * xi * nw[a]
				for c := 0; c < 6; c++ {
					j := idx[c]
					if j < 0 {
						continue
					}
					M[i*nf+j] += w * b.rhoA * (nu[a]*nu[c] + nw[a]*nw[c])
					K[i*nf+j] += w * (b.ea*nud[a]*nud[c] + b.ei*nwdd[a]*nwdd[c])
					X[i*nf+j] += w * b.rhoA * nw[a] * nu[c]
				}
			}
		}
	}
	return
}

// clampRoot numbers the elements' dofs (u, v, θ at each node) for a
// beam clamped at its first node: that node's dofs are -1, node k's are
// 3(k−1) … 3(k−1)+2.
func (b *ffrBeam) clampRoot() {
	b.edof = make([][6]int, b.ne)
	for e := range b.edof {
		for a := 0; a < 6; a++ {
			if nd := e + a/3; nd == 0 { // node of the local dof
				b.edof[e][a] = -1
			} else {
				b.edof[e][a] = 3*(nd-1) + a%3
			}
		}
	}
}

// setGauss fills the element Gauss data.
func (b *ffrBeam) setGauss() {
	xg, wg := gauss5()
	for g := range xg {
		r := 0.5 * (xg[g] + 1)
		s, d, dd := hermite(r, b.le)
		b.gp[g] = ffrGauss{w: 0.5 * b.le * wg[g], r: r, hs: s, hd: d, hdd: dd}
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				b.gw[4*i+j] += 0.5 * b.le * wg[g] * d[i] * d[j]
			}
		}
	}
}

// project returns Vᵀ A V (ns×ns) of a full nf×nf matrix, or A when full.
func (b *ffrBeam) project(A []float64) []float64 {
	if b.full {
		return A
	}
	nf, ns := b.nf, b.ns
	AV := make([]float64, nf*ns)
	for i := 0; i < nf; i++ {
		for k := 0; k < nf; k++ {
			if a := A[i*nf+k]; a != 0 {
				for j := 0; j < ns; j++ {
					AV[i*ns+j] += a * b.v[k*ns+j]
				}
			}
		}
	}
	out := make([]float64, ns*ns)
	for k := 0; k < nf; k++ {
		for i := 0; i < ns; i++ {
			if vk := b.v[k*ns+i]; vk != 0 {
				for j := 0; j < ns; j++ {
					out[i*ns+j] += vk * AV[k*ns+j]
				}
			}
		}
	}
	return out
}

// projectVec returns Vᵀ x.
func (b *ffrBeam) projectVec(x []float64) []float64 {
	if b.full {
		return append([]float64(nil), x...)
	}
	out := make([]float64, b.ns)
	for k := 0; k < b.nf; k++ {
		for j := 0; j < b.ns; j++ {
			out[j] += b.v[k*b.ns+j] * x[k]
		}
	}
	return out
}

// setup computes the reduced constant integrals from the full FE model
// (V set by the caller, or full).
func (b *ffrBeam) setup(M, K, X, au, aw, cu, cw []float64) {
	nf, ns := b.nf, b.ns
	b.mass = b.rhoA * b.length
	L := b.length
	b.s0 = [2]float64{b.mass*b.sa[0] + b.rhoA*L*L/2*b.t[0], b.mass*b.sa[1] + b.rhoA*L*L/2*b.t[1]}
	b.i0 = b.mass*mech.Dot2(b.sa, b.sa) + b.rhoA*L*L*mech.Dot2(b.sa, b.t) + b.rhoA*L*L*L/3
	b.mee = b.project(M)
	b.kee = b.project(K)
	sh := make([]float64, nf*nf)
	for i := 0; i < nf; i++ {
		for j := 0; j < nf; j++ {
			sh[i*nf+j] = X[i*nf+j] - X[j*nf+i]
		}
	}
	b.sh = b.project(sh)
	pu, pw := b.projectVec(au), b.projectVec(aw)
	b.sb = make([]float64, 2*ns)
	for k := 0; k < ns; k++ {
		b.sb[k] = b.t[0]*pu[k] + b.n[0]*pw[k]
		b.sb[ns+k] = b.t[1]*pu[k] + b.n[1]*pw[k]
	}
	isa := mech.Rot90(b.sa)
	bv, av := make([]float64, nf), make([]float64, nf)
	for i := 0; i < nf; i++ {
		bv[i] = mech.Dot2(b.t, b.sa)*au[i] + mech.Dot2(b.n, b.sa)*aw[i] + cu[i]
		av[i] = mech.Dot2(b.t, isa)*au[i] + mech.Dot2(b.n, isa)*aw[i] + cw[i]
	}
	b.b0, b.a0 = b.projectVec(bv), b.projectVec(av)
}

// massAt fills M(q) of the beam's terms over its dofs ((3+ns)², row-major)
// for body angle th and elastic coordinates eta.
func (b *ffrBeam) massAt(th float64, eta []float64, out []float64) {
	ns := b.ns
	n := 3 + ns
	clear(out)
	sn, cs := math.Sincos(th)
	st := b.s0
	for k := 0; k < ns; k++ {
		st[0] += b.sb[k] * eta[k]
		st[1] += b.sb[ns+k] * eta[k]
	}
	ist := mech.Rot90(st)
	ai := [2]float64{cs*ist[0] - sn*ist[1], sn*ist[0] + cs*ist[1]}
	out[0], out[n+1] = b.mass, b.mass
	out[2], out[n+2] = ai[0], ai[1]
	out[2*n], out[2*n+1] = ai[0], ai[1]
	jb := b.i0
	for k := 0; k < ns; k++ {
		c1 := b.a0[k]
		c2 := 2 * b.b0[k]
		for j := 0; j < ns; j++ {
			c1 += b.sh[k*ns+j] * eta[j]
			c2 += b.mee[k*ns+j] * eta[j]
		}
		jb += c2 * eta[k] // Σ (2b₀ + Mη)_k η_k = 2b₀·η + ηᵀMη
		sx, sy := b.sb[k], b.sb[ns+k]
		ax, ay := cs*sx-sn*sy, sn*sx+cs*sy
		out[3+k], out[n+3+k] = ax, ay
		out[(3+k)*n], out[(3+k)*n+1] = ax, ay
		out[2*n+3+k], out[(3+k)*n+2] = c1, c1
		for j := 0; j < ns; j++ {
			out[(3+k)*n+3+j] = b.mee[k*ns+j]
		}
	}
	out[2*n+2] = jb
}

// ffrElem is the inertia, gravity and elastic force element of an FFR beam.
type ffrElem struct{ b *ffrBeam }

func (e *ffrElem) Dofs() []int { return e.b.dofl }

// ffrWork holds per-evaluation vectors (on the stack).
type ffrWork struct {
	c1, c2, she, shd, med [ffrMaxCoords]float64
}

func (e *ffrElem) Eval(x *mech.Ctx, f, k, c []float64) {
	b := e.b
	ns := b.ns
	n := 3 + ns
	d := b.d
	th, om := x.Q[d[2]], x.V[d[2]]
	rdd := [2]float64{x.A[d[0]], x.A[d[1]]}
	thdd := x.A[d[2]]
	eta := x.Q[b.e0 : b.e0+ns]
	etad := x.V[b.e0 : b.e0+ns]
	etadd := x.A[b.e0 : b.e0+ns]
	sn, cs := math.Sincos(th)
	rot := func(v [2]float64) [2]float64 { return [2]float64{cs*v[0] - sn*v[1], sn*v[0] + cs*v[1]} }
	rotT := func(v [2]float64) [2]float64 { return [2]float64{cs*v[0] + sn*v[1], -sn*v[0] + cs*v[1]} }
	rg := rotT([2]float64{rdd[0] - b.g[0], rdd[1] - b.g[1]})
	var w ffrWork
	st, sd, sa := b.s0, [2]float64{}, [2]float64{}
	jb := b.i0
	for i := 0; i < ns; i++ {
		sx, sy := b.sb[i], b.sb[ns+i]
		st[0] += sx * eta[i]
		st[1] += sy * eta[i]
		sd[0] += sx * etad[i]
		sd[1] += sy * etad[i]
		sa[0] += sx * etadd[i]
		sa[1] += sy * etadd[i]
		c1, c2 := b.a0[i], b.b0[i]
		var she, shd, med float64
		row := b.sh[i*ns : i*ns+ns]
		mrow := b.mee[i*ns : i*ns+ns]
		for j := 0; j < ns; j++ {
			she += row[j] * eta[j]
			shd += row[j] * etad[j]
			c2 += mrow[j] * eta[j]
			med += mrow[j] * etadd[j]
		}
		c1 += she
		w.c1[i], w.c2[i], w.she[i], w.shd[i], w.med[i] = c1, c2, she, shd, med
		jb += (b.b0[i] + c2) * eta[i]
	}
	ist := mech.Rot90(st)
	isd := mech.Rot90(sd)
	wb := [2]float64{thdd*ist[0] + sa[0] - om*om*st[0] + 2*om*isd[0], thdd*ist[1] + sa[1] - om*om*st[1] + 2*om*isd[1]}
	aw := rot(wb)
	// G
	gR := [2]float64{b.mass*rdd[0] + aw[0], b.mass*rdd[1] + aw[1]}
	gT := mech.Dot2(ist, rg) + thdd*jb
	for i := 0; i < ns; i++ {
		gT += w.c1[i]*etadd[i] + 2*om*w.c2[i]*etad[i]
	}
	// Q = M̄a − G
	mb := b.mbar
	for r := 0; r < n; r++ {
		row := mb[r*n : r*n+n]
		s := row[0]*rdd[0] + row[1]*rdd[1] + row[2]*thdd
		for j := 0; j < ns; j++ {
			s += row[3+j] * etadd[j]
		}
		f[r] += s
	}
	f[0] -= gR[0]
	f[1] -= gR[1]
	f[2] -= gT
	for i := 0; i < ns; i++ {
		gi := b.sb[i]*rg[0] + b.sb[ns+i]*rg[1] + thdd*w.c1[i] + w.med[i] - om*om*w.c2[i] + 2*om*w.shd[i]
		f[3+i] -= gi
	}
	// elastic and damping forces
	if b.stiff {
		b.internal(eta, f[3:], k, n)
	} else {
		for i := 0; i < ns; i++ {
			s := 0.0
			row := b.kee[i*ns : i*ns+ns]
			for j := 0; j < ns; j++ {
				s += row[j] * eta[j]
			}
			f[3+i] -= s
			if k != nil {
				kr := k[(3+i)*n+3 : (3+i)*n+3+ns]
				for j := 0; j < ns; j++ {
					kr[j] += row[j]
				}
			}
		}
	}
	if b.beta > 0 {
		for i := 0; i < ns; i++ {
			s := 0.0
			row := b.kee[i*ns : i*ns+ns]
			for j := 0; j < ns; j++ {
				s += row[j] * etad[j]
			}
			f[3+i] -= b.beta * s
			if c != nil {
				cr := c[(3+i)*n+3 : (3+i)*n+3+ns]
				for j := 0; j < ns; j++ {
					cr[j] += b.beta * row[j]
				}
			}
		}
	}
	if k == nil {
		return
	}
	// K = ∂G/∂q (+ elastic, above) + c_a (M(q) − M̄)
	// column θ
	aiw := rot(mech.Rot90(wb))
	k[0*n+2] += aiw[0]
	k[1*n+2] += aiw[1]
	irg := mech.Rot90(rg)
	k[2*n+2] += -mech.Dot2(st, rg)
	for i := 0; i < ns; i++ {
		k[(3+i)*n+2] += -(b.sb[i]*irg[0] + b.sb[ns+i]*irg[1])
	}
	// columns η
	for j := 0; j < ns; j++ {
		sj := [2]float64{b.sb[j], b.sb[ns+j]}
		isj := mech.Rot90(sj)
		v := rot([2]float64{thdd*isj[0] - om*om*sj[0], thdd*isj[1] - om*om*sj[1]})
		k[0*n+3+j] += v[0]
		k[1*n+3+j] += v[1]
		// (ĨS̄_j)·ρ_g + 2θ̈ c2_j + (Ŝᵀη̈)_j + 2ω (M η̇)_j
		sht, medd := 0.0, 0.0
		for i := 0; i < ns; i++ {
			sht += b.sh[i*ns+j] * etadd[i]
			medd += b.mee[j*ns+i] * etad[i]
		}
		k[2*n+3+j] += mech.Dot2(isj, rg) + 2*thdd*w.c2[j] + sht + 2*om*medd
	}
	for i := 0; i < ns; i++ {
		kr := k[(3+i)*n+3 : (3+i)*n+3+ns]
		sr := b.sh[i*ns : i*ns+ns]
		mr := b.mee[i*ns : i*ns+ns]
		for j := 0; j < ns; j++ {
			kr[j] += thdd*sr[j] - om*om*mr[j]
		}
	}
	// C = ∂G/∂v
	gw := rot([2]float64{-2*om*st[0] + 2*isd[0], -2*om*st[1] + 2*isd[1]})
	c[0*n+2] += gw[0]
	c[1*n+2] += gw[1]
	ct := 0.0
	for i := 0; i < ns; i++ {
		ct += 2 * w.c2[i] * etad[i]
		c[(3+i)*n+2] += -2*om*w.c2[i] + 2*w.shd[i]
		isj := rot(mech.Rot90([2]float64{b.sb[i], b.sb[ns+i]}))
		c[0*n+3+i] += 2 * om * isj[0]
		c[1*n+3+i] += 2 * om * isj[1]
		c[2*n+3+i] += 2 * om * w.c2[i]
		cr := c[(3+i)*n+3 : (3+i)*n+3+ns]
		sr := b.sh[i*ns : i*ns+ns]
		for j := 0; j < ns; j++ {
			cr[j] += 2 * om * sr[j]
		}
	}
	c[2*n+2] += ct
	// acceleration coupling c_a (M(q) − M̄): nonzero in the (R, θ), (R, η),
	// (θ, θ) and (θ, η) entries
	if ca := x.CA; ca != 0 {
		ai := rot(ist)
		dv := [2]float64{ai[0] - mb[2], ai[1] - mb[n+2]}
		k[2] += ca * dv[0]
		k[n+2] += ca * dv[1]
		k[2*n] += ca * dv[0]
		k[2*n+1] += ca * dv[1]
		k[2*n+2] += ca * (jb - mb[2*n+2])
		for j := 0; j < ns; j++ {
			sj := rot([2]float64{b.sb[j], b.sb[ns+j]})
			dx, dy := sj[0]-mb[3+j], sj[1]-mb[n+3+j]
			k[3+j] += ca * dx
			k[n+3+j] += ca * dy
			k[(3+j)*n] += ca * dx
			k[(3+j)*n+1] += ca * dy
			dc := w.c1[j] - mb[2*n+3+j]
			k[2*n+3+j] += ca * dc
			k[(3+j)*n+2] += ca * dc
		}
	}
}

// internal adds the stiffened (von Kármán) elastic forces −f_int into fe
// (the elastic part of the element's force vector) and, when k is not nil,
// the tangent stiffness into the elastic block of k (leading dimension n,
// offset 3). It returns the strain energy.
func (b *ffrBeam) internal(eta []float64, fe []float64, k []float64, n int) float64 {
	ns := b.ns
	U := 0.0
	var kv [6 * ffrMaxCoords]float64
	for e := 0; e < b.ne; e++ {
		idx := &b.edof[e]
		var pe [6]float64
		for a, i := range idx {
			if i < 0 {
				continue
			}
			if b.full {
				pe[a] = eta[i]
				continue
			}
			s := 0.0
			vr := b.v[i*ns : i*ns+ns]
			for j := 0; j < ns; j++ {
				s += vr[j] * eta[j]
			}
			pe[a] = s
		}
		var fl [6]float64
		var kl [36]float64
		// membrane strain, constant over the element (u linear): ε = u' + ½⟨w'²⟩,
		// ⟨w'²⟩ = p_wᵀ G p_w / l_e — the average avoids membrane locking
		pw := [4]float64{pe[1], pe[2], pe[4], pe[5]}
		var gp [4]float64
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				gp[i] += b.gw[4*i+j] * pw[j]
			}
		}
		le := b.le
		eps := (pe[3]-pe[0])/le + 0.5*(gp[0]*pw[0]+gp[1]*pw[1]+gp[2]*pw[2]+gp[3]*pw[3])/le
		nf := b.ea * eps
		U += 0.5 * b.ea * le * eps * eps
		de := [6]float64{-1 / le, gp[0] / le, gp[1] / le, 1 / le, gp[2] / le, gp[3] / le}
		wi := [6]int{-1, 0, 1, -1, 2, 3}
		for a := 0; a < 6; a++ {
			fl[a] += nf * le * de[a]
			if k == nil {
				continue
			}
			for c := 0; c < 6; c++ {
				v := b.ea * le * de[a] * de[c]
				if wi[a] >= 0 && wi[c] >= 0 {
					v += nf * b.gw[4*wi[a]+wi[c]]
				}
				kl[a*6+c] += v
			}
		}
		// bending
		for _, g := range b.gp {
			wdd := g.hdd[0]*pe[1] + g.hdd[1]*pe[2] + g.hdd[2]*pe[4] + g.hdd[3]*pe[5]
			U += g.w * 0.5 * b.ei * wdd * wdd
			bk := [6]float64{0, g.hdd[0], g.hdd[1], 0, g.hdd[2], g.hdd[3]}
			for a := 0; a < 6; a++ {
				fl[a] += g.w * b.ei * wdd * bk[a]
				if k == nil {
					continue
				}
				for c := 0; c < 6; c++ {
					kl[a*6+c] += g.w * b.ei * bk[a] * bk[c]
				}
			}
		}
		if b.full {
			for a, i := range idx {
				if i < 0 {
					continue
				}
				fe[i] -= fl[a]
				if k == nil {
					continue
				}
				for c, j := range idx {
					if j >= 0 {
						k[(3+i)*n+3+j] += kl[a*6+c]
					}
				}
			}
			continue
		}
		for a, i := range idx {
			if i < 0 {
				continue
			}
			vr := b.v[i*ns : i*ns+ns]
			for j := 0; j < ns; j++ {
				fe[j] -= vr[j] * fl[a]
			}
		}
		if k == nil {
			continue
		}
		// K_r += V_eᵀ K_e V_e
		for a := 0; a < 6; a++ {
			kva := kv[a*ns : a*ns+ns]
			clear(kva)
			for c, j := range idx {
				if j < 0 || kl[a*6+c] == 0 {
					continue
				}
				kac := kl[a*6+c]
				vr := b.v[j*ns : j*ns+ns]
				for jj := 0; jj < ns; jj++ {
					kva[jj] += kac * vr[jj]
				}
			}
		}
		for a, i := range idx {
			if i < 0 {
				continue
			}
			vr := b.v[i*ns : i*ns+ns]
			kva := kv[a*ns : a*ns+ns]
			for ii := 0; ii < ns; ii++ {
				if vr[ii] == 0 {
					continue
				}
				kr := k[(3+ii)*n+3 : (3+ii)*n+3+ns]
				for jj := 0; jj < ns; jj++ {
					kr[jj] += vr[ii] * kva[jj]
				}
			}
		}
	}
	return U
}

// strain returns the strain energy at eta.
func (b *ffrBeam) strain(eta []float64) float64 {
	if b.stiff {
		var fe [ffrMaxCoords]float64
		return b.internal(eta, fe[:b.ns], nil, 0)
	}
	U := 0.0
	ns := b.ns
	for i := 0; i < ns; i++ {
		for j := 0; j < ns; j++ {
			U += 0.5 * eta[i] * b.kee[i*ns+j] * eta[j]
		}
	}
	return U
}

func (e *ffrElem) Potential(x *mech.Ctx) float64 {
	b := e.b
	eta := x.Q[b.e0 : b.e0+b.ns]
	st := b.s0
	for i := 0; i < b.ns; i++ {
		st[0] += b.sb[i] * eta[i]
		st[1] += b.sb[b.ns+i] * eta[i]
	}
	sn, cs := math.Sincos(x.Q[b.d[2]])
	ast := [2]float64{cs*st[0] - sn*st[1], sn*st[0] + cs*st[1]}
	// gravity of the beam's offset from the body's centre of mass (the
	// part m g·R is in the model's gravity vector)
	return b.strain(eta) - mech.Dot2(b.g, ast)
}

// kineticCorrection returns ½ vᵀ (M(q) − M̄) v of the beam's terms.
func (e *ffrElem) KineticCorrection(x *mech.Ctx) float64 {
	b := e.b
	ns := b.ns
	n := 3 + ns
	// only the configuration-dependent entries differ from M̄
	th := x.Q[b.d[2]]
	eta := x.Q[b.e0 : b.e0+ns]
	sn, cs := math.Sincos(th)
	st := b.s0
	jb := b.i0
	vt := x.V[b.d[2]]
	vr := [2]float64{x.V[b.d[0]], x.V[b.d[1]]}
	etad := x.V[b.e0 : b.e0+ns]
	mb := b.mbar
	dT := 0.0
	for i := 0; i < ns; i++ {
		st[0] += b.sb[i] * eta[i]
		st[1] += b.sb[ns+i] * eta[i]
		c1, c2 := b.a0[i], b.b0[i]
		for j := 0; j < ns; j++ {
			c1 += b.sh[i*ns+j] * eta[j]
			c2 += b.mee[i*ns+j] * eta[j]
		}
		jb += (b.b0[i] + c2) * eta[i]
		sx, sy := b.sb[i], b.sb[ns+i]
		ax, ay := cs*sx-sn*sy, sn*sx+cs*sy
		dT += (vr[0]*(ax-mb[3+i]) + vr[1]*(ay-mb[n+3+i])) * etad[i]
		dT += vt * (c1 - mb[2*n+3+i]) * etad[i]
	}
	ist := mech.Rot90(st)
	ai := [2]float64{cs*ist[0] - sn*ist[1], sn*ist[0] + cs*ist[1]}
	dT += (vr[0]*(ai[0]-mb[2]) + vr[1]*(ai[1]-mb[n+2])) * vt
	dT += 0.5 * (jb - mb[2*n+2]) * vt * vt
	return dT
}

// markerKin returns position, velocity and the elastic displacement (in
// the beam's axes: axial, transverse) of marker i.
func (b *ffrBeam) markerKin(q, v []float64, mk *flexMarker) (r, vel [2]float64, ax, tr float64) {
	ns := b.ns
	eta := q[b.e0 : b.e0+ns]
	u := mk.u0
	var du, dud [2]float64
	for j := 0; j < ns; j++ {
		du[0] += mk.phi[j] * eta[j]
		du[1] += mk.phi[ns+j] * eta[j]
		if v != nil {
			dud[0] += mk.phi[j] * v[b.e0+j]
			dud[1] += mk.phi[ns+j] * v[b.e0+j]
		}
	}
	u[0] += du[0]
	u[1] += du[1]
	th := q[b.d[2]]
	sn, cs := math.Sincos(th)
	au := [2]float64{cs*u[0] - sn*u[1], sn*u[0] + cs*u[1]}
	r = [2]float64{q[b.d[0]] + au[0], q[b.d[1]] + au[1]}
	if v != nil {
		om := v[b.d[2]]
		ad := [2]float64{cs*dud[0] - sn*dud[1], sn*dud[0] + cs*dud[1]}
		vel = [2]float64{v[b.d[0]] - om*au[1] + ad[0], v[b.d[1]] + om*au[0] + ad[1]}
	}
	return r, vel, mech.Dot2(b.t, du), mech.Dot2(b.n, du)
}

// ffrLoad is a point force at a marker of an FFR beam: components in the
// global frame, or (follower) in the beam's floating frame (x along the
// undeformed beam axis).
type ffrLoad struct {
	b        *ffrBeam
	name     string
	mk       flexMarker
	fx, fy   mech.Param
	follower bool
}

func (e *ffrLoad) Dofs() []int { return e.b.dofl }

// Params lists the load's run-time parameters.
func (e *ffrLoad) Params() []*mech.Param { return []*mech.Param{&e.fx, &e.fy} }

func (e *ffrLoad) force(x *mech.Ctx) [2]float64 {
	f := [2]float64{e.fx.Get(x), e.fy.Get(x)}
	if !e.follower {
		return f
	}
	b := e.b
	fb := [2]float64{f[0]*b.t[0] + f[1]*b.n[0], f[0]*b.t[1] + f[1]*b.n[1]}
	sn, cs := math.Sincos(x.Q[b.d[2]])
	return [2]float64{cs*fb[0] - sn*fb[1], sn*fb[0] + cs*fb[1]}
}

func (e *ffrLoad) Eval(x *mech.Ctx, f, k, c []float64) {
	b := e.b
	ns := b.ns
	n := 3 + ns
	F := e.force(x)
	th := x.Q[b.d[2]]
	sn, cs := math.Sincos(th)
	fb := [2]float64{cs*F[0] + sn*F[1], -sn*F[0] + cs*F[1]} // body frame
	eta := x.Q[b.e0 : b.e0+ns]
	u := e.mk.u0
	for j := 0; j < ns; j++ {
		u[0] += e.mk.phi[j] * eta[j]
		u[1] += e.mk.phi[ns+j] * eta[j]
	}
	iu := mech.Rot90(u)
	f[0] += F[0]
	f[1] += F[1]
	f[2] += mech.Dot2(iu, fb)
	for j := 0; j < ns; j++ {
		f[3+j] += e.mk.phi[j]*fb[0] + e.mk.phi[ns+j]*fb[1]
	}
	if k == nil {
		return
	}
	ifb := mech.Rot90(fb)
	if e.follower {
		// Q_R = A f_b: ∂/∂θ = A Ĩ f_b; Q_θ = (Ĩū)·f_b: ∂/∂η_j = −(Ĩf_b)·Φ_j
		aif := [2]float64{cs*ifb[0] - sn*ifb[1], sn*ifb[0] + cs*ifb[1]}
		k[0*n+2] -= aif[0]
		k[1*n+2] -= aif[1]
		for j := 0; j < ns; j++ {
			k[2*n+3+j] += ifb[0]*e.mk.phi[j] + ifb[1]*e.mk.phi[ns+j]
		}
		return
	}
	// F global: Q_θ = ūᵀĨᵀf_b, f_b = AᵀF: ∂/∂θ = −ū·f_b, ∂/∂η_j = (ĨΦ_j)·f_b·(−1)…
	k[2*n+2] += mech.Dot2(u, fb)
	for j := 0; j < ns; j++ {
		pj := [2]float64{e.mk.phi[j], e.mk.phi[ns+j]}
		// ∂Q_θ/∂η_j = (Ĩ Φ_j)·f_b ; ∂Q_η_j/∂θ = Φ_j·(−Ĩ f_b)
		k[2*n+3+j] -= mech.Dot2(mech.Rot90(pj), fb)
		k[(3+j)*n+2] += mech.Dot2(pj, ifb)
	}
}

func (e *ffrLoad) Potential(*mech.Ctx) float64 { return 0 }

func (e *ffrLoad) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".fx", Unit: "N", Group: "force", Description: "force " + name + " x component (global)"},
		{Name: name + ".fy", Unit: "N", Group: "force", Description: "force " + name + " y component (global)"},
	}
}

func (e *ffrLoad) Channel(x *mech.Ctx, sub int) float64 { return e.force(x)[sub] }

// MassCorrection writes M(q) − M̄ over the element's dofs
// (mech.MassCorrector).
func (e *ffrElem) MassCorrection(x *mech.Ctx, dm []float64) {
	b := e.b
	n := 3 + b.ns
	b.massAt(x.Q[b.d[2]], x.Q[b.e0:b.e0+b.ns], dm[:n*n])
	for i, v := range b.mbar {
		dm[i] -= v
	}
}

// foreshortening returns the relative part of the foreshortening of the
// reduced model's lowest mode (u_f' = −½ w'², element-averaged) that the
// basis cannot carry, fitted in the axial strain energy (ffr3Beam's
// check, for the planar beam; 0 unreduced).
func (b *ffrBeam) foreshortening() float64 {
	if b.full {
		return 0
	}
	ns, ne, le := b.ns, b.ne, b.le
	_, Z, err := genEigen(b.mee, b.kee, ns)
	if err != nil {
		return 1
	}
	full := func(c func(k int) float64) func(i int) float64 {
		return func(i int) float64 {
			s := 0.0
			for k := 0; k < ns; k++ {
				s += b.v[i*ns+k] * c(k)
			}
			return s
		}
	}
	val := func(f func(i int) float64, i int) float64 {
		if i < 0 {
			return 0
		}
		return f(i)
	}
	axial := func(f func(i int) float64) []float64 {
		eps := make([]float64, ne)
		for e := 0; e < ne; e++ {
			idx := &b.edof[e]
			eps[e] = (val(f, idx[3]) - val(f, idx[0])) / le
		}
		return eps
	}
	EV := make([][]float64, ns)
	for k := 0; k < ns; k++ {
		kk := k
		EV[k] = axial(func(i int) float64 { return b.v[i*ns+kk] })
	}
	shape := full(func(k int) float64 { return Z[k*ns] })
	ef := make([]float64, ne)
	for e := 0; e < ne; e++ {
		idx := &b.edof[e]
		pw := [4]float64{val(shape, idx[1]), val(shape, idx[2]), val(shape, idx[4]), val(shape, idx[5])}
		q := 0.0
		for a := 0; a < 4; a++ {
			for c := 0; c < 4; c++ {
				q += b.gw[4*a+c] * pw[a] * pw[c]
			}
		}
		ef[e] = -0.5 * q / le
	}
	norm := dotv(ef, ef)
	if !(norm > 0) {
		return 0 // an axial lowest mode
	}
	return fitResidual(EV, ef)
}

// addAxialShapes completes the Craig–Bampton basis b.v (nf × b.ns) of a
// stiffened beam with the axial shapes its averaged axial strain
// u' + ½⟨w'²⟩ needs to follow the foreshortening (constraint and
// fixed-interface modes have too few of them, and the beam locks: Kane's
// spin-up 0.21 m of tip deflection instead of 0.58 m). As for spatial
// beams (ffr3Beam): the Krylov sequence of the tip's axial force, as many
// vectors as fixed-interface modes s (at most ne: the sequence stays in the
// axial coordinates, one a node), joins the basis, which is then made
// M-orthonormal; the first of these vectors, the tip's axial constraint
// mode, and any other dependent column are dropped (b.ns shrinks
// accordingly). foreshortening checks the result.
func (b *ffrBeam) addAxialShapes(M, K []float64, s int) error {
	nf, w := b.nf, b.ns
	B := make([]float64, nf)
	B[nf-3] = 1 // tip axial force
	ax, err := krylovBasis(M, K, nf, B, 1, 0, min(s, nf-w, b.ne))
	if err != nil {
		return err
	}
	na := len(ax) / nf
	W := make([]float64, nf*(w+na))
	for i := 0; i < nf; i++ {
		copy(W[i*(w+na):], b.v[i*w:i*w+w])
		copy(W[i*(w+na)+w:], ax[i*na:i*na+na])
	}
	V, m := mOrthonormal(W, denseOp(M, nf), nf, w+na, nil, 0)
	if m == 0 {
		return fmt.Errorf("the basis has no elastic shapes")
	}
	b.v, b.ns = V, m
	return nil
}

// foreshorteningError is the message refusing a stiffened Krylov or
// Craig–Bampton beam whose basis cannot carry the part lost (from
// foreshortening) of the foreshortening of its lowest bending shape.
func (b *ffrBeam) foreshorteningError(lost float64) string {
	what := fmt.Sprintf("the basis of %d Krylov vectors", b.ns)
	more := "use more vectors"
	if b.kind == "craig-bampton" {
		what = fmt.Sprintf("the Craig–Bampton basis with the tip's axial Krylov vectors (%d coordinates)", b.ns)
		more = "use more modes (as many axial vectors join as fixed-interface modes)"
	}
	return fmt.Sprintf("ffr beam %q: %s cannot carry %.0f %% of the foreshortening of its lowest bending shape, and the stiffened coupling would charge it as stretch (locking: the beam too stiff by up to several times): %s, or no reduction", b.name, what, 100*lost, more)
}
