package mech

import "math"

// Vec3 is a vector in R³.
type Vec3 = [3]float64

// Mat3 is a 3×3 matrix, row-major.
type Mat3 = [9]float64

// Quat is a unit quaternion (w, x, y, z), scalar first, rotating body
// coordinates into world coordinates.
type Quat = [4]float64

// Add returns a + b.
func Add(a, b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a − b.
func Sub(a, b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns s·a.
func Scale(s float64, a Vec3) Vec3 { return Vec3{s * a[0], s * a[1], s * a[2]} }

// Dot returns a·b.
func Dot(a, b Vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns a × b.
func Cross(a, b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Norm returns |a|.
func Norm(a Vec3) float64 { return math.Sqrt(Dot(a, a)) }

// MulMV returns A·x.
func MulMV(A *Mat3, x Vec3) Vec3 {
	return Vec3{A[0]*x[0] + A[1]*x[1] + A[2]*x[2], A[3]*x[0] + A[4]*x[1] + A[5]*x[2], A[6]*x[0] + A[7]*x[1] + A[8]*x[2]}
}

// MulMTV returns Aᵀ·x.
func MulMTV(A *Mat3, x Vec3) Vec3 {
	return Vec3{A[0]*x[0] + A[3]*x[1] + A[6]*x[2], A[1]*x[0] + A[4]*x[1] + A[7]*x[2], A[2]*x[0] + A[5]*x[1] + A[8]*x[2]}
}

// MulMM returns A·B.
func MulMM(A, B *Mat3) Mat3 {
	// written out: the loop version costs three times the instructions
	return Mat3{
		A[0]*B[0] + A[1]*B[3] + A[2]*B[6], A[0]*B[1] + A[1]*B[4] + A[2]*B[7], A[0]*B[2] + A[1]*B[5] + A[2]*B[8],
		A[3]*B[0] + A[4]*B[3] + A[5]*B[6], A[3]*B[1] + A[4]*B[4] + A[5]*B[7], A[3]*B[2] + A[4]*B[5] + A[5]*B[8],
		A[6]*B[0] + A[7]*B[3] + A[8]*B[6], A[6]*B[1] + A[7]*B[4] + A[8]*B[7], A[6]*B[2] + A[7]*B[5] + A[8]*B[8],
	}
}

// Transpose returns Aᵀ.
func Transpose(A *Mat3) Mat3 {
	return Mat3{A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8]}
}

// Skew returns [a]×, the matrix of a × ·.
func Skew(a Vec3) Mat3 {
	return Mat3{0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0}
}

// QuatMul returns the Hamilton product p ⊗ q.
func QuatMul(p, q Quat) Quat {
	return Quat{
		p[0]*q[0] - p[1]*q[1] - p[2]*q[2] - p[3]*q[3],
		p[0]*q[1] + p[1]*q[0] + p[2]*q[3] - p[3]*q[2],
		p[0]*q[2] - p[1]*q[3] + p[2]*q[0] + p[3]*q[1],
		p[0]*q[3] + p[1]*q[2] - p[2]*q[1] + p[3]*q[0],
	}
}

// QuatConj returns the conjugate (the inverse of a unit quaternion).
func QuatConj(q Quat) Quat { return Quat{q[0], -q[1], -q[2], -q[3]} }

// QuatExp returns exp(θ/2) for the rotation vector θ: the unit quaternion
// of a rotation by |θ| about θ/|θ|.
func QuatExp(th Vec3) Quat {
	c, s := expCS(Dot(th, th))
	return Quat{c, s * th[0], s * th[1], s * th[2]}
}

// expCS returns cos(|θ|/2) and sin(|θ|/2)/|θ| for a2 = |θ|².
func expCS(a2 float64) (c, s float64) {
	switch {
	case a2 < 1e-8:
		// Taylor series: exact to round-off for |θ| < 1e-4
		c = 1 - a2/8 + a2*a2/384
		s = 0.5 - a2/48 + a2*a2/3840
	case a2 < expSeriesA2:
		// the rotation of one step: the series to a², … a¹⁰ (the first
		// term left out is below 1e-19): half the cost of the Sincos path
		c = 1 + a2*(-1.0/8+a2*(1.0/384+a2*(-1.0/46080+a2*(1.0/10321920+a2*(-1.0/3715891200)))))
		s = 0.5 + a2*(-1.0/48+a2*(1.0/3840+a2*(-1.0/645120+a2*(1.0/185794560+a2*(-1.0/81749606400)))))
	default:
		a := math.Sqrt(a2)
		sn, cs := math.Sincos(0.5 * a)
		c, s = cs, sn/a
	}
	return c, s
}

// QuatTurn writes QuatNormalize(QuatMul(p, QuatExp(θ))), the unit
// quaternion p turned by the rotation vector θ = (t0, t1, t2) in its body
// frame, into dst (which may be p). It is that composition written out on
// scalars, with the same arithmetic: the integrators apply it to every
// body at every iteration, and Go keeps arrays such as Quat in memory.
func QuatTurn(dst, p []float64, t0, t1, t2 float64) {
	c, s := expCS(t0*t0 + t1*t1 + t2*t2)
	q1, q2, q3 := s*t0, s*t1, s*t2
	p = p[:4]
	p0, p1, p2, p3 := p[0], p[1], p[2], p[3]
	r0 := p0*c - p1*q1 - p2*q2 - p3*q3
	r1 := p0*q1 + p1*c + p2*q3 - p3*q2
	r2 := p0*q2 - p1*q3 + p2*c + p3*q1
	r3 := p0*q3 + p1*q2 - p2*q1 + p3*c
	n := invNorm(r0*r0 + r1*r1 + r2*r2 + r3*r3)
	dst = dst[:4]
	dst[0], dst[1], dst[2], dst[3] = r0*n, r1*n, r2*n, r3*n
}

// expSeriesA2 is the |θ|² below which QuatExp sums the series of cos(|θ|/2)
// and sin(|θ|/2)/|θ| (|θ| < 0.22 rad).
const expSeriesA2 = 0.05

// QuatLog returns the rotation vector θ with exp(θ/2) = ±q (the shorter of
// the two rotations a unit quaternion and its negative describe).
func QuatLog(q Quat) Vec3 {
	w, v := q[0], Vec3{q[1], q[2], q[3]}
	if w < 0 {
		w, v = -w, Scale(-1, v)
	}
	n := Norm(v)
	if n < 1e-12 {
		// θ ≈ 2v/w (1 + O(n²))
		return Scale(2/w, v)
	}
	a := 2 * math.Atan2(n, w)
	return Scale(a/n, v)
}

// QuatRotate returns q v q*: v rotated by q.
func QuatRotate(q Quat, v Vec3) Vec3 {
	// v + 2w (u × v) + 2 u × (u × v), u the vector part
	u := Vec3{q[1], q[2], q[3]}
	t := Scale(2, Cross(u, v))
	return Add(Add(v, Scale(q[0], t)), Cross(u, t))
}

// QuatMat returns the rotation matrix of a unit quaternion.
func QuatMat(q Quat) Mat3 {
	var m Mat3
	QuatMatTo(&m, q[0], q[1], q[2], q[3])
	return m
}

// QuatMatTo writes the rotation matrix of the unit quaternion (w, x, y, z)
// into dst: QuatMat for the hot paths, without a Quat and a Mat3 copied
// through memory (Go keeps arrays there).
func QuatMatTo(dst *Mat3, w, x, y, z float64) {
	dst[0], dst[1], dst[2] = 1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)
	dst[3], dst[4], dst[5] = 2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)
	dst[6], dst[7], dst[8] = 2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)
}

// MatQuat returns the unit quaternion (w ≥ 0) of a rotation matrix
// (Shepperd's method, stable for every rotation).
func MatQuat(R *Mat3) Quat {
	tr := R[0] + R[4] + R[8]
	var q Quat
	switch {
	case tr >= R[0] && tr >= R[4] && tr >= R[8]:
		s := 2 * math.Sqrt(1+tr)
		q = Quat{0.25 * s, (R[7] - R[5]) / s, (R[2] - R[6]) / s, (R[3] - R[1]) / s}
	case R[0] >= R[4] && R[0] >= R[8]:
		s := 2 * math.Sqrt(1+R[0]-R[4]-R[8])
		q = Quat{(R[7] - R[5]) / s, 0.25 * s, (R[1] + R[3]) / s, (R[2] + R[6]) / s}
	case R[4] >= R[8]:
		s := 2 * math.Sqrt(1+R[4]-R[0]-R[8])
		q = Quat{(R[2] - R[6]) / s, (R[1] + R[3]) / s, 0.25 * s, (R[5] + R[7]) / s}
	default:
		s := 2 * math.Sqrt(1+R[8]-R[0]-R[4])
		q = Quat{(R[3] - R[1]) / s, (R[2] + R[6]) / s, (R[5] + R[7]) / s, 0.25 * s}
	}
	if q[0] < 0 {
		q = Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	return QuatNormalize(q)
}

// QuatNormalize returns q/|q|.
func QuatNormalize(q Quat) Quat {
	n := invNorm(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return Quat{q[0] * n, q[1] * n, q[2] * n, q[3] * n}
}

// invNorm returns 1/√x for the squared norm x of a quaternion. Within
// 1e-8 of 1 (a unit quaternion turned by a step: the integrators'
// every iteration) it takes one Newton step from 1, (3 − x)/2, whose
// error (x − 1)²·3/8 is below round-off, and spares the square root and
// the division, the longest latencies of QuatTurn.
func invNorm(x float64) float64 {
	if math.Abs(x-1) <= 1e-8 {
		return 1.5 - 0.5*x
	}
	return 1 / math.Sqrt(x)
}

// DexpInv returns θ̇ for the body angular velocity ω of R = R₀ exp([θ]×):
// ω = T(θ) θ̇ with T the tangent operator of the right-trivialised
// exponential, so θ̇ = T(θ)⁻¹ ω = ω + ½ θ×ω + c(|θ|) θ×(θ×ω),
// c(a) = (1 − (a/2) cot(a/2))/a². Runge–Kutta–Munthe-Kaas stages use it.
func DexpInv(th, om Vec3) Vec3 {
	c := dexpInvCoef(Dot(th, th))
	t := Cross(th, om)
	return Add(Add(om, Scale(0.5, t)), Scale(c, Cross(th, t)))
}

// dexpInvCoef returns c(a) = (1 − (a/2) cot(a/2))/a² for a2 = a².
func dexpInvCoef(a2 float64) float64 {
	if a2 < 1e-6 {
		return 1.0/12 + a2/720 + a2*a2/30240
	}
	a := math.Sqrt(a2)
	return (1 - 0.5*a/math.Tan(0.5*a)) / a2
}

// TangentCoef returns the coefficients c1 = (1 − cos a)/a² and
// c2 = (a − sin a)/a³ of the tangent operator T(θ) = I − c1 [θ]× +
// c2 [θ]×², for a2 = |θ|² (below TanSeriesA2, the rotation of a step,
// their series to a¹⁰: the first term left out is below 1e-18 of the
// sum).
func TangentCoef(a2 float64) (c1, c2 float64) {
	if a2 < TanSeriesA2 {
		c1 = 0.5 + a2*(-1.0/24+a2*(1.0/720+a2*(-1.0/40320+a2*(1.0/3628800+a2*(-1.0/479001600)))))
		c2 = 1.0/6 + a2*(-1.0/120+a2*(1.0/5040+a2*(-1.0/362880+a2*(1.0/39916800+a2*(-1.0/6227020800)))))
		return c1, c2
	}
	a := math.Sqrt(a2)
	sn, cs := math.Sincos(a)
	return (1 - cs) / a2, (a - sn) / (a2 * a)
}

// TanSeriesA2 is the |θ|² below which TangentCoef sums the series of its
// coefficients (|θ| < 0.22 rad: the rotation of a step).
const TanSeriesA2 = 0.05

// Tangent returns T(θ), the tangent operator of the exponential map of
// SO(3) trivialised on the right: exp([θ + δ]×) = exp([θ]×) exp([T(θ)δ]×).
func Tangent(th Vec3) Mat3 {
	c1, c2 := TangentCoef(Dot(th, th))
	return skewPoly(th, -c1, c2)
}

// TangentInv returns T(θ)⁻¹ = I + ½ [θ]× + c(a) [θ]×² (DexpInv as a
// matrix).
func TangentInv(th Vec3) Mat3 {
	return skewPoly(th, 0.5, dexpInvCoef(Dot(th, th)))
}

// skewPoly returns I + c1 [θ]× + c2 [θ]×².
func skewPoly(th Vec3, c1, c2 float64) Mat3 {
	S := Skew(th)
	S2 := MulMM(&S, &S)
	var m Mat3
	for i := range m {
		m[i] = c1*S[i] + c2*S2[i]
	}
	m[0]++
	m[4]++
	m[8]++
	return m
}

// Cardan returns the Cardan angles (x, y, z sequence, rotating axes:
// R = Rx(a) Ry(b) Rz(c)) of a rotation matrix; b ∈ [−π/2, π/2].
func Cardan(R *Mat3) Vec3 {
	// R = Rx(a)Ry(b)Rz(c): R[2] = sin b, R[5] = −sin a cos b, R[8] = cos a cos b,
	// R[1] = −cos b sin c, R[0] = cos b cos c
	sb := math.Max(-1, math.Min(1, R[2]))
	b := math.Asin(sb)
	if math.Abs(sb) < 1-1e-12 {
		return Vec3{math.Atan2(-R[5], R[8]), b, math.Atan2(-R[1], R[0])}
	}
	// gimbal lock: only a ± c is defined; put it all in a
	return Vec3{math.Atan2(R[7], R[4]), b, 0}
}

// SequenceQuat is the rotation by the angles an about the moving axes
// named by seq, in order ("xyz": R = Rx(a₁) Ry(a₂) Rz(a₃); "zxz" Euler
// angles); seq is three of x, y, z, no two successive ones equal.
func SequenceQuat(seq string, an Vec3) Quat {
	q := Quat{1}
	for i := 0; i < 3; i++ {
		var th Vec3
		th[seq[i]-'x'] = an[i]
		q = QuatMul(q, QuatExp(th))
	}
	return QuatNormalize(q)
}

// AxesMat is the rotation whose axis keep (0 x, 1 y, 2 z) points along u
// exactly and whose axis other lies in the plane of u and w (any
// lengths), right-handed; false when w is parallel to u (or either is
// zero).
func AxesMat(keep int, u Vec3, other int, w Vec3) (Mat3, bool) {
	nu, nw := Norm(u), Norm(w)
	if !(nu > 0) || !(nw > 0) {
		return Ident, false
	}
	u = Scale(1/nu, u)
	w = Sub(w, Scale(Dot(w, u), u))
	if Norm(w) <= 1e-6*nw {
		return Ident, false
	}
	w = Scale(1/Norm(w), w)
	var cols [3]Vec3
	cols[keep], cols[other] = u, w
	third := 3 - keep - other
	// right-handed: e_third = e_{third+1} × e_{third+2}
	cols[third] = Cross(cols[(third+1)%3], cols[(third+2)%3])
	return Mat3{cols[0][0], cols[1][0], cols[2][0], cols[0][1], cols[1][1], cols[2][1], cols[0][2], cols[1][2], cols[2][2]}, true
}

// XAxes returns the rotation whose x axis is along x and whose y axis is
// y made orthogonal to it; without y (yGiven false) y is z × x, or the
// world y for an x along z. It reports false for a zero x or a y along it.
func XAxes(x, y Vec3, yGiven bool) (Mat3, bool) {
	if !yGiven {
		y = Cross(Vec3{0, 0, 1}, x)
		if Norm(y) < 1e-6*Norm(x) {
			y = Vec3{0, 1, 0}
		}
	}
	return AxesMat(0, x, 1, y)
}
