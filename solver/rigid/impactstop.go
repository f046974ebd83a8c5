package rigid

import (
	"math"

	"mbfmu/contact"
	"mbfmu/solver/mech"
)

// impactStop is an end stop with a coefficient of restitution
// (<stop restitution>): the Hunt–Crossley law s = k δ^n (1 + α δ̇), with
// α = x(e)/v set at every first touch from the speed v the coordinate
// reaches the limit with (contact.HysteresisDamping: the law's exact
// restitution is then e), as the contacts' hunt-crossley law with a
// restitution does. The touch is located within the step from the
// coordinate, its rate and its acceleration at the step's start (the
// element's states); α is a state while the stop is closed.
// Its coordinate, limits, stiffness k and exponent (e, unused damping
// cd) are the plain stop's, and so are its potential and channel list.
type impactStop struct {
	stop
	rest mech.Param
	slot int // t₀, q₀, v₀, t₋₁, v₋₁, α at the lower limit, α at the upper
}

func (e *impactStop) Params() []*mech.Param { return append(e.stop.Params(), &e.rest) }

// alpha returns α for a contact at the limit lim (side 0 lower, 1 upper)
// at x: the stored one while closed, else from the touch speed.
func (e *impactStop) alpha(x *mech.Ctx, side int, lim, rate float64) float64 {
	es := x.ES[e.slot : e.slot+7]
	if a := es[5+side]; a > 0 {
		return a
	}
	t0, q0, v0 := es[0], es[1], es[2]
	a0 := 0.0
	if dt := t0 - es[3]; dt > 0 {
		a0 = (v0 - es[4]) / dt
	}
	// q₀ + v₀ τ + ½ a₀ τ² = lim for the first τ in [0, t − t₀]
	vt := rate
	if h := x.Time() - t0; h > 0 {
		d := lim - q0
		var tau float64
		switch {
		case a0 == 0 && v0 != 0:
			tau = d / v0
		case a0 != 0:
			disc := v0*v0 + 2*a0*d
			if disc >= 0 {
				r1 := (-v0 + math.Sqrt(disc)) / a0
				r2 := (-v0 - math.Sqrt(disc)) / a0
				tau = math.Inf(1)
				for _, r := range []float64{r1, r2} {
					if r >= 0 && r < tau {
						tau = r
					}
				}
			} else {
				tau = math.Inf(1)
			}
		default:
			tau = math.Inf(1)
		}
		if tau >= 0 && tau <= h {
			vt = v0 + a0*tau
		}
	}
	v := math.Abs(vt)
	if v == 0 {
		return 0
	}
	return contact.HysteresisDamping(e.rest.Get(x)) / v
}

// state returns the effort s on the coordinate (acting as −s; ≥ 0 at the
// upper limit), ∂s/∂q, ∂s/∂q̇, the closed side (−1 none) and α.
func (e *impactStop) state(x *mech.Ctx, grad []float64) (s, kk, cc float64, side int, al float64) {
	v, rate, _ := e.c.eval(x, false, grad)
	k, n := e.k.Get(x), e.e.Get(x)
	var del, dd, sg float64
	switch hi, lo := e.hi.Get(x), e.lo.Get(x); {
	case v > hi:
		side, del, dd, sg = 1, v-hi, rate, 1
		al = e.alpha(x, 1, hi, rate)
	case v < lo:
		side, del, dd, sg = 0, lo-v, -rate, -1
		al = e.alpha(x, 0, lo, rate)
	default:
		return 0, 0, 0, -1, 0
	}
	pe := math.Pow(del, n)
	f := k * pe * (1 + al*dd)
	if f <= 0 {
		return 0, 0, 0, side, al // separating faster than the law pushes: open
	}
	return sg * f, k * n * pe / del * (1 + al*dd), k * pe * al, side, al
}

func (e *impactStop) Eval(x *mech.Ctx, f, k, c []float64) {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	s, kk, cc, _, _ := e.state(x, grad)
	e.apply(x, grad, s, kk, cc, f, k, c)
}

// Commit stores the time, the coordinate and its rate (and the previous
// ones) and α while closed (mech.Stateful).
func (e *impactStop) Commit(x *mech.Ctx, mode mech.CommitMode) {
	es := x.ES[e.slot : e.slot+7]
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	s, _, _, side, al := e.state(x, grad)
	v, rate, _ := e.c.eval(x, false, grad)
	es[5], es[6] = 0, 0
	if side >= 0 && (s != 0 || mode != mech.CommitStep) {
		es[5+side] = al
	}
	if mode == mech.CommitStep {
		es[3], es[4] = es[0], es[2]
	} else {
		es[3], es[4] = x.Time(), rate
	}
	es[0], es[1], es[2] = x.Time(), v, rate
}

// States lists none: the stored quantities locate touches and hold α;
// the linearisation sees the law's stiffness and damping (mech.Stateful).
func (e *impactStop) States() []mech.StateInfo { return nil }

// Rates writes nothing (no continuous states).
func (e *impactStop) Rates(x *mech.Ctx, dst []float64) {}

// Channel evaluates channel sub (mech.Channeler).
func (e *impactStop) Channel(x *mech.Ctx, sub int) float64 {
	var gs [smallDofs]float64
	grad := coordVec(x, gs[:], len(e.c.dofs()), 2)
	s, _, _, _, _ := e.state(x, grad)
	return -s
}
