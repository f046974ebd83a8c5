package solver_test

// Geometric stiffening of imported FE bodies (<fe-body><prestress>,
// solver/flex/feprestress.go) against an independent reference: the
// linearised equations of the whole mesh in the rotating frame written in
// numpy with the geometric stiffness computed from the axial force's
// formula (scripts/reference/fe_blade.py), and the geometrically exact rod
// and the stiffened FFR beam of the same slewing beam.

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const bladeDir = "../examples/fe-blade"

// bladeRef reads a column of examples/fe-blade/reference-eigen.csv.
func bladeRef(t *testing.T, col string) []float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bladeDir, "reference-eigen.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	k := -1
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, ",")
		if f[0] == "mode" {
			for i, h := range f {
				if h == col {
					k = i
				}
			}
			continue
		}
		if k < 0 {
			t.Fatalf("no column %q", col)
		}
		v, err := strconv.ParseFloat(f[k], 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// bladeModel is the blade clamped to a hub spinning at W (rad/s) about z
// from the start, or hanging under gravity along its length (hang), with
// the <prestress> children pre.
func bladeModel(hang bool, pre string) string {
	mount := `<body name="hub" mass="1 kg" inertia="1, 1, 1 kg*m^2"><marker name="root"/></body>
  <revolute name="axle" i="ground.O" j="hub"/>
  <driver name="spin" joint="axle" value="4*time"/>
  <fixed name="mount" i="hub.root" j="beam.root"/>`
	grav, axes := "0 0 0", ""
	if hang {
		mount = `<fixed name="mount" i="ground.O" j="beam.root"/>`
		grav, axes = "0 0 -9.81", `x-axis="0 0 -1" y-axis="0 1 0"`
	}
	return `<model name="blade" dimension="3">
  <settings end="1 s" step="1 ms" integrator="genalpha" gravity="` + grav + `"/>
  <ground><marker name="O"/></ground>
  <fe-body kind="matrix-market" name="beam" mass="blade_MASS.mtx" stiffness="blade_STIFF.mtx" nodes="blade.nodes"
           dofs-per-node="6" units="m-kg-s" clamp="1" reduction="modal" modes="10" ` + axes + `>
    <marker name="root" node="1"/>
    ` + pre + `
  </fe-body>
  ` + mount + `
</model>`
}

const bladePre = `<prestress omega="0 0 10 rad/s" stiffness="blade_SPINZ.mtx"/>
    <prestress acceleration="5 0 0 m/s^2" stiffness="blade_ACCX.mtx"/>`

// The blade spinning at 4 rad/s: the frequencies its rotating frame sees
// are the numpy reference's to 1e-8 with the spin's geometric stiffness
// (its first flapwise mode 0.534 Hz, 21 times the blade's at rest), and
// without it (spin0) the same reference formulation's; hanging under
// gravity its tension stiffens it as the reference's N = μ g (L − x).
func TestFEPrestressFrequencies(t *testing.T) {
	for _, c := range []struct {
		col  string
		hang bool
		pre  string
	}{{"spin", false, bladePre}, {"spin0", false, ""}, {"hanging", true, bladePre}, {"rest", true, ""}} {
		m, err := feModel(t, bladeDir, bladeModel(c.hang, c.pre))
		if err != nil {
			t.Fatal(err)
		}
		s := exInit(t, m)
		if !c.hang {
			if err := m.AdvanceTo(s, 0.1); err != nil {
				t.Fatal(err)
			}
		}
		compareFreqs(t, c.col, linFreqs(t, m, s, 0, false), bladeRef(t, c.col), 10, 1e-8)
	}
}

// A spin about the diagonal of y and z gives the coupling generator G_yz
// = (ΔK − ω_y² G_yy − ω_z² G_zz)/(ω_y ω_z): for a beam along x the three
// spins stress it alike, so G_yz vanishes and the model spins about z as
// with G_zz alone (the files are the z spin's, rescaled: |ω| is what
// matters). Bad <prestress> loads are refused, naming the attribute.
func TestFEPrestressLoads(t *testing.T) {
	diag := `<prestress omega="0 0 10 rad/s" stiffness="blade_SPINZ.mtx"/>
    <prestress omega="0 10 0 rad/s" stiffness="blade_SPINZ.mtx"/>
    <prestress omega="0 7.0710678118654752 7.0710678118654752 rad/s" stiffness="blade_SPINZ.mtx"/>
    <prestress acceleration="5 0 0 m/s^2" stiffness="blade_ACCX.mtx"/>`
	m, err := feModel(t, bladeDir, bladeModel(false, diag))
	if err != nil {
		t.Fatal(err)
	}
	s := exInit(t, m)
	if err := m.AdvanceTo(s, 0.1); err != nil {
		t.Fatal(err)
	}
	compareFreqs(t, "spin, with the y and yz generators", linFreqs(t, m, s, 0, false), bladeRef(t, "spin"), 10, 1e-8)

	dir := t.TempDir()
	for _, f := range []string{"blade_MASS.mtx", "blade_STIFF.mtx", "blade_SPINZ.mtx", "blade.nodes"} {
		b, _ := os.ReadFile(filepath.Join(bladeDir, f))
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "small.mtx"), []byte("%%MatrixMarket matrix coordinate real symmetric\n6 6 1\n1 1 1.0\n"), 0o644)
	for _, c := range []struct{ pre, want string }{
		{`<prestress stiffness="blade_SPINZ.mtx"/>`, `test.xml:7: prestress: fe-body "beam": a <prestress> names the one load that prestressed the FE model: omega, acceleration or angular-acceleration (got 0)`},
		{`<prestress omega="0 0 10" acceleration="1 0 0" stiffness="blade_SPINZ.mtx"/>`, `(got 2)`},
		{`<prestress omega="0 0 0" stiffness="blade_SPINZ.mtx"/>`, `omega: fe-body "beam": the <prestress> load omega is zero`},
		{`<prestress acceleration="3 4 0" stiffness="blade_SPINZ.mtx"/>`, `acceleration: fe-body "beam": a <prestress> acceleration must lie along one axis of the FE model`},
		{`<prestress omega="1 1 1" stiffness="blade_SPINZ.mtx"/>`, `must lie along one axis`},
		{`<prestress omega="0 5 5" stiffness="blade_SPINZ.mtx"/>`, `omega: fe-body "beam": a <prestress> spin about the diagonal of y and z gives the coupling of the two spins; it needs the spins about y and about z too`},
		{`<prestress omega="0 0 10" stiffness="blade_SPINZ.mtx"/><prestress omega="0 0 -3" stiffness="blade_SPINZ.mtx"/>`, `test.xml:7: prestress: fe-body "beam": a second <prestress> for a spin about z (the first on line 7)`},
		{`<prestress omega="0 0 10" stiffness="small.mtx"/>`, `stiffness: fe-body "beam": the prestressed stiffness matrix is 6×6, the stiffness matrix 78×78`},
		{`<prestress omega="0 0 10" stiffness="none.mtx"/>`, `stiffness: fe-body "beam": open`},
		{`<prestress omega="0 0 10" stiffness=""/><prestress acceleration="5 0 0" stiffness="blade_SPINZ.mtx"/>`, `test.xml:7: stiffness: fe-body "beam": a <prestress> needs its stiffness file`},
		{`<prestress omega="0 0 10" stiffness="blade_SPINZ.mtx" torque="1"/>`, `torque`},
	} {
		_, err := feModel(t, dir, bladeModel(false, c.pre))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.pre, err, c.want)
		}
	}
}

// Wu and Haug's spin-up with the blade imported (examples/fe-blade): its
// tip lag follows the stiffened FFR beam of examples/slewing-beam/ffr.xml
// and the geometrically exact rod of model.xml within 1 % of the peak;
// without its <prestress> it leaves them once the spin passes the first
// bending frequency.
func TestFEPrestressSlewing(t *testing.T) {
	_, fe, err := series(t, flexLoad(t, "fe-blade/model.xml", nil), 0.5, "defl")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"slewing-beam/ffr.xml", "slewing-beam/model.xml"} {
		_, r, err := series(t, flexLoad(t, ref, nil), 0.5, "defl")
		if err != nil {
			t.Fatal(err)
		}
		peak, worst := 0.0, 0.0
		for i := range r[0] {
			peak = math.Max(peak, math.Abs(r[0][i]))
			worst = math.Max(worst, math.Abs(fe[0][i]-r[0][i]))
		}
		t.Logf("tip lag: peak %.4f m (%s); the imported blade differs by at most %.2e m (%.2g %%)", peak, ref, worst, 100*worst/peak)
		if worst > 0.01*peak {
			t.Errorf("the imported blade's tip lag differs from %s's by %.3g m (%.2g %% of the peak)", ref, worst, 100*worst/peak)
		}
	}
	ms := exLoadSpec(t, "fe-blade/model.xml")
	for k := range ms.Beams[0].Attr {
		if strings.HasPrefix(k, "prestress") {
			delete(ms.Beams[0].Attr, k)
		}
	}
	_, none, err := series(t, specCompile(t, ms, nil, "fe-blade/model.xml"), 0.5, "defl")
	far := 0.0
	for i := range none[0] {
		far = math.Max(far, math.Abs(none[0][i]-fe[0][i]))
	}
	t.Logf("without <prestress>: leaves the stiffened blade by %.3g m (%v)", far, err)
	if err == nil && far < 1 {
		t.Errorf("without its prestress the blade should leave the stiffened one past the first bending frequency; it stays within %.3g m", far)
	}
}
