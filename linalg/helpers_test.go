package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// entry is one additive contribution a_ij += v.
type entry struct {
	i, j int
	v    float64
}

// testSys is a test matrix given by its pattern and its list of entries,
// from which both the Solver and an independent gonum reference are built.
type testSys struct {
	n    int
	pat  *Pattern
	ents []entry
}

func newTestSys(n int) *testSys { return &testSys{n: n, pat: NewPattern(n)} }

// add records a_ij += v and marks (i,j) in the pattern.
func (t *testSys) add(i, j int, v float64) {
	t.pat.Add(i, j)
	t.ents = append(t.ents, entry{i, j, v})
}

func (t *testSys) load(s *Solver) {
	s.Zero()
	for _, e := range t.ents {
		s.Add(e.i, e.j, e.v)
	}
}

func (t *testSys) dense() *mat.Dense {
	d := mat.NewDense(t.n, t.n, nil)
	for _, e := range t.ents {
		d.Set(e.i, e.j, d.At(e.i, e.j)+e.v)
	}
	return d
}

// mul returns A x computed directly from the entry list.
func (t *testSys) mul(x []float64) []float64 {
	y := make([]float64, t.n)
	for _, e := range t.ents {
		y[e.i] += e.v * x[e.j]
	}
	return y
}

// normMax returns max |a_ij| from the entry list (entries summed first).
func (t *testSys) normMax() float64 {
	m := map[[2]int]float64{}
	for _, e := range t.ents {
		m[[2]int{e.i, e.j}] += e.v
	}
	r := 0.0
	for _, v := range m {
		r = math.Max(r, math.Abs(v))
	}
	return r
}

func randVec(n int, rng *rand.Rand) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*rng.Float64() - 1
	}
	return v
}

// randDense is a full random n×n matrix with entries in [-1,1].
func randDense(n int, rng *rand.Rand) *testSys {
	t := newTestSys(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			t.add(i, j, 2*rng.Float64()-1)
		}
	}
	return t
}

// pendulum is the 5×5 Newton/KKT matrix of a planar rigid pendulum (body
// coordinates x, y, theta; two pin-joint multipliers) with the pin at the
// body point (-L/2, 0):
//
//	[ m 0 0 | 1 0 ]
//	[ 0 m 0 | 0 1 ]
//	[ 0 0 J | c1 c2 ]
//	[ 1 0 c1| 0 0 ]
//	[ 0 1 c2| 0 0 ]
func pendulum(theta float64) *testSys {
	const m, L = 1.3, 0.8
	J := m * L * L / 12
	c1 := L / 2 * math.Sin(theta)
	c2 := -L / 2 * math.Cos(theta)
	t := newTestSys(5)
	t.add(0, 0, m)
	t.add(1, 1, m)
	t.add(2, 2, J)
	t.add(3, 0, 1)
	t.add(0, 3, 1)
	t.add(4, 1, 1)
	t.add(1, 4, 1)
	t.add(3, 2, c1)
	t.add(2, 3, c1)
	t.add(4, 2, c2)
	t.add(2, 4, c2)
	return t
}

// chainKKT is the KKT matrix of a planar chain of N bodies (3 coordinates
// each, numbered first) connected by N pin joints (2 multipliers each,
// numbered after all coordinates); joint 0 pins body 0 to the ground and
// joint i pins body i-1 to body i. The mass blocks get a small random
// symmetric "stiffness" coupling so that they are full 3×3 blocks.
func chainKKT(N int, rng *rand.Rand) *testSys {
	const L = 0.5
	n := 5 * N
	t := newTestSys(n)
	for i := 0; i < N; i++ {
		t.pat.AddBlock([]int{3 * i, 3*i + 1, 3*i + 2})
		m := 1 + rng.Float64()
		J := m * L * L / 12
		diag := [3]float64{m, m, J}
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				v := 1e-3 * (rng.Float64() - 0.5)
				if a == b {
					v = diag[a]
				}
				if a <= b {
					t.add(3*i+a, 3*i+b, v)
					if a != b {
						t.add(3*i+b, 3*i+a, v)
					}
				}
			}
		}
	}
	// jac adds the constraint Jacobian block of joint row r for body k
	// attached at body point (sx, 0), with sign sg, and its transpose.
	jac := func(r, k int, sx, sg, th float64) {
		t.add(r, 3*k, sg)
		t.add(3*k, r, sg)
		t.add(r+1, 3*k+1, sg)
		t.add(3*k+1, r+1, sg)
		c1 := -sg * math.Sin(th) * sx
		c2 := sg * math.Cos(th) * sx
		t.add(r, 3*k+2, c1)
		t.add(3*k+2, r, c1)
		t.add(r+1, 3*k+2, c2)
		t.add(3*k+2, r+1, c2)
	}
	for i := 0; i < N; i++ {
		r := 3*N + 2*i
		if i > 0 {
			jac(r, i-1, L/2, 1, rng.Float64()*2*math.Pi)
		}
		jac(r, i, -L/2, -1, rng.Float64()*2*math.Pi)
	}
	return t
}

// shuffledBand has the pattern |k-l| <= bw in a hidden ordering k, while the
// unknowns are numbered by a random permutation q (original index q[k]).
// Without zeroDiag the matrix is diagonally dominant. With zeroDiag (n
// even) the diagonal is zero and the hidden matrix is a small perturbation
// (entries <= 0.15) of the block diagonal of 2×2 blocks [0 c; c' 0] with
// 1 <= |c|,|c'| <= 2, so it is well conditioned but pivoting is required at
// every other step. (A zero-diagonal tridiagonal matrix with random entries
// would be exponentially ill-conditioned.)
func shuffledBand(n, bw int, zeroDiag bool, rng *rand.Rand) *testSys {
	q := rng.Perm(n)
	t := newTestSys(n)
	for k := 0; k < n; k++ {
		for l := max(k-bw, 0); l <= min(k+bw, n-1); l++ {
			v := 2*rng.Float64() - 1
			switch {
			case zeroDiag && l == k:
				continue
			case zeroDiag && l/2 == k/2:
				v = math.Copysign(1+math.Abs(v), v)
			case zeroDiag:
				v *= 0.15
			case l == k:
				v += 3
			}
			t.add(q[k], q[l], v)
		}
	}
	return t
}

// renumbered returns sys with unknown i renamed to q[i].
func renumbered(sys *testSys, q []int) *testSys {
	t := newTestSys(sys.n)
	for _, e := range sys.ents {
		t.add(q[e.i], q[e.j], e.v)
	}
	return t
}

// multipliersFirst renumbers a KKT system with nq coordinates followed by
// the multipliers so that the multipliers come first: the leading diagonal
// block is then zero and the factorization must pivot from step 0.
func multipliersFirst(sys *testSys, nq int) *testSys {
	nc := sys.n - nq
	q := make([]int, sys.n)
	for i := range q {
		if i < nq {
			q[i] = nc + i
		} else {
			q[i] = i - nq
		}
	}
	return renumbered(sys, q)
}

// checkSolve assembles sys into s, factors, solves for a random right-hand
// side and compares with gonum's dense LU solution and with the residual.
func checkSolve(t *testing.T, name string, sys *testSys, s *Solver, rng *rand.Rand) {
	t.Helper()
	sys.load(s)
	if err := s.Factor(); err != nil {
		t.Fatalf("%s: Factor: %v", name, err)
	}
	// The first solves with a band plan's factors use them in place, later
	// ones from a compact copy: check the third solve (with the right-hand
	// side of the first, which it must reproduce bit for bit).
	b := randVec(sys.n, rng)
	x := append([]float64(nil), b...)
	s.Solve(x)
	x2 := randVec(sys.n, rng)
	s.Solve(x2)
	x1 := x
	x = append([]float64(nil), b...)
	s.Solve(x)
	for i := range x {
		if x[i] != x1[i] {
			t.Fatalf("%s: solving twice with the same factors: x[%d] = %v, then %v", name, i, x1[i], x[i])
		}
	}

	// Residual, computed from the entry list (independent of the solver).
	ax := sys.mul(x)
	r := make([]float64, sys.n)
	for i := range r {
		r[i] = ax[i] - b[i]
	}
	bound := 1e-14 * float64(sys.n) * sys.normMax() * NormInf(x)
	if got := NormInf(r); !(got <= bound) {
		t.Errorf("%s: residual %g > %g", name, got, bound)
	}

	// Reference solution from gonum.
	var lu mat.LU
	lu.Factorize(sys.dense())
	var xg mat.VecDense
	if err := lu.SolveVecTo(&xg, false, mat.NewVecDense(sys.n, append([]float64(nil), b...))); err != nil {
		t.Fatalf("%s: gonum: %v", name, err)
	}
	cond := lu.Cond()
	diff := 0.0
	for i := range x {
		diff = math.Max(diff, math.Abs(x[i]-xg.AtVec(i)))
	}
	tol := 1e-14 * float64(sys.n) * cond * NormInf(xg.RawVector().Data)
	if !(diff <= tol) {
		t.Errorf("%s: |x - x_gonum| = %g > %g (cond %g)", name, diff, tol, cond)
	}
}

// spatialChainKKT is the Newton matrix of a spatial chain of N bodies on
// spherical joints, built as the engine builds it: body i has the six
// velocities 6i..6i+5 (translation, then rotation in the body frame) with
// the mass m I and a full symmetric 3×3 rotational block (inertia plus a
// small gyroscopic and Hessian part), joint i (rows 6N+3i..6N+3i+2) pins
// body i-1 (at s = (0.5, 0, 0)) to body i (at (−0.5, 0, 0)), joint 0 pins
// body 0 to the ground, and the pattern holds every pair of its bodies'
// twelve velocities, as it does for a joint's Hessian, although a spherical
// joint's is zero but on each body's rotations. The Jacobian of a joint on
// body k is ±[I, −A [s]×] with A a random rotation.
func spatialChainKKT(N int, rng *rand.Rand) *testSys {
	n := 9 * N
	t := newTestSys(n)
	for i := 0; i < N; i++ {
		for a := 0; a < 3; a++ {
			t.add(6*i+a, 6*i+a, 1)
		}
		J := [3]float64{0.02 / 12, 1.01 / 12, 1.01 / 12}
		for a := 0; a < 3; a++ {
			for b := a; b < 3; b++ {
				v := 1e-4 * (rng.Float64() - 0.5)
				if a == b {
					v += J[a]
				}
				t.add(6*i+3+a, 6*i+3+b, v)
				if a != b {
					t.add(6*i+3+b, 6*i+3+a, v)
				}
			}
		}
	}
	// jac adds the rows r.. of a joint on body k at body point (sx, 0, 0)
	// with sign sg, and their transpose.
	jac := func(r, k int, sx, sg float64) {
		A := randRotation(rng)
		for a := 0; a < 3; a++ {
			t.add(r+a, 6*k+a, sg)
			t.add(6*k+a, r+a, sg)
			// row a of −A [s]× with s = (sx, 0, 0): (0, A[a][2] sx, −A[a][1] sx)
			rot := [3]float64{0, A[3*a+2] * sx, -A[3*a+1] * sx}
			for b, v := range rot {
				if v != 0 {
					t.add(r+a, 6*k+3+b, -sg*v)
					t.add(6*k+3+b, r+a, -sg*v)
				}
			}
		}
	}
	for i := 0; i < N; i++ {
		r := 6*N + 3*i
		var blk []int
		if i > 0 {
			jac(r, i-1, 0.5, -1)
			for a := 0; a < 6; a++ {
				blk = append(blk, 6*(i-1)+a)
			}
		}
		jac(r, i, -0.5, 1)
		for a := 0; a < 6; a++ {
			blk = append(blk, 6*i+a)
		}
		t.pat.AddBlock(blk)
		for _, d := range blk {
			for a := 0; a < 3; a++ {
				t.pat.Add(r+a, d)
			}
		}
	}
	return t
}

// randRotation returns a random rotation matrix (row-major).
func randRotation(rng *rand.Rand) [9]float64 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/l, q[1]/l, q[2]/l, q[3]/l
	return [9]float64{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

// solveKnown factors sys in s and solves for the right-hand side of a
// random known solution: it returns the computed solution x, the known
// one xt and the right-hand side b = A xt.
func solveKnown(t *testing.T, sys *testSys, s *Solver, rng *rand.Rand) (x, xt, b []float64) {
	t.Helper()
	sys.load(s)
	if err := s.Factor(); err != nil {
		t.Fatal(err)
	}
	xt = randVec(sys.n, rng)
	b = sys.mul(xt)
	x = append([]float64(nil), b...)
	s.Solve(x)
	return x, xt, b
}
