package solver

import (
	"math"
	"mbfmu/spec"
	"strconv"
	"testing"
)

// num makes a plain-number expression.
func num(v float64) spec.Expr {
	return spec.Expr{Src: strconv.FormatFloat(v, 'g', -1, 64), Field: "test"}
}

func ex(s string) spec.Expr { return spec.Expr{Src: s, Field: "test"} }

func vec(x, y float64) spec.Vec { return spec.Vec{num(x), num(y)} }

func mustCompile(t testing.TB, s *spec.Model) *Model {
	t.Helper()
	m, err := Compile(s, CompileOptions{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return m
}

func mustInit(t testing.TB, m *Model) *State {
	t.Helper()
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatalf("init: %v", err)
	}
	return s
}

// pendulumSpec is IFToMM A01: a 1 kg point mass on a massless 1 m link,
// released horizontal, g = 9.81. The mass is a rigid body with (almost)
// no inertia, pinned to ground 1 m from its centre of mass.
func pendulumSpec(integ string, h float64) *spec.Model {
	return &spec.Model{
		Name:     "pendulum",
		Settings: spec.Settings{End: 10, Step: h, Integrator: integ, RhoInf: 1, RhoSet: true, NewtonTol: 1e-10},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "bob", Mass: num(1), Inertia: num(1e-10), At: vec(1, 0),
			Markers: []spec.Marker{{Name: "pin", At: vec(-1, 0)}}}},
		Joints: []spec.Joint{{Kind: "revolute", Name: "pivot", I: "ground.O", J: "bob.pin"}},
	}
}

// ellipticK is the complete elliptic integral of the first kind K(k) by the
// arithmetic–geometric mean.
func ellipticK(k float64) float64 {
	a, b := 1.0, math.Sqrt(1-k*k)
	for i := 0; i < 40; i++ {
		a, b = 0.5*(a+b), math.Sqrt(a*b)
	}
	return math.Pi / (2 * a)
}

// chainSpec is an N-link pendulum chain: uniform 1 kg, 1 m bars, revolute
// joints, released horizontal.
func chainSpec(n int, h float64) *spec.Model {
	s := &spec.Model{Name: "chain", Settings: spec.Settings{End: 1, Step: h, NewtonTol: 1e-8},
		Ground: spec.Ground{Markers: []spec.Marker{{Name: "O"}}}}
	for i := 0; i < n; i++ {
		name := "b" + itoa(i)
		s.Bodies = append(s.Bodies, spec.Body{Name: name, Mass: num(1), Inertia: num(1.0 / 12), CM: vec(0.5, 0), At: vec(float64(i), 0),
			Markers: []spec.Marker{{Name: "a", At: vec(0, 0)}, {Name: "b", At: vec(1, 0)}}})
		prev := "ground.O"
		if i > 0 {
			prev = "b" + itoa(i-1) + ".b"
		}
		s.Joints = append(s.Joints, spec.Joint{Kind: "revolute", Name: "j" + itoa(i), I: prev, J: name + ".a"})
	}
	return s
}
