package flex

import (
	"math"
	"strings"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// This file compiles spatial ANCF cables (<beam kind="ancf"> in a spatial
// model; the element is in ancf3.go), the spherical joints that pin their
// nodes to bodies, the ground or each other, and their channels.

// cableRefers reports whether ref names a marker of a spatial ANCF cable
// of the model.
func cableRefers(ms *spec.Model, ref string) bool {
	name, _, _ := strings.Cut(ref, ".")
	for i := range ms.Beams {
		if ms.Beams[i].Name == name && ms.Beams[i].Kind == "ancf" {
			return true
		}
	}
	return false
}

// SpatialRefers reports whether a joint or force with these marker
// references is compiled by Spatial (it attaches to a spatial ANCF
// cable), not by the rigid joints and forces.
func SpatialRefers(ms *spec.Model, i, j string) bool {
	return (i != "" && (cableRefers(ms, i) || feFreeRef(ms, i))) || (j != "" && (cableRefers(ms, j) || feFreeRef(ms, j)))
}

func (fx *flexCompiler) compileANCF3(bs *spec.Beam) {
	b := fx.b
	L, ea, ei, rhoA, beta := fx.material(bs)
	ne := fx.count(bs, "elements", 8)
	for _, f := range []string{"angle", "i", "j"} {
		if _, ok := bs.Attr[f]; ok {
			msg := "does not apply to a spatial ancf cable (its direction is x-axis)"
			if f == "i" || f == "j" {
				msg = "does not apply to a spatial ancf cable: pin its nodes with <spherical> joints"
			}
			b.Errorf(attr(bs, f).Pos, f, "%s %s", f, msg)
		}
	}
	if _, ok := bs.Attr["at.x"]; !ok {
		b.Errorf(bs.Pos, "at", "beam %q needs at (position of its start)", bs.Name)
	}
	at, _ := fx.vec(bs, "at", mech.Vec3{})
	t, _ := fx.vec(bs, "x-axis", mech.Vec3{1, 0, 0})
	if n := mech.Norm(t); n > 0 {
		t = mech.Scale(1/n, t)
	} else {
		b.Errorf(attr(bs, "x-axis.x").Pos, "x-axis", "x-axis of beam %q must be a nonzero vector", bs.Name)
		t = mech.Vec3{1, 0, 0}
	}
	vel, _ := fx.vec(bs, "velocity", mech.Vec3{})
	om, _ := fx.vec(bs, "omega", mech.Vec3{})
	cb := &ancfBeam{name: bs.Name, ne: ne, length: L, ea: ea, ei: ei, rhoA: rhoA, beta: beta, k: newANCFConst(L / float64(ne))}
	if curv, eng, ng, ok := fx.exactOptions(bs); ok && (curv || eng) {
		if beta != 0 {
			b.Errorf(attr(bs, "damping").Pos, "damping", "damping of beam %q: material damping is not available with curvature=\"exact\" or axial-strain=\"engineering\" on a spatial cable", bs.Name)
		}
		cb.exact = newANCFExact(cb.k.l, ng, curv, eng)
	}
	cb.qbase = len(b.Q0())
	cb.base = b.Grow(6 * (ne + 1))
	l := cb.k.l
	q0, v0 := b.Q0(), b.V0()
	for k := 0; k <= ne; k++ {
		o, ov := cb.qbase+6*k, cb.base+6*k
		p := mech.Add(at, mech.Scale(float64(k)*l, t))
		copy(q0[o:o+3], p[:])
		copy(q0[o+3:o+6], t[:])
		vp := mech.Add(vel, mech.Cross(om, mech.Sub(p, at)))
		vt := mech.Cross(om, t)
		copy(v0[ov:ov+3], vp[:])
		copy(v0[ov+3:ov+6], vt[:])
		for c := 3; c < 6; c++ {
			b.SetLength(ov+c, slopeLength(l))
		}
	}
	g := b.Gravity()
	mm := make([]float64, 16)
	for i := range mm {
		mm[i] = rhoA * cb.k.m4[i]
	}
	for e := 0; e < ne; e++ {
		el := &ancf3Elem{b: cb, qo: cb.qbase + 6*e}
		o := cb.base + 6*e
		for i := range el.d {
			el.d[i] = o + i
		}
		for c := 0; c < 3; c++ {
			b.AddMassBlock([]int{o + c, o + 3 + c, o + 6 + c, o + 9 + c}, mm)
			for kk := 0; kk < 4; kk++ {
				b.AddGravity(o+3*kk+c, rhoA*cb.k.gv[kk]*g[c])
			}
		}
		b.AddForce(bs.Name+"#"+itoa(e), el)
	}
	cb.markers = fx.beamMarkers(bs, L)
	for i := range cb.markers {
		mk := &cb.markers[i]
		k := int(math.Round(mk.s / l))
		if math.Abs(mk.s-float64(k)*l) <= 1e-9*L {
			mk.node = k
		}
	}
	fx.compileAdaptive(bs, cb, 3, nil)
	fx.ancf[bs.Name] = cb
	b.AddForce(bs.Name, &cable3Info{b: cb, shape: shapeNodes(ne)})
}

// cableSide is one side of a joint to a spatial cable: a node of a cable,
// or a rigid (or ground) frame.
type cableSide struct {
	cable *ancfBeam
	node  int
	f     mech.Frame
}

// cableSide resolves a joint side.
func (fx *flexCompiler) cableSide(ref string, pos spec.Pos, field string) (cableSide, bool) {
	name, _, _ := strings.Cut(ref, ".")
	if cb, ok := fx.ancf[name]; ok {
		node, ok := fx.nodeMarker(cb, ref, pos, field)
		return cableSide{cable: cb, node: node}, ok
	}
	if cableRefers(fx.ms, ref) {
		return cableSide{}, false // a cable with errors
	}
	m, ok := fx.b.Marker(ref, pos, field)
	return cableSide{f: m.F, node: -1}, ok
}

// cableJoint compiles a joint with a spatial cable's node on one side: a
// spherical joint (the node's position held at the other side's point).
func (fx *flexCompiler) cableJoint(j spec.Joint) {
	b := fx.b
	if !b.Claim(j.Name, j.Pos, "joint") {
		return
	}
	if kind, _ := mech.ParseJointKind(j.Kind); kind != mech.JointSpherical {
		b.Errorf(j.Pos, "kind", "joint %q: a %s joint cannot attach to a spatial ancf cable (its nodes have no orientation): use <spherical>", j.Name, j.Kind)
		return
	}
	si, ok1 := fx.cableSide(j.I, j.Pos, "i")
	sj, ok2 := fx.cableSide(j.J, j.Pos, "j")
	if !ok1 || !ok2 {
		return
	}
	if si.cable != nil && sj.cable == nil {
		si, sj = sj, si // the rigid side first
	}
	if si.cable != nil && si.cable == sj.cable && si.node == sj.node {
		b.Errorf(j.Pos, "j", "joint %q connects node %d of beam %q to itself", j.Name, si.node, si.cable.name)
		return
	}
	ground := mech.Marker{F: mech.Frame{Body: -1, Q: -1, V: -1, R: mech.Ident}, P: mech.Point{Body: -1}}
	ji := mech.JointInfo{Name: j.Name, Kind: mech.JointBeamPin, I: ground, J: ground}
	e := &cablePin{}
	nj := sj.cable.base + 6*sj.node
	e.qj = sj.cable.qbase + 6*sj.node
	for a := 0; a < 3; a++ {
		e.d[6+a] = nj + a
		e.d[9+a] = -1 // (the halves of d are the two sides: Model.reaction)
	}
	if si.cable != nil {
		e.nodeI = true
		ni := si.cable.base + 6*si.node
		e.qi = si.cable.qbase + 6*si.node
		for a := 0; a < 6; a++ {
			e.d[a] = -1
		}
		for a := 0; a < 3; a++ {
			e.d[a] = ni + a
		}
	} else {
		e.f = si.f
		ji.I = mech.Marker{F: si.f, P: mech.Point{Body: si.f.Body}}
		for a := 0; a < 6; a++ {
			e.d[a] = -1
			if si.f.Body >= 0 {
				e.d[a] = si.f.V + a
			}
		}
	}
	owner := b.AddJoint(ji)
	b.AddConstraint(e, owner)
}

// cablePin holds a cable node's position (coordinates d[6:9]) at a point:
// a frame's origin on a rigid body (d[0:6] its velocity coordinates, -1
// for ground) or another node's position (nodeI: d[0:3]). Φ = x_j − p_i.
// d[9:12] are unused (-1): each side has six, as the engine's reactions
// read them.
type cablePin struct {
	d      [12]int
	qi, qj int // the nodes' first position coordinates
	f      mech.Frame
	nodeI  bool
}

func (e *cablePin) Dofs() []int { return e.d[:] }
func (e *cablePin) Rows() int   { return 3 }

func (e *cablePin) Eval(x *mech.Ctx, out mech.Rows, vel bool) {
	q := x.Q
	var p, kappa mech.Vec3
	var A mech.Mat3
	var onBody bool
	switch {
	case e.nodeI:
		p = mech.Vec3{q[e.qi], q[e.qi+1], q[e.qi+2]}
	default:
		var k mech.KinFrame
		var v []float64
		if vel {
			v = x.V
		}
		e.f.Eval(q, v, &k)
		p, A, onBody = k.P, k.A, e.f.Body >= 0
		if onBody && vel {
			// A (ω × (ω × s)) in the world: ω_w × (ω_w × A s)
			kappa = mech.Cross(k.W, mech.Cross(k.W, k.AS))
		}
	}
	var ASx mech.Mat3
	if onBody {
		Ss := mech.Skew(e.f.S)
		ASx = mech.MulMM(&A, &Ss)
	}
	for a := 0; a < 3; a++ {
		jac := out.Jac[12*a : 12*a+12]
		clear(jac)
		out.Phi[a] = q[e.qj+a] - p[a]
		out.Phit[a] = 0
		out.Gamma[a] = 0
		jac[6+a] = 1
		switch {
		case e.nodeI:
			jac[a] = -1
		case onBody:
			jac[a] = -1
			for c := 0; c < 3; c++ {
				jac[3+c] = ASx[3*a+c]
			}
			out.Gamma[a] = kappa[a]
		}
	}
}

// Hess adds Σ λ_a ∂(J_aᵀ)/∂q: the body's rotation block −[s]×[Aᵀλ]×.
func (e *cablePin) Hess(x *mech.Ctx, lam []float64, h []float64) {
	if e.nodeI || e.f.Body < 0 {
		return
	}
	var k mech.KinFrame
	e.f.Eval(x.Q, nil, &k)
	u := mech.MulMTV(&k.A, mech.Vec3{lam[0], lam[1], lam[2]})
	Ss, Su := mech.Skew(e.f.S), mech.Skew(u)
	m := mech.MulMM(&Ss, &Su)
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			h[(3+a)*12+3+c] -= m[3*a+c]
		}
	}
}

// cable3Info is the beam-level element of a spatial cable: no forces,
// only its channels, coordinate names and drawing.
// AdaptiveBasis returns the cable's adaptive modal selection data (nil
// without reduction="adaptive").
func (e *cable3Info) AdaptiveBasis() *mech.AdaptiveBasis { return e.b.adaptive }

type cable3Info struct {
	b     *ancfBeam
	shape []int
}

func (e *cable3Info) Dofs() []int                                     { return nil }
func (e *cable3Info) Eval(*mech.Ctx, []float64, []float64, []float64) {}
func (e *cable3Info) Potential(*mech.Ctx) float64                     { return 0 }

func (e *cable3Info) CoordNames(dst []string) {
	b := e.b
	for k := 0; k <= b.ne; k++ {
		o := b.base + 6*k // (velocity coordinates)
		for i, c := range []string{".x", ".y", ".z", ".dx", ".dy", ".dz"} {
			dst[o+i] = b.name + ".n" + itoa(k) + c
		}
	}
}

// cable3Qty lists the channels of a spatial cable's marker.
var cable3Qty = [...]struct{ q, unit, group, desc string }{
	{"x", "m", "position", "x position"},
	{"y", "m", "position", "y position"},
	{"z", "m", "position", "z position"},
	{"vx", "m/s", "velocity", "x velocity"},
	{"vy", "m/s", "velocity", "y velocity"},
	{"vz", "m/s", "velocity", "z velocity"},
	{"strain", "", "strain", "axial (Green) strain ½(|r'|² − 1)"},
}

func (e *cable3Info) Channels(name string) []mech.ChannelInfo {
	out := []mech.ChannelInfo{energyChannel(name)}
	for _, mk := range e.b.markers {
		out = markerChannels(out, name, mk.name, cable3Qty[:])
	}
	return shapeChannels(out, name, e.shape, 3)
}

func (e *cable3Info) Channel(x *mech.Ctx, sub int) float64 {
	b := e.b
	if sub == 0 {
		u := 0.0
		el := ancf3Elem{b: b}
		for k := 0; k < b.ne; k++ {
			el.qo = b.qbase + 6*k
			a, bb := el.energy(x.Q)
			u += a + bb
		}
		return u
	}
	sub--
	nq := len(cable3Qty)
	if nm := nq * len(b.markers); sub >= nm {
		return x.Q[b.qbase+6*e.shape[(sub-nm)/3]+(sub-nm)%3]
	}
	mk := &b.markers[sub/nq]
	r, rx, v, _ := b.point3(x.Q, x.V, mk.s)
	switch k := sub % nq; {
	case k < 3:
		return r[k]
	case k < 6:
		return v[k-3]
	}
	return 0.5 * (rx[0]*rx[0] + rx[1]*rx[1] + rx[2]*rx[2] - 1)
}

// Draw draws the cable through its shape-node channels.
func (e *cable3Info) Draw(g *mech.Geometry) { drawShape(g, e.b.name, e.shape, 3) }
