package solver

import (
	"math"
	"strings"
	"testing"

	"mbfmu/contact"
	"mbfmu/solver/contacts"
	"mbfmu/spec"
)

// attrs builds a contact attribute map from name/value pairs.
func attrs(kv ...string) map[string]spec.Expr {
	m := map[string]spec.Expr{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = spec.Expr{Src: kv[i+1], Field: kv[i]}
	}
	return m
}

// ballSpec is a ball of mass 1 kg, radius 0.1 m, dropped from height y0
// (centre) onto the ground line y = 0.
func ballSpec(integ string, h, y0 float64, contactAttrs ...string) *spec.Model {
	return &spec.Model{
		Name:     "ball",
		Settings: spec.Settings{End: 1, Step: h, Integrator: integ},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "floor"}}},
		Bodies:   []spec.Body{{Name: "ball", Mass: num(1), Inertia: num(0.004), At: vec(0, y0)}},
		Contacts: []spec.Contact{{Kind: "circle-line", Name: "c", Attr: attrs(append([]string{"i", "ball", "j", "ground.floor", "radius", "0.1"}, contactAttrs...)...)}},
	}
}

// TestContactHertzEnergy drops a ball on the ground with an undamped
// Hertz contact: the contact is conservative, so the total energy
// (kinetic + gravity + contact) is the same after the bounce, and the
// elastic force law agrees with package contact's extended Hertz law.
func TestContactHertzEnergy(t *testing.T) {
	m := mustCompile(t, ballSpec("rk4", 1e-4, 0.3, "law", "hertz", "k", "1e7"))
	s := mustInit(t, m)
	energy := func() float64 { return m.kinetic(s.v, s.tmp) + m.gravityPotential(s.q) + m.springEnergy(s) }
	e0 := energy()
	maxF := 0.0
	e := m.contacts.elems[0]
	for s.T < 0.5-1e-9 {
		if err := m.AdvanceTo(s, s.T+1e-3); err != nil {
			t.Fatal(err)
		}
		var k contacts.Kin
		fn, _ := e.Forces(&s.x, &k)
		if fn > 0 {
			want, _, _ := contact.NormalLaw{Kind: contact.LawHertzExtended, K: 1e7, N: 1.5}.Force(k.Delta, k.Rate)
			if math.Abs(fn-want) > 1e-9*want {
				t.Errorf("normal force %g, contact.NormalLaw %g", fn, want)
			}
			maxF = math.Max(maxF, fn)
		}
		if de := math.Abs(energy()-e0) / e0; de > 1e-5 {
			t.Fatalf("t=%g: energy changed by %g (relative)", s.T, de)
		}
	}
	if maxF == 0 || s.cw.events < 2 {
		t.Fatalf("the ball did not bounce (max force %g, %d events)", maxF, s.cw.events)
	}
}

// TestContactCompileErrors checks that bad contact attributes are reported
// with the attribute and the reason.
func TestContactCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		kind string
		at   []string
		want string
	}{
		{"circle-plane", []string{"i", "ball", "j", "ground.floor"}, "unknown kind"},
		{"circle-line", []string{"i", "ball", "j", "ground.floor"}, "needs radius"},
		{"point-line", []string{"i", "ball", "j", "ground.floor"}, "needs a stiffness k"},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "radius", "1"}, "no attribute \"radius\""},
		{"point-line", []string{"i", "ball", "j", "ground.nope", "k", "1e5"}, "unknown marker"},
		{"point-line", []string{"i", "ball", "j", "ball", "k", "1e5"}, "same body"},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "law", "hertzian"}, "did you mean \"hertz\""},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "law", "hunt-crossley", "restitution", "1.5"}, "restitution must be in (0, 1]"},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "restitution", "0.5"}, "belongs to law=\"hunt-crossley\""},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "friction", "coulomb"}, "needs mu-static"},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "mu-static", "0.2", "mu-dynamic", "0.3"}, "exceeds mu-static"},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "mu-static", "0.2", "v-static", "0.1"}, "belongs to friction=\"regularized\""},
		{"point-circle", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "radius-j", "0"}, "radius-j must be > 0"},
		{"point-segment", []string{"i", "ball", "j", "ground.floor", "j-end", "ground.floor", "k", "1e5"}, "zero length"},
		{"point-line", []string{"i", "ball", "j", "ground.floor", "k", "1e5", "exponent", "0.5"}, "exponent must be ≥ 1"},
	} {
		ms := ballSpec("rk4", 1e-3, 0.3)
		ms.Contacts = []spec.Contact{{Kind: tc.kind, Name: "c", Attr: attrs(tc.at...)}}
		_, err := Compile(ms, CompileOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.kind, tc.at, err, tc.want)
		}
	}
}

// TestContactHuntCrossleyRestitution drops a ball (no gravity, launched at
// the ground) through the whole engine and compares the rebound speed with
// the closed-form restitution of the Hunt–Crossley law: with a fixed
// hysteresis damping α, e = RestitutionHysteresis(α v0); with a target
// restitution, α is set from the impact speed at first touch, so every
// impact gives e exactly.
func TestContactHuntCrossleyRestitution(t *testing.T) {
	run := func(integ string, h, v0 float64, law ...string) float64 {
		s := ballSpec(integ, h, 0.1005, append([]string{"law", "hunt-crossley", "k", "1e8", "exponent", "1.5"}, law...)...)
		s.Settings.Gravity = vec(0, 0)
		s.Bodies[0].Vel = vec(0, -v0)
		m := mustCompile(t, s)
		st := mustInit(t, m)
		// contact lasts ~ a few hundred µs; run until well separated
		if err := m.AdvanceTo(st, 0.0005/v0+0.004); err != nil {
			t.Fatal(err)
		}
		if st.q[1] < 0.1 {
			t.Fatalf("ball still in contact: y = %g", st.q[1])
		}
		return st.v[1] / v0
	}
	for _, integ := range []string{"rk4", "genalpha"} {
		h := 5e-6
		if integ == "genalpha" {
			h = 1e-6
		}
		for _, v0 := range []float64{0.5, 2} {
			alpha := 0.3
			want := contact.RestitutionHysteresis(alpha * v0)
			if got := run(integ, h, v0, "c", ftoa(alpha)); math.Abs(got-want) > 1e-6 {
				t.Errorf("%s v0=%g α=%g: e = %.6f, closed form %.6f", integ, v0, alpha, got, want)
			}
			if got := run(integ, h, v0, "restitution", "0.7"); math.Abs(got-0.7) > 1e-6 {
				t.Errorf("%s v0=%g restitution 0.7: e = %.6f", integ, v0, got)
			}
		}
	}
}

// TestContactNoAllocs checks that stepping models with contacts, events and
// stick–slip decisions allocates nothing in steady state, for the explicit
// and the implicit schemes.
func TestContactNoAllocs(t *testing.T) {
	for _, integ := range []string{"rk4", "genalpha"} {
		m := mustCompile(t, beltSpec(integ, 1e-3))
		s := mustInit(t, m)
		if err := m.AdvanceTo(s, 0.01); err != nil {
			t.Fatal(err)
		}
		ev0 := s.cw.events
		allocs := testing.AllocsPerRun(5, func() {
			if err := m.AdvanceTo(s, s.T+0.2); err != nil {
				t.Fatal(err)
			}
		})
		if s.cw.events == ev0 || s.cw.lcps == 0 {
			t.Fatalf("%s: no contact events or LCPs were exercised", integ)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations per AdvanceTo with contacts", integ, allocs)
		}
	}
}

// TestContactStateSnapshot checks that a state saved mid-run (stick/slip
// modes included) and restored — by CopyFrom and by MarshalBinary — continues
// exactly like the original.
func TestContactStateSnapshot(t *testing.T) {
	m := mustCompile(t, beltSpec("rk4", 1e-3))
	a := mustInit(t, m)
	if err := m.AdvanceTo(a, 0.3); err != nil { // slipping
		t.Fatal(err)
	}
	blob, err := a.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b := m.NewState()
	b.CopyFrom(a)
	c := m.NewState()
	if err := c.UnmarshalBinary(blob); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*State{a, b, c} {
		if err := m.AdvanceTo(s, 0.9); err != nil { // through slip → stick → slip
			t.Fatal(err)
		}
	}
	for i := range a.core {
		if b.core[i] != a.core[i] || c.core[i] != a.core[i] {
			t.Fatalf("restored states diverge at core[%d]: %v %v %v", i, a.core[i], b.core[i], c.core[i])
		}
	}
}
