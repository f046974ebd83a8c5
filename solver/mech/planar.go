package mech

import "math"

// Planar rigid-body kinematics in absolute coordinates. Each body has three
// coordinates (x, y, θ) of its centre of mass; a point fixed in the body at
// s (body frame, relative to the centre of mass) is at r = R + A(θ) s, with
//
//	∂r/∂θ = B s = (−(As)_y, (As)_x),   ∂²r/∂θ² = −A s,
//	r̈ = R̈ + B s θ̈ − A s θ̇².

// Point is a point fixed in a planar body (or in ground when Body < 0).
// Planar body b has the coordinates 3b, 3b+1, 3b+2 (x, y, θ of its centre
// of mass), as positions and as velocities.
type Point struct {
	Body int        // body index, -1 for ground
	S    [2]float64 // body frame, relative to the centre of mass (ground: global)
	Ang  float64    // orientation of the marker x axis in the body frame
}

// Dof returns the first coordinate index of the point's body, or -1.
func (p Point) Dof() int {
	if p.Body < 0 {
		return -1
	}
	return 3 * p.Body
}

// KinPoint holds a point's world quantities at a configuration.
type KinPoint struct {
	R  [2]float64 // position
	AS [2]float64 // A s (world offset from the centre of mass)
	V  [2]float64 // velocity
	Th float64    // body angle (0 for ground)
	Om float64    // body angular velocity
}

// Eval fills k from q and v (v may be nil).
func (p Point) Eval(q, v []float64, k *KinPoint) {
	if p.Body < 0 {
		*k = KinPoint{R: p.S}
		return
	}
	o := 3 * p.Body
	th := q[o+2]
	sn, cs := math.Sincos(th)
	ax := cs*p.S[0] - sn*p.S[1]
	ay := sn*p.S[0] + cs*p.S[1]
	k.AS = [2]float64{ax, ay}
	k.R = [2]float64{q[o] + ax, q[o+1] + ay}
	k.Th = th
	if v != nil {
		w := v[o+2]
		k.Om = w
		k.V = [2]float64{v[o] - ay*w, v[o+1] + ax*w}
	} else {
		k.Om = 0
		k.V = [2]float64{}
	}
}

// BS returns B s = ∂r/∂θ.
func (k *KinPoint) BS() [2]float64 { return [2]float64{-k.AS[1], k.AS[0]} }

// Dot2 returns a·b.
func Dot2(a, b [2]float64) float64 { return a[0]*b[0] + a[1]*b[1] }

// Cross2 returns the planar cross product a × b (a scalar).
func Cross2(a, b [2]float64) float64 { return a[0]*b[1] - a[1]*b[0] }

// Rot90 returns a turned by +90°.
func Rot90(a [2]float64) [2]float64 { return [2]float64{-a[1], a[0]} }

// Sub2 returns a − b.
func Sub2(a, b [2]float64) [2]float64 { return [2]float64{a[0] - b[0], a[1] - b[1]} }
