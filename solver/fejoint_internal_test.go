package solver

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

// feJointModel joins two free fe-bodies (the L-shaped example frame: a
// modal basis of 6 shapes and a Craig–Bampton basis of 10) at nodes that
// move with the modes, to each other, to a rigid body and to the ground,
// with every joint kind those nodes take and each side order. Not meant
// to be simulated: the joints are not compatible.
const feJointModel = `<model name="fj" dimension="3">
  <settings step="0.1 ms" gravity="0.3 -0.2 -9.81"/>
  <ground><marker name="O" at="0.1 -0.2 0.05" angles="0.2, -0.3, 0.4" sequence="zyx"/></ground>
  <body name="a" mass="2" inertia="0.3, 0.2, 0.25, 0.01, -0.02, 0.015" cm="0.1, 0.05, -0.02" at="1.2, 0.6, 0.4"
        angles="0.7, 0.2, -0.3" sequence="xyz" omega="1 -2 0.5">
    <marker name="p" at="0.3, -0.1, 0.05" axis="1, 2, 3" angle="0.4"/>
  </body>
  <fe-body kind="abaqus" name="fa" mass="../examples/fe-frame/frame_MASS1.mtx" stiffness="../examples/fe-frame/frame_STIF1.mtx"
           nodes="../examples/fe-frame/frame.inp" units="mm-t-s" modes="6" omega="1 3 2" x-axis="1 0.2 0.1">
    <marker name="root" node="1"/><marker name="mid" node="11"/><marker name="tip" node="21"/></fe-body>
  <fe-body kind="abaqus" name="fb" mass="../examples/fe-frame/frame_MASS1.mtx" stiffness="../examples/fe-frame/frame_STIF1.mtx"
           nodes="../examples/fe-frame/frame.inp" units="mm-t-s" modes="9"
           at="0.2 0.1 0.3" x-axis="0.3 1 0" y-axis="0 0 1" velocity="0.1 0 0.2">
    <marker name="root" node="1"/><marker name="c" node="5"/><marker name="tip" node="21"/></fe-body>
  <spherical name="s1" i="ground.O" j="fa.root"/>
  <spherical name="s2" i="fa.tip" j="a.p"/>
  <spherical name="s3" i="fa.mid" j="fb.c"/>
  <revolute name="r1" i="a.p" j="fb.tip"/>
  <revolute name="r2" i="fb.root" j="ground.O"/>
  <revolute name="r3" i="fb.c" j="fa.tip"/>
  <fixed name="f1" i="fa.mid" j="fb.root"/>
  <fixed name="f2" i="a" j="fa.root"/>
  <driver name="d1" joint="r1" value="0.3*sin(2*time) + 0.1"/>
  <driver name="d2" joint="r2" value="-0.2*time^2"/>
  <driver name="d3" joint="r3" value="1.2 + 0.5*time"/>
  <motor name="m1" joint="r1" voltage="3 + time" resistance="2" kt="0.5" ke="0.4"/>
  <stop name="st1" joint="r3" upper="-5" k="10" c="3"/>
  <stop name="st2" joint="r2" lower="5" k="10" c="0.3"/>
  <friction name="fr" joint="r2" model="lugre" preload="1" bristle-damping="2"/>
</model>`

// The rows of joints at moving nodes of fe-bodies (solver/flex/fejoint.go):
// Jacobian, γ and the Hessian of Jᵀλ against central differences at
// random states (positions turned and moved, elastic coordinates and
// velocities random), with checkElementDerivatives.
func TestFEJointDerivatives(t *testing.T) {
	m, _ := loadText(t, feJointModel)
	if len(m.cons) != 11 {
		t.Fatalf("%d constraint elements, want 11", len(m.cons))
	}
	// the elastic coordinates (fa.q1, ...) moved less: the frames' own
	// elastic forces are large and their differences lose digits
	elastic := map[int]bool{}
	for i, n := range m.CoordNames() {
		if strings.HasPrefix(n, "fa.q") || strings.HasPrefix(n, "fb.q") {
			elastic[i] = true
		}
	}
	if len(elastic) != 15 {
		t.Fatalf("%d elastic coordinates, want 15", len(elastic))
	}
	rng := rand.New(rand.NewSource(11))
	// the joints alone (a copy of the model without its force elements)
	// at large deformations too: η moved as much as the frames
	joints := *m
	joints.forces = nil
	for trial := 0; trial < 4; trial++ {
		mm, scale := m, 0.02
		if trial >= 2 {
			mm, scale = &joints, 1
		}
		s := m.NewState()
		copy(s.q, m.q0)
		e := make([]float64, m.nv)
		for i := range e {
			e[i] = 0.2 * rng.NormFloat64()
			if elastic[i] {
				e[i] *= scale
			}
			s.v[i] = rng.NormFloat64()
			s.a[i] = rng.NormFloat64()
		}
		m.addTo(s.q, e, 1)
		s.setTime(0.1 + float64(trial))
		checkElementDerivatives(t, mm, s, rng)
		// the revolute joints' angles: their rates are the derivatives
		// along the motion
		const h = 1e-6
		for _, j := range m.joints {
			if j.Coord == nil {
				continue
			}
			q0 := append([]float64(nil), s.q...)
			at := func(tau float64) float64 {
				copy(s.q, q0)
				m.addTo(s.q, s.v, tau)
				a, _ := j.Coord.Value(&s.x)
				return a
			}
			d := (at(h) - at(-h)) / (2 * h)
			copy(s.q, q0)
			_, rate := j.Coord.Value(&s.x)
			if math.Abs(rate-d) > 1e-6*(1+math.Abs(d)) {
				t.Errorf("%s: angle rate %g, derivative %g", j.Name, rate, d)
			}
		}
	}
}

// A step of a model with joints at moving nodes (the example frame hung
// from a ball joint at node 1, a body on a revolute joint at node 21
// with a motor, a stop and Coulomb friction on it, and a second frame
// fixed to node 11) allocates nothing.
func TestFEJointNoAllocs(t *testing.T) {
	m, _ := loadText(t, `<model name="fj" dimension="3">
  <settings step="0.5 ms" gravity="0 0 -9.81"/>
  <ground><marker name="O"/></ground>
  <fe-body kind="abaqus" name="fa" mass="../examples/fe-frame/frame_MASS1.mtx" stiffness="../examples/fe-frame/frame_STIF1.mtx"
           nodes="../examples/fe-frame/frame.inp" units="mm-t-s" reduction="craig-bampton" interface="1 11 21" modes="4">
    <marker name="root" node="1"/><marker name="mid" node="11"/><marker name="tip" node="21"/></fe-body>
  <fe-body kind="abaqus" name="fb" mass="../examples/fe-frame/frame_MASS1.mtx" stiffness="../examples/fe-frame/frame_STIF1.mtx"
           nodes="../examples/fe-frame/frame.inp" units="mm-t-s" modes="5" at="1 0 0">
    <marker name="root" node="1"/></fe-body>
  <body name="r" mass="1" inertia="0.01, 0.01, 0.01" at="1 0.6 0.4"/>
  <spherical name="pin" i="ground.O" j="fa.root"/>
  <revolute name="hinge" i="fa.tip" j="r"/>
  <fixed name="weld" i="fa.mid" j="fb.root"/>
  <motor name="mo" joint="hinge" voltage="2" resistance="1" inductance="0.01" kt="0.1"/>
  <stop name="st" joint="hinge" lower="-0.01" upper="0.01" k="1e3" c="1"/>
  <friction name="fr" joint="hinge" preload="0.05"/>
</model>`)
	s := mustInit(t, m)
	if a := stepAllocs(t, m, s); a != 0 {
		t.Errorf("%v allocations per step", a)
	}
}
