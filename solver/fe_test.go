package solver_test

// Tests of flexible bodies imported from FE programs (<fe-body>,
// solver/flex/fecompile.go, ffr3.go) against an independent eigen-solution
// of the same matrices (scripts/reference/fe_frame.py, scipy) and
// conservation laws.

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// feDir is the example FE model: an L-shaped steel tube frame exported as
// Abaqus matrices in mm-t-s.
const feDir = "../examples/fe-frame"

// feModel compiles a model written in the test as if it were a file in
// dir (its FE file names are relative to it).
func feModel(t *testing.T, dir, src string) (*solver.Model, error) {
	t.Helper()
	ms, err := xml.Parse([]byte(src), filepath.Join(dir, "test.xml"))
	if err != nil {
		return nil, err
	}
	return solver.Compile(ms, solver.CompileOptions{})
}

// readRef reads the columns of a reference CSV of fe_frame.py.
func readRef(t *testing.T, name string) [][]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(feDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cols [][]float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "mode") || strings.HasPrefix(l, "component") {
			continue
		}
		for i, s := range strings.Split(l, ",")[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			for len(cols) <= i {
				cols = append(cols, nil)
			}
			cols[i] = append(cols[i], v)
		}
	}
	return cols
}

// elasticFreqs linearises a model about its initial state and returns the
// frequencies above 1 Hz (the free body's rigid modes are at zero).
func elasticFreqs(t *testing.T, m *solver.Model) []float64 {
	t.Helper()
	s := exInit(t, m)
	return linFreqs(t, m, s, 1, true)
}

// linFreqs linearises a model at state s and returns its frequencies
// above min (Hz), ascending (each once when distinct).
func linFreqs(t *testing.T, m *solver.Model, s *solver.State, min float64, distinct bool) []float64 {
	t.Helper()
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	var f []float64
	for _, md := range lin.Modes {
		if md.Freq > min && (!distinct || len(f) == 0 || math.Abs(md.Freq-f[len(f)-1]) > 1e-9*md.Freq) {
			f = append(f, md.Freq)
		}
	}
	sort.Float64s(f)
	return f
}

func compareFreqs(t *testing.T, what string, got, want []float64, n int, tol float64) {
	t.Helper()
	if len(got) < n {
		t.Fatalf("%s: %d elastic modes, want %d", what, len(got), n)
	}
	worst := 0.0
	for k := 0; k < n; k++ {
		worst = math.Max(worst, math.Abs(got[k]-want[k])/want[k])
	}
	t.Logf("%s: %d frequencies %.6g … %.6g Hz, largest relative difference %.2g", what, n, got[0], got[n-1], worst)
	if worst > tol {
		t.Errorf("%s: frequencies %v, reference %v", what, got[:n], want[:n])
	}
}

const feBody = `<model name="fe" dimension="3">
  <settings end="1" step="1e-4" gravity="0 0 0"/>
  <ground><marker name="O"/></ground>
  <fe-body kind="abaqus" name="frame" mass="frame_MASS1.mtx" stiffness="frame_STIF1.mtx" nodes="frame.inp"
           units="mm-t-s" %s>
    <marker name="root" node="1"/>
    <marker name="tip" node="21"/>
  </fe-body>
  %s
</model>`

// The free-free frame: the linearised model's elastic frequencies are the
// FE model's (an independent eigen-solution of the same matrices) with the
// modal basis, and the Craig–Bampton basis of the frame clamped at node 1
// gives the frequencies of the same reduction written in numpy.
func TestFEFrequencies(t *testing.T) {
	free := readRef(t, "reference.csv")[0]
	clamped := readRef(t, "reference-clamped.csv")
	m, err := feModel(t, feDir, fmt.Sprintf(feBody, `modes="12"`, ""))
	if err != nil {
		t.Fatal(err)
	}
	compareFreqs(t, "free-free, modal 12", elasticFreqs(t, m), free, 12, 1e-7)
	wall := `<fixed name="wall" i="ground.O" j="frame.root"/>`
	m, err = feModel(t, feDir, fmt.Sprintf(feBody, `clamp="1" modes="12"`, wall))
	if err != nil {
		t.Fatal(err)
	}
	compareFreqs(t, "clamped, modal 12", elasticFreqs(t, m), clamped[0], 12, 1e-7)
	m, err = feModel(t, feDir, fmt.Sprintf(feBody, `clamp="1" reduction="craig-bampton" interface="21" modes="6"`, wall))
	if err != nil {
		t.Fatal(err)
	}
	compareFreqs(t, "clamped, Craig–Bampton (tip, 6 modes)", elasticFreqs(t, m), clamped[1], 12, 1e-7)
	red := m.Reductions()
	if len(red) != 1 || len(red[0].Kept) != 12 || math.Abs(red[0].Full[0]-clamped[0][0]) > 1e-7*clamped[0][0] {
		t.Errorf("reduction report %+v", red)
	}
	// a free-free body's Craig–Bampton basis leaves the rigid modes to the
	// frame: interface at both ends, 6 modes → 12 + 6 − 6 shapes, whose
	// lowest frequencies bound the FE model's from above
	m, err = feModel(t, feDir, fmt.Sprintf(feBody, `reduction="craig-bampton" interface="1 21" modes="6"`, ""))
	if err != nil {
		t.Fatal(err)
	}
	f := elasticFreqs(t, m)
	if len(f) != 12 {
		t.Fatalf("free Craig–Bampton: %d elastic modes, want 12", len(f))
	}
	for k := 0; k < 12; k++ {
		tol := math.Inf(1) // Rayleigh–Ritz: never below
		if k < 3 {
			tol = 0.005 // and close for the lowest
		}
		if d := (f[k] - free[k]) / free[k]; d < -1e-9 || d > tol {
			t.Errorf("free Craig–Bampton mode %d: %.6g Hz, FE model %.6g Hz", k+1, f[k], free[k])
		}
	}
}

// The same FE model in the other formats (Matrix Market with the ANSYS
// DOF map in a shuffled order, with 6 dofs per node, in metres) gives the
// same frequencies.
func TestFEFormats(t *testing.T) {
	type ent struct {
		i, j int // 0-based global dof (node·6 + dof)
		v    float64
	}
	read := func(name string) []ent {
		b, err := os.ReadFile(filepath.Join(feDir, name))
		if err != nil {
			t.Fatal(err)
		}
		var out []ent
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.FieldsFunc(l, func(r rune) bool { return r == ',' || r == ' ' })
			var ix [4]int
			for k := range ix {
				ix[k], _ = strconv.Atoi(f[k])
			}
			v, _ := strconv.ParseFloat(f[4], 64)
			out = append(out, ent{(ix[0]-1)*6 + ix[1] - 1, (ix[2]-1)*6 + ix[3] - 1, v})
		}
		return out
	}
	M, K := read("frame_MASS1.mtx"), read("frame_STIF1.mtx")
	dir := t.TempDir()
	// nodes in metres
	inp, _ := os.ReadFile(filepath.Join(feDir, "frame.inp"))
	var nodes strings.Builder
	nodes.WriteString("# label x y z (m)\n")
	in := false
	for _, l := range strings.Split(string(inp), "\n") {
		if strings.HasPrefix(l, "*") {
			in = strings.HasPrefix(strings.ToLower(l), "*node")
			continue
		}
		if in {
			f := strings.Split(l, ",")
			var c [3]float64
			for k := range c {
				c[k], _ = strconv.ParseFloat(strings.TrimSpace(f[k+1]), 64)
			}
			fmt.Fprintf(&nodes, "%s %.9g %.9g %.9g\n", f[0], c[0]/1e3, c[1]/1e3, c[2]/1e3)
		}
	}
	os.WriteFile(filepath.Join(dir, "nodes.txt"), []byte(nodes.String()), 0o644)
	nd := 126
	// a permutation of the equations for the DOF map
	perm := make([]int, nd)
	for i := range perm {
		perm[i] = (i*37 + 11) % nd
	}
	scale := func(e ent, mass bool) float64 {
		// mm-t-s → SI: mass t·mm^(2−ti−tj) → kg·m^…, stiffness also /s²
		tr := func(i int) float64 {
			if i%6 < 3 {
				return 1
			}
			return 0
		}
		return e.v * 1e3 * math.Pow(1e-3, 2-tr(e.i)-tr(e.j))
	}
	writeMM := func(name string, es []ent, mass bool, row func(int) int) {
		var b strings.Builder
		fmt.Fprintf(&b, "%%%%MatrixMarket matrix coordinate real symmetric\n%% test\n%d %d %d\n", nd, nd, len(es))
		for _, e := range es {
			i, j := row(e.i), row(e.j)
			if j > i {
				i, j = j, i
			}
			fmt.Fprintf(&b, "%d %d %.17g\n", i+1, j+1, scale(e, mass))
		}
		os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
	}
	var mp strings.Builder
	mp.WriteString("Matrix Eqn   Node   DOF\n")
	labels := []string{"UX", "UY", "UZ", "ROTX", "ROTY", "ROTZ"}
	for g := 0; g < nd; g++ {
		fmt.Fprintf(&mp, "%10d %6d %5s\n", perm[g]+1, g/6+1, labels[g%6])
	}
	os.WriteFile(filepath.Join(dir, "map.txt"), []byte(mp.String()), 0o644)
	writeMM("m_perm.mtx", M, true, func(g int) int { return perm[g] })
	writeMM("k_perm.mtx", K, false, func(g int) int { return perm[g] })
	writeMM("m.mtx", M, true, func(g int) int { return g })
	writeMM("k.mtx", K, false, func(g int) int { return g })
	// a DOF map naming a node's dof twice, matrices that do not fit the
	// node list
	dup := strings.Replace(mp.String(), fmt.Sprintf("%10d %6d %5s\n", perm[7]+1, 2, "UY"), fmt.Sprintf("%10d %6d %5s\n", perm[7]+1, 2, "UX"), 1)
	os.WriteFile(filepath.Join(dir, "dup.txt"), []byte(dup), 0o644)
	for _, c := range []struct{ attrs, want string }{
		{`mass="m_perm.mtx" stiffness="k_perm.mtx" dof-map="dup.txt"`, `dup.txt:9: node 2's UX is mapped twice`},
		{`mass="m.mtx" stiffness="k.mtx" dofs-per-node="3"`, `m.mtx:164: row 64 is beyond the 21 nodes × 3 dofs of the node list`},
	} {
		src := `<model name="fe" dimension="3"><settings gravity="0 0 0"/>
  <fe-body kind="matrix-market" name="frame" nodes="nodes.txt" units="m-kg-s" modes="12" ` + c.attrs + `/>
</model>`
		if _, err := feModel(t, dir, src); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.attrs, err, c.want)
		}
	}
	free := readRef(t, "reference.csv")[0]
	for _, c := range []struct{ what, attrs string }{
		{"ANSYS map, shuffled", `mass="m_perm.mtx" stiffness="k_perm.mtx" dof-map="map.txt"`},
		{"6 dofs per node", `mass="m.mtx" stiffness="k.mtx" dofs-per-node="6"`},
	} {
		src := `<model name="fe" dimension="3"><settings gravity="0 0 0"/>
  <fe-body kind="matrix-market" name="frame" nodes="nodes.txt" units="m-kg-s" modes="12" ` + c.attrs + `/>
</model>`
		m, err := feModel(t, dir, src)
		if err != nil {
			t.Fatal(err)
		}
		compareFreqs(t, c.what, elasticFreqs(t, m), free, 12, 1e-7)
	}
}

// A free frame tumbling about its intermediate principal axis at a tenth
// of its first frequency, its shapes excited by a kick: the energy and the
// angular momentum about the centre of mass (channels) stay constant up to
// the integrator's error, which falls at second order with the step (a
// wrong coupling term would leave a drift that does not), and the centre
// of mass moves at constant velocity.
func TestFETumbling(t *testing.T) {
	drift := func(h float64) (dE, dH, dV, peak float64) {
		src := fmt.Sprintf(feBody, `modes="8" omega="1 30 0.5" velocity="0.2 0 0"`, `<force name="kick" i="frame.tip" fz="if(time &lt; 1e-3, 200*sin(pi*time/1e-3), 0)"/>`)
		src = strings.Replace(src, `<settings end="1" step="1e-4"`, fmt.Sprintf(`<settings end="0.3" step="%g" integrator="genalpha" rho-inf="1"`, h), 1)
		m, err := feModel(t, feDir, src)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"energy.total", "frame.hx", "frame.hy", "frame.hz", "frame.vx", "frame.vy", "frame.vz", "frame.tip.uz"}
		ts, out, err := series(t, m, 1e-3, names...)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range out[7] {
			peak = math.Max(peak, math.Abs(v))
		}
		k0, k1 := 3, len(ts)-1 // after the kick, the end
		d := func(i int) float64 { return out[i][k1] - out[i][k0] }
		h0 := math.Hypot(math.Hypot(out[1][k0], out[2][k0]), out[3][k0])
		return math.Abs(d(0)) / out[0][k0], math.Hypot(math.Hypot(d(1), d(2)), d(3)) / h0, math.Hypot(math.Hypot(d(4), d(5)), d(6)), peak
	}
	e1, h1, v1, peak := drift(1e-4)
	e2, h2, v2, _ := drift(5e-5)
	t.Logf("tip vibration %.3g mm; drift over 0.3 s at h = 0.1 ms and 0.05 ms: energy %.2g, %.2g, angular momentum %.2g, %.2g (relative), centre-of-mass velocity %.2g, %.2g m/s", peak*1e3, e1, e2, h1, h2, v1, v2)
	if peak < 1e-4 {
		t.Errorf("the kick did not excite the shapes (tip %.3g m)", peak)
	}
	if e2 > 2e-8 || h2 > 5e-7 || v1 > 1e-12 || v2 > 1e-12 {
		t.Errorf("not conserved: energy %.3g, angular momentum %.3g, velocity %.3g", e2, h2, v2)
	}
	if e1/e2 < 3 || h1/h2 < 3 {
		t.Errorf("the drift does not fall at second order with the step: energy ×%.3g, angular momentum ×%.3g", e1/e2, h1/h2)
	}
}

// Bad FE input is refused with the file, line or entry named.
func TestFEErrors(t *testing.T) {
	dir := t.TempDir()
	inp, _ := os.ReadFile(filepath.Join(feDir, "frame.inp"))
	mass, _ := os.ReadFile(filepath.Join(feDir, "frame_MASS1.mtx"))
	stif, _ := os.ReadFile(filepath.Join(feDir, "frame_STIF1.mtx"))
	write := func(name, s string) { os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644) }
	write("frame.inp", string(inp))
	write("M.mtx", string(mass))
	write("K.mtx", string(stif))
	write("K3.mtx", "1, 1, 1.5\n")
	write("Kbadnode.mtx", string(stif)+"99,1, 99,1, 1.0\n")
	write("Kunsym.mtx", string(stif)+"2,1, 1,1, 5.0\n1,1, 2,1, 7.0\n")
	lines := strings.Split(string(stif), "\n")
	write("Knan.mtx", strings.Join(lines[:3], "\n")+"\n1,2, 1,2, nan\n")
	write("Mneg.mtx", strings.ReplaceAll(string(mass), "1,1, 1,1,", "1,1, 1,1, -"))
	// a spring to the ground on node 1: no longer free
	write("Kground.mtx", string(stif)+"1,1, 1,1, 1e6\n")
	write("Kzero.mtx", "** no stiffness\n")
	for _, c := range []struct{ attrs, want string }{
		{`mass="M.mtx" stiffness="K.mtx" units="furlong"`, `units: unknown value "furlong"`},
		{`mass="M.mtx" stiffness="nope.mtx" units="mm-t-s"`, `stiffness: fe-body "b": open`},
		{`mass="M.mtx" stiffness="K3.mtx" units="mm-t-s"`, `K3.mtx:1: a line of three values (row, column, value) is the COORDINATE format`},
		{`mass="M.mtx" stiffness="Kbadnode.mtx" units="mm-t-s"`, `node 99 is not among the model's nodes`},
		{`mass="M.mtx" stiffness="Kunsym.mtx" units="mm-t-s"`, `the matrix is not symmetric: entry (`},
		{`mass="M.mtx" stiffness="Knan.mtx" units="mm-t-s"`, `Knan.mtx:4: value "nan" is not a finite number`},
		{`mass="M.mtx" stiffness="Kground.mtx" units="mm-t-s"`, `stiffness: fe-body "b": a rigid translation along x of the nodes strains the model (force 1e+09 at node 1 ux`},
		{`mass="M.mtx" stiffness="K.mtx" units="mm-t-s" clamp="1 77"`, `clamp: fe-body "b": node 77 is not among the FE model's nodes`},
		{`mass="M.mtx" stiffness="K.mtx" units="mm-t-s" reduction="craig-bampton"`, `craig-bampton needs interface`},
		{`mass="M.mtx" stiffness="K.mtx" units="mm-t-s" modes="200"`, `modes: fe-body "b": 200 modes; at most 64 elastic coordinates`},
		{`mass="M.mtx" stiffness="K.mtx" units="mm-t-s" clamp="1-21"`, `clamp: fe-body "b": clamp fixes every node`},
		{`mass="M.mtx" stiffness="Kzero.mtx" units="mm-t-s" clamp="1"`, `the clamped model is a mechanism`},
	} {
		src := `<model name="e" dimension="3"><ground><marker name="O"/></ground>
  <fe-body kind="abaqus" name="b" nodes="frame.inp" ` + c.attrs + `><marker name="tip" node="21"/></fe-body>
</model>`
		_, err := feModel(t, dir, src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.attrs, err, c.want)
		}
	}
	// a joint at a node that moves with the modes: spherical, revolute and
	// fixed joints attach there (solver/fejoint_test.go), others not
	src := `<model name="e" dimension="3"><ground><marker name="O"/></ground>
  <fe-body kind="abaqus" name="b" nodes="frame.inp" mass="M.mtx" stiffness="K.mtx" units="mm-t-s"><marker name="tip" node="21"/></fe-body>
  <prismatic name="pin" i="ground.O" j="b.tip"/>
</model>`
	if _, err := feModel(t, dir, src); err == nil || !strings.Contains(err.Error(), `test.xml:3: j: joint "pin": marker "b.tip" is at a node of fe-body "b" that moves with the modes, where spherical, revolute and fixed joints attach`) {
		t.Errorf("joint at a free node: got %v", err)
	}
	// a contact there
	src = strings.Replace(src, `<prismatic name="pin" i="ground.O" j="b.tip"/>`, `<contact kind="sphere-plane" name="c" i="b.tip" radius="0.01" j="ground.O" k="1e5"/>`, 1)
	if _, err := feModel(t, dir, src); err == nil || !strings.Contains(err.Error(), `test.xml:3: i: marker "tip" of flexible body "b" moves with its shapes`) {
		t.Errorf("contact at a free node: got %v", err)
	}
}

// The frame clamped at node 1 under gravity: the static tip displacement
// of the Craig–Bampton model is the numpy solution of the same reduced
// equations (the consistent gravity load M g over every node).
func TestFEStatic(t *testing.T) {
	ref := readRef(t, "reference-static.csv")
	src := fmt.Sprintf(feBody, `clamp="1" reduction="craig-bampton" interface="21" modes="6"`, `<fixed name="wall" i="ground.O" j="frame.root"/>`)
	src = strings.Replace(src, `gravity="0 0 0"`, `gravity="0 0 -9.81"`, 1)
	m, err := feModel(t, feDir, src)
	if err != nil {
		t.Fatal(err)
	}
	got := staticChannels(t, m, "frame.tip.ux", "frame.tip.uy", "frame.tip.uz")
	for k := range got {
		want := ref[1][k]
		t.Logf("u%c = %.12g m (numpy %.12g m, full model %.12g m)", "xyz"[k], got[k], want, ref[0][k])
		if math.Abs(got[k]-want) > 1e-9*math.Abs(want) {
			t.Errorf("tip u%c %.12g m, reference %.12g m", "xyz"[k], got[k], want)
		}
	}
}

// Wu and Haug's slewing beam as a floating-frame beam (examples/slewing-beam
// /ffr.xml: Krylov basis of 20 vectors, geometric stiffening) follows the
// geometrically exact rod of the same data (model.xml) within 1 % of the
// peak lag; without the stiffening (coupling="zero-order") the same beam
// leaves it by far once the spin passes the first bending frequency.
func TestFFRSlewingBeam(t *testing.T) {
	_, rod, err := series(t, flexLoad(t, "slewing-beam/model.xml", nil), 0.5, "defl")
	if err != nil {
		t.Fatal(err)
	}
	_, ffr, err := series(t, flexLoad(t, "slewing-beam/ffr.xml", nil), 0.5, "defl")
	if err != nil {
		t.Fatal(err)
	}
	peak, worst := 0.0, 0.0
	for i := range rod[0] {
		peak = math.Max(peak, math.Abs(rod[0][i]))
		worst = math.Max(worst, math.Abs(ffr[0][i]-rod[0][i]))
	}
	t.Logf("tip lag: peak %.4f m (rod); the FFR beam (Krylov) differs by at most %.2e m (%.2g %%)", peak, worst, 100*worst/peak)
	if worst > 0.01*peak {
		t.Errorf("the FFR beam's tip lag differs from the rod's by %.3g m (%.2g %% of the peak)", worst, 100*worst/peak)
	}
	// ffr.xml with its beam's attributes overridden
	variant := func(attrs map[string]string) *solver.Model {
		ms := exLoadSpec(t, "slewing-beam/ffr.xml")
		for i := range ms.Beams {
			for k, v := range attrs {
				ms.Beams[i].Attr[k] = spec.Expr{Src: v, Field: k}
			}
		}
		return specCompile(t, ms, nil, "slewing-beam/ffr.xml")
	}
	// the Craig–Bampton basis (tip, 8 fixed-interface modes and the axial
	// Krylov shapes the stiffening adds); with more fixed-interface modes
	// than elements the axial Krylov shapes stop at one per element (the
	// axial dofs span no more; asking for 16 once failed to compile)
	for _, modes := range []string{"8", "16"} {
		_, cb, err := series(t, variant(map[string]string{"reduction": "craig-bampton", "modes": modes}), 0.5, "defl")
		if err != nil {
			t.Fatal(err)
		}
		worst = 0
		for i := range rod[0] {
			worst = math.Max(worst, math.Abs(cb[0][i]-rod[0][i]))
		}
		t.Logf("the FFR beam (Craig–Bampton, %s modes, 10 elements) differs by at most %.2e m (%.2g %%)", modes, worst, 100*worst/peak)
		if worst > 0.01*peak {
			t.Errorf("the %s-mode Craig–Bampton FFR beam's tip lag differs from the rod's by %.3g m (%.2g %% of the peak)", modes, worst, 100*worst/peak)
		}
	}
	_, zero, err := series(t, variant(map[string]string{"coupling": "zero-order"}), 0.5, "defl")
	far := 0.0
	for i := range zero[0] {
		far = math.Max(far, math.Abs(zero[0][i]-rod[0][i]))
	}
	t.Logf("zero-order coupling: leaves the rod by %.3g m (%v)", far, err)
	if err == nil && far < peak {
		t.Errorf("without stiffening the beam should leave the rod past the first bending frequency; it stays within %.3g m", far)
	}
}

// The bearing moments of the slewing beam's hub: the beam (Craig–Bampton,
// 16 modes) turns in the hub's plane without gravity, so the axle's
// reaction moments about the in-plane axes are zero by symmetry. They
// show in no coordinate (the axle stops the motion they would cause), and
// with old factors of the hub, whose inertia the beam makes anisotropic
// (1 against 35 kg·m²), they once grew without bound while the motion
// converged in one Newton iteration a step: to 3e6 N·m at 9.5 s, or until
// the step failed. Newton now tests the multipliers too.
func TestFFRHubReactionsBounded(t *testing.T) {
	ms := exLoadSpec(t, "slewing-beam/ffr.xml")
	for i := range ms.Beams {
		for k, v := range map[string]string{"reduction": "craig-bampton", "modes": "16"} {
			ms.Beams[i].Attr[k] = spec.Expr{Src: v, Field: k}
		}
	}
	_, ch, err := series(t, specCompile(t, ms, nil, "slewing-beam/ffr.xml"), 0.05, "axle.fx", "axle.tx", "axle.ty")
	if err != nil {
		t.Fatal(err)
	}
	force, moment := 0.0, 0.0
	for i := range ch[0] {
		force = math.Max(force, math.Abs(ch[0][i]))
		moment = math.Max(moment, math.Max(math.Abs(ch[1][i]), math.Abs(ch[2][i])))
	}
	// against the moment scale of the largest axle force at the tip
	scale := force * 8
	t.Logf("20 s: largest axle force %.4g N, largest in-plane reaction moment %.3g N·m (%.2g of %.4g N·m)", force, moment, moment/scale, scale)
	if !(moment <= 1e-4*scale) {
		t.Errorf("the axle's in-plane reaction moments reach %.3g N·m, zero by symmetry (moment scale %.4g N·m)", moment, scale)
	}
}

// rotorModel compiles examples/fe-rotor without its damping.
func rotorModel(t *testing.T) *solver.Model {
	t.Helper()
	ms := exLoadSpec(t, "fe-rotor/model.xml")
	for i := range ms.Beams {
		delete(ms.Beams[i].Attr, "damping")
	}
	return specCompile(t, ms, nil, "fe-rotor/model.xml")
}

// The overhung rotor imported from ANSYS-style files (examples/fe-rotor):
// at rest its frequencies are those of an independent eigen-solution of
// the matrices and its static sag the numpy solution of the same 8-mode
// reduction; spinning at 60 rad/s, the frequencies its rotating frame
// sees are the fixed-frame whirl frequencies of the same reduced model
// with the gyroscopic matrix of the nodes' polar inertia, shifted by the
// spin (backward + Ω, forward − Ω): the gyroscopic moment of the disk
// comes out of the floating frame's kinetic energy.
func TestFERotor(t *testing.T) {
	read := func(name string) [][]float64 {
		t.Helper()
		f, err := os.ReadFile(filepath.Join("../examples/fe-rotor", name))
		if err != nil {
			t.Fatal(err)
		}
		var cols [][]float64
		for _, l := range strings.Split(strings.TrimSpace(string(f)), "\n") {
			if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "mode") || strings.HasPrefix(l, "component") {
				continue
			}
			for i, s := range strings.Split(l, ",")[1:] {
				v, _ := strconv.ParseFloat(s, 64)
				for len(cols) <= i {
					cols = append(cols, nil)
				}
				cols[i] = append(cols[i], v)
			}
		}
		return cols
	}
	m := rotorModel(t)
	s := exInit(t, m)
	compareFreqs(t, "at rest", linFreqs(t, m, s, 0, false), read("reference.csv")[0], 8, 1e-9)
	sag := staticChannels(t, m, "rotor.disk.uy")[0]
	want := read("reference-static.csv")
	t.Logf("static sag %.12g m (numpy, 8 modes: %.12g m; full model %.12g m)", sag, want[1][0], want[0][0])
	if math.Abs(sag-want[1][0]) > 1e-9*math.Abs(want[1][0]) {
		t.Errorf("static sag %.12g m, reference %.12g m", sag, want[1][0])
	}
	// spinning: the state after the spin-up, at constant 60 rad/s
	m = rotorModel(t)
	s = exInit(t, m)
	if err := m.AdvanceTo(s, 1.5); err != nil {
		t.Fatal(err)
	}
	compareFreqs(t, "spinning at 60 rad/s (rotating frame)", linFreqs(t, m, s, 0, false), read("reference-campbell.csv")[1], 8, 1e-8)
}

// The flexible arm (examples/flexible-arm) driven through its inputs at
// every millisecond, as a co-simulation master does (a PD computed from
// its outputs, the input held over the step): it reaches and holds 90°. The restart of the accelerations at each input change
// once used the anchor's iteration matrix, stale for a floating frame
// that has turned, and the step failed near 1 s; and the clamped link's
// frequencies are an independent eigen-solution's.
func TestFEArmDrivenThroughInputs(t *testing.T) {
	m := flexLoad(t, "flexible-arm/model.xml", nil)
	ref := readRef(t, "../flexible-arm/reference.csv")
	red := m.Reductions()
	if len(red) != 1 || math.Abs(red[0].Full[0]-ref[0][0]) > 1e-8*ref[0][0] {
		t.Errorf("reduction report %+v, reference %v Hz", red, ref[0][:3])
	}
	s := exInit(t, m)
	ch := make([]float64, len(m.Channels()))
	ith, _ := m.ChannelIndex("theta")
	iom, _ := m.ChannelIndex("omega")
	for k := 1; k <= 3000; k++ {
		tm := float64(k-1) * 1e-3
		m.EvalChannels(s, ch)
		r := math.Pi / 4 * (1 - math.Cos(math.Pi*math.Min(tm, 1)))
		s.SetInput(0, 60*(r-ch[ith])-13*ch[iom])
		if err := m.AdvanceTo(s, float64(k)*1e-3); err != nil {
			t.Fatalf("t = %g s: %v", float64(k)*1e-3, err)
		}
	}
	m.EvalChannels(s, ch)
	if d := math.Abs(ch[ith] - math.Pi/2); d > 1e-3 {
		t.Errorf("the arm holds %.6f rad, 90° is %.6f", ch[ith], math.Pi/2)
	}
}

// writeFreeBeam writes a straight free-free beam of ne Euler–Bernoulli
// frame elements along x (6 dofs per node, consistent mass) as Matrix
// Market files with a node list into dir, in SI.
func writeFreeBeam(t testing.TB, dir string, ne int, L, E, G, rho, A, Iy, Iz, J float64) {
	t.Helper()
	l := L / float64(ne)
	var k, m [12][12]float64
	add := func(a *[12][12]float64, idx []int, blk []float64, s float64) {
		for i := range idx {
			for j := range idx {
				a[idx[i]][idx[j]] += s * blk[i*len(idx)+j]
			}
		}
	}
	bar, bm := []float64{1, -1, -1, 1}, []float64{2, 1, 1, 2}
	add(&k, []int{0, 6}, bar, E*A/l)
	add(&k, []int{3, 9}, bar, G*J/l)
	add(&m, []int{0, 6}, bm, rho*A*l/6)
	add(&m, []int{3, 9}, bm, rho*(Iy+Iz)*l/6)
	kb := []float64{12, 6 * l, -12, 6 * l, 6 * l, 4 * l * l, -6 * l, 2 * l * l, -12, -6 * l, 12, -6 * l, 6 * l, 2 * l * l, -6 * l, 4 * l * l}
	mb := []float64{156, 22 * l, 54, -13 * l, 22 * l, 4 * l * l, 13 * l, -3 * l * l, 54, 13 * l, 156, -22 * l, -13 * l, -3 * l * l, -22 * l, 4 * l * l}
	add(&k, []int{1, 5, 7, 11}, kb, E*Iz/(l*l*l))
	add(&m, []int{1, 5, 7, 11}, mb, rho*A*l/420)
	sg := []float64{1, -1, 1, -1}
	kbs, mbs := make([]float64, 16), make([]float64, 16)
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			kbs[i*4+j], mbs[i*4+j] = sg[i]*sg[j]*kb[i*4+j], sg[i]*sg[j]*mb[i*4+j]
		}
	}
	add(&k, []int{2, 4, 8, 10}, kbs, E*Iy/(l*l*l))
	add(&m, []int{2, 4, 8, 10}, mbs, rho*A*l/420)
	n := 6 * (ne + 1)
	for _, c := range []struct {
		name string
		a    *[12][12]float64
	}{{"M.mtx", &m}, {"K.mtx", &k}} {
		// lower triangle, the element blocks summed where they overlap
		var ents []string
		acc := map[[2]int]float64{}
		for e := 0; e < ne; e++ {
			for i := 0; i < 12; i++ {
				for j := 0; j <= i; j++ {
					if v := c.a[i][j]; v != 0 {
						acc[[2]int{6*e + i, 6*e + j}] += v
					}
				}
			}
		}
		keys := make([][2]int, 0, len(acc))
		for key := range acc {
			keys = append(keys, key)
		}
		sort.Slice(keys, func(a, b int) bool {
			if keys[a][0] != keys[b][0] {
				return keys[a][0] < keys[b][0]
			}
			return keys[a][1] < keys[b][1]
		})
		for _, key := range keys {
			ents = append(ents, fmt.Sprintf("%d %d %.17g", key[0]+1, key[1]+1, acc[key]))
		}
		body := fmt.Sprintf("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n%s\n", n, n, len(ents), strings.Join(ents, "\n"))
		if err := os.WriteFile(filepath.Join(dir, c.name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var nodes strings.Builder
	for i := 0; i <= ne; i++ {
		fmt.Fprintf(&nodes, "%d %.17g 0 0\n", i+1, float64(i)*l)
	}
	if err := os.WriteFile(filepath.Join(dir, "nodes.txt"), []byte(nodes.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// freeBeamFreqs returns the lowest free-free frequencies (Hz) of a uniform
// beam from the closed forms: bending in both planes ((β L)² √(EI/ρAL⁴),
// β L the roots of cos βL cosh βL = 1), torsion and axial (nπ/L √(·)).
func freeBeamFreqs(L, E, G, rho, A, Iy, Iz, J float64, count int) []float64 {
	bl := []float64{4.730040744862704, 7.853204624095838, 10.995607838001671, 14.137165491257464, 17.27875965739948, 20.42035224562606}
	var f []float64
	for _, I := range []float64{Iy, Iz} {
		for _, b := range bl {
			f = append(f, b*b*math.Sqrt(E*I/(rho*A*L*L*L*L))/(2*math.Pi))
		}
	}
	for k := 1; k <= 6; k++ {
		f = append(f, float64(k)*math.Pi/L*math.Sqrt(G*J/(rho*(Iy+Iz)))/(2*math.Pi))
		f = append(f, float64(k)*math.Pi/L*math.Sqrt(E/rho)/(2*math.Pi))
	}
	sort.Float64s(f)
	return f[:count]
}

// A free-free beam of 600 elements (3606 dofs: beyond the dense eigen
// solver, so reduced by subspace iteration on the sparse matrices) has the
// closed-form frequencies of the continuous beam.
func TestFELargeModels(t *testing.T) {
	const L, E, G, rho = 6.0, 2.1e11, 8.1e10, 7850.0
	const A, Iy, Iz, J = 1e-3, 4e-7, 1e-7, 3e-7
	for _, ne := range []int{600} {
		dir := t.TempDir()
		writeFreeBeam(t, dir, ne, L, E, G, rho, A, Iy, Iz, J)
		src := `<model name="big" dimension="3"><settings gravity="0 0 0"/>
  <fe-body kind="matrix-market" name="beam" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6" units="m-kg-s" modes="8"/>
</model>`
		t0 := time.Now()
		m, err := feModel(t, dir, src)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(t0)
		red := m.Reductions()[0]
		want := freeBeamFreqs(L, E, G, rho, A, Iy, Iz, J, 8)
		worst := 0.0
		for k := 0; k < 8; k++ {
			worst = math.Max(worst, math.Abs(red.Kept[k]-want[k])/want[k])
		}
		t.Logf("%d elements, %d dofs: read and reduced in %v; 8 frequencies %.5g … %.5g Hz, largest difference from the continuous beam %.2g", ne, red.Dofs, took.Round(time.Millisecond), red.Kept[0], red.Kept[7], worst)
		if worst > 1e-6 {
			t.Errorf("%d elements: frequencies %v, closed form %v", ne, red.Kept, want)
		}
	}
}

// An fe-body in a subsystem file reads its data files relative to that
// file and is placed with the include: its centre of mass moved and
// turned (here by 90° about z).
func TestFEInSubsystem(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "parts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"frame.inp", "frame_MASS1.mtx", "frame_STIF1.mtx"} {
		b, err := os.ReadFile(filepath.Join(feDir, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "parts", f), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "parts", "frame.xml"), []byte(`<subsystem dimension="3">
  <fe-body kind="abaqus" name="frame" mass="frame_MASS1.mtx" stiffness="frame_STIF1.mtx" nodes="frame.inp" units="mm-t-s" modes="4">
    <marker name="tip" node="21"/>
  </fe-body>
</subsystem>`), 0o644)
	pos := func(place string) []float64 {
		main := filepath.Join(dir, "main.xml")
		os.WriteFile(main, []byte(`<model name="m" dimension="3"><settings gravity="0 0 0"/>
  <include name="a" file="parts/frame.xml"`+place+`/>
</model>`), 0o644)
		m := fileLoad(t, main, nil)
		s := exInit(t, m)
		ch := make([]float64, len(m.Channels()))
		m.EvalChannels(s, ch)
		var out []float64
		for _, n := range []string{"a_frame.x", "a_frame.y", "a_frame.z", "a_frame.tip.x", "a_frame.tip.y", "a_frame.tip.z"} {
			k, ok := m.ChannelIndex(n)
			if !ok {
				t.Fatalf("no channel %q", n)
			}
			out = append(out, ch[k])
		}
		return out
	}
	p0 := pos(``)
	p1 := pos(` at="1 2 3" axis="0 0 1" angle="90 deg"`)
	want := []float64{1 - p0[1], 2 + p0[0], 3 + p0[2], 1 - p0[4], 2 + p0[3], 3 + p0[5]}
	for i := range want {
		if math.Abs(p1[i]-want[i]) > 1e-12 {
			t.Errorf("placed: %v, want %v (unplaced %v)", p1, want, p0)
			break
		}
	}
}

// A lumped mass matrix (no rotary inertia: rotation rows zero) is reduced
// with its massless rotations condensed statically: the free-free
// frequencies are numpy's of the same condensation.
func TestFELumpedMass(t *testing.T) {
	m, err := feModel(t, feDir, `<model name="fe" dimension="3"><settings gravity="0 0 0"/>
  <fe-body kind="abaqus" name="frame" mass="frame_LUMPED_MASS1.mtx" stiffness="frame_STIF1.mtx" nodes="frame.inp" units="mm-t-s" modes="12"/>
</model>`)
	if err != nil {
		t.Fatal(err)
	}
	compareFreqs(t, "lumped mass, modal 12", elasticFreqs(t, m), readRef(t, "reference-lumped.csv")[0], 12, 1e-7)
}

// An FE model read without its elements (Matrix Market with a node list:
// the ANSYS-style rotor) is drawn along the node pairs its stiffness
// couples: the 13 nodes of the shaft in one polyline, each a drawing
// point whose channel is the node's place (the disk at node 13 on the
// shaft's axis, 0.6 m up). Before, nothing beyond the frame was drawn.
func TestFEDrawingFromStiffness(t *testing.T) {
	m := rotorModel(t)
	g := m.Geometry()
	var pts []string
	for _, b := range g.Beams {
		if b.Name == "rotor" {
			pts = append(pts, b.NodeZ...)
		}
	}
	if len(pts) != 13 {
		t.Fatalf("rotor drawn through %d points, want the 13 nodes in one line: %v", len(pts), g.Beams)
	}
	s := exInit(t, m)
	ch := exNewChannels(t, m, pts[0], pts[12])
	ch.eval(s)
	z0, z12 := ch.get(pts[0]), ch.get(pts[12])
	if math.Abs(math.Abs(z12-z0)-0.6) > 1e-12 {
		t.Errorf("the drawing's ends at z = %g and %g m, want 0.6 m apart", z0, z12)
	}
}
