package solver

import (
	"math"
	"slices"
)

// Numerical dependence of constraint rows, in time and memory linear in
// the model's size.
//
// The rows of Φq C (C = diag(cs), every column of Φq scaled to unit norm,
// so the test is free of the coordinates' units and of the masses) are
// taken in the order they are declared in, or for a large model declared
// out of order in the band order of the model's linear solver (gramPlan). Their Gram matrix G = Φq C² Φqᵀ is then banded: two
// rows interact only when they share a coordinate. Its LDLᵀ factorisation
// in that order, without pivoting, is Gram–Schmidt on the rows: d_p / G_pp
// is the squared part of row p independent of the rows before it, relative
// to its norm. A row whose part is at most tol is dependent on the rows
// before it: it is left out (its row and column take no part in the rest
// of the factorisation), so the rows kept are independent and span what
// all the rows span. Fill stays in the band, so the cost is
// O(nc·b·(b + row width)) and the memory nc·(b + 1) for a half bandwidth
// b (3 for a planar chain, 5 for a spatial one), where a dense
// factorisation, pivoted Cholesky or an SVD takes O(nc³) and nc² memory.
//
// Because the factorisation works on the Gram matrix, relative parts down
// to about 1e-7 are resolved (√ε): the tolerances used are singTol (2e-3)
// near singular positions and redTol (1e-6) for redundant constraints and
// the count of degrees of freedom.

// redTol is the relative independent part below which a constraint row
// counts as redundant at the initial configuration and in the count of
// degrees of freedom.
const redTol = 1e-6

// gramPlan sets the order of the constraint rows for dependentRows
// (m.gord) and the half bandwidth of their Gram matrix in that
// order (m.gband). The order is the one the rows are declared in, so that
// of the rows of a dependent set the one declared last is left out, as
// RecurDyn and Adams do and as a user expects of a joint given twice;
// unless the declaration order has a band wider than 32 and twice that of
// the band order of the linear solver's plan (perm; each row at the first
// of its coordinates in it, rows on the same coordinates as declared), as
// in a large model declared out of order: then the band order.
func (m *Model) gramPlan(perm []int) {
	nc, nv := m.nc, m.nv
	decl := make([]int, nc)
	for r := range decl {
		decl[r] = r
	}
	m.gord, m.gband = decl, m.gramBand(decl)
	if perm == nil || m.gband <= 32 {
		return
	}
	key := make([]int, nc)
	for _, ce := range m.cons {
		k := nv + nc
		for _, i := range ce.d {
			if i >= 0 {
				k = min(k, perm[i])
			}
		}
		for r := ce.r0; r < ce.r0+ce.nr; r++ {
			key[r] = k
		}
	}
	ord := slices.Clone(decl)
	slices.SortStableFunc(ord, func(a, b int) int { return key[a] - key[b] })
	if b := m.gramBand(ord); 2*b < m.gband {
		m.gord, m.gband = ord, b
	}
}

// gramBand returns the half bandwidth of the rows' Gram matrix with the
// rows in the order ord (ord[p] is the row at position p): two rows are
// coupled when they share a coordinate.
func (m *Model) gramBand(ord []int) int {
	nc, nv := m.nc, m.nv
	pos := make([]int, nc)
	for p, r := range ord {
		pos[r] = p
	}
	lo, hi := make([]int, nv), make([]int, nv)
	for i := range lo {
		lo[i], hi[i] = nc, -1
	}
	for _, ce := range m.cons {
		for r := ce.r0; r < ce.r0+ce.nr; r++ {
			for _, i := range ce.d {
				if i >= 0 {
					lo[i], hi[i] = min(lo[i], pos[r]), max(hi[i], pos[r])
				}
			}
		}
	}
	b := 0
	for i := range lo {
		if hi[i] >= 0 {
			b = max(b, hi[i]-lo[i])
		}
	}
	return b
}

// dependentRows finds the constraint rows that are numerically dependent
// on the others at the current configuration (s.jac as evaluated by
// evalCons): those whose part independent of the rows before them in the
// order of gramPlan, relative to their norm, is at most tol (see the comment at
// the top). They are put in *drop in ascending order. Rows already
// redundant (Init) and empty rows are skipped. s.sw.rel2 gets the smallest
// squared relative independent part met. It does not allocate.
func (m *Model) dependentRows(s *State, tol float64, drop *[]int) int {
	w := s.sw
	nc, b := m.nc, m.gband
	ld := b + 1
	*drop = (*drop)[:0]
	cs := w.cs
	clear(cs)
	for r := 0; r < nc; r++ {
		jr, dr := m.row(s.jac, r)
		for k, i := range dr {
			if i >= 0 {
				w.x[i] += jr[k]
			}
		}
		for _, i := range dr {
			if i >= 0 {
				cs[i] += w.x[i] * w.x[i]
				w.x[i] = 0
			}
		}
	}
	for i, c := range cs {
		cs[i] = 1
		if c > 0 {
			cs[i] = 1 / math.Sqrt(c)
		}
	}
	// L (unit lower triangular, band) and D by rows: the entry (p, k),
	// p−b ≤ k ≤ p, is at p·ld + k − p + b; the diagonal holds d_p
	L, d := w.gram, w.g0
	tol2 := tol * tol
	w.rel2 = 1
	for p := 0; p < nc; p++ {
		r := m.gord[p]
		Lp := L[p*ld : (p+1)*ld]
		clear(Lp)
		w.done[p] = true // left out: takes no part
		d[p] = 0
		if s.red[r] {
			continue
		}
		jr, dr := m.row(s.jac, r)
		for k, i := range dr {
			if i >= 0 {
				w.x[i] += jr[k] * cs[i]
			}
		}
		k0 := max(0, p-b)
		for k := k0; k <= p; k++ {
			if k < p && w.done[k] {
				continue
			}
			jq, dq := m.row(s.jac, m.gord[k])
			sum := 0.0
			for e, i := range dq {
				if i >= 0 {
					sum += w.x[i] * jq[e] * cs[i]
				}
			}
			Lp[k-p+b] = sum
		}
		for _, i := range dr {
			if i >= 0 {
				w.x[i] = 0
			}
		}
		gpp := Lp[b]
		if !(gpp > 0) {
			continue // an empty row constrains nothing
		}
		// Lp holds G(p, k0…p): turn it into L(p, k) = (G(p,k) − Σ_j L(p,j) D_j L(k,j)) / D_k
		for k := k0; k < p; k++ {
			if w.done[k] {
				continue
			}
			Lk := L[k*ld : (k+1)*ld]
			sum := Lp[k-p+b]
			for j := max(k0, k-b); j < k; j++ {
				if !w.done[j] {
					sum -= Lp[j-p+b] * d[j] * Lk[j-k+b]
				}
			}
			Lp[k-p+b] = sum / d[k]
		}
		dp := gpp
		for k := k0; k < p; k++ {
			if !w.done[k] {
				dp -= Lp[k-p+b] * Lp[k-p+b] * d[k]
			}
		}
		rel := dp / gpp
		w.rel2 = min(w.rel2, rel)
		if rel <= tol2 {
			*drop = append(*drop, r)
			continue
		}
		d[p] = dp
		w.done[p] = false
	}
	slices.Sort(*drop)
	return len(*drop)
}
