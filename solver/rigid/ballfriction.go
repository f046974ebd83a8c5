package rigid

import (
	"math"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// ballFriction is friction in a spherical joint (<friction> on a
// <spherical>): the LuGre law of the joint friction (friction below) with
// the relative angular velocity w = ω_j − ω_i (world frame) in place of the
// coordinate's rate and a bristle deflection vector z (three states),
//
//	ż = w − σ0 |w| z / g(|w|),  T = σ0 z + σ1 e^{−(|w|/v_s)²} ż + σ2 w,
//
// T acting on body j as −T and on body i as +T. Within a step z follows
// the exact solution of its equation at the evaluation time's w (frozen),
// as the scalar friction does; the tangent holds ∂T/∂w (by differences).
type ballFriction struct {
	lugre
	name   string
	fi, fj mech.Frame
	d      [12]int
	slot   int // t₀, z (3)
}

func newBallFriction(b mech.Builder, d *spec.Drive, jt *mech.JointInfo) {
	e := &ballFriction{name: d.Name, fi: jt.I.F, fj: jt.J.F,
		lugre: newLugre(b, d, true, "a ball joint's friction from a normal load needs the ball radius it acts at")}
	if d.Attr["coord"].Given() {
		b.Errorf(d.Pos, "coord", "friction %q: a %s joint has no coordinate to choose: its friction acts against the relative rotation", d.Name, jt.Kind)
	}
	for s, f := range []mech.Frame{e.fi, e.fj} {
		for a := 0; a < 6; a++ {
			e.d[6*s+a] = -1
			if f.Body >= 0 {
				e.d[6*s+a] = f.V + a
			}
		}
	}
	e.slot = b.StateSlots(e, 4)
	b.AddForce(d.Name, e)
}

func (e *ballFriction) Dofs() []int { return e.d[:] }

// kin returns the bodies' rotations and the relative angular velocity.
func (e *ballFriction) kin(x *mech.Ctx) (ai, aj mech.Mat3, w mech.Vec3) {
	var ki, kj mech.KinFrame
	e.fi.Eval(x.Q, x.V, &ki)
	e.fj.Eval(x.Q, x.V, &kj)
	return ki.A, kj.A, mech.Sub(kj.W, ki.W)
}

// bristle returns z and ż after dt from z0 at the relative angular
// velocity w.
func (e *ballFriction) bristle(x *mech.Ctx, z0 mech.Vec3, dt float64, w mech.Vec3) (z, zd mech.Vec3) {
	sp := mech.Norm(w)
	g := e.g(x, sp)
	a := 0.0
	if g > 0 {
		a = e.s0.Get(x) * sp / g
	} else if sp != 0 {
		return mech.Vec3{}, mech.Vec3{} // no friction level: nothing deflects the bristles
	}
	if a*dt < 1e-8 {
		z = mech.Add(z0, mech.Scale(dt, mech.Sub(w, mech.Scale(a, z0))))
	} else {
		ea := math.Exp(-a * dt)
		z = mech.Add(mech.Scale(ea, z0), mech.Scale((1-ea)/a, w))
	}
	return z, mech.Sub(w, mech.Scale(a, z))
}

// torque returns T at the relative angular velocity w.
func (e *ballFriction) torque(x *mech.Ctx, w mech.Vec3) mech.Vec3 {
	es := x.ES[e.slot : e.slot+4]
	z, zd := e.bristle(x, mech.Vec3{es[1], es[2], es[3]}, x.Time()-es[0], w)
	t := mech.Scale(e.s0.Get(x), z)
	t = mech.Add(t, mech.Scale(e.damping(x, mech.Norm(w)), zd))
	return mech.Add(t, mech.Scale(e.s2.Get(x), w))
}

func (e *ballFriction) Eval(x *mech.Ctx, f, k, c []float64) {
	var ki, kj mech.KinFrame
	e.fi.Eval(x.Q, x.V, &ki)
	e.fj.Eval(x.Q, x.V, &kj)
	ai, aj, w := ki.A, kj.A, mech.Sub(kj.W, ki.W)
	t := e.torque(x, w)
	ti, tj := mech.MulMTV(&ai, t), mech.MulMTV(&aj, t)
	for a := 0; a < 3; a++ {
		f[3+a] += ti[a]
		f[9+a] -= tj[a]
	}
	if k == nil {
		return
	}
	// D = ∂T/∂w by central differences; C = −∂Q/∂ω_b in the blocks of
	// the bodies' rotations: Aᵢᵀ D Aᵢ, −Aᵢᵀ D Aⱼ, −Aⱼᵀ D Aᵢ, Aⱼᵀ D Aⱼ
	var D mech.Mat3
	h := 1e-7 * math.Max(1e-3, mech.Norm(w))
	for b := 0; b < 3; b++ {
		wp, wm := w, w
		wp[b] += h
		wm[b] -= h
		tp, tm := e.torque(x, wp), e.torque(x, wm)
		for a := 0; a < 3; a++ {
			D[3*a+b] = (tp[a] - tm[a]) / (2 * h)
		}
	}
	blocks := [2]*mech.Mat3{&ai, &aj}
	for s := 0; s < 2; s++ {
		for r := 0; r < 2; r++ {
			sg := 1.0
			if s != r {
				sg = -1
			}
			// A_sᵀ D A_r
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					v := 0.0
					for m := 0; m < 3; m++ {
						for n := 0; n < 3; n++ {
							v += blocks[s][3*m+a] * D[3*m+n] * blocks[r][3*n+b]
						}
					}
					c[(6*s+3+a)*12+6*r+3+b] += sg * v
				}
			}
		}
	}
	// K = −∂Q/∂δθ (body-frame rotation increments): the torques turn with
	// the bodies, Q_i = AᵢᵀT gives −[AᵢᵀT]×, Q_j = −AⱼᵀT gives [AⱼᵀT]×; and
	// w turns with them, ∂w/∂δθᵢ = Aᵢ[ω_bi]×, ∂w/∂δθⱼ = −Aⱼ[ω_bj]×
	tb := [2]mech.Vec3{ti, tj}
	wb := [2]mech.Vec3{ki.Wb, kj.Wb}
	for s := 0; s < 2; s++ {
		sk := mech.Skew(tb[s])
		sg := -1.0
		if s == 1 {
			sg = 1
		}
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				k[(6*s+3+a)*12+6*s+3+b] += sg * sk[3*a+b]
			}
		}
		for r := 0; r < 2; r++ {
			// −∂Q_s/∂δθ_r through w: (sign of Q_s)·(sign of ∂w/∂δθ_r)·(−1) A_sᵀ D A_r [ω_br]×
			sq := 1.0 // Q_i = +AᵢᵀT
			if s == 1 {
				sq = -1
			}
			sw := 1.0 // ∂w/∂δθᵢ = +Aᵢ[ω_bi]×
			if r == 1 {
				sw = -1
			}
			W := mech.Skew(wb[r])
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					v := 0.0
					for m := 0; m < 3; m++ {
						for n := 0; n < 3; n++ {
							for l := 0; l < 3; l++ {
								v += blocks[s][3*m+a] * D[3*m+n] * blocks[r][3*n+l] * W[3*l+b]
							}
						}
					}
					k[(6*s+3+a)*12+6*r+3+b] -= sq * sw * v
				}
			}
		}
	}
}

// Commit stores the time and the bristle deflection (mech.Stateful).
func (e *ballFriction) Commit(x *mech.Ctx, mode mech.CommitMode) {
	es := x.ES[e.slot : e.slot+4]
	_, _, w := e.kin(x)
	switch mode {
	case mech.CommitInit:
		// the steady deflection at the initial relative rotation (at rest: none)
		var z mech.Vec3
		if sp := mech.Norm(w); sp > 0 {
			if g := e.g(x, sp); g > 0 {
				z = mech.Scale(g/(e.s0.Get(x)*sp), w)
			}
		}
		es[1], es[2], es[3] = z[0], z[1], z[2]
	case mech.CommitStep:
		z, _ := e.bristle(x, mech.Vec3{es[1], es[2], es[3]}, x.Time()-es[0], w)
		es[1], es[2], es[3] = z[0], z[1], z[2]
	}
	es[0] = x.Time()
}

// States lists the bristle deflection's components (mech.Stateful).
func (e *ballFriction) States() []mech.StateInfo {
	return []mech.StateInfo{{Slot: e.slot + 1, Name: e.name + ".bristle-x", Unit: "rad"},
		{Slot: e.slot + 2, Name: e.name + ".bristle-y", Unit: "rad"}, {Slot: e.slot + 3, Name: e.name + ".bristle-z", Unit: "rad"}}
}

// Rates writes ż at x, z as stored (mech.Stateful).
func (e *ballFriction) Rates(x *mech.Ctx, dst []float64) {
	_, _, w := e.kin(x)
	es := x.ES[e.slot : e.slot+4]
	_, zd := e.bristle(x, mech.Vec3{es[1], es[2], es[3]}, 0, w)
	copy(dst, zd[:])
}

func (e *ballFriction) Potential(x *mech.Ctx) float64 { return 0 }

// Channels lists the friction torque on body j (world frame) and its size
// (mech.Channeler).
func (e *ballFriction) Channels(name string) []mech.ChannelInfo { return ballTorqueChannels(name) }

// ballTorqueChannels lists a ball or universal joint friction's torque on
// body j (world frame) and its size.
func ballTorqueChannels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".tx", Unit: "N*m", Group: "force", Description: "friction " + name + " torque on the body of marker j, world x"},
		{Name: name + ".ty", Unit: "N*m", Group: "force", Description: "friction " + name + " torque on the body of marker j, world y"},
		{Name: name + ".tz", Unit: "N*m", Group: "force", Description: "friction " + name + " torque on the body of marker j, world z"},
		{Name: name + ".effort", Unit: "N*m", Group: "force", Description: "friction " + name + " torque's size"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *ballFriction) Channel(x *mech.Ctx, sub int) float64 {
	_, _, w := e.kin(x)
	t := e.torque(x, w)
	if sub == 3 {
		return mech.Norm(t)
	}
	return -t[sub]
}
