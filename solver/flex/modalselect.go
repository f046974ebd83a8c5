package flex

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"gonum.org/v1/gonum/mat"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// adaptiveBasis builds seed 004's reduction data of an ANCF beam (dim 2:
// the planar beam, 4 coordinates a node; dim 3: the spatial cable, 6):
// the Craig–Bampton transformation of its linear part, mass M = ρA ∫ SᵀS
// and bending stiffness K_t = EI ∫ S”ᵀS” (the axial force, nonlinear,
// stays in the equations as the seed moves it to the right-hand side),
// with the coordinates of the nodes in bound as the boundary; all the
// fixed-interface normal modes; and `samples` interior equations chosen
// by Latin-hypercube sampling (one at random in each of `samples` equal
// strata of the interior rows, a fixed seed so runs repeat).
func adaptiveBasis(b *ancfBeam, dim int, bound []int, sparsity, samples int) (*mech.AdaptiveBasis, error) {
	per := 2 * dim
	n := per * (b.ne + 1)
	M := make([]float64, n*n)
	K := make([]float64, n*n)
	for e := 0; e < b.ne; e++ {
		for k := 0; k < 4; k++ {
			for l := 0; l < 4; l++ {
				for c := 0; c < dim; c++ {
					i := per*e + dim*k + c
					j := per*e + dim*l + c
					M[i*n+j] += b.rhoA * b.k.m4[4*k+l]
					K[i*n+j] += b.ei * b.k.kb4[4*k+l]
				}
			}
		}
	}
	isB := make([]bool, n)
	for _, nd := range bound {
		for c := 0; c < per; c++ {
			isB[per*nd+c] = true
		}
	}
	ab := &mech.AdaptiveBasis{Name: b.name, Sparsity: sparsity}
	for i := 0; i < n; i++ {
		ab.Coords = append(ab.Coords, b.base+i)
		if isB[i] {
			ab.Bound = append(ab.Bound, i)
		} else {
			ab.Inner = append(ab.Inner, i)
		}
	}
	na := len(ab.Inner)
	if na == 0 {
		return nil, fmt.Errorf("every node is a boundary node: nothing to reduce")
	}
	// K_aa is regular when the boundary holds a node's position and slope
	// (a bent shape has bending energy)
	cb, err := newCraigBampton(M, K, n, ab.Bound)
	if err != nil {
		return nil, fmt.Errorf("%v: give the beam a marker (a boundary node) where it is held", err)
	}
	ab.Phic, ab.Phin = cb.phic, cb.phin
	ab.Omega = make([]float64, na)
	for i, v := range cb.vals {
		ab.Omega[i] = math.Sqrt(math.Max(v, 0))
	}
	// Proj = Φnᵀ M_aa
	ab.Proj = make([]float64, na*na)
	mat.NewDense(na, na, ab.Proj).Mul(mat.NewDense(na, na, cb.phin).T(), mat.NewDense(na, na, cb.mii))
	samples = min(samples, na)
	rng := rand.New(rand.NewSource(4))
	for k := 0; k < samples; k++ {
		lo := k * na / samples
		hi := (k + 1) * na / samples
		ab.Rows = append(ab.Rows, lo+rng.Intn(max(hi-lo, 1)))
	}
	sort.Ints(ab.Rows)
	ab.Sparsity = min(sparsity, na)
	return ab, nil
}

// compileAdaptive reads reduction="adaptive" (with sparsity and samples)
// of an ANCF beam and sets its reduction data: the boundary nodes are the
// clamped ends (ends) and the nodes of its markers (both nodes of the
// element of a marker between nodes), where joints and forces act.
func (fx *flexCompiler) compileAdaptive(bs *spec.Beam, b *ancfBeam, dim int, ends []int) {
	red := word(bs, "reduction", "none")
	if red == "none" {
		for _, f := range []string{"sparsity", "samples"} {
			if _, ok := bs.Attr[f]; ok {
				fx.b.Errorf(attr(bs, f).Pos, f, "%s of beam %q applies to reduction=\"adaptive\"", f, bs.Name)
			}
		}
		return
	}
	if red != "adaptive" {
		fx.b.Errorf(attr(bs, "reduction").Pos, "reduction", "reduction of ancf beam %q must be none or adaptive, got %q (modal, krylov and craig-bampton apply to ffr beams)", bs.Name, red)
		return
	}
	if b.exact != nil {
		fx.b.Errorf(attr(bs, "reduction").Pos, "reduction", "reduction=\"adaptive\" of beam %q needs the seed's element (curvature=\"small-strain\", axial-strain=\"green\"): its bending stiffness must be constant", bs.Name)
		return
	}
	if fx.b.Integrator() == "rk4" {
		fx.b.Errorf(attr(bs, "reduction").Pos, "reduction", "reduction=\"adaptive\" of beam %q works in the Newton iteration of an implicit integrator (bdf1 as seed 004, bdf2, genalpha, hht, newmark), not %s", bs.Name, fx.b.Integrator())
		return
	}
	nodes := map[int]bool{}
	for _, e := range ends {
		nodes[e] = true
	}
	for _, mk := range b.markers {
		if mk.node >= 0 {
			nodes[mk.node] = true
			continue
		}
		el, _ := b.locate(mk.s)
		nodes[el], nodes[el+1] = true, true
	}
	if len(nodes) == 0 {
		fx.b.Errorf(attr(bs, "reduction").Pos, "reduction", "reduction=\"adaptive\" of beam %q needs boundary nodes: give it a <marker> where it is held (or clamp an end)", bs.Name)
		return
	}
	bound := make([]int, 0, len(nodes))
	for k := range nodes {
		bound = append(bound, k)
	}
	sort.Ints(bound)
	na := 2 * dim * (b.ne + 1 - len(bound))
	sp := min(fx.count(bs, "sparsity", min(100, na)), na)
	ns := min(fx.count(bs, "samples", min(3*sp, na)), na)
	if ns < sp {
		fx.b.Errorf(attr(bs, "samples").Pos, "samples", "samples of beam %q (%d) must be at least its sparsity (%d): the sampled equations determine the kept modes", bs.Name, ns, sp)
		return
	}
	ab, err := adaptiveBasis(b, dim, bound, sp, ns)
	if err != nil {
		fx.b.Errorf(attr(bs, "reduction").Pos, "reduction", "beam %q: %v", bs.Name, err)
		return
	}
	ab.Pos = attr(bs, "reduction").Pos
	b.adaptive = ab
}
