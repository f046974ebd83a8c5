package rigid

import (
	"math"

	"mbfmu/solver/mech"
)

// couplerLoss is the loss of an exact coupler with an efficiency η
// (<coupler efficiency>): the coupler passes the effort its constraint
// carries, τ_k = −a_k λ on coordinate k, and the side that receives power
// (τ_k q̇_k > 0) gets an extra effort −(1 − η)|τ_k| against its motion, so
// that it receives η of the power the other side gives. The power's
// direction and the motion's sign are smoothed over lossSpeed; the
// engine takes the tangent by differences (it reads λ).
type couplerLoss struct {
	ci, cj *jcoord
	u      union
	a      [2]float64
	eta    mech.Param
	lam    mech.Measure
}

// lossSpeed is the speed (rad/s or m/s) over which the loss's direction
// is smoothed.
const lossSpeed = 1e-3

func (e *couplerLoss) Dofs() []int                 { return e.u.d }
func (e *couplerLoss) Params() []*mech.Param       { return []*mech.Param{&e.eta} }
func (e *couplerLoss) NumericTangent() bool        { return true }
func (e *couplerLoss) Potential(*mech.Ctx) float64 { return 0 }

// efforts returns the loss efforts on the two coordinates and their
// gradients (union dofs), and the power lost.
func (e *couplerLoss) efforts(x *mech.Ctx, gi, gj []float64) (li, lj, lost float64) {
	wi, wj := e.u.rates(x, e.ci, e.cj, 1, gi, gj)
	lam := e.lam.Eval(x)
	ti, tj := -e.a[0]*lam, -e.a[1]*lam
	if ti == 0 && tj == 0 {
		return 0, 0, 0
	}
	loss := 1 - e.eta.Get(x)
	// σ = +1 where i receives power (j drives), −1 where i gives it
	sg := math.Tanh(ti * wi / (math.Abs(ti) * lossSpeed))
	li = -loss * math.Abs(ti) * math.Tanh(wi/lossSpeed) * (1 + sg) / 2
	lj = -loss * math.Abs(tj) * math.Tanh(wj/lossSpeed) * (1 - sg) / 2
	return li, lj, -(li*wi + lj*wj)
}

func (e *couplerLoss) Eval(x *mech.Ctx, f, k, c []float64) {
	n := len(e.u.d)
	var gi, gj [24]float64
	li, lj, _ := e.efforts(x, gi[:n], gj[:n])
	for a := 0; a < n; a++ {
		f[a] += li*gi[a] + lj*gj[a]
	}
}

// Channels lists the power the coupler loses (mech.Channeler).
func (e *couplerLoss) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{{Name: name + ".loss", Unit: "W", Group: "force", Description: "power lost in the coupler (its efficiency)"}}
}

// Channel evaluates the power lost (mech.Channeler).
func (e *couplerLoss) Channel(x *mech.Ctx, sub int) float64 {
	var gi, gj [24]float64
	n := len(e.u.d)
	_, _, lost := e.efforts(x, gi[:n], gj[:n])
	return lost
}

// lossyCoupler is a compliant coupler with an efficiency η: the mesh
// effort reaches the side that receives power (the mesh takes power from
// the other) scaled by η, the direction smoothed over lossSpeed as for the
// exact couplers. The engine takes its tangent by differences.
type lossyCoupler struct {
	*compliantCoupler
	eta mech.Param
}

func (e *lossyCoupler) Params() []*mech.Param {
	return append(e.compliantCoupler.Params(), &e.eta)
}
func (e *lossyCoupler) NumericTangent() bool { return true }

// factors returns the mesh effort s, the gradients of the two
// coordinates (union dofs) and the share of s each side receives.
func (e *lossyCoupler) factors(x *mech.Ctx, gi, gj []float64) (s, fi, fj, wi, wj float64) {
	var grad [24]float64
	_, _, s, _, _ = e.state(x, grad[:len(e.u.d)])
	wi, wj = e.u.rates(x, e.ci, e.cj, e.r, gi, gj)
	if s == 0 {
		return 0, 1, 1, wi, wj
	}
	loss := 1 - e.eta.Get(x)
	// σ = +1 where the mesh takes power from i (i drives)
	sg := math.Tanh(s * wi / (math.Abs(s) * lossSpeed))
	fj = 1 - loss*(1+sg)/2
	fi = 1 - loss*(1-sg)/2
	return s, fi, fj, wi, wj
}

func (e *lossyCoupler) Eval(x *mech.Ctx, f, k, c []float64) {
	n := len(e.u.d)
	var gi, gj [24]float64
	s, fi, fj, _, _ := e.factors(x, gi[:n], gj[:n])
	for a := 0; a < n; a++ {
		f[a] -= s * (fi*gi[a] + fj*gj[a])
	}
}

// Channels adds the power lost to the coupler's (mech.Channeler).
func (e *lossyCoupler) Channels(name string) []mech.ChannelInfo {
	return append(e.compliantCoupler.Channels(name), mech.ChannelInfo{Name: name + ".loss", Unit: "W", Group: "force", Description: "power lost in the coupler (its efficiency)"})
}

// Channel evaluates channel sub (mech.Channeler): the efforts as they
// act (scaled by the efficiency), the mismatch, the power lost.
func (e *lossyCoupler) Channel(x *mech.Ctx, sub int) float64 {
	var gi, gj [24]float64
	s, fi, fj, wi, wj := e.factors(x, gi[:len(e.u.d)], gj[:len(e.u.d)])
	switch sub {
	case 0:
		return -s * fi
	case 1:
		return -e.r * s * fj
	case 2:
		return e.compliantCoupler.Channel(x, 2)
	}
	return lostPower(s, fi, fj, wi, e.r*wj)
}

// lostPower is the power dissipated by the efficiency: with the efforts
// −s fᵢ on coordinate i and −s fⱼ r on j the coordinates receive
// −s (fᵢ wᵢ + fⱼ r wⱼ), against −s (wᵢ + r wⱼ) without losses (what the
// mesh's spring and damper take); the difference is lost.
func lostPower(s, fi, fj, wi, rwj float64) float64 {
	return s*(fi*wi+fj*rwj) - s*(wi+rwj)
}

// rates returns the rates of coordinates ci and cj and writes their
// gradients over the union's dofs into gi and gj (cj's scaled by rj).
func (u *union) rates(x *mech.Ctx, ci, cj *jcoord, rj float64, gi, gj []float64) (wi, wj float64) {
	var ji, jj [12]float64
	_, wi, _ = ci.eval(x, false, ji[:len(ci.dofs())])
	_, wj, _ = cj.eval(x, false, jj[:len(cj.dofs())])
	clear(gi)
	clear(gj)
	for k, p := range u.mi[:len(ci.dofs())] {
		if p >= 0 {
			gi[p] += ji[k]
		}
	}
	for k, p := range u.mj[:len(cj.dofs())] {
		if p >= 0 {
			gj[p] += rj * jj[k]
		}
	}
	return wi, wj
}
