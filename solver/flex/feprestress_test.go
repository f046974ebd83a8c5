package flex

import (
	"math"
	"math/rand"
	"testing"

	"mbfmu/solver/mech"
)

// The tangent of the prestress stiffening (the geometric stiffness K_σ
// and the load numbers' dependence on ω, α and R̈) equals central
// differences of its force, at random states of a random body with all
// twelve generators, off the FE origin. The load numbers are checked
// against their definition: the inertia load of the FE origin's motion.
func TestPrestressTangent(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	r := func() float64 { return rng.Float64()*2 - 1 }
	rv := func() mech.Vec3 { return mech.Vec3{r(), r(), r()} }
	for trial := 0; trial < 4; trial++ {
		m := 1 + 2*trial
		n := 6 + m
		b := &ffr3{m: m, pre: &ffr3Prestress{po: rv()}}
		for i := range b.pre.g {
			g := make([]float64, m*m)
			for k := 0; k < m; k++ {
				for l := 0; l <= k; l++ {
					g[k*m+l] = r()
					g[l*m+k] = g[k*m+l]
				}
			}
			b.pre.g[i] = g
		}
		A := mech.QuatMat(mech.QuatExp(rv()))
		ad, om, omd, gw := rv(), rv(), rv(), rv()
		eta := make([]float64, m)
		for i := range eta {
			eta[i] = r()
		}
		forceA := func(A mech.Mat3, ad, om, omd mech.Vec3, eta []float64, f, k, c []float64, ca float64) {
			s := ffr3State{A: A, eta: eta}
			var w ffr3Terms
			w.rb, w.gb, w.om, w.omd = mech.MulMTV(&A, ad), mech.MulMTV(&A, gw), om, omd
			b.stiffen(&s, &w, f, k, c, n, ca)
		}
		force := func(ad, om, omd mech.Vec3, eta []float64, f, k, c []float64, ca float64) {
			forceA(A, ad, om, omd, eta, f, k, c, ca)
		}
		k, c, kc := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
		force(ad, om, omd, eta, make([]float64, n), k, c, 0)
		force(ad, om, omd, eta, make([]float64, n), kc, make([]float64, n*n), 1)
		for i := range kc {
			kc[i] -= k[i] // the acceleration coupling alone (ca = 1)
		}
		const h = 1e-5
		fp, fm := make([]float64, n), make([]float64, n)
		check := func(what string, an []float64, col int, eval func(s float64, f []float64)) {
			for i := range fp {
				fp[i], fm[i] = 0, 0
			}
			eval(h, fp)
			eval(-h, fm)
			for i := 0; i < n; i++ {
				fd := -(fp[i] - fm[i]) / (2 * h)
				if d := math.Abs(an[i*n+col] - fd); d > 1e-7*math.Max(1, math.Abs(fd)) {
					t.Errorf("m = %d: %s (%d, %d): analytic %.9g, differences %.9g", m, what, i, col, an[i*n+col], fd)
				}
			}
		}
		for j := 0; j < m; j++ {
			check("∂/∂η", k, 6+j, func(s float64, f []float64) {
				e := append([]float64(nil), eta...)
				e[j] += s
				force(ad, om, omd, e, f, nil, nil, 0)
			})
		}
		for j := 0; j < 3; j++ {
			var e mech.Vec3
			e[j] = 1
			check("∂/∂ω", c, 3+j, func(s float64, f []float64) {
				force(ad, mech.Add(om, mech.Scale(s, e)), omd, eta, f, nil, nil, 0)
			})
			check("∂/∂α", kc, 3+j, func(s float64, f []float64) {
				force(ad, om, mech.Add(omd, mech.Scale(s, e)), eta, f, nil, nil, 0)
			})
			check("∂/∂δθ", k, 3+j, func(s float64, f []float64) {
				R := mech.QuatMat(mech.QuatExp(mech.Scale(s, e)))
				forceA(mech.MulMM(&A, &R), ad, om, omd, eta, f, nil, nil, 0)
			})
			check("∂/∂R̈", kc, j, func(s float64, f []float64) {
				force(mech.Add(ad, mech.Scale(s, e)), om, omd, eta, f, nil, nil, 0)
			})
		}
		// the load numbers: the FE origin's acceleration in the body axes
		// less gravity, by differences of its motion x_o(t) = A(t)(R(t) +
		// ...) written out: a_o = A ᵀ R̈ + α × p + ω × (ω × p)
		po := b.pre.po
		c12 := prestressCoeffs(om, omd, mech.MulMTV(&A, ad), mech.MulMTV(&A, gw), po)
		ao := mech.Add(mech.MulMTV(&A, ad), mech.Add(mech.Cross(omd, po), mech.Cross(om, mech.Cross(om, po))))
		want := mech.Sub(ao, mech.MulMTV(&A, gw))
		for i := 0; i < 3; i++ {
			if math.Abs(c12[6+i]-want[i]) > 1e-14 || c12[9+i] != omd[i] || c12[i] != om[i]*om[i] {
				t.Errorf("load numbers %v", c12)
			}
		}
		// |ω|² I − ω ωᵀ, the centrifugal field, from the six products
		cf := mech.Scale(-1, mech.Cross(om, mech.Cross(om, po)))
		x := mech.Vec3{(c12[1]+c12[2])*po[0] - c12[3]*po[1] - c12[5]*po[2],
			-c12[3]*po[0] + (c12[0]+c12[2])*po[1] - c12[4]*po[2],
			-c12[5]*po[0] - c12[4]*po[1] + (c12[0]+c12[1])*po[2]}
		if mech.Norm(mech.Sub(cf, x)) > 1e-14 {
			t.Errorf("the six ω products give the centrifugal field %v, want %v", x, cf)
		}
	}
}
