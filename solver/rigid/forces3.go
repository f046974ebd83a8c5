package rigid

import (
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Spatial force elements: point forces and torques by expression (world or
// marker components), point-to-point spring–dampers, rotational
// spring–dampers on revolute joints and six-component bushings. Their
// generalized forces are written on the twelve velocities of the bodies
// of markers i and j (−1 for ground), like the joints' rows.

// SpatialForce compiles a force element of a spatial model.
func SpatialForce(b mech.Builder, f spec.Force) {
	b.Claim(f.Name, f.Pos, "force")
	if f.T.Given() {
		b.Errorf(f.T.Pos, "t", "force %q: a spatial torque is a vector: tx, ty, tz", f.Name)
		return
	}
	var el mech.Force
	switch f.Kind {
	case "force", "torque":
		mi, ok := b.Marker(f.I, f.Pos, "i")
		if !ok {
			return
		}
		fol, ok := follower(b, f)
		if !ok {
			return
		}
		ld := &load3{name: f.Name, torque: f.Kind == "torque", follower: fol, fi: mi.F}
		ld.fj = mech.Frame{Body: -1, Q: -1, V: -1, R: mech.Ident}
		if f.Kind == "force" {
			if f.TX.Given() || f.TY.Given() || f.TZ.Given() {
				b.Errorf(f.Pos, "tx", "force %q: a force has fx, fy, fz; a torque is a <torque>", f.Name)
			}
			ld.c = [3]mech.Param{b.Run(f.FX, 0), b.Run(f.FY, 0), b.Run(f.FZ, 0)}
			if f.J != "" {
				b.Errorf(f.Pos, "j", "force %q: a point force acts at marker i only", f.Name)
			}
		} else {
			if f.FX.Given() || f.FY.Given() || f.FZ.Given() {
				b.Errorf(f.Pos, "fx", "torque %q: a torque has tx, ty, tz", f.Name)
			}
			ld.c = [3]mech.Param{b.Run(f.TX, 0), b.Run(f.TY, 0), b.Run(f.TZ, 0)}
			if f.J != "" {
				mj, ok := b.Marker(f.J, f.Pos, "j")
				if !ok {
					return
				}
				ld.fj = mj.F
			}
		}
		ld.d = dofs12(ld.fi, ld.fj)
		el = ld
	case "spring":
		mi, ok1 := b.Marker(f.I, f.Pos, "i")
		mj, ok2 := b.Marker(f.J, f.Pos, "j")
		if !ok1 || !ok2 {
			return
		}
		g := newJoint3(mi.F, mj.F, prim{kind: pDist})
		var ki, kj side3
		ki.eval(&mi.F, &mech.Ctx{Q: b.Q0()}, false, 0)
		kj.eval(&mj.F, &mech.Ctx{Q: b.Q0()}, false, 0)
		l0 := mech.Norm(mech.Sub(kj.p, ki.p))
		sp := &spring3{name: f.Name, g: g, k: b.Run(f.K, 0), c: b.Run(f.C, 0), l: b.Run(f.Length, l0), p: b.Run(f.Preload, 0)}
		nonNeg(b, sp.k, f.K)
		nonNeg(b, sp.c, f.C)
		el = sp
	case "rspring":
		if f.Joint == "" {
			b.Errorf(f.Pos, "joint", "rspring %q: a spatial rotational spring acts on a revolute joint: joint=\"name\"", f.Name)
			return
		}
		jt, _, ok := b.Joint(f.Joint)
		if !ok || (jt.Kind != mech.JointRevolute && jt.Kind != mech.JointCylindrical) {
			b.Errorf(f.Pos, "joint", "rspring %q: %q is not a revolute or cylindrical joint", f.Name, f.Joint)
			return
		}
		g := newJoint3(jt.I.F, jt.J.F, prim{kind: pAngle})
		a0, _ := jt.Coord.Value(&mech.Ctx{Q: b.Q0(), V: b.V0()})
		rs := &rspring3{name: f.Name, g: g, co: jt.Coord.(*angle3), k: b.Run(f.K, 0), c: b.Run(f.C, 0), a: b.Run(f.Angle, a0), p: b.Run(f.Preload, 0)}
		nonNeg(b, rs.k, f.K)
		nonNeg(b, rs.c, f.C)
		el = rs
	case "bushing":
		mi, ok1 := b.Marker(f.I, f.Pos, "i")
		mj, ok2 := b.Marker(f.J, f.Pos, "j")
		if !ok1 || !ok2 {
			return
		}
		bu := &bushing{name: f.Name, fi: mi.F, fj: mj.F}
		for k := 0; k < 6; k++ {
			bu.k[k] = b.Run(f.KV[k], 0)
			bu.c[k] = b.Run(f.CV[k], 0)
			nonNeg(b, bu.k[k], f.KV[k])
			nonNeg(b, bu.c[k], f.CV[k])
		}
		bu.d = dofs12(mi.F, mj.F)
		el = bu
	default:
		b.Errorf(f.Pos, "kind", "unknown force kind %q (force, torque, spring, rspring, bushing)%s", f.Kind,
			mech.Suggest(f.Kind, []string{"force", "torque", "spring", "rspring", "bushing"}))
		return
	}
	b.AddForce(f.Name, el)
}

// dofs12 lists the velocities of the bodies of two frames.
func dofs12(fi, fj mech.Frame) [12]int {
	var d [12]int
	for k := 0; k < 6; k++ {
		d[k], d[6+k] = -1, -1
		if fi.Body >= 0 {
			d[k] = fi.V + k
		}
		if fj.Body >= 0 {
			d[6+k] = fj.V + k
		}
	}
	return d
}

// load3 is a force at marker i's origin, or a torque on marker i's body
// (with the reaction on marker j's body), with components in the world
// frame or in marker i's frame (a follower load). With F the world force
// at p = r + A s, Q = (F, s × AᵀF) on i's body; a world torque T gives
// Q = AᵀT on the rotations.
type load3 struct {
	name     string
	torque   bool
	follower bool
	fi, fj   mech.Frame
	c        [3]mech.Param
	d        [12]int
}

func (e *load3) Dofs() []int { return e.d[:] }
func (e *load3) Params() []*mech.Param {
	return []*mech.Param{&e.c[0], &e.c[1], &e.c[2]}
}

// world returns the load's world vector and the rotation of i's body
// (the only kinematics a load reads).
func (e *load3) world(x *mech.Ctx) (mech.Vec3, mech.Mat3) {
	ai := bodyRot(&e.fi, x.Q)
	v := mech.Vec3{e.c[0].Get(x), e.c[1].Get(x), e.c[2].Get(x)}
	if e.follower {
		R := mech.MulMM(&ai, &e.fi.R) // (mech.Frame.Orient)
		v = mech.MulMV(&R, v)
	}
	return v, ai
}

func (e *load3) Eval(x *mech.Ctx, f, k, c []float64) {
	v, ai := e.world(x)
	if e.fi.Body >= 0 {
		if !e.torque {
			f[0] += v[0]
			f[1] += v[1]
			f[2] += v[2]
		}
		// body-frame part: s × AᵀF (force) or AᵀT (torque)
		lv := mech.MulMTV(&ai, v)
		rt := lv
		if !e.torque {
			rt = mech.Cross(e.fi.S, lv)
		}
		f[3] += rt[0]
		f[4] += rt[1]
		f[5] += rt[2]
		if k != nil {
			// K = −∂Q/∂q on i's rotations. A world vector: AᵀF turns by
			// [AᵀF]× δθ; a follower's AᵀF is fixed in the body, and its
			// world force turns with it: ∂F/∂δθ = −A [R f]×.
			L := mech.Skew(lv)
			if e.follower {
				if !e.torque {
					AL := mech.MulMM(&ai, &L)
					addBlock12(k, 0, 3, 1, &AL) // −∂F/∂δθ = A [AᵀF]×
				}
			} else {
				var KR mech.Mat3
				if e.torque {
					KR = mech.ScaleM(-1, L)
				} else {
					S := mech.Skew(e.fi.S)
					KR = mech.ScaleM(-1, mech.MulMM(&S, &L))
				}
				addBlock12(k, 3, 3, 1, &KR)
			}
		}
	}
	if e.torque && e.fj.Body >= 0 {
		// reaction −T on j's body: −A_jᵀ T
		aj := bodyRot(&e.fj, x.Q)
		lj := mech.MulMTV(&aj, v)
		f[9] -= lj[0]
		f[10] -= lj[1]
		f[11] -= lj[2]
		if k != nil {
			Lj := mech.Skew(lj)
			addBlock12(k, 9, 9, 1, &Lj) // −∂(−A_jᵀT)/∂δθ_j = [A_jᵀT]×
			if e.follower && e.fi.Body >= 0 {
				// T = A_i R t turns with i: ∂(A_jᵀT)/∂δθ_i = −A_jᵀ A_i [R t]×
				Li := mech.Skew(mech.MulMTV(&ai, v))
				AjT := mech.Transpose(&aj)
				M := mech.MulMM(&AjT, &ai)
				ML := mech.MulMM(&M, &Li)
				addBlock12(k, 9, 3, -1, &ML)
			}
		}
	}
}

func (e *load3) Potential(*mech.Ctx) float64 { return 0 }

// Channels lists the load's components (mech.Channeler).
func (e *load3) Channels(name string) []mech.ChannelInfo {
	q, u, what := "f", "N", "force"
	if e.torque {
		q, u, what = "t", "N*m", "torque"
	}
	return []mech.ChannelInfo{
		{Name: name + "." + q + "x", Unit: u, Group: "force", Description: what + " " + name + " x component (world)"},
		{Name: name + "." + q + "y", Unit: u, Group: "force", Description: what + " " + name + " y component (world)"},
		{Name: name + "." + q + "z", Unit: u, Group: "force", Description: what + " " + name + " z component (world)"},
	}
}

// Channel evaluates component sub (mech.Channeler).
func (e *load3) Channel(x *mech.Ctx, sub int) float64 {
	v, _ := e.world(x)
	return v[sub]
}

// addBlock12 adds s·B to the 3×3 block of the 12×12 k at (r, c).
func addBlock12(k []float64, r, c int, s float64, B *mech.Mat3) { addBlock(k, r, c, s, B) }

// spring3 is a point-to-point spring–damper: tension f = K (l − L) + C l̇
// + P along the line of the markers' origins; Q = −f ∂l/∂q.
type spring3 struct {
	name       string
	g          *joint3 // the distance l as a row (pDist with c₀ = 0)
	k, c, l, p mech.Param
}

func (e *spring3) Dofs() []int { return e.g.d[:] }
func (e *spring3) Params() []*mech.Param {
	return []*mech.Param{&e.k, &e.c, &e.l, &e.p}
}

// state returns l, l̇, the tension and the row's derivatives.
func (e *spring3) state(x *mech.Ctx, jac []float64) (l, ld, f float64, d rowDiff, ks [2]side3) {
	e.g.sides(x, true, &ks)
	d = e.g.diff(&e.g.rows[0], &ks, x)
	e.g.jacRow(&d, &ks, jac)
	l = d.phi
	for a, i := range e.g.d {
		if i >= 0 {
			ld += jac[a] * x.V[i]
		}
	}
	f = e.k.Get(x)*(l-e.l.Get(x)) + e.c.Get(x)*ld + e.p.Get(x)
	return
}

func (e *spring3) Eval(x *mech.Ctx, f, k, c []float64) {
	var jac [12]float64
	_, _, fs, d, ks := e.state(x, jac[:])
	for a := range jac {
		f[a] -= fs * jac[a]
	}
	if k == nil {
		return
	}
	e.g.scalarLawTangent(x, &jac, &d, &ks, fs, e.k.Get(x), e.c.Get(x), k, c)
}

func (e *spring3) Potential(x *mech.Ctx) float64 {
	var jac [12]float64
	l, _, _, _, _ := e.state(x, jac[:])
	dl := l - e.l.Get(x)
	return 0.5*e.k.Get(x)*dl*dl + e.p.Get(x)*dl
}

// Channels lists the spring's result channels (mech.Channeler).
func (e *spring3) Channels(name string) []mech.ChannelInfo {
	return (&spring{}).Channels(name)
}

// Channel evaluates channel sub (mech.Channeler).
func (e *spring3) Channel(x *mech.Ctx, sub int) float64 {
	var jac [12]float64
	l, ld, fs, _, _ := e.state(x, jac[:])
	switch sub {
	case 0:
		return fs
	case 1:
		return l
	case 2:
		return ld
	}
	return e.Potential(x)
}

// Draw draws the spring (mech.Drawer).
func (e *spring3) Draw(g *mech.Geometry) {
	l := mech.GeomLink{Kind: "spring", Name: e.name, Force: e.name + ".force"}
	l.BodyA, l.PA3 = frame3(g, &e.g.fi)
	l.BodyB, l.PB3 = frame3(g, &e.g.fj)
	g.Links = append(g.Links, l)
}

// frame3 returns a frame's body name and origin in the body frame.
func frame3(g *mech.Geometry, f *mech.Frame) (string, [3]float64) {
	if f.Body < 0 {
		return "ground", f.S
	}
	b := &g.Bodies[f.Body]
	return b.Name, mech.Add(f.S, b.CM)
}

// rspring3 is a rotational spring–damper on a revolute (or cylindrical)
// joint: τ = −K (θ − θ₀) − C θ̇ + P about the joint's axis, θ the angle
// of marker j's x axis about marker i's z axis, counting whole turns (the
// joint's angle: a spring wound up by more than half a turn keeps pulling
// back); Q = τ ∂θ/∂q.
type rspring3 struct {
	name       string
	g          *joint3 // θ in (−π, π] as a row (pAngle)
	co         *angle3 // the joint's angle, which unwraps θ
	k, c, a, p mech.Param
}

func (e *rspring3) Dofs() []int { return e.g.d[:] }
func (e *rspring3) Params() []*mech.Param {
	return []*mech.Param{&e.k, &e.c, &e.a, &e.p}
}

func (e *rspring3) state(x *mech.Ctx, jac []float64) (th, om, tq float64, d rowDiff, ks [2]side3) {
	e.g.sides(x, true, &ks)
	d = e.g.diff(&e.g.rows[0], &ks, x)
	e.g.jacRow(&d, &ks, jac)
	for a, i := range e.g.d {
		if i >= 0 {
			om += jac[a] * x.V[i]
		}
	}
	th = e.co.unwrap(x, d.phi) - e.a.Get(x)
	tq = -e.k.Get(x)*th - e.c.Get(x)*om + e.p.Get(x)
	return
}

func (e *rspring3) Eval(x *mech.Ctx, f, k, c []float64) {
	var jac [12]float64
	_, _, tq, d, ks := e.state(x, jac[:])
	for a := range jac {
		f[a] += tq * jac[a]
	}
	if k == nil {
		return
	}
	e.g.scalarLawTangent(x, &jac, &d, &ks, -tq, e.k.Get(x), e.c.Get(x), k, c)
}

// scalarLawTangent adds the tangent of a generalised force −s·J, s(l, l̇)
// a scalar law of the row's value l (J its Jacobian jac, d and ks its
// evaluation) with ∂s/∂l = kk and ∂s/∂l̇ = cc: K += Jᵀ(kk J + cc ∂l̇/∂q) +
// s H with ∂l̇/∂q = Hᵀv, C += cc JᵀJ (H the row's Hessian).
func (e *joint3) scalarLawTangent(x *mech.Ctx, jac *[12]float64, d *rowDiff, ks *[2]side3, s, kk, cc float64, k, c []float64) {
	var H [144]float64
	e.hessRow(d, ks, 1, H[:])
	var hv [12]float64
	for b := 0; b < 12; b++ {
		for a, i := range e.d {
			if i >= 0 {
				hv[b] += H[a*12+b] * x.V[i]
			}
		}
	}
	for a := 0; a < 12; a++ {
		for b := 0; b < 12; b++ {
			k[a*12+b] += jac[a]*(kk*jac[b]+cc*hv[b]) + s*H[a*12+b]
			c[a*12+b] += cc * jac[a] * jac[b]
		}
	}
}

func (e *rspring3) Potential(x *mech.Ctx) float64 {
	var jac [12]float64
	th, _, _, _, _ := e.state(x, jac[:])
	return 0.5*e.k.Get(x)*th*th - e.p.Get(x)*th
}

// Channels lists the rotational spring's channels (mech.Channeler).
func (e *rspring3) Channels(name string) []mech.ChannelInfo { return (&rspring{}).Channels(name) }

// Channel evaluates channel sub (mech.Channeler).
func (e *rspring3) Channel(x *mech.Ctx, sub int) float64 {
	var jac [12]float64
	th, _, tq, _, _ := e.state(x, jac[:])
	switch sub {
	case 0:
		return tq
	case 1:
		return th + e.a.Get(x)
	}
	return e.Potential(x)
}

// bushing is a six-component spring–damper between the frames of markers
// i and j, in marker i's frame: with d = Rᵢᵀ(pⱼ − pᵢ) and θ the rotation
// vector of Rᵢᵀ Rⱼ, the force F = −Kt d − Ct ḋ (marker i's axes) acts on
// j at pⱼ and −F on i at pⱼ; the torque T = −Kr θ − Cr ω (ω the angular
// velocity of j relative to i, i's axes) acts on j and −T on i. Its
// tangent is taken by finite differences (mech.NumericTangent).
type bushing struct {
	name   string
	fi, fj mech.Frame
	k, c   [6]mech.Param
	d      [12]int
}

func (e *bushing) Dofs() []int { return e.d[:] }
func (e *bushing) Params() []*mech.Param {
	out := make([]*mech.Param, 0, 12)
	for k := range e.k {
		out = append(out, &e.k[k], &e.c[k])
	}
	return out
}

// NumericTangent: the bushing's K and C are taken by finite differences.
func (e *bushing) NumericTangent() bool { return true }

// state returns the force and torque in marker i's axes, and the frames'
// kinematics.
func (e *bushing) state(x *mech.Ctx) (F, T mech.Vec3, ki, kj mech.KinFrame, Ri mech.Mat3, d, th mech.Vec3) {
	e.fi.Eval(x.Q, x.V, &ki)
	e.fj.Eval(x.Q, x.V, &kj)
	Ri = e.fi.Orient(&ki)
	Rj := e.fj.Orient(&kj)
	RiT := mech.Transpose(&Ri)
	Rr := mech.MulMM(&RiT, &Rj)
	th = mech.QuatLog(mech.MatQuat(&Rr))
	dw := mech.Sub(kj.P, ki.P)
	d = mech.MulMV(&RiT, dw)
	// ḋ in i's axes: Rᵢᵀ(ṗⱼ − ṗᵢ) − ωᵢ × d
	wi := mech.MulMV(&RiT, ki.W)
	dd := mech.Sub(mech.MulMV(&RiT, mech.Sub(kj.V, ki.V)), mech.Cross(wi, d))
	wr := mech.MulMV(&RiT, mech.Sub(kj.W, ki.W))
	for a := 0; a < 3; a++ {
		F[a] = -e.k[a].Get(x)*d[a] - e.c[a].Get(x)*dd[a]
		T[a] = -e.k[3+a].Get(x)*th[a] - e.c[3+a].Get(x)*wr[a]
	}
	return
}

func (e *bushing) Eval(x *mech.Ctx, f, k, c []float64) {
	F, T, ki, kj, Ri, _, _ := e.state(x)
	Fw, Tw := mech.MulMV(&Ri, F), mech.MulMV(&Ri, T)
	// on j at pⱼ: (Fw, A_jᵀ(Tw + sⱼ... )) — the force acts at j's origin
	if e.fj.Body >= 0 {
		f[6] += Fw[0]
		f[7] += Fw[1]
		f[8] += Fw[2]
		m := mech.Add(mech.Cross(kj.AS, Fw), Tw)
		mb := mech.MulMTV(&kj.A, m)
		f[9] += mb[0]
		f[10] += mb[1]
		f[11] += mb[2]
	}
	if e.fi.Body >= 0 {
		// −Fw at pⱼ on i: lever pⱼ − rᵢ
		lever := mech.Sub(kj.P, mech.Sub(ki.P, ki.AS))
		f[0] -= Fw[0]
		f[1] -= Fw[1]
		f[2] -= Fw[2]
		m := mech.Add(mech.Cross(lever, Fw), Tw)
		mb := mech.MulMTV(&ki.A, m)
		f[3] -= mb[0]
		f[4] -= mb[1]
		f[5] -= mb[2]
	}
}

func (e *bushing) Potential(x *mech.Ctx) float64 {
	_, _, _, _, _, d, th := e.state(x)
	u := 0.0
	for a := 0; a < 3; a++ {
		u += 0.5*e.k[a].Get(x)*d[a]*d[a] + 0.5*e.k[3+a].Get(x)*th[a]*th[a]
	}
	return u
}

// Channels lists the bushing's channels (mech.Channeler).
func (e *bushing) Channels(name string) []mech.ChannelInfo {
	var out []mech.ChannelInfo
	for _, q := range []struct{ n, u, d string }{
		{"fx", "N", "force on j, x (marker i's frame)"}, {"fy", "N", "force on j, y (marker i's frame)"}, {"fz", "N", "force on j, z (marker i's frame)"},
		{"tx", "N*m", "torque on j, x (marker i's frame)"}, {"ty", "N*m", "torque on j, y (marker i's frame)"}, {"tz", "N*m", "torque on j, z (marker i's frame)"},
		{"dx", "m", "displacement of j, x (marker i's frame)"}, {"dy", "m", "displacement of j, y"}, {"dz", "m", "displacement of j, z"},
		{"rx", "rad", "rotation of j, x (rotation vector, marker i's frame)"}, {"ry", "rad", "rotation of j, y"}, {"rz", "rad", "rotation of j, z"},
	} {
		g := "force"
		if q.n[0] == 'd' || q.n[0] == 'r' {
			g = "position"
		}
		out = append(out, mech.ChannelInfo{Name: name + "." + q.n, Unit: q.u, Group: g, Description: "bushing " + name + " " + q.d})
	}
	return append(out, mech.ChannelInfo{Name: name + ".energy", Unit: "J", Group: "energy", Description: "bushing " + name + " potential energy"})
}

// Channel evaluates channel sub (mech.Channeler).
func (e *bushing) Channel(x *mech.Ctx, sub int) float64 {
	F, T, _, _, _, d, th := e.state(x)
	switch {
	case sub < 3:
		return F[sub]
	case sub < 6:
		return T[sub-3]
	case sub < 9:
		return d[sub-6]
	case sub < 12:
		return th[sub-9]
	}
	return e.Potential(x)
}

// Draw draws the bushing (mech.Drawer).
func (e *bushing) Draw(g *mech.Geometry) {
	l := mech.GeomLink{Kind: "bushing", Name: e.name}
	l.BodyA, l.PA3 = frame3(g, &e.fi)
	l.BodyB, l.PB3 = frame3(g, &e.fj)
	g.Links = append(g.Links, l)
}
