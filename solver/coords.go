package solver

import (
	"math"

	"mbfmu/solver/mech"
)

// Positions and velocities live on different spaces. Linear coordinates
// (planar bodies, beams' nodal coordinates, the translations of spatial
// bodies) have one position and one velocity each, and an increment is
// added. The orientation of a spatial body is a unit quaternion (four
// positions) with three velocities, the angular velocity in the body
// frame; an increment Δθ of those is a rotation vector, applied on the
// right: p ← p ⊗ exp(Δθ/2). Every place that moves positions by an
// increment in velocity space (integrators, predictor, assembly, statics,
// linearisation, finite-difference tangents, error norms) does it through
// the functions of this file.

// rotBlock is the orientation of a spatial body: a quaternion at q[q:q+4]
// and a rotation vector at v[v:v+3].
type rotBlock struct{ q, v int }

// addTo moves q by sc·d (d in velocity space): q ← q ⊕ sc·d.
func (m *Model) addTo(q, d []float64, sc float64) {
	for i, qi := range m.qOf {
		if qi >= 0 {
			q[qi] += sc * d[i]
		}
	}
	for _, r := range m.rots {
		p := (*mech.Quat)(q[r.q : r.q+4])
		th := mech.Vec3{sc * d[r.v], sc * d[r.v+1], sc * d[r.v+2]}
		*p = mech.QuatNormalize(mech.QuatMul(*p, mech.QuatExp(th)))
	}
}

// setRot sets the rotation blocks of q to q0 ⊕ d (the linear coordinates
// are left alone): the implicit schemes keep the step's rotation
// increments in d and compose them with the start of the step.
func (m *Model) setRot(q, q0, d []float64) {
	for _, r := range m.rots {
		p0 := (*mech.Quat)(q0[r.q : r.q+4])
		th := mech.Vec3{d[r.v], d[r.v+1], d[r.v+2]}
		p := mech.QuatNormalize(mech.QuatMul(*p0, mech.QuatExp(th)))
		copy(q[r.q:r.q+4], p[:])
	}
}

// diff writes d = q1 ⊖ q0 (velocity space): q0 ⊕ d = q1.
func (m *Model) diff(d, q1, q0 []float64) {
	for i, qi := range m.qOf {
		if qi >= 0 {
			d[i] = q1[qi] - q0[qi]
		}
	}
	for _, r := range m.rots {
		p0 := (*mech.Quat)(q0[r.q : r.q+4])
		p1 := (*mech.Quat)(q1[r.q : r.q+4])
		th := mech.QuatLog(mech.QuatMul(mech.QuatConj(*p0), *p1))
		copy(d[r.v:r.v+3], th[:])
	}
}

// posScale returns the magnitude against which an increment of velocity
// coordinate i is judged: 1 + |q| for a linear coordinate, 1 (radian) for a
// rotation.
func (m *Model) posScale(q []float64, i int) float64 {
	if qi := m.qOf[i]; qi >= 0 {
		return 1 + math.Abs(q[qi])
	}
	return 1
}

// dexpInv replaces the rotational entries of w (angular velocities) by the
// rates of the rotation vectors th of the same blocks: θ̇ = T(θ)⁻¹ ω
// (Runge–Kutta–Munthe-Kaas).
func (m *Model) dexpInv(w, th []float64) {
	for _, r := range m.rots {
		t := mech.Vec3{th[r.v], th[r.v+1], th[r.v+2]}
		om := mech.Vec3{w[r.v], w[r.v+1], w[r.v+2]}
		d := mech.DexpInv(t, om)
		copy(w[r.v:r.v+3], d[:])
	}
}
