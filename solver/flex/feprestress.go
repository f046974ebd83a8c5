package flex

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Geometric stiffening of imported FE bodies (<fe-body><prestress>).
//
// A spinning or accelerated body is stressed by its own inertia, and the
// stress stiffens it (the geometric or initial-stress stiffness K_σ: a
// rotor blade's bending frequencies rise with the speed). M and K alone do
// not carry it; the FE program does: the stiffness it exports for the
// model prestressed by a known load (Abaqus *MATRIX GENERATE in a
// perturbation step after a preload step, ANSYS with PSTRES) is K + K_σ.
// K_σ is linear in the stress, and the quasi-static stress of the frame's
// inertia loads is linear in twelve numbers (the "standard input data" of
// Wallrapp 1994, SIMPACK's geometric stiffness terms): the six products
// ω_i ω_j of the angular velocity, the frame's acceleration less gravity
// a − g and its angular acceleration α, all in the FE model's axes and
// about its origin. So
//
//	K_σ = Σ_{i≤j} ω_i ω_j G_ij + Σ_i (a − g)_i G_a,i + Σ_i α_i G_α,i,
//
// each generator G reduced once onto the basis (Vᵀ (K_pre − K) V over the
// load's magnitude), and the elastic coordinates take −K_σ η. Each
// <prestress> gives one generator: a spin about one axis (G_ii), about
// the diagonal of two (G_ij, with both G_ii and G_jj given), an
// acceleration or angular acceleration along one axis. Loads whose
// generator is not given do not stiffen the body (the stiffness of M and K
// alone). The load stiffness of the spin (spin softening) is the inertia's
// (centrifugal terms of the FFR equations) and must not be in the files.

// fePrestress is one <prestress> as read: its stiffness file and matrix.
type fePrestress struct {
	key  string // "prestress.I"
	path string
	pos  spec.Pos
	K    []feEntry
}

// ffr3Prestress holds the reduced generators of an FE body's geometric
// stiffness (m×m, nil where not given): 0–5 the ω products xx, yy, zz,
// xy, yz, xz; 6–8 the acceleration less gravity; 9–11 the angular
// acceleration.
type ffr3Prestress struct {
	g  [12][]float64
	po mech.Vec3 // the FE model's origin in the body frame
}

// prestressFiles lists the <prestress> children of an fe-body in their
// order.
func prestressFiles(bs *spec.Beam) []fePrestress {
	var out []fePrestress
	for i := 1; ; i++ {
		key := "prestress." + strconv.Itoa(i)
		if _, ok := bs.Attr[key]; !ok {
			return out
		}
		path, pos, _ := feFile(bs, key) // path "": refused by readFE
		out = append(out, fePrestress{key: key, path: path, pos: pos})
	}
}

// prestressCoeffs returns the twelve load numbers of a body-frame state:
// angular velocity om, angular acceleration al, the frame's acceleration
// (body axes) ab and gravity gb, about the FE origin po.
func prestressCoeffs(om, al, ab, gb, po mech.Vec3) (c [12]float64) {
	c[0], c[1], c[2] = om[0]*om[0], om[1]*om[1], om[2]*om[2]
	c[3], c[4], c[5] = om[0]*om[1], om[1]*om[2], om[0]*om[2]
	ao := mech.Add(ab, mech.Add(mech.Cross(al, po), mech.Cross(om, mech.Cross(om, po))))
	e := mech.Sub(ao, gb)
	copy(c[6:9], e[:])
	copy(c[9:12], al[:])
	return c
}

// fePrestress reads the body's <prestress> loads and reduces their
// generators onto the basis Vf (n × m over all dofs); po is the FE
// model's origin in the body frame. It reports an error and returns false
// on a bad load.
func (fx *flexCompiler) fePrestress(bs *spec.Beam, d *feData, Vf []float64, body *ffr3, po mech.Vec3) bool {
	if len(d.pre) == 0 {
		return true
	}
	b := fx.b
	m, n := body.m, len(d.dofs)
	ps := &ffr3Prestress{po: po}
	type cross struct {
		i, j   int
		wi, wj float64
		dk     []float64
		pos    spec.Pos
	}
	var crosses []cross
	src := map[int]spec.Pos{}
	put := func(k int, g []float64, pos spec.Pos, what string) bool {
		if p, dup := src[k]; dup {
			b.Errorf(pos, "prestress", "fe-body %q: a second <prestress> for %s (the first on line %d)", bs.Name, what, p.Line)
			return false
		}
		src[k] = pos
		ps.g[k] = g
		return true
	}
	axis := "xyz"
	for _, pr := range d.pre {
		idx := strings.TrimPrefix(pr.key, "prestress.")
		var loads []int
		var vals [3]mech.Vec3
		for k, load := range spec.PrestressLoads() {
			if v, given := fx.vec(bs, "prestress-"+load+"."+idx, mech.Vec3{}); given {
				loads = append(loads, k)
				vals[k] = v
			}
		}
		if len(loads) != 1 {
			b.Errorf(pr.pos, "prestress", "fe-body %q: a <prestress> names the one load that prestressed the FE model: omega, acceleration or angular-acceleration (got %d)", bs.Name, len(loads))
			return false
		}
		kind, v := loads[0], vals[loads[0]]
		var nz []int
		big := math.Max(math.Abs(v[0]), math.Max(math.Abs(v[1]), math.Abs(v[2])))
		for c := 0; c < 3; c++ {
			if math.Abs(v[c]) > 1e-12*big {
				nz = append(nz, c)
			}
		}
		// the reduced change of stiffness
		dk := gramCols(Vf, spmmAcc(pr.K, Vf, m, n), m, n)
		symm(dk, m)
		for i := range dk {
			dk[i] -= body.kff[i]
		}
		name := spec.PrestressLoads()[kind]
		switch {
		case len(nz) == 0:
			b.Errorf(pr.pos, name, "fe-body %q: the <prestress> load %s is zero: give the load the FE model was prestressed with", bs.Name, name)
			return false
		case kind == 0 && len(nz) == 2:
			crosses = append(crosses, cross{nz[0], nz[1], v[nz[0]], v[nz[1]], dk, pr.pos})
			continue
		case len(nz) != 1:
			b.Errorf(pr.pos, name, "fe-body %q: a <prestress> %s must lie along one axis of the FE model (a spin also about the diagonal of two), got (%g, %g, %g)", bs.Name, name, v[0], v[1], v[2])
			return false
		}
		c := nz[0]
		scale := v[c]
		k := 6 + c
		what := "an acceleration along " + axis[c:c+1]
		switch kind {
		case 0:
			scale, k, what = v[c]*v[c], c, "a spin about "+axis[c:c+1]
		case 2:
			k, what = 9+c, "an angular acceleration about "+axis[c:c+1]
		}
		for i := range dk {
			dk[i] /= scale
		}
		if !put(k, dk, pr.pos, what) {
			return false
		}
	}
	// spins about a diagonal: G_ij = (ΔK − ω_i² G_ii − ω_j² G_jj)/(ω_i ω_j)
	for _, x := range crosses {
		gi, gj := ps.g[x.i], ps.g[x.j]
		if gi == nil || gj == nil {
			b.Errorf(x.pos, "omega", "fe-body %q: a <prestress> spin about the diagonal of %c and %c gives the coupling of the two spins; it needs the spins about %c and about %c too", bs.Name, axis[x.i], axis[x.j], axis[x.i], axis[x.j])
			return false
		}
		g := make([]float64, m*m)
		for i := range g {
			g[i] = (x.dk[i] - x.wi*x.wi*gi[i] - x.wj*x.wj*gj[i]) / (x.wi * x.wj)
		}
		k := map[[2]int]int{{0, 1}: 3, {1, 2}: 4, {0, 2}: 5}[[2]int{x.i, x.j}]
		if !put(k, g, x.pos, fmt.Sprintf("a spin about the diagonal of %c and %c", axis[x.i], axis[x.j])) {
			return false
		}
	}
	body.pre = ps
	return true
}

// stiffen adds the geometric stiffness of the body's prestress at the
// state: −K_σ η to the elastic rows of f, K_σ and the load numbers'
// dependence on ω, α and R̈ to the tangents (n = 6 + m; ca the
// acceleration coupling) and on the frame's rotation (R̈ − g in the
// body axes).
func (b *ffr3) stiffen(s *ffr3State, w *ffr3Terms, f, k, c []float64, n int, ca float64) {
	p := b.pre
	m := b.m
	coef := prestressCoeffs(w.om, w.omd, w.rb, w.gb, p.po)
	var h [12][ffr3Max]float64 // G_i η
	for i, g := range p.g {
		if g == nil {
			continue
		}
		for r := 0; r < m; r++ {
			row := g[r*m : r*m+m]
			v := 0.0
			for j := 0; j < m; j++ {
				v += row[j] * s.eta[j]
			}
			h[i][r] = v
			f[6+r] -= coef[i] * v
			if k != nil {
				kr := k[(6+r)*n+6 : (6+r)*n+n]
				for j := 0; j < m; j++ {
					kr[j] += coef[i] * row[j]
				}
			}
		}
	}
	if k == nil {
		return
	}
	// ∂coef/∂ω (3 columns), ∂coef/∂α, ∂coef/∂R̈ (world)
	om, po := w.om, p.po
	var dw, da, dr [12]mech.Vec3
	dw[0], dw[1], dw[2] = mech.Vec3{2 * om[0]}, mech.Vec3{0, 2 * om[1]}, mech.Vec3{0, 0, 2 * om[2]}
	dw[3], dw[4], dw[5] = mech.Vec3{om[1], om[0]}, mech.Vec3{0, om[2], om[1]}, mech.Vec3{om[2], 0, om[0]}
	// ω×(ω×p) = ω (ω·p) − p |ω|²: ∂/∂ω = (ω·p) I + ω pᵀ − 2 p ωᵀ
	wp := mech.Dot(om, po)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			v := om[i]*po[j] - 2*po[i]*om[j]
			if i == j {
				v += wp
			}
			dw[6+i][j] = v
		}
	}
	// α × p: ∂/∂α = −[p]×
	px := mech.Skew(po)
	// Aᵀ(R̈ − g) as the frame turns, A → A(I + [δθ]×): ∂/∂δθ = [Aᵀ(R̈ − g)]×
	var dq [12]mech.Vec3
	rgx := mech.Skew(mech.Sub(w.rb, w.gb))
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			da[6+i][j] = -px[3*i+j]
			dr[6+i][j] = s.A[3*j+i] // rb = Aᵀ R̈
			dq[6+i][j] = rgx[3*i+j]
		}
		da[9+i][i] = 1
	}
	for i := range p.g {
		if p.g[i] == nil {
			continue
		}
		for r := 0; r < m; r++ {
			hv := h[i][r]
			if hv == 0 {
				continue
			}
			row := (6 + r) * n
			for j := 0; j < 3; j++ {
				k[row+3+j] += hv * dq[i][j]
				if c != nil {
					c[row+3+j] += hv * dw[i][j]
				}
				if ca != 0 {
					k[row+3+j] += ca * hv * da[i][j]
					k[row+j] += ca * hv * dr[i][j]
				}
			}
		}
	}
}
