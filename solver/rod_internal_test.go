package solver

import (
	"math"
	"math/rand"
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

// The analytic derivatives of the spatial beams' elements against
// differences (checkElementDerivatives): the ANCF cable's K and C, the
// rod's damping C (its K is itself a difference), the pins of cable nodes
// to a spinning body's marker and to another cable's node (Jacobian,
// Hessian, γ), in generic deformed, moving states.
func TestSpatialBeamDerivatives(t *testing.T) {
	m, _ := loadText(t, `<model name="d" dimension="3">
  <settings gravity="0 0 -9.81"/>
  <ground><marker name="O"/></ground>
  <body name="hub" mass="2" inertia="0.1, 0.2, 0.3" at="0 0 0.5" omega="0.3 -0.2 1.1" velocity="0.1 0 0">
    <marker name="rim" at="0.2 0.1 -0.05"/>
  </body>
  <spherical name="ball" i="ground.O" j="hub"/>
  <beam kind="ancf" name="c" at="0.2 0.1 0.45" x-axis="1 0.2 -0.1" length="0.8" elements="3"
        area="1e-4" area-moment="1e-9" youngs="2e9" density="2000" damping="0.002" omega="0 0 1.1">
    <marker name="a" s="0"/><marker name="b" s="0.8"/>
  </beam>
  <beam kind="ancf" name="d" at="1 0.3 0.4" x-axis="0 1 0" length="0.5" elements="2"
        area="1e-4" area-moment="1e-9" youngs="2e9" density="2000">
    <marker name="a" s="0"/>
  </beam>
  <spherical name="p1" i="hub.rim" j="c.a"/>
  <spherical name="p2" i="c.b" j="d.a"/>
  <beam kind="rod" name="r" at="0 0 1" length="0.6" elements="2" radius="1" bend-axis="0 1 0"
        area="1e-4" area-moment-y="1e-9" area-moment-z="2e-9" torsion-constant="1.5e-9"
        youngs="2e6" poisson="0.3" density="2000" damping="0.003" i="hub"/>
</model>`)
	s := m.NewState()
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 2; trial++ {
		copy(s.q, m.q0)
		for i := range s.v {
			s.v[i] = rng.NormFloat64()
			s.dq[i] = 0.02 * rng.NormFloat64()
		}
		m.addTo(s.q, s.dq, 1)
		s.setTime(0.1)
		checkElementDerivatives(t, m, s, rng)
	}
}

// A step of a model with a rod and an ANCF cable pinned to a body, and
// the evaluation of their channels, allocate nothing.
func TestSpatialBeamStepAllocatesNothing(t *testing.T) {
	m, _ := loadText(t, `<model name="a" dimension="3">
  <settings step="1 ms" gravity="0 0 -9.81"/>
  <ground><marker name="O"/></ground>
  <body name="hub" mass="2" inertia="0.1, 0.2, 0.3" at="0 0 0" omega="0 0 1"><marker name="rim" at="0.2 0 0"/></body>
  <spherical name="ball" i="ground.O" j="hub"/>
  <beam kind="rod" name="r" at="0 0 0" length="0.6" elements="4" area="1e-4" area-moment-y="1e-9" area-moment-z="2e-9"
        torsion-constant="1.5e-9" youngs="2e9" poisson="0.3" density="2000" damping="0.001" omega="0 0 1" i="hub"><marker name="tip" s="0.6"/></beam>
  <beam kind="ancf" name="c" at="0.2 0 0" length="0.5" elements="4" area="1e-4" area-moment="1e-9" youngs="2e9" density="2000" damping="0.001"
        velocity="0 0.2 0" omega="0 0 1">
    <marker name="a" s="0"/><marker name="tip" s="0.5"/></beam>
  <spherical name="p" i="hub.rim" j="c.a"/>
</model>`)
	s := mustInit(t, m)
	if allocs := stepAllocs(t, m, s); allocs != 0 {
		t.Errorf("%v allocations per step", allocs)
	}
}

// ffrModels are spatial floating-frame bodies: a stiffened Krylov beam on a
// spinning hub loaded at its tip, and a free FE frame kicked at a node.
var ffrModels = []string{`<model name="a" dimension="3">
  <settings step="1 ms" gravity="0 0 -9.81"/>
  <ground><marker name="O"/></ground>
  <body name="hub" mass="2" inertia="0.1, 0.2, 0.3" omega="0.3 0.2 2"><marker name="rim" at="0.2 0 0"/></body>
  <spherical name="ball" i="ground.O" j="hub"/>
  <beam kind="ffr" name="b" i="hub.rim" length="0.8" elements="4" area="1e-4" area-moment-y="1e-9" area-moment-z="2e-9"
        torsion-constant="1.5e-9" youngs="2e7" poisson="0.3" density="2000" damping="0.001" reduction="krylov" modes="9">
    <marker name="tip" s="0.8"/><marker name="mid" s="0.33"/></beam>
  <force name="f" i="b.tip" fx="1" fy="2*sin(time)" fz="-3" frame="marker"/>
  <torque name="t" i="b.mid" tx="0.1" ty="0.2" tz="0.3"/>
</model>`, `<model name="a" dimension="3">
  <settings step="0.1 ms" gravity="0 0 -9.81"/>
  <fe-body kind="abaqus" name="frame" mass="../examples/fe-frame/frame_MASS1.mtx" stiffness="../examples/fe-frame/frame_STIF1.mtx"
           nodes="../examples/fe-frame/frame.inp" units="mm-t-s" modes="8" omega="1 3 2" damping="1e-4">
    <marker name="tip" node="21"/></fe-body>
  <force name="kick" i="frame.tip" fx="20" fy="-10" fz="5"/>
</model>`}

// The floating-frame elements' tangents equal finite differences of
// their forces, and a step allocates nothing.
func TestFFRDerivativesAndAllocations(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for i, src := range ffrModels {
		m, _ := loadText(t, src)
		s := mustInit(t, m)
		if err := m.AdvanceTo(s, 0.005); err != nil {
			t.Fatal(err)
		}
		checkElementDerivatives(t, m, s, rng)
		if allocs := stepAllocs(t, m, s); allocs != 0 {
			t.Errorf("model %d: %v allocations per step", i, allocs)
		}
	}
}
