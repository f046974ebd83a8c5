package contacts

import (
	"math"
	"mbfmu/solver/mech"
	"mbfmu/spec"
	"sort"
	"strings"
)

// This file compiles <contact> pairs (spec.Contact) into contact force
// elements (elem.go). Their discrete state (per contact: open/closed,
// stick/slip, impact damping, stick friction force) is kept by the engine
// in its State, Stride values per contact; the stick–slip solver and the
// event-located stepping are the engine's (solver/stickslip.go); the scheme
// is described in docs/contact.md.

// contactAttrs lists the attributes each contact kind accepts.
var contactAttrs = map[string][]string{
	"circle-line":    {"i", "radius", "j"},
	"point-line":     {"i", "j"},
	"circle-segment": {"i", "radius", "j", "j-end", "radius-j"},
	"point-segment":  {"i", "j", "j-end", "radius-j"},
	"circle-circle":  {"i", "radius-i", "j", "radius-j"},
	"point-circle":   {"i", "j", "radius-j"},
}

var contactCommon = []string{"law", "k", "exponent", "c", "dmax", "restitution",
	"friction", "mu-static", "mu-dynamic", "v-static", "v-dynamic"}

// Compile compiles the contact pairs of a planar model into force
// elements, each with a discrete-state group (Elem.Idx).
func Compile(c mech.Builder, ms *spec.Model) {
	for i := range ms.Contacts {
		k := &ms.Contacts[i]
		c.Claim(k.Name, k.Pos, "contact")
		e := newElem(c, k)
		if e == nil {
			continue
		}
		e.Idx = c.DiscreteSlot()
		c.AddForce(k.Name, e)
	}
}

// newElem compiles one planar contact pair (nil after an error).
func newElem(c mech.Builder, k *spec.Contact) *Elem {
	attrs, ok := contactAttrs[k.Kind]
	if !ok {
		kinds := make([]string, 0, len(contactAttrs))
		for n := range contactAttrs {
			kinds = append(kinds, n)
		}
		sort.Strings(kinds)
		c.Errorf(k.Pos, "kind", "contact %q: unknown kind %q (%s)%s", k.Name, k.Kind, strings.Join(kinds, ", "), mech.Suggest(k.Kind, kinds))
		return nil
	}
	allowed := map[string]bool{}
	for _, a := range append(attrs, contactCommon...) {
		allowed[a] = true
	}
	bad := false
	keys := make([]string, 0, len(k.Attr))
	for a := range k.Attr {
		keys = append(keys, a)
	}
	sort.Strings(keys)
	for _, a := range keys {
		if !allowed[a] {
			c.Errorf(k.Attr[a].Pos, a, "contact %q: a %s contact has no attribute %q", k.Name, k.Kind, a)
			bad = true
		}
	}
	if bad {
		return nil
	}
	get := func(a string) spec.Expr {
		x := k.Attr[a]
		if x.Pos == (spec.Pos{}) {
			x.Pos = k.Pos
		}
		if x.Field == "" {
			x.Field = a
		}
		return x
	}
	text := func(a string) string { return strings.TrimSpace(k.Attr[a].Src) }
	e := &Elem{name: k.Name}
	// geometry
	ref := func(a string) (mech.Point, bool) {
		if text(a) == "" {
			c.Errorf(k.Pos, a, "contact %q needs %s", k.Name, a)
			return mech.Point{}, false
		}
		m, ok := c.Marker(text(a), get(a).Pos, a)
		return m.P, ok
	}
	var ok1, ok2, ok3 bool
	e.pa, ok1 = ref("i")
	e.pj, ok2 = ref("j")
	ok3 = true
	radius := func(a string, req bool, allowNeg bool) float64 {
		if !k.Attr[a].Given() {
			if req {
				c.Errorf(k.Pos, a, "contact %q needs %s", k.Name, a)
			}
			return 0
		}
		v := c.Const(get(a), 0)
		switch {
		case v < 0 && !allowNeg:
			c.Errorf(get(a).Pos, a, "contact %q: %s must not be negative, got %g m", k.Name, a, v)
		case v == 0 && req && a == "radius-j":
			c.Errorf(get(a).Pos, a, "contact %q: %s must be > 0 (or negative for a hole), got 0", k.Name, a)
		case v == 0 && req:
			c.Errorf(get(a).Pos, a, "contact %q: %s must be > 0, got 0 (use a point-* kind for a point)", k.Name, a)
		}
		return v
	}
	switch k.Kind {
	case "circle-line", "point-line":
		e.geom = geomLine
		if k.Kind == "circle-line" {
			e.ra = radius("radius", true, false)
		}
	case "circle-segment", "point-segment":
		e.geom = geomSegment
		if k.Kind == "circle-segment" {
			e.ra = radius("radius", true, false)
		}
		e.rb = radius("radius-j", false, false)
		e.pj2, ok3 = ref("j-end")
	case "circle-circle", "point-circle":
		e.geom = geomCircle
		if k.Kind == "circle-circle" {
			e.ra = radius("radius-i", true, false)
		}
		e.rb = radius("radius-j", true, true)
		if e.rb < 0 && -e.rb <= e.ra {
			c.Errorf(get("radius-j").Pos, "radius-j", "contact %q: the hole (radius %g m) must be larger than circle i (radius %g m)", k.Name, -e.rb, e.ra)
		}
	}
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	e.bA, e.bB = e.pa.Body, e.pj.Body
	if e.geom == geomSegment && e.pj2.Body != e.bB {
		c.Errorf(get("j-end").Pos, "j-end", "contact %q: the segment's ends %s and %s must be on the same body", k.Name, text("j"), text("j-end"))
		return nil
	}
	if e.bA == e.bB {
		what := "body"
		if e.bA < 0 {
			what = "ground"
		}
		c.Errorf(k.Pos, "j", "contact %q: i and j are both on the same %s", k.Name, what)
		return nil
	}
	if e.geom == geomSegment {
		a, b := pos0(c, e.pj), pos0(c, e.pj2)
		if math.Hypot(b[0]-a[0], b[1]-a[1]) == 0 {
			c.Errorf(get("j-end").Pos, "j-end", "contact %q: the segment has zero length (%s and %s coincide)", k.Name, text("j"), text("j-end"))
		}
	}
	for k := 0; k < 3; k++ {
		e.d[k], e.d[3+k] = -1, -1
		if e.bA >= 0 {
			e.d[k] = 3*e.bA + k
		}
		if e.bB >= 0 {
			e.d[3+k] = 3*e.bB + k
		}
	}
	// normal force law
	law := text("law")
	switch law {
	case "", "spring-damper":
		e.LawKind = LawSpringDamper
	case "hertz":
		e.LawKind = LawHertz
	case "hunt-crossley":
		e.LawKind = LawHuntCrossley
	default:
		c.Errorf(get("law").Pos, "law", "contact %q: unknown law %q (spring-damper, hertz, hunt-crossley)%s", k.Name, law,
			mech.Suggest(law, []string{"spring-damper", "hertz", "hunt-crossley"}))
	}
	if !k.Attr["k"].Given() {
		c.Errorf(k.Pos, "k", "contact %q needs a stiffness k", k.Name)
	}
	e.K = c.Run(get("k"), 0)
	e.c = c.Run(get("c"), 0)
	nonNeg(c, e.K, get("k"))
	nonNeg(c, e.c, get("c"))
	defExp := 1.0
	if e.LawKind != LawSpringDamper {
		defExp = 1.5
	}
	e.exp = c.Const(get("exponent"), defExp)
	if e.exp < 1 {
		c.Errorf(get("exponent").Pos, "exponent", "contact %q: exponent must be ≥ 1 (bounded stiffness at first touch), got %g", k.Name, e.exp)
	}
	if k.Attr["dmax"].Given() {
		if e.LawKind != LawSpringDamper {
			c.Errorf(get("dmax").Pos, "dmax", "contact %q: dmax belongs to law=\"spring-damper\"", k.Name)
		}
		e.dmax = c.Const(get("dmax"), 0)
		if e.dmax <= 0 {
			c.Errorf(get("dmax").Pos, "dmax", "contact %q: dmax must be > 0, got %g", k.Name, e.dmax)
		}
	}
	if k.Attr["restitution"].Given() {
		if e.LawKind != LawHuntCrossley {
			c.Errorf(get("restitution").Pos, "restitution", "contact %q: restitution belongs to law=\"hunt-crossley\"", k.Name)
		}
		if k.Attr["c"].Given() {
			c.Errorf(get("restitution").Pos, "restitution", "contact %q: give either c (hysteresis damping α) or restitution, not both", k.Name)
		}
		e.Restitution = c.Const(get("restitution"), 1)
		if !(e.Restitution > 0 && e.Restitution <= 1) {
			c.Errorf(get("restitution").Pos, "restitution", "contact %q: restitution must be in (0, 1], got %g", k.Name, e.Restitution)
			e.Restitution = 1
		}
	}
	// friction
	fr := text("friction")
	hasMu := k.Attr["mu-static"].Given() || k.Attr["mu-dynamic"].Given()
	switch fr {
	case "":
		if hasMu {
			e.Fric = FricCoulomb
		}
	case "none":
		e.Fric = FricNone
	case "coulomb":
		e.Fric = FricCoulomb
	case "regularized", "regularised":
		e.Fric = FricRegularized
	default:
		c.Errorf(get("friction").Pos, "friction", "contact %q: unknown friction %q (none, coulomb, regularized)%s", k.Name, fr,
			mech.Suggest(fr, []string{"none", "coulomb", "regularized"}))
	}
	if e.Fric != FricNone {
		if !hasMu {
			c.Errorf(k.Pos, "mu-static", "contact %q: friction=%q needs mu-static (and optionally mu-dynamic)", k.Name, fr)
		}
		ms := get("mu-static")
		if !ms.Given() {
			ms = get("mu-dynamic")
		}
		md := get("mu-dynamic")
		if !md.Given() {
			md = ms
		}
		e.MuS = c.Run(ms, 0)
		e.MuD = c.Run(md, 0)
		nonNeg(c, e.MuS, ms)
		nonNeg(c, e.MuD, md)
		if e.MuS.P == nil && e.MuD.P == nil && e.MuD.C > e.MuS.C {
			c.Errorf(md.Pos, "mu-dynamic", "contact %q: mu-dynamic %g exceeds mu-static %g", k.Name, e.MuD.C, e.MuS.C)
		}
	}
	if e.Fric == FricRegularized {
		e.vs = c.Const(get("v-static"), 1e-3)
		e.vd = c.Const(get("v-dynamic"), 10*e.vs)
		if e.vs <= 0 {
			c.Errorf(get("v-static").Pos, "v-static", "contact %q: v-static must be > 0", k.Name)
			e.vs = 1e-3
		}
		if e.vd <= 0 {
			c.Errorf(get("v-dynamic").Pos, "v-dynamic", "contact %q: v-dynamic must be > 0", k.Name)
		}
	} else {
		for _, a := range []string{"v-static", "v-dynamic"} {
			if k.Attr[a].Given() {
				c.Errorf(get(a).Pos, a, "contact %q: %s belongs to friction=\"regularized\"", k.Name, a)
			}
		}
	}
	return e
}

// pos0 is the position of p at the approximate initial positions.
func pos0(c mech.Builder, p mech.Point) [2]float64 {
	var k mech.KinPoint
	p.Eval(c.Q0(), nil, &k)
	return k.R
}

// nonNeg reports a constant parameter that must not be negative.
func nonNeg(c mech.Builder, p mech.Param, e spec.Expr) {
	if p.P == nil && p.C < 0 {
		c.Errorf(e.Pos, e.Field, "must not be negative, got %g", p.C)
	}
}
