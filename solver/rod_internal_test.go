package solver

import (
	"math"
	"strings"
	"testing"

	"mbfmu/xml"
)

// The spatial rod's forces are the gradient of its strain energy: a
// virtual displacement of any node (a translation, or a turn about a node
// axis) changes the energy by −Q·δu, to the differences' accuracy, in a
// bent, twisted and stretched state (a wrong B matrix, a transposed
// tangent of the exponential map or a sign fails it).
func TestRodForcesAreEnergyGradient(t *testing.T) {
	const src = `<model name="g" dimension="3">
  <settings gravity="0 0 0"/>
  <ground><marker name="root"/></ground>
  <beam kind="rod" name="b" at="0.1 0.2 0.3" x-axis="1 0.3 0.2" length="1" elements="3" radius="2" bend-axis="0.2 0.4 1"
        area="1e-2" area-moment-y="1e-5" area-moment-z="3e-5" torsion-constant="2e-5"
        youngs="1e7" poisson="0.3" density="1000" damping="0.01" i="ground.root"/>
</model>`
	ms, err := xml.Parse([]byte(src), "g.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(ms, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	// deform: move and turn the nodes by a generic increment
	d := make([]float64, m.nv)
	for i := range d {
		d[i] = 0.05 * math.Sin(1.7*float64(i)+0.3)
	}
	m.addTo(s.q, d, 1)
	q0 := append([]float64(nil), s.q...)
	checked := 0
	for k, f := range m.forces {
		if !strings.Contains(m.fnames[k], "#") || strings.Contains(m.fnames[k], "gyro") {
			continue
		}
		dofs := f.Dofs()
		n := len(dofs)
		q := make([]float64, n)
		f.Eval(&s.x, q, nil, nil)
		var e float64
		for a, j := range dofs {
			const h = 1e-6
			move := func(sg float64) float64 {
				copy(s.q, q0)
				dd := make([]float64, m.nv)
				dd[j] = sg * h
				m.addTo(s.q, dd, 1)
				return f.Potential(&s.x)
			}
			g := (move(1) - move(-1)) / (2 * h)
			copy(s.q, q0)
			e = math.Max(e, math.Abs(-g-q[a]))
			if math.Abs(-g-q[a]) > 1e-6*(1+math.Abs(q[a])) {
				t.Errorf("%s coordinate %d: force %.10g, −∂U/∂u %.10g", m.fnames[k], a, q[a], -g)
			}
		}
		checked++
		t.Logf("%s: forces = −∂U/∂u to %.1e N", m.fnames[k], e)
	}
	if checked != 3 {
		t.Fatalf("checked %d elements, want 3", checked)
	}
}
