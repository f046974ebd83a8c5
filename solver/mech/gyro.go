package mech

// NewGyroscopic returns the gyroscopic force element of a body with the
// inertia tensor j (body frame) whose angular velocity is at velocity
// coordinates v, v+1, v+2.
func NewGyroscopic(j Mat3, v int) *Gyroscopic {
	return &Gyroscopic{j: j, d: [3]int{v, v + 1, v + 2}}
}

// Gyroscopic is the gyroscopic force of a spatial body (or a beam node) in
// its body frame,
// Q = −ω × (J ω), on its three rotational velocities; C = −∂Q/∂ω =
// [ω]× J − [J ω]×, K = 0.
type Gyroscopic struct {
	j Mat3
	d [3]int // the body's rotational velocities
}

// Dofs returns the body's rotational velocities.
func (e *Gyroscopic) Dofs() []int { return e.d[:] }

// Eval adds Q = −ω × (J ω) and, with c, its damping tangent.
func (e *Gyroscopic) Eval(x *Ctx, f, k, c []float64) {
	v := e.d[0]
	w := x.V[v : v+3]
	// ω × Jω on scalars (MulMV's and Cross's arithmetic): every
	// residual evaluates it for every body
	w0, w1, w2 := w[0], w[1], w[2]
	J := &e.j
	h0 := J[0]*w0 + J[1]*w1 + J[2]*w2
	h1 := J[3]*w0 + J[4]*w1 + J[5]*w2
	h2 := J[6]*w0 + J[7]*w1 + J[8]*w2
	f = f[:3]
	f[0] -= w1*h2 - w2*h1
	f[1] -= w2*h0 - w0*h2
	f[2] -= w0*h1 - w1*h0
	if c == nil {
		return
	}
	// [ω]×J − [Jω]× written out (MulMM's sums without its products
	// by the zeros of [ω]×)
	c = c[:9]
	c[0] += -w2*J[3] + w1*J[6]
	c[1] += -w2*J[4] + w1*J[7] + h2
	c[2] += -w2*J[5] + w1*J[8] - h1
	c[3] += w2*J[0] - w0*J[6] - h2
	c[4] += w2*J[1] - w0*J[7]
	c[5] += w2*J[2] - w0*J[8] + h0
	c[6] += -w1*J[0] + w0*J[3] + h1
	c[7] += -w1*J[1] + w0*J[4] - h0
	c[8] += -w1*J[2] + w0*J[5]
}

// Potential is zero: the force does no work.
func (e *Gyroscopic) Potential(*Ctx) float64 { return 0 }
