package flex

import (
	"math"

	"mbfmu/solver/mech"
)

// Rows of joints to ANCF beam nodes. A pin holds a node's position
// coordinates (dofs 3, 4) on a rigid point or on another node (dofs 0, 1);
// a clamp adds the alignment of the node's slope (dofs 3, 4) with a
// direction fixed in the rigid body (dof 2 its angle) or with another
// node's slope (dofs 0, 1, rotated by ψ).
const (
	rowPin     = iota // rigid/ground point i, node position j: Φ = e_j[axis] − r_i[axis]
	rowPinBB          // node positions i and j: Φ = e_j[axis] − e_i[axis]
	rowAlign          // rigid/ground direction i, node slope j: Φ = t(θi+ψ) × r'_j
	rowAlignBB        // node slopes i and j: Φ = (R(ψ) r'_i) × r'_j
)

// nodeRow is one row of a joint to a beam node.
type nodeRow struct {
	kind int
	axis int        // pins: 0 = x, 1 = y
	pi   mech.Point // the rigid (or ground) side of rowPin and rowAlign
	psi  float64    // alignments: angle of the direction
	c0   float64    // pins: constant offset
}

// nodeRows is a constraint element of rows on the same six coordinates.
type nodeRows struct {
	rows []nodeRow
	d    [6]int
}

func (e *nodeRows) Dofs() []int { return e.d[:] }
func (e *nodeRows) Rows() int   { return len(e.rows) }

func (e *nodeRows) Eval(x *mech.Ctx, out mech.Rows, vel bool) {
	for r := range e.rows {
		jac := out.Jac[6*r : 6*r+6]
		out.Phi[r], out.Phit[r], out.Gamma[r] = e.row(x, &e.rows[r], (*[6]float64)(jac), nil, vel)
	}
}

func (e *nodeRows) Hess(x *mech.Ctx, lam []float64, h []float64) {
	var jac [6]float64
	hh := (*[36]float64)(h)
	for r := range e.rows {
		if lam[r] != 0 {
			var hr [36]float64
			e.row(x, &e.rows[r], &jac, &hr, false)
			for k := range hh {
				hh[k] += lam[r] * hr[k]
			}
		}
	}
}

// row evaluates one row: Φ, ∂Φ/∂t (zero) and γ, the Jacobian into jac and,
// when hs is not nil, the Hessian ∂²Φ/∂q² into hs.
func (e *nodeRows) row(x *mech.Ctx, r *nodeRow, jac *[6]float64, hs *[36]float64, vel bool) (phi, phit, gamma float64) {
	*jac = [6]float64{}
	q := x.Q
	d := &e.d
	set := func(a, b int, v float64) {
		if hs != nil {
			hs[a*6+b], hs[b*6+a] = v, v
		}
	}
	switch r.kind {
	case rowPin:
		var ki mech.KinPoint
		var vv []float64
		if vel {
			vv = x.V
		}
		r.pi.Eval(q, vv, &ki)
		a := r.axis
		phi = q[d[3+a]] - ki.R[a] - r.c0
		jac[3+a] = 1
		if r.pi.Body >= 0 {
			bi := ki.BS()
			jac[a] = -1
			jac[2] = -bi[a]
			set(2, 2, ki.AS[a])
			if vel {
				gamma = -ki.AS[a] * ki.Om * ki.Om
			}
		}
	case rowPinBB:
		a := r.axis
		phi = q[d[3+a]] - q[d[a]] - r.c0
		jac[a] = -1
		jac[3+a] = 1
	case rowAlign:
		th, om := 0.0, 0.0
		if r.pi.Body >= 0 {
			th = q[d[2]]
			if vel {
				om = x.V[d[2]]
			}
		}
		sn, cs := math.Sincos(th + r.psi)
		rx := [2]float64{q[d[3]], q[d[4]]}
		phi = cs*rx[1] - sn*rx[0]
		jac[3], jac[4] = -sn, cs
		if r.pi.Body >= 0 {
			jac[2] = -(cs*rx[0] + sn*rx[1])
			set(2, 2, -phi)
			set(2, 3, -cs)
			set(2, 4, -sn)
			if vel {
				vx := [2]float64{x.V[d[3]], x.V[d[4]]}
				gamma = phi*om*om + 2*om*(cs*vx[0]+sn*vx[1])
			}
		}
	case rowAlignBB:
		sn, cs := math.Sincos(r.psi)
		ri := [2]float64{q[d[0]], q[d[1]]}
		rj := [2]float64{q[d[3]], q[d[4]]}
		a := [2]float64{cs*ri[0] - sn*ri[1], sn*ri[0] + cs*ri[1]}
		phi = a[0]*rj[1] - a[1]*rj[0]
		jac[3], jac[4] = -a[1], a[0]
		// ∂Φ/∂a = (rj_y, −rj_x); ∂Φ/∂ri = R(ψ)ᵀ ∂Φ/∂a
		ga := [2]float64{rj[1], -rj[0]}
		jac[0] = cs*ga[0] + sn*ga[1]
		jac[1] = -sn*ga[0] + cs*ga[1]
		// the bilinear form's cross terms ∂²Φ/∂ri∂rj
		set(0, 3, -sn)
		set(1, 3, -cs)
		set(0, 4, cs)
		set(1, 4, -sn)
		if vel {
			vi := [2]float64{x.V[d[0]], x.V[d[1]]}
			vj := [2]float64{x.V[d[3]], x.V[d[4]]}
			av := [2]float64{cs*vi[0] - sn*vi[1], sn*vi[0] + cs*vi[1]}
			gamma = -2 * (av[0]*vj[1] - av[1]*vj[0])
		}
	}
	return
}
