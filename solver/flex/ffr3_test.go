package flex

import (
	"math"
	"math/rand"
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
