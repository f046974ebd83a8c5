package flex

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// This file compiles <fe-body>: a finite-element model read from an FE
// program's files (feimport.go), reduced (modal or Craig–Bampton) and
// moving with a floating frame (ffr3.go). The frame is a body of the model
// whose origin is the undeformed centre of mass; nodes listed in clamp are
// fixed in the frame (the reference conditions: markers there are rigid
// markers of the body, for joints), the others move with the modes (loads
// act there, and spherical, revolute and fixed joints: fejoint.go).

// feDenseMax bounds the free dofs reduced by the dense eigen solver.
const feDenseMax = 3000

// feFile resolves a file attribute relative to the model file.
func feFile(bs *spec.Beam, name string) (string, spec.Pos, bool) {
	e := attr(bs, name)
	if !e.Given() {
		return "", e.Pos, false
	}
	p := e.Src
	if !filepath.IsAbs(p) && e.Pos.File != "" {
		p = filepath.Join(filepath.Dir(e.Pos.File), p)
	}
	return p, e.Pos, true
}

// nodeList reads a list of node labels ("1 2 5-9").
func nodeList(s string) ([]int, error) {
	var out []int
	for _, f := range fields(s) {
		if a, b, ok := strings.Cut(f, "-"); ok && a != "" {
			lo, e1 := strconv.Atoi(a)
			hi, e2 := strconv.Atoi(b)
			if e1 != nil || e2 != nil || hi < lo || hi-lo > 1e6 {
				return nil, fmt.Errorf("bad node range %q", f)
			}
			for k := lo; k <= hi; k++ {
				out = append(out, k)
			}
			continue
		}
		k, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("node %q is not an integer label", f)
		}
		out = append(out, k)
	}
	return out, nil
}

// readFE reads the files of an fe-body (unscaled).
func (fx *flexCompiler) readFE(bs *spec.Beam) (*feData, bool) {
	b := fx.b
	d := &feData{index: map[int]int{}, dofOf: map[[2]int]int{}}
	format := strings.TrimPrefix(bs.Kind, "fe-")
	mp, mpos, okM := feFile(bs, "mass")
	kp, kpos, okK := feFile(bs, "stiffness")
	np, npos, okN := feFile(bs, "nodes")
	if !okM || !okK || !okN {
		b.Errorf(bs.Pos, "mass", "fe-body %q needs mass, stiffness and nodes files", bs.Name)
		return nil, false
	}
	fail := func(pos spec.Pos, field string, err error) (*feData, bool) {
		b.Errorf(pos, field, "fe-body %q: %v", bs.Name, err)
		return nil, false
	}
	d.pre = prestressFiles(bs)
	for _, pr := range d.pre {
		if strings.TrimSpace(pr.path) == "" {
			return fail(pr.pos, "stiffness", fmt.Errorf("a <prestress> needs its stiffness file"))
		}
	}
	switch format {
	case "abaqus":
		if err := d.readInpNodes(np); err != nil {
			return fail(npos, "nodes", err)
		}
		if err := d.readAbaqusMatrix(mp, &d.M); err != nil {
			return fail(mpos, "mass", err)
		}
		if err := d.readAbaqusMatrix(kp, &d.K); err != nil {
			return fail(kpos, "stiffness", err)
		}
		for i := range d.pre {
			pr := &d.pre[i]
			if err := d.readAbaqusMatrix(pr.path, &pr.K); err != nil {
				return fail(pr.pos, "stiffness", err)
			}
		}
	case "matrix-market":
		if err := d.readNodeList(np); err != nil {
			return fail(npos, "nodes", err)
		}
		var dofOf func(int) (int, error)
		if mapPath, mapPos, ok := feFile(bs, "dof-map"); ok {
			if _, given := bs.Attr["dofs-per-node"]; given {
				b.Errorf(attr(bs, "dofs-per-node").Pos, "dofs-per-node", "fe-body %q: give dof-map or dofs-per-node, not both", bs.Name)
			}
			eq, err := d.readDofMap(mapPath)
			if err != nil {
				return fail(mapPos, "dof-map", err)
			}
			dofOf = func(r int) (int, error) {
				if i, ok := eq[r]; ok {
					return i, nil
				}
				return 0, fmt.Errorf("row %d is not in the dof map %s", r, filepath.Base(mapPath))
			}
		} else {
			dv := b.Const(attr(bs, "dofs-per-node"), 0)
			dpn := int(dv)
			if float64(dpn) != dv || dpn != 3 && dpn != 6 {
				b.Errorf(attr(bs, "dofs-per-node").Pos, "dofs-per-node", "fe-body %q: a Matrix Market model needs dof-map (the ANSYS mapping file) or dofs-per-node = 3 or 6 (dofs in node order)", bs.Name)
				return nil, false
			}
			nn := len(d.labels)
			dofOf = func(r int) (int, error) {
				node, kind := (r-1)/dpn, (r-1)%dpn
				if node >= nn {
					return 0, fmt.Errorf("row %d is beyond the %d nodes × %d dofs of the node list", r, nn, dpn)
				}
				return d.dof(node, kind), nil
			}
		}
		nm, err := d.readMatrixMarket(mp, dofOf, &d.M)
		if err != nil {
			return fail(mpos, "mass", err)
		}
		nk, err := d.readMatrixMarket(kp, dofOf, &d.K)
		if err != nil {
			return fail(kpos, "stiffness", err)
		}
		if nm != nk {
			return fail(kpos, "stiffness", fmt.Errorf("the stiffness matrix is %d×%d, the mass matrix %d×%d", nk, nk, nm, nm))
		}
		for i := range d.pre {
			pr := &d.pre[i]
			np, err := d.readMatrixMarket(pr.path, dofOf, &pr.K)
			if err != nil {
				return fail(pr.pos, "stiffness", err)
			}
			if np != nk {
				return fail(pr.pos, "stiffness", fmt.Errorf("the prestressed stiffness matrix is %d×%d, the stiffness matrix %d×%d", np, np, nk, nk))
			}
		}
		if _, isMap := bs.Attr["dof-map"]; !isMap {
			if dpn := int(b.Const(attr(bs, "dofs-per-node"), 0)); dpn > 0 && nm != dpn*len(d.labels) {
				return fail(attr(bs, "dofs-per-node").Pos, "dofs-per-node", fmt.Errorf("the matrices are %d×%d, the node list has %d nodes × %d dofs = %d", nm, nm, len(d.labels), dpn, dpn*len(d.labels)))
			}
		}
	default:
		b.Errorf(bs.Pos, "kind", "unknown fe-body kind %q (abaqus, matrix-market)", format)
		return nil, false
	}
	var err error
	if d.M, err = symmetrize(d.M, mp, d.dofLabel); err != nil {
		return fail(mpos, "mass", err)
	}
	if d.K, err = symmetrize(d.K, kp, d.dofLabel); err != nil {
		return fail(kpos, "stiffness", err)
	}
	for i := range d.pre {
		pr := &d.pre[i]
		if pr.K, err = symmetrize(pr.K, pr.path, d.dofLabel); err != nil {
			return fail(pr.pos, "stiffness", err)
		}
	}
	if len(d.edges) == 0 {
		d.edgesFromStiffness() // no elements read: draw what the stiffness couples
	}
	return d, true
}

func (fx *flexCompiler) compileFE(bs *spec.Beam) {
	b := fx.b
	if b.Integrator() == "rk4" {
		b.Errorf(bs.Pos, "kind", "fe-body %q needs an implicit integrator (its inertia coupling is solved with the Newton iteration); rk4 is not supported", bs.Name)
		return
	}
	us, ok := feUnitSystems[word(bs, "units", "")]
	if !ok {
		b.Errorf(attr(bs, "units").Pos, "units", "fe-body %q: units must name the FE model's unit system (%s); FE models come in many", bs.Name, strings.Join(feUnitNames(), ", "))
		return
	}
	d, ok := fx.readFE(bs)
	if !ok {
		return
	}
	// scale to SI: positions by L, entries by M L^(2−t_i−t_j) (and 1/T² for K)
	for i := range d.pos {
		d.pos[i] = mech.Scale(us.L, d.pos[i])
	}
	tr := func(i int) float64 {
		if d.dofs[i][1] < 3 {
			return 1
		}
		return 0
	}
	for k := range d.M {
		e := &d.M[k]
		e.v *= us.M * math.Pow(us.L, 2-tr(e.i)-tr(e.j))
	}
	for k := range d.K {
		e := &d.K[k]
		e.v *= us.M * math.Pow(us.L, 2-tr(e.i)-tr(e.j)) / (us.T * us.T)
	}
	for i := range d.pre {
		for k := range d.pre[i].K {
			e := &d.pre[i].K[k]
			e.v *= us.M * math.Pow(us.L, 2-tr(e.i)-tr(e.j)) / (us.T * us.T)
		}
	}
	n := len(d.dofs)
	// clamped nodes
	clamped := map[int]bool{}
	if e := attr(bs, "clamp"); e.Given() {
		ls, err := nodeList(e.Src)
		if err != nil {
			b.Errorf(e.Pos, "clamp", "fe-body %q: %v", bs.Name, err)
			return
		}
		for _, l := range ls {
			i, ok := d.node(l)
			if !ok {
				b.Errorf(e.Pos, "clamp", "fe-body %q: node %d is not among the FE model's nodes", bs.Name, l)
				return
			}
			clamped[i] = true
		}
	}
	free, loc := freeDofs(d, clamped)
	nf := len(free)
	if nf == 0 {
		b.Errorf(attr(bs, "clamp").Pos, "clamp", "fe-body %q: clamp fixes every node: nothing is left to deform (make it a rigid <body>)", bs.Name)
		return
	}
	// 5c: the matrices must fit the nodes: a rigid motion of the nodes as
	// read strains nothing (a node list or dof map that does not match
	// the matrices fails here)
	if msg := feRigidCheck(d); msg != "" {
		b.Errorf(attr(bs, "stiffness").Pos, "stiffness", "fe-body %q: %s", bs.Name, msg)
		return
	}
	// the basis' width before any reduction work
	if s := fx.count(bs, "modes", 6); s > ffr3Max {
		b.Errorf(attr(bs, "modes").Pos, "modes", "fe-body %q: %d modes; at most %d elastic coordinates", bs.Name, s, ffr3Max)
		return
	}
	// the free dofs' matrices, dense or (beyond feDenseMax) sparse: a
	// skyline Cholesky and subspace iteration
	var md, kd []float64
	var basis func(rigid []float64) ([]float64, ffr3Info, error)
	freeFree := len(clamped) == 0
	if nf > feDenseMax {
		Ms, Ks := newCSR(d.M, loc, nf), newCSR(d.K, loc, nf)
		md, kd = Ms.diag(), Ks.diag()
		basis = func(rigid []float64) ([]float64, ffr3Info, error) {
			return fx.feBasisSparse(bs, d, free, Ms, Ks, freeFree, rigid)
		}
	} else {
		Mf, Kf := dense(d.M, loc, nf), dense(d.K, loc, nf)
		md, kd = make([]float64, nf), make([]float64, nf)
		for i := 0; i < nf; i++ {
			md[i], kd[i] = Mf[i*nf+i], Kf[i*nf+i]
		}
		basis = func(rigid []float64) ([]float64, ffr3Info, error) {
			return fx.feBasis(bs, d, free, Mf, Kf, freeFree, rigid)
		}
	}
	if !fx.feDiagonals(bs, d, free, md, kd) {
		return
	}
	_, cm, ok := fx.feRigid(bs, d, n)
	if !ok {
		return
	}
	V, info, err := basis(feRigidModes(d, cm, n))
	if err != nil {
		b.Errorf(attr(bs, "reduction").Pos, "reduction", "fe-body %q: %v", bs.Name, err)
		return
	}
	fx.finishFE(bs, d, clamped, free, V, info, cm)
}

// freeDofs returns the dofs of the nodes not clamped (free, in the FE
// model's order) and each dof's position among them (loc, −1 for a
// clamped one).
func freeDofs(d *feData, clamped map[int]bool) (free, loc []int) {
	loc = make([]int, len(d.dofs))
	for i := range d.dofs {
		loc[i] = -1
		if !clamped[d.dofs[i][0]] {
			loc[i] = len(free)
			free = append(free, i)
		}
	}
	return free, loc
}

// feDiagonals refuses a free dof with neither mass nor stiffness.
func (fx *flexCompiler) feDiagonals(bs *spec.Beam, d *feData, free []int, md, kd []float64) bool {
	for i := range md {
		if !(md[i] > 0) && !(kd[i] > 0) {
			nd := d.dofs[free[i]]
			fx.b.Errorf(bs.Pos, "mass", "fe-body %q: dof %s of node %d has neither mass nor stiffness (a node without elements?)", bs.Name, dofName(nd[1]), d.labels[nd[0]])
			return false
		}
	}
	return true
}

// feRigidCheck reports (non-empty) when a rigid motion of the FE model's
// nodes strains it: ‖K Φ_rigid‖ beyond round-off of ‖K‖ times the
// motion's size.
func feRigidCheck(d *feData) string {
	n := len(d.dofs)
	Y := feRigidModes(d, mech.Vec3{}, n)
	KY := spmm(d.K, Y, 6, n)
	big := 0.0
	for _, e := range d.K {
		big = math.Max(big, math.Abs(e.v))
	}
	if big == 0 {
		return ""
	}
	for c := 0; c < 6; c++ {
		size, worst, at := 0.0, 0.0, 0
		for i := 0; i < n; i++ {
			size = math.Max(size, math.Abs(Y[i*6+c]))
			if v := math.Abs(KY[i*6+c]); v > worst {
				worst, at = v, i
			}
		}
		if worst > 1e-6*big*size {
			what := [...]string{"translation along x", "translation along y", "translation along z", "rotation about x", "rotation about y", "rotation about z"}[c]
			return fmt.Sprintf("a rigid %s of the nodes strains the model (force %.3g at %s, %.2g of the largest stiffness entry): do the node positions (or the dof map) match the matrices, and is the model free of springs to the ground (an FE body's supports are its clamps and the model's joints)?", what, worst, d.dofLabel(at), worst/(big*size))
		}
	}
	return ""
}

// feRigidModes returns the rigid-body modes of an FE model about origin
// (n×6: translations x, y, z, rotations x, y, z).
func feRigidModes(d *feData, origin mech.Vec3, n int) []float64 {
	Y := make([]float64, n*6)
	for i, dk := range d.dofs {
		p := mech.Sub(d.pos[dk[0]], origin)
		a := dk[1]
		if a < 3 {
			Y[i*6+a] = 1
			for c := 0; c < 3; c++ {
				var e mech.Vec3
				e[c] = 1
				Y[i*6+3+c] = mech.Cross(e, p)[a]
			}
		} else {
			Y[i*6+a] = 1
		}
	}
	return Y
}

// feRigid returns an FE model's mass and centre of mass, refusing a mass
// matrix that does not move every direction with the same positive mass.
func (fx *flexCompiler) feRigid(bs *spec.Beam, d *feData, n int) (float64, mech.Vec3, bool) {
	b := fx.b
	Y0 := feRigidModes(d, mech.Vec3{}, n)
	MY0 := spmm(d.M, Y0, 6, n)
	mass := 0.0
	for a := 0; a < 3; a++ {
		mass += dotCols(Y0, MY0, 6, a, a, n) / 3
	}
	if !(mass > 0) {
		b.Errorf(attr(bs, "mass").Pos, "mass", "fe-body %q: the mass matrix gives the body a mass of %g kg (not positive)", bs.Name, mass)
		return 0, mech.Vec3{}, false
	}
	for a := 0; a < 3; a++ {
		if m := dotCols(Y0, MY0, 6, a, a, n); math.Abs(m-mass) > 1e-6*mass {
			b.Errorf(attr(bs, "mass").Pos, "mass", "fe-body %q: the mass matrix gives a rigid translation along %c the mass %g kg and along another %g kg (a mass matrix moves every direction alike)", bs.Name, "xyz"[a], m, mass)
			return 0, mech.Vec3{}, false
		}
	}
	// S from Φ_tᵀ M Φ_r: entry (a, 3+c) = (e_c × S)_a
	first := mech.Vec3{dotCols(Y0, MY0, 6, 1, 5, n), dotCols(Y0, MY0, 6, 2, 3, n), dotCols(Y0, MY0, 6, 0, 4, n)}
	return mass, mech.Scale(1/mass, first), true
}

// finishFE builds an fe-body from its basis V over the free dofs: the
// invariants, the frame (a body of the model), markers, drawing and mass.
func (fx *flexCompiler) finishFE(bs *spec.Beam, d *feData, clamped map[int]bool, free []int, V []float64, info ffr3Info, cm mech.Vec3) {
	b := fx.b
	n := len(d.dofs)
	nf := len(free)
	m := len(V) / nf
	if m > ffr3Max {
		b.Errorf(attr(bs, "modes").Pos, "modes", "fe-body %q: %d elastic coordinates; at most %d", bs.Name, m, ffr3Max)
		return
	}
	Vf := make([]float64, n*m) // over all dofs, zero at the clamped ones
	for a, i := range free {
		copy(Vf[i*m:i*m+m], V[a*m:a*m+m])
	}
	pos := make([]mech.Vec3, len(d.pos))
	for i := range pos {
		pos[i] = mech.Sub(d.pos[i], cm)
	}
	body := &ffr3{name: bs.Name, m: m, g: b.Gravity(), info: info}
	body.beta = fx.nonNegative(bs, "damping", 0, "s")
	setInvariants(body, d.M, d.dofs, pos, Vf, n)
	body.kff = gramCols(Vf, spmmAcc(d.K, Vf, m, n), m, n)
	symm(body.kff, m)
	if !fx.fePrestress(bs, d, Vf, body, mech.Scale(-1, cm)) {
		return
	}
	// the frame: a body of the model
	at, _ := fx.vec(bs, "at", mech.Vec3{})
	R0 := fx.axes(bs, "fe-body")
	vel, _ := fx.vec(bs, "velocity", mech.Vec3{})
	om, _ := fx.vec(bs, "omega", mech.Vec3{})
	acm := mech.MulMV(&R0, cm)
	qt, vt := mech.GrowFrame(b, mech.Add(at, acm), R0, mech.Add(vel, mech.Cross(om, acm)), mech.MulMTV(&R0, om))
	body.fq, body.fv = qt, vt
	body.eq = len(b.Q0())
	body.ev = b.Grow(m)
	body.dofl = make([]int, 6+m)
	for j := 0; j < 6; j++ {
		body.dofl[j] = vt + j
	}
	for j := 0; j < m; j++ {
		body.dofl[6+j] = body.ev + j
		body.coords = append(body.coords, bs.Name+".q"+itoa(j+1))
	}
	k := b.AddBody(mech.BodyInfo{Name: bs.Name, Spatial: true, Q: qt, V: vt, Mass: body.mass, Inertia: body.j0})
	body.body = k
	b.DefineMarker(bs.Name, mech.Marker{F: mech.Frame{Body: k, Q: qt, V: vt, R: mech.Ident}, P: mech.Point{Body: k}})
	// markers at nodes
	for _, name := range markerNames(bs) {
		e := attr(bs, "marker."+name)
		label, err := strconv.Atoi(strings.TrimSpace(e.Src))
		ni, ok := d.node(label)
		if err != nil || !ok {
			b.Errorf(e.Pos, "node", "marker %q of fe-body %q: node %s is not among the FE model's nodes", name, bs.Name, e.Src)
			continue
		}
		mk := ffr3Marker{name: name, node: label, p0: pos[ni], tr: make([]float64, 3*m), rot: make([]float64, 3*m)}
		for a := 0; a < 6; a++ {
			if i, ok := d.dofOf[[2]int{ni, a}]; ok {
				dst := mk.tr
				if a >= 3 {
					dst = mk.rot
					mk.hasRot = true
				}
				copy(dst[(a%3)*m:(a%3)*m+m], Vf[i*m:i*m+m])
			}
		}
		if clamped[ni] {
			fr := mech.Frame{Body: k, Q: qt, V: vt, S: pos[ni], R: mech.Ident}
			b.DefineMarker(bs.Name+"."+name, mech.Marker{F: fr, P: mech.Point{Body: k}})
		}
		body.mk = append(body.mk, mk)
	}
	body.shape, body.chains = feDrawing(d, pos, Vf, m)
	n6 := 6 + m
	body.mbar = make([]float64, n6*n6)
	body.massAt(&R0, make([]float64, m), body.mbar)
	b.AddMassBlock(body.dofl, body.mbar)
	for c := 0; c < 3; c++ {
		b.AddGravity(vt+c, body.mass*body.g[c])
	}
	fx.ffr3[bs.Name] = body
	b.AddForce(bs.Name, &ffr3Elem{b: body})
}

// dofName names a dof kind.
func dofName(k int) string { return [...]string{"ux", "uy", "uz", "rx", "ry", "rz"}[k] }

// markerNames lists a beam's or fe-body's markers in order of their
// attribute names.
func markerNames(bs *spec.Beam) []string {
	var out []string
	for k := range bs.Attr {
		if n, ok := strings.CutPrefix(k, "marker."); ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// axes reads x-axis and y-axis of a beam's or body's orientation (what
// names it in errors): without y-axis, y is z × x (or y for x along z);
// identity when both are absent.
func (fx *flexCompiler) axes(bs *spec.Beam, what string) mech.Mat3 {
	xa, _ := fx.vec(bs, "x-axis", mech.Vec3{1, 0, 0})
	ya, yg := fx.vec(bs, "y-axis", mech.Vec3{})
	R, ok := mech.XAxes(xa, ya, yg)
	if !ok {
		field := "x-axis"
		if yg && mech.Norm(xa) > 0 {
			field = "y-axis"
		}
		fx.b.Errorf(attr(bs, field+".x").Pos, field, "%s %q: x-axis must be a nonzero vector and y-axis one not along it", what, bs.Name)
		return mech.Ident
	}
	return R
}

// spmm returns M Y for sparse M (n×n) and Y (n×c row-major).
func spmm(M []feEntry, Y []float64, c, n int) []float64 {
	out := make([]float64, n*c)
	for _, e := range M {
		dst := out[e.i*c : e.i*c+c]
		src := Y[e.j*c : e.j*c+c]
		for k := range dst {
			dst[k] += e.v * src[k]
		}
	}
	return out
}

// spmmAcc is spmm with compensated sums (csr.mulAcc): K V of smooth
// shapes without the cancellation that costs the lowest modes' stiffness
// its digits on a fine mesh.
func spmmAcc(M []feEntry, Y []float64, c, n int) []float64 {
	out, comp := make([]float64, n*c), make([]float64, n*c)
	for _, e := range M {
		dst, cd := out[e.i*c:e.i*c+c], comp[e.i*c:e.i*c+c]
		src := Y[e.j*c : e.j*c+c]
		for k := range dst {
			dst[k], cd[k] = dot2(dst[k], cd[k], e.v, src[k])
		}
	}
	for k := range out {
		out[k] += comp[k]
	}
	return out
}

// denseCSR returns the nonzeros of a dense n×n matrix as a csr.
func denseCSR(A []float64, n int) *csr {
	c := &csr{n: n, ptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		for j, v := range A[i*n : i*n+n] {
			if v != 0 {
				c.col, c.val = append(c.col, j), append(c.val, v)
			}
		}
		c.ptr[i+1] = len(c.col)
	}
	return c
}

// dotCols returns column a of Y dotted with column b of Z (both n×c).
func dotCols(Y, Z []float64, c, a, b, n int) float64 {
	s := 0.0
	for i := 0; i < n; i++ {
		s += Y[i*c+a] * Z[i*c+b]
	}
	return s
}

// gramCols returns Yᵀ Z (c×c, row-major) for Y and Z = A Y (n×c,
// row-major) with A symmetric, so that the product is symmetric: its upper
// triangle is summed row by row (one pass over Y and Z, where the c²
// products of dotCols would each stride through them) and mirrored.
func gramCols(Y, Z []float64, c, n int) []float64 {
	G := make([]float64, c*c)
	for i := 0; i < n; i++ {
		y, z := Y[i*c:i*c+c], Z[i*c:i*c+c]
		for a, ya := range y {
			if ya == 0 {
				continue
			}
			g, za := G[a*c+a:a*c+c], z[a:]
			za = za[:len(g)]
			for b, zb := range za {
				g[b] += ya * zb
			}
		}
	}
	for a := 0; a < c; a++ {
		for b := 0; b < a; b++ {
			G[a*c+b] = G[b*c+a]
		}
	}
	return G
}

// symm makes a square matrix exactly symmetric.
func symm(a []float64, m int) {
	for i := 0; i < m; i++ {
		for j := 0; j < i; j++ {
			v := 0.5 * (a[i*m+j] + a[j*m+i])
			a[i*m+j], a[j*m+i] = v, v
		}
	}
}

// setInvariants computes the inertia invariants of an FFR body from its
// FE mass matrix (all dofs, sparse), dof layout, node positions from the
// frame's origin and basis V (n×m, zero at clamped dofs).
func setInvariants(body *ffr3, M []feEntry, dofs [][2]int, pos []mech.Vec3, V []float64, n int) {
	m := body.m
	// Y = [Φ_t | Φ_r0 | V | P_1 … P_m]
	c := 6 + m + 3*m
	Y := make([]float64, n*c)
	// the dof of each kind at each node (-1: none)
	nodeDof := make([][6]int, len(pos))
	for i := range nodeDof {
		nodeDof[i] = [6]int{-1, -1, -1, -1, -1, -1}
	}
	for i, dk := range dofs {
		nodeDof[dk[0]][dk[1]] = i
	}
	for i, dk := range dofs {
		row := Y[i*c : i*c+c]
		p := pos[dk[0]]
		a := dk[1]
		copy(row[6:6+m], V[i*m:i*m+m])
		// Φ_r(η) e_q = e_q × (x + u) on the translations, e_q + e_q × θ on
		// the rotations (a node's small rotation θ turns its angular
		// velocity ω by −θ × ω: the gyroscopic moment of a tilting disk)
		row[a] = 1
		off := 0
		if a >= 3 {
			off = 3
		} else {
			for q := 0; q < 3; q++ {
				var e mech.Vec3
				e[q] = 1
				row[3+q] = mech.Cross(e, p)[a]
			}
		}
		nd := &nodeDof[dk[0]]
		for k := 0; k < m; k++ {
			// P_k e_q = e_q × V_k (the node's translation or rotation)
			var vk mech.Vec3
			for b := 0; b < 3; b++ {
				if j := nd[off+b]; j >= 0 {
					vk[b] = V[j*m+k]
				}
			}
			// component a − off of e_q × v_k, q = 0, 1, 2
			dst := row[6+m+3*k : 6+m+3*k+3]
			switch a - off {
			case 0:
				dst[0], dst[1], dst[2] = 0, vk[2], -vk[1]
			case 1:
				dst[0], dst[1], dst[2] = -vk[2], 0, vk[0]
			default:
				dst[0], dst[1], dst[2] = vk[1], -vk[0], 0
			}
		}
	}
	G := gramCols(Y, spmm(M, Y, c, n), c, n)
	dot := func(a, b int) float64 { return G[a*c+b] }
	body.mass = (dot(0, 0) + dot(1, 1) + dot(2, 2)) / 3
	body.s0 = mech.Vec3{dot(1, 5), dot(2, 3), dot(0, 4)}
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			body.j0[3*a+b] = 0.5 * (dot(3+a, 3+b) + dot(3+b, 3+a))
		}
	}
	body.sb = make([]mech.Vec3, m)
	body.f0 = make([]mech.Vec3, m)
	body.cs = make([]mech.Mat3, m)
	body.ds = make([]mech.Mat3, m*m)
	body.ek = make([]mech.Vec3, m*m)
	body.mff = make([]float64, m*m)
	P := func(k, q int) int { return 6 + m + 3*k + q }
	for k := 0; k < m; k++ {
		for a := 0; a < 3; a++ {
			body.sb[k][a] = dot(a, 6+k)
			body.f0[k][a] = dot(3+a, 6+k)
		}
		var C mech.Mat3
		for a := 0; a < 3; a++ {
			for q := 0; q < 3; q++ {
				C[3*a+q] = dot(3+a, P(k, q))
			}
		}
		body.cs[k] = mech.AddM(C, mech.Transpose(&C))
		for l := 0; l < m; l++ {
			body.mff[k*m+l] = dot(6+k, 6+l)
			var D mech.Mat3
			for a := 0; a < 3; a++ {
				for q := 0; q < 3; q++ {
					D[3*a+q] = dot(P(k, a), P(l, q))
				}
				body.ek[k*m+l][a] = dot(P(k, a), 6+l)
			}
			body.ds[k*m+l] = mech.AddM(D, mech.Transpose(&D))
		}
	}
	symm(body.mff, m)
	// The nodes' rotary inertia to second order in their small rotations
	// θ (Θ_k the basis' rotations at the node): a node's angular velocity
	// is ω − θ × ω + θ̇ + ½ θ × (θ × ω) − ½ θ × θ̇ + …, and with J the
	// node's rotary inertia (the sum of its column of rotation blocks of
	// M) the second-order part adds ωᵀJ(½ θ × (θ × ω) − ½ θ × θ̇) to the
	// kinetic energy: J[Θ_k]×[Θ_l]× to D_kl (symmetrized) and
	// −½ J (Θ_k × Θ_l) to E_kl. It carries the gyroscopic moment of a
	// spinning disk's polar inertia when it tilts (rotor whirl).
	jn := make([]mech.Mat3, len(pos))
	hasRot := false
	for _, e := range M {
		a, b := dofs[e.i][1], dofs[e.j][1]
		if a >= 3 && b >= 3 {
			jn[dofs[e.j][0]][3*(a-3)+(b-3)] += e.v
			hasRot = true
		}
	}
	if !hasRot {
		return
	}
	th := make([]mech.Vec3, m)
	for node := range jn {
		J := jn[node]
		J = mech.AddM(J, mech.Transpose(&J))
		for i := range J {
			J[i] *= 0.5
		}
		nd := &nodeDof[node]
		any := false
		for k := 0; k < m; k++ {
			th[k] = mech.Vec3{}
			for b := 0; b < 3; b++ {
				if j := nd[3+b]; j >= 0 {
					th[k][b] = V[j*m+k]
					any = any || th[k][b] != 0
				}
			}
		}
		if !any || J == (mech.Mat3{}) {
			continue
		}
		for k := 0; k < m; k++ {
			ak := mech.Skew(th[k])
			for l := 0; l < m; l++ {
				bl := mech.Skew(th[l])
				ab, ba := mech.MulMM(&ak, &bl), mech.MulMM(&bl, &ak)
				S := mech.AddM(ab, ba)
				JS, SJ := mech.MulMM(&J, &S), mech.MulMM(&S, &J)
				for i := range JS {
					body.ds[k*m+l][i] += 0.5 * (JS[i] + SJ[i])
				}
				e := mech.MulMV(&J, mech.Cross(th[k], th[l]))
				body.ek[k*m+l] = mech.Sub(body.ek[k*m+l], mech.Scale(0.5, e))
			}
		}
	}
}

// feBasis returns the reduction basis of an fe-body over its free dofs
// (nf×m row-major, M-orthonormal, in the reduced model's eigenvectors) and
// the frequencies before and after the reduction. A free-free model's
// rigid-body modes (rigid: n×6 about the centre of mass) are left to the
// frame.
func (fx *flexCompiler) feBasis(bs *spec.Beam, d *feData, free []int, Mf, Kf []float64, freeFree bool, rigid []float64) ([]float64, ffr3Info, error) {
	nf := len(free)
	info := ffr3Info{source: bs.Kind, dofs: nf, basis: word(bs, "reduction", "modal")}
	s := fx.count(bs, "modes", 6)
	vals, vec, nc, err := genEigenMassless(Mf, Kf, nf)
	if err != nil {
		return nil, info, fmt.Errorf("the free dofs' %v", err)
	}
	top := math.Abs(vals[nc-1])
	if vals[0] < -1e-8*top {
		return nil, info, fmt.Errorf("the stiffness matrix is not positive semidefinite (eigenvalue %g of K φ = λ M φ)", vals[0])
	}
	// rigid modes over the free dofs
	var R []float64
	r := 0
	if freeFree {
		R = make([]float64, nf*6)
		for a, i := range free {
			copy(R[a*6:a*6+6], rigid[i*6:i*6+6])
		}
		R, r = mOrthonormal(R, denseOp(Mf, nf), nf, 6, nil, 0)
		if r > 0 && vals[r-1] > 1e-6*math.Max(vals[min(r, nc-1)], 1e-300) {
			return nil, info, fmt.Errorf("the model is not free: its %d rigid-body motions should have zero frequency, the %d lowest are %.4g Hz … %.4g Hz (clamp its support nodes with clamp=\"...\")", r, r, freq(vals[0]), freq(vals[r-1]))
		}
		info.rigid = r
	}
	// a mechanism: a free-free model's elastic mode at the round-off of
	// its spectrum; a clamped model's stiffness is positive definite, and a
	// Cholesky pivot at the round-off of its diagonal says it is not (a
	// spectrum ratio alone would refuse a real beam whose flapwise mode is
	// 1e-13 of its torsion, as Wu and Haug's is)
	mechanism := r < nc && vals[r] <= 1e-10*top
	if mechanism && !freeFree {
		// (a fine cantilever's smallest relative pivot falls as 1/N³: 1.6e-11
		// at 4000 elements; a mechanism's is at the round-off, 1e-16)
		mechanism = cholRelPivot(Kf, nf) < 1e-13
	}
	if mechanism {
		if freeFree {
			return nil, info, fmt.Errorf("the model has a mechanism besides its rigid-body motions: an elastic mode of frequency %.3g Hz (zero stiffness: elements missing, or a stiffness matrix that does not hold the model together)", freq(vals[r]))
		}
		return nil, info, fmt.Errorf("the clamped model is a mechanism: a mode of frequency %.3g Hz (is it supported by its clamps? zero stiffness?)", freq(vals[r]))
	}
	for j := r; j < nc && j < r+max(2*s, s+10); j++ {
		info.full = append(info.full, freq(vals[j]))
	}
	var W []float64
	w := 0
	switch info.basis {
	case "modal":
		if r+s > nc {
			return nil, info, fmt.Errorf("%d modes asked, the FE model has %d elastic ones", s, nc-r)
		}
		W = make([]float64, nf*s)
		for i := 0; i < nf; i++ {
			copy(W[i*s:i*s+s], vec[i*nc+r:i*nc+r+s])
		}
		w = s
	case "craig-bampton":
		bnd, err := feInterface(bs, d, free, s)
		if err != nil {
			return nil, info, err
		}
		if err := feInterfaceHolds(bs, R, r, bnd); err != nil {
			return nil, info, err
		}
		W, err = craigBamptonBasis(Mf, Kf, nf, bnd, s)
		if err != nil {
			return nil, info, err
		}
		w = len(bnd) + s
	default:
		return nil, info, fmt.Errorf("reduction must be modal or craig-bampton, got %q", info.basis)
	}
	V, _, reduced, err := finishBasis(W, denseOp(Mf, nf), denseCSR(Kf, nf).mulAcc, nf, w, R, r)
	info.reduced = reduced
	return V, info, err
}

// feInterface returns the free dofs (indices into free, ascending) of the
// interface nodes of a Craig–Bampton reduction (interface="..."), refusing
// more interface dofs and modes (s) than an fe-body's elastic coordinates.
func feInterface(bs *spec.Beam, d *feData, free []int, s int) ([]int, error) {
	e := attr(bs, "interface")
	if !e.Given() {
		return nil, fmt.Errorf("craig-bampton needs interface=\"...\": the nodes whose dofs the basis keeps")
	}
	ls, err := nodeList(e.Src)
	if err != nil {
		return nil, err
	}
	loc := map[int]int{}
	for a, i := range free {
		loc[i] = a
	}
	var bnd []int
	for _, l := range ls {
		ni, ok := d.node(l)
		if !ok {
			return nil, fmt.Errorf("interface node %d is not among the FE model's nodes", l)
		}
		got := false
		for k := 0; k < 6; k++ {
			if i, ok := d.dofOf[[2]int{ni, k}]; ok {
				if a, ok := loc[i]; ok {
					bnd = append(bnd, a)
					got = true
				}
			}
		}
		if !got {
			if hasDof := len(d.dofs) > 0 && func() bool {
				for k := 0; k < 6; k++ {
					if _, ok := d.dofOf[[2]int{ni, k}]; ok {
						return true
					}
				}
				return false
			}(); hasDof {
				return nil, fmt.Errorf("interface node %d is clamped (its dofs are not free)", l)
			}
			return nil, fmt.Errorf("interface node %d has no dofs in the matrices", l)
		}
	}
	sort.Ints(bnd)
	if len(bnd)+s > ffr3Max {
		return nil, fmt.Errorf("%d interface dofs and %d modes make %d elastic coordinates; at most %d", len(bnd), s, len(bnd)+s, ffr3Max)
	}
	return bnd, nil
}

// feInterfaceHolds refuses the interface of a free-free body's
// Craig–Bampton reduction when a rigid-body motion (R: nf×r, the rigid
// modes, M-orthonormal) moves none of its dofs bnd: that motion is left to
// the interior, whose stiffness K_ii is then singular.
func feInterfaceHolds(bs *spec.Beam, R []float64, r int, bnd []int) error {
	if r == 0 {
		return nil
	}
	g := make([]float64, r*r) // R_bᵀ R_b
	for _, b := range bnd {
		row := R[b*r : b*r+r]
		for i := 0; i < r; i++ {
			for j := 0; j < r; j++ {
				g[i*r+j] += row[i] * row[j]
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(symDense(g, r), false) {
		return fmt.Errorf("interface: symmetric eigen decomposition failed")
	}
	v := es.Values(nil)
	lo, hi := math.Inf(1), 0.0
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if !(lo > 1e-16*hi) {
		held := len(v)
		for _, x := range v {
			if !(x > 1e-16*hi) {
				held--
			}
		}
		return fmt.Errorf("the interface nodes (%s) hold %d of the free body's %d rigid-body motions: the others move none of their dofs, so the interior stiffness of the Craig–Bampton reduction is singular (add interface nodes that hold the body, or clamp it)", strings.TrimSpace(attr(bs, "interface").Src), held, r)
	}
	return nil
}

// finishBasis makes a raw basis W (nf×w) M-orthogonal to the rigid modes R
// (nf×r, M-orthonormal; none when r = 0), M-orthonormal without its
// dependent columns and turned to the reduced model's eigenvectors (so its
// coordinates are the reduced model's modes); it returns the basis, its
// width and the reduced model's frequencies (Hz).
func finishBasis(W []float64, mulM, mulK func(x, y []float64), nf, w int, R []float64, r int) ([]float64, int, []float64, error) {
	W, m := mOrthonormal(W, mulM, nf, w, R, r)
	if m == 0 {
		return nil, 0, nil, fmt.Errorf("the basis has no elastic shapes")
	}
	KW := make([]float64, nf*m)
	col, kc := make([]float64, nf), make([]float64, nf)
	for j := 0; j < m; j++ {
		for i := 0; i < nf; i++ {
			col[i] = W[i*m+j]
		}
		mulK(col, kc)
		for i := 0; i < nf; i++ {
			KW[i*m+j] = kc[i]
		}
	}
	kr := gramCols(W, KW, m, nf)
	symm(kr, m)
	id := make([]float64, m*m)
	for i := 0; i < m; i++ {
		id[i*m+i] = 1
	}
	rv, Z, err := genEigen(id, kr, m)
	if err != nil {
		return nil, 0, nil, err
	}
	V := make([]float64, nf*m)
	for i := 0; i < nf; i++ {
		for j := 0; j < m; j++ {
			s := 0.0
			for k := 0; k < m; k++ {
				s += W[i*m+k] * Z[k*m+j]
			}
			V[i*m+j] = s
		}
	}
	var f []float64
	for _, v := range rv {
		f = append(f, freq(v))
	}
	return V, m, f, nil
}

// freq converts an eigenvalue ω² to a frequency in Hz.
func freq(l float64) float64 { return math.Sqrt(math.Max(l, 0)) / (2 * math.Pi) }

// denseMul returns A X for a dense n×n A and X n×c.
func denseMul(A, X []float64, n, c int) []float64 {
	out := make([]float64, n*c)
	for i := 0; i < n; i++ {
		row := A[i*n : i*n+n]
		dst := out[i*c : i*c+c]
		for k, a := range row {
			if a == 0 {
				continue
			}
			src := X[k*c : k*c+c]
			for j := range dst {
				dst[j] += a * src[j]
			}
		}
	}
	return out
}

// mOrthonormal returns an M-orthonormal basis of the columns of W (n×w)
// (mulM: y = M x),
// made M-orthogonal to the columns of R (n×rw, M-orthonormal; nil for
// none) first, with the columns that depend on the others dropped, and its
// width.
func mOrthonormal(W []float64, mulM func(x, y []float64), n, w int, R []float64, rw int) ([]float64, int) {
	mul := func(a []float64) []float64 {
		out := make([]float64, n)
		mulM(a, out)
		return out
	}
	dot := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	// orthonormal columns and their products with M
	var cols, mcols [][]float64
	var rc, mrc [][]float64
	for j := 0; j < rw; j++ {
		c := make([]float64, n)
		for i := 0; i < n; i++ {
			c[i] = R[i*rw+j]
		}
		rc = append(rc, c)
		mrc = append(mrc, mul(c))
	}
	for j := 0; j < w; j++ {
		c := make([]float64, n)
		for i := 0; i < n; i++ {
			c[i] = W[i*w+j]
		}
		mc := mul(c)
		n0 := math.Sqrt(dot(c, mc))
		if !(n0 > 0) {
			continue
		}
		for pass := 0; pass < 2; pass++ {
			for k, o := range rc {
				p := dot(c, mrc[k])
				for i := range c {
					c[i] -= p * o[i]
				}
			}
			for k, o := range cols {
				p := dot(c, mcols[k])
				for i := range c {
					c[i] -= p * o[i]
				}
			}
		}
		mc = mul(c)
		nn := math.Sqrt(dot(c, mc))
		if !(nn >= 1e-8*n0) {
			continue
		}
		for i := range c {
			c[i] /= nn
			mc[i] /= nn
		}
		cols = append(cols, c)
		mcols = append(mcols, mc)
	}
	m := len(cols)
	out := make([]float64, n*m)
	for j, c := range cols {
		for i := 0; i < n; i++ {
			out[i*m+j] = c[i]
		}
	}
	return out, m
}

// feFreeRef reports whether ref names a marker of an fe-body at a node
// that moves with the modes (not clamped to the frame).
func feFreeRef(ms *spec.Model, ref string) bool {
	if ffrBeamRef(ms, ref) {
		return true // a spatial ffr beam's markers all move with its shapes
	}
	name, mk, ok := strings.Cut(ref, ".")
	if !ok {
		return false
	}
	for i := range ms.Beams {
		bs := &ms.Beams[i]
		if bs.Name != name || !strings.HasPrefix(bs.Kind, "fe-") {
			continue
		}
		e, ok := bs.Attr["marker."+mk]
		if !ok {
			return false
		}
		node, err := strconv.Atoi(strings.TrimSpace(e.Src))
		if err != nil {
			return false
		}
		cl, _ := nodeList(bs.Attr["clamp"].Src)
		for _, c := range cl {
			if c == node {
				return false
			}
		}
		return true
	}
	return false
}

// feForce compiles a force or torque at a node marker of an fe-body.
func (fx *flexCompiler) feForce(f spec.Force) {
	b := fx.b
	if !b.Claim(f.Name, f.Pos, "force") {
		return
	}
	if f.Kind != "force" && f.Kind != "torque" {
		field := "i"
		if !feFreeRef(fx.ms, f.I) {
			field = "j"
		}
		b.Errorf(f.Pos, field, "%s %q: only <force> and <torque> act at a flexible body's marker that moves with its shapes; attach springs and bushings to a rigid marker", f.Kind, f.Name)
		return
	}
	if f.J != "" {
		b.Errorf(f.Pos, "j", "%s %q at a flexible body's marker acts at marker i only", f.Kind, f.Name)
		return
	}
	name, mk, _ := strings.Cut(f.I, ".")
	body := fx.ffr3[name]
	if body == nil {
		return // the body failed to compile
	}
	var m *ffr3Marker
	for i := range body.mk {
		if body.mk[i].name == mk {
			m = &body.mk[i]
		}
	}
	if m == nil {
		return
	}
	if f.Kind == "torque" && !m.hasRot {
		b.Errorf(f.Pos, "i", "torque %q: node %d of %q has no rotational dofs (a solid's node): apply forces at nodes around it, or a torque on a clamped node's marker", f.Name, m.node, name)
		return
	}
	ld := &ffr3Load{b: body, name: f.Name, mk: m, torque: f.Kind == "torque"}
	switch f.Frame {
	case "", "global":
	case "marker":
		ld.follower = true
	default:
		b.Errorf(f.Pos, "frame", "%s %q: frame must be global or marker, got %q", f.Kind, f.Name, f.Frame)
	}
	if ld.torque {
		ld.c = [3]mech.Param{b.Run(f.TX, 0), b.Run(f.TY, 0), b.Run(f.TZ, 0)}
	} else {
		ld.c = [3]mech.Param{b.Run(f.FX, 0), b.Run(f.FY, 0), b.Run(f.FZ, 0)}
	}
	b.AddForce(f.Name, ld)
}

// feDrawMax bounds the nodes an fe-body draws (3 channels each).
const feDrawMax = 400

// feDrawing returns the drawing points of an fe-body (the nodes of its
// element edges, at most feDrawMax) and polylines through them that cover
// the edges.
func feDrawing(d *feData, pos []mech.Vec3, Vf []float64, m int) ([]ffr3Marker, [][]int) {
	idx := map[int]int{} // node → drawing point
	var pts []ffr3Marker
	point := func(node int) int {
		if k, ok := idx[node]; ok {
			return k
		}
		mk := ffr3Marker{node: d.labels[node], p0: pos[node], tr: make([]float64, 3*m), rot: make([]float64, 3*m)}
		for a := 0; a < 6; a++ {
			if i, ok := d.dofOf[[2]int{node, a}]; ok {
				dst := mk.tr
				if a >= 3 {
					dst = mk.rot
				}
				copy(dst[(a%3)*m:(a%3)*m+m], Vf[i*m:i*m+m])
			}
		}
		idx[node] = len(pts)
		pts = append(pts, mk)
		return len(pts) - 1
	}
	// adjacency, then greedy chains through unused edges
	adj := map[int][]int{}
	var edges [][2]int
	for _, e := range d.edges {
		_, a := idx[e[0]]
		_, b := idx[e[1]]
		need := 0
		if !a {
			need++
		}
		if !b {
			need++
		}
		if len(idx)+need > feDrawMax {
			continue
		}
		point(e[0])
		point(e[1])
		edges = append(edges, e)
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	used := map[[2]int]bool{}
	key := func(a, b int) [2]int {
		if a > b {
			a, b = b, a
		}
		return [2]int{a, b}
	}
	var chains [][]int
	for _, e := range edges {
		if used[key(e[0], e[1])] {
			continue
		}
		ch := []int{e[0]}
		cur := e[0]
		for {
			next := -1
			for _, nb := range adj[cur] {
				if !used[key(cur, nb)] {
					next = nb
					break
				}
			}
			if next < 0 {
				break
			}
			used[key(cur, next)] = true
			ch = append(ch, next)
			cur = next
		}
		out := make([]int, len(ch))
		for i, nd := range ch {
			out[i] = idx[nd]
		}
		chains = append(chains, out)
	}
	if chains == nil {
		chains = [][]int{} // no edges: nothing drawn beyond the frame
	}
	return pts, chains
}

// denseOp returns y = A x for a dense n×n A.
func denseOp(A []float64, n int) func(x, y []float64) {
	return func(x, y []float64) {
		for i := 0; i < n; i++ {
			row := A[i*n : i*n+n]
			t := 0.0
			for k, v := range row {
				t += v * x[k]
			}
			y[i] = t
		}
	}
}

// feBasisSparse is feBasis for models too large for the dense eigen
// solver, with the same mathematics on the sparse matrices: the FE
// model's lowest modes (the frequencies reported, and the modal basis) by
// subspace iteration, the Craig–Bampton basis (craigBamptonSparse) with
// K_ii factored by the skyline Cholesky. Memory is that of the matrices,
// the factor's profile and the basis (nf × its width); nothing of size
// nf × nf is formed.
func (fx *flexCompiler) feBasisSparse(bs *spec.Beam, d *feData, free []int, Ms, Ks *csr, freeFree bool, rigid []float64) ([]float64, ffr3Info, error) {
	nf := len(free)
	info := ffr3Info{source: bs.Kind, dofs: nf, basis: word(bs, "reduction", "modal")}
	s := fx.count(bs, "modes", 6)
	var bnd []int
	switch info.basis {
	case "modal":
	case "craig-bampton":
		// the interface first: its errors cost no eigen solution
		var err error
		if bnd, err = feInterface(bs, d, free, s); err != nil {
			return nil, info, err
		}
	default:
		return nil, info, fmt.Errorf("reduction must be modal or craig-bampton, got %q", info.basis)
	}
	var R []float64
	r := 0
	mu := 0.0
	if freeFree {
		R = make([]float64, nf*6)
		for a, i := range free {
			copy(R[a*6:a*6+6], rigid[i*6:i*6+6])
		}
		R, r = mOrthonormal(R, Ms.mul, nf, 6, nil, 0)
		info.rigid = r
		if info.basis == "craig-bampton" {
			if err := feInterfaceHolds(bs, R, r, bnd); err != nil {
				return nil, info, err
			}
		}
		// a shift that makes K + μM positive definite, far below the
		// elastic eigenvalues: 1e-8 of the median diagonal ratio
		var ratios []float64
		md, kd := Ms.diag(), Ks.diag()
		for i := range md {
			if md[i] > 0 && kd[i] > 0 {
				ratios = append(ratios, kd[i]/md[i])
			}
		}
		sort.Float64s(ratios)
		if len(ratios) > 0 {
			mu = 1e-8 * ratios[len(ratios)/2]
		}
	}
	// the FE model's lowest modes
	vals, W, err := subspaceModes(Ks, Ms, s, R, r, mu, 1e-8)
	if err != nil {
		if !freeFree {
			return nil, info, fmt.Errorf("%v (is the model supported by its clamps?)", err)
		}
		return nil, info, err
	}
	if freeFree {
		// the rigid modes must cost no strain energy
		col, kc := make([]float64, nf), make([]float64, nf)
		for c := 0; c < r; c++ {
			for i := 0; i < nf; i++ {
				col[i] = R[i*r+c]
			}
			Ks.mul(col, kc)
			if q := dotv(col, kc); q > 1e-6*vals[0] {
				return nil, info, fmt.Errorf("the model is not free: a rigid-body motion has a frequency of %.4g Hz, the lowest elastic mode %.4g Hz (clamp its support nodes with clamp=\"...\")", freq(q), freq(vals[0]))
			}
		}
	}
	for _, v := range vals {
		info.full = append(info.full, freq(v))
	}
	w := s
	if info.basis == "craig-bampton" {
		W, _, err = craigBamptonSparse(Ms, Ks, bnd, s)
		if err != nil {
			if pe, ok := err.(*pivotError); ok {
				return nil, info, fmt.Errorf("the interior stiffness of the Craig–Bampton reduction (the free dofs but those of the interface nodes %s) is singular: pivot %.3g at %s (does the interface, with the clamps, hold the body?)", strings.TrimSpace(attr(bs, "interface").Src), pe.pivot, d.dofLabel(free[pe.at]))
			}
			return nil, info, err
		}
		w = len(bnd) + s
	}
	V, _, reduced, err := finishBasis(W, Ms.mul, Ks.mulAcc, nf, w, R, r)
	info.reduced = reduced
	return V, info, err
}

// genEigenMassless is genEigen for a mass matrix with massless dofs (the
// rotations of a lumped mass matrix, whose rows of M are zero): they are
// condensed statically, exactly (K_c = K_aa − K_ab K_bb⁻¹ K_ba, φ_b =
// −K_bb⁻¹ K_ba φ_a), and the eigenvectors expanded to all n dofs. It
// returns the eigenvalues, the vectors (n × nc, row-major) and nc.
func genEigenMassless(M, K []float64, n int) ([]float64, []float64, int, error) {
	var a, bl []int
	for i := 0; i < n; i++ {
		zero := true
		for _, v := range M[i*n : i*n+n] {
			if v != 0 {
				zero = false
				break
			}
		}
		if zero {
			bl = append(bl, i)
		} else {
			a = append(a, i)
		}
	}
	if len(bl) == 0 {
		vals, vec, err := genEigen(M, K, n)
		return vals, vec, n, err
	}
	if len(a) == 0 {
		return nil, nil, 0, fmt.Errorf("mass matrix is zero")
	}
	na, nb := len(a), len(bl)
	sub := func(A []float64, r, c []int) *mat.Dense {
		out := mat.NewDense(len(r), len(c), nil)
		for x, i := range r {
			for y, j := range c {
				out.Set(x, y, A[i*n+j])
			}
		}
		return out
	}
	kbb := sub(K, bl, bl)
	var ch mat.Cholesky
	if !ch.Factorize(symDense(kbb.RawMatrix().Data, nb)) {
		return nil, nil, 0, fmt.Errorf("massless dofs (%d: rotations of a lumped mass matrix?) are not held by the stiffness, so they cannot be condensed", nb)
	}
	var X mat.Dense // K_bb⁻¹ K_ba
	if err := ch.SolveTo(&X, sub(K, bl, a)); err != nil {
		return nil, nil, 0, err
	}
	var KabX mat.Dense
	KabX.Mul(sub(K, a, bl), &X)
	kc := make([]float64, na*na)
	ma := make([]float64, na*na)
	for x, i := range a {
		for y, j := range a {
			kc[x*na+y] = K[i*n+j] - KabX.At(x, y)
			ma[x*na+y] = M[i*n+j]
		}
	}
	vals, va, err := genEigen(ma, kc, na)
	if err != nil {
		return nil, nil, 0, err
	}
	vec := make([]float64, n*na)
	for x, i := range a {
		copy(vec[i*na:i*na+na], va[x*na:x*na+na])
	}
	for y := range bl {
		for c := 0; c < na; c++ {
			s := 0.0
			for x := 0; x < na; x++ {
				s -= X.At(y, x) * va[x*na+c]
			}
			vec[bl[y]*na+c] = s
		}
	}
	return vals, vec, na, nil
}

// cholRelPivot returns the smallest Cholesky pivot of the symmetric
// matrix A (n×n, row-major; not changed) relative to its diagonal entry:
// 0 when A is not positive definite.
func cholRelPivot(A []float64, n int) float64 {
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(n, A)) {
		return 0
	}
	var U mat.TriDense
	ch.UTo(&U)
	low := math.Inf(1)
	for i := 0; i < n; i++ {
		u := U.At(i, i)
		low = math.Min(low, u*u/A[i*n+i])
	}
	return low
}
