package solver

import (
	"math"
	"math/cmplx"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// DOF returns the number of degrees of freedom at the current state:
// coordinates minus the rank of the constraint Jacobian.
func (m *Model) DOF(s *State) int {
	if m.nc == 0 {
		return m.nq
	}
	J := m.constraintJacobian(s)
	var svd mat.SVD
	if !svd.Factorize(J, mat.SVDNone) {
		return m.nq - m.nc
	}
	sv := svd.Values(nil)
	rank := 0
	for _, v := range sv {
		if v > 1e-9*sv[0] {
			rank++
		}
	}
	return m.nq - rank
}

func (m *Model) constraintJacobian(s *State) *mat.Dense {
	m.evalRows(s, false)
	J := mat.NewDense(max(m.nc, 1), m.nq, nil)
	for r := range m.rows {
		for k, i := range m.rows[r].dofs {
			if i >= 0 {
				J.Set(r, i, J.At(r, i)+s.re[r].jac[k])
			}
		}
	}
	return J
}

// Kinematics moves a fully driven mechanism (no degrees of freedom) to
// time t: positions from Φ(q, t) = 0, velocities from Φq v = −Φt,
// accelerations from Φq q̈ = γ, and the multipliers (driver efforts and
// joint reactions) from the equations of motion (inverse dynamics).
func (m *Model) Kinematics(s *State, t float64) error {
	if m.nc < m.nq {
		return errorf("kinematic analysis needs a fully driven mechanism: the model has %d coordinates but only %d constraint equations (%d degrees of freedom left)", m.nq, m.nc, m.nq-m.nc)
	}
	// predictor from the previous velocity and acceleration
	dt := t - s.T
	for i := range s.q {
		s.q[i] += dt*s.v[i] + 0.5*dt*dt*s.a[i]
	}
	s.T = t
	s.setTime(t)
	if err := m.assemblePositions(s); err != nil {
		return err
	}
	if err := m.assembleVelocities(s, s.v); err != nil {
		return err
	}
	if err := m.accelerations(s, s.a, false); err != nil {
		return err
	}
	copy(s.aa, s.a)
	s.restartHistory()
	s.initialized = true
	s.stats.Steps++
	return nil
}

// Static finds the static equilibrium near the current positions (v = 0)
// at the current time: g + Q(q, 0, t) − Φqᵀ λ = 0, Φ(q, t) = 0, by Newton's
// method on the tangent stiffness with a Levenberg-style mass shift that is
// removed as it converges (so mechanisms with no stiffness at the start,
// such as a horizontal pendulum, still converge).
func (m *Model) Static(s *State) error {
	nq := m.nq
	clear(s.v)
	clear(s.a)
	clear(s.aa)
	mu := 1e-2
	prev := math.Inf(1)
	small := false // the last Newton correction was at round-off level
	for it := 0; it < 500; it++ {
		// residual
		s.lin.Zero()
		m.evalForces(s, true, 1, 0)
		m.evalRows(s, false)
		for i := 0; i < nq; i++ {
			s.res[i] = -(m.gq[i] + s.fq[i])
		}
		for r := range m.rows {
			e := &s.re[r]
			s.res[nq+r] = e.phi
			for k, i := range m.rows[r].dofs {
				if i >= 0 {
					s.res[i] += e.jac[k] * s.lam[r]
				}
			}
		}
		nrm := 0.0
		scale := 1.0
		for i := 0; i < nq; i++ {
			scale = math.Max(scale, math.Abs(m.gq[i]))
		}
		for i := 0; i < nq; i++ {
			nrm = math.Max(nrm, math.Abs(s.res[i])/scale)
		}
		for r := 0; r < m.nc; r++ {
			nrm = math.Max(nrm, math.Abs(s.res[nq+r]))
		}
		if nrm < 1e-11 || small {
			s.initialized = true
			copy(s.qp, s.q)
			clear(s.vp)
			s.restartHistory()
			return m.accelerations(s, s.a, false)
		}
		if nrm < prev {
			mu *= 0.3
		} else {
			mu *= 4
		}
		prev = nrm
		m.addMass(s, mu*scale)
		m.addConstraintJac(s, 1, true)
		if err := s.lin.Factor(); err != nil {
			mu = math.Max(mu*10, 1e-3)
			continue
		}
		for i := range s.res {
			s.dx[i] = -s.res[i]
		}
		s.lin.Solve(s.dx)
		step, qn := 0.0, 0.0
		for i := 0; i < nq; i++ {
			step = math.Max(step, math.Abs(s.dx[i]))
			qn = math.Max(qn, math.Abs(s.q[i]))
		}
		// stiff (flexible) elements leave a force residual at the round-off
		// of their internal forces: accept a negligible Newton correction
		small = mu <= 1e-2 && step <= 1e-12*(1+qn)
		sc := 1.0
		if step > 0.2 {
			sc = 0.2 / step
		}
		for i := 0; i < nq; i++ {
			s.q[i] += sc * s.dx[i]
		}
		for r := 0; r < m.nc; r++ {
			s.lam[r] += sc * s.dx[nq+r]
		}
	}
	return errorf("static equilibrium not found in 500 iterations (is the mechanism free to move without stiffness, e.g. sliding with no spring?)")
}

// Linear is a linear model about an operating point in minimal
// (independent) coordinates z, with q ≈ q0 + N z:
//
//	ẋ = A x + B u,  y = C x + D u,  x = (z, ż),
//
// u the model inputs and y the declared outputs (or nothing).
type Linear struct {
	A, B, C, D *mat.Dense
	N          *mat.Dense // nq × nf basis of the constraint null space
	Inputs     []string
	Outputs    []string
	Coords     []string
	Modes      []Mode
}

// Mode is one eigenmode of a Linear model.
type Mode struct {
	Eig       complex128 // eigenvalue (rad/s)
	Freq      float64    // undamped natural frequency |λ|/2π (Hz)
	DampedHz  float64    // |Im λ|/2π (Hz)
	Damping   float64    // damping ratio −Re λ / |λ|
	Shape     []float64  // in the generalized coordinates (max |·| = 1)
	Oscillate bool       // complex pair (false: real, overdamped or rigid)
}

// Linearize linearises the model about the current state, respecting the
// constraints: the tangent stiffness, damping and mass are projected on a
// basis of the constraint null space. Eigenvalues and mode shapes are
// computed and sorted by frequency.
func (m *Model) Linearize(s *State) (*Linear, error) {
	nq := m.nq
	// null-space basis of Φq
	var N *mat.Dense
	if m.nc == 0 {
		N = mat.NewDense(nq, nq, nil)
		for i := 0; i < nq; i++ {
			N.Set(i, i, 1)
		}
	} else {
		J := m.constraintJacobian(s)
		var svd mat.SVD
		if !svd.Factorize(J, mat.SVDFull) {
			return nil, errorf("SVD of the constraint Jacobian failed")
		}
		sv := svd.Values(nil)
		rank := 0
		for _, v := range sv {
			if v > 1e-9*sv[0] {
				rank++
			}
		}
		var V mat.Dense
		svd.VTo(&V)
		nf := nq - rank
		if nf == 0 {
			return nil, errorf("the mechanism has no degrees of freedom: nothing to linearise")
		}
		N = mat.DenseCopyOf(V.Slice(0, nq, rank, nq))
	}
	_, nf := N.Dims()
	// full-coordinate K, C (tangent, with the constraint Hessian term) and M
	K := mat.NewDense(nq, nq, nil)
	C := mat.NewDense(nq, nq, nil)
	M := mat.NewDense(nq, nq, nil)
	for i, d := range m.mdiag {
		M.Set(i, i, d)
	}
	for _, b := range m.mblocks {
		n := len(b.dofs)
		for r, i := range b.dofs {
			for c, j := range b.dofs {
				M.Set(i, j, M.At(i, j)+b.m[r*n+c])
			}
		}
	}
	m.evalRows(s, false)
	for _, f := range m.forces {
		d := f.dofs()
		n := len(d)
		fl, kl, cl := s.fl[:n], s.kl[:n*n], s.cl[:n*n]
		clear(fl)
		clear(kl)
		clear(cl)
		f.eval(&s.x, fl, kl, cl)
		for a, i := range d {
			for b, j := range d {
				if i >= 0 && j >= 0 {
					K.Set(i, j, K.At(i, j)+kl[a*n+b])
					C.Set(i, j, C.At(i, j)+cl[a*n+b])
				}
			}
		}
	}
	for r := range m.rows {
		var h [36]float64
		s.re[r].addHess(s.lam[r], &h)
		d := m.rows[r].dofs
		for a := 0; a < 6; a++ {
			for b := 0; b < 6; b++ {
				if d[a] >= 0 && d[b] >= 0 && h[a*6+b] != 0 {
					K.Set(d[a], d[b], K.At(d[a], d[b])+h[a*6+b])
				}
			}
		}
	}
	proj := func(X *mat.Dense) *mat.Dense {
		var t, r mat.Dense
		t.Mul(X, N)
		r.Mul(N.T(), &t)
		return &r
	}
	Mr, Kr, Cr := proj(M), proj(K), proj(C)
	var Minv mat.Dense
	if err := Minv.Inverse(Mr); err != nil {
		return nil, errorf("reduced mass matrix is singular: %v", err)
	}
	A := mat.NewDense(2*nf, 2*nf, nil)
	var MK, MC mat.Dense
	MK.Mul(&Minv, Kr)
	MC.Mul(&Minv, Cr)
	for i := 0; i < nf; i++ {
		A.Set(i, nf+i, 1)
		for j := 0; j < nf; j++ {
			A.Set(nf+i, j, -MK.At(i, j))
			A.Set(nf+i, nf+j, -MC.At(i, j))
		}
	}
	L := &Linear{A: A, N: N, Coords: m.CoordNames()}
	// inputs: ∂Q/∂u by central differences
	nu := len(m.inputs)
	L.B = mat.NewDense(2*nf, max(nu, 1), nil)
	if nu == 0 {
		L.B = mat.NewDense(2*nf, 1, nil)
	}
	fq := make([]float64, nq)
	for k := 0; k < nu; k++ {
		L.Inputs = append(L.Inputs, m.inputs[k].Name)
		u0 := s.Input(k)
		du := 1e-6 * math.Max(1, math.Abs(u0))
		s.SetInput(k, u0+du)
		m.evalForces(s, false, 0, 0)
		copy(fq, s.fq)
		s.SetInput(k, u0-du)
		m.evalForces(s, false, 0, 0)
		s.SetInput(k, u0)
		bq := mat.NewVecDense(nq, nil)
		for i := 0; i < nq; i++ {
			bq.SetVec(i, (fq[i]-s.fq[i])/(2*du))
		}
		var br, mb mat.VecDense
		br.MulVec(N.T(), bq)
		mb.MulVec(&Minv, &br)
		for i := 0; i < nf; i++ {
			L.B.Set(nf+i, k, mb.AtVec(i))
		}
	}
	// outputs: central differences along the basis, with consistent
	// accelerations and multipliers at each perturbed state
	ny := len(m.outputs)
	L.C = mat.NewDense(max(ny, 1), 2*nf, nil)
	L.D = mat.NewDense(max(ny, 1), max(nu, 1), nil)
	if ny > 0 {
		save := make([]float64, len(s.core))
		copy(save, s.core)
		yp, ym := make([]float64, ny), make([]float64, ny)
		eval := func(dst []float64) {
			_ = m.accelerations(s, s.a, false)
			m.EvalOutputs(s, dst)
			copy(s.core, save)
		}
		for j := 0; j < 2*nf; j++ {
			const d = 1e-6
			for sgn, dst := range [2][]float64{yp, ym} {
				sg := 1.0 - 2*float64(sgn)
				for i := 0; i < nq; i++ {
					if j < nf {
						s.q[i] += sg * d * N.At(i, j)
					} else {
						s.v[i] += sg * d * N.At(i, j-nf)
					}
				}
				eval(dst)
			}
			for o := 0; o < ny; o++ {
				L.C.Set(o, j, (yp[o]-ym[o])/(2*d))
			}
		}
		for k := 0; k < nu; k++ {
			u0 := s.Input(k)
			du := 1e-6 * math.Max(1, math.Abs(u0))
			s.SetInput(k, u0+du)
			eval(yp)
			s.SetInput(k, u0-du)
			eval(ym)
			s.SetInput(k, u0)
			for o := 0; o < ny; o++ {
				L.D.Set(o, k, (yp[o]-ym[o])/(2*du))
			}
		}
		_ = m.accelerations(s, s.a, false)
		for _, o := range m.outputs {
			L.Outputs = append(L.Outputs, o.Name)
		}
	}
	L.Modes = modes(A, N, nf)
	return L, nil
}

// modes computes eigenvalues and shapes of the state matrix, one per
// complex-conjugate pair, sorted by natural frequency.
func modes(A, N *mat.Dense, nf int) []Mode {
	var eg mat.Eigen
	if !eg.Factorize(A, mat.EigenRight) {
		return nil
	}
	vals := eg.Values(nil)
	var vecs mat.CDense
	eg.VectorsTo(&vecs)
	nq, _ := N.Dims()
	var out []Mode
	for k, l := range vals {
		if imag(l) < -1e-9*math.Max(1, cmplx.Abs(l)) {
			continue // keep one of each pair
		}
		md := Mode{Eig: l, Freq: cmplx.Abs(l) / (2 * math.Pi), DampedHz: math.Abs(imag(l)) / (2 * math.Pi)}
		if a := cmplx.Abs(l); a > 0 {
			md.Damping = -real(l) / a
		}
		md.Oscillate = imag(l) > 1e-9*math.Max(1, cmplx.Abs(l))
		// shape: the z part, rotated to be real, mapped to q
		z := make([]complex128, nf)
		big := complex(0, 0)
		for i := 0; i < nf; i++ {
			z[i] = vecs.At(i, k)
			if cmplx.Abs(z[i]) > cmplx.Abs(big) {
				big = z[i]
			}
		}
		md.Shape = make([]float64, nq)
		if big != 0 {
			rot := complex(cmplx.Abs(big), 0) / big
			mx := 0.0
			for i := 0; i < nq; i++ {
				v := 0.0
				for j := 0; j < nf; j++ {
					v += N.At(i, j) * real(z[j]*rot)
				}
				md.Shape[i] = v
				mx = math.Max(mx, math.Abs(v))
			}
			if mx > 0 {
				for i := range md.Shape {
					md.Shape[i] /= mx
				}
			}
		}
		out = append(out, md)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Freq < out[j].Freq })
	return out
}
