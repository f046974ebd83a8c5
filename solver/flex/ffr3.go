package flex

import (
	"mbfmu/solver/mech"
)

// Spatial floating-frame-of-reference (FFR) bodies (Shabana, Dynamics of
// Multibody Systems, ch. 5; seed 001; the "standard input data" of Wallrapp
// 1994).
//
// A linear finite-element model (nodes with three translations and
// optionally three small rotations each, mass matrix M and stiffness K,
// positions in the body frame) moves with a frame: a rigid body's
// coordinates (R its reference point in the world, A its rotation; Ṙ
// world, ω body frame). Its nodal displacements in the frame are V η: V
// the reduction basis (zero at the nodes clamped to the frame), η the
// elastic coordinates appended to q. The nodal velocities in the frame are
//
//	w = Φ_t v_b + Φ_r(η) ω + V η̇,  v_b = AᵀṘ,
//
// Φ_t the rigid translations (identity on the translations of every node),
// Φ_r(η) the rigid rotations of the deformed body (−[x_i + u_i]× on the
// translations of node i, identity on its rotations), and the kinetic
// energy is T = ½ wᵀ M w = ½ νᵀ N(η) ν with ν = (v_b, ω, η̇). The blocks of
// N come from invariants computed once:
//
//	N_tt = m I, N_tr = −[S(η)]×, N_tf = S̄,  S(η) = S₀ + S̄ η (first moment)
//	N_rr = J₀ + Σ η_k (C_k + C_kᵀ) + Σ η_k η_l D_kl,  C_k = Φ_r0ᵀ M P_k, D_kl = P_kᵀ M P_l
//	N_rf = F₀ + Σ η_k E_k,  F₀ = Φ_r0ᵀ M V, E_k = P_kᵀ M V,  N_ff = VᵀMV,
//
// P_k = ∂Φ_r/∂η_k (−[V_k]× on the translations). The first moment uses
// S̄ = Φ_tᵀ M V exactly (the mass-weighted displacement of the continuum);
// the second-order terms treat the nodes as the carriers of the mass, as
// every FE-based FFR code does.
//
// The equations of motion are Kirchhoff's (Boltzmann–Hamel with the body
// frame's quasi-velocities): with p = N ν,
//
//	G_R = A (ṗ_t + ω × p_t)
//	G_π = ṗ_r + ω × p_r + v_b × p_t
//	G_η = ṗ_η − ½ νᵀ (∂N/∂η) ν,  ṗ = N ν̇ + Σ η̇_k (∂N/∂η_k) ν,
//	v̇_b = AᵀR̈ − ω × v_b,
//
// and gravity adds m g (to R), S(η) × Aᵀg (to the rotation) and S̄ᵀAᵀg
// (to η). As for the planar FFR beam the engine holds the constant mass
// M̄ = M(q₀); the element contributes Q = M̄a − G + gravity − Kη − βKη̇ and
// the tangent ∂G/∂q + c_a (M(q) − M̄), derived analytically (tangent; G
// is a polynomial of degree two in η, in the velocities and along a
// rotation of the frame's body-frame vectors, which a test checks against
// central differences).

// ffr3Max bounds the elastic coordinates of one spatial FFR body.
const ffr3Max = 64

// ffr3 is a compiled spatial FFR body.
type ffr3 struct {
	name    string
	body    int // the frame's body
	fq, fv  int // the frame's first position (R, quaternion) and velocity (Ṙ, ω)
	eq, ev  int // first elastic position and velocity
	m       int // elastic coordinates
	mass    float64
	s0      mech.Vec3
	sb      []mech.Vec3 // S̄_k
	j0      mech.Mat3   // J₀ about the frame's origin
	cs      []mech.Mat3 // C_k + C_kᵀ
	ds      []mech.Mat3 // D_kl + D_lk, k·m + l
	f0      []mech.Vec3 // F₀ column l
	ek      []mech.Vec3 // E_k column l, k·m + l
	mff     []float64   // m×m
	kff     []float64   // m×m
	beta    float64     // stiffness-proportional damping
	g       mech.Vec3
	elastic *ffr3Beam      // nonlinear elastic forces (a stiffened beam); nil: K η
	pre     *ffr3Prestress // geometric stiffness of an FE body's inertia loads (feprestress.go); nil: none
	mbar    []float64      // M(q₀), (6+m)², row-major
	dofl    []int          // velocity dofs: frame then elastic
	mk      []ffr3Marker
	shape   []ffr3Marker // drawing points
	chains  [][]int      // polylines through them (nil: one through all)
	coords  []string
	info    ffr3Info // what eigen reports
}

// ffr3Info records the FE model's frequencies before and after reduction.
type ffr3Info struct {
	source  string
	dofs    int       // FE coordinates (free ones)
	full    []float64 // lowest frequencies of the FE model (Hz)
	reduced []float64 // frequencies of the reduced model (Hz)
	rigid   int       // rigid-body modes of the FE model (free-free)
	basis   string
}

// ffr3Marker is a node of an FFR body: its position in the body frame and
// the translations and rotations of the basis there (3×m each, row-major).
type ffr3Marker struct {
	name   string
	node   int // FE node label (0 for beam stations)
	p0     mech.Vec3
	tr     []float64
	rot    []float64
	hasRot bool // the node has rotational dofs (beam stations and shell or beam nodes)
}

// ffr3Terms holds the body-frame quantities of one evaluation of G (on
// the stack: the tangent reuses them).
type ffr3Terms struct {
	vb, rb, gb, om, omd mech.Vec3
	eta, etad, etadd    []float64
	S, Sd               mech.Vec3
	nrr, rdot           mech.Mat3
	rr                  [ffr3Max]mech.Mat3 // R_k
	cl, ekd, ekt        [ffr3Max]mech.Vec3 // N_rf columns, Σ_l E_kl η̇_l, Σ_j η̇_j E_jk
	pt, pr              mech.Vec3
	X, gp               mech.Vec3
}

// inertia evaluates the body-frame part of G into w: X (G_R = A X), the
// rotation rows w.gp and the elastic rows gf, at body-frame Ṙ (vb), R̈
// (rb) and gravity (gb), angular velocity and acceleration, elastic
// coordinates and rates. Gravity enters with its sign: G − Q_gravity
// (Q_R = m g is the engine's).
func (b *ffr3) inertia(w *ffr3Terms, gf []float64) {
	m := b.m
	vb, rb, gb, om, omd := w.vb, w.rb, w.gb, w.om, w.omd
	eta, etad, etadd := w.eta, w.etad, w.etadd
	var S, Sd, Sa mech.Vec3
	for k := 0; k < m; k++ {
		s := b.sb[k]
		S = mech.Add(S, mech.Scale(eta[k], s))
		Sd = mech.Add(Sd, mech.Scale(etad[k], s))
		Sa = mech.Add(Sa, mech.Scale(etadd[k], s))
	}
	S = mech.Add(S, b.s0)
	w.S, w.Sd = S, Sd
	ab := mech.Sub(rb, mech.Cross(om, vb))
	// R_k = C_k + C_kᵀ + Σ_l η_l (D_kl + D_lk); N_rr = J₀ + ½ Σ η_k (C_k + C_kᵀ + R_k)
	nrr := b.j0
	var rdot mech.Mat3 // Σ η̇_k R_k
	for k := 0; k < m; k++ {
		r := b.cs[k]
		row := b.ds[k*m : k*m+m]
		for l, e := range eta {
			if e != 0 {
				d := &row[l]
				r[0] += e * d[0]
				r[1] += e * d[1]
				r[2] += e * d[2]
				r[3] += e * d[3]
				r[4] += e * d[4]
				r[5] += e * d[5]
				r[6] += e * d[6]
				r[7] += e * d[7]
				r[8] += e * d[8]
			}
		}
		w.rr[k] = r
		c := &b.cs[k]
		ek, ed := 0.5*eta[k], etad[k]
		for i := range nrr {
			nrr[i] += ek * (c[i] + r[i])
			rdot[i] += ed * r[i]
		}
	}
	w.nrr, w.rdot = nrr, rdot
	// N_rf columns c_l = F₀_l + Σ_k η_k E_kl; e_k = Σ_l E_kl η̇_l; t_k = Σ_j η̇_j E_jk
	for l := 0; l < m; l++ {
		w.cl[l] = b.f0[l]
		w.ekt[l] = mech.Vec3{}
	}
	for k := 0; k < m; k++ {
		row := b.ek[k*m : k*m+m]
		var e0, e1, e2 float64
		ek, ed := eta[k], etad[k]
		for l := range row {
			v := &row[l]
			if ek != 0 {
				c := &w.cl[l]
				c[0] += ek * v[0]
				c[1] += ek * v[1]
				c[2] += ek * v[2]
			}
			el := etad[l]
			e0 += el * v[0]
			e1 += el * v[1]
			e2 += el * v[2]
			if ed != 0 {
				t := &w.ekt[l]
				t[0] += ed * v[0]
				t[1] += ed * v[1]
				t[2] += ed * v[2]
			}
		}
		w.ekd[k] = mech.Vec3{e0, e1, e2}
	}
	// p = N ν, q = N ν̇
	pt := mech.Add(mech.Add(mech.Scale(b.mass, vb), mech.Cross(om, S)), Sd)
	qt := mech.Add(mech.Add(mech.Scale(b.mass, ab), mech.Cross(omd, S)), Sa)
	pr := mech.Add(mech.Cross(S, vb), mech.MulMV(&nrr, om))
	qr := mech.Add(mech.Cross(S, ab), mech.MulMV(&nrr, omd))
	for l := 0; l < m; l++ {
		pr = mech.Add(pr, mech.Scale(etad[l], w.cl[l]))
		qr = mech.Add(qr, mech.Scale(etadd[l], w.cl[l]))
	}
	w.pt, w.pr = pt, pr
	// Ṅν
	nt := mech.Cross(om, Sd)
	nr := mech.Add(mech.Cross(Sd, vb), mech.MulMV(&rdot, om))
	for k := 0; k < m; k++ {
		nr = mech.Add(nr, mech.Scale(etad[k], w.ekd[k]))
	}
	w.X = mech.Add(mech.Add(qt, nt), mech.Cross(om, pt))
	gp := mech.Add(mech.Add(mech.Add(qr, nr), mech.Cross(om, pr)), mech.Cross(vb, pt))
	w.gp = mech.Sub(gp, mech.Cross(S, gb))
	for k := 0; k < m; k++ {
		row := b.mff[k*m : k*m+m]
		s := mech.Dot(b.sb[k], ab) + mech.Dot(w.cl[k], omd)
		for l := 0; l < m; l++ {
			s += row[l] * etadd[l]
		}
		// Σ_j η̇_j (N_j ν)_f,k = t_k·ω; ½ νᵀ N_k ν = v_b·(ω × S̄_k) + ½ ωᵀR_kω + ω·e_k
		s += mech.Dot(w.ekt[k], om)
		r := &w.rr[k]
		s -= mech.Dot(vb, mech.Cross(om, b.sb[k])) + 0.5*mech.Dot(om, mech.MulMV(r, om)) + mech.Dot(om, w.ekd[k])
		s -= mech.Dot(b.sb[k], gb)
		gf[k] = s
	}
}

// tangent adds ∂G/∂q into k and ∂G/∂v into c (n×n, n = 6 + m, the
// element's dofs: Ṙ world, ω, η̇) from the terms of an evaluation at
// rotation A. (Derivatives of the expressions of inertia: G does not
// depend on R, nor — Galilean invariance — on Ṙ; a rotation δπ of the
// frame turns the body-frame vectors by −δπ.)
func (b *ffr3) tangent(w *ffr3Terms, A *mech.Mat3, k, c []float64) {
	m := b.m
	n := 6 + m
	vb, rb, gb, om, omd := w.vb, w.rb, w.gb, w.om, w.omd
	etad, etadd := w.etad, w.etadd
	S, Sd := w.S, w.Sd
	setCol := func(dst []float64, j int, X, gp mech.Vec3, world bool) {
		if world {
			X = mech.MulMV(A, X)
		}
		for i := 0; i < 3; i++ {
			dst[i*n+j] += X[i]
			dst[(3+i)*n+j] += gp[i]
		}
	}
	rg := mech.Sub(rb, gb)
	// rotation columns
	for j := 0; j < 3; j++ {
		var e mech.Vec3
		e[j] = 1
		dX := mech.Add(mech.Cross(e, w.X), mech.Scale(b.mass, mech.Cross(rb, e)))
		re := mech.Cross(rg, e)
		setCol(k, 3+j, dX, mech.Cross(S, re), true)
		for q := 0; q < m; q++ {
			k[(6+q)*n+3+j] += mech.Dot(b.sb[q], re)
		}
	}
	ab := mech.Sub(rb, mech.Cross(om, vb))
	// elastic coordinate columns
	for j := 0; j < m; j++ {
		sj := b.sb[j]
		rj := &w.rr[j]
		var eka mech.Vec3 // Σ_l η̈_l E_jl
		row := b.ek[j*m : j*m+m]
		for l := 0; l < m; l++ {
			eka = mech.Add(eka, mech.Scale(etadd[l], row[l]))
		}
		var dd mech.Mat3 // Σ_q η̇_q ds_qj
		for q := 0; q < m; q++ {
			if etad[q] == 0 {
				continue
			}
			d := &b.ds[q*m+j]
			for i := range dd {
				dd[i] += etad[q] * d[i]
			}
		}
		dpt := mech.Cross(om, sj)
		dqt := mech.Cross(omd, sj)
		dpr := mech.Add(mech.Add(mech.Cross(sj, vb), mech.MulMV(rj, om)), w.ekd[j])
		dqr := mech.Add(mech.Add(mech.Cross(sj, ab), mech.MulMV(rj, omd)), eka)
		dnr := mech.MulMV(&dd, om)
		dX := mech.Add(dqt, mech.Cross(om, dpt))
		dgp := mech.Add(mech.Add(mech.Add(dqr, dnr), mech.Cross(om, dpr)), mech.Cross(vb, dpt))
		dgp = mech.Sub(dgp, mech.Cross(sj, gb))
		setCol(k, 6+j, dX, dgp, true)
		for q := 0; q < m; q++ {
			d := &b.ds[q*m+j]
			k[(6+q)*n+6+j] += mech.Dot(b.ek[j*m+q], omd) - 0.5*mech.Dot(om, mech.MulMV(d, om))
		}
	}
	// angular velocity columns
	for j := 0; j < 3; j++ {
		var d mech.Vec3
		d[j] = 1
		dpt := mech.Cross(d, S)
		dX := mech.Add(mech.Add(mech.Add(mech.Scale(-b.mass, mech.Cross(d, vb)), mech.Cross(d, Sd)), mech.Cross(d, w.pt)), mech.Cross(om, dpt))
		dgp := mech.Add(mech.Add(mech.Add(mech.Sub(mech.MulMV(&w.rdot, d), mech.Cross(S, mech.Cross(d, vb))), mech.Cross(d, w.pr)), mech.Cross(om, mech.MulMV(&w.nrr, d))), mech.Cross(vb, dpt))
		setCol(c, 3+j, dX, dgp, true)
		for q := 0; q < m; q++ {
			v := mech.Sub(mech.Sub(w.ekt[q], mech.MulMV(&w.rr[q], om)), w.ekd[q])
			c[(6+q)*n+3+j] += v[j]
		}
	}
	// elastic rate columns
	for j := 0; j < m; j++ {
		rj := &w.rr[j]
		dX := mech.Scale(2, mech.Cross(om, b.sb[j]))
		var et mech.Vec3 // Σ_q η̇_q E_qj
		for q := 0; q < m; q++ {
			if etad[q] != 0 {
				et = mech.Add(et, mech.Scale(etad[q], b.ek[q*m+j]))
			}
		}
		dgp := mech.Add(mech.Add(mech.Add(mech.MulMV(rj, om), w.ekd[j]), et), mech.Cross(om, w.cl[j]))
		setCol(c, 6+j, dX, dgp, true)
		for q := 0; q < m; q++ {
			c[(6+q)*n+6+j] += mech.Dot(b.ek[j*m+q], om) - mech.Dot(om, b.ek[q*m+j])
		}
	}
}

// massAt fills the engine's mass matrix of the body's terms over dofl
// ((6+m)², row-major) at rotation A and elastic coordinates eta.
func (b *ffr3) massAt(A *mech.Mat3, eta []float64, out []float64) {
	m := b.m
	S := b.s0
	for k := 0; k < m; k++ {
		S = mech.Add(S, mech.Scale(eta[k], b.sb[k]))
	}
	nrr := b.j0
	for k := 0; k < m; k++ {
		r := b.cs[k]
		for l := 0; l < m; l++ {
			d := &b.ds[k*m+l]
			for i := range r {
				r[i] += eta[l] * d[i]
			}
		}
		c := &b.cs[k]
		for i := range nrr {
			nrr[i] += 0.5 * eta[k] * (c[i] + r[i])
		}
	}
	var cl [ffr3Max]mech.Vec3
	for l := 0; l < m; l++ {
		c := b.f0[l]
		for k := 0; k < m; k++ {
			c = mech.Add(c, mech.Scale(eta[k], b.ek[k*m+l]))
		}
		cl[l] = c
	}
	b.massFrom(A, S, &nrr, cl[:m], out)
}

// massFrom fills the mass matrix (massAt) from the configuration's first
// moment S, N_rr and N_rf columns cl (as inertia computes them).
func (b *ffr3) massFrom(A *mech.Mat3, S mech.Vec3, nrr *mech.Mat3, cl []mech.Vec3, out []float64) {
	m := b.m
	n := 6 + m
	clear(out)
	set := func(i, j int, v float64) { out[i*n+j], out[j*n+i] = v, v }
	for i := 0; i < 3; i++ {
		out[i*n+i] = b.mass
	}
	// M_Rπ = A N_tr = −A [S]×
	sk := mech.Skew(S)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			v := 0.0
			for l := 0; l < 3; l++ {
				v -= A[3*i+l] * sk[3*l+j]
			}
			set(i, 3+j, v)
			out[(3+i)*n+3+j] = nrr[3*i+j]
		}
	}
	for l := 0; l < m; l++ {
		as := mech.MulMV(A, b.sb[l])
		c := cl[l]
		for i := 0; i < 3; i++ {
			set(i, 6+l, as[i])
			set(3+i, 6+l, c[i])
		}
		for k := 0; k < m; k++ {
			out[(6+k)*n+6+l] = b.mff[k*m+l]
		}
	}
}

// ffr3Elem is the inertia, gravity, elastic and damping element of a
// spatial FFR body.
type ffr3Elem struct{ b *ffr3 }

func (e *ffr3Elem) Dofs() []int { return e.b.dofl }

// ffr3State is the body's state at a context.
type ffr3State struct {
	A                mech.Mat3
	vd, ad, om, omd  mech.Vec3 // Ṙ, R̈ (world), ω, ω̇
	eta, etad, etadd []float64
}

func (b *ffr3) state(x *mech.Ctx) (s ffr3State) {
	o := b.fq
	mech.QuatMatTo(&s.A, x.Q[o+3], x.Q[o+4], x.Q[o+5], x.Q[o+6])
	v := b.fv
	s.vd = mech.Vec3{x.V[v], x.V[v+1], x.V[v+2]}
	s.om = mech.Vec3{x.V[v+3], x.V[v+4], x.V[v+5]}
	if x.A != nil {
		s.ad = mech.Vec3{x.A[v], x.A[v+1], x.A[v+2]}
		s.omd = mech.Vec3{x.A[v+3], x.A[v+4], x.A[v+5]}
		s.etadd = x.A[b.ev : b.ev+b.m]
	}
	s.eta = x.Q[b.eq : b.eq+b.m]
	s.etad = x.V[b.ev : b.ev+b.m]
	return s
}

func (e *ffr3Elem) Eval(x *mech.Ctx, f, k, c []float64) {
	b := e.b
	m := b.m
	n := 6 + m
	s := b.state(x)
	var zero [ffr3Max]float64
	etadd := s.etadd
	if etadd == nil {
		etadd = zero[:m]
	}
	var w ffr3Terms
	w.vb, w.rb, w.gb = mech.MulMTV(&s.A, s.vd), mech.MulMTV(&s.A, s.ad), mech.MulMTV(&s.A, b.g)
	w.om, w.omd = s.om, s.omd
	w.eta, w.etad, w.etadd = s.eta, s.etad, etadd
	var g0 [ffr3Max + 6]float64
	b.inertia(&w, g0[6:n])
	ax := mech.MulMV(&s.A, w.X)
	copy(g0[0:3], ax[:])
	copy(g0[3:6], w.gp[:])
	// Q = M̄ a − G
	for r := 0; r < n; r++ {
		row := b.mbar[r*n : r*n+n]
		v := 0.0
		for j := 0; j < 6; j++ {
			v += row[j] * x.A[b.fv+j]
		}
		for j := 0; j < m; j++ {
			v += row[6+j] * etadd[j]
		}
		f[r] += v - g0[r]
	}
	// elastic and damping forces
	if b.elastic != nil {
		b.elastic.internal(s.eta, f[6:n], k, n, 6)
	} else {
		for i := 0; i < m; i++ {
			row := b.kff[i*m : i*m+m]
			v := 0.0
			for j := 0; j < m; j++ {
				v += row[j] * s.eta[j]
			}
			f[6+i] -= v
			if k != nil {
				kr := k[(6+i)*n+6 : (6+i)*n+n]
				for j := 0; j < m; j++ {
					kr[j] += row[j]
				}
			}
		}
	}
	if b.pre != nil {
		b.stiffen(&s, &w, f, k, c, n, x.CA)
	}
	if b.beta > 0 {
		for i := 0; i < m; i++ {
			row := b.kff[i*m : i*m+m]
			v := 0.0
			for j := 0; j < m; j++ {
				v += row[j] * s.etad[j]
			}
			f[6+i] -= b.beta * v
			if c != nil {
				cr := c[(6+i)*n+6 : (6+i)*n+n]
				for j := 0; j < m; j++ {
					cr[j] += b.beta * row[j]
				}
			}
		}
	}
	if k == nil {
		return
	}
	b.tangent(&w, &s.A, k, c)
	// acceleration coupling c_a (M(q) − M̄)
	if ca := x.CA; ca != 0 {
		// (from the terms of this evaluation: no second pass over the
		// invariants)
		var mq [(ffr3Max + 6) * (ffr3Max + 6)]float64
		b.massFrom(&s.A, w.S, &w.nrr, w.cl[:m], mq[:n*n])
		for i := 0; i < n*n; i++ {
			k[i] += ca * (mq[i] - b.mbar[i])
		}
	}
}

// strain returns the body's strain energy.
func (b *ffr3) strain(eta []float64) float64 {
	m := b.m
	if b.elastic != nil {
		var fe [ffr3Max]float64
		return b.elastic.internal(eta, fe[:m], nil, 0, 0)
	}
	U := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			U += 0.5 * eta[i] * b.kff[i*m+j] * eta[j]
		}
	}
	return U
}

// Potential is the strain energy and the gravity of the first moment
// (m g·R is the engine's).
func (e *ffr3Elem) Potential(x *mech.Ctx) float64 {
	b := e.b
	s := b.state(x)
	S := b.s0
	for k := 0; k < b.m; k++ {
		S = mech.Add(S, mech.Scale(s.eta[k], b.sb[k]))
	}
	return b.strain(s.eta) - mech.Dot(b.g, mech.MulMV(&s.A, S))
}

// KineticCorrection returns ½ vᵀ (M(q) − M̄) v over the body's dofs.
func (e *ffr3Elem) KineticCorrection(x *mech.Ctx) float64 {
	b := e.b
	n := 6 + b.m
	s := b.state(x)
	var mq [(ffr3Max + 6) * (ffr3Max + 6)]float64
	b.massAt(&s.A, s.eta, mq[:n*n])
	var v [ffr3Max + 6]float64
	for i, d := range b.dofl {
		v[i] = x.V[d]
	}
	T := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			T += 0.5 * v[i] * (mq[i*n+j] - b.mbar[i*n+j]) * v[j]
		}
	}
	return T
}

// CoordNames names the elastic coordinates.
func (e *ffr3Elem) CoordNames(dst []string) {
	for j, nm := range e.b.coords {
		dst[e.b.ev+j] = nm
	}
}

// markerKin returns the world position and velocity of a marker, its
// elastic displacement and rotation in the body frame.
func (b *ffr3) markerKin(q, v []float64, mk *ffr3Marker) (p, vel, u, th mech.Vec3) {
	m := b.m
	eta := q[b.eq : b.eq+m]
	var ud mech.Vec3
	for i := 0; i < 3; i++ {
		for j := 0; j < m; j++ {
			u[i] += mk.tr[i*m+j] * eta[j]
			if mk.rot != nil {
				th[i] += mk.rot[i*m+j] * eta[j]
			}
			if v != nil {
				ud[i] += mk.tr[i*m+j] * v[b.ev+j]
			}
		}
	}
	var A mech.Mat3
	o := b.fq
	mech.QuatMatTo(&A, q[o+3], q[o+4], q[o+5], q[o+6])
	pl := mech.Add(mk.p0, u)
	ap := mech.MulMV(&A, pl)
	p = mech.Vec3{q[o] + ap[0], q[o+1] + ap[1], q[o+2] + ap[2]}
	if v != nil {
		w := mech.Vec3{v[b.fv+3], v[b.fv+4], v[b.fv+5]}
		lv := mech.Add(mech.Cross(w, pl), ud)
		av := mech.MulMV(&A, lv)
		vel = mech.Vec3{v[b.fv] + av[0], v[b.fv+1] + av[1], v[b.fv+2] + av[2]}
	}
	return p, vel, u, th
}

// ffr3Load is a point force or a torque at a node marker of an FFR body:
// components in the world, or (follower) in the body's frame. Its
// generalized forces are F on R, (p + u) × AᵀF on the rotation and
// T_trᵀ AᵀF on η (a torque: AᵀT on the rotation and T_rotᵀ AᵀT on η, the
// nodes' small rotations taken along). The engine takes its tangent by
// finite differences.
type ffr3Load struct {
	b        *ffr3
	name     string
	mk       *ffr3Marker
	c        [3]mech.Param
	torque   bool
	follower bool
}

func (e *ffr3Load) Dofs() []int                 { return e.b.dofl }
func (e *ffr3Load) NumericTangent() bool        { return true }
func (e *ffr3Load) Potential(*mech.Ctx) float64 { return 0 }
func (e *ffr3Load) Params() []*mech.Param {
	return []*mech.Param{&e.c[0], &e.c[1], &e.c[2]}
}

// world returns the load's world vector and the frame's rotation.
func (e *ffr3Load) world(x *mech.Ctx) (mech.Vec3, mech.Mat3) {
	var A mech.Mat3
	o := e.b.fq
	mech.QuatMatTo(&A, x.Q[o+3], x.Q[o+4], x.Q[o+5], x.Q[o+6])
	v := mech.Vec3{e.c[0].Get(x), e.c[1].Get(x), e.c[2].Get(x)}
	if e.follower {
		v = mech.MulMV(&A, v)
	}
	return v, A
}

func (e *ffr3Load) Eval(x *mech.Ctx, f, k, c []float64) {
	b := e.b
	m := b.m
	v, A := e.world(x)
	lv := mech.MulMTV(&A, v)
	if e.torque {
		for i := 0; i < 3; i++ {
			f[3+i] += lv[i]
		}
		for j := 0; j < m; j++ {
			f[6+j] += e.mk.rot[j]*lv[0] + e.mk.rot[m+j]*lv[1] + e.mk.rot[2*m+j]*lv[2]
		}
		return
	}
	_, _, u, _ := b.markerKin(x.Q, nil, e.mk)
	p := mech.Add(e.mk.p0, u)
	rt := mech.Cross(p, lv)
	for i := 0; i < 3; i++ {
		f[i] += v[i]
		f[3+i] += rt[i]
	}
	for j := 0; j < m; j++ {
		f[6+j] += e.mk.tr[j]*lv[0] + e.mk.tr[m+j]*lv[1] + e.mk.tr[2*m+j]*lv[2]
	}
}

// Channels lists the load's components (world).
func (e *ffr3Load) Channels(name string) []mech.ChannelInfo {
	q, u, what := "f", "N", "force"
	if e.torque {
		q, u, what = "t", "N*m", "torque"
	}
	var out []mech.ChannelInfo
	for _, a := range []string{"x", "y", "z"} {
		out = append(out, mech.ChannelInfo{Name: name + "." + q + a, Unit: u, Group: "force", Description: what + " " + name + " " + a + " component (world)"})
	}
	return out
}

// Channel evaluates component sub.
func (e *ffr3Load) Channel(x *mech.Ctx, sub int) float64 {
	v, _ := e.world(x)
	return v[sub]
}

// ffr3MarkerChannels is the number of channels of a marker.
const ffr3MarkerChannels = 12

// ffr3MarkerQty are the channels of an FFR body's node marker.
func ffr3MarkerQty() []chanQty {
	return []chanQty{
		{"x", "m", "position", "x position (world)"},
		{"y", "m", "position", "y position (world)"},
		{"z", "m", "position", "z position (world)"},
		{"vx", "m/s", "velocity", "x velocity (world)"},
		{"vy", "m/s", "velocity", "y velocity (world)"},
		{"vz", "m/s", "velocity", "z velocity (world)"},
		{"ux", "m", "position", "elastic displacement along the body frame's x"},
		{"uy", "m", "position", "elastic displacement along the body frame's y"},
		{"uz", "m", "position", "elastic displacement along the body frame's z"},
		{"rx", "rad", "angle", "elastic rotation about the body frame's x"},
		{"ry", "rad", "angle", "elastic rotation about the body frame's y"},
		{"rz", "rad", "angle", "elastic rotation about the body frame's z"},
	}
}

// Channels lists the body's strain energy, its node markers' and its
// drawing points' channels.
func (e *ffr3Elem) Channels(name string) []mech.ChannelInfo {
	out := []mech.ChannelInfo{energyChannel(name)}
	for _, a := range []string{"x", "y", "z"} {
		out = append(out, mech.ChannelInfo{Name: name + ".h" + a, Unit: "kg*m^2/s", Group: "momentum", Description: "angular momentum of " + name + " about its centre of mass, " + a + " (world)"})
	}
	for _, mk := range e.b.mk {
		out = markerChannels(out, name, mk.name, ffr3MarkerQty())
	}
	for i := range e.b.shape {
		p := name + ".s" + itoa(i)
		for _, a := range []string{"x", "y", "z"} {
			out = append(out, mech.ChannelInfo{Name: p + "." + a, Unit: "m", Group: "shape", Description: "beam " + name + " drawing point " + itoa(i) + ", " + a})
		}
	}
	return out
}

// Channel evaluates channel sub.
func (e *ffr3Elem) Channel(x *mech.Ctx, sub int) float64 {
	b := e.b
	if sub == 0 {
		return b.strain(x.Q[b.eq : b.eq+b.m])
	}
	if sub <= 3 {
		return b.momentum(x)[sub-1]
	}
	sub -= 4
	const nq = ffr3MarkerChannels
	if nm := nq * len(b.mk); sub >= nm {
		p, _, _, _ := b.markerKin(x.Q, nil, &b.shape[(sub-nm)/3])
		return p[(sub-nm)%3]
	}
	mk := &b.mk[sub/nq]
	p, v, u, th := b.markerKin(x.Q, x.V, mk)
	switch k := sub % nq; {
	case k < 3:
		return p[k]
	case k < 6:
		return v[k-3]
	case k < 9:
		return u[k-6]
	default:
		return th[k-9]
	}
}

// Draw draws a beam through its drawing points.
func (e *ffr3Elem) Draw(g *mech.Geometry) {
	if len(e.b.shape) == 0 {
		return
	}
	chains := e.b.chains
	if chains == nil {
		all := make([]int, len(e.b.shape))
		for i := range all {
			all[i] = i
		}
		chains = [][]int{all}
	}
	for _, ch := range chains {
		gb := mech.GeomBeam{Name: e.b.name}
		for _, i := range ch {
			p := e.b.name + ".s" + itoa(i)
			gb.NodeX = append(gb.NodeX, p+".x")
			gb.NodeY = append(gb.NodeY, p+".y")
			gb.NodeZ = append(gb.NodeZ, p+".z")
		}
		g.Beams = append(g.Beams, gb)
	}
}

// Reduction reports the FE model's frequencies before and after reduction.
func (e *ffr3Elem) Reduction() mech.Reduction {
	i := &e.b.info
	return mech.Reduction{Body: e.b.name, Source: i.source, Basis: i.basis, Dofs: i.dofs, Rigid: i.rigid, Full: i.full, Kept: i.reduced}
}

// momentum returns the angular momentum about the centre of mass (world):
// A (p_r − c × p_t), p = N ν, c = S/m the centre of mass in the frame.
func (b *ffr3) momentum(x *mech.Ctx) mech.Vec3 {
	m := b.m
	n := 6 + m
	s := b.state(x)
	var mq [(ffr3Max + 6) * (ffr3Max + 6)]float64
	var I mech.Mat3 = mech.Ident
	b.massAt(&I, s.eta, mq[:n*n]) // N (the rotation only turns the R rows)
	vb := mech.MulMTV(&s.A, s.vd)
	var nu [ffr3Max + 6]float64
	copy(nu[0:3], vb[:])
	copy(nu[3:6], s.om[:])
	copy(nu[6:n], s.etad)
	var p [6]float64
	for r := 0; r < 6; r++ {
		for j := 0; j < n; j++ {
			p[r] += mq[r*n+j] * nu[j]
		}
	}
	S := b.s0
	for k := 0; k < m; k++ {
		S = mech.Add(S, mech.Scale(s.eta[k], b.sb[k]))
	}
	c := mech.Scale(1/b.mass, S)
	h := mech.Sub(mech.Vec3{p[3], p[4], p[5]}, mech.Cross(c, mech.Vec3{p[0], p[1], p[2]}))
	return mech.MulMV(&s.A, h)
}

// MassCorrection writes M(q) − M̄ over the element's dofs
// (mech.MassCorrector).
func (e *ffr3Elem) MassCorrection(x *mech.Ctx, dm []float64) {
	b := e.b
	n := 6 + b.m
	var A mech.Mat3
	o := b.fq
	mech.QuatMatTo(&A, x.Q[o+3], x.Q[o+4], x.Q[o+5], x.Q[o+6])
	b.massAt(&A, x.Q[b.eq:b.eq+b.m], dm[:n*n])
	for i, v := range b.mbar {
		dm[i] -= v
	}
}
