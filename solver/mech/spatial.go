package mech

// Spatial rigid-body kinematics. A spatial body has seven positions and six
// velocities: q[Q:Q+3] the centre of mass in the world, q[Q+3:Q+7] the unit
// quaternion p of the body's orientation (body → world, A = A(p)),
// v[V:V+3] the velocity of the centre of mass (world) and v[V+3:V+6] the
// angular velocity ω in the body frame. An increment (δr, δθ) moves the
// centre of mass by δr and turns the body by the rotation vector δθ about
// its own axes: A ← A exp([δθ]×). A point fixed in the body at s (body
// frame, from the centre of mass) is at p = r + A s, so
//
//	δp = δr − A [s]× δθ,  ṗ = ṙ + A (ω × s),
//	p̈ = r̈ + A (ω̇ × s) + A (ω × (ω × s)).

// Frame is a frame fixed in a spatial body (or in ground when Body < 0).
type Frame struct {
	Body int  // body index, -1 for ground
	Q, V int  // the body's first position and velocity coordinates (-1 for ground)
	S    Vec3 // origin: body frame, from the centre of mass (ground: world)
	R    Mat3 // orientation relative to the body frame (ground: world)
}

// KinFrame holds a frame's world quantities at a configuration.
type KinFrame struct {
	A  Mat3 // the body's rotation (identity for ground)
	P  Vec3 // origin
	AS Vec3 // A s: offset of the origin from the centre of mass
	V  Vec3 // velocity of the origin
	W  Vec3 // angular velocity, world frame
	Wb Vec3 // angular velocity, body frame
}

// Ident is the identity matrix.
var Ident = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

// Eval fills k from q and v (v may be nil: velocities zero).
func (f *Frame) Eval(q, v []float64, k *KinFrame) {
	if f.Body < 0 {
		*k = KinFrame{A: Ident, P: f.S}
		return
	}
	o := f.Q
	QuatMatTo(&k.A, q[o+3], q[o+4], q[o+5], q[o+6])
	k.AS = MulMV(&k.A, f.S)
	k.P = Vec3{q[o] + k.AS[0], q[o+1] + k.AS[1], q[o+2] + k.AS[2]}
	if v == nil {
		k.V, k.W, k.Wb = Vec3{}, Vec3{}, Vec3{}
		return
	}
	u := f.V
	k.Wb = Vec3{v[u+3], v[u+4], v[u+5]}
	k.W = MulMV(&k.A, k.Wb)
	k.V = Add(Vec3{v[u], v[u+1], v[u+2]}, Cross(k.W, k.AS))
}

// Axis returns the world direction of the frame's axis a (0 x, 1 y, 2 z):
// A R e_a.
func (f *Frame) Axis(k *KinFrame, a int) Vec3 {
	return MulMV(&k.A, Vec3{f.R[a], f.R[3+a], f.R[6+a]})
}

// LocalAxis returns the frame's axis a in the body frame (R e_a).
func (f *Frame) LocalAxis(a int) Vec3 { return Vec3{f.R[a], f.R[3+a], f.R[6+a]} }

// Orient returns the frame's orientation in the world: A R.
func (f *Frame) Orient(k *KinFrame) Mat3 { return MulMM(&k.A, &f.R) }
