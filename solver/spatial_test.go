package solver

import (
	"math/rand"
	"testing"

	"mbfmu/spec"
	"mbfmu/xml"
)

func vec3(x, y, z float64) spec.Vec { return spec.Vec{num(x), num(y), num(z)} }

// heavyTopSpec is the heavy top of Arnold & Brüls (2007): a symmetric top
// on a spherical joint at the origin, spinning fast about its body y axis
// (its reference test, TestExampleHeavyTop, runs examples/heavy-top).
func heavyTopSpec(integ string, h, end float64) *spec.Model {
	return &spec.Model{
		Name: "heavy_top", Dimension: 3,
		Settings: spec.Settings{End: end, Step: h, Integrator: integ, Gravity: vec3(0, 0, -9.81), NewtonTol: 1e-10},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "top", Mass: num(15),
			InertiaTensor: [6]spec.Expr{num(0.234375), num(0.46875), num(0.234375)},
			CM:            vec3(0, 1, 0), AngVel: vec3(0, 150, -4.61538),
			Markers: []spec.Marker{{Name: "tip"}}}},
		Joints: []spec.Joint{{Kind: "spherical", Name: "pivot", I: "ground.O", J: "top.tip"}},
	}
}

// Element derivatives of a spatial model with every joint kind.
func TestSpatialJacobians(t *testing.T) {
	m := mustCompile(t, heavyTopSpec("genalpha", 1e-3, 1))
	s := m.NewState()
	copy(s.q, m.q0)
	rng := rand.New(rand.NewSource(2))
	e := make([]float64, m.nv)
	for i := range e {
		e[i] = 0.3 * rng.NormFloat64()
		s.v[i] = rng.NormFloat64()
	}
	m.addTo(s.q, e, 1)
	checkElementDerivatives(t, m, s, rng)
}

// Every spatial joint, driver, force and contact element against finite
// differences at random poses (testdata/spatial_elements.xml).
func TestSpatialElementDerivatives(t *testing.T) {
	ms, err := xml.LoadFile("testdata/spatial_elements.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := mustCompile(t, ms)
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 3; trial++ {
		s := m.NewState()
		copy(s.q, m.q0)
		e := make([]float64, m.nv)
		for i := range e {
			e[i] = 0.2 * rng.NormFloat64()
			s.v[i] = rng.NormFloat64()
			s.a[i] = rng.NormFloat64()
		}
		for i := range s.lam {
			s.lam[i] = rng.NormFloat64()
		}
		m.addTo(s.q, e, 1)
		s.setTime(0.3 + float64(trial))
		checkElementDerivatives(t, m, s, rng)
	}
}
