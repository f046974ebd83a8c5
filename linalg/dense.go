package linalg

import "math"

// denseFactor computes the LU factors of the row-major n×n matrix a into lu
// (a is not modified) using partial pivoting with full row interchanges:
// the unit lower factor L is stored below the diagonal, the strict upper
// part of U above it, and the diagonal holds the reciprocals 1/u_kk (so that
// solves multiply instead of divide). piv[k] is the row swapped with row k
// at step k and pv[k] the pivot used.
//
// It returns the first column k without a nonzero pivot candidate (-1 if
// none) and, if k != 0, the bit pattern of max|a_ij| (see maxBits). The
// caller applies the relative pivot tolerance to pv afterwards.
//
// It is used for smallN < n <= DenseMaxN (rows short enough that overhead
// matters): the first step reads a directly (copying it into lu and
// measuring its norm on the way, instead of separate passes), and the pivot
// search of column k+1 is done while column k is eliminated, on values still
// in registers.
func denseFactor(lu, a []float64, piv []int, pv []float64, n int) (int, uint64) {
	if n == 0 {
		return -1, 0
	}
	nn := n * n
	a = a[:nn]
	lu = lu[:nn]
	piv = piv[:n]
	pv = pv[:n]

	// Step 0, reading from a. Pivot search in column 0.
	p, pk := 0, a[0]
	amax := math.Abs(pk)
	for r := 1; r < n; r++ {
		v := a[r*n]
		if t := math.Abs(v); t > amax {
			p, pk, amax = r, v, t
		}
	}
	piv[0], pv[0] = p, pk
	if !(amax > 0) {
		return 0, 0
	}
	inv := 1 / pk
	var nb uint64 // max of the bit patterns of |a_ij|
	row0 := lu[:n]
	for j, v := range a[p*n : p*n+n] {
		row0[j] = v
		nb = max(nb, math.Float64bits(v)&^signBit)
	}
	row0[0] = inv
	if n == 1 {
		return -1, nb
	}
	uk := row0[1:]
	p0 := p
	p, pk, amax = 1, 0, -1
	for r := 1; r < n; r++ {
		sr := r
		if r == p0 {
			sr = 0
		}
		src := a[sr*n : sr*n+n]
		dst := lu[r*n : r*n+n]
		dst = dst[:len(src)]
		m := src[0]
		nb = max(nb, math.Float64bits(m)&^signBit)
		var v float64
		if m == 0 {
			for j, x := range src {
				dst[j] = x
				nb = max(nb, math.Float64bits(x)&^signBit)
			}
			v = src[1]
		} else {
			m *= inv
			dst[0] = m
			ss := src[1:]
			dd := dst[1:]
			dd = dd[:len(ss)]
			uu := uk[:len(ss)]
			for j, x := range ss {
				dd[j] = x - m*uu[j]
				nb = max(nb, math.Float64bits(x)&^signBit)
			}
			v = dd[0]
		}
		if t := math.Abs(v); t > amax {
			p, pk, amax = r, v, t
		}
	}

	// Steps 1..n-1 in place in lu.
	for k := 1; k < n; k++ {
		piv[k], pv[k] = p, pk
		if !(amax > 0) {
			return k, nb
		}
		rowk := lu[k*n : k*n+n]
		if p != k {
			rowp := lu[p*n : p*n+n]
			for j, v := range rowp {
				rowp[j], rowk[j] = rowk[j], v
			}
		}
		inv := 1 / pk
		rowk[k] = inv
		if k+1 == n {
			break
		}
		uk := rowk[k+1:]
		u0 := uk[0]
		// Eliminate column k; look ahead for the pivot of column k+1.
		p, pk, amax = k+1, 0, -1
		for r := k + 1; r < n; r++ {
			rowr := lu[r*n+k : r*n+n]
			m := rowr[0]
			var v float64
			if m == 0 {
				v = rowr[1]
			} else {
				m *= inv
				rowr[0] = m
				rr := rowr[1:]
				rr = rr[:len(uk)]
				v = rr[0] - m*u0
				rr[0] = v
				for j := 1; j < len(uk); j++ {
					rr[j] -= m * uk[j]
				}
			}
			if t := math.Abs(v); t > amax {
				p, pk, amax = r, v, t
			}
		}
	}
	return -1, nb
}

// denseSolve overwrites b with the solution of A x = b given the factors of
// denseFactor. Both substitutions are latency-bound for small n: each dot
// product is a chain of dependent subtractions. So the rows are taken in
// pairs whose two chains advance together, and each dot product subtracts
// the term of the most recently computed unknown last, taking it from a
// register instead of reloading it from b. Every dot product keeps the
// order of its terms (columns ascending, that unknown last).
func denseSolve(a []float64, piv []int, n int, b []float64) {
	if n == 0 {
		return
	}
	a = a[:n*n]
	b = b[:n]
	piv = piv[:n]
	// Forward: L y = P b. Interchange i only touches b[i] and b[piv[i]]
	// with piv[i] >= i, so it can be applied just before row i is used.
	if p := piv[0]; p != 0 {
		b[0], b[p] = b[p], b[0]
	}
	last := b[0] // b[i-1]
	i := 1
	for ; i+1 < n; i += 2 {
		if p := piv[i]; p != i {
			b[i], b[p] = b[p], b[i]
		}
		if p := piv[i+1]; p != i+1 {
			b[i+1], b[p] = b[p], b[i+1]
		}
		r0 := a[i*n : i*n+i]           // row i, columns 0..i-1
		r1 := a[(i+1)*n : (i+1)*n+i+1] // row i+1, columns 0..i
		bb := b[:i-1]
		l0, l1 := r0[:len(bb)], r1[:len(bb)]
		s0, s1 := b[i], b[i+1]
		for j, x := range bb {
			s0 -= l0[j] * x
			s1 -= l1[j] * x
		}
		y0 := s0 - r0[i-1]*last
		b[i] = y0
		s1 -= r1[i-1] * last
		last = s1 - r1[i]*y0
		b[i+1] = last
	}
	if i < n { // the last row (piv[n-1] = n-1)
		row := a[i*n : i*n+i]
		sum := b[i]
		for j, v := range row[:i-1] {
			sum -= v * b[j]
		}
		b[i] = sum - row[i-1]*last
	}
	// Backward: U x = y (diagonal stored as reciprocals), rows i and i-1
	// together; row i-1 starts with column i+1.
	last = b[n-1] * a[n*n-1] // x[i+1]
	b[n-1] = last
	i = n - 2
	for ; i >= 1; i -= 2 {
		r0 := a[i*n+i : i*n+n]           // row i, columns i..n-1
		r1 := a[(i-1)*n+i-1 : (i-1)*n+n] // row i-1, columns i-1..n-1
		x := b[i+2:]                     // columns i+2..
		u0, u1 := r0[2:], r1[3:]
		u0, u1 = u0[:len(x)], u1[:len(x)]
		s0 := b[i]
		s1 := b[i-1] - r1[2]*last
		for j, v := range x {
			s0 -= u0[j] * v
			s1 -= u1[j] * v
		}
		x0 := (s0 - r0[1]*last) * r0[0]
		b[i] = x0
		last = (s1 - r1[1]*x0) * r1[0]
		b[i-1] = last
	}
	if i == 0 {
		row := a[:n]
		sum := b[0]
		for j := 2; j < n; j++ {
			sum -= row[j] * b[j]
		}
		b[0] = (sum - row[1]*last) * row[0]
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
