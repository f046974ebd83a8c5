package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// heavyTop9 is the Newton matrix of the heavy top as the engine assembled
// it at one step of bench.HeavyTop (h = 1 ms): the mass block
// diag(15, 15, 15), the rotational block (inertia plus the scaled
// gyroscopic tangent; its middle row holds only the diagonal), the
// spherical joint's Jacobian and its transpose, and the zero 3×3 corner.
var heavyTop9 = [9][9]float64{
	{15, 0, 0, 0, 0, 0, 1, 0, 0},
	{0, 15, 0, 0, 0, 0, 0, 1, 0},
	{0, 0, 15, 0, 0, 0, 0, 0, 1},
	{0, 0, 0, 0.23453692145104987, -0.000129688209842156, -0.01791549986971401, 0.17739109290289995, -0.7335461955985467, -0.6560810766068577},
	{0, 0, 0, 0, 0.46875, 0, 0, 0, 0},
	{0, 0, 0, 0.017915807117416735, -0.0007042616402970016, 0.23453686003921873, 0.9700852656596479, 0.018067051597080636, 0.24209122040387732},
	{1, 0, 0, 0.24934588140948236, 0.002896885556563365, 0.9531664623610503, 0, 0, 0},
	{0, 1, 0, -0.7294459718163859, -6.909954119837763e-05, 0.07291245125177148, 0, 0, 0},
	{0, 0, 1, -0.6355008794620594, 0.0006059806907551116, 0.2902971518037548, 0, 0, 0},
}

// heavyTopSys is heavyTop9 as a test system with a dense pattern.
func heavyTopSys() *testSys {
	t := newTestSys(9)
	for i := range 9 {
		for j := range 9 {
			t.add(i, j, heavyTop9[i][j])
		}
	}
	return t
}

// randTopLike fills a with a random matrix of the heavy top's structure:
// diag(m, m, m), a rotational block (dense, or with the sparse middle row of
// heavyTop9), the constraint rows [±I | C] and their transpose-like columns,
// and a zero corner whose zeros are +0 or -0 at random.
func randTopLike(a *smallMat, rng *rand.Rand) {
	clear(a[:])
	m := 1 + 20*rng.Float64()
	sparseMid := rng.IntN(2) == 0
	at := func(i, j int) *float64 { return &a[i*smallN+j] }
	for i := range 3 {
		*at(i, i) = m
		*at(i, 6+i) = 1
		*at(6+i, i) = 1
		for j := range 3 {
			*at(6+i, 3+j) = 2*rng.Float64() - 1
			if !(sparseMid && i == 1) {
				*at(3+i, 6+j) = 2*rng.Float64() - 1
				v := 1e-3 * (rng.Float64() - 0.5)
				if i == j {
					v += 0.2 + 0.3*rng.Float64()
				}
				*at(3+i, 3+j) = v
			}
		}
	}
	if sparseMid {
		*at(4, 4) = 0.46875
	}
	for i := 6; i < 9; i++ {
		for j := 6; j < 9; j++ {
			if rng.IntN(3) == 0 {
				*at(i, j) = math.Copysign(0, -1)
			}
		}
	}
}

// randSmall fills the leading n×n block of a (the rest is left as is) with
// one of several kinds of random matrices: dense, sparse with +0 and -0
// zeros, with repeated or integer entries (ties in the pivot search, exact
// cancellation), rank deficient, with a huge dynamic range (overflow to Inf
// and NaN inside the elimination), or with a NaN or an infinity.
func randSmall(a *smallMat, n, kind int, rng *rand.Rand) {
	set := func(i, j int, v float64) { a[i*smallN+j] = v }
	for i := range n {
		for j := range n {
			v := 2*rng.Float64() - 1
			switch kind {
			case 1: // sparse, signed zeros
				switch rng.IntN(4) {
				case 0:
					v = 0
				case 1:
					v = math.Copysign(0, -1)
				}
			case 2: // small integers: ties, exact cancellation, -0 results
				v = float64(rng.IntN(5) - 2)
				if v == 0 && rng.IntN(2) == 0 {
					v = math.Copysign(0, -1)
				}
			case 3: // huge dynamic range
				v = math.Ldexp(v, rng.IntN(1600)-800)
			case 4: // very sparse
				if rng.IntN(5) != 0 {
					v = 0
				}
			}
			set(i, j, v)
		}
	}
	switch kind {
	case 5: // rank deficient: one row a multiple of another, or a zero column
		if n > 1 {
			r, s := rng.IntN(n), rng.IntN(n-1)
			if s >= r {
				s++
			}
			c := float64(rng.IntN(3) + 1)
			for j := range n {
				a[s*smallN+j] = c * a[r*smallN+j]
			}
		}
		if rng.IntN(2) == 0 {
			c := rng.IntN(n)
			for i := range n {
				a[i*smallN+c] = 0
			}
		}
	case 6: // one non-finite entry
		bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Float64frombits(0x7ff0000000000001)}
		set(rng.IntN(n), rng.IntN(n), bad[rng.IntN(len(bad))])
	case 7: // zero matrix, or all-zero leading column
		for i := range n {
			set(i, 0, 0)
		}
		if rng.IntN(2) == 0 {
			clear(a[:])
		}
	}
}

const smallKinds = 9 // 0..7 by randSmall, 8 by randTopLike (n = 9 only)

// TestSmallKernelsBitIdentical runs smallFactor and smallSolve (the
// generated kernels of small_gen.go) against the loop kernels they unroll,
// smallFactorLoop and smallSolveLoop (the engine's kernels until the
// generator, unchanged since), on many random matrices of every
// n = 1..16 (and of the heavy top's structure) and compares every stored
// bit: the factors (all smallN×smallN entries, so also what is left
// untouched), interchanges, pivots, the returned column and norm, and the
// solutions of several right-hand sides.
func TestSmallKernelsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 43))
	reps := 400
	if testing.Short() {
		reps = 50
	}
	var a smallMat
	var lu, luRef smallMat
	var piv, pivRef [smallN]int
	var pv, pvRef [smallN]float64
	cases, solved := 0, 0
	for n := 1; n <= smallN; n++ {
		for kind := range smallKinds {
			if kind == 8 && n != 9 {
				continue
			}
			for rep := range reps {
				name := fmt.Sprintf("n=%d kind=%d rep=%d", n, kind, rep)
				// Garbage everywhere, then the matrix: the kernels must read
				// only the leading block and write the same entries.
				for i := range a {
					a[i] = 2*rng.Float64() - 1
					lu[i] = float64(rng.IntN(7))
				}
				luRef = lu
				for i := range piv {
					piv[i], pv[i] = -i, -float64(i)
				}
				pivRef, pvRef = piv, pv
				if kind == 8 {
					randTopLike(&a, rng)
				} else {
					randSmall(&a, n, kind, rng)
				}
				a0 := a
				k, nb := smallFactor(&lu, &a, &piv, &pv, n)
				kr, nbr := smallFactorLoop(&luRef, &a, &pivRef, &pvRef, n)
				cases++
				for i := range a {
					if math.Float64bits(a[i]) != math.Float64bits(a0[i]) {
						t.Fatalf("%s: smallFactor modified its input", name)
					}
				}
				if k != kr || (k != 0 && nb != nbr) {
					t.Fatalf("%s: (k, nb) = (%d, %#x), reference (%d, %#x)", name, k, nb, kr, nbr)
				}
				if nb >= infBits && k != 0 {
					// Non-finite input: Factor reports it from nb and
					// discards everything else.
					continue
				}
				for i := range lu {
					if math.Float64bits(lu[i]) != math.Float64bits(luRef[i]) {
						t.Fatalf("%s: lu[%d,%d] = %v (%#x), reference %v (%#x)", name, i/smallN, i%smallN,
							lu[i], math.Float64bits(lu[i]), luRef[i], math.Float64bits(luRef[i]))
					}
				}
				for i := range piv {
					if piv[i] != pivRef[i] || math.Float64bits(pv[i]) != math.Float64bits(pvRef[i]) {
						t.Fatalf("%s: piv[%d], pv[%d] = %d, %v; reference %d, %v", name, i, i, piv[i], pv[i], pivRef[i], pvRef[i])
					}
				}
				if k >= 0 {
					continue
				}
				for range 3 {
					b := make([]float64, n)
					for i := range b {
						b[i] = 2*rng.Float64() - 1
						if rng.IntN(4) == 0 {
							b[i] = 0
						}
					}
					bRef := append([]float64(nil), b...)
					smallSolve(&lu, &piv, n, b)
					smallSolveLoop(&lu, &piv, n, bRef)
					solved++
					for i := range b {
						if math.Float64bits(b[i]) != math.Float64bits(bRef[i]) {
							t.Fatalf("%s: x[%d] = %v (%#x), reference %v (%#x)", name, i,
								b[i], math.Float64bits(b[i]), bRef[i], math.Float64bits(bRef[i]))
						}
					}
				}
			}
		}
	}
	t.Logf("%d factorizations, %d solves compared", cases, solved)
}

// smallBenchCases are the small dense systems of the kernel benchmarks: the
// planar pendulum (5×5), the heavy top (9×9, many structural zeros) and a
// full random 16×16 matrix.
func smallBenchCases() []struct {
	name string
	sys  *testSys
} {
	return []struct {
		name string
		sys  *testSys
	}{
		{"pendulum5", pendulum(0.3)},
		{"top9", heavyTopSys()},
		{"dense16", randDense(16, rand.New(rand.NewPCG(16, 16)))},
	}
}

// BenchmarkSmallFactor is one Factor (kernel, norm and pivot check) of the
// small dense systems.
func BenchmarkSmallFactor(b *testing.B) {
	for _, c := range smallBenchCases() {
		b.Run(c.name, func(b *testing.B) {
			s := mustPlan(b, c.sys.pat, KindDense).NewSolver()
			c.sys.load(s)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Factor(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSmallSolve is one Solve with the factors of the small dense
// systems.
func BenchmarkSmallSolve(b *testing.B) {
	for _, c := range smallBenchCases() {
		b.Run(c.name, func(b *testing.B) {
			s := mustPlan(b, c.sys.pat, KindDense).NewSolver()
			c.sys.load(s)
			if err := s.Factor(); err != nil {
				b.Fatal(err)
			}
			rhs := randVec(c.sys.n, rand.New(rand.NewPCG(1, 1)))
			x := make([]float64, c.sys.n)
			b.ReportAllocs()
			for b.Loop() {
				copy(x, rhs)
				s.Solve(x)
			}
		})
	}
}

// BenchmarkSmallKernels times the bare kernels on the heavy top's matrix,
// the generated ones next to the loop kernels (for judging a rewrite).
func BenchmarkSmallKernels(b *testing.B) {
	var a, lu smallMat
	for i := range 9 {
		copy(a[i*smallN:], heavyTop9[i][:])
	}
	var piv [smallN]int
	var pv [smallN]float64
	rhs := randVec(9, rand.New(rand.NewPCG(1, 1)))
	x := make([]float64, 9)
	b.Run("factor", func(b *testing.B) {
		for b.Loop() {
			smallFactor(&lu, &a, &piv, &pv, 9)
		}
	})
	b.Run("factorRef", func(b *testing.B) {
		for b.Loop() {
			smallFactorLoop(&lu, &a, &piv, &pv, 9)
		}
	})
	b.Run("solve", func(b *testing.B) {
		for b.Loop() {
			copy(x, rhs)
			smallSolve(&lu, &piv, 9, x)
		}
	})
	b.Run("solveRef", func(b *testing.B) {
		for b.Loop() {
			copy(x, rhs)
			smallSolveLoop(&lu, &piv, 9, x)
		}
	})
}

// BenchmarkSmallSizes times the bare kernels (smallFactor, then one
// smallSolve) against the loop kernels on a random
// dense matrix of every n = 2..smallN, for choosing which sizes get
// unrolled kernels (internal/gensmall).
func BenchmarkSmallSizes(b *testing.B) {
	for n := 2; n <= smallN; n++ {
		var a, lu smallMat
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		randSmall(&a, n, 0, rng)
		var piv [smallN]int
		var pv [smallN]float64
		rhs := randVec(n, rng)
		x := make([]float64, n)
		b.Run(fmt.Sprintf("n=%d/factor", n), func(b *testing.B) {
			for b.Loop() {
				smallFactor(&lu, &a, &piv, &pv, n)
			}
		})
		b.Run(fmt.Sprintf("n=%d/factorRef", n), func(b *testing.B) {
			for b.Loop() {
				smallFactorLoop(&lu, &a, &piv, &pv, n)
			}
		})
		b.Run(fmt.Sprintf("n=%d/solve", n), func(b *testing.B) {
			for b.Loop() {
				copy(x, rhs)
				smallSolve(&lu, &piv, n, x)
			}
		})
		b.Run(fmt.Sprintf("n=%d/solveRef", n), func(b *testing.B) {
			for b.Loop() {
				copy(x, rhs)
				smallSolveLoop(&lu, &piv, n, x)
			}
		})
	}
}
