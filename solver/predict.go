package solver

import (
	"math"

	"mbfmu/solver/mech"
)

// The predictor of the generalized-α family (generalized-α, HHT, Newmark).
//
// Newton's method starts each step from a guess of the new accelerations q̈
// and multipliers λ. Holding them constant leaves a first correction of
// order h·q⃛, which never meets the velocity test in one iteration, so
// every step cost at least two residual evaluations and solves. A smooth
// trend alone is not enough to extrapolate either: the accelerations and
// multipliers of these schemes carry a slowly varying sawtooth, the
// algorithmic mode with amplification factor near −1 (exactly −1 for
// ρ∞ = 1, which keeps it forever; it is excited by the position projection
// and by the constraint forces). With four steps of history the predictor
// fits, per unknown, a quadratic in time plus (−1)ⁿ and n(−1)ⁿ, and
// extrapolates it one step:
//
//	x₁ ≈ x₀ + 2x₋₁ − 2x₋₂ − x₋₃ + x₋₄     (equal steps)
//
// Measured on A01 (h = 0.8 ms, ρ∞ = 1) this cut the Newton iterations per
// step from 2.45 to 1.05 and the refactorisations from 0.45 to 0.007 per
// step; on the slider–crank from 2.36 to 1.06; on the cart-pole from 2.34 to
// 1.32; the IFToMM A02 double four-bar now steps through its singular
// positions with every scheme. A stiff ANCF beam gains nothing (2.8
// iterations either way): after each step predScore compares the
// extrapolation with holding, and the next step uses whichever fitted
// better. With
// unequal steps (adaptive stepping, a fractional last sub-step) it falls
// back to a quadratic through the last three values, and to lower orders
// while the history fills or when the step changes by more than a factor of
// two. The predictor only sets the starting point: the converged step
// satisfies the same equations and tolerance as before.
//
// The history is part of the state (s.ph, inside s.core), so saving and
// restoring a state, retries and step doubling keep it consistent; it is
// forgotten where the accelerations jump (Init, static and kinematic
// analyses, contact events).

// predBack is the number of past steps the predictor remembers.
const predBack = 4

// predLen is the length of the predictor's memory in the state: per
// unknown (q̈ then λ) its last predBack values, newest first; per rotation
// the frame they are remembered in; then the sizes of those steps, newest
// first; the number of valid entries; and 1 when the next step holds q̈
// and λ instead of extrapolating them.
func predLen(nq, nc, nrot int) int { return (nq+nc)*predBack + nrot + predBack + 2 }

// predMem returns the predictor's memory of past values (predBack per
// unknown, newest first) and, per rotation, 1 while its angular
// accelerations are remembered in the world frame (a fast turn, see
// predict), 0 while in the body frame.
func (s *State) predMem() (hist, world []float64) {
	n := (len(s.a) + len(s.lam)) * predBack
	return s.ph[:n], s.ph[n : len(s.ph)-predBack-2]
}

// predCache holds the weights last computed by predWeights and the step
// sizes they were computed for (work space, not part of the snapshot: it is
// a pure function of the memory).
type predCache struct {
	key [predBack + 2]float64 // h, the remembered steps, the count
	w   [predBack + 1]float64
}

// restartHistory forgets the integrator history (BDF and predictor): the
// next step starts as from a consistent initial state, with a fresh
// iteration matrix.
func (s *State) restartHistory() {
	s.needFactor = true
	s.hp, s.nhist = 0, 0
	s.ph[len(s.ph)-2], s.ph[len(s.ph)-1] = 0, 0
}

// predWeights returns the weights w of the prediction x₁ = w₀x₀ + Σ wₖx₋ₖ
// for a step of size h from the current memory.
func (s *State) predWeights(h float64) *[predBack + 1]float64 {
	steps := s.ph[len(s.ph)-predBack-2 : len(s.ph)-2]
	n := int(s.ph[len(s.ph)-2])
	c := &s.pc
	key := [predBack + 2]float64{h, steps[0], steps[1], steps[2], steps[3], float64(n)}
	if key == c.key {
		return &c.w
	}
	c.key = key
	c.w = [predBack + 1]float64{1}
	// usable history: steps not too different from h
	k := 0
	for k < n && steps[k] >= 0.5*h && steps[k] <= 2*h {
		k++
	}
	uniform := k == predBack
	for _, hk := range steps[:k] {
		uniform = uniform && math.Abs(hk-h) <= 1e-9*h
	}
	switch {
	case uniform:
		c.w = [predBack + 1]float64{1, 2, -2, -1, 1}
	case k >= 2:
		h1, h2 := steps[0], steps[1]
		c.w[0] = (h + h1) * (h + h1 + h2) / (h1 * (h1 + h2))
		c.w[1] = -h * (h + h1 + h2) / (h1 * h2)
		c.w[2] = h * (h + h1) / ((h1 + h2) * h2)
	case k == 1:
		c.w[0] = (h + steps[0]) / steps[0]
		c.w[1] = -h / steps[0]
	}
	return &c.w
}

// predict replaces s.a and s.lam by their predicted values at the end of
// a step of size h and pushes their current values into the memory. The
// extrapolation is kept in s.pred; it is used unless the memory says that
// holding the values fitted better in the last step (see predScore).
//
// The angular accelerations of a fast-turning rotation (body frame) are
// remembered and extrapolated in the world frame, ω̇_w = A ω̇_b: a body
// spinning fast turns its body-frame accelerations with it (the heavy
// top's by 0.15 rad a step), which no polynomial follows, while in the
// world frame they change with the slow precession and nutation (the
// top's extrapolation error 8.4 → 0.0015 rad/s²). toBodyEnd then brings
// the prediction into the body frame of the end of the step. A rotation
// changes frames when its turn per step h|ω| passes rotFast (back below
// rotFast/2), its memory turned with its present orientation.
func (m *Model) predict(s *State, h float64) {
	w := s.predWeights(h)
	nq := len(s.a)
	hold := s.ph[len(s.ph)-1] != 0
	hist, world := s.predMem()
	copy(s.aPrev, s.a)
	for k, r := range m.rots {
		i := r.v
		v := (*[3]float64)(s.v[i : i+3])
		t2 := h * h * (v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		was := world[k] != 0
		now := t2 > rotFast*rotFast || was && t2 > rotFast*rotFast/4
		if !was && !now {
			continue
		}
		A := &s.rm[k]
		*A = mech.QuatMat(mech.Quat(s.q[r.q : r.q+4]))
		if now != was {
			for j := 0; j < predBack; j++ {
				x := mech.Vec3{hist[i*predBack+j], hist[(i+1)*predBack+j], hist[(i+2)*predBack+j]}
				if now {
					x = mech.MulMV(A, x)
				} else {
					x = mech.MulMTV(A, x)
				}
				hist[i*predBack+j], hist[(i+1)*predBack+j], hist[(i+2)*predBack+j] = x[0], x[1], x[2]
			}
			world[k] = 0
			if now {
				world[k] = 1
			}
		}
		if now {
			a := (*[3]float64)(s.a[i : i+3])
			*a = mech.MulMV(A, *a)
		}
	}
	extrapolate(w, hold, s.a, hist[:nq*predBack], s.pred[:nq])
	extrapolate(w, hold, s.lam, hist[nq*predBack:], s.pred[nq:])
	steps := s.ph[len(s.ph)-predBack-2 : len(s.ph)-2]
	copy(steps[1:], steps[:predBack-1])
	steps[0] = h
	s.ph[len(s.ph)-2] = float64(min(int(s.ph[len(s.ph)-2])+1, predBack))
	if len(m.rots) > 0 {
		m.toBodyEnd(s, h, hold)
	}
}

// rotFast is the turn per step (rad) above which a rotation's angular
// accelerations are extrapolated in the world frame (predict).
const rotFast = 0.02

// toBodyEnd turns the world-frame predictions of the fast rotations'
// angular accelerations (s.pred) into the body frame at the end of the
// step, a₁ = A₁ᵀ ω̇_w with A₁ = A₀ exp(Δ), where the step's rotation
// Δ = h v₀ + h²((½ − β) α₀ + β α₁) depends on a₁ through α₁ (by about
// h²β): two fixed-point passes from A₀ᵀ ω̇_w (one for a turn below
// 0.01 rad, as in the hysteresis band of predict). s.a gets them too, or
// back its values at the start of the step when the step holds them.
func (m *Model) toBodyEnd(s *State, h float64, hold bool) {
	in := &m.integ
	am, af, b := in.am, in.af, in.b
	hb := h * h * b * (1 - af) / (1 - am)
	_, world := s.predMem()
	for k, r := range m.rots {
		if world[k] == 0 {
			continue
		}
		i := r.v
		pw := (*[3]float64)(s.pred[i : i+3])
		b0 := mech.MulMTV(&s.rm[k], *pw)
		var d0 mech.Vec3 // Δ without its a₁ term
		for c := range d0 {
			a0, aa0 := s.aPrev[i+c], s.aa[i+c]
			d0[c] = h*s.v[i+c] + h*h*((0.5-b)*aa0+b*(af*a0-am*aa0)/(1-am))
		}
		d := mech.Vec3{d0[0] + hb*b0[0], d0[1] + hb*b0[1], d0[2] + hb*b0[2]}
		var a1 mech.Vec3
		if t2 := mech.Dot(d, d); t2 < 1e-4 {
			// a slow turn (below 0.01 rad a step): one pass, to second
			// order (relative error below 2e-7)
			x := mech.Cross(d, b0)
			y := mech.Cross(d, x)
			a1 = mech.Vec3{b0[0] - x[0] + 0.5*y[0], b0[1] - x[1] + 0.5*y[1], b0[2] - x[2] + 0.5*y[2]}
		} else {
			a1 = rotateBack(d, b0)
			a1 = rotateBack(mech.Vec3{d0[0] + hb*a1[0], d0[1] + hb*a1[1], d0[2] + hb*a1[2]}, b0)
		}
		*pw = a1
		a := (*[3]float64)(s.a[i : i+3])
		if hold {
			copy(a[:], s.aPrev[i:i+3])
		} else {
			*a = a1
		}
	}
}

// rotateBack returns exp(−[d]×) v, v turned by the rotation vector −d
// (Rodrigues' formula). It only shapes a prediction: for the rotation of a
// step (|d| < 0.22 rad) the series of sin θ/θ and (1 − cos θ)/θ² stop at
// θ⁶ (relative error below 2e-11).
func rotateBack(d, v mech.Vec3) mech.Vec3 {
	a2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
	var sn, cs float64 // sin θ/θ, (1 − cos θ)/θ²
	if a2 < mech.TanSeriesA2 {
		sn = 1 + a2*(-1.0/6+a2*(1.0/120+a2*(-1.0/5040)))
		cs = 0.5 + a2*(-1.0/24+a2*(1.0/720+a2*(-1.0/40320)))
	} else {
		t := math.Sqrt(a2)
		s, c := math.Sincos(t)
		sn, cs = s/t, (1-c)/a2
	}
	x := mech.Cross(d, v)
	y := mech.Cross(d, x)
	return mech.Vec3{v[0] - sn*x[0] + cs*y[0], v[1] - sn*x[1] + cs*y[1], v[2] - sn*x[2] + cs*y[2]}
}

// extrapolate predicts each x[i] with the weights w from its history
// p[i*predBack:], stores the prediction in e[i] (and in x[i] unless hold)
// and pushes the old x[i] into the history.
func extrapolate(w *[predBack + 1]float64, hold bool, x, p, e []float64) {
	e = e[:len(x)]
	for i, x0 := range x {
		q := (*[predBack]float64)(p[i*predBack : i*predBack+predBack])
		xe := w[0]*x0 + w[1]*q[0] + w[2]*q[1] + w[3]*q[2] + w[4]*q[3]
		e[i] = xe
		if !hold {
			x[i] = xe
		}
		q[3], q[2], q[1], q[0] = q[2], q[1], q[0], x0
	}
}

// predScore compares, after a converged step, the extrapolated
// accelerations with the held ones (each error weighted as the velocity
// error it causes, relative to 1 + |v|, both times the coordinate's length
// lq as in Newton's test) and chooses the better of the two
// for the next step. Stiff flexible models, whose accelerations carry
// high-frequency content, mostly hold; rigid mechanisms extrapolate.
func (s *State) predScore(lq []float64) {
	ee, ec := 0.0, 0.0
	v, pred, lq := s.v[:len(s.a)], s.pred[:len(s.a)], lq[:len(s.a)]
	for i, a := range s.a {
		sc := lq[i] / (1 + lq[i]*math.Abs(v[i]))
		if d := math.Abs(a-pred[i]) * sc; d > ee {
			ee = d
		}
		if d := math.Abs(a-s.predPrev(i)) * sc; d > ec {
			ec = d
		}
	}
	if ee <= ec {
		s.ph[len(s.ph)-1] = 0
	} else {
		s.ph[len(s.ph)-1] = 1
	}
}

// predPrev returns q̈ at the start of the step after predict has run (the
// memory holds fast rotations' in the world frame).
func (s *State) predPrev(i int) float64 { return s.aPrev[i] }
