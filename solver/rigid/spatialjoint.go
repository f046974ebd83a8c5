package rigid

import (
	"math"

	"mbfmu/expr"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// SpatialJoint compiles a joint of a spatial model. Axes are the markers'
// z axes: a revolute turns about them, a prismatic and a cylindrical slide
// along them, a planar joint keeps them parallel with j's origin on i's xy
// plane, a universal joint's cross has the arms zᵢ and zⱼ.
func SpatialJoint(b mech.Builder, j spec.Joint) {
	b.Claim(j.Name, j.Pos, "joint")
	mi, ok1 := b.Marker(j.I, j.Pos, "i")
	mj, ok2 := b.Marker(j.J, j.Pos, "j")
	if !ok1 || !ok2 {
		return
	}
	fi, fj := mi.F, mj.F
	if fi.Body == fj.Body {
		b.Errorf(j.Pos, "j", "joint %q connects %s to itself", j.Name, j.I)
		return
	}
	kind, _ := mech.ParseJointKind(j.Kind)
	if j.Distance.Given() && kind != mech.JointDistance {
		b.Errorf(j.Distance.Pos, "distance", "joint %q: distance belongs to distance joints", j.Name)
	}
	ji := mech.JointInfo{Name: j.Name, Kind: kind, I: mi, J: mj}
	// initial values of the rows that fix a relative orientation
	q0 := b.Q0()
	var ki, kj side3
	x0 := &mech.Ctx{Q: q0}
	ki.eval(&fi, x0, false, 7)
	kj.eval(&fj, x0, false, 7)
	dot0 := func(a, c int) float64 { return mech.Dot(ki.ax[a], kj.ax[c]) }
	spherical := []prim{
		{kind: pPos, c: mech.Vec3{1, 0, 0}},
		{kind: pPos, c: mech.Vec3{0, 1, 0}},
		{kind: pPos, c: mech.Vec3{0, 0, 1}},
	}
	// zⱼ ∥ zᵢ: zⱼ ⟂ xᵢ and yᵢ
	parallelZ := []prim{{kind: pDot1, a: wXi, b: wZj}, {kind: pDot1, a: wYi, b: wZj}}
	// pⱼ on the zᵢ axis
	onAxis := []prim{{kind: pDot2, a: wXi}, {kind: pDot2, a: wYi}}
	var rows []prim
	switch kind {
	case mech.JointSpherical:
		rows = spherical
	case mech.JointRevolute:
		ji.Coord = newAngle3(b, fi, fj)
		rows = append(spherical, parallelZ...)
	case mech.JointUniversal:
		if c := dot0(2, 2); math.Abs(c) > 1e-6 {
			b.Errorf(j.Pos, "j", "joint %q: the universal joint's arms (the z axes of %s and %s) must start perpendicular, their cosine is %.3g", j.Name, j.I, j.J, c)
		}
		rows = append(spherical, prim{kind: pDot1, a: wZi, b: wZj})
	case mech.JointCylindrical:
		ji.Coord = newAngle3(b, fi, fj)
		ji.Coord2 = &disp3{fi: fi, fj: fj}
		rows = append(append([]prim{}, onAxis...), parallelZ...)
	case mech.JointPrismatic, mech.JointTranslational:
		ji.Kind = mech.JointPrismatic
		ji.Coord = &disp3{fi: fi, fj: fj}
		// the turn about z is held by xᵢ′ · yⱼ = 0 with xᵢ′ marker i's x
		// axis turned about zᵢ onto xⱼ's start: a row xᵢ · yⱼ = c₀ would
		// have no gradient where the x axes start a quarter turn apart
		fi = turned(fi, mech.Ident, math.Atan2(dot0(1, 0), dot0(0, 0)))
		rows = append(append(append([]prim{}, onAxis...), parallelZ...), prim{kind: pDot1, a: wXi, b: wYj})
	case mech.JointFixed:
		// the rows fix marker j's axes to those of a frame on body i
		// that starts where j's axes are (marker i turned by their
		// relative rotation at the start): xᵢ′·zⱼ = yᵢ′·zⱼ = xᵢ′·yⱼ = 0,
		// regular whatever the markers' relative orientation (rows
		// xᵢ·zⱼ = c₀ have no gradient where the axes start parallel)
		var rel mech.Mat3
		for a := 0; a < 3; a++ {
			for c := 0; c < 3; c++ {
				rel[3*a+c] = dot0(a, c)
			}
		}
		fi = turned(fi, rel, 0)
		rows = append(append([]prim{}, spherical...),
			prim{kind: pDot1, a: wXi, b: wZj},
			prim{kind: pDot1, a: wYi, b: wZj},
			prim{kind: pDot1, a: wXi, b: wYj})
	case mech.JointPlanar:
		rows = append([]prim{{kind: pDot2, a: wZi}}, parallelZ...)
	case mech.JointDistance:
		l0 := mech.Norm(mech.Sub(kj.p, ki.p))
		L := b.Const(j.Distance, l0)
		if !(L > 0) {
			b.Errorf(j.Distance.Pos, "distance", "joint %q: the distance must be positive, got %g m", j.Name, L)
			return
		}
		rows = []prim{{kind: pDist, c0: L}}
	default:
		b.Errorf(j.Pos, "kind", "unknown joint kind %q (fixed, revolute, prismatic, cylindrical, spherical, universal, planar, distance)%s", j.Kind,
			mech.Suggest(j.Kind, []string{"fixed", "revolute", "prismatic", "cylindrical", "spherical", "universal", "planar", "distance"}))
		return
	}
	owner := b.AddJoint(ji)
	b.AddConstraint(newJoint3(fi, fj, rows...), owner)
}

// turned returns frame f with its axes turned by rel (the new axes'
// components in f's axes, as columns) and then by angle about the new z
// axis: the same origin on the same body.
func turned(f mech.Frame, rel mech.Mat3, angle float64) mech.Frame {
	sn, cs := math.Sincos(angle)
	rz := mech.Mat3{cs, -sn, 0, sn, cs, 0, 0, 0, 1}
	r := mech.MulMM(&rel, &rz)
	f.R = mech.MulMM(&f.R, &r)
	return f
}

// revAngle is the angle of xⱼ about zᵢ from xᵢ.
func revAngle(ki, kj *side3) float64 {
	return math.Atan2(mech.Dot(ki.ax[1], kj.ax[0]), mech.Dot(ki.ax[0], kj.ax[0]))
}

// SpatialDriver compiles a driver of a spatial model: a revolute's or
// cylindrical joint's angle, a prismatic's or cylindrical joint's
// displacement, or a body frame's x, y or z, as a function of time.
func SpatialDriver(b mech.Builder, d spec.Driver) {
	f, df, ddf, ji, ok := driverValue(b, d)
	if !ok {
		return
	}
	var r prim
	var fi, fj mech.Frame
	switch {
	case d.Joint != "" && d.Body != "":
		b.Errorf(d.Pos, "joint", "driver %q names both a joint and a body: choose one", d.Name)
		return
	case d.Joint != "":
		jt, _, ok := b.Joint(d.Joint)
		if !ok || jt.Kind == mech.JointDriver {
			b.Errorf(d.Pos, "joint", "driver %q: unknown joint %q", d.Name, d.Joint)
			return
		}
		fi, fj = jt.I.F, jt.J.F
		ji.I, ji.J, ji.Of = jt.I, jt.J, d.Joint
		coord := d.Coord
		switch jt.Kind {
		case mech.JointRevolute:
			if coord == "" {
				coord = "angle"
			}
		case mech.JointPrismatic:
			if coord == "" {
				coord = "disp"
			}
		case mech.JointCylindrical:
			if coord == "" {
				b.Errorf(d.Pos, "coord", "driver %q: a cylindrical joint has two coordinates: give coord=\"angle\" or coord=\"disp\"", d.Name)
				return
			}
		default:
			b.Errorf(d.Pos, "joint", "driver %q: a %s joint has no coordinate to drive (revolute, prismatic, cylindrical)", d.Name, jt.Kind)
			return
		}
		switch {
		case coord == "angle" && jt.Kind != mech.JointPrismatic:
			ji.Driver = "joint-angle"
			r = prim{kind: pAngle}
		case coord == "disp" && jt.Kind != mech.JointRevolute:
			ji.Driver = "joint-disp"
			r = prim{kind: pDot2, a: wZi}
		default:
			b.Errorf(d.Pos, "coord", "driver %q: a %s joint has no coordinate %q", d.Name, jt.Kind, coord)
			return
		}
	case d.Body != "":
		mj, ok := b.Marker(d.Body, d.Pos, "body")
		if !ok {
			return
		}
		fi, fj = mech.Frame{Body: -1, Q: -1, V: -1, R: mech.Ident}, mj.F
		ji.I, ji.J = mech.Marker{F: fi, P: mech.Point{Body: -1}}, mj
		axis := map[string]int{"x": 0, "y": 1, "z": 2}
		k, ok := axis[d.Coord]
		if !ok {
			hint := ""
			if d.Coord == "angle" {
				hint = " (a spatial body has no single angle: drive a revolute joint instead)"
			}
			b.Errorf(d.Pos, "coord", "driver %q: coord must be x, y or z, got %q%s", d.Name, d.Coord, hint)
			return
		}
		ji.Driver = "body-" + d.Coord
		var c mech.Vec3
		c[k] = 1
		r = prim{kind: pPos, c: c}
	default:
		b.Errorf(d.Pos, "joint", "driver %q needs a joint or a body to drive", d.Name)
		return
	}
	r.f, r.df, r.ddf = f, df, ddf
	owner := b.AddJoint(ji)
	if d.Joint != "" {
		if jt, _, _ := b.Joint(d.Joint); jt.CoordRow != nil {
			// a joint whose markers are not rigid frames: its own row
			b.AddConstraint(&drivenRow{row: jt.CoordRow, f: f, df: df, ddf: ddf}, owner)
			return
		}
	}
	b.AddConstraint(newJoint3(fi, fj, r), owner)
}

// drivenRow is a driver on a joint's coordinate row (mech.JointInfo's
// CoordRow): Φ = wrap(θ − F(t)), Φ_t = −Ḟ, and F̈ in γ.
type drivenRow struct {
	row        mech.Constraint
	f, df, ddf *expr.Program
}

func (e *drivenRow) Dofs() []int { return e.row.Dofs() }
func (e *drivenRow) Rows() int   { return 1 }

func (e *drivenRow) Eval(x *mech.Ctx, out mech.Rows, vel bool) {
	e.row.Eval(x, out, vel)
	out.Phi[0] = mech.WrapAngle(out.Phi[0] - e.f.Eval(x.Vars, x))
	out.Phit[0] = 0
	if e.df != nil {
		out.Phit[0] = -e.df.Eval(x.Vars, x)
	}
	if vel && e.ddf != nil {
		out.Gamma[0] += e.ddf.Eval(x.Vars, x)
	}
}

func (e *drivenRow) Hess(x *mech.Ctx, lam []float64, h []float64) { e.row.Hess(x, lam, h) }

// angle3 is the rotation of marker j about marker i's z axis: the angle
// from xᵢ to xⱼ, counting whole turns (continuous through ±π: its value at
// the last step is kept in the state, slot of mech.Ctx.Turns).
type angle3 struct {
	fi, fj mech.Frame
	slot   int
}

// newAngle3 makes the angle of a revolute or cylindrical joint and
// registers it to count whole turns.
func newAngle3(b mech.Builder, fi, fj mech.Frame) *angle3 {
	c := &angle3{fi: fi, fj: fj}
	c.slot = b.TurnSlot(c)
	return c
}

// unwrap makes an angle of this joint measured in (−π, π] continuous
// (mech.Unwrap from the state's reference).
func (c *angle3) unwrap(x *mech.Ctx, a float64) float64 { return mech.Unwrap(a, x.Turn(c.slot)) }

// Value evaluates only the axes it reads (outputs read it every
// communication step), with the arithmetic of side3.eval and revAngle.
func (c *angle3) Value(x *mech.Ctx) (float64, float64) {
	ai, wi := frameRot(&c.fi, x)
	aj, wj := frameRot(&c.fj, x)
	xi := mech.MulMV(&ai, c.fi.LocalAxis(0))
	yi := mech.MulMV(&ai, c.fi.LocalAxis(1))
	xj := mech.MulMV(&aj, c.fj.LocalAxis(0))
	th := c.unwrap(x, math.Atan2(mech.Dot(yi, xj), mech.Dot(xi, xj)))
	// rate: (ωⱼ − ωᵢ)·zᵢ for axes kept parallel
	zi := mech.MulMV(&ai, c.fi.LocalAxis(2))
	return th, mech.Dot(mech.Sub(wj, wi), zi)
}

// bodyRot is the rotation of f's body (mech.Frame.Eval's A).
func bodyRot(f *mech.Frame, q []float64) (a mech.Mat3) {
	if f.Body < 0 {
		return mech.Ident
	}
	p := q[f.Q+3 : f.Q+7]
	mech.QuatMatTo(&a, p[0], p[1], p[2], p[3])
	return a
}

// frameRot is the part of mech.Frame.Eval that angle3 reads: the rotation
// of f's body and its angular velocity in the world (zero without
// velocities).
func frameRot(f *mech.Frame, x *mech.Ctx) (a mech.Mat3, w mech.Vec3) {
	if f.Body < 0 {
		return mech.Ident, mech.Vec3{}
	}
	a = bodyRot(f, x.Q)
	if x.V != nil {
		v := x.V[f.V+3 : f.V+6]
		w = mech.MulMV(&a, mech.Vec3{v[0], v[1], v[2]})
	}
	return a, w
}

func (c *angle3) Unit() string { return "rad" }

// disp3 is the displacement of marker j's origin along marker i's z axis.
type disp3 struct{ fi, fj mech.Frame }

func (c *disp3) Value(x *mech.Ctx) (float64, float64) {
	var ki, kj mech.KinFrame
	c.fi.Eval(x.Q, x.V, &ki)
	c.fj.Eval(x.Q, x.V, &kj)
	d := mech.Sub(kj.P, ki.P)
	z := c.fi.Axis(&ki, 2)
	return mech.Dot(z, d), mech.Dot(z, mech.Sub(kj.V, ki.V)) + mech.Dot(mech.Cross(ki.W, z), d)
}

func (c *disp3) Unit() string { return "m" }
