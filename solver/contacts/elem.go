package contacts

import (
	"math"

	"mbfmu/contact"
	"mbfmu/solver/mech"
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

type Law uint8

const (
	LawSpringDamper Law = iota // F = k δ^e + c·step(δ; 0, dmax)·δ'
	LawHertz                   // F = k δ^e + c δ δ' (seed 003)
	LawHuntCrossley            // F = k δ^e (1 + α δ')
)

type FrictionKind uint8

const (
	FricNone        FrictionKind = iota
	FricCoulomb                  // exact Coulomb with stick–slip (LCP, events)
	FricRegularized              // −μ(vt) F_N tanh(vt/vs)
)

// Slots of a contact's discrete state in State.cs (Stride per contact).
const (
	SlotClosed = mech.CSClosed // 1 when the normal force is on (at the last decision)
	SlotMode   = mech.CSMode   // friction: 0 stick, ±1 slip in that direction
	SlotAlpha  = mech.CSAlpha  // Hunt–Crossley damping α (s/m) set at the last impact
	SlotStick  = mech.CSStick  // friction force while sticking (Lagrange multiplier)
	Stride     = mech.CSStride
)

// Elem is one contact pair. It is immutable; its discrete state is
// in State.cs[idx*Stride:].
type Elem struct {
	name    string
	Idx     int
	geom    contactGeom
	pa      mech.Point // A: circle centre (or the mech.Point)
	ra      float64    // A: radius (0 for a mech.Point)
	pj, pj2 mech.Point // B: line marker / circle centre / segment ends
	rb      float64    // B: circle radius (negative: hole) or segment thickness
	bA, bB  int        // bodies (-1: ground)
	d       [6]int

	LawKind     Law
	K, c        mech.Param
	exp         float64 // exponent e ≥ 1
	dmax        float64 // spring-damper: penetration where damping is fully on (0: at once)
	Restitution float64 // Hunt–Crossley: target restitution (0: α = c)

	Fric     FrictionKind
	MuS, MuD mech.Param // static and kinetic (dynamic) coefficients
	vs, vd   float64    // regularised friction: tanh speed and Stribeck speed
}

// Stiffness returns the normal law's stiffness and exponent and the two
// bodies (mech.Stiff).
func (e *Elem) Stiffness(x *mech.Ctx) (string, float64, float64, int, int) {
	return e.name, e.K.Get(x), e.exp, e.bA, e.bB
}

// Kin is the kinematics of a contact at one configuration.
type Kin struct {
	Delta, Rate float64    // penetration δ and its rate δ'
	N, T        [2]float64 // normal (on A, pointing away from B) and tangent
	J, W        [6]float64 // normal and tangential rows (see above)
	Vt          float64    // slip velocity W·v
	Phiq        [6]float64 // ∂φ/∂q for the normal angle φ
	Phidot      float64
	SA, UB      [2]float64    // lever of A (p − R_A) and of B
	DuB         [2][6]float64 // ∂uB/∂q
	Face        bool          // B's lever is A's point (line, segment face)
	Gamma       float64       // velocity terms of the slip acceleration: v̇t = W·q̈ + γ
	PA, PB      [2]float64    // contact points on A and B
	Vl          [6]float64    // local velocities
}

func (e *Elem) Dofs() []int { return e.d[:] }

// Params lists the contact's run-time parameters.
func (e *Elem) Params() []*mech.Param { return []*mech.Param{&e.K, &e.c, &e.MuS, &e.MuD} }

func toV(a [2]float64) contact.Vec2   { return contact.Vec2{X: a[0], Y: a[1]} }
func fromV(a contact.Vec2) [2]float64 { return [2]float64{a.X, a.Y} }

// kin evaluates the contact geometry and kinematics at x.
func (e *Elem) Kin(x *mech.Ctx, k *Kin) {
	var kA, kj, kj2 mech.KinPoint
	e.pa.Eval(x.Q, x.V, &kA)
	e.pj.Eval(x.Q, x.V, &kj)
	p := kA.R
	sA := kA.AS
	// B's centre of mass and velocity (meaningless for ground: not used)
	RB := [2]float64{kj.R[0] - kj.AS[0], kj.R[1] - kj.AS[1]}
	var vB [2]float64
	omB := 0.0
	if e.bB >= 0 {
		o := 3 * e.bB
		vB = [2]float64{x.V[o], x.V[o+1]}
		omB = x.V[o+2]
	}
	omA := 0.0
	if e.bA >= 0 {
		omA = x.V[3*e.bA+2]
	}
	var c contact.Contact
	var xB [3][2]float64 // B's input points (material points of B)
	switch e.geom {
	case geomLine:
		sn, cs := math.Sincos(kj.Th + e.pj.Ang)
		xB[1] = kj.R
		xB[2] = [2]float64{kj.R[0] + cs, kj.R[1] + sn}
		c = contact.CircleLine(toV(p), e.ra, toV(xB[1]), toV(xB[2]))
	case geomSegment:
		e.pj2.Eval(x.Q, x.V, &kj2)
		xB[1], xB[2] = kj.R, kj2.R
		c = contact.CircleSegment(toV(p), e.ra, toV(xB[1]), toV(xB[2]), e.rb)
	case geomCircle:
		xB[1] = kj.R
		if e.rb >= 0 {
			c = contact.CircleCircle(toV(p), e.ra, toV(xB[1]), e.rb)
		} else {
			c = holeContact(p, e.ra, xB[1], -e.rb)
		}
	}
	*k = Kin{Delta: c.Delta, N: fromV(c.N), T: fromV(c.T), SA: sA, PA: fromV(c.PA), PB: fromV(c.PB)}
	n, t := k.N, k.T
	// B's lever: A's point for a face, B's material point for a circle or cap
	k.Face = c.Feature == contact.FeatureFace
	bref := 1
	if c.Feature == contact.FeatureEndB {
		bref = 2
	}
	if k.Face {
		k.UB = mech.Sub2(p, RB)
	} else {
		k.UB = mech.Sub2(xB[bref], RB)
	}
	if e.bA >= 0 {
		k.Vl[0], k.Vl[1], k.Vl[2] = x.V[3*e.bA], x.V[3*e.bA+1], omA
		bs := kA.BS()
		// ∂φ/∂q_A through A's centre p
		g := fromV(c.GradPhi[0])
		k.Phiq[0], k.Phiq[1], k.Phiq[2] = g[0], g[1], mech.Dot2(g, bs)
		if k.Face {
			k.DuB[0][0], k.DuB[1][1] = 1, 1
			k.DuB[0][2], k.DuB[1][2] = bs[0], bs[1]
		}
	}
	if e.bB >= 0 {
		k.Vl[3], k.Vl[4], k.Vl[5] = vB[0], vB[1], omB
		for in := 1; in <= 2; in++ {
			g := fromV(c.GradPhi[in])
			if e.geom == geomCircle && in == 2 {
				break
			}
			u := mech.Sub2(xB[in], RB)
			k.Phiq[3] += g[0]
			k.Phiq[4] += g[1]
			k.Phiq[5] += mech.Dot2(g, mech.Rot90(u))
		}
		if k.Face {
			k.DuB[0][3], k.DuB[1][4] = -1, -1
		} else {
			r := mech.Rot90(k.UB)
			k.DuB[0][5], k.DuB[1][5] = r[0], r[1]
		}
	}
	// rows (e.rb: B's circle radius, or the segment thickness at a cap)
	k.J = [6]float64{n[0], n[1], mech.Cross2(sA, n), -n[0], -n[1], -mech.Cross2(k.UB, n)}
	w5 := -mech.Cross2(k.UB, t) + e.rb
	if k.Face {
		w5 = -mech.Cross2(k.UB, t) - e.ra + k.Delta
	}
	k.W = [6]float64{t[0], t[1], mech.Cross2(sA, t) + e.ra, -t[0], -t[1], w5}
	if e.bA < 0 {
		k.J[0], k.J[1], k.J[2], k.W[0], k.W[1], k.W[2] = 0, 0, 0, 0, 0, 0
		k.Phiq[0], k.Phiq[1], k.Phiq[2] = 0, 0, 0
	}
	if e.bB < 0 {
		k.J[3], k.J[4], k.J[5], k.W[3], k.W[4], k.W[5] = 0, 0, 0, 0, 0, 0
		k.Phiq[3], k.Phiq[4], k.Phiq[5] = 0, 0, 0
	}
	for a := 0; a < 6; a++ {
		k.Rate -= k.J[a] * k.Vl[a]
		k.Vt += k.W[a] * k.Vl[a]
		k.Phidot += k.Phiq[a] * k.Vl[a]
	}
	// slip acceleration: v̇t = W·q̈ + γ
	gB := -omB * omB * mech.Dot2(k.UB, t)
	if k.Face {
		gB = omB * (mech.Cross2(mech.Sub2(kA.V, vB), t) - k.Rate)
	}
	if e.bB < 0 {
		gB = 0
	}
	k.Gamma = -omA*omA*mech.Dot2(sA, t) - gB - k.Phidot*k.Rate
	if e.bA < 0 {
		k.Gamma = -gB - k.Phidot*k.Rate
	}
}

// holeContact is circle A (centre p, radius r) inside a hole of radius R
// about c: δ = |p − c| + r − R, the normal pushes A back towards c.
func holeContact(p [2]float64, r float64, c [2]float64, R float64) contact.Contact {
	d := mech.Sub2(p, c)
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
func (e *Elem) Normal(x *mech.Ctx, delta, rate float64) (f, fd, fv float64) {
	if x.CS[e.Idx*Stride+SlotClosed] == 0 {
		return 0, 0, 0
	}
	return e.LawForce(x, delta, rate)
}

// touching reports whether the force law pushes at (δ, δ'): δ > 0 and
// F > 0 (the normal state a decision chooses).
func (e *Elem) Touching(x *mech.Ctx, delta, rate float64) bool {
	if delta <= 0 {
		return false
	}
	f, _, _ := e.LawForce(x, delta, rate)
	return f > 0
}

// LawForce evaluates the normal force law without the clamp max(·, 0)
// and with the elastic part extended to δ < 0 as an odd function, so that
// it is smooth across the events; it returns F, ∂F/∂δ and ∂F/∂δ'.
func (e *Elem) LawForce(x *mech.Ctx, delta, rate float64) (f, fd, fv float64) {
	return e.normalLaw(x).Smooth(delta, rate)
}

// normalLaw is the contact's force law at x (its parameters may be
// expressions; a Hunt–Crossley law with a restitution takes the damping
// set at the last impact from the contact state).
func (e *Elem) normalLaw(x *mech.Ctx) contact.NormalLaw {
	l := contact.NormalLaw{K: e.K.Get(x), N: e.exp, C: e.c.Get(x), Dmax: e.dmax}
	switch e.LawKind {
	case LawHertz:
		l.Kind = contact.LawHertzExtended
	case LawHuntCrossley:
		l.Kind = contact.LawHysteresis
		if e.Restitution > 0 {
			l.C = x.CS[e.Idx*Stride+SlotAlpha]
		}
	default:
		l.Kind = contact.LawLinear
	}
	return l
}

// friction returns the friction force on A along T for the current mode
// and its derivatives with respect to the normal force and the slip
// velocity. While sticking (Coulomb) the force is the multiplier in State.
func (e *Elem) friction(x *mech.Ctx, fn, vt float64) (ft, dfn, dvt float64) {
	switch e.Fric {
	case FricCoulomb:
		cs := x.CS[e.Idx*Stride:]
		if cs[SlotMode] == 0 {
			return cs[SlotStick], 0, 0
		}
		mu := e.MuD.Get(x) * cs[SlotMode]
		return -mu * fn, -mu, 0
	case FricRegularized:
		if fn <= 0 {
			return 0, 0, 0
		}
		mu, dmu := contact.StribeckMu(vt, e.MuS.Get(x), e.MuD.Get(x), e.vd)
		th := math.Tanh(vt / e.vs)
		g := mu * th
		dg := dmu*th + mu*(1-th*th)/e.vs
		return -fn * g, -g, -fn * dg
	}
	return 0, 0, 0
}

// forces returns the kinematics, the normal force and the friction force.
func (e *Elem) Forces(x *mech.Ctx, k *Kin) (fn, ft float64) {
	e.Kin(x, k)
	fn, _, _ = e.Normal(x, k.Delta, k.Rate)
	ft, _, _ = e.friction(x, fn, k.Vt)
	return
}

func (e *Elem) Eval(x *mech.Ctx, f, kk, cc []float64) {
	var k Kin
	e.Kin(x, &k)
	fn, fd, fv := e.Normal(x, k.Delta, k.Rate)
	ft, dfn, dvt := e.friction(x, fn, k.Vt)
	for a := 0; a < 6; a++ {
		f[a] += fn*k.J[a] + ft*k.W[a]
	}
	if kk == nil || (fn == 0 && ft == 0) {
		return
	}
	var hj, hw [6][6]float64
	e.Hessians(&k, &hj, &hw)
	// ∂F/∂q = −Fd J − Fv HJᵀv ;  ∂F/∂v = −Fv J
	// ∂vt/∂q = HWᵀv ;            ∂vt/∂v = W
	var dFq, dFv, dvq, dfq, dfv [6]float64
	for b := 0; b < 6; b++ {
		hjv, hwv := 0.0, 0.0
		for a := 0; a < 6; a++ {
			hjv += hj[a][b] * k.Vl[a]
			hwv += hw[a][b] * k.Vl[a]
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
func (e *Elem) Hessians(k *Kin, hj, hw *[6][6]float64) {
	n, t, sA, uB := k.N, k.T, k.SA, k.UB
	sAn, sAt := mech.Cross2(sA, n), mech.Cross2(sA, t)
	uBn, uBt := mech.Cross2(uB, n), mech.Cross2(uB, t)
	for b := 0; b < 6; b++ {
		pb := k.Phiq[b]
		hj[0][b], hj[1][b] = -t[0]*pb, -t[1]*pb
		hj[3][b], hj[4][b] = t[0]*pb, t[1]*pb
		hj[2][b] = -sAt * pb
		hw[0][b], hw[1][b] = n[0]*pb, n[1]*pb
		hw[3][b], hw[4][b] = -n[0]*pb, -n[1]*pb
		hw[2][b] = sAn * pb
		du := [2]float64{k.DuB[0][b], k.DuB[1][b]}
		hj[5][b] = -mech.Cross2(du, n) + uBt*pb
		hw[5][b] = -mech.Cross2(du, t) - uBn*pb
		if k.Face {
			hw[5][b] -= k.J[b]
		}
	}
	hj[2][2] -= mech.Dot2(sA, n)
	hw[2][2] -= mech.Dot2(sA, t)
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

// Potential is the elastic energy stored in the contact: ∫ F_el dδ.
func (e *Elem) Potential(x *mech.Ctx) float64 {
	var k Kin
	e.Kin(x, &k)
	if k.Delta <= 0 {
		return 0
	}
	return e.K.Get(x) * math.Pow(k.Delta, e.exp+1) / (e.exp + 1)
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

func (e *Elem) Channels(name string) []mech.ChannelInfo {
	c := "contact " + name
	return []mech.ChannelInfo{
		{Name: name + ".force", Unit: "N", Group: "force", Description: c + " normal force (≥ 0)"},
		{Name: name + ".penetration", Unit: "m", Group: "position", Description: c + " penetration δ (negative: gap)"},
		{Name: name + ".rate", Unit: "m/s", Group: "velocity", Description: c + " penetration rate δ' (positive: approaching)"},
		{Name: name + ".slip", Unit: "m/s", Group: "velocity", Description: c + " slip velocity of i relative to j along the tangent"},
		{Name: name + ".friction", Unit: "N", Group: "force", Description: c + " friction force on i along the tangent"},
		{Name: name + ".fx", Unit: "N", Group: "force", Description: c + " total contact force on the body of i, x (global)"},
		{Name: name + ".fy", Unit: "N", Group: "force", Description: c + " total contact force on the body of i, y (global)"},
		{Name: name + ".state", Unit: "", Group: "state", Description: c + " state: 0 open, 1 stick, 2 slip"},
		{Name: name + ".energy", Unit: "J", Group: "energy", Description: c + " elastic energy"},
		{Name: name + ".px", Unit: "m", Group: "shape", Description: c + " contact point on i, x (for drawing)"},
		{Name: name + ".py", Unit: "m", Group: "shape", Description: c + " contact point on i, y (for drawing)"},
		{Name: name + ".nx", Unit: "", Group: "shape", Description: c + " unit normal, x (for drawing)"},
		{Name: name + ".ny", Unit: "", Group: "shape", Description: c + " unit normal, y (for drawing)"},
	}
}

// addGeometry draws the contact point and its normal force.
func (e *Elem) Draw(g *mech.Geometry) {
	n := e.name
	g.Contacts = append(g.Contacts, mech.GeomContact{Name: n, PX: n + ".px", PY: n + ".py", FN: n + ".force", NX: n + ".nx", NY: n + ".ny"})
}

func (e *Elem) Channel(x *mech.Ctx, sub int) float64 {
	var k Kin
	fn, ft := e.Forces(x, &k)
	switch sub {
	case chcForce:
		return fn
	case chcPenetration:
		return k.Delta
	case chcRate:
		return k.Rate
	case chcSlip:
		return k.Vt
	case chcFriction:
		return ft
	case chcFX:
		return fn*k.N[0] + ft*k.T[0]
	case chcFY:
		return fn*k.N[1] + ft*k.T[1]
	case chcState:
		if fn <= 0 {
			return 0
		}
		if e.Fric == FricCoulomb && x.CS[e.Idx*Stride+SlotMode] == 0 {
			return 1
		}
		return 2
	case chcEnergy:
		return e.Potential(x)
	case chcPX:
		return k.PA[0]
	case chcPY:
		return k.PA[1]
	case chcNX:
		return k.N[0]
	case chcNY:
		return k.N[1]
	}
	return math.NaN()
}

// vminImpact is the smallest impact speed used to set the Hunt–Crossley
// damping from a restitution coefficient (m/s).
const vminImpact = 1e-3

// ImpactAlpha returns the Hunt–Crossley damping α that gives the target
// restitution for an impact at speed v (0 for other laws).
func (e *Elem) ImpactAlpha(v float64) float64 {
	if e.LawKind != LawHuntCrossley || e.Restitution <= 0 {
		return 0
	}
	return contact.HysteresisDamping(e.Restitution) / math.Max(v, vminImpact)
}

// Name returns the contact's name.
func (e *Elem) Name() string { return e.name }

// Bodies returns the bodies of the contact's sides i and j (-1: ground).
func (e *Elem) Bodies() (a, b int) { return e.bA, e.bB }

// The contact as an element with exact Coulomb friction (mech.Coulomb;
// the engine takes it as one when its friction is "coulomb").

// CoulombIndex returns the contact's discrete-state group.
func (e *Elem) CoulombIndex() int { return e.Idx }

// CoulombName names the contact in errors.
func (e *Elem) CoulombName() string { return "contact " + e.name }

// Slip writes the tangential row W and returns the slip velocity and γ.
func (e *Elem) Slip(x *mech.Ctx, w []float64) (vt, gamma float64) {
	var k Kin
	e.Kin(x, &k)
	copy(w, k.W[:])
	return k.Vt, k.Gamma
}

// SlipTangent writes cv·W + ∂(W·v)/∂q into g.
func (e *Elem) SlipTangent(x *mech.Ctx, cv float64, g []float64) {
	var k Kin
	var hj, hw [6][6]float64
	e.Kin(x, &k)
	e.Hessians(&k, &hj, &hw)
	for b := 0; b < 6; b++ {
		v := cv * k.W[b]
		for a := 0; a < 6; a++ {
			v += hw[a][b] * k.Vl[a]
		}
		g[b] = v
	}
}

// Static returns μ0 F_N.
func (e *Elem) Static(x *mech.Ctx) float64 {
	var k Kin
	e.Kin(x, &k)
	fn, _, _ := e.Normal(x, k.Delta, k.Rate)
	return e.MuS.Get(x) * fn
}

// SlipForce returns −μ F_N dir.
func (e *Elem) SlipForce(x *mech.Ctx, vt, dir float64) float64 {
	var k Kin
	e.Kin(x, &k)
	fn, _, _ := e.Normal(x, k.Delta, k.Rate)
	return -e.MuD.Get(x) * fn * dir
}
