package solver

import (
	"math"
	"sort"

	"mbfmu/linalg"
	"mbfmu/solver/mech"
)

// This file holds seed 004's adaptive modal selection (reduction="adaptive"
// on ANCF beams; solver/flex/modalselect.go builds the basis). The Newton
// iteration of an implicit step solves, instead of the full system
// J dx = −r, a reduced one on a support of modes chosen at each step:
//
//   - each reduced beam's coordinates are e = T p, T the Craig–Bampton
//     transformation of its linear part (mass and the constant bending
//     stiffness; the nonlinear axial force stays in the residual, as the
//     seed moves it to the right-hand side): boundary coordinates e_b
//     kept, the interior ones e_a = Φc e_b + Φn ξ with all the
//     fixed-interface normal modes Φn, of which only a support S has
//     nonzero ξ (full modal coordinates, sparse);
//   - at a step's start the predictor's ξ = Φnᵀ M_aa (e_a − Φc e_b) are
//     cut to the `sparsity` largest (the seed's operator P_A): the other
//     modes' components of the positions, velocities and accelerations are
//     set to zero;
//   - after the first iteration the `grow` modes of greatest descent for
//     its residual on the Latin-hypercube sampled interior equations,
//     max |a_lᵀ ρ|/‖a_l‖ with a_l the mode's column of J restricted to
//     those rows (the seed's greedy Gauss–Newton criterion), join the
//     support for the rest of the step;
//   - the increments of the other coordinates, the boundary coordinates,
//     the support's ξ and the multipliers solve the Galerkin projection
//     T_Sᵀ J T_S Δc = −T_Sᵀ r, not the seed's
//     collocation on the sampled equations alone: that one (least squares
//     on the sampled rows, or the square system the greedy additions
//     lead to) left the unsampled rows free and diverged on the seed's own
//     pendulum within 20 ms (docs/model-format.md).
//
// The support is a function of the state (the largest ξ of the
// predictor), so saved states replay exactly. The Jacobian is assembled
// afresh at each iteration (the reduced solution depends on it); its full
// factorization is still made (projections and restarts use it).

// adaptive is a model's adaptive modal selection data.
type adaptive struct {
	blocks []*adBlock
	// col is, per unknown of the Newton system (nv velocity coordinates
	// and nc multipliers), its column among the fixed columns, or −1 for
	// a reduced beam's interior coordinate
	col []int32
	// blk and loc name, per interior coordinate, its block and its index
	// among the block's interior coordinates (−1 elsewhere)
	blk, loc []int32
	nfix     int          // fixed columns
	maxCols  int          // columns at most (fixed + supports + their growth)
	plan     *linalg.Plan // dense, maxCols
}

// adBlock is one reduced beam.
type adBlock struct {
	ab     *mech.AdaptiveBasis
	na, nb int
	coord  []int // model velocity coordinate of each interior index
	bcol   []int // fixed column of each boundary coordinate
	qof    []int // position of each interior coordinate
	qofb   []int // and of each boundary coordinate
	vofb   []int // velocity index of each boundary coordinate
	maxSup int   // sparsity + grow
	grow   int   // modes the greedy step adds at a step's second iteration
}

// compileAdaptive collects the reduced beams (after the plan: nv, nc known).
func (c *compiler) compileAdaptive() {
	m := c.m
	var blocks []*adBlock
	for _, f := range m.forces {
		am, ok := f.(mech.AdaptiveModal)
		if !ok || am.AdaptiveBasis() == nil {
			continue
		}
		ab := am.AdaptiveBasis()
		b := &adBlock{ab: ab, na: len(ab.Inner), nb: len(ab.Bound)}
		b.grow = min(max(ab.Sparsity/4, 1), b.na-ab.Sparsity)
		b.maxSup = ab.Sparsity + b.grow
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		return
	}
	if m.settings.Adaptive {
		c.errf(blocks[0].ab.Pos, "reduction", "reduction=\"adaptive\" of beam %q does not combine with adaptive=\"true\" steps: the modes it drops at each step's start look like a local error to the step-size control, which then shrinks the steps without end; give a fixed step", blocks[0].ab.Name)
		return
	}
	if m.contacts != nil {
		c.errf(blocks[0].ab.Pos, "reduction", "reduction=\"adaptive\" of beam %q does not combine with contacts or exact Coulomb friction (their stick rows are solved with the full system)", blocks[0].ab.Name)
		return
	}
	n := m.nv + m.nc
	ad := &adaptive{blocks: blocks, col: make([]int32, n), blk: make([]int32, n), loc: make([]int32, n)}
	for i := range ad.blk {
		ad.blk[i], ad.loc[i] = -1, -1
	}
	for k, b := range blocks {
		for a, li := range b.ab.Inner {
			j := b.ab.Coords[li]
			ad.blk[j], ad.loc[j] = int32(k), int32(a)
			b.coord = append(b.coord, j)
			b.qof = append(b.qof, m.qOf[j])
		}
		for _, li := range b.ab.Bound {
			b.qofb = append(b.qofb, m.qOf[b.ab.Coords[li]])
			b.vofb = append(b.vofb, b.ab.Coords[li])
		}
	}
	for j := 0; j < n; j++ {
		if ad.blk[j] >= 0 {
			ad.col[j] = -1
			continue
		}
		ad.col[j] = int32(ad.nfix)
		ad.nfix++
	}
	for _, b := range blocks {
		for _, li := range b.ab.Bound {
			b.bcol = append(b.bcol, int(ad.col[b.ab.Coords[li]]))
		}
	}
	ad.maxCols = ad.nfix
	for _, b := range blocks {
		ad.maxCols += b.maxSup
	}
	ad.plan, _ = linalg.NewPlanKind(linalg.NewPattern(ad.maxCols), linalg.KindDense)
	m.adapt = ad
}

// adWork is a State's work space of the adaptive modal selection.
type adWork struct {
	a      []float64       // the reduced system, maxCols² (row-major, ncol a row)
	rhs    []float64       // its right-hand side
	mn     *linalg.MinNorm // its least-norm solve, should the LU find it singular
	lu     *linalg.Solver  // its dense LU
	x      []float64       // maxCols
	f4     []float64       // a row of Φn over the support
	sup    [][]int         // per block: the support (mode indices)
	in     [][]bool        // per block: membership
	xi     [][]float64     // per block: ξ of the predictor
	g      [][]float64     // per block: Σ_i J(i,a) ρ_i over the sampled rows
	cn     [][]float64     // per block: ‖(J Φn)_Ω l‖ of each mode's column
	c0     []int           // per block: its first column
	tmp    []float64       // na
	eta    []float64       // na: modal velocities
	key    []float64       // na: the modes' ranking at a cut
	ord    []int           // na
	idx    []int           // a row's entries
	val    []float64
	dc     []float64 // the solution
	B      []float64 // J T_S, every row
	rb     []float64 // −r, every row
	have   bool      // g and cn hold the first iteration's
	sorter byAbs
	// statistics (not serialised)
	solves, added int64
}

// newAdWork allocates the work space (nil without reduced beams).
func (m *Model) newAdWork() *adWork {
	ad := m.adapt
	if ad == nil {
		return nil
	}
	n := m.nv + m.nc
	w := &adWork{
		a: make([]float64, ad.maxCols*ad.maxCols), rhs: make([]float64, ad.maxCols), mn: linalg.NewMinNorm(ad.maxCols),
		idx: make([]int, n), val: make([]float64, n),
		dc: make([]float64, ad.maxCols), B: make([]float64, n*ad.maxCols), rb: make([]float64, n),
		c0: make([]int, len(ad.blocks)),
		lu: ad.plan.NewSolver(), x: make([]float64, ad.maxCols), f4: make([]float64, ad.maxCols),
	}
	na := 0
	for _, b := range ad.blocks {
		w.sup = append(w.sup, make([]int, 0, b.maxSup))
		w.in = append(w.in, make([]bool, b.na))
		w.xi = append(w.xi, make([]float64, b.na))
		w.g = append(w.g, make([]float64, b.na))
		w.cn = append(w.cn, make([]float64, b.na))
		na = max(na, b.na)
	}
	w.tmp, w.ord = make([]float64, na), make([]int, na)
	w.eta, w.key = make([]float64, na), make([]float64, na)
	return w
}

// adaptSolve replaces the Newton solve s.lin.Solve(dx) (dx = −r on entry,
// the increment on return) by the Galerkin solve on the reduced beams'
// supports (adCut set them at the step's start). it is the iteration
// within the step (0: rank the other modes for the support's growth at
// iteration 1);
// fresh: the Jacobian was assembled in this iteration.
func (m *Model) adaptSolve(s *State, dx []float64, it int, fresh bool) {
	ad, w := m.adapt, s.aw
	w.solves++
	if it == 1 && w.have {
		for k, b := range ad.blocks {
			m.adGrowSupport(k, b, w)
		}
	}
	// the columns: fixed, then each block's support
	ncol := ad.nfix
	for k := range ad.blocks {
		w.c0[k] = ncol
		ncol += len(w.sup[k])
	}
	// B = J T_S and rb = −r, every row
	n := m.nv + m.nc
	B := w.B[:n*ncol]
	clear(B)
	for i := 0; i < n; i++ {
		ne := s.lin.RowEntries(i, w.idx, w.val)
		row := B[i*ncol : (i+1)*ncol]
		r := dx[i]
		for e := 0; e < ne; e++ {
			j, v := w.idx[e], w.val[e]
			if c := ad.col[j]; c >= 0 {
				row[c] += v
				continue
			}
			k, a := ad.blk[j], int(ad.loc[j])
			b := ad.blocks[k]
			pc := b.ab.Phic[a*b.nb : (a+1)*b.nb]
			for bi, bc := range b.bcol {
				row[bc] += v * pc[bi]
			}
			pn := b.ab.Phin[a*b.na : (a+1)*b.na]
			c0 := w.c0[k]
			for p, l := range w.sup[k] {
				row[c0+p] += v * pn[l]
			}
		}
		w.rb[i] = r
	}
	// A = T_Sᵀ B, rhs = T_Sᵀ rb
	A, rhs := w.a[:ncol*ncol], w.rhs[:ncol]
	clear(A)
	clear(rhs)
	for i := 0; i < n; i++ {
		c := ad.col[i]
		if c < 0 {
			continue
		}
		copy(A[int(c)*ncol:int(c+1)*ncol], B[i*ncol:(i+1)*ncol])
		rhs[c] = w.rb[i]
	}
	// the interior rows of block k have entries only in its boundary
	// columns and its support's
	for k, b := range ad.blocks {
		c0, sup := w.c0[k], w.sup[k]
		ns := len(sup)
		f4 := w.f4[:ns]
		for a := 0; a < b.na; a++ {
			i := b.coord[a]
			bi, ri := B[i*ncol:(i+1)*ncol], w.rb[i]
			bs := bi[c0 : c0+ns]
			pc := b.ab.Phic[a*b.nb : (a+1)*b.nb]
			for q, bc := range b.bcol {
				if f := pc[q]; f != 0 {
					ar := A[bc*ncol : (bc+1)*ncol]
					axpy(ar[c0:c0+ns], f, bs)
					for _, bc2 := range b.bcol {
						ar[bc2] += f * bi[bc2]
					}
					rhs[bc] += f * ri
				}
			}
			pn := b.ab.Phin[a*b.na : (a+1)*b.na]
			for p, l := range sup {
				f4[p] = pn[l]
			}
			p := 0
			for ; p+4 <= ns; p += 4 {
				r := c0 + p
				axpy4(A[r*ncol+c0:r*ncol+c0+ns], A[(r+1)*ncol+c0:(r+1)*ncol+c0+ns],
					A[(r+2)*ncol+c0:(r+2)*ncol+c0+ns], A[(r+3)*ncol+c0:(r+3)*ncol+c0+ns],
					f4[p], f4[p+1], f4[p+2], f4[p+3], bs)
			}
			for ; p < ns; p++ {
				r := c0 + p
				axpy(A[r*ncol+c0:r*ncol+c0+ns], f4[p], bs)
			}
			for p, f := range f4 {
				ar := A[(c0+p)*ncol : (c0+p+1)*ncol]
				for _, bc := range b.bcol {
					ar[bc] += f * bi[bc]
				}
				rhs[c0+p] += f * ri
			}
		}
	}
	dc := w.dc[:ncol]
	m.adLinSolve(w, A, rhs, ncol, dc)
	// dx = T_S Δc
	for j := 0; j < n; j++ {
		if c := ad.col[j]; c >= 0 {
			dx[j] = dc[c]
		}
	}
	for k, b := range ad.blocks {
		c0 := w.c0[k]
		for a := 0; a < b.na; a++ {
			d := 0.0
			pc := b.ab.Phic[a*b.nb : (a+1)*b.nb]
			for bi, bc := range b.bcol {
				d += pc[bi] * dc[bc]
			}
			pn := b.ab.Phin[a*b.na : (a+1)*b.na]
			for p, l := range w.sup[k] {
				d += pn[l] * dc[c0+p]
			}
			dx[b.coord[a]] = d
		}
	}
	if it == 0 {
		m.adResidual(s, B, ncol, dc)
	}
}

// adLinSolve solves the square reduced system A dc = rhs by the dense LU
// with partial pivoting (the rows beyond ncol of its fixed size the
// identity), or, should the LU find it singular, in the least-squares
// sense with the least norm (linalg.MinNorm).
func (m *Model) adLinSolve(w *adWork, A, rhs []float64, ncol int, dc []float64) {
	lu := w.lu
	lu.Zero()
	for i := 0; i < ncol; i++ {
		for j, v := range A[i*ncol : (i+1)*ncol] {
			if v != 0 {
				lu.Set(i, j, v)
			}
		}
	}
	x := w.x
	clear(x)
	for i := ncol; i < len(x); i++ {
		lu.Set(i, i, 1)
	}
	if lu.Factor() == nil {
		copy(x, rhs[:ncol])
		lu.Solve(x)
		copy(dc, x[:ncol])
		return
	}
	copy(dc, rhs[:ncol])
	w.mn.Solve(A, ncol, dc)
}

// axpy4 adds f0·x to y0, f1·x to y1, f2·x to y2 and f3·x to y3 (one
// load of x for four rows of the projected matrix).
func axpy4(y0, y1, y2, y3 []float64, f0, f1, f2, f3 float64, x []float64) {
	n := len(x)
	y0, y1, y2, y3 = y0[:n], y1[:n], y2[:n], y3[:n]
	for i, v := range x {
		y0[i] += f0 * v
		y1[i] += f1 * v
		y2[i] += f2 * v
		y3[i] += f3 * v
	}
}

// axpy adds f·x to y.
func axpy(y []float64, f float64, x []float64) {
	x = x[:len(y)]
	for i, v := range x {
		y[i] += f * v
	}
}

// adCut starts a step (after the predictor): per block it computes the
// predictor's ξ = Proj (e_a − Φc e_b), keeps the `sparsity` largest as the
// step's support (the seed's P_A) and projects the positions, velocities
// and accelerations onto it: the other modes' components are set to zero,
// so every step starts from a sparse, consistent state.
func (m *Model) adCut(s *State) {
	w := s.aw
	for k, b := range m.adapt.blocks {
		na := b.na
		xi, eta, key := w.xi[k], w.eta[:na], w.key[:na]
		m.adModal(b, s.q, b.qof, b.qofb, xi, w.tmp)
		m.adModal(b, s.v, b.coord, b.vofb, eta, w.tmp)
		for l := range key {
			om := b.ab.Omega[l]
			key[l] = math.Sqrt(eta[l]*eta[l] + om*om*xi[l]*xi[l])
		}
		ord := w.ord[:na]
		for i := range ord {
			ord[i] = i
		}
		w.sorter = byAbs{ord: ord, xi: key}
		sort.Sort(&w.sorter)
		in := w.in[k]
		clear(in)
		sup := w.sup[k][:0]
		for _, l := range ord[:b.ab.Sparsity] {
			in[l] = true
			sup = append(sup, l)
		}
		sort.Ints(sup)
		w.sup[k] = sup
		m.adDrop(b, in, s.q, b.qof, xi)
		m.adDrop(b, in, s.v, b.coord, eta)
		for _, x := range [2][]float64{s.a, s.aa} {
			m.adModal(b, x, b.coord, b.vofb, xi, w.tmp)
			m.adDrop(b, in, x, b.coord, xi)
		}
	}
	w.have = false
}

// adModal writes into xi the modal coordinates Proj (x_a − Φc x_b) of
// block b's part of x (inner, bound: its interior and boundary indices
// into x; scratch: n_a long).
func (m *Model) adModal(b *adBlock, x []float64, inner, bound []int, xi, scratch []float64) {
	na, nb := b.na, b.nb
	d := scratch[:na]
	for a := 0; a < na; a++ {
		v := x[inner[a]]
		pc := b.ab.Phic[a*nb : (a+1)*nb]
		for bi, i := range bound {
			v -= pc[bi] * x[i]
		}
		d[a] = v
	}
	for l := 0; l < na; l++ {
		pr := b.ab.Proj[l*na : (l+1)*na]
		v := 0.0
		for a, y := range d {
			v += pr[a] * y
		}
		xi[l] = v
	}
}

// adDrop removes from x the modes outside the support (in), of
// coordinates xi.
func (m *Model) adDrop(b *adBlock, in []bool, x []float64, inner []int, xi []float64) {
	na := b.na
	for l := 0; l < na; l++ {
		if in[l] || xi[l] == 0 {
			continue
		}
		f := xi[l]
		for a := 0; a < na; a++ {
			x[inner[a]] -= b.ab.Phin[a*na+l] * f
		}
	}
}

// adGrowSupport adds to block k's support the `grow` modes of greatest
// descent for the first iteration's residual on the sampled equations,
// max |a_lᵀ ρ|/‖a_l‖ with a_l = (J Φn)_Ω l (the seed's greedy criterion,
// in its orthogonal-matching-pursuit form; taken as a batch).
func (m *Model) adGrowSupport(k int, b *adBlock, w *adWork) {
	na := b.na
	g, cr := w.g[k], w.tmp[:na]
	ord := w.ord[:0]
	for l := 0; l < na; l++ {
		cr[l] = 0
		if w.in[k][l] || w.cn[k][l] == 0 {
			continue
		}
		c := 0.0
		for a := 0; a < na; a++ {
			c += b.ab.Phin[a*na+l] * g[a]
		}
		cr[l] = c / w.cn[k][l]
		ord = append(ord, l)
	}
	w.sorter = byAbs{ord: ord, xi: cr}
	sort.Sort(&w.sorter)
	need := min(b.grow, b.maxSup-len(w.sup[k]))
	sup := w.sup[k]
	for _, l := range ord[:min(need, len(ord))] {
		w.in[k][l] = true
		sup = append(sup, l)
		w.added++
	}
	sort.Ints(sup)
	w.sup[k] = sup
}

// adResidual ranks, after the first iteration's solve, the modes outside
// each block's support by the seed's greatest-descent criterion on its
// Latin-hypercube sampled equations: with ρ = rb − B Δc the linearized
// residual on those rows, g = J_Ωᵀ ρ over the interior coordinates (the
// modes' correlations follow as Φnᵀ g) and the norms ‖(J Φn)_Ω l‖ of the
// modes' columns.
func (m *Model) adResidual(s *State, B []float64, ncol int, dc []float64) {
	ad, w := m.adapt, s.aw
	for k, b := range ad.blocks {
		g, cn := w.g[k], w.cn[k]
		clear(g)
		clear(cn)
		for _, r := range b.ab.Rows {
			i := b.coord[r]
			rho := w.rb[i]
			bi := B[i*ncol : (i+1)*ncol]
			for c, v := range bi {
				rho -= v * dc[c]
			}
			ne := s.lin.RowEntries(i, w.idx, w.val)
			t := w.tmp[:b.na]
			clear(t)
			for e := 0; e < ne; e++ {
				j := w.idx[e]
				if ad.blk[j] != int32(k) {
					continue
				}
				a, v := int(ad.loc[j]), w.val[e]
				g[a] += v * rho
				axpy(t, v, b.ab.Phin[a*b.na:(a+1)*b.na])
			}
			for l, x := range t {
				cn[l] += x * x
			}
		}
		for l, x := range cn {
			cn[l] = math.Sqrt(x)
		}
	}
	w.have = true
}

// byAbs orders mode indices by falling |ξ|, ties by index (a fixed order).
type byAbs struct {
	ord []int
	xi  []float64
}

func (o *byAbs) Len() int      { return len(o.ord) }
func (o *byAbs) Swap(i, j int) { o.ord[i], o.ord[j] = o.ord[j], o.ord[i] }
func (o *byAbs) Less(i, j int) bool {
	ai, aj := math.Abs(o.xi[o.ord[i]]), math.Abs(o.xi[o.ord[j]])
	if ai != aj {
		return ai > aj
	}
	return o.ord[i] < o.ord[j]
}
