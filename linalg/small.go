package linalg

import "math"

// Small dense systems (n <= smallN, e.g. the 5×5 pendulum or the 9×9
// spinning top) are dominated by loop and slice overhead rather than by
// arithmetic. They are stored in a fixed [smallN*smallN] array (row stride
// smallN) and every index is masked, so the kernels below compile without
// bounds checks (except on the right-hand side) and without per-element
// slicing.
const (
	smallN    = 16
	smallSize = smallN * smallN
)

// smallMat is the storage of a small dense matrix, row-major with stride
// smallN.
type smallMat = [smallSize]float64

// row returns row r&(smallN-1) of m.
func row(m *smallMat, r int) *[smallN]float64 {
	i := (r & (smallN - 1)) * smallN
	return (*[smallN]float64)(m[i : i+smallN])
}

// small_gen.go holds smallFactor and smallSolve: these loop kernels unrolled
// for the sizes that pay, bit-identical to them (TestSmallKernelsBitIdentical)
// and reproduced by the generator in CI (TestSmallGenReproducible). Measured
// on this machine kind (interleaved runs, noisy host): the planar pendulum's
// 5×5 factor-and-solve takes 129 ns unrolled against 228 ns with the loops,
// the heavy top's step (9×9) 3.4 µs against 3.8 µs; no benchmark of the
// project meets the other sizes (the larger models are banded), so they use
// the loops, and the file is 1.8k lines instead of 11.6k.
//
//go:generate go run ./internal/gensmall -o small_gen.go -sizes 5,9

// smallFactorLoop is denseFactor for n <= smallN: it factors a into lu (same
// conventions: unit L below the diagonal, reciprocals of the pivots on it,
// U above), records interchanges in piv and pivots in pv, and returns the
// first column without a nonzero pivot candidate (or -1) and, unless that
// column is 0, the bit pattern of max|a_ij|. Step 0 reads a directly,
// copying it and measuring its norm on the way; the pivot of column k+1 is
// searched while column k is eliminated.
func smallFactorLoop(lu, a *smallMat, piv *[smallN]int, pv *[smallN]float64, n int) (int, uint64) {
	const mk = smallN - 1
	if n <= 0 {
		return -1, 0
	}
	n = min(n, smallN)
	// Step 0: pivot search in column 0 of a.
	p, pk := 0, a[0]
	amax := math.Abs(pk)
	for r := 1; r < n; r++ {
		v := a[(r&mk)*smallN]
		if t := math.Abs(v); t > amax {
			p, pk, amax = r, v, t
		}
	}
	piv[0], pv[0] = p, pk
	if !(amax > 0) {
		return 0, 0
	}
	inv := 1 / pk
	var nb uint64
	u := row(lu, 0)
	ap := row(a, p&mk)
	for j := 0; j < n; j++ {
		v := ap[j&mk]
		u[j&mk] = v
		nb = max(nb, math.Float64bits(v)&^signBit)
	}
	u[0] = inv
	p0 := p
	p, pk, amax = 1, 0, -1
	for r := 1; r < n; r++ {
		src := row(a, r&mk)
		if r == p0 {
			src = row(a, 0)
		}
		dst := row(lu, r&mk)
		m := src[0]
		nb = max(nb, math.Float64bits(m)&^signBit)
		if m == 0 {
			for j := 1; j < n; j++ {
				v := src[j&mk]
				dst[j&mk] = v
				nb = max(nb, math.Float64bits(v)&^signBit)
			}
			dst[0] = 0
		} else {
			m *= inv
			dst[0] = m
			for j := 1; j < n; j++ {
				v := src[j&mk]
				dst[j&mk] = v - m*u[j&mk]
				nb = max(nb, math.Float64bits(v)&^signBit)
			}
		}
		if v := dst[1]; math.Abs(v) > amax {
			p, pk, amax = r, v, math.Abs(v)
		}
	}
	// Steps 1..n-1 in place.
	for k := 1; k < n; k++ {
		piv[k&mk], pv[k&mk] = p, pk
		if !(amax > 0) {
			return k, nb
		}
		u := row(lu, k&mk)
		if p != k {
			rp := row(lu, p&mk)
			for j := 0; j < n; j++ {
				u[j&mk], rp[j&mk] = rp[j&mk], u[j&mk]
			}
		}
		inv := 1 / pk
		u[k&mk] = inv
		k1 := (k + 1) & mk
		p, pk, amax = k+1, 0, -1
		for r := k + 1; r < n; r++ {
			rr := row(lu, r&mk)
			if m := rr[k&mk]; m != 0 {
				m *= inv
				rr[k&mk] = m
				for j := k + 1; j < n; j++ {
					rr[j&mk] -= m * u[j&mk]
				}
			}
			if v := rr[k1]; math.Abs(v) > amax {
				p, pk, amax = r, v, math.Abs(v)
			}
		}
	}
	return -1, nb
}

// smallSolveLoop is denseSolve for the factors of smallFactor; len(b) must be
// n. Like denseSolve it takes the rows in pairs whose dot products advance
// together and carries the most recently computed unknown in a register
// (the substitutions are latency-bound), with the terms of every dot
// product in denseSolve's order.
func smallSolveLoop(lu *smallMat, piv *[smallN]int, n int, b []float64) {
	const mk = smallN - 1
	if n <= 0 || n > smallN || len(b) != n {
		return
	}
	// Forward: L y = P b with the interchanges applied just in time.
	if p := piv[0]; p != 0 {
		b[0], b[p] = b[p], b[0]
	}
	last := b[0] // b[i-1]
	i := 1
	for ; i+1 < n; i += 2 {
		if p := piv[i&mk]; p != i {
			b[i], b[p] = b[p], b[i]
		}
		if p := piv[(i+1)&mk]; p != i+1 {
			b[i+1], b[p] = b[p], b[i+1]
		}
		r0, r1 := row(lu, i), row(lu, i+1)
		s0, s1 := b[i], b[i+1]
		for j, x := range b[:i-1] {
			s0 -= r0[j&mk] * x
			s1 -= r1[j&mk] * x
		}
		y0 := s0 - r0[(i-1)&mk]*last
		b[i] = y0
		s1 -= r1[(i-1)&mk] * last
		last = s1 - r1[i&mk]*y0
		b[i+1] = last
	}
	if i < n { // the last row
		lr := row(lu, i)
		sum := b[i]
		for j, x := range b[:i-1] {
			sum -= lr[j&mk] * x
		}
		b[i] = sum - lr[(i-1)&mk]*last
	}
	// Backward: U x = y, diagonal holding reciprocals; rows i and i-1
	// together, row i-1 starting with column i+1.
	last = b[n-1] * lu[(n-1)*(smallN+1)&(smallSize-1)] // x[i+1]
	b[n-1] = last
	i = n - 2
	for ; i >= 1; i -= 2 {
		r0, r1 := row(lu, i), row(lu, i-1)
		s0 := b[i]
		s1 := b[i-1] - r1[(i+1)&mk]*last
		for j := i + 2; j < n; j++ {
			x := b[j]
			s0 -= r0[j&mk] * x
			s1 -= r1[j&mk] * x
		}
		x0 := (s0 - r0[(i+1)&mk]*last) * r0[i&mk]
		b[i] = x0
		last = (s1 - r1[i&mk]*x0) * r1[(i-1)&mk]
		b[i-1] = last
	}
	if i == 0 {
		lr := row(lu, 0)
		sum := b[0]
		for j := 2; j < n; j++ {
			sum -= lr[j&mk] * b[j]
		}
		b[0] = (sum - lr[1]*last) * lr[0]
	}
}
