package flex

import (
	"fmt"
	"math"
	"sort"

	"mbfmu/linalg"
)

// Large FE models (more free dofs than the dense eigen solver takes) are
// reduced with sparse matrices: a symmetric positive definite K + μM is
// factored by a skyline (profile) Cholesky in the reverse Cuthill–McKee
// order of linalg's band plans, and the lowest modes come from subspace
// iteration (Bathe) with Rayleigh–Ritz. Memory is that of the profile:
// n × the mean row width of the reordered matrix.

// csr is a sparse symmetric matrix (both triangles) over n unknowns.
type csr struct {
	n   int
	ptr []int
	col []int
	val []float64
}

// newCSR builds a csr from entries on the unknowns of loc (global index →
// local, -1 outside), duplicates summed.
func newCSR(es []feEntry, loc []int, n int) *csr {
	cnt := make([]int, n+1)
	for _, e := range es {
		if i, j := loc[e.i], loc[e.j]; i >= 0 && j >= 0 {
			cnt[i+1]++
		}
	}
	for i := 0; i < n; i++ {
		cnt[i+1] += cnt[i]
	}
	c := &csr{n: n, ptr: append([]int(nil), cnt...), col: make([]int, cnt[n]), val: make([]float64, cnt[n])}
	next := append([]int(nil), cnt[:n]...)
	for _, e := range es {
		if i, j := loc[e.i], loc[e.j]; i >= 0 && j >= 0 {
			k := next[i]
			c.col[k], c.val[k] = j, e.v
			next[i]++
		}
	}
	return c
}

// mul sets y = A x.
func (a *csr) mul(x, y []float64) {
	for i := 0; i < a.n; i++ {
		s := 0.0
		for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
			s += a.val[k] * x[a.col[k]]
		}
		y[i] = s
	}
}

// mulAcc sets y = A x as if in twice the working precision (the products
// and sums compensated, Ogita–Rump–Oishi's Dot2): the Rayleigh quotients
// xᵀ A x of smooth vectors then keep their digits, where plain sums lose
// ε λ_max/λ of them to cancellation (the lowest modes of a fine mesh).
func (a *csr) mulAcc(x, y []float64) {
	for i := 0; i < a.n; i++ {
		s, c := 0.0, 0.0
		for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
			s, c = dot2(s, c, a.val[k], x[a.col[k]])
		}
		y[i] = s + c
	}
}

// dot2 adds u v to the compensated sum (s, c): s the sum, c the
// accumulated rounding errors of the products and sums.
func dot2(s, c, u, v float64) (float64, float64) {
	p := u * v
	e := math.FMA(u, v, -p)
	t := s + p
	z := t - s
	return t, c + (s - (t - z)) + (p - z) + e
}

// diag returns the diagonal.
func (a *csr) diag() []float64 {
	d := make([]float64, a.n)
	for i := 0; i < a.n; i++ {
		for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
			if a.col[k] == i {
				d[i] += a.val[k]
			}
		}
	}
	return d
}

// sub returns the rows and columns of a on the unknowns of loc (index of
// a → index of the submatrix, -1 outside) as an n×n csr.
func (a *csr) sub(loc []int, n int) *csr {
	c := &csr{n: n, ptr: make([]int, n+1)}
	for i := 0; i < a.n; i++ {
		if li := loc[i]; li >= 0 {
			for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
				if loc[a.col[k]] >= 0 {
					c.ptr[li+1]++
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		c.ptr[i+1] += c.ptr[i]
	}
	c.col, c.val = make([]int, c.ptr[n]), make([]float64, c.ptr[n])
	next := append([]int(nil), c.ptr[:n]...)
	for i := 0; i < a.n; i++ {
		if li := loc[i]; li >= 0 {
			for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
				if lj := loc[a.col[k]]; lj >= 0 {
					c.col[next[li]], c.val[next[li]] = lj, a.val[k]
					next[li]++
				}
			}
		}
	}
	return c
}

// pivotError is a skyline factorization that met a pivot that is not
// positive: the matrix is not positive definite (at: the unknown, in the
// matrix's own order, whose row failed).
type pivotError struct {
	mu, pivot float64
	at        int
}

func (e *pivotError) Error() string {
	return fmt.Sprintf("the stiffness matrix (shifted by %g M) is not positive definite: pivot %g at its unknown %d", e.mu, e.pivot, e.at)
}

// skyline is the Cholesky factor L (A = L Lᵀ) of a symmetric positive
// definite matrix in a permuted order, stored by rows from each row's
// first nonzero column to the diagonal.
type skyline struct {
	n     int
	perm  []int // original → permuted
	first []int // first column of row i (permuted)
	start []int // offset of row i in l
	l     []float64
}

// factorSkyline factors K + μM (csr, same pattern or not).
func factorSkyline(K, M *csr, mu float64) (*skyline, error) {
	n := K.n
	p := linalg.NewPattern(n)
	for _, a := range []*csr{K, M} {
		for i := 0; i < n; i++ {
			for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
				p.Add(i, a.col[k])
			}
		}
	}
	pl, err := linalg.NewPlanKind(p, linalg.KindBand)
	if err != nil {
		return nil, err
	}
	sk := &skyline{n: n, perm: pl.Perm(), first: make([]int, n), start: make([]int, n+1)}
	for i := range sk.first {
		sk.first[i] = i
	}
	for _, a := range []*csr{K, M} {
		for i := 0; i < n; i++ {
			pi := sk.perm[i]
			for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
				if pj := sk.perm[a.col[k]]; pj < sk.first[pi] {
					sk.first[pi] = pj
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		sk.start[i+1] = sk.start[i] + i - sk.first[i] + 1
	}
	if sk.start[n] > 4e8 {
		return nil, fmt.Errorf("the stiffness matrix's profile holds %d entries after reordering (more than 3.2 GB)", sk.start[n])
	}
	sk.l = make([]float64, sk.start[n])
	at := func(i, j int) *float64 { return &sk.l[sk.start[i]+j-sk.first[i]] }
	for s, a := range []*csr{K, M} {
		c := 1.0
		if s == 1 {
			c = mu
			if mu == 0 {
				continue
			}
		}
		for i := 0; i < n; i++ {
			pi := sk.perm[i]
			for k := a.ptr[i]; k < a.ptr[i+1]; k++ {
				if pj := sk.perm[a.col[k]]; pj <= pi {
					*at(pi, pj) += c * a.val[k]
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		fi := sk.first[i]
		ri := sk.l[sk.start[i]:sk.start[i+1]]
		for j := fi; j < i; j++ {
			fj := sk.first[j]
			rj := sk.l[sk.start[j]:sk.start[j+1]]
			lo := max(fi, fj)
			s := ri[j-fi]
			a, b := ri[lo-fi:j-fi], rj[lo-fj:j-fj]
			for k := range a {
				s -= a[k] * b[k]
			}
			ri[j-fi] = s / rj[j-fj]
		}
		d := ri[i-fi]
		for _, v := range ri[:i-fi] {
			d -= v * v
		}
		if !(d > 0) {
			at := 0
			for o, pi := range sk.perm {
				if pi == i {
					at = o
				}
			}
			return nil, &pivotError{mu: mu, pivot: d, at: at}
		}
		ri[i-fi] = math.Sqrt(d)
	}
	return sk, nil
}

// solveCols overwrites each column x of X (original order) with (L Lᵀ)⁻¹
// x, all at once: the factor is read once for the lot (the columns
// interleaved in buf, n × len(X), allocated when too short), where a solve
// per column would read it len(X) times; it returns buf.
func (sk *skyline) solveCols(X [][]float64, buf []float64) []float64 {
	n, c := sk.n, len(X)
	if len(buf) < n*c {
		buf = make([]float64, n*c)
	}
	w := buf[:n*c]
	for j, x := range X {
		for i, v := range x {
			w[sk.perm[i]*c+j] = v
		}
	}
	// L Y = W
	for i := 0; i < n; i++ {
		fi := sk.first[i]
		ri := sk.l[sk.start[i]:sk.start[i+1]]
		wi := w[i*c : i*c+c]
		for k, v := range ri[:i-fi] {
			wk := w[(fi+k)*c : (fi+k)*c+c]
			wk = wk[:len(wi)]
			for j := range wi {
				wi[j] -= v * wk[j]
			}
		}
		d := ri[i-fi]
		for j := range wi {
			wi[j] /= d
		}
	}
	// Lᵀ X = Y, by columns of Lᵀ (rows of L)
	for i := n - 1; i >= 0; i-- {
		fi := sk.first[i]
		ri := sk.l[sk.start[i]:sk.start[i+1]]
		wi := w[i*c : i*c+c]
		d := ri[i-fi]
		for j := range wi {
			wi[j] /= d
		}
		for k, v := range ri[:i-fi] {
			wk := w[(fi+k)*c : (fi+k)*c+c]
			wk = wk[:len(wi)]
			for j := range wi {
				wk[j] -= v * wi[j]
			}
		}
	}
	for j, x := range X {
		for i := range x {
			x[i] = w[sk.perm[i]*c+j]
		}
	}
	return buf
}

// subspaceModes returns the s lowest eigenpairs of K φ = λ M φ (sparse),
// the eigenvectors M-orthonormal and M-orthogonal to the columns of R
// (n×r, M-orthonormal: a free body's rigid modes, left out), by subspace
// iteration on (K + μM)⁻¹M with Rayleigh–Ritz, to a relative change of
// the eigenvalues below tol. A free body's shift μ > 0 (K is singular) is
// moved to 1 % of the lowest eigenvalue once it is estimated. It returns the eigenvalues (ascending) and
// the vectors (n×s, row-major).
func subspaceModes(K, M *csr, s int, R []float64, r int, mu, tol float64) ([]float64, []float64, error) {
	if s+r > K.n {
		return nil, nil, fmt.Errorf("%d modes asked, the model has %d elastic ones", s, K.n-r)
	}
	sk, err := factorSkyline(K, M, mu)
	if err != nil {
		return nil, nil, err
	}
	return subspaceIterate(sk, K, M, s, R, r, mu, tol, 0)
}

// subspaceIterate is subspaceModes with K + μM factored (sk). With vtol >
// 0 it also iterates until the span of the s lowest vectors (with any
// vector whose eigenvalue ties the s-th's) has settled: an earlier
// iterate's vectors leave it by less than vtol (M-norm, each vector of
// unit M-norm), or by no less than at the previous iteration once the
// eigenvalues have converged (round-off then bounds the change). The
// eigenvalues converge twice as fast as the vectors, so tol alone leaves
// the vectors at about √tol.
func subspaceIterate(sk *skyline, K, M *csr, s int, R []float64, r int, mu, tol, vtol float64) ([]float64, []float64, error) {
	n := K.n
	if s+r > n {
		return nil, nil, fmt.Errorf("%d modes asked, the model has %d elastic ones", s, n-r)
	}
	p := min(max(2*s, s+8), n-r)
	// start: unit loads spread over the dofs with the largest M/K ratio
	// (Bathe), made deterministic
	X := make([][]float64, p)
	md, kd := M.diag(), K.diag()
	for j := range X {
		X[j] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		X[0][i] = md[i]
		// a fixed pseudo-random pattern per column (no global state)
		h := uint64(i)*0x9E3779B97F4A7C15 + 1
		for j := 1; j < p; j++ {
			h ^= h >> 33
			h *= 0xff51afd7ed558ccd
			h ^= h >> 29
			ratio := md[i] / math.Max(kd[i], 1e-300)
			X[j][i] = (float64(h%2001)/1000 - 1) * math.Sqrt(math.Max(ratio, 0)+1e-300)
		}
	}
	var buf []float64 // solveCols' scratch
	mx := make([][]float64, p)
	my := make([][]float64, p) // M Y
	for j := range mx {
		mx[j], my[j] = make([]float64, n), make([]float64, n)
	}
	var rc [][]float64
	var mrc [][]float64
	for c := 0; c < r; c++ {
		v := make([]float64, n)
		for i := 0; i < n; i++ {
			v[i] = R[i*r+c]
		}
		mv := make([]float64, n)
		M.mul(v, mv)
		rc, mrc = append(rc, v), append(mrc, mv)
	}
	deflate := func(x []float64) {
		for c := range rc {
			d := dotv(x, mrc[c])
			for i := range x {
				x[i] -= d * rc[c][i]
			}
		}
	}
	var prev []float64
	var vals []float64
	refactors := 0
	var kept, store [][]float64 // the previous iterate's lowest vectors (vtol > 0)
	vprev := math.Inf(1)
	y, mvy := make([]float64, n), make([]float64, n)
	for it := 0; it < 400; it++ {
		// Y = (K + μM)⁻¹ M X
		for j := 0; j < p; j++ {
			deflate(X[j])
			M.mul(X[j], mx[j])
			copy(X[j], mx[j])
		}
		buf = sk.solveCols(X, buf)
		for j := 0; j < p; j++ {
			deflate(X[j])
		}
		// Rayleigh–Ritz: with (K + μM) Y = M X (mx), Yᵀ K Y = Yᵀ M X − μ
		// Yᵀ M Y (Bathe), free of the cancellation in K Y of smooth
		// vectors that would leave the eigenvalues of a fine mesh at a
		// relative round-off of ε λ_max/λ
		kr, mr := make([]float64, p*p), make([]float64, p*p)
		for j := 0; j < p; j++ {
			M.mul(X[j], my[j])
		}
		for a := 0; a < p; a++ {
			for b := a; b < p; b++ {
				mr[a*p+b] = dotv(X[a], my[b])
				mr[b*p+a] = mr[a*p+b]
				kr[a*p+b] = 0.5*(dotv(X[a], mx[b])+dotv(X[b], mx[a])) - mu*mr[a*p+b]
				kr[b*p+a] = kr[a*p+b]
			}
		}
		// scale to the diagonal of mr (its columns differ by orders)
		sc := make([]float64, p)
		for a := 0; a < p; a++ {
			sc[a] = 1 / math.Sqrt(math.Max(mr[a*p+a], 1e-300))
		}
		for a := 0; a < p; a++ {
			for b := 0; b < p; b++ {
				kr[a*p+b] *= sc[a] * sc[b]
				mr[a*p+b] *= sc[a] * sc[b]
			}
		}
		lam, Z, err := genEigen(mr, kr, p)
		if err != nil {
			return nil, nil, fmt.Errorf("subspace iteration: %v", err)
		}
		nx := make([][]float64, p)
		for j := 0; j < p; j++ {
			nx[j] = make([]float64, n)
			for a := 0; a < p; a++ {
				if z := Z[a*p+j] * sc[a]; z != 0 {
					xa := X[a]
					for i := range nx[j] {
						nx[j][i] += z * xa[i]
					}
				}
			}
		}
		X = nx
		vals = lam
		if mu > 0 && lam[0] < 10*mu && refactors < 3 {
			// the shift (chosen blind) is not far below the lowest
			// eigenvalue: convergence would crawl at (λ + μ)/(λ_p + μ);
			// shift to 1 % of the lowest estimate and go on
			mu = 1e-2 * math.Max(lam[0], 1e-300)
			if sk, err = factorSkyline(K, M, mu); err != nil {
				return nil, nil, err
			}
			refactors++
			prev = nil
			continue
		}
		// the change of the lowest vectors' span since the last iterate
		vchange := 0.0
		if vtol > 0 {
			q := s
			for q < p-1 && lam[q] <= lam[s-1]+1e-6*math.Abs(lam[s-1]) {
				q++
			}
			if len(kept) == q {
				for k := 0; k < q; k++ {
					M.mul(X[k], my[k]) // my is free until the next Rayleigh–Ritz
				}
				for _, old := range kept {
					copy(y, old)
					for k := 0; k < q; k++ {
						c := dotv(my[k], old)
						for i := range y {
							y[i] -= c * X[k][i]
						}
					}
					M.mul(y, mvy)
					vchange = math.Max(vchange, math.Sqrt(math.Max(dotv(y, mvy), 0)))
				}
			} else {
				vchange = math.Inf(1)
			}
			for len(store) < q {
				store = append(store, make([]float64, n))
			}
			kept = store[:q]
			for k := range kept {
				copy(kept[k], X[k])
			}
		}
		if prev != nil {
			conv := true
			for j := 0; j < s; j++ {
				if math.Abs(lam[j]-prev[j]) > tol*math.Max(math.Abs(lam[j]), 1e-300) {
					conv = false
					break
				}
			}
			if vtol > 0 {
				// the span settled, or the eigenvalues converged and the
				// span's change stopped falling (round-off)
				stalled := conv && !math.IsInf(vchange, 1) && (vchange >= vprev || it == 399)
				conv = vchange <= vtol || stalled
			}
			vprev = vchange
			if conv {
				// the eigenvalues as the vectors' Rayleigh quotients with
				// compensated products: the Ritz values above come from
				// the solves, whose round-off (ε λ_max) costs the lowest
				// eigenvalue of a fine mesh digits that the converged
				// vectors keep (their error enters squared)
				out := make([]float64, s)
				kq, mq := make([]float64, n), make([]float64, n)
				for j := 0; j < s; j++ {
					K.mulAcc(X[j], kq)
					M.mul(X[j], mq)
					out[j] = dotv(X[j], kq) / dotv(X[j], mq)
				}
				ord := make([]int, s)
				for j := range ord {
					ord[j] = j
				}
				sort.SliceStable(ord, func(a, b int) bool { return out[ord[a]] < out[ord[b]] })
				V := make([]float64, n*s)
				for c, j := range ord {
					vals[c] = out[j]
					for i := 0; i < n; i++ {
						V[i*s+c] = X[j][i]
					}
				}
				return vals[:s], V, nil
			}
		}
		prev = lam
	}
	return nil, nil, fmt.Errorf("subspace iteration did not converge in 400 iterations (eigenvalues %g …)", vals[0])
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// craigBamptonSparse is craigBamptonBasis for sparse (M, K): the basis
// (n × (nb+s), row-major, the boundary coordinates bnd first, each unit on
// its coordinate with its static constraint mode Ψ = −K_ii⁻¹ K_ib in the
// interior, then the s lowest fixed-interface normal modes of (K_ii, M_ii),
// M_ii-orthonormal) and the fixed-interface eigenvalues. K_ii is factored
// once (skyline Cholesky) for the nb constraint modes and the subspace
// iteration; nothing of size n × n is formed. A K_ii that is not positive
// definite fails with a *pivotError whose unknown is a coordinate of
// (M, K).
func craigBamptonSparse(M, K *csr, bnd []int, s int) ([]float64, []float64, error) {
	n, nb := K.n, len(bnd)
	loc := make([]int, n) // coordinate → interior index, -1 on the boundary
	for _, b := range bnd {
		loc[b] = -1
	}
	var in []int
	for i := range loc {
		if loc[i] == 0 {
			loc[i] = len(in)
			in = append(in, i)
		}
	}
	ni := len(in)
	if s > ni {
		return nil, nil, fmt.Errorf("%d fixed-interface modes asked, the interior has %d coordinates", s, ni)
	}
	Kii, Mii := K.sub(loc, ni), M.sub(loc, ni)
	sk, err := factorSkyline(Kii, Mii, 0)
	if err != nil {
		if pe, ok := err.(*pivotError); ok {
			pe.at = in[pe.at]
		}
		return nil, nil, err
	}
	w := nb + s
	V := make([]float64, n*w)
	// the constraint modes, in blocks of up to 32 right-hand sides
	for a0 := 0; a0 < nb; a0 += 32 {
		X := make([][]float64, min(32, nb-a0))
		for j := range X {
			b := bnd[a0+j]
			X[j] = make([]float64, ni)
			// K is symmetric: column b of K_ib is row b of K_bi
			for k := K.ptr[b]; k < K.ptr[b+1]; k++ {
				if li := loc[K.col[k]]; li >= 0 {
					X[j][li] -= K.val[k]
				}
			}
		}
		sk.solveCols(X, nil)
		for j, x := range X {
			a := a0 + j
			V[bnd[a]*w+a] = 1
			for li, i := range in {
				V[i*w+a] = x[li]
			}
		}
	}
	vals, Phi, err := subspaceIterate(sk, Kii, Mii, s, nil, 0, 0, 1e-8, 1e-11)
	if err != nil {
		return nil, nil, err
	}
	for li, i := range in {
		copy(V[i*w+nb:i*w+w], Phi[li*s:li*s+s])
	}
	return V, vals, nil
}
