package solver

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// The elements' own continuous states as states of StateVars,
// StateDerivatives and DirectionalDerivative (dirderiv.go): the first-order
// states are the positions, then the element states.

// esMotor is motorModel (J = 0.01, R = 1 Ω, L = 10 mH, k = 0.1) with its
// speed and current as outputs.
func esMotor() string {
	return strings.Replace(motorModel(""), "</model>", `<output name="w" channel="wheel.omega"/><output name="i" channel="m.current"/></model>`, 1)
}

// esMixed has a motor, LuGre friction and a user state with a nonlinear
// rate that also drives a torque nonlinearly: four element states coupled
// to the mechanism both ways.
const esMixed = `<model name="esmixed"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <input name="V" start="12"/>
  <ground><marker name="A"/></ground>
  <body name="wheel" mass="1" inertia="0.01"/>
  <revolute name="shaft" i="ground.A" j="wheel"/>
  <motor name="m" joint="shaft" voltage="V" resistance="1" inductance="0.01" kt="0.1"/>
  <friction name="fr" joint="shaft" model="lugre" preload="0.3" viscous="0.01" bristle-stiffness="1e3" bristle-damping="2"/>
  <state name="p" rate="50*(1 - p*p) - 2*omega(shaft)*p + 0.1*V" initial="0.2"/>
  <torque name="hyd" i="wheel" j="ground" t="0.05*p*p - 0.01*p"/>
  <output name="w" channel="wheel.omega"/>
  <output name="i" channel="m.current"/>
  <output name="pp" channel="p"/>
</model>`

// TestElementStateVars: the element states follow the positions in
// StateVars (names and units of the elements, Element set) and
// ElementStates reads their values (the channels that report them).
func TestElementStateVars(t *testing.T) {
	m, s := loadDrive(t, esMixed)
	if err := m.AdvanceTo(s, 0.05); err != nil {
		t.Fatal(err)
	}
	q, v := m.StateVars()
	nq, ne := m.NumCoords(), m.NumElementStates()
	if ne != 3 || len(q) != nq+ne || len(v) != m.NumVelocities() {
		t.Fatalf("%d first-order states (%d positions, %d element states), %d velocities", len(q), nq, ne, len(v))
	}
	want := map[string]string{"m.current": "A", "fr.bristle": "rad", "p": ""}
	for k, x := range q {
		if x.Element != (k >= nq) {
			t.Errorf("state %d %s: Element %v", k, x.Name, x.Element)
		}
		if k < nq {
			continue
		}
		if u, ok := want[x.Name]; !ok || u != x.Unit || x.Deriv != -1 || x.RotQ != -1 || x.RotV != -1 {
			t.Errorf("element state %+v", x)
		}
		delete(want, x.Name)
	}
	if len(want) != 0 {
		t.Errorf("element states missing: %v", want)
	}
	e := make([]float64, ne)
	s.ElementStates(e)
	for k, x := range q[nq:] {
		if x.Name == "fr.bristle" {
			continue // (its channel is the deflection at the evaluation time)
		}
		if c := chanAt(t, m, s, x.Name); c != e[k] {
			t.Errorf("%s = %.17g, channel %.17g", x.Name, e[k], c)
		}
	}
	for k, x := range q[nq:] {
		if x.Name == "m.current" && e[k] == 0 || x.Name == "p" && e[k] == 0.2 {
			t.Errorf("%s did not move: %v", x.Name, e[k])
		}
	}
}

// TestElementStateDerivativesFD compares every column of the Jacobian of
// (q̇, ė, a, y) with respect to (q, e, v, u), by DirectionalDerivative with
// unit seeds, with plain central differences of StateDerivatives and the
// outputs (ddEval) with the state's element slots moved; the rates
// themselves against the motor's closed form di/dt = (V − R i − k ω)/L.
// The state is left bit for bit and nothing is allocated.
func TestElementStateDerivativesFD(t *testing.T) {
	for _, c := range []struct{ name, src string }{{"motor", esMotor()}, {"mixed", esMixed}, {"usermotor", userMotor(`<output name="io" channel="i"/>`)}} {
		t.Run(c.name, func(t *testing.T) {
			m, s := loadDrive(t, c.src)
			if err := m.AdvanceTo(s, 0.05); err != nil {
				t.Fatal(err)
			}
			nq, ne, nv, nu, ny := m.NumCoords(), m.NumElementStates(), m.NumVelocities(), len(m.InputInfo()), len(m.OutputInfo())
			n1 := nq + ne
			slots := s.dirWork().eslot
			// the rates at the state
			dq, dv := make([]float64, n1), make([]float64, nv)
			if err := m.StateDerivatives(s, dq, dv); err != nil {
				t.Fatal(err)
			}
			if c.name == "motor" {
				const R, L, k = 1.0, 0.01, 0.1
				i, w := s.es[slots[0]], chanAt(t, m, s, "wheel.omega")
				if want := (s.Input(0) - R*i - k*w) / L; math.Abs(dq[nq]-want) > 1e-12*math.Abs(want) {
					t.Errorf("di/dt = %.15g, closed form %.15g", dq[nq], want)
				}
			}
			before, _ := s.MarshalBinary()
			n := n1 + nv + ny
			sq, sv, su := make([]float64, n1), make([]float64, nv), make([]float64, nu)
			fp, fm := make([]float64, n), make([]float64, n)
			worst := [3]float64{}
			for col := 0; col < n1+nv+nu; col++ {
				clear(sq)
				clear(sv)
				clear(su)
				var x *float64
				switch {
				case col < nq:
					sq[col], x = 1, &s.q[col]
				case col < n1:
					sq[col], x = 1, &s.es[slots[col-nq]]
				case col < n1+nv:
					sv[col-n1], x = 1, &s.v[col-n1]
				default:
					su[col-n1-nv], x = 1, &s.vars[1+len(m.params)+col-n1-nv]
				}
				dir := make([]float64, n)
				if err := m.DirectionalDerivative(s, sq, sv, su, dir[:n1], dir[n1:n1+nv], dir[n1+nv:]); err != nil {
					t.Fatal(err)
				}
				x0 := *x
				h := 1e-6 * (1 + math.Abs(x0))
				*x = x0 + h
				ddEval(t, m, s, fp[:n1], fp[n1:n1+nv], fp[n1+nv:])
				*x = x0 - h
				ddEval(t, m, s, fm[:n1], fm[n1:n1+nv], fm[n1+nv:])
				*x = x0
				fd := make([]float64, n)
				for i := range fd {
					fd[i] = (fp[i] - fm[i]) / (2 * h)
				}
				// the element rates, the accelerations, the outputs
				for b, r := range [3][2]int{{nq, n1}, {n1, n1 + nv}, {n1 + nv, n}} {
					if r[0] == r[1] {
						continue
					}
					e := blockErr(dir, fd, r[0], r[1], 1e-9)
					worst[b] = math.Max(worst[b], e)
					if e > 1e-6 {
						t.Errorf("column %d, block %d: directional derivative and central differences differ by %.3g (relative)\n dir %v\n fd  %v", col, b, e, dir[r[0]:r[1]], fd[r[0]:r[1]])
					}
				}
				if col >= nq && col < n1 && dir[col] == 0 {
					t.Errorf("element state %d: its rate does not depend on it", col-nq)
				}
			}
			after, _ := s.MarshalBinary()
			if !bytes.Equal(before, after) {
				t.Errorf("the state changed")
			}
			t.Logf("%d element states, %d coordinates, %d inputs: largest relative difference to central differences: ė %.2g, a %.2g, y %.2g", ne, nq, nu, worst[0], worst[1], worst[2])
			// no allocation with element seeds and rates
			for i := range sq {
				sq[i] = 0.1 * float64(i+1)
			}
			sv[0], su[0] = 0.3, 0.2
			jq, jv, jy := make([]float64, n1), make([]float64, nv), make([]float64, ny)
			if a := testing.AllocsPerRun(10, func() {
				if err := m.StateDerivatives(s, dq, dv); err != nil {
					t.Fatal(err)
				}
				if err := m.DirectionalDerivative(s, sq, sv, su, jq, jv, jy); err != nil {
					t.Fatal(err)
				}
				s.ElementStates(dq[nq:])
			}); a != 0 {
				t.Errorf("%v allocations per call", a)
			}
		})
	}
}

// TestElementStateLinearize: the element state's row and column of
// Model.Linearize's A (and its row of B) for the DC motor equal the
// directional derivatives along the same directions, and the closed form
// of J ω̇ = k i, L i̇ = V − R i − k ω: ∂ω̇/∂i = k/J, ∂i̇/∂i = −R/L,
// ∂i̇/∂ω = −k/L, ∂i̇/∂V = 1/L.
func TestElementStateLinearize(t *testing.T) {
	const J, R, L, k = 0.01, 1.0, 0.01, 0.1
	m, s := loadDrive(t, esMotor())
	if err := m.AdvanceTo(s, 0.02); err != nil {
		t.Fatal(err)
	}
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	nq, nv := m.NumCoords(), m.NumVelocities()
	_, nf := lin.N.Dims()
	if r, c := lin.A.Dims(); nf != 1 || r != 3 || c != 3 || len(lin.States) != 1 || lin.States[0] != "m.current" {
		t.Fatalf("A %d×%d, %d degrees of freedom, element states %v", r, c, nf, lin.States)
	}
	dq, dv, du := make([]float64, nq+1), make([]float64, nv), make([]float64, 1)
	jq, jv := make([]float64, nq+1), make([]float64, nv)
	dir := func(seed func()) (ntA, ie float64) {
		clear(dq)
		clear(dv)
		clear(du)
		seed()
		if err := m.DirectionalDerivative(s, dq, dv, du, jq, jv, nil); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < nv; i++ {
			ntA += lin.N.At(i, 0) * jv[i]
		}
		return ntA, jq[nq]
	}
	check := func(what string, got, lin, closed float64) {
		t.Helper()
		tol := 1e-7 * math.Max(1, math.Abs(closed))
		if math.Abs(got-lin) > tol || math.Abs(got-closed) > tol {
			t.Errorf("%s: directional %.12g, Linearize %.12g, closed form %.12g", what, got, lin, closed)
		}
		t.Logf("%s: directional %.12g, Linearize %.12g, closed form %.12g", what, got, lin, closed)
	}
	// the current's column
	a, r := dir(func() { dq[nq] = 1 })
	check("∂ω̇/∂i", a, lin.A.At(1, 2), k/J)
	check("∂i̇/∂i", r, lin.A.At(2, 2), -R/L)
	// its row: the velocity and position directions of the tangent space
	sg := lin.N.At(2, 0) // the wheel angle's entry of the basis (±1)
	_, r = dir(func() {
		for i := 0; i < nv; i++ {
			dv[i] = lin.N.At(i, 0)
		}
	})
	check("∂i̇/∂w", r, lin.A.At(2, 1), -k/L*sg)
	_, r = dir(func() {
		for j, qi := range m.qOf {
			if qi >= 0 {
				dq[qi] = lin.N.At(j, 0)
			}
		}
	})
	check("∂i̇/∂z", r, lin.A.At(2, 0), 0)
	_, r = dir(func() { du[0] = 1 })
	check("∂i̇/∂V", r, lin.B.At(2, 0), 1/L)
}

// TestElementStateDerivativesReplay: stepping on after StateDerivatives
// and DirectionalDerivative with element seeds and rates reproduces a run
// without them bit for bit (the motor, the friction's bristles, the user
// state's solve and its cache).
func TestElementStateDerivativesReplay(t *testing.T) {
	m, s := loadDrive(t, esMixed)
	ref := m.NewState()
	ref.CopyFrom(s)
	nq, ne, nv := m.NumCoords(), m.NumElementStates(), m.NumVelocities()
	dq, dv := make([]float64, nq+ne), make([]float64, nv)
	sq, sv, su := make([]float64, nq+ne), make([]float64, nv), []float64{0.5}
	for i := range sq {
		sq[i] = math.Sin(float64(i + 1))
	}
	sv[2] = 0.7
	jq, jv, jy := make([]float64, nq+ne), make([]float64, nv), make([]float64, len(m.OutputInfo()))
	for k := 0; k < 20; k++ {
		if err := m.StateDerivatives(s, dq, dv); err != nil {
			t.Fatal(err)
		}
		if err := m.DirectionalDerivative(s, sq, sv, su, jq, jv, jy); err != nil {
			t.Fatal(err)
		}
		for _, x := range []*State{s, ref} {
			if err := m.AdvanceTo(x, x.T+0.005); err != nil {
				t.Fatal(err)
			}
		}
	}
	// (as TestStateDerivativesAndRestore: the snapshots' anchors may
	// differ where CopyFrom does not copy)
	if s.T != ref.T || !slices.Equal(s.core, ref.core) || !slices.Equal(s.vars, ref.vars) || s.stats != ref.stats {
		t.Errorf("stepping after the derivatives differs from a run without them")
	}
}
