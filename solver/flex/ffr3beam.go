package flex

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// The spatial floating-frame beam (<beam kind="ffr"> in a spatial model):
// a straight beam of 3D Euler–Bernoulli frame elements (axial u linear,
// torsion linear, bending in both planes cubic Hermite; consistent mass;
// nodes with u, v, w, θx, θy, θz, θy = −w', θz = v') clamped at a marker
// of a rigid body, whose frame is the floating frame (ffr3.go). The FE
// model is reduced (none, modal, second-order Krylov, Craig–Bampton:
// reduction.go); the body's inertia coupling comes from the invariants of
// its mass matrix. With coupling="stiffened" the elastic energy takes the
// von Kármán axial strain ε = u' + ½(v'² + w'²), the square slopes averaged
// over each element as the planar beam does (the axial force stiffens the
// bending: geometric stiffening of spinning beams).

// ffr3Beam is the elastic model of a spatial FFR beam.
type ffr3Beam struct {
	ne   int
	le   float64
	ea   float64
	R    mech.Mat3 // the beam's axes (columns) in the body frame
	v    []float64 // basis over the free dofs (nodes 1…ne, body frame), nf×m
	m    int
	gw   [16]float64  // ∫ H'ᵀH' dx over an element
	kbt  [144]float64 // bending and torsion stiffness of an element (local dofs)
	full bool
}

// frameElement returns the stiffness (without the axial part when
// axial is false) and consistent mass of a frame element along x, local
// dofs (u, v, w, θx, θy, θz) of both nodes.
func frameElement(l, ea, gj, eiy, eiz, rhoA, rhoJ float64, axial bool) (k, m [144]float64) {
	add := func(a *[144]float64, idx []int, blk []float64, s float64) {
		n := len(idx)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				a[idx[i]*12+idx[j]] += s * blk[i*n+j]
			}
		}
	}
	bar := []float64{1, -1, -1, 1}
	if axial {
		add(&k, []int{0, 6}, bar, ea/l)
	}
	add(&k, []int{3, 9}, bar, gj/l)
	add(&m, []int{0, 6}, []float64{2, 1, 1, 2}, rhoA*l/6)
	add(&m, []int{3, 9}, []float64{2, 1, 1, 2}, rhoJ*l/6)
	kb := []float64{12, 6 * l, -12, 6 * l, 6 * l, 4 * l * l, -6 * l, 2 * l * l, -12, -6 * l, 12, -6 * l, 6 * l, 2 * l * l, -6 * l, 4 * l * l}
	mb := []float64{156, 22 * l, 54, -13 * l, 22 * l, 4 * l * l, 13 * l, -3 * l * l, 54, 13 * l, 156, -22 * l, -13 * l, -3 * l * l, -22 * l, 4 * l * l}
	add(&k, []int{1, 5, 7, 11}, kb, eiz/(l*l*l))
	add(&m, []int{1, 5, 7, 11}, mb, rhoA*l/420)
	// x–z plane: (w, −θy)
	s := [4]float64{1, -1, 1, -1}
	kbs, mbs := make([]float64, 16), make([]float64, 16)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			kbs[i*4+j] = s[i] * s[j] * kb[i*4+j]
			mbs[i*4+j] = s[i] * s[j] * mb[i*4+j]
		}
	}
	add(&k, []int{2, 4, 8, 10}, kbs, eiy/(l*l*l))
	add(&m, []int{2, 4, 8, 10}, mbs, rhoA*l/420)
	return k, m
}

// element returns the body-frame values of element e's 12 local dofs at
// eta (zero at the clamped root).
func (fb *ffr3Beam) element(e int, eta []float64) (p [12]float64) {
	m := fb.m
	for s := 0; s < 2; s++ {
		node := e + s
		if node == 0 {
			continue
		}
		for a := 0; a < 6; a++ {
			row := fb.v[(6*(node-1)+a)*m : (6*(node-1)+a)*m+m]
			t := 0.0
			for j, v := range row {
				t += v * eta[j]
			}
			p[6*s+a] = t
		}
	}
	// to the beam's axes
	for s := 0; s < 4; s++ {
		v := mech.MulMTV(&fb.R, mech.Vec3{p[3*s], p[3*s+1], p[3*s+2]})
		copy(p[3*s:3*s+3], v[:])
	}
	return p
}

// internal adds −f_int(η) into fe (the elastic rows), its tangent into k
// (leading dimension ld, the elastic block at offset off) and returns the
// strain energy.
func (fb *ffr3Beam) internal(eta, fe, k []float64, ld, off int) float64 {
	m := fb.m
	le := fb.le
	U := 0.0
	var kv [12 * ffr3Max]float64
	for e := 0; e < fb.ne; e++ {
		p := fb.element(e, eta)
		v := [4]float64{p[1], p[5], p[7], p[11]}
		w := [4]float64{p[2], -p[4], p[8], -p[10]}
		var gv, gw [4]float64
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				gv[i] += fb.gw[4*i+j] * v[j]
				gw[i] += fb.gw[4*i+j] * w[j]
			}
		}
		eps := (p[6]-p[0])/le + 0.5*(gv[0]*v[0]+gv[1]*v[1]+gv[2]*v[2]+gv[3]*v[3]+gw[0]*w[0]+gw[1]*w[1]+gw[2]*w[2]+gw[3]*w[3])/le
		nf := fb.ea * eps
		var de [12]float64
		de[0], de[6] = -1/le, 1/le
		vi := [4]int{1, 5, 7, 11}
		wi := [4]int{2, 4, 8, 10}
		ws := [4]float64{1, -1, 1, -1}
		for i := 0; i < 4; i++ {
			de[vi[i]] = gv[i] / le
			de[wi[i]] = ws[i] * gw[i] / le
		}
		var fl [12]float64
		var kl [144]float64
		U += 0.5 * fb.ea * le * eps * eps
		for a := 0; a < 12; a++ {
			fl[a] = nf * le * de[a]
			t := 0.0
			for c := 0; c < 12; c++ {
				t += fb.kbt[a*12+c] * p[c]
			}
			fl[a] += t
			U += 0.5 * p[a] * t
		}
		if k != nil {
			for a := 0; a < 12; a++ {
				for c := 0; c < 12; c++ {
					kl[a*12+c] = fb.ea*le*de[a]*de[c] + fb.kbt[a*12+c]
				}
			}
			for i := 0; i < 4; i++ {
				for j := 0; j < 4; j++ {
					kl[vi[i]*12+vi[j]] += nf * fb.gw[4*i+j]
					kl[wi[i]*12+wi[j]] += nf * ws[i] * ws[j] * fb.gw[4*i+j]
				}
			}
		}
		// to the body frame: f_b = T f_l, K_b = T K_l Tᵀ
		for s := 0; s < 4; s++ {
			v := mech.MulMV(&fb.R, mech.Vec3{fl[3*s], fl[3*s+1], fl[3*s+2]})
			copy(fl[3*s:3*s+3], v[:])
		}
		if k != nil {
			var tk [144]float64
			for a := 0; a < 12; a++ {
				for c := 0; c < 12; c++ {
					// (T K)_ac = Σ_b T_ab K_bc, T block diagonal
					sa := a / 3 * 3
					t := 0.0
					for b := 0; b < 3; b++ {
						t += fb.R[3*(a%3)+b] * kl[(sa+b)*12+c]
					}
					tk[a*12+c] = t
				}
			}
			for a := 0; a < 12; a++ {
				for c := 0; c < 12; c++ {
					sc := c / 3 * 3
					t := 0.0
					for b := 0; b < 3; b++ {
						t += tk[a*12+sc+b] * fb.R[3*(c%3)+b]
					}
					kl[a*12+c] = t
				}
			}
		}
		// project: fe −= V_eᵀ f_b, K += V_eᵀ K_b V_e
		rows := func(a int) []float64 {
			node := e + a/6
			if node == 0 {
				return nil
			}
			r := 6*(node-1) + a%6
			return fb.v[r*m : r*m+m]
		}
		for a := 0; a < 12; a++ {
			if vr := rows(a); vr != nil {
				for j := 0; j < m; j++ {
					fe[j] -= vr[j] * fl[a]
				}
			}
		}
		if k == nil {
			continue
		}
		for a := 0; a < 12; a++ {
			kva := kv[a*m : a*m+m]
			clear(kva)
			for c := 0; c < 12; c++ {
				vr := rows(c)
				if vr == nil || kl[a*12+c] == 0 {
					continue
				}
				kac := kl[a*12+c]
				for j := 0; j < m; j++ {
					kva[j] += kac * vr[j]
				}
			}
		}
		for a := 0; a < 12; a++ {
			vr := rows(a)
			if vr == nil {
				continue
			}
			kva := kv[a*m : a*m+m]
			for i := 0; i < m; i++ {
				if vr[i] == 0 {
					continue
				}
				kr := k[(off+i)*ld+off : (off+i)*ld+off+m]
				for j := 0; j < m; j++ {
					kr[j] += vr[i] * kva[j]
				}
			}
		}
	}
	return U
}

// shapeAt returns a beam station's undeformed position (body frame, from
// the body's centre of mass) and the translations and rotations of the
// basis there (3×m each).
func (fb *ffr3Beam) shapeAt(root mech.Vec3, s float64, m int) ffr3Marker {
	e := int(math.Min(math.Floor(s/fb.le), float64(fb.ne-1)))
	xi := s/fb.le - float64(e)
	h, hd, _ := hermite(xi, fb.le)
	mk := ffr3Marker{p0: mech.Add(root, mech.MulMV(&fb.R, mech.Vec3{s, 0, 0})), tr: make([]float64, 3*m), rot: make([]float64, 3*m), hasRot: true}
	eta := make([]float64, m)
	for j := 0; j < m; j++ {
		clear(eta)
		eta[j] = 1
		p := fb.element(e, eta)
		v := [4]float64{p[1], p[5], p[7], p[11]}
		w := [4]float64{p[2], -p[4], p[8], -p[10]}
		var u, th mech.Vec3
		u[0] = (1-xi)*p[0] + xi*p[6]
		th[0] = (1-xi)*p[3] + xi*p[9]
		for i := 0; i < 4; i++ {
			u[1] += h[i] * v[i]
			u[2] += h[i] * w[i]
			th[2] += hd[i] * v[i]
			th[1] -= hd[i] * w[i]
		}
		ub, tb := mech.MulMV(&fb.R, u), mech.MulMV(&fb.R, th)
		for a := 0; a < 3; a++ {
			mk.tr[a*m+j] = ub[a]
			mk.rot[a*m+j] = tb[a]
		}
	}
	return mk
}

// ffr3ShapePoints is the number of points drawn along a spatial FFR beam.
const ffr3ShapePoints = 17

func (fx *flexCompiler) compileFFR3(bs *spec.Beam) {
	b := fx.b
	if b.Integrator() == "rk4" {
		b.Errorf(bs.Pos, "kind", "ffr beam %q needs an implicit integrator (its inertia coupling is solved with the Newton iteration); rk4 is not supported", bs.Name)
		return
	}
	for _, f := range []string{"at", "x-axis", "y-axis", "velocity", "omega", "j", "radius", "bend-axis", "shear-factor", "shear-stiffness"} {
		key := f
		if _, ok := bs.Attr[f+".x"]; ok {
			key = f + ".x"
		}
		if _, ok := bs.Attr[key]; ok {
			b.Errorf(attr(bs, key).Pos, f, "ffr beam %q: %s does not apply (the beam starts at its marker i along the marker's x axis, moves with its body, and has no shear: Euler–Bernoulli)", bs.Name, f)
		}
	}
	L := fx.positive(bs, "length", "m")
	ne := fx.count(bs, "elements", 10)
	cn, cm, mu, rot := fx.rodSection(bs)
	beta := fx.nonNegative(bs, "damping", 0, "s")
	ie := attr(bs, "i")
	if !ie.Given() {
		b.Errorf(bs.Pos, "i", "ffr beam %q needs i: the marker of the rigid body its root is clamped to (the floating frame)", bs.Name)
		return
	}
	mk, ok := b.Marker(ie.Src, ie.Pos, "i")
	if !ok {
		return
	}
	if mk.F.Body < 0 {
		b.Errorf(ie.Pos, "i", "ffr beam %q must be clamped to a rigid body (its floating frame), not to the ground; fix a body to the ground if it should not move", bs.Name)
		return
	}
	bi := b.BodyInfo(mk.F.Body)
	if bi.Node {
		b.Errorf(ie.Pos, "i", "ffr beam %q: marker i must be on a rigid body, not on a beam's node", bs.Name)
		return
	}
	if 6*ne > feDenseMax {
		b.Errorf(attr(bs, "elements").Pos, "elements", "ffr beam %q: %d elements make %d FE coordinates; the beam's reduction is dense and takes at most %d (%d elements)", bs.Name, ne, 6*ne, feDenseMax, feDenseMax/6)
		return
	}
	if nm := fx.count(bs, "modes", 5); nm > ffr3Max {
		b.Errorf(attr(bs, "modes").Pos, "modes", "ffr beam %q: %d modes; at most %d elastic coordinates", bs.Name, nm, ffr3Max)
		return
	}
	le := L / float64(ne)
	fb := &ffr3Beam{ne: ne, le: le, ea: cn[0], R: mk.F.R}
	kl, ml := frameElement(le, cn[0], cm[0], cm[1], cm[2], mu, rot[0], true)
	fb.kbt, _ = frameElement(le, cn[0], cm[0], cm[1], cm[2], mu, rot[0], false)
	xg, wg := gauss5()
	for g := range xg {
		_, d, _ := hermite(0.5*(xg[g]+1), le)
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				fb.gw[4*i+j] += 0.5 * le * wg[g] * d[i] * d[j]
			}
		}
	}
	// assemble in the body frame: all nodes (the mass), free nodes 1…ne
	nn := ne + 1
	n := 6 * nn
	T := func(a *[144]float64) [144]float64 {
		var out [144]float64
		for i := 0; i < 12; i++ {
			for j := 0; j < 12; j++ {
				t := 0.0
				for p := 0; p < 3; p++ {
					for q := 0; q < 3; q++ {
						t += fb.R[3*(i%3)+p] * a[(i/3*3+p)*12+j/3*3+q] * fb.R[3*(j%3)+q]
					}
				}
				out[i*12+j] = t
			}
		}
		return out
	}
	kb, mb := T(&kl), T(&ml)
	var Ment []feEntry
	nf := n - 6
	Mf, Kf := make([]float64, nf*nf), make([]float64, nf*nf)
	for e := 0; e < ne; e++ {
		for i := 0; i < 12; i++ {
			for j := 0; j < 12; j++ {
				gi, gj := 6*e+i, 6*e+j
				if v := mb[i*12+j]; v != 0 {
					Ment = append(Ment, feEntry{gi, gj, v})
				}
				if gi >= 6 && gj >= 6 {
					Mf[(gi-6)*nf+gj-6] += mb[i*12+j]
					Kf[(gi-6)*nf+gj-6] += kb[i*12+j]
				}
			}
		}
	}
	dofs := make([][2]int, n)
	pos := make([]mech.Vec3, nn)
	for k := 0; k < nn; k++ {
		pos[k] = mech.Add(mk.F.S, mech.MulMV(&fb.R, mech.Vec3{float64(k) * le, 0, 0}))
		for a := 0; a < 6; a++ {
			dofs[6*k+a] = [2]int{k, a}
		}
	}
	// the basis
	info := ffr3Info{source: "beam", dofs: nf, basis: word(bs, "reduction", "none")}
	nm := fx.count(bs, "modes", 5)
	markers := fx.beamMarkers(bs, L)
	var W []float64
	w := 0
	var err error
	switch info.basis {
	case "none", "full":
		info.basis = "none"
		if nf > ffr3Max {
			b.Errorf(attr(bs, "elements").Pos, "elements", "ffr beam %q has %d elastic coordinates unreduced; at most %d (use fewer elements or a reduction)", bs.Name, nf, ffr3Max)
			return
		}
		W, w = make([]float64, nf*nf), nf
		for i := 0; i < nf; i++ {
			W[i*nf+i] = 1
		}
	case "modal":
		W, _, err = modalBasis(Mf, Kf, nf, nm)
		w = nm
	case "krylov":
		sigma := b.Const(attr(bs, "sigma"), 0)
		if sigma < 0 {
			b.Errorf(attr(bs, "sigma").Pos, "sigma", "sigma must not be negative, got %g rad/s", sigma)
			sigma = 0
		}
		dirs := []int{1, 2, 0} // the tip's transverse forces, then the axial one
		switch in := word(bs, "krylov-input", "both"); in {
		case "both":
		case "transverse":
			dirs = dirs[:2]
		default:
			b.Errorf(attr(bs, "krylov-input").Pos, "krylov-input", "krylov-input must be both or transverse, got %q", in)
			return
		}
		B := make([]float64, nf*len(dirs))
		for c, d := range dirs {
			for a := 0; a < 3; a++ {
				B[(nf-6+a)*len(dirs)+c] = fb.R[3*a+d]
			}
		}
		W, err = krylovBasis(Mf, Kf, nf, B, len(dirs), sigma, nm)
		w = nm
	case "craig-bampton":
		bn := map[int]bool{ne: true}
		for _, mk := range markers {
			if k := int(math.Round(mk.s / le)); k > 0 && math.Abs(mk.s-float64(k)*le) < 1e-9*L {
				bn[k] = true
			}
		}
		var bnd []int
		for k := 1; k <= ne; k++ {
			if bn[k] {
				for a := 0; a < 6; a++ {
					bnd = append(bnd, 6*(k-1)+a)
				}
			}
		}
		if nm > nf-len(bnd) {
			b.Errorf(attr(bs, "modes").Pos, "modes", "beam %q: %d fixed-interface modes asked, only %d interior coordinates", bs.Name, nm, nf-len(bnd))
			return
		}
		W, err = craigBamptonBasis(Mf, Kf, nf, bnd, nm)
		w = len(bnd) + nm
		if err == nil && word(bs, "coupling", "stiffened") == "stiffened" {
			// the stiffened coupling needs axial shapes that follow the
			// foreshortening: the Krylov sequence of the tip's axial force
			// (as many as the fixed-interface modes, at most one per
			// element: the axial dofs span no more) joins the basis
			B := make([]float64, nf)
			for a := 0; a < 3; a++ {
				B[nf-6+a] = fb.R[3*a]
			}
			var ax []float64
			if ax, err = krylovBasis(Mf, Kf, nf, B, 1, 0, min(nm, nf-w, ne)); err == nil {
				na := len(ax) / nf
				W2 := make([]float64, nf*(w+na))
				for i := 0; i < nf; i++ {
					copy(W2[i*(w+na):], W[i*w:i*w+w])
					copy(W2[i*(w+na)+w:], ax[i*na:i*na+na])
				}
				W, w = W2, w+na
			}
		}
	default:
		b.Errorf(attr(bs, "reduction").Pos, "reduction", "reduction must be none, modal, krylov or craig-bampton, got %q", info.basis)
		return
	}
	if err == nil && w > ffr3Max {
		err = fmt.Errorf("%d elastic coordinates; at most %d", w, ffr3Max)
	}
	if err != nil {
		b.Errorf(attr(bs, "reduction").Pos, "reduction", "beam %q: %v", bs.Name, err)
		return
	}
	V, m, reduced, err := finishBasis(W, denseOp(Mf, nf), denseOp(Kf, nf), nf, w, nil, 0)
	if err != nil {
		b.Errorf(attr(bs, "reduction").Pos, "reduction", "beam %q: %v", bs.Name, err)
		return
	}
	info.reduced = reduced
	if vals, _, err := genEigen(Mf, Kf, nf); err == nil {
		for j := 0; j < nf && j < max(2*m, m+10); j++ {
			info.full = append(info.full, freq(vals[j]))
		}
	}
	fb.v, fb.m = V, m
	Vf := make([]float64, n*m)
	copy(Vf[6*m:], V)
	body := &ffr3{name: bs.Name, m: m, g: b.Gravity(), info: info, beta: beta, body: mk.F.Body, fq: mk.F.Q, fv: mk.F.V}
	setInvariants(body, Ment, dofs, pos, Vf, n)
	body.kff = make([]float64, m*m)
	KV := denseMul(Kf, V, nf, m)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			body.kff[i*m+j] = dotCols(V, KV, m, i, j, nf)
		}
	}
	symm(body.kff, m)
	switch cp := word(bs, "coupling", "stiffened"); cp {
	case "stiffened":
		// the axial strain u' + ½(v'² + w'²) needs axial shapes that
		// follow the foreshortening; bending modes and constraint modes
		// have none, and the beam locks (a spun-up beam 8× too stiff)
		if in := word(bs, "krylov-input", "both"); info.basis == "modal" || (info.basis == "krylov" && in != "both") {
			b.Errorf(attr(bs, "coupling").Pos, "coupling", "ffr beam %q: the stiffened coupling needs axial shapes: reduction=\"krylov\" with krylov-input=\"both\", \"craig-bampton\" (which adds them) or no reduction; a %s basis lacks them and would lock the beam, too stiff by far. Use coupling=\"zero-order\" well below the first bending frequency", bs.Name, info.basis)
		}
		body.elastic = fb
		if info.basis == "krylov" || info.basis == "craig-bampton" {
			// Wu–Haug's slewing beam: 22 % lost with 8 vectors (tip
			// 30 % too small), 2.1 % with 12 (1.5 %), 0.34 % with 20 (0.1 %)
			if lost := fb.foreshortening(V, m); lost > 0.05 {
				b.Errorf(attr(bs, "modes").Pos, "modes", "ffr beam %q: the basis of %d Krylov vectors cannot carry %.0f %% of the foreshortening of its lowest bending shape, and the stiffened coupling would charge it as stretch (locking: the beam too stiff by up to several times): use more vectors, or no reduction", bs.Name, m, 100*lost)
			}
		}
	case "zero-order":
	default:
		b.Errorf(attr(bs, "coupling").Pos, "coupling", "coupling must be zero-order or stiffened, got %q", cp)
	}
	body.eq = len(b.Q0())
	body.ev = b.Grow(m)
	body.dofl = make([]int, 6+m)
	for j := 0; j < 6; j++ {
		body.dofl[j] = body.fv + j
	}
	for j := 0; j < m; j++ {
		body.dofl[6+j] = body.ev + j
		// (modal coordinates even unreduced: the basis is turned to the
		// FE model's eigenvectors)
		body.coords = append(body.coords, bs.Name+".q"+itoa(j+1))
	}
	for _, fm := range markers {
		sm := fb.shapeAt(mk.F.S, fm.s, m)
		sm.name = fm.name
		body.mk = append(body.mk, sm)
	}
	for i := 0; i < ffr3ShapePoints; i++ {
		body.shape = append(body.shape, fb.shapeAt(mk.F.S, L*float64(i)/(ffr3ShapePoints-1), m))
	}
	n6 := 6 + m
	body.mbar = make([]float64, n6*n6)
	q0 := b.Q0()
	var A0 mech.Mat3
	mech.QuatMatTo(&A0, q0[body.fq+3], q0[body.fq+4], q0[body.fq+5], q0[body.fq+6])
	body.massAt(&A0, make([]float64, m), body.mbar)
	b.AddMassBlock(body.dofl, body.mbar)
	for c := 0; c < 3; c++ {
		b.AddGravity(body.fv+c, body.mass*body.g[c])
	}
	fx.ffr3[bs.Name] = body
	b.AddForce(bs.Name, &ffr3Elem{b: body})
}

// ffrBeamRef reports whether ref names a marker of a spatial ffr beam.
func ffrBeamRef(ms *spec.Model, ref string) bool {
	name, _, ok := strings.Cut(ref, ".")
	if !ok {
		return false
	}
	for i := range ms.Beams {
		if ms.Beams[i].Name == name && ms.Beams[i].Kind == "ffr" {
			return true
		}
	}
	return false
}

// foreshortening returns, for the lowest bending shape of the basis, the
// relative part of its foreshortening that the basis cannot carry: the axial field u_f with u_f' = −½(v'² + w'²) (element-averaged,
// from the clamped root), fitted by the basis in the axial strain energy;
// the part left over is strain the stiffened coupling charges as if the
// beam stretched (locking).
func (fb *ffr3Beam) foreshortening(V []float64, m int) float64 {
	ne, le := fb.ne, fb.le
	// element axial strains of a basis column (local axial displacements)
	axial := func(col func(i int) float64) []float64 {
		eps := make([]float64, ne)
		for e := 0; e < ne; e++ {
			var ua, ub float64
			for s, u := range []*float64{&ua, &ub} {
				node := e + s
				if node == 0 {
					continue
				}
				v := mech.Vec3{col(6 * (node - 1)), col(6*(node-1) + 1), col(6*(node-1) + 2)}
				*u = mech.MulMTV(&fb.R, v)[0]
			}
			eps[e] = (ub - ua) / le
		}
		return eps
	}
	// E V: the columns' axial strains
	EV := make([][]float64, m)
	for j := 0; j < m; j++ {
		EV[j] = axial(func(i int) float64 { return fb.v[i*m+j] })
	}
	worst := 0.0
	checked := 0
	eta := make([]float64, m)
	for j := 0; j < m && checked < 1; j++ {
		clear(eta)
		eta[j] = 1
		// the shape's foreshortening strain, element by element
		ef := make([]float64, ne)
		bend := 0.0
		for e := 0; e < ne; e++ {
			p := fb.element(e, eta)
			v := [4]float64{p[1], p[5], p[7], p[11]}
			w := [4]float64{p[2], -p[4], p[8], -p[10]}
			q := 0.0
			for a := 0; a < 4; a++ {
				for b := 0; b < 4; b++ {
					q += fb.gw[4*a+b] * (v[a]*v[b] + w[a]*w[b])
				}
			}
			ef[e] = -0.5 * q / le
			bend += q
		}
		norm := dotv(ef, ef)
		if !(norm > 0) || bend == 0 {
			continue // an axial or torsional shape
		}
		checked++
		worst = math.Max(worst, fitResidual(EV, ef))
	}
	return worst
}

// fitResidual returns the relative residual of the least-squares fit of
// ef by the columns EV (normal equations, lightly regularized: columns may
// be zero): ‖ef − Σ c_k EV_k‖ / ‖ef‖ (1 when the fit fails).
func fitResidual(EV [][]float64, ef []float64) float64 {
	m := len(EV)
	norm := dotv(ef, ef)
	A := make([]float64, m*m)
	rhs := make([]float64, m)
	tr := 0.0
	for a := 0; a < m; a++ {
		for b := 0; b < m; b++ {
			A[a*m+b] = dotv(EV[a], EV[b])
		}
		rhs[a] = dotv(EV[a], ef)
		tr += A[a*m+a]
	}
	for a := 0; a < m; a++ {
		A[a*m+a] += 1e-12*tr/float64(m) + 1e-300
	}
	c, err := solveSPD(A, rhs, m)
	if err != nil {
		return 1
	}
	res := append([]float64(nil), ef...)
	for k := 0; k < m; k++ {
		for e := range res {
			res[e] -= c[k] * EV[k][e]
		}
	}
	return math.Sqrt(dotv(res, res) / norm)
}

// solveSPD solves A x = b for a symmetric positive definite n×n A.
func solveSPD(A, b []float64, n int) ([]float64, error) {
	var ch mat.Cholesky
	if !ch.Factorize(symDense(A, n)) {
		return nil, fmt.Errorf("not positive definite")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
		return nil, err
	}
	return x.RawVector().Data, nil
}
