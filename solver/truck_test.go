package solver

import (
	"math"
	"testing"

	"mbfmu/xml"
)

// truckRef is an independent model of examples/truck-tipping at rest: the
// four-bar of chassis, lever, link and dump body solved in closed form,
// the two cylinders' pin distance Lc(θ) and the potential energy V(θ) of
// every part (the files' geometry and masses written out); at rest the
// cylinders carry F = V'(θ) / (2 Lc'(θ)) each (virtual work).
type truckRef struct{}

func rot(a float64, v [2]float64) [2]float64 {
	c, s := math.Cos(a), math.Sin(a)
	return [2]float64{c*v[0] - s*v[1], s*v[0] + c*v[1]}
}

func add2(a, b [2]float64) [2]float64           { return [2]float64{a[0] + b[0], a[1] + b[1]} }
func sub2(a, b [2]float64) [2]float64           { return [2]float64{a[0] - b[0], a[1] - b[1]} }
func scale2(k float64, a [2]float64) [2]float64 { return [2]float64{k * a[0], k * a[1]} }
func len2(a [2]float64) float64                 { return math.Hypot(a[0], a[1]) }

// parts returns the lever angle, the cylinder length and V at box angle θ.
func (truckRef) parts(th float64) (phi, lc, v float64) {
	H, P, C := [2]float64{0, 1.2}, [2]float64{3, 0.5}, [2]float64{5, 0.6}
	const L, g = 3.0806, 9.81
	B := add2(H, rot(th, [2]float64{1, 0}))
	// |P + R(φ)(1, 0) − B| = L, the branch through φ = θ (a parallelogram
	// but for the link's rounded length)
	phi = th
	for it := 0; it < 50; it++ {
		T := add2(P, rot(phi, [2]float64{1, 0}))
		d := sub2(T, B)
		f := d[0]*d[0] + d[1]*d[1] - L*L
		dT := rot(phi, [2]float64{0, 1})
		df := 2 * (d[0]*dT[0] + d[1]*dT[1])
		phi -= f / df
		if math.Abs(f) < 1e-15 {
			break
		}
	}
	T := add2(P, rot(phi, [2]float64{1, 0}))
	K := add2(P, rot(phi, [2]float64{0.1553, 0.5796}))
	u := sub2(K, C)
	lc = len2(u)
	u = scale2(1/lc, u)
	box := add2(H, rot(th, [2]float64{2.5, 0.6}))
	lever := add2(P, rot(phi, [2]float64{0.4, 0.2}))
	link := add2(T, scale2(0.5, sub2(B, T)))
	barrel := add2(C, scale2(0.6, u))
	rod := sub2(K, scale2(0.6, u))
	v = g * (4000*box[1] + 60*lever[1] + 60*link[1] + 2*(40*barrel[1]+15*rod[1]))
	return phi, lc, v
}

// push returns each cylinder's force at rest at box angle θ.
func (r truckRef) push(th float64) float64 {
	const h = 1e-5
	_, lp, vp := r.parts(th + h)
	_, lm, vm := r.parts(th - h)
	return (vp - vm) / (2 * (lp - lm))
}

// The truck tipping example (two cylinder instances and the lifting
// mechanism, all subsystems) raises its dump body with the valve open;
// closed at 0.5 rad, the chambers hold it, and at rest each cylinder
// pushes what virtual work on an independent model of the mechanism
// says, its pressures p1 A1 − p2 A2 (seal damping raised to settle it
// quickly: it acts only in motion).
func TestTruckTippingHolds(t *testing.T) {
	ms, err := xml.LoadFile("../examples/truck-tipping/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := mustCompile(t, ms)
	s := mustInit(t, m)
	s.SetInput(0, 1)
	var tt float64
	for chanAt(t, m, s, "tilt.angle") < 0.5 {
		tt += 0.01
		if tt > 5 {
			t.Fatalf("the body did not reach 0.5 rad in 5 s: %g", chanAt(t, m, s, "tilt.angle"))
		}
		if err := m.AdvanceTo(s, tt); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("0.5 rad at %.2f s", tt)
	if tt < 1 || tt > 3 {
		t.Errorf("raised to 0.5 rad in %.2f s; the valve's 60 l/min on two 100 mm bores want about 2 s", tt)
	}
	s.SetInput(0, 0)
	for k, p := range m.params {
		if p.Name == "cyl_l_c_seal" || p.Name == "cyl_r_c_seal" {
			if err := s.SetParam(k, 1e6); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := m.AdvanceTo(s, tt+4); err != nil {
		t.Fatal(err)
	}
	th := chanAt(t, m, s, "tilt.angle")
	if w := chanAt(t, m, s, "box.omega"); math.Abs(w) > 1e-6 {
		t.Errorf("still moving at %.3g rad/s", w)
	}
	var ref truckRef
	want := ref.push(th)
	fl, fr := chanAt(t, m, s, "cyl_l_F"), chanAt(t, m, s, "cyl_r_F")
	a1, a2 := math.Pi*0.1*0.1/4, math.Pi*(0.1*0.1-0.06*0.06)/4
	p := chanAt(t, m, s, "cyl_l_p1")*a1 - chanAt(t, m, s, "cyl_l_p2")*a2
	t.Logf("held at %.6f rad: push %.9g N (left), %.9g N (right), reference %.9g N (relative %.2g)", th, fl, fr, want, fl/want-1)
	for _, got := range []float64{fl, fr, p} {
		if math.Abs(got/want-1) > 1e-8 {
			t.Errorf("push %.8g N, virtual work says %.8g N", got, want)
		}
	}
	if _, lc, _ := ref.parts(th); math.Abs(chanAt(t, m, s, "cyl_l_slide.disp")-lc) > 1e-9 {
		t.Errorf("cylinder length %.9g, closed form %.9g", chanAt(t, m, s, "cyl_l_slide.disp"), lc)
	}
}
