package solver

import (
	"math"
	"mbfmu/solver/contacts"
	"mbfmu/spec"
	"testing"
)

// inclineSpec is a 2 kg block (a point contact at its centre of mass) on
// a ground incline at angle phi (rad) with Coulomb friction μ0, μ, starting
// at the static penetration with speed v0 down the slope.
func inclineSpec(integ, fric string, h, phi, mus, mud, v0 float64) *spec.Model {
	const m, k, g = 2.0, 1e6, 9.81
	d0 := m * g * math.Cos(phi) / k
	// the surface passes through the origin along (cos φ, −sin φ)... we use
	// a line descending to the right: x axis of the marker at angle −φ
	n := [2]float64{math.Sin(phi), math.Cos(phi)} // left normal of (cos φ, −sin φ)
	at := [2]float64{-d0 * n[0], -d0 * n[1]}
	vel := [2]float64{v0 * math.Cos(phi), -v0 * math.Sin(phi)}
	a := []string{"i", "block", "j", "ground.slope", "k", "1e6", "c", "4000",
		"mu-static", ftoa(mus), "mu-dynamic", ftoa(mud)}
	if fric != "" {
		a = append(a, "friction", fric)
	}
	return &spec.Model{
		Name:     "incline",
		Settings: spec.Settings{End: 1, Step: h, Integrator: integ},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "slope", Angle: num(-phi)}}},
		Bodies: []spec.Body{{Name: "block", Mass: num(m), Inertia: num(0.1), At: vec(at[0], at[1]),
			Vel: vec(vel[0], vel[1])}},
		Contacts: []spec.Contact{{Kind: "point-line", Name: "c", Attr: attrs(a...)}},
	}
}

// slopePos returns the block's position along the slope (downhill positive).
func slopePos(s *State, phi float64) float64 {
	return s.q[0]*math.Cos(phi) - s.q[1]*math.Sin(phi)
}

func TestContactInclineStickSlide(t *testing.T) {
	const g = 9.81
	mus, mud := 0.5, 0.4
	phiStick := math.Atan(0.45) // between tan⁻¹μ and tan⁻¹μ0: static friction holds
	phiSlide := math.Atan(0.7)
	for _, integ := range []string{"rk4", "genalpha", "bdf2"} {
		// constant accelerations are integrated exactly, except by BDF2
		// whose first step is BDF1 (an O(h²) offset that persists)
		tol := 1e-8
		if integ == "bdf2" {
			tol = 1e-5
		}
		t.Run(integ, func(t *testing.T) {
			// sticks: tan φ < μ0
			for _, phi := range []float64{math.Atan(0.2), phiStick} {
				m := mustCompile(t, inclineSpec(integ, "coulomb", 1e-3, phi, mus, mud, 0))
				s := mustInit(t, m)
				if err := m.AdvanceTo(s, 1); err != nil {
					t.Fatal(err)
				}
				if d := slopePos(s, phi); math.Abs(d) > 1e-9 {
					t.Errorf("tan φ = %.2f < μ0: block moved %g m", math.Tan(phi), d)
				}
				if st := s.cs[contacts.SlotMode]; st != 0 {
					t.Errorf("tan φ = %.2f: mode %g, want stick", math.Tan(phi), st)
				}
				// the friction force balances the slope component of gravity
				if f := math.Abs(s.cs[contacts.SlotStick]); math.Abs(f-2*g*math.Sin(phi)) > 1e-6 {
					t.Errorf("stick friction %g N, want %g", f, 2*g*math.Sin(phi))
				}
			}
			// slides with a = g (sin φ − μ cos φ)
			phi := phiSlide
			m := mustCompile(t, inclineSpec(integ, "coulomb", 1e-3, phi, mus, mud, 0))
			s := mustInit(t, m)
			if err := m.AdvanceTo(s, 1); err != nil {
				t.Fatal(err)
			}
			want := g * (math.Sin(phi) - mud*math.Cos(phi))
			got := 2 * slopePos(s, phi)
			if math.Abs(got-want) > tol*want {
				t.Errorf("tan φ = 0.7 > μ0: acceleration %.12g, want %.12g", got, want)
			}
			// kicked down a slope with tan φ < μ: decelerates and stops at
			// s* = v0²/(2|a|), then sticks
			phi = math.Atan(0.3)
			v0 := 1.2
			m = mustCompile(t, inclineSpec(integ, "coulomb", 1e-3, phi, mus, mud, v0))
			s = mustInit(t, m)
			if err := m.AdvanceTo(s, 2); err != nil { // stops at t = 1.28 s
				t.Fatal(err)
			}
			a := g * (math.Sin(phi) - mud*math.Cos(phi))
			if stop := v0 * v0 / (-2 * a); math.Abs(slopePos(s, phi)-stop) > tol*stop {
				t.Errorf("kicked block stopped at %.12g m, want %.12g", slopePos(s, phi), stop)
			}
			if s.cs[contacts.SlotMode] != 0 {
				t.Errorf("kicked block: mode %g after stopping, want stick", s.cs[contacts.SlotMode])
			}
		})
	}
}

// beltSpec is the classic stick–slip oscillator: a 1 kg block on a belt
// moving at vb, tied to the ground by a spring of stiffness k (ω = 10
// rad/s), starting at the spring's free length and riding with the belt.
// The block's contact is a point on the belt's surface with a stiff
// spring–damper normal force, in static equilibrium from the start.
func beltSpec(integ string, h float64) *spec.Model {
	const m, g, kc = 1.0, 9.81, 1e4
	d0 := m * g / kc
	return &spec.Model{
		Name:     "belt",
		Settings: spec.Settings{End: 1, Step: h, Integrator: integ, NewtonTol: 1e-12},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "anchor", At: vec(-1, -d0)}}},
		Bodies: []spec.Body{
			{Name: "belt", Mass: num(10), Inertia: num(1), Vel: vec(0.5, 0), Markers: []spec.Marker{{Name: "surface"}}},
			{Name: "block", Mass: num(m), Inertia: num(0.01), At: vec(0, -d0), Vel: vec(0.5, 0)},
		},
		Drivers: []spec.Driver{
			{Name: "bx", Body: "belt", Coord: "x", Value: ex("0.5*t")},
			{Name: "by", Body: "belt", Coord: "y", Value: num(0)},
			{Name: "ba", Body: "belt", Coord: "angle", Value: num(0)},
		},
		Forces: []spec.Force{{Kind: "spring", Name: "spring", I: "ground.anchor", J: "block", K: num(100), Length: num(1)}},
		Contacts: []spec.Contact{{Kind: "point-line", Name: "c", Attr: attrs("i", "block", "j", "belt.surface",
			"k", ftoa(kc), "c", "200", "mu-static", "0.5", "mu-dynamic", "0.3")}},
	}
}

// beltExact is the exact position of the block of beltSpec at time t:
// stick (x = vb t) until k x = μ0 m g, then harmonic slip about
// c = μ g/ω² until the block's speed is vb again, and so on.
func beltExact(t float64) float64 {
	const w, g, vb, mu0, mu = 10.0, 9.81, 0.5, 0.5, 0.3
	xs := mu0 * g / (w * w) // spring force reaches the static limit
	c := mu * g / (w * w)   // centre of the slip oscillation
	A, B := xs-c, vb/w
	phi := math.Atan2(A*w, vb)
	tslip := (2*math.Pi - 2*phi) / w
	xe := c + A*math.Cos(w*tslip) + B*math.Sin(w*tslip) // = 2c − xs
	x, t0 := 0.0, 0.0
	for {
		ts := (xs - x) / vb // stick
		if t <= t0+ts {
			return x + vb*(t-t0)
		}
		t0 += ts
		if t <= t0+tslip {
			tau := t - t0
			return c + A*math.Cos(w*tau) + B*math.Sin(w*tau)
		}
		t0 += tslip
		x = xe
	}
}

// TestContactStickSlipConvergence integrates the stick–slip oscillator with
// shrinking steps and checks the block's position after 1 s (four stick–
// slip switches) against the exact piecewise solution: the events are
// located within the step, so the errors fall at the integrators' own
// orders (RK4: 4, generalized-α: 2) instead of the first order of a
// scheme that lets switches fall between steps.
func TestContactStickSlipConvergence(t *testing.T) {
	const tEnd = 1.0
	want := beltExact(tEnd)
	for _, tc := range []struct {
		integ    string
		h0       float64
		minOrder float64
		maxErr   float64 // at the finest step
	}{
		{"rk4", 0.01, 3.5, 1e-8},
		{"genalpha", 0.01, 1.8, 5e-5},
	} {
		var errs []float64
		for _, h := range []float64{tc.h0, tc.h0 / 2, tc.h0 / 4} {
			m := mustCompile(t, beltSpec(tc.integ, h))
			s := mustInit(t, m)
			if err := m.AdvanceTo(s, tEnd); err != nil {
				t.Fatal(err)
			}
			errs = append(errs, math.Abs(s.q[3]-want))
		}
		for i := 1; i < len(errs); i++ {
			if order := math.Log2(errs[i-1] / errs[i]); order < tc.minOrder {
				t.Errorf("%s: error %.3g → %.3g when halving h: order %.2f < %.1f", tc.integ, errs[i-1], errs[i], order, tc.minOrder)
			}
		}
		if errs[len(errs)-1] > tc.maxErr {
			t.Errorf("%s: error %.3g at h = %g", tc.integ, errs[len(errs)-1], tc.h0/4)
		}
		t.Logf("%s: errors %.3g", tc.integ, errs)
	}
}
