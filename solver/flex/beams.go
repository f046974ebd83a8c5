package flex

import (
	"math"
	"mbfmu/solver/mech"
	"mbfmu/spec"
	"sort"
	"strconv"
	"strings"
)

// This file compiles flexible beams (<beam kind="ancf"> and kind="ffr"),
// their markers, the joints and forces that refer to beam markers, the
// constraint rows between beam nodes and rigid bodies, and the beams'
// output channels. The element mathematics is in ancf.go (absolute nodal
// coordinates), ffr.go (floating frame of reference) and reduction.go.
//
// Coordinates of beams are appended after the rigid ones: an ANCF beam of
// n elements adds 4(n+1) (x, y, ∂x/∂s, ∂y/∂s per node), an FFR beam its
// elastic coordinates (3 per free node, or the reduced ones).

// flexMarker is a named point of a beam at arc length s.
type flexMarker struct {
	name string
	s    float64
	node int // ANCF: node index when s is at a node, else -1
	// fiber is a rod marker's stress point (y, z) in the section frame
	// (fiber-y, fiber-z); hasFiber: given
	fiber    [2]float64
	hasFiber bool
	u0       [2]float64 // FFR: undeformed position in the body frame (from the centre of mass)
	phi      []float64  // FFR: 2×ns shape of the marker's elastic displacement (body frame)
}

// flexCompiler holds the beams compiled so far.
type flexCompiler struct {
	b     mech.Builder
	ms    *spec.Model
	g     [2]float64 // gravity
	ancf  map[string]*ancfBeam
	ffr   map[string]*ffrBeam
	ffr3  map[string]*ffr3
	pos   map[string]spec.Pos
	names []string
}

// Refers reports whether ref ("beam.marker" or "beam") names a beam of the
// model: joints and forces with such a side are compiled by Compile, after
// the beams.
func Refers(b mech.Builder, ms *spec.Model, ref string) bool {
	if ref == "" {
		return false
	}
	name, _, _ := strings.Cut(ref, ".")
	if _, isBody := b.Body(name); isBody {
		return false
	}
	for i := range ms.Beams {
		if ms.Beams[i].Name == name {
			return true
		}
	}
	return false
}

// Compile compiles the flexible bodies (beams) of a planar model (Spatial
// those of a spatial one), then the
// joints and forces that refer to their markers. Call it after the rigid
// bodies.
func Compile(b mech.Builder, ms *spec.Model) {
	if len(ms.Beams) == 0 {
		return
	}
	g := b.Gravity()
	fx := &flexCompiler{b: b, ms: ms, g: [2]float64{g[0], g[1]}, ancf: map[string]*ancfBeam{}, ffr: map[string]*ffrBeam{}, pos: map[string]spec.Pos{}}
	for i := range ms.Beams {
		bs := &ms.Beams[i]
		if !fx.claimBeam(bs) {
			continue
		}
		fx.pos[bs.Name] = bs.Pos
		switch bs.Kind {
		case "ancf":
			fx.compileANCF(bs)
		case "ffr":
			fx.compileFFR(bs)
		default:
			b.Errorf(bs.Pos, "kind", "unknown beam kind %q (ancf, ffr)", bs.Kind)
		}
	}
	for _, j := range ms.Joints {
		if Refers(b, ms, j.I) || Refers(b, ms, j.J) {
			fx.joint(j)
		}
	}
	for _, f := range ms.Forces {
		if Refers(b, ms, f.I) || Refers(b, ms, f.J) {
			fx.force(f)
		}
	}
}

// claimBeam registers a beam's name, which must be a valid identifier
// and not a body's; it reports whether the beam can be compiled.
func (fx *flexCompiler) claimBeam(bs *spec.Beam) bool {
	b := fx.b
	if !b.Claim(bs.Name, bs.Pos, "beam") {
		return false
	}
	if !mech.ValidName(bs.Name) {
		b.Errorf(bs.Pos, "name", "beam name %q is not a valid identifier (letters, digits, _)", bs.Name)
		return false
	}
	if _, clash := b.Body(bs.Name); clash || bs.Name == "ground" {
		b.Errorf(bs.Pos, "name", "beam %q has the name of a body", bs.Name)
		return false
	}
	return true
}

// attr returns a beam attribute (zero spec.Expr when absent).
func attr(bs *spec.Beam, name string) spec.Expr {
	e := bs.Attr[name]
	if e.Field == "" {
		e.Field = name
	}
	if e.Pos == (spec.Pos{}) {
		e.Pos = bs.Pos
	}
	return e
}

// positive reads a required positive attribute.
func (fx *flexCompiler) positive(bs *spec.Beam, name, what string) float64 {
	e := attr(bs, name)
	if !e.Given() {
		fx.b.Errorf(bs.Pos, name, "beam %q needs %s (%s)", bs.Name, name, what)
		return 1
	}
	v := fx.b.Const(e, 1)
	if !(v > 0) {
		fx.b.Errorf(e.Pos, name, "%s of beam %q must be positive, got %g", name, bs.Name, v)
		return 1
	}
	return v
}

// count reads an integer attribute ≥ 1 (default def).
func (fx *flexCompiler) count(bs *spec.Beam, name string, def int) int {
	e := attr(bs, name)
	if !e.Given() {
		return def
	}
	v := fx.b.Const(e, float64(def))
	n := int(math.Round(v))
	if n < 1 || math.Abs(v-float64(n)) > 1e-9 || n > 100000 {
		fx.b.Errorf(e.Pos, name, "%s of beam %q must be a whole number ≥ 1, got %g", name, bs.Name, v)
		return def
	}
	return n
}

// word reads an enumerated attribute (default def).
func word(bs *spec.Beam, name, def string) string {
	if e, ok := bs.Attr[name]; ok && e.Src != "" {
		return strings.ToLower(strings.TrimSpace(e.Src))
	}
	return def
}

// beamMarkers returns the beam's markers sorted by name.
func (fx *flexCompiler) beamMarkers(bs *spec.Beam, length float64) []flexMarker {
	var out []flexMarker
	for k, e := range bs.Attr {
		name, ok := strings.CutPrefix(k, "marker.")
		if !ok {
			continue
		}
		if e.Field == "" {
			e.Field = "s"
		}
		s := fx.b.Const(e, 0)
		if s < -1e-9*length || s > length*(1+1e-9) {
			fx.b.Errorf(e.Pos, "s", "marker %q of beam %q is at s = %g m, outside the beam (0 … %g m)", name, bs.Name, s, length)
			continue
		}
		mk := flexMarker{name: name, s: math.Min(math.Max(s, 0), length), node: -1}
		fy, oky := bs.Attr["fiber."+name+".y"]
		fz, okz := bs.Attr["fiber."+name+".z"]
		if oky || okz {
			if bs.Kind != "rod" {
				at := fy
				if !fy.Given() {
					at = fz
				}
				fx.b.Errorf(at.Pos, at.Field, "%s of marker %q: stress points apply to the markers of spatial rods, not to beam %q (kind %s)", at.Field, name, bs.Name, bs.Kind)
			} else {
				mk.fiber = [2]float64{fx.b.Const(fy, 0), fx.b.Const(fz, 0)}
				mk.hasFiber = true
			}
		}
		out = append(out, mk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// grow appends n coordinates to the model.
func (fx *flexCompiler) grow(n int) int { return fx.b.Grow(n) }

// material reads the section and material attributes.
func (fx *flexCompiler) material(bs *spec.Beam) (L, ea, ei, rhoA, beta float64) {
	L = fx.positive(bs, "length", "m")
	A := fx.positive(bs, "area", "m^2")
	I := fx.positive(bs, "area-moment", "m^4")
	E := fx.positive(bs, "youngs", "Pa")
	rho := fx.positive(bs, "density", "kg/m^3")
	beta = fx.b.Const(attr(bs, "damping"), 0)
	if beta < 0 {
		fx.b.Errorf(attr(bs, "damping").Pos, "damping", "damping of beam %q must not be negative, got %g s", bs.Name, beta)
		beta = 0
	}
	return L, E * A, E * I, rho * A, beta
}

func (fx *flexCompiler) compileANCF(bs *spec.Beam) {
	L, ea, ei, rhoA, beta := fx.material(bs)
	ne := fx.count(bs, "elements", 8)
	if !attr(bs, "at.x").Given() && !attr(bs, "at.y").Given() {
		fx.b.Errorf(bs.Pos, "at", "beam %q needs at (position of its start)", bs.Name)
	}
	at := [2]float64{fx.b.Const(attr(bs, "at.x"), 0), fx.b.Const(attr(bs, "at.y"), 0)}
	ang := fx.b.Const(attr(bs, "angle"), 0)
	vel := [2]float64{fx.b.Const(attr(bs, "velocity.x"), 0), fx.b.Const(attr(bs, "velocity.y"), 0)}
	om := fx.b.Const(attr(bs, "omega"), 0)
	for _, f := range []string{"coupling", "modes", "sigma", "krylov-input"} {
		if _, ok := bs.Attr[f]; ok {
			fx.b.Errorf(attr(bs, f).Pos, f, "%s applies to ffr beams, not to ancf beam %q", f, bs.Name)
		}
	}
	b := &ancfBeam{name: bs.Name, ne: ne, length: L, ea: ea, ei: ei, rhoA: rhoA, beta: beta, k: newANCFConst(L / float64(ne))}
	curv, eng, ng, _ := fx.exactOptions(bs)
	if curv || eng {
		b.exact = newANCFExact(b.k.l, ng, curv, eng)
	}
	b.base = fx.grow(4 * (ne + 1))
	l := b.k.l
	sn, cs := math.Sincos(ang)
	t := [2]float64{cs, sn}
	for k := 0; k <= ne; k++ {
		o := b.node(k)
		p := [2]float64{at[0] + float64(k)*l*t[0], at[1] + float64(k)*l*t[1]}
		fx.b.Q0()[o], fx.b.Q0()[o+1], fx.b.Q0()[o+2], fx.b.Q0()[o+3] = p[0], p[1], t[0], t[1]
		dp := mech.Sub2(p, at)
		fx.b.V0()[o], fx.b.V0()[o+1] = vel[0]-om*dp[1], vel[1]+om*dp[0]
		fx.b.V0()[o+2], fx.b.V0()[o+3] = -om*t[1], om*t[0]
		fx.b.SetLength(o+2, slopeLength(l))
		fx.b.SetLength(o+3, slopeLength(l))
	}
	g := fx.g
	for e := 0; e < ne; e++ {
		el := &ancfElem{b: b}
		o := b.node(e)
		for i := range el.d {
			el.d[i] = o + i
		}
		// M = ρA m₄ ⊗ I₂: one 4×4 block for the x and one for the y coordinates
		mm := make([]float64, 16)
		for i := range mm {
			mm[i] = rhoA * b.k.m4[i]
		}
		fx.b.AddMassBlock([]int{o, o + 2, o + 4, o + 6}, mm)
		fx.b.AddMassBlock([]int{o + 1, o + 3, o + 5, o + 7}, mm)
		for kk := 0; kk < 4; kk++ {
			fx.b.AddGravity(o+2*kk, rhoA*b.k.gv[kk]*g[0])
			fx.b.AddGravity(o+2*kk+1, rhoA*b.k.gv[kk]*g[1])
		}
		fx.b.AddForce(bs.Name+"#"+itoa(e), el)
	}
	b.markers = fx.beamMarkers(bs, L)
	for i := range b.markers {
		mk := &b.markers[i]
		k := int(math.Round(mk.s / l))
		if math.Abs(mk.s-float64(k)*l) <= 1e-9*L {
			mk.node = k
		}
	}
	var ends []int
	if attr(bs, "i").Given() {
		ends = append(ends, 0)
	}
	if attr(bs, "j").Given() {
		ends = append(ends, ne)
	}
	fx.compileAdaptive(bs, b, 2, ends)
	fx.ancf[bs.Name] = b
	fx.b.AddForce(bs.Name, &ancfInfo{b: b})
	// clamps of the ends
	for _, end := range []struct {
		field string
		node  int
	}{{"i", 0}, {"j", ne}} {
		e := attr(bs, end.field)
		if !e.Given() {
			continue
		}
		side, ok := fx.side(e.Src, e.Pos, end.field)
		if !ok {
			continue
		}
		nd := beamSide{ancf: b, node: end.node}
		fx.connect(bs.Name+"."+end.field, mech.JointFixed, side, nd, e.Pos)
	}
}

func (fx *flexCompiler) compileFFR(bs *spec.Beam) {
	if fx.b.Integrator() == "rk4" {
		fx.b.Errorf(bs.Pos, "kind", "ffr beam %q needs an implicit integrator (its inertia coupling is solved with the Newton iteration); rk4 is not supported", bs.Name)
		return
	}
	L, ea, ei, rhoA, beta := fx.material(bs)
	ne := fx.count(bs, "elements", 10)
	ie := attr(bs, "i")
	if !ie.Given() {
		fx.b.Errorf(bs.Pos, "i", "ffr beam %q needs i: the marker of the rigid body its root is clamped to (the floating frame)", bs.Name)
		return
	}
	mk, ok := fx.b.Marker(ie.Src, ie.Pos, "i")
	if !ok {
		return
	}
	p := mk.P
	if p.Body < 0 {
		fx.b.Errorf(ie.Pos, "i", "ffr beam %q must be clamped to a rigid body (its floating frame), not to the ground; fix a body to the ground if it should not move", bs.Name)
		return
	}
	for _, f := range []string{"at.x", "at.y", "angle", "velocity.x", "velocity.y", "omega", "j"} {
		if _, ok := bs.Attr[f]; ok {
			fx.b.Errorf(attr(bs, f).Pos, f, "ffr beam %q starts at its marker i and moves with its body: %s does not apply", bs.Name, strings.TrimSuffix(strings.TrimSuffix(f, ".x"), ".y"))
		}
	}
	for _, f := range []string{"curvature", "axial-strain"} {
		if _, ok := bs.Attr[f]; ok {
			fx.b.Errorf(attr(bs, f).Pos, f, "%s applies to ancf beams, not to ffr beam %q (small deformation in its floating frame)", f, bs.Name)
		}
	}
	sn, cs := math.Sincos(p.Ang)
	b := &ffrBeam{name: bs.Name, body: p.Body, ne: ne, nf: 3 * ne, le: L / float64(ne), length: L,
		sa: p.S, t: [2]float64{cs, sn}, n: [2]float64{-sn, cs}, ea: ea, ei: ei, rhoA: rhoA, beta: beta,
		g: fx.g}
	b.d = [3]int{3 * p.Body, 3*p.Body + 1, 3*p.Body + 2}
	switch cp := word(bs, "coupling", "stiffened"); cp {
	case "stiffened":
		b.stiff = true
	case "zero-order":
	default:
		fx.b.Errorf(attr(bs, "coupling").Pos, "coupling", "coupling must be zero-order or stiffened, got %q", cp)
	}
	b.clampRoot()
	b.setGauss()
	M, K, X, au, aw, cu, cw := b.feMatrices()
	b.kind = word(bs, "reduction", "none")
	nm := fx.count(bs, "modes", 5)
	var err error
	nf := b.nf
	b.mk = fx.beamMarkers(bs, L)
	switch b.kind {
	case "none", "full":
		b.kind, b.full, b.ns = "none", true, nf
	case "modal":
		b.v, _, err = modalBasis(M, K, nf, nm)
		b.ns = nm
	case "krylov":
		sigma := fx.b.Const(attr(bs, "sigma"), 0)
		if sigma < 0 {
			fx.b.Errorf(attr(bs, "sigma").Pos, "sigma", "sigma must not be negative, got %g rad/s", sigma)
			sigma = 0
		}
		var B []float64
		nb := 2
		switch in := word(bs, "krylov-input", "both"); in {
		case "both":
			B = make([]float64, nf*2)
			B[(nf-2)*2+0] = 1 // tip transverse force
			B[(nf-3)*2+1] = 1 // tip axial force
		case "transverse":
			nb = 1
			B = make([]float64, nf)
			B[nf-2] = 1
		default:
			fx.b.Errorf(attr(bs, "krylov-input").Pos, "krylov-input", "krylov-input must be both or transverse, got %q", in)
			return
		}
		b.v, err = krylovBasis(M, K, nf, B, nb, sigma, nm)
		b.ns = nm
	case "craig-bampton":
		// boundary: the nodes of the markers (at least the tip)
		bn := map[int]bool{ne: true}
		for _, mk := range b.mk {
			if k := int(math.Round(mk.s / b.le)); k > 0 {
				bn[k] = true
			}
		}
		var bnd []int
		for k := 1; k <= ne; k++ {
			if bn[k] {
				bnd = append(bnd, 3*(k-1), 3*(k-1)+1, 3*(k-1)+2)
			}
		}
		if nm > nf-len(bnd) {
			fx.b.Errorf(attr(bs, "modes").Pos, "modes", "beam %q: %d fixed-interface modes asked, only %d interior coordinates", bs.Name, nm, nf-len(bnd))
			return
		}
		b.v, err = craigBamptonBasis(M, K, nf, bnd, nm)
		b.ns = len(bnd) + nm
		if err == nil && b.stiff {
			err = b.addAxialShapes(M, K, nm) // the foreshortening's axial shapes
		}
	default:
		fx.b.Errorf(attr(bs, "reduction").Pos, "reduction", "reduction must be none, modal, krylov or craig-bampton, got %q", b.kind)
		return
	}
	if err != nil {
		fx.b.Errorf(bs.Pos, "reduction", "beam %q: %v", bs.Name, err)
		return
	}
	if in := word(bs, "krylov-input", "both"); b.stiff && (b.kind == "modal" || (b.kind == "krylov" && in != "both")) {
		// the averaged axial strain u' + ½⟨w'²⟩ needs axial shapes that
		// follow the foreshortening; bending and constraint modes have
		// none and the beam locks (Kane's spin-up: 0.12 m of tip
		// deflection with 8 modes, 0.58 m unreduced)
		fx.b.Errorf(attr(bs, "coupling").Pos, "coupling", "ffr beam %q: the stiffened coupling needs the axial shapes of reduction=\"krylov\" with krylov-input=\"both\", \"craig-bampton\" (which adds them) or no reduction; a %s basis lacks them and would lock the beam, too stiff by far. Use coupling=\"zero-order\" well below the first bending frequency", bs.Name, b.kind)
		return
	}
	if b.ns > ffrMaxCoords {
		fx.b.Errorf(bs.Pos, "elements", "beam %q has %d elastic coordinates; at most %d (use fewer elements or a reduction)", bs.Name, b.ns, ffrMaxCoords)
		return
	}
	if b.kind != "none" && b.ns > nf {
		fx.b.Errorf(attr(bs, "modes").Pos, "modes", "beam %q: %d modes asked, the FE model has %d coordinates", bs.Name, b.ns, nf)
		return
	}
	b.setup(M, K, X, au, aw, cu, cw)
	if b.stiff && (b.kind == "krylov" || b.kind == "craig-bampton") {
		// as for spatial beams (ffr3beam.go): Kane's spin-up locks with 5
		// Krylov vectors (tip 30 % short)
		if lost := b.foreshortening(); lost > 0.05 {
			fx.b.Errorf(attr(bs, "modes").Pos, "modes", "%s", b.foreshorteningError(lost))
			return
		}
	}
	b.e0 = fx.grow(b.ns)
	b.dofl = make([]int, 3+b.ns)
	copy(b.dofl, b.d[:])
	for j := 0; j < b.ns; j++ {
		b.dofl[3+j] = b.e0 + j
	}
	// markers: undeformed position and elastic shape
	for i := range b.mk {
		b.mk[i].u0, b.mk[i].phi = b.shapeAt(b.mk[i].s)
	}
	// evenly spaced points for drawing the deformed beam
	for i := 0; i < ffrShapePoints; i++ {
		sp := b.length * float64(i) / (ffrShapePoints - 1)
		mk := flexMarker{name: "shape" + itoa(i), s: sp, node: -1}
		mk.u0, mk.phi = b.shapeAt(sp)
		b.shape = append(b.shape, mk)
	}
	n := 3 + b.ns
	b.mbar = make([]float64, n*n)
	b.massAt(fx.b.Q0()[b.d[2]], make([]float64, b.ns), b.mbar)
	fx.b.AddMassBlock(b.dofl, b.mbar)
	fx.b.AddGravity(b.d[0], b.mass*b.g[0])
	fx.b.AddGravity(b.d[1], b.mass*b.g[1])
	// coordinate names
	for j := 0; j < b.ns; j++ {
		if b.full {
			b.coords = append(b.coords, bs.Name+".n"+itoa(j/3+1)+"."+[3]string{"u", "w", "slope"}[j%3])
		} else {
			b.coords = append(b.coords, bs.Name+".q"+itoa(j+1))
		}
	}
	fx.ffr[bs.Name] = b
	fx.b.AddForce(bs.Name, &ffrElem{b: b})
}

// shapeAt returns the undeformed position (body frame, from the centre of
// mass) and the 2×ns elastic shape Φ(s) of an FFR beam.
func (b *ffrBeam) shapeAt(s float64) ([2]float64, []float64) {
	u0 := [2]float64{b.sa[0] + s*b.t[0], b.sa[1] + s*b.t[1]}
	e := min(max(int(math.Floor(s/b.le)), 0), b.ne-1)
	r := (s - float64(e)*b.le) / b.le
	hs, _, _ := hermite(r, b.le)
	var nu, nw [6]float64
	nu[0], nu[3] = 1-r, r
	nw[1], nw[2], nw[4], nw[5] = hs[0], hs[1], hs[2], hs[3]
	ns := b.ns
	phi := make([]float64, 2*ns)
	for a, i := range b.edof[e] {
		if i < 0 {
			continue
		}
		px := b.t[0]*nu[a] + b.n[0]*nw[a]
		py := b.t[1]*nu[a] + b.n[1]*nw[a]
		if b.full {
			phi[i] += px
			phi[ns+i] += py
			continue
		}
		for j := 0; j < ns; j++ {
			phi[j] += px * b.v[i*ns+j]
			phi[ns+j] += py * b.v[i*ns+j]
		}
	}
	return u0, phi
}

// beamSide is one side of a joint: a rigid point (or ground), or a node of
// an ANCF beam.
type beamSide struct {
	pt   mech.Point
	ancf *ancfBeam
	node int
}

// nodeMarker resolves ref, "beam.marker" of the ANCF beam b, to the node
// the marker is at (a problem is reported at pos and field).
func (fx *flexCompiler) nodeMarker(b *ancfBeam, ref string, pos spec.Pos, field string) (int, bool) {
	name, mk, hasMk := strings.Cut(ref, ".")
	if !hasMk {
		fx.b.Errorf(pos, field, "name a marker of beam %q (%s.MARKER): joints attach to beam nodes", name, name)
		return -1, false
	}
	for _, m := range b.markers {
		if m.name != mk {
			continue
		}
		if m.node < 0 {
			fx.b.Errorf(pos, field, "marker %q of beam %q is at s = %g m, between nodes (every %g m): joints attach to nodes", mk, name, m.s, b.k.l)
			return -1, false
		}
		return m.node, true
	}
	fx.b.Errorf(pos, field, "beam %q has no marker %q", name, mk)
	return -1, false
}

// side resolves a marker reference for a joint.
func (fx *flexCompiler) side(ref string, pos spec.Pos, field string) (beamSide, bool) {
	name, _, _ := strings.Cut(ref, ".")
	if b, ok := fx.ancf[name]; ok {
		node, ok := fx.nodeMarker(b, ref, pos, field)
		return beamSide{ancf: b, node: node}, ok
	}
	if _, ok := fx.ffr[name]; ok {
		fx.b.Errorf(pos, field, "joints to markers of the floating-frame beam %q are not supported: connect to the body it is clamped to, or use an ancf beam", name)
		return beamSide{}, false
	}
	if _, ok := fx.pos[name]; ok {
		return beamSide{}, false // the beam itself failed to compile
	}
	if Refers(fx.b, fx.ms, ref) {
		return beamSide{}, false // a beam with errors
	}
	m, ok := fx.b.Marker(ref, pos, field)
	return beamSide{pt: m.P, node: -1}, ok
}

// joint compiles a joint with at least one beam side.
func (fx *flexCompiler) joint(j spec.Joint) {
	if !fx.b.Claim(j.Name, j.Pos, "joint") {
		return
	}
	si, ok1 := fx.side(j.I, j.Pos, "i")
	sj, ok2 := fx.side(j.J, j.Pos, "j")
	if !ok1 || !ok2 {
		return
	}
	kind, _ := mech.ParseJointKind(j.Kind)
	switch kind {
	case mech.JointRevolute, mech.JointFixed:
	default:
		fx.b.Errorf(j.Pos, "kind", "joint %q: a %s joint cannot attach to a beam (revolute = pin, fixed = clamp)", j.Name, j.Kind)
		return
	}
	if si.ancf != nil && si.ancf == sj.ancf && si.node == sj.node {
		fx.b.Errorf(j.Pos, "j", "joint %q connects node %d of beam %q to itself", j.Name, si.node, si.ancf.name)
		return
	}
	fx.connect(j.Name, kind, si, sj, j.Pos)
}

// slopeAngle0 is the angle of a node's slope at q0.
func (fx *flexCompiler) slopeAngle0(b *ancfBeam, node int) float64 {
	o := b.node(node)
	q0 := fx.b.Q0()
	return math.Atan2(q0[o+3], q0[o+2])
}

// connect adds the rows of a pin (revolute) or clamp (fixed) between two
// sides, at least one of them a beam node.
func (fx *flexCompiler) connect(name string, kind mech.JointKind, si, sj beamSide, pos spec.Pos) {
	if si.ancf != nil && sj.ancf == nil {
		si, sj = sj, si // the rigid side first
	}
	ground := mech.Marker{P: mech.Point{Body: -1}}
	ji := mech.JointInfo{Name: name, Kind: mech.JointBeamPin, I: ground, J: ground}
	if kind == mech.JointFixed {
		ji.Kind = mech.JointBeamClamp
	}
	nj := sj.ancf.node(sj.node)
	rigidDofs := [3]int{-1, -1, -1}
	if si.ancf == nil {
		ji.I = mech.Marker{P: si.pt}
		if si.pt.Body >= 0 {
			rigidDofs = [3]int{3 * si.pt.Body, 3*si.pt.Body + 1, 3*si.pt.Body + 2}
		}
	}
	owner := fx.b.AddJoint(ji)
	pin := &nodeRows{}
	for a := 0; a < 2; a++ {
		r := nodeRow{axis: a, pi: mech.Point{Body: -1}}
		if si.ancf == nil {
			r.kind, r.pi = rowPin, si.pt
			pin.d = [6]int{rigidDofs[0], rigidDofs[1], rigidDofs[2], nj, nj + 1, -1}
		} else {
			ni := si.ancf.node(si.node)
			r.kind = rowPinBB
			pin.d = [6]int{ni, ni + 1, -1, nj, nj + 1, -1}
		}
		pin.rows = append(pin.rows, r)
	}
	fx.b.AddConstraint(pin, owner)
	if kind == mech.JointFixed {
		r := nodeRow{pi: mech.Point{Body: -1}}
		al := &nodeRows{}
		sa := fx.slopeAngle0(sj.ancf, sj.node)
		if si.ancf == nil {
			r.kind, r.pi = rowAlign, si.pt
			r.psi = sa - angle0(fx.b, si.pt) + si.pt.Ang
			if si.pt.Body < 0 {
				r.psi = sa
			}
			al.d = [6]int{rigidDofs[0], rigidDofs[1], rigidDofs[2], nj + 2, nj + 3, -1}
		} else {
			ni := si.ancf.node(si.node)
			r.kind = rowAlignBB
			r.psi = sa - fx.slopeAngle0(si.ancf, si.node)
			al.d = [6]int{ni + 2, ni + 3, -1, nj + 2, nj + 3, -1}
		}
		al.rows = append(al.rows, r)
		fx.b.AddConstraint(al, owner)
	}
}

// angle0 is the angle of p's x axis at the approximate initial positions.
func angle0(b mech.Builder, p mech.Point) float64 {
	if p.Body < 0 {
		return p.Ang
	}
	return b.Q0()[3*p.Body+2] + p.Ang
}

func itoa(i int) string { return strconv.Itoa(i) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// force compiles a force applied at a beam marker.
func (fx *flexCompiler) force(f spec.Force) {
	if !fx.b.Claim(f.Name, f.Pos, "force") {
		return
	}
	if f.Kind != "force" {
		fx.b.Errorf(f.Pos, "kind", "force %q: a %s cannot attach to a beam marker yet (only point forces: <force>)", f.Name, f.Kind)
		return
	}
	fol := false
	switch f.Frame {
	case "", "global":
	case "marker", "local", "body":
		fol = true
	default:
		fx.b.Errorf(f.Pos, "frame", "frame must be global or marker, got %q", f.Frame)
	}
	name, mkName, hasMk := strings.Cut(f.I, ".")
	if !hasMk {
		fx.b.Errorf(f.Pos, "i", "force %q: name a marker of beam %q (%s.MARKER)", f.Name, name, name)
		return
	}
	fxp, fyp := fx.b.Run(f.FX, 0), fx.b.Run(f.FY, 0)
	if b, ok := fx.ancf[name]; ok {
		for _, mk := range b.markers {
			if mk.name != mkName {
				continue
			}
			el, xi := b.locate(mk.s)
			ld := &ancfLoad{b: b, name: f.Name, s: mk.s, xi: xi, fx: fxp, fy: fyp, follower: fol}
			ld.sh, ld.dsh, _ = hermite(xi, b.k.l)
			for i := range ld.d {
				ld.d[i] = b.node(el) + i
			}
			fx.b.AddForce(f.Name, ld)
			return
		}
		fx.b.Errorf(f.Pos, "i", "beam %q has no marker %q", name, mkName)
		return
	}
	if b, ok := fx.ffr[name]; ok {
		for _, mk := range b.mk {
			if mk.name == mkName {
				fx.b.AddForce(f.Name, &ffrLoad{b: b, name: f.Name, mk: mk, fx: fxp, fy: fyp, follower: fol})
				return
			}
		}
		fx.b.Errorf(f.Pos, "i", "beam %q has no marker %q", name, mkName)
	}
}

// ---- channels, coordinate names, kinetic energy ----

// ancfInfo is the beam-level element of an ANCF beam: no forces, only its
// channels and coordinate names.
type ancfInfo struct{ b *ancfBeam }

// AdaptiveBasis returns the beam's adaptive modal selection data (nil
// without reduction="adaptive").
func (e *ancfInfo) AdaptiveBasis() *mech.AdaptiveBasis { return e.b.adaptive }

func (e *ancfInfo) Dofs() []int                                     { return nil }
func (e *ancfInfo) Eval(*mech.Ctx, []float64, []float64, []float64) {}
func (e *ancfInfo) Potential(*mech.Ctx) float64                     { return 0 }

func (e *ancfInfo) CoordNames(dst []string) {
	b := e.b
	for k := 0; k <= b.ne; k++ {
		o := b.node(k)
		p := b.name + ".n" + itoa(k)
		dst[o], dst[o+1], dst[o+2], dst[o+3] = p+".x", p+".y", p+".dx", p+".dy"
	}
}

// ANCF marker channel quantities.
// chanQty is a quantity of a beam marker's channels: its name suffix,
// unit, group and description.
type chanQty = struct{ q, unit, group, desc string }

// energyChannel is a beam's strain energy channel.
func energyChannel(name string) mech.ChannelInfo {
	return mech.ChannelInfo{Name: name + ".energy", Unit: "J", Group: "energy", Description: "beam " + name + " strain energy"}
}

// markerChannels appends the channels NAME.MARKER.Q of a beam's marker.
func markerChannels(out []mech.ChannelInfo, name, marker string, qty []chanQty) []mech.ChannelInfo {
	for _, q := range qty {
		out = append(out, mech.ChannelInfo{Name: name + "." + marker + "." + q.q, Unit: q.unit, Group: q.group, Description: "beam marker " + name + "." + marker + " " + q.desc})
	}
	return out
}

func ancfMarkerQty() []chanQty {
	return []chanQty{
		{"x", "m", "position", "x position"},
		{"y", "m", "position", "y position"},
		{"vx", "m/s", "velocity", "x velocity"},
		{"vy", "m/s", "velocity", "y velocity"},
		{"angle", "rad", "position", "angle of the tangent"},
		{"defl", "m", "position", "deflection normal to the beam's tangent at its start"},
		{"strain", "", "strain", "axial strain"},
	}
}

func (e *ancfInfo) Channels(name string) []mech.ChannelInfo {
	out := []mech.ChannelInfo{energyChannel(name)}
	for _, mk := range e.b.markers {
		out = markerChannels(out, name, mk.name, ancfMarkerQty())
	}
	// node positions for drawing the deformed beam (group "shape")
	return shapeChannels(out, name, e.shapeNodes(), 2)
}

// shapeChannels appends the channels that draw a beam: the x, y (and for
// dim 3 z) positions of its nodes, named NAME.shapeK.x, ....
func shapeChannels(out []mech.ChannelInfo, name string, nodes []int, dim int) []mech.ChannelInfo {
	for _, k := range nodes {
		p := name + ".shape" + itoa(k)
		for _, c := range []string{"x", "y", "z"}[:dim] {
			out = append(out, mech.ChannelInfo{Name: p + "." + c, Unit: "m", Group: "shape", Description: "beam " + name + " node " + itoa(k) + " " + c + " (for drawing)"})
		}
	}
	return out
}

// drawShape draws a beam through the channels of shapeChannels.
func drawShape(g *mech.Geometry, name string, nodes []int, dim int) {
	gb := mech.GeomBeam{Name: name}
	for _, k := range nodes {
		p := name + ".shape" + itoa(k)
		gb.NodeX = append(gb.NodeX, p+".x")
		gb.NodeY = append(gb.NodeY, p+".y")
		if dim == 3 {
			gb.NodeZ = append(gb.NodeZ, p+".z")
		}
	}
	g.Beams = append(g.Beams, gb)
}

// maxShapeNodes bounds the node channels used to draw a beam.
const maxShapeNodes = 33

// shapeNodes lists the nodes whose positions are channels: every node of
// a short beam, evenly spaced ones (ends included) of a long one.
func (e *ancfInfo) shapeNodes() []int { return shapeNodes(e.b.ne) }

// shapeNodes lists the nodes of a beam of ne elements whose positions are
// channels (shapeNode).
func shapeNodes(ne int) []int {
	out := make([]int, min(ne+1, maxShapeNodes))
	for i := range out {
		out[i] = shapeNode(i, ne)
	}
	return out
}

// shapeNode is the node of the i-th shape channel of a beam of ne
// elements: nodes evenly spaced, both ends included.
func shapeNode(i, ne int) int {
	n := min(ne+1, maxShapeNodes)
	if i >= n-1 {
		return ne
	}
	return (i*ne + (n-1)/2) / (n - 1)
}

// Draw draws the beam through its shape-node channels.
func (e *ancfInfo) Draw(g *mech.Geometry) { drawShape(g, e.b.name, e.shapeNodes(), 2) }

func (e *ancfInfo) Channel(x *mech.Ctx, sub int) float64 {
	b := e.b
	if sub == 0 {
		u := 0.0
		el := ancfElem{b: b}
		for k := 0; k < b.ne; k++ {
			el.d[0] = b.node(k)
			a, bb := el.energy(x.Q)
			u += a + bb
		}
		return u
	}
	sub--
	if nm := 7 * len(b.markers); sub >= nm {
		// shape node channels: x, y of node shapeNodes()[i]
		return x.Q[b.node(shapeNode((sub-nm)/2, b.ne))+(sub-nm)%2]
	}
	mk := &b.markers[sub/7]
	r, rx, v, _ := b.point(x.Q, x.V, mk.s)
	switch k := sub % 7; k {
	case 0, 1, 2, 3:
		return posVel(r, v, k)
	case 4:
		return math.Atan2(rx[1], rx[0])
	case 5:
		o := b.node(0)
		t := [2]float64{x.Q[o+2], x.Q[o+3]}
		nt := math.Hypot(t[0], t[1])
		d := [2]float64{r[0] - x.Q[o], r[1] - x.Q[o+1]}
		return mech.Cross2(t, d) / nt
	}
	return 0.5 * (rx[0]*rx[0] + rx[1]*rx[1] - 1)
}

// posVel returns channel k of a beam marker's x, y, vx, vy.
func posVel(r, v [2]float64, k int) float64 {
	if k < 2 {
		return r[k]
	}
	return v[k-2]
}

// FFR marker channel quantities.
func ffrMarkerQty() []chanQty {
	return []chanQty{
		{"x", "m", "position", "x position"},
		{"y", "m", "position", "y position"},
		{"vx", "m/s", "velocity", "x velocity"},
		{"vy", "m/s", "velocity", "y velocity"},
		{"defl", "m", "position", "elastic deflection normal to the beam axis (floating frame)"},
		{"axial", "m", "position", "elastic displacement along the beam axis (floating frame)"},
	}
}

func (e *ffrElem) CoordNames(dst []string) { copy(dst[e.b.e0:], e.b.coords) }

func (e *ffrElem) Channels(name string) []mech.ChannelInfo {
	out := []mech.ChannelInfo{energyChannel(name)}
	for _, mk := range e.b.mk {
		out = markerChannels(out, name, mk.name, ffrMarkerQty())
	}
	for _, mk := range e.b.shape {
		p := name + "." + mk.name
		out = append(out, mech.ChannelInfo{Name: p + ".x", Unit: "m", Group: "shape", Description: "beam " + name + " point at s = " + ftoa(mk.s) + " m, x (for drawing)"},
			mech.ChannelInfo{Name: p + ".y", Unit: "m", Group: "shape", Description: "beam " + name + " point at s = " + ftoa(mk.s) + " m, y (for drawing)"})
	}
	return out
}

// ffrShapePoints is the number of points drawn along a floating-frame beam.
const ffrShapePoints = 17

// addGeometry draws the beam through its shape-point channels.
func (e *ffrElem) Draw(g *mech.Geometry) {
	gb := mech.GeomBeam{Name: e.b.name}
	for _, mk := range e.b.shape {
		gb.NodeX = append(gb.NodeX, e.b.name+"."+mk.name+".x")
		gb.NodeY = append(gb.NodeY, e.b.name+"."+mk.name+".y")
	}
	g.Beams = append(g.Beams, gb)
}

func (e *ffrElem) Channel(x *mech.Ctx, sub int) float64 {
	b := e.b
	if sub == 0 {
		return b.strain(x.Q[b.e0 : b.e0+b.ns])
	}
	sub--
	if nm := 6 * len(b.mk); sub >= nm {
		r, _, _, _ := b.markerKin(x.Q, nil, &b.shape[(sub-nm)/2])
		return r[(sub-nm)%2]
	}
	mk := &b.mk[sub/6]
	r, v, ax, tr := b.markerKin(x.Q, x.V, mk)
	switch k := sub % 6; k {
	case 0, 1, 2, 3:
		return posVel(r, v, k)
	case 4:
		return tr
	}
	return ax
}

// exactOptions reads an ANCF beam's curvature, axial-strain and
// gauss-points (ancf_exact.go); ok is false after an error.
func (fx *flexCompiler) exactOptions(bs *spec.Beam) (curv, eng bool, ng int, ok bool) {
	curv, ok1 := fx.either(bs, "curvature", "small-strain", "exact")
	eng, ok2 := fx.either(bs, "axial-strain", "green", "engineering")
	ok = ok1 && ok2
	ng = fx.count(bs, "gauss-points", ancfExactGauss)
	if ng > ancfMaxGauss {
		fx.b.Errorf(attr(bs, "gauss-points").Pos, "gauss-points", "gauss-points of beam %q must be at most %d, got %d", bs.Name, ancfMaxGauss, ng)
		ok = false
	}
	if _, given := bs.Attr["gauss-points"]; given && !curv && !eng {
		fx.b.Errorf(attr(bs, "gauss-points").Pos, "gauss-points", "gauss-points of beam %q applies to curvature=\"exact\" or axial-strain=\"engineering\" (the default element is integrated exactly)", bs.Name)
		ok = false
	}
	return
}

// either reads a two-valued enum attribute: whether it is alt (def when
// not given); ok is false after an error naming both values.
func (fx *flexCompiler) either(bs *spec.Beam, field, def, alt string) (isAlt, ok bool) {
	switch v := word(bs, field, def); v {
	case def:
		return false, true
	case alt:
		return true, true
	default:
		fx.b.Errorf(attr(bs, field).Pos, field, "%s of beam %q must be %s or %s, got %q", field, bs.Name, def, alt, v)
		return false, false
	}
}
