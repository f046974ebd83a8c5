package control

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"
)

// Tolerances of the Riccati solvers.
const (
	// riccatiResidualTol is the largest relative Riccati residual accepted.
	riccatiResidualTol = 1e-8
	// maxIter bounds every iteration (sign function, doubling).
	maxIter = 100
)

// lqrProblem holds validated LQR data as dense matrices.
type lqrProblem struct {
	n, m       int
	A, B, Q, R *mat.Dense
	cholR      mat.Cholesky
	G          *mat.Dense // B·R⁻¹·Bᵀ
}

// newLQRProblem validates (A, B, Q, R): A n×n, B n×m, Q n×n symmetric
// positive semi-definite, R m×m symmetric positive definite.
func newLQRProblem(fn string, A, B, Q, R mat.Matrix) (*lqrProblem, error) {
	n, na, err := dimsOf("A", A)
	if err != nil {
		return nil, err
	}
	if n != na {
		return nil, fmt.Errorf("control: %s: A is %d×%d, not square", fn, n, na)
	}
	nb, m, err := dimsOf("B", B)
	if err != nil {
		return nil, err
	}
	if nb != n {
		return nil, fmt.Errorf("control: %s: B has %d rows, A has %d", fn, nb, n)
	}
	qr, qc, err := dimsOf("Q", Q)
	if err != nil {
		return nil, err
	}
	if qr != n || qc != n {
		return nil, fmt.Errorf("control: %s: Q is %d×%d, want %d×%d", fn, qr, qc, n, n)
	}
	rr, rc, err := dimsOf("R", R)
	if err != nil {
		return nil, err
	}
	if rr != m || rc != m {
		return nil, fmt.Errorf("control: %s: R is %d×%d, want %d×%d (B has %d columns)", fn, rr, rc, m, m, m)
	}
	if e := symmetryError(Q); e > 1e-10 {
		return nil, fmt.Errorf("control: %s: Q is not symmetric (relative asymmetry %.3g)", fn, e)
	}
	if e := symmetryError(R); e > 1e-10 {
		return nil, fmt.Errorf("control: %s: R is not symmetric (relative asymmetry %.3g)", fn, e)
	}
	p := &lqrProblem{n: n, m: m,
		A: mat.DenseCopyOf(A), B: mat.DenseCopyOf(B),
		Q: symmetrize(Q), R: symmetrize(R)}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, p.Q.RawMatrix().Data), false) {
		return nil, fmt.Errorf("control: %s: eigenvalues of Q did not converge", fn)
	}
	qv := es.Values(nil)
	if qmax := math.Max(1, math.Abs(qv[n-1])); qv[0] < -1e-10*qmax {
		return nil, fmt.Errorf("control: %s: Q is not positive semi-definite (eigenvalue %.3g)", fn, qv[0])
	}
	if !p.cholR.Factorize(mat.NewSymDense(m, p.R.RawMatrix().Data)) {
		return nil, fmt.Errorf("control: %s: R is not positive definite", fn)
	}
	var rinvBt mat.Dense
	if err := p.cholR.SolveTo(&rinvBt, p.B.T()); err != nil && !isSoftCondition(err) {
		return nil, fmt.Errorf("control: %s: R is singular: %v", fn, err)
	}
	p.G = new(mat.Dense)
	p.G.Mul(p.B, &rinvBt)
	p.G = symmetrize(p.G)
	return p, nil
}

// LQR designs the continuous-time linear-quadratic regulator for ẋ = A·x +
// B·u minimising ∫ xᵀQx + uᵀRu dt. It returns the gain K = R⁻¹BᵀS of the
// control law u = −K·x and the stabilising solution S of the algebraic
// Riccati equation
//
//	AᵀS + SA − SBR⁻¹BᵀS + Q = 0.
//
// S comes from the stable invariant subspace of the Hamiltonian [[A, −BR⁻¹Bᵀ],
// [−Q, −Aᵀ]], found with the matrix sign function (Newton iteration with
// determinant scaling), then polished by Newton steps on the Riccati equation
// (each a Lyapunov equation, also solved by a sign iteration). The function
// checks that A − BK is Hurwitz and that the relative residual is below 1e-8,
// and returns an error naming the cause otherwise — in particular when
// (A, B) is not stabilisable or (Q, A) has an unobservable mode on the
// imaginary axis.
func LQR(A, B, Q, R mat.Matrix) (K, S *mat.Dense, err error) {
	defer guard("LQR", &err)
	p, err := newLQRProblem("LQR", A, B, Q, R)
	if err != nil {
		return nil, nil, err
	}
	S, cause := p.solveCARE()
	if cause == nil {
		K, cause = p.finishCARE(S)
	}
	if cause != nil {
		return nil, nil, p.diagnose("LQR", false, cause)
	}
	return K, S, nil
}

// solveCARE returns the polished stabilising CARE solution.
func (p *lqrProblem) solveCARE() (*mat.Dense, error) {
	n := p.n
	H := mat.NewDense(2*n, 2*n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			H.Set(i, j, p.A.At(i, j))
			H.Set(i, n+j, -p.G.At(i, j))
			H.Set(n+i, j, -p.Q.At(i, j))
			H.Set(n+i, n+j, -p.A.At(j, i))
		}
	}
	W, err := matrixSign(H)
	if err != nil {
		return nil, fmt.Errorf("sign of the Hamiltonian: %w", err)
	}
	// (W + I)·[I; S] = 0  ⇒  [W12; W22 + I]·S = −[W11 + I; W21].
	lhs := mat.NewDense(2*n, n, nil)
	rhs := mat.NewDense(2*n, n, nil)
	for i := 0; i < 2*n; i++ {
		for j := 0; j < n; j++ {
			l := W.At(i, n+j)
			r := -W.At(i, j)
			if i == n+j {
				l++
			}
			if i == j {
				r--
			}
			lhs.Set(i, j, l)
			rhs.Set(i, j, r)
		}
	}
	var X mat.Dense
	if err := X.Solve(lhs, rhs); err != nil && !isSoftCondition(err) {
		return nil, fmt.Errorf("stable invariant subspace has no graph form: %w", err)
	}
	S := symmetrize(&X)
	res := p.careResidual(S)
	for it := 0; it < 4 && res > 1e-15; it++ {
		Ac := p.closedLoopCARE(S)
		if !hurwitz(Ac) {
			return nil, fmt.Errorf("Riccati solution is not stabilising")
		}
		// Newton: Acᵀ·Δ + Δ·Ac + Res(S) = 0.
		D, err := lyapunovSign(Ac, p.careResidualMatrix(S))
		if err != nil {
			break
		}
		Sn := mat.NewDense(n, n, nil)
		Sn.Add(S, D)
		Sn = symmetrize(Sn)
		rn := p.careResidual(Sn)
		if !(rn < res) {
			break
		}
		S, res = Sn, rn
	}
	return S, nil
}

// finishCARE computes K and verifies S.
func (p *lqrProblem) finishCARE(S *mat.Dense) (*mat.Dense, error) {
	var bts mat.Dense
	bts.Mul(p.B.T(), S)
	K := new(mat.Dense)
	if err := p.cholR.SolveTo(K, &bts); err != nil && !isSoftCondition(err) {
		return nil, err
	}
	var bk, ac mat.Dense
	bk.Mul(p.B, K)
	ac.Sub(p.A, &bk)
	if !hurwitz(&ac) {
		return nil, fmt.Errorf("closed loop A − BK is not stable")
	}
	if r := p.careResidual(S); !(r <= riccatiResidualTol) {
		return nil, fmt.Errorf("relative Riccati residual %.3g exceeds %g (ill-conditioned problem)", r, riccatiResidualTol)
	}
	return K, nil
}

// closedLoopCARE returns A − G·S.
func (p *lqrProblem) closedLoopCARE(S *mat.Dense) *mat.Dense {
	var gs mat.Dense
	gs.Mul(p.G, S)
	ac := mat.NewDense(p.n, p.n, nil)
	ac.Sub(p.A, &gs)
	return ac
}

// careResidualMatrix returns AᵀS + SA − SGS + Q.
func (p *lqrProblem) careResidualMatrix(S *mat.Dense) *mat.Dense {
	var ats, gs, sgs mat.Dense
	ats.Mul(p.A.T(), S)
	gs.Mul(p.G, S)
	sgs.Mul(S, &gs)
	r := mat.NewDense(p.n, p.n, nil)
	r.Add(&ats, ats.T())
	r.Sub(r, &sgs)
	r.Add(r, p.Q)
	return r
}

// careResidual returns ‖Res‖_F / (‖Q‖_F + 2‖AᵀS‖_F + ‖SGS‖_F).
func (p *lqrProblem) careResidual(S *mat.Dense) float64 {
	var ats, gs, sgs mat.Dense
	ats.Mul(p.A.T(), S)
	gs.Mul(p.G, S)
	sgs.Mul(S, &gs)
	scale := mat.Norm(p.Q, 2) + 2*mat.Norm(&ats, 2) + mat.Norm(&sgs, 2)
	return mat.Norm(p.careResidualMatrix(S), 2) / math.Max(scale, math.SmallestNonzeroFloat64)
}

// DLQR designs the discrete-time linear-quadratic regulator for x⁺ = A·x +
// B·u minimising Σ xᵀQx + uᵀRu. It returns K = (R + BᵀSB)⁻¹BᵀSA for the law
// u = −K·x and the stabilising solution S of
//
//	AᵀSA − S − AᵀSB(R + BᵀSB)⁻¹BᵀSA + Q = 0,
//
// found by the structure-preserving doubling algorithm and polished by
// Newton steps (each a Stein equation solved by Smith doubling). It checks
// that the eigenvalues of A − BK lie inside the unit circle and that the
// relative residual is below 1e-8, and returns an error naming the cause
// otherwise — in particular when (A, B) is not stabilisable.
func DLQR(A, B, Q, R mat.Matrix) (K, S *mat.Dense, err error) {
	defer guard("DLQR", &err)
	p, err := newLQRProblem("DLQR", A, B, Q, R)
	if err != nil {
		return nil, nil, err
	}
	S, cause := p.solveDARE()
	if cause == nil {
		K, cause = p.finishDARE(S)
	}
	if cause != nil {
		return nil, nil, p.diagnose("DLQR", true, cause)
	}
	return K, S, nil
}

// solveDARE runs the doubling algorithm then Newton polishing.
func (p *lqrProblem) solveDARE() (*mat.Dense, error) {
	n := p.n
	I := eye(n)
	Ak := mat.DenseCopyOf(p.A)
	Gk := mat.DenseCopyOf(p.G)
	Hk := mat.DenseCopyOf(p.Q)
	converged := false
	for it := 0; it < maxIter; it++ {
		var W, gh mat.Dense
		gh.Mul(Gk, Hk)
		W.Add(I, &gh)
		var lu mat.LU
		lu.Factorize(&W)
		var V1, V2 mat.Dense // W⁻¹·Ak, W⁻¹·Gk
		if err := lu.SolveTo(&V1, false, Ak); err != nil && !isSoftCondition(err) {
			return nil, fmt.Errorf("doubling: I + G·H singular: %w", err)
		}
		if err := lu.SolveTo(&V2, false, Gk); err != nil && !isSoftCondition(err) {
			return nil, fmt.Errorf("doubling: I + G·H singular: %w", err)
		}
		var An, Gn, Hn, t mat.Dense
		An.Mul(Ak, &V1)
		t.Mul(Ak, &V2)
		Gn.Mul(&t, Ak.T())
		Gn.Add(Gk, &Gn)
		t.Reset()
		t.Mul(Hk, &V1)
		Hn.Mul(Ak.T(), &t)
		Hn.Add(Hk, &Hn)
		var d mat.Dense
		d.Sub(&Hn, Hk)
		change := mat.Norm(&d, 1) / math.Max(mat.Norm(&Hn, 1), math.SmallestNonzeroFloat64)
		Ak, Gk, Hk = &An, symmetrize(&Gn), symmetrize(&Hn)
		if !finite(change) {
			return nil, fmt.Errorf("doubling diverged")
		}
		if change < 1e-15 || mat.Norm(Ak, 1) < 1e-300 {
			converged = true
			break
		}
	}
	if !converged {
		return nil, fmt.Errorf("doubling did not converge in %d iterations (eigenvalue on or near the unit circle?)", maxIter)
	}
	S := Hk
	res := p.dareResidual(S)
	for it := 0; it < 4 && res > 1e-15; it++ {
		_, Ac := p.gainDARE(S)
		if Ac == nil || !schur(Ac) {
			return nil, fmt.Errorf("Riccati solution is not stabilising")
		}
		// Newton: Acᵀ·Δ·Ac − Δ + Res(S) = 0.
		D, err := steinSmith(Ac, p.dareResidualMatrix(S))
		if err != nil {
			break
		}
		Sn := mat.NewDense(n, n, nil)
		Sn.Add(S, D)
		Sn = symmetrize(Sn)
		rn := p.dareResidual(Sn)
		if !(rn < res) {
			break
		}
		S, res = Sn, rn
	}
	return S, nil
}

// gainDARE returns K = (R + BᵀSB)⁻¹BᵀSA and A − BK (nil on failure).
func (p *lqrProblem) gainDARE(S *mat.Dense) (K, Ac *mat.Dense) {
	var sb, rbsb, bsa, sa mat.Dense
	sb.Mul(S, p.B)
	rbsb.Mul(p.B.T(), &sb)
	rbsb.Add(p.R, &rbsb)
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(p.m, symmetrize(&rbsb).RawMatrix().Data)) {
		return nil, nil
	}
	sa.Mul(S, p.A)
	bsa.Mul(p.B.T(), &sa)
	K = new(mat.Dense)
	if err := ch.SolveTo(K, &bsa); err != nil && !isSoftCondition(err) {
		return nil, nil
	}
	var bk mat.Dense
	bk.Mul(p.B, K)
	Ac = mat.NewDense(p.n, p.n, nil)
	Ac.Sub(p.A, &bk)
	return K, Ac
}

// dareTerms returns AᵀSA and AᵀSB(R + BᵀSB)⁻¹BᵀSA.
func (p *lqrProblem) dareTerms(S *mat.Dense) (asa, corr *mat.Dense) {
	var sa mat.Dense
	sa.Mul(S, p.A)
	asa = new(mat.Dense)
	asa.Mul(p.A.T(), &sa)
	K, _ := p.gainDARE(S)
	corr = new(mat.Dense)
	if K == nil {
		corr.CloneFrom(asa)
		corr.Scale(math.NaN(), corr)
		return asa, corr
	}
	var bsa mat.Dense
	bsa.Mul(p.B.T(), &sa)
	corr.Mul(bsa.T(), K)
	return asa, corr
}

// dareResidualMatrix returns AᵀSA − S − AᵀSB(R + BᵀSB)⁻¹BᵀSA + Q.
func (p *lqrProblem) dareResidualMatrix(S *mat.Dense) *mat.Dense {
	asa, corr := p.dareTerms(S)
	r := mat.NewDense(p.n, p.n, nil)
	r.Sub(asa, S)
	r.Sub(r, corr)
	r.Add(r, p.Q)
	return symmetrize(r)
}

// dareResidual returns the relative DARE residual.
func (p *lqrProblem) dareResidual(S *mat.Dense) float64 {
	asa, corr := p.dareTerms(S)
	scale := mat.Norm(p.Q, 2) + mat.Norm(S, 2) + mat.Norm(asa, 2) + mat.Norm(corr, 2)
	return mat.Norm(p.dareResidualMatrix(S), 2) / math.Max(scale, math.SmallestNonzeroFloat64)
}

// finishDARE computes K and verifies S.
func (p *lqrProblem) finishDARE(S *mat.Dense) (*mat.Dense, error) {
	K, Ac := p.gainDARE(S)
	if K == nil {
		return nil, fmt.Errorf("R + BᵀSB is not positive definite")
	}
	if !schur(Ac) {
		return nil, fmt.Errorf("closed loop A − BK has an eigenvalue on or outside the unit circle")
	}
	if r := p.dareResidual(S); !(r <= riccatiResidualTol) {
		return nil, fmt.Errorf("relative Riccati residual %.3g exceeds %g (ill-conditioned problem)", r, riccatiResidualTol)
	}
	return K, nil
}

// diagnose turns a solver failure into an error, naming an uncontrollable
// unstable mode when there is one (PBH test).
func (p *lqrProblem) diagnose(fn string, discrete bool, cause error) error {
	var eig mat.Eigen
	if eig.Factorize(p.A, mat.EigenNone) {
		worst, wσ := complex(0, 0), math.Inf(1)
		for _, l := range eig.Values(nil) {
			unstable := real(l) >= -1e-8*math.Max(1, cmplx.Abs(l))
			if discrete {
				unstable = cmplx.Abs(l) >= 1-1e-8
			}
			if !unstable {
				continue
			}
			if σ := pbhSigma(p.A, p.B, l); σ < wσ {
				worst, wσ = l, σ
			}
		}
		if wσ < 1e-7 {
			region := "closed right half plane"
			if discrete {
				region = "on or outside the unit circle"
			}
			return fmt.Errorf("control: %s: (A, B) is not stabilisable: the eigenvalue %.6g of A (%s) is uncontrollable (PBH smallest singular value %.2g): %v",
				fn, worst, region, wσ, cause)
		}
	}
	axis := "imaginary axis"
	if discrete {
		axis = "unit circle"
	}
	return fmt.Errorf("control: %s: no stabilising Riccati solution: %v (is (Q, A) free of unobservable modes on the %s?)", fn, cause, axis)
}

// pbhSigma returns the smallest singular value of [A − λI, B] after scaling
// both blocks to unit 2-norm: near zero means the mode λ is uncontrollable.
func pbhSigma(A, B *mat.Dense, l complex128) float64 {
	n, _ := A.Dims()
	_, m := B.Dims()
	al, be := real(l), imag(l)
	if math.Abs(be) <= 1e-12*math.Max(1, math.Abs(al)) {
		X := mat.DenseCopyOf(A)
		for i := 0; i < n; i++ {
			X.Set(i, i, X.At(i, i)-al)
		}
		return minSigma(X, B, n)
	}
	// Real form of [X + iY, B] with X = A − αI, Y = −βI:
	// [[X, B, −Y, 0], [Y, 0, X, B]] (2n×2(n+m)); σ_min is doubled in multiplicity.
	X := mat.NewDense(2*n, 2*n, nil)
	Bb := mat.NewDense(2*n, 2*m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a := A.At(i, j)
			if i == j {
				a -= al
			}
			X.Set(i, j, a)
			X.Set(n+i, n+j, a)
		}
		X.Set(i, n+i, be)
		X.Set(n+i, i, -be)
		for j := 0; j < m; j++ {
			Bb.Set(i, j, B.At(i, j))
			Bb.Set(n+i, m+j, B.At(i, j))
		}
	}
	return minSigma(X, Bb, 2*n)
}

// minSigma returns σ_rows([X/‖X‖, B/‖B‖]).
func minSigma(X, B *mat.Dense, rows int) float64 {
	_, cx := X.Dims()
	_, cb := B.Dims()
	M := mat.NewDense(rows, cx+cb, nil)
	nx := math.Max(mat.Norm(X, 2), math.SmallestNonzeroFloat64)
	nb := math.Max(mat.Norm(B, 2), math.SmallestNonzeroFloat64)
	for i := 0; i < rows; i++ {
		for j := 0; j < cx; j++ {
			M.Set(i, j, X.At(i, j)/nx)
		}
		for j := 0; j < cb; j++ {
			M.Set(i, cx+j, B.At(i, j)/nb)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(M, mat.SVDNone) {
		return math.Inf(1)
	}
	v := svd.Values(nil)
	return v[rows-1]
}

// hurwitz reports whether every eigenvalue of a has a negative real part.
func hurwitz(a mat.Matrix) bool {
	var eig mat.Eigen
	if !eig.Factorize(a, mat.EigenNone) {
		return false
	}
	for _, l := range eig.Values(nil) {
		if !(real(l) < 0) {
			return false
		}
	}
	return true
}

// schur reports whether every eigenvalue of a lies inside the unit circle.
func schur(a mat.Matrix) bool {
	var eig mat.Eigen
	if !eig.Factorize(a, mat.EigenNone) {
		return false
	}
	for _, l := range eig.Values(nil) {
		if !(cmplx.Abs(l) < 1) {
			return false
		}
	}
	return true
}

// matrixSign returns sign(H) by the Newton iteration Z ← (Z/c + c·Z⁻¹)/2 with
// determinant scaling c = |det Z|^(1/N) until close to convergence, then
// unscaled. It fails if Z becomes singular or the iteration stalls (an
// eigenvalue on or very near the imaginary axis).
func matrixSign(H *mat.Dense) (*mat.Dense, error) {
	N, _ := H.Dims()
	Z := mat.DenseCopyOf(H)
	scale := true
	prev := math.Inf(1)
	for it := 0; it < maxIter; it++ {
		var lu mat.LU
		lu.Factorize(Z)
		logdet, _ := lu.LogDet()
		if math.IsInf(logdet, -1) || math.IsNaN(logdet) {
			return nil, fmt.Errorf("iterate singular (eigenvalue on the imaginary axis)")
		}
		var Zi mat.Dense
		if err := lu.SolveTo(&Zi, false, eye(N)); err != nil && !isSoftCondition(err) {
			return nil, fmt.Errorf("iterate singular (eigenvalue on the imaginary axis)")
		}
		c := 1.0
		if scale {
			c = math.Exp(logdet / float64(N))
		}
		Zn := mat.NewDense(N, N, nil)
		Zn.Scale(c, &Zi)
		var zs mat.Dense
		zs.Scale(1/c, Z)
		Zn.Add(Zn, &zs)
		Zn.Scale(0.5, Zn)
		var d mat.Dense
		d.Sub(Zn, Z)
		change := mat.Norm(&d, 1) / mat.Norm(Zn, 1)
		Z = Zn
		if !finite(change) {
			return nil, fmt.Errorf("sign iteration diverged")
		}
		if change < 1e-2 {
			scale = false
		}
		if change < 10*float64(N)*epsilon || (change < 1e-8 && change >= prev) {
			return Z, nil
		}
		prev = change
	}
	return nil, fmt.Errorf("sign iteration did not converge in %d steps (eigenvalue on or near the imaginary axis)", maxIter)
}

// lyapunovSign solves Aᵀ·X + X·A + E = 0 for Hurwitz A by the sign-function
// iteration A ← (A/c + c·A⁻¹)/2, E ← (E/c + c·A⁻ᵀ·E·A⁻¹)/2, X = E∞/2.
func lyapunovSign(A, E *mat.Dense) (*mat.Dense, error) {
	n, _ := A.Dims()
	Ak := mat.DenseCopyOf(A)
	Ek := mat.DenseCopyOf(E)
	I := eye(n)
	scale := true
	for it := 0; it < maxIter; it++ {
		var lu mat.LU
		lu.Factorize(Ak)
		logdet, _ := lu.LogDet()
		var Ai mat.Dense
		if err := lu.SolveTo(&Ai, false, I); err != nil && !isSoftCondition(err) {
			return nil, fmt.Errorf("Lyapunov iterate singular")
		}
		c := 1.0
		if scale {
			c = math.Exp(logdet / float64(n))
		}
		var t, aeA mat.Dense
		t.Mul(Ek, &Ai)
		aeA.Mul(Ai.T(), &t)
		En := mat.NewDense(n, n, nil)
		En.Scale(c, &aeA)
		var es mat.Dense
		es.Scale(1/c, Ek)
		En.Add(En, &es)
		En.Scale(0.5, En)
		An := mat.NewDense(n, n, nil)
		An.Scale(c, &Ai)
		var as mat.Dense
		as.Scale(1/c, Ak)
		An.Add(An, &as)
		An.Scale(0.5, An)
		Ak, Ek = An, symmetrize(En)
		var d mat.Dense
		d.Add(Ak, I)
		dist := mat.Norm(&d, 1)
		if !finite(dist) {
			return nil, fmt.Errorf("Lyapunov iteration diverged")
		}
		if dist < 1e-2 {
			scale = false
		}
		if dist < 10*float64(n)*epsilon {
			break
		}
	}
	X := mat.NewDense(n, n, nil)
	X.Scale(0.5, Ek)
	return X, nil
}

// steinSmith solves Aᵀ·X·A − X + E = 0 for A with spectral radius < 1 by
// Smith's doubling X ← X + AᵀXA, A ← A².
func steinSmith(A, E *mat.Dense) (*mat.Dense, error) {
	Ak := mat.DenseCopyOf(A)
	X := mat.DenseCopyOf(E)
	for it := 0; it < maxIter; it++ {
		var t, axa mat.Dense
		t.Mul(X, Ak)
		axa.Mul(Ak.T(), &t)
		X.Add(X, &axa)
		var a2 mat.Dense
		a2.Mul(Ak, Ak)
		Ak = &a2
		na := mat.Norm(Ak, 1)
		if !finite(na) {
			return nil, fmt.Errorf("Stein iteration diverged")
		}
		if na < epsilon || mat.Norm(&axa, 1) <= epsilon*mat.Norm(X, 1) {
			return symmetrize(X), nil
		}
	}
	return nil, fmt.Errorf("Stein iteration did not converge")
}
