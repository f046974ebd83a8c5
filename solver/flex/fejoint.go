package flex

import (
	"math"
	"strings"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Joints at nodes of an fe-body that move with the modes (not clamped to
// its frame). A node marker's position in the body frame is p_l = p0 +
// T_tr η and its small rotation θ = T_rot η (ffr3Marker), so in the world
//
//	p = R + A p_l,                       ṗ = Ṙ + A(ω × p_l + T_tr η̇),
//	a = A ũ,  ũ = u + θ × u              (an axis u of the node's frame),
//
// the node's frame being A(I + [θ]×) applied to constant axes u in the
// body frame (linear in θ, as the FE model is). Along the velocity
// coordinates (Ṙ world, body-frame rotation increments δθ with A → A(I +
// [δθ]×), η̇) the world vectors move as δw = B (δR, δθ, δη):
//
//	point:  B = [I, −A[p_l]×, A T_tr]
//	axis:   B = [0, −A[ũ]×,  A [T_rot,k × u]_k]   (−[u]× T_rot)
//
// and their convective accelerations (ẅ = B v̇ + κ) are
//
//	point:  κ = A(ω × (ω × p_l) + 2 ω × T_tr η̇)
//	axis:   κ = A(ω × (ω × ũ) + 2 ω × (T_rot η̇ × u)).
//
// A rigid marker (a body's or the ground's, or a node clamped to a
// frame) has the same with T = 0. The rows are those of the rigid
// spatial joints (solver/rigid/joints3.go) on these vectors: pⱼ − pᵢ = 0
// (spherical) and, for a revolute joint, xᵢ·zⱼ = yᵢ·zⱼ = 0, for a fixed
// one also xᵢ·yⱼ = 0. A row f(w₁, w₂) with gradients gₖ has J = Σ gₖᵀBₖ
// and γ = −Σ gₖ·κₖ − Σ ẇₖᵀHₖₗẇₗ; the tangent of its constraint force
// Jᵀλ is λ(Σ BₖᵀHₖₗBₗ + Σₖ ∂(Bₖᵀ)/∂q gₖ), whose own terms, with L = Aᵀg
// (∂L/∂δθ = [L]×), are
//
//	point:  ∂G_rot/∂δθ = [p_l]×[L]×,  ∂G_rot/∂η_k = T_tr,k × L,  ∂G_η,k/∂δθ = (T_tr,k × L)ᵀ
//	axis:   ∂G_rot/∂δθ = [ũ]×[L]×,    ∂G_rot/∂η_k = L × (u × T_rot,k), ∂G_η,k/∂δθ = (L × (u × T_rot,k))ᵀ
//
// (G = Bᵀg; the point's G = (g, p_l × L, T_trᵀL), the axis's (0, ũ × L,
// T_rotᵀ(u × L))). A test checks all of them against central differences.
//
// The node's frame: at a node joined to a rigid marker it is that
// marker's frame at the start (a revolute turns about the rigid marker's
// z axis); between two nodes, marker i's node takes its body's axes and
// marker j's node the same world axes at the start.

// feSide is one side of a joint at a moving node: a node of an fe-body
// (b set) or a rigid frame.
type feSide struct {
	b  *ffr3
	mk *ffr3Marker
	rn mech.Mat3 // the node frame's axes in the body frame (columns)
	f  mech.Frame
}

// feKin is a side's kinematics at a configuration.
type feKin struct {
	on  bool      // on a body (not ground)
	A   mech.Mat3 // the body's (or frame's) rotation
	pl  mech.Vec3 // the point in the body frame (from its origin)
	p   mech.Vec3 // world point
	pd  mech.Vec3 // its velocity
	kp  mech.Vec3 // its convective acceleration κ
	om  mech.Vec3 // body-frame angular velocity
	thd mech.Vec3 // node rotation rate T_rot η̇ (body frame)
	u   [3]mech.Vec3
	ut  [3]mech.Vec3 // ũ = u + θ × u
	ax  [3]mech.Vec3 // world axes
	axd [3]mech.Vec3
	axk [3]mech.Vec3
}

// eval fills k at x (velocity terms when vel).
func (s *feSide) eval(x *mech.Ctx, vel bool, k *feKin) {
	*k = feKin{}
	if s.b == nil {
		var kf mech.KinFrame
		var v []float64
		if vel {
			v = x.V
		}
		s.f.Eval(x.Q, v, &kf)
		k.on = s.f.Body >= 0
		k.A, k.pl, k.p, k.pd, k.om = kf.A, s.f.S, kf.P, kf.V, kf.Wb
		if vel {
			k.kp = mech.Cross(kf.W, mech.Cross(kf.W, kf.AS))
		}
		for a := 0; a < 3; a++ {
			k.u[a] = s.f.LocalAxis(a)
			k.ut[a] = k.u[a]
			k.ax[a] = mech.MulMV(&k.A, k.u[a])
			if vel {
				k.axd[a] = mech.Cross(kf.W, k.ax[a])
				k.axk[a] = mech.Cross(kf.W, k.axd[a])
			}
		}
		return
	}
	b, mk := s.b, s.mk
	m := b.m
	k.on = true
	o := b.fq
	mech.QuatMatTo(&k.A, x.Q[o+3], x.Q[o+4], x.Q[o+5], x.Q[o+6])
	eta := x.Q[b.eq : b.eq+m]
	var ut, th, ud mech.Vec3
	for i := 0; i < 3; i++ {
		tr, rt := mk.tr[i*m:i*m+m], mk.rot[i*m:i*m+m]
		for j, e := range eta {
			ut[i] += tr[j] * e
			th[i] += rt[j] * e
		}
		if vel {
			ed := x.V[b.ev : b.ev+m]
			for j, e := range ed {
				ud[i] += tr[j] * e
				k.thd[i] += rt[j] * e
			}
		}
	}
	k.pl = mech.Add(mk.p0, ut)
	ap := mech.MulMV(&k.A, k.pl)
	k.p = mech.Vec3{x.Q[o] + ap[0], x.Q[o+1] + ap[1], x.Q[o+2] + ap[2]}
	if vel {
		v := b.fv
		k.om = mech.Vec3{x.V[v+3], x.V[v+4], x.V[v+5]}
		lv := mech.Add(mech.Cross(k.om, k.pl), ud)
		av := mech.MulMV(&k.A, lv)
		k.pd = mech.Vec3{x.V[v] + av[0], x.V[v+1] + av[1], x.V[v+2] + av[2]}
		k.kp = mech.MulMV(&k.A, mech.Add(mech.Cross(k.om, mech.Cross(k.om, k.pl)), mech.Scale(2, mech.Cross(k.om, ud))))
	}
	for a := 0; a < 3; a++ {
		u := mech.Vec3{s.rn[a], s.rn[3+a], s.rn[6+a]}
		k.u[a] = u
		k.ut[a] = mech.Add(u, mech.Cross(th, u))
		k.ax[a] = mech.MulMV(&k.A, k.ut[a])
		if vel {
			du := mech.Cross(k.thd, u)
			k.axd[a] = mech.MulMV(&k.A, mech.Add(mech.Cross(k.om, k.ut[a]), du))
			k.axk[a] = mech.MulMV(&k.A, mech.Add(mech.Cross(k.om, mech.Cross(k.om, k.ut[a])), mech.Scale(2, mech.Cross(k.om, du))))
		}
	}
}

// fePoint names a side's point among its world vectors (axes are 0, 1, 2).
const fePoint = -1

// feJointRow is a row: a component of pⱼ − pᵢ (pos), axis a of i · axis
// b of j, or (angle) the turn of xⱼ about zᵢ from xᵢ, atan2(yᵢ·xⱼ,
// xᵢ·xⱼ), wrapped to (−π, π] (a revolute joint's coordinate row: its
// gradient and curvature are what drivers and drive-train elements use).
type feJointRow struct {
	pos   bool
	angle bool
	c     int // pos: the component
	a, b  int // dot: the axes
}

// feAngleSides are the sides and axes of the angle row's three vectors
// (xᵢ, yᵢ, xⱼ of mech.AngleRow).
func feAngleSides() [3][2]int { return [3][2]int{{0, 0}, {0, 1}, {1, 0}} }

// feJointElem is the constraint element of a joint at a moving node.
// Its dofs are two halves of w: each side's body (frame: Ṙ, ω; then a
// node's elastic rates), padded with -1, marker i's first.
type feJointElem struct {
	s    [2]feSide
	rows []feJointRow
	d    []int
	w    int
}

func newFEJointElem(si, sj feSide, rows []feJointRow) *feJointElem {
	e := &feJointElem{s: [2]feSide{si, sj}, rows: rows}
	e.w = max(si.width(), sj.width())
	e.d = make([]int, 2*e.w)
	for h, s := range e.s {
		half := e.d[h*e.w : h*e.w+e.w]
		for k := range half {
			half[k] = -1
		}
		switch {
		case s.b != nil:
			copy(half, s.b.dofl)
		case s.f.Body >= 0:
			for k := 0; k < 6; k++ {
				half[k] = s.f.V + k
			}
		}
	}
	return e
}

// width is the number of the side's velocity coordinates.
func (s *feSide) width() int {
	if s.b != nil {
		return 6 + s.b.m
	}
	return 6
}

func (e *feJointElem) Dofs() []int { return e.d }
func (e *feJointElem) Rows() int   { return len(e.rows) }

// feVecOf returns a side's world vector v (fePoint or an axis), its velocity
// and convective acceleration.
func feVecOf(k *feKin, v int) (val, dot, kap mech.Vec3) {
	if v == fePoint {
		return k.p, k.pd, k.kp
	}
	return k.ax[v], k.axd[v], k.axk[v]
}

// addJ adds gᵀB of side s's vector v into jac (the side's half).
func (s *feSide) addJ(k *feKin, v int, g mech.Vec3, jac []float64) {
	if !k.on {
		return // the ground's columns are never read
	}
	L := mech.MulMTV(&k.A, g)
	loc := k.pl
	if v == fePoint {
		jac[0] += g[0]
		jac[1] += g[1]
		jac[2] += g[2]
	} else {
		loc = k.ut[v]
	}
	r := mech.Cross(loc, L)
	jac[3] += r[0]
	jac[4] += r[1]
	jac[5] += r[2]
	if s.b == nil {
		return
	}
	m := s.b.m
	T, c := s.mk.tr, L
	if v != fePoint {
		T, c = s.mk.rot, mech.Cross(k.u[v], L)
	}
	for i := 0; i < 3; i++ {
		if c[i] == 0 {
			continue
		}
		row := T[i*m : i*m+m]
		for j, t := range row {
			jac[6+j] += t * c[i]
		}
	}
}

// addOwnHess adds l·∂(Bᵀ)/∂q g of side s's vector v into the nd×nd h at
// the side's diagonal block (offset o).
func (s *feSide) addOwnHess(k *feKin, v int, g mech.Vec3, l float64, h []float64, nd, o int) {
	if !k.on || l == 0 {
		return
	}
	L := mech.MulMTV(&k.A, g)
	loc := k.pl
	if v != fePoint {
		loc = k.ut[v]
	}
	S, G := mech.Skew(loc), mech.Skew(L)
	SG := mech.MulMM(&S, &G)
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			h[(o+3+a)*nd+o+3+c] += l * SG[3*a+c]
		}
	}
	if s.b == nil {
		return
	}
	m := s.b.m
	for j := 0; j < m; j++ {
		var col mech.Vec3
		if v == fePoint {
			t := mech.Vec3{s.mk.tr[j], s.mk.tr[m+j], s.mk.tr[2*m+j]}
			col = mech.Cross(t, L)
		} else {
			t := mech.Vec3{s.mk.rot[j], s.mk.rot[m+j], s.mk.rot[2*m+j]}
			col = mech.Cross(L, mech.Cross(k.u[v], t))
		}
		for a := 0; a < 3; a++ {
			h[(o+3+a)*nd+o+6+j] += l * col[a]
			h[(o+6+j)*nd+o+3+a] += l * col[a]
		}
	}
}

// axisB writes the columns of B of side s's axis v (the side's width).
func (s *feSide) axisB(k *feKin, v int, cols []mech.Vec3) {
	clear(cols)
	if !k.on {
		return
	}
	for c := 0; c < 3; c++ {
		var e mech.Vec3
		e[c] = 1
		cols[3+c] = mech.MulMV(&k.A, mech.Cross(e, k.ut[v]))
	}
	if s.b == nil {
		return
	}
	m := s.b.m
	for j := 0; j < m; j++ {
		t := mech.Vec3{s.mk.rot[j], s.mk.rot[m+j], s.mk.rot[2*m+j]}
		cols[6+j] = mech.MulMV(&k.A, mech.Cross(t, k.u[v]))
	}
}

func (e *feJointElem) kin(x *mech.Ctx, vel bool) (ks [2]feKin) {
	e.s[0].eval(x, vel, &ks[0])
	e.s[1].eval(x, vel, &ks[1])
	return ks
}

func (e *feJointElem) Eval(x *mech.Ctx, out mech.Rows, vel bool) {
	ks := e.kin(x, vel)
	nd := len(e.d)
	w := e.w
	for r, row := range e.rows {
		jac := out.Jac[r*nd : r*nd+nd]
		clear(jac)
		out.Phit[r] = 0
		out.Gamma[r] = 0
		if row.pos {
			var c mech.Vec3
			c[row.c] = 1
			out.Phi[r] = ks[1].p[row.c] - ks[0].p[row.c]
			e.s[0].addJ(&ks[0], fePoint, mech.Scale(-1, c), jac[:w])
			e.s[1].addJ(&ks[1], fePoint, c, jac[w:])
			if vel {
				out.Gamma[r] = -(ks[1].kp[row.c] - ks[0].kp[row.c])
			}
			continue
		}
		if row.angle {
			th, g, hm := mech.AngleRow(ks[0].ax[0], ks[0].ax[1], ks[1].ax[0])
			out.Phi[r] = mech.WrapAngle(th)
			var wd [3]mech.Vec3
			for v, sa := range feAngleSides() {
				o := sa[0] * w
				e.s[sa[0]].addJ(&ks[sa[0]], sa[1], g[v], jac[o:o+w])
				if vel {
					var kap mech.Vec3
					_, wd[v], kap = feVecOf(&ks[sa[0]], sa[1])
					out.Gamma[r] -= mech.Dot(g[v], kap)
				}
			}
			if vel {
				for k := 0; k < 3; k++ {
					for l := 0; l < 3; l++ {
						out.Gamma[r] -= mech.Dot(wd[k], mech.MulMV(&hm[k][l], wd[l]))
					}
				}
			}
			continue
		}
		a, ad, ak := feVecOf(&ks[0], row.a)
		b, bd, bk := feVecOf(&ks[1], row.b)
		out.Phi[r] = mech.Dot(a, b)
		e.s[0].addJ(&ks[0], row.a, b, jac[:w])
		e.s[1].addJ(&ks[1], row.b, a, jac[w:])
		if vel {
			out.Gamma[r] = -(mech.Dot(b, ak) + mech.Dot(a, bk) + 2*mech.Dot(ad, bd))
		}
	}
}

func (e *feJointElem) Hess(x *mech.Ctx, lam []float64, h []float64) {
	ks := e.kin(x, false)
	nd := len(e.d)
	w := e.w
	var bufA, bufB [ffr3Max + 6]mech.Vec3
	ca, cb := bufA[:w], bufB[:w]
	for r, row := range e.rows {
		l := lam[r]
		if l == 0 {
			continue
		}
		if row.pos {
			var c mech.Vec3
			c[row.c] = 1
			e.s[0].addOwnHess(&ks[0], fePoint, mech.Scale(-1, c), l, h, nd, 0)
			e.s[1].addOwnHess(&ks[1], fePoint, c, l, h, nd, w)
			continue
		}
		if row.angle {
			e.angleHess(&ks, l, h)
			continue
		}
		a, _, _ := feVecOf(&ks[0], row.a)
		b, _, _ := feVecOf(&ks[1], row.b)
		e.s[0].addOwnHess(&ks[0], row.a, b, l, h, nd, 0)
		e.s[1].addOwnHess(&ks[1], row.b, a, l, h, nd, w)
		if !ks[0].on || !ks[1].on {
			continue
		}
		// H_ab = I: λ B_aᵀ B_b and its transpose
		e.s[0].axisB(&ks[0], row.a, ca)
		e.s[1].axisB(&ks[1], row.b, cb)
		for i, u := range ca {
			if u == (mech.Vec3{}) {
				continue
			}
			for j, v := range cb {
				if v == (mech.Vec3{}) {
					continue
				}
				d := l * mech.Dot(u, v)
				h[i*nd+w+j] += d
				h[(w+j)*nd+i] += d
			}
		}
	}
}

// angleHess adds l times the angle row's Hessian: Σ ∂(Bₖᵀ)/∂q gₖ and
// Σ Bₖᵀ Hₖₗ Bₗ over its three vectors.
func (e *feJointElem) angleHess(ks *[2]feKin, l float64, h []float64) {
	nd := len(e.d)
	w := e.w
	_, g, hm := mech.AngleRow(ks[0].ax[0], ks[0].ax[1], ks[1].ax[0])
	var cols [3][ffr3Max + 6]mech.Vec3
	for v, sa := range feAngleSides() {
		e.s[sa[0]].addOwnHess(&ks[sa[0]], sa[1], g[v], l, h, nd, sa[0]*w)
		e.s[sa[0]].axisB(&ks[sa[0]], sa[1], cols[v][:w])
	}
	for k, sk := range feAngleSides() {
		if !ks[sk[0]].on {
			continue
		}
		for m, sm := range feAngleSides() {
			if !ks[sm[0]].on {
				continue
			}
			H := &hm[k][m]
			ok, om := sk[0]*w, sm[0]*w
			for i, u := range cols[k][:w] {
				if u == (mech.Vec3{}) {
					continue
				}
				hu := mech.MulMTV(H, u) // Hᵀu: uᵀ H v = (Hᵀu)·v
				for j, v := range cols[m][:w] {
					if v == (mech.Vec3{}) {
						continue
					}
					h[(ok+i)*nd+om+j] += l * mech.Dot(hu, v)
				}
			}
		}
	}
}

// feAngle is a revolute joint's angle at a moving node: the turn of xⱼ
// about zᵢ from xᵢ (node axes as the rows use them), counting whole turns.
type feAngle struct {
	e    *feJointElem
	slot int
}

func (c *feAngle) Value(x *mech.Ctx) (float64, float64) {
	vel := x.V != nil
	ks := c.e.kin(x, vel)
	ki, kj := &ks[0], &ks[1]
	sn, cs := mech.Dot(ki.ax[1], kj.ax[0]), mech.Dot(ki.ax[0], kj.ax[0])
	th := mech.Unwrap(math.Atan2(sn, cs), x.Turn(c.slot))
	if !vel {
		return th, 0
	}
	// the angle's derivative
	sd := mech.Dot(ki.axd[1], kj.ax[0]) + mech.Dot(ki.ax[1], kj.axd[0])
	cd := mech.Dot(ki.axd[0], kj.ax[0]) + mech.Dot(ki.ax[0], kj.axd[0])
	return th, (cs*sd - sn*cd) / (sn*sn + cs*cs)
}

func (c *feAngle) Unit() string { return "rad" }

// feNodeSide resolves one marker of a joint at a moving node.
func (fx *flexCompiler) feNodeSide(ref string, pos spec.Pos, field, joint string) (feSide, bool) {
	b := fx.b
	if feFreeRef(fx.ms, ref) {
		name, mk, _ := strings.Cut(ref, ".")
		body := fx.ffr3[name]
		if body == nil {
			return feSide{}, false // the body failed to compile
		}
		for i := range body.mk {
			if body.mk[i].name == mk {
				return feSide{b: body, mk: &body.mk[i], rn: mech.Ident}, true
			}
		}
		return feSide{}, false
	}
	if cableRefers(fx.ms, ref) {
		b.Errorf(pos, field, "joint %q: a joint between a spatial ancf cable's node and a node of an fe-body that moves with the modes is not supported: join each to a rigid body", joint)
		return feSide{}, false
	}
	mk, ok := b.Marker(ref, pos, field)
	return feSide{f: mk.F}, ok
}

// feFrameAt returns a side's world rotation at the start (the frame's
// axes: a node's body frame turned by rn).
func (fx *flexCompiler) feFrameAt(s *feSide) mech.Mat3 {
	x := &mech.Ctx{Q: fx.b.Q0()}
	if s.b == nil {
		var kf mech.KinFrame
		s.f.Eval(x.Q, nil, &kf)
		return s.f.Orient(&kf)
	}
	var k feKin
	s.eval(x, false, &k)
	return mech.MulMM(&k.A, &s.rn)
}

// feJoint compiles a joint with a marker at a node of an fe-body that
// moves with the modes: spherical at any such node, revolute and fixed at
// nodes with rotational dofs.
func (fx *flexCompiler) feJoint(j spec.Joint) {
	b := fx.b
	if !b.Claim(j.Name, j.Pos, "joint") {
		return
	}
	for _, c := range []struct{ field, ref string }{{"i", j.I}, {"j", j.J}} {
		if ffrBeamRef(fx.ms, c.ref) {
			name, _, _ := strings.Cut(c.ref, ".")
			b.Errorf(j.Pos, c.field, "joint %q: marker %q of ffr beam %q moves with the beam's shapes; joints attach to its rigid body (the floating frame), loads (<force>, <torque>) to its markers; use kind=\"rod\" for a beam jointed along its length", j.Name, c.ref, name)
			return
		}
	}
	field, ref := "i", j.I
	if !feFreeRef(fx.ms, ref) {
		field, ref = "j", j.J
	}
	body, _, _ := strings.Cut(ref, ".")
	kind, _ := mech.ParseJointKind(j.Kind)
	switch kind {
	case mech.JointSpherical, mech.JointRevolute, mech.JointFixed:
	default:
		b.Errorf(j.Pos, field, "joint %q: marker %q is at a node of fe-body %q that moves with the modes, where spherical, revolute and fixed joints attach (revolute and fixed at nodes with rotational dofs), not a %s joint; attach it to a node clamped to the body's frame (clamp=\"...\") or to the frame's marker %q", j.Name, ref, body, j.Kind, body)
		return
	}
	// what the rigid joints' consumers would read as rigid frames (a
	// revolute joint's drivers take its coordinate row, CoordRow)
	refused := false
	for _, d := range fx.ms.Drivers {
		if d.Joint == j.Name && kind != mech.JointRevolute {
			b.Errorf(d.Pos, "joint", "driver %q: joint %q is a %s joint at a node of fe-body %q that moves with the modes: it has no coordinate to drive", d.Name, j.Name, j.Kind, body)
			refused = true
		}
	}
	for _, f := range fx.ms.Forces {
		if f.Joint == j.Name {
			b.Errorf(f.Pos, "joint", "%s %q: joint %q is at a node of fe-body %q that moves with the modes: rotational springs on such joints are not supported (motors, stops, friction and drivers are)", f.Kind, f.Name, j.Name, body)
			refused = true
		}
	}
	for _, d := range fx.ms.Drives {
		if d.I != j.Name && d.J != j.Name {
			continue
		}
		switch {
		case kind == mech.JointRevolute && (d.Kind == "motor" || d.Kind == "stop" || d.Kind == "friction"):
			// on the joint's angle row (CoordRow)
		case kind == mech.JointRevolute:
			b.Errorf(d.Pos, "i", "%s %q: joint %q is at a node of fe-body %q that moves with the modes: couplers there are not supported (motors, stops, friction and drivers are)", d.Kind, d.Name, j.Name, body)
			refused = true
		default:
			b.Errorf(d.Pos, "i", "%s %q: joint %q is a %s joint at a node of fe-body %q that moves with the modes: drive-train elements and joint friction there take a revolute joint's angle", d.Kind, d.Name, j.Name, j.Kind, body)
			refused = true
		}
	}
	si, ok1 := fx.feNodeSide(j.I, j.Pos, "i", j.Name)
	sj, ok2 := fx.feNodeSide(j.J, j.Pos, "j", j.Name)
	if !ok1 || !ok2 || refused {
		return
	}
	bodyOf := func(s *feSide) int {
		if s.b != nil {
			return s.b.body
		}
		return s.f.Body
	}
	if bi := bodyOf(&si); bi >= 0 && bi == bodyOf(&sj) {
		b.Errorf(j.Pos, "j", "joint %q connects two markers of fe-body %q", j.Name, body)
		return
	}
	if kind != mech.JointSpherical {
		for _, c := range []struct {
			s     *feSide
			field string
		}{{&si, "i"}, {&sj, "j"}} {
			if c.s.b != nil && !c.s.mk.hasRot {
				b.Errorf(j.Pos, c.field, "joint %q: node %d of fe-body %q has no rotational dofs (a solid's node): only a spherical joint attaches there (join the body at several nodes, or at a node clamped to its frame)", j.Name, c.s.mk.node, c.s.b.name)
				return
			}
		}
	}
	// the nodes' frames: the other side's at the start (between two
	// nodes, marker i's body axes)
	if sj.b != nil {
		sj.rn = fx.relTo(&sj, fx.feFrameAt(&si))
	} else {
		si.rn = fx.relTo(&si, fx.feFrameAt(&sj))
	}
	rows := []feJointRow{{pos: true, c: 0}, {pos: true, c: 1}, {pos: true, c: 2}}
	switch kind {
	case mech.JointRevolute:
		rows = append(rows, feJointRow{a: 0, b: 2}, feJointRow{a: 1, b: 2})
	case mech.JointFixed:
		rows = append(rows, feJointRow{a: 0, b: 2}, feJointRow{a: 1, b: 2}, feJointRow{a: 0, b: 1})
	}
	e := newFEJointElem(si, sj, rows)
	ji := mech.JointInfo{Name: j.Name, Kind: kind, I: feMarkerOf(&si), J: feMarkerOf(&sj)}
	if kind == mech.JointRevolute {
		c := &feAngle{e: e}
		c.slot = b.TurnSlot(c)
		ji.Coord = c
		ji.CoordRow = newFEJointElem(si, sj, []feJointRow{{angle: true}})
	}
	owner := b.AddJoint(ji)
	b.AddConstraint(e, owner)
}

// relTo returns the axes (body frame) of a node's frame that starts at the
// world rotation R.
func (fx *flexCompiler) relTo(s *feSide, R mech.Mat3) mech.Mat3 {
	s.rn = mech.Ident
	A := fx.feFrameAt(s)
	At := mech.Transpose(&A)
	return mech.MulMM(&At, &R)
}

// feMarkerOf is the marker a side reports as (reactions, drawing): a node
// as a rigid marker of its body's frame at its undeformed position.
func feMarkerOf(s *feSide) mech.Marker {
	if s.b == nil {
		return mech.Marker{F: s.f, P: mech.Point{Body: s.f.Body}}
	}
	b := s.b
	return mech.Marker{F: mech.Frame{Body: b.body, Q: b.fq, V: b.fv, S: s.mk.p0, R: s.rn}, P: mech.Point{Body: b.body}}
}
