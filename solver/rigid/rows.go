package rigid

import (
	"math"
	"mbfmu/expr"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// rowSet is a planar constraint element: rows that share their two points
// and six coordinates (x, y, θ of the body of marker i, then of j's).
type rowSet struct {
	rows []row
	d    [6]int
}

func newRowSet(rows ...row) *rowSet {
	e := &rowSet{rows: rows}
	e.d = rowDofs(rows[0].pi, rows[0].pj)
	return e
}

func (e *rowSet) Dofs() []int { return e.d[:] }
func (e *rowSet) Rows() int   { return len(e.rows) }

func (e *rowSet) Eval(x *mech.Ctx, out mech.Rows, vel bool) {
	var ki, kj mech.KinPoint
	var re rowEval
	e.rows[0].kin(x, vel, &ki, &kj)
	for r := range e.rows {
		e.rows[r].evalKin(x, &re, vel, &ki, &kj)
		out.Phi[r], out.Phit[r], out.Gamma[r] = re.phi, re.phit, re.gamma
		copy(out.Jac[6*r:6*r+6], re.jac[:])
	}
}

func (e *rowSet) Hess(x *mech.Ctx, lam []float64, h []float64) {
	var ki, kj mech.KinPoint
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

// A planar constraint row is one scalar equation Φ(q, t) = 0 between two
// points (either may be on ground). Planar joints and drivers are made of
// rows. Each row touches at most six coordinates: (x, y, θ) of body i then
// of body j.
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
	pi   mech.Point // on body i
	pj   mech.Point // on body j
	axis int        // rowPoint: 0 = x, 1 = y
	psi  float64    // rowProj: angle of w in body i's frame
	c0   float64    // constant offset
	// f is the prescribed value (nil: zero); df and ddf its first and
	// second time derivatives.
	f, df, ddf *expr.Program
	fconst     float64
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

func (r *row) value(x *mech.Ctx) (f, df, ddf float64) {
	if r.f == nil {
		return r.fconst, 0, 0
	}
	f = r.f.Eval(x.Vars, x)
	if r.df != nil {
		df = r.df.Eval(x.Vars, x)
	}
	if r.ddf != nil {
		ddf = r.ddf.Eval(x.Vars, x)
	}
	return
}

// eval computes the row at x (positions, velocities, time). When vel is
// false the velocity-dependent parts (γ) are skipped.
func (r *row) eval(x *mech.Ctx, out *rowEval, vel bool) {
	var ki, kj mech.KinPoint
	r.kin(x, vel, &ki, &kj)
	r.evalKin(x, out, vel, &ki, &kj)
}

// kin evaluates the row's two points.
func (r *row) kin(x *mech.Ctx, vel bool, ki, kj *mech.KinPoint) {
	var vv []float64
	if vel {
		vv = x.V
	}
	r.pi.Eval(x.Q, vv, ki)
	r.pj.Eval(x.Q, vv, kj)
}

// evalKin computes the row from its points' kinematics.
func (r *row) evalKin(x *mech.Ctx, out *rowEval, vel bool, pki, pkj *mech.KinPoint) {
	ki, kj := pki, pkj
	f, df, ddf := r.value(x)
	*out = rowEval{}
	out.phit = -df
	switch r.kind {
	case rowPoint:
		a := r.axis
		out.phi = kj.R[a] - ki.R[a] - r.c0 - f
		bi, bj := ki.BS(), kj.BS()
		out.jac[a] = -1
		out.jac[2] = -bi[a]
		out.jac[3+a] = 1
		out.jac[5] = bj[a]
		// ∂²/∂θ²: body j: −(A s)_a ; body i: +(A s)_a
		out.hii = ki.AS[a]
		out.hjj = -kj.AS[a]
		if vel {
			out.gamma = kj.AS[a]*kj.Om*kj.Om - ki.AS[a]*ki.Om*ki.Om + ddf
		}
	case rowProj:
		ang := ki.Th + r.psi
		w := [2]float64{math.Cos(ang), math.Sin(ang)}
		wp := mech.Rot90(w)
		d := [2]float64{kj.R[0] - ki.R[0], kj.R[1] - ki.R[1]}
		bi, bj := ki.BS(), kj.BS()
		out.phi = mech.Dot2(w, d) - r.c0 - f
		out.jac[0], out.jac[1] = -w[0], -w[1]
		out.jac[3], out.jac[4] = w[0], w[1]
		out.jac[5] = mech.Dot2(w, bj)
		if r.pi.Body >= 0 {
			out.jac[2] = mech.Dot2(wp, d) - mech.Dot2(w, bi)
			out.hii = -mech.Dot2(w, d) - 2*mech.Dot2(wp, bi) + mech.Dot2(w, ki.AS)
			out.hixi, out.hiyi = -wp[0], -wp[1]
			out.hixj, out.hiyj = wp[0], wp[1]
			out.hij = mech.Dot2(wp, bj)
		} else {
			out.jac[2] = 0
		}
		out.hjj = -mech.Dot2(w, kj.AS)
		if vel {
			dd := [2]float64{kj.V[0] - ki.V[0], kj.V[1] - ki.V[1]}
			wi := ki.Om
			// quadratic velocity terms of Φ̈ (all but the q̈ part):
			quad := -mech.Dot2(w, d)*wi*wi + 2*wi*mech.Dot2(wp, dd) +
				mech.Dot2(w, [2]float64{-kj.AS[0]*kj.Om*kj.Om + ki.AS[0]*wi*wi, -kj.AS[1]*kj.Om*kj.Om + ki.AS[1]*wi*wi})
			out.gamma = -quad + ddf
		}
	case rowAngle:
		out.phi = kj.Th - ki.Th - r.c0 - f
		out.jac[2] = -1
		out.jac[5] = 1
		if vel {
			out.gamma = ddf
		}
	}
	// Ground sides have no coordinates: clear their entries.
	if r.pi.Body < 0 {
		out.jac[0], out.jac[1], out.jac[2] = 0, 0, 0
		out.hii, out.hixi, out.hiyi, out.hixj, out.hiyj, out.hij = 0, 0, 0, 0, 0, 0
	}
	if r.pj.Body < 0 {
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

// driverValue claims a driver's name and compiles its value: the program
// and its time derivatives (timeDerivs) and the driver's JointInfo; ok is
// false after an error has been reported.
func driverValue(b mech.Builder, d spec.Driver) (f, df, ddf *expr.Program, ji mech.JointInfo, ok bool) {
	b.Claim(d.Name, d.Pos, "driver")
	if !d.Value.Given() {
		b.Errorf(d.Pos, "value", "driver %q needs a value (a function of time)", d.Name)
		return
	}
	prog := b.Program(d.Value)
	if prog == nil {
		return
	}
	f, df, ddf = timeDerivs(prog)
	return f, df, ddf, mech.JointInfo{Name: d.Name, Kind: mech.JointDriver, Value: mech.Param{P: prog}}, true
}

// timeDerivs returns a prescribed value's program and its first and second
// time derivatives (nil where they vanish).
func timeDerivs(p *expr.Program) (f, df, ddf *expr.Program) {
	if p == nil {
		return nil, nil, nil
	}
	f = p
	df = p.Deriv(mech.SlotTime)
	ddf = df.Deriv(mech.SlotTime)
	if c, ok := df.Const(); ok && c == 0 {
		df = nil
	}
	if ddf != nil {
		if c, ok := ddf.Const(); ok && c == 0 {
			ddf = nil
		}
	}
	return
}
