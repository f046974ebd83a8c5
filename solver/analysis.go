package solver

import (
	"math"
	"math/cmplx"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/solver/mech"
)

// DOF returns the number of degrees of freedom at the current state:
// coordinates minus the number of independent constraint rows (those whose
// part independent of the others is above redTol of their norm, found in
// time linear in the model's size: dependentRows).
func (m *Model) DOF(s *State) int {
	if m.nc == 0 {
		return m.nv
	}
	m.evalCons(s, false)
	w := s.sw
	rel2, drop := w.rel2, w.nbr
	nd := m.dependentRows(s, redTol, &drop)
	w.rel2, w.nbr = rel2, drop[:0]
	return m.nv - (m.nc - s.nred - nd)
}

// constraintJacobian returns Φq (nc × nv) at the state.
func (m *Model) constraintJacobian(s *State) *mat.Dense {
	m.evalCons(s, false)
	J := mat.NewDense(max(m.nc, 1), m.nv, nil)
	for _, ce := range m.cons {
		nd := len(ce.d)
		for r := 0; r < ce.nr; r++ {
			for k, i := range ce.d {
				if i >= 0 {
					J.Set(ce.r0+r, i, J.At(ce.r0+r, i)+s.jac[ce.jo+r*nd+k])
				}
			}
		}
	}
	return J
}

// FreeMotions describes the motions the constraints leave free at the
// state (a basis of the null space of Φq), each by the body that moves
// most in it: a spatial body's turn as its axis and a point on it (the
// instantaneous screw axis, world frame), a translation by its direction,
// a planar body's turn by its centre. For error messages: a dense SVD,
// skipped for models of more than 3000 coordinates.
func (m *Model) FreeMotions(s *State) []string {
	if m.nv > 3000 {
		return []string{"too many coordinates to name them"}
	}
	J := m.constraintJacobian(s)
	var svd mat.SVD
	if !svd.Factorize(J, mat.SVDFullV) {
		return []string{"(the constraint Jacobian could not be analysed)"}
	}
	sv := svd.Values(nil)
	var V mat.Dense
	svd.VTo(&V)
	rank := 0
	for _, v := range sv {
		if v > 1e-9*sv[0] {
			rank++
		}
	}
	if m.nc == 0 {
		rank = 0
	}
	var out []string
	for k := rank; k < m.nv && len(out) < 6; k++ {
		x := mat.Col(nil, k, &V)
		out = append(out, m.describeMotion(s, x))
	}
	if n := m.nv - rank; n > 6 {
		out = append(out, itoa(n-6)+" more")
	}
	return out
}

// describeMotion names the body that moves most in the velocity vector x
// and how it moves.
func (m *Model) describeMotion(s *State, x []float64) string {
	best, bestN := -1, 0.0
	for i, b := range m.bodies {
		n := 3
		if b.Spatial {
			n = 6
		}
		w := 0.0
		for _, v := range x[b.V : b.V+n] {
			w += v * v
		}
		if w > bestN {
			best, bestN = i, w
		}
	}
	if best < 0 || bestN < 0.25 {
		// mostly flexible coordinates: name the largest
		k := 0
		for i, v := range x {
			if math.Abs(v) > math.Abs(x[k]) {
				k = i
			}
		}
		return "coordinate " + m.CoordNames()[k]
	}
	b := &m.bodies[best]
	num := func(a, scale float64) string {
		if math.Abs(a) < 1e-9*scale {
			a = 0 // (round-off)
		}
		return sprintf("%.3g", a)
	}
	f3 := func(v mech.Vec3) string {
		sc := math.Max(1, mech.Norm(v))
		return "(" + num(v[0], sc) + ", " + num(v[1], sc) + ", " + num(v[2], sc) + ")"
	}
	if !b.Spatial {
		vx, vy, w := x[b.V], x[b.V+1], x[b.V+2]
		cx, cy := s.q[b.Q], s.q[b.Q+1]
		if math.Abs(w) < 1e-6*math.Hypot(vx, vy) {
			return "body " + b.Name + " sliding along (" + sprintf("%.3g", vx/math.Hypot(vx, vy)) + ", " + sprintf("%.3g", vy/math.Hypot(vx, vy)) + ")"
		}
		return "body " + b.Name + " turning about the point (" + sprintf("%.3g", cx-vy/w) + ", " + sprintf("%.3g", cy+vx/w) + ")"
	}
	v := mech.Vec3{x[b.V], x[b.V+1], x[b.V+2]}
	R := mech.QuatMat(mech.Quat(s.q[b.Q+3 : b.Q+7]))
	w := mech.MulMV(&R, mech.Vec3{x[b.V+3], x[b.V+4], x[b.V+5]})
	nw := mech.Norm(w)
	if nw < 1e-6*mech.Norm(v) {
		return "body " + b.Name + " sliding along " + f3(mech.Scale(1/mech.Norm(v), v)) + " (world)"
	}
	// screw axis: direction w, through c + w × v / |w|² (c the centre of mass)
	c := mech.Vec3{s.q[b.Q], s.q[b.Q+1], s.q[b.Q+2]}
	p := mech.Add(c, mech.Scale(1/(nw*nw), mech.Cross(w, v)))
	msg := "body " + b.Name + " turning about the axis " + f3(mech.Scale(1/nw, w)) + " through " + f3(p) + " (world)"
	if sl := mech.Dot(w, v) / nw; math.Abs(sl) > 1e-6*nw {
		msg += ", sliding along it"
	}
	return msg
}

// Kinematics moves a fully driven mechanism (no degrees of freedom) to
// time t: positions from Φ(q, t) = 0, velocities from Φq v = −Φt,
// accelerations from Φq q̈ = γ, and the multipliers (driver efforts and
// joint reactions) from the equations of motion (inverse dynamics).
func (m *Model) Kinematics(s *State, t float64) error {
	if m.nc < m.nv {
		return errorf("kinematic analysis needs a fully driven mechanism: the model has %d coordinates but only %d constraint equations (%d degrees of freedom left: %s); drive them or fix them with joints", m.nv, m.nc, m.nv-m.nc, strings.Join(m.FreeMotions(s), "; "))
	}
	// predictor from the previous velocity and acceleration
	dt := t - s.T
	for i := range s.v {
		s.dq[i] = dt*s.v[i] + 0.5*dt*dt*s.a[i]
	}
	m.addTo(s.q, s.dq, 1)
	s.T = t
	s.setTime(t)
	if err := m.assemblePositions(s); err != nil {
		return err
	}
	if err := m.assembleVelocities(s, s.v); err != nil {
		return err
	}
	if err := m.accelerations(s, s.a, false); err != nil {
		return err
	}
	copy(s.aa, s.a)
	s.restartHistory()
	s.initialized = true
	m.updateTurns(s)
	m.commitStates(s, mech.CommitStep)
	s.stats.Steps++
	return nil
}

// Static finds the static equilibrium near the current positions (v = 0)
// at the current time: g + Q(q, 0, t) − Φqᵀ λ = 0, Φ(q, t) = 0, by Newton's
// method on the tangent stiffness with a Levenberg-style mass shift that is
// removed as it converges (so mechanisms with no stiffness at the start,
// such as a horizontal pendulum, still converge). Where that fails (a large
// deflection under a large load), it steps the load: with r₀ the residual
// at the start, it solves r(q) = (1 − λ) r₀ for λ rising from 0 to 1 in
// increments that grow while Newton converges quickly and halve where it
// does not (a Newton homotopy: every applied force, gravity and initial
// reaction is scaled alike).
func (m *Model) Static(s *State) error {
	clear(s.v)
	clear(s.a)
	clear(s.aa)
	m.commitStates(s, mech.CommitSteady) // element states at rest (a motor's current V/R)
	q0 := append([]float64(nil), s.q...)
	lam0 := append([]float64(nil), s.lam...)
	es0 := append([]float64(nil), s.es...)
	turns0 := append([]float64(nil), s.turns...)
	restore := func(q, lam, es, turns []float64) {
		copy(s.q, q)
		copy(s.lam, lam)
		copy(s.es, es)
		copy(s.turns, turns)
	}
	// a Newton correction moves a rotation by at most 0.2 rad and a
	// length by at most 0.2 of the model's size (a model in millimetres
	// or inches moves as one in metres)
	// (its size: the spread of its positions; rotations, slopes and other
	// dimensionless coordinates 0.2)
	capAt := make([]float64, m.nv)
	lo, hi := math.Inf(1), math.Inf(-1)
	units := m.coordUnits(m.CoordNames())
	for i := range capAt {
		capAt[i] = 0.2
		if qi := m.qOf[i]; units[i] == "m" && qi >= 0 {
			lo, hi = math.Min(lo, s.q[qi]), math.Max(hi, s.q[qi])
		}
	}
	size := 1.0
	if hi > lo {
		size = math.Max(1, hi-lo)
	}
	for i := range capAt {
		if units[i] == "m" {
			capAt[i] = 0.2 * size
		}
	}
	// one Newton sequence at the full load, as far as 100 iterations take
	// it (500 before load stepping existed), then the load stepped
	if _, err0 := m.staticNewton(s, 1, nil, capAt, 100); err0 != nil {
		// load stepping from the start
		restore(q0, lam0, es0, turns0)
		r0 := make([]float64, m.nv+m.nc)
		m.staticResidual(s, r0)
		at, dl := 0.0, 0.25
		for at < 1 {
			try := math.Min(1, at+dl)
			if 1-try < 1e-9 {
				try = 1
			}
			q1 := append([]float64(nil), s.q...)
			l1 := append([]float64(nil), s.lam...)
			e1 := append([]float64(nil), s.es...)
			t1 := append([]float64(nil), s.turns...)
			its, err := m.staticNewton(s, try, r0, capAt, 60)
			if err != nil {
				restore(q1, l1, e1, t1)
				dl /= 2
				if dl < 1e-5 {
					restore(q0, lam0, es0, turns0)
					return errorf("static equilibrium not found: at the full load %v; with the load stepped from 0, Newton's method fails beyond %.4g %% of it (a snap-through or a mechanism free to move without stiffness?)", err0, 100*at)
				}
				continue
			}
			at = try
			if its <= 8 {
				dl *= 2
			} else if its > 20 {
				dl = math.Max(dl/2, 1e-4)
			}
		}
	}
	s.initialized = true
	copy(s.qp, s.q)
	clear(s.vp)
	s.restartHistory()
	return m.accelerations(s, s.a, false)
}

// staticResidual writes the static residual at the current positions and
// multipliers: −(g + Q) + Φqᵀ λ, then Φ; it returns the force scale
// max(1, |g|) against which the force rows are judged.
func (m *Model) staticResidual(s *State, res []float64) float64 {
	nv := m.nv
	s.lin.Zero()
	s.linValid = false
	m.evalForces(s, true, 1, 0)
	m.evalCons(s, false)
	for i := 0; i < nv; i++ {
		res[i] = -(m.gq[i] + s.fq[i])
	}
	m.addJacT(s, res, s.lam, 1)
	for r := 0; r < m.nc; r++ {
		res[nv+r] = s.phi[r]
	}
	scale := 1.0
	for i := 0; i < nv; i++ {
		scale = math.Max(scale, math.Abs(m.gq[i]))
	}
	return scale
}

// staticNewton solves r(q) = (1 − frac) r0 (r0 nil: r(q) = 0) from the
// current state in at most maxIt iterations, each correction of coordinate
// i at most capAt[i], and returns how many it took.
func (m *Model) staticNewton(s *State, frac float64, r0, capAt []float64, maxIt int) (int, error) {
	nv := m.nv
	mu := 1e-2
	prev := math.Inf(1)
	small := false // the last Newton correction was at round-off level
	rounds := 0    // re-solves after the element states moved
	for it := 0; it < maxIt; it++ {
		scale := m.staticResidual(s, s.res)
		if r0 != nil {
			for i, r := range r0 {
				s.res[i] -= (1 - frac) * r
			}
		}
		nrm := 0.0
		for i := 0; i < nv; i++ {
			nrm = math.Max(nrm, math.Abs(s.res[i])/scale)
		}
		for r := 0; r < m.nc; r++ {
			nrm = math.Max(nrm, math.Abs(s.res[nv+r]))
		}
		if !finite(nrm) {
			break
		}
		if nrm < 1e-11 || small {
			// the element states at rest at this configuration; where
			// they move (a user state reading the positions), the
			// equilibrium moves too: again until they hold
			if m.nes > 0 && rounds < 50 {
				before := append([]float64(nil), s.es...)
				m.commitStates(s, mech.CommitSteady)
				moved := false
				for k := range before {
					if math.Abs(s.es[k]-before[k]) > 1e-12*(1+math.Abs(before[k])) {
						moved = true
					}
				}
				if moved {
					rounds++
					prev, small = math.Inf(1), false
					continue
				}
			}
			return it, nil
		}
		if nrm < prev {
			mu *= 0.3
		} else {
			mu *= 4
		}
		prev = nrm
		m.addMass(s, mu*scale)
		// the constraint rows equilibrated with the stiffness: a stiff
		// element held by joints (a steel rod clamped at both ends, EA/l
		// = 4e8) makes the constraint pivots about 1/K, below the LU's
		// tolerance of 1e-14 of the largest entry; rows c Φq and
		// multipliers λ = c μ, c = √max K_ii, bring them to about 1
		kmax := 1.0
		for i := 0; i < nv; i++ {
			kmax = math.Max(kmax, math.Abs(s.lin.At(i, i)))
		}
		cs := math.Sqrt(kmax)
		m.addConstraintJacScaled(s, 1, true, cs)
		if err := s.lin.Factor(); err != nil {
			mu = math.Max(mu*10, 1e-3)
			continue
		}
		for i := range s.res {
			s.dx[i] = -s.res[i]
		}
		for r := 0; r < m.nc; r++ {
			s.dx[nv+r] *= cs
		}
		s.lin.Solve(s.dx)
		for r := 0; r < m.nc; r++ {
			s.dx[nv+r] *= cs
		}
		step, qn, over := 0.0, 0.0, 0.0
		for i := 0; i < nv; i++ {
			step = math.Max(step, math.Abs(s.dx[i]))
			over = math.Max(over, math.Abs(s.dx[i])/capAt[i])
		}
		for _, x := range s.q {
			qn = math.Max(qn, math.Abs(x))
		}
		// stiff (flexible) elements leave a force residual at the round-off
		// of their internal forces: accept a negligible Newton correction
		small = mu <= 1e-2 && step <= 1e-12*(1+qn)
		sc := 1.0
		if over > 1 {
			sc = 1 / over
		}
		m.addTo(s.q, s.dx, sc)
		m.updateTurns(s) // (a correction turns by at most 0.2 rad)
		for r := 0; r < m.nc; r++ {
			s.lam[r] += sc * s.dx[nv+r]
		}
	}
	return maxIt, errorf("static equilibrium not found in %d iterations (is the mechanism free to move without stiffness, e.g. sliding with no spring?)", maxIt)
}

// Linear is a linear model about an operating point in minimal
// (independent) coordinates z of the tangent space, q ≈ q₀ ⊕ N z:
//
//	ẋ = A x + B u,  y = C x + D u,  x = (z, w, e),  w = Nᵀ v,
//
// u the model inputs and y the declared outputs (or nothing), e the
// elements' own continuous states (a motor's current; none in most
// models). For a state at rest w = ż.
type Linear struct {
	A, B, C, D *mat.Dense
	N          *mat.Dense // nv × nf orthonormal basis of the constraint null space
	Inputs     []string
	Outputs    []string
	Coords     []string // names of the nv velocity coordinates (rows of N)
	// States names the elements' own continuous states (a motor's
	// current), the last len(States) entries of the state vector
	States []string
	Modes  []Mode
}

// Mode is one eigenmode of a Linear model.
type Mode struct {
	Eig       complex128 // eigenvalue (rad/s)
	Freq      float64    // undamped natural frequency |λ|/2π (Hz)
	DampedHz  float64    // |Im λ|/2π (Hz)
	Damping   float64    // damping ratio −Re λ / |λ|
	Shape     []float64  // in the velocity coordinates (max |·| = 1)
	Oscillate bool       // complex pair (false: real, overdamped or rigid)
}

// tangent assembles cm·M(q) + ck·(K + H(λ)) + cc·C — the Newton
// iteration matrix's upper-left block, built by the same code the
// integrators use (forces' analytic and finite-difference tangents,
// configuration-dependent inertia, constraint Hessians), completed by the
// coupling of expression forces to the measures of bodies they do not act
// on (measureTangent) — and returns it dense (nv × nv). The linear
// solver's matrix is left unfactored and marked for refactorisation.
func (m *Model) tangent(s *State, cm, ck, cc float64) *mat.Dense {
	nv := m.nv
	s.lin.Zero()
	s.linValid = false
	m.addMass(s, cm)
	if ck != 0 {
		s.x.CA = cm / ck
	}
	m.evalForces(s, true, ck, cc)
	s.x.CA = 0
	m.evalCons(s, false)
	m.addConstraintJac(s, ck, true)
	T := mat.NewDense(nv, nv, nil)
	for i := 0; i < nv; i++ {
		for j := 0; j < nv; j++ {
			T.Set(i, j, s.lin.At(i, j))
		}
	}
	m.measureTangent(s, T, ck, cc)
	return T
}

// measureTangent adds to T the part of ck·K + cc·C that the Newton matrix
// leaves out: the derivatives of the force elements whose expressions read
// measures with respect to the coordinates outside the element (a force
// on one body written with the position of another, a bushing written as
// two expression forces). fdTangent differentiates such an element over
// its own coordinates only — the Newton matrix keeps its sparsity and the
// other measures act through the residual — but a linearisation needs
// every derivative. Central differences as in fdTangent, over each
// coordinate the element does not hold (most give exactly zero).
func (m *Model) measureTangent(s *State, T *mat.Dense, ck, cc float64) {
	own := make([]bool, m.nv)
	for _, f := range m.forces {
		if !mech.ReadsMeasures(f) {
			continue
		}
		d := f.Dofs()
		n := len(d)
		clear(own)
		for _, i := range d {
			if i >= 0 {
				own[i] = true
			}
		}
		fp, fm := s.fl2[:n], s.fl3[:n]
		for j := 0; j < m.nv; j++ {
			if own[j] {
				continue
			}
			for pass, coef := range [2]float64{ck, cc} {
				if coef == 0 {
					continue
				}
				dx := m.forceDiffs(s, f, j, pass == 1, fp, fm)
				for a, i := range d {
					if i >= 0 && fp[a] != fm[a] {
						T.Set(i, j, T.At(i, j)-coef*(fp[a]-fm[a])/(2*dx))
					}
				}
			}
		}
	}
}

// massMatrix returns the mass matrix M(q) at the state (nv × nv): the
// model's constant mass and the configuration-dependent inertia that
// elements add to their tangent through the acceleration coupling CA
// (floating-frame beams). It is the Newton tangent cm·M + ck·K with a tiny
// ck less the same with cm = 0: with ck = 1 the difference would lose the
// mass to the round-off of a large K (a stiff beam's K/M reaches 1e10).
func (m *Model) massMatrix(s *State) *mat.Dense {
	const ck = 1.0 / (1 << 30)
	M := m.tangent(s, 1, ck, 0)
	M.Sub(M, m.tangent(s, 0, ck, 0))
	return M
}

// sticking lists the elements with exact Coulomb friction that stick:
// each holds its slip velocity by a constraint on the accelerations,
// W a = −(Γ + κ vt), whose multiplier is the friction force
// (stickslip.go). The linearisation takes them as constraint rows after
// those of Φ.
func (m *Model) sticking(s *State) []mech.Coulomb {
	if m.contacts == nil || !m.contacts.coulomb {
		return nil
	}
	var out []mech.Coulomb
	for _, e := range m.contacts.rows {
		if st := m.contacts.group(s, e); st[mech.CSClosed] != 0 && st[mech.CSMode] == 0 {
			out = append(out, e)
		}
	}
	return out
}

// stickRow evaluates the slip-acceleration constraint of the sticking
// element e at the state: its row W (on e.Dofs()) and the right-hand side
// of W a = −(Γ + κ vt).
func (m *Model) stickRow(s *State, e mech.Coulomb) (w []float64, rhs float64) {
	w = make([]float64, len(e.Dofs()))
	vt, gamma := m.contacts.rowSlip(m, s, e, w)
	return w, -(gamma + m.contacts.kappa*vt)
}

// accConstraints returns the rows of the constraints on the accelerations
// ((nc + len(stick)) × nv): Φq, then the sticking contacts' W.
func (m *Model) accConstraints(s *State, stick []mech.Coulomb) *mat.Dense {
	G := mat.NewDense(m.nc+len(stick), m.nv, nil)
	if m.nc > 0 {
		G.Slice(0, m.nc, 0, m.nv).(*mat.Dense).Copy(m.constraintJacobian(s).Slice(0, m.nc, 0, m.nv))
	}
	for i, e := range stick {
		w, _ := m.stickRow(s, e)
		for a, d := range e.Dofs() {
			if d >= 0 {
				G.Set(m.nc+i, d, G.At(m.nc+i, d)+w[a])
			}
		}
	}
	return G
}

// conDerivs returns, by extrapolated central differences over each
// coordinate,
// Gq = ∂(γ − G a)/∂q, Gv = ∂γ/∂v for the constraints on the accelerations
// G a = γ (nc + len(stick) rows: Φ's, then the sticking contacts') and
// Pq = ∂(Φq v + Φt)/∂q (nc rows) at the state: the terms of the constrained
// accelerations' derivative that the iteration matrix does not hold.
func (m *Model) conDerivs(s *State, stick []mech.Coulomb) (Gq, Gv, Pq *mat.Dense) {
	nv, nc, nr := m.nv, m.nc, m.nc+len(stick)
	Gq, Gv, Pq = mat.NewDense(max(nr, 1), nv, nil), mat.NewDense(max(nr, 1), nv, nil), mat.NewDense(max(nc, 1), nv, nil)
	q0 := append([]float64(nil), s.q...)
	e := make([]float64, nv)
	// g(r) = γ − G a of every row, p(r) = Φq v + Φt of Φ's rows
	rowsAt := func(g, p []float64) {
		m.evalCons(s, true)
		for r := 0; r < nc; r++ {
			g[r] = s.gamma[r] - m.rowDot(s, r, s.a)
			if p != nil {
				p[r] = s.phit[r] + m.rowDot(s, r, s.v)
			}
		}
		for i, c := range stick {
			w, rhs := m.stickRow(s, c)
			for a, d := range c.Dofs() {
				if d >= 0 {
					rhs -= w[a] * s.a[d]
				}
			}
			g[nc+i] = rhs
		}
	}
	gp, gm := make([]float64, nr), make([]float64, nr)
	pp, pm := make([]float64, nc), make([]float64, nc)
	// central differences with steps h and h/2 and a Richardson
	// extrapolation (error O(h⁴), round-off ~1e-16/h of the rows)
	extrap := func(dst *mat.Dense, n, k int, d0, d1 []float64) {
		for r := 0; r < n; r++ {
			dst.Set(r, k, (4*d1[r]-d0[r])/3)
		}
	}
	dg0, dg1 := make([]float64, nr), make([]float64, nr)
	dp0, dp1 := make([]float64, nc), make([]float64, nc)
	for k := 0; k < nv; k++ {
		const h = 1e-5
		for lev, hk := range [2]float64{h, h / 2} {
			clear(e)
			e[k] = hk
			m.addTo(s.q, e, 1)
			rowsAt(gp, pp)
			copy(s.q, q0)
			m.addTo(s.q, e, -1)
			rowsAt(gm, pm)
			copy(s.q, q0)
			dg, dp := dg0, dp0
			if lev == 1 {
				dg, dp = dg1, dp1
			}
			for r := range dg {
				dg[r] = (gp[r] - gm[r]) / (2 * hk)
			}
			for r := range dp {
				dp[r] = (pp[r] - pm[r]) / (2 * hk)
			}
		}
		extrap(Gq, nr, k, dg0, dg1)
		extrap(Pq, nc, k, dp0, dp1)
		// γ's velocity terms (G a does not depend on v)
		v0 := s.v[k]
		for lev, hk := range [2]float64{h, h / 2} {
			hv := hk * (1 + math.Abs(v0))
			s.v[k] = v0 + hv
			hp := s.v[k] - v0
			rowsAt(gp, nil)
			s.v[k] = v0 - hv
			hm := v0 - s.v[k]
			rowsAt(gm, nil)
			s.v[k] = v0
			dg := dg0
			if lev == 1 {
				dg = dg1
			}
			for r := range dg {
				dg[r] = (gp[r] - gm[r]) / (hp + hm)
			}
		}
		extrap(Gv, nr, k, dg0, dg1)
	}
	m.evalCons(s, true)
	return
}

// nullSpace returns an orthonormal basis N of the null space of J (rows ×
// nv), the pseudo-inverse J⁺ (nv × rows; nil for no rows) and the rank
// (singular values above 1e-9 of the largest).
func nullSpace(J *mat.Dense, rows, nv int) (N, Pinv *mat.Dense, rank int, err error) {
	if rows == 0 {
		N = mat.NewDense(nv, nv, nil)
		for i := 0; i < nv; i++ {
			N.Set(i, i, 1)
		}
		return N, nil, 0, nil
	}
	var svd mat.SVD
	if !svd.Factorize(J.Slice(0, rows, 0, nv), mat.SVDFull) {
		return nil, nil, 0, errorf("SVD of the constraint Jacobian failed")
	}
	sv := svd.Values(nil)
	for _, v := range sv {
		if v > 1e-9*sv[0] {
			rank++
		}
	}
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	if rank < nv {
		N = mat.DenseCopyOf(V.Slice(0, nv, rank, nv))
	}
	Pinv = mat.NewDense(nv, rows, nil)
	for k := 0; k < rank; k++ {
		for i := 0; i < nv; i++ {
			for j := 0; j < rows; j++ {
				Pinv.Set(i, j, Pinv.At(i, j)+V.At(i, k)*U.At(j, k)/sv[k])
			}
		}
	}
	return N, Pinv, rank, nil
}

// Linearize linearises the model about the current state in the tangent
// space of the constraint manifold. The constrained accelerations a(q, v,
// u) of the equations of motion [M Φqᵀ; Φq 0][a; λ] = [g + Q; γ] are
// differentiated exactly: the iteration matrix of the implicit
// integrators (Model.tangent: M(q), K + H(λ) and C from the same element
// code as a Newton step, completed by the coupling of expression forces
// to other bodies' measures) for the force rows, and the derivatives of
// the constraints' acceleration terms for the others; the velocities
// follow the velocity constraints, w = Nᵀ v. The accelerations at the
// state are solved, not taken from it (to the fixed point where an
// element's force reads them: floating-frame beams). Contacts keep their
// modes: a sticking contact's constraint on its slip acceleration joins
// Φ's rows on the accelerations (not on the state: its slip velocity
// decays at the rate of its drift gain). C and D are differences of the
// outputs along the linearised motion (positions, velocities,
// accelerations and multipliers moved together), so they share A's and
// B's tangent. Eigenvalues and mode shapes are computed and sorted by
// frequency. The state is left as it was.
func (m *Model) Linearize(s *State) (*Linear, error) {
	nv, nc := m.nv, m.nc
	save := append([]float64(nil), s.core...)
	defer func() { copy(s.core, save); s.linValid = false }()
	a0 := append([]float64(nil), s.a...)
	if err := m.accelerations(s, s.a, false); err != nil {
		return nil, err
	}
	// null-space basis N of Φq (the state's coordinates) and Φq⁺
	N, Pinv, _, err := nullSpace(m.constraintJacobian(s), nc, nv)
	if err != nil {
		return nil, err
	}
	if N == nil {
		return nil, errorf("the mechanism has no degrees of freedom: nothing to linearise")
	}
	_, nf := N.Dims()
	// The constraints on the accelerations G a = γ: Φ's and the sticking
	// contacts' (their slip held by the friction force). The accelerations
	// are solved in coordinates scaled by S = diag(M)^-½ (a beam's slope
	// coordinates weigh 1e-10 of its positions: unscaled, the reduced mass
	// below loses that much precision): P a basis of the null space of
	// G S, (G S)⁺ its pseudo-inverse, and with δa = S (P y + (G S)⁺ δγ)
	// the force rows projected on S P give Mr y = Pᵀ S (δf − M S (G S)⁺
	// δγ), Mr = Pᵀ S M S P.
	stick := m.sticking(s)
	nr := nc + len(stick)
	Mt := m.massMatrix(s)
	sc := make([]float64, nv)
	for i := range sc {
		sc[i] = 1
		if d := Mt.At(i, i); d > 0 {
			sc[i] = 1 / math.Sqrt(d)
		}
	}
	S := func(x *mat.VecDense) *mat.VecDense {
		y := mat.NewVecDense(nv, nil)
		for i := 0; i < nv; i++ {
			y.SetVec(i, sc[i]*x.AtVec(i))
		}
		return y
	}
	var P, Ginv *mat.Dense
	if nr > 0 {
		G := m.accConstraints(s, stick)
		for r := 0; r < nr; r++ {
			for i := 0; i < nv; i++ {
				G.Set(r, i, G.At(r, i)*sc[i])
			}
		}
		P, Ginv, _, err = nullSpace(G, nr, nv)
		if err != nil {
			return nil, err
		}
	} else {
		P, _, _, _ = nullSpace(nil, 0, nv)
	}
	// free(f) is the acceleration S P Mr⁻¹ Pᵀ S f of a force f (zero when
	// the sticking contacts hold every degree of freedom: P is empty),
	// part(g) = S (G S)⁺ g that of a change g of γ
	var MrInv mat.Dense
	if P != nil {
		var Ms, t, Mr mat.Dense
		Ms.Apply(func(i, j int, v float64) float64 { return sc[i] * v * sc[j] }, Mt)
		t.Mul(&Ms, P)
		Mr.Mul(P.T(), &t)
		if err := MrInv.Inverse(&Mr); err != nil {
			return nil, errorf("reduced mass matrix is singular: %v", err)
		}
	}
	free := func(f *mat.VecDense) *mat.VecDense {
		if P == nil {
			return mat.NewVecDense(nv, nil)
		}
		var t, y, a mat.VecDense
		t.MulVec(P.T(), S(f))
		y.MulVec(&MrInv, &t)
		a.MulVec(P, &y)
		return S(&a)
	}
	part := func(g *mat.VecDense) *mat.VecDense {
		var a mat.VecDense
		a.MulVec(Ginv, g)
		return S(&a)
	}
	// multipliers of a change of the force rows: Gᵀ δμ = δf − M δa, that
	// is (G S)ᵀ δμ = S (δf − M δa); μ = (λ, −friction forces of the
	// sticking contacts)
	mult := func(f, da *mat.VecDense) []float64 {
		if nr == 0 {
			return nil
		}
		var t, mu mat.VecDense
		t.MulVec(Mt, da)
		t.SubVec(f, &t)
		mu.MulVec(Ginv.T(), S(&t))
		return mu.RawVector().Data
	}
	// The accelerations of an element whose force reads them (the inertia
	// of floating-frame beams) are one fixed-point pass above, from the
	// state's: with M the mass the elements hold as M̄ in the model and
	// the rest in their forces, the pass a₁ = F(a₀) leaves M (a − a₁) +
	// Gᵀ (μ − μ₁) = −(M − M̄)(a₁ − a₀), G (a − a₁) = 0, solved here.
	if e := m.extraMass(s, Mt, a0); e != nil {
		e.ScaleVec(-1, e)
		ca := free(e)
		mu := mult(e, ca)
		m.addMultipliers(s, stick, mu, 1)
		for i := range s.a {
			s.a[i] += ca.AtVec(i)
		}
	}
	Kt := m.tangent(s, 0, 1, 0)
	Ct := m.tangent(s, 0, 0, 1)
	Gq, Gv, Pq := m.conDerivs(s, stick)
	// δv of a position change along the manifold: the velocity
	// constraints Φq v + Φt = 0 hold, δv = −Φq⁺ Pq δq (zero at rest)
	var Vq mat.Dense
	if nc > 0 {
		Vq.Mul(Pinv, Pq)
		Vq.Scale(-1, &Vq)
	} else {
		Vq.ReuseAs(nv, nv)
	}
	// dq, dv of state direction j (z then w)
	dirs := func(j int) (dq, dv *mat.VecDense) {
		dq, dv = mat.NewVecDense(nv, nil), mat.NewVecDense(nv, nil)
		if j < nf {
			dq.CopyVec(N.ColView(j))
			dv.MulVec(&Vq, dq)
		} else {
			dv.CopyVec(N.ColView(j - nf))
		}
		return
	}
	// δa and δμ of (δq, δv) and extra force and γ terms
	accel := func(dq, dv *mat.VecDense, df, dg []float64) (*mat.VecDense, []float64) {
		f := mat.NewVecDense(nv, nil)
		var t mat.VecDense
		t.MulVec(Kt, dq)
		f.SubVec(f, &t)
		t.MulVec(Ct, dv)
		f.SubVec(f, &t)
		if df != nil {
			f.AddVec(f, mat.NewVecDense(nv, df))
		}
		an := mat.NewVecDense(nv, nil)
		if nr > 0 {
			g := mat.NewVecDense(nr, nil)
			var g1, g2 mat.VecDense
			g1.MulVec(Gq.Slice(0, nr, 0, nv), dq)
			g2.MulVec(Gv.Slice(0, nr, 0, nv), dv)
			g.AddVec(&g1, &g2)
			if dg != nil {
				g.AddVec(g, mat.NewVecDense(nr, dg))
			}
			an = part(g)
		}
		var man mat.VecDense
		man.MulVec(Mt, an)
		man.SubVec(f, &man)
		da := free(&man)
		da.AddVec(da, an)
		return da, mult(f, da)
	}
	type dir struct {
		dq, dv, da *mat.VecDense
		dmu        []float64
		es         int // an element state moved by 1 (its slot in s.es), or -1
	}
	// the elements' own continuous states (a motor's current), after z
	// and w in the state vector: their slots and their rates (the rates
	// of every element, in the order of ess)
	var ess []mech.StateInfo
	nst := make([]int, len(m.stateful)) // each element's count
	for k, e := range m.stateful {
		st := e.States()
		ess, nst[k] = append(ess, st...), len(st)
	}
	ne := len(ess)
	nx := 2*nf + ne
	rv := make([]float64, ne)
	rates := func(dst []float64) {
		off := 0
		for k, e := range m.stateful {
			e.Rates(&s.x, dst[off:off+nst[k]])
			off += nst[k]
		}
	}
	rp, rm := make([]float64, ne), make([]float64, ne)
	ratesDiff := func(move func(sg float64), h float64) []float64 {
		base := append([]float64(nil), s.core...)
		move(h)
		rates(rp)
		copy(s.core, base)
		move(-h)
		rates(rm)
		copy(s.core, base)
		move(0) // what lives outside the core (an input) goes back too
		for k := range rv {
			rv[k] = (rp[k] - rm[k]) / (2 * h)
		}
		return rv
	}
	sdirs := make([]dir, 2*nf)
	A := mat.NewDense(nx, nx, nil)
	for j := 0; j < 2*nf; j++ {
		dq, dv := dirs(j)
		// ż = Nᵀ (δv + ½ δθ × ω on rotations: θ̇ = T(θ)⁻¹ ω)
		dz := mat.VecDenseCopyOf(dv)
		for _, r := range m.rots {
			th := [3]float64{dq.AtVec(r.v), dq.AtVec(r.v + 1), dq.AtVec(r.v + 2)}
			om := [3]float64{s.v[r.v], s.v[r.v+1], s.v[r.v+2]}
			c := [3]float64{th[1]*om[2] - th[2]*om[1], th[2]*om[0] - th[0]*om[2], th[0]*om[1] - th[1]*om[0]}
			for k := 0; k < 3; k++ {
				dz.SetVec(r.v+k, dz.AtVec(r.v+k)+0.5*c[k])
			}
		}
		da, dmu := accel(dq, dv, nil, nil)
		sdirs[j] = dir{dq, dv, da, dmu, -1}
		if ne > 0 {
			for k, r := range ratesDiff(func(sg float64) {
				m.addTo(s.q, dq.RawVector().Data, sg)
				for i := 0; i < nv; i++ {
					s.v[i] += sg * dv.AtVec(i)
				}
			}, 1e-6) {
				A.Set(2*nf+k, j, r)
			}
		}
		var zz, ww mat.VecDense
		if j < nf {
			zz.MulVec(N.T(), dz)
		} else {
			zz = *mat.NewVecDense(nf, nil)
			zz.SetVec(j-nf, 1) // Nᵀ N = I
		}
		ww.MulVec(N.T(), da)
		for i := 0; i < nf; i++ {
			A.Set(i, j, zz.AtVec(i))
			A.Set(nf+i, j, ww.AtVec(i))
		}
	}
	L := &Linear{A: A, N: N, Coords: m.CoordNames()}
	for _, e := range ess {
		L.States = append(L.States, e.Name)
	}
	// inputs: ∂Q/∂u and ∂γ/∂u by central differences
	nu := len(m.inputs)
	L.B = mat.NewDense(nx, max(nu, 1), nil)
	fp, gp, gm := make([]float64, nv), make([]float64, nr), make([]float64, nr)
	df, dg := make([]float64, nv), make([]float64, nr)
	rhs := func(g []float64) {
		m.evalForces(s, false, 0, 0)
		m.evalCons(s, true)
		copy(g, s.gamma)
		for i, e := range stick {
			_, g[nc+i] = m.stickRow(s, e)
		}
	}
	udirs := make([]dir, nu)
	zero := mat.NewVecDense(nv, nil)
	for k := 0; k < nu; k++ {
		L.Inputs = append(L.Inputs, m.inputs[k].Name)
		u0 := s.Input(k)
		du := 1e-6 * math.Max(1, math.Abs(u0))
		s.SetInput(k, u0+du)
		rhs(gp)
		copy(fp, s.fq)
		s.SetInput(k, u0-du)
		rhs(gm)
		s.SetInput(k, u0)
		for i := range df {
			df[i] = (fp[i] - s.fq[i]) / (2 * du)
		}
		for r := range dg {
			dg[r] = (gp[r] - gm[r]) / (2 * du)
		}
		da, dmu := accel(zero, zero, df, dg)
		udirs[k] = dir{zero, zero, da, dmu, -1}
		var ww mat.VecDense
		ww.MulVec(N.T(), da)
		for i := 0; i < nf; i++ {
			L.B.Set(nf+i, k, ww.AtVec(i))
		}
		if ne > 0 {
			for r, v := range ratesDiff(func(sg float64) { s.SetInput(k, u0+sg) }, du) {
				L.B.Set(2*nf+r, k, v)
			}
		}
	}
	// element states: the forces they apply (as the inputs) and their
	// rates, by central differences
	edirs := make([]dir, ne)
	for k, e := range ess {
		e0 := s.es[e.Slot]
		de := 1e-6 * math.Max(1, math.Abs(e0))
		s.es[e.Slot] = e0 + de
		rhs(gp)
		copy(fp, s.fq)
		s.es[e.Slot] = e0 - de
		rhs(gm)
		s.es[e.Slot] = e0
		for i := range df {
			df[i] = (fp[i] - s.fq[i]) / (2 * de)
		}
		for r := range dg {
			dg[r] = (gp[r] - gm[r]) / (2 * de)
		}
		da, dmu := accel(zero, zero, df, dg)
		edirs[k] = dir{zero, zero, da, dmu, e.Slot}
		var ww mat.VecDense
		ww.MulVec(N.T(), da)
		for i := 0; i < nf; i++ {
			A.Set(nf+i, 2*nf+k, ww.AtVec(i))
		}
		slot := e.Slot
		for r, v := range ratesDiff(func(sg float64) { s.es[slot] += sg }, de) {
			A.Set(2*nf+r, 2*nf+k, v)
		}
	}
	m.evalCons(s, true)
	// outputs: central differences along the linearised motion, the
	// positions, velocities, accelerations and multipliers (joint
	// reactions, friction forces) all moved by their first-order change.
	// Steps 1e-5 and 5e-6 (m, rad, m/s, rad/s; relative for inputs) and a
	// Richardson extrapolation: large enough for outputs that are large
	// against their changes (a top's kinetic energy), the extrapolation
	// for those with large third derivatives (a stiff beam's strain
	// energy).
	ny := len(m.outputs)
	L.C = mat.NewDense(max(ny, 1), nx, nil)
	L.D = mat.NewDense(max(ny, 1), max(nu, 1), nil)
	if ny > 0 {
		base := append([]float64(nil), s.core...)
		yp, ym, d1 := make([]float64, ny), make([]float64, ny), make([]float64, ny)
		diff := func(d dir, u int, h float64) []float64 {
			u0 := 0.0
			if u >= 0 {
				u0 = s.Input(u)
			}
			for k, hk := range [2]float64{h, h / 2} {
				for sgn, dst := range [2][]float64{yp, ym} {
					sg := hk * (1 - 2*float64(sgn))
					m.addTo(s.q, d.dq.RawVector().Data, sg)
					for i := 0; i < nv; i++ {
						s.v[i] += sg * d.dv.AtVec(i)
						s.a[i] += sg * d.da.AtVec(i)
					}
					m.addMultipliers(s, stick, d.dmu, sg)
					if u >= 0 {
						s.SetInput(u, u0+sg)
					}
					if d.es >= 0 {
						s.es[d.es] += sg
					}
					m.EvalOutputs(s, dst)
					copy(s.core, base)
				}
				for o := range yp {
					c := (yp[o] - ym[o]) / (2 * hk)
					if k == 0 {
						d1[o] = c
					} else {
						yp[o] = (4*c - d1[o]) / 3
					}
				}
			}
			if u >= 0 {
				s.SetInput(u, u0)
			}
			return yp
		}
		for j, d := range sdirs {
			for o, c := range diff(d, -1, 1e-5) {
				L.C.Set(o, j, c)
			}
		}
		for k, d := range udirs {
			for o, c := range diff(d, k, 1e-5*math.Max(1, math.Abs(s.Input(k)))) {
				L.D.Set(o, k, c)
			}
		}
		for k, d := range edirs {
			for o, c := range diff(d, -1, 1e-5*math.Max(1, math.Abs(s.es[d.es]))) {
				L.C.Set(o, 2*nf+k, c)
			}
		}
		for _, o := range m.outputs {
			L.Outputs = append(L.Outputs, o.Name)
		}
	}
	L.Modes = modes(A, N, nf)
	return L, nil
}

// extraMass returns (M − M̄)(a − a0), M the mass matrix at the state
// (massMatrix), M̄ the constant mass the model holds, a the state's
// accelerations; nil when M = M̄ (no configuration-dependent inertia) or a
// = a0.
func (m *Model) extraMass(s *State, M *mat.Dense, a0 []float64) *mat.VecDense {
	D := mat.DenseCopyOf(M)
	for i, d := range m.mdiag {
		D.Set(i, i, D.At(i, i)-d)
	}
	for _, b := range m.mblocks {
		n := len(b.dofs)
		for k, i := range b.dofs {
			for l, j := range b.dofs {
				if i >= 0 && j >= 0 {
					D.Set(i, j, D.At(i, j)-b.m[k*n+l])
				}
			}
		}
	}
	da := make([]float64, m.nv)
	any := false
	for i := range da {
		da[i] = s.a[i] - a0[i]
		any = any || da[i] != 0
	}
	if !any || maxAbsDense(D) == 0 {
		return nil
	}
	var e mat.VecDense
	e.MulVec(D, mat.NewVecDense(m.nv, da))
	return &e
}

func maxAbsDense(X *mat.Dense) float64 {
	r, c := X.Dims()
	x := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			x = math.Max(x, math.Abs(X.At(i, j)))
		}
	}
	return x
}

// addMultipliers adds sc·δμ to the state's multipliers: λ for Φ's rows,
// and the friction forces of the sticking contacts (μ holds their
// negatives: the friction force acts as Wᵀ F on the force rows).
func (m *Model) addMultipliers(s *State, stick []mech.Coulomb, dmu []float64, sc float64) {
	if dmu == nil {
		return
	}
	for r := 0; r < m.nc; r++ {
		s.lam[r] += sc * dmu[r]
	}
	for i, e := range stick {
		m.contacts.group(s, e)[mech.CSStick] -= sc * dmu[m.nc+i]
	}
}

// modes computes eigenvalues and shapes of the state matrix, one per
// complex-conjugate pair, sorted by natural frequency.
func modes(A, N *mat.Dense, nf int) []Mode {
	var eg mat.Eigen
	if !eg.Factorize(A, mat.EigenRight) {
		return nil
	}
	vals := eg.Values(nil)
	var vecs mat.CDense
	eg.VectorsTo(&vecs)
	nv, _ := N.Dims()
	var out []Mode
	for k, l := range vals {
		if imag(l) < -1e-9*math.Max(1, cmplx.Abs(l)) {
			continue // keep one of each pair
		}
		md := Mode{Eig: l, Freq: cmplx.Abs(l) / (2 * math.Pi), DampedHz: math.Abs(imag(l)) / (2 * math.Pi)}
		if a := cmplx.Abs(l); a > 0 {
			md.Damping = -real(l) / a
		}
		md.Oscillate = imag(l) > 1e-9*math.Max(1, cmplx.Abs(l))
		// shape: the z part, rotated to be real, mapped to q
		z := make([]complex128, nf)
		big := complex(0, 0)
		for i := 0; i < nf; i++ {
			z[i] = vecs.At(i, k)
			if cmplx.Abs(z[i]) > cmplx.Abs(big) {
				big = z[i]
			}
		}
		md.Shape = make([]float64, nv)
		if big != 0 {
			rot := complex(cmplx.Abs(big), 0) / big
			mx := 0.0
			for i := 0; i < nv; i++ {
				v := 0.0
				for j := 0; j < nf; j++ {
					v += N.At(i, j) * real(z[j]*rot)
				}
				md.Shape[i] = v
				mx = math.Max(mx, math.Abs(v))
			}
			if mx > 0 {
				for i := range md.Shape {
					md.Shape[i] /= mx
				}
			}
		}
		out = append(out, md)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Freq < out[j].Freq })
	return out
}

// impactSpeed is the speed (m/s) at which StepWarnings takes the stiffness
// of a nonlinear contact law (F = k δ^e, e > 1) at the deepest penetration
// of an impact: dF/dδ there.
const impactSpeed = 1.0

// StepWarnings tells, for a fixed-step run, the contact pairs whose
// stiffness the step cannot resolve: the period of the contact's
// vibration, 2π√(m/k) with m the reduced mass of the two bodies and k the
// law's stiffness (for e > 1 at the penetration of an impact at 1 m/s or
// of resting under gravity, whichever is stiffer), spans fewer than 10
// steps. An impact is then integrated over a step or two, and the
// rebound can gain energy without a word (a cam follower with k = 1e8
// N/m at h = 0.5 ms was launched 0.7 m). Each warning names the pair and
// says what step would resolve it (20 steps a period); adaptive runs
// resolve it themselves and get none.
func (m *Model) StepWarnings(s *State) []string {
	st := m.settings
	if st.Adaptive {
		return nil
	}
	var out []string
	if len(m.rots) > 0 && st.Formulation == "index3" && m.integ.family == famAlpha {
		// the index-3 form on spinning bodies (examples/simo-wong-top):
		// unstable above Ωh ≈ 0.37 at ρ∞ = 0.8, 0.1–0.2 at ρ∞ = 0.9
		for _, b := range m.bodies {
			if !b.Spatial {
				continue
			}
			w := s.v[b.V+3 : b.V+6]
			if turn := st.Step * math.Sqrt(w[0]*w[0]+w[1]*w[1]+w[2]*w[2]); turn > 0.05 {
				out = append(out, "body "+b.Name+" turns "+sprintf("%.2g", turn)+" rad a step: the index-3 form (formulation=\"index3\") is unstable for bodies that turn more than about 0.1 rad a step and can gain energy without a word; use formulation=\"auto\" (index 2) or a step ≤ "+sprintf("%.2g", 0.05*st.Step/turn)+" s")
				break
			}
		}
	}
	if st.Step > st.OutputStep*(1+1e-9) {
		out = append(out, "the step "+sprintf("%.3g", st.Step)+" s is longer than the output step "+sprintf("%.3g", st.OutputStep)+" s: every step ends at an output time, so the run steps by "+sprintf("%.3g", st.OutputStep)+" s")
	}
	g := math.Sqrt(st.Gravity[0]*st.Gravity[0] + st.Gravity[1]*st.Gravity[1] + st.Gravity[2]*st.Gravity[2])
	for _, f := range m.forces { // (every contact element is a force element)
		c, ok := f.(mech.Stiff)
		if !ok {
			continue
		}
		name, k, e, a, b := c.Stiffness(&s.x)
		ma, mb := math.Inf(1), math.Inf(1)
		if a >= 0 {
			ma = m.bodies[a].Mass
		}
		if b >= 0 {
			mb = m.bodies[b].Mass
		}
		mr := 1 / (1/ma + 1/mb)
		if !(k > 0) || !(mr > 0) || math.IsInf(mr, 0) {
			continue
		}
		ke, how := k, ""
		if e > 1 {
			// impact: ½ m v² = k δ^(e+1)/(e+1); resting: m g = k δ^e
			d := math.Pow((e+1)*mr*impactSpeed*impactSpeed/(2*k), 1/(e+1))
			if g > 0 {
				d = math.Max(d, math.Pow(mr*g/k, 1/e))
			}
			ke = e * k * math.Pow(d, e-1)
			how = " at an impact of 1 m/s"
		}
		T := 2 * math.Pi * math.Sqrt(mr/ke)
		if st.Step > T/10 {
			out = append(out, "contact "+name+": its stiffness ("+sprintf("%.3g", ke)+" N/m"+how+" on "+sprintf("%.3g", mr)+
				" kg) vibrates with a period of "+sprintf("%.3g", T)+" s, which the step "+sprintf("%.3g", st.Step)+" s cannot resolve: impacts may gain energy; use step ≤ "+
				sprintf("%.2g", T/20)+" s or adaptive=\"true\"")
		}
	}
	return out
}
