package contacts

import (
	"math"
	"sort"
	"strings"

	"mbfmu/contact"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Spatial contacts: a sphere on the body of marker i (centre at the
// marker's origin) against the xy plane of marker j (its z axis the
// outward normal), or against a sphere about marker j's origin. The normal
// force is one of the planar contacts' laws, clamped at zero; friction is
// regularised Coulomb along the slip velocity (Stribeck between the static
// and the dynamic coefficient), LuGre bristles, or exact Coulomb friction
// in the tangent plane (two paired rows, sphereRow, whose stick and slip
// the engine decides at events: solver/stickslip.go). Their tangent is
// taken by finite differences.

// sphereAttrs lists the attributes of each spatial contact kind.
var sphereAttrs = map[string][]string{
	"sphere-plane":  {"i", "radius", "j"},
	"sphere-sphere": {"i", "radius-i", "j", "radius-j"},
}

// CompileSpatial compiles the contact pairs of a spatial model.
func CompileSpatial(c mech.Builder, ms *spec.Model) {
	for i := range ms.Contacts {
		k := &ms.Contacts[i]
		c.Claim(k.Name, k.Pos, "contact")
		if e := newSphere(c, k); e != nil {
			c.AddForce(k.Name, e)
		}
	}
}

// Stiffness returns the normal law's stiffness and exponent and the two
// bodies (mech.Stiff).
func (e *sphere) Stiffness(x *mech.Ctx) (string, float64, float64, int, int) {
	return e.name, e.k.Get(x), e.law.N, e.fi.Body, e.fj.Body
}

// sphere is a spatial contact element.
type sphere struct {
	name   string
	plane  bool // sphere–plane; else sphere–sphere
	fi, fj mech.Frame
	ri, rj float64
	law    contact.NormalLaw // K, C filled from k, c at each evaluation
	k, c   mech.Param
	fric   bool
	mus    mech.Param
	mud    mech.Param
	vs, vd float64
	d      [12]int
	// LuGre friction: bristle stiffness and damping, and the slots of
	// the contact's state (time, bristle deflection z in the world
	// frame); slot < 0 without
	lugre  bool
	s0, s1 mech.Param
	slot   int
	// exact Coulomb friction: two paired rows along the tangent plane,
	// their discrete-state groups grp (sphereRow)
	coulomb bool
	grp     [2]int
	rows    []mech.Coulomb
	mob     float64 // tangential mobility at the contact, Σ 1/m + r²/J_min (1/kg)
}

func newSphere(c mech.Builder, k *spec.Contact) *sphere {
	attrs, ok := sphereAttrs[k.Kind]
	if !ok {
		kinds := []string{"sphere-plane", "sphere-sphere"}
		c.Errorf(k.Pos, "kind", "contact %q: unknown spatial kind %q (%s)%s", k.Name, k.Kind, strings.Join(kinds, ", "), mech.Suggest(k.Kind, kinds))
		return nil
	}
	allowed := map[string]bool{}
	for _, a := range append(append(attrs, contactCommon...), "bristle-stiffness", "bristle-damping") {
		allowed[a] = true
	}
	keys := make([]string, 0, len(k.Attr))
	for a := range k.Attr {
		keys = append(keys, a)
	}
	sort.Strings(keys)
	for _, a := range keys {
		if !allowed[a] {
			c.Errorf(k.Attr[a].Pos, a, "contact %q: a %s contact has no attribute %q", k.Name, k.Kind, a)
			return nil
		}
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
	ref := func(a string) (mech.Frame, bool) {
		if text(a) == "" {
			c.Errorf(k.Pos, a, "contact %q needs %s", k.Name, a)
			return mech.Frame{}, false
		}
		m, ok := c.Marker(text(a), get(a).Pos, a)
		return m.F, ok
	}
	radius := func(a string) float64 {
		if !k.Attr[a].Given() {
			c.Errorf(k.Pos, a, "contact %q needs %s", k.Name, a)
			return 0
		}
		v := c.Const(get(a), 0)
		if !(v > 0) {
			c.Errorf(get(a).Pos, a, "contact %q: %s must be > 0, got %g m", k.Name, a, v)
		}
		return v
	}
	e := &sphere{name: k.Name, plane: k.Kind == "sphere-plane"}
	var ok1, ok2 bool
	e.fi, ok1 = ref("i")
	e.fj, ok2 = ref("j")
	if e.plane {
		e.ri = radius("radius")
	} else {
		e.ri, e.rj = radius("radius-i"), radius("radius-j")
	}
	if !ok1 || !ok2 {
		return nil
	}
	if e.fi.Body == e.fj.Body {
		c.Errorf(k.Pos, "j", "contact %q: i and j are on the same body", k.Name)
		return nil
	}
	e.d = [12]int{}
	for a := 0; a < 6; a++ {
		e.d[a], e.d[6+a] = -1, -1
		if e.fi.Body >= 0 {
			e.d[a] = e.fi.V + a
		}
		if e.fj.Body >= 0 {
			e.d[6+a] = e.fj.V + a
		}
	}
	// normal law
	if !k.Attr["k"].Given() {
		c.Errorf(k.Pos, "k", "contact %q needs a stiffness k", k.Name)
	}
	e.k, e.c = c.Run(get("k"), 0), c.Run(get("c"), 0)
	nonNeg(c, e.k, get("k"))
	nonNeg(c, e.c, get("c"))
	switch law := text("law"); law {
	case "", "spring-damper":
		e.law.Kind = contact.LawLinear
		e.law.N = c.Const(get("exponent"), 1)
		if k.Attr["dmax"].Given() {
			e.law.Dmax = c.Const(get("dmax"), 0)
			if !(e.law.Dmax > 0) {
				c.Errorf(get("dmax").Pos, "dmax", "contact %q: dmax must be > 0, got %g", k.Name, e.law.Dmax)
			}
		}
	case "hertz":
		e.law.Kind = contact.LawHertzExtended
		e.law.N = c.Const(get("exponent"), 1.5)
	case "hunt-crossley":
		e.law.Kind = contact.LawHysteresis
		e.law.N = c.Const(get("exponent"), 1.5)
		if k.Attr["restitution"].Given() {
			c.Errorf(get("restitution").Pos, "restitution", "contact %q: a spatial contact has no impact memory for a restitution: give c, the hysteresis damping α in s/m (restitution e ≈ 1 − (2/3) α v at impact speed v; contact.HysteresisDamping)", k.Name)
		}
	default:
		c.Errorf(get("law").Pos, "law", "contact %q: unknown law %q (spring-damper, hertz, hunt-crossley)%s", k.Name, law,
			mech.Suggest(law, []string{"spring-damper", "hertz", "hunt-crossley"}))
	}
	if e.law.N < 1 {
		c.Errorf(get("exponent").Pos, "exponent", "contact %q: exponent must be ≥ 1, got %g", k.Name, e.law.N)
	}
	if k.Attr["dmax"].Given() && e.law.Kind != contact.LawLinear {
		c.Errorf(get("dmax").Pos, "dmax", "contact %q: dmax belongs to law=\"spring-damper\"", k.Name)
	}
	// friction
	hasMu := k.Attr["mu-static"].Given() || k.Attr["mu-dynamic"].Given()
	switch fr := text("friction"); fr {
	case "":
		e.fric = hasMu
	case "none":
	case "regularized", "regularised":
		e.fric = true
	case "lugre":
		e.fric, e.lugre = true, true
	case "coulomb":
		e.fric, e.coulomb = true, true
		e.grp = [2]int{c.DiscreteSlot(), c.DiscreteSlot()}
		for _, b := range []struct {
			f mech.Frame
			r float64
		}{{e.fi, e.ri}, {e.fj, e.rj}} {
			if b.f.Body < 0 {
				continue
			}
			bi := c.BodyInfo(b.f.Body)
			jm := math.Min(bi.Inertia[0], math.Min(bi.Inertia[4], bi.Inertia[8]))
			if bi.Mass > 0 {
				e.mob += 1 / bi.Mass
			}
			if jm > 0 {
				e.mob += b.r * b.r / jm
			}
		}
		e.rows = []mech.Coulomb{&sphereRow{e: e, k: 0}, &sphereRow{e: e, k: 1}}
	default:
		c.Errorf(get("friction").Pos, "friction", "contact %q: unknown friction %q (none, coulomb, regularized, lugre)", k.Name, fr)
	}
	e.slot = -1
	if e.lugre {
		e.s0, e.s1 = c.Run(get("bristle-stiffness"), 1e5), c.Run(get("bristle-damping"), 0)
		e.slot = c.StateSlots(e, 4)
	} else {
		for _, a := range []string{"bristle-stiffness", "bristle-damping"} {
			if get(a).Given() {
				c.Errorf(get(a).Pos, a, "contact %q: %s belongs to friction=\"lugre\"", k.Name, a)
			}
		}
	}
	if e.fric {
		if !hasMu {
			c.Errorf(k.Pos, "mu-static", "contact %q: friction needs mu-static (and optionally mu-dynamic)", k.Name)
		}
		ms, md := get("mu-static"), get("mu-dynamic")
		if !ms.Given() {
			ms = md
		}
		if !md.Given() {
			md = ms
		}
		e.mus, e.mud = c.Run(ms, 0), c.Run(md, 0)
		e.vs = c.Const(get("v-static"), 1e-3)
		e.vd = c.Const(get("v-dynamic"), 10*e.vs)
		if !(e.vs > 0) || !(e.vd > 0) {
			c.Errorf(get("v-static").Pos, "v-static", "contact %q: v-static and v-dynamic must be > 0", k.Name)
			e.vs, e.vd = 1e-3, 1e-2
		}
	}
	return e
}

func (e *sphere) Dofs() []int { return e.d[:] }
func (e *sphere) Params() []*mech.Param {
	return []*mech.Param{&e.k, &e.c, &e.mus, &e.mud}
}

// NumericTangent: K and C by finite differences.
func (e *sphere) NumericTangent() bool { return true }

// sphereKin is the geometry of a spatial contact at one configuration.
type sphereKin struct {
	ki, kj      mech.KinFrame
	delta, rate float64   // penetration and its rate
	n           mech.Vec3 // normal on i (pushing it away from j)
	pa, pb      mech.Vec3 // contact points on i and j
	vt          mech.Vec3 // slip velocity of i's point relative to j's
}

func (e *sphere) kin(x *mech.Ctx, k *sphereKin) {
	e.fi.Eval(x.Q, x.V, &k.ki)
	e.fj.Eval(x.Q, x.V, &k.kj)
	ci := k.ki.P
	if e.plane {
		R := e.fj.Orient(&k.kj)
		k.n = mech.Vec3{R[2], R[5], R[8]}
		k.delta = e.ri - mech.Dot(k.n, mech.Sub(ci, k.kj.P))
		k.pa = mech.Sub(ci, mech.Scale(e.ri, k.n))
		k.pb = mech.Add(k.pa, mech.Scale(k.delta, k.n))
	} else {
		dd := mech.Sub(ci, k.kj.P)
		l := mech.Norm(dd)
		k.n = mech.Vec3{0, 0, 1}
		if l > 0 {
			k.n = mech.Scale(1/l, dd)
		}
		k.delta = e.ri + e.rj - l
		k.pa = mech.Sub(ci, mech.Scale(e.ri, k.n))
		k.pb = mech.Add(k.kj.P, mech.Scale(e.rj, k.n))
	}
	// velocities of the material points at the contact
	va := pointVel(&k.ki, e.fi.Body >= 0, k.pa)
	vb := pointVel(&k.kj, e.fj.Body >= 0, k.pb)
	vr := mech.Sub(va, vb)
	k.rate = -mech.Dot(k.n, vr)
	k.vt = mech.Sub(vr, mech.Scale(mech.Dot(k.n, vr), k.n))
}

// pointVel is the velocity of the material point at p of a frame's body.
func pointVel(k *mech.KinFrame, body bool, p mech.Vec3) mech.Vec3 {
	if !body {
		return mech.Vec3{}
	}
	rc := mech.Sub(k.P, k.AS) // centre of mass
	vc := mech.Sub(k.V, mech.Cross(k.W, k.AS))
	return mech.Add(vc, mech.Cross(k.W, mech.Sub(p, rc)))
}

// forces returns the normal force and the friction force (world) on i.
func (e *sphere) forces(x *mech.Ctx, k *sphereKin) (fn float64, ft mech.Vec3) {
	e.kin(x, k)
	fn, mu := e.normal(x, k)
	if e.coulomb {
		return fn, e.coulombForce(x, k, fn)
	}
	if fn == 0 || !e.fric {
		return fn, ft
	}
	s := mech.Norm(k.vt)
	if e.lugre {
		z, zd := e.bristle(x, k, mu*fn)
		r := s / e.vs
		return fn, mech.Add(mech.Scale(-e.s0.Get(x), z), mech.Scale(-e.s1.Get(x)*math.Exp(-r*r), zd))
	}
	// −μ F_N tanh(s/vs) vt/s, smooth at s = 0 (tanh(s/vs)/s → 1/vs)
	g := 1 / e.vs
	if s > 1e-12*e.vs {
		g = math.Tanh(s/e.vs) / s
	}
	return fn, mech.Scale(-mu*fn*g, k.vt)
}

// normal returns the normal force at the geometry k (0 out of contact)
// and, with friction, the friction coefficient at its slip speed.
func (e *sphere) normal(x *mech.Ctx, k *sphereKin) (fn, mu float64) {
	if k.delta <= 0 {
		return 0, 0
	}
	l := e.law
	l.K, l.C = e.k.Get(x), e.c.Get(x)
	fn, _, _ = l.Force(k.delta, k.rate)
	if e.fric && fn != 0 {
		mu, _ = contact.StribeckMu(mech.Norm(k.vt), e.mus.Get(x), e.mud.Get(x), e.vd)
	}
	return fn, mu
}

// bristle returns the LuGre bristle deflection z and its rate ż at x
// (world frame, in the tangent plane) for the friction level g = μ F_N:
// from the stored deflection (projected onto the present tangent plane)
// by the exact solution of ż = v_t − σ0 |v_t| z / g at the present slip
// velocity over the time since the last accepted step.
func (e *sphere) bristle(x *mech.Ctx, k *sphereKin, g float64) (z, zd mech.Vec3) {
	return e.bristleAfter(x, k, g, x.Time()-x.ES[e.slot])
}

// bristleAfter is bristle dt after the last accepted step.
func (e *sphere) bristleAfter(x *mech.Ctx, k *sphereKin, g, dt float64) (z, zd mech.Vec3) {
	es := x.ES[e.slot : e.slot+4]
	z0 := mech.Vec3{es[1], es[2], es[3]}
	z0 = mech.Sub(z0, mech.Scale(mech.Dot(z0, k.n), k.n))
	s := mech.Norm(k.vt)
	if !(g > 0) {
		return mech.Vec3{}, mech.Vec3{}
	}
	a := e.s0.Get(x) * s / g
	switch {
	case a*dt < 1e-8:
		z = mech.Add(z0, mech.Scale(dt, mech.Sub(k.vt, mech.Scale(a, z0))))
	default:
		ea := math.Exp(-a * dt)
		z = mech.Add(mech.Scale(ea, z0), mech.Scale((1-ea)/a, k.vt))
	}
	return z, mech.Sub(k.vt, mech.Scale(a, z))
}

// Commit stores the time and the bristle deflection (mech.Stateful).
func (e *sphere) Commit(x *mech.Ctx, mode mech.CommitMode) {
	es := x.ES[e.slot : e.slot+4]
	if mode == mech.CommitInit {
		es[1], es[2], es[3] = 0, 0, 0
	} else if mode == mech.CommitStep {
		var k sphereKin
		e.kin(x, &k)
		fn, mu := e.normal(x, &k)
		z, _ := e.bristle(x, &k, mu*fn) // (none out of contact)
		es[1], es[2], es[3] = z[0], z[1], z[2]
	}
	es[0] = x.Time()
}

// States lists the bristle deflection's world components (mech.Stateful).
func (e *sphere) States() []mech.StateInfo {
	return []mech.StateInfo{{Slot: e.slot + 1, Name: e.name + ".bristle.x", Unit: "m"},
		{Slot: e.slot + 2, Name: e.name + ".bristle.y", Unit: "m"}, {Slot: e.slot + 3, Name: e.name + ".bristle.z", Unit: "m"}}
}

// Rates writes ż at x, z as stored (mech.Stateful).
func (e *sphere) Rates(x *mech.Ctx, dst []float64) {
	var k sphereKin
	e.kin(x, &k)
	fn, mu := e.normal(x, &k)
	_, zd := e.bristleAfter(x, &k, mu*fn, 0) // the stored deflection as it is
	copy(dst, zd[:])
}

func (e *sphere) Eval(x *mech.Ctx, f, kk, cc []float64) {
	var k sphereKin
	fn, ft := e.forces(x, &k)
	if fn == 0 && ft == (mech.Vec3{}) {
		return
	}
	e.gen(&k, mech.Add(mech.Scale(fn, k.n), ft), f)
}

// gen adds the generalized forces of the force F on i at its contact
// point and −F on j at its own into f (the element's 12 dofs).
func (e *sphere) gen(k *sphereKin, F mech.Vec3, f []float64) {
	apply := func(kf *mech.KinFrame, o int, p, F mech.Vec3) {
		f[o] += F[0]
		f[o+1] += F[1]
		f[o+2] += F[2]
		m := mech.Cross(mech.Sub(p, mech.Sub(kf.P, kf.AS)), F)
		mb := mech.MulMTV(&kf.A, m)
		f[o+3] += mb[0]
		f[o+4] += mb[1]
		f[o+5] += mb[2]
	}
	if e.fi.Body >= 0 {
		apply(&k.ki, 0, k.pa, F)
	}
	if e.fj.Body >= 0 {
		apply(&k.kj, 6, k.pb, mech.Scale(-1, F))
	}
}

// tangents returns the contact's tangent basis: marker j's x and y axes
// (sphere–plane), or j's x axis made normal to n and n × it
// (sphere–sphere; j's y axis where x is along n).
func (e *sphere) tangents(k *sphereKin) [2]mech.Vec3 {
	R := e.fj.Orient(&k.kj)
	ax, ay := mech.Vec3{R[0], R[3], R[6]}, mech.Vec3{R[1], R[4], R[7]}
	if e.plane {
		return [2]mech.Vec3{ax, ay}
	}
	t := mech.Sub(ax, mech.Scale(mech.Dot(ax, k.n), k.n))
	if mech.Norm(t) < 0.1 {
		t = mech.Sub(ay, mech.Scale(mech.Dot(ay, k.n), k.n))
	}
	t = mech.Scale(1/mech.Norm(t), t)
	return [2]mech.Vec3{t, mech.Cross(k.n, t)}
}

// coulombForce is the exact Coulomb friction force on i (world) in the
// contact's present mode: none while open; the stick multipliers along
// the tangents while sticking; −μ F_N against the slip velocity while
// slipping (smooth while it slips; the engine ends the step where the
// slip stops or turns back).
func (e *sphere) coulombForce(x *mech.Ctx, k *sphereKin, fn float64) mech.Vec3 {
	st := x.CS[e.grp[0]*mech.CSStride:]
	if st[mech.CSClosed] == 0 {
		return mech.Vec3{}
	}
	if st[mech.CSMode] == 0 {
		t := e.tangents(k)
		return mech.Add(mech.Scale(st[mech.CSStick], t[0]), mech.Scale(x.CS[e.grp[1]*mech.CSStride+mech.CSStick], t[1]))
	}
	// slip: against the slip velocity, the direction d the engine keeps
	// in the stick slots (set at the decision, then the slip velocity's
	// at each step's start) weighing in at low slip speed: the force is
	// −μ F_N (vt + v₀ d)/|vt + v₀ d|, v₀ = h μ F_N / m_t (h the model's
	// step, kept in the α slot; 1/m_t the contact's tangential mobility):
	// the slip speed friction changes in a step. Well above v₀ it follows
	// the slip velocity within the step; below, at a slip's start and
	// end, it holds the direction the decision or the step's start gave
	// (the sideways damping μ F_N/(m_t |vt|) would otherwise be too stiff
	// for the step)
	t := e.tangents(k)
	d := mech.Add(mech.Scale(st[mech.CSStick], t[0]), mech.Scale(x.CS[e.grp[1]*mech.CSStride+mech.CSStick], t[1]))
	mu := e.mud.Get(x) * fn
	u := mech.Add(k.vt, mech.Scale(1e-8+st[mech.CSAlpha]*mu*e.mob, d)) // SlipBlend
	nu := mech.Norm(u)
	if nu == 0 {
		return mech.Vec3{}
	}
	return mech.Scale(-mu/nu, u)
}

// CoulombRows returns the contact's two friction rows (mech.CoulombRows;
// none without exact Coulomb friction).
func (e *sphere) CoulombRows() []mech.Coulomb { return e.rows }

// sphereRow is one tangent direction of a spatial contact's exact
// Coulomb friction (mech.Coulomb, mech.CoulombSet): the contact applies
// the friction itself (Eval here adds nothing).
type sphereRow struct {
	e *sphere
	k int
}

func (r *sphereRow) Dofs() []int                         { return r.e.d[:] }
func (r *sphereRow) Eval(x *mech.Ctx, f, k, c []float64) {}
func (r *sphereRow) Potential(x *mech.Ctx) float64       { return 0 }

// CoulombIndex returns the row's discrete-state group.
func (r *sphereRow) CoulombIndex() int { return r.e.grp[r.k] }

// CoulombName names the contact in errors.
func (r *sphereRow) CoulombName() string { return "contact " + r.e.name }

// Joint: a contact's friction, not a joint's (mech.CoulombSet).
func (r *sphereRow) Joint() bool { return false }

// Set returns the first row's group and the row count (mech.CoulombSet).
func (r *sphereRow) Set() (lead, n int) { return r.e.grp[0], 2 }

// Slip writes the row W (the generalized force of a unit force along the
// tangent) and returns the slip velocity along it; γ is taken by the
// engine (mech.CoulombSet).
func (r *sphereRow) Slip(x *mech.Ctx, w []float64) (vt, gamma float64) {
	var k sphereKin
	r.e.kin(x, &k)
	clear(w)
	r.e.gen(&k, r.e.tangents(&k)[r.k], w)
	for a, d := range r.e.d {
		if d >= 0 {
			vt += w[a] * x.V[d]
		}
	}
	return vt, 0
}

// SlipTangent writes cv·W; the engine adds ∂vt/∂q by differences.
func (r *sphereRow) SlipTangent(x *mech.Ctx, cv float64, g []float64) {
	r.Slip(x, g)
	for a := range g {
		g[a] *= cv
	}
}

// normalForce returns the normal force at x.
func (r *sphereRow) normalForce(x *mech.Ctx) float64 {
	var k sphereKin
	r.e.kin(x, &k)
	fn, _ := r.e.normal(x, &k)
	return fn
}

// Static returns μ0 F_N.
func (r *sphereRow) Static(x *mech.Ctx) float64 { return r.e.mus.Get(x) * r.normalForce(x) }

// Kinetic returns μ F_N.
func (r *sphereRow) Kinetic(x *mech.Ctx) float64 { return r.e.mud.Get(x) * r.normalForce(x) }

// SlipBlend returns v₀ = 1e-8 m/s + h μ F_N/m_t (coulombForce).
func (r *sphereRow) SlipBlend(x *mech.Ctx) float64 {
	return 1e-8 + x.CS[r.e.grp[0]*mech.CSStride+mech.CSAlpha]*r.Kinetic(x)*r.e.mob
}

// SlipForce returns −μ F_N dir (the row alone).
func (r *sphereRow) SlipForce(x *mech.Ctx, vt, dir float64) float64 { return -dir * r.Kinetic(x) }

// Touch returns the normal event value and whether the law pushes.
func (r *sphereRow) Touch(x *mech.Ctx, closed bool) (float64, bool) {
	var k sphereKin
	r.e.kin(x, &k)
	l := r.e.law
	l.K, l.C = r.e.k.Get(x), r.e.c.Get(x)
	raw, _, _ := l.Smooth(k.delta, k.rate)
	raw /= math.Max(l.K, 1e-300)
	touching := k.delta > 0 && raw > 0
	if closed {
		return math.Min(k.delta, raw), touching
	}
	return math.Max(-k.delta, -raw), touching
}

// Potential is the elastic energy of the contact: ∫ k δ^N dδ.
func (e *sphere) Potential(x *mech.Ctx) float64 {
	var k sphereKin
	e.kin(x, &k)
	if k.delta <= 0 {
		return 0
	}
	n := e.law.N
	return e.k.Get(x) * math.Pow(k.delta, n+1) / (n + 1)
}

// Channels lists the contact's channels (mech.Channeler).
func (e *sphere) Channels(name string) []mech.ChannelInfo {
	c := "contact " + name
	return []mech.ChannelInfo{
		{Name: name + ".force", Unit: "N", Group: "force", Description: c + " normal force"},
		{Name: name + ".penetration", Unit: "m", Group: "position", Description: c + " penetration"},
		{Name: name + ".rate", Unit: "m/s", Group: "velocity", Description: c + " penetration rate"},
		{Name: name + ".slip", Unit: "m/s", Group: "velocity", Description: c + " slip speed"},
		{Name: name + ".friction", Unit: "N", Group: "force", Description: c + " friction force magnitude"},
		{Name: name + ".energy", Unit: "J", Group: "energy", Description: c + " elastic energy"},
		{Name: name + ".px", Unit: "m", Group: "shape", Description: c + " point on i, x (for drawing)"},
		{Name: name + ".py", Unit: "m", Group: "shape", Description: c + " point on i, y (for drawing)"},
		{Name: name + ".pz", Unit: "m", Group: "shape", Description: c + " point on i, z (for drawing)"},
		{Name: name + ".nx", Unit: "", Group: "shape", Description: c + " unit normal, x (for drawing)"},
		{Name: name + ".ny", Unit: "", Group: "shape", Description: c + " unit normal, y (for drawing)"},
		{Name: name + ".nz", Unit: "", Group: "shape", Description: c + " unit normal, z (for drawing)"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *sphere) Channel(x *mech.Ctx, sub int) float64 {
	var k sphereKin
	fn, ft := e.forces(x, &k)
	switch sub {
	case 0:
		return fn
	case 1:
		return k.delta
	case 2:
		return k.rate
	case 3:
		return mech.Norm(k.vt)
	case 4:
		return mech.Norm(ft)
	case 5:
		return e.Potential(x)
	case 6, 7, 8:
		return k.pa[sub-6]
	}
	return k.n[sub-9]
}

// Draw draws the contact point and its normal force (mech.Drawer).
func (e *sphere) Draw(g *mech.Geometry) {
	n := e.name
	g.Contacts = append(g.Contacts, mech.GeomContact{Name: n, PX: n + ".px", PY: n + ".py", PZ: n + ".pz", FN: n + ".force", NX: n + ".nx", NY: n + ".ny", NZ: n + ".nz"})
}
