package flex

import (
	"fmt"
	"math"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// rodBeam is a compiled spatial rod: its nodes (each a body of the
// model, mech.BodyInfo.Node), elements and markers.
type rodBeam struct {
	name    string
	ne      int
	length  float64
	q, v    []int       // first position and velocity coordinate of each node
	body    []int       // the body index of each node
	x0      []mech.Vec3 // reference positions of the nodes
	elems   []*rodElem
	markers []flexMarker // at nodes (node set)
	live    []int        // the markers at nodes (with channels)
	// stress lists the live markers (indices into live) with a stress
	// point; sec holds A, I_y, I_z for their normal stress
	stress []int
	sec    [3]float64
	shape  []int // the nodes whose positions are channels (drawing)
}

// Spatial compiles the beams of a spatial model: a <beam kind="rod"> adds
// its nodes as bodies (named "beam.nK", with markers "beam.nK" and the
// beam's own markers), its elements and its channels. It returns the
// joints its i and j attributes ask for (clamps of the ends), for the
// caller to compile with the model's joints. A <beam kind="ancf"> is a
// spatial ANCF cable (cable3.go): its joints are compiled here (callers
// skip those SpatialRefers names). Call it after the rigid bodies and
// before the joints.
func Spatial(b mech.Builder, ms *spec.Model) []spec.Joint {
	fx := &flexCompiler{b: b, ms: ms, pos: map[string]spec.Pos{}, ancf: map[string]*ancfBeam{}, ffr3: map[string]*ffr3{}}
	var clamps []spec.Joint
	for i := range ms.Beams {
		bs := &ms.Beams[i]
		if !fx.claimBeam(bs) {
			continue
		}
		switch bs.Kind {
		case "rod":
			clamps = append(clamps, fx.compileRod(bs)...)
		case "ancf":
			fx.compileANCF3(bs)
		case "fe-abaqus", "fe-matrix-market":
			fx.compileFE(bs)
		case "ffr":
			fx.compileFFR3(bs)
		default:
			b.Errorf(bs.Pos, "kind", "beam %q: a spatial model's beams are kind=\"rod\", \"ancf\" or \"ffr\"", bs.Name)
		}
	}
	for _, j := range ms.Joints {
		if feFreeRef(ms, j.I) || feFreeRef(ms, j.J) {
			fx.feJoint(j)
		} else if SpatialRefers(ms, j.I, j.J) {
			fx.cableJoint(j)
		}
	}
	for _, f := range ms.Forces {
		if feFreeRef(ms, f.I) || feFreeRef(ms, f.J) {
			fx.feForce(f)
		} else if SpatialRefers(ms, f.I, f.J) {
			if b.Claim(f.Name, f.Pos, "force") {
				field := "i"
				if !cableRefers(ms, f.I) {
					field = "j"
				}
				b.Errorf(f.Pos, field, "%s %q: loads on a spatial ancf cable's markers are not supported yet (gravity acts on it; pin a body to a node and load the body)", f.Kind, f.Name)
			}
		}
	}
	return clamps
}

// vec reads a vector attribute of a beam (def when absent).
func (fx *flexCompiler) vec(bs *spec.Beam, name string, def mech.Vec3) (mech.Vec3, bool) {
	given := false
	for k, c := range []string{".x", ".y", ".z"} {
		if e := attr(bs, name+c); e.Given() {
			given = true
			def[k] = fx.b.Const(e, def[k])
		}
	}
	return def, given
}

// nonNegative reads an optional attribute ≥ 0.
func (fx *flexCompiler) nonNegative(bs *spec.Beam, name string, def float64, unit string) float64 {
	e := attr(bs, name)
	v := fx.b.Const(e, def)
	if !(v >= 0) {
		fx.b.Errorf(e.Pos, name, "%s of beam %q must not be negative, got %g %s", name, bs.Name, v, unit)
		return def
	}
	return v
}

// rodSection reads a rod's section, given by its material and geometry
// (E, G or ν, A, I_y, I_z, J, ρ, k) or by its stiffnesses and mass per
// length (EA, EI_y, EI_z, GJ, optionally kGA; μ), and returns the
// diagonal stiffnesses C_N = (EA, kGA, kGA), C_M = (GJ, EI_y, EI_z), the
// mass per length and the rotary inertias per length about the section's
// x, y and z axes.
func (fx *flexCompiler) rodSection(bs *spec.Beam) (cn, cm mech.Vec3, mu float64, rot mech.Vec3) {
	b := fx.b
	geom := []string{"area", "youngs", "area-moment-y", "area-moment-z", "torsion-constant", "density", "shear-modulus", "poisson", "shear-factor"}
	stiff := []string{"axial-stiffness", "bending-stiffness-y", "bending-stiffness-z", "torsional-stiffness", "mass-per-length", "shear-stiffness"}
	byStiff := ""
	for _, f := range stiff {
		if _, ok := bs.Attr[f]; ok {
			byStiff = f
			break
		}
	}
	if byStiff != "" {
		for _, f := range geom {
			if _, ok := bs.Attr[f]; ok {
				b.Errorf(attr(bs, f).Pos, f, "beam %q: give the section by its material and geometry (%s, ...) or by its stiffnesses (%s, ...), not both", bs.Name, f, byStiff)
			}
		}
		EA := fx.positive(bs, "axial-stiffness", "EA, N")
		EIy := fx.positive(bs, "bending-stiffness-y", "EI_y, N*m^2, about the section's y axis")
		EIz := fx.positive(bs, "bending-stiffness-z", "EI_z, N*m^2, about the section's z axis")
		GJ := fx.positive(bs, "torsional-stiffness", "GJ, N*m^2")
		mu = fx.positive(bs, "mass-per-length", "kg/m")
		GA := 5.0 / 6 * EA / (2 * 1.3)
		if e := attr(bs, "shear-stiffness"); e.Given() {
			GA = fx.positive(bs, "shear-stiffness", "k G A, N")
		}
		// a homogeneous section: ρI = μ I/A = μ EI/EA
		return mech.Vec3{EA, GA, GA}, mech.Vec3{GJ, EIy, EIz}, mu, mech.Vec3{mu * (EIy + EIz) / EA, mu * EIy / EA, mu * EIz / EA}
	}
	A := fx.positive(bs, "area", "m^2, or give the section by its stiffnesses: axial-stiffness, bending-stiffness-y, ...")
	E := fx.positive(bs, "youngs", "Pa")
	Iy := fx.positive(bs, "area-moment-y", "m^4, the second moment of area about the section's y axis")
	Iz := fx.positive(bs, "area-moment-z", "m^4, about the section's z axis")
	J := fx.positive(bs, "torsion-constant", "m^4, Saint-Venant's torsion constant: π d⁴/32 for a round bar, about 0.141 a⁴ for a square a × a")
	rho := fx.positive(bs, "density", "kg/m^3")
	G := 0.0
	switch g, nu := attr(bs, "shear-modulus"), attr(bs, "poisson"); {
	case g.Given() && nu.Given():
		b.Errorf(nu.Pos, "poisson", "beam %q: give shear-modulus or poisson, not both", bs.Name)
	case g.Given():
		G = fx.positive(bs, "shear-modulus", "Pa")
	case nu.Given():
		v := b.Const(nu, 0)
		if !(v > -1 && v <= 0.5) {
			b.Errorf(nu.Pos, "poisson", "poisson of beam %q must be in (−1, 0.5], got %g", bs.Name, v)
			v = 0
		}
		G = E / (2 * (1 + v))
	default:
		b.Errorf(bs.Pos, "shear-modulus", "beam %q needs shear-modulus (G, Pa) or poisson (ν: G = E/2(1 + ν))", bs.Name)
		G = E / 2
	}
	kappa := fx.nonNegative(bs, "shear-factor", 5.0/6, "")
	if !(kappa > 0) {
		b.Errorf(attr(bs, "shear-factor").Pos, "shear-factor", "shear-factor of beam %q must be positive", bs.Name)
		kappa = 5.0 / 6
	}
	return mech.Vec3{E * A, kappa * G * A, kappa * G * A}, mech.Vec3{G * J, E * Iy, E * Iz}, rho * A, mech.Vec3{rho * (Iy + Iz), rho * Iy, rho * Iz}
}

func (fx *flexCompiler) compileRod(bs *spec.Beam) []spec.Joint {
	b := fx.b
	L := fx.positive(bs, "length", "m")
	ne := fx.count(bs, "elements", 8)
	cn, cm, mu, rot := fx.rodSection(bs)
	beta := fx.nonNegative(bs, "damping", 0, "s")
	if _, ok := bs.Attr["at.x"]; !ok {
		b.Errorf(bs.Pos, "at", "beam %q needs at (position of its start)", bs.Name)
	}
	at, _ := fx.vec(bs, "at", mech.Vec3{})
	R0 := fx.axes(bs, "beam")
	// the reference curvature: a bend of radius `radius` about `bend-axis`
	var k0 mech.Vec3
	if r := attr(bs, "radius"); r.Given() {
		rad := fx.positive(bs, "radius", "m")
		ax, _ := fx.vec(bs, "bend-axis", mech.Vec3{0, 0, 1})
		if n := mech.Norm(ax); n > 0 {
			k0 = mech.Scale(1/(n*rad), ax)
		} else {
			b.Errorf(attr(bs, "bend-axis.x").Pos, "bend-axis", "bend-axis of beam %q must be a nonzero vector", bs.Name)
		}
	} else if _, given := fx.vec(bs, "bend-axis", mech.Vec3{}); given {
		b.Errorf(attr(bs, "bend-axis.x").Pos, "bend-axis", "beam %q: bend-axis needs radius (the bend's radius)", bs.Name)
	}
	vel, _ := fx.vec(bs, "velocity", mech.Vec3{})
	om, _ := fx.vec(bs, "omega", mech.Vec3{})
	for _, f := range []string{"area-moment", "curvature", "axial-strain", "gauss-points", "coupling", "reduction", "modes", "sigma", "krylov-input", "angle"} {
		if _, ok := bs.Attr[f]; ok {
			b.Errorf(attr(bs, f).Pos, f, "%s does not apply to rod beam %q", f, bs.Name)
		}
	}

	rb := &rodBeam{name: bs.Name, ne: ne, length: L}
	l := L / float64(ne)
	if turn := mech.Norm(k0) * l; turn > math.Pi/2 {
		b.Errorf(attr(bs, "elements").Pos, "elements", "beam %q turns %.3g rad per element as built (more than π/2: an element cannot follow it): use at least %d elements", bs.Name, turn, int(math.Ceil(mech.Norm(k0)*L/(math.Pi/2))))
	}
	// reference configuration: R(s) = R0 exp(s κ0), x(s) = x0 + R0 ∫ exp(σκ0) e1 dσ
	frame := func(s float64) (mech.Vec3, mech.Mat3) {
		th := mech.Scale(s, k0)
		E := mech.QuatMat(mech.QuatExp(th))
		R := mech.MulMM(&R0, &E)
		a2 := mech.Dot(k0, k0)
		var c1, c2 float64
		if a := math.Sqrt(a2) * s; a < 1e-4 {
			c1 = s * s * (0.5 - a*a/24)
			c2 = s * s * s * (1.0/6 - a*a/120)
		} else {
			c1 = (1 - math.Cos(a)) / a2
			c2 = (a - math.Sin(a)) / (a2 * math.Sqrt(a2))
		}
		e1 := mech.Vec3{1, 0, 0}
		k1 := mech.Cross(k0, e1)
		k2 := mech.Cross(k0, k1)
		g := mech.Add(mech.Add(mech.Scale(s, e1), mech.Scale(c1, k1)), mech.Scale(c2, k2))
		return mech.Add(at, mech.MulMV(&R0, g)), R
	}
	g := b.Gravity()
	consistent, _ := fx.either(bs, "mass-matrix", "lumped", "consistent")
	for k := 0; k <= ne; k++ {
		x, R := frame(float64(k) * l)
		rb.x0 = append(rb.x0, x)
		qt, vt := mech.GrowFrame(b, x, R, mech.Add(vel, mech.Cross(om, mech.Sub(x, at))), mech.MulMTV(&R, om))
		vr := vt + 3
		rb.q = append(rb.q, qt)
		rb.v = append(rb.v, vt)
		// lumped mass: half of each adjacent element
		w := l
		if k == 0 || k == ne {
			w = l / 2
		}
		mass := mu * w
		Jn := mech.Mat3{rot[0] * w, 0, 0, 0, rot[1] * w, 0, 0, 0, rot[2] * w}
		for c := 0; c < 3; c++ {
			if !consistent {
				b.AddMass(vt+c, mass)
			}
			b.AddGravity(vt+c, mass*g[c])
			b.AddMass(vr+c, Jn[4*c])
		}
		name := bs.Name + ".n" + itoa(k)
		bi := b.AddBody(mech.BodyInfo{Name: name, Spatial: true, Node: true, Q: qt, V: vt, Mass: mass, Inertia: Jn})
		b.DefineMarker(name, mech.Marker{F: mech.Frame{Body: bi, Q: qt, V: vt, R: mech.Ident}, P: mech.Point{Body: bi}})
		rb.body = append(rb.body, bi)
		b.AddForce(name+"#gyro", mech.NewGyroscopic(Jn, vr))
	}
	if consistent {
		// the translations' consistent mass of the linear elements,
		// μ l/6 [2 1; 1 2] per component (the rotary inertia stays
		// lumped at the nodes)
		blk := []float64{mu * l / 3, mu * l / 6, mu * l / 6, mu * l / 3}
		for k := 0; k < ne; k++ {
			for c := 0; c < 3; c++ {
				b.AddMassBlock([]int{rb.v[k] + c, rb.v[k+1] + c}, blk)
			}
		}
	}
	for k := 0; k < ne; k++ {
		e := &rodElem{qa: rb.q[k], qb: rb.q[k+1], l: l, cn: cn, cm: cm, beta: beta}
		for c := 0; c < 6; c++ {
			e.d[c], e.d[6+c] = rb.v[k]+c, rb.v[k+1]+c
		}
		n := e.nodes(b.Q0())
		psi, pm := relative(&n)
		Rm := mech.QuatMat(pm)
		e.psi0 = psi
		e.dm0 = mech.MulMTV(&Rm, mech.Sub(n.xb, n.xa))
		rb.elems = append(rb.elems, e)
		b.AddForce(bs.Name+"#"+itoa(k), e)
	}
	rb.markers = fx.beamMarkers(bs, L)
	for i := range rb.markers {
		mk := &rb.markers[i]
		k := int(math.Round(mk.s / l))
		if math.Abs(mk.s-float64(k)*l) > 1e-9*L {
			lo := float64(int(mk.s/l)) * l
			b.Errorf(attr(bs, "marker."+mk.name).Pos, "s", "marker %q of beam %q is at s = %g m, between nodes: a rod's markers are at its nodes (s = %g m or %g m with %d elements)", mk.name, bs.Name, mk.s, lo, lo+l, ne)
			continue
		}
		mk.node = k
		if len(mk.name) > 1 && mk.name[0] == 'n' && isDigits(mk.name[1:]) {
			b.Errorf(attr(bs, "marker."+mk.name).Pos, "name", "marker name %q of beam %q is taken by the node markers (nK)", mk.name, bs.Name)
			continue
		}
		fr := mech.Frame{Body: rb.body[k], Q: rb.q[k], V: rb.v[k], R: mech.Ident}
		b.DefineMarker(bs.Name+"."+mk.name, mech.Marker{F: fr, P: mech.Point{Body: fr.Body}})
		if mk.hasFiber {
			rb.stress = append(rb.stress, len(rb.live))
		}
		rb.live = append(rb.live, i)
	}
	if len(rb.stress) > 0 {
		// σ = N/A + M_y z/I_y − M_z y/I_z needs the section's geometry
		for k, f := range []string{"area", "area-moment-y", "area-moment-z"} {
			e := attr(bs, f)
			if !e.Given() {
				mk := rb.markers[rb.live[rb.stress[0]]]
				at := attr(bs, "fiber."+mk.name+".y")
				if !at.Given() {
					at = attr(bs, "fiber."+mk.name+".z")
				}
				b.Errorf(at.Pos, at.Field, "marker %q of beam %q has a stress point, which needs the section's %s (give the section by its geometry)", mk.name, bs.Name, f)
				break
			}
			rb.sec[k] = b.Const(e, 1)
		}
	}
	rb.shape = shapeNodes(ne)
	b.AddForce(bs.Name, &rodInfo{b: rb})
	fx.rodLineLoad(bs, rb, L/float64(ne))
	var clamps []spec.Joint
	for _, end := range []struct {
		field string
		node  int
	}{{"i", 0}, {"j", ne}} {
		e := attr(bs, end.field)
		if !e.Given() {
			continue
		}
		pos := e.Pos
		if pos.Line == 0 {
			pos = bs.Pos
		}
		other, ok := b.Marker(e.Src, pos, end.field)
		if !ok {
			continue
		}
		// the clamp's frame on the node turned to the other marker's
		// orientation: the <fixed> joint's rows start at their regular
		// point whatever the beam's direction
		Ro := other.F.R
		if f := other.F; f.Body >= 0 {
			q0 := b.Q0()
			A := mech.QuatMat(mech.Quat{q0[f.Q+3], q0[f.Q+4], q0[f.Q+5], q0[f.Q+6]})
			Ro = mech.MulMM(&A, &f.R)
		}
		_, Rn := frame(float64(end.node) * l)
		Rnt := mech.Transpose(&Rn)
		k := end.node
		cm := bs.Name + ".clamp_" + end.field
		b.DefineMarker(cm, mech.Marker{F: mech.Frame{Body: rb.body[k], Q: rb.q[k], V: rb.v[k], R: mech.MulMM(&Rnt, &Ro)}, P: mech.Point{Body: rb.body[k]}})
		clamps = append(clamps, spec.Joint{Kind: mech.JointFixed.String(), Name: bs.Name + "_" + end.field, I: e.Src, J: cm, Pos: pos})
	}
	return clamps
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// rodInfo is the beam-level element of a rod: no forces, only its
// channels and drawing.
type rodInfo struct{ b *rodBeam }

func (e *rodInfo) Dofs() []int                                     { return nil }
func (e *rodInfo) Eval(*mech.Ctx, []float64, []float64, []float64) {}
func (e *rodInfo) Potential(*mech.Ctx) float64                     { return 0 }

// rodMarkerQty lists the channels of a rod's marker (sub = 1 + 18·marker + index).
var rodMarkerQty = [...]struct{ q, unit, group, desc string }{
	{"x", "m", "position", "x position"},
	{"y", "m", "position", "y position"},
	{"z", "m", "position", "z position"},
	{"ux", "m", "position", "x displacement from the reference configuration"},
	{"uy", "m", "position", "y displacement from the reference configuration"},
	{"uz", "m", "position", "z displacement from the reference configuration"},
	{"vx", "m/s", "velocity", "x velocity"},
	{"vy", "m/s", "velocity", "y velocity"},
	{"vz", "m/s", "velocity", "z velocity"},
	{"N", "N", "force", "normal force (section frame x)"},
	{"Qy", "N", "force", "shear force along the section's y axis"},
	{"Qz", "N", "force", "shear force along the section's z axis"},
	{"T", "N*m", "force", "torsional moment"},
	{"My", "N*m", "force", "bending moment about the section's y axis"},
	{"Mz", "N*m", "force", "bending moment about the section's z axis"},
	{"strain", "", "strain", "axial strain"},
	{"ky", "1/m", "strain", "bending curvature about the section's y axis (change from the reference)"},
	{"kz", "1/m", "strain", "bending curvature about the section's z axis (change from the reference)"},
}

func (e *rodInfo) Channels(name string) []mech.ChannelInfo {
	out := []mech.ChannelInfo{energyChannel(name)}
	for _, i := range e.b.live {
		mk := e.b.markers[i]
		out = markerChannels(out, name, mk.name, rodMarkerQty[:])
	}
	for _, li := range e.b.stress {
		mk := e.b.markers[e.b.live[li]]
		out = append(out, mech.ChannelInfo{Name: name + "." + mk.name + ".stress", Unit: "Pa", Group: "stress",
			Description: fmt.Sprintf("beam marker %s.%s normal stress at the section point y = %g m, z = %g m: N/A + M_y z/I_y − M_z y/I_z", name, mk.name, mk.fiber[0], mk.fiber[1])})
	}
	return shapeChannels(out, name, e.b.shape, 3)
}

// Channel evaluates channel sub (Channels' order).
func (e *rodInfo) Channel(x *mech.Ctx, sub int) float64 {
	b := e.b
	if sub == 0 {
		u := 0.0
		for _, el := range b.elems {
			u += el.Potential(x)
		}
		return u
	}
	sub--
	nq := len(rodMarkerQty)
	live := b.live
	if sub < nq*len(live) {
		k := b.markers[live[sub/nq]].node
		c := sub % nq
		q, v := b.q[k], b.v[k]
		switch {
		case c < 3:
			return x.Q[q+c]
		case c < 6:
			return x.Q[q+c-3] - b.x0[k][c-3]
		case c < 9:
			return x.V[v+c-6]
		}
		el := b.elems[min(k, b.ne-1)]
		loads, eps := el.sectionLoads(x)
		switch {
		case c < 15:
			return loads[c-9]
		case c == 15:
			return eps[0]
		default:
			return eps[c-12]
		}
	}
	sub -= nq * len(live)
	if sub < len(b.stress) {
		mk := b.markers[live[b.stress[sub]]]
		loads, _ := b.elems[min(mk.node, b.ne-1)].sectionLoads(x)
		y, z := mk.fiber[0], mk.fiber[1]
		return loads[0]/b.sec[0] + loads[4]*z/b.sec[1] - loads[5]*y/b.sec[2]
	}
	sub -= len(b.stress)
	k := b.shape[sub/3]
	return x.Q[b.q[k]+sub%3]
}

// Draw draws the rod through its shape-node channels.
func (e *rodInfo) Draw(g *mech.Geometry) { drawShape(g, e.b.name, e.b.shape, 3) }

// rodLineLoad compiles a rod's line-load (N/m, constant along the rod, a
// run-time expression per component): in the world frame
// (line-load-frame="global", conservative) or in each node's section
// frame (line-load="0 p 0" with line-load-frame="section": a follower
// pressure p towards the section's y axis). Linear elements take it at
// their nodes: q l/2 from each element.
func (fx *flexCompiler) rodLineLoad(bs *spec.Beam, rb *rodBeam, l float64) {
	frame := word(bs, "line-load-frame", "global")
	if !attr(bs, "line-load.x").Given() {
		if _, ok := bs.Attr["line-load-frame"]; ok {
			fx.b.Errorf(attr(bs, "line-load-frame").Pos, "line-load-frame", "line-load-frame of beam %q needs line-load", bs.Name)
		}
		return
	}
	var q [3]mech.Param
	for i, c := range []string{"x", "y", "z"} {
		q[i] = fx.b.Run(attr(bs, "line-load."+c), 0)
	}
	// one element a node (its own six coordinates: the load adds no
	// coupling between nodes to the iteration matrix)
	for k := 0; k <= rb.ne; k++ {
		w := l
		if k == 0 || k == rb.ne {
			w = l / 2
		}
		e := &rodLoad{q: q, qo: rb.q[k], w: w, follower: frame == "section"}
		for a := range e.d {
			e.d[a] = rb.v[k] + a
		}
		fx.b.AddForce(bs.Name+".n"+itoa(k)+"#load", e)
	}
}

// rodLoad is a rod's line load at one node (rodLineLoad): its share w of
// the rod's length; dofs: the node's three translation and three rotation
// velocity coordinates. A follower load's tangent is taken by finite
// differences.
type rodLoad struct {
	q        [3]mech.Param
	qo       int     // the node's first position coordinate
	w        float64 // the length the node carries
	d        [6]int
	follower bool
}

func (e *rodLoad) Dofs() []int { return e.d[:] }

// NumericTangent: the engine differentiates the follower load (the
// global one has no tangent).
func (e *rodLoad) NumericTangent() bool { return e.follower }

// Params lists the load's run-time parameters.
func (e *rodLoad) Params() []*mech.Param { return []*mech.Param{&e.q[0], &e.q[1], &e.q[2]} }

func (e *rodLoad) Eval(x *mech.Ctx, f, k, c []float64) {
	v := mech.Vec3{e.q[0].Get(x), e.q[1].Get(x), e.q[2].Get(x)}
	if e.follower {
		var A mech.Mat3
		o := e.qo + 3
		mech.QuatMatTo(&A, x.Q[o], x.Q[o+1], x.Q[o+2], x.Q[o+3])
		v = mech.MulMV(&A, v)
	}
	for a := 0; a < 3; a++ {
		f[a] += e.w * v[a]
	}
}

// Potential is zero: an applied load, as a <force>, is not energy the
// model stores (energy.total changes by its work).
func (e *rodLoad) Potential(*mech.Ctx) float64 { return 0 }
