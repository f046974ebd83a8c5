package flex_test

// An fe-body beyond the dense solver's 3000 free dofs reduced by
// Craig–Bampton, compiled and run through the solver (the package's
// exported test helper WriteFETestBeam writes its files).

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mbfmu/solver"
	"mbfmu/solver/flex"
	"mbfmu/xml"
)

// A cantilever of 520 beam elements (3 120 free dofs, clamped at node 1)
// with reduction="craig-bampton", the interface at its tip (node 521) and
// 8 fixed-interface modes — once refused ("craig-bampton reduction takes
// at most 3000 free dofs") — compiles and runs:
//
//   - the FE model's lowest frequencies reported are the cantilever's
//     closed forms ((βL)² √(EI/ρAL⁴), cos βL cosh βL = −1; axial and
//     torsion (2k−1)π/2L √(·)) and the reduced model's lie above them
//     (Rayleigh–Ritz), the lowest in each plane within 1e-4 (2.4e-6 and
//     1.6e-5);
//   - a tip force's static deflection is the beam's exact F L³/3EI in
//     both planes and F L/EA along it (the constraint modes span the
//     static response to interface loads; cubic elements are exact): to
//     1e-5, the round-off of any solution of this stiffness matrix (its
//     condition grows as ne⁴: a direct sparse solve of the FE model is
//     off by 1.2e-6 in the bending deflections, the reduced model by
//     1.1e-6);
//   - under the force applied as a step, the tip swings between 0 and
//     twice the static deflection (collocated: every mode's share is
//     positive), reaching above 1.9 times it after half a period of the
//     first mode.
func TestFESparseCraigBamptonCompilesAndRuns(t *testing.T) {
	const ne, L, E, G, rho = 520, 6.0, 2.1e11, 8.1e10, 7850.0
	const A, Iy, Iz, J = 1e-3, 4e-7, 1e-7, 3e-7
	const Fx, Fy, Fz = 2e3, 0.5, 1.0 // N
	dir := t.TempDir()
	if err := flex.WriteFETestBeam(dir, ne, L, E, G, rho, A, Iy, Iz, J); err != nil {
		t.Fatal(err)
	}
	src := `<model name="cb" dimension="3">
  <settings end="1" step="1 ms" gravity="0 0 0"/>
  <ground><marker name="O"/></ground>
  <fe-body kind="matrix-market" name="beam" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6"
           units="m-kg-s" clamp="1" reduction="craig-bampton" interface="521" modes="8">
    <marker name="root" node="1"/>
    <marker name="tip" node="521"/>
  </fe-body>
  <fixed name="wall" i="ground.O" j="beam.root"/>
  <force name="push" i="beam.tip" fx="2000 N" fy="0.5 N" fz="1 N"/>
</model>`
	path := filepath.Join(dir, "model.xml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	ms, err := xml.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		if strings.Contains(err.Error(), "takes at most") {
			t.Fatalf("craig-bampton is still refused beyond 3000 free dofs: %v", err)
		}
		t.Fatal(err)
	}
	took := time.Since(t0)
	red := m.Reductions()
	if len(red) != 1 || red[0].Dofs != 6*ne || red[0].Basis != "craig-bampton" || len(red[0].Kept) != 6+8 || len(red[0].Full) != 8 {
		t.Fatalf("reduction report %+v", red)
	}
	r := red[0]
	// the cantilever's frequencies (Hz)
	bl := []float64{1.875104068711961, 4.694091132974175, 7.854757438237613, 10.99554073487547, 14.13716839104647, 17.27875953208824}
	var want []float64
	for _, I := range []float64{Iy, Iz} {
		for _, b := range bl {
			want = append(want, b*b*math.Sqrt(E*I/(rho*A*L*L*L*L))/(2*math.Pi))
		}
	}
	for k := 1; k <= 3; k++ {
		want = append(want, float64(2*k-1)*math.Pi/(2*L)*math.Sqrt(G*J/(rho*(Iy+Iz)))/(2*math.Pi))
		want = append(want, float64(2*k-1)*math.Pi/(2*L)*math.Sqrt(E/rho)/(2*math.Pi))
	}
	sortFloats(want)
	worstFull, worstKept := 0.0, 0.0
	for k, f := range r.Full {
		worstFull = math.Max(worstFull, math.Abs(f-want[k])/want[k])
		if r.Kept[k] < f*(1-1e-9) {
			t.Errorf("mode %d: reduced %.9g Hz below the FE model's %.9g Hz", k+1, r.Kept[k], f)
		}
		if k < 2 {
			worstKept = math.Max(worstKept, (r.Kept[k]-f)/f)
		}
	}
	t.Logf("%d free dofs read and reduced (Craig–Bampton, 6 + 8 shapes) in %v; FE model %.6g … %.6g Hz, %.2g from the cantilever's closed forms; the reduced model's lowest in both planes within %.2g of them",
		r.Dofs, took.Round(time.Millisecond), r.Full[0], r.Full[7], worstFull, worstKept)
	if worstFull > 1e-6 || worstKept > 1e-4 {
		t.Errorf("FE model %v Hz, closed form %v Hz, reduced %v Hz", r.Full, want[:8], r.Kept)
	}
	// static deflection under the tip force
	idx := func(names ...string) []int {
		var out []int
		for _, n := range names {
			k, ok := m.ChannelIndex(n)
			if !ok {
				t.Fatalf("no channel %q", n)
			}
			out = append(out, k)
		}
		return out
	}
	tip := idx("beam.tip.ux", "beam.tip.uy", "beam.tip.uz")
	// (the elements' y axis is the global z: bending along global y is
	// about their z … along z about their y; see feTestFrame.element)
	exact := []float64{Fx * L / (E * A), Fy * L * L * L / (3 * E * Iy), Fz * L * L * L / (3 * E * Iz)}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	ch := make([]float64, len(m.Channels()))
	m.EvalChannels(s, ch)
	for c, k := range tip {
		t.Logf("static tip u%c = %.12g m (beam theory %.12g m)", "xyz"[c], ch[k], exact[c])
		if math.Abs(ch[k]-exact[c]) > 1e-5*math.Abs(exact[c]) {
			t.Errorf("static tip u%c = %.12g m, beam theory %.12g m", "xyz"[c], ch[k], exact[c])
		}
	}
	// the step response over 0.7 s (the first mode's half period is
	// 0.62 s)
	s = m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	lo, hi := 0.0, 0.0
	for k := 1; k <= 700; k++ {
		if err := m.AdvanceTo(s, float64(k)*1e-3); err != nil {
			t.Fatalf("t = %g s: %v", float64(k)*1e-3, err)
		}
		m.EvalChannels(s, ch)
		uy := ch[tip[1]] / exact[1]
		lo, hi = math.Min(lo, uy), math.Max(hi, uy)
	}
	t.Logf("step response: the tip's uy between %.6f and %.6f times its static deflection", lo, hi)
	if lo < -1e-3 || hi > 2.001 || hi < 1.9 {
		t.Errorf("step response: tip uy from %.6g to %.6g times the static deflection, want within [0, 2] and above 1.9", lo, hi)
	}
}

// sortFloats sorts ascending (insertion: a few values).
func sortFloats(a []float64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// BenchmarkFESparseCraigBamptonTower100k reads and reduces (Craig–Bampton,
// the four top corners as interface, 10 fixed-interface modes) a braced
// tower of 260 storeys clamped at its base: 16 664 nodes, 99 984 dofs
// (Matrix Market files of 2.6 million entries written to a temporary
// directory): `go test -bench CraigBamptonTower100k -benchtime 1x
// ./solver/flex`.
func BenchmarkFESparseCraigBamptonTower100k(b *testing.B) {
	dir := b.TempDir()
	n, base, top, err := flex.WriteFETestTower(dir, 260, 6)
	if err != nil {
		b.Fatal(err)
	}
	labels := func(ls []int) string {
		var s []string
		for _, l := range ls {
			s = append(s, strconv.Itoa(l))
		}
		return strings.Join(s, " ")
	}
	src := `<model name="tower" dimension="3">
  <settings gravity="0 0 0"/>
  <fe-body kind="matrix-market" name="tower" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6"
           units="m-kg-s" clamp="` + labels(base) + `" reduction="craig-bampton" interface="` + labels(top) + `" modes="10"/>
</model>`
	path := filepath.Join(dir, "model.xml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		t0 := time.Now()
		ms, err := xml.LoadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		m, err := solver.Compile(ms, solver.CompileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		r := m.Reductions()[0]
		b.Logf("%d dofs (%d free): read and reduced to %d shapes in %v; FE model %.6g … %.6g Hz, reduced %.6g … %.6g Hz", n, r.Dofs, len(r.Kept), time.Since(t0).Round(time.Millisecond), r.Full[0], r.Full[len(r.Full)-1], r.Kept[0], r.Kept[len(r.Kept)-1])
	}
}
