package solver

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mbfmu/solver/contacts"
	"mbfmu/solver/mech"
	"mbfmu/spec"
	"mbfmu/xml"
)

// The linearisation (Model.Linearize) against central finite differences
// of the full nonlinear model (issue 12, item 3).
//
// The reference is written here, independently of Linearize: the map from
// the minimal coordinates x = (z, w) and the inputs u to the state,
//
//	q(z)    = q₀ ⊕ (N z + Y μ),  μ such that Φ(q, t) = 0 (Gauss–Newton)
//	v(z, w) = N w + Y ν,          ν such that Φq v + Φt = 0
//
// (N the orthonormal null-space basis of Φq(q₀) that Linearize returns, Y
// an orthonormal basis of its complement, so z = Nᵀ (q ⊖ q₀) and w = Nᵀ v
// exactly), and the nonlinear right-hand side
//
//	ż = Nᵀ T(θ)⁻¹ v  (θ = N z + Y μ; T⁻¹ = dexp⁻¹ on the rotation blocks)
//	ẇ = Nᵀ a(q, v, u),  y = outputs(q, v, a, λ, u)
//
// with a, λ from the engine's acceleration solve of the index-1 equations
// [M Φqᵀ; Φq 0][a; λ] = [g + Q; γ] (Model.accelerations with the contacts'
// modes as they are, sticking contacts included; solved to its fixed point
// where an element's force reads the accelerations: the floating-frame
// beams' configuration-dependent inertia) and y from Model.EvalOutputs.
// Its Jacobian is taken column by column by central differences with two
// Richardson extrapolations (steps h, h/2, h/4: error O(h⁶)), their
// difference being the estimate of the error, which must be far below the
// tolerance (see jacobian for the choice of h).

// linFD evaluates the nonlinear model about a base state.
type linFD struct {
	m          *Model
	s          *State
	core, vars []float64 // the base state
	q0         []float64
	N, Y       *mat.Dense
	nv, nf, nr int
	nu, ny     int
	w0, u0     []float64
	nw0        []float64 // N w₀
	d, dt, dv  []float64 // work: the increments N z and N z + Y μ, and of v
}

// newLinFD prepares the reference about the state s (left unchanged) with
// the null-space basis N.
func newLinFD(m *Model, s *State, N *mat.Dense) *linFD {
	nv := m.nv
	_, nf := N.Dims()
	r := &linFD{m: m, s: m.NewState(), nv: nv, nf: nf, nr: nv - nf, nu: len(m.inputs), ny: len(m.outputs)}
	r.s.CopyFrom(s)
	r.core = append([]float64(nil), s.core...)
	r.vars = append([]float64(nil), s.vars...)
	r.q0 = append([]float64(nil), s.q...)
	r.N = N
	if r.nr > 0 {
		// Y: the right singular vectors of Φq(q₀) of the nonzero
		// singular values (the rows' span, orthogonal to N)
		J := m.constraintJacobian(r.s)
		var svd mat.SVD
		if !svd.Factorize(J, mat.SVDFull) {
			panic("SVD failed")
		}
		var V mat.Dense
		svd.VTo(&V)
		r.Y = mat.DenseCopyOf(V.Slice(0, nv, 0, r.nr))
	}
	r.w0, r.nw0 = make([]float64, nf), make([]float64, nv)
	for j := 0; j < nf; j++ {
		for i := 0; i < nv; i++ {
			r.w0[j] += N.At(i, j) * s.v[i]
		}
	}
	for i := 0; i < nv; i++ {
		for j := 0; j < nf; j++ {
			r.nw0[i] += N.At(i, j) * r.w0[j]
		}
	}
	r.u0 = make([]float64, r.nu)
	for k := range r.u0 {
		r.u0[k] = s.Input(k)
	}
	r.d, r.dt, r.dv = make([]float64, nv), make([]float64, nv), make([]float64, nv)
	return r
}

// linAccel solves the index-1 equations at the state's positions,
// velocities and inputs into s.a and s.lam. Model.accelerations is a map
// F(â) = c + E â of the accelerations â the force elements read (only the
// floating-frame beams' inertia reads them: E ≠ 0, of low rank); the
// solution is its fixed point a = F(a), found by GMRES on (I − E) a = c
// (a plain fixed-point iteration diverges when E is large).
func linAccel(m *Model, s *State) {
	nv := m.nv
	F := func(x, dst []float64) {
		copy(s.a, x)
		if err := m.accelerations(s, dst, false); err != nil {
			panic(err)
		}
	}
	c := make([]float64, nv)
	F(make([]float64, nv), c)
	cn := math.Sqrt(dotN(c, c))
	x := append([]float64(nil), c...)
	fx := make([]float64, nv)
	F(x, fx)
	// r0 = c − (I − E) x = F(x) − x
	r0 := make([]float64, nv)
	for i := range r0 {
		r0[i] = fx[i] - x[i]
	}
	beta := math.Sqrt(dotN(r0, r0))
	if beta > 1e-15*cn {
		// GMRES (no restart) with modified Gram–Schmidt and Givens rotations
		kmax := nv
		V := [][]float64{}
		H := make([][]float64, kmax+1)
		for i := range H {
			H[i] = make([]float64, kmax)
		}
		cs, sn := make([]float64, kmax), make([]float64, kmax)
		g := make([]float64, kmax+1)
		g[0] = beta
		v0 := make([]float64, nv)
		for i := range v0 {
			v0[i] = r0[i] / beta
		}
		V = append(V, v0)
		k := 0
		for ; k < kmax; k++ {
			// w = (I − E) v_k = v_k − (F(v_k) − c)
			w := make([]float64, nv)
			F(V[k], w)
			for i := range w {
				w[i] = V[k][i] - (w[i] - c[i])
			}
			for i := 0; i <= k; i++ {
				H[i][k] = dotN(w, V[i])
				for l := range w {
					w[l] -= H[i][k] * V[i][l]
				}
			}
			hk := math.Sqrt(dotN(w, w))
			H[k+1][k] = hk
			for i := 0; i < k; i++ {
				a, b := H[i][k], H[i+1][k]
				H[i][k], H[i+1][k] = cs[i]*a+sn[i]*b, -sn[i]*a+cs[i]*b
			}
			d := math.Hypot(H[k][k], H[k+1][k])
			cs[k], sn[k] = H[k][k]/d, H[k+1][k]/d
			H[k][k], H[k+1][k] = d, 0
			g[k+1] = -sn[k] * g[k]
			g[k] *= cs[k]
			if math.Abs(g[k+1]) <= 1e-15*cn || hk == 0 {
				k++
				break
			}
			for l := range w {
				w[l] /= hk
			}
			V = append(V, w)
		}
		y := make([]float64, k)
		for i := k - 1; i >= 0; i-- {
			y[i] = g[i]
			for j := i + 1; j < k; j++ {
				y[i] -= H[i][j] * y[j]
			}
			y[i] /= H[i][i]
		}
		for i := 0; i < k; i++ {
			for l := range x {
				x[l] += y[i] * V[i][l]
			}
		}
		F(x, fx)
	}
	copy(s.a, fx)
}

// lsq solves the least-squares problem A x = b (A full column rank).
func lsq(A *mat.Dense, b []float64) []float64 {
	_, c := A.Dims()
	var x mat.VecDense
	if err := x.SolveVec(A, mat.NewVecDense(len(b), b)); err != nil {
		panic(err)
	}
	out := make([]float64, c)
	for i := range out {
		out[i] = x.AtVec(i)
	}
	return out
}

// eval evaluates the nonlinear model at the base point moved by h along
// coordinate j of (z, w, u), writing ż (in velocity space before the
// projection Nᵀ, less the constant N w₀), a and y into dst (nv + nv + ny).
func (r *linFD) eval(j int, h float64, dst []float64) {
	m, s, nv, nf := r.m, r.s, r.nv, r.nf
	copy(s.core, r.core)
	copy(s.vars, r.vars)
	s.setTime(s.T)
	clear(r.d)
	if j < nf {
		for i := 0; i < nv; i++ {
			r.d[i] = h * r.N.At(i, j)
		}
	}
	// positions: q = q₀ ⊕ (d + Y μ) on Φ = 0
	mu := make([]float64, r.nr)
	last := math.Inf(1)
	for it := 0; ; it++ {
		copy(r.dt, r.d)
		for i := 0; i < nv; i++ {
			for k := 0; k < r.nr; k++ {
				r.dt[i] += r.Y.At(i, k) * mu[k]
			}
		}
		copy(s.q, r.q0)
		m.addTo(s.q, r.dt, 1)
		if r.nr == 0 {
			break
		}
		J := m.constraintJacobian(s)
		neg := make([]float64, m.nc)
		for k := range neg {
			neg[k] = -s.phi[k]
		}
		var JY mat.Dense
		JY.Mul(J.Slice(0, m.nc, 0, nv), r.Y)
		del := lsq(&JY, neg)
		step := 0.0
		for k := range del {
			mu[k] += del[k]
			step = math.Max(step, math.Abs(del[k]))
		}
		if step <= 1e-17 || (it > 2 && step >= last) {
			break
		}
		if it > 50 {
			panic("assembly of the perturbed state does not converge")
		}
		last = step
	}
	// velocities: v = N w₀ + δv, δv = N (w − w₀) + Y ν on Φq v + Φt = 0
	// (ż is differenced as δv: the large N w₀ would bring its round-off)
	v, dv := s.v, r.dv
	clear(dv)
	if j >= nf && j < 2*nf {
		for i := 0; i < nv; i++ {
			dv[i] = h * r.N.At(i, j-nf)
		}
	}
	for i := range v {
		v[i] = r.nw0[i] + dv[i]
	}
	if r.nr > 0 {
		J := m.constraintJacobian(s)
		m.evalCons(s, true)
		rhs := make([]float64, m.nc)
		for k := range rhs {
			rhs[k] = -s.phit[k] - m.rowDot(s, k, v)
		}
		var JY mat.Dense
		JY.Mul(J.Slice(0, m.nc, 0, nv), r.Y)
		nu := lsq(&JY, rhs)
		for i := 0; i < nv; i++ {
			for k := 0; k < r.nr; k++ {
				dv[i] += r.Y.At(i, k) * nu[k]
			}
			v[i] = r.nw0[i] + dv[i]
		}
	}
	if j >= 2*nf {
		k := j - 2*nf
		s.SetInput(k, r.u0[k]+h)
	}
	// accelerations: the index-1 equations
	linAccel(m, s)
	// ż in velocity space less N w₀: T(θ)⁻¹ v − N w₀ = δv + (T(θ)⁻¹ − I) v
	// (the rotation blocks)
	zd := dst[:nv]
	copy(zd, dv)
	for _, rb := range m.rots {
		th := mech.Vec3{r.dt[rb.v], r.dt[rb.v+1], r.dt[rb.v+2]}
		om := mech.Vec3{v[rb.v], v[rb.v+1], v[rb.v+2]}
		t := mech.Sub(mech.DexpInv(th, om), om)
		for k := 0; k < 3; k++ {
			zd[rb.v+k] += t[k]
		}
	}
	copy(dst[nv:2*nv], s.a)
	if r.ny > 0 {
		m.EvalOutputs(s, dst[2*nv:])
	}
	copy(s.core, r.core)
	copy(s.vars, r.vars)
}

// jacobian returns the reference Jacobian in velocity space, one column per
// coordinate of (z, w, u): rows ż (nv), a (nv), y (ny); and the estimate
// of its error (same shape, signed: the difference of the last two
// extrapolations, larger than the error of the result). Each column is
// differenced with first steps h = step(j), h/10, h/100, h/1000 until the
// estimated error of ż and a is below 1e-10 of their size and that of
// each output below 1e-10 of its own; each entry is then taken from the
// step with the smallest estimated error (a stiff element wants small
// steps, a noisy output large ones).
func (r *linFD) jacobian(step func(j int) float64) (J, E *mat.Dense) {
	n := 2*r.nf + r.nu
	rows := 2*r.nv + r.ny
	J, E = mat.NewDense(rows, n, nil), mat.NewDense(rows, n, nil)
	fp, fm := make([]float64, rows), make([]float64, rows)
	var D [3][]float64
	for k := range D {
		D[k] = make([]float64, rows)
	}
	jc, ec := make([]float64, rows), make([]float64, rows)
	parts := [][2]int{{0, r.nv}, {r.nv, 2 * r.nv}, {2 * r.nv, rows}}
	for j := 0; j < n; j++ {
		h0 := step(j)
		for lev := 0; lev < 5; lev++ {
			h := h0 * math.Pow(10, -float64(lev))
			for k := 0; k < 3; k++ {
				hk := h / float64(int(1)<<k)
				r.eval(j, hk, fp)
				r.eval(j, -hk, fm)
				for i := range fp {
					D[k][i] = (fp[i] - fm[i]) / (2 * hk)
				}
			}
			for i := 0; i < rows; i++ {
				r1 := (4*D[1][i] - D[0][i]) / 3
				r2 := (4*D[2][i] - D[1][i]) / 3
				jc[i], ec[i] = (16*r2-r1)/15, r2-r1
			}
			done := true
			for _, p := range parts[:2] {
				js, es := 0.0, 0.0
				for i := p[0]; i < p[1]; i++ {
					js, es = math.Max(js, math.Abs(jc[i])), math.Max(es, math.Abs(ec[i]))
				}
				done = done && es <= 1e-10*js
			}
			// outputs row by row (their own units), those below 1e-6 of
			// the largest taken as zero
			ys := 0.0
			for i := parts[2][0]; i < rows; i++ {
				ys = math.Max(ys, math.Abs(jc[i]))
			}
			for i := parts[2][0]; i < rows; i++ {
				done = done && math.Abs(ec[i]) <= 1e-10*math.Max(math.Abs(jc[i]), 1e-6*ys)
			}
			for i := 0; i < rows; i++ {
				if lev == 0 || math.Abs(ec[i]) < math.Abs(E.At(i, j)) {
					J.Set(i, j, jc[i])
					E.Set(i, j, ec[i])
				}
			}
			if done {
				break
			}
		}
	}
	return J, E
}

// linBlocks is a linearisation split into its blocks: rows ż, ẇ, y and
// columns z, w, u.
type linBlocks struct {
	A, B, C, D *mat.Dense
}

// reference projects the velocity-space Jacobian on N: the reference A, B,
// C, D; with abs set, the absolute values of the projection (for the
// error estimate: the error of the projection is the projection of the
// error).
func (r *linFD) reference(J *mat.Dense, abs bool) linBlocks {
	nv, nf, nu, ny := r.nv, r.nf, r.nu, r.ny
	n := 2*nf + nu
	var pz, pw mat.Dense
	pz.Mul(r.N.T(), J.Slice(0, nv, 0, n))
	pw.Mul(r.N.T(), J.Slice(nv, 2*nv, 0, n))
	if abs {
		f := func(_, _ int, x float64) float64 { return math.Abs(x) }
		pz.Apply(f, &pz)
		pw.Apply(f, &pw)
	}
	A := mat.NewDense(2*nf, 2*nf, nil)
	B := mat.NewDense(2*nf, max(nu, 1), nil)
	for i := 0; i < nf; i++ {
		for j := 0; j < n; j++ {
			if j < 2*nf {
				A.Set(i, j, pz.At(i, j))
				A.Set(nf+i, j, pw.At(i, j))
			} else {
				B.Set(i, j-2*nf, pz.At(i, j))
				B.Set(nf+i, j-2*nf, pw.At(i, j))
			}
		}
	}
	C := mat.NewDense(max(ny, 1), 2*nf, nil)
	D := mat.NewDense(max(ny, 1), max(nu, 1), nil)
	for o := 0; o < ny; o++ {
		for j := 0; j < n; j++ {
			x := J.At(2*nv+o, j)
			if abs {
				x = math.Abs(x)
			}
			if j < 2*nf {
				C.Set(o, j, x)
			} else {
				D.Set(o, j-2*nf, x)
			}
		}
	}
	return linBlocks{A, B, C, D}
}

// linErr compares a block of the linearisation L (rows r0:r1, columns
// c0:c1) with the reference R whose estimated error is Re: per column j,
// the largest discrepancy not explained by the reference's error,
// max(0, |L − R| − 3 Re), relative to the larger of the column's largest
// reference entry and floor (e); and the reference's own estimated error
// on the same measure (q). Both are the worst over the columns.
func linErr(L, R, Re *mat.Dense, r0, r1, c0, c1 int, floor, slack float64) (e, q float64) {
	for j := c0; j < c1; j++ {
		cs, cd, ce := 0.0, 0.0, 0.0
		for i := r0; i < r1; i++ {
			cs = math.Max(cs, math.Abs(R.At(i, j)))
			cd = math.Max(cd, math.Abs(L.At(i, j)-R.At(i, j))-3*Re.At(i, j)-slack)
			ce = math.Max(ce, Re.At(i, j))
		}
		d := math.Max(cs, floor)
		switch {
		case d > 0:
			e, q = math.Max(e, cd/d), math.Max(q, ce/d)
		case cd > 0:
			e = math.Inf(1)
		}
	}
	return
}

func maxAbsM(X *mat.Dense, r0, r1, c0, c1 int) float64 {
	s := 0.0
	for i := r0; i < r1; i++ {
		for j := c0; j < c1; j++ {
			s = math.Max(s, math.Abs(X.At(i, j)))
		}
	}
	return s
}

// linResult is the worst relative discrepancy of each matrix (column
// measure, see linErr) and the finite-difference reference's own
// estimated error on the same measure.
type linResult struct {
	nf                 int
	A, B, C, D         float64
	fdA, fdB, fdC, fdD float64
	detail             []string // per block and output
}

// linSettle makes the state consistent to round-off: positions on Φ = 0,
// velocities on the velocity constraints (smallest changes), accelerations
// and multipliers from the index-1 equations (to their fixed point).
func linSettle(t *testing.T, m *Model, s *State) {
	t.Helper()
	if err := m.assemblePositions(s); err != nil {
		t.Fatal(err)
	}
	v := append([]float64(nil), s.v...)
	if err := m.assembleVelocities(s, v); err != nil {
		t.Fatal(err)
	}
	linAccel(m, s)
}

// linCheck linearises m at s and compares with the finite-difference
// reference. The state is first made consistent (linSettle); Linearize
// is then handed it with its accelerations and multipliers cleared (it
// must solve them itself).
func linCheck(t *testing.T, m *Model, s *State) linResult {
	t.Helper()
	linSettle(t, m, s)
	a := append([]float64(nil), s.a...)
	lam := append([]float64(nil), s.lam...)
	clear(s.a)
	clear(s.lam)
	L, err := m.Linearize(s)
	copy(s.a, a)
	copy(s.lam, lam)
	if err != nil {
		t.Fatalf("Linearize: %v", err)
	}
	nv, nf := L.N.Dims()
	// N is an orthonormal basis of the null space of Φq
	var NtN mat.Dense
	NtN.Mul(L.N.T(), L.N)
	for i := 0; i < nf; i++ {
		NtN.Set(i, i, NtN.At(i, i)-1)
	}
	if e := maxAbsM(&NtN, 0, nf, 0, nf); e > 1e-12 {
		t.Errorf("NᵀN − I = %.3g", e)
	}
	if m.nc > 0 {
		J := m.constraintJacobian(s)
		var JN mat.Dense
		JN.Mul(J, L.N)
		if e, sc := maxAbsM(&JN, 0, m.nc, 0, nf), maxAbsM(J, 0, m.nc, 0, nv); e > 1e-12*sc {
			t.Errorf("Φq N = %.3g (Φq up to %.3g)", e, sc)
		}
	}
	r := newLinFD(m, s, L.N)
	wmax := 1.0
	for _, w := range r.w0 {
		wmax = math.Max(wmax, math.Abs(w))
	}
	J, E := r.jacobian(func(j int) float64 {
		switch {
		case j < nf:
			return 1e-2
		case j < 2*nf:
			return 1e-2 * wmax
		}
		return 1e-2 * math.Max(1, math.Abs(r.u0[j-2*nf]))
	})
	R, Re := r.reference(J, false), r.reference(E, true)
	res := linResult{nf: nf}
	logf := func(f string, a ...any) { res.detail = append(res.detail, fmt.Sprintf(f, a...)) }
	nu, ny := r.nu, r.ny
	// A, B: rows ż and ẇ by columns z, w (and u); a column smaller than
	// 1e-3 of its row group's largest entry, or than 1e-9 of A's largest
	// (A holds ∂ż/∂w = I), is judged against that
	amax := maxAbsM(R.A, 0, 2*nf, 0, 2*nf)
	for _, rg := range [2][2]int{{0, nf}, {nf, 2 * nf}} {
		floor := math.Max(1e-3*maxAbsM(R.A, rg[0], rg[1], 0, 2*nf), 1e-9*amax)
		for _, cg := range [2][2]int{{0, nf}, {nf, 2 * nf}} {
			e, q := linErr(L.A, R.A, Re.A, rg[0], rg[1], cg[0], cg[1], floor, 0)
			logf("A rows %d:%d, columns %d:%d: %.2g (reference %.2g)", rg[0], rg[1], cg[0], cg[1], e, q)
			res.A, res.fdA = math.Max(res.A, e), math.Max(res.fdA, q)
		}
		if nu > 0 {
			floor := math.Max(1e-3*maxAbsM(R.B, rg[0], rg[1], 0, nu), 1e-9*amax)
			e, q := linErr(L.B, R.B, Re.B, rg[0], rg[1], 0, nu, floor, 0)
			logf("B rows %d:%d: %.2g (reference %.2g)", rg[0], rg[1], e, q)
			res.B, res.fdB = math.Max(res.B, e), math.Max(res.fdB, q)
		}
	}
	// C, D: each output row by itself (its own unit), a column smaller
	// than 1e-3 of the row's largest entry judged against that. A row the
	// reference does not resolve (its largest entry below 30 times the
	// reference's estimated error: a derivative that vanishes, as the
	// strain energy's in the undeformed state) is judged against 1e-9 of
	// the largest entry of C and D, the discrepancy counted beyond three
	// times the row's largest estimated error.
	cmax, dmax := maxAbsM(R.C, 0, ny, 0, 2*nf), maxAbsM(R.D, 0, ny, 0, nu)
	// Linearize differentiates the outputs by central differences (steps
	// 1e-5 and 5e-6, extrapolated), which carry the rounding of the output
	// itself, about 1.5 ε|y|/1e-5: a large output (a fast top's kinetic
	// energy, 5 kJ) has no finer derivatives than that; ten times it is
	// allowed
	// allowed. A dimensionless output (a rotation matrix entry, a
	// quaternion component) is a sum of products of unit-size numbers: its
	// rounding is that of 1 even where its value is near zero.
	ynoise := make([]float64, ny)
	m.EvalOutputs(s, ynoise)
	for o, y := range ynoise {
		scale := math.Abs(y)
		if m.outputs[o].Unit == "" {
			scale = math.Max(scale, 1)
		}
		ynoise[o] = 10 * 1.5 * 2.2e-16 * scale / 1e-5
	}
	row := func(X, Y, Ye *mat.Dense, o, n int, xmax float64, name string) (e, q float64) {
		rmax, emax := maxAbsM(Y, o, o+1, 0, n), maxAbsM(Ye, o, o+1, 0, n)
		floor := math.Max(1e-3*rmax, 1e-9*xmax)
		if rmax < 30*emax {
			for j := 0; j < n; j++ {
				e = math.Max(e, (math.Abs(X.At(o, j)-Y.At(o, j))-3*emax-ynoise[o])/floor)
			}
			logf("%s row %s (largest entry %.3g, not resolved by the reference: error %.2g): %.2g", name, m.outputs[o].Name, rmax, emax, e)
			return math.Max(e, 0), 0
		}
		e, q = linErr(X, Y, Ye, o, o+1, 0, n, floor, ynoise[o])
		logf("%s row %s (largest entry %.3g): %.2g (reference %.2g)", name, m.outputs[o].Name, rmax, e, q)
		return e, q
	}
	for o := 0; o < ny; o++ {
		e, q := row(L.C, R.C, Re.C, o, 2*nf, math.Max(cmax, dmax), "C")
		res.C, res.fdC = math.Max(res.C, e), math.Max(res.fdC, q)
		if nu > 0 {
			e, q := row(L.D, R.D, Re.D, o, nu, math.Max(cmax, dmax), "D")
			res.D, res.fdD = math.Max(res.D, e), math.Max(res.fdD, q)
		}
	}
	return res
}

// linSynthetic are models made for this test: the cases issue 12 names.
var linSynthetic = []struct{ name, xml string }{
	{"expr-planar", `<model name="expr_planar">
  <settings end="1 s" step="1 ms" gravity="0 -9.81"/>
  <input name="F" unit="N" start="0.5"/>
  <ground><marker name="rail"/></ground>
  <body name="a" mass="2" inertia="0.05"><marker name="c"/></body>
  <translational name="slide" i="ground.rail" j="a.c"/>
  <body name="b" mass="1" inertia="0.02" cm="0.25 0" angle="-1.2">
    <marker name="pin"/>
    <marker name="c" at="0.5 0"/>
  </body>
  <revolute name="hinge" i="a.c" j="b.pin"/>
  <body name="k" mass="0.5" inertia="0.01" at="0.4 -0.5" angle="0.3"><marker name="m"/></body>
  <!-- a PD law on the cart written as an expression force reading its own measures -->
  <force name="pd_cart" i="a.c" fx="-1e4*dx(a.c) - 50*vx(a.c) + F"/>
  <!-- a PD law on the hinge reading the joint's measures -->
  <torque name="pd_hinge" i="b" j="a" t="-40*(angle(hinge) + 1) - 2*omega(hinge)"/>
  <!-- a bushing between b.c and k.m written as expressions: each force acts
       on one body and reads the other's measures -->
  <force name="bush_k" i="k.m" fx="-2e3*(dx(k.m) - dx(b.c)) - 5*(vx(k.m) - vx(b.c))"
         fy="-2e3*(dy(k.m) - dy(b.c)) - 5*(vy(k.m) - vy(b.c))"/>
  <force name="bush_b" i="b.c" fx="2e3*(dx(k.m) - dx(b.c)) + 5*(vx(k.m) - vx(b.c))"
         fy="2e3*(dy(k.m) - dy(b.c)) + 5*(vy(k.m) - vy(b.c))"/>
  <torque name="bush_t" i="k" j="b" t="-3*(angle(k.m) - angle(b.c) - 1.5) - 0.1*(omega(k.m) - omega(b.c))"/>
  <output name="x" channel="slide.disp"/>
  <output name="th" channel="hinge.angle"/>
  <output name="gap" expr="dist(b.c, k.m)" unit="m"/>
  <output name="fx" channel="hinge.fx"/>
  <output name="kvy" channel="k.vy"/>
</model>`},
	{"expr-spatial", `<model name="expr_spatial" dimension="3">
  <settings end="1 s" step="0.5 ms" gravity="0 0 -9.81"/>
  <input name="T" unit="N*m" start="0.2"/>
  <ground><marker name="O"/></ground>
  <!-- a top spinning at 40 rad/s about its axis, tilted by 0.3 rad -->
  <body name="top" mass="2" inertia="0.03 0.03 0.02" cm="0 0 0.3" axis="1 0 0" angle="0.3" omega="0.5, 0.2, 40">
    <marker name="pin"/>
    <marker name="tip" at="0 0 0.6"/>
  </body>
  <spherical name="pivot" i="ground.O" j="top.pin"/>
  <!-- a small body held at the top's tip by a bushing written as expressions -->
  <body name="bob" mass="0.3" inertia="1e-3 2e-3 3e-3" at="0.05, -0.2, 0.55">
    <marker name="m"/>
  </body>
  <force name="bush_bob" i="bob.m" fx="-500*(dx(bob.m) - dx(top.tip)) - 2*(vx(bob.m) - vx(top.tip))"
         fy="-500*(dy(bob.m) - dy(top.tip)) - 2*(vy(bob.m) - vy(top.tip))"
         fz="-500*(dz(bob.m) - dz(top.tip)) - 2*(vz(bob.m) - vz(top.tip))"/>
  <force name="bush_top" i="top.tip" fx="500*(dx(bob.m) - dx(top.tip)) + 2*(vx(bob.m) - vx(top.tip))"
         fy="500*(dy(bob.m) - dy(top.tip)) + 2*(vy(bob.m) - vy(top.tip))"
         fz="500*(dz(bob.m) - dz(top.tip)) + 2*(vz(bob.m) - vz(top.tip))"/>
  <torque name="drag" i="bob" tx="-0.05*(wx(bob.m) - wx(top.tip))" ty="-0.05*(wy(bob.m) - wy(top.tip))"
          tz="-0.05*(wz(bob.m) - wz(top.tip)) - 0.3*rz(bob.m) + T"/>
  <output name="tipz" channel="top.tip.z"/>
  <output name="spin" channel="top.wbz"/>
  <output name="gap" expr="dist(bob.m, top.tip)" unit="m"/>
  <output name="pivot_fz" channel="pivot.fz"/>
</model>`},
	{"expr-spatial-joint", `<model name="expr_spatial_joint" dimension="3">
  <settings end="1 s" step="1 ms" gravity="0 0 -9.81"/>
  <input name="tau" unit="N*m" start="0"/>
  <ground><marker name="motor"/></ground>
  <body name="arm" mass="1" inertia="1e-3, 0.02, 0.02" cm="0.15 0 0" axis="0 0 1" angle="0.2" omega="0 0 3">
    <marker name="hub"/>
    <marker name="tip" at="0.3 0 0" z-axis="-1 0 0" x-axis="0 0 1"/>
  </body>
  <body name="pend" mass="0.2" inertia="2e-3 2e-3 1e-5" cm="0 0 0.15" at="0.3*cos(0.2), 0.3*sin(0.2), 0" angles="0.2, -0.4, 0" sequence="zxy">
    <marker name="pivot" z-axis="-1 0 0" x-axis="0 0 1"/>
  </body>
  <revolute name="base" i="ground.motor" j="arm.hub"/>
  <revolute name="hinge" i="arm.tip" j="pend.pivot"/>
  <!-- PD laws on the joints written with joint measures -->
  <torque name="pd_base" i="arm" j="ground" tz="-2*(angle(base) - 0.5) - 0.1*omega(base) + tau"/>
  <torque name="pd_hinge" i="pend.pivot" j="arm" tz="-3*angle(hinge) - 0.05*omega(hinge)" frame="marker"/>
  <output name="theta" channel="base.angle"/>
  <output name="alpha" channel="hinge.angle"/>
  <output name="alpha_dot" channel="hinge.omega"/>
</model>`},
	{"ffr-floating", `<model name="ffr_floating">
  <settings end="1 s" step="1 ms" gravity="0 -9.81"/>
  <ground><marker name="O" at="0 0.5"/></ground>
  <!-- a floating frame on a spring, turning: the beam's inertia couples
       translation, rotation and deformation (configuration-dependent mass) -->
  <body name="hub" mass="1" inertia="0.01" omega="3"><marker name="root" at="0.05 0"/></body>
  <spring name="hang" i="ground.O" j="hub" k="2000" c="5" length="0.45"/>
  <beam kind="ffr" name="beam" i="hub.root" length="0.8" elements="4" area="1e-4 m^2" area-moment="2e-10 m^4"
        youngs="7e10 Pa" density="2700 kg/m^3" coupling="stiffened" damping="1e-4">
    <marker name="tip" s="0.8"/>
  </beam>
  <force name="load" i="beam.tip" fy="-1"/>
  <output name="defl" channel="beam.tip.defl"/>
  <output name="angle" channel="hub.angle"/>
  <output name="tipy" channel="beam.tip.y"/>
</model>`},
	{"ffr-pinned", `<model name="ffr_pinned">
  <settings end="1 s" step="1 ms" gravity="0 -9.81"/>
  <input name="M" unit="N*m" start="0.5"/>
  <ground><marker name="O"/></ground>
  <body name="arm" mass="0.5" inertia="0.005" omega="2"><marker name="root" at="0.05 0"/></body>
  <revolute name="pivot" i="ground.O" j="arm"/>
  <beam kind="ffr" name="beam" i="arm.root" length="0.6" elements="3" area="1e-4 m^2" area-moment="1e-10 m^4"
        youngs="7e10 Pa" density="2700 kg/m^3" coupling="zero-order" reduction="modal" modes="4">
    <marker name="tip" s="0.6"/>
  </beam>
  <torque name="motor" i="arm" j="ground" t="M - 0.2*omega(pivot)"/>
  <output name="defl" channel="beam.tip.defl"/>
  <output name="rx" channel="pivot.fx"/>
</model>`},
	{"stick-all", `<model name="stick_all">
  <settings end="1 s" step="1 ms" gravity="0 -9.81"/>
  <ground>
    <marker name="rail" at="0 0.05"/>
    <marker name="floor"/>
    <marker name="wall" at="-0.5 0.05"/>
  </ground>
  <!-- a box on a horizontal rail pressed 1 mm into the floor, held by
       sticking friction against a spring (20 N of a 50 N reserve): the
       friction holds its only degree of freedom -->
  <body name="box" mass="1" inertia="0.01" at="0 0.05"><marker name="c"/></body>
  <translational name="slide" i="ground.rail" j="box.c"/>
  <contact kind="circle-line" name="foot" i="box" radius="0.051" j="ground.floor"
           k="1e5" friction="coulomb" mu-static="0.5" mu-dynamic="0.4"/>
  <spring name="pull" i="ground.wall" j="box.c" k="200" length="0.4"/>
  <output name="friction" channel="foot.friction"/>
  <output name="x" channel="box.x"/>
</model>`},
	{"joint-stick", `<model name="joint_stick">
  <settings end="1 s" step="1 ms" gravity="0 -9.81"/>
  <ground><marker name="rail"/><marker name="wall" at="-0.5 0"/><marker name="pin" at="1 0"/></ground>
  <!-- a box on a rail held by the rail's exact Coulomb friction against a
       spring (20 N of a 50 N reserve), and a pendulum whose pin slips
       (its bearing friction 0.1 N*m) -->
  <body name="box" mass="1" inertia="0.01"><marker name="c"/></body>
  <translational name="slide" i="ground.rail" j="box.c"/>
  <friction name="rail" joint="slide" preload="50"/>
  <spring name="pull" i="ground.wall" j="box.c" k="200" length="0.4"/>
  <body name="arm" mass="1" inertia="0.02" at="1.3 0" omega="2"><marker name="top" at="-0.3 0"/></body>
  <revolute name="hinge" i="ground.pin" j="arm.top"/>
  <friction name="bearing" joint="hinge" preload="0.1" viscous="0.05"/>
  <output name="friction" channel="rail.effort"/>
  <output name="x" channel="box.x"/>
  <output name="torque" channel="bearing.effort"/>
</model>`},
	{"ball-roll", `<model name="ball_roll" dimension="3">
  <settings end="1 s" step="1 ms" gravity="0 0 -9.81"/>
  <ground><marker name="slope" axis="0 1 0" angle="20 deg"/></ground>
  <!-- a ball rolling down a 20° incline on a sphere-plane contact with
       exact Coulomb friction: its contact sticks (two stick rows) -->
  <body name="ball" mass="1" inertia="0.004 0.004 0.004" at="0.0341988335452 0 0.0939605229372"/>
  <contact kind="sphere-plane" name="c" i="ball" radius="0.1" j="ground.slope" k="1e6" c="2000"
           friction="coulomb" mu-static="0.5"/>
  <output name="x" channel="ball.x"/>
  <output name="vx" channel="ball.vx"/>
</model>`},
}

// linTol is the agreement required of A, B, C and D (the measure of
// linErr: beyond three times the reference's estimated error); that
// estimated error must itself be below linRefTol on the same measure. In
// the examples as the test runs them it is below 5e-8; the full 160-element
// pendulum's energy outputs reach 2e-7 (4e-11 J/m: the energy's round-off
// over the local modes of its 6 mm elements).
const (
	linTol    = 1e-6
	linRefTol = 3e-7
)

// TestLinearizeAgainstNonlinear compares Model.Linearize with central
// finite differences of the full nonlinear model (see linFD) for every
// example model file and for the models of linSynthetic (the cases the
// issue names: PD laws and a bushing written as expression forces reading
// measures, floating-frame beams, spatial bodies spinning), at the
// initial state and 0.1 s into the run (a quarter of the run if that is
// shorter), inputs at 0.1 SI units from the start of the run. Models
// without degrees of freedom are skipped (Linearize refuses them), and so
// is a state at which a contact switches (not differentiable). The two
// large flexible examples run with fewer elements unless
// MBFMU_LINEARIZE_FULL is set (Linearize alone takes 14 s and 2 min on
// them, mostly in the eigenvalues).
func TestLinearizeAgainstNonlinear(t *testing.T) {
	files, err := filepath.Glob("../examples/*/model.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example models found: %v", err)
	}
	type model struct {
		name string
		sp   func() (*spec.Model, error)
	}
	var models []model
	for _, f := range files {
		models = append(models, model{filepath.Base(filepath.Dir(f)), func() (*spec.Model, error) { return xml.LoadFile(f) }})
	}
	for _, c := range linSynthetic {
		models = append(models, model{c.name, func() (*spec.Model, error) { return xml.Parse([]byte(c.xml), c.name) }})
	}
	full := os.Getenv("MBFMU_LINEARIZE_FULL") != ""
	for _, md := range models {
		t.Run(md.name, func(t *testing.T) {
			sp, err := md.sp()
			if err != nil {
				t.Fatal(err)
			}
			if n := linReduced[md.name]; n != "" && !full {
				for i := range sp.Beams {
					sp.Beams[i].Attr["elements"] = spec.Expr{Src: n, Field: "elements"}
				}
				t.Logf("beams reduced to %s elements (MBFMU_LINEARIZE_FULL=1: as in the file)", n)
			}
			m := mustCompile(t, sp)
			s := mustInit(t, m)
			if m.DOF(s) == 0 {
				t.Skip("no degrees of freedom: a kinematic model, which Linearize refuses")
			}
			t1 := m.settings.Start + math.Min(0.1, (m.settings.End-m.settings.Start)/4)
			for _, st := range []string{"initial", "later"} {
				if st == "later" {
					for k := range m.inputs {
						s.SetInput(k, 0.1)
					}
					if err := m.AdvanceTo(s, t1); err != nil {
						t.Fatal(err)
					}
				}
				if why := linSwitching(m, s); why != "" {
					t.Logf("%s (t = %g s): not compared: %s", st, s.T, why)
					continue
				}
				r := linCheck(t, m, s)
				t.Logf("%-7s t = %-6g nf %3d: A %.1e  B %.1e  C %.1e  D %.1e   (reference %.0e %.0e %.0e %.0e)",
					st, s.T, r.nf, r.A, r.B, r.C, r.D, r.fdA, r.fdB, r.fdC, r.fdD)
				fail := false
				for _, c := range []struct {
					name   string
					e, ref float64
				}{{"A", r.A, r.fdA}, {"B", r.B, r.fdB}, {"C", r.C, r.fdC}, {"D", r.D, r.fdD}} {
					if !(c.e <= linTol) {
						t.Errorf("%s (t = %g s): %s differs from the nonlinear model by %.3g (tolerance %g)", st, s.T, c.name, c.e, linTol)
						fail = true
					}
					if !(c.ref <= linRefTol) {
						t.Errorf("%s (t = %g s): the reference %s is not accurate enough: estimated error %.3g", st, s.T, c.name, c.ref)
						fail = true
					}
				}
				if fail {
					for _, d := range r.detail {
						t.Log("  " + d)
					}
				}
			}
		})
	}
}

// linReduced are the example models whose beams the test runs with fewer
// elements (same structure, markers still on element boundaries).
var linReduced = map[string]string{"ancf-pendulum": "16", "ancf-pendulum-3d": "8", "three-rrr": "4"}

// linSwitching reports why the state is a switching point of a contact
// (its penetration, slip velocity or friction reserve at zero), or "".
func linSwitching(m *Model, s *State) string {
	if m.contacts == nil {
		return ""
	}
	for _, e := range m.contacts.elems {
		var k contacts.Kin
		e.Kin(&s.x, &k)
		st := s.cs[e.Idx*contacts.Stride : (e.Idx+1)*contacts.Stride]
		switch {
		case math.Abs(k.Delta) < 1e-9:
			return "contact " + e.Name() + " touches with zero penetration"
		case e.Fric != contacts.FricCoulomb || st[contacts.SlotClosed] == 0:
		case st[contacts.SlotMode] != 0 && math.Abs(k.Vt) < 1e-9:
			return "contact " + e.Name() + " slips at zero slip velocity"
		case st[contacts.SlotMode] == 0:
			fn, _, _ := e.Normal(&s.x, k.Delta, k.Rate)
			if e.MuS.Get(&s.x)*fn-math.Abs(st[contacts.SlotStick]) < 1e-9*math.Abs(fn) {
				return "contact " + e.Name() + " sticks at the end of its friction reserve"
			}
		}
	}
	return ""
}

// The mass matrix the linearisation uses (Model.massMatrix: constant
// mass and the floating-frame beams' configuration-dependent inertia) is
// the Hessian of the kinetic energy T(v) = ½ vᵀ M̄ v + the elements'
// kinetic corrections, taken here by central differences (exact for a
// quadratic), on a deformed and turned floating-frame beam on a spring and
// on the stiff hub–beam example (K/M to 1e10): to 1e-12 of its largest
// entry.
func TestLinearizeMassMatrix(t *testing.T) {
	for _, name := range []string{"ffr-floating", "hub-beam"} {
		var sp *spec.Model
		var err error
		for _, c := range linSynthetic {
			if c.name == name {
				sp, err = xml.Parse([]byte(c.xml), c.name)
			}
		}
		if sp == nil {
			sp, err = xml.LoadFile("../examples/" + name + "/model.xml")
		}
		if err != nil {
			t.Fatal(err)
		}
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		if err := m.AdvanceTo(s, 0.3); err != nil {
			t.Fatal(err)
		}
		M := m.massMatrix(s)
		nv := m.nv
		v0 := append([]float64(nil), s.v...)
		T := func(i, j int, si, sj float64) float64 {
			copy(s.v, v0)
			s.v[i] += si
			s.v[j] += sj
			return m.kinetic(s.v, s.tmp) + m.flexKinetic(s)
		}
		H := mat.NewDense(nv, nv, nil)
		for i := 0; i < nv; i++ {
			for j := 0; j < nv; j++ {
				H.Set(i, j, (T(i, j, 1, 1)-T(i, j, 1, -1)-T(i, j, -1, 1)+T(i, j, -1, -1))/4)
			}
		}
		copy(s.v, v0)
		var D mat.Dense
		D.Sub(M, H)
		e, sc := maxAbsM(&D, 0, nv, 0, nv), maxAbsM(H, 0, nv, 0, nv)
		t.Logf("%s: M(q) against the Hessian of the kinetic energy: %.2g of its largest entry %.3g", name, e/sc, sc)
		if e > 1e-12*sc {
			t.Errorf("%s: the mass matrix differs from the Hessian of the kinetic energy by %.3g (largest entry %.3g)", name, e, sc)
		}
	}
}

// A box held by sticking friction on its only degree of freedom (the
// stick-all model): the stick constraint holds the slip acceleration at
// −κ vt (stickslip.go), so A = [0 1; 0 −κ] exactly, κ the drift gain, and
// the friction force's C (per metre and per m/s along x) is the spring's
// k and −m κ (it balances the spring and brakes the slip).
func TestLinearizeStickingHoldsAll(t *testing.T) {
	var sp *spec.Model
	for _, c := range linSynthetic {
		if c.name == "stick-all" {
			var err error
			if sp, err = xml.Parse([]byte(c.xml), c.name); err != nil {
				t.Fatal(err)
			}
		}
	}
	m := mustCompile(t, sp)
	s := mustInit(t, m)
	if st := s.cs[contacts.SlotMode]; st != 0 {
		t.Fatalf("the box does not stick (mode %g)", st)
	}
	L, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	kap := m.contacts.kappa
	sg := L.N.At(0, 0) // N is ±x
	want := []float64{0, 1, 0, -kap}
	for i, w := range want {
		if got := L.A.RawMatrix().Data[i]; math.Abs(got-w) > 1e-9*kap {
			t.Errorf("A[%d] = %.12g, want %g (κ = %g)", i, got, w, kap)
		}
	}
	// friction on the box along +x: F = k (x − x_wall − l0) balances the
	// spring; its change holds the slip acceleration at −κ vt
	cz, cw := L.C.At(0, 0)*sg, L.C.At(0, 1)*sg
	if math.Abs(cz-200) > 1e-6*200 || math.Abs(cw+kap) > 1e-6*kap {
		t.Errorf("friction: C = (%.9g, %.9g) per (m, m/s) along x, want (200, %g)", cz, cw, -kap)
	}
}
