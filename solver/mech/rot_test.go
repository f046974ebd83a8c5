package mech

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randVec(r *rand.Rand, s float64) Vec3 {
	return Vec3{s * r.NormFloat64(), s * r.NormFloat64(), s * r.NormFloat64()}
}

func near(a, b Vec3, tol float64) bool {
	return math.Abs(a[0]-b[0]) <= tol && math.Abs(a[1]-b[1]) <= tol && math.Abs(a[2]-b[2]) <= tol
}

// rodrigues is the matrix of the rotation vector θ by Rodrigues' formula,
// I + sin|θ|/|θ| [θ]× + (1 − cos|θ|)/|θ|² [θ]×², written independently of
// the quaternions.
func rodrigues(th Vec3) Mat3 {
	a := Norm(th)
	K := Skew(th)
	K2 := MulMM(&K, &K)
	var E Mat3
	for i := range E {
		E[i] = K[i]*math.Sin(a)/a + K2[i]*(1-math.Cos(a))/(a*a)
		if i%4 == 0 {
			E[i]++
		}
	}
	return E
}

// exp and log are inverse; the matrix of exp(θ) rotates θ's normal plane by
// |θ| (Rodrigues' formula, written independently here).
func TestExpLogRodrigues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 200; k++ {
		s := []float64{1e-9, 1e-5, 0.3, 2, 3.1}[k%5]
		th := randVec(r, s)
		if Norm(th) > 3.1 { // log returns the shorter of the two rotations
			th = Scale(3.1/Norm(th), th)
		}
		q := QuatExp(th)
		if got := QuatLog(q); !near(got, th, 1e-12*(1+s)) {
			t.Fatalf("log(exp(%v)) = %v", th, got)
		}
		R := QuatMat(q)
		want := rodrigues(th)
		for i := range R {
			if math.Abs(R[i]-want[i]) > 1e-12 {
				t.Fatalf("exp(%v): R = %v, Rodrigues %v", th, R, want)
			}
		}
		v := randVec(r, 1)
		if got, w := QuatRotate(q, v), MulMV(&R, v); !near(got, w, 1e-13) {
			t.Fatalf("rotate %v vs %v", got, w)
		}
		if q2 := MatQuat(&R); math.Abs(math.Abs(q2[0]*q[0]+q2[1]*q[1]+q2[2]*q[2]+q2[3]*q[3])-1) > 1e-13 {
			t.Fatalf("MatQuat(QuatMat(q)) = %v, q = %v", q2, q)
		}
	}
}

// θ̇ = DexpInv(θ, ω) reproduces the body angular velocity of
// R(t) = R₀ exp(θ(t)): [ω]× = Rᵀ Ṙ, by central differences.
func TestDexpInv(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 100; k++ {
		th := randVec(r, []float64{1e-4, 0.5, 1.5}[k%3])
		if Norm(th) > 3 { // the operator is singular at |θ| = 2π
			th = Scale(3/Norm(th), th)
		}
		om := randVec(r, 1)
		thd := DexpInv(th, om)
		const h = 1e-6
		Rp := QuatMat(QuatExp(Add(th, Scale(h, thd))))
		Rm := QuatMat(QuatExp(Sub(th, Scale(h, thd))))
		R := QuatMat(QuatExp(th))
		var Rd Mat3
		for i := range Rd {
			Rd[i] = (Rp[i] - Rm[i]) / (2 * h)
		}
		Rt := Transpose(&R)
		W := MulMM(&Rt, &Rd)
		got := Vec3{W[7], W[2], W[3]}
		if !near(got, om, 1e-8) {
			t.Fatalf("θ = %v: ω from DexpInv %v, want %v", th, got, om)
		}
	}
}

// QuatExp's series agree with cos(|θ|/2) and sin(|θ|/2)/|θ| from Sincos
// to round-off up to the angle where it switches, and beyond.
func TestQuatExpSeries(t *testing.T) {
	for _, a := range []float64{1e-5, 1e-3, 0.01, 0.1, 0.2, 0.2236, 0.2237, 0.3, 1} {
		q := QuatExp(Vec3{0, a, 0})
		sn, cs := math.Sincos(a / 2)
		if math.Abs(q[0]-cs) > 2.3e-16 || math.Abs(q[2]-sn) > 2.3e-16*sn || q[1] != 0 || q[3] != 0 {
			t.Errorf("exp(%g ŷ) = %v, want (%v, 0, %v, 0)", a, q, cs, sn)
		}
		if n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]); math.Abs(n-1) > 2.3e-16 {
			t.Errorf("|exp(%g ŷ)| - 1 = %g", a, n-1)
		}
	}
}

// QuatTurn turns p by θ in its body frame: its matrix is R(p) times the
// Rodrigues matrix of θ, and it is the composition it writes out, bit for
// bit (the integrators' results must not depend on which one runs).
func TestQuatTurn(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := 0; k < 300; k++ {
		s := []float64{1e-9, 1e-5, 0.05, 0.2, 2}[k%5]
		th := randVec(r, s)
		p := QuatNormalize(Quat{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()})
		var got Quat
		QuatTurn(got[:], p[:], th[0], th[1], th[2])
		if want := QuatNormalize(QuatMul(p, QuatExp(th))); got != want {
			t.Fatalf("QuatTurn(%v, %v) = %v, composition %v", p, th, got, want)
		}
		E := rodrigues(th)
		P := QuatMat(p)
		want := MulMM(&P, &E)
		R := QuatMat(got)
		for i := range R {
			if math.Abs(R[i]-want[i]) > 1e-14 {
				t.Fatalf("QuatTurn(%v, %v): R = %v, R(p) Rodrigues(θ) = %v", p, th, R, want)
			}
		}
		in := p
		QuatTurn(in[:], in[:], th[0], th[1], th[2]) // in place
		if in != got {
			t.Fatalf("QuatTurn in place = %v, want %v", in, got)
		}
	}
}

// Cardan angles of Rx(a) Ry(b) Rz(c) are (a, b, c).
func TestCardan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 100; k++ {
		a, b, c := math.Pi*(2*r.Float64()-1), 0.49*math.Pi*(2*r.Float64()-1), math.Pi*(2*r.Float64()-1)
		q := QuatMul(QuatMul(QuatExp(Vec3{a, 0, 0}), QuatExp(Vec3{0, b, 0})), QuatExp(Vec3{0, 0, c}))
		R := QuatMat(q)
		if got := Cardan(&R); !near(got, Vec3{a, b, c}, 1e-10) {
			t.Fatalf("Cardan = %v, want %v", got, Vec3{a, b, c})
		}
	}
}
