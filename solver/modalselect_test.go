package solver

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// adPendulum is seed 004's free-falling flexible pendulum (case 1) with ne
// elements, integrated by BDF-1 as the seed does; red holds the beam's
// reduction attributes ("" for the full ANCF). dim 3: the spatial cable,
// released with a turn about the vertical so that it leaves its plane
// (generalized-α: BDF is for planar models).
func adPendulum(dim, ne int, red string) string {
	if dim == 3 {
		return fmt.Sprintf(`<model name="p3" dimension="3"><settings end="1.1 s" step="1 ms" integrator="genalpha" newton-tol="1e-6" gravity="0 0 -9.81"/>
  <ground><marker name="O"/></ground>
  <beam kind="ancf" name="rod" at="0 0 0" x-axis="1 0 0" length="1 m" elements="%d" area="4e-4 m^2" area-moment="1.333e-8 m^4"
        youngs="7e5 Pa" density="7200 kg/m^3" omega="0 0 2 rad/s" %s>
    <marker name="root" s="0"/><marker name="tip" s="1 m"/>
  </beam>
  <spherical name="pin" i="ground.O" j="rod.root"/>
</model>`, ne, red)
	}
	return fmt.Sprintf(`<model name="p"><settings end="1.1 s" step="1 ms" integrator="bdf1" newton-tol="1e-6" gravity="0 -9.81"/>
  <ground><marker name="O"/></ground>
  <beam kind="ancf" name="rod" at="0 0" length="1 m" elements="%d" area="4e-4 m^2" area-moment="1.333e-8 m^4"
        youngs="7e5 Pa" density="7.2e3 kg/m^3" %s>
    <marker name="pin" s="0"/><marker name="tip" s="1 m"/>
  </beam>
  <revolute name="pivot" i="ground.O" j="rod.pin"/>
</model>`, ne, red)
}

// adTip runs the pendulum to tEnd and returns the tip's position every
// 0.05 s (x, y for dim 2; x, y, z for dim 3).
func adTip(t *testing.T, dim int, text string, tEnd float64) [][]float64 {
	t.Helper()
	m, s := loadDrive(t, text)
	var out [][]float64
	for k := 1; float64(k)*0.05 <= tEnd+1e-9; k++ {
		if err := m.AdvanceTo(s, float64(k)*0.05); err != nil {
			t.Fatal(err)
		}
		p := []float64{chanAt(t, m, s, "rod.tip.x"), chanAt(t, m, s, "rod.tip.y")}
		if dim == 3 {
			p = append(p, chanAt(t, m, s, "rod.tip.z"))
		}
		out = append(out, p)
	}
	return out
}

// adErr is the largest distance between two tip histories.
func adErr(a, b [][]float64) float64 {
	e := 0.0
	for k := range a {
		d := 0.0
		for i := range a[k] {
			d += (a[k][i] - b[k][i]) * (a[k][i] - b[k][i])
		}
		e = math.Max(e, math.Sqrt(d))
	}
	return e
}

// TestModalSelectionAllModesIsTheFullSolve: with every mode in the support the
// Craig–Bampton transformation is square and the reduced Newton solve is
// the full one: the pendulum (20 elements, 76 interior coordinates) must
// follow the full ANCF to the Newton tolerance's round-off.
func TestModalSelectionAllModesIsTheFullSolve(t *testing.T) {
	full := adTip(t, 2, adPendulum(2, 20, ""), 0.3)
	red := adTip(t, 2, adPendulum(2, 20, `reduction="adaptive" sparsity="76" samples="76"`), 0.3)
	e := adErr(full, red)
	t.Logf("all 76 modes: tip within %.3g m of the full ANCF", e)
	if e > 1e-8 {
		t.Errorf("all modes: tip %.3g m from the full ANCF", e)
	}
}

// TestModalSelectionPendulumConverges runs seed 004's pendulum (40 elements,
// 156 interior coordinates) with the adaptive modal selection at growing
// sparsity against the full ANCF of the same mesh over 0.6 s: the tip's
// error must fall as the support grows and be below 1 mm at 40 modes,
// below 1e-5 m at 80; and the spatial cable likewise.
func TestModalSelectionPendulumConverges(t *testing.T) {
	for _, dim := range []int{2, 3} {
		full := adTip(t, dim, adPendulum(dim, 40, ""), 0.6)
		prev := math.Inf(1)
		for _, c := range []struct {
			sp  int
			tol float64
		}{{20, math.Inf(1)}, {40, 0.1}, {80, 2e-3}, {160, 2e-4}} {
			red := adTip(t, dim, adPendulum(dim, 40, fmt.Sprintf(`reduction="adaptive" sparsity="%d" samples="%d"`, c.sp, 3*c.sp)), 0.6)
			e := adErr(full, red)
			t.Logf("dim %d, sparsity %d: tip within %.3g m of the full ANCF", dim, c.sp, e)
			if e > c.tol || e >= prev {
				t.Errorf("dim %d, sparsity %d: tip %.3g m from the full ANCF (tolerance %g, previous %.3g)", dim, c.sp, e, c.tol, prev)
			}
			prev = e
		}
	}
}

// TestModalSelectionStepAllocatesNothing: a step with the adaptive modal
// selection allocates nothing once running.
func TestModalSelectionStepAllocatesNothing(t *testing.T) {
	m, s := loadDrive(t, adPendulum(2, 20, `reduction="adaptive" sparsity="20" samples="40"`))
	if err := m.AdvanceTo(s, 0.05); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(20, func() {
		if err := m.Step(s, 1e-3); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
}

// TestModalSelectionReplaysExactly: the support is a function of the state, so a
// state copied or serialised in the middle of a run continues bit for bit.
func TestModalSelectionReplaysExactly(t *testing.T) {
	m, s := loadDrive(t, adPendulum(2, 20, `reduction="adaptive" sparsity="20" samples="40"`))
	if err := m.AdvanceTo(s, 0.1); err != nil {
		t.Fatal(err)
	}
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	s2 := m.NewState()
	if err := s2.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*State{s, s2} {
		if err := m.AdvanceTo(st, 0.2); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := chanAt(t, m, s, "rod.tip.y"), chanAt(t, m, s2, "rod.tip.y"); a != b {
		t.Errorf("restored run: tip y %.17g, uninterrupted %.17g", b, a)
	}
}

// TestModalSelectionRefusals: what reduction="adaptive" cannot do is refused
// with the attribute named.
func TestModalSelectionRefusals(t *testing.T) {
	for _, c := range []struct{ red, integ, want string }{
		{`sparsity="10"`, "bdf1", "sparsity of beam \"rod\" applies to reduction=\"adaptive\""},
		{`reduction="adaptive" curvature="exact"`, "bdf1", "needs the seed's element"},
		{`reduction="adaptive"`, "rk4", "implicit integrator"},
		{`reduction="adaptive" sparsity="20" samples="10"`, "bdf1", "must be at least its sparsity"},
		{`reduction="adaptive"`, "bdf2\" adaptive=\"true", "fixed step"},
	} {
		text := strings.Replace(adPendulum(2, 20, c.red), `integrator="bdf1"`, `integrator="`+c.integ+`"`, 1)
		_, err := compileText(t, text, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (%s): got %v, want %q", c.red, c.integ, err, c.want)
		}
	}
	// a sparsity beyond the interior coordinates (12 for 4 elements) is
	// all of them: the full solve
	if _, err := compileText(t, adPendulum(2, 4, `reduction="adaptive" sparsity="500"`), nil); err != nil {
		t.Errorf("sparsity 500 on 4 elements: %v", err)
	}
}
