package solver

import (
	"math"
	"math/rand"
	"mbfmu/solver/mech"
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
	}
	for i := range s.v {
		s.v[i] = rng.NormFloat64()
	}
	s.setTime(0.37)
	checkElementDerivatives(t, m, s, rng)
}

// checkElementDerivatives checks every constraint and force element of m
// at the state s against central finite differences taken along the
// increments of the velocity coordinates (q ⊕ h e_k: added to linear
// coordinates, turning rotations), so it holds for planar and spatial
// elements alike:
//
//   - the Jacobian J = ∂Φ/∂q;
//   - the Hessian term ∂(Jᵀλ)/∂q for a random λ;
//   - γ from Φ̈ = J a − γ along q(τ) = q ⊕ (τ v + τ²/2 a), t + τ, for a
//     random a (the body-frame rates of a rotation are ω and ω̇ there);
//   - a force's K = −∂Q/∂q and C = −∂Q/∂v.
func checkElementDerivatives(t *testing.T, m *Model, s *State, rng *rand.Rand) {
	t.Helper()
	const h = 1e-6
	nv := m.nv
	t0 := s.vars[slotTime]
	q0 := append([]float64(nil), s.q...)
	v0 := append([]float64(nil), s.v...)
	e := make([]float64, nv)
	restore := func() {
		copy(s.q, q0)
		copy(s.v, v0)
		s.setTime(t0)
	}
	// move along velocity coordinate k by d
	move := func(k int, d float64) {
		copy(s.q, q0)
		clear(e)
		e[k] = d
		m.addTo(s.q, e, 1)
	}
	for ci := range m.cons {
		ce := &m.cons[ci]
		nd, nr := len(ce.d), ce.nr
		name := m.joints[ce.owner].Name
		rows := func() ([]float64, []float64, []float64, []float64) {
			out := mech.Rows{Phi: make([]float64, nr), Phit: make([]float64, nr), Gamma: make([]float64, nr), Jac: make([]float64, nr*nd)}
			ce.c.Eval(&s.x, out, true)
			return out.Phi, out.Phit, out.Gamma, out.Jac
		}
		lam := make([]float64, nr)
		for r := range lam {
			lam[r] = rng.NormFloat64()
		}
		_, phit, gamma, jac := rows()
		H := make([]float64, nd*nd)
		ce.c.Hess(&s.x, lam, H)
		if hp, ok := ce.c.(mech.HessPatterner); ok {
			// the assembly visits only the declared pattern (and the
			// differences below check that the Hessian lies in it)
			if pat := hp.HessPattern(); pat != nil {
				for e, v := range H {
					if !pat[e] && v != 0 {
						t.Errorf("%s Hessian (%d,%d) = %g outside the element's pattern", name, e/nd, e%nd, v)
					}
				}
			}
		}
		jtl := func(J []float64) []float64 {
			out := make([]float64, nd)
			for r := 0; r < nr; r++ {
				for a := 0; a < nd; a++ {
					out[a] += J[r*nd+a] * lam[r]
				}
			}
			return out
		}
		for b, k := range ce.d {
			if k < 0 {
				continue
			}
			move(k, h)
			pp, _, _, jp := rows()
			move(k, -h)
			pm, _, _, jm := rows()
			restore()
			for r := 0; r < nr; r++ {
				if d := (pp[r] - pm[r]) / (2 * h); math.Abs(d-jac[r*nd+b]) > 1e-7*(1+math.Abs(d)) {
					t.Errorf("%s row %d ∂Φ/∂q[%d]: analytic %g, FD %g", name, r, b, jac[r*nd+b], d)
				}
			}
			gp, gm := jtl(jp), jtl(jm)
			for a := range gp {
				if d := (gp[a] - gm[a]) / (2 * h); math.Abs(d-H[a*nd+b]) > 1e-6*(1+math.Abs(d)) {
					t.Errorf("%s Hessian (%d,%d): analytic %g, FD %g", name, a, b, H[a*nd+b], d)
				}
			}
		}
		// ∂Φ/∂t
		const ht = 1e-4
		s.setTime(t0 + ht)
		pp, _, _, _ := rows()
		s.setTime(t0 - ht)
		pm, _, _, _ := rows()
		restore()
		for r := 0; r < nr; r++ {
			if d := (pp[r] - pm[r]) / (2 * ht); math.Abs(d-phit[r]) > 1e-6*(1+math.Abs(d)) {
				t.Errorf("%s row %d ∂Φ/∂t: analytic %g, FD %g", name, r, phit[r], d)
			}
		}
		// γ along a trajectory with random accelerations
		a := make([]float64, nv)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		phiAt := func(tau float64) []float64 {
			defer restore()
			for i := range e {
				e[i] = tau*v0[i] + 0.5*tau*tau*a[i]
			}
			copy(s.q, q0)
			m.addTo(s.q, e, 1)
			s.setTime(t0 + tau)
			p, _, _, _ := rows()
			return p
		}
		pp, p0, pm := phiAt(ht), phiAt(0), phiAt(-ht)
		for r := 0; r < nr; r++ {
			ddphi := (pp[r] - 2*p0[r] + pm[r]) / (ht * ht)
			want := -gamma[r]
			for b, k := range ce.d {
				if k >= 0 {
					want += jac[r*nd+b] * a[k]
				}
			}
			if math.Abs(ddphi-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Errorf("%s row %d: Φ̈ FD %g, J a − γ = %g", name, r, ddphi, want)
			}
		}
	}
	for fi, f := range m.forces {
		if m.fdTan[fi] {
			continue // the engine takes its tangent by differences
		}
		d := f.Dofs()
		n := len(d)
		fl, k, c := make([]float64, n), make([]float64, n*n), make([]float64, n*n)
		f.Eval(&s.x, fl, k, c)
		force := func() []float64 {
			g := make([]float64, n)
			f.Eval(&s.x, g, nil, nil)
			return g
		}
		for b, j := range d {
			if j < 0 {
				continue
			}
			move(j, h)
			fp := force()
			move(j, -h)
			fm := force()
			restore()
			s.v[j] = v0[j] + h
			vp := force()
			s.v[j] = v0[j] - h
			vm := force()
			restore()
			for a := range d {
				if d[a] < 0 {
					continue
				}
				if fd := -(fp[a] - fm[a]) / (2 * h); math.Abs(fd-k[a*n+b]) > 1e-5*math.Max(1, math.Abs(fd)) {
					t.Errorf("force %s K[%d,%d]: analytic %g, FD %g", m.fnames[fi], a, b, k[a*n+b], fd)
				}
				if fd := -(vp[a] - vm[a]) / (2 * h); math.Abs(fd-c[a*n+b]) > 1e-5*math.Max(1, math.Abs(fd)) {
					t.Errorf("force %s C[%d,%d]: analytic %g, FD %g", m.fnames[fi], a, b, c[a*n+b], fd)
				}
			}
		}
	}
	// elements with exact Coulomb friction: W = ∂vt/∂v, SlipTangent(cv) =
	// cv W + ∂vt/∂q, and γ = (∂vt/∂q)·v (W does not depend on time)
	for fi, f := range m.forces {
		cf, ok := f.(mech.Coulomb)
		if !ok {
			continue
		}
		d := f.Dofs()
		n := len(d)
		w, g := make([]float64, n), make([]float64, n)
		slip := func() float64 {
			vt, _ := cf.Slip(&s.x, make([]float64, n))
			return vt
		}
		vt0, gamma := cf.Slip(&s.x, w)
		cf.SlipTangent(&s.x, 0.7, g)
		gv := 0.0
		for b, j := range d {
			if j < 0 {
				continue
			}
			move(j, h)
			qp := slip()
			move(j, -h)
			qm := slip()
			restore()
			s.v[j] = v0[j] + h
			vp := slip()
			restore()
			dq := (qp - qm) / (2 * h)
			gv += dq * v0[j]
			if fd := (vp - vt0) / h; math.Abs(fd-w[b]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("friction %s W[%d]: %g, FD %g", m.fnames[fi], b, w[b], fd)
			}
			if want := 0.7*w[b] + dq; math.Abs(g[b]-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Errorf("friction %s slip tangent [%d]: %g, FD %g", m.fnames[fi], b, g[b], want)
			}
		}
		if math.Abs(gamma-gv) > 1e-5*math.Max(1, math.Abs(gv)) {
			t.Errorf("friction %s γ: %g, FD (∂vt/∂q)·v = %g", m.fnames[fi], gamma, gv)
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
			if allocs := stepAllocs(t, m, mustInit(t, m)); allocs != 0 {
				t.Errorf("%s/%s: %v allocations per AdvanceTo", ms.Name, integ, allocs)
			}
		}
	}
}

// stepAllocs advances s to 10 ms and returns the allocations of an
// AdvanceTo by 2 ms with every channel evaluated after it.
func stepAllocs(t *testing.T, m *Model, s *State) float64 {
	t.Helper()
	if err := m.AdvanceTo(s, 0.01); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(m.channels))
	return testing.AllocsPerRun(50, func() {
		if err := m.AdvanceTo(s, s.T+0.002); err != nil {
			t.Fatal(err)
		}
		m.EvalChannels(s, out)
	})
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
