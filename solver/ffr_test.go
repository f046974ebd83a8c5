package solver

import (
	"math"
	"math/rand"
	"mbfmu/solver/mech"
	"mbfmu/spec"
	"strings"
	"testing"
)

// hubBeamSpec is seed 001: a hub (J = 0.25 kg·m², radius 0.1 m) pinned at
// its centre, spinning at ω0, with an aluminium beam (L = 1.8 m) clamped at
// its rim, loaded by a tip force (4, 0.2) N in the floating frame; no
// gravity. reduction "none", "modal", "krylov" or "craig-bampton".
func hubBeamSpec(omega0 float64, elements int, coupling, reduction string, modes int) *spec.Model {
	attrs := beamAttrs("i", "hub.rim", "length", 1.8, "elements", elements, "area", 2.5e-4,
		"area-moment", 1.302e-10, "youngs", 6.895e10, "density", 2.767e3, "marker.tip", 1.8,
		"coupling", coupling, "reduction", reduction, "modes", modes)
	return &spec.Model{
		Name:     "hub_beam",
		Settings: spec.Settings{End: 5, Step: 1e-3, Gravity: vec(0, 0), NewtonTol: 1e-8},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "hub", Mass: num(1), Inertia: num(0.25), Omega: num(omega0),
			Markers: []spec.Marker{{Name: "rim", At: vec(0.1, 0)}}}},
		Joints: []spec.Joint{{Kind: "revolute", Name: "axle", I: "ground.O", J: "hub"}},
		Beams:  []spec.Beam{{Kind: "ffr", Name: "beam", Attr: attrs}},
		Forces: []spec.Force{{Kind: "force", Name: "F", I: "beam.tip", FX: num(4), FY: num(0.2), Frame: "marker"}},
	}
}

// spinUpSpec is the spin-up of Kane, Ryan & Banerjee (1987): a beam
// (L = 10 m, A = 4e-4 m², I = 2e-7 m⁴, E = 7e10 Pa, ρ = 3000 kg/m³)
// clamped on the axis of a hub whose angle is prescribed,
// θ = Ωs/Ts (t²/2 + (Ts/2π)² (cos(2πt/Ts) − 1)) for t < Ts, Ωs (t − Ts/2)
// after; no gravity. kind "ffr" (with coupling) or "ancf".
func spinUpSpec(kind, coupling string, elements int, omegaS, ts, end, h float64) *spec.Model {
	sp := &spec.Model{
		Name:     "spin_up",
		Settings: spec.Settings{End: end, Step: h, Gravity: vec(0, 0), NewtonTol: 1e-8},
		Params:   []spec.Param{{Name: "Ws", Value: omegaS}, {Name: "Ts", Value: ts}},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "hub", Mass: num(1), Inertia: num(1),
			Markers: []spec.Marker{{Name: "root"}}}},
		Joints: []spec.Joint{{Kind: "revolute", Name: "axle", I: "ground.O", J: "hub"}},
		Drivers: []spec.Driver{{Name: "spin", Joint: "axle",
			Value: ex("if(time < Ts, Ws/Ts*(time^2/2 + (Ts/(2*pi))^2*(cos(2*pi*time/Ts) - 1)), Ws*(time - Ts/2))")}},
	}
	attrs := beamAttrs("length", 10.0, "elements", elements, "area", 4e-4, "area-moment", 2e-7,
		"youngs", 7e10, "density", 3000.0, "marker.tip", 10.0, "marker.root", 0.0)
	if kind == "ffr" {
		attrs["i"] = spec.Expr{Src: "hub.root"}
		attrs["coupling"] = spec.Expr{Src: coupling}
	} else {
		attrs["at.x"], attrs["at.y"] = num(0), num(0)
		attrs["i"] = spec.Expr{Src: "hub.root"}
	}
	sp.Beams = []spec.Beam{{Kind: kind, Name: "beam", Attr: attrs}}
	return sp
}

// The FFR element's analytic K = −∂Q/∂q − c_a ∂Q/∂q̈ and C = −∂Q/∂v agree
// with central differences (full and reduced bases, both couplings, with
// gravity, and point loads in the global and the floating frame).
func TestFFRElementDerivatives(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, c := range []struct {
		coupling, red string
		modes         int
	}{{"zero-order", "none", 1}, {"stiffened", "none", 1}, {"stiffened", "krylov", 8}, {"zero-order", "craig-bampton", 2}} {
		sp := hubBeamSpec(1, 4, c.coupling, c.red, c.modes)
		sp.Settings.Gravity = vec(0.3, -9.81)
		sp.Bodies[0].Markers[0].At = vec(0.1, 0.05)
		sp.Bodies[0].Markers[0].Angle = num(0.3)
		sp.Bodies[0].CM = vec(0.02, -0.01)
		sp.Beams[0].Attr["damping"] = num(1e-3)
		sp.Forces = append(sp.Forces, spec.Force{Kind: "force", Name: "G", I: "beam.tip", FX: num(-1), FY: num(2)})
		m := mustCompile(t, sp)
		for _, f := range m.forces {
			d := f.Dofs()
			n := len(d)
			q := make([]float64, m.nq)
			v := make([]float64, m.nq)
			a := make([]float64, m.nq)
			for i := range q {
				sc := 0.01
				if i >= 3 {
					sc = 1e-3 // elastic coordinates: small, so elastic forces stay moderate
				}
				q[i] = m.q0[i] + sc*rng.NormFloat64()
				v[i] = rng.NormFloat64()
				a[i] = rng.NormFloat64()
			}
			q[2] = 0.7
			x := &mech.Ctx{Q: q, V: v, A: a, Vars: make([]float64, m.vars), CA: 37}
			fl, k, cc := make([]float64, n), make([]float64, n*n), make([]float64, n*n)
			f.Eval(x, fl, k, cc)
			force := func() []float64 {
				g := make([]float64, n)
				f.Eval(x, g, nil, nil)
				return g
			}
			const h = 1e-4
			// tolerance: relative, plus the round-off of the differences
			fmax := 0.0
			for i := 0; i < n; i++ {
				fmax = math.Max(fmax, math.Abs(fl[i]))
			}
			noise := 1e-9 + 100*2.2e-16*fmax/h
			for j := 0; j < n; j++ {
				num := make([]float64, n)
				numC := make([]float64, n)
				for _, w := range []struct {
					vec []float64
					fac float64
					dst []float64
				}{{q, 1, num}, {a, x.CA, num}, {v, 1, numC}} {
					// central differences with one Richardson step: exact for
					// the cubic elastic forces up to round-off
					s := w.vec[d[j]]
					diff := func(hh float64) []float64 {
						w.vec[d[j]] = s + hh
						fp := force()
						w.vec[d[j]] = s - hh
						fm := force()
						w.vec[d[j]] = s
						for i := range fp {
							fp[i] = (fp[i] - fm[i]) / (2 * hh)
						}
						return fp
					}
					d1, d2 := diff(h), diff(h/2)
					for i := 0; i < n; i++ {
						w.dst[i] -= w.fac * (4*d2[i] - d1[i]) / 3
					}
				}
				for i := 0; i < n; i++ {
					if e := math.Abs(num[i] - k[i*n+j]); e > 1e-6*math.Abs(num[i])+noise {
						t.Errorf("%v %T: K(%d,%d) = %g, differences %g", c, f, i, j, k[i*n+j], num[i])
					}
					if e := math.Abs(numC[i] - cc[i*n+j]); e > 1e-6*math.Abs(numC[i])+noise {
						t.Errorf("%v %T: C(%d,%d) = %g, differences %g", c, f, i, j, cc[i*n+j], numC[i])
					}
				}
			}
		}
	}
}

// cantileverBetaL are the roots of cos βL cosh βL = −1.
var cantileverBetaL = [...]float64{1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349}

// Natural frequencies of the FFR beam clamped to a body welded to the
// ground (Linearize), full FE and reduced, against Euler–Bernoulli
// ω_i = (β_i L)² √(EI/(ρA L⁴)): the full FE model and the modal basis (its
// exact eigenvectors) to 1e-4; Krylov (σ = 0, 5 vectors: a Rayleigh–Ritz
// basis) from above, the first two modes to 1e-4; Craig–Bampton (tip node
// + 4 modes) from above.
func TestFFRFrequencies(t *testing.T) {
	L, E, A, I, rho := 1.8, 6.895e10, 2.5e-4, 1.302e-10, 2.767e3
	w0 := math.Sqrt(E * I / (rho * A * math.Pow(L, 4)))
	for _, c := range []struct {
		red        string
		modes      int
		tol        []float64 // relative tolerance per mode
		mustExceed bool
	}{
		{"none", 1, []float64{1e-5, 1e-5, 1e-4, 3e-4}, false},
		{"modal", 6, []float64{1e-5, 1e-5, 1e-4, 3e-4}, false},
		{"krylov", 5, []float64{1e-5, 1e-4, 0.05, 0.5}, true},
		{"craig-bampton", 4, []float64{2e-5, 5e-4, 2e-3, 5e-3}, true},
	} {
		sp := hubBeamSpec(0, 20, "zero-order", c.red, c.modes)
		sp.Forces = nil
		sp.Joints = []spec.Joint{{Kind: "fixed", Name: "weld", I: "ground.O", J: "hub"}}
		if c.red == "krylov" {
			sp.Beams[0].Attr["krylov-input"] = spec.Expr{Src: "transverse"}
		}
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		lin, err := m.Linearize(s)
		if err != nil {
			t.Fatal(err)
		}
		for i, tol := range c.tol {
			want := cantileverBetaL[i] * cantileverBetaL[i] * w0 / (2 * math.Pi)
			got := lin.Modes[i].Freq
			rel := got/want - 1
			t.Logf("%-13s mode %d: %.6f Hz (EB %.6f Hz, rel. error %.2g)", c.red, i+1, got, want, rel)
			if math.Abs(rel) > tol || (c.mustExceed && rel < -1e-6) {
				t.Errorf("%s mode %d: %.6f Hz, EB %.6f Hz (tolerance %g)", c.red, i+1, got, want, tol)
			}
		}
	}
}

// A free hub–beam (no loads after a short tip impulse) conserves energy
// and angular momentum about the axle: checks the configuration-dependent
// inertia (mass coupling, Coriolis and centrifugal terms) and the kinetic
// energy correction, for both couplings, full and reduced. Trapezoidal
// generalized-α (ρ∞ = 1).
func TestFFRConservation(t *testing.T) {
	for _, c := range []struct {
		coupling, red string
		modes         int
	}{{"zero-order", "none", 1}, {"stiffened", "none", 1}, {"stiffened", "krylov", 10}, {"zero-order", "krylov", 4}} {
		sp := hubBeamSpec(3, 8, c.coupling, c.red, c.modes)
		sp.Settings.RhoInf, sp.Settings.RhoSet = 1, true
		sp.Settings.Step = 5e-4
		sp.Forces = []spec.Force{{Kind: "force", Name: "kick", I: "beam.tip", FY: ex("if(time < 0.05, 2, 0)"), Frame: "marker"}}
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		// angular momentum about the axle: ∂T/∂ω of the kinetic energy
		// ½ vᵀ M(q) v (central differences are exact for a quadratic)
		momentum := func() float64 {
			w0 := s.v[2]
			const d = 1e-3
			s.v[2] = w0 + d
			tp := chanValue(t, m, s, "energy.kinetic")
			s.v[2] = w0 - d
			tm := chanValue(t, m, s, "energy.kinetic")
			s.v[2] = w0
			return (tp - tm) / (2 * d)
		}
		if err := m.AdvanceTo(s, 0.1); err != nil {
			t.Fatal(err)
		}
		e0, h0 := chanValue(t, m, s, "energy.total"), momentum()
		us := 0.0
		de, dh := 0.0, 0.0
		for k := 1; k <= 40; k++ {
			if err := m.AdvanceTo(s, 0.1+0.05*float64(k)); err != nil {
				t.Fatal(err)
			}
			de = math.Max(de, math.Abs(chanValue(t, m, s, "energy.total")-e0))
			dh = math.Max(dh, math.Abs(momentum()-h0))
			us = math.Max(us, chanValue(t, m, s, "beam.energy"))
		}
		t.Logf("%v: E %.6f J (max strain energy %.3g J): max |ΔE| %.2g, H %.6f: max |ΔH| %.2g", c, e0, us, de, h0, dh)
		if de > 2e-6*e0 || dh > 1e-6*math.Abs(h0) {
			t.Errorf("%v: energy drift %.3g J (strain energy %.3g J), momentum drift %.3g (of %.4g)", c, de, us, dh, h0)
		}
	}
}

// The spin-up of Kane, Ryan & Banerjee (1987), Ωs = 6 rad/s > ω₁ =
// 3.8 rad/s, Ts = 15 s: the stiffened FFR beam and the ANCF beam (an
// independent, fully nonlinear formulation) agree on the tip deflection in
// the rotating frame (peak ≈ −0.57 m), while the zero-order model's
// deflection grows without bound once the spin passes ω₁ (its centrifugal
// softening −Ω²M is not balanced by the geometric stiffening).
func TestSpinUp(t *testing.T) {
	const h, end = 2e-3, 20.0
	run := func(kind, coupling string, upto float64) ([]float64, error) {
		m := mustCompile(t, spinUpSpec(kind, coupling, 10, 6, 15, end, h))
		s := mustInit(t, m)
		var out []float64
		for k := 1; float64(k)*0.1 <= upto+1e-9; k++ {
			if err := m.AdvanceTo(s, 0.1*float64(k)); err != nil {
				return out, err
			}
			out = append(out, chanValue(t, m, s, "beam.tip.defl"))
		}
		return out, nil
	}
	ancf, err := run("ancf", "", end)
	if err != nil {
		t.Fatal(err)
	}
	stiff, err := run("ffr", "stiffened", end)
	if err != nil {
		t.Fatal(err)
	}
	peak, diff := 0.0, 0.0
	for i := range ancf {
		peak = math.Max(peak, math.Abs(ancf[i]))
		diff = math.Max(diff, math.Abs(ancf[i]-stiff[i]))
	}
	t.Logf("ANCF peak |deflection| %.4f m, max |stiffened FFR − ANCF| %.2g m; at 20 s: %.5f, %.5f", peak, diff, ancf[len(ancf)-1], stiff[len(stiff)-1])
	if peak < 0.5 || peak > 0.6 || diff > 0.01*peak {
		t.Errorf("peak %.4f m (expected ≈ 0.57), difference %.3g m", peak, diff)
	}
	zero, err := run("ffr", "zero-order", 12)
	big := 0.0
	for _, d := range zero {
		big = math.Max(big, math.Abs(d))
	}
	t.Logf("zero-order: max |deflection| %.3g m by %.1f s (%v)", big, 0.1*float64(len(zero)), err)
	if big < 5 && err == nil {
		t.Errorf("the zero-order model did not diverge: max |deflection| %.3g m", big)
	}
}

// Stepping and output evaluation allocate nothing with flexible beams
// (ANCF pendulum; FFR hub–beam, full and reduced, both couplings).
func TestFlexibleNoAllocs(t *testing.T) {
	specs := []*spec.Model{ancfPendulumSpec(16, 1e-3, 1), hubBeamSpec(1, 6, "stiffened", "none", 1),
		hubBeamSpec(1, 6, "zero-order", "krylov", 4), hubBeamSpec(1, 6, "zero-order", "craig-bampton", 2)}
	for _, sp := range specs {
		m := mustCompile(t, sp)
		s := mustInit(t, m)
		ch := make([]float64, len(m.Channels()))
		if err := m.AdvanceTo(s, 0.01); err != nil {
			t.Fatal(err)
		}
		n := testing.AllocsPerRun(20, func() {
			if err := m.AdvanceTo(s, s.T+0.003); err != nil {
				t.Fatal(err)
			}
			m.EvalChannels(s, ch)
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per step", sp.Name, n)
		}
	}
}

// The stiffened coupling with a basis that has no axial shapes (modal,
// Krylov of the transverse force alone) locks the beam: it is refused,
// naming the attribute. (Craig–Bampton gets the tip's axial Krylov
// vectors: TestSpinUpStiffenedCraigBampton.)
func TestFFRStiffenedNeedsAxialShapes(t *testing.T) {
	for _, red := range []string{"modal"} {
		_, err := Compile(hubBeamSpec(1, 6, "stiffened", red, 4), CompileOptions{})
		if err == nil || !strings.Contains(err.Error(), "the stiffened coupling needs the axial shapes") {
			t.Errorf("%s: got %v", red, err)
		}
	}
}
