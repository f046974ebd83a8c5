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
//
// The structural band of a KKT system is often much wider than its
// numerical one (a joint's rows and Hessian couple all coordinates of its
// bodies in the pattern, few of them in value). On wide bands the
// factorisation stops each row update at the pivot row's last nonzero. When
// the same factors solve a second system (Newton iterations with old
// factors), they are copied once into a compact form without the trailing
// zeros of the columns of L and rows of U (bandPack), which both
// substitutions then stream through; in the band the columns of L lie a
// row's width apart. Every term skipped is an exact zero times a finite
// number.

// minTrimBand is the least kl+ku for which bandFactor stops row updates at
// the pivot row's last nonzero: on narrow bands (a planar chain, kl = ku =
// 3) looking for it costs more than it saves.
const minTrimBand = 8

// bandLU is the compact form of band factors (permuted indexing), made on
// the second solve with the same factors.
type bandLU struct {
	solves int       // solves with these factors so far
	packed bool      // the fields below hold them
	lf     []float64 // the columns of L (rows k+1 ..), one after the other
	ln     []int32   // their lengths
	uf     []float64 // the rows of U (1/u_kk, u_k,k+1, ...), one after the other
	un     []int32   // their lengths (at least 1)
	nu     int       // the length of uf used
}

func newBandLU(n, kl, ku int) *bandLU {
	return &bandLU{ln: make([]int32, n), un: make([]int32, n), lf: make([]float64, n*kl), uf: make([]float64, n*(kl+ku+1))}
}

// copyFrom copies o (same dimensions).
func (f *bandLU) copyFrom(o *bandLU) {
	f.solves, f.packed, f.nu = o.solves, o.packed, o.nu
	if o.packed {
		copy(f.lf, o.lf)
		copy(f.ln, o.ln)
		copy(f.uf, o.uf)
		copy(f.un, o.un)
	}
}

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
	trim := kl+ku >= minTrimBand
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
		if trim {
			e := len(rowk)
			for e > 1 && rowk[e-1] == 0 {
				e--
			}
			uk = rowk[1:e]
		}
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
// given the factors a and piv of bandFactor; from the second solve with the
// same factors on, it packs them into f and uses the compact form.
func bandSolve(a []float64, piv []int, n, kl, ku int, f *bandLU, x []float64) {
	if n == 0 {
		return
	}
	if f.solves++; f.solves == 2 {
		bandPack(a, n, kl, ku, f)
	}
	if f.packed {
		bandForward(f.lf, f.ln, piv, x)
		bandBackward(f.uf[:f.nu], f.un, x)
		return
	}
	bandSubst(a, piv, n, kl, ku, x)
}

// bandSubst is bandSolve with the factors in the band.
func bandSubst(a []float64, piv []int, n, kl, ku int, x []float64) {
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

// bandPack copies the factors in the band a into f's compact form, without
// the trailing zeros of the columns of L and the rows of U.
func bandPack(a []float64, n, kl, ku int, f *bandLU) {
	w := 2*kl + ku + 1
	s := w - 1
	a = a[:n*w]
	ln, un := f.ln[:n], f.un[:n]
	nl, nu := 0, 0
	for k := 0; k < n; k++ {
		d := k*w + kl // (k,k)
		m := min(kl, n-1-k)
		for q := d + m*s; m > 0 && a[q] == 0; q -= s {
			m--
		}
		l := f.lf[nl : nl+m]
		for t, q := 0, d+s; t < len(l); t, q = t+1, q+s {
			l[t] = a[q]
		}
		ln[k] = int32(m)
		nl += m
		row := a[d : d+1+min(kl+ku, n-1-k)]
		e := len(row)
		for e > 1 && row[e-1] == 0 {
			e--
		}
		u := f.uf[nu : nu+e]
		for j, v := range row[:len(u)] { // (short rows: no call of copy)
			u[j] = v
		}
		un[k] = int32(e)
		nu += e
	}
	f.nu = nu
	f.packed = true
}

// bandForward overwrites x with L⁻¹ P x, as bandSolve does, with L in
// compact form.
func bandForward(lf []float64, ln []int32, piv []int, x []float64) {
	n := len(x)
	piv, ln = piv[:n], ln[:n]
	cur := x[0]
	off := 0
	for k := 0; k < n-1; k++ {
		xk := cur
		if p := piv[k]; p != k {
			xk = x[p]
			x[p] = cur
		}
		x[k] = xk
		cur = x[k+1]
		m := int(ln[k])
		if m == 0 {
			continue
		}
		l := lf[off : off+m]
		off += m
		if xk == 0 {
			continue
		}
		xr := x[k+1 : k+1+len(l)]
		cur -= l[0] * xk
		for r := 1; r < len(xr); r++ {
			xr[r] -= l[r] * xk
		}
	}
	x[n-1] = cur // (piv[n-1] = n-1)
}

// bandBackward overwrites x with U⁻¹ x, as bandSolve does, with U in
// compact form (its rows one after the other, ending at the end of uf).
func bandBackward(uf []float64, un []int32, x []float64) {
	n := len(x)
	un = un[:n]
	off := len(uf)
	last := 0.0 // x[i+1]
	for i := n - 1; i >= 0; i-- {
		m := int(un[i])
		u := uf[off-m : off]
		off -= m
		xx := x[i : i+len(u)]
		sum := xx[0]
		for j := 2; j < len(xx); j++ {
			sum -= u[j] * xx[j]
		}
		if len(xx) > 1 {
			sum -= u[1] * last
		}
		last = sum * u[0]
		x[i] = last
	}
}

// bandScale copies the band matrix src (layout above) into dst
// equilibrated symmetrically, dst_ij = d_i src_ij d_j, stores d, and
// returns the largest |src_ij| and the largest |dst_ij| as bit patterns
// (see copyMaxBits: a NaN or infinite entry of src shows in the first).
// d_i is diagScale of src_ii, or for a row without a diagonal entry (a
// constraint's) rowScale of its largest entry in the columns scaled by
// their diagonal.
//
// Partial pivoting compares the entries of a column. Coordinates of
// different kinds differ in scale by orders of magnitude (an ANCF node's
// slope against its position: the mass entries differ by about 100/l² for
// elements of length l), and unscaled the pivots were taken off the
// diagonal at every node of a fine ANCF cable: the interchanges filled the
// rows of U out to kl+ku (15.3 entries a row against 9.4 scaled, for 160
// elements), which every solve with the factors then streamed through.
func bandScale(dst, src, d []float64, n, kl, ku int) (raw, scaled uint64) {
	w := 2*kl + ku + 1
	src, dst = src[:n*w], dst[:n*w]
	d = d[:n]
	for i := range d {
		lo, hi := max(i-kl, 0), min(i+ku, n-1)
		var rb uint64 // (|v| compared as bits: NaN above +Inf, as max gives)
		for _, v := range src[i*w+lo-i+kl : i*w+hi-i+kl+1] {
			rb = max(rb, math.Float64bits(v)&^signBit)
		}
		d[i] = diagScale(src[i*w+kl], math.Float64frombits(rb))
	}
	// the rows without a diagonal scale get theirs negated until all
	// have one: the columns m is taken over are those with d_j > 0
	for i := range d {
		if d[i] != 0 {
			continue
		}
		m := 0.0
		for j := max(i-kl, 0); j <= min(i+ku, n-1); j++ {
			if d[j] > 0 {
				m = max(m, math.Abs(src[i*w+j-i+kl])*d[j])
			}
		}
		d[i] = -rowScale(m)
	}
	for i, di := range d {
		d[i] = math.Abs(di)
	}
	for i, di := range d {
		// the row's slots: columns i−kl .. i+kl+ku (those past the band's
		// ends and the fill are zero)
		lo, hi := max(i-kl, 0), min(i+ku, n-1)
		o := i*w - i + kl
		clear(dst[i*w : o+lo])
		clear(dst[o+hi+1 : i*w+w])
		row, out := src[o+lo:o+hi+1], dst[o+lo:o+hi+1]
		dj := d[lo : hi+1]
		out, dj = out[:len(row)], dj[:len(row)]
		for j, v := range row {
			v *= di * dj[j]
			out[j] = v
			scaled = max(scaled, math.Float64bits(v)&^signBit)
		}
	}
	// a NaN or infinite entry of src is one of dst too (d_i > 0 is finite
	// unless src_ii is: then its row turns NaN); where dst holds one,
	// src is looked at itself
	raw = scaled
	if scaled >= infBits {
		raw = maxBits(src)
	}
	return raw, scaled
}

// diagScale returns 1/√|x| for a diagonal entry x whose row's largest
// entry is rm, or 0 when x is 0 or below minDiag·rm (a constraint's row,
// or one whose diagonal is negligible: scaled by it, the row's other
// entries would outgrow the rest and the pivot test would call a regular
// matrix singular). The scaled diagonal is ±1 and, where the matrix is
// symmetric positive definite, no entry of a column exceeds it.
func diagScale(x, rm float64) float64 {
	if x == 0 || math.Abs(x) < minDiag*rm {
		return 0
	}
	return 1 / math.Sqrt(math.Abs(x))
}

// minDiag is the smallest diagonal entry, relative to its row's largest,
// that scales its row and column (diagScale).
const minDiag = 1e-8

// rowScale returns 1/m for a row whose largest scaled entry is m (1 for
// m = 0).
func rowScale(m float64) float64 {
	if !(m > 0) || math.IsInf(m, 0) {
		return 1
	}
	return 1 / m
}
