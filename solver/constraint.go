package solver

import "mbfmu/expr"

// constraint is a constraint element: nrows() scalar equations Φ(q, t) = 0
// on a fixed list of velocity coordinates (dofs, -1 for none). eval writes
// Φ, ∂Φ/∂t, the acceleration term γ (Φ̈ = J q̈ − γ... with J q̈ = γ on the
// motion) and the Jacobian J = ∂Φ/∂q (rows × dofs, row-major; the
// derivative along the increments of the velocity coordinates). hess adds
// Σᵣ lamᵣ ∂(Jᵣᵀ)/∂q, the constraint forces' tangent, into h (dofs × dofs).
// Elements are immutable; everything mutable lives in State.
type constraint interface {
	dofs() []int
	nrows() int
	eval(x *evalCtx, out rowsOut, vel bool)
	hess(x *evalCtx, lam []float64, h []float64)
}

// rowsOut receives a constraint element's evaluation: slices of the
// State's row arrays.
type rowsOut struct {
	phi, phit, gamma []float64 // one per row
	jac              []float64 // rows × dofs
}

// conElem is a constraint element compiled into a model.
type conElem struct {
	c      constraint
	d      []int // c.dofs()
	r0, nr int   // its rows
	jo     int   // offset of its Jacobian in State.jac
	owner  int   // the joint or driver it belongs to
	// storage positions in the linear solver: of each Jacobian entry
	// (row nv+r, column d) and its transpose, and of the nd×nd Hessian
	jpos, jtpos, hpos []int
}

// out returns the element's slices of the State's row arrays.
func (ce *conElem) out(s *State) rowsOut {
	r0, r1 := ce.r0, ce.r0+ce.nr
	return rowsOut{phi: s.phi[r0:r1], phit: s.phit[r0:r1], gamma: s.gamma[r0:r1],
		jac: s.jac[ce.jo : ce.jo+ce.nr*len(ce.d)]}
}

// rowSet is a planar constraint element: rows that share their two points
// and six coordinates.
type rowSet struct {
	rows []row
}

func (e *rowSet) dofs() []int { return e.rows[0].dofs[:] }
func (e *rowSet) nrows() int  { return len(e.rows) }

func (e *rowSet) eval(x *evalCtx, out rowsOut, vel bool) {
	var ki, kj kinPoint
	var re rowEval
	e.rows[0].kin(x, vel, &ki, &kj)
	for r := range e.rows {
		e.rows[r].evalKin(x, &re, vel, &ki, &kj)
		out.phi[r], out.phit[r], out.gamma[r] = re.phi, re.phit, re.gamma
		copy(out.jac[6*r:6*r+6], re.jac[:])
	}
}

func (e *rowSet) hess(x *evalCtx, lam []float64, h []float64) {
	var ki, kj kinPoint
	var re rowEval
	e.rows[0].kin(x, false, &ki, &kj)
	hh := (*[36]float64)(h)
	for r := range e.rows {
		if lam[r] == 0 {
			continue
		}
		e.rows[r].evalKin(x, &re, false, &ki, &kj)
		re.addHess(lam[r], hh)
	}
}

// A constraint row is one scalar equation Φ(q, t) = 0 between two points
// (either may be on ground). Joints and drivers are made of rows. Each row
// touches at most six coordinates: (x, y, θ) of body i then of body j.
//
// Kinds:
//
//	rowPoint: Φ = (rj − ri)·ê_k − f(t)          (k = x or y, global axis)
//	rowProj:  Φ = w(θi + ψ)·(rj − ri) − f(t)     (w a unit vector fixed in body i)
//	rowAngle: Φ = θj − θi − c0 − f(t)
type rowKind uint8

const (
	rowPoint rowKind = iota
	rowProj
	rowAngle
)

type row struct {
	kind rowKind
	pi   point   // on body i
	pj   point   // on body j
	axis int     // rowPoint: 0 = x, 1 = y
	psi  float64 // rowProj: angle of w in body i's frame
	c0   float64 // constant offset
	// f is the prescribed value (nil: zero); df and ddf its first and
	// second time derivatives.
	f, df, ddf *expr.Program
	fconst     float64
	dofs       [6]int // -1 where the side is ground
	owner      int    // index of the joint/driver the row belongs to
}

// rowEval holds everything computed for one row at a configuration.
type rowEval struct {
	phi   float64
	jac   [6]float64 // ∂Φ/∂(xi, yi, θi, xj, yj, θj)
	phit  float64    // ∂Φ/∂t
	gamma float64    // acceleration right-hand side: Φq q̈ = γ
	// hess is the nonzero part of ∂²Φ/∂q²: entries (θi,·) and (θj,θj).
	hii, hixi, hiyi, hixj, hiyj, hij, hjj float64
}

func (r *row) value(x *evalCtx) (f, df, ddf float64) {
	if r.f == nil {
		return r.fconst, 0, 0
	}
	f = r.f.Eval(x.vars, x)
	if r.df != nil {
		df = r.df.Eval(x.vars, x)
	}
	if r.ddf != nil {
		ddf = r.ddf.Eval(x.vars, x)
	}
	return
}

// eval computes the row at x (positions, velocities, time). When vel is
// false the velocity-dependent parts (γ) are skipped.
func (r *row) eval(x *evalCtx, out *rowEval, vel bool) {
	var ki, kj kinPoint
	r.kin(x, vel, &ki, &kj)
	r.evalKin(x, out, vel, &ki, &kj)
}

// samePoints reports whether o uses the same two points (so kinematics can
// be shared).
func (r *row) samePoints(o *row) bool {
	return r.owner == o.owner && r.pi == o.pi && r.pj == o.pj
}

// kin evaluates the row's two points.
func (r *row) kin(x *evalCtx, vel bool, ki, kj *kinPoint) {
	var vv []float64
	if vel {
		vv = x.v
	}
	r.pi.eval(x.q, vv, ki)
	r.pj.eval(x.q, vv, kj)
}

// evalKin computes the row from its points' kinematics.
func (r *row) evalKin(x *evalCtx, out *rowEval, vel bool, pki, pkj *kinPoint) {
	if r.kind >= rowFlexPin { // rows to beam nodes (flexible.go)
		r.evalFlex(x, out, vel)
		return
	}
	ki, kj := pki, pkj
	f, df, ddf := r.value(x)
	*out = rowEval{}
	out.phit = -df
	switch r.kind {
	case rowPoint:
		a := r.axis
		out.phi = kj.r[a] - ki.r[a] - r.c0 - f
		bi, bj := ki.bs(), kj.bs()
		out.jac[a] = -1
		out.jac[2] = -bi[a]
		out.jac[3+a] = 1
		out.jac[5] = bj[a]
		// ∂²/∂θ²: body j: −(A s)_a ; body i: +(A s)_a
		out.hii = ki.as[a]
		out.hjj = -kj.as[a]
		if vel {
			out.gamma = kj.as[a]*kj.om*kj.om - ki.as[a]*ki.om*ki.om + ddf
		}
	case rowProj:
		ang := ki.th + r.psi
		w := [2]float64{cos(ang), sin(ang)}
		wp := rot90(w)
		d := [2]float64{kj.r[0] - ki.r[0], kj.r[1] - ki.r[1]}
		bi, bj := ki.bs(), kj.bs()
		out.phi = dot2(w, d) - r.c0 - f
		out.jac[0], out.jac[1] = -w[0], -w[1]
		out.jac[3], out.jac[4] = w[0], w[1]
		out.jac[5] = dot2(w, bj)
		if r.pi.body >= 0 {
			out.jac[2] = dot2(wp, d) - dot2(w, bi)
			out.hii = -dot2(w, d) - 2*dot2(wp, bi) + dot2(w, ki.as)
			out.hixi, out.hiyi = -wp[0], -wp[1]
			out.hixj, out.hiyj = wp[0], wp[1]
			out.hij = dot2(wp, bj)
		} else {
			out.jac[2] = 0
		}
		out.hjj = -dot2(w, kj.as)
		if vel {
			dd := [2]float64{kj.v[0] - ki.v[0], kj.v[1] - ki.v[1]}
			wi := ki.om
			// quadratic velocity terms of Φ̈ (all but the q̈ part):
			quad := -dot2(w, d)*wi*wi + 2*wi*dot2(wp, dd) +
				dot2(w, [2]float64{-kj.as[0]*kj.om*kj.om + ki.as[0]*wi*wi, -kj.as[1]*kj.om*kj.om + ki.as[1]*wi*wi})
			out.gamma = -quad + ddf
		}
	case rowAngle:
		out.phi = kj.th - ki.th - r.c0 - f
		out.jac[2] = -1
		out.jac[5] = 1
		if vel {
			out.gamma = ddf
		}
	}
	// Ground sides have no coordinates: clear their entries.
	if r.pi.body < 0 {
		out.jac[0], out.jac[1], out.jac[2] = 0, 0, 0
		out.hii, out.hixi, out.hiyi, out.hixj, out.hiyj, out.hij = 0, 0, 0, 0, 0, 0
	}
	if r.pj.body < 0 {
		out.jac[3], out.jac[4], out.jac[5] = 0, 0, 0
		out.hjj, out.hixj, out.hiyj, out.hij = 0, 0, 0, 0
	}
}

// addHess adds lam·∂²Φ/∂q² into the dense local 6×6 block h (row-major).
func (e *rowEval) addHess(lam float64, h *[36]float64) {
	h[2*6+2] += lam * e.hii
	h[2*6+0] += lam * e.hixi
	h[0*6+2] += lam * e.hixi
	h[2*6+1] += lam * e.hiyi
	h[1*6+2] += lam * e.hiyi
	h[2*6+3] += lam * e.hixj
	h[3*6+2] += lam * e.hixj
	h[2*6+4] += lam * e.hiyj
	h[4*6+2] += lam * e.hiyj
	h[2*6+5] += lam * e.hij
	h[5*6+2] += lam * e.hij
	h[5*6+5] += lam * e.hjj
}
