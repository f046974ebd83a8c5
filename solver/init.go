package solver

import (
	"math"
	"mbfmu/solver/mech"
	"sort"
	"strings"
)

// Init sets s.T to the start time and makes the initial state consistent:
// positions are corrected to satisfy every constraint with the smallest
// change to the model's approximate initial positions, velocities are
// projected onto the velocity constraints, and accelerations and
// multipliers are solved from the equations of motion. It reports clearly
// when the constraints cannot be met.
//
// When it fails, or leaves a state that is not finite, the error names
// the source where one is found (a force, driver, parameter or input
// whose value is not finite, a mass out of scale; diagnose.go) as a
// spec.ErrorList with its file:line and field.
func (m *Model) Init(s *State) error {
	clear(s.turns)
	err := m.init(s)
	if err == nil {
		m.updateTurns(s)
	}
	if err == nil && !m.finiteState(s) {
		s.initialized = false
		err = errNonFiniteInit
	}
	if err != nil {
		return m.initError(s, err)
	}
	return nil
}

func (m *Model) init(s *State) error {
	s.T = m.settings.Start
	s.g0 = s.T
	clear(s.ramp)
	s.setRamped()
	s.setTime(s.T)
	copy(s.ulast, s.vars[1:])
	copy(s.q, m.q0)
	copy(s.v, m.v0)
	clear(s.a)
	clear(s.lam)
	s.stats = Stats{}
	s.h = m.settings.Step
	s.restartHistory()
	clear(s.red)
	s.nred = 0
	if m.kktSingular(s) {
		m.findRedundant(s)
	}
	// the element states' initial values first: the assembly may read
	// them (a driver of a user state); again after it, at the assembled
	// state (a friction's initial deflection follows the initial speed)
	m.commitStates(s, mech.CommitInit)
	if err := m.assemblePositions(s); err != nil {
		return err
	}
	if err := m.assembleVelocities(s, m.v0); err != nil {
		return err
	}
	m.commitStates(s, mech.CommitInit)
	if err := m.checkRedundant(s); err != nil {
		return err
	}
	if m.contacts != nil {
		m.contacts.begin(m, s) // contact modes (stickslip.go)
	}
	if err := m.startMotion(s); err != nil {
		return err
	}
	s.initialized = true
	return nil
}

// startMotion starts the integration from the assembled positions and
// velocities of s: accelerations and algorithmic accelerations solved
// there, the previous step's state set to it, the linear solver's factors
// to be rebuilt.
func (m *Model) startMotion(s *State) error {
	if err := m.accelerations(s, s.a, false); err != nil {
		return err
	}
	if err := m.startAlgorithmic(s); err != nil {
		return err
	}
	copy(s.qp, s.q)
	copy(s.vp, s.v)
	s.needFactor, s.reuseHold, s.reuseLen, s.hasAnchor = true, 0, 0, false
	return nil
}

// assemblePositions solves Φ(q, t) = 0 by Gauss–Newton steps of minimum
// norm: [I Φqᵀ; Φq 0][Δq; μ] = [0; −Φ].
func (m *Model) assemblePositions(s *State) error {
	if m.nc == 0 {
		return nil
	}
	nv := m.nv
	var worst float64
	for it := 0; it < 100; it++ {
		m.evalCons(s, false)
		worst = 0
		for r := 0; r < m.nc; r++ {
			worst = math.Max(worst, math.Abs(s.phi[r]))
		}
		if worst <= 1e-12 {
			return nil
		}
		if err := m.factorProjection(s); err != nil {
			e := &AssemblyError{Msg: "the constraints are redundant or singular at the initial configuration", Cause: err}
			e.Violating = m.violations(s)
			return e
		}
		for i := 0; i < nv; i++ {
			s.dx[i] = 0
		}
		for r := 0; r < m.nc; r++ {
			s.dx[nv+r] = -s.phi[r]
		}
		s.lin.Solve(s.dx)
		// limit the step so that a wild first guess does not jump branches
		step := 0.0
		for i := 0; i < nv; i++ {
			step = math.Max(step, math.Abs(s.dx[i]))
		}
		sc := 1.0
		if step > 0.5 {
			sc = 0.5 / step
		}
		m.addTo(s.q, s.dx, sc)
	}
	e := &AssemblyError{Msg: "the initial positions cannot satisfy the constraints (check the geometry and the drivers' values at the start time)"}
	e.Violating = m.violations(s)
	if len(e.Violating) > 0 {
		e.Joint, _, _ = strings.Cut(e.Violating[0], " by ")
	}
	return e
}

// AssemblyError reports inconsistent initial conditions.
type AssemblyError struct {
	Msg       string
	Violating []string // "joint by 0.3" descriptions, worst first
	Cause     error
	// Joint is the joint or driver the failure is blamed on (the worst
	// violated one), whose line the error is reported at; "" for none.
	Joint string
}

// Error formats the problem.
func (e *AssemblyError) Error() string {
	s := "assembly failed: " + e.Msg
	if len(e.Violating) > 0 {
		s += "; largest violations: " + strings.Join(e.Violating, ", ")
	}
	if e.Cause != nil {
		s += " (" + e.Cause.Error() + ")"
	}
	return s
}

func (m *Model) violations(s *State) []string {
	type v struct {
		name string
		val  float64
	}
	var vs []v
	for r := 0; r < m.nc; r++ {
		vs = append(vs, v{m.joints[m.cons[m.rowCon[r]].owner].Name, math.Abs(s.phi[r])})
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].val > vs[j].val })
	var out []string
	seen := map[string]bool{}
	for _, x := range vs {
		if seen[x.name] || x.val <= 1e-9 || len(out) >= 3 {
			continue
		}
		seen[x.name] = true
		out = append(out, x.name+" by "+ftoa(round4(x.val)))
	}
	return out
}

func round4(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// assembleVelocities projects the approximate velocities v0 onto the
// velocity constraints Φq v + Φt = 0: [I Φqᵀ; Φq 0][v; μ] = [v0; −Φt].
func (m *Model) assembleVelocities(s *State, v0 []float64) error {
	nv := m.nv
	if m.nc == 0 {
		copy(s.v, v0)
		return nil
	}
	m.evalCons(s, false)
	if err := m.factorProjection(s); err != nil {
		return &AssemblyError{Msg: "the constraint Jacobian is singular at the initial configuration (redundant constraints?)", Cause: err}
	}
	copy(s.dx, v0)
	for r := 0; r < m.nc; r++ {
		s.dx[nv+r] = -s.phit[r]
	}
	s.lin.Solve(s.dx)
	copy(s.v, s.dx[:nv])
	return nil
}

// kktSingular reports whether [I Φqᵀ; Φq 0] is singular at the current
// positions, that is whether the constraint Jacobian is rank deficient.
func (m *Model) kktSingular(s *State) bool {
	if m.nc == 0 {
		return false
	}
	m.evalCons(s, false)
	return m.factorProjection(s) != nil
}

// factorProjection puts [I Φqᵀ; Φq 0] at the current positions (as last
// evaluated by evalCons) into s.lin and factors it: the metric of the
// position and velocity projections.
func (m *Model) factorProjection(s *State) error {
	s.lin.Zero()
	s.linValid = false
	for i := 0; i < m.nv; i++ {
		s.lin.AddAt(m.mpos[i], 1)
	}
	m.addConstraintJac(s, 0, false)
	return s.lin.Factor()
}

// findRedundant marks the constraint rows that depend on others (their
// part independent of the rows before them in the band order below redTol
// of their norm: dependentRows), the way RecurDyn and Adams remove
// redundant constraints. It runs only for a rank-deficient model; its cost
// is linear in the model's size.
func (m *Model) findRedundant(s *State) {
	m.evalCons(s, false)
	w := s.sw
	rel2 := w.rel2
	for _, r := range w.drop[:m.dependentRows(s, redTol, &w.drop)] {
		s.red[r] = true
		s.nred++
	}
	w.drop, w.rel2 = w.drop[:0], rel2
}

// checkRedundant verifies that the removed rows hold at the assembled
// state: a redundant constraint that contradicts the others is an error.
func (m *Model) checkRedundant(s *State) error {
	if s.nred == 0 {
		return nil
	}
	// evaluate with every row taking part
	nred := s.nred
	s.nred = 0
	m.evalCons(s, false)
	s.nred = nred
	for r := 0; r < m.nc; r++ {
		if !s.red[r] {
			continue
		}
		phi := s.phi[r]
		pd := s.phit[r] + m.rowDot(s, r, s.v)
		if math.Abs(phi) > 1e-8 || math.Abs(pd) > 1e-8*(1+maxAbs(s.v)) {
			name := m.joints[m.cons[m.rowCon[r]].owner].Name
			return &AssemblyError{Joint: name, Msg: "the constraint equations of " + name +
				" are redundant but contradict the others (position violation " + ftoa(round4(math.Abs(phi))) +
				", velocity violation " + ftoa(round4(math.Abs(pd))) + "): fix the geometry or remove the joint"}
		}
	}
	return nil
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// startAlgorithmic sets the algorithmic accelerations of the
// generalized-α family at a consistent state (s.a solved): they
// approximate q̈(t + (αm − αf) h) (Arnold & Brüls 2007), so they start as
// aa = a + (αm − αf) h ȧ with ȧ by a difference of two acceleration
// solves. Starting them at a leaves an error of order h that the scheme
// carries as a slowly damped sawtooth in the accelerations and
// multipliers (and costs Newton iterations). Other schemes: aa = a.
func (m *Model) startAlgorithmic(s *State) error {
	copy(s.aa, s.a)
	in := &m.integ
	if in.family != famAlpha || in.am == in.af {
		return nil
	}
	h := s.h
	if h <= 0 {
		h = m.settings.Step
	}
	dt := 1e-6 * math.Max(h, 1e-9) / h * math.Min(h, 1e-3)
	copy(s.save, s.core)
	t0 := s.T
	// the state a short time dt later, to second order
	for i := range s.v {
		s.dq[i] = dt*s.v[i] + 0.5*dt*dt*s.a[i]
	}
	m.addTo(s.q, s.dq, 1)
	for i := range s.v {
		s.v[i] += dt * s.a[i]
	}
	s.setTime(t0 + dt)
	err := m.accelerations(s, s.tmp, false)
	a1 := s.tmp
	c := (in.am - in.af) * h / dt
	for i := range s.aa {
		s.aa[i] = s.save[m.nq+m.nv+i] // a (before the perturbation)
		s.aa[i] += c * (a1[i] - s.aa[i])
	}
	aa := append(s.dq[:0], s.aa...) // keep across the restore
	copy(s.core, s.save)
	copy(s.aa, aa)
	s.setTime(t0)
	return err
}
