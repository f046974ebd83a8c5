package solver

import "math"

// Planar rigid-body kinematics in absolute coordinates. Each body has three
// coordinates (x, y, θ) of its centre of mass; a point fixed in the body at
// s (body frame, relative to the centre of mass) is at r = R + A(θ) s, with
//
//	∂r/∂θ = B s = (−(As)_y, (As)_x),   ∂²r/∂θ² = −A s,
//	r̈ = R̈ + B s θ̈ − A s θ̇².

// point is a point fixed in a body (or in ground when body < 0).
type point struct {
	body int        // body index, -1 for ground
	s    [2]float64 // body frame, relative to the centre of mass (ground: global)
	ang  float64    // orientation of the marker x axis in the body frame
}

// dof returns the first coordinate index of the point's body, or -1.
func (p point) dof() int {
	if p.body < 0 {
		return -1
	}
	return 3 * p.body
}

// kinPoint holds a point's world quantities at a configuration.
type kinPoint struct {
	r  [2]float64 // position
	as [2]float64 // A s (world offset from the centre of mass)
	v  [2]float64 // velocity
	th float64    // body angle (0 for ground)
	om float64    // body angular velocity
}

// eval fills k from q and v (v may be nil).
func (p point) eval(q, v []float64, k *kinPoint) {
	if p.body < 0 {
		*k = kinPoint{r: p.s}
		return
	}
	o := 3 * p.body
	th := q[o+2]
	sn, cs := math.Sincos(th)
	ax := cs*p.s[0] - sn*p.s[1]
	ay := sn*p.s[0] + cs*p.s[1]
	k.as = [2]float64{ax, ay}
	k.r = [2]float64{q[o] + ax, q[o+1] + ay}
	k.th = th
	if v != nil {
		w := v[o+2]
		k.om = w
		k.v = [2]float64{v[o] - ay*w, v[o+1] + ax*w}
	} else {
		k.om = 0
		k.v = [2]float64{}
	}
}

// bs returns B s = ∂r/∂θ.
func (k *kinPoint) bs() [2]float64 { return [2]float64{-k.as[1], k.as[0]} }

func dot2(a, b [2]float64) float64   { return a[0]*b[0] + a[1]*b[1] }
func cross2(a, b [2]float64) float64 { return a[0]*b[1] - a[1]*b[0] }
func rot90(a [2]float64) [2]float64  { return [2]float64{-a[1], a[0]} }
