package solver

import (
	"math"
	"mbfmu/solver/contacts"
	"mbfmu/solver/mech"
	"mbfmu/spec"
	"testing"
)

// twoBodySpec builds two free bodies a and b with off-centre markers and a
// contact of the given kind between them (i on a, j on b; or ground).
func twoBodySpec(kind string, iRef, jRef string, extra ...string) *spec.Model {
	s := &spec.Model{
		Name:     "pair",
		Settings: spec.Settings{Integrator: "rk4", Gravity: vec(0, 0)},
		Ground: spec.Ground{Markers: []spec.Marker{
			{Name: "L", At: vec(0.1, -0.05), Angle: num(0.2)},
			{Name: "P", At: vec(0.3, 0.02)},
			{Name: "E", At: vec(0.9, 0.1)},
		}},
		Bodies: []spec.Body{
			{Name: "a", Mass: num(1), Inertia: num(0.01), At: vec(0.2, 0.3), Angle: num(0.3), CM: vec(0.05, -0.02),
				Markers: []spec.Marker{{Name: "p", At: vec(0.1, -0.25)}}},
			{Name: "b", Mass: num(2), Inertia: num(0.03), At: vec(0.1, 0), Angle: num(-0.1), CM: vec(-0.03, 0.04),
				Markers: []spec.Marker{{Name: "L", At: vec(-0.2, 0.01), Angle: num(0.15)}, {Name: "E", At: vec(0.6, 0.05)},
					{Name: "c", At: vec(0.1, 0.02)}}},
		},
	}
	at := append([]string{"i", iRef, "j", jRef}, extra...)
	s.Contacts = []spec.Contact{{Kind: kind, Name: "k", Attr: attrs(at...)}}
	return s
}

type kinCase struct {
	name                 string
	kind, i, j           string
	extra                []string
	q                    []float64 // overrides of (xa, ya, θa, xb, yb, θb)
	wantFace, wantClosed bool
}

func kinCases() []kinCase {
	law := []string{"law", "hertz", "k", "1e6", "c", "3e4", "friction", "regularized", "mu-static", "0.5", "mu-dynamic", "0.3", "v-static", "0.05", "v-dynamic", "0.3"}
	with := func(x ...string) []string { return append(append([]string{}, x...), law...) }
	return []kinCase{
		{"circle-line bodies", "circle-line", "a.p", "b.L", with("radius", "0.08"), []float64{0.25, 0.34, 0.3, 0.1, 0, -0.1}, true, true},
		{"point-line bodies", "point-line", "a.p", "b.L", with(), []float64{0.25, 0.27, 0.3, 0.1, 0, -0.1}, true, true},
		{"circle-line ground", "circle-line", "a.p", "ground.L", with("radius", "0.08"), []float64{0.2, 0.3, 0.3, 0.1, 0, -0.1}, true, true},
		{"point-line i on ground", "point-line", "ground.P", "b.L", with(), []float64{0.2, 0.3, 0.3, 0.1, 0.01, -0.1}, true, true},
		{"circle-segment face", "circle-segment", "a.p", "b.L", with("radius", "0.08", "j-end", "b.E", "radius-j", "0.02"), []float64{0.25, 0.36, 0.3, 0.1, 0, -0.1}, true, true},
		{"circle-segment cap", "circle-segment", "a.p", "b.L", with("radius", "0.08", "j-end", "b.E", "radius-j", "0.02"), []float64{0.87, 0.45, 0.3, 0.1, 0, -0.1}, false, true},
		{"circle-segment ground cap", "circle-segment", "a.p", "ground.P", with("radius", "0.08", "j-end", "ground.E"), []float64{0.15, 0.32, 0.3, 0.1, 0, -0.1}, false, true},
		{"circle-circle", "circle-circle", "a.p", "b.c", with("radius-i", "0.1", "radius-j", "0.05"), []float64{0.2, 0.35, 0.3, 0.1, 0, -0.1}, false, true},
		{"point-circle hole", "point-circle", "a.p", "b.c", with("radius-j", "-0.1"), []float64{0.2, 0.42, 0.3, 0.1, 0, -0.1}, false, true},
		{"circle in hole", "circle-circle", "a.p", "b.c", with("radius-i", "0.03", "radius-j", "-0.12"), []float64{0.2, 0.42, 0.3, 0.1, 0, -0.1}, false, true},
	}
}

// setState puts q and a generic velocity into s, and moves body a (or b
// when a contact's i is on ground) along the normal to a penetration of
// 5 mm.
func setState(s *State, q []float64) {
	copy(s.q, q)
	copy(s.v, []float64{0.3, -0.7, 1.3, -0.4, 0.2, -0.9})
	if s.m.contacts == nil {
		return
	}
	e := s.m.contacts.elems[0]
	s.cs[contacts.SlotClosed] = 1
	for it := 0; it < 5; it++ {
		var k contacts.Kin
		e.Kin(&s.x, &k)
		d := 0.005 - k.Delta
		bA, bB := e.Bodies()
		if bA >= 0 {
			s.q[3*bA] -= d * k.N[0]
			s.q[3*bA+1] -= d * k.N[1]
		} else {
			s.q[3*bB] += d * k.N[0]
			s.q[3*bB+1] += d * k.N[1]
		}
	}
}

func TestContactKinematicsDerivatives(t *testing.T) {
	for _, tc := range kinCases() {
		t.Run(tc.name, func(t *testing.T) {
			m := mustCompile(t, twoBodySpec(tc.kind, tc.i, tc.j, tc.extra...))
			s := m.NewState()
			setState(s, tc.q)
			e := m.contacts.elems[0]
			var k contacts.Kin
			e.Kin(&s.x, &k)
			if k.Face != tc.wantFace {
				t.Fatalf("face = %v, want %v", k.Face, tc.wantFace)
			}
			fn, _, _ := e.Normal(&s.x, k.Delta, k.Rate)
			if (fn > 0) != tc.wantClosed || k.Delta <= 0 {
				t.Fatalf("δ = %g, F = %g: want a closed contact", k.Delta, fn)
			}
			q0 := append([]float64(nil), s.q...)
			v0 := append([]float64(nil), s.v...)
			dofs := e.Dofs()
			const h = 1e-6
			kinAt := func(dq []float64, dt float64, acc []float64) contacts.Kin {
				for i := range s.q {
					s.q[i] = q0[i] + dq[i] + v0[i]*dt + 0.5*acc[i]*dt*dt
					s.v[i] = v0[i] + acc[i]*dt
				}
				var kk contacts.Kin
				e.Kin(&s.x, &kk)
				copy(s.q, q0)
				copy(s.v, v0)
				return kk
			}
			zero := make([]float64, 6)
			// ∂δ/∂q = −J, ∂J/∂q, ∂W/∂q
			var hj, hw [6][6]float64
			e.Hessians(&k, &hj, &hw)
			rate := 0.0
			for b, d := range dofs {
				if d < 0 {
					continue
				}
				dq := make([]float64, 6)
				dq[d] = h
				kp := kinAt(dq, 0, zero)
				dq[d] = -h
				km := kinAt(dq, 0, zero)
				dd := (kp.Delta - km.Delta) / (2 * h)
				rate += dd * v0[d]
				if math.Abs(dd+k.J[b]) > 1e-7 {
					t.Errorf("∂δ/∂q[%d] = %g, −J = %g", b, dd, -k.J[b])
				}
				for a := 0; a < 6; a++ {
					fj := (kp.J[a] - km.J[a]) / (2 * h)
					fw := (kp.W[a] - km.W[a]) / (2 * h)
					if math.Abs(fj-hj[a][b]) > 1e-6*(1+math.Abs(fj)) {
						t.Errorf("∂J[%d]/∂q[%d] = %g, analytic %g", a, b, fj, hj[a][b])
					}
					if math.Abs(fw-hw[a][b]) > 1e-6*(1+math.Abs(fw)) {
						t.Errorf("∂W[%d]/∂q[%d] = %g, analytic %g", a, b, fw, hw[a][b])
					}
				}
			}
			if math.Abs(rate-k.Rate) > 1e-7 {
				t.Errorf("δ' = %g, finite difference %g", k.Rate, rate)
			}
			// slip velocity = T·(material velocity of A at cA − of B at cB)
			mat := func(body int, pt [2]float64) [2]float64 {
				if body < 0 {
					return [2]float64{}
				}
				o := 3 * body
				r := [2]float64{pt[0] - q0[o], pt[1] - q0[o+1]}
				return [2]float64{v0[o] - r[1]*v0[o+2], v0[o+1] + r[0]*v0[o+2]}
			}
			bA, bB := e.Bodies()
			va, vb := mat(bA, k.PA), mat(bB, k.PB)
			rel := mech.Sub2(va, vb)
			if vt := mech.Dot2(k.T, rel); math.Abs(vt-k.Vt) > 1e-12 {
				t.Errorf("vt = %g, T·(vA − vB) = %g", k.Vt, vt)
			}
			if r := -mech.Dot2(k.N, rel); math.Abs(r-k.Rate) > 1e-12 {
				t.Errorf("δ' = %g, −N·(vA − vB) = %g", k.Rate, r)
			}
			// v̇t = W·q̈ + γ along a trajectory with accelerations acc
			acc := []float64{0.7, -1.1, 2.3, 0.4, -0.6, -1.7}
			kp := kinAt(zero, h, acc)
			km := kinAt(zero, -h, acc)
			dvt := (kp.Vt - km.Vt) / (2 * h)
			want := k.Gamma
			for a, d := range dofs {
				if d >= 0 {
					want += k.W[a] * acc[d]
				}
			}
			if math.Abs(dvt-want) > 1e-6*(1+math.Abs(dvt)) {
				t.Errorf("v̇t = %g (finite difference), W·q̈ + γ = %g", dvt, want)
			}
		})
	}
}

// TestContactTangent checks the analytic K = −∂Q/∂q and C = −∂Q/∂v of the
// contact element against central differences, for regularised friction
// and for Coulomb slip.
func TestContactTangent(t *testing.T) {
	for _, fric := range []string{"regularized", "coulomb"} {
		for _, tc := range kinCases() {
			t.Run(fric+"/"+tc.name, func(t *testing.T) {
				extra := append([]string{}, tc.extra...)
				for i := 0; i < len(extra); i += 2 {
					if extra[i] == "friction" {
						extra[i+1] = fric
					}
				}
				if fric == "coulomb" {
					extra = dropAttrs(extra, "v-static", "v-dynamic")
				}
				m := mustCompile(t, twoBodySpec(tc.kind, tc.i, tc.j, extra...))
				s := m.NewState()
				setState(s, tc.q)
				s.cs[contacts.SlotMode] = -1 // Coulomb: slipping in −T
				e := m.contacts.elems[0]
				const n = 6
				f0 := make([]float64, n)
				kk := make([]float64, n*n)
				cc := make([]float64, n*n)
				e.Eval(&s.x, f0, kk, cc)
				fp, fm := make([]float64, n), make([]float64, n)
				for b, d := range e.Dofs() {
					if d < 0 {
						continue
					}
					for _, vel := range []bool{false, true} {
						x := s.q
						if vel {
							x = s.v
						}
						x0 := x[d]
						hh := 1e-7
						clear(fp)
						clear(fm)
						x[d] = x0 + hh
						e.Eval(&s.x, fp, nil, nil)
						x[d] = x0 - hh
						e.Eval(&s.x, fm, nil, nil)
						x[d] = x0
						for a := 0; a < n; a++ {
							fd := -(fp[a] - fm[a]) / (2 * hh)
							an := kk[a*n+b]
							what := "K"
							if vel {
								an, what = cc[a*n+b], "C"
							}
							if math.Abs(fd-an) > 2e-5*(1+math.Abs(fd)) {
								t.Errorf("%s[%d][%d] = %g, finite difference %g", what, a, b, an, fd)
							}
						}
					}
				}
			})
		}
	}
}

func dropAttrs(kv []string, names ...string) []string {
	var out []string
	for i := 0; i < len(kv); i += 2 {
		drop := false
		for _, n := range names {
			if kv[i] == n {
				drop = true
			}
		}
		if !drop {
			out = append(out, kv[i], kv[i+1])
		}
	}
	return out
}
