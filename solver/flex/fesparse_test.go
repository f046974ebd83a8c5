package flex

// Tests of the sparse Craig–Bampton reduction of large fe-bodies
// (feBasisSparse, craigBamptonSparse): the same mathematics as the dense
// path (feBasis, craigBamptonBasis) on a generated 3D frame, and the
// fixed-interface frequencies of a clamped beam beyond feDenseMax free
// dofs against the closed forms of the continuous beam.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// feSection is a beam section for the generated FE models: Young's and
// shear moduli (Pa), density (kg/m³), area (m²), second moments about the
// element's y and z axes and torsion constant (m⁴).
type feSection struct{ E, G, rho, A, Iy, Iz, J float64 }

// feTestFrame is a frame of 3D Euler–Bernoulli beam elements (6 dofs per
// node in node order: ux uy uz rx ry rz; consistent mass, the torsional
// inertia ρ(I_y + I_z) l) for tests; K and M by (row, column), both
// triangles.
type feTestFrame struct {
	pos  []mech.Vec3
	K, M map[[2]int]float64
}

func newFETestFrame() *feTestFrame {
	return &feTestFrame{K: map[[2]int]float64{}, M: map[[2]int]float64{}}
}

// node adds a node and returns its index.
func (f *feTestFrame) node(p mech.Vec3) int {
	f.pos = append(f.pos, p)
	return len(f.pos) - 1
}

// member joins nodes a and b with ns elements (ns − 1 new nodes between).
func (f *feTestFrame) member(a, b, ns int, s feSection) {
	prev := a
	for k := 1; k <= ns; k++ {
		next := b
		if k < ns {
			next = f.node(mech.Add(f.pos[a], mech.Scale(float64(k)/float64(ns), mech.Sub(f.pos[b], f.pos[a]))))
		}
		f.element(prev, next, s)
		prev = next
	}
}

// element adds one beam element from node a to node b: its local y axis
// is the global z (global y for an element along z) made orthogonal.
func (f *feTestFrame) element(a, b int, s feSection) {
	d := mech.Sub(f.pos[b], f.pos[a])
	l := mech.Norm(d)
	ex := mech.Scale(1/l, d)
	ref := mech.Vec3{0, 0, 1}
	if math.Abs(ex[2]) > 0.9 {
		ref = mech.Vec3{0, 1, 0}
	}
	ey := mech.Sub(ref, mech.Scale(mech.Dot(ref, ex), ex))
	ey = mech.Scale(1/mech.Norm(ey), ey)
	ez := mech.Cross(ex, ey)
	var k, m [12][12]float64
	add := func(a *[12][12]float64, idx []int, blk []float64, c float64) {
		for i := range idx {
			for j := range idx {
				a[idx[i]][idx[j]] += c * blk[i*len(idx)+j]
			}
		}
	}
	bar, bm := []float64{1, -1, -1, 1}, []float64{2, 1, 1, 2}
	add(&k, []int{0, 6}, bar, s.E*s.A/l)
	add(&k, []int{3, 9}, bar, s.G*s.J/l)
	add(&m, []int{0, 6}, bm, s.rho*s.A*l/6)
	add(&m, []int{3, 9}, bm, s.rho*(s.Iy+s.Iz)*l/6)
	kb := []float64{12, 6 * l, -12, 6 * l, 6 * l, 4 * l * l, -6 * l, 2 * l * l, -12, -6 * l, 12, -6 * l, 6 * l, 2 * l * l, -6 * l, 4 * l * l}
	mb := []float64{156, 22 * l, 54, -13 * l, 22 * l, 4 * l * l, 13 * l, -3 * l * l, 54, 13 * l, 156, -22 * l, -13 * l, -3 * l * l, -22 * l, 4 * l * l}
	add(&k, []int{1, 5, 7, 11}, kb, s.E*s.Iz/(l*l*l))
	add(&m, []int{1, 5, 7, 11}, mb, s.rho*s.A*l/420)
	sg := []float64{1, -1, 1, -1}
	kbs, mbs := make([]float64, 16), make([]float64, 16)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			kbs[i*4+j], mbs[i*4+j] = sg[i]*sg[j]*kb[i*4+j], sg[i]*sg[j]*mb[i*4+j]
		}
	}
	add(&k, []int{2, 4, 8, 10}, kbs, s.E*s.Iy/(l*l*l))
	add(&m, []int{2, 4, 8, 10}, mbs, s.rho*s.A*l/420)
	// global = Tᵀ local T, T = diag(R, R, R, R) with R's rows ex, ey, ez
	R := [3]mech.Vec3{ex, ey, ez}
	T := func(i, j int) float64 { // entry (i, j) of T
		if i/3 != j/3 {
			return 0
		}
		return R[i%3][j%3]
	}
	dof := func(i int) int { // element dof → global dof
		if i < 6 {
			return 6*a + i
		}
		return 6*b + i - 6
	}
	for _, c := range []struct {
		loc *[12][12]float64
		out map[[2]int]float64
	}{{&k, f.K}, {&m, f.M}} {
		var lt [12][12]float64 // local T
		for i := 0; i < 12; i++ {
			for j := 0; j < 12; j++ {
				s := 0.0
				for q := 3 * (j / 3); q < 3*(j/3)+3; q++ {
					s += c.loc[i][q] * T(q, j)
				}
				lt[i][j] = s
			}
		}
		for i := 0; i < 12; i++ {
			for j := 0; j < 12; j++ {
				s := 0.0
				for q := 3 * (i / 3); q < 3*(i/3)+3; q++ {
					s += T(q, i) * lt[q][j]
				}
				if s != 0 {
					c.out[[2]int{dof(i), dof(j)}] += s
				}
			}
		}
	}
}

// entries returns a matrix's entries sorted by row and column.
func feSortedEntries(a map[[2]int]float64) []feEntry {
	out := make([]feEntry, 0, len(a))
	for k, v := range a {
		out = append(out, feEntry{k[0], k[1], v})
	}
	sort.Slice(out, func(x, y int) bool {
		if out[x].i != out[y].i {
			return out[x].i < out[y].i
		}
		return out[x].j < out[y].j
	})
	return out
}

// bar adds a truss element (axial stiffness and consistent mass on the
// translations only) from node a to node b.
func (f *feTestFrame) bar(a, b int, s feSection) {
	d := mech.Sub(f.pos[b], f.pos[a])
	l := mech.Norm(d)
	e := mech.Scale(1/l, d)
	for p := 0; p < 2; p++ {
		for q := 0; q < 2; q++ {
			sg := 1.0
			if p != q {
				sg = -1
			}
			ms := s.rho * s.A * l / 6
			if p == q {
				ms *= 2
			}
			na, nb := []int{a, b}[p], []int{a, b}[q]
			for i := 0; i < 3; i++ {
				f.M[[2]int{6*na + i, 6*nb + i}] += ms
				for j := 0; j < 3; j++ {
					f.K[[2]int{6*na + i, 6*nb + j}] += sg * s.E * s.A / l * e[i] * e[j]
				}
			}
		}
	}
}

// data returns the frame as read from files: node labels 1, 2, …, the
// dofs of each node (those with a diagonal entry: six at a beam's node,
// three at a node of bars only) in node order.
func (f *feTestFrame) data() *feData {
	d := &feData{index: map[int]int{}, dofOf: map[[2]int]int{}}
	idx := map[int]int{}
	for i, p := range f.pos {
		d.labels = append(d.labels, i+1)
		d.pos = append(d.pos, p)
		d.index[i+1] = i
		for k := 0; k < 6; k++ {
			g := 6*i + k
			if f.K[[2]int{g, g}] != 0 || f.M[[2]int{g, g}] != 0 {
				idx[g] = d.dof(i, k)
			}
		}
	}
	for _, c := range []struct {
		a   map[[2]int]float64
		out *[]feEntry
	}{{f.M, &d.M}, {f.K, &d.K}} {
		for _, e := range feSortedEntries(c.a) {
			*c.out = append(*c.out, feEntry{idx[e.i], idx[e.j], e.v})
		}
	}
	return d
}

// write writes the frame as Matrix Market files M.mtx and K.mtx (lower
// triangle, 6 dofs per node in node order) and the node list nodes.txt.
func (f *feTestFrame) write(dir string) error {
	n := 6 * len(f.pos)
	for _, c := range []struct {
		name string
		a    map[[2]int]float64
	}{{"M.mtx", f.M}, {"K.mtx", f.K}} {
		var es []feEntry
		for _, e := range feSortedEntries(c.a) {
			if e.j <= e.i {
				es = append(es, e)
			}
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n", n, n, len(es))
		for _, e := range es {
			sb.WriteString(strconv.Itoa(e.i+1) + " " + strconv.Itoa(e.j+1) + " " + strconv.FormatFloat(e.v, 'g', 17, 64) + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, c.name), []byte(sb.String()), 0o644); err != nil {
			return err
		}
	}
	var nl strings.Builder
	for i, p := range f.pos {
		fmt.Fprintf(&nl, "%d %.17g %.17g %.17g\n", i+1, p[0], p[1], p[2])
	}
	return os.WriteFile(filepath.Join(dir, "nodes.txt"), []byte(nl.String()), 0o644)
}

// feTestBeam is a straight beam of ne elements along x from the origin
// (nodes 1 … ne+1).
func feTestBeam(ne int, L float64, s feSection) *feTestFrame {
	f := newFETestFrame()
	a := f.node(mech.Vec3{})
	b := f.node(mech.Vec3{L, 0, 0})
	f.member(a, b, ne, s)
	// renumber along the beam: the member put b second
	order := []int{a}
	for i := 2; i < len(f.pos); i++ {
		order = append(order, i)
	}
	order = append(order, b)
	return f.renumber(order)
}

// renumber returns the frame with its nodes in the order given (old
// indices).
func (f *feTestFrame) renumber(order []int) *feTestFrame {
	nw := make([]int, len(order))
	g := newFETestFrame()
	for k, o := range order {
		nw[o] = k
		g.pos = append(g.pos, f.pos[o])
	}
	dof := func(i int) int { return 6*nw[i/6] + i%6 }
	for k, v := range f.K {
		g.K[[2]int{dof(k[0]), dof(k[1])}] = v
	}
	for k, v := range f.M {
		g.M[[2]int{dof(k[0]), dof(k[1])}] = v
	}
	return g
}

// WriteFETestBeam writes a straight beam of ne Euler–Bernoulli elements
// along x (length L, m; section of Young's and shear moduli E, G, Pa,
// density rho, kg/m³, area A, m², second moments Iy, Iz and torsion
// constant J, m⁴) as Matrix Market files M.mtx, K.mtx (6 dofs per node)
// and the node list nodes.txt (nodes 1 … ne+1 from x = 0) into dir, in SI,
// for the tests of package flex_test.
func WriteFETestBeam(dir string, ne int, L, E, G, rho, A, Iy, Iz, J float64) error {
	return feTestBeam(ne, L, feSection{E, G, rho, A, Iy, Iz, J}).write(dir)
}

// feTestTower is a space frame: a rectangular tower (bx × by, storeys of
// height h) of columns, a ring of beams at every level and a diagonal
// brace on each face of each storey (alternating), each member of ns
// elements. It returns the frame and the corner nodes of the base and of
// the top level.
func feTestTower(bx, by, h float64, storeys, ns int) (*feTestFrame, []int, []int) {
	col := feSection{E: 2.1e11, G: 8.1e10, rho: 7850, A: 1.2e-3, Iy: 1.1e-6, Iz: 0.8e-6, J: 1.5e-6}
	bm := feSection{E: 2.1e11, G: 8.1e10, rho: 7850, A: 0.8e-3, Iy: 0.5e-6, Iz: 0.3e-6, J: 0.6e-6}
	br := feSection{E: 2.1e11, G: 8.1e10, rho: 7850, A: 0.4e-3, Iy: 0.12e-6, Iz: 0.1e-6, J: 0.15e-6}
	f := newFETestFrame()
	xy := [4][2]float64{{0, 0}, {bx, 0}, {bx, by}, {0, by}}
	levels := make([][4]int, storeys+1)
	for k := 0; k <= storeys; k++ {
		for c := 0; c < 4; c++ {
			levels[k][c] = f.node(mech.Vec3{xy[c][0], xy[c][1], float64(k) * h})
		}
	}
	for k := 0; k <= storeys; k++ {
		for c := 0; c < 4; c++ {
			if k > 0 {
				f.member(levels[k-1][c], levels[k][c], ns, col)
				if (k+c)%2 == 0 {
					f.member(levels[k-1][c], levels[k][(c+1)%4], ns, br)
				} else {
					f.member(levels[k-1][(c+1)%4], levels[k][c], ns, br)
				}
			}
			f.member(levels[k][c], levels[k][(c+1)%4], ns, bm)
		}
	}
	return f, levels[0][:], levels[storeys][:]
}

// feTestBuilder is the part of a mech.Builder the reduction reads: the
// compile-time constants of attributes (plain numbers here).
type feTestBuilder struct{ mech.Builder }

func (feTestBuilder) Const(e spec.Expr, def float64) float64 {
	if !e.Given() {
		return def
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(e.Src), 64)
	if err != nil {
		panic(err)
	}
	return v
}

func (feTestBuilder) Errorf(pos spec.Pos, field, format string, args ...any) {
	panic(fmt.Sprintf("%s: %s", field, fmt.Sprintf(format, args...)))
}

// feTestBases reduces an FE model with the attributes attrs (name →
// value; clamp as in an fe-body) both ways: the dense path (feBasis) and
// the sparse one (feBasisSparse), whatever the model's size.
func feTestBases(t *testing.T, d *feData, attrs map[string]string) (dv, sv []float64, di, si ffr3Info, free []int) {
	t.Helper()
	bs := &spec.Beam{Kind: "fe-matrix-market", Name: "body", Attr: map[string]spec.Expr{}}
	for k, v := range attrs {
		bs.Attr[k] = spec.Expr{Src: v, Field: k}
	}
	clamped := map[int]bool{}
	if c := attrs["clamp"]; c != "" {
		ls, err := nodeList(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			clamped[d.index[l]] = true
		}
	}
	n := len(d.dofs)
	free, loc := freeDofs(d, clamped)
	nf := len(free)
	fx := &flexCompiler{b: feTestBuilder{}}
	_, cm, _ := fx.feRigid(bs, d, n)
	rigid := feRigidModes(d, cm, n)
	freeFree := len(clamped) == 0
	t0 := time.Now()
	var err error
	dv, di, err = fx.feBasis(bs, d, free, dense(d.M, loc, nf), dense(d.K, loc, nf), freeFree, rigid)
	if err != nil {
		t.Fatalf("dense: %v", err)
	}
	t1 := time.Now()
	sv, si, err = fx.feBasisSparse(bs, d, free, newCSR(d.M, loc, nf), newCSR(d.K, loc, nf), freeFree, rigid)
	if err != nil {
		t.Fatalf("sparse: %v", err)
	}
	t.Logf("%d free dofs: dense basis in %v, sparse in %v", nf, t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
	return dv, sv, di, si, free
}

// stepResponse returns the displacement of dof o under a unit step force
// on dof l of the reduced model (basis V: nf×m, M-orthonormal, its
// coordinates the reduced model's modes of frequencies f, Hz) at times ts:
// Σ_k V_ok V_lk (1 − cos ω_k t)/ω_k², the exact solution of the reduced
// equations (whatever the signs of V's columns).
func stepResponse(V, f []float64, m, o, l int, ts []float64) []float64 {
	out := make([]float64, len(ts))
	for k := 0; k < m; k++ {
		w := 2 * math.Pi * f[k]
		c := V[o*m+k] * V[l*m+k] / (w * w)
		for j, t := range ts {
			out[j] += c * (1 - math.Cos(w*t))
		}
	}
	return out
}

// The sparse Craig–Bampton basis is the dense one: a space frame (a
// braced tower of 4 storeys, 432 dofs, small enough for the dense path to
// run in a test), free-free with an interface at two top corners and
// clamped at its base with the four top corners as interface, reduced by
// both functions (feBasis, feBasisSparse) whatever feDenseMax says. The
// reduced frequencies agree to 1e-8 relative (measured: 2e-12), the FE
// model's reported ones to 1e-7 (7e-9: the full model's subspace
// iteration stops at a 1e-8 change), each basis vector to 1e-8 of its
// largest entry, up to its sign (1e-9), and the step response of the
// reduced model at the top (a unit force at one top corner, the other's
// displacement over two periods of the first mode) to 1e-9 of its peak
// (3e-12): the response is what a simulation of the body integrates, and
// the invariants are computed from the basis by the same code either way.
func TestFESparseCraigBamptonMatchesDense(t *testing.T) {
	f, base, top := feTestTower(1.0, 0.6, 1.0, 4, 2)
	d := f.data()
	label := func(nodes []int) string {
		var s []string
		for _, i := range nodes {
			s = append(s, strconv.Itoa(i+1))
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name  string
		attrs map[string]string
	}{
		{"free-free", map[string]string{"reduction": "craig-bampton", "interface": label(top[:2]), "modes": "8"}},
		{"clamped", map[string]string{"reduction": "craig-bampton", "interface": label(top), "modes": "6", "clamp": label(base)}},
	} {
		dv, sv, di, si, free := feTestBases(t, d, c.attrs)
		nf := len(free)
		m := len(di.reduced)
		if len(si.reduced) != m || len(dv) != nf*m || len(sv) != nf*m {
			t.Fatalf("%s: %d reduced frequencies dense, %d sparse", c.name, m, len(si.reduced))
		}
		worstF := 0.0
		for k := 0; k < m; k++ {
			worstF = math.Max(worstF, math.Abs(si.reduced[k]-di.reduced[k])/di.reduced[k])
		}
		worstFull := 0.0
		for k := range si.full {
			worstFull = math.Max(worstFull, math.Abs(si.full[k]-di.full[k])/di.full[k])
		}
		// basis vectors, up to sign, where the frequency is not
		// (nearly) repeated
		worstV := 0.0
		for k := 0; k < m; k++ {
			if k > 0 && di.reduced[k]-di.reduced[k-1] < 1e-4*di.reduced[k] || k < m-1 && di.reduced[k+1]-di.reduced[k] < 1e-4*di.reduced[k] {
				continue
			}
			big, dot := 0.0, 0.0
			for i := 0; i < nf; i++ {
				big = math.Max(big, math.Abs(dv[i*m+k]))
				dot += dv[i*m+k] * sv[i*m+k]
			}
			sg := math.Copysign(1, dot)
			for i := 0; i < nf; i++ {
				worstV = math.Max(worstV, math.Abs(sv[i*m+k]*sg-dv[i*m+k])/big)
			}
		}
		// the step response at the top: a force along y at top corner 0
		// (dof uy), the displacement uy of top corner 2
		at := func(node, kind int) int {
			g := d.dofOf[[2]int{node, kind}]
			for a, i := range free {
				if i == g {
					return a
				}
			}
			t.Fatalf("dof %d of node %d is not free", kind, node)
			return -1
		}
		o, l := at(top[2], 1), at(top[0], 1)
		T1 := 1 / di.reduced[0]
		var ts []float64
		for j := 0; j <= 200; j++ {
			ts = append(ts, 2*T1*float64(j)/200)
		}
		rd := stepResponse(dv, di.reduced, m, o, l, ts)
		rs := stepResponse(sv, si.reduced, m, o, l, ts)
		peak, worstR := 0.0, 0.0
		for j := range rd {
			peak = math.Max(peak, math.Abs(rd[j]))
		}
		for j := range rd {
			worstR = math.Max(worstR, math.Abs(rs[j]-rd[j])/peak)
		}
		t.Logf("%s, %d free dofs, %d shapes (%.5g … %.5g Hz): reduced frequencies agree to %.2g, the FE model's %d lowest to %.2g, basis vectors to %.2g, step response (peak %.4g m/N) to %.2g",
			c.name, nf, m, di.reduced[0], di.reduced[m-1], worstF, len(si.full), worstFull, worstV, peak, worstR)
		if worstF > 1e-8 || worstFull > 1e-7 || worstV > 1e-8 || worstR > 1e-9 {
			t.Errorf("%s: sparse and dense Craig–Bampton differ: frequencies %.3g, FE model %.3g, vectors %.3g, response %.3g\ndense  %v\nsparse %v", c.name, worstF, worstFull, worstV, worstR, di.reduced, si.reduced)
		}
	}
}

// The fixed-interface modes of a beam of 3 120 free dofs (beyond
// feDenseMax) clamped at node 1 with the interface at its other end are
// those of the clamped-clamped beam: bending in both planes ((βL)²
// √(EI/ρAL⁴), cos βL cosh βL = 1), torsion and axial (kπ/L √(·)), within
// the beam elements' discretisation error.
func TestFESparseCraigBamptonFixedInterface(t *testing.T) {
	const ne, L = 520, 6.0
	s := feSection{E: 2.1e11, G: 8.1e10, rho: 7850, A: 1e-3, Iy: 4e-7, Iz: 1e-7, J: 3e-7}
	d := feTestBeam(ne, L, s).data()
	n := len(d.dofs)
	loc := make([]int, n)
	nf := 0
	for i, dk := range d.dofs {
		loc[i] = -1
		if dk[0] != 0 {
			loc[i] = nf
			nf++
		}
	}
	var bnd []int
	for k := 0; k < 6; k++ {
		bnd = append(bnd, loc[d.dofOf[[2]int{ne, k}]])
	}
	sort.Ints(bnd)
	const modes = 10
	t0 := time.Now()
	W, vals, err := craigBamptonSparse(newCSR(d.M, loc, nf), newCSR(d.K, loc, nf), bnd, modes)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	if len(W) != nf*(6+modes) {
		t.Fatalf("basis of %d entries, want %d × %d", len(W), nf, 6+modes)
	}
	bl := []float64{4.730040744862704, 7.853204624095838, 10.995607838001671, 14.137165491257464, 17.27875965739948, 20.42035224562606, 23.56194490204046}
	var want []float64
	for _, I := range []float64{s.Iy, s.Iz} {
		for _, b := range bl {
			want = append(want, b*b*math.Sqrt(s.E*I/(s.rho*s.A*L*L*L*L))/(2*math.Pi))
		}
	}
	for k := 1; k <= 5; k++ {
		want = append(want, float64(k)*math.Pi/L*math.Sqrt(s.G*s.J/(s.rho*(s.Iy+s.Iz)))/(2*math.Pi))
		want = append(want, float64(k)*math.Pi/L*math.Sqrt(s.E/s.rho)/(2*math.Pi))
	}
	sort.Float64s(want)
	worst := 0.0
	var got []float64
	for k, v := range vals {
		got = append(got, freq(v))
		worst = math.Max(worst, math.Abs(got[k]-want[k])/want[k])
	}
	t.Logf("%d free dofs: Craig–Bampton basis in %v; %d fixed-interface frequencies %.6g … %.6g Hz, largest difference from the clamped-clamped beam %.2g", nf, took.Round(time.Millisecond), modes, got[0], got[modes-1], worst)
	if worst > 1e-6 {
		t.Errorf("fixed-interface frequencies %v Hz, closed form %v Hz", got, want[:modes])
	}
	// the constraint modes: unit at their interface dof, K W = 0 on the
	// interior (the interior force of a static constraint mode)
	Ks := newCSR(d.K, loc, nf)
	col, kc := make([]float64, nf), make([]float64, nf)
	isB := map[int]bool{}
	for _, b := range bnd {
		isB[b] = true
	}
	w := 6 + modes
	worstRes := 0.0
	for a := range bnd {
		for i := 0; i < nf; i++ {
			col[i] = W[i*w+a]
		}
		Ks.mul(col, kc)
		big, res := 0.0, 0.0
		for i := range kc {
			big = math.Max(big, math.Abs(kc[i]))
			if !isB[i] {
				res = math.Max(res, math.Abs(kc[i]))
			}
		}
		worstRes = math.Max(worstRes, res/big)
		if res > 1e-6*big {
			t.Errorf("constraint mode %d: interior force %.3g, boundary %.3g", a, res, big)
		}
	}
	t.Logf("constraint modes: interior force at most %.2g of the interface force (round-off)", worstRes)
}

// A free body whose interface does not hold it (a node with translations
// only, as a solid's: here the apex of a tripod of bars on the tower's top
// corners) is refused with the interface named, by both paths, before the
// interior stiffness is factored.
func TestFESparseCraigBamptonInterfaceHolds(t *testing.T) {
	f, _, top := feTestTower(1.0, 0.6, 1.0, 2, 2)
	apex := f.node(mech.Vec3{0.5, 0.3, 2.5})
	bar := feSection{E: 2.1e11, G: 8.1e10, rho: 7850, A: 2e-4}
	for _, c := range top[:3] {
		f.bar(c, apex, bar)
	}
	d := f.data()
	if len(d.dofs) != 6*apex+3 {
		t.Fatalf("%d dofs, want %d", len(d.dofs), 6*apex+3)
	}
	label := strconv.Itoa(apex + 1)
	bs := &spec.Beam{Kind: "fe-matrix-market", Name: "body", Attr: map[string]spec.Expr{
		"reduction": {Src: "craig-bampton"}, "interface": {Src: label}, "modes": {Src: "4"}}}
	n := len(d.dofs)
	loc := make([]int, n)
	free := make([]int, n)
	for i := range loc {
		loc[i], free[i] = i, i
	}
	fx := &flexCompiler{b: feTestBuilder{}}
	_, cm, _ := fx.feRigid(bs, d, n)
	rigid := feRigidModes(d, cm, n)
	_, _, errS := fx.feBasisSparse(bs, d, free, newCSR(d.M, loc, n), newCSR(d.K, loc, n), true, rigid)
	_, _, errD := fx.feBasis(bs, d, free, dense(d.M, loc, n), dense(d.K, loc, n), true, rigid)
	for _, err := range []error{errS, errD} {
		if err == nil || !strings.Contains(err.Error(), "interface nodes ("+label+") hold 3 of the free body's 6 rigid-body motions") {
			t.Errorf("interface at a 3-dof node of a free body: %v", err)
		}
	}
	// with a top corner besides, the interface holds the body
	bs.Attr["interface"] = spec.Expr{Src: label + " " + strconv.Itoa(top[3]+1)}
	if _, _, err := fx.feBasisSparse(bs, d, free, newCSR(d.M, loc, n), newCSR(d.K, loc, n), true, rigid); err != nil {
		t.Errorf("interface at the apex and a corner: %v", err)
	}
}

// WriteFETestTower writes the braced tower of feTestTower (1 m × 0.6 m,
// storeys of 1 m, each member of ns elements; steel tubes) into dir as
// WriteFETestBeam writes its beam, for the tests of package flex_test, and
// returns its dofs and the labels of its base and top corner nodes.
func WriteFETestTower(dir string, storeys, ns int) (int, []int, []int, error) {
	f, base, top := feTestTower(1.0, 0.6, 1.0, storeys, ns)
	var bl, tl []int
	for k := range base {
		bl, tl = append(bl, base[k]+1), append(tl, top[k]+1)
	}
	return 6 * len(f.pos), bl, tl, f.write(dir)
}
