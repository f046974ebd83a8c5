package solver

import (
	"errors"
	"math"

	"mbfmu/solver/mech"
)

type family uint8

const (
	famAlpha family = iota // generalized-α, HHT-α, Newmark
	famBDF
	famRK
)

// integrator holds the constants of a time-integration scheme.
type integrator struct {
	name         string
	family       family
	am, af, b, g float64 // generalized-α: αm, αf, β, γ
	bdf          int     // BDF order
	order        int     // convergence order (for error control)
}

func newIntegrator(name string, rho, alpha, beta, gamma float64) (integrator, error) {
	switch name {
	case "genalpha", "generalized-alpha", "gen-alpha":
		am := (2*rho - 1) / (rho + 1)
		af := rho / (rho + 1)
		g := 0.5 + af - am
		return integrator{name: "genalpha", family: famAlpha, am: am, af: af, g: g, b: 0.25 * (g + 0.5) * (g + 0.5), order: 2}, nil
	case "hht", "hht-alpha":
		if alpha == 0 {
			alpha = -0.05
		}
		if alpha < -1.0/3 || alpha > 0 {
			return integrator{}, errorf("HHT α must be in [-1/3, 0], got %g", alpha)
		}
		af := -alpha
		return integrator{name: "hht", family: famAlpha, af: af, g: 0.5 + af, b: 0.25 * (1 + af) * (1 + af), order: 2}, nil
	case "newmark":
		if beta == 0 {
			beta = 0.25
		}
		if gamma == 0 {
			gamma = 0.5
		}
		if gamma < 0.5 || beta < 0.25*(gamma+0.5)*(gamma+0.5)-1e-12 {
			return integrator{}, errorf("Newmark needs γ ≥ 1/2 and β ≥ (γ+1/2)²/4 for unconditional stability, got β=%g γ=%g", beta, gamma)
		}
		o := 2
		if gamma > 0.5 {
			o = 1
		}
		return integrator{name: "newmark", family: famAlpha, b: beta, g: gamma, order: o}, nil
	case "bdf1", "euler", "implicit-euler":
		return integrator{name: "bdf1", family: famBDF, bdf: 1, order: 1}, nil
	case "bdf2", "bdf":
		return integrator{name: "bdf2", family: famBDF, bdf: 2, order: 2}, nil
	case "rk4":
		return integrator{name: "rk4", family: famRK, order: 4}, nil
	}
	return integrator{name: "genalpha", family: famAlpha}, errorf("unknown integrator %q (genalpha, hht, newmark, bdf1, bdf2, rk4)", name)
}

var errNewton = errors.New("Newton iteration did not converge")

// setTime puts time t into the evaluation context.
func (s *State) setTime(t float64) {
	s.vars[slotTime] = t
	if s.ramped {
		s.rampInputs(t)
	}
}

// forces evaluates the applied forces into s.fq (without gravity); when
// factor is set it also adds coefK·K + coefC·C into the linear solver.
func (m *Model) evalForces(s *State, factor bool, coefK, coefC float64) {
	clear(s.fq)
	for k, f := range m.forces {
		d := f.Dofs()
		n := len(d)
		pos := m.fpos[k]
		fl := s.fl[:n]
		clear(fl)
		var kl, cl []float64
		if factor {
			kl, cl = s.kl[:n*n], s.cl[:n*n]
			clear(kl)
			clear(cl)
		}
		f.Eval(&s.x, fl, kl, cl)
		if factor && m.fdTan[k] {
			m.fdTangent(s, f, fl, kl, cl)
		}
		if factor && s.useT && len(m.frot[k]) > 0 {
			s.applyT(kl, n, m.frot[k])
		}
		for a, i := range d {
			if i >= 0 {
				s.fq[i] += fl[a]
			}
		}
		if factor {
			for _, e := range m.flive[k] {
				if v := coefK*kl[e] + coefC*cl[e]; v != 0 {
					s.lin.AddAt(pos[e], v)
				}
			}
		}
	}
}

// fdTangent replaces the tangent K = −∂Q/∂q and C = −∂Q/∂v of element f
// by central differences over its own coordinates and velocities: its
// expressions read measures, whose derivatives the analytic tangent lacks,
// or it has no analytic tangent. (Measures of bodies outside the element
// stay out of the Newton matrix.) A rotational coordinate is perturbed
// through the rotation's own update (coords.go). fl (the force at the
// state) is left as it is.
func (m *Model) fdTangent(s *State, f mech.Force, fl, kl, cl []float64) {
	d := f.Dofs()
	n := len(d)
	fp, fm := s.fl2[:n], s.fl3[:n]
	for b, j := range d {
		if j < 0 {
			continue
		}
		for pass, out := range [2][]float64{kl, cl} { // −∂Q/∂q, then −∂Q/∂v
			dx := m.forceDiffs(s, f, j, pass == 1, fp, fm)
			for a := range fp {
				out[a*n+b] = -(fp[a] - fm[a]) / (2 * dx)
			}
		}
	}
}

// forceDiffs evaluates force element f into fp and fm at the state moved
// by +dx and −dx along velocity j (vel) or coordinate j (a rotational one
// through the rotation's own update), and returns dx. The state is put
// back bit for bit.
func (m *Model) forceDiffs(s *State, f mech.Force, j int, vel bool, fp, fm []float64) float64 {
	eval := func(dst []float64) {
		clear(dst)
		f.Eval(&s.x, dst, nil, nil)
	}
	if vel || m.qOf[j] >= 0 {
		x := &s.v[j]
		if !vel {
			x = &s.q[m.qOf[j]]
		}
		x0 := *x
		dx := 1e-6 * (1 + math.Abs(x0))
		*x = x0 + dx
		eval(fp)
		*x = x0 - dx
		eval(fm)
		*x = x0
		return dx
	}
	// a rotation: turned about its body axis and put back bit for bit
	var qs [4]float64
	r := m.rotOf(j)
	copy(qs[:], s.q[r.q:r.q+4])
	const dx = 1e-6
	m.addRot(s.q, r, j, dx)
	eval(fp)
	copy(s.q[r.q:r.q+4], qs[:])
	m.addRot(s.q, r, j, -dx)
	eval(fm)
	copy(s.q[r.q:r.q+4], qs[:])
	return dx
}

// rotOf returns the rotation block of velocity coordinate j.
func (m *Model) rotOf(j int) rotBlock {
	for _, r := range m.rots {
		if j >= r.v && j < r.v+3 {
			return r
		}
	}
	panic("solver: coordinate is not rotational")
}

// addRot turns rotation block r of q by dx about its body axis j − r.v.
func (m *Model) addRot(q []float64, r rotBlock, j int, dx float64) {
	var th mech.Vec3
	th[j-r.v] = dx
	p := (*mech.Quat)(q[r.q : r.q+4])
	*p = mech.QuatNormalize(mech.QuatMul(*p, mech.QuatExp(th)))
}

// addMass adds coef·M to the linear solver.
func (m *Model) addMass(s *State, coef float64) {
	for i, d := range m.mdiag {
		s.lin.AddAt(m.mpos[i], coef*d)
	}
	for k, b := range m.mblocks {
		for e, p := range m.blkPos[k] {
			s.lin.AddAt(p, coef*b.m[e])
		}
	}
}

// addMassCorrection adds M(q) − M̄ of the elements with configuration-
// dependent inertia to the assembled matrix (whose mass part is M̄) and
// keeps (M(q) − M̄)·a in s.dma for accelRHS: with it the direct solve for
// the accelerations is exact at any configuration (one pass of M̄ alone
// is a fixed-point step that diverges once the body has turned far from
// its initial orientation).
func (m *Model) addMassCorrection(s *State) {
	clear(s.dma)
	for _, k := range m.mcorr {
		f := m.forces[k]
		d := f.Dofs()
		n := len(d)
		dm := s.kl[:n*n]
		f.(mech.MassCorrector).MassCorrection(&s.x, dm)
		pos := m.fpos[k]
		for a, i := range d {
			if i < 0 {
				continue
			}
			row := dm[a*n : a*n+n]
			for b, j := range d {
				if v := row[b]; v != 0 && j >= 0 {
					s.lin.AddAt(pos[a*n+b], v)
					s.dma[i] += v * s.a[j]
				}
			}
		}
	}
}

// evalCons evaluates every constraint element into the State's row arrays
// (s.phi, s.phit, s.gamma, s.jac); redundant rows are zeroed.
func (m *Model) evalCons(s *State, vel bool) {
	for k := range m.cons {
		ce := &m.cons[k]
		ce.c.Eval(&s.x, ce.out(s), vel)
	}
	if s.nred > 0 {
		for r, red := range s.red {
			if red {
				// a redundant row takes no part: Φ = 0, no Jacobian, λ = 0
				ce := &m.cons[m.rowCon[r]]
				nd := len(ce.d)
				lr := r - ce.r0
				s.phi[r], s.phit[r], s.gamma[r] = 0, 0, 0
				clear(s.jac[ce.jo+lr*nd : ce.jo+(lr+1)*nd])
			}
		}
	}
}

// addConstraintJac adds Φq and Φqᵀ, and when withHess is set the Hessian
// term Σ λ̃ ∂(Φqᵀ)/∂q with λ̃ = lamScale·λ, into the linear solver.
func (m *Model) addConstraintJac(s *State, lamScale float64, withHess bool) {
	m.addConstraintJacScaled(s, lamScale, withHess, 1)
}

// addConstraintJacScaled is addConstraintJac with both blocks Φq and Φqᵀ
// multiplied by js (the static solve's equilibration of the constraint
// rows: Model.staticNewton).
func (m *Model) addConstraintJacScaled(s *State, lamScale float64, withHess bool, js float64) {
	for k := range m.cons {
		ce := &m.cons[k]
		nd := len(ce.d)
		jac := s.jac[ce.jo : ce.jo+ce.nr*nd]
		jpos, jtpos := ce.jpos[:len(jac)], ce.jtpos[:len(jac)]
		jt := jac
		if s.useT && !m.index2 && len(ce.rot) > 0 {
			// Φq of the unknown: the position derivative times T (index-2
			// rows are velocity constraints: their derivative is Φq)
			jt = s.hs[:len(jac)]
			copy(jt, jac)
			s.applyT(jt, nd, ce.rot)
		}
		jt = jt[:len(jac)]
		for _, e := range ce.jlive {
			if v := jac[e]; v != 0 {
				s.lin.AddAt(jtpos[e], js*v) // Φqᵀ: the constraint forces
			}
			if v := jt[e]; v != 0 {
				s.lin.AddAt(jpos[e], js*v)
			}
		}
		if !withHess {
			continue
		}
		lam := s.tmp[:ce.nr] // λ̃ of the element's rows (s.tmp is free here)
		any := false
		for r := range lam {
			lam[r] = lamScale * s.lam[ce.r0+r]
			if s.nred > 0 && s.red[ce.r0+r] {
				lam[r] = 0
			}
			any = any || lam[r] != 0
		}
		if !any {
			continue
		}
		h := s.hs[:nd*nd]
		clear(h)
		ce.c.Hess(&s.x, lam, h)
		if s.useT && len(ce.rot) > 0 {
			s.applyTRows(h, nd, ce.rot, ce.live)
		}
		hpos := ce.hpos[:len(h)]
		for _, e := range ce.hlive {
			if v := h[e]; v != 0 {
				s.lin.AddAt(hpos[e], v)
			}
		}
	}
	if s.nred > 0 {
		for r, red := range s.red {
			if red {
				s.lin.AddAt(m.rdiag[r], 1) // λ_r = 0
			}
		}
	}
}

// rowDot returns Φq x for constraint row r (as last evaluated by evalCons).
func (m *Model) rowDot(s *State, r int, x []float64) float64 {
	ce := &m.cons[m.rowCon[r]]
	nd := len(ce.d)
	jo := ce.jo + (r-ce.r0)*nd
	d := 0.0
	for k, i := range ce.d {
		if i >= 0 {
			d += s.jac[jo+k] * x[i]
		}
	}
	return d
}

// addJacT adds scale·Φqᵀ λ to dst (velocity space), row by row.
func (m *Model) addJacT(s *State, dst []float64, lam []float64, scale float64) {
	for k := range m.cons {
		ce := &m.cons[k]
		nd := len(ce.d)
		for r := 0; r < ce.nr; r++ {
			l := scale * lam[ce.r0+r]
			jr := s.jac[ce.jo+r*nd : ce.jo+(r+1)*nd]
			for a, i := range ce.d {
				if i >= 0 {
					dst[i] += jr[a] * l
				}
			}
		}
	}
}

// newtonResidual forms the scaled residual of the implicit schemes:
// res = [s1 (M q̈ − g − Q) + Φqᵀ λ̃ ; Φ], λ̃ = s1 λ, and when factor is set
// the iteration matrix [M + s1 cv C + s1 K + H(λ̃), Φqᵀ; Φq, 0].
//
// With the index-2 formulation the constraint rows are the velocity
// constraints (Φq v + Φt)/cv instead of Φ; positions are projected onto
// Φ = 0 after the step (see project).
func (m *Model) newtonResidual(s *State, s1, cv float64, factor bool) {
	if factor {
		s.lin.Zero()
		s.linValid = false
		m.addMass(s, 1)
	}
	s.x.CA = 1 / s1 // acceleration coupling of configuration-dependent inertia (flexible.go)
	m.evalForces(s, factor, s1, s1*cv)
	s.x.CA = 0
	m.massMul(s.tmp, s.a)
	// (the State's slices are read into locals: the loops below are hot)
	nv := m.nv
	res, v := s.res, s.v
	rq, tmp, gq, fq := res[:nv], s.tmp[:nv], m.gq[:nv], s.fq[:nv]
	for i := range rq {
		rq[i] = s1 * (tmp[i] - gq[i] - fq[i])
	}
	m.evalCons(s, false)
	lam, phi, phit, jac := s.lam, s.phi, s.phit, s.jac
	ls := s.ls[:len(lam)]
	for r, l := range lam {
		ls[r] = s1 * l
	}
	for k := range m.cons {
		ce := &m.cons[k]
		d := ce.d
		nd, nr := len(d), ce.nr
		jc := jac[ce.jo : ce.jo+nr*nd]
		lc := ls[ce.r0 : ce.r0+nr]
		// Φqᵀλ̃ column by column, each sum taking the rows in order (the
		// same sums as row by row, kept in a register)
		if nr == 3 { // (most joints' rows come in threes)
			r0, r1, r2 := jc[:nd], jc[nd:2*nd], jc[2*nd:3*nd]
			l0, l1, l2 := lc[0], lc[1], lc[2]
			for _, a := range ce.live {
				i := d[a]
				res[i] = res[i] + r0[a]*l0 + r1[a]*l1 + r2[a]*l2
			}
		} else {
			for _, a := range ce.live {
				i := d[a]
				acc := res[i]
				for lr, l := range lc {
					acc += jc[lr*nd+a] * l
				}
				res[i] = acc
			}
		}
		if !m.index2 {
			rc, pc := res[nv+ce.r0:nv+ce.r0+nr], phi[ce.r0:ce.r0+nr]
			if nr == 3 { // (a call of copy costs more than three moves)
				rc[0], rc[1], rc[2] = pc[0], pc[1], pc[2]
			} else {
				copy(rc, pc)
			}
			continue
		}
		for lr := 0; lr < nr; lr++ {
			r := ce.r0 + lr
			pd := phit[r]
			jr := jc[lr*nd : (lr+1)*nd]
			for _, a := range ce.live {
				pd += jr[a] * v[d[a]]
			}
			res[nv+r] = pd / cv
		}
	}
	if factor {
		m.addConstraintJac(s, s1, true)
		if m.index2 {
			m.addVelRowTangent(s, cv)
		}
	}
}

// addVelRowTangent adds the derivative of the index-2 rows (Φq v + Φt)/cv
// through the positions, ∂(Φq v)/∂q / cv (times the tangent operator on
// rotation blocks), into the iteration matrix. Row r of ∂(Φq v)/∂q is
// vᵀ Hᵣ with Hᵣ the element's Hessian for the unit multiplier of row r.
// Without it Newton converged only linearly, at a rate of about h|ω|
// (0.1 an iteration for the heavy top at h = 1 ms: three iterations where
// index-3 takes two).
func (m *Model) addVelRowTangent(s *State, cv float64) {
	v := s.v
	for k := range m.cons {
		ce := &m.cons[k]
		nd, nr := len(ce.d), ce.nr
		g := s.vg[:nr*nd]
		h := s.hs[:nd*nd]
		lam := s.tmp[:nr] // (free here)
		for r := 0; r < nr; r++ {
			clear(lam)
			lam[r] = 1
			clear(h)
			ce.c.Hess(&s.x, lam, h)
			gr := g[r*nd : (r+1)*nd]
			clear(gr)
			for _, a := range ce.live {
				va := v[ce.d[a]]
				if va == 0 {
					continue
				}
				ha := h[a*nd : (a+1)*nd]
				for _, b := range ce.live {
					gr[b] += va * ha[b]
				}
			}
		}
		if s.useT && len(ce.rot) > 0 {
			s.applyT(g, nd, ce.rot)
		}
		jpos := ce.jpos[:nr*nd]
		for _, e := range ce.jlive {
			if x := g[e]; x != 0 {
				s.lin.AddAt(jpos[e], x/cv)
			}
		}
	}
}

// implicitStep advances s by h with an implicit scheme (generalized-α
// family or BDF). On failure the state is undefined: the caller restores.
//
// The generalized-α family works on the Lie group of the coordinates
// (Brüls, Cardona & Arnold 2012): the step's increment
// Δ = h v₀ + h² ((½ − β) a₀ + β a₁) is added to the linear coordinates and
// composed with the rotations (q₁ = q₀ ⊗ exp(Δ/2)); velocities and
// accelerations (body-frame angular ones for rotations) are updated as in
// the vector scheme.
func (m *Model) implicitStep(s *State, h float64) error {
	c := m.predictStep(s, h)
	t1 := s.T + h
	s.setTime(t1)
	s.useT = m.integ.family == famAlpha && len(m.rots) > 0
	defer func() { s.useT = false }()
	it, refreshed, startOld, err := m.newtonSolve(s, h, c)
	if err != nil {
		return err
	}
	m.acceptStep(s, h, it, refreshed, startOld)
	s.T = t1
	return nil
}

// stepCoef are the coefficients of an implicit step of size h: the
// velocity and acceleration increments per position increment (Δv = cv Δq,
// Δq̈ = ca Δq, Δa = caa Δq for the algorithmic acceleration of the
// generalized-α family) and the residual's scale s1 = 1/ca.
type stepCoef struct{ cv, ca, caa, s1 float64 }

// predictStep is the first stage of an implicit step: it moves the state
// to the predictor of the end of the step — the generalized-α update from
// extrapolated accelerations and multipliers (predict.go), or the BDF
// history — and returns the step's coefficients.
func (m *Model) predictStep(s *State, h float64) stepCoef {
	in := &m.integ
	nv := m.nv
	qOf := m.qOf
	var cv, ca, caa float64
	switch in.family {
	case famAlpha:
		am, af, b, g := in.am, in.af, in.b, in.g
		m.predict(s, h) // q̈₁ and λ₁ extrapolated (predict.go)
		if len(m.rots) > 0 {
			copy(s.q0s, s.q)
		}
		q, v, a, aa, dq := s.q, s.v[:nv], s.a[:nv], s.aa[:nv], s.dq[:nv]
		qOf := qOf[:nv]
		for i := range v {
			a0, a1, aa0 := s.predPrev(i), a[i], aa[i]
			aa1 := ((1-af)*a1 + af*a0 - am*aa0) / (1 - am)
			v0 := v[i]
			v[i] = v0 + h*((1-g)*aa0+g*aa1)
			if qi := qOf[i]; qi >= 0 {
				q[qi] = q[qi] + h*v0 + h*h*((0.5-b)*aa0+b*aa1)
			} else {
				dq[i] = h*v0 + h*h*((0.5-b)*aa0+b*aa1)
			}
			aa[i] = aa1
		}
		m.setRot(s.q, s.q0s, s.dq)
		ca = (1 - am) / (h * h * b * (1 - af))
		cv = g / (h * b)
		caa = 1 / (h * h * b)
	case famBDF:
		// BDF combines past positions linearly: linear coordinates only
		// (Compile refuses BDF for spatial models)
		b0, a1, a2 := 1.0, 1.0, 0.0
		if in.bdf == 2 && s.nhist > 0 {
			w := h / s.hp
			b0 = (1 + w) / (1 + 2*w)
			a1 = (1 + w) * (1 + w) / (1 + 2*w)
			a2 = -w * w / (1 + 2*w)
		}
		hb := h * b0
		for i := 0; i < nv; i++ {
			qi := qOf[i]
			q0, v0, acc := s.q[qi], s.v[i], s.a[i]
			psiQ := a1*q0 + a2*s.qp[qi]
			psiV := a1*v0 + a2*s.vp[i]
			s.qp[qi], s.vp[i] = q0, v0 // history for the next step
			q1 := q0 + h*v0 + 0.5*h*h*acc
			v1 := (q1 - psiQ) / hb
			s.q[qi], s.v[i], s.a[i] = q1, v1, (v1-psiV)/hb
		}
		cv = 1 / hb
		ca = cv * cv
	}
	return stepCoef{cv: cv, ca: ca, caa: caa, s1: 1 / ca}
}

// newtonSolve is the second stage: Newton's method on the scaled residual
// (newtonResidual) from the predictor, with the factorisation reused from
// earlier steps while it converges fast enough (carried through the turns
// of the rotations since, coRotate) and refreshed when it does not. It
// returns the iterations taken, whether the factors were refreshed in this
// step and whether the step started with old ones.
func (m *Model) newtonSolve(s *State, h float64, c stepCoef) (it int, refreshed, startOld bool, err error) {
	nv := m.nv
	qOf := m.qOf
	cv, ca, caa, s1 := c.cv, c.ca, c.caa, c.s1
	if s.hFact != h {
		s.needFactor = true
	}
	tol := m.settings.NewtonTol
	if m.settings.Adaptive {
		// Newton error well below the local error being controlled
		tol = math.Min(tol, 0.01*math.Min(m.settings.RelTol, m.settings.AbsTol))
	}
	rof := 8 * 2.2e-16 / tol
	// the multipliers' test, |Δλ| ≤ √tol (1 + |λ|), as the others':
	// tol/√tol |Δλ|/(1 + |λ|) ≤ tol
	lamW := math.Sqrt(tol)
	maxIt := m.settings.MaxIter
	turned := false
	prev := math.Inf(1)
	if s.reuseHold > 0 {
		s.reuseHold--
		s.needFactor = true
	}
	startOld = !s.needFactor
	if m.adapt != nil {
		m.adCut(s) // the step's modal supports (modalselect.go)
	}
	for {
		if m.adapt != nil {
			// the sampled least-squares problem's solution depends on its
			// Jacobian: Gauss–Newton with the current one (the seed's)
			s.needFactor = true
		}
		factor := s.needFactor
		if !factor && !s.linValid {
			// the factors in use belong to the anchor: rebuild them
			if err := m.rebuildFactors(s); err != nil {
				factor = true
			}
		}
		if factor && s.useT {
			m.setTangentOps(s)
		}
		m.newtonResidual(s, s1, cv, factor)
		if factor {
			s.stats.Factorizations++
			if err := s.lin.Factor(); err != nil {
				return it, refreshed, startOld, errorf("singular iteration matrix: %v", err)
			}
			s.needFactor = false
			s.hFact = h
			refreshed = true
			m.recordRot(s)
			if s.reuseHold > 0 {
				// the next step factors afresh: no later use of these
				// factors needs their anchor (whose copy costs about a
				// tenth of a small system's step)
				s.hasAnchor, s.linValid = false, true
			} else {
				s.setAnchor(s1, cv)
			}
		}
		dx := s.dx
		for i, r := range s.res[:len(dx)] {
			dx[i] = -r
		}
		// factors of an earlier step: carry the rotations' blocks into
		// their body frames (coRotate)
		turn := s.useT && !refreshed
		if turn {
			if !turned {
				m.setCoRot(s)
				turned = true
			}
			m.coRotate(s, dx, false)
		}
		if m.adapt != nil {
			m.adaptSolve(s, dx, it, factor) // seed 004's adaptive modal selection (modalselect.go)
		} else {
			s.lin.Solve(dx)
		}
		if turn {
			m.coRotate(s, dx, true)
		}
		if m.contacts != nil {
			m.contacts.newton(m, s, s1, cv, turn) // stick constraints (stickslip.go)
		}
		nrm := 0.0
		sq, sv, sa, saa, sdq := s.q, s.v[:nv], s.a[:nv], s.aa[:nv], s.dq[:nv]
		qOf, lq := qOf[:nv], m.lq[:nv]
		for i, d := range dx[:nv] {
			var aq float64
			l := lq[i]
			if qi := qOf[i]; qi >= 0 {
				q := sq[qi] + d
				sq[qi] = q
				aq = 1 + l*math.Abs(q)
			} else {
				sdq[i] += d
				aq = 1
			}
			v := sv[i] + cv*d
			sv[i] = v
			sa[i] += ca * d
			saa[i] += caa * d
			// both positions and velocities (Δv = cv Δq) must have converged:
			// w = |Δq| max(1/(1+|q|), cv/(1+|v| + rof·cv·(1+|q|))), where
			// the last term is the velocity error that the round-off of q
			// alone causes (it matters only for very small steps); q, v
			// and Δq times the coordinate's length l (1 but for an ANCF
			// slope: the displacement it causes, mech.Builder.SetLength)
			av := 1 + l*math.Abs(v) + rof*cv*aq
			w := l * math.Abs(d)
			if cv*aq > av {
				w *= cv / av
			} else {
				w /= aq
			}
			if !(w <= nrm) { // a NaN increment is kept, for the test below
				nrm = w
			}
		}
		m.setRot(s.q, s.q0s, s.dq)
		// the multipliers as well, to √tol of the largest: a multiplier
		// that moves no coordinate (a bearing's reaction moment across
		// the motion it stops) shows its error nowhere else, and under
		// old factors of an anisotropic body turned since (a hub carrying
		// a floating-frame beam) such reactions once grew without bound
		// while the motion converged in one iteration a step. (They are
		// ca·M ≈ M/(βh²) times more sensitive to the increments than the
		// positions: a relative tol on them cost up to 20 % more
		// iterations on rigid mechanisms for no change of the motion.)
		dlm, lm := 0.0, 0.0
		lam := s.lam[:len(dx)-nv]
		for r, d := range dx[nv:] {
			dl := d * ca
			l := lam[r] + dl
			lam[r] = l
			dlm = max(dlm, math.Abs(dl))
			lm = max(lm, math.Abs(l))
		}
		if w := dlm * lamW / (1 + lm); !(w <= nrm) {
			nrm = w
		}
		it++
		s.stats.NewtonIters++
		if !finite(nrm) {
			// (a non-finite value at the predictor may be the predictor's
			// overshoot out of a force's domain: the halves retry it)
			return it, refreshed, startOld, errNewton
		}
		// converged: the increment is below the tolerance, and so is
		// the error it leaves, about ρ/(1 − ρ)·|Δ| with ρ the observed
		// contraction (small with fresh factors, not with reused ones)
		if rho := nrm / prev; nrm <= tol && rho < 1 && nrm*rho/(1-rho) <= 0.1*tol {
			break
		}
		// stagnating near the tolerance with a fresh Jacobian: the
		// increments are at the round-off level of the residual
		if refreshed && it > 1 && nrm >= 0.5*prev && nrm <= 1e3*tol {
			break
		}
		if it >= maxIt {
			if refreshed {
				return it, refreshed, startOld, errNewton
			}
			s.needFactor = true
			it = 0
			prev = math.Inf(1)
			continue
		}
		if it > 1 && !factor && nrm > 0.01*prev {
			// With old factors: refresh the Jacobian when the iterations
			// still needed at the observed rate cost more than a
			// factorisation and two iterations (or convergence is slow).
			rho := nrm / prev
			if rho > 0.5 || math.Log(tol/nrm)/math.Log(rho) > 2+m.factorIters {
				s.needFactor = true
			}
		}
		prev = nrm
	}
	return it, refreshed, startOld, nil
}

// acceptStep is the last stage: the predictor's choice for the next step,
// the index-2 position projection, and the decisions on reusing the
// factorisation in the next steps.
func (m *Model) acceptStep(s *State, h float64, it int, refreshed, startOld bool) {
	if m.integ.family == famAlpha {
		s.predScore(m.lq)
	}
	if m.index2 {
		m.project(s, s.useT && !refreshed)
	}
	// Reuse the factorisation in the next step only if it converged fast
	// (large systems, whose factorisation costs many iterations, tolerate
	// more). When old factors had to be refreshed within the step, the
	// iteration matrix changes fast (a spinning body): refactor at the
	// start of the next steps for a while, and when the old factors fail
	// again at the end of that while, for twice as long (up to
	// reuseHoldMax steps): each failed trial costs a step its extra
	// iterations, so the trials are spaced out while they keep failing.
	if float64(it) > math.Max(reuseIters, m.factorIters) {
		s.needFactor = true
	}
	if startOld {
		if refreshed {
			s.reuseLen = min(max(2*s.reuseLen, reuseHoldMin), reuseHoldMax)
			s.reuseHold = s.reuseLen
		} else {
			s.reuseLen = 0
		}
	}
	s.hp = h
	s.nhist = 1
}

// project moves the positions back onto Φ(q, t) = 0 after an index-2 step,
// with the factored iteration matrix as the metric: [S Φqᵀ; Φq 0][Δq; μ] =
// [0; −Φ]. The correction is of the order of the local error.
//
// The factors in use may be an earlier step's (they are reused while
// Newton converges with them), and their constraint rows are then that
// step's Φq: a correction solved with them alone satisfies Φq,old Δq = −Φ,
// not Φq Δq = −Φ, and leaves a one-signed shift along the constraint of
// the order of the Newton tolerance every step (measured on the pendulum:
// its energy drifted linearly). So the correction is refined: the
// residual Φ + Φq Δq with the present rows is solved for again with the
// same factors until it is below projRef (each pass divides it by the
// rows' relative change: one or two passes). When the factors are an
// earlier step's and its rotations have turned since (turn), the solves
// are carried into their frames as in the Newton iteration (coRotate):
// without that a spinning body's correction came out turned by its spin
// since the factorisation, and ρ∞ = 1 runs of the Simo–Wong top did not
// converge as the step shrank.
func (m *Model) project(s *State, turn bool) {
	nv, nc := m.nv, m.nc
	// Φ at the converged positions from the last Newton evaluation and the
	// last (tiny) increment: Φ(q + Δq) = Φ(q) + Φq Δq + O(|Δq|²)
	w := 0.0
	phi := s.res[nv : nv+nc] // (free after the Newton iteration)
	for r := 0; r < nc; r++ {
		phi[r] = s.phi[r] + m.rowDot(s, r, s.dx)
		if a := math.Abs(phi[r]); a > w {
			w = a
		}
	}
	// a drift below projTol is left for a later step: the violation stays
	// bounded by it and most steps skip the solve
	if w <= projTol {
		return
	}
	dq := s.tmp[:nv] // the correction so far
	clear(dq)
	res := s.ls[:nc] // (free too)
	copy(res, phi)
	for pass := 0; pass < projPasses; pass++ {
		clear(s.dx[:nv])
		for r := 0; r < nc; r++ {
			s.dx[nv+r] = -res[r]
		}
		if turn {
			m.coRotate(s, s.dx, false)
		}
		s.lin.Solve(s.dx)
		if turn {
			m.coRotate(s, s.dx, true)
		}
		for i, d := range s.dx[:nv] {
			dq[i] += d
		}
		// the residual left with the present rows
		w = 0
		for r := 0; r < nc; r++ {
			res[r] = phi[r] + m.rowDot(s, r, dq)
			w = math.Max(w, math.Abs(res[r]))
		}
		if w <= projRef {
			break
		}
	}
	m.addTo(s.q, dq, 1)
}

// projTol is the constraint violation (m or rad) the index-2 formulation
// tolerates before projecting positions.
const projTol = 1e-11

// projRef is the residual of the linearised constraints (m or rad) at which
// project stops refining — a tenth of projTol, so that what is left never
// builds up to a projection of its own (a tighter 1e-14 cost the A01 step
// 10 % for nothing measurable) — and projPasses the most solves it takes.
const (
	projRef    = projTol / 10
	projPasses = 5
)

// accelerations solves [M Φqᵀ; Φq 0][q̈; λ] = [g + Q; γ − 2α Φ̇ − β² Φ] at
// the state's q, v, time; baumgarte selects the stabilisation terms. Near
// a singular position, where rows of Φq are numerically dependent, the
// solve is completed by singularSolve (singular.go).
func (m *Model) accelerations(s *State, dst []float64, baumgarte bool) error {
	m.evalForces(s, false, 0, 0)
	err := m.assemble(s, true)
	if m.nc > 0 && m.nearSingular(s, err) {
		return m.singularSolve(s, dst, baumgarte)
	}
	if err != nil {
		return errorf("constraint Jacobian is singular (redundant or locked constraints?): %v", err)
	}
	m.accelRHS(s, baumgarte)
	s.lin.Solve(s.dx)
	if m.contacts != nil {
		if err := m.contacts.accel(m, s); err != nil { // stick friction (stickslip.go)
			return err
		}
	}
	nv := m.nv
	if m.readsLam && m.nc > 0 {
		// Forces that read the multipliers (a friction level from its
		// joint's reaction) were evaluated with those of the state,
		// another instant's: solve again with the forces of this solve's
		// multipliers, with the same factors, until they agree (the
		// level's share of the reaction is small: a few passes). Without
		// it the accelerations lag the friction by a solve, which the
		// algorithmic accelerations of the start (startAlgorithmic: a
		// difference of two solves over 1e-6 s) blew up into a spurious
		// solution of the first steps.
		for pass := 0; ; pass++ {
			dl, sz := 0.0, 0.0
			for r := 0; r < m.nc; r++ {
				dl = math.Max(dl, math.Abs(s.dx[nv+r]-s.lam[r]))
				sz = math.Max(sz, math.Abs(s.dx[nv+r]))
			}
			copy(s.lam, s.dx[nv:])
			if dl <= 1e-13*sz {
				break
			}
			if pass == 200 {
				// the reactions change the forces by as much as the
				// forces change the reactions (a friction level that
				// grows with the reaction at a gain near or above 1: a
				// friction lock, no unique solution)
				return errorf("at t=%s s the forces that read joint reactions do not settle with the reactions they cause (still %.3g N apart after 200 passes): a friction level from a joint's reaction that grows with it as fast as the reaction with the friction (μ·radius too large for the mechanism's lever arms?)", ftoa(s.T), dl)
			}
			m.evalForces(s, false, 0, 0)
			m.accelRHS(s, baumgarte)
			s.lin.Solve(s.dx)
			if m.contacts != nil {
				if err := m.contacts.accel(m, s); err != nil {
					return err
				}
			}
		}
	}
	copy(dst, s.dx[:nv])
	copy(s.lam, s.dx[nv:])
	return nil
}

// rk4Step advances s by h with classical RK4 on (q, v), the accelerations
// from the Baumgarte-stabilised index-1 equations. Rotations are
// integrated as Runge–Kutta–Munthe-Kaas: the stages move a rotation vector
// θ from the start of the step (q = q₀ ⊗ exp(θ/2)) at the rate
// θ̇ = T(θ)⁻¹ ω, which keeps fourth order on the rotation group.
func (m *Model) rk4Step(s *State, h float64) error {
	nq, nv := m.nq, m.nv
	rk := s.rk
	q0 := rk[:nq]
	rk = rk[nq:]
	v0, kq, kv, acc, kp, th := rk[:nv], rk[nv:2*nv], rk[2*nv:3*nv], rk[3*nv:4*nv], rk[4*nv:5*nv], rk[5*nv:6*nv]
	copy(q0, s.q)
	copy(v0, s.v)
	t0 := s.T
	clear(kq)
	clear(kv)
	rot := len(m.rots) > 0
	w := [4]float64{1, 2, 2, 1}
	c := [4]float64{0, 0.5, 0.5, 1}
	for st := 0; st < 4; st++ {
		if st > 0 {
			// positions from the previous stage's rate kp (s.v for linear
			// coordinates), velocities from its accelerations
			for i := 0; i < nv; i++ {
				if qi := m.qOf[i]; qi >= 0 {
					s.q[qi] = q0[qi] + c[st]*h*s.v[i]
				} else {
					th[i] = c[st] * h * kp[i]
				}
				s.v[i] = v0[i] + c[st]*h*acc[i]
			}
			if rot {
				m.setRot(s.q, q0, th)
			}
		}
		s.setTime(t0 + c[st]*h)
		if err := m.accelerations(s, acc, true); err != nil {
			return err
		}
		if rot {
			copy(kp, s.v)
			if st == 0 {
				clear(th)
			}
			m.dexpInv(kp, th)
		}
		for i := 0; i < nv; i++ {
			if rot && m.qOf[i] < 0 {
				kq[i] += w[st] * kp[i]
			} else {
				kq[i] += w[st] * s.v[i]
			}
			kv[i] += w[st] * acc[i]
		}
	}
	for i := 0; i < nv; i++ {
		if qi := m.qOf[i]; qi >= 0 {
			s.q[qi] = q0[qi] + h/6*kq[i]
		} else {
			th[i] = h / 6 * kq[i]
		}
		s.v[i] = v0[i] + h/6*kv[i]
	}
	if rot {
		m.setRot(s.q, q0, th)
	}
	s.T = t0 + h
	s.setTime(s.T)
	if err := m.accelerations(s, s.a, true); err != nil {
		return err
	}
	if m.settings.Adaptive && m.nc > 0 {
		m.projectKKT(s)
		if err := m.accelerations(s, s.a, true); err != nil {
			return err
		}
	} else if m.nc > 0 && m.approachingSingular(s) {
		// close to a singular position: enter it without constraint
		// velocity drift (singular.go)
		m.projectVelocities(s)
		if err := m.accelerations(s, s.a, true); err != nil {
			return err
		}
	}
	copy(s.aa, s.a)
	return nil
}

// projectKKT moves positions and then velocities back onto the constraint
// manifold with the mass metric, using the factored [M Φqᵀ; Φq 0] and the
// rows evaluated by the last accelerations call.
func (m *Model) projectKKT(s *State) {
	nv := m.nv
	clear(s.dx[:nv])
	for r := 0; r < m.nc; r++ {
		s.dx[nv+r] = -s.phi[r]
	}
	s.lin.Solve(s.dx)
	m.addTo(s.q, s.dx, 1)
	m.evalCons(s, false)
	m.projectVelocities(s)
}

// projectVelocities moves the velocities onto Φq v + Φt = 0 with the mass
// metric, using the factored [M Φqᵀ; Φq 0] and the rows in s.jac, s.phit.
func (m *Model) projectVelocities(s *State) {
	nv := m.nv
	clear(s.dx[:nv])
	for r := 0; r < m.nc; r++ {
		s.dx[nv+r] = -(s.phit[r] + m.rowDot(s, r, s.v))
	}
	s.lin.Solve(s.dx)
	for i := 0; i < nv; i++ {
		s.v[i] += s.dx[i]
	}
}

// step advances by h; a failed step is retried as two half steps (up to
// depth 4) before the failure is reported.
func (m *Model) step(s *State, h float64, depth int) error {
	copy(s.save, s.core)
	t0, hp, nh := s.T, s.hp, s.nhist
	var err error
	if m.contacts != nil {
		err = m.contactStep(s, h) // event-located contact stepping (stickslip.go)
	} else if m.integ.family == famRK {
		err = m.rk4Step(s, h)
	} else {
		err = m.implicitStep(s, h)
	}
	if err == nil {
		m.updateTurns(s)
		m.commitStates(s, mech.CommitStep)
		s.stats.Steps++
		if h < m.settings.Step*(1-gridTol) && !m.settings.Adaptive {
			s.stats.Short++
		}
		return nil
	}
	copy(s.core, s.save)
	s.T, s.hp, s.nhist = t0, hp, nh
	s.needFactor = true
	if depth >= 4 {
		return err
	}
	s.stats.Rejected++
	// Each half saves and restores its own start, so a failing half leaves
	// the state where that half began. The second half ends at t0 + h
	// exactly (not one rounding off it: a value undefined at that time,
	// a driver's pole, is then met again and reported, not stepped over).
	if err := m.step(s, h/2, depth+1); err != nil {
		return err
	}
	return m.step(s, (t0+h)-s.T, depth+1)
}

// commitStates has the elements with states of their own store them at
// the state (mech.Stateful).
func (m *Model) commitStates(s *State, mode mech.CommitMode) {
	for _, e := range m.stateful {
		e.Commit(&s.x, mode)
	}
}

// updateTurns stores the whole-turn angles of the state's positions as
// the references of the next step (mech.Builder's TurnSlot).
func (m *Model) updateTurns(s *State) {
	for k, c := range m.turnCoords {
		s.turns[k], _ = c.Value(&s.x)
	}
}

// finiteState reports whether the state holds no NaN or infinity. The
// predictor's memory is left out: it holds earlier values of checked
// entries.
func (m *Model) finiteState(s *State) bool {
	// x·0 is ±0 for finite x and NaN for NaN and ±Inf, so one sum tells
	// (four partial sums: the additions do not wait on one another)
	var a0, a1, a2, a3 float64
	c := s.core[:len(s.core)-len(s.ph)]
	for len(c) >= 4 {
		a0 += c[0] * 0
		a1 += c[1] * 0
		a2 += c[2] * 0
		a3 += c[3] * 0
		c = c[4:]
	}
	for _, x := range c {
		a0 += x * 0
	}
	return a0+a1+a2+a3 == 0
}

// adaptiveStep takes one error-controlled step of at most h by step
// doubling: one step of h against two of h/2; the error of the finer
// solution is estimated by Richardson extrapolation.
func (m *Model) adaptiveStep(s *State, h float64) error {
	st := &m.settings
	p := float64(m.integ.order)
	nq, nv := m.nq, m.nv
	big := s.save2
	for {
		// state at the start of the attempt
		t0, hp, nh := s.T, s.hp, s.nhist
		start := s.start
		copy(start, s.core)
		err1 := m.step(s, h, 4)
		copy(big, s.core)
		copy(s.core, start)
		s.T, s.hp, s.nhist = t0, hp, nh
		var err2 error
		if err1 == nil {
			err2 = m.step(s, h/2, 4)
			if err2 == nil {
				err2 = m.step(s, h/2, 4)
			}
		}
		est := math.Inf(1)
		if err1 == nil && err2 == nil && m.finiteState(s) {
			est = 0
			// positions, and velocities weighted with the error the
			// round-off of positions causes in them (≈ ε/h, which would
			// otherwise make the estimate grow as h shrinks)
			// (rotations: the angle between the two orientations)
			if len(m.rots) > 0 {
				m.diff(s.dq, s.core[:nq], big[:nq])
			}
			for i := 0; i < nv; i++ {
				y, dy := 0.0, 0.0
				if qi := m.qOf[i]; qi >= 0 {
					y = s.core[qi]
					dy = y - big[qi]
				} else {
					dy = s.dq[i]
				}
				e := math.Abs(dy) / (st.AbsTol + st.RelTol*math.Abs(y))
				v := s.core[nq+i]
				ev := math.Abs(v-big[nq+i]) / (st.AbsTol + st.RelTol*math.Abs(v) + 16*2.2e-16*(1+math.Abs(y))/h)
				est = math.Max(est, math.Max(e, ev))
			}
			est /= math.Pow(2, p) - 1
		}
		fac := 0.2
		if est < math.Inf(1) {
			fac = math.Min(4, math.Max(0.2, 0.9*math.Pow(math.Max(est, 1e-10), -1/(p+1))))
		}
		if est <= 1 {
			s.h = math.Min(h*fac, st.MaxStep)
			return nil
		}
		copy(s.core, start)
		s.T, s.hp, s.nhist = t0, hp, nh
		s.stats.Rejected++
		s.needFactor = true
		h *= fac
		if h < st.MinStep {
			return m.stepError(s, errorf("step size fell below the minimum %s s", ftoa(st.MinStep)), s.T, s.T+h)
		}
	}
}

// Step advances s by one integrator step of size h (no sub-stepping, the
// Jacobian factorisation reused as in a run). Use AdvanceTo to reach a
// given time; Step is for measuring and for callers that manage time
// themselves.
func (m *Model) Step(s *State, h float64) error {
	if !s.initialized {
		return &StepError{Time: s.T, LastTime: s.T, Msg: "state is not initialised (call Init)"}
	}
	m.restartIfChanged(s)
	t0 := s.T
	err := m.step(s, h, 0)
	s.stepped()
	if err != nil {
		return m.stepError(s, err, t0, t0+h)
	}
	if !m.finiteState(s) {
		return m.stepError(s, errNonFiniteState, t0, s.T)
	}
	return nil
}

// reuseIters: a step that needed more Newton iterations than this refreshes
// the Jacobian for the next one (2 measured fastest on the A01 pendulum and
// the N = 100 chain: 3 iterations cost more than a refactorisation).
const reuseIters = 2

// reuseHoldMin and reuseHoldMax bound the number of steps that start with
// a fresh factorisation after old factors failed (implicitStep).
const (
	reuseHoldMin = 8
	reuseHoldMax = 64
)
