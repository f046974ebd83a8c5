package mech

import "math"

// Outer returns a bᵀ.
func Outer(a, b Vec3) Mat3 {
	return Mat3{a[0] * b[0], a[0] * b[1], a[0] * b[2], a[1] * b[0], a[1] * b[1], a[1] * b[2], a[2] * b[0], a[2] * b[1], a[2] * b[2]}
}

// ScaleM returns s·m.
func ScaleM(s float64, m Mat3) Mat3 {
	for i := range m {
		m[i] *= s
	}
	return m
}

// AddM returns a + b.
func AddM(a, b Mat3) Mat3 {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// WrapAngle returns a in (−π, π].
func WrapAngle(a float64) float64 {
	a = math.Mod(a+math.Pi, 2*math.Pi)
	if a <= 0 {
		a += 2 * math.Pi
	}
	return a - math.Pi
}

// AngleRow is a revolute joint's angle as a function of three world
// vectors, xᵢ, yᵢ (marker i's axes) and xⱼ: the turn of xⱼ about zᵢ from
// xᵢ, θ = atan2(yᵢ·xⱼ, xᵢ·xⱼ) (not wrapped), with its gradients G[k]
// with respect to vector k and the Hessian blocks H[k][l] (H[l][k] =
// H[k][l]ᵀ): what a joint's angle row needs, whatever moves the vectors
// (a rigid body's frame, a node of a flexible body).
func AngleRow(xi, yi, xj Vec3) (theta float64, G [3]Vec3, H [3][3]Mat3) {
	sn, cs := Dot(yi, xj), Dot(xi, xj)
	rho := sn*sn + cs*cs
	theta = math.Atan2(sn, cs)
	ts, tc := cs/rho, -sn/rho // ∂θ/∂s, ∂θ/∂c
	tss, tcc, tsc := -2*sn*cs/(rho*rho), 2*sn*cs/(rho*rho), (sn*sn-cs*cs)/(rho*rho)
	G[0] = Scale(tc, xj)
	G[1] = Scale(ts, xj)
	G[2] = Add(Scale(ts, yi), Scale(tc, xi))
	xx := Outer(xj, xj)
	H[0][0] = ScaleM(tcc, xx)
	H[1][1] = ScaleM(tss, xx)
	H[0][1] = ScaleM(tsc, xx)
	// ∂(θ_c xⱼ)/∂xⱼ = θ_c I + xⱼ (θ_cs yᵢ + θ_cc xᵢ)ᵀ, likewise for yᵢ
	H[0][2] = AddM(ScaleM(tc, Ident), Outer(xj, Add(Scale(tsc, yi), Scale(tcc, xi))))
	H[1][2] = AddM(ScaleM(ts, Ident), Outer(xj, Add(Scale(tss, yi), Scale(tsc, xi))))
	H[2][2] = AddM(AddM(ScaleM(tss, Outer(yi, yi)), ScaleM(tcc, Outer(xi, xi))), ScaleM(tsc, AddM(Outer(yi, xi), Outer(xi, yi))))
	for k := 0; k < 3; k++ {
		for l := 0; l < k; l++ {
			H[k][l] = Transpose(&H[l][k])
		}
	}
	return theta, G, H
}
