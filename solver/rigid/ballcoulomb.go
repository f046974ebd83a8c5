package rigid

import (
	"math"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// ballCoulomb is exact Coulomb friction in a spherical or universal joint
// (<friction model="coulomb">, the default): a friction torque T on the
// body of marker j (−T on marker i's) that holds the relative angular
// velocity w = ω_j − ω_i at zero exactly while |T| ≤ F_s (stick), and is
//
//	T = −g(|w|) w/|w| − σ2 w
//
// in slip (g = F_c, or the Stribeck curve with v-stribeck given; F_c, F_s
// the levels of the LuGre law from preload, coefficients, normal load and
// ball radius). The torque is one vector within the cone |T| ≤ F_s: the
// element owns an isotropic set of rows (mech.CoulombSet), three about
// the world axes on a ball joint, two about the cross's arms zᵢ and zⱼ
// on a universal joint (the joint itself holds the third), which the
// engine decides as it does a spatial contact's tangent rows
// (solver/stickslip.go): stick by constraints on the rows' accelerations
// whose multipliers are the torque's components, slip against the slip
// velocity, events where a slip stops or a stick's torque reaches F_s.
type ballCoulomb struct {
	lugre
	name      string
	fi, fj    mech.Frame
	universal bool
	stribeck  bool
	d         [12]int
	grp       int     // the first of the rows' discrete-state groups
	mob       float64 // rotational mobility Σ 1/J_min of the bodies (1/(kg·m²))
	rows      []mech.Coulomb
}

func newBallCoulomb(b mech.Builder, d *spec.Drive, jt *mech.JointInfo, l lugre) {
	for _, a := range []string{"bristle-stiffness", "bristle-damping"} {
		if d.Attr[a].Given() {
			b.Errorf(d.Pos, a, "friction %q: %s belongs to model=\"lugre\" (bristles); model=\"coulomb\" (the default) sticks exactly without them", d.Name, a)
		}
	}
	e := &ballCoulomb{name: d.Name, fi: jt.I.F, fj: jt.J.F, lugre: l,
		universal: jt.Kind == mech.JointUniversal, stribeck: d.Attr["v-stribeck"].Given()}
	for s, f := range []mech.Frame{e.fi, e.fj} {
		for a := 0; a < 6; a++ {
			e.d[6*s+a] = -1
			if f.Body >= 0 {
				e.d[6*s+a] = f.V + a
			}
		}
		if f.Body >= 0 {
			bi := b.BodyInfo(f.Body)
			if jm := math.Min(bi.Inertia[0], math.Min(bi.Inertia[4], bi.Inertia[8])); jm > 0 {
				e.mob += 1 / jm
			}
		}
	}
	n := 3
	if e.universal {
		n = 2
	}
	if !d.Attr["preload"].Given() && !d.Attr["normal"].Given() {
		// viscous only: no stick, no rows
		e.grp = -1
		b.AddForce(d.Name, e)
		return
	}
	for r := 0; r < n; r++ {
		g := b.DiscreteSlot()
		if r == 0 {
			e.grp = g
		}
		e.rows = append(e.rows, &ballRow{e: e, k: r})
	}
	b.AddForce(d.Name, e)
}

func (e *ballCoulomb) Dofs() []int { return e.d[:] }

// NumericTangent: the engine takes K and C by differences (the torque's
// direction in slip, the normal load's reactions).
func (e *ballCoulomb) NumericTangent() bool { return true }

// CoulombRows returns the friction's rows (mech.CoulombRows).
func (e *ballCoulomb) CoulombRows() []mech.Coulomb { return e.rows }

// kin evaluates both frames and returns the relative angular velocity.
func (e *ballCoulomb) kin(x *mech.Ctx, ki, kj *mech.KinFrame) mech.Vec3 {
	e.fi.Eval(x.Q, x.V, ki)
	e.fj.Eval(x.Q, x.V, kj)
	return mech.Sub(kj.W, ki.W)
}

// axes returns the rows' directions (world): x, y, z on a ball joint, the
// cross's arms zᵢ, zⱼ on a universal joint.
func (e *ballCoulomb) axes(ki, kj *mech.KinFrame) (u [3]mech.Vec3) {
	if e.universal {
		return [3]mech.Vec3{e.fi.Axis(ki, 2), e.fj.Axis(kj, 2)}
	}
	return [3]mech.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
}

// level returns the slip level at the slip speed sp.
func (e *ballCoulomb) level(x *mech.Ctx, sp float64) float64 {
	if e.stribeck {
		return e.g(x, sp)
	}
	fc, _ := e.levels(x)
	return fc
}

// torque returns the friction torque on marker j's body (world) in the
// present mode: the stick multipliers along the rows' axes while
// sticking; while slipping −g (w + v₀ d)/|w + v₀ d| − σ2 w, d the slip
// direction the engine keeps in the stick slots and v₀ = 1e-8 +
// h F_c/J the speed friction changes in a step (mech.CoulombSet's
// SlipBlend; h kept in the lead's α slot): above v₀ the torque follows the
// slip velocity, below it holds the direction of the decision.
func (e *ballCoulomb) torque(x *mech.Ctx, ki, kj *mech.KinFrame) mech.Vec3 {
	w := e.kin(x, ki, kj)
	t := mech.Scale(-e.s2.Get(x), w)
	if e.grp < 0 {
		return t
	}
	u := e.axes(ki, kj)
	var d mech.Vec3
	for r := range e.rows {
		d = mech.Add(d, mech.Scale(x.CS[(e.grp+r)*mech.CSStride+mech.CSStick], u[r]))
	}
	st := x.CS[e.grp*mech.CSStride:]
	if st[mech.CSMode] == 0 {
		return d // w = 0 in stick: the viscous part is nothing
	}
	sp := mech.Norm(w)
	lv := e.level(x, sp)
	v := mech.Add(w, mech.Scale(1e-8+st[mech.CSAlpha]*lv*e.mob, d))
	if nv := mech.Norm(v); nv > 0 {
		t = mech.Add(t, mech.Scale(-lv/nv, v))
	}
	return t
}

func (e *ballCoulomb) Eval(x *mech.Ctx, f, k, c []float64) {
	var ki, kj mech.KinFrame
	t := e.torque(x, &ki, &kj)
	ti, tj := mech.MulMTV(&ki.A, t), mech.MulMTV(&kj.A, t)
	for a := 0; a < 3; a++ {
		f[3+a] -= ti[a]
		f[9+a] += tj[a]
	}
}

func (e *ballCoulomb) Potential(x *mech.Ctx) float64 { return 0 }

// Channels lists the friction torque on body j (world frame), its size and
// the mode (mech.Channeler).
func (e *ballCoulomb) Channels(name string) []mech.ChannelInfo {
	return append(ballTorqueChannels(name),
		mech.ChannelInfo{Name: name + ".mode", Unit: "1", Group: "state", Description: "friction " + name + " mode: 0 stick, 1 slip"})
}

// Channel evaluates channel sub (mech.Channeler).
func (e *ballCoulomb) Channel(x *mech.Ctx, sub int) float64 {
	if sub == 4 {
		if e.grp < 0 {
			return 1
		}
		return math.Abs(x.CS[e.grp*mech.CSStride+mech.CSMode])
	}
	var ki, kj mech.KinFrame
	t := e.torque(x, &ki, &kj)
	if sub == 3 {
		return mech.Norm(t)
	}
	return t[sub]
}

// ballRow is one axis of a ball or universal joint's exact Coulomb
// friction (mech.Coulomb, mech.CoulombSet): the element applies the
// torque itself (Eval here adds nothing).
type ballRow struct {
	e *ballCoulomb
	k int
}

func (r *ballRow) Dofs() []int                         { return r.e.d[:] }
func (r *ballRow) Eval(x *mech.Ctx, f, k, c []float64) {}
func (r *ballRow) Potential(x *mech.Ctx) float64       { return 0 }

// CoulombIndex returns the row's discrete-state group.
func (r *ballRow) CoulombIndex() int { return r.e.grp + r.k }

// CoulombName names the friction in errors.
func (r *ballRow) CoulombName() string { return "friction " + r.e.name }

// Set returns the first row's group and the row count (mech.CoulombSet).
func (r *ballRow) Set() (lead, n int) { return r.e.grp, len(r.e.rows) }

// Slip writes the row W (the generalized force of a unit torque about
// the row's axis on j's body, its opposite on i's) and returns the slip
// velocity u·(ω_j − ω_i); γ is taken by the engine (mech.CoulombSet).
func (r *ballRow) Slip(x *mech.Ctx, w []float64) (vt, gamma float64) {
	var ki, kj mech.KinFrame
	rel := r.e.kin(x, &ki, &kj)
	u := r.e.axes(&ki, &kj)[r.k]
	ui, uj := mech.MulMTV(&ki.A, u), mech.MulMTV(&kj.A, u)
	clear(w)
	for a := 0; a < 3; a++ {
		if r.e.d[3+a] >= 0 {
			w[3+a] = -ui[a]
		}
		if r.e.d[9+a] >= 0 {
			w[9+a] = uj[a]
		}
	}
	return mech.Dot(u, rel), 0
}

// SlipTangent writes cv·W; the engine adds ∂vt/∂q by differences.
func (r *ballRow) SlipTangent(x *mech.Ctx, cv float64, g []float64) {
	r.Slip(x, g)
	for a := range g {
		g[a] *= cv
	}
}

// Static returns the break-away level F_s.
func (r *ballRow) Static(x *mech.Ctx) float64 {
	_, fs := r.e.levels(x)
	return fs
}

// Kinetic returns the slip level at the present slip speed.
func (r *ballRow) Kinetic(x *mech.Ctx) float64 {
	var ki, kj mech.KinFrame
	return r.e.level(x, mech.Norm(r.e.kin(x, &ki, &kj)))
}

// SlipBlend returns v₀ = 1e-8 rad/s + h F_c/J (ballCoulomb.torque).
func (r *ballRow) SlipBlend(x *mech.Ctx) float64 {
	return 1e-8 + x.CS[r.e.grp*mech.CSStride+mech.CSAlpha]*r.Kinetic(x)*r.e.mob
}

// SlipForce returns −dir times the slip level (the row alone).
func (r *ballRow) SlipForce(x *mech.Ctx, vt, dir float64) float64 { return -dir * r.Kinetic(x) }

// Joint: a joint's friction (mech.CoulombSet).
func (r *ballRow) Joint() bool { return true }

// Touch: a joint's friction always acts.
func (r *ballRow) Touch(x *mech.Ctx, closed bool) (float64, bool) { return 1, true }
