package flex

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mbfmu/solver/mech"
)

// randomFFR3 returns a spatial FFR body with random invariants of the
// symmetries the element relies on (C_k + C_kᵀ and D_kl + D_lk symmetric,
// the latter also in k, l).
func randomFFR3(rng *rand.Rand, m int) *ffr3 {
	r := func() float64 { return rng.Float64()*2 - 1 }
	sym := func() mech.Mat3 {
		var a mech.Mat3
		for i := 0; i < 3; i++ {
			for j := 0; j <= i; j++ {
				a[3*i+j] = r()
				a[3*j+i] = a[3*i+j]
			}
		}
		return a
	}
	b := &ffr3{m: m, mass: 2 + r(), s0: mech.Vec3{r(), r(), r()}, j0: sym(), g: mech.Vec3{r(), r(), -9.81}}
	b.sb, b.f0, b.cs = make([]mech.Vec3, m), make([]mech.Vec3, m), make([]mech.Mat3, m)
	b.ds, b.ek, b.mff = make([]mech.Mat3, m*m), make([]mech.Vec3, m*m), make([]float64, m*m)
	for k := 0; k < m; k++ {
		b.sb[k], b.f0[k], b.cs[k] = mech.Vec3{r(), r(), r()}, mech.Vec3{r(), r(), r()}, sym()
		for l := 0; l <= k; l++ {
			b.ds[k*m+l] = sym()
			b.ds[l*m+k] = b.ds[k*m+l]
			b.mff[k*m+l] = r()
			b.mff[l*m+k] = b.mff[k*m+l]
		}
		for l := 0; l < m; l++ {
			b.ek[k*m+l] = mech.Vec3{r(), r(), r()}
		}
	}
	return b
}

// The analytic tangent of the FFR inertia forces equals central
// differences of G (exact up to round-off: G is quadratic along each
// direction), at random states of a random body.
func TestFFR3Tangent(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	r := func() float64 { return rng.Float64()*2 - 1 }
	rv := func() mech.Vec3 { return mech.Vec3{r(), r(), r()} }
	for trial := 0; trial < 5; trial++ {
		m := 1 + trial*3
		n := 6 + m
		b := randomFFR3(rng, m)
		A := mech.QuatMat(mech.QuatExp(rv()))
		vd, ad, om, omd := rv(), rv(), rv(), rv()
		eta, etad, etadd := make([]float64, m), make([]float64, m), make([]float64, m)
		for i := 0; i < m; i++ {
			eta[i], etad[i], etadd[i] = r(), r(), r()
		}
		gen := func(A *mech.Mat3, vd, ad, gw, om mech.Vec3, eta, etad []float64, g []float64) {
			var w ffr3Terms
			w.vb, w.rb, w.gb = mech.MulMTV(A, vd), mech.MulMTV(A, ad), mech.MulMTV(A, gw)
			w.om, w.omd, w.eta, w.etad, w.etadd = om, omd, eta, etad, etadd
			b.inertia(&w, g[6:])
			ax := mech.MulMV(A, w.X)
			copy(g[0:3], ax[:])
			copy(g[3:6], w.gp[:])
		}
		k, c := make([]float64, n*n), make([]float64, n*n)
		var w ffr3Terms
		w.vb, w.rb, w.gb = mech.MulMTV(&A, vd), mech.MulMTV(&A, ad), mech.MulMTV(&A, b.g)
		w.om, w.omd, w.eta, w.etad, w.etadd = om, omd, eta, etad, etadd
		b.inertia(&w, make([]float64, m))
		b.tangent(&w, &A, k, c)
		fk, fc := make([]float64, n*n), make([]float64, n*n)
		gp, gm := make([]float64, n), make([]float64, n)
		col := func(dst []float64, j int, h float64) {
			for i := 0; i < n; i++ {
				dst[i*n+j] = (gp[i] - gm[i]) / (2 * h)
			}
		}
		const h = 1e-4
		for j := 0; j < 3; j++ { // rotation: A exp(±h e_j)
			var e mech.Vec3
			e[j] = h
			Ap := mech.QuatMat(mech.QuatExp(e))
			Am := mech.QuatMat(mech.QuatExp(mech.Scale(-1, e)))
			Ap, Am = mech.MulMM(&A, &Ap), mech.MulMM(&A, &Am)
			gen(&Ap, vd, ad, b.g, om, eta, etad, gp)
			gen(&Am, vd, ad, b.g, om, eta, etad, gm)
			col(fk, 3+j, h)
		}
		for j := 0; j < m; j++ {
			ep, em := append([]float64(nil), eta...), append([]float64(nil), eta...)
			ep[j] += h
			em[j] -= h
			gen(&A, vd, ad, b.g, om, ep, etad, gp)
			gen(&A, vd, ad, b.g, om, em, etad, gm)
			col(fk, 6+j, h)
		}
		for j := 0; j < 3; j++ {
			var e mech.Vec3
			e[j] = h
			gen(&A, mech.Add(vd, e), ad, b.g, om, eta, etad, gp)
			gen(&A, mech.Sub(vd, e), ad, b.g, om, eta, etad, gm)
			col(fc, j, h)
			gen(&A, vd, ad, b.g, mech.Add(om, e), eta, etad, gp)
			gen(&A, vd, ad, b.g, mech.Sub(om, e), eta, etad, gm)
			col(fc, 3+j, h)
		}
		for j := 0; j < m; j++ {
			ep, em := append([]float64(nil), etad...), append([]float64(nil), etad...)
			ep[j] += h
			em[j] -= h
			gen(&A, vd, ad, b.g, om, eta, ep, gp)
			gen(&A, vd, ad, b.g, om, eta, em, gm)
			col(fc, 6+j, h)
		}
		for _, mt := range []struct {
			name   string
			an, fd []float64
		}{{"K", k, fk}, {"C", c, fc}} {
			worst, big := 0.0, 0.0
			for i := range mt.an {
				worst = math.Max(worst, math.Abs(mt.an[i]-mt.fd[i]))
				big = math.Max(big, math.Abs(mt.fd[i]))
			}
			if worst > 1e-7*big {
				t.Errorf("m = %d: %s differs from central differences by %.3g (largest entry %.3g)", m, mt.name, worst, big)
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						if d := math.Abs(mt.an[i*n+j] - mt.fd[i*n+j]); d > 1e-7*big {
							t.Logf("  (%d,%d) analytic %.6g, differences %.6g", i, j, mt.an[i*n+j], mt.fd[i*n+j])
						}
					}
				}
			}
		}
	}
}

// Subspace iteration on the sparse matrices (skyline Cholesky) finds the
// eigenpairs of the dense solver: the fe-frame example's matrices, free
// (rigid modes deflated) and clamped at node 1.
func TestSubspaceModes(t *testing.T) {
	d := &feData{index: map[int]int{}, dofOf: map[[2]int]int{}}
	dir := "../../examples/fe-frame/"
	if err := d.readInpNodes(dir + "frame.inp"); err != nil {
		t.Fatal(err)
	}
	if err := d.readAbaqusMatrix(dir+"frame_MASS1.mtx", &d.M); err != nil {
		t.Fatal(err)
	}
	if err := d.readAbaqusMatrix(dir+"frame_STIF1.mtx", &d.K); err != nil {
		t.Fatal(err)
	}
	var err error
	if d.M, err = symmetrize(d.M, "M", d.dofLabel); err != nil {
		t.Fatal(err)
	}
	if d.K, err = symmetrize(d.K, "K", d.dofLabel); err != nil {
		t.Fatal(err)
	}
	n := len(d.dofs)
	for _, clampFirst := range []bool{false, true} {
		loc := make([]int, n)
		nf := 0
		for i, dk := range d.dofs {
			loc[i] = -1
			if !clampFirst || dk[0] != 0 {
				loc[i] = nf
				nf++
			}
		}
		Mf, Kf := dense(d.M, loc, nf), dense(d.K, loc, nf)
		vals, _, err := genEigen(Mf, Kf, nf)
		if err != nil {
			t.Fatal(err)
		}
		Ms, Ks := newCSR(d.M, loc, nf), newCSR(d.K, loc, nf)
		var R []float64
		r, mu := 0, 0.0
		if !clampFirst {
			rig := feRigidModes(d, mech.Vec3{}, n)
			R, r = mOrthonormal(rig, Ms.mul, nf, 6, nil, 0)
			mu = 1
		}
		got, V, err := subspaceModes(Ks, Ms, 10, R, r, mu, 1e-12)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 10; j++ {
			want := vals[r+j]
			if math.Abs(got[j]-want) > 1e-9*want {
				t.Errorf("clamped %v mode %d: λ = %.12g, dense %.12g", clampFirst, j+1, got[j], want)
			}
			// M-orthonormal eigenvectors with K φ = λ M φ
			col, kc, mc := make([]float64, nf), make([]float64, nf), make([]float64, nf)
			for i := 0; i < nf; i++ {
				col[i] = V[i*10+j]
			}
			Ks.mul(col, kc)
			Ms.mul(col, mc)
			res := 0.0
			for i := range kc {
				res = math.Max(res, math.Abs(kc[i]-got[j]*mc[i]))
			}
			if m := dotv(col, mc); math.Abs(m-1) > 1e-9 || res > 1e-6*got[j]*math.Sqrt(m) {
				t.Errorf("clamped %v mode %d: φᵀMφ = %.12g, |Kφ − λMφ| = %.3g", clampFirst, j+1, m, res)
			}
		}
	}
}

// BenchmarkReadMatrixMarket100k reads a symmetric Matrix Market matrix of
// 100 002 dofs (a beam's band: 39 entries per row in one triangle) with its
// node list: `go test -bench ReadMatrixMarket ./solver/flex`.
func BenchmarkReadMatrixMarket100k(b *testing.B) {
	dir := b.TempDir()
	const nodes = 16667
	n := 6 * nodes
	var sb strings.Builder
	var ents []string
	for i := 0; i < n; i++ {
		for j := max(0, i-38); j <= i; j++ {
			ents = append(ents, strconv.Itoa(i+1)+" "+strconv.Itoa(j+1)+" "+strconv.FormatFloat(1/float64(1+i-j), 'g', 17, 64))
		}
	}
	sb.WriteString("%%MatrixMarket matrix coordinate real symmetric\n")
	sb.WriteString(strconv.Itoa(n) + " " + strconv.Itoa(n) + " " + strconv.Itoa(len(ents)) + "\n")
	sb.WriteString(strings.Join(ents, "\n") + "\n")
	if err := os.WriteFile(filepath.Join(dir, "K.mtx"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	var nl strings.Builder
	for i := 0; i < nodes; i++ {
		nl.WriteString(strconv.Itoa(i+1) + " " + strconv.Itoa(i) + " 0 0\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "nodes.txt"), []byte(nl.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		d := &feData{index: map[int]int{}, dofOf: map[[2]int]int{}}
		if err := d.readNodeList(filepath.Join(dir, "nodes.txt")); err != nil {
			b.Fatal(err)
		}
		dofOf := func(r int) (int, error) { return d.dof((r-1)/6, (r-1)%6), nil }
		if _, err := d.readMatrixMarket(filepath.Join(dir, "K.mtx"), dofOf, &d.K); err != nil {
			b.Fatal(err)
		}
		var err error
		if d.K, err = symmetrize(d.K, "K", d.dofLabel); err != nil {
			b.Fatal(err)
		}
		if len(d.dofs) != n {
			b.Fatalf("%d dofs", len(d.dofs))
		}
	}
}
