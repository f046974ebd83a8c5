package solver

import "math"

// Acceleration solves near singular positions.
//
// At a singular position of a mechanism (the IFToMM A02 four-bar chains
// when they lie flat, a parallelogram at its dead centre) the constraint
// Jacobian Φq loses rank: some rows become linear combinations of the
// others and the mechanism has more degrees of freedom for an instant. Near
// such a position the index-1 system
//
//	[M Φqᵀ; Φq 0][q̈; λ] = [g + Q; c],  c = γ − 2αΦ̇ − β²Φ,
//
// is solvable but ill-conditioned. Let σ be the small singular value of
// Φq M^{-1/2} (σ ∝ the distance from the singular position), u the nearly
// dependent combination of rows and w the direction it nearly fixes. Then
// q̈ along w is c_u/σ. On the exact motion c_u = O(σ) and the ratio is
// smooth, but a state off the constraint manifold, as every inner RK4
// stage is, has a velocity along w of Φ̇_u/σ, and γ turns it into c_u
// errors of order |v|·Φ̇_u/σ: acceleration errors of order |v| Φ̇_u/σ²
// and, just after the singular position, a decay of that velocity at the
// rate 1/τ (τ the time since the passage), far beyond RK4's stability
// limit. A stage that lands close to the singular position gets an
// enormous acceleration, and the smaller the step, the closer stages can
// land: at 0.2 ms a stage of the double four-bar came within σ = 3·10⁻⁸
// (|λ| = 3·10¹¹, |q̈| = 8·10⁴) and the run stopped with a NaN.
//
// Detection. Every acceleration solve computes, from the pivots of its LU
// factors, the pivot ratio of the KKT matrix scaled to unit masses and
// unit constraint rows (kktRatio; about σ² for the row-normalised
// Φq M^{-1/2}, whatever the model's units). Only when it falls below
// singPivot are the rows tested for numerical dependence, by Gram–Schmidt
// in the band order on the rows of Φq with unit columns (dependentRows,
// rank.go): a row whose part independent of the rows before it is below
// singTol of its norm is dependent. The test leaves the masses out so that
// a body of negligible inertia (a point mass on a link, whose rows are
// nearly parallel in the mass metric and keep the ratio low everywhere)
// does not count as a singular position. At a regular configuration the
// solve is the same, bit for bit; it costs one pass over the rows and the
// pivots more, and the Gram–Schmidt test where the ratio is low.
//
// The zone. Where rows are dependent, they are left out of the solve, as
// Init leaves out redundant rows (Φ̈_r = c_r dropped, λ_r = 0), and q̈ is
// completed along the directions they nearly fixed. With N the null space
// of the kept rows, the branch is followed along the velocity: t = P_N v.
// W = N ⊖ t (in the mass metric) holds the directions the dropped rows'
// data would have set; along W, q̈ takes the value of the acceleration
// interpolated across the zone from neighbouring states along the motion,
// (q ± εv, v ± εa, t ± ε) and the same at ±2ε, moved back onto the
// constraints (positions by Gauss–Newton steps, velocities by projection,
// both in the mass metric) and outside the zone, where the full rows are
// solved: the symmetric means at ε and 2ε, Richardson-extrapolated, are
// accurate to O(ε⁴). Along t, Gauss' principle tᵀ(M q̈ − g − Q) = 0 gives
// the acceleration, and the kept rows hold. The neighbours are on the
// constraint manifold, so they carry none of the stage's own constraint
// violations.
//
// Why this keeps the branch: the acceleration along the branch (t) is the
// exact one for the stage, and across the branch (W) it is that of the
// branch itself, interpolated; the state's velocity along W is carried
// through the zone unchanged instead of being amplified, and once out of
// the zone the rows are well conditioned again. Leaving q̈ along W to the
// applied forces instead (the minimum-norm multipliers, or Tikhonov
// regularisation −εD on the multipliers) changes it by O(g) (for the
// double four-bar about 0.07 g), which pushes the mechanism off the branch
// and, through the large constraint forces near the singular position,
// costs energy at every passage.
//
// The approach. The index-1 equations keep a constraint velocity drift Φ̇
// (Baumgarte's terms only damp it at the rate α); towards the singular
// position it becomes a velocity Φ̇_u/σ across the branch, which the zone
// carries through and which comes back after it as a constraint drift
// that the Baumgarte forces turn into an energy error at every passage
// (for the double four-bar at h = 0.1 ms, 10⁻¹² J and more per passage,
// the largest error of the run). So when an RK4 step ends close to a
// singular position but still outside the zone (a row's independent part
// below singNear, none below singTol), its velocities are projected onto
// Φq v + Φt = 0 in the mass metric (approachingSingular), where the full
// system is still well enough conditioned. On the double four-bar this
// makes the error decrease with the step down to 0.1 ms (10⁻¹¹ m).

// singPivot is the scaled pivot ratio (kktRatio, about σ²) below which the
// constraint rows are tested for numerical dependence.
const singPivot = 1e-4

// singTol is the relative size of a row's independent part (of Φq with
// unit columns, after Gram–Schmidt against the more independent rows)
// below which the row is left out of the acceleration solve: the width of
// the zone.
const singTol = 2e-3

// singNear is the relative size of a row's independent part below which
// an RK4 step that ends outside the zone projects its velocities: the band
// before the zone where the drift across the branch is removed.
const singNear = 4 * singTol

// singWork is the work space of the solves near singular positions (made
// by NewState for a model with constraints, so that the solves do not
// allocate).
type singWork struct {
	gram  []float64 // nc × (b + 1): the band of Φq C² Φqᵀ (C = diag(cs)), then of its factor L (rank.go)
	g0    []float64 // nc: the factor D
	done  []bool    // nc: row left out of the factorisation (by band position)
	x     []float64 // nv: a scattered scaled row (zero between uses)
	scale []float64 // nv: 1/√M_jj
	cs    []float64 // nv: 1/(column norms of Φq)
	ek    []float64 // nv + nc: the KKT matrix's scales: √M_jj, then the row norms of Φq M^{-1/2}
	jac0  []float64 // the stage's constraint Jacobians (rowRate)
	drop  []int     // rows left out of the stage's solve
	nbr   []int     // rows a neighbour would leave out

	q0, v0 []float64 // the stage's positions and velocities
	t0     float64   // and time
	ap, am []float64 // accelerations of the neighbours
	y, t   []float64 // nv: projections onto the null space of the kept rows
	mx     []float64 // nv: M times a vector
	rhs    []float64 // nv + nc: a right-hand side of the KKT system

	rel2       float64 // dependentRows: the smallest squared relative independent part
	near, zone bool    // the last solve: rows tested; rows left out
	solves     int64   // acceleration solves with rows left out (tests)
	nbrMiss    int64   // zone solves without usable neighbours (tests)
	projected  int64   // velocity projections before a zone (tests)
}

func (m *Model) newSingWork(s *State) *singWork {
	nc, nv, nq := m.nc, m.nv, m.nq
	w := &singWork{gram: make([]float64, nc*(m.gband+1)), g0: make([]float64, nc), done: make([]bool, nc),
		x: make([]float64, nv), scale: make([]float64, nv), cs: make([]float64, nv), ek: make([]float64, nv+nc),
		jac0: make([]float64, len(s.jac)), drop: make([]int, 0, nc), nbr: make([]int, 0, nc),
		q0: make([]float64, nq), v0: make([]float64, nv), ap: make([]float64, nv), am: make([]float64, nv),
		y: make([]float64, nv), t: make([]float64, nv), mx: make([]float64, nv), rhs: make([]float64, nv+nc)}
	diag := make([]float64, nv)
	copy(diag, m.mdiag)
	for _, b := range m.mblocks {
		n := len(b.dofs)
		for a, i := range b.dofs {
			if i >= 0 {
				diag[i] += b.m[a*n+a]
			}
		}
	}
	for i, d := range diag {
		w.scale[i], w.ek[i] = 1, 1
		if d > 0 {
			w.ek[i] = math.Sqrt(d)
			w.scale[i] = 1 / w.ek[i]
		}
	}
	return w
}

// kktRatio returns the pivot ratio of the factored KKT matrix scaled to
// unit masses and unit constraint rows (linalg.Solver.ScaledPivotRatio):
// about σ² for the smallest singular value σ of the row-normalised
// Φq M^{-1/2}, independently of the model's units. The cost is one pass
// over the rows and one over the pivots.
func (m *Model) kktRatio(s *State) float64 {
	w := s.sw
	ek := w.ek[m.nv:]
	for r := range ek {
		jr, dr := m.row(s.jac, r)
		n2 := 0.0
		for k, i := range dr {
			if i >= 0 {
				x := jr[k] * w.scale[i]
				n2 += x * x
			}
		}
		ek[r] = 1
		if n2 > 0 {
			ek[r] = math.Sqrt(n2)
		}
	}
	return s.lin.ScaledPivotRatio(w.ek)
}

// nearSingular reports whether some constraint rows are numerically
// dependent at the configuration just factored (ferr the factorisation's
// error); they are then in s.sw.drop.
func (m *Model) nearSingular(s *State, ferr error) bool {
	w := s.sw
	w.near, w.zone = false, false
	if ferr == nil && m.kktRatio(s) >= singPivot {
		return false
	}
	w.near = true
	w.zone = m.dependentRows(s, singTol, &w.drop) > 0
	return w.zone
}

// approachingSingular reports whether the last acceleration solve was
// close to a singular position but outside the zone, where an RK4 step
// projects its velocities (see the comment at the top).
func (m *Model) approachingSingular(s *State) bool {
	w := s.sw
	if !w.near || w.zone || w.rel2 > singNear*singNear {
		return false
	}
	w.projected++
	return true
}

// row returns the Jacobian entries of constraint row r in jac (s.jac or a
// copy of it) and the coordinates they belong to.
func (m *Model) row(jac []float64, r int) ([]float64, []int) {
	ce := &m.cons[m.rowCon[r]]
	nd := len(ce.d)
	lr := r - ce.r0
	return jac[ce.jo+lr*nd : ce.jo+(lr+1)*nd], ce.d
}

// assemble puts [M Φqᵀ; Φq 0] at the current positions into s.lin and
// factors it (constraints evaluated with velocity terms when vel is set).
func (m *Model) assemble(s *State, vel bool) error {
	s.lin.Zero()
	s.linValid = false
	m.addMass(s, 1)
	m.addMassCorrection(s)
	m.evalCons(s, vel)
	m.addConstraintJac(s, 0, false)
	s.stats.Factorizations++
	return s.lin.Factor()
}

// singularSolve is accelerations at a configuration where the rows in
// s.sw.drop are numerically dependent (see the comment at the top).
func (m *Model) singularSolve(s *State, dst []float64, baumgarte bool) error {
	w := s.sw
	nv := m.nv
	w.solves++
	w.t0 = s.vars[slotTime]
	copy(w.q0, s.q)
	copy(w.v0, s.v)
	aref := m.neighbours(s, baumgarte)
	copy(s.q, w.q0)
	copy(s.v, w.v0)
	s.setTime(w.t0)
	// the stage with the dependent rows left out
	for _, r := range w.drop {
		s.red[r] = true
	}
	s.nred += len(w.drop)
	m.evalForces(s, false, 0, 0)
	err := m.assemble(s, true)
	if err == nil {
		m.accelRHS(s, baumgarte)
		s.lin.Solve(s.dx)
		if aref != nil {
			m.completeW(s, aref)
		}
	}
	for _, r := range w.drop {
		s.red[r] = false
	}
	s.nred -= len(w.drop)
	if err != nil {
		return errorf("constraint Jacobian is singular (redundant or locked constraints?): %v", err)
	}
	if m.contacts != nil {
		if err := m.contacts.accel(m, s); err != nil { // stick friction (stickslip.go)
			return err
		}
	}
	copy(dst, s.dx[:nv])
	copy(s.lam, s.dx[nv:])
	return nil
}

// accelRHS sets s.dx to the right-hand side [g + Q; γ − 2αΦ̇ − β²Φ] from
// the last evalForces and evalCons.
func (m *Model) accelRHS(s *State, baumgarte bool) {
	nv := m.nv
	for i := 0; i < nv; i++ {
		// the forces were evaluated at the accelerations s.a: an element
		// with configuration-dependent inertia returned M̄a − M(q)a − …,
		// and the matrix holds M(q) (addMassCorrection)
		s.dx[i] = m.gq[i] + s.fq[i] + s.dma[i]
	}
	al, be := m.settings.BaumgarteAlpha, m.settings.BaumgarteBeta
	for r := 0; r < m.nc; r++ {
		g := s.gamma[r]
		if baumgarte {
			pd := s.phit[r] + m.rowDot(s, r, s.v)
			g -= 2*al*pd + be*be*s.phi[r]
		}
		s.dx[nv+r] = g
	}
}

// neighbours returns the acceleration interpolated across the zone from
// the states ±ε and ±2ε along the stage's motion, moved onto the
// constraints: (4 m(ε) − m(2ε))/3 with m the mean of a symmetric pair
// (m(ε) alone if the pair at 2ε is not usable), with ε the smallest of a
// doubling sequence for which the pair at ε lies outside the zone; nil
// when the stage is at rest or no such ε is found. The stage is in w.q0,
// w.v0 and the time slot; s.q, s.v and the time are left changed.
func (m *Model) neighbours(s *State, baumgarte bool) []float64 {
	w := s.sw
	vmax := 0.0
	for _, x := range w.v0 {
		vmax = math.Max(vmax, math.Abs(x))
	}
	if vmax == 0 {
		return nil // at rest: no motion to interpolate along
	}
	// first ε from how fast the scaled rows turn along the motion: the
	// zone is about singTol/rate wide
	rate := m.rowRate(s, 1e-7/vmax)
	eps := 1e-3 / vmax
	if rate > 0 {
		eps = 4 * singTol / rate
	}
	for try := 0; try < 8; try, eps = try+1, 2*eps {
		if m.neighbourAccel(s, eps, baumgarte, w.ap) && m.neighbourAccel(s, -eps, baumgarte, w.am) {
			for i := range w.ap {
				w.ap[i] = 0.5 * (w.ap[i] + w.am[i])
			}
			copy(w.y, w.ap)
			if m.neighbourAccel(s, 2*eps, baumgarte, w.ap) && m.neighbourAccel(s, -2*eps, baumgarte, w.am) {
				for i := range w.ap {
					w.ap[i] = (4*w.y[i] - 0.5*(w.ap[i]+w.am[i])) / 3
				}
				return w.ap
			}
			copy(w.ap, w.y)
			return w.ap
		}
	}
	w.nbrMiss++
	return nil
}

// rowRate returns max_r |d(row_r)/dt| / |row_r| for the rows of Φq with
// the column scales of the stage's dependence test (s.sw.cs) along the
// stage's velocity, by a difference over the time dt (s.jac holds the rows
// at the stage).
func (m *Model) rowRate(s *State, dt float64) float64 {
	w := s.sw
	copy(w.jac0, s.jac)
	m.addTo(s.q, w.v0, dt)
	m.evalCons(s, false)
	rate := 0.0
	for r := 0; r < m.nc; r++ {
		j0, d := m.row(w.jac0, r)
		j1, _ := m.row(s.jac, r)
		n0, dn := 0.0, 0.0
		for k, i := range d {
			if i >= 0 {
				sc := w.cs[i]
				n0 += j0[k] * j0[k] * sc * sc
				dn += (j1[k] - j0[k]) * (j1[k] - j0[k]) * sc * sc
			}
		}
		if n0 > 0 {
			rate = math.Max(rate, math.Sqrt(dn/n0)/dt)
		}
	}
	copy(s.q, w.q0)
	return rate
}

// neighbourAccel sets out to the acceleration at the state eps along the
// stage's motion (q₀ ⊕ εv₀, v₀ + εa, t₀ + ε), moved onto the constraints:
// positions by Gauss–Newton steps [M Φqᵀ; Φq 0][Δq; μ] = [0; −Φ], then
// velocities by [M Φqᵀ; Φq 0][Δv; μ] = [0; −Φ̇]. It reports false when the
// state is not clearly outside the zone (or the projection fails).
func (m *Model) neighbourAccel(s *State, eps float64, baumgarte bool, out []float64) bool {
	w := s.sw
	nv, nc := m.nv, m.nc
	copy(s.q, w.q0)
	m.addTo(s.q, w.v0, eps)
	for i := range s.v {
		s.v[i] = w.v0[i] + eps*s.a[i]
	}
	s.setTime(w.t0 + eps)
	scale := 1.0
	for _, x := range s.q {
		scale = math.Max(scale, math.Abs(x))
	}
	for it := 0; ; it++ {
		if err := m.assemble(s, false); err != nil {
			return false
		}
		worst := 0.0
		for r := 0; r < nc; r++ {
			worst = math.Max(worst, math.Abs(s.phi[r]))
		}
		if worst <= 1e-13*scale || it == 4 {
			if worst > 1e-9*scale {
				return false
			}
			break
		}
		clear(s.dx[:nv])
		for r := 0; r < nc; r++ {
			s.dx[nv+r] = -s.phi[r]
		}
		s.lin.Solve(s.dx)
		m.addTo(s.q, s.dx, 1)
	}
	if m.dependentRows(s, 2*singTol, &w.nbr) > 0 {
		return false
	}
	m.evalCons(s, true)
	clear(s.dx[:nv])
	for r := 0; r < nc; r++ {
		s.dx[nv+r] = -(s.phit[r] + m.rowDot(s, r, s.v))
	}
	s.lin.Solve(s.dx)
	for i := 0; i < nv; i++ {
		s.v[i] += s.dx[i]
	}
	m.evalCons(s, true) // γ at the projected velocity (the matrix is unchanged)
	m.evalForces(s, false, 0, 0)
	m.accelRHS(s, baumgarte)
	s.lin.Solve(s.dx)
	copy(out, s.dx[:nv])
	return true
}

// nullProject sets dst to the M-orthogonal projection of x onto the null
// space of the constraint rows in the current factorisation: the q̈ part
// of [M Φqᵀ; Φq 0]⁻¹ [M x; 0].
func (m *Model) nullProject(s *State, dst, x []float64) {
	w := s.sw
	nv := m.nv
	m.massMul(w.rhs[:nv], x)
	clear(w.rhs[nv:])
	s.lin.Solve(w.rhs)
	copy(dst, w.rhs[:nv])
}

// completeW corrects q̈ (s.dx[:nv], solved with the dependent rows left
// out) along W = N ⊖ t, N the null space of the kept rows and t = P_N v the
// branch direction: there q̈ takes the values of aref; along t and across
// N it is left as solved (Gauss' principle and the kept rows).
func (m *Model) completeW(s *State, aref []float64) {
	w := s.sw
	acc := s.dx[:m.nv]
	m.nullProject(s, w.t, s.v)
	m.massMul(w.mx, w.t)
	tt := dotN(w.t, w.mx)
	m.massMul(w.mx, s.v)
	vv := dotN(s.v, w.mx)
	if !(tt > 1e-12*vv) {
		return // no motion within N: Gauss' principle decides
	}
	for i := range w.y {
		w.y[i] = aref[i] - acc[i]
	}
	m.nullProject(s, w.y, w.y)
	m.massMul(w.mx, w.t)
	c := dotN(w.y, w.mx) / tt
	for i := range acc {
		acc[i] += w.y[i] - c*w.t[i]
	}
}
