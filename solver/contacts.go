package solver

import (
	"math"
	"mbfmu/spec"
	"sort"
	"strings"
)

// This file compiles <contact> pairs (spec.Contact) into contact force
// elements (contact_elem.go) and holds the model-level contact set, whose
// discrete state (per contact: open/closed, stick/slip, impact damping,
// stick friction force) is appended to State.core so that snapshots,
// retries, CopyFrom and MarshalBinary carry it. The stick–slip solver and
// the event-located stepping are in stickslip.go; the scheme is described
// in docs/contact.md.

// contactSet is the model's list of contact pairs.
type contactSet struct {
	elems   []*contactElem
	coulomb bool    // some contact has exact Coulomb friction
	kappa   float64 // drift gain of the stick constraint: v̇t = −κ vt
}

// csLen returns the length of the contact state in State.core.
func (cs *contactSet) csLen() int {
	if cs == nil {
		return 0
	}
	return len(cs.elems) * csStride
}

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

// contacts compiles contact pairs.
func (c *compiler) contacts() {
	if len(c.spec.Contacts) == 0 {
		return
	}
	set := &contactSet{kappa: 2 * c.m.settings.BaumgarteAlpha}
	for i := range c.spec.Contacts {
		k := &c.spec.Contacts[i]
		c.claim(k.Name, k.Pos, "contact")
		e := c.contactElem(k)
		if e == nil {
			continue
		}
		e.idx = len(set.elems)
		set.elems = append(set.elems, e)
		if e.fric == fricCoulomb {
			set.coulomb = true
		}
		c.addForce(k.Name, e)
	}
	if len(set.elems) > 0 {
		c.m.contacts = set
	}
}

func (c *compiler) contactElem(k *spec.Contact) *contactElem {
	attrs, ok := contactAttrs[k.Kind]
	if !ok {
		kinds := make([]string, 0, len(contactAttrs))
		for n := range contactAttrs {
			kinds = append(kinds, n)
		}
		sort.Strings(kinds)
		c.errf(k.Pos, "kind", "contact %q: unknown kind %q (%s)%s", k.Name, k.Kind, strings.Join(kinds, ", "), suggest(k.Kind, kinds))
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
			c.errf(k.Attr[a].Pos, a, "contact %q: a %s contact has no attribute %q", k.Name, k.Kind, a)
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
	e := &contactElem{name: k.Name}
	// geometry
	ref := func(a string) (point, bool) {
		if text(a) == "" {
			c.errf(k.Pos, a, "contact %q needs %s", k.Name, a)
			return point{}, false
		}
		return c.markerField(text(a), get(a).Pos, a)
	}
	var ok1, ok2, ok3 bool
	e.pa, ok1 = ref("i")
	e.pj, ok2 = ref("j")
	ok3 = true
	radius := func(a string, req bool, allowNeg bool) float64 {
		if !k.Attr[a].Given() {
			if req {
				c.errf(k.Pos, a, "contact %q needs %s", k.Name, a)
			}
			return 0
		}
		v := c.constExpr(get(a), 0)
		switch {
		case v < 0 && !allowNeg:
			c.errf(get(a).Pos, a, "contact %q: %s must not be negative, got %g m", k.Name, a, v)
		case v == 0 && req && a == "radius-j":
			c.errf(get(a).Pos, a, "contact %q: %s must be > 0 (or negative for a hole), got 0", k.Name, a)
		case v == 0 && req:
			c.errf(get(a).Pos, a, "contact %q: %s must be > 0, got 0 (use a point-* kind for a point)", k.Name, a)
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
			c.errf(get("radius-j").Pos, "radius-j", "contact %q: the hole (radius %g m) must be larger than circle i (radius %g m)", k.Name, -e.rb, e.ra)
		}
	}
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	e.bA, e.bB = e.pa.body, e.pj.body
	if e.geom == geomSegment && e.pj2.body != e.bB {
		c.errf(get("j-end").Pos, "j-end", "contact %q: the segment's ends %s and %s must be on the same body", k.Name, text("j"), text("j-end"))
		return nil
	}
	if e.bA == e.bB {
		what := "body"
		if e.bA < 0 {
			what = "ground"
		}
		c.errf(k.Pos, "j", "contact %q: i and j are both on the same %s", k.Name, what)
		return nil
	}
	if e.geom == geomSegment {
		a, b := c.pos0(e.pj), c.pos0(e.pj2)
		if math.Hypot(b[0]-a[0], b[1]-a[1]) == 0 {
			c.errf(get("j-end").Pos, "j-end", "contact %q: the segment has zero length (%s and %s coincide)", k.Name, text("j"), text("j-end"))
		}
	}
	e.d = rowDofs(point{body: e.bA}, point{body: e.bB})
	// normal force law
	law := text("law")
	switch law {
	case "", "spring-damper":
		e.lawKind = lawSpringDamper
	case "hertz":
		e.lawKind = lawHertz
	case "hunt-crossley":
		e.lawKind = lawHuntCrossley
	default:
		c.errf(get("law").Pos, "law", "contact %q: unknown law %q (spring-damper, hertz, hunt-crossley)%s", k.Name, law,
			suggest(law, []string{"spring-damper", "hertz", "hunt-crossley"}))
	}
	if !k.Attr["k"].Given() {
		c.errf(k.Pos, "k", "contact %q needs a stiffness k", k.Name)
	}
	e.k = c.runExpr(get("k"), 0)
	e.c = c.runExpr(get("c"), 0)
	c.checkNonNeg(e.k, get("k"))
	c.checkNonNeg(e.c, get("c"))
	defExp := 1.0
	if e.lawKind != lawSpringDamper {
		defExp = 1.5
	}
	e.exp = c.constExpr(get("exponent"), defExp)
	if e.exp < 1 {
		c.errf(get("exponent").Pos, "exponent", "contact %q: exponent must be ≥ 1 (bounded stiffness at first touch), got %g", k.Name, e.exp)
	}
	if k.Attr["dmax"].Given() {
		if e.lawKind != lawSpringDamper {
			c.errf(get("dmax").Pos, "dmax", "contact %q: dmax belongs to law=\"spring-damper\"", k.Name)
		}
		e.dmax = c.constExpr(get("dmax"), 0)
		if e.dmax <= 0 {
			c.errf(get("dmax").Pos, "dmax", "contact %q: dmax must be > 0, got %g", k.Name, e.dmax)
		}
	}
	if k.Attr["restitution"].Given() {
		if e.lawKind != lawHuntCrossley {
			c.errf(get("restitution").Pos, "restitution", "contact %q: restitution belongs to law=\"hunt-crossley\"", k.Name)
		}
		if k.Attr["c"].Given() {
			c.errf(get("restitution").Pos, "restitution", "contact %q: give either c (hysteresis damping α) or restitution, not both", k.Name)
		}
		e.restitution = c.constExpr(get("restitution"), 1)
		if !(e.restitution > 0 && e.restitution <= 1) {
			c.errf(get("restitution").Pos, "restitution", "contact %q: restitution must be in (0, 1], got %g", k.Name, e.restitution)
			e.restitution = 1
		}
	}
	// friction
	fr := text("friction")
	hasMu := k.Attr["mu-static"].Given() || k.Attr["mu-dynamic"].Given()
	switch fr {
	case "":
		if hasMu {
			e.fric = fricCoulomb
		}
	case "none":
		e.fric = fricNone
	case "coulomb":
		e.fric = fricCoulomb
	case "regularized", "regularised":
		e.fric = fricRegularized
	default:
		c.errf(get("friction").Pos, "friction", "contact %q: unknown friction %q (none, coulomb, regularized)%s", k.Name, fr,
			suggest(fr, []string{"none", "coulomb", "regularized"}))
	}
	if e.fric != fricNone {
		if !hasMu {
			c.errf(k.Pos, "mu-static", "contact %q: friction=%q needs mu-static (and optionally mu-dynamic)", k.Name, fr)
		}
		ms := get("mu-static")
		if !ms.Given() {
			ms = get("mu-dynamic")
		}
		md := get("mu-dynamic")
		if !md.Given() {
			md = ms
		}
		e.mus = c.runExpr(ms, 0)
		e.mud = c.runExpr(md, 0)
		c.checkNonNeg(e.mus, ms)
		c.checkNonNeg(e.mud, md)
		if e.mus.p == nil && e.mud.p == nil && e.mud.c > e.mus.c {
			c.errf(md.Pos, "mu-dynamic", "contact %q: mu-dynamic %g exceeds mu-static %g", k.Name, e.mud.c, e.mus.c)
		}
	}
	if e.fric == fricRegularized {
		e.vs = c.constExpr(get("v-static"), 1e-3)
		e.vd = c.constExpr(get("v-dynamic"), 10*e.vs)
		if e.vs <= 0 {
			c.errf(get("v-static").Pos, "v-static", "contact %q: v-static must be > 0", k.Name)
			e.vs = 1e-3
		}
		if e.vd <= 0 {
			c.errf(get("v-dynamic").Pos, "v-dynamic", "contact %q: v-dynamic must be > 0", k.Name)
		}
	} else {
		for _, a := range []string{"v-static", "v-dynamic"} {
			if k.Attr[a].Given() {
				c.errf(get(a).Pos, a, "contact %q: %s belongs to friction=\"regularized\"", k.Name, a)
			}
		}
	}
	return e
}
