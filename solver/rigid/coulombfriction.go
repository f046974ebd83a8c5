package rigid

import (
	"math"
	"mbfmu/expr"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// coulombFriction is exact Coulomb friction on a joint coordinate
// (<friction model="coulomb">, the default on one-coordinate joints): in
// slip the effort on the coordinate q is
//
//	F = −sign(q̇) F_c − σ2 q̇
//
// (F_c, F_s the levels of the LuGre law from preload, coefficients,
// normal load and radius; with v-stribeck given F_c becomes the Stribeck
// curve g(q̇) = F_c + (F_s − F_c) e^{−(q̇/v_s)²}); in stick
// q̇ is held at zero exactly by a constraint on the coordinate's
// acceleration whose multiplier is the friction effort, within ±F_s. The
// engine decides stick and slip at events with seed 003's linear
// complementarity problem (solver/stickslip.go, mech.Coulomb), as it does
// for the planar contacts: a joint held by friction does not creep, and
// breaks away when the effort it needs passes F_s. A friction with no
// Coulomb level (viscous only) has no discrete state (CoulombIndex −1).
type coulombFriction struct {
	lugre
	name string
	c    *jcoord
	idx  int // discrete-state group; −1: viscous only
	// stribeck: the slip level follows the Stribeck curve g (v-stribeck
	// given); otherwise it is F_c from the instant slip starts
	stribeck bool
}

func newCoulombFriction(b mech.Builder, d *spec.Drive, c *jcoord, l lugre) {
	for _, a := range []string{"bristle-stiffness", "bristle-damping"} {
		if d.Attr[a].Given() {
			b.Errorf(d.Pos, a, "friction %q: %s belongs to model=\"lugre\" (bristles); model=\"coulomb\" (the default) sticks exactly without them", d.Name, a)
		}
	}
	e := &coulombFriction{name: d.Name, c: c, lugre: l, idx: -1, stribeck: d.Attr["v-stribeck"].Given()}
	if d.Attr["preload"].Given() || d.Attr["normal"].Given() {
		e.idx = b.DiscreteSlot()
	}
	b.AddForce(d.Name, e)
}

func (e *coulombFriction) Dofs() []int { return e.c.dofs() }

// CoulombIndex returns the discrete-state group (mech.Coulomb).
func (e *coulombFriction) CoulombIndex() int { return e.idx }

// CoulombName names the friction in errors (mech.Coulomb).
func (e *coulombFriction) CoulombName() string { return "friction " + e.name }

// Slip writes the coordinate's gradient and returns its rate and γ
// (mech.Coulomb).
func (e *coulombFriction) Slip(x *mech.Ctx, w []float64) (vt, gamma float64) {
	_, rate, g := e.c.eval(x, true, w)
	return rate, -g // q̈ = jac·q̈ − γ_row
}

// SlipTangent writes cv·W + ∂(W·v)/∂q (mech.Coulomb).
func (e *coulombFriction) SlipTangent(x *mech.Ctx, cv float64, g []float64) {
	n := len(e.c.dofs())
	var hs [smallDofs * smallDofs]float64
	H := coordMat(x, hs[:], n, false)
	u := own(e.c)
	addHess2(x, e.c, e.c, u, 1, 0, H)
	e.c.eval(x, false, g)
	for b := 0; b < n; b++ {
		v := cv * g[b]
		for a, i := range u.d {
			if i >= 0 {
				v += H[a*n+b] * x.V[i]
			}
		}
		g[b] = v
	}
}

// Static returns the break-away level F_s (mech.Coulomb).
func (e *coulombFriction) Static(x *mech.Ctx) float64 {
	_, fs := e.levels(x)
	return fs
}

// SlipForce returns −dir·level − σ2 vt (mech.Coulomb).
func (e *coulombFriction) SlipForce(x *mech.Ctx, vt, dir float64) float64 {
	f, _ := e.slip(x, vt, dir)
	return f
}

// slip returns the effort in slip in direction md at the rate w,
// −md·level(w) − σ2 w, and its derivative by w: the level is F_c, or the
// Stribeck curve g(w) when v-stribeck is given.
func (e *coulombFriction) slip(x *mech.Ctx, w, md float64) (f, df float64) {
	s2 := e.s2.Get(x)
	fc, fs := e.levels(x)
	if !e.stribeck {
		return -md*fc - s2*w, -s2
	}
	vs := e.vs.Get(x)
	r := w / vs
	ex := math.Exp(-r * r)
	return -md*(fc+(fs-fc)*ex) - s2*w, md*(fs-fc)*ex*2*r/vs - s2
}

// effort returns the effort F on the coordinate and ∂F/∂q̇, with the
// coordinate's gradient in grad.
func (e *coulombFriction) effort(x *mech.Ctx, grad []float64) (f, df float64) {
	_, w, _ := e.c.eval(x, false, grad)
	s2 := e.s2.Get(x)
	if e.idx < 0 {
		return -s2 * w, -s2
	}
	st := x.CS[e.idx*mech.CSStride:]
	md := st[mech.CSMode]
	if md == 0 {
		return st[mech.CSStick], 0
	}
	return e.slip(x, w, md)
}

func (e *coulombFriction) Eval(x *mech.Ctx, f, k, c []float64) {
	n := len(e.c.dofs())
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	F, dF := e.effort(x, grad)
	for a := 0; a < n; a++ {
		f[a] += F * grad[a]
	}
	if k == nil {
		return
	}
	u := own(e.c)
	scalarTangent(x, e.c, e.c, u, 1, 0, grad, -F, 0, -dF, k, c)
}

func (e *coulombFriction) Potential(x *mech.Ctx) float64 { return 0 }

// Channels lists the friction's channels (mech.Channeler).
func (e *coulombFriction) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".effort", Unit: effortUnit(e.c.u), Group: "force", Description: "friction " + name + " effort on the joint's coordinate (torque or force)"},
		{Name: name + ".mode", Unit: "1", Group: "state", Description: "friction " + name + " mode: 0 stick, +1 or −1 slip in that direction of the coordinate"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *coulombFriction) Channel(x *mech.Ctx, sub int) float64 {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	if sub == 1 {
		if e.idx < 0 {
			_, w, _ := e.c.eval(x, false, grad)
			return expr.Sign(w)
		}
		return x.CS[e.idx*mech.CSStride+mech.CSMode]
	}
	f, _ := e.effort(x, grad)
	return f
}
