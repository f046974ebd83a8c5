package solver

import (
	"math"
	"mbfmu/spec"
	"strings"
	"testing"
)

// A cantilever made of two ANCF beams clamped end to end (a fixed joint:
// pin rows plus the slope–slope row), clamped at its root to a body that
// is welded to the ground at an angle (the rigid-body clamp row with a
// marker angle), loaded at the tip normal to its axis: the Euler–Bernoulli
// deflection PL³/(3EI), whatever the orientation.
func TestANCFClampsAndBeamToBeam(t *testing.T) {
	L, E, A, I := 1.0, 2.1e11, 1e-4, 8.33e-10
	EI := E * I
	P := 1e-4 * 3 * EI / (L * L)
	ang := 0.7 // body angle 0.4 + marker angle 0.3
	sn, cs := math.Sincos(ang)
	attrs := func(x, y float64, tip string) map[string]spec.Expr {
		return beamAttrs("at.x", x, "at.y", y, "angle", ang, "length", L/2, "elements", 4, "area", A,
			"area-moment", I, "youngs", E, "density", 7850.0, "marker.s", 0.0, "marker.e", L/2, "marker."+tip, L/2)
	}
	sp := &spec.Model{
		Name:     "two_beams",
		Settings: spec.Settings{Gravity: vec(0, 0)},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O", Angle: num(0.4)}}},
		Bodies: []spec.Body{{Name: "base", Mass: num(1), Inertia: num(1), Angle: num(0.4),
			Markers: []spec.Marker{{Name: "root", At: vec(0, 0), Angle: num(0.3)}}}},
		Joints: []spec.Joint{
			{Kind: "fixed", Name: "weld", I: "ground.O", J: "base"},
			{Kind: "fixed", Name: "clamp", I: "base.root", J: "b1.s"},
			{Kind: "fixed", Name: "splice", I: "b1.e", J: "b2.s"},
		},
		Beams: []spec.Beam{{Kind: "ancf", Name: "b1", Attr: attrs(0, 0, "x")},
			{Kind: "ancf", Name: "b2", Attr: attrs(L/2*cs, L/2*sn, "tip")}},
		Forces:  []spec.Force{{Kind: "force", Name: "P", I: "b2.tip", FX: num(P * sn), FY: num(-P * cs)}},
		Outputs: []spec.Output{{Name: "tip_defl", Channel: "b2.tip.defl"}, {Name: "tip_x", Channel: "b2.tip.x"}},
	}
	m := mustCompile(t, sp)
	s := mustInit(t, m)
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	// deflection normal to the axis, measured from the clamped root
	x, y := chanValue(t, m, s, "b2.tip.x"), chanValue(t, m, s, "b2.tip.y")
	d := -sn*x + cs*y
	want := -P * L * L * L / (3 * EI)
	t.Logf("tip deflection %.9g m, EB %.9g m", d, want)
	if math.Abs(d/want-1) > 1e-5 {
		t.Errorf("tip deflection %.9g m, EB %.9g m", d, want)
	}
	out := make([]float64, len(m.OutputInfo()))
	m.EvalOutputs(s, out)
	if math.Abs(out[1]-x) > 1e-15 {
		t.Errorf("declared output tip_x = %g, channel %g", out[1], x)
	}
	names := m.CoordNames()
	if names[3] != "b1.n0.x" || names[3+4*5-1] != "b1.n4.dy" || names[len(names)-1] != "b2.n4.dy" {
		t.Errorf("coordinate names %v", names)
	}
}

// Problems with beams are reported with their field.
func TestFlexibleCompileErrors(t *testing.T) {
	base := func() *spec.Model {
		sp := hubBeamSpec(1, 4, "stiffened", "none", 1)
		sp.Beams = append(sp.Beams, spec.Beam{Kind: "ancf", Name: "a", Attr: beamAttrs("at.x", 0.0, "at.y", 1.0,
			"length", 1.0, "elements", 4, "area", 1e-4, "area-moment", 1e-9, "youngs", 1e9, "density", 1000.0,
			"marker.n1", 0.25, "marker.half", 0.3)})
		return sp
	}
	for _, c := range []struct {
		edit func(*spec.Model)
		want string
	}{
		{func(s *spec.Model) {
			s.Joints = append(s.Joints, spec.Joint{Kind: "revolute", Name: "j", I: "ground.O", J: "beam.tip"})
		}, "joints to markers of the floating-frame beam"},
		{func(s *spec.Model) {
			s.Joints = append(s.Joints, spec.Joint{Kind: "revolute", Name: "j", I: "ground.O", J: "a.half"})
		}, "between nodes"},
		{func(s *spec.Model) {
			s.Joints = append(s.Joints, spec.Joint{Kind: "translational", Name: "j", I: "ground.O", J: "a.n1"})
		}, "cannot attach to a beam"},
		{func(s *spec.Model) {
			s.Joints = append(s.Joints, spec.Joint{Kind: "revolute", Name: "j", I: "ground.O", J: "a.nope"})
		}, `has no marker "nope"`},
		{func(s *spec.Model) { s.Settings.Integrator = "rk4" }, "needs an implicit integrator"},
		{func(s *spec.Model) { s.Beams[0].Attr["coupling"] = spec.Expr{Src: "first-order"} }, "coupling must be"},
		{func(s *spec.Model) {
			s.Beams[0].Attr["reduction"] = spec.Expr{Src: "modal"}
			s.Beams[0].Attr["modes"] = num(20)
		}, "modes asked"},
		{func(s *spec.Model) { s.Beams[1].Attr["youngs"] = num(-1) }, "youngs of beam"},
		{func(s *spec.Model) { s.Beams[1].Attr["marker.far"] = num(2) }, "outside the beam"},
		{func(s *spec.Model) { s.Beams[1].Attr["elements"] = num(2.5) }, "whole number"},
		{func(s *spec.Model) { s.Beams[1].Attr["reduction"] = spec.Expr{Src: "modal"} }, "apply to ffr beams"},
		{func(s *spec.Model) { s.Beams[0].Attr["i"] = spec.Expr{Src: "ground.O"} }, "not to the ground"},
		{func(s *spec.Model) {
			s.Forces = append(s.Forces, spec.Force{Kind: "spring", Name: "k", I: "a.n1", J: "ground.O", K: num(1)})
		}, "cannot attach to a beam marker"},
		{func(s *spec.Model) { s.Beams[1].Name = "hub" }, "name of a body"},
		{func(s *spec.Model) { s.Beams[1].Attr["curvature"] = spec.Expr{Src: "exakt"} }, "must be small-strain or exact"},
		{func(s *spec.Model) { s.Beams[1].Attr["axial-strain"] = spec.Expr{Src: "log"} }, "must be green or engineering"},
		{func(s *spec.Model) { s.Beams[0].Attr["curvature"] = spec.Expr{Src: "exact"} }, "applies to ancf beams"},
	} {
		sp := base()
		c.edit(sp)
		_, err := Compile(sp, CompileOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
}

// Cantilever under an axial tip tension T and a small transverse tip load
// F (beam-column theory, Timoshenko & Gere): δ = (F/T)(L − tanh(kL)/k),
// k = √(T/EI). The stiffened FFR beam (floating frame fixed, loads in the
// beam's frame) and the ANCF beam (loads in the global frame) both carry
// the tension's geometric stiffness; the zero-order FFR beam gives the
// Euler–Bernoulli FL³/(3EI) whatever T.
func TestBeamColumn(t *testing.T) {
	L, E, A, I, rho := 1.8, 6.895e10, 2.5e-4, 1.302e-10, 2.767e3
	EI := E * I
	F := 2e-3
	for _, T := range []float64{4, 40} {
		k := math.Sqrt(T / EI)
		want := F / T * (L - math.Tanh(k*L)/k)
		eb := F * L * L * L / (3 * EI)
		for _, c := range []string{"stiffened", "zero-order", "ancf"} {
			var sp *spec.Model
			if c == "ancf" {
				sp = cantileverSpec(20, L, E, A, I, rho)
				sp.Forces = []spec.Force{{Kind: "force", Name: "P", I: "b.tip", FX: num(T), FY: num(F)}}
			} else {
				sp = hubBeamSpec(0, 20, c, "none", 1)
				sp.Joints = []spec.Joint{{Kind: "fixed", Name: "weld", I: "ground.O", J: "hub"}}
				sp.Forces[0].FX, sp.Forces[0].FY = num(T), num(F)
			}
			m := mustCompile(t, sp)
			s := mustInit(t, m)
			if err := m.Static(s); err != nil {
				t.Fatal(err)
			}
			name := "beam.tip.defl"
			if c == "ancf" {
				name = "b.tip.defl"
			}
			d := chanValue(t, m, s, name)
			ref := want
			if c == "zero-order" {
				ref = eb
			}
			t.Logf("T = %g N, %-10s: δ = %.7g m (beam-column %.7g m, Euler–Bernoulli %.7g m)", T, c, d, want, eb)
			if math.Abs(d/ref-1) > 1e-4 {
				t.Errorf("T = %g N, %s: δ = %.7g m, want %.7g m", T, c, d, ref)
			}
		}
	}
}
