package control

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// StateSpace is a discrete-time linear system with sample time Dt:
//
//	y[k]   = C·x[k] + D·u[k]
//	x[k+1] = A·x[k] + B·u[k]
//
// with n states, m inputs and p outputs, stored as flat row-major slices. It
// is not safe for concurrent use; create one with NewDiscreteSS.
type StateSpace struct {
	n, m, p    int
	a, b, c, d []float64
	x, xn      []float64
	dt         float64
}

// NewDiscreteSS returns the discrete system (A, B, C, D) with sample time dt
// and zero initial state. A is n×n, B n×m, C p×n and D p×m; D may be nil for
// a zero feed-through. The matrices are copied.
func NewDiscreteSS(A, B, C, D mat.Matrix, dt float64) (s *StateSpace, err error) {
	defer guard("NewDiscreteSS", &err)
	n, na, err := dimsOf("A", A)
	if err != nil {
		return nil, err
	}
	if n != na {
		return nil, fmt.Errorf("control: NewDiscreteSS: A is %d×%d, not square", n, na)
	}
	nb, m, err := dimsOf("B", B)
	if err != nil {
		return nil, err
	}
	if nb != n {
		return nil, fmt.Errorf("control: NewDiscreteSS: B has %d rows, A has %d", nb, n)
	}
	p, nc, err := dimsOf("C", C)
	if err != nil {
		return nil, err
	}
	if nc != n {
		return nil, fmt.Errorf("control: NewDiscreteSS: C has %d columns, A has %d rows", nc, n)
	}
	d := make([]float64, p*m)
	if D != nil {
		pd, md, err := dimsOf("D", D)
		if err != nil {
			return nil, err
		}
		if pd != p || md != m {
			return nil, fmt.Errorf("control: NewDiscreteSS: D is %d×%d, want %d×%d (outputs × inputs)", pd, md, p, m)
		}
		d = flatten(D)
	}
	if !finite(dt) || !(dt > 0) {
		return nil, fmt.Errorf("control: NewDiscreteSS: sample time %v: must be finite and > 0", dt)
	}
	return &StateSpace{
		n: n, m: m, p: p,
		a: flatten(A), b: flatten(B), c: flatten(C), d: d,
		x: make([]float64, n), xn: make([]float64, n),
		dt: dt,
	}, nil
}

// Dims returns the number of states, inputs and outputs.
func (s *StateSpace) Dims() (n, m, p int) { return s.n, s.m, s.p }

// Dt returns the sample time.
func (s *StateSpace) Dt() float64 { return s.dt }

// Matrices returns copies of A, B, C and D.
func (s *StateSpace) Matrices() (A, B, C, D *mat.Dense) {
	cp := func(v []float64) []float64 { return append([]float64(nil), v...) }
	return mat.NewDense(s.n, s.n, cp(s.a)), mat.NewDense(s.n, s.m, cp(s.b)),
		mat.NewDense(s.p, s.n, cp(s.c)), mat.NewDense(s.p, s.m, cp(s.d))
}

func (s *StateSpace) checkIO(u, y []float64) error {
	if len(u) != s.m {
		return fmt.Errorf("control: state space: %d inputs given, system has %d", len(u), s.m)
	}
	if len(y) != s.p {
		return fmt.Errorf("control: state space: output buffer has length %d, system has %d outputs", len(y), s.p)
	}
	for i, v := range u {
		if !finite(v) {
			return fmt.Errorf("control: state space: input %d = %v: must be finite", i, v)
		}
	}
	return nil
}

// output writes y = C·x + D·u.
func (s *StateSpace) output(u, y []float64) {
	n, m := s.n, s.m
	for i := range y {
		ci := s.c[i*n : i*n+n]
		di := s.d[i*m : i*m+m]
		var acc float64
		for j, v := range ci {
			acc += v * s.x[j]
		}
		for j, v := range di {
			acc += v * u[j]
		}
		y[i] = acc
	}
}

// Step writes the output y[k] = C·x[k] + D·u[k] into y and advances the state
// to x[k+1] = A·x[k] + B·u[k]. u must have m and y p entries. On error
// (wrong lengths, non-finite input) neither y nor the state is changed. Step
// allocates nothing.
func (s *StateSpace) Step(u, y []float64) error {
	if err := s.checkIO(u, y); err != nil {
		return err
	}
	s.output(u, y)
	n, m := s.n, s.m
	for i := 0; i < n; i++ {
		ai := s.a[i*n : i*n+n]
		bi := s.b[i*m : i*m+m]
		var acc float64
		for j, v := range ai {
			acc += v * s.x[j]
		}
		for j, v := range bi {
			acc += v * u[j]
		}
		s.xn[i] = acc
	}
	s.x, s.xn = s.xn, s.x
	return nil
}

// Output writes y = C·x + D·u for the current state without advancing it.
func (s *StateSpace) Output(u, y []float64) error {
	if err := s.checkIO(u, y); err != nil {
		return err
	}
	s.output(u, y)
	return nil
}

// State copies the state vector into dst (reused if it has capacity n) and
// returns it.
func (s *StateSpace) State(dst []float64) []float64 {
	return append(dst[:0], s.x...)
}

// SetState sets the state vector; x must have n finite entries.
func (s *StateSpace) SetState(x []float64) error {
	if len(x) != s.n {
		return fmt.Errorf("control: state space: state of length %d given, system has %d states", len(x), s.n)
	}
	for i, v := range x {
		if !finite(v) {
			return fmt.Errorf("control: state space: state %d = %v: must be finite", i, v)
		}
	}
	copy(s.x, x)
	return nil
}

// Reset sets the state to zero.
func (s *StateSpace) Reset() {
	for i := range s.x {
		s.x[i] = 0
	}
}

// checkAB validates a continuous pair (A, B) and a sample time.
func checkAB(fn string, A, B mat.Matrix, dt float64) (n, m int, err error) {
	n, na, err := dimsOf("A", A)
	if err != nil {
		return 0, 0, err
	}
	if n != na {
		return 0, 0, fmt.Errorf("control: %s: A is %d×%d, not square", fn, n, na)
	}
	nb, m, err := dimsOf("B", B)
	if err != nil {
		return 0, 0, err
	}
	if nb != n {
		return 0, 0, fmt.Errorf("control: %s: B has %d rows, A has %d", fn, nb, n)
	}
	if !finite(dt) || !(dt > 0) {
		return 0, 0, fmt.Errorf("control: %s: sample time %v: must be finite and > 0", fn, dt)
	}
	return n, m, nil
}

// C2D discretises ẋ = A·x + B·u with a zero-order hold on u over sample time
// dt: Ad = exp(A·dt), Bd = ∫₀^dt exp(A·s)ds·B. Both come from one matrix
// exponential of the augmented matrix [[A, B], [0, 0]]·dt (gonum's
// scaling-and-squaring Padé), so A may be singular.
func C2D(A, B mat.Matrix, dt float64) (Ad, Bd *mat.Dense, err error) {
	defer guard("C2D", &err)
	n, m, err := checkAB("C2D", A, B, dt)
	if err != nil {
		return nil, nil, err
	}
	aug := mat.NewDense(n+m, n+m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			aug.Set(i, j, A.At(i, j)*dt)
		}
		for j := 0; j < m; j++ {
			aug.Set(i, n+j, B.At(i, j)*dt)
		}
	}
	var e mat.Dense
	e.Exp(aug)
	for i := 0; i < n; i++ {
		for j := 0; j < n+m; j++ {
			if !finite(e.At(i, j)) {
				return nil, nil, fmt.Errorf("control: C2D: exp(A·dt) overflows (‖A‖·dt = %g too large)", mat.Norm(aug, 1))
			}
		}
	}
	Ad = mat.DenseCopyOf(e.Slice(0, n, 0, n))
	Bd = mat.DenseCopyOf(e.Slice(0, n, n, n+m))
	return Ad, Bd, nil
}

// C2DTustin discretises (A, B, C, D) with the bilinear (Tustin) transform
// s = (2/dt)·(z − 1)/(z + 1):
//
//	Ad = M⁻¹·(I + A·dt/2),  Bd = M⁻¹·B·dt,
//	Cd = C·M⁻¹,             Dd = D + C·M⁻¹·B·dt/2,   M = I − A·dt/2.
//
// The discrete frequency response at ω equals the continuous one at
// (2/dt)·tan(ω·dt/2). D may be nil (zero). It fails if M is singular (A has
// the eigenvalue 2/dt).
func C2DTustin(A, B, C, D mat.Matrix, dt float64) (Ad, Bd, Cd, Dd *mat.Dense, err error) {
	defer guard("C2DTustin", &err)
	n, m, err := checkAB("C2DTustin", A, B, dt)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	p, nc, err := dimsOf("C", C)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if nc != n {
		return nil, nil, nil, nil, fmt.Errorf("control: C2DTustin: C has %d columns, A has %d rows", nc, n)
	}
	Dd = mat.NewDense(p, m, nil)
	if D != nil {
		pd, md, err := dimsOf("D", D)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if pd != p || md != m {
			return nil, nil, nil, nil, fmt.Errorf("control: C2DTustin: D is %d×%d, want %d×%d", pd, md, p, m)
		}
		Dd.Copy(D)
	}
	h := dt / 2
	M := eye(n)
	P := eye(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			M.Set(i, j, M.At(i, j)-h*A.At(i, j))
			P.Set(i, j, P.At(i, j)+h*A.At(i, j))
		}
	}
	var lu mat.LU
	lu.Factorize(M)
	if c := lu.Cond(); math.IsInf(c, 1) || c > 1/(1e3*epsilon) {
		return nil, nil, nil, nil, fmt.Errorf("control: C2DTustin: I − A·dt/2 is singular (condition %.3g): A has an eigenvalue at or near 2/dt = %g", c, 2/dt)
	}
	Ad = new(mat.Dense)
	if err := lu.SolveTo(Ad, false, P); err != nil && !isSoftCondition(err) {
		return nil, nil, nil, nil, err
	}
	Bd = new(mat.Dense)
	if err := lu.SolveTo(Bd, false, B); err != nil && !isSoftCondition(err) {
		return nil, nil, nil, nil, err
	}
	Bd.Scale(dt, Bd)
	// Cd = C·M⁻¹ = (M⁻ᵀ·Cᵀ)ᵀ.
	var cdT mat.Dense
	if err := lu.SolveTo(&cdT, true, C.T()); err != nil && !isSoftCondition(err) {
		return nil, nil, nil, nil, err
	}
	Cd = mat.DenseCopyOf(cdT.T())
	var cb mat.Dense
	cb.Mul(Cd, B)
	cb.Scale(h, &cb)
	Dd.Add(Dd, &cb)
	return Ad, Bd, Cd, Dd, nil
}

// epsilon is the float64 machine epsilon.
const epsilon = 0x1p-52

// isSoftCondition reports whether err is gonum's warning that a solve was
// ill-conditioned but finite (the result is still returned).
func isSoftCondition(err error) bool {
	c, ok := err.(mat.Condition)
	return ok && !math.IsInf(float64(c), 1)
}
