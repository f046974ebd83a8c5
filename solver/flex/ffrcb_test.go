package flex

import (
	"math"
	"strings"
	"testing"
)

// spinUpBeam is the FE model of the beam of Kane, Ryan & Banerjee's
// spin-up (L = 10 m, 10 elements, EA = 2.8e7 N, EI = 1.4e4 N·m²,
// ρA = 1.2 kg/m), clamped at its root, along the body's x axis.
func spinUpBeam() *ffrBeam {
	b := &ffrBeam{name: "beam", ne: 10, nf: 30, length: 10, le: 1, ea: 7e10 * 4e-4, ei: 7e10 * 2e-7,
		rhoA: 3000 * 4e-4, t: [2]float64{1, 0}, n: [2]float64{0, 1}, stiff: true, kind: "craig-bampton"}
	b.clampRoot()
	b.setGauss()
	return b
}

// A stiffened beam's Craig–Bampton basis (tip kept) gets the Krylov
// sequence of the tip's axial force (addAxialShapes, as for spatial
// beams): the result is M-orthonormal, still spans the Craig–Bampton basis,
// drops the axial vector the constraint modes already hold, and carries
// the foreshortening of the lowest bending shape: 2.1 % of it lost with 4
// modes, 0.08 % with 8, nothing with 12 — the plain basis loses half of it
// up to 8 modes (only the tip's constant-strain axial shape), 10 % with
// 12 (the spin-up locks: 0.21 m of tip deflection instead of 0.58 m).
// Too few modes are caught by the 5 % check: 50 % lost with 1 mode, 22 %
// with 2, 7 % with 3.
func TestFFRCraigBamptonAxialShapes(t *testing.T) {
	bnd := []int{27, 28, 29}
	prev := 1.0
	for _, c := range []struct {
		modes    int
		pass     bool
		coords   int
		maxPlain float64 // plain basis: at least this much lost
	}{{1, false, 4, 0.45}, {2, false, 6, 0.45}, {3, false, 8, 0.45}, {4, true, 10, 0.45}, {8, true, 18, 0.45}, {12, true, 24, 0.08}} {
		b := spinUpBeam()
		M, K, X, au, aw, cu, cw := b.feMatrices()
		V, err := craigBamptonBasis(M, K, b.nf, bnd, c.modes)
		if err != nil {
			t.Fatal(err)
		}
		b.v, b.ns = V, len(bnd)+c.modes
		b.setup(M, K, X, au, aw, cu, cw)
		plain := b.foreshortening()
		cb := V
		if err := b.addAxialShapes(M, K, c.modes); err != nil {
			t.Fatal(err)
		}
		b.setup(M, K, X, au, aw, cu, cw)
		lost := b.foreshortening()
		t.Logf("%2d modes: %2d coordinates, foreshortening lost %.3g (plain Craig–Bampton %.3g)", c.modes, b.ns, lost, plain)
		if b.ns != c.coords {
			t.Errorf("%d modes: %d coordinates, want %d (Craig–Bampton %d, axial vectors less the constraint mode's)", c.modes, b.ns, c.coords, len(bnd)+c.modes)
		}
		if plain < c.maxPlain {
			t.Errorf("%d modes: the plain basis loses only %.3g of the foreshortening", c.modes, plain)
		}
		if (lost <= 0.05) != c.pass || lost > prev {
			t.Errorf("%d modes: %.3g of the foreshortening lost (previous %.3g)", c.modes, lost, prev)
		}
		prev = lost
		// M-orthonormal
		ns := b.ns
		worst := 0.0
		for i := 0; i < ns; i++ {
			for j := 0; j < ns; j++ {
				d := b.mee[i*ns+j]
				if i == j {
					d--
				}
				worst = math.Max(worst, math.Abs(d))
			}
		}
		if worst > 1e-10 {
			t.Errorf("%d modes: VᵀMV − I up to %.3g", c.modes, worst)
		}
		// spans the Craig–Bampton basis: each column's M-projection on V
		// leaves nothing
		w := len(bnd) + c.modes
		for j := 0; j < w; j++ {
			col := make([]float64, b.nf)
			for i := range col {
				col[i] = cb[i*w+j]
			}
			mc := make([]float64, b.nf)
			denseOp(M, b.nf)(col, mc)
			res := append([]float64(nil), col...)
			for k := 0; k < ns; k++ {
				p := 0.0
				for i := range mc {
					p += b.v[i*ns+k] * mc[i]
				}
				for i := range res {
					res[i] -= p * b.v[i*ns+k]
				}
			}
			if r, n0 := math.Sqrt(dotv(res, res)), math.Sqrt(dotv(col, col)); r > 1e-8*n0 {
				t.Errorf("%d modes: Craig–Bampton column %d left out by %.3g (of %.3g)", c.modes, j, r, n0)
			}
		}
		if !c.pass {
			msg := b.foreshorteningError(lost)
			for _, s := range []string{"Craig–Bampton", "cannot carry", "foreshortening", "use more modes"} {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
		}
	}
}
