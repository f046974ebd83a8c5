package solver

import (
	"math"
	"math/rand"
	"mbfmu/spec"
	"strings"
	"testing"
)

// jacSpec has every rigid constraint row kind and both spring kinds, with
// bodies at generic poses.
func jacSpec() *spec.Model {
	return &spec.Model{
		Name:   "jac",
		Ground: spec.Ground{Markers: []spec.Marker{{Name: "O", At: vec(0.1, -0.2), Angle: num(0.3)}}},
		Bodies: []spec.Body{
			{Name: "a", Mass: num(2), Inertia: num(0.3), CM: vec(0.1, 0.05), At: vec(0.4, 0.2), Angle: num(0.7),
				Markers: []spec.Marker{{Name: "p", At: vec(0.3, -0.1), Angle: num(0.2)}, {Name: "q", At: vec(-0.2, 0.15)}}},
			{Name: "b", Mass: num(1), Inertia: num(0.1), CM: vec(-0.05, 0.02), At: vec(1.1, -0.3), Angle: num(-0.4),
				Markers: []spec.Marker{{Name: "p", At: vec(0.25, 0.05), Angle: num(-0.3)}}},
		},
		Joints: []spec.Joint{
			{Kind: "revolute", Name: "r", I: "a.p", J: "b.p"},
			{Kind: "translational", Name: "t", I: "a.q", J: "b"},
			{Kind: "fixed", Name: "f", I: "ground.O", J: "a.q"},
		},
		Drivers: []spec.Driver{{Name: "d", Joint: "t", Value: ex("0.3*sin(2*time)")}},
		Forces: []spec.Force{
			{Kind: "spring", Name: "s", I: "a.q", J: "b.p", K: num(300), C: num(7), Length: num(0.2), Preload: num(3)},
			{Kind: "spring", Name: "g", I: "ground.O", J: "b.p", K: num(100), C: num(2), Length: num(0.5)},
			{Kind: "rspring", Name: "rs", I: "a", J: "b", K: num(50), C: num(3), Angle: num(0.1)},
			{Kind: "force", Name: "fo", I: "b.p", FX: num(2), FY: num(-1), Frame: "marker"},
			{Kind: "force", Name: "fg", I: "a.q", FX: num(1), FY: num(4)},
		},
	}
}

// The analytic Jacobians, acceleration terms and Hessians of every
// constraint row, and the tangent stiffness and damping of every force
// element, against central finite differences at a random state.
func TestJacobiansFiniteDifference(t *testing.T) {
	m := mustCompile(t, jacSpec())
	s := m.NewState()
	rng := rand.New(rand.NewSource(1))
	copy(s.q, m.q0)
	for i := range s.q {
		s.q[i] += 0.1 * rng.NormFloat64()
		s.v[i] = rng.NormFloat64()
	}
	s.setTime(0.37)
	const h = 1e-6
	nq := m.nq
	for r := range m.rows {
		var e, ep, em rowEval
		m.rows[r].eval(&s.x, &e, true)
		var H [36]float64
		e.addHess(1, &H)
		for k, i := range m.rows[r].dofs {
			if i < 0 {
				continue
			}
			q0 := s.q[i]
			s.q[i] = q0 + h
			m.rows[r].eval(&s.x, &ep, true)
			s.q[i] = q0 - h
			m.rows[r].eval(&s.x, &em, true)
			s.q[i] = q0
			if d := (ep.phi - em.phi) / (2 * h); math.Abs(d-e.jac[k]) > 1e-7 {
				t.Errorf("row %d (%s) ∂Φ/∂q[%d]: analytic %g, FD %g", r, m.joints[m.rows[r].owner].name, k, e.jac[k], d)
			}
			for k2 := range m.rows[r].dofs {
				if d := (ep.jac[k2] - em.jac[k2]) / (2 * h); math.Abs(d-H[k2*6+k]) > 1e-6 {
					t.Errorf("row %d Hessian (%d,%d): analytic %g, FD %g", r, k2, k, H[k2*6+k], d)
				}
			}
		}
		// γ = −(Φq v)_q v − 2 Φqt v − Φtt: check Φ̈ along a trajectory
		// q(τ) = q + τ v + τ²/2 a with a random a: Φ̈ = Φq a − γ.
		a := make([]float64, nq)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		phiAt := func(tau float64) float64 {
			q := append([]float64(nil), s.q...)
			v := append([]float64(nil), s.v...)
			defer func() { copy(s.q, q); copy(s.v, v); s.setTime(0.37) }()
			for i := range s.q {
				s.q[i] = q[i] + tau*v[i] + 0.5*tau*tau*a[i]
			}
			s.setTime(0.37 + tau)
			var x rowEval
			m.rows[r].eval(&s.x, &x, false)
			return x.phi
		}
		const ht = 1e-4
		ddphi := (phiAt(ht) - 2*phiAt(0) + phiAt(-ht)) / (ht * ht)
		want := -e.gamma
		for k, i := range m.rows[r].dofs {
			if i >= 0 {
				want += e.jac[k] * a[i]
			}
		}
		if math.Abs(ddphi-want) > 1e-5*math.Max(1, math.Abs(want)) {
			t.Errorf("row %d (%s): Φ̈ FD %g, Φq a − γ = %g", r, m.joints[m.rows[r].owner].name, ddphi, want)
		}
	}
	for e, f := range m.forces {
		d := f.dofs()
		n := len(d)
		fl, k, c := make([]float64, n), make([]float64, n*n), make([]float64, n*n)
		f.eval(&s.x, fl, k, c)
		fp, fm := make([]float64, n), make([]float64, n)
		for b, j := range d {
			if j < 0 {
				continue
			}
			for _, vec := range []struct {
				x   []float64
				jac []float64
				nm  string
			}{{s.q, k, "K"}, {s.v, c, "C"}} {
				x0 := vec.x[j]
				clear(fp)
				clear(fm)
				vec.x[j] = x0 + h
				f.eval(&s.x, fp, nil, nil)
				vec.x[j] = x0 - h
				f.eval(&s.x, fm, nil, nil)
				vec.x[j] = x0
				for a := range d {
					if d[a] < 0 {
						continue
					}
					fd := -(fp[a] - fm[a]) / (2 * h)
					if math.Abs(fd-vec.jac[a*n+b]) > 1e-5*math.Max(1, math.Abs(fd)) {
						t.Errorf("force %s %s[%d,%d]: analytic %g, FD %g", m.fnames[e], vec.nm, a, b, vec.jac[a*n+b], fd)
					}
				}
			}
		}
	}
}

// A solver step and AdvanceTo allocate nothing in steady state.
func TestStepAllocatesNothing(t *testing.T) {
	springs := jacSpec()
	springs.Name = "springs"
	springs.Joints = springs.Joints[:1] // revolute only: a free two-body system with springs
	springs.Drivers = nil
	for _, ms := range []*spec.Model{pendulumSpec("genalpha", 1e-3), chainSpec(20, 1e-3), springs} {
		for _, integ := range []string{"genalpha", "bdf2", "rk4"} {
			ms.Settings.Integrator = integ
			ms.Settings.Formulation = ""
			m := mustCompile(t, ms)
			s := mustInit(t, m)
			if err := m.AdvanceTo(s, 0.01); err != nil {
				t.Fatal(err)
			}
			out := make([]float64, len(m.channels))
			allocs := testing.AllocsPerRun(50, func() {
				if err := m.AdvanceTo(s, s.T+0.002); err != nil {
					t.Fatal(err)
				}
				m.EvalChannels(s, out)
			})
			if allocs != 0 {
				t.Errorf("%s/%s: %v allocations per AdvanceTo", ms.Name, integ, allocs)
			}
		}
	}
}

// A parameter named like a built-in constant would be silently shadowed in
// expressions: it is an error naming the file position.
func TestReservedParameterName(t *testing.T) {
	s := pendulumSpec("genalpha", 1e-3)
	s.Params = []spec.Param{{Name: "e", Value: 0.5, Pos: spec.Pos{File: "m.xml", Line: 7}}}
	_, err := Compile(s, CompileOptions{})
	if err == nil || !strings.Contains(err.Error(), `m.xml:7: name: parameter name "e" is reserved`) {
		t.Fatalf("got %v", err)
	}
}
