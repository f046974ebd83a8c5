package solver

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mbfmu/xml"
)

// Test models of the directional derivatives: planar with constraints, an
// input, and outputs that read accelerations and reactions; spatial with
// quaternions; flexible (ANCF) with an input force at the tip.
const (
	ddPlanar = `<model name="cartpend">
  <settings end="1 s" step="1 ms" integrator="genalpha"/>
  <input name="F" unit="N" start="0.7"/>
  <input name="tau" unit="N*m" start="-0.2"/>
  <ground><marker name="rail"/></ground>
  <body name="cart" mass="1 kg" inertia="0.02 kg*m^2" at="0.1, 0">
    <marker name="c"/><marker name="pivot" angle="90 deg"/>
  </body>
  <body name="pole" mass="0.3 kg" inertia="0.03 kg*m^2" cm="0.5 0" at="0.1, 0" angle="pi/2 + 0.3" omega="0.4">
    <marker name="tip" at="1 0"/>
  </body>
  <translational name="slide" i="ground.rail" j="cart.c"/>
  <revolute name="hinge" i="cart.pivot" j="pole"/>
  <force name="push" i="cart.c" fx="F"/>
  <torque name="motor" i="pole" t="tau"/>
  <rspring name="damper" i="cart.pivot" j="pole" k="0.5" c="0.05"/>
  <output name="x" channel="slide.disp"/>
  <output name="theta" channel="hinge.angle"/>
  <output name="tip_ay" channel="pole.tip.ay"/>
  <output name="hinge_fx" channel="hinge.fx"/>
</model>`

	ddSpatial = `<model name="pend3" dimension="3">
  <settings end="1 s" step="1 ms" integrator="genalpha" gravity="0 0 -9.81"/>
  <input name="tau" unit="N*m" start="0.05"/>
  <ground><marker name="O"/></ground>
  <body name="a" mass="1 kg" inertia="0.02, 0.03, 0.04" cm="0, 0, -0.3" omega="0.5, -0.2, 0.3">
    <marker name="pin"/>
    <marker name="tip" at="0, 0, -0.6" z-axis="1 0 0" x-axis="0 0 1"/>
  </body>
  <body name="b" mass="0.5 kg" inertia="0.01, 0.01, 0.002" cm="0, 0, 0.2" at="0, 0, -0.6" angles="0.3, 0.2, 0.1" sequence="zxy">
    <marker name="pivot" z-axis="1 0 0" x-axis="0 0 1"/>
  </body>
  <spherical name="pivot" i="ground.O" j="a.pin"/>
  <revolute name="hinge" i="a.tip" j="b.pivot"/>
  <torque name="motor" i="b" j="a" tx="tau"/>
  <output name="bz" channel="b.z"/>
  <output name="wbx" channel="a.wbx"/>
  <output name="alphaz" channel="b.alphaz"/>
  <output name="pivot_fz" channel="pivot.fz"/>
</model>`

	ddFlexible = `<model name="cantilever">
  <settings end="1 s" step="1 ms" integrator="genalpha" gravity="0 -9.81"/>
  <input name="P" unit="N" start="-2"/>
  <ground><marker name="O"/></ground>
  <beam kind="ancf" name="rod" at="0 0" angle="0" length="1 m" elements="4"
        area="4e-4 m^2" area-moment="1.333e-8 m^4" youngs="2e8 Pa" density="7.2e3 kg/m^3">
    <marker name="root" s="0"/>
    <marker name="tip" s="1 m"/>
  </beam>
  <fixed name="clamp" i="ground.O" j="rod.root"/>
  <force name="load" i="rod.tip" fy="P"/>
  <output name="tip_y" channel="rod.tip.y"/>
  <output name="tip_vy" channel="rod.tip.vy"/>
  <output name="clamp_fy" channel="clamp.fy"/>
</model>`
)

func ddModel(t testing.TB, src string) *Model {
	t.Helper()
	ms, err := xml.Parse([]byte(src), "test.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(ms, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ddState initialises m and integrates to t, so that the state moves.
func ddState(t testing.TB, m *Model, at float64) *State {
	t.Helper()
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	if at > 0 {
		if err := m.AdvanceTo(s, at); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// ddEval is the function differentiated, evaluated independently of
// DirectionalDerivative: the state derivatives (StateDerivatives) and the
// outputs at the accelerations of the equations of motion, with the
// quaternions normalised; the state is restored from a copy.
func ddEval(t testing.TB, m *Model, s *State, dq, dv, y []float64) {
	t.Helper()
	if err := m.StateDerivatives(s, dq, dv); err != nil {
		t.Fatal(err)
	}
	core, vars, st := append([]float64(nil), s.core...), append([]float64(nil), s.vars...), s.stats
	defer func() { copy(s.core, core); copy(s.vars, vars); s.stats = st }()
	m.normalizeRots(s.q)
	s.vars[slotTime] = s.T
	if err := m.accelerations(s, s.a, false); err != nil {
		t.Fatal(err)
	}
	m.EvalOutputs(s, y)
}

// ddColumns returns the Jacobian ∂(q̇, a, y)/∂(q, v, u), one column per
// state and input (q, then v, then u), by DirectionalDerivative with unit
// seeds (dir) and by plain central differences of ddEval (fd).
func ddColumns(t testing.TB, m *Model, s *State) (dir, fd [][]float64) {
	nq, nv, nu, ny := m.NumCoords(), m.NumVelocities(), len(m.InputInfo()), len(m.OutputInfo())
	n := nq + nv + ny
	dq, dv, du := make([]float64, nq), make([]float64, nv), make([]float64, nu)
	fp, fm := make([]float64, n), make([]float64, n)
	for c := 0; c < nq+nv+nu; c++ {
		clear(dq)
		clear(dv)
		clear(du)
		var x *float64
		switch {
		case c < nq:
			dq[c], x = 1, &s.q[c]
		case c < nq+nv:
			dv[c-nq], x = 1, &s.v[c-nq]
		default:
			du[c-nq-nv], x = 1, &s.vars[1+len(m.params)+c-nq-nv]
		}
		col := make([]float64, n)
		if err := m.DirectionalDerivative(s, dq, dv, du, col[:nq], col[nq:nq+nv], col[nq+nv:]); err != nil {
			t.Fatal(err)
		}
		dir = append(dir, col)
		x0 := *x
		h := 1e-6 * (1 + math.Abs(x0))
		*x = x0 + h
		ddEval(t, m, s, fp[:nq], fp[nq:nq+nv], fp[nq+nv:])
		*x = x0 - h
		ddEval(t, m, s, fm[:nq], fm[nq:nq+nv], fm[nq+nv:])
		*x = x0
		col = make([]float64, n)
		for i := range col {
			col[i] = (fp[i] - fm[i]) / (2 * h)
		}
		fd = append(fd, col)
	}
	return dir, fd
}

// blockErr returns max |a − b| / (max |b| + floor) over rows lo…hi−1 of a
// column.
func blockErr(a, b []float64, lo, hi int, floor float64) float64 {
	sc, e := floor, 0.0
	for i := lo; i < hi; i++ {
		sc = math.Max(sc, math.Abs(b[i]))
		e = math.Max(e, math.Abs(a[i]-b[i]))
	}
	return e / sc
}

// TestDirectionalDerivativeFD compares every column of the Jacobian of the
// state derivatives and outputs with respect to states and inputs, taken
// by DirectionalDerivative, with central differences of the functions
// themselves: planar (constraints, outputs reading accelerations and
// reactions), spatial (quaternions) and flexible (ANCF) models, at a
// moving state. It also checks that the state is left bit for bit.
func TestDirectionalDerivativeFD(t *testing.T) {
	for _, c := range []struct {
		name, src string
		at        float64
	}{{"planar", ddPlanar, 0.2}, {"spatial", ddSpatial, 0.2}, {"flexible", ddFlexible, 0.05}} {
		t.Run(c.name, func(t *testing.T) {
			m := ddModel(t, c.src)
			s := ddState(t, m, c.at)
			before, _ := s.MarshalBinary()
			dir, fd := ddColumns(t, m, s)
			after, _ := s.MarshalBinary()
			if !bytes.Equal(before, after) {
				t.Errorf("the state changed")
			}
			nq, nv := m.NumCoords(), m.NumVelocities()
			n := len(dir[0])
			worst := [3]float64{}
			for k := range dir {
				for b, r := range [3][2]int{{0, nq}, {nq, nq + nv}, {nq + nv, n}} {
					if r[0] == r[1] {
						continue
					}
					e := blockErr(dir[k], fd[k], r[0], r[1], 1e-9)
					worst[b] = math.Max(worst[b], e)
					if e > 1e-6 {
						t.Errorf("column %d, block %d: directional derivative and central differences differ by %.3g (relative)\n dir %v\n fd  %v", k, b, e, dir[k][r[0]:r[1]], fd[k][r[0]:r[1]])
					}
				}
			}
			t.Logf("%d states + %d inputs: largest relative difference to central differences: q̇ %.2g, a %.2g, y %.2g", nq+nv, len(m.InputInfo()), worst[0], worst[1], worst[2])
		})
	}
}

// TestDirectionalDerivativeLinearize compares with Model.Linearize, whose
// state matrix comes from the integrators' tangent matrices (analytic
// stiffness, damping, inertia and constraint Hessians) in the tangent
// space: with N its null-space basis, the lower block rows of A, B are
// Nᵀ·∂a and C, D are ∂y, along the state directions (δθ = N e_j, or
// δv = N e_j) and the inputs. At rest (the initial states of these models)
// a position direction carries no velocity change.
func TestDirectionalDerivativeLinearize(t *testing.T) {
	for _, c := range []struct{ name, src string }{{"planar", ddPlanar}, {"spatial", ddSpatial}, {"flexible", ddFlexible}} {
		t.Run(c.name, func(t *testing.T) {
			m := ddModel(t, c.src)
			s := ddState(t, m, 0)
			clear(s.v) // at rest (the test models start moving)
			L, err := m.Linearize(s)
			if err != nil {
				t.Fatal(err)
			}
			nq, nv, nu, ny := m.NumCoords(), m.NumVelocities(), len(m.InputInfo()), len(m.OutputInfo())
			_, nf := L.N.Dims()
			dq, dv, du := make([]float64, nq), make([]float64, nv), make([]float64, nu)
			jq, jv, jy := make([]float64, nq), make([]float64, nv), make([]float64, ny)
			th := make([]float64, nv)
			worst := 0.0
			check := func(what string, got, want []float64) {
				t.Helper()
				e := blockErr(got, want, 0, len(want), 1e-9)
				worst = math.Max(worst, e)
				if e > 1e-6 {
					t.Errorf("%s: %v, Linearize %v (relative difference %.3g)", what, got, want, e)
				}
			}
			nta := func() []float64 { // Nᵀ jv
				out := make([]float64, nf)
				for i := 0; i < nf; i++ {
					for k := 0; k < nv; k++ {
						out[i] += L.N.At(k, i) * jv[k]
					}
				}
				return out
			}
			col := func(M *mat.Dense, j, r0, r1 int) []float64 {
				out := make([]float64, r1-r0)
				for i := range out {
					out[i] = M.At(r0+i, j)
				}
				return out
			}
			for j := 0; j < 2*nf+nu; j++ {
				clear(dq)
				clear(dv)
				clear(du)
				switch {
				case j < nf: // a position direction δθ = N e_j as a seed on q
					for k := 0; k < nv; k++ {
						th[k] = L.N.At(k, j)
					}
					for k, qi := range m.qOf {
						if qi >= 0 {
							dq[qi] = th[k]
						}
					}
					m.quatRates(dq, s.q, th) // ½ p ⊗ (0, δθ)
				case j < 2*nf:
					for k := 0; k < nv; k++ {
						dv[k] = L.N.At(k, j-nf)
					}
				default:
					du[j-2*nf] = 1
				}
				if err := m.DirectionalDerivative(s, dq, dv, du, jq, jv, jy); err != nil {
					t.Fatal(err)
				}
				if j < 2*nf {
					check("A column "+itoa(j), nta(), col(L.A, j, nf, 2*nf))
					if ny > 0 {
						check("C column "+itoa(j), jy, col(L.C, j, 0, ny))
					}
				} else {
					check("B column "+itoa(j-2*nf), nta(), col(L.B, j-2*nf, nf, 2*nf))
					if ny > 0 {
						check("D column "+itoa(j-2*nf), jy, col(L.D, j-2*nf, 0, ny))
					}
				}
			}
			t.Logf("%d degrees of freedom: largest relative difference to Linearize %.2g", nf, worst)
		})
	}
}

// TestDirectionalDerivativePendulum checks against the closed form of a
// pendulum in absolute coordinates (body angle φ, pin at the origin, centre
// of mass at r = 0.5 m, J_O = J + m r² = 0.26 kg m², damping c): along the
// motion the angular acceleration is φ̈ = (τ − c φ̇ − m g r cos φ)/J_O, so
// ∂φ̈/∂τ = 1/J_O, the velocity direction (−r sin φ, r cos φ, 1) gives
// −c/J_O and the position direction the same gives m g r sin φ / J_O.
func TestDirectionalDerivativePendulum(t *testing.T) {
	m := ddModel(t, `<model name="pendulum">
  <settings end="5 s" step="1 ms" integrator="genalpha"/>
  <input name="tau" unit="N*m" start="0.3"/>
  <ground><marker name="O" at="0 0"/></ground>
  <body name="link" mass="1 kg" inertia="0.01 kg*m^2" at="0.5 0"><marker name="pin" at="-0.5 0"/></body>
  <revolute name="pivot" i="ground.O" j="link.pin"/>
  <rspring name="damper" i="ground.O" j="link" k="0" c="0.05"/>
  <torque name="motor" i="link" t="tau"/>
</model>`)
	s := ddState(t, m, 0.3)
	const r, JO, c, g = 0.5, 0.26, 0.05, 9.81
	phi := s.q[2]
	sn, cs := math.Sincos(phi)
	dq, dv, du := make([]float64, 3), make([]float64, 3), make([]float64, 1)
	jq, jv := make([]float64, 3), make([]float64, 3)
	for _, k := range []struct {
		what string
		seed func()
		want float64
	}{
		{"∂φ̈/∂τ", func() { du[0] = 1 }, 1 / JO},
		{"∂φ̈/∂v along the motion", func() { dv[0], dv[1], dv[2] = -r*sn, r*cs, 1 }, -c / JO},
		{"∂φ̈/∂q along the manifold", func() { dq[0], dq[1], dq[2] = -r*sn, r*cs, 1 }, g * r * sn / JO},
	} {
		clear(dq)
		clear(dv)
		clear(du)
		k.seed()
		if err := m.DirectionalDerivative(s, dq, dv, du, jq, jv, nil); err != nil {
			t.Fatal(err)
		}
		if math.Abs(jv[2]-k.want) > 1e-8*math.Max(1, math.Abs(k.want)) {
			t.Errorf("%s = %.12g, closed form %.12g", k.what, jv[2], k.want)
		}
		if k.what == "∂φ̈/∂q along the manifold" && (jq[0] != dv[0] || jq[2] != dv[2]) {
			t.Errorf("∂q̇/∂q should be zero for a position seed: %v", jq)
		}
	}
}

// TestStateDerivativesAndRestore: q̇ of the quaternions is ½ p ⊗ (0, ω),
// the accelerations equal those of the equations of motion, the state is
// left bit for bit, stepping on after the calls reproduces a run without
// them, and nothing is allocated after the first call.
func TestStateDerivativesAndRestore(t *testing.T) {
	m := ddModel(t, ddSpatial)
	s := ddState(t, m, 0.1)
	ref := m.NewState()
	ref.CopyFrom(s)
	nq, nv, nu := m.NumCoords(), m.NumVelocities(), len(m.InputInfo())
	dq, dv := make([]float64, nq), make([]float64, nv)
	if err := m.StateDerivatives(s, dq, dv); err != nil {
		t.Fatal(err)
	}
	// q̇ by the quaternion's motion over a short time: p(t+δ) = p ⊗ exp(ωδ/2)
	for _, r := range m.rots {
		const d = 1e-6
		var p0, pp, pm [4]float64
		copy(p0[:], s.q[r.q:r.q+4])
		w := [3]float64{s.v[r.v], s.v[r.v+1], s.v[r.v+2]}
		for k, sg := range [2]float64{1, -1} {
			q := append([]float64(nil), s.q...)
			th := make([]float64, nv)
			for i := 0; i < 3; i++ {
				th[r.v+i] = sg * d * w[i]
			}
			m.addTo(q, th, 1)
			if k == 0 {
				copy(pp[:], q[r.q:r.q+4])
			} else {
				copy(pm[:], q[r.q:r.q+4])
			}
		}
		for k := 0; k < 4; k++ {
			if fdv := (pp[k] - pm[k]) / (2 * d); math.Abs(fdv-dq[r.q+k]) > 1e-8 {
				t.Errorf("ṗ[%d] = %g, motion %g (p %v)", k, dq[r.q+k], fdv, p0)
			}
		}
	}
	// the accelerations of the equations of motion
	acc := make([]float64, nv)
	x := m.NewState()
	x.CopyFrom(s)
	if err := m.accelerations(x, acc, false); err != nil {
		t.Fatal(err)
	}
	for i := range acc {
		if math.Abs(acc[i]-dv[i]) > 1e-12*(1+math.Abs(acc[i])) {
			t.Errorf("a[%d] = %g, equations of motion %g", i, dv[i], acc[i])
		}
	}
	seed := func(k int) (a, b, c []float64) {
		a, b, c = make([]float64, nq), make([]float64, nv), make([]float64, nu)
		for i := range a {
			a[i] = math.Sin(float64(i + k))
		}
		for i := range b {
			b[i] = math.Cos(float64(2*i + k))
		}
		c[0] = 0.3
		return
	}
	sq, sv, su := seed(1)
	jq, jv, jy := make([]float64, nq), make([]float64, nv), make([]float64, len(m.OutputInfo()))
	call := func() {
		if err := m.StateDerivatives(s, dq, dv); err != nil {
			t.Fatal(err)
		}
		if err := m.DirectionalDerivative(s, sq, sv, su, jq, jv, jy); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 20; k++ {
		call()
		if err := m.AdvanceTo(s, s.T+0.01); err != nil {
			t.Fatal(err)
		}
		if err := m.AdvanceTo(ref, ref.T+0.01); err != nil {
			t.Fatal(err)
		}
	}
	// (the snapshots' anchors may differ in the unused linear entries of
	// the rotation increments, which CopyFrom does not copy)
	if s.T != ref.T || !slices.Equal(s.core, ref.core) || !slices.Equal(s.vars, ref.vars) || s.stats != ref.stats {
		t.Errorf("stepping after StateDerivatives and DirectionalDerivative differs from a run without them")
	}
	if n := testing.AllocsPerRun(20, call); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// TestStateVars: names and units of the states, unique, with the
// derivative relations of the storage.
func TestStateVars(t *testing.T) {
	for _, src := range []string{ddPlanar, ddSpatial, ddFlexible} {
		m := ddModel(t, src)
		q, v := m.StateVars()
		seen := map[string]bool{}
		for _, x := range append(append([]StateVar(nil), q...), v...) {
			if x.Name == "" || seen[x.Name] {
				t.Errorf("%s: state name %q empty or repeated", m.Name(), x.Name)
			}
			seen[x.Name] = true
		}
		for i, x := range q {
			switch {
			case x.Deriv >= 0 && m.qOf[x.Deriv] != i:
				t.Errorf("%s: position %s: velocity %d is not its derivative", m.Name(), x.Name, x.Deriv)
			case x.Deriv < 0 && (x.RotQ < 0 || i < x.RotQ || i >= x.RotQ+4):
				t.Errorf("%s: position %s is neither linear nor a quaternion component", m.Name(), x.Name)
			}
		}
	}
	m := ddModel(t, ddSpatial)
	q, v := m.StateVars()
	want := map[string]string{"a.cm.x": "m", "a.qw": "", "a.qz": "", "der(b.cm.z)": "m/s", "b.wbx": "rad/s"}
	got := map[string]string{}
	for _, x := range append(q, v...) {
		got[x.Name] = x.Unit
	}
	for n, u := range want {
		if g, ok := got[n]; !ok || g != u {
			t.Errorf("state %s: unit %q (present %v), want %q", n, g, ok, u)
		}
	}
	m = ddModel(t, ddFlexible)
	_, v = m.StateVars()
	want = map[string]string{"der(rod.n0.x)": "m/s", "der(rod.n4.dy)": "1/s"}
	got = map[string]string{}
	for _, x := range v {
		got[x.Name] = x.Unit
	}
	for n, u := range want {
		if g, ok := got[n]; !ok || g != u {
			t.Errorf("state %s: unit %q (present %v), want %q", n, g, ok, u)
		}
	}
}

// BenchmarkDirectionalDerivative: one directional derivative (a random
// seed on every state and input, accelerations and outputs) at a moving
// state: the planar, spatial and ANCF test models, and examples/ancf-pendulum
// (160 elements, 644 coordinates).
func BenchmarkDirectionalDerivative(b *testing.B) {
	anc, err := xml.LoadFile("../examples/ancf-pendulum/model.xml")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    func() *Model
	}{
		{"planar", func() *Model { return ddModel(b, ddPlanar) }},
		{"spatial", func() *Model { return ddModel(b, ddSpatial) }},
		{"cantilever", func() *Model { return ddModel(b, ddFlexible) }},
		{"ancf-pendulum", func() *Model {
			m, err := Compile(anc, CompileOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return m
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := c.m()
			s := ddState(b, m, 0.01)
			nq, nv, nu, ny := m.NumCoords(), m.NumVelocities(), len(m.InputInfo()), len(m.OutputInfo())
			dq, dv, du := make([]float64, nq), make([]float64, nv), make([]float64, nu)
			for i := range dq {
				dq[i] = math.Sin(float64(i))
			}
			for i := range dv {
				dv[i] = math.Cos(float64(i))
			}
			for i := range du {
				du[i] = 1
			}
			jq, jv, jy := make([]float64, nq), make([]float64, nv), make([]float64, ny)
			b.ReportAllocs()
			for b.Loop() {
				if err := m.DirectionalDerivative(s, dq, dv, du, jq, jv, jy); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
