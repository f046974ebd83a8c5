package main

import (
	"math"
	"testing"
)

// integrate runs case name with RK4 step h to time tEnd and returns the
// final sample (its energy is the drift since the start).
func integrate(t *testing.T, name string, h, tEnd float64) sample {
	t.Helper()
	md, ok := cases()[name]
	if !ok {
		t.Fatalf("no case %s", name)
	}
	st := state{r: md.r0, q: md.q0}
	md.project(&st)
	e0 := md.sample(0, &st, 0).energy
	n := int(math.Round(tEnd / h))
	h = tEnd / float64(n)
	for k := 0; k < n; k++ {
		st = md.rk4(st, h)
		md.project(&st)
	}
	return md.sample(tEnd, &st, e0)
}

// The prismatic pendulum on the 45° incline (Prismatic_Case02) slides with
// s” = −g cos 45°; the reaction on the ground is constant and its torque
// about the joint point follows the centre of mass down the guide.
func TestPrismaticClosedForm(t *testing.T) {
	const tEnd = 2.0
	s := integrate(t, "Prismatic_Case02", 1e-3, tEnd)
	c := math.Sqrt(0.5)
	sl := -g0 * c * tEnd * tEnd / 2 // slide along (0, c, c)
	want := vec{3, 2 + c*sl, 3 + c*sl}
	for i := range want {
		if math.Abs(s.pos[i]-want[i]) > 1e-9 {
			t.Errorf("position %v, want %v", s.pos, want)
		}
	}
	// ground force (0, m g c², −m g c²); torque about (1, 2, 3): (2, c s, c s) × F
	f := vec{0, g0 / 2, -g0 / 2}
	tq := cross(vec{2, c * sl, c * sl}, f)
	for i := range f {
		if math.Abs(s.rforce[i]-f[i]) > 1e-9 || math.Abs(s.rtorque[i]-tq[i]) > 1e-8 {
			t.Errorf("reaction %v, %v; want %v, %v", s.rforce, s.rtorque, f, tq)
		}
	}
}

// The revolute pendulum released horizontally is a pendulum of amplitude
// 90°: I θ” = −m g l cos θ with I = 0.1 + 1·2² kg m², m g l = 2 g. It is
// back at the horizontal, on the other side, after half a period
// T/2 = 2 √(I/(m g l)) K(sin 45°).
func TestRevoluteHalfPeriod(t *testing.T) {
	agm := func(a, b float64) float64 {
		for math.Abs(a-b) > 1e-15 {
			a, b = (a+b)/2, math.Sqrt(a*b)
		}
		return a
	}
	k := math.Pi / (2 * agm(1, math.Sqrt(0.5))) // K(k), k² = 1/2
	half := 2 * math.Sqrt(4.1/(2*g0)) * k
	s := integrate(t, "Revolute_Case01", 1e-4, half)
	t.Logf("at T/2 = %.9f s: centre of mass %.3g m from (−2, 0, 0), energy drift %.2g J", half, math.Hypot(s.pos[0]+2, s.pos[2]), s.energy)
	if math.Abs(s.pos[0]+2) > 1e-10 || math.Abs(s.pos[2]) > 1e-10 || math.Abs(s.energy) > 1e-9 {
		t.Errorf("at T/2 = %.6f s: centre of mass %v, want (−2, 0, 0); energy drift %.2g J", half, s.pos, s.energy)
	}
}
