package rigid

import (
	"math"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Drive-train elements on joint coordinates (<coupler>, <stop>), planar
// and spatial.
//
// A coupler relates the coordinates of two joints (angles or
// displacements), q_i and q_j, measured from their initial values:
//
//	Φ = a_i (q_i − q_i0) + a_j (q_j − q_j0) = 0
//
//	gear   a = (1, ±ratio)      external (−): the two turn in opposite senses; internal="true": the same
//	belt   a = (1, −ratio)      pulleys turning the same way, ratio = r_j / r_i
//	rack   a = (−radius, 1)     q_j = radius · q_i: pinion revolute i, rack translational j
//	screw  a = (−lead/2π, 1)    q_j = lead/2π · q_i: the turn of i advances j
//	linear a = (−ratio, 1)      q_j = ratio · q_i, any coordinates
//
// (for a gear and a belt, q_i = −(±ratio) q_j: ratio is the speed ratio
// ω_i/ω_j, the teeth of j over those of i). It is an exact constraint: the
// effort it applies to joint k's coordinate is −a_k λ (channels
// name.effort-i, name.effort-j: a torque for an angle, a force for a
// displacement). With a stiffness it is compliant instead: a force
// element on the mismatch δ = (q_i − q_i0) + (a_j/a_i)(q_j − q_j0),
// measured at joint i, with a dead band of ±backlash/2 (a gap: no effort
// inside it, the contact law outside, damping only while in contact and
// never pulling), its effort s = k (|δ| − b/2) + c δ̇ on joint i and
// (a_j/a_i) s on joint j.
//
// A stop holds a joint coordinate between lower and upper limits by the
// contact law s = k δᵉ + c δ̇ (δ the penetration past a limit; never
// pulling), a force element (channel name.effort).
//
// A motor is a DC motor on a joint coordinate: armature voltage V (an
// expression: an input, a function of time or of measures), resistance R,
// inductance L, torque constant k_t, back-EMF constant k_e, with its
// current i a state of its own: L di/dt = V − R i − k_e q̇, torque k_t i on
// the coordinate (a force for a linear motor on a displacement), |i| at
// most the current limit, the rotor's inertia added to the coordinate.
// Within a step the current follows the exact solution of its equation
// for a forcing f = (V − k_e q̇)/R that varies linearly from the step's
// start (an exponential integrator: L-stable, second order, exact when
// the speed and voltage change linearly), so the torque is a function of
// the speed at the evaluation time and its tangent is a damping.
//
// Both evaluate a joint's coordinate with the same constraint row a driver
// of it uses (its gradient, the velocity term of its second derivative
// and its Hessian), and its value and rate from the joint's coordinate
// (an angle counting whole turns). Adding another element of this kind is
// one more case in Drive and, if it needs attributes, a kind in
// xml.driveElems.

// jcoord is a joint coordinate as the drive-train elements use it: its
// row is a planar or spatial rigid joint's (concrete types: their
// buffers stay on the stack) or a joint's own (ext, mech.JointInfo's
// CoordRow, evaluated into the state's mech.CoordWork).
type jcoord struct {
	co   mech.Coordinate
	pl   *rowSet         // planar
	sp   *joint3         // spatial
	ext  mech.Constraint // a joint's own row
	u    string          // "rad" or "m"
	d    []int           // the row's dofs
	self union           // the coordinate's own dofs as a union (own)
}

// newJcoord makes a coordinate with the row el (a *rowSet, a *joint3 or
// a joint's own row).
func newJcoord(co mech.Coordinate, el mech.Constraint, u string) *jcoord {
	c := &jcoord{co: co, u: u, d: el.Dofs()}
	switch r := el.(type) {
	case *rowSet:
		c.pl = r
	case *joint3:
		c.sp = r
	default:
		c.ext = el
	}
	c.self = union{d: c.d, mi: make([]int, len(c.d)), mj: make([]int, len(c.d))}
	for a := range c.self.mi {
		c.self.mi[a], c.self.mj[a] = a, -1
	}
	return c
}

// dofs returns the coordinate's row's dofs (6 planar, 12 spatial; more at
// an FE body's node).
func (c *jcoord) dofs() []int { return c.d }

// smallDofs is the size of the elements' own arrays for a coordinate's
// gradient: a rigid joint's 12 dofs; larger rows use the state's
// mech.CoordWork.
const smallDofs = 12

// coordVec returns a zeroed vector of n for a coordinate's gradient:
// small when it holds n, else work vector k of x.CW.
func coordVec(x *mech.Ctx, small []float64, n, k int) []float64 {
	if n <= len(small) {
		return small[:n]
	}
	v := x.CW.Vec[k][:n]
	clear(v)
	return v
}

// coordMat returns a zeroed n×n matrix: small when it holds it, else
// x.CW.H (second: H2).
func coordMat(x *mech.Ctx, small []float64, n int, second bool) []float64 {
	if n*n <= len(small) {
		return small[:n*n]
	}
	h := x.CW.H
	if second {
		h = x.CW.H2
	}
	h = h[:n*n]
	clear(h)
	return h
}

// eval writes the gradient of the coordinate into jac (len(dofs)) and
// returns its value (whole turns counted), its rate jac·v and (vel) γ,
// with q̈_coord = jac·q̈ − γ.
func (c *jcoord) eval(x *mech.Ctx, vel bool, jac []float64) (v, rate, gamma float64) {
	var phi, phit, gam [1]float64
	out := mech.Rows{Phi: phi[:], Phit: phit[:], Gamma: gam[:], Jac: jac}
	switch {
	case c.pl != nil:
		c.pl.Eval(x, out, vel)
	case c.sp != nil:
		c.sp.Eval(x, out, vel)
	default:
		w := x.CW
		c.ext.Eval(x, mech.Rows{Phi: w.R[0:1], Phit: w.R[1:2], Gamma: w.R[2:3], Jac: w.J[:len(jac)]}, vel)
		copy(jac, w.J[:len(jac)])
		gam[0] = w.R[2]
	}
	v, _ = c.co.Value(x)
	// the rate as the gradient gives it (the joint's own rate formula
	// agrees on the joint's constraints, not off them)
	for k, i := range c.dofs() {
		if i >= 0 {
			rate += jac[k] * x.V[i]
		}
	}
	return v, rate, gam[0]
}

// hess adds s ∂²q_coord/∂q² into h (len(dofs)²).
func (c *jcoord) hess(x *mech.Ctx, s float64, h []float64) {
	lam := [1]float64{s}
	switch {
	case c.pl != nil:
		c.pl.Hess(x, lam[:], h)
	case c.sp != nil:
		c.sp.Hess(x, lam[:], h)
	default:
		w := x.CW
		w.L[0] = s
		hx := w.HX[:len(h)]
		clear(hx)
		c.ext.Hess(x, w.L[:], hx)
		for i, v := range hx {
			h[i] += v
		}
	}
}

// jointCoord makes the coordinate coord ("", "angle" or "disp") of the
// joint named name, reporting problems at the element's attribute field.
func jointCoord(b mech.Builder, d *spec.Drive, name, field, coord string) (*jcoord, bool) {
	elem := "coupler"
	if d.Kind == "stop" || d.Kind == "motor" || d.Kind == "friction" {
		elem = d.Kind
	}
	jt, _, ok := b.Joint(name)
	if !ok || jt.Kind == mech.JointDriver || jt.Kind == mech.JointCoupler {
		b.Errorf(d.Pos, field, "%s %q: unknown joint %q", elem, d.Name, name)
		return nil, false
	}
	if b.Dim() == 2 {
		pi, pj := jt.I.P, jt.J.P
		switch {
		case jt.Kind == mech.JointRevolute && (coord == "" || coord == "angle"):
			rs := newRowSet(row{kind: rowAngle, pi: pi, pj: pj, c0: pi.Ang - pj.Ang})
			c := newJcoord(jt.Coord, rs, "rad")
			c.pl = rs
			return c, true
		case jt.Kind == mech.JointTranslational && (coord == "" || coord == "disp"):
			rs := newRowSet(row{kind: rowProj, pi: pi, pj: pj, psi: pi.Ang})
			c := newJcoord(jt.Coord, rs, "m")
			c.pl = rs
			return c, true
		}
		b.Errorf(d.Pos, field, "%s %q: joint %q is a %s joint: a coupler or stop takes the angle of a revolute or the displacement of a translational joint", elem, d.Name, name, jt.Kind)
		return nil, false
	}
	if jt.CoordRow != nil {
		// a joint whose markers are not rigid frames: its own row
		if jt.Kind == mech.JointRevolute && (coord == "" || coord == "angle") {
			return newJcoord(jt.Coord, jt.CoordRow, "rad"), true
		}
		b.Errorf(d.Pos, field, "%s %q: joint %q has no coordinate %q", elem, d.Name, name, coord)
		return nil, false
	}
	fi, fj := jt.I.F, jt.J.F
	if jt.Kind == mech.JointCylindrical && coord == "" {
		b.Errorf(d.Pos, field, "%s %q: joint %q is cylindrical, with two coordinates: say which (coord-i, coord-j or coord = \"angle\" or \"disp\")", elem, d.Name, name)
		return nil, false
	}
	switch {
	case (jt.Kind == mech.JointRevolute && (coord == "" || coord == "angle")) || (jt.Kind == mech.JointCylindrical && coord == "angle"):
		return newJcoord(jt.Coord, newJoint3(fi, fj, prim{kind: pAngle}), "rad"), true
	case (jt.Kind == mech.JointPrismatic && (coord == "" || coord == "disp")) || (jt.Kind == mech.JointCylindrical && coord == "disp"):
		co := jt.Coord
		if jt.Kind == mech.JointCylindrical {
			co = jt.Coord2
		}
		return newJcoord(co, newJoint3(fi, fj, prim{kind: pDot2, a: wZi}), "m"), true
	}
	b.Errorf(d.Pos, field, "%s %q: joint %q is a %s joint: a coupler or stop takes the angle of a revolute or cylindrical joint or the displacement of a prismatic or cylindrical joint", elem, d.Name, name, jt.Kind)
	return nil, false
}

// union is the dofs of two coordinates together, with each coordinate's
// local index mapped into it (−1 for ground).
type union struct {
	d      []int
	mi, mj []int
}

func newUnion(ci, cj []int) union {
	u := union{mi: make([]int, len(ci)), mj: make([]int, len(cj))}
	at := map[int]int{}
	put := func(ds []int, m []int) {
		for k, i := range ds {
			m[k] = -1
			if i < 0 {
				continue
			}
			p, ok := at[i]
			if !ok {
				p = len(u.d)
				at[i] = p
				u.d = append(u.d, i)
			}
			m[k] = p
		}
	}
	put(ci, u.mi)
	put(cj, u.mj)
	return u
}

// own is the "union" of one coordinate: its own dofs, as they are (ground
// included), for the tangent of an element on a single coordinate.
func own(c *jcoord) *union { return &c.self }

// Drive compiles a <coupler>, <stop>, <motor> or <friction>.
func Drive(b mech.Builder, d spec.Drive) {
	b.Claim(d.Name, d.Pos, d.Kind)
	run := func(name string, def float64) mech.Param { return b.Run(d.Attr[name], def) }
	switch d.Kind {
	case "motor":
		newMotor(b, &d)
		return
	case "friction":
		newFriction(b, &d)
		return
	}
	if d.Kind == "stop" {
		c, ok := jointCoord(b, &d, d.I, "joint", d.Attr["coord"].Src)
		if !ok {
			return
		}
		st := &stop{name: d.Name, c: c, k: run("k", 0), cd: run("c", 0), e: run("exponent", 1),
			lo: run("lower", math.Inf(-1)), hi: run("upper", math.Inf(1))}
		if !d.Attr["lower"].Given() && !d.Attr["upper"].Given() {
			b.Errorf(d.Pos, "upper", "stop %q needs a lower or an upper limit (or both)", d.Name)
		}
		if lo, hi := st.lo, st.hi; lo.P == nil && hi.P == nil && !(lo.C < hi.C) {
			b.Errorf(d.Pos, "upper", "stop %q: upper limit %g must be above the lower %g", d.Name, hi.C, lo.C)
		}
		nonNeg(b, st.cd, d.Attr["c"])
		if d.Attr["restitution"].Given() {
			if d.Attr["c"].Given() {
				b.Errorf(d.Pos, "c", "stop %q: give a damping c or a restitution, not both (the restitution sets the damping at every impact)", d.Name)
			}
			is := &impactStop{stop: *st, rest: run("restitution", 1)}
			if r := is.rest; r.P == nil && !(r.C > 0 && r.C <= 1) {
				b.Errorf(d.Pos, "restitution", "stop %q: the restitution must be in (0, 1], got %g", d.Name, r.C)
			}
			is.slot = b.StateSlots(is, 7)
			b.AddForce(d.Name, is)
			return
		}
		b.AddForce(d.Name, st)
		return
	}
	ci, ok1 := jointCoord(b, &d, d.I, "i", d.Attr["coord-i"].Src)
	cj, ok2 := jointCoord(b, &d, d.J, "j", d.Attr["coord-j"].Src)
	if !ok1 || !ok2 {
		return
	}
	for _, c := range []struct {
		c           *jcoord
		field, name string
	}{{ci, "i", d.I}, {cj, "j", d.J}} {
		if len(c.c.dofs()) > smallDofs {
			b.Errorf(d.Pos, c.field, "coupler %q: joint %q is at a node of an fe-body that moves with the modes: couplers there are not supported (motors, stops, friction and drivers are)", d.Name, c.name)
			return
		}
	}
	if d.I == d.J && d.Attr["coord-i"].Src == d.Attr["coord-j"].Src {
		b.Errorf(d.Pos, "j", "coupler %q couples a coordinate of %q to itself", d.Name, d.I)
		return
	}
	cst := func(name string) float64 { return b.Const(d.Attr[name], 0) }
	var ai, aj float64
	switch d.Kind {
	case "gear":
		ai, aj = 1, cst("ratio")
		if b.Const(d.Attr["internal"], 0) == 0 {
			// external: q_i = −ratio q_j
		} else {
			aj = -aj
		}
	case "belt":
		ai, aj = 1, -cst("ratio")
	case "rack":
		ai, aj = -cst("radius"), 1
	case "screw":
		ai, aj = -cst("lead")/(2*math.Pi), 1
	case "linear":
		ai, aj = -cst("ratio"), 1
	}
	want := map[string][2]string{"gear": {"rad", "rad"}, "belt": {"rad", "rad"}, "rack": {"rad", "m"}, "screw": {"rad", "m"}}
	if w, ok := want[d.Kind]; ok && (ci.u != w[0] || cj.u != w[1]) {
		b.Errorf(d.Pos, "j", "coupler %q (%s) couples an angle at i to %s at j; got %s and %s", d.Name, d.Kind,
			map[string]string{"rad": "an angle", "m": "a displacement"}[w[1]], ci.u, cj.u)
		return
	}
	if ai == 0 || aj == 0 {
		b.Errorf(d.Pos, map[bool]string{true: "ratio", false: d.Kind}[d.Kind != "rack" && d.Kind != "screw"], "coupler %q: a zero ratio couples nothing", d.Name)
		return
	}
	x0 := &mech.Ctx{Q: b.Q0(), V: b.V0()}
	qi0, _ := ci.co.Value(x0)
	qj0, _ := cj.co.Value(x0)
	u := newUnion(ci.dofs(), cj.dofs())
	if d.Attr["stiffness"].Given() {
		cf := &compliantCoupler{name: d.Name, ci: ci, cj: cj, r: aj / ai, qi0: qi0, qj0: qj0, u: u,
			k: run("stiffness", 0), c: run("damping", 0), b: run("backlash", 0)}
		nonNeg(b, cf.c, d.Attr["damping"])
		nonNeg(b, cf.b, d.Attr["backlash"])
		if d.Attr["efficiency"].Given() {
			eta := run("efficiency", 1)
			if eta.P == nil && !(eta.C > 0 && eta.C <= 1) {
				b.Errorf(d.Pos, "efficiency", "coupler %q: the efficiency must be in (0, 1], got %g", d.Name, eta.C)
			}
			b.AddForce(d.Name, &lossyCoupler{compliantCoupler: cf, eta: eta})
			return
		}
		b.AddForce(d.Name, cf)
		return
	}
	for _, a := range []string{"damping", "backlash"} {
		if d.Attr[a].Given() {
			b.Errorf(d.Pos, a, "coupler %q: %s needs a stiffness (an exact coupler has no compliance)", d.Name, a)
		}
	}
	none := mech.Marker{P: mech.Point{Body: -1}, F: mech.Frame{Body: -1, Q: -1, V: -1, R: mech.Ident}}
	owner := b.AddJoint(mech.JointInfo{Name: d.Name, Kind: mech.JointCoupler, I: none, J: none})
	b.AddConstraint(&coupler{ci: ci, cj: cj, a: [2]float64{ai, aj}, q0: [2]float64{qi0, qj0}, u: u}, owner)
	if d.Attr["efficiency"].Given() {
		eta := run("efficiency", 1)
		if eta.P == nil && !(eta.C > 0 && eta.C <= 1) {
			b.Errorf(d.Pos, "efficiency", "coupler %q: the efficiency must be in (0, 1], got %g", d.Name, eta.C)
		}
		b.AddForce(d.Name, &couplerLoss{ci: ci, cj: cj, u: u, a: [2]float64{ai, aj}, eta: eta, lam: b.Multiplier(owner)})
	}
}

// coupler is the exact constraint Φ = a_i (q_i − q_i0) + a_j (q_j − q_j0).
type coupler struct {
	ci, cj *jcoord
	a, q0  [2]float64
	u      union
}

func (e *coupler) Dofs() []int { return e.u.d }
func (e *coupler) Rows() int   { return 1 }

// Coefficients returns a_i, a_j and the coordinates' units
// (mech.Coupling): the effort on coordinate k is −a_k λ.
func (e *coupler) Coefficients() (a [2]float64, units [2]string) {
	return e.a, [2]string{e.ci.u, e.cj.u}
}

func (e *coupler) Eval(x *mech.Ctx, out mech.Rows, vel bool) {
	var ji, jj [12]float64
	vi, _, gi := e.ci.eval(x, vel, ji[:len(e.ci.dofs())])
	vj, _, gj := e.cj.eval(x, vel, jj[:len(e.cj.dofs())])
	out.Phi[0] = e.a[0]*(vi-e.q0[0]) + e.a[1]*(vj-e.q0[1])
	out.Phit[0] = 0
	out.Gamma[0] = e.a[0]*gi + e.a[1]*gj
	jac := out.Jac[:len(e.u.d)]
	clear(jac)
	for k, p := range e.u.mi[:len(e.ci.dofs())] {
		if p >= 0 {
			jac[p] += e.a[0] * ji[k]
		}
	}
	for k, p := range e.u.mj[:len(e.cj.dofs())] {
		if p >= 0 {
			jac[p] += e.a[1] * jj[k]
		}
	}
}

func (e *coupler) Hess(x *mech.Ctx, lam []float64, h []float64) {
	addHess2(x, e.ci, e.cj, &e.u, e.a[0]*lam[0], e.a[1]*lam[0], h)
}

// addHess2 adds si ∂²q_i/∂q² + sj ∂²q_j/∂q² into h (union dofs²).
func addHess2(x *mech.Ctx, ci, cj *jcoord, u *union, si, sj float64, h []float64) {
	n := len(u.d)
	for side, c := range [2]*jcoord{ci, cj} {
		s, m := si, u.mi
		if side == 1 {
			s, m = sj, u.mj
		}
		if s == 0 {
			continue
		}
		var small [smallDofs * smallDofs]float64
		nd := len(c.dofs())
		hl := coordMat(x, small[:], nd, true)
		c.hess(x, s, hl)
		for a := 0; a < nd; a++ {
			pa := m[a]
			if pa < 0 {
				continue
			}
			for bb := 0; bb < nd; bb++ {
				if pb := m[bb]; pb >= 0 {
					h[pa*n+pb] += hl[a*nd+bb]
				}
			}
		}
	}
}

// compliantCoupler is a coupler with mesh (or belt) stiffness, damping and
// backlash: a force element on δ = (q_i − q_i0) + r (q_j − q_j0), r =
// a_j/a_i.
type compliantCoupler struct {
	name     string
	ci, cj   *jcoord
	r        float64
	qi0, qj0 float64
	u        union
	k, c, b  mech.Param
}

func (e *compliantCoupler) Dofs() []int           { return e.u.d }
func (e *compliantCoupler) Params() []*mech.Param { return []*mech.Param{&e.k, &e.c, &e.b} }

// state returns δ's gradient (grad, union dofs), δ, δ̇ and the effort s
// with its derivatives kk = ∂s/∂δ, cc = ∂s/∂δ̇.
func (e *compliantCoupler) state(x *mech.Ctx, grad []float64) (del, rate, s, kk, cc float64) {
	var ji, jj [12]float64
	vi, wi, _ := e.ci.eval(x, false, ji[:len(e.ci.dofs())])
	vj, wj, _ := e.cj.eval(x, false, jj[:len(e.cj.dofs())])
	del = vi - e.qi0 + e.r*(vj-e.qj0)
	rate = wi + e.r*wj
	clear(grad)
	for k, p := range e.u.mi[:len(e.ci.dofs())] {
		if p >= 0 {
			grad[p] += ji[k]
		}
	}
	for k, p := range e.u.mj[:len(e.cj.dofs())] {
		if p >= 0 {
			grad[p] += e.r * jj[k]
		}
	}
	s, kk, cc = contactLaw(del, rate, e.b.Get(x)/2, e.k.Get(x), 1, e.c.Get(x))
	return
}

// contactLaw is the effort of a gap of half-width g on the value δ with
// rate δ̇: 0 for |δ| ≤ g, else sign(δ) (k pᵉ + c r(p) ṗ) with p = |δ| − g
// the penetration, never pulling; with ∂s/∂δ and ∂s/∂δ̇. The damping
// comes in over the first contactRamp of penetration (r = min(1,
// p/contactRamp)), so the effort is continuous where contact begins (a
// jump there stalls Newton's iteration at every engagement).
func contactLaw(del, rate, g, k, e, c float64) (s, kk, cc float64) {
	sg := 1.0
	if del < 0 {
		sg, del, rate = -1, -del, -rate
	}
	p := del - g
	if !(p > 0) {
		return 0, 0, 0
	}
	pe := math.Pow(p, e)
	r, dr := 1.0, 0.0
	if p < contactRamp {
		r, dr = p/contactRamp, 1/contactRamp
	}
	s = k*pe + c*r*rate
	if s <= 0 {
		return 0, 0, 0
	}
	return sg * s, k*e*pe/p + c*dr*rate, c * r
}

// contactRamp is the penetration (rad or m) over which a stop's or a
// backlash's damping comes in.
const contactRamp = 1e-4

func (e *compliantCoupler) Eval(x *mech.Ctx, f, k, c []float64) {
	n := len(e.u.d)
	var grad [24]float64
	_, _, s, kk, cc := e.state(x, grad[:n])
	for a := 0; a < n; a++ {
		f[a] -= s * grad[a]
	}
	if k == nil || (s == 0 && kk == 0) {
		return
	}
	scalarTangent(x, e.ci, e.cj, &e.u, 1, e.r, grad[:n], s, kk, cc, k, c)
}

// scalarTangent adds the tangent of the generalized force Q = −s ∇δ, δ =
// wi q_i + wj q_j and s(δ, δ̇): K += ∇δ (kk ∇δ + cc ∂δ̇/∂q)ᵀ + s Hδ with
// ∂δ̇/∂q = Hδ v, C += cc ∇δ ∇δᵀ (Hδ = wi H_i + wj H_j).
func scalarTangent(x *mech.Ctx, ci, cj *jcoord, u *union, wi, wj float64, grad []float64, s, kk, cc float64, k, c []float64) {
	n := len(u.d)
	var hs [576]float64
	H := coordMat(x, hs[:], n, false)
	addHess2(x, ci, cj, u, wi, wj, H)
	var hvs [24]float64
	hv := coordVec(x, hvs[:], n, 3)
	for bb := 0; bb < n; bb++ {
		for a, i := range u.d {
			if i >= 0 {
				hv[bb] += H[a*n+bb] * x.V[i]
			}
		}
	}
	for a := 0; a < n; a++ {
		for bb := 0; bb < n; bb++ {
			k[a*n+bb] += grad[a]*(kk*grad[bb]+cc*hv[bb]) + s*H[a*n+bb]
			c[a*n+bb] += cc * grad[a] * grad[bb]
		}
	}
}

func (e *compliantCoupler) Potential(x *mech.Ctx) float64 {
	var grad [24]float64
	del, _, _, _, _ := e.state(x, grad[:len(e.u.d)])
	p := math.Abs(del) - e.b.Get(x)/2
	if p <= 0 {
		return 0
	}
	return 0.5 * e.k.Get(x) * p * p
}

// Channels lists the compliant coupler's channels (mech.Channeler).
func (e *compliantCoupler) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".effort-i", Unit: effortUnit(e.ci.u), Group: "force", Description: "coupler " + name + " effort on joint i's coordinate (torque or force)"},
		{Name: name + ".effort-j", Unit: effortUnit(e.cj.u), Group: "force", Description: "coupler " + name + " effort on joint j's coordinate (torque or force)"},
		{Name: name + ".mismatch", Unit: e.ci.u, Group: "position", Description: "coupler " + name + " mismatch δ at joint i (backlash and mesh deflection)"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *compliantCoupler) Channel(x *mech.Ctx, sub int) float64 {
	var grad [24]float64
	del, _, s, _, _ := e.state(x, grad[:len(e.u.d)])
	switch sub {
	case 0:
		return -s
	case 1:
		return -e.r * s
	}
	return del
}

func effortUnit(u string) string {
	if u == "rad" {
		return "N*m"
	}
	return "N"
}

// stop holds a joint coordinate between lower and upper limits.
type stop struct {
	name     string
	c        *jcoord
	k, cd, e mech.Param
	lo, hi   mech.Param
}

func (e *stop) Dofs() []int           { return e.c.dofs() }
func (e *stop) Params() []*mech.Param { return []*mech.Param{&e.k, &e.cd, &e.e, &e.lo, &e.hi} }

// state returns the coordinate's gradient (grad) and the stop's effort on
// the coordinate, −s with s ≥ 0 at the upper limit and ≤ 0 at the lower,
// with ∂s/∂q_coord and ∂s/∂q̇_coord.
func (e *stop) state(x *mech.Ctx, grad []float64) (s, kk, cc float64) {
	v, rate, _ := e.c.eval(x, false, grad)
	k, c, ex := e.k.Get(x), e.cd.Get(x), e.e.Get(x)
	if hi := e.hi.Get(x); v > hi {
		return contactLaw(v-hi, rate, 0, k, ex, c)
	}
	if lo := e.lo.Get(x); v < lo {
		return contactLaw(v-lo, rate, 0, k, ex, c)
	}
	return 0, 0, 0
}

func (e *stop) Eval(x *mech.Ctx, f, k, c []float64) {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	s, kk, cc := e.state(x, grad)
	e.apply(x, grad, s, kk, cc, f, k, c)
}

// apply adds the effort −s on the coordinate (gradient grad) and, when k
// is not nil, its tangent from ∂s/∂q = kk and ∂s/∂q̇ = cc.
func (e *stop) apply(x *mech.Ctx, grad []float64, s, kk, cc float64, f, k, c []float64) {
	if s == 0 {
		return
	}
	for a := range grad {
		f[a] -= s * grad[a]
	}
	if k == nil {
		return
	}
	u := own(e.c)
	scalarTangent(x, e.c, e.c, u, 1, 0, grad, s, kk, cc, k, c)
}

func (e *stop) Potential(x *mech.Ctx) float64 {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	v, _, _ := e.c.eval(x, false, grad)
	p := 0.0
	if hi := e.hi.Get(x); v > hi {
		p = v - hi
	} else if lo := e.lo.Get(x); v < lo {
		p = lo - v
	}
	ex := e.e.Get(x)
	return e.k.Get(x) * math.Pow(p, ex+1) / (ex + 1)
}

// Channels lists the stop's channel (mech.Channeler).
func (e *stop) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{{Name: name + ".effort", Unit: effortUnit(e.c.u), Group: "force",
		Description: "stop " + name + " effort on the joint's coordinate (torque or force; negative at the upper limit)"}}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *stop) Channel(x *mech.Ctx, sub int) float64 {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	s, _, _ := e.state(x, grad)
	return -s
}

// motor is a DC motor on a joint coordinate (see the comment at the top).
// Its state slots: the time, the current and the forcing f at the last
// accepted step.
type motor struct {
	name              string
	c                 *jcoord
	slot              int
	v, r, kt, ke, lim mech.Param
	l                 float64 // inductance (0: the current follows the voltage at once, no state)
	i0                float64 // initial current
}

func newMotor(b mech.Builder, d *spec.Drive) {
	c, ok := jointCoord(b, d, d.I, "joint", d.Attr["coord"].Src)
	if !ok {
		return
	}
	run := func(name string, def float64) mech.Param { return b.Run(d.Attr[name], def) }
	e := &motor{name: d.Name, c: c, v: run("voltage", 0), r: run("resistance", 1), l: b.Const(d.Attr["inductance"], 0),
		kt: run("kt", 0), lim: run("current-limit", math.Inf(1)), i0: b.Const(d.Attr["current"], 0)}
	e.ke = e.kt
	if d.Attr["ke"].Given() {
		e.ke = run("ke", 0)
	}
	if e.l < 0 {
		b.Errorf(d.Pos, "inductance", "must not be negative, got %g", e.l)
	}
	nonNeg(b, e.ke, d.Attr["ke"])
	if lim := e.lim; lim.P == nil && math.Abs(e.i0) > lim.C {
		b.Errorf(d.Pos, "current", "motor %q: the initial current %g A is above the current limit %g A", d.Name, e.i0, lim.C)
	}
	if d.Attr["rotor-inertia"].Given() {
		jr := b.Const(d.Attr["rotor-inertia"], 0)
		switch {
		case b.Dim() == 3:
			b.Errorf(d.Pos, "rotor-inertia", "motor %q: a spatial motor has no rotor-inertia: model the rotor as a body on the joint", d.Name)
		case jr < 0:
			b.Errorf(d.Pos, "rotor-inertia", "must not be negative, got %g", jr)
		case jr > 0:
			// the rotor turns with the joint's angle (θj − θi): ½ Jr (θ̇j − θ̇i)²
			ds := c.pl.d
			var dofs []int
			var sg []float64
			if ds[2] >= 0 {
				dofs, sg = append(dofs, ds[2]), append(sg, -1)
			}
			if ds[5] >= 0 {
				dofs, sg = append(dofs, ds[5]), append(sg, 1)
			}
			mm := make([]float64, len(dofs)*len(dofs))
			for a := range dofs {
				for bb := range dofs {
					mm[a*len(dofs)+bb] = jr * sg[a] * sg[bb]
				}
			}
			if c.u != "rad" {
				b.Errorf(d.Pos, "rotor-inertia", "motor %q: rotor-inertia belongs to a rotary motor on a revolute joint", d.Name)
			} else if len(dofs) > 0 {
				b.AddMassBlock(dofs, mm)
			}
		}
	}
	e.slot = b.StateSlots(e, 3)
	b.AddForce(d.Name, e)
}

func (e *motor) Dofs() []int           { return e.c.dofs() }
func (e *motor) Params() []*mech.Param { return []*mech.Param{&e.v, &e.r, &e.kt, &e.ke, &e.lim} }

// States lists the current as a continuous state when the motor has an
// inductance (mech.Stateful).
func (e *motor) States() []mech.StateInfo {
	if e.l == 0 {
		return nil
	}
	return []mech.StateInfo{{Slot: e.slot + 1, Name: e.name + ".current", Unit: "A"}}
}

// Rates writes di/dt = (V − R i − k_e q̇)/L at x, the current as stored
// (0 where the current limit holds it and the rate would push it
// further) (mech.Stateful).
func (e *motor) Rates(x *mech.Ctx, dst []float64) {
	if e.l == 0 {
		return
	}
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	i := x.ES[e.slot+1]
	f, _ := e.forcing(x, grad)
	r := (f - i) * e.r.Get(x) / e.l
	if lim := e.lim.Get(x); math.Abs(i) >= lim && r*i > 0 {
		r = 0
	}
	dst[0] = r
}

// forcing returns f = (V − k_e q̇)/R and ∂f/∂q̇ at x (grad: the
// coordinate's gradient).
func (e *motor) forcing(x *mech.Ctx, grad []float64) (f, dfdw float64) {
	_, w, _ := e.c.eval(x, false, grad)
	r := e.r.Get(x)
	return (e.v.Get(x) - e.ke.Get(x)*w) / r, -e.ke.Get(x) / r
}

// current returns the current at x and ∂i/∂q̇, from the state at the last
// accepted step.
func (e *motor) current(x *mech.Ctx, grad []float64) (i, didw float64) {
	f1, df := e.forcing(x, grad)
	return e.update(x, f1, df)
}

// update returns the current at x and ∂i/∂q̇ for the forcing f1 there
// (∂f/∂q̇ = df), from the state at the last accepted step.
func (e *motor) update(x *mech.Ctx, f1, df float64) (i, didw float64) {
	es := x.ES[e.slot : e.slot+3]
	t0, i0, f0 := es[0], es[1], es[2]
	l, dt := e.l, x.Time()-t0
	switch {
	case l == 0:
		i, didw = f1, df
	case dt == 0:
		i = i0
	default:
		a := dt * e.r.Get(x) / l
		ea := math.Exp(-a)
		// φ = 1 − (1 − e^−a)/a, the weight of the forcing's change
		phi := 1 - (1-ea)/a
		if math.Abs(a) < 1e-4 { // (also backwards in time: output derivatives)
			phi = a/2 - a*a/6 + a*a*a/24
		}
		i = ea*i0 + (1-ea)*f0 + (f1-f0)*phi
		didw = phi * df
	}
	if lim := e.lim.Get(x); math.Abs(i) > lim {
		i, didw = math.Copysign(lim, i), 0
	}
	return i, didw
}

func (e *motor) Eval(x *mech.Ctx, f, k, c []float64) {
	n := len(e.c.dofs())
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	i, didw := e.current(x, grad)
	tq := e.kt.Get(x) * i
	for a := 0; a < n; a++ {
		f[a] += tq * grad[a]
	}
	if k == nil {
		return
	}
	u := own(e.c)
	// Q = −s ∇q with s = −k_t i(q̇): ∂s/∂q̇ = −k_t ∂i/∂q̇ (a damping)
	scalarTangent(x, e.c, e.c, u, 1, 0, grad, -tq, 0, -e.kt.Get(x)*didw, k, c)
}

// Commit stores the time, the current and the forcing at x
// (mech.Stateful).
func (e *motor) Commit(x *mech.Ctx, mode mech.CommitMode) {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	es := x.ES[e.slot : e.slot+3]
	f, df := e.forcing(x, grad)
	var i float64
	switch mode {
	case mech.CommitInit:
		i = e.i0
	case mech.CommitSteady:
		i = f
		if lim := e.lim.Get(x); math.Abs(i) > lim {
			i = math.Copysign(lim, i)
		}
	default:
		i, _ = e.update(x, f, df)
	}
	es[0], es[1], es[2] = x.Time(), i, f
}

func (e *motor) Potential(x *mech.Ctx) float64 { return 0 }

// Channels lists the motor's channels (mech.Channeler).
func (e *motor) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".current", Unit: "A", Group: "other", Description: "motor " + name + " armature current"},
		{Name: name + ".torque", Unit: effortUnit(e.c.u), Group: "force", Description: "motor " + name + " torque (or force) on the joint's coordinate, k_t i"},
		{Name: name + ".voltage", Unit: "V", Group: "input", Description: "motor " + name + " armature voltage"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *motor) Channel(x *mech.Ctx, sub int) float64 {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	i, _ := e.current(x, grad)
	switch sub {
	case 0:
		return i
	case 1:
		return e.kt.Get(x) * i
	}
	return e.v.Get(x)
}

// friction is joint friction on a joint coordinate by the LuGre model
// (Canudas de Wit et al., 1995): bristles of stiffness σ0 and damping σ1
// whose mean deflection z is a state of the element,
//
//	ż = q̇ − σ0 |q̇| z / g(q̇),  g(q̇) = F_c + (F_s − F_c) e^{−(q̇/v_s)²},
//	effort −(σ0 z + σ1 e^{−(q̇/v_s)²} ż + σ2 q̇) on the coordinate,
//
// with the Coulomb and static levels F_c = preload + radius μ_k N and
// F_s = preload + radius μ_s N (N the normal load, an expression: a
// joint reaction read by fx(joint), fy(joint), ...), the Stribeck speed
// v_s and the viscous coefficient σ2. At rest z stays where it is: a
// body held by friction keeps its place exactly (no creep), after a
// pre-sliding deflection F/σ0; in steady sliding the effort is g(q̇) +
// σ2 q̇; a joint that starts moving starts with the steady deflection.
// Within a step z follows the exact solution of its equation with
// the speed of the evaluation time held (an exponential update:
// L-stable for the stiff bristles).
type friction struct {
	lugre
	name string
	c    *jcoord
	slot int
}

// lugre is the LuGre law's levels and bristle parameters, shared by the
// joint frictions (friction, ballFriction).
type lugre struct {
	pre, muS, muK, normal mech.Param
	radius                float64
	vs, s0, s1, s2        mech.Param
}

// newLugre reads the <friction> attributes and refuses bad ones; arm says
// whether the joint turns (a normal load then needs a radius), armWhat
// words the refusal of a missing radius.
func newLugre(b mech.Builder, d *spec.Drive, arm bool, armWhat string) lugre {
	run := func(name string, def float64) mech.Param { return b.Run(d.Attr[name], def) }
	l := lugre{pre: run("preload", 0), muK: run("mu-kinetic", 0), normal: run("normal", 0),
		radius: 1, vs: run("v-stribeck", 1e-2), s0: run("bristle-stiffness", 1e5), s1: run("bristle-damping", 0), s2: run("viscous", 0)}
	l.muS = l.muK
	if d.Attr["mu-static"].Given() {
		l.muS = run("mu-static", 0)
	}
	if d.Attr["radius"].Given() {
		if !arm {
			b.Errorf(d.Pos, "radius", "friction %q: radius (the arm of the friction force) belongs to a rotary joint", d.Name)
		}
		l.radius = b.Const(d.Attr["radius"], 1)
		if !(l.radius > 0) {
			b.Errorf(d.Pos, "radius", "must be > 0, got %g", l.radius)
		}
	} else if arm && d.Attr["normal"].Given() {
		b.Errorf(d.Pos, "radius", "friction %q: %s", d.Name, armWhat)
	}
	for _, a := range []string{"preload", "mu-kinetic", "mu-static", "normal", "viscous", "bristle-damping"} {
		nonNeg(b, b.Run(d.Attr[a], 0), d.Attr[a])
	}
	if p, k := l.muS, l.muK; p.P == nil && k.P == nil && p.C < k.C {
		b.Errorf(d.Pos, "mu-static", "friction %q: the static coefficient %g is below the kinetic %g", d.Name, p.C, k.C)
	}
	if !d.Attr["preload"].Given() && !d.Attr["normal"].Given() && !d.Attr["viscous"].Given() {
		b.Errorf(d.Pos, "preload", "friction %q needs a preload, a normal load (with mu-kinetic) or a viscous coefficient", d.Name)
	}
	return l
}

// Params lists the law's run-time parameters (mech.ParamLister).
func (l *lugre) Params() []*mech.Param {
	return []*mech.Param{&l.pre, &l.muS, &l.muK, &l.normal, &l.vs, &l.s0, &l.s1, &l.s2}
}

// g returns the Stribeck curve at the speed w.
func (l *lugre) g(x *mech.Ctx, w float64) float64 {
	fc, fs := l.levels(x)
	r := w / l.vs.Get(x)
	return fc + (fs-fc)*math.Exp(-r*r)
}

// levels returns the Coulomb and static levels F_c, F_s at x.
func (l *lugre) levels(x *mech.Ctx) (fc, fs float64) {
	n := math.Abs(l.normal.Get(x)) * l.radius
	return l.pre.Get(x) + l.muK.Get(x)*n, l.pre.Get(x) + l.muS.Get(x)*n
}

// damping is the bristles' damping at the speed w, σ1 e^{−(w/v_s)²}:
// full in pre-sliding, gone in sliding, where ż would otherwise add σ1 ż
// spikes to the Coulomb level (the dissipative LuGre variant).
func (l *lugre) damping(x *mech.Ctx, w float64) float64 {
	r := w / l.vs.Get(x)
	return l.s1.Get(x) * math.Exp(-r*r)
}

func newFriction(b mech.Builder, d *spec.Drive) {
	model := d.Attr["model"].Src
	if jt, _, ok := b.Joint(d.I); ok && b.Dim() == 3 && (jt.Kind == mech.JointSpherical || jt.Kind == mech.JointUniversal) {
		if model == "lugre" {
			newBallFriction(b, d, jt)
			return
		}
		if d.Attr["coord"].Given() {
			b.Errorf(d.Pos, "coord", "friction %q: a %s joint has no coordinate to choose: its friction acts against the relative rotation", d.Name, jt.Kind)
		}
		newBallCoulomb(b, d, jt, newLugre(b, d, true, "a ball joint's friction from a normal load needs the ball radius it acts at"))
		return
	}
	c, ok := jointCoord(b, d, d.I, "joint", d.Attr["coord"].Src)
	if !ok {
		return
	}
	l := newLugre(b, d, c.u == "rad",
		"a rotary joint's friction from a normal load needs the radius it acts at (pin or bearing radius)")
	if model != "lugre" {
		newCoulombFriction(b, d, c, l)
		return
	}
	e := &friction{name: d.Name, c: c, lugre: l}
	e.slot = b.StateSlots(e, 2)
	b.AddForce(d.Name, e)
}

func (e *friction) Dofs() []int { return e.c.dofs() }

// bristle returns z and ż at the speed w after dt from z0.
func (e *friction) bristle(x *mech.Ctx, z0, dt, w float64) (z, zd float64) {
	g := e.g(x, w)
	s0 := e.s0.Get(x)
	a := 0.0
	if g > 0 {
		a = s0 * math.Abs(w) / g
	} else if w != 0 {
		a = math.Inf(1) // no friction level: the bristles follow at once
	}
	switch {
	case math.IsInf(a, 1):
		return 0, 0 // no friction level: nothing to deflect the bristles
	case a*dt < 1e-8:
		z = z0 + (w-a*z0)*dt
	default:
		ea := math.Exp(-a * dt)
		z = ea*z0 + (1-ea)*w/a
	}
	return z, w - a*z
}

// effort returns the friction effort s (acting as −s on the coordinate)
// and ∂s/∂q̇ at x, with the coordinate's gradient in grad.
func (e *friction) effort(x *mech.Ctx, grad []float64) (s, ds float64) {
	_, w, _ := e.c.eval(x, false, grad)
	es := x.ES[e.slot : e.slot+2]
	dt := x.Time() - es[0]
	at := func(w float64) float64 {
		z, zd := e.bristle(x, es[1], dt, w)
		return e.s0.Get(x)*z + e.damping(x, w)*zd + e.s2.Get(x)*w
	}
	s = at(w)
	h := 1e-7 * math.Max(1e-3, math.Abs(w))
	return s, (at(w+h) - at(w-h)) / (2 * h)
}

func (e *friction) Eval(x *mech.Ctx, f, k, c []float64) {
	n := len(e.c.dofs())
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	s, ds := e.effort(x, grad)
	for a := 0; a < n; a++ {
		f[a] -= s * grad[a]
	}
	if k == nil {
		return
	}
	u := own(e.c)
	scalarTangent(x, e.c, e.c, u, 1, 0, grad, s, 0, ds, k, c)
}

// Commit stores the time and the bristle deflection (mech.Stateful).
func (e *friction) Commit(x *mech.Ctx, mode mech.CommitMode) {
	es := x.ES[e.slot : e.slot+2]
	switch mode {
	case mech.CommitInit:
		// the steady deflection at the initial speed (at rest: none)
		var gs [smallDofs]float64
		grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
		_, w, _ := e.c.eval(x, false, grad)
		es[1] = 0
		if g := e.g(x, w); w != 0 && g > 0 {
			es[1] = math.Copysign(g/e.s0.Get(x), w)
		}
	case mech.CommitStep:
		var gs [smallDofs]float64
		grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
		_, w, _ := e.c.eval(x, false, grad)
		es[1], _ = e.bristle(x, es[1], x.Time()-es[0], w)
	}
	es[0] = x.Time()
}

// States lists the bristle deflection (mech.Stateful).
func (e *friction) States() []mech.StateInfo {
	return []mech.StateInfo{{Slot: e.slot + 1, Name: e.name + ".bristle", Unit: e.c.u}}
}

// Rates writes ż at x, z as stored (mech.Stateful).
func (e *friction) Rates(x *mech.Ctx, dst []float64) {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	_, w, _ := e.c.eval(x, false, grad)
	_, dst[0] = e.bristle(x, x.ES[e.slot+1], 0, w)
}

func (e *friction) Potential(x *mech.Ctx) float64 { return 0 }

// Channels lists the friction's channels (mech.Channeler).
func (e *friction) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".effort", Unit: effortUnit(e.c.u), Group: "force", Description: "friction " + name + " effort on the joint's coordinate (torque or force)"},
		{Name: name + ".bristle", Unit: e.c.u, Group: "position", Description: "friction " + name + " bristle deflection z (pre-sliding)"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *friction) Channel(x *mech.Ctx, sub int) float64 {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	if sub == 1 {
		_, w, _ := e.c.eval(x, false, grad)
		es := x.ES[e.slot : e.slot+2]
		z, _ := e.bristle(x, es[1], x.Time()-es[0], w)
		return z
	}
	s, _ := e.effort(x, grad)
	return -s
}
