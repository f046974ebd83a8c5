package rigid

import (
	"math"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// This file compiles the planar rigid-body elements of a model: bodies
// (three coordinates each, x, y, θ of the centre of mass), joints and
// drivers (made of rows, rows.go) and forces (forces.go).

// PlanarBodies compiles the ground markers and the bodies of a planar
// model: body i gets the coordinates 3i..3i+2, so they must be compiled
// before anything else adds coordinates.
func PlanarBodies(b mech.Builder, ms *spec.Model) {
	g := b.Gravity()
	for _, mk := range ms.Ground.Markers {
		at := vec2(b, mk.At)
		if !b.DefineMarker("ground."+mk.Name, mech.Marker{P: mech.Point{Body: -1, S: at, Ang: b.Const(mk.Angle, 0)}}) {
			b.Errorf(mk.Pos, "name", "duplicate ground marker %q", mk.Name)
		}
	}
	b.Grow(3 * len(ms.Bodies))
	for i := range ms.Bodies {
		bs := &ms.Bodies[i]
		mass := b.Const(bs.Mass, math.NaN())
		if !bs.Mass.Given() {
			b.Errorf(bs.Pos, "mass", "body %q needs a mass", bs.Name)
		} else if !(mass > 0) {
			b.Errorf(bs.Mass.Pos, "mass", "mass of body %q must be positive, got %g kg", bs.Name, mass)
		}
		jj := b.Const(bs.Inertia, math.NaN())
		if !bs.Inertia.Given() {
			b.Errorf(bs.Pos, "inertia", "body %q needs an inertia about its centre of mass", bs.Name)
		} else if !(jj > 0) {
			b.Errorf(bs.Inertia.Pos, "inertia", "inertia of body %q must be positive, got %g kg·m²", bs.Name, jj)
		}
		cm := vec2(b, bs.CM)
		at := vec2(b, bs.At)
		ang := b.Const(bs.Angle, 0)
		vel := vec2(b, bs.Vel)
		om := b.Const(bs.Omega, 0)
		checkSpeed(b, bs.Name, bs.Omega, om)
		for k := range vel {
			checkSpeed(b, bs.Name, bs.Vel[k], vel[k])
		}
		sn, cs := math.Sincos(ang)
		acm := [2]float64{cs*cm[0] - sn*cm[1], sn*cm[0] + cs*cm[1]}
		o := 3 * i
		q0, v0 := b.Q0(), b.V0()
		q0[o], q0[o+1], q0[o+2] = at[0]+acm[0], at[1]+acm[1], ang
		v0[o], v0[o+1], v0[o+2] = vel[0]-acm[1]*om, vel[1]+acm[0]*om, om
		b.AddMass(o, mass)
		b.AddMass(o+1, mass)
		b.AddMass(o+2, jj)
		if mass > 0 {
			b.AddGravity(o, mass*g[0])
			b.AddGravity(o+1, mass*g[1])
		}
		bi := mech.BodyInfo{Name: bs.Name, Q: o, V: o, Mass: mass, J: jj, CM: mech.Vec3{cm[0], cm[1], 0},
			Outline: bs.Shape.Outline, Radius: bs.Shape.Radius}
		k := b.AddBody(bi)
		b.DefineMarker(bs.Name, mech.Marker{P: mech.Point{Body: k, S: [2]float64{-cm[0], -cm[1]}}})
		info := b.BodyInfo(k)
		for _, mk := range bs.Markers {
			p := vec2(b, mk.At)
			a := b.Const(mk.Angle, 0)
			if !b.DefineMarker(bs.Name+"."+mk.Name, mech.Marker{P: mech.Point{Body: k, S: [2]float64{p[0] - cm[0], p[1] - cm[1]}, Ang: a}}) {
				b.Errorf(mk.Pos, "name", "duplicate marker %q on body %q", mk.Name, bs.Name)
			}
			info.Markers = append(info.Markers, mk.Name)
			sn, cs := math.Sincos(a)
			info.Local = append(info.Local, mech.Frame{Body: k, S: mech.Vec3{p[0], p[1], 0}, R: mech.Mat3{cs, -sn, 0, sn, cs, 0, 0, 0, 1}})
		}
	}
}

// vec2 evaluates the first two components of a vector attribute.
func vec2(b mech.Builder, v spec.Vec) [2]float64 {
	return [2]float64{b.Const(v[0], 0), b.Const(v[1], 0)}
}

// pos0 is the position of p at the approximate initial positions.
func pos0(b mech.Builder, p mech.Point) [2]float64 {
	var k mech.KinPoint
	p.Eval(b.Q0(), nil, &k)
	return k.R
}

// angle0 is the angle of p's x axis at the approximate initial positions.
func angle0(b mech.Builder, p mech.Point) float64 {
	if p.Body < 0 {
		return p.Ang
	}
	return b.Q0()[3*p.Body+2] + p.Ang
}

// rowDofs lists the coordinates of the bodies of pi and pj.
func rowDofs(pi, pj mech.Point) [6]int {
	var d [6]int
	for k := 0; k < 3; k++ {
		d[k], d[3+k] = -1, -1
		if pi.Body >= 0 {
			d[k] = 3*pi.Body + k
		}
		if pj.Body >= 0 {
			d[3+k] = 3*pj.Body + k
		}
	}
	return d
}

// PlanarJoint compiles a planar joint between rigid bodies.
func PlanarJoint(b mech.Builder, j spec.Joint) {
	b.Claim(j.Name, j.Pos, "joint")
	mi, ok1 := b.Marker(j.I, j.Pos, "i")
	mj, ok2 := b.Marker(j.J, j.Pos, "j")
	if !ok1 || !ok2 {
		return
	}
	pi, pj := mi.P, mj.P
	if pi.Body == pj.Body {
		b.Errorf(j.Pos, "j", "joint %q connects %s to itself", j.Name, j.I)
		return
	}
	kind, _ := mech.ParseJointKind(j.Kind)
	ji := mech.JointInfo{Name: j.Name, Kind: kind, I: mi, J: mj}
	var rows []row
	switch kind {
	case mech.JointRevolute:
		ji.Coord = planarAngle{pi, pj}
		rows = []row{{kind: rowPoint, pi: pi, pj: pj, axis: 0}, {kind: rowPoint, pi: pi, pj: pj, axis: 1}}
	case mech.JointTranslational, mech.JointPrismatic:
		ji.Kind = mech.JointTranslational
		ji.Coord = planarDisp{pi, pj}
		// J's origin stays on I's x axis: n·(rj − ri) = n·d0.
		d0 := mech.Sub2(pos0(b, pj), pos0(b, pi))
		a := angle0(b, pi)
		nrm := [2]float64{-math.Sin(a), math.Cos(a)}
		rows = []row{{kind: rowProj, pi: pi, pj: pj, psi: pi.Ang + math.Pi/2, c0: mech.Dot2(nrm, d0)},
			{kind: rowAngle, pi: pi, pj: pj, c0: angle0(b, pj) - angle0(b, pi) - (pj.Ang - pi.Ang)}}
	case mech.JointFixed:
		rows = []row{{kind: rowPoint, pi: pi, pj: pj, axis: 0}, {kind: rowPoint, pi: pi, pj: pj, axis: 1},
			{kind: rowAngle, pi: pi, pj: pj, c0: angle0(b, pj) - angle0(b, pi) - (pj.Ang - pi.Ang)}}
	default:
		b.Errorf(j.Pos, "kind", "unknown joint kind %q (revolute, translational, fixed)", j.Kind)
		return
	}
	owner := b.AddJoint(ji)
	b.AddConstraint(newRowSet(rows...), owner)
}

// PlanarDriver compiles a planar driver.
func PlanarDriver(b mech.Builder, d spec.Driver) {
	f, df, ddf, ji, ok := driverValue(b, d)
	if !ok {
		return
	}
	var r row
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
		pi, pj := jt.I.P, jt.J.P
		ji.I, ji.J, ji.Of = jt.I, jt.J, d.Joint
		switch jt.Kind {
		case mech.JointRevolute:
			ji.Driver = "joint-angle"
			r = row{kind: rowAngle, pi: pi, pj: pj, c0: pi.Ang - pj.Ang}
		case mech.JointTranslational:
			ji.Driver = "joint-disp"
			r = row{kind: rowProj, pi: pi, pj: pj, psi: pi.Ang}
		default:
			b.Errorf(d.Pos, "joint", "driver %q: a %s joint has no free coordinate to drive", d.Name, jt.Kind)
			return
		}
	case d.Body != "":
		if _, ok := b.Body(d.Body); !ok {
			b.Errorf(d.Pos, "body", "driver %q: unknown body %q%s", d.Name, d.Body, mech.Suggest(d.Body, b.BodyNames()))
			return
		}
		mj, _ := b.Marker(d.Body, d.Pos, "body")
		ji.I, ji.J = mech.Marker{P: mech.Point{Body: -1}}, mj
		switch d.Coord {
		case "x", "y":
			ax := 0
			if d.Coord == "y" {
				ax = 1
			}
			ji.Driver = "body-" + d.Coord
			r = row{kind: rowPoint, pi: mech.Point{Body: -1}, pj: mj.P, axis: ax}
		case "angle":
			ji.Driver = "body-angle"
			r = row{kind: rowAngle, pi: mech.Point{Body: -1}, pj: mj.P}
		default:
			b.Errorf(d.Pos, "coord", "driver %q: coord must be x, y or angle, got %q", d.Name, d.Coord)
			return
		}
	default:
		b.Errorf(d.Pos, "joint", "driver %q needs a joint or a body to drive", d.Name)
		return
	}
	r.f, r.df, r.ddf = f, df, ddf
	owner := b.AddJoint(ji)
	b.AddConstraint(newRowSet(r), owner)
}

// PlanarForce compiles a planar force element between rigid bodies.
func PlanarForce(b mech.Builder, f spec.Force) {
	b.Claim(f.Name, f.Pos, "force")
	var el mech.Force
	switch f.Kind {
	case "force":
		m, ok := b.Marker(f.I, f.Pos, "i")
		if !ok {
			return
		}
		p := m.P
		fol, ok := follower(b, f)
		if !ok {
			return
		}
		pf := &pointForce{name: f.Name, pt: p, fx: b.Run(f.FX, 0), fy: b.Run(f.FY, 0), follower: fol}
		pf.d = [3]int{-1, -1, -1}
		if p.Body >= 0 {
			pf.d = [3]int{3 * p.Body, 3*p.Body + 1, 3*p.Body + 2}
		}
		el = pf
	case "torque":
		bj, ok1 := bodyOf(b, f.I, f.Pos, "i")
		bi, ok2 := bodyOf(b, f.J, f.Pos, "j")
		if !ok1 || !ok2 {
			return
		}
		if !f.T.Given() {
			b.Errorf(f.Pos, "t", "torque %q needs a value t", f.Name)
		}
		te := &torqueElem{name: f.Name, bi: bi, bj: bj, t: b.Run(f.T, 0)}
		te.d = rowDofs(mech.Point{Body: bi}, mech.Point{Body: bj})
		el = te
	case "spring":
		mi, ok1 := b.Marker(f.I, f.Pos, "i")
		mj, ok2 := b.Marker(f.J, f.Pos, "j")
		if !ok1 || !ok2 {
			return
		}
		pi, pj := mi.P, mj.P
		d0 := mech.Sub2(pos0(b, pj), pos0(b, pi))
		sp := &spring{name: f.Name, pi: pi, pj: pj, k: b.Run(f.K, 0), c: b.Run(f.C, 0),
			l: b.Run(f.Length, math.Hypot(d0[0], d0[1])), p: b.Run(f.Preload, 0)}
		nonNeg(b, sp.k, f.K)
		nonNeg(b, sp.c, f.C)
		sp.d = rowDofs(pi, pj)
		el = sp
	case "rspring":
		mi, ok1 := b.Marker(f.I, f.Pos, "i")
		mj, ok2 := b.Marker(f.J, f.Pos, "j")
		if !ok1 || !ok2 {
			return
		}
		pi, pj := mi.P, mj.P
		a0 := 0.0
		if pj.Body >= 0 {
			a0 += b.Q0()[3*pj.Body+2]
		}
		if pi.Body >= 0 {
			a0 -= b.Q0()[3*pi.Body+2]
		}
		rs := &rspring{name: f.Name, bi: pi.Body, bj: pj.Body, k: b.Run(f.K, 0), c: b.Run(f.C, 0),
			a: b.Run(f.Angle, a0), p: b.Run(f.Preload, 0)}
		nonNeg(b, rs.k, f.K)
		nonNeg(b, rs.c, f.C)
		rs.d = rowDofs(mech.Point{Body: pi.Body}, mech.Point{Body: pj.Body})
		el = rs
	default:
		b.Errorf(f.Pos, "kind", "unknown force kind %q (force, torque, spring, rspring)", f.Kind)
		return
	}
	b.AddForce(f.Name, el)
}

// follower reads a force's frame: false for global components, true for
// components in the marker's frame (a follower force).
func follower(b mech.Builder, f spec.Force) (bool, bool) {
	switch f.Frame {
	case "", "global":
		return false, true
	case "marker", "local", "body":
		return true, true
	}
	b.Errorf(f.Pos, "frame", "frame must be global or marker, got %q", f.Frame)
	return false, false
}

// bodyOf returns the body index of a marker reference (-1: ground or
// absent).
func bodyOf(b mech.Builder, ref string, pos spec.Pos, field string) (int, bool) {
	if ref == "" || ref == "ground" {
		return -1, true
	}
	m, ok := b.Marker(ref, pos, field)
	return m.BodyIndex(b.Dim()), ok
}

// nonNeg reports a constant parameter that must not be negative.
func nonNeg(b mech.Builder, p mech.Param, e spec.Expr) {
	if p.P == nil && p.C < 0 {
		b.Errorf(e.Pos, e.Field, "must not be negative, got %g", p.C)
	}
}

// planarAngle is a revolute joint's coordinate: the angle of marker j's
// x axis relative to marker i's.
type planarAngle struct{ pi, pj mech.Point }

func (c planarAngle) Value(x *mech.Ctx) (float64, float64) {
	th, om := c.pj.Ang, 0.0
	if c.pj.Body >= 0 {
		th += x.Q[3*c.pj.Body+2]
		om += x.V[3*c.pj.Body+2]
	}
	thi := c.pi.Ang
	if c.pi.Body >= 0 {
		thi += x.Q[3*c.pi.Body+2]
		om -= x.V[3*c.pi.Body+2]
	}
	return th - thi, om
}

func (planarAngle) Unit() string { return "rad" }

// planarDisp is a translational joint's coordinate: the displacement of
// marker j's origin along marker i's x axis.
type planarDisp struct{ pi, pj mech.Point }

func (c planarDisp) Value(x *mech.Ctx) (float64, float64) {
	var ki, kj mech.KinPoint
	c.pi.Eval(x.Q, x.V, &ki)
	c.pj.Eval(x.Q, x.V, &kj)
	a := ki.Th + c.pi.Ang
	sn, cs := math.Sincos(a)
	d := mech.Sub2(kj.R, ki.R)
	dv := mech.Sub2(kj.V, ki.V)
	return cs*d[0] + sn*d[1], cs*dv[0] + sn*dv[1] + ki.Om*(-sn*d[0]+cs*d[1])
}

func (planarDisp) Unit() string { return "m" }
