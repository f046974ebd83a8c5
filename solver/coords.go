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
		p := q[r.q : r.q+4]
		mech.QuatTurn(p, p, sc*d[r.v], sc*d[r.v+1], sc*d[r.v+2])
	}
}

// setRot sets the rotation blocks of q to q0 ⊕ d (the linear coordinates
// are left alone): the implicit schemes keep the step's rotation
// increments in d and compose them with the start of the step.
func (m *Model) setRot(q, q0, d []float64) {
	for _, r := range m.rots {
		t := d[r.v : r.v+3]
		mech.QuatTurn(q[r.q:r.q+4], q0[r.q:r.q+4], t[0], t[1], t[2])
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

// rotCol is a rotation block among an element's coordinates: its three
// rotational velocities start at local index at; blk indexes Model.rots.
type rotCol struct{ at, blk int }

// rotCols finds the rotation blocks among an element's coordinates.
func (m *Model) rotCols(d []int) []rotCol {
	var out []rotCol
	for a := 0; a < len(d); a++ {
		if d[a] < 0 || m.qOf[d[a]] >= 0 {
			continue
		}
		for k, r := range m.rots {
			if r.v == d[a] {
				if a+2 >= len(d) || d[a+1] != r.v+1 || d[a+2] != r.v+2 {
					panic("solver: an element's rotational coordinates are not consecutive")
				}
				out = append(out, rotCol{at: a, blk: k})
				a += 2
			}
		}
	}
	return out
}

// setTangentOps computes the tangent operator T(Δθ) of each rotation block
// for the step's rotation increments s.dq: q₀ ⊗ exp(Δθ + δ) =
// q₀ ⊗ exp(Δθ) ⊗ exp(T(Δθ) δ), so a position derivative taken at the
// current q (an element's Jacobian, K, Hessian) is right-multiplied by T
// in the iteration matrix, whose unknown is the correction of Δθ:
//
//	T(θ) = I − (1 − cos a)/a² [θ]× + (a − sin a)/a³ [θ]×²,  a = |θ|.
func (m *Model) setTangentOps(s *State) {
	for k, r := range m.rots {
		t := s.dq[r.v : r.v+3]
		t0, t1, t2 := t[0], t[1], t[2]
		a2 := t0*t0 + t1*t1 + t2*t2
		c1, c2 := mech.TangentCoef(a2)
		// [θ]×² = θθᵀ − a²I
		x0, x1, x2 := c1*t0, c1*t1, c1*t2
		u01, u02, u12 := c2*t0*t1, c2*t0*t2, c2*t1*t2
		s.tops[k] = mech.Mat3{
			1 + c2*(t0*t0-a2), x2 + u01, u02 - x1,
			u01 - x2, 1 + c2*(t1*t1-a2), x0 + u12,
			x1 + u02, u12 - x0, 1 + c2*(t2*t2-a2),
		}
	}
}

// applyTRows is applyT on the rows of a listed in rows only.
func (s *State) applyTRows(a []float64, n int, rc []rotCol, rows []int) {
	for _, c := range rc {
		T := &s.tops[c.blk]
		for _, r := range rows {
			x := a[r*n+c.at : r*n+c.at+3]
			x0, x1, x2 := x[0], x[1], x[2]
			if x0 == 0 && x1 == 0 && x2 == 0 {
				continue // (a zero block stays zero)
			}
			x[0] = x0*T[0] + x1*T[3] + x2*T[6]
			x[1] = x0*T[1] + x1*T[4] + x2*T[7]
			x[2] = x0*T[2] + x1*T[5] + x2*T[8]
		}
	}
}

// applyT right-multiplies the rotation columns of the n-column rows of a
// (rows × n, row-major) by the blocks' tangent operators.
func (s *State) applyT(a []float64, n int, rc []rotCol) {
	for _, c := range rc {
		T := &s.tops[c.blk]
		for r := 0; r+n <= len(a); r += n {
			x := a[r+c.at : r+c.at+3]
			x0, x1, x2 := x[0], x[1], x[2]
			if x0 == 0 && x1 == 0 && x2 == 0 {
				continue // (a zero block stays zero)
			}
			x[0] = x0*T[0] + x1*T[3] + x2*T[6]
			x[1] = x0*T[1] + x1*T[4] + x2*T[7]
			x[2] = x0*T[2] + x1*T[5] + x2*T[8]
		}
	}
}
