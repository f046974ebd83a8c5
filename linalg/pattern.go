package linalg

import (
	"fmt"
	"slices"
)

// Pattern records the structural nonzeros of a square matrix. The structure
// is treated as symmetric: marking (i,j) also marks (j,i). The diagonal is
// always considered nonzero. A Pattern is only read by NewPlan; it may be
// discarded afterwards.
type Pattern struct {
	n   int
	adj [][]int32 // off-diagonal neighbours per row, possibly with duplicates
	cmp []int     // length of adj[i] after its last compaction
	err error     // first out-of-range index seen
}

// NewPattern returns an empty pattern for an n×n matrix. A negative n is
// treated as 0.
func NewPattern(n int) *Pattern {
	if n < 0 {
		n = 0
	}
	return &Pattern{n: n, adj: make([][]int32, n), cmp: make([]int, n)}
}

// N returns the dimension of the matrix.
func (p *Pattern) N() int { return p.n }

// Err reports the first out-of-range index passed to Add or AddBlock (such
// indices are otherwise ignored), or nil.
func (p *Pattern) Err() error { return p.err }

// Add marks (i,j) and (j,i) as structurally nonzero. Duplicates are ignored;
// out-of-range indices are ignored and recorded for Err.
func (p *Pattern) Add(i, j int) {
	if uint(i) >= uint(p.n) || uint(j) >= uint(p.n) {
		if p.err == nil {
			p.err = fmt.Errorf("linalg: pattern entry (%d,%d) out of range for n=%d", i, j, p.n)
		}
		return
	}
	if i == j {
		return
	}
	p.push(i, j)
	p.push(j, i)
}

// AddBlock marks all pairs among idx as structurally nonzero, as for a dense
// element block. Out-of-range indices are skipped and recorded for Err.
func (p *Pattern) AddBlock(idx []int) {
	for a, i := range idx {
		if uint(i) >= uint(p.n) {
			p.Add(i, i) // records the error
			continue
		}
		for _, j := range idx[a+1:] {
			p.Add(i, j)
		}
	}
}

// push appends j to row i and compacts the row (sort + unique) whenever it
// has doubled since the last compaction, keeping memory proportional to the
// true number of nonzeros.
func (p *Pattern) push(i, j int) {
	r := append(p.adj[i], int32(j))
	if len(r) > 2*p.cmp[i]+16 {
		slices.Sort(r)
		r = slices.Compact(r)
		p.cmp[i] = len(r)
	}
	p.adj[i] = r
}

// csr returns the deduplicated adjacency structure in compressed form:
// the neighbours of i are ind[ptr[i]:ptr[i+1]], sorted ascending.
func (p *Pattern) csr() (ptr []int, ind []int32) {
	ptr = make([]int, p.n+1)
	tmp := make([]int32, 0, 16)
	for i, r := range p.adj {
		tmp = append(tmp[:0], r...)
		slices.Sort(tmp)
		tmp = slices.Compact(tmp)
		ptr[i+1] = ptr[i] + len(tmp)
		ind = append(ind, tmp...)
	}
	return ptr, ind
}
