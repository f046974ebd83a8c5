package flex

import (
	"math"
	"testing"

	"mbfmu/solver/mech"
)

// TestANCFForcesTranslationInvariant: an element's elastic and damping
// forces and its tangent do not depend on where it lies. A 1.6 mm element
// of the 640-element cable (bent, stretched, moving), evaluated at the
// origin and moved about a metre away, gives the same forces to 2e-11 of
// their size (measured 1e-12 spatial, 6e-12 planar: the rounding of the
// moved coordinates themselves); formed from the Gram products of
// absolute positions they differed by 9e-11 (planar) and 1.9e-10
// (spatial), the cancellation of positions a metre long in products
// scaled by 1/l², and the 640-element cable's Newton increments could
// not settle below 1e-9 m. Planar and spatial elements.
func TestANCFForcesTranslationInvariant(t *testing.T) {
	const l = 1.0 / 640
	b := &ancfBeam{ne: 1, ea: 280, ei: 9.33e-3, beta: 1e-3, k: newANCFConst(l)}
	q3 := []float64{0, 0, 0, 0.999, 0.03, -0.02, 1.0006 * l, 0.04 * l, -0.01 * l, 0.998, 0.05, -0.03}
	v3 := []float64{0.3, -0.2, 0.1, 0.01, 0.02, -0.03, 0.31, -0.19, 0.09, 0.015, 0.01, -0.02}
	e3 := &ancf3Elem{b: b}
	for i := range e3.d {
		e3.d[i] = i
	}
	q2 := []float64{0, 0, 0.999, 0.03, 1.0006 * l, 0.04 * l, 0.998, 0.05}
	v2 := []float64{0.3, -0.2, 0.01, 0.02, 0.31, -0.19, 0.015, 0.01}
	e2 := &ancfElem{b: b}
	for i := range e2.d {
		e2.d[i] = i
	}
	for _, c := range []struct {
		name string
		e    mech.Force
		q, v []float64
		dim  int
	}{{"spatial", e3, q3, v3, 3}, {"planar", e2, q2, v2, 2}} {
		n := len(c.q)
		eval := func(shift float64) (f, k, cm []float64) {
			q := append([]float64(nil), c.q...)
			for node := 0; node < 2; node++ {
				for i := 0; i < c.dim; i++ {
					q[2*c.dim*node+i] += shift * float64(i+1) / 2
				}
			}
			f, k, cm = make([]float64, n), make([]float64, n*n), make([]float64, n*n)
			c.e.Eval(&mech.Ctx{Q: q, V: c.v}, f, k, cm)
			return
		}
		f0, k0, c0 := eval(0)
		f1, k1, c1 := eval(1)
		for what, p := range map[string][2][]float64{"forces": {f0, f1}, "stiffness": {k0, k1}, "damping": {c0, c1}} {
			worst, size := 0.0, 0.0
			for i := range p[0] {
				worst = math.Max(worst, math.Abs(p[0][i]-p[1][i]))
				size = math.Max(size, math.Abs(p[0][i]))
			}
			if size == 0 || worst > 2e-11*size {
				t.Errorf("%s %s: moved by 1 m they change by %.3g (size %.3g)", c.name, what, worst, size)
			}
		}
	}
}
