package solver

import (
	"math"

	"mbfmu/expr"
)

// forceElement is an applied-force element: springs, dampers, point forces,
// torques, and later flexible elements and contacts. An element works on a
// fixed list of global coordinates (its dofs, -1 for none) and computes, in
// local arrays of that size, the generalized applied force Q and — when k is
// not nil — the tangent stiffness K = −∂Q/∂q and damping C = −∂Q/∂v
// (row-major). Elements are immutable; everything mutable lives in State.
type forceElement interface {
	dofs() []int
	eval(x *evalCtx, f, k, c []float64)
	// potential returns the potential energy stored in the element.
	potential(x *evalCtx) float64
}

// param is a force parameter: a constant or a run-time expression.
type param struct {
	p *expr.Program // nil: constant
	c float64
}

// measured reports whether the parameter reads the state through measures
// (dx(m), vx(m), angle(m), ...): its derivatives are then not in the
// element's analytic tangent.
func (p *param) measured() bool { return p.p != nil && p.p.UsesMeasures() }

// paramLister is implemented by elements with run-time parameters.
type paramLister interface{ params() []*param }

// readsMeasures reports whether any run-time parameter of f reads measures.
func readsMeasures(f forceElement) bool {
	pl, ok := f.(paramLister)
	if !ok {
		return false
	}
	for _, p := range pl.params() {
		if p.measured() {
			return true
		}
	}
	return false
}

func (p *param) get(x *evalCtx) float64 {
	if p.p == nil {
		return p.c
	}
	return p.p.Eval(x.vars, x)
}

// addPointForce adds the generalized force of a global force F applied at
// point pt (kinematics kp) into the local vector f at offset o (3 entries),
// and its stiffness contribution for a force fixed in the global frame
// (follower=false) or rotating with the body (follower=true).
func addPointForce(kp *kinPoint, F [2]float64, f []float64, o int, k []float64, n int, follower bool) {
	bs := kp.bs()
	f[o] += F[0]
	f[o+1] += F[1]
	f[o+2] += cross2(kp.as, F)
	if k == nil {
		return
	}
	if follower {
		// ∂Q_R/∂θ = rot90(F); ∂Q_θ/∂θ = 0.
		r := rot90(F)
		k[o*n+o+2] -= r[0]
		k[(o+1)*n+o+2] -= r[1]
	} else {
		// ∂Q_θ/∂θ = cross(Bs, F) = −(As)·F.
		k[(o+2)*n+o+2] -= cross2(bs, F)
	}
}

// pointForce is a force given by components at a marker.
type pointForce struct {
	name     string
	pt       point
	fx, fy   param
	follower bool
	d        [3]int
}

func (e *pointForce) dofs() []int      { return e.d[:] }
func (e *pointForce) params() []*param { return []*param{&e.fx, &e.fy} }

func (e *pointForce) force(x *evalCtx) (kp kinPoint, F [2]float64) {
	e.pt.eval(x.q, x.v, &kp)
	F = [2]float64{e.fx.get(x), e.fy.get(x)}
	if e.follower {
		sn, cs := math.Sincos(kp.th + e.pt.ang)
		F = [2]float64{cs*F[0] - sn*F[1], sn*F[0] + cs*F[1]}
	}
	return
}

func (e *pointForce) eval(x *evalCtx, f, k, c []float64) {
	if e.pt.body < 0 {
		return
	}
	kp, F := e.force(x)
	addPointForce(&kp, F, f, 0, k, 3, e.follower)
}

func (e *pointForce) potential(*evalCtx) float64 { return 0 }

// torqueElem is a torque on body j with the reaction on body i.
type torqueElem struct {
	name string
	bi   int // -1 ground
	bj   int
	t    param
	d    [6]int
}

func (e *torqueElem) dofs() []int      { return e.d[:] }
func (e *torqueElem) params() []*param { return []*param{&e.t} }

func (e *torqueElem) eval(x *evalCtx, f, k, c []float64) {
	t := e.t.get(x)
	f[2] -= t
	f[5] += t
}

func (e *torqueElem) potential(*evalCtx) float64 { return 0 }

// spring is a translational spring–damper between two points:
// tension f = K (l − L0) + C l' + P.
type spring struct {
	name       string
	pi, pj     point
	k, c, l, p param
	d          [6]int
}

func (e *spring) dofs() []int      { return e.d[:] }
func (e *spring) params() []*param { return []*param{&e.k, &e.c, &e.l, &e.p} }

// state returns length, rate, tension and the kinematics.
func (e *spring) state(x *evalCtx) (l, ld, f float64, ki, kj kinPoint, u [2]float64) {
	e.pi.eval(x.q, x.v, &ki)
	e.pj.eval(x.q, x.v, &kj)
	d := [2]float64{kj.r[0] - ki.r[0], kj.r[1] - ki.r[1]}
	l = math.Hypot(d[0], d[1])
	if l > 1e-300 {
		u = [2]float64{d[0] / l, d[1] / l}
	}
	ld = u[0]*(kj.v[0]-ki.v[0]) + u[1]*(kj.v[1]-ki.v[1])
	f = e.k.get(x)*(l-e.l.get(x)) + e.c.get(x)*ld + e.p.get(x)
	return
}

func (e *spring) eval(x *evalCtx, f, k, c []float64) {
	l, _, fs, ki, kj, u := e.state(x)
	// D = ∂d/∂q (2×6): [−I, −Bs_i, I, Bs_j]
	bi, bj := ki.bs(), kj.bs()
	var D [2][6]float64
	D[0][0], D[1][1] = -1, -1
	D[0][2], D[1][2] = -bi[0], -bi[1]
	D[0][3], D[1][4] = 1, 1
	D[0][5], D[1][5] = bj[0], bj[1]
	if e.pi.body < 0 {
		for r := 0; r < 2; r++ {
			D[r][0], D[r][1], D[r][2] = 0, 0, 0
		}
	}
	if e.pj.body < 0 {
		for r := 0; r < 2; r++ {
			D[r][3], D[r][4], D[r][5] = 0, 0, 0
		}
	}
	// Dtu = Dᵀu; Q = −f Dᵀu.
	var Dtu [6]float64
	for a := 0; a < 6; a++ {
		Dtu[a] = D[0][a]*u[0] + D[1][a]*u[1]
		f[a] -= fs * Dtu[a]
	}
	if k == nil || l < 1e-300 {
		return
	}
	kk, cc := e.k.get(x), e.c.get(x)
	dd := [2]float64{kj.v[0] - ki.v[0], kj.v[1] - ki.v[1]}
	// P = (I − uuᵀ)/l
	P := [2][2]float64{{(1 - u[0]*u[0]) / l, -u[0] * u[1] / l}, {-u[0] * u[1] / l, (1 - u[1]*u[1]) / l}}
	// ∂u/∂q = P D (2×6)
	var du [2][6]float64
	for r := 0; r < 2; r++ {
		for a := 0; a < 6; a++ {
			du[r][a] = P[r][0]*D[0][a] + P[r][1]*D[1][a]
		}
	}
	// ∂l'/∂q = ḋᵀ ∂u/∂q + uᵀ ∂ḋ/∂q ; ∂ḋ/∂θi = +A s_i ω_i, ∂ḋ/∂θj = −A s_j ω_j
	var dldq, dfdq [6]float64
	for a := 0; a < 6; a++ {
		dldq[a] = dd[0]*du[0][a] + dd[1]*du[1][a]
	}
	if e.pi.body >= 0 {
		dldq[2] += ki.om * dot2(u, ki.as)
	}
	if e.pj.body >= 0 {
		dldq[5] -= kj.om * dot2(u, kj.as)
	}
	for a := 0; a < 6; a++ {
		dfdq[a] = kk*Dtu[a] + cc*dldq[a]
	}
	// K = −∂Q/∂q = Dᵀu ∂f/∂q + f Dᵀ ∂u/∂q + f (∂Dᵀ/∂q) u
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			k[a*6+b] += Dtu[a]*dfdq[b] + fs*(D[0][a]*du[0][b]+D[1][a]*du[1][b])
			c[a*6+b] += cc * Dtu[a] * Dtu[b]
		}
	}
	if e.pi.body >= 0 {
		k[2*6+2] += fs * dot2(ki.as, u)
	}
	if e.pj.body >= 0 {
		k[5*6+5] -= fs * dot2(kj.as, u)
	}
}

func (e *spring) potential(x *evalCtx) float64 {
	l, _, _, _, _, _ := e.state(x)
	dl := l - e.l.get(x)
	return 0.5*e.k.get(x)*dl*dl + e.p.get(x)*dl
}

// rspring is a rotational spring–damper between bodies i and j:
// τ = −K (θj − θi − φ0) − C (ωj − ωi) + P acts on j, −τ on i.
type rspring struct {
	name       string
	bi, bj     int
	k, c, a, p param
	d          [6]int
}

func (e *rspring) dofs() []int      { return e.d[:] }
func (e *rspring) params() []*param { return []*param{&e.k, &e.c, &e.a, &e.p} }

func (e *rspring) rel(x *evalCtx) (th, om float64) {
	if e.bj >= 0 {
		th, om = x.q[3*e.bj+2], x.v[3*e.bj+2]
	}
	if e.bi >= 0 {
		th -= x.q[3*e.bi+2]
		om -= x.v[3*e.bi+2]
	}
	return
}

func (e *rspring) torque(x *evalCtx) float64 {
	th, om := e.rel(x)
	return -e.k.get(x)*(th-e.a.get(x)) - e.c.get(x)*om + e.p.get(x)
}

func (e *rspring) eval(x *evalCtx, f, k, c []float64) {
	t := e.torque(x)
	f[2] -= t
	f[5] += t
	if k == nil {
		return
	}
	kk, cc := e.k.get(x), e.c.get(x)
	k[2*6+2] += kk
	k[2*6+5] -= kk
	k[5*6+2] -= kk
	k[5*6+5] += kk
	c[2*6+2] += cc
	c[2*6+5] -= cc
	c[5*6+2] -= cc
	c[5*6+5] += cc
}

func (e *rspring) potential(x *evalCtx) float64 {
	th, _ := e.rel(x)
	d := th - e.a.get(x)
	return 0.5*e.k.get(x)*d*d - e.p.get(x)*d
}
