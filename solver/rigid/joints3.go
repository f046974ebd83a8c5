package rigid

import (
	"mbfmu/expr"
	"mbfmu/solver/mech"
)

// Spatial joints are built from scalar rows on a few world vectors of
// their two marker frames — the origins pᵢ, pⱼ and the axes xᵢ … zⱼ — in
// the manner of Haug's basic constraints:
//
//	pos:   Φ = c·(pⱼ − pᵢ) − F(t)          c a fixed world direction
//	dot1:  Φ = a·b − c₀                     a an axis of i, b an axis of j
//	dot2:  Φ = a·(pⱼ − pᵢ) − c₀ − F(t)      a an axis of i
//	dist:  Φ = |pⱼ − pᵢ| − L
//	angle: Φ = wrap(atan2(yᵢ·xⱼ, xᵢ·xⱼ) − c₀ − F(t))  rotation about zᵢ
//
// Each row is a function f(w₁, w₂, …) of world vectors with its gradient
// gₖ = ∂f/∂wₖ and second derivatives Hₖₗ; a world vector of a body moves
// with the body's increment (δr, δθ) as δw = Bₖ (δr, δθ), Bₖ = [I, −A[s]×]
// for a point at s from the centre of mass and [0, −A[u]×] for an axis u,
// both in the body frame. So, for every row:
//
//	J  = Σₖ gₖᵀ Bₖ    (rotational part: s × Aᵀgₖ)
//	∂(Jᵀλ)/∂q = λ (Σₖₗ Bₖᵀ Hₖₗ Bₗ + Σₖ [s]× [Aᵀgₖ]× on the rotations of wₖ's body)
//	γ  = F̈ − Σₖ gₖ·κₖ − Σₖₗ ẇₖᵀ Hₖₗ ẇₗ,   κ = ω × (ω × A s)
//
// (the second line is the derivative of the right-trivialised Jacobian:
// Aᵀ turns into (I − [δθ]×) Aᵀ). One implementation of these rules serves
// every joint kind; each kind is a list of rows.

// wref names a world vector of a joint.
type wref uint8

const (
	wPi wref = iota // origin of marker i
	wPj             // origin of marker j
	wXi             // axes of marker i: wXi + 0, 1, 2
	wYi
	wZi
	wXj // axes of marker j
	wYj
	wZj
)

func (w wref) side() int {
	if w == wPj || w >= wXj {
		return 1
	}
	return 0
}

func (w wref) point() bool { return w <= wPj }

// axis returns the local axis index of a direction.
func (w wref) axis() int {
	if w >= wXj {
		return int(w - wXj)
	}
	return int(w - wXi)
}

type primKind uint8

const (
	pPos primKind = iota
	pDot1
	pDot2
	pDist
	pAngle
)

// prim is one row of a spatial joint.
type prim struct {
	kind primKind
	a, b wref      // dot1: a (of i) · b (of j); dot2: a (of i)
	c    mech.Vec3 // pos: the world direction
	c0   float64   // constant: angle, product or length
	// the prescribed value F(t) and its time derivatives (nil: zero)
	f, df, ddf *expr.Program
}

// pside is the kinematics of a joint side's origin: all the three rows of
// a spherical joint read.
type pside struct {
	on bool      // on a body (not ground)
	A  mech.Mat3 // the body's rotation
	s  mech.Vec3 // origin from the centre of mass (body frame)
	p  mech.Vec3 // marker origin (world)
	kp mech.Vec3 // the origin's ω × (ω × A s) (with velocities)
}

// eval evaluates the origin of frame f (the arithmetic of mech.Frame.Eval
// for the quantities pside holds).
func (k *pside) eval(f *mech.Frame, x *mech.Ctx, vel bool) {
	k.s = f.S
	if f.Body < 0 { // (A is not used on the ground)
		k.on, k.p, k.kp = false, f.S, mech.Vec3{}
		return
	}
	k.on = true
	q := (*[7]float64)(x.Q[f.Q : f.Q+7])
	A := &k.A
	mech.QuatMatTo(A, q[3], q[4], q[5], q[6])
	// A s and p on scalars (mech.MulMV's arithmetic)
	s0, s1, s2 := f.S[0], f.S[1], f.S[2]
	as0 := A[0]*s0 + A[1]*s1 + A[2]*s2
	as1 := A[3]*s0 + A[4]*s1 + A[5]*s2
	as2 := A[6]*s0 + A[7]*s1 + A[8]*s2
	k.p[0], k.p[1], k.p[2] = q[0]+as0, q[1]+as1, q[2]+as2
	k.kp = mech.Vec3{}
	if vel {
		as := mech.Vec3{as0, as1, as2}
		v := (*[3]float64)(x.V[f.V+3 : f.V+6])
		w := mech.MulMV(&k.A, *v)
		k.kp = mech.Cross(w, mech.Cross(w, as))
	}
}

// side3 is the kinematics of one side of a joint.
type side3 struct {
	pside
	as    mech.Vec3 // A s
	v     mech.Vec3 // origin velocity
	w     mech.Vec3 // angular velocity (world)
	ax    [3]mech.Vec3
	u     [3]mech.Vec3 // axes (body frame)
	wdot  [3]mech.Vec3 // axes' velocities
	kappa [3]mech.Vec3 // axes' ω × (ω × a)
}

// eval evaluates the side's frame; axes is the mask of the axes the
// joint's rows use (bit a for axis a).
func (k *side3) eval(f *mech.Frame, x *mech.Ctx, vel bool, axes uint8) {
	var kf mech.KinFrame
	var v []float64
	if vel {
		v = x.V
	}
	f.Eval(x.Q, v, &kf)
	k.on = f.Body >= 0
	k.A, k.p, k.as, k.v, k.w, k.s = kf.A, kf.P, kf.AS, kf.V, kf.W, f.S
	if vel {
		k.kp = mech.Cross(k.w, mech.Cross(k.w, k.as))
	}
	for a := 0; a < 3; a++ {
		if axes&(1<<a) == 0 {
			continue
		}
		k.u[a] = f.LocalAxis(a)
		k.ax[a] = mech.MulMV(&kf.A, k.u[a])
		if vel {
			k.wdot[a] = mech.Cross(k.w, k.ax[a])
			k.kappa[a] = mech.Cross(k.w, k.wdot[a])
		}
	}
}

// vec returns a world vector's value, velocity, centripetal term and
// local vector (s or u).
func (e *joint3) vec(ks *[2]side3, w wref) (val, dot, kappa, loc mech.Vec3) {
	k := &ks[w.side()]
	if w.point() {
		return k.p, k.v, k.kp, k.s
	}
	a := w.axis()
	return k.ax[a], k.wdot[a], k.kappa[a], k.u[a]
}

// rowDiff is a row's value and derivatives with respect to its world
// vectors.
type rowDiff struct {
	phi float64
	n   int
	in  [3]wref
	g   [3]mech.Vec3
	h   [3][3]mech.Mat3
	hz  [3][3]bool // h[k][l] is nonzero
}

func (d *rowDiff) setH(k, l int, m mech.Mat3) {
	d.h[k][l], d.hz[k][l] = m, true
	if k != l {
		d.h[l][k], d.hz[l][k] = mech.Transpose(&m), true
	}
}

// diff evaluates row r's function and its derivatives.
func (e *joint3) diff(r *prim, ks *[2]side3, x *mech.Ctx) rowDiff {
	var d rowDiff
	val := func(w wref) mech.Vec3 { v, _, _, _ := e.vec(ks, w); return v }
	F := 0.0
	if r.f != nil {
		F = r.f.Eval(x.Vars, x)
	}
	I := mech.Ident
	switch r.kind {
	case pPos:
		dd := mech.Sub(val(wPj), val(wPi))
		d.phi = mech.Dot(r.c, dd) - r.c0 - F
		d.n, d.in = 2, [3]wref{wPj, wPi}
		d.g[0], d.g[1] = r.c, mech.Scale(-1, r.c)
	case pDot1:
		a, b := val(r.a), val(r.b)
		d.phi = mech.Dot(a, b) - r.c0
		d.n, d.in = 2, [3]wref{r.a, r.b}
		d.g[0], d.g[1] = b, a
		d.setH(0, 1, I)
	case pDot2:
		a := val(r.a)
		dd := mech.Sub(val(wPj), val(wPi))
		d.phi = mech.Dot(a, dd) - r.c0 - F
		d.n, d.in = 3, [3]wref{r.a, wPj, wPi}
		d.g[0], d.g[1], d.g[2] = dd, a, mech.Scale(-1, a)
		d.setH(0, 1, I)
		d.setH(0, 2, mech.ScaleM(-1, I))
	case pDist:
		dd := mech.Sub(val(wPj), val(wPi))
		l := mech.Norm(dd)
		d.phi = l - r.c0
		d.n, d.in = 2, [3]wref{wPj, wPi}
		if l > 0 {
			u := mech.Scale(1/l, dd)
			d.g[0], d.g[1] = u, mech.Scale(-1, u)
			P := mech.ScaleM(1/l, mech.AddM(I, mech.ScaleM(-1, mech.Outer(u, u))))
			d.setH(0, 0, P)
			d.setH(1, 1, P)
			d.setH(0, 1, mech.ScaleM(-1, P))
		}
	case pAngle:
		th, g, h := mech.AngleRow(val(wXi), val(wYi), val(wXj))
		d.phi = mech.WrapAngle(th - r.c0 - F)
		d.n, d.in = 3, [3]wref{wXi, wYi, wXj}
		d.g = g
		for k := 0; k < 3; k++ {
			for l := k; l < 3; l++ {
				d.setH(k, l, h[k][l])
			}
		}
	}
	return d
}

// joint3 is a spatial constraint element: rows on the twelve velocities of
// the bodies of two marker frames (i's first; -1 for ground).
type joint3 struct {
	fi, fj   mech.Frame
	rows     []prim
	d        [12]int
	axI, axJ uint8 // masks of the axes of i and j the rows use
	// sph: the first three rows are pⱼ − pᵢ = 0 along x, y, z (spherical,
	// revolute, universal and fixed joints), evaluated together
	sph bool
}

func newJoint3(fi, fj mech.Frame, rows ...prim) *joint3 {
	e := &joint3{fi: fi, fj: fj, rows: rows}
	e.sph = len(rows) >= 3
	for r := 0; r < 3 && e.sph; r++ {
		pr := &rows[r]
		var c mech.Vec3
		c[r] = 1
		e.sph = pr.kind == pPos && pr.c == c && pr.c0 == 0 && pr.f == nil && pr.df == nil && pr.ddf == nil
	}
	mark := func(w wref) {
		if w.point() {
			return
		}
		if w.side() == 0 {
			e.axI |= 1 << w.axis()
		} else {
			e.axJ |= 1 << w.axis()
		}
	}
	for _, r := range rows {
		switch r.kind {
		case pDot1:
			mark(r.a)
			mark(r.b)
		case pDot2:
			mark(r.a)
		case pAngle:
			mark(wXi)
			mark(wYi)
			mark(wXj)
			mark(wZi)
		}
	}
	for k := 0; k < 6; k++ {
		e.d[k], e.d[6+k] = -1, -1
		if fi.Body >= 0 {
			e.d[k] = fi.V + k
		}
		if fj.Body >= 0 {
			e.d[6+k] = fj.V + k
		}
	}
	return e
}

func (e *joint3) Dofs() []int { return e.d[:] }
func (e *joint3) Rows() int   { return len(e.rows) }

// sides evaluates the joint's two frames.
func (e *joint3) sides(x *mech.Ctx, vel bool, ks *[2]side3) {
	ks[0].eval(&e.fi, x, vel, e.axI)
	ks[1].eval(&e.fj, x, vel, e.axJ)
}

func (e *joint3) Eval(x *mech.Ctx, out mech.Rows, vel bool) {
	if e.sph && len(e.rows) == 3 {
		var ki, kj pside
		ki.eval(&e.fi, x, vel)
		kj.eval(&e.fj, x, vel)
		sphRows(&ki, &kj, out, vel)
		return
	}
	var ks [2]side3
	e.sides(x, vel, &ks)
	r0 := 0
	if e.sph {
		sphRows(&ks[0].pside, &ks[1].pside, out, vel)
		r0 = 3
	}
	for r := r0; r < len(e.rows); r++ {
		pr := &e.rows[r]
		switch pr.kind {
		case pPos, pDot1:
			out.Phi[r], out.Phit[r], out.Gamma[r] = e.fast(x, pr, &ks, out.Jac[12*r:12*r+12], vel)
			continue
		}
		d := e.diff(pr, &ks, x)
		out.Phi[r] = d.phi
		e.jacRow(&d, &ks, out.Jac[12*r:12*r+12])
		var df, ddf float64
		if pr.df != nil {
			df = pr.df.Eval(x.Vars, x)
		}
		out.Phit[r] = -df
		if !vel {
			out.Gamma[r] = 0
			continue
		}
		if pr.ddf != nil {
			ddf = pr.ddf.Eval(x.Vars, x)
		}
		g := ddf
		for k := 0; k < d.n; k++ {
			_, dk, kk, _ := e.vec(&ks, d.in[k])
			g -= mech.Dot(d.g[k], kk)
			for l := 0; l < d.n; l++ {
				if d.hz[k][l] {
					_, dl, _, _ := e.vec(&ks, d.in[l])
					g -= mech.Dot(dk, mech.MulMV(&d.h[k][l], dl))
				}
			}
		}
		out.Gamma[r] = g
	}
}

func (e *joint3) Hess(x *mech.Ctx, lam []float64, h []float64) {
	if e.sph && len(e.rows) == 3 {
		var ki, kj pside
		ki.eval(&e.fi, x, false)
		kj.eval(&e.fj, x, false)
		sphHess(&ki, &kj, lam, h)
		return
	}
	var ks [2]side3
	e.sides(x, false, &ks)
	r0 := 0
	if e.sph {
		sphHess(&ks[0].pside, &ks[1].pside, lam, h)
		r0 = 3
	}
	for r := r0; r < len(e.rows); r++ {
		if lam[r] == 0 {
			continue
		}
		switch e.rows[r].kind {
		case pPos, pDot1:
			e.fastHess(&e.rows[r], &ks, lam[r], h)
			continue
		}
		d := e.diff(&e.rows[r], &ks, x)
		e.hessRow(&d, &ks, lam[r], h)
	}
}

// HessPattern is the spherical joint's: its Hessian (sphHess) has the
// rotation-by-rotation block of each side's body only. Other joints have
// none (nil).
func (e *joint3) HessPattern() []bool {
	if !e.sph || len(e.rows) != 3 {
		return nil
	}
	p := make([]bool, 12*12)
	for _, o := range [2]int{3, 9} {
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				p[(o+i)*12+o+j] = true
			}
		}
	}
	return p
}

// sphRows writes the rows pⱼ − pᵢ = 0 (x, y, z) into rows 0..2 of out:
// the pos rows of fast with c the unit axes, J = [−I, s × Aᵢ row r | I,
// −(s × Aⱼ row r)] and γ = −(κⱼ − κᵢ).
func sphRows(ki, kj *pside, out mech.Rows, vel bool) {
	J := (*[36]float64)(out.Jac[:36])
	phi, phit, gam := (*[3]float64)(out.Phi[:3]), (*[3]float64)(out.Phit[:3]), (*[3]float64)(out.Gamma[:3])
	*phit = [3]float64{}
	*gam = [3]float64{}
	for r := range phi {
		phi[r] = kj.p[r] - ki.p[r]
		if vel {
			gam[r] = -(kj.kp[r] - ki.kp[r])
		}
	}
	sphJac(ki, (*[6]float64)(J[0:6]), (*[6]float64)(J[12:18]), (*[6]float64)(J[24:30]), -1)
	sphJac(kj, (*[6]float64)(J[6:12]), (*[6]float64)(J[18:24]), (*[6]float64)(J[30:36]), 1)
}

// sphJac writes sc times side k's part of the Jacobian rows x, y, z of
// pⱼ − pᵢ: (e_r, s × A row r).
func sphJac(k *pside, jx, jy, jz *[6]float64, sc float64) {
	if !k.on {
		return // the ground's columns are not unknowns: never read
	}
	s0, s1, s2 := k.s[0], k.s[1], k.s[2]
	A := &k.A
	*jx = [6]float64{sc, 0, 0, sc * (s1*A[2] - s2*A[1]), sc * (s2*A[0] - s0*A[2]), sc * (s0*A[1] - s1*A[0])}
	*jy = [6]float64{0, sc, 0, sc * (s1*A[5] - s2*A[4]), sc * (s2*A[3] - s0*A[5]), sc * (s0*A[4] - s1*A[3])}
	*jz = [6]float64{0, 0, sc, sc * (s1*A[8] - s2*A[7]), sc * (s2*A[6] - s0*A[8]), sc * (s0*A[7] - s1*A[6])}
}

// sphHess adds Σᵣ λᵣ ∂(Jᵣᵀ)/∂q of the rows pⱼ − pᵢ = 0 into h: on the
// rotations of each side's body ±[s]× [Aᵀλ]× (the own terms of fastHess
// summed over the three rows).
func sphHess(ki, kj *pside, lam []float64, h []float64) {
	l := mech.Vec3{lam[0], lam[1], lam[2]}
	if l == (mech.Vec3{}) {
		return
	}
	sphHessSide(ki, l, h[3*12+3:], -1)
	sphHessSide(kj, l, h[9*12+9:], 1)
}

// sphHessSide adds sc·[s]×[Aᵀλ]× = sc·(g sᵀ − (s·g) I), g = Aᵀλ, for the
// side k of a spherical joint into the 3×3 block of the 12-column h that
// starts at h[0].
func sphHessSide(k *pside, l mech.Vec3, h []float64, sc float64) {
	if !k.on {
		return
	}
	g := mech.MulMTV(&k.A, l)
	sv := k.s
	d := mech.Dot(sv, g)
	for i := 0; i < 3; i++ {
		row := h[i*12 : i*12+3]
		gi := g[i]
		row[0] += sc * (gi * sv[0])
		row[1] += sc * (gi * sv[1])
		row[2] += sc * (gi * sv[2])
		row[i] -= sc * d
	}
}

// fast evaluates a pos or dot-1 row directly: Φ, ∂Φ/∂t, γ and the
// Jacobian (the rules of the file comment written out for these rows).
func (e *joint3) fast(x *mech.Ctx, pr *prim, ks *[2]side3, jac []float64, vel bool) (phi, phit, gamma float64) {
	clear(jac)
	ki, kj := &ks[0], &ks[1]
	switch pr.kind {
	case pPos:
		c := pr.c
		F := 0.0
		if pr.f != nil {
			F = pr.f.Eval(x.Vars, x)
		}
		phi = c[0]*(kj.p[0]-ki.p[0]) + c[1]*(kj.p[1]-ki.p[1]) + c[2]*(kj.p[2]-ki.p[2]) - pr.c0 - F
		if kj.on {
			jac[6], jac[7], jac[8] = c[0], c[1], c[2]
			r := mech.Cross(kj.s, mech.MulMTV(&kj.A, c))
			jac[9], jac[10], jac[11] = r[0], r[1], r[2]
		}
		if ki.on {
			jac[0], jac[1], jac[2] = -c[0], -c[1], -c[2]
			r := mech.Cross(ki.s, mech.MulMTV(&ki.A, c))
			jac[3], jac[4], jac[5] = -r[0], -r[1], -r[2]
		}
		if vel {
			gamma = -(c[0]*(kj.kp[0]-ki.kp[0]) + c[1]*(kj.kp[1]-ki.kp[1]) + c[2]*(kj.kp[2]-ki.kp[2]))
		}
	case pDot1:
		ia, jb := pr.a.axis(), pr.b.axis()
		a, b := ki.ax[ia], kj.ax[jb]
		phi = mech.Dot(a, b) - pr.c0
		if ki.on {
			r := mech.Cross(ki.u[ia], mech.MulMTV(&ki.A, b))
			jac[3], jac[4], jac[5] = r[0], r[1], r[2]
		}
		if kj.on {
			r := mech.Cross(kj.u[jb], mech.MulMTV(&kj.A, a))
			jac[9], jac[10], jac[11] = r[0], r[1], r[2]
		}
		if vel {
			gamma = -(mech.Dot(b, ki.kappa[ia]) + mech.Dot(a, kj.kappa[jb]) + 2*mech.Dot(ki.wdot[ia], kj.wdot[jb]))
		}
	}
	if pr.df != nil {
		phit = -pr.df.Eval(x.Vars, x)
	}
	if vel && pr.ddf != nil {
		gamma += pr.ddf.Eval(x.Vars, x)
	}
	return
}

// fastHess adds l·∂(Jᵀ)/∂q of a pos or dot-1 row into h.
func (e *joint3) fastHess(pr *prim, ks *[2]side3, l float64, h []float64) {
	ki, kj := &ks[0], &ks[1]
	own := func(k *side3, o int, loc, g mech.Vec3, sc float64) {
		S := mech.Skew(loc)
		G := mech.Skew(mech.MulMTV(&k.A, g))
		SG := mech.MulMM(&S, &G)
		addBlock(h, o+3, o+3, sc*l, &SG)
	}
	switch pr.kind {
	case pPos:
		if kj.on {
			own(kj, 6, kj.s, pr.c, 1)
		}
		if ki.on {
			own(ki, 0, ki.s, pr.c, -1)
		}
	case pDot1:
		ia, jb := pr.a.axis(), pr.b.axis()
		a, b := ki.ax[ia], kj.ax[jb]
		if ki.on {
			own(ki, 0, ki.u[ia], b, 1)
		}
		if kj.on {
			own(kj, 6, kj.u[jb], a, 1)
		}
		if ki.on && kj.on {
			// (−A_i[u_a]×)ᵀ (−A_j[u_b]×) = −[u_a]× A_iᵀ A_j [u_b]×
			Ua, Ub := mech.Skew(ki.u[ia]), mech.Skew(kj.u[jb])
			AiT := mech.Transpose(&ki.A)
			M := mech.MulMM(&AiT, &kj.A)
			UM := mech.MulMM(&Ua, &M)
			X := mech.MulMM(&UM, &Ub)
			addBlock(h, 3, 9, -l, &X)
			Xt := mech.Transpose(&X)
			addBlock(h, 9, 3, -l, &Xt)
		}
	}
}

// jacRow writes a row's Jacobian (12) from its derivatives d.
func (e *joint3) jacRow(d *rowDiff, ks *[2]side3, jac []float64) {
	clear(jac)
	for k := 0; k < d.n; k++ {
		w := d.in[k]
		sd := &ks[w.side()]
		if !sd.on {
			continue
		}
		o := 6 * w.side()
		_, _, _, loc := e.vec(ks, w)
		if w.point() {
			jac[o] += d.g[k][0]
			jac[o+1] += d.g[k][1]
			jac[o+2] += d.g[k][2]
		}
		rt := mech.Cross(loc, mech.MulMTV(&sd.A, d.g[k]))
		jac[o+3] += rt[0]
		jac[o+4] += rt[1]
		jac[o+5] += rt[2]
	}
}

// hessRow adds l·∂(Jᵀ)/∂q of a row (derivatives d) into h (12×12).
func (e *joint3) hessRow(d *rowDiff, ks *[2]side3, l float64, h []float64) {
	// B of each input: translation block (identity or zero) and rotation
	// block −A [loc]×
	var rot [3]mech.Mat3
	for k := 0; k < d.n; k++ {
		sd := &ks[d.in[k].side()]
		_, _, _, loc := e.vec(ks, d.in[k])
		S := mech.Skew(loc)
		rot[k] = mech.ScaleM(-1, mech.MulMM(&sd.A, &S))
	}
	for k := 0; k < d.n; k++ {
		wk := d.in[k]
		if !ks[wk.side()].on {
			continue
		}
		ok := 6 * wk.side()
		// own term [loc]× [Aᵀ g]× on the rotations of wₖ's body
		_, _, _, loc := e.vec(ks, wk)
		S := mech.Skew(loc)
		G := mech.Skew(mech.MulMTV(&ks[wk.side()].A, d.g[k]))
		SG := mech.MulMM(&S, &G)
		addBlock(h, ok+3, ok+3, l, &SG)
		for m := 0; m < d.n; m++ {
			if !d.hz[k][m] {
				continue
			}
			wm := d.in[m]
			if !ks[wm.side()].on {
				continue
			}
			om := 6 * wm.side()
			H := &d.h[k][m]
			// Bₖᵀ H Bₘ: translations of points are the identity
			HR := mech.MulMM(H, &rot[m])
			RkT := mech.Transpose(&rot[k])
			if wk.point() && wm.point() {
				addBlock(h, ok, om, l, H)
			}
			if wk.point() {
				addBlock(h, ok, om+3, l, &HR)
			}
			if wm.point() {
				RH := mech.MulMM(&RkT, H)
				addBlock(h, ok+3, om, l, &RH)
			}
			RHR := mech.MulMM(&RkT, &HR)
			addBlock(h, ok+3, om+3, l, &RHR)
		}
	}
}

// addBlock adds s·B to the 3×3 block of h (12×12) at (r, c).
func addBlock(h []float64, r, c int, s float64, B *mech.Mat3) {
	for i := 0; i < 3; i++ {
		row := h[(r+i)*12+c : (r+i)*12+c+3]
		row[0] += s * B[3*i]
		row[1] += s * B[3*i+1]
		row[2] += s * B[3*i+2]
	}
}
