package flex

import (
	"math"

	"mbfmu/solver/mech"
)

// This file is the spatial geometrically exact beam (<beam kind="rod">):
// a Simo–Reissner (Cosserat) rod, shear deformable, with nodes in R³ ×
// SO(3). A node has the coordinates of a spatial rigid body (position,
// orientation quaternion; velocity and angular velocity in its own frame)
// and the same Lie-group update, so joints, forces and contacts attach to
// it as to a body.
//
// Each two-node element interpolates the rotation by its relative
// rotation (Crisfield and Jelenić 1999): with Q = RaᵀRb = exp(Ψ), the
// section at the middle is R_m = Ra exp(Ψ/2), and the strains, constant
// over the element (one-point integration, free of shear locking), are
//
//	Γ = R_mᵀ (x_b − x_a)/ℓ − Γ₀   (axial, shear y, shear z)
//	K = (Ψ − Ψ₀)/ℓ                 (twist, bending y, bending z)
//
// with ℓ the element's reference arc length and Γ₀, Ψ₀ their values in
// the reference (possibly curved) configuration: the strain measures are
// objective and free of drift, and the element holds any rigid motion
// exactly. The strain energy is ½ ℓ (Γᵀ C_N Γ + Kᵀ C_M K) with C_N =
// diag(EA, k_y GA, k_z GA) and C_M = diag(GJ, EI_y, EI_z).
//
// With δu = (δx_a, δθ_a, δx_b, δθ_b) (δθ the rotation increment in the
// node's frame), δε = B δu with, T(θ) the tangent of the exponential map
// (exp(θ + δ) = exp(θ) exp(T(θ) δ)), P = exp(Ψ/2) and d_m = R_mᵀ(x_b − x_a):
//
//	δΨ   = T(Ψ)⁻¹ (δθ_b − Qᵀ δθ_a)
//	δθ_m = Pᵀ δθ_a + ½ T(Ψ/2) δΨ
//	δΓ   = (R_mᵀ (δx_b − δx_a) + [d_m]× δθ_m)/ℓ
//
// The generalized force is −ℓ Bᵀ (C ε + β C ε̇) (β: Kelvin–Voigt damping
// time), its damping tangent ℓ β Bᵀ C B; the stiffness tangent (which
// holds the derivative of B, the geometric stiffness) is ℓ Bᵀ C B plus the
// stress times central differences of B over the element's twelve
// coordinates.

// rodElem is one element of a rod between nodes a and b.
type rodElem struct {
	d      [12]int // velocity coordinates: x_a, θ_a, x_b, θ_b
	qa, qb int     // first position coordinates of the nodes (x, then the quaternion)
	l      float64 // reference arc length
	dm0    mech.Vec3
	psi0   mech.Vec3
	cn, cm mech.Vec3 // diagonal section stiffnesses: EA, GA_y, GA_z; GJ, EI_y, EI_z
	beta   float64
}

// rodNodes holds the configuration of an element's two nodes.
type rodNodes struct {
	xa, xb mech.Vec3
	pa, pb mech.Quat
}

// rodKin is what the strains and their B matrix need.
type rodKin struct {
	eps [6]float64     // Γ, K
	b   [6][12]float64 // δε = B δu
}

func (e *rodElem) Dofs() []int { return e.d[:] }

// nodes reads the element's nodes from the positions.
func (e *rodElem) nodes(q []float64) rodNodes {
	a, b := q[e.qa:e.qa+7], q[e.qb:e.qb+7]
	return rodNodes{
		xa: mech.Vec3{a[0], a[1], a[2]}, pa: mech.Quat{a[3], a[4], a[5], a[6]},
		xb: mech.Vec3{b[0], b[1], b[2]}, pb: mech.Quat{b[3], b[4], b[5], b[6]},
	}
}

// relative returns Ψ = log(RaᵀRb) and the middle section's quaternion.
func relative(n *rodNodes) (psi mech.Vec3, pm mech.Quat) {
	psi = mech.QuatLog(mech.QuatMul(mech.QuatConj(n.pa), n.pb))
	pm = mech.QuatMul(n.pa, mech.QuatExp(mech.Scale(0.5, psi)))
	return psi, pm
}

// strains returns the element's strains and, with k, their B matrix.
func (e *rodElem) strains(n *rodNodes, k *rodKin) (eps [6]float64) {
	psi, pm := relative(n)
	Rm := mech.QuatMat(pm)
	d := mech.Sub(n.xb, n.xa)
	dm := mech.MulMTV(&Rm, d)
	il := 1 / e.l
	for i := 0; i < 3; i++ {
		eps[i] = (dm[i] - e.dm0[i]) * il
		eps[3+i] = (psi[i] - e.psi0[i]) * il
	}
	if k == nil {
		return eps
	}
	k.eps = eps
	Ti := mech.TangentInv(psi)
	Q := mech.QuatMat(mech.QuatMul(mech.QuatConj(n.pa), n.pb))
	Qt := mech.Transpose(&Q)
	P := mech.QuatMat(mech.QuatExp(mech.Scale(0.5, psi)))
	Th := mech.Tangent(mech.Scale(0.5, psi))
	dPa := mech.MulMM(&Ti, &Qt) // −∂Ψ/∂θa
	// ∂θm/∂θa = Pᵀ − ½ Th Ti Qᵀ, ∂θm/∂θb = ½ Th Ti
	ThTi := mech.MulMM(&Th, &Ti)
	ThPa := mech.MulMM(&Th, &dPa)
	Pt := mech.Transpose(&P)
	var ma, mb mech.Mat3
	for i := range ma {
		ma[i] = Pt[i] - 0.5*ThPa[i]
		mb[i] = 0.5 * ThTi[i]
	}
	S := mech.Skew(dm)
	Sa := mech.MulMM(&S, &ma)
	Sb := mech.MulMM(&S, &mb)
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			k.b[r][c] = -Rm[3*c+r] * il // −R_mᵀ
			k.b[r][3+c] = Sa[3*r+c] * il
			k.b[r][6+c] = Rm[3*c+r] * il
			k.b[r][9+c] = Sb[3*r+c] * il
			k.b[3+r][c] = 0
			k.b[3+r][3+c] = -dPa[3*r+c] * il
			k.b[3+r][6+c] = 0
			k.b[3+r][9+c] = Ti[3*r+c] * il
		}
	}
	return eps
}

// force writes the element's generalized force at nodes n and velocities
// v (the element's twelve) into f (overwritten).
func (e *rodElem) force(n *rodNodes, v []float64, f []float64, k *rodKin) (s [6]float64) {
	e.strains(n, k)
	// s = ℓ C (ε + β ε̇)
	for i := 0; i < 6; i++ {
		rate := 0.0
		if e.beta != 0 {
			for j := 0; j < 12; j++ {
				rate += k.b[i][j] * v[j]
			}
		}
		c := e.cn[i%3]
		if i >= 3 {
			c = e.cm[i-3]
		}
		s[i] = e.l * c * (k.eps[i] + e.beta*rate)
	}
	for j := 0; j < 12; j++ {
		a := 0.0
		for i := 0; i < 6; i++ {
			a += k.b[i][j] * s[i]
		}
		f[j] = -a
	}
	return s
}

// Eval adds the elastic and damping forces and, with k, their tangents.
func (e *rodElem) Eval(x *mech.Ctx, f, k, c []float64) {
	var v [12]float64
	for i, j := range e.d {
		v[i] = x.V[j]
	}
	n := e.nodes(x.Q)
	var kin rodKin
	var fl [12]float64
	sig := e.force(&n, v[:], fl[:], &kin)
	for i := range fl {
		f[i] += fl[i]
	}
	if k == nil {
		return
	}
	if e.beta != 0 {
		// C = ℓ β Bᵀ C B
		for i := 0; i < 6; i++ {
			cc := e.cn[i%3]
			if i >= 3 {
				cc = e.cm[i-3]
			}
			w := e.l * e.beta * cc
			for a := 0; a < 12; a++ {
				ba := w * kin.b[i][a]
				if ba == 0 {
					continue
				}
				for b := 0; b < 12; b++ {
					c[12*a+b] += ba * kin.b[i][b]
				}
			}
		}
	}
	// K = −∂f/∂u = ℓ Bᵀ C B + ℓ β Bᵀ C (∂B/∂u · v) + (∂B/∂u)ᵀ s: the
	// material part exact, the geometric and damping parts from central
	// differences of B (they carry the stress, not the stiffness: their
	// error stays far below K's)
	var cb [6][12]float64 // C B
	for i := 0; i < 6; i++ {
		cc := e.cn[i%3]
		if i >= 3 {
			cc = e.cm[i-3]
		}
		for a := 0; a < 12; a++ {
			cb[i][a] = e.l * cc * kin.b[i][a]
		}
	}
	for a := 0; a < 12; a++ {
		for b := 0; b < 12; b++ {
			sum := 0.0
			for i := 0; i < 6; i++ {
				sum += kin.b[i][a] * cb[i][b]
			}
			k[12*a+b] += sum
		}
	}
	var bp, bm rodKin
	for col := 0; col < 12; col++ {
		node, comp := col/6, col%6
		var h float64
		for pass, out := range [2]*rodKin{&bp, &bm} {
			sg := 1.0
			if pass == 1 {
				sg = -1
			}
			m := n
			xs, ps := &m.xa, &m.pa
			if node == 1 {
				xs, ps = &m.xb, &m.pb
			}
			if comp < 3 {
				h = 1e-6 * (1 + math.Abs(xs[comp]))
				xs[comp] += sg * h
			} else {
				h = 1e-6
				var t [3]float64
				t[comp-3] = sg * h
				mech.QuatTurn(ps[:], ps[:], t[0], t[1], t[2])
			}
			e.strains(&m, out)
		}
		var dbv [6]float64 // β (∂B/∂u_col) v
		if e.beta != 0 {
			for i := 0; i < 6; i++ {
				acc := 0.0
				for j := 0; j < 12; j++ {
					acc += (bp.b[i][j] - bm.b[i][j]) * v[j]
				}
				dbv[i] = e.beta * acc / (2 * h)
			}
		}
		for r := 0; r < 12; r++ {
			acc := 0.0
			for i := 0; i < 6; i++ {
				acc += (bp.b[i][r]-bm.b[i][r])/(2*h)*sig[i] + cb[i][r]*dbv[i]
			}
			k[12*r+col] += acc
		}
	}
}

// Potential is the strain energy ½ ℓ εᵀ C ε.
func (e *rodElem) Potential(x *mech.Ctx) float64 {
	n := e.nodes(x.Q)
	eps := e.strains(&n, nil)
	u := 0.0
	for i := 0; i < 3; i++ {
		u += e.cn[i]*eps[i]*eps[i] + e.cm[i]*eps[3+i]*eps[3+i]
	}
	return 0.5 * e.l * u
}

// sectionLoads returns the element's section forces (N, Q_y, Q_z) and
// moments (T, M_y, M_z) in the middle section's frame, and its strains.
func (e *rodElem) sectionLoads(x *mech.Ctx) (loads, eps [6]float64) {
	n := e.nodes(x.Q)
	eps = e.strains(&n, nil)
	for i := 0; i < 3; i++ {
		loads[i] = e.cn[i] * eps[i]
		loads[3+i] = e.cm[i] * eps[3+i]
	}
	return loads, eps
}
