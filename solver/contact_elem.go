package solver

import (
	"math"

	"mbfmu/contact"
)

// This file holds the contact force element: the geometry of one contact
// pair (a point or circle on body A against a line, segment or circle on
// body B), the normal force law, friction, and the analytic tangent
// stiffness and damping for the implicit integrators. The discrete state of
// a contact (open/closed, stick/slip, the impact-dependent damping of the
// Hunt–Crossley law, the stick friction force) lives in State (see
// contactSet in contacts.go); the stick–slip solver and the event-located
// time stepping are in stickslip.go.
//
// Local coordinates: the element works on six coordinates, (x, y, θ) of
// the centre of mass of body A then of body B (−1 where a side is ground).
// With N the unit normal (pushing A away from B), T = (N.y, −N.x) the unit
// tangent, cA and cB the contact points on the surfaces of A and B and
// R_A, R_B the centres of mass, the normal and tangential rows are
//
//	J = [ N;  (cA−R_A)×N;  −N;  −(cB−R_B)×N ]   (J·v = −δ', so ∂δ/∂q = −J)
//	W = [ T;  (cA−R_A)×T;  −T;  −(cB−R_B)×T ]   (W·v = slip velocity vt)
//
// and the generalized contact force is Q = F_N J + F_t W, with F_N ≥ 0 the
// normal force and F_t the friction force on A along T.

type contactGeom uint8

const (
	geomLine    contactGeom = iota // half-plane: line through marker j along its x axis
	geomSegment                    // segment from marker j to marker j-end, thickness rb
	geomCircle                     // circle about marker j of radius rb (rb < 0: a hole)
)

type contactLaw uint8

const (
	lawSpringDamper contactLaw = iota // F = k δ^e + c·step(δ; 0, dmax)·δ'
	lawHertz                          // F = k δ^e + c δ δ' (seed 003)
	lawHuntCrossley                   // F = k δ^e (1 + α δ')
)

type frictionKind uint8

const (
	fricNone        frictionKind = iota
	fricCoulomb                  // exact Coulomb with stick–slip (LCP, events)
	fricRegularized              // −μ(vt) F_N tanh(vt/vs)
)

// Slots of a contact's discrete state in State.cs (csStride per contact).
const (
	csClosed = iota // 1 when the normal force is on (at the last decision)
	csMode          // friction: 0 stick, ±1 slip in that direction
	csAlpha         // Hunt–Crossley damping α (s/m) set at the last impact
	csStick         // friction force while sticking (Lagrange multiplier)
	csStride
)

// contactElem is one contact pair. It is immutable; its discrete state is
// in State.cs[idx*csStride:].
type contactElem struct {
	name    string
	idx     int
	geom    contactGeom
	pa      point   // A: circle centre (or the point)
	ra      float64 // A: radius (0 for a point)
	pj, pj2 point   // B: line marker / circle centre / segment ends
	rb      float64 // B: circle radius (negative: hole) or segment thickness
	bA, bB  int     // bodies (-1: ground)
	d       [6]int

	lawKind     contactLaw
	k, c        param
	exp         float64 // exponent e ≥ 1
	dmax        float64 // spring-damper: penetration where damping is fully on (0: at once)
	restitution float64 // Hunt–Crossley: target restitution (0: α = c)

	fric     frictionKind
	mus, mud param   // static and kinetic (dynamic) coefficients
	vs, vd   float64 // regularised friction: tanh speed and Stribeck speed
}

// contactKin is the kinematics of a contact at one configuration.
type contactKin struct {
	delta, rate float64    // penetration δ and its rate δ'
	n, t        [2]float64 // normal (on A, pointing away from B) and tangent
	J, W        [6]float64 // normal and tangential rows (see above)
	vt          float64    // slip velocity W·v
	phiq        [6]float64 // ∂φ/∂q for the normal angle φ
	phidot      float64
	sA, uB      [2]float64    // lever of A (p − R_A) and of B
	duB         [2][6]float64 // ∂uB/∂q
	face        bool          // B's lever is A's point (line, segment face)
	gamma       float64       // velocity terms of the slip acceleration: v̇t = W·q̈ + γ
	pa, pb      [2]float64    // contact points on A and B
	vl          [6]float64    // local velocities
}

func (e *contactElem) dofs() []int { return e.d[:] }

func toV(a [2]float64) contact.Vec2   { return contact.Vec2{X: a[0], Y: a[1]} }
func fromV(a contact.Vec2) [2]float64 { return [2]float64{a.X, a.Y} }

// kin evaluates the contact geometry and kinematics at x.
func (e *contactElem) kin(x *evalCtx, k *contactKin) {
	var kA, kj, kj2 kinPoint
	e.pa.eval(x.q, x.v, &kA)
	e.pj.eval(x.q, x.v, &kj)
	p := kA.r
	sA := kA.as
	// B's centre of mass and velocity (meaningless for ground: not used)
	RB := [2]float64{kj.r[0] - kj.as[0], kj.r[1] - kj.as[1]}
	var vB [2]float64
	omB := 0.0
	if e.bB >= 0 {
		o := 3 * e.bB
		vB = [2]float64{x.v[o], x.v[o+1]}
		omB = x.v[o+2]
	}
	omA := 0.0
	if e.bA >= 0 {
		omA = x.v[3*e.bA+2]
	}
	var c contact.Contact
	var xB [3][2]float64 // B's input points (material points of B)
	switch e.geom {
	case geomLine:
		sn, cs := math.Sincos(kj.th + e.pj.ang)
		xB[1] = kj.r
		xB[2] = [2]float64{kj.r[0] + cs, kj.r[1] + sn}
		c = contact.CircleLine(toV(p), e.ra, toV(xB[1]), toV(xB[2]))
	case geomSegment:
		e.pj2.eval(x.q, x.v, &kj2)
		xB[1], xB[2] = kj.r, kj2.r
		c = contact.CircleSegment(toV(p), e.ra, toV(xB[1]), toV(xB[2]), e.rb)
	case geomCircle:
		xB[1] = kj.r
		if e.rb >= 0 {
			c = contact.CircleCircle(toV(p), e.ra, toV(xB[1]), e.rb)
		} else {
			c = holeContact(p, e.ra, xB[1], -e.rb)
		}
	}
	*k = contactKin{delta: c.Delta, n: fromV(c.N), t: fromV(c.T), sA: sA, pa: fromV(c.PA), pb: fromV(c.PB)}
	n, t := k.n, k.t
	// B's lever: A's point for a face, B's material point for a circle or cap
	k.face = c.Feature == contact.FeatureFace
	bref := 1
	if c.Feature == contact.FeatureEndB {
		bref = 2
	}
	if k.face {
		k.uB = sub2(p, RB)
	} else {
		k.uB = sub2(xB[bref], RB)
	}
	if e.bA >= 0 {
		k.vl[0], k.vl[1], k.vl[2] = x.v[3*e.bA], x.v[3*e.bA+1], omA
		bs := kA.bs()
		// ∂φ/∂q_A through A's centre p
		g := fromV(c.GradPhi[0])
		k.phiq[0], k.phiq[1], k.phiq[2] = g[0], g[1], dot2(g, bs)
		if k.face {
			k.duB[0][0], k.duB[1][1] = 1, 1
			k.duB[0][2], k.duB[1][2] = bs[0], bs[1]
		}
	}
	if e.bB >= 0 {
		k.vl[3], k.vl[4], k.vl[5] = vB[0], vB[1], omB
		for in := 1; in <= 2; in++ {
			g := fromV(c.GradPhi[in])
			if e.geom == geomCircle && in == 2 {
				break
			}
			u := sub2(xB[in], RB)
			k.phiq[3] += g[0]
			k.phiq[4] += g[1]
			k.phiq[5] += dot2(g, rot90(u))
		}
		if k.face {
			k.duB[0][3], k.duB[1][4] = -1, -1
		} else {
			r := rot90(k.uB)
			k.duB[0][5], k.duB[1][5] = r[0], r[1]
		}
	}
	// rows (e.rb: B's circle radius, or the segment thickness at a cap)
	k.J = [6]float64{n[0], n[1], cross2(sA, n), -n[0], -n[1], -cross2(k.uB, n)}
	w5 := -cross2(k.uB, t) + e.rb
	if k.face {
		w5 = -cross2(k.uB, t) - e.ra + k.delta
	}
	k.W = [6]float64{t[0], t[1], cross2(sA, t) + e.ra, -t[0], -t[1], w5}
	if e.bA < 0 {
		k.J[0], k.J[1], k.J[2], k.W[0], k.W[1], k.W[2] = 0, 0, 0, 0, 0, 0
		k.phiq[0], k.phiq[1], k.phiq[2] = 0, 0, 0
	}
	if e.bB < 0 {
		k.J[3], k.J[4], k.J[5], k.W[3], k.W[4], k.W[5] = 0, 0, 0, 0, 0, 0
		k.phiq[3], k.phiq[4], k.phiq[5] = 0, 0, 0
	}
	for a := 0; a < 6; a++ {
		k.rate -= k.J[a] * k.vl[a]
		k.vt += k.W[a] * k.vl[a]
		k.phidot += k.phiq[a] * k.vl[a]
	}
	// slip acceleration: v̇t = W·q̈ + γ
	gB := -omB * omB * dot2(k.uB, t)
	if k.face {
		gB = omB * (cross2(sub2(kA.v, vB), t) - k.rate)
	}
	if e.bB < 0 {
		gB = 0
	}
	k.gamma = -omA*omA*dot2(sA, t) - gB - k.phidot*k.rate
	if e.bA < 0 {
		k.gamma = -gB - k.phidot*k.rate
	}
}

// holeContact is circle A (centre p, radius r) inside a hole of radius R
// about c: δ = |p − c| + r − R, the normal pushes A back towards c.
func holeContact(p [2]float64, r float64, c [2]float64, R float64) contact.Contact {
	d := sub2(p, c)
	D := math.Hypot(d[0], d[1])
	u := [2]float64{1, 0}
	if D > 0 {
		u = [2]float64{d[0] / D, d[1] / D}
	}
	n := [2]float64{-u[0], -u[1]}
	t := [2]float64{n[1], -n[0]}
	var k contact.Contact
	k.Delta = D + r - R
	k.N, k.T = toV(n), toV(t)
	k.PA = toV([2]float64{p[0] + r*u[0], p[1] + r*u[1]})
	k.PB = toV([2]float64{c[0] + R*u[0], c[1] + R*u[1]})
	k.Feature = contact.FeatureCircle
	k.GradDelta[0] = toV(u)
	k.GradDelta[1] = toV([2]float64{-u[0], -u[1]})
	if D > 0 {
		k.GradPhi[0] = toV([2]float64{t[0] / D, t[1] / D})
		k.GradPhi[1] = toV([2]float64{-t[0] / D, -t[1] / D})
	}
	return k
}

// normal returns the normal force and its partial derivatives with respect
// to δ and δ' in the contact's current normal state: the force law while
// the contact is closed (smooth within a step: no clamp, see law), zero
// while it is open. The clamp F = max(law, 0) is applied by the events,
// which end a step where the law's force vanishes (stickslip.go).
func (e *contactElem) normal(x *evalCtx, delta, rate float64) (f, fd, fv float64) {
	if x.cs[e.idx*csStride+csClosed] == 0 {
		return 0, 0, 0
	}
	return e.law(x, delta, rate)
}

// touching reports whether the force law pushes at (δ, δ'): δ > 0 and
// F > 0 (the normal state a decision chooses).
func (e *contactElem) touching(x *evalCtx, delta, rate float64) bool {
	if delta <= 0 {
		return false
	}
	f, _, _ := e.law(x, delta, rate)
	return f > 0
}

// law evaluates the normal force law without the clamp max(·, 0) and with
// the elastic part extended to δ < 0 as an odd function, so that it is
// smooth across the events; it returns F, ∂F/∂δ and ∂F/∂δ'.
func (e *contactElem) law(x *evalCtx, delta, rate float64) (f, fd, fv float64) {
	k, c := e.k.get(x), e.c.get(x)
	p, dp := powExp(math.Abs(delta), e.exp)
	if delta < 0 {
		p = -p
	}
	switch e.lawKind {
	case lawHertz: // k δ^n + c δ δ' (seed 003)
		return k*p + c*delta*rate, k*dp + c*rate, c * delta
	case lawHuntCrossley: // k δ^n (1 + α δ')
		a := c
		if e.restitution > 0 {
			a = x.cs[e.idx*csStride+csAlpha]
		}
		g := 1 + a*rate
		return k * p * g, k * dp * g, k * p * a
	}
	// spring–damper with an optional cubic ramp of the damping over [0, dmax]
	s, ds := 1.0, 0.0
	if e.dmax > 0 && delta < e.dmax {
		u := math.Max(delta, 0) / e.dmax
		s = u * u * (3 - 2*u)
		if delta > 0 {
			ds = 6 * u * (1 - u) / e.dmax
		}
	}
	return k*p + c*s*rate, k*dp + c*ds*rate, c * s
}

// powExp returns x^e and e·x^(e−1) for x ≥ 0.
func powExp(x, e float64) (p, dp float64) {
	switch e {
	case 1:
		return x, 1
	case 1.5:
		s := math.Sqrt(x)
		return x * s, 1.5 * s
	case 2:
		return x * x, 2 * x
	}
	if x <= 0 {
		return 0, 0
	}
	p = math.Pow(x, e)
	return p, e * p / x
}

// friction returns the friction force on A along T for the current mode
// and its derivatives with respect to the normal force and the slip
// velocity. While sticking (Coulomb) the force is the multiplier in State.
func (e *contactElem) friction(x *evalCtx, fn, vt float64) (ft, dfn, dvt float64) {
	switch e.fric {
	case fricCoulomb:
		cs := x.cs[e.idx*csStride:]
		if cs[csMode] == 0 {
			return cs[csStick], 0, 0
		}
		mu := e.mud.get(x) * cs[csMode]
		return -mu * fn, -mu, 0
	case fricRegularized:
		if fn <= 0 {
			return 0, 0, 0
		}
		mu, dmu := contact.StribeckMu(vt, e.mus.get(x), e.mud.get(x), e.vd)
		th := math.Tanh(vt / e.vs)
		g := mu * th
		dg := dmu*th + mu*(1-th*th)/e.vs
		return -fn * g, -g, -fn * dg
	}
	return 0, 0, 0
}

// forces returns the kinematics, the normal force and the friction force.
func (e *contactElem) forces(x *evalCtx, k *contactKin) (fn, ft float64) {
	e.kin(x, k)
	fn, _, _ = e.normal(x, k.delta, k.rate)
	ft, _, _ = e.friction(x, fn, k.vt)
	return
}

func (e *contactElem) eval(x *evalCtx, f, kk, cc []float64) {
	var k contactKin
	e.kin(x, &k)
	fn, fd, fv := e.normal(x, k.delta, k.rate)
	ft, dfn, dvt := e.friction(x, fn, k.vt)
	for a := 0; a < 6; a++ {
		f[a] += fn*k.J[a] + ft*k.W[a]
	}
	if kk == nil || (fn == 0 && ft == 0) {
		return
	}
	var hj, hw [6][6]float64
	e.hessians(&k, &hj, &hw)
	// ∂F/∂q = −Fd J − Fv HJᵀv ;  ∂F/∂v = −Fv J
	// ∂vt/∂q = HWᵀv ;            ∂vt/∂v = W
	var dFq, dFv, dvq, dfq, dfv [6]float64
	for b := 0; b < 6; b++ {
		hjv, hwv := 0.0, 0.0
		for a := 0; a < 6; a++ {
			hjv += hj[a][b] * k.vl[a]
			hwv += hw[a][b] * k.vl[a]
		}
		dFq[b] = -fd*k.J[b] - fv*hjv
		dFv[b] = -fv * k.J[b]
		dvq[b] = hwv
		dfq[b] = dfn*dFq[b] + dvt*dvq[b]
		dfv[b] = dfn*dFv[b] + dvt*k.W[b]
	}
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			kk[a*6+b] -= k.J[a]*dFq[b] + fn*hj[a][b] + k.W[a]*dfq[b] + ft*hw[a][b]
			cc[a*6+b] -= k.J[a]*dFv[b] + k.W[a]*dfv[b]
		}
	}
}

// hessians fills hj[a][b] = ∂J_a/∂q_b and hw[a][b] = ∂W_a/∂q_b.
func (e *contactElem) hessians(k *contactKin, hj, hw *[6][6]float64) {
	n, t, sA, uB := k.n, k.t, k.sA, k.uB
	sAn, sAt := cross2(sA, n), cross2(sA, t)
	uBn, uBt := cross2(uB, n), cross2(uB, t)
	for b := 0; b < 6; b++ {
		pb := k.phiq[b]
		hj[0][b], hj[1][b] = -t[0]*pb, -t[1]*pb
		hj[3][b], hj[4][b] = t[0]*pb, t[1]*pb
		hj[2][b] = -sAt * pb
		hw[0][b], hw[1][b] = n[0]*pb, n[1]*pb
		hw[3][b], hw[4][b] = -n[0]*pb, -n[1]*pb
		hw[2][b] = sAn * pb
		du := [2]float64{k.duB[0][b], k.duB[1][b]}
		hj[5][b] = -cross2(du, n) + uBt*pb
		hw[5][b] = -cross2(du, t) - uBn*pb
		if k.face {
			hw[5][b] -= k.J[b]
		}
	}
	hj[2][2] -= dot2(sA, n)
	hw[2][2] -= dot2(sA, t)
	if e.bA < 0 {
		for b := 0; b < 6; b++ {
			hj[0][b], hj[1][b], hj[2][b], hw[0][b], hw[1][b], hw[2][b] = 0, 0, 0, 0, 0, 0
			hj[b][0], hj[b][1], hj[b][2], hw[b][0], hw[b][1], hw[b][2] = 0, 0, 0, 0, 0, 0
		}
	}
	if e.bB < 0 {
		for b := 0; b < 6; b++ {
			hj[3][b], hj[4][b], hj[5][b], hw[3][b], hw[4][b], hw[5][b] = 0, 0, 0, 0, 0, 0
			hj[b][3], hj[b][4], hj[b][5], hw[b][3], hw[b][4], hw[b][5] = 0, 0, 0, 0, 0, 0
		}
	}
}

// potential is the elastic energy stored in the contact: ∫ F_el dδ.
func (e *contactElem) potential(x *evalCtx) float64 {
	var k contactKin
	e.kin(x, &k)
	if k.delta <= 0 {
		return 0
	}
	p, _ := powExp(k.delta, e.exp)
	return e.k.get(x) * p * k.delta / (e.exp + 1)
}

// Channel quantities of a contact.
const (
	chcForce = iota
	chcPenetration
	chcRate
	chcSlip
	chcFriction
	chcFX
	chcFY
	chcState
	chcEnergy
	chcPX
	chcPY
	chcNX
	chcNY
	chcCount
)

func (e *contactElem) channelInfo(name string) []ChannelInfo {
	c := "contact " + name
	return []ChannelInfo{
		{name + ".force", "N", "force", c + " normal force (≥ 0)"},
		{name + ".penetration", "m", "position", c + " penetration δ (negative: gap)"},
		{name + ".rate", "m/s", "velocity", c + " penetration rate δ' (positive: approaching)"},
		{name + ".slip", "m/s", "velocity", c + " slip velocity of i relative to j along the tangent"},
		{name + ".friction", "N", "force", c + " friction force on i along the tangent"},
		{name + ".fx", "N", "force", c + " total contact force on the body of i, x (global)"},
		{name + ".fy", "N", "force", c + " total contact force on the body of i, y (global)"},
		{name + ".state", "", "state", c + " state: 0 open, 1 stick, 2 slip"},
		{name + ".energy", "J", "energy", c + " elastic energy"},
		{name + ".px", "m", "shape", c + " contact point on i, x (for drawing)"},
		{name + ".py", "m", "shape", c + " contact point on i, y (for drawing)"},
		{name + ".nx", "", "shape", c + " unit normal, x (for drawing)"},
		{name + ".ny", "", "shape", c + " unit normal, y (for drawing)"},
	}
}

// addGeometry draws the contact point and its normal force.
func (e *contactElem) addGeometry(m *Model, g *Geometry) {
	n := e.name
	g.Contacts = append(g.Contacts, GeomContact{Name: n, PX: n + ".px", PY: n + ".py", FN: n + ".force", NX: n + ".nx", NY: n + ".ny"})
}

func (e *contactElem) channel(x *evalCtx, sub int) float64 {
	var k contactKin
	fn, ft := e.forces(x, &k)
	switch sub {
	case chcForce:
		return fn
	case chcPenetration:
		return k.delta
	case chcRate:
		return k.rate
	case chcSlip:
		return k.vt
	case chcFriction:
		return ft
	case chcFX:
		return fn*k.n[0] + ft*k.t[0]
	case chcFY:
		return fn*k.n[1] + ft*k.t[1]
	case chcState:
		if fn <= 0 {
			return 0
		}
		if e.fric == fricCoulomb && x.cs[e.idx*csStride+csMode] == 0 {
			return 1
		}
		return 2
	case chcEnergy:
		return e.potential(x)
	case chcPX:
		return k.pa[0]
	case chcPY:
		return k.pa[1]
	case chcNX:
		return k.n[0]
	case chcNY:
		return k.n[1]
	}
	return math.NaN()
}
