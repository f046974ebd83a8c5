// Command adamsref is an independent reference simulator for the single-pendulum
// joint tests of Project Chrono (src/tests/unit_tests/joints/utest_JOINT_*.cpp), whose
// reference results were computed with MSC ADAMS (data/testing/joints/...).
//
// It shares no code with the mbfmu engine. One rigid body (mass m, principal inertia J
// in the body frame) is attached to ground by holonomic constraints. The state is
// (r, q, v, w'), r = CM position (world), q = unit quaternion world<-body, v = CM
// velocity (world), w' = angular velocity in body axes. At every right-hand-side
// evaluation the index-1 system
//
//	[ M  -J^T ] [ du ]   [ F     ]
//	[ J   0   ] [ l  ] = [ gamma ]
//
// is solved (M = diag(m,m,m,Jx,Jy,Jz), F = (m g, -w' x J w')), and the state is
// integrated with classical RK4 (h = 1e-4 s by default) followed by a projection of
// positions and velocities back onto the constraint manifold. Reaction forces come
// from the multipliers l.
//
// The cases are the models of the ADAMS .adm files data/testing/joints/adams_models/
// test_<Case>.adm (Revolute, Spherical, Universal, Prismatic, Cylindrical, Distance)
// and of utest_JOINT_revsph.cpp (RevSpherical, which has no .adm), written out below
// independently of solver/testdata/adams/*.xml. Output conventions are ADAMS's: CM
// position, velocity, acceleration (global); Euler parameters world<-body with e0 >= 0;
// angular velocity and acceleration in global axes; the reaction force and torque on
// the ground, about the joint point on the ground (the revolute centre for
// RevSpherical, the ground attachment point for Distance), global axes.
//
// It writes one file per case, <Case>.csv, with every quantity as columns (see
// header below) every -every seconds. The mbfmu test data are regenerated with
//
//	go run ./scripts/adamsref -out solver/testdata/adams/ref
//
// (about 20 s). -case NAME runs one case; -h changes the RK4 step, for a convergence
// check: h = 2.5e-5 s changes no value by more than 1e-7 m (the print resolution of the
// 122 m free fall), 1.3e-7 m/s, 4e-9 in the Euler parameters, 5e-7 rad/s, and 2e-5 to
// 8e-5 in the accelerations and reactions (at the reaction spikes of RevSpherical and
// the near-singular passages of Distance_Case02).
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type vec [3]float64
type mat [3][3]float64
type quat [4]float64 // w, x, y, z

func add(a, b vec) vec         { return vec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub(a, b vec) vec         { return vec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scl(s float64, a vec) vec { return vec{s * a[0], s * a[1], s * a[2]} }
func dot(a, b vec) float64     { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b vec) vec {
	return vec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm(a vec) float64 { return math.Sqrt(dot(a, a)) }
func unit(a vec) vec     { return scl(1/norm(a), a) }

func (A mat) mul(x vec) vec {
	return vec{dot(A[0], x), dot(A[1], x), dot(A[2], x)}
}
func (A mat) tmul(x vec) vec {
	var y vec
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			y[j] += A[i][j] * x[i]
		}
	}
	return y
}

// R returns the rotation matrix of a unit quaternion (world <- body).
func (q quat) R() mat {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return mat{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

func qmul(a, b quat) quat {
	return quat{
		a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3],
		a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2],
		a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1],
		a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0],
	}
}
func qnorm(q quat) quat {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}
func qaxis(axis vec, ang float64) quat {
	u := unit(axis)
	s := math.Sin(ang / 2)
	return quat{math.Cos(ang / 2), s * u[0], s * u[1], s * u[2]}
}

// qeuler313 returns the quaternion of ADAMS REULER = psi, theta, phi (body-fixed 3-1-3).
func qeuler313(psi, theta, phi float64) quat {
	d := math.Pi / 180
	return qmul(qmul(qaxis(vec{0, 0, 1}, psi*d), qaxis(vec{1, 0, 0}, theta*d)), qaxis(vec{0, 0, 1}, phi*d))
}

// row is one constraint equation: value, Jacobian w.r.t. (v, w'), and gamma.
type row struct {
	phi   float64
	jl    vec // w.r.t. CM velocity (world)
	ja    vec // w.r.t. angular velocity (body axes)
	gamma float64
}

type state struct {
	r, v vec
	q    quat
	w    vec // body-frame angular velocity
}

type prim interface {
	rows(s *state, A mat) []row
}

// skewT(a)^T-like helper: returns b^T A ã' as a row vector (i.e. (A^T b) x a' ... )
// For a body vector a', d/dt(A a') = A (w' x a') = -A ã' w'. So b.(d/dt A a') = (a' x A^T b) . w'.
func rotRow(b vec, A mat, a vec) vec { return cross(a, A.tmul(b)) }

// point: r + A s' - p = 0 (3 rows)
type point struct{ s, p vec }

func (c point) rows(st *state, A mat) []row {
	x := sub(add(st.r, A.mul(c.s)), c.p)
	acc := A.mul(cross(st.w, cross(st.w, c.s)))
	out := make([]row, 3)
	for i := 0; i < 3; i++ {
		var e vec
		e[i] = 1
		out[i] = row{x[i], e, rotRow(e, A, c.s), -acc[i]}
	}
	return out
}

// dotBG: (A a') . b = 0, b fixed in ground (world).
type dotBG struct{ a, b vec }

func (c dotBG) rows(st *state, A mat) []row {
	return []row{{dot(A.mul(c.a), c.b), vec{}, rotRow(c.b, A, c.a), -dot(c.b, A.mul(cross(st.w, cross(st.w, c.a))))}}
}

// dotDG: b . (r + A s' - p) = 0, b fixed in ground.
type dotDG struct{ b, s, p vec }

func (c dotDG) rows(st *state, A mat) []row {
	d := sub(add(st.r, A.mul(c.s)), c.p)
	return []row{{dot(c.b, d), c.b, rotRow(c.b, A, c.s), -dot(c.b, A.mul(cross(st.w, cross(st.w, c.s))))}}
}

// dist: (|r + A s' - p|^2 - L^2)/2 = 0
type dist struct {
	s, p vec
	L    float64
}

func (c dist) rows(st *state, A mat) []row {
	d := sub(add(st.r, A.mul(c.s)), c.p)
	dd := add(st.v, A.mul(cross(st.w, c.s)))
	return []row{{0.5 * (dot(d, d) - c.L*c.L), d, rotRow(d, A, c.s), -dot(dd, dd) - dot(d, A.mul(cross(st.w, cross(st.w, c.s))))}}
}

type model struct {
	name  string
	m     float64
	J     vec
	g     vec
	r0    vec
	q0    quat
	prims []prim
	refPt vec // point (world, fixed on ground) about which reaction torque is reported
	tEnd  float64
}

func (md *model) allRows(st *state) []row {
	A := st.q.R()
	var rs []row
	for _, p := range md.prims {
		rs = append(rs, p.rows(st, A)...)
	}
	return rs
}

// solve solves the dense linear system K x = b in place (Gaussian elimination, partial pivoting).
func solve(K [][]float64, b []float64) []float64 {
	n := len(b)
	for k := 0; k < n; k++ {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(K[i][k]) > math.Abs(K[p][k]) {
				p = i
			}
		}
		K[k], K[p] = K[p], K[k]
		b[k], b[p] = b[p], b[k]
		for i := k + 1; i < n; i++ {
			f := K[i][k] / K[k][k]
			for j := k; j < n; j++ {
				K[i][j] -= f * K[k][j]
			}
			b[i] -= f * b[k]
		}
	}
	x := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= K[i][j] * x[j]
		}
		x[i] = s / K[i][i]
	}
	return x
}

// dynamics returns (a, alpha', lambda-force on body (world), torque on body about CM (body axes)).
func (md *model) dynamics(st *state) (vec, vec, vec, vec) {
	rs := md.allRows(st)
	nc := len(rs)
	n := 6 + nc
	K := make([][]float64, n)
	for i := range K {
		K[i] = make([]float64, n)
	}
	b := make([]float64, n)
	Jw := vec{md.J[0] * st.w[0], md.J[1] * st.w[1], md.J[2] * st.w[2]}
	gyro := cross(st.w, Jw)
	for i := 0; i < 3; i++ {
		K[i][i] = md.m
		K[3+i][3+i] = md.J[i]
		b[i] = md.m * md.g[i]
		b[3+i] = -gyro[i]
	}
	for k, r := range rs {
		for i := 0; i < 3; i++ {
			K[i][6+k] = -r.jl[i]
			K[3+i][6+k] = -r.ja[i]
			K[6+k][i] = r.jl[i]
			K[6+k][3+i] = r.ja[i]
		}
		b[6+k] = r.gamma
	}
	x := solve(K, b)
	var a, al, f, tq vec
	for i := 0; i < 3; i++ {
		a[i] = x[i]
		al[i] = x[3+i]
	}
	for k, r := range rs {
		l := x[6+k]
		f = add(f, scl(l, r.jl))
		tq = add(tq, scl(l, r.ja))
	}
	return a, al, f, tq
}

type deriv struct {
	dr, dv vec
	dq     quat
	dw     vec
}

func (md *model) f(st *state) deriv {
	a, al, _, _ := md.dynamics(st)
	dq := qmul(st.q, quat{0, st.w[0], st.w[1], st.w[2]})
	for i := range dq {
		dq[i] *= 0.5
	}
	return deriv{st.v, a, dq, al}
}

func axpy(st state, h float64, d deriv) state {
	var o state
	o.r = add(st.r, scl(h, d.dr))
	o.v = add(st.v, scl(h, d.dv))
	o.w = add(st.w, scl(h, d.dw))
	for i := 0; i < 4; i++ {
		o.q[i] = st.q[i] + h*d.dq[i]
	}
	return o
}

func (md *model) rk4(st state, h float64) state {
	k1 := md.f(&st)
	s2 := axpy(st, h/2, k1)
	k2 := md.f(&s2)
	s3 := axpy(st, h/2, k2)
	k3 := md.f(&s3)
	s4 := axpy(st, h, k3)
	k4 := md.f(&s4)
	var d deriv
	d.dr = scl(1.0/6, add(add(k1.dr, scl(2, k2.dr)), add(scl(2, k3.dr), k4.dr)))
	d.dv = scl(1.0/6, add(add(k1.dv, scl(2, k2.dv)), add(scl(2, k3.dv), k4.dv)))
	d.dw = scl(1.0/6, add(add(k1.dw, scl(2, k2.dw)), add(scl(2, k3.dw), k4.dw)))
	for i := 0; i < 4; i++ {
		d.dq[i] = (k1.dq[i] + 2*k2.dq[i] + 2*k3.dq[i] + k4.dq[i]) / 6
	}
	o := axpy(st, h, d)
	o.q = qnorm(o.q)
	return o
}

// project moves the state onto the position and velocity constraint manifolds
// (minimum-norm corrections in (r, body rotation vector) and (v, w')).
func (md *model) project(st *state) {
	for it := 0; it < 5; it++ {
		rs := md.allRows(st)
		mx := 0.0
		for _, r := range rs {
			mx = math.Max(mx, math.Abs(r.phi))
		}
		if mx < 1e-15 {
			break
		}
		dl, da := minNorm(rs, func(r row) float64 { return r.phi })
		st.r = sub(st.r, dl)
		th := norm(da)
		if th > 0 {
			st.q = qnorm(qmul(st.q, qaxis(da, -th)))
		}
	}
	rs := md.allRows(st)
	dl, da := minNorm(rs, func(r row) float64 { return dot(r.jl, st.v) + dot(r.ja, st.w) })
	st.v = sub(st.v, dl)
	st.w = sub(st.w, da)
}

// minNorm returns x = J^T (J J^T)^-1 e for the residual e.
func minNorm(rs []row, e func(row) float64) (vec, vec) {
	n := len(rs)
	K := make([][]float64, n)
	b := make([]float64, n)
	for i := range rs {
		K[i] = make([]float64, n)
		for j := range rs {
			K[i][j] = dot(rs[i].jl, rs[j].jl) + dot(rs[i].ja, rs[j].ja)
		}
		K[i][i] += 1e-300
		b[i] = e(rs[i])
	}
	y := solve(K, b)
	var dl, da vec
	for i, r := range rs {
		dl = add(dl, scl(y[i], r.jl))
		da = add(da, scl(y[i], r.ja))
	}
	return dl, da
}

// output row set
type sample struct {
	t                                          float64
	pos, vel, acc, avel, aacc, rforce, rtorque vec
	q                                          quat
	energy, cviol                              float64
}

func (md *model) sample(t float64, st *state, e0 float64) sample {
	a, al, f, tq := md.dynamics(st)
	A := st.q.R()
	// Constraint wrench on the body: force f (world) at CM, torque A*tq about CM.
	// Wrench on ground about the reference point P: -f, -(A tq + (r-P) x f).
	tw := add(A.mul(tq), cross(sub(st.r, md.refPt), f))
	q := st.q
	if q[0] < 0 {
		q = quat{-q[0], -q[1], -q[2], -q[3]}
	}
	Jw := vec{md.J[0] * st.w[0], md.J[1] * st.w[1], md.J[2] * st.w[2]}
	E := 0.5*md.m*dot(st.v, st.v) + 0.5*dot(st.w, Jw) - md.m*dot(md.g, st.r)
	cv := 0.0
	for _, r := range md.allRows(st) {
		cv = math.Max(cv, math.Abs(r.phi))
	}
	return sample{t, st.r, st.v, a, A.mul(st.w), A.mul(al), scl(-1, f), scl(-1, tw), q, E - e0, cv}
}

func run(md *model, h, dtOut float64) []sample {
	st := state{r: md.r0, q: md.q0}
	md.project(&st)
	Jw := vec{md.J[0] * st.w[0], md.J[1] * st.w[1], md.J[2] * st.w[2]}
	e0 := 0.5*md.m*dot(st.v, st.v) + 0.5*dot(st.w, Jw) - md.m*dot(md.g, st.r)
	nOut := int(math.Round(md.tEnd / dtOut))
	per := int(math.Round(dtOut / h))
	out := []sample{md.sample(0, &st, e0)}
	for k := 1; k <= nOut; k++ {
		for j := 0; j < per; j++ {
			st = md.rk4(st, h)
			md.project(&st)
		}
		out = append(out, md.sample(float64(k)*dtOut, &st, e0))
	}
	return out
}

const g0 = 9.80665

// pendulum builds a body at CM position r0 with orientation q0 and returns helpers
// to express world points/axes in body coordinates at t = 0.
func bodyPt(r0 vec, q0 quat, pw vec) vec { return q0.R().tmul(sub(pw, r0)) }
func bodyAx(q0 quat, aw vec) vec         { return q0.R().tmul(aw) }

func cases() map[string]*model {
	M := map[string]*model{}
	g := vec{0, 0, -g0}
	J1 := vec{0.04, 0.1, 0.1}
	// joint-frame pendulums: CM at p + R (2,0,0), body orientation = joint orientation
	jointPend := func(name string, p vec, qj quat, J vec, cmLocal vec, kind string) {
		R := qj.R()
		r0 := add(p, R.mul(cmLocal))
		xg, yg, zg := R.mul(vec{1, 0, 0}), R.mul(vec{0, 1, 0}), R.mul(vec{0, 0, 1})
		s := bodyPt(r0, qj, p)
		xb, yb := bodyAx(qj, xg), bodyAx(qj, yg)
		var ps []prim
		switch kind {
		case "revolute":
			ps = []prim{point{s, p}, dotBG{xb, zg}, dotBG{yb, zg}}
		case "spherical":
			ps = []prim{point{s, p}}
		case "universal": // ground x-axis perpendicular to body y-axis (Chrono ChLinkUniversal, ADAMS HOOKE)
			ps = []prim{point{s, p}, dotBG{yb, xg}}
		case "prismatic": // translation along z of the joint frame
			ps = []prim{dotBG{xb, yg}, dotBG{xb, zg}, dotBG{yb, zg}, dotDG{xg, s, p}, dotDG{yg, s, p}}
		case "cylindrical":
			ps = []prim{dotBG{xb, zg}, dotBG{yb, zg}, dotDG{xg, s, p}, dotDG{yg, s, p}}
		}
		M[name] = &model{name: name, m: 1, J: J, g: g, r0: r0, q0: qj, prims: ps, refPt: p, tEnd: 5}
	}
	id := quat{1, 0, 0, 0}
	d := math.Pi / 180
	ex := vec{1, 0, 0}
	two := vec{2, 0, 0}
	jointPend("Revolute_Case01", vec{0, 0, 0}, qaxis(ex, -90*d), J1, two, "revolute")
	jointPend("Revolute_Case02", vec{1, 2, 3}, qaxis(ex, -45*d), J1, two, "revolute")
	jointPend("Spherical_Case01", vec{0, 0, 0}, id, J1, two, "spherical")
	jointPend("Spherical_Case02", vec{1, 2, 3}, qaxis(ex, -45*d), J1, two, "spherical")
	jointPend("Prismatic_Case01", vec{0, 0, 0}, id, J1, two, "prismatic")
	jointPend("Prismatic_Case02", vec{1, 2, 3}, qaxis(ex, -45*d), J1, two, "prismatic")
	jointPend("Prismatic_Case03", vec{1, 2, 3}, qaxis(ex, -90*d), J1, two, "prismatic")
	jointPend("Cylindrical_Case01", vec{0, 0, 0}, id, J1, two, "cylindrical")
	jointPend("Cylindrical_Case02", vec{0, 0, 0}, qaxis(ex, -90*d), J1, two, "cylindrical")
	jointPend("Cylindrical_Case03", vec{1, 2, 3}, qaxis(ex, -45*d), J1, two, "cylindrical")
	JU := vec{0.1, 0.1, 0.04}
	down := vec{0, 0, -2}
	jointPend("Universal_Case01", vec{0, 0, 0}, qeuler313(0, 90, 0), JU, down, "universal")
	jointPend("Universal_Case02", vec{0, 0, 0}, qeuler313(90, 90, -90), JU, down, "universal")
	jointPend("Universal_Case03", vec{0, 0, 0}, qeuler313(-45, 90, 45), JU, down, "universal")

	distance := func(name string, pg, pp, r0 vec, q0 quat) {
		L := norm(sub(pp, pg))
		M[name] = &model{name: name, m: 1, J: J1, g: g, r0: r0, q0: q0,
			prims: []prim{dist{bodyPt(r0, q0, pp), pg, L}}, refPt: pg, tEnd: 5}
	}
	distance("Distance_Case01", vec{0, 0, 0}, vec{0, 2, 0}, vec{0, 2, 0}, id)
	distance("Distance_Case02", vec{1, 2, 3}, vec{1, 4, 3}, vec{-1, 4, 3}, id)
	distance("Distance_Case03", vec{0, 0, 0}, vec{0, 2, 0}, vec{0, 4, 0}, qaxis(vec{0, 0, 1}, -90*d))

	revsph := func(name string, pg, axis, pp, r0 vec) {
		L := norm(sub(pp, pg))
		s := bodyPt(r0, id, pp)
		M[name] = &model{name: name, m: 1, J: vec{0.1, 0.04, 0.1}, g: g, r0: r0, q0: id,
			prims: []prim{dist{s, pg, L}, dotDG{unit(axis), s, pg}}, refPt: pg, tEnd: 5}
	}
	revsph("RevSpherical_Case01", vec{0, 0, 0}, vec{0, 0, 1}, vec{2, 0, 0}, vec{2, 2, 0})
	revsph("RevSpherical_Case02", vec{1, 2, 3}, vec{0, 1, 1}, vec{3, 2, 3}, vec{3, 4, 3})
	return M
}

// header is the column line of the output files.
const header = "time_s,x_m,y_m,z_m,vx_m_s,vy_m_s,vz_m_s,ax_m_s2,ay_m_s2,az_m_s2," +
	"e0,e1,e2,e3,wx_rad_s,wy_rad_s,wz_rad_s,wdx_rad_s2,wdy_rad_s2,wdz_rad_s2," +
	"fx_N,fy_N,fz_N,tx_Nm,ty_Nm,tz_Nm"

// write writes the samples of one case, every k-th, to dir/name.csv.
func write(dir, name string, s []sample, k int, h float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: independent reference for Project Chrono's joint test of the same name (ADAMS results in\n", name)
	b.WriteString("# data/testing/joints). Computed by mbfmu's scripts/adamsref (go run ./scripts/adamsref): one rigid body,\n")
	fmt.Fprintf(&b, "# index-1 Lagrange multipliers, classical RK4 h = %g s with projection; shares no code with the engine.\n", h)
	b.WriteString("# Columns: CM position, velocity, acceleration (global); Euler parameters world<-body, e0 >= 0; angular\n")
	b.WriteString("# velocity and acceleration (global axes); reaction force and torque on the ground about the joint point\n")
	b.WriteString("# (global axes). Max energy drift and constraint violation over the run:")
	de, cv := 0.0, 0.0
	for _, x := range s {
		de, cv = math.Max(de, math.Abs(x.energy)), math.Max(cv, x.cviol)
	}
	fmt.Fprintf(&b, " %.1e J, %.1e.\n", de, cv)
	b.WriteString(header + "\n")
	for i, x := range s {
		if i%k != 0 {
			continue
		}
		fmt.Fprintf(&b, "%.2f,%s,%s,%s,%.10g,%.10g,%.10g,%.10g,%s,%s,%s,%s\n", x.t, f3(x.pos), f3(x.vel), f3(x.acc),
			x.q[0], x.q[1], x.q[2], x.q[3], f3(x.avel), f3(x.aacc), f3(x.rforce), f3(x.rtorque))
	}
	return os.WriteFile(filepath.Join(dir, name+".csv"), []byte(b.String()), 0o644)
}

func f3(v vec) string { return fmt.Sprintf("%.10g,%.10g,%.10g", v[0], v[1], v[2]) }

func main() {
	which := flag.String("case", "all", "case name or all")
	out := flag.String("out", ".", "output directory")
	h := flag.Float64("h", 1e-4, "RK4 step (s)")
	every := flag.Float64("every", 0.02, "output interval (s), a multiple of 0.01 s")
	flag.Parse()
	k := int(math.Round(*every / 0.01))
	if k < 1 || math.Abs(float64(k)*0.01-*every) > 1e-12 {
		fmt.Fprintln(os.Stderr, "-every must be a positive multiple of 0.01 s")
		os.Exit(2)
	}
	M := cases()
	names := []string{}
	for k := range M {
		if *which == "all" || *which == k {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintln(os.Stderr, "unknown case", *which)
		os.Exit(2)
	}
	for _, n := range names {
		s := run(M[n], *h, 0.01)
		if err := write(*out, n, s, k, *h); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		last := s[len(s)-1]
		fmt.Printf("%-20s t=5 pos=%s  |dE|=%.1e  viol=%.1e\n", n, f3(last.pos), last.energy, last.cviol)
	}
}
