package linalg

import (
	"fmt"
	"slices"
)

// DenseMaxN is the largest dimension for which NewPlan may choose the dense
// LU; larger systems always get the banded LU (a dense factorization costs
// O(n³)). Systems with n <= DenseAlwaysN always get the dense LU. In
// between, NewPlan compares operation-count estimates of the two kernels for
// the bandwidth found by the reordering (calibrated with BenchmarkCrossover).
const (
	DenseMaxN    = 40
	DenseAlwaysN = 8
)

// Kinds of factorization a Plan can choose.
const (
	KindDense = "dense"
	KindBand  = "band"
)

// Plan is the immutable analysis of a Pattern: the chosen kind of
// factorization, the fill-reducing (bandwidth-reducing) ordering and the
// bandwidths of the permuted matrix. It is safe to share between goroutines.
type Plan struct {
	n      int
	kind   string
	kl, ku int
	perm   []int // original index -> permuted index (nil for dense)
	iperm  []int // permuted index -> original index (nil for dense)
}

// NewPlan analyses p. Small systems get a dense LU with partial pivoting
// (always for n <= DenseAlwaysN; up to DenseMaxN when it is estimated to be
// cheaper than the banded LU). Otherwise the unknowns are reordered with
// reverse Cuthill–McKee (per connected component, each started at a
// pseudo-peripheral node; the original order is kept if its bandwidth is
// not larger) and the system gets a banded LU with partial pivoting.
func NewPlan(p *Pattern) *Plan {
	pl, _ := NewPlanKind(p, "")
	return pl
}

// NewPlanKind is NewPlan with the kind forced: kind is KindDense, KindBand,
// or "" for the automatic choice of NewPlan. It is meant for tests and
// benchmarks; note that a dense plan costs O(n³) per Factor.
func NewPlanKind(p *Pattern, kind string) (*Plan, error) {
	n := p.n
	auto := kind == ""
	switch kind {
	case "":
		kind = KindBand
		if n <= DenseAlwaysN {
			kind = KindDense
		}
	case KindDense, KindBand:
	default:
		return nil, fmt.Errorf("linalg: unknown plan kind %q (want %q, %q or \"\")", kind, KindDense, KindBand)
	}
	pl := &Plan{n: n, kind: kind}
	if kind == KindDense {
		return pl, nil
	}
	ptr, ind := p.csr()
	ident := make([]int, n)
	for i := range ident {
		ident[i] = i
	}
	bwIdent := bandwidth(ptr, ind, ident)
	perm := ident
	bw := bwIdent
	if bwIdent > 1 {
		rcm := rcmOrder(ptr, ind)
		if b := bandwidth(ptr, ind, rcm); b < bwIdent {
			perm, bw = rcm, b
		}
	}
	pl.perm = perm
	pl.iperm = make([]int, n)
	for i, k := range perm {
		pl.iperm[k] = i
	}
	pl.kl, pl.ku = bw, bw
	if auto && n <= DenseMaxN && denseCost(n) <= bandCost(n, bw, bw) {
		return &Plan{n: n, kind: KindDense}, nil
	}
	return pl, nil
}

// Cost model used to choose between the kernels for DenseAlwaysN < n <=
// DenseMaxN, in units of one multiply-subtract of the dense kernel. The
// weights were fitted (least squares on relative error) to
// BenchmarkCrossover: chain KKT, random band-8 and full systems, n = 10..40.
const (
	denseStepCost  = 100 // per-column overhead of the dense kernel
	bandFlopWeight = 2.3 // band kernel cost per multiply-subtract
	bandStepCost   = 75  // per-column overhead of the band kernel
)

func denseCost(n int) float64 {
	c := 0
	for k := 0; k < n; k++ {
		r := n - 1 - k
		c += r * (r + 1)
	}
	return float64(c) + denseStepCost*float64(n)
}

func bandCost(n, kl, ku int) float64 {
	c := 0
	for k := 0; k < n; k++ {
		r := min(kl, n-1-k)
		u := min(kl+ku, n-1-k)
		c += r * (u + 1)
	}
	return bandFlopWeight*float64(c) + bandStepCost*float64(n)
}

// FactorCost estimates the cost of one Factor in the units of the kernel
// selection (about multiply-subtracts), and SolveCost that of one Solve.
// Callers weigh refactorisation against more iterations with old factors.
func (pl *Plan) FactorCost() float64 {
	if pl.kind == KindDense {
		return denseCost(pl.n)
	}
	return bandCost(pl.n, pl.kl, pl.ku)
}

// SolveCost estimates the cost of one Solve (see FactorCost).
func (pl *Plan) SolveCost() float64 {
	if pl.kind == KindDense {
		return 2 * float64(pl.n*pl.n)
	}
	return bandFlopWeight * float64(pl.n*(2*pl.kl+pl.ku+1))
}

// Pos returns the position of original entry (i, j) in the value storage
// of every Solver made from the plan, or -1 when the plan does not store it
// (out of range, or outside the band). Assembly loops that add to the same
// entries at every step look their positions up once and use Solver.AddAt.
func (pl *Plan) Pos(i, j int) int {
	if uint(i) >= uint(pl.n) || uint(j) >= uint(pl.n) {
		return -1
	}
	if pl.kind == KindDense {
		ld := pl.n
		if pl.n <= smallN {
			ld = smallN
		}
		return i*ld + j
	}
	pi, pj := pl.perm[i], pl.perm[j]
	if uint(pj-pi+pl.kl) > uint(pl.kl+pl.ku) {
		return -1
	}
	return pi*(2*pl.kl+pl.ku) + pj + pl.kl
}

// Kind returns KindDense ("dense") or KindBand ("band").
func (pl *Plan) Kind() string { return pl.kind }

// N returns the dimension of the system.
func (pl *Plan) N() int { return pl.n }

// Bandwidth returns the number of sub- and superdiagonals of the permuted
// matrix (0, 0 for a dense plan). Since the pattern is symmetric, kl == ku.
func (pl *Plan) Bandwidth() (kl, ku int) { return pl.kl, pl.ku }

// Perm returns a copy of the ordering: Perm()[i] is the position of original
// unknown i in the permuted matrix. For a dense plan it is the identity.
func (pl *Plan) Perm() []int {
	out := make([]int, pl.n)
	for i := range out {
		if pl.perm != nil {
			out[i] = pl.perm[i]
		} else {
			out[i] = i
		}
	}
	return out
}

// bandwidth returns max |perm[i]-perm[j]| over the edges of the graph.
func bandwidth(ptr []int, ind []int32, perm []int) int {
	bw := 0
	for i := 0; i+1 < len(ptr); i++ {
		pi := perm[i]
		for _, j := range ind[ptr[i]:ptr[i+1]] {
			d := pi - perm[j]
			if d > bw {
				bw = d
			}
		}
	}
	return bw
}

// rcmOrder returns the reverse Cuthill–McKee ordering as a map from original
// index to new position. Each connected component is ordered on its own:
// a pseudo-peripheral node r is found with the George–Liu iteration, and
// Cuthill–McKee orderings are tried from r and from the nodes of least
// degree in the last level of r's level structure (the far end of the
// pseudo-diameter; the ends of a graph often differ, e.g. a clamped and a
// free end of a beam); the one with the smallest bandwidth is kept.
func rcmOrder(ptr []int, ind []int32) []int {
	n := len(ptr) - 1
	deg := func(i int) int { return ptr[i+1] - ptr[i] }
	const maxTries = 4
	order := make([]int, 0, n) // new -> old, all components
	done := make([]bool, n)    // node placed in order
	level := make([]int, n)    // scratch: BFS level, -1 = unseen
	pos := make([]int, n)      // scratch: position in a trial ordering, -1 = unseen
	for i := range level {
		level[i], pos[i] = -1, -1
	}
	queue := make([]int, 0, n)
	trial := make([]int, 0, n)
	best := make([]int, 0, n)

	// bfs fills queue with the component of r in BFS order, sets level[]
	// and returns the eccentricity of r and the start of its last level.
	bfs := func(r int) (ecc, lastStart int) {
		queue = append(queue[:0], r)
		level[r] = 0
		for h := 0; h < len(queue); h++ {
			v := queue[h]
			lv := level[v]
			if lv > ecc {
				ecc, lastStart = lv, h
			}
			for _, w := range ind[ptr[v]:ptr[v+1]] {
				if level[w] < 0 {
					level[w] = lv + 1
					queue = append(queue, int(w))
				}
			}
		}
		return ecc, lastStart
	}
	resetLevels := func() {
		for _, v := range queue {
			level[v] = -1
		}
	}
	// cm fills trial with the Cuthill–McKee ordering of r's component
	// (neighbours visited in order of increasing degree) and returns its
	// bandwidth.
	cm := func(r int) int {
		trial = append(trial[:0], r)
		pos[r] = 0
		for h := 0; h < len(trial); h++ {
			v := trial[h]
			first := len(trial)
			for _, w := range ind[ptr[v]:ptr[v+1]] {
				if pos[w] < 0 {
					pos[w] = 0 // mark; final position set below
					trial = append(trial, int(w))
				}
			}
			slices.SortStableFunc(trial[first:], func(a, b int) int { return deg(a) - deg(b) })
			for k := first; k < len(trial); k++ {
				pos[trial[k]] = k
			}
		}
		bw := 0
		for k, v := range trial {
			for _, w := range ind[ptr[v]:ptr[v+1]] {
				bw = max(bw, k-pos[w])
			}
		}
		for _, v := range trial {
			pos[v] = -1
		}
		return bw
	}

	var cands []int
	for s := 0; s < n; s++ {
		if done[s] {
			continue
		}
		// Start from a node of minimum degree in the component.
		bfs(s)
		r := s
		for _, v := range queue {
			if deg(v) < deg(r) {
				r = v
			}
		}
		resetLevels()
		// George–Liu pseudo-peripheral node search.
		ecc, last := bfs(r)
		for {
			x := queue[last]
			for _, v := range queue[last:] {
				if deg(v) < deg(x) {
					x = v
				}
			}
			resetLevels()
			e, l := bfs(x)
			if e <= ecc {
				break
			}
			r, ecc, last = x, e, l
		}
		// queue now holds the level structure of the last node tried; redo
		// r's to collect the candidates of its last level.
		resetLevels()
		_, last = bfs(r)
		cands = append(cands[:0], r)
		lastLevel := slices.Clone(queue[last:])
		slices.SortStableFunc(lastLevel, func(a, b int) int { return deg(a) - deg(b) })
		for _, v := range lastLevel {
			if len(cands) == maxTries {
				break
			}
			if v != r {
				cands = append(cands, v)
			}
		}
		resetLevels()
		bestBW := -1
		for _, c := range cands {
			if bw := cm(c); bestBW < 0 || bw < bestBW {
				bestBW = bw
				best = append(best[:0], trial...)
			}
		}
		for _, v := range best {
			done[v] = true
		}
		order = append(order, best...)
	}
	perm := make([]int, n)
	for k, v := range order {
		perm[v] = n - 1 - k
	}
	return perm
}
