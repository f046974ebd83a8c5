package flex

import (
	"fmt"
	"math"

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
			return nil, fmt.Errorf("the stiffness matrix (shifted by %g M) is not positive definite: pivot %g at its unknown %d", mu, d, pl.Perm()[i])
		}
		ri[i-fi] = math.Sqrt(d)
	}
	return sk, nil
}

// solve overwrites b (original order) with (L Lᵀ)⁻¹ b; w is scratch (n).
func (sk *skyline) solve(b, w []float64) {
	n := sk.n
	for i := 0; i < n; i++ {
		w[sk.perm[i]] = b[i]
	}
	// L y = w
	for i := 0; i < n; i++ {
		fi := sk.first[i]
		ri := sk.l[sk.start[i]:sk.start[i+1]]
		s := w[i]
		for k, v := range ri[:i-fi] {
			s -= v * w[fi+k]
		}
		w[i] = s / ri[i-fi]
	}
	// Lᵀ x = y, by columns of Lᵀ (rows of L)
	for i := n - 1; i >= 0; i-- {
		fi := sk.first[i]
		ri := sk.l[sk.start[i]:sk.start[i+1]]
		w[i] /= ri[i-fi]
		x := w[i]
		for k, v := range ri[:i-fi] {
			w[fi+k] -= v * x
		}
	}
	for i := 0; i < n; i++ {
		b[i] = w[sk.perm[i]]
	}
}

// subspaceModes returns the s lowest eigenpairs of K φ = λ M φ (sparse),
// the eigenvectors M-orthonormal and M-orthogonal to the columns of R
// (n×r, M-orthonormal: a free body's rigid modes, left out), by subspace
// iteration on (K + μM)⁻¹M with Rayleigh–Ritz, to a relative change of
// the eigenvalues below tol. A free body's shift μ > 0 (K is singular) is
// moved to 1 % of the lowest eigenvalue once it is estimated. It returns the eigenvalues (ascending) and
// the vectors (n×s, row-major).
func subspaceModes(K, M *csr, s int, R []float64, r int, mu, tol float64) ([]float64, []float64, error) {
	n := K.n
	if s+r > n {
		return nil, nil, fmt.Errorf("%d modes asked, the model has %d elastic ones", s, n-r)
	}
	sk, err := factorSkyline(K, M, mu)
	if err != nil {
		return nil, nil, err
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
	w := make([]float64, n)
	mx := make([][]float64, p)
	kx := make([][]float64, p)
	for j := range mx {
		mx[j], kx[j] = make([]float64, n), make([]float64, n)
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
	for it := 0; it < 400; it++ {
		// Y = (K + μM)⁻¹ M X
		for j := 0; j < p; j++ {
			deflate(X[j])
			M.mul(X[j], mx[j])
			copy(X[j], mx[j])
			sk.solve(X[j], w)
			deflate(X[j])
		}
		// Rayleigh–Ritz
		kr, mr := make([]float64, p*p), make([]float64, p*p)
		for j := 0; j < p; j++ {
			K.mul(X[j], kx[j])
			M.mul(X[j], mx[j])
		}
		for a := 0; a < p; a++ {
			for b := a; b < p; b++ {
				kr[a*p+b] = dotv(X[a], kx[b])
				mr[a*p+b] = dotv(X[a], mx[b])
				kr[b*p+a], mr[b*p+a] = kr[a*p+b], mr[a*p+b]
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
		if prev != nil {
			conv := true
			for j := 0; j < s; j++ {
				if math.Abs(lam[j]-prev[j]) > tol*math.Max(math.Abs(lam[j]), 1e-300) {
					conv = false
					break
				}
			}
			if conv {
				V := make([]float64, n*s)
				for j := 0; j < s; j++ {
					for i := 0; i < n; i++ {
						V[i*s+j] = X[j][i]
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
