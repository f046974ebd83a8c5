package solver_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// An over-constrained parallelogram: one 2 m, 2 kg coupler pinned to all
// three cranks of IFToMM A02 (N = 2). One constraint equation is redundant;
// it is found and removed at Init, and the motion equals that of the
// non-redundant A02 model with two 1 m couplers (in this motion the
// couplers translate, so one 2 kg bar has the same kinetic and potential
// energy as two 1 kg bars).
func TestRedundantConstraintsRemoved(t *testing.T) {
	base, err := os.ReadFile("../examples/double-four-bar/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(base)
	i := strings.Index(src, `  <!-- couplers`)
	j := strings.Index(src, `  <revolute name="pA0"`)
	k := strings.Index(src, `  <output`)
	red := src[:i] + `  <body name="coupler" mass="2*M" inertia="2*M*(2*L)^2/12" cm="L, 0" at="0, L" velocity="1 0">
    <marker name="left"/><marker name="mid" at="L, 0"/><marker name="right" at="2*L, 0"/>
  </body>
` + src[j:strings.Index(src, `  <revolute name="pB0"`)] + `  <revolute name="pB0" i="crank0.B" j="coupler.left"/>
  <revolute name="pB1" i="crank1.B" j="coupler.mid"/>
  <revolute name="pB2" i="crank2.B" j="coupler.right"/>
` + src[k:]
	run := func(text, name string) (*solver.Model, *solver.State) {
		spec, err := xml.Parse([]byte(text), name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := solver.Compile(spec, solver.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := m.NewState()
		if err := m.Init(s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m, s
	}
	m1, s1 := run(src, "a02.xml")
	m2, s2 := run(red, "redundant.xml")
	if r := s1.Redundant(); r != nil {
		t.Errorf("A02 is not redundant, got %v", r)
	}
	if r := s2.Redundant(); len(r) != 1 || !strings.Contains(r[0], "(1)") {
		t.Fatalf("redundant equations: %v, want one", r)
	}
	if d := m2.DOF(s2); d != 1 {
		t.Errorf("DOF %d, want 1", d)
	}
	b1, _ := m1.ChannelIndex("crank0.B.x")
	b2, _ := m2.ChannelIndex("crank0.B.x")
	c1 := make([]float64, len(m1.Channels()))
	c2 := make([]float64, len(m2.Channels()))
	worst := 0.0
	for _, tt := range []float64{0.5, 1, 1.5, 2} {
		if err := m1.AdvanceTo(s1, tt); err != nil {
			t.Fatal(err)
		}
		if err := m2.AdvanceTo(s2, tt); err != nil {
			t.Fatal(err)
		}
		m1.EvalChannels(s1, c1)
		m2.EvalChannels(s2, c2)
		worst = math.Max(worst, math.Abs(c1[b1]-c2[b2]))
	}
	if worst > 1e-8 {
		t.Errorf("B0 of the redundant model differs from A02 by %.2e m", worst)
	}
	t.Logf("removed %v; B0 agrees with A02 to %.2e m over 2 s", s2.Redundant(), worst)

	// A redundant joint that contradicts the others is an error naming it.
	bad := strings.Replace(red, `<marker name="mid" at="L, 0"/>`, `<marker name="mid" at="1.1*L, 0"/>`, 1)
	spec, err := xml.Parse([]byte(bad), "bad.xml")
	if err != nil {
		t.Fatal(err)
	}
	m3, err := solver.Compile(spec, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m3.Init(m3.NewState()); err == nil || !strings.Contains(err.Error(), "assembly failed") {
		t.Errorf("inconsistent redundant geometry: got %v", err)
	} else {
		t.Logf("inconsistent geometry: %v", err)
	}
}
