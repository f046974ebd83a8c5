package linalg

import "math"

// Band storage (row-major variant of LAPACK's dgbtrf layout): row i of the
// (permuted) matrix occupies w = 2kl+ku+1 consecutive slots holding columns
// i-kl .. i+kl+ku, so entry (i,j) lives at i*w + (j-i) + kl. The original
// matrix uses columns i-kl..i+ku; the kl extra superdiagonals receive the
// fill created by row interchanges. During factorization the multipliers of
// L are stored in place of the eliminated subdiagonal entries; as in dgbtrf
// they are not swapped by later interchanges, so L is applied step by step
// (interchange k, then eliminate with column k) in bandSolve. The diagonal
// of the factored matrix holds the reciprocals 1/u_kk.

// bandFactor factors the n×n band matrix a (layout above) in place with
// partial pivoting. piv[k] is the row swapped with row k at step k and
// pv[k] the pivot used. Like denseFactor it stops at the first (permuted)
// column k without a nonzero pivot candidate and returns k, else -1, and it
// searches the pivot of column k+1 while eliminating column k.
func bandFactor(a []float64, piv []int, pv []float64, n, kl, ku int) int {
	if n == 0 {
		return -1
	}
	w := 2*kl + ku + 1
	s := w - 1 // stride between (r,k) and (r+1,k)
	a = a[:n*w]
	piv = piv[:n]
	pv = pv[:n]
	// Pivot search in column 0, rows 0..kl.
	p, pk := 0, a[kl]
	amax := math.Abs(pk)
	for r, q := 1, kl+s; r <= min(kl, n-1); r, q = r+1, q+s {
		if t := math.Abs(a[q]); t > amax {
			p, pk, amax = r, a[q], t
		}
	}
	ju := 0 // last column touched by the U rows so far
	for k := 0; k < n; k++ {
		piv[k], pv[k] = p, pk
		if !(amax > 0) {
			return k
		}
		ju = max(ju, min(p+ku, n-1))
		dk := k*w + kl            // position of (k,k)
		rowk := a[dk : dk+ju-k+1] // columns k..ju of row k
		if p != k {
			dp := p*w + k - p + kl // position of (p,k)
			rowp := a[dp : dp+len(rowk)]
			for j, v := range rowp {
				rowp[j], rowk[j] = rowk[j], v
			}
		}
		inv := 1 / pk
		rowk[0] = inv
		if k+1 == n {
			break
		}
		uk := rowk[1:] // columns k+1..ju
		// Eliminate column k in rows k+1..rmax; look ahead for the pivot
		// of column k+1 (rows k+1..k+1+kl).
		rmax := min(k+kl, n-1)
		p, pk, amax = k+1, 0, -1
		for r, q := k+1, dk+s; r <= rmax; r, q = r+1, q+s {
			m := a[q] // (r,k)
			var v float64
			switch {
			case m == 0:
				v = a[q+1]
			case len(uk) == 0:
				a[q] = m * inv
				v = a[q+1]
			default:
				m *= inv
				a[q] = m
				rr := a[q+1 : q+1+len(uk)]
				v = rr[0] - m*uk[0]
				rr[0] = v
				for j := 1; j < len(rr); j++ {
					rr[j] -= m * uk[j]
				}
			}
			if t := math.Abs(v); t > amax {
				p, pk, amax = r, v, t
			}
		}
		if r := k + 1 + kl; r < n {
			v := a[r*w] // (r, k+1) = (r, r-kl)
			if t := math.Abs(v); t > amax {
				p, pk, amax = r, v, t
			}
		}
	}
	return -1
}

// bandSolve overwrites x with the solution of A x = b (permuted indexing)
// given the factors of bandFactor. As in denseSolve, the most recently
// computed unknown is carried in a register to shorten the dependency chain.
func bandSolve(a []float64, piv []int, n, kl, ku int, x []float64) {
	if n == 0 {
		return
	}
	w := 2*kl + ku + 1
	s := w - 1
	a = a[:n*w]
	x = x[:n]
	piv = piv[:n]
	// Forward: L^-1 P b, one interchange and one column of L at a time.
	// cur is the current value of x[k].
	cur := x[0]
	for k, p := range piv {
		xk := cur
		if p != k {
			xk = x[p]
			x[p] = cur
		}
		x[k] = xk
		if k+1 == n {
			break
		}
		rmax := min(k+kl, n-1)
		q := k*w + kl + s // (k+1, k)
		if xk == 0 || rmax == k {
			cur = x[k+1]
			continue
		}
		cur = x[k+1] - a[q]*xk
		x[k+1] = cur
		for r := k + 2; r <= rmax; r++ {
			q += s
			x[r] -= a[q] * xk
		}
	}
	// Backward: U has kl+ku superdiagonals; its diagonal holds 1/u_ii.
	last := x[n-1] * a[(n-1)*w+kl]
	x[n-1] = last
	for i := n - 2; i >= 0; i-- {
		hi := min(i+kl+ku, n-1)
		d := i*w + kl
		row := a[d : d+1+hi-i]
		xx := x[i : hi+1]
		xx = xx[:len(row)]
		sum := xx[0]
		for j := 2; j < len(row); j++ {
			sum -= row[j] * xx[j]
		}
		if len(row) > 1 {
			sum -= row[1] * last
		}
		last = sum * row[0]
		x[i] = last
	}
}
