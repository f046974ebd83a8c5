package xml

import (
	"fmt"
	"math"
	"mbfmu/spec"
	"sort"
	"strconv"
	"strings"
)

// This file holds the rules of spatial elements: orientations, inertia
// tensors, solids, drivers and the joints springs act on. Values written
// as plain numbers are checked here; the engine checks the same rules for
// values that are expressions of parameters.

func (p *parser) checkModel(c *elemCtx) {
	if m := c.obj.(*spec.Model); c.ok["dimension"] && m.Dimension != 2 && m.Dimension != 3 {
		p.errs.Add(c.attrPos(p, "dimension"), "dimension", "must be 2 (planar) or 3 (spatial), got %d", m.Dimension)
	}
}

// Tolerances of the parse-time checks: a quaternion's norm may differ from
// 1 by unitTol; two axis directions must be more than parallelTol rad
// apart.
const (
	unitTol     = 1e-6
	parallelTol = 1e-6
	// triangleTol is the relative slack of the triangle inequalities, for
	// the rounding of bodies on the boundary (a flat plate: Jxx + Jyy = Jzz).
	triangleTol = 1e-9
)

// numValue returns the value of an expression that is a plain number.
func numValue(e spec.Expr) (float64, bool) {
	if !e.Given() || numberPrefix(e.Src) != len(e.Src) {
		return 0, false
	}
	v, err := strconv.ParseFloat(e.Src, 64)
	return v, err == nil
}

// numValues returns the values of expressions that are all plain numbers.
func numValues(es ...spec.Expr) ([]float64, bool) {
	v := make([]float64, len(es))
	for i, e := range es {
		x, ok := numValue(e)
		if !ok {
			return nil, false
		}
		v[i] = x
	}
	return v, true
}

func norm3(v []float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }

// formatValues writes numbers for messages: "0.1, 0, 0.2".
func formatValues(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', 6, 64)
	}
	return strings.Join(s, ", ")
}

// checkOrient checks the orientation forms written with prefix ("" or
// "inertia-") on the element: at most one form, each complete, and, for
// plain numbers, a unit quaternion, non-zero axes and two axis directions
// that are not parallel. It sets o.Pos to the first orientation
// attribute.
func (p *parser) checkOrient(c *elemCtx, prefix string, o *spec.Orientation) {
	n := func(s string) string { return prefix + s }
	forms := [][]string{
		{n("quaternion")},
		{n("axis"), n("angle")},
		{n("angles"), n("sequence")},
		{n("x-axis"), n("y-axis"), n("z-axis")},
	}
	var used []int      // forms in the order of their first attribute
	var firsts []string // that attribute
	for _, a := range c.n.Attrs {
		for f, names := range forms {
			if contains(names, a.Name) && !containsInt(used, f) {
				used = append(used, f)
				firsts = append(firsts, a.Name)
			}
		}
	}
	if len(used) == 0 {
		return
	}
	o.Pos = c.attrPos(p, firsts[0])
	if len(used) > 1 {
		p.errs.Add(c.attrPos(p, firsts[1]), firsts[1], "a second orientation (the first is %s); give one of %s", firsts[0], describeForms(prefix))
		return
	}
	switch used[0] {
	case 0:
		if !c.ok[n("quaternion")] {
			return
		}
		q := o.Quaternion
		if v, ok := numValues(q[:]...); ok {
			if r := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3]); !(math.Abs(r-1) <= unitTol) {
				p.errs.Add(c.attrPos(p, n("quaternion")), n("quaternion"),
					"must be a unit quaternion (norm 1 within %g); its norm is %.10g", unitTol, r)
			}
		}
	case 1:
		switch hasAxis, hasAngle := c.has(n("axis")), c.has(n("angle")); {
		case !hasAxis && prefix == "":
			p.errs.Add(c.attrPos(p, "angle"), "angle",
				`a single angle is planar; in a spatial model angle is the angle of a rotation about axis="x, y, z" (give axis too), or give quaternion, angles with sequence, or two of x-axis, y-axis, z-axis`)
		case !hasAxis:
			p.errs.Add(c.pos, n("axis"), "required with %s (the axis the rotation is about)", n("angle"))
		case !hasAngle:
			p.errs.Add(c.pos, n("angle"), "required with %s (the angle of the rotation about it)", n("axis"))
		case c.ok[n("axis")]:
			if v, ok := numValues(o.Axis[:]...); ok && norm3(v) == 0 {
				p.errs.Add(c.attrPos(p, n("axis")), n("axis"), "must not be zero (it is the direction of the rotation axis)")
			}
		}
	case 2:
		switch {
		case !c.has(n("sequence")):
			p.errs.Add(c.pos, n("sequence"), "required with %s: one of %s", n("angles"), strings.Join(rotationSequences(), ", "))
		case !c.has(n("angles")):
			p.errs.Add(c.pos, n("angles"), "required with %s (the three angles)", n("sequence"))
		}
	case 3:
		var given []string
		for _, a := range c.n.Attrs {
			if contains(forms[3], a.Name) {
				given = append(given, a.Name)
			}
		}
		switch {
		case len(given) == 1:
			p.errs.Add(c.attrPos(p, given[0]), given[0], "needs a second axis direction: give exactly two of %s, %s, %s",
				n("x-axis"), n("y-axis"), n("z-axis"))
			return
		case len(given) == 3:
			p.errs.Add(c.attrPos(p, given[2]), given[2], "give exactly two of %s, %s, %s (the third follows from them)",
				n("x-axis"), n("y-axis"), n("z-axis"))
			return
		}
		axis := func(name string) spec.Vec {
			switch strings.TrimPrefix(name, prefix) {
			case "x-axis":
				return o.XAxis
			case "y-axis":
				return o.YAxis
			}
			return o.ZAxis
		}
		var dirs [][]float64
		for _, name := range given {
			if !c.ok[name] {
				return
			}
			a := axis(name)
			v, ok := numValues(a[:]...)
			if !ok {
				return
			}
			if norm3(v) == 0 {
				p.errs.Add(c.attrPos(p, name), name, "must not be zero (it is an axis direction)")
				return
			}
			dirs = append(dirs, v)
		}
		a, b := dirs[0], dirs[1]
		cross := []float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
		dot := a[0]*b[0] + a[1]*b[1] + a[2]*b[2]
		if angle := math.Atan2(norm3(cross), math.Abs(dot)); angle <= parallelTol {
			p.errs.Add(c.attrPos(p, given[1]), given[1], "is parallel to %s (%s and %s); two axis directions must differ by more than %g rad",
				given[0], formatValues(a), formatValues(b), parallelTol)
		}
	}
}

func (p *parser) checkMarker3(c *elemCtx) {
	p.checkOrient(c, "", &c.obj.(*spec.Marker).Orient)
}

func (p *parser) checkBody3(c *elemCtx) {
	p.checkMarkers(c)
	b := c.obj.(*spec.Body)
	p.checkOrient(c, "", &b.Orient)
	p.checkOrient(c, "inertia-", &b.InertiaOrient)
	p.checkInertia(c, b)
}

// checkInertia checks an inertia written as plain numbers: a positive
// definite tensor whose principal moments satisfy the triangle
// inequalities (J1 + J2 ≥ J3 for every order: ∫(y² + z²) dm +
// ∫(x² + z²) dm ≥ ∫(x² + y²) dm).
func (p *parser) checkInertia(c *elemCtx, b *spec.Body) {
	if !c.ok["inertia"] {
		return
	}
	pos := c.attrPos(p, "inertia")
	J := b.InertiaTensor
	products := J[3].Given()
	if products && b.InertiaOrient.Given() {
		axes := "the principal axes"
		for _, a := range c.n.Attrs {
			if strings.HasPrefix(a.Name, "inertia-") {
				axes = a.Name
				break
			}
		}
		p.errs.Add(pos, "inertia", "with %s give the three principal moments Jxx, Jyy, Jzz, not products of inertia", axes)
		return
	}
	n := 3
	if products {
		n = 6
	}
	v, ok := numValues(J[:n]...)
	if !ok {
		return
	}
	moments := v[:3]
	if products {
		var a [3][3]float64
		a[0][0], a[1][1], a[2][2] = v[0], v[1], v[2]
		a[0][1], a[1][0] = v[3], v[3]
		a[0][2], a[2][0] = v[4], v[4]
		a[1][2], a[2][1] = v[5], v[5]
		ev := SymEig3(a)
		moments = ev[:]
		if !(ev[0] > 0) {
			p.errs.Add(pos, "inertia", "the tensor is not positive definite (eigenvalues %s kg*m^2)", formatValues(moments))
			return
		}
		// Eigenvalues come sorted.
		if ev[0]+ev[1] < ev[2]*(1-triangleTol) {
			p.errs.Add(pos, "inertia", "the principal moments (eigenvalues %s kg*m^2) violate the triangle inequality: %s + %s < %s; no rigid body has them",
				formatValues(moments), formatValues(ev[:1]), formatValues(ev[1:2]), formatValues(ev[2:]))
		}
		return
	}
	if !(v[0] > 0 && v[1] > 0 && v[2] > 0) {
		p.errs.Add(pos, "inertia", "Jxx, Jyy, Jzz must be > 0 (got %s kg*m^2)", formatValues(moments))
		return
	}
	names := [3]string{"Jxx", "Jyy", "Jzz"}
	for k := 0; k < 3; k++ {
		i, j := (k+1)%3, (k+2)%3
		if i > j {
			i, j = j, i
		}
		if v[i]+v[j] < v[k]*(1-triangleTol) {
			p.errs.Add(pos, "inertia", "violates the triangle inequality %s + %s ≥ %s (%s + %s < %s kg*m^2); no rigid body has these moments",
				names[i], names[j], names[k], formatValues(v[i:i+1]), formatValues(v[j:j+1]), formatValues(v[k:k+1]))
			return
		}
	}
}

// SymEig3 returns the eigenvalues of the symmetric matrix a in increasing
// order (cyclic Jacobi rotations).
func SymEig3(a [3][3]float64) [3]float64 {
	for sweep := 0; sweep < 50; sweep++ {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		diag := a[0][0]*a[0][0] + a[1][1]*a[1][1] + a[2][2]*a[2][2]
		if off <= 1e-30*diag || off == 0 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			i, j := pq[0], pq[1]
			if a[i][j] == 0 {
				continue
			}
			// Rotation angle that zeroes a[i][j] (Golub & Van Loan, 8.5.2).
			theta := (a[j][j] - a[i][i]) / (2 * a[i][j])
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			cs := 1 / math.Sqrt(t*t+1)
			sn := t * cs
			for k := 0; k < 3; k++ { // columns i, j
				aki, akj := a[k][i], a[k][j]
				a[k][i], a[k][j] = cs*aki-sn*akj, sn*aki+cs*akj
			}
			for k := 0; k < 3; k++ { // rows i, j
				aik, ajk := a[i][k], a[j][k]
				a[i][k], a[j][k] = cs*aik-sn*ajk, sn*aik+cs*ajk
			}
		}
	}
	ev := [3]float64{a[0][0], a[1][1], a[2][2]}
	sort.Float64s(ev[:])
	return ev
}

// checkSolid checks a drawing solid: its colour, its box edges and its
// orientation.
func (p *parser) checkSolid(c *elemCtx) {
	s := c.obj.(*spec.Solid)
	if s.Kind != "sphere" { // a sphere has no orientation attributes
		p.checkOrient(c, "", &s.Orient)
	}
	if c.ok["size"] {
		if v, ok := numValues(s.Size[:]...); ok && !(v[0] > 0 && v[1] > 0 && v[2] > 0) {
			p.errs.Add(c.attrPos(p, "size"), "size", "every edge length must be > 0 (got %s m)", formatValues(v))
		}
	}
	if c.ok["color"] && !isColor(s.Color) {
		p.errs.Add(c.attrPos(p, "color"), "color", "%q is not a colour \"#rrggbb\" (such as \"#3070c0\")", s.Color)
	}
}

// isColor reports whether s is "#rrggbb".
func isColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for i := 1; i < 7; i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

func (p *parser) checkBushing(c *elemCtx) {
	if !c.has("k") && !c.has("c") {
		p.errs.Add(c.pos, "k", "a <bushing> needs k, c or both (six stiffnesses, six dampings)")
	}
}

func (p *parser) checkRSpring3(c *elemCtx) {
	if c.ok["joint"] {
		p.revRefs = append(p.revRefs, pendingRef{pos: c.attrPos(p, "joint"), field: "joint", ref: c.obj.(*spec.Force).Joint})
	}
}

// resolveRevolute checks that a spatial rspring names a revolute joint.
func (p *parser) resolveRevolute(r pendingRef) {
	e := p.elems[r.ref]
	switch {
	case e == nil:
		p.errs.Add(r.pos, r.field, "unknown joint %q%s", r.ref, DidYouMean(r.ref, p.names("joint")))
	case e.family != "joint":
		p.errs.Add(r.pos, r.field, "%q is a <%s>, not a joint", r.ref, e.tag)
	case e.tag != "revolute":
		p.errs.Add(r.pos, r.field, "%q is a <%s> joint; a spatial <rspring> acts about the axis of a revolute joint", r.ref, e.tag)
	}
}

func (p *parser) checkDriver3(c *elemCtx) {
	d := c.obj.(*spec.Driver)
	hasJ, hasB := c.has("joint"), c.has("body")
	switch {
	case hasJ && hasB:
		p.errs.Add(c.attrPos(p, "body"), "body", "give either joint or body (with coord), not both")
		return
	case !hasJ && !hasB:
		p.errs.Add(c.pos, "joint", `missing: give joint="..." (a revolute, prismatic or cylindrical joint) or body="..." with coord="x|y|z"`)
		return
	case hasB && !c.has("coord"):
		p.errs.Add(c.pos, "coord", "required attribute of <driver> is missing (with body: x, y or z)")
		return
	}
	if c.ok["coord"] {
		coordPos := c.attrPos(p, "coord")
		switch {
		case hasB && d.Coord == "angle":
			p.errs.Add(coordPos, "coord", `"angle" drives the orientation of a planar body; in a spatial model drive the angle of a revolute or cylindrical joint (<driver joint="..." coord="angle">)`)
			return
		case hasB && d.Coord == "disp":
			p.errs.Add(coordPos, "coord", `"disp" is a joint coordinate; with body give x, y or z`)
			return
		case hasJ && d.Coord != "angle" && d.Coord != "disp":
			p.errs.Add(coordPos, "coord", `with joint, coord is "angle" or "disp" (x, y and z are for body drivers)`)
			return
		}
	}
	if (hasJ && !c.ok["joint"]) || (hasB && (!c.ok["body"] || !c.ok["coord"])) || (c.has("coord") && !c.ok["coord"]) {
		return
	}
	pd := pendingDriver{joint: d.Joint, body: d.Body, coord: d.Coord, elemPos: c.pos, coordPos: c.attrPos(p, "coord")}
	if hasJ {
		pd.pos = c.attrPos(p, "joint")
	} else {
		pd.pos = c.attrPos(p, "body")
	}
	if c.ok["value"] {
		pd.value, _ = c.n.Get("value")
		pd.valuePos = c.attrPos(p, "value")
	}
	p.drivers = append(p.drivers, pd)
}

// jointDriverDim returns the dimension of a spatial joint driver's value,
// or reports why the joint cannot be driven that way.
func (p *parser) jointDriverDim(d pendingDriver, e *entry) (Dim, bool) {
	kind := e.tag
	if kind == "translational" {
		kind = "prismatic"
	}
	switch {
	case kind == "revolute" && d.coord == "disp":
		p.errs.Add(d.coordPos, "coord", "the revolute joint %q has an angle only; coord=\"disp\" is for prismatic and cylindrical joints", d.joint)
	case kind == "prismatic" && d.coord == "angle":
		p.errs.Add(d.coordPos, "coord", "the <%s> joint %q has a displacement only; coord=\"angle\" is for revolute and cylindrical joints", e.tag, d.joint)
	case kind == "cylindrical" && d.coord == "":
		p.errs.Add(d.elemPos, "coord", "required for the cylindrical joint %q: \"angle\" (the rotation about its axis) or \"disp\" (the slide along it)", d.joint)
	case kind == "revolute", kind == "cylindrical" && d.coord == "angle":
		return Angle, true
	case kind == "prismatic", kind == "cylindrical":
		return Length, true
	default:
		p.errs.Add(d.pos, "joint", "%q is a <%s> joint; a driver needs a revolute, prismatic or cylindrical joint", d.joint, e.tag)
	}
	return 0, false
}

// describeForms names the orientation forms written with prefix:
// "quaternion, axis with angle, ...".
func describeForms(prefix string) string {
	return fmt.Sprintf("%squaternion, %saxis with %sangle, %sangles with %ssequence, or two of %sx-axis, %sy-axis, %sz-axis",
		prefix, prefix, prefix, prefix, prefix, prefix, prefix, prefix)
}
