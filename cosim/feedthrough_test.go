package cosim

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Direct feedthrough of third-party FMUs (master.go, feedthrough in
// fmuslave.go): an FMU whose <ModelStructure> declares outputs depending
// directly on inputs is refreshed in the direct phase (inputs set at t+h,
// outputs read again) instead of lagging a macro step behind. The test FMU
// is testdata/pift (C, FMI 2.0 and 3.0 in one binary): a PI controller
// u = kp·(r − y) + I with direct feedthrough from r and y, a gain channel
// b = kb·a, and the integral i (no feedthrough).

// piftFolder writes the unpacked test FMU of testdata/pift into dir/name:
// its FMI 2.0 (fmi3 false) or FMI 3.0 modelDescription.xml passed through
// edit (nil: as it is), and the binary built with gcc.
func piftFolder(t testing.TB, dir, name string, fmi3 bool, edit func(string) string) string {
	t.Helper()
	root := filepath.Join(dir, name)
	src, platform := "testdata/pift/modelDescription.xml", "linux64"
	if fmi3 {
		src, platform = "testdata/pift/modelDescription3.xml", "x86_64-linux"
	}
	md, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	if edit != nil {
		s = edit(s)
	}
	writeFile(t.(*testing.T), root, "modelDescription.xml", s)
	if err := os.MkdirAll(filepath.Join(root, "binaries", platform), 0o755); err != nil {
		t.Fatal(err)
	}
	gcc(t, filepath.Join(root, "binaries", platform, "pift.so"), "testdata/pift/pift.c")
	return root
}

// Outputs of <ModelStructure> without feedthrough, as plant FMUs have.
var (
	dropDeps  = regexp.MustCompile(` dependencies="[^"]*"( dependenciesKind="[^"]*")?`)
	emptyDeps = regexp.MustCompile(`(<(?:Unknown index|Output valueReference)="\d+") dependencies="[^"]*"( dependenciesKind="[^"]*")?`)
)

// noDeps removes the dependencies of every unknown: by the standard the
// outputs may then depend on every known, which the master does not take
// for feedthrough.
func noDeps(s string) string { return dropDeps.ReplaceAllString(s, "") }

// depsNone declares every output dependent on no known (dependencies="").
func depsNone(s string) string { return emptyDeps.ReplaceAllString(s, `$1 dependencies=""`) }

const (
	ftStep    = 0.01 // macro step, s
	ftKp      = 100.0
	ftKi      = 200.0
	ftKb      = 0.5
	ftRefExpr = "1 + 0.5*sin(5*time)"
)

// ftLoop is the closed loop of the tests: the free body (mass 2 kg) whose
// speed follows kb·ref, the controller either the FMU at ctlPath (its gain
// channel b = kb·a feeding its own setpoint r) or, ctlPath "", mbfmu's
// in-process <state-space> gain and <pid>. kp·h/m = 0.5: one macro step
// of delay in the loop changes its response markedly.
func ftLoop(t *testing.T, dir, ctlPath string) *Config {
	t.Helper()
	writeFile(t, dir, "body.xml", freeBody)
	ctl := fmt.Sprintf(`  <state-space name="g" a="0" b="0" c="0" d="%g"/>
  <pid name="ctl" kp="%g" ki="%g"/>
  <connect from="ref.y" to="g.u1"/>
  <connect from="g.y1" to="ctl.r"/>`, ftKb, ftKp, ftKi)
	if ctlPath != "" {
		ctl = fmt.Sprintf(`  <fmu name="ctl" path=%q>
    <parameter name="kp" value="%g"/>
    <parameter name="ki" value="%g"/>
    <parameter name="kb" value="%g"/>
  </fmu>
  <connect from="ref.y" to="ctl.a"/>
  <connect from="ctl.b" to="ctl.r"/>`, ctlPath, ftKp, ftKi, ftKb)
	}
	p := writeFile(t, dir, "loop.xml", fmt.Sprintf(`<cosim name="ft-loop">
  <settings end="2 s" step="%g"/>
  <model name="plant" path="body.xml"/>
  <signal name="ref" expr=%q/>
%s
  <connect from="plant.vx" to="ctl.y"/>
  <connect from="ctl.u" to="plant.F"/>
</cosim>`, ftStep, ftRefExpr, ctl))
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// maxDiff returns max |a − b| over the rows.
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// refreshes lists the refresh entries of the direct phase.
func refreshes(m *Master) []string {
	var out []string
	for _, it := range m.order {
		if it.r != nil {
			out = append(out, it.label)
		}
	}
	return out
}

// (a) The loop closed through the feedthrough FMU (FMI 2.0 and 3.0, by
// dlopen) equals the loop with the in-process <state-space> gain and <pid>
// to round-off, from the first row on: the FMU's gain channel b is
// refreshed first, then, with b at r, its output u. The same FMU with its
// dependencies left out is run as before (Jacobi) and lags: its result is
// far from the in-process loop.
func TestFeedthroughFMUMatchesInProcess(t *testing.T) {
	dir := t.TempDir()
	_, ref := runConfig(t, ftLoop(t, dir, ""))
	cols := [][2]string{{"plant.x", "plant.x"}, {"plant.vx", "plant.vx"}, {"ctl.u", "ctl.u"}, {"ctl.b", "g.y1"}}
	for _, fmi3 := range []bool{false, true} {
		ver := map[bool]string{false: "FMI 2.0", true: "FMI 3.0"}[fmi3]
		ft := piftFolder(t, dir, fmt.Sprintf("pift%v", fmi3), fmi3, nil)
		m, w := runConfig(t, ftLoop(t, dir, ft))
		if f := m.comps[2].(*fmuComp); f.inProc {
			t.Fatalf("%s: the C FMU was taken for an mbfmu FMU", ver)
		}
		if got, want := refreshes(m), []string{"ctl (refresh b)", "ctl (refresh u)"}; strings.Join(got, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: refreshes %q, want %q", ver, got, want)
		}
		d := m.Describe()
		if !strings.Contains(d, "direct evaluation order: ref → ctl (refresh b) → ctl (refresh u)") ||
			!strings.Contains(d, "direct feedthrough u ← r y, direct feedthrough b ← a") {
			t.Errorf("%s: summary\n%s", ver, d)
		}
		lagCfg := ftLoop(t, dir, piftFolder(t, dir, fmt.Sprintf("pift%v_nodeps", fmi3), fmi3, noDeps))
		lm, lag := runConfig(t, lagCfg)
		if r := refreshes(lm); len(r) != 0 {
			t.Errorf("%s: an FMU without dependencies is refreshed: %q", ver, r)
		}
		for _, c := range cols {
			a, b, l := w.col(t, c[0]), ref.col(t, c[1]), lag.col(t, c[0])
			scale := math.Max(1, maxAbsAfter(ref.col(t, "time"), b, 0))
			dFT, dLag := maxDiff(a, b), maxDiff(l, b)
			t.Logf("%s %-8s: max |FMU − in-process| %.3g, as before (Jacobi, one step late) %.3g (scale %.3g)", ver, c[0], dFT, dLag, scale)
			if dFT > 1e-12*scale {
				t.Errorf("%s %s: the feedthrough FMU differs from the in-process controller by %g", ver, c[0], dFT)
			}
			if dLag < 0.005*scale {
				t.Errorf("%s %s: the lagged loop differs from the in-process one by only %g: the test cannot tell", ver, c[0], dLag)
			}
		}
		// the first row: refreshed at the start, u = kp·(kb·ref(0) − 0)
		if u := w.col(t, "ctl.u")[0]; u != ftKp*ftKb*1 {
			t.Errorf("%s: u at the start %g, want %g", ver, u, ftKp*ftKb)
		}
		if u := lag.col(t, "ctl.u")[0]; u != 0 {
			t.Errorf("%s: without dependencies u at the start %g, want 0 (the start values)", ver, u)
		}
	}
}

// (b) An FMU whose outputs do not declare dependencies (absent: "may
// depend on every known") or declare none (dependencies="") is stepped as
// before: Jacobi, its outputs those after the step, with the inputs of the
// previous communication point. The run equals, to round-off, the
// difference equations of that scheme, and the two descriptions give the
// same bits. Both FMI versions.
func TestFeedthroughAbsentStaysJacobi(t *testing.T) {
	dir := t.TempDir()
	for _, fmi3 := range []bool{false, true} {
		ver := map[bool]string{false: "FMI 2.0", true: "FMI 3.0"}[fmi3]
		_, w := runConfig(t, ftLoop(t, dir, piftFolder(t, dir, fmt.Sprintf("absent%v", fmi3), fmi3, noDeps)))
		m0, w0 := runConfig(t, ftLoop(t, dir, piftFolder(t, dir, fmt.Sprintf("none%v", fmi3), fmi3, depsNone)))
		if r := refreshes(m0); len(r) != 0 {
			t.Errorf("%s: an FMU with dependencies=\"\" is refreshed: %q", ver, r)
		}
		if f := m0.comps[2].(*fmuComp); f.ft != nil {
			t.Errorf("%s: dependencies=\"\" read as feedthrough %v", ver, f.ft)
		}
		// Jacobi: at step k the FMU gets r = b_k, y = v_k, a = ref(t_k)
		// and returns after its step b_{k+1} = kb·a_k, I_{k+1} = I_k +
		// ki·h·(b_k − v_k), u_{k+1} = kp·(b_k − v_k) + I_{k+1}; at the start
		// its inputs are the start values 0.
		const h, mass = ftStep, bodyMass
		x, v, u, b, I := 0.0, 0.0, 0.0, 0.0, 0.0
		xs, vs, us, bs := w.col(t, "plant.x"), w.col(t, "plant.vx"), w.col(t, "ctl.u"), w.col(t, "ctl.b")
		worst := 0.0
		for k := range w.rows {
			worst = math.Max(worst, math.Max(math.Max(math.Abs(xs[k]-x), math.Abs(vs[k]-v)), math.Max(math.Abs(us[k]-u)/100, math.Abs(bs[k]-b))))
			tk := float64(k) * h
			e := b - v
			I += ftKi * h * e
			x, v, u, b = x+h*v+h*h*u/(2*mass), v+h*u/mass, ftKp*e+I, ftKb*(1+0.5*math.Sin(5*tk))
		}
		t.Logf("%s: largest difference from the Jacobi recursion %.3g (u scaled by 1/100)", ver, worst)
		if worst > 1e-9 {
			t.Errorf("%s: the FMU without feedthrough left Jacobi: %g from the recursion", ver, worst)
		}
		for _, c := range []string{"plant.x", "plant.vx", "ctl.u", "ctl.b", "ctl.i"} {
			if d := maxDiff(w.col(t, c), w0.col(t, c)); d != 0 {
				t.Errorf("%s %s: absent and empty dependencies differ by %g", ver, c, d)
			}
		}
	}
}

// (c) An algebraic loop through feedthrough FMUs — two of them feeding
// each other, one with a direct component, one feeding itself — is
// refused when the master is built, naming the components and the
// feedthrough paths, at the connection that closes it. Without
// dependencies the same loops run (Jacobi). A chain through two
// independent channels of one FMU (b → r, as in (a)) is no loop.
func TestFeedthroughAlgebraicLoop(t *testing.T) {
	dir := t.TempDir()
	ft := piftFolder(t, dir, "pift", false, nil)
	ft3 := piftFolder(t, dir, "pift3", true, nil)
	plain := piftFolder(t, dir, "pift_nodeps", false, noDeps)
	for _, c := range []struct {
		name, body, want string
	}{
		{"two FMUs", `<fmu name="fa" path="FT"/>
  <fmu name="fb" path="FT3"/>
  <signal name="ref" expr="1"/>
  <connect from="ref.y" to="fa.r"/>
  <connect from="ref.y" to="fb.r"/>
  <connect from="fa.b" to="fb.a"/>
  <connect from="fb.b" to="fa.a"/>`,
			"c.xml:7: algebraic loop through direct feedthrough among fa, fb (FMU outputs that depend directly on inputs, as the FMUs' modelDescription.xml declares: fa.b ← a; fb.b ← a): break it with a stepped component (a model, or an FMU without direct feedthrough)"},
		{"FMU and PID", `<signal name="ref" expr="1"/>
  <fmu name="fa" path="FT"/>
  <pid name="pid" kp="2"/>
  <connect from="ref.y" to="fa.r"/>
  <connect from="ref.y" to="pid.r"/>
  <connect from="fa.u" to="pid.y"/>
  <connect from="pid.u" to="fa.y"/>`,
			"algebraic loop through direct feedthrough among fa, pid (FMU outputs that depend directly on inputs, as the FMUs' modelDescription.xml declares: fa.u ← r, y)"},
		{"FMU and limit", `<signal name="ref" expr="1"/>
  <fmu name="fa" path="FT"/>
  <limit name="lim" min="-1" max="1"/>
  <connect from="ref.y" to="fa.r"/>
  <connect from="fa.u" to="lim.u"/>
  <connect from="lim.y" to="fa.y"/>`,
			"c.xml:6: algebraic loop through direct feedthrough among fa, lim (FMU outputs that depend directly on inputs, as the FMUs' modelDescription.xml declares: fa.u ← r, y)"},
		{"FMU feeding itself", `<fmu name="fa" path="FT"/>
  <signal name="ref" expr="1"/>
  <connect from="ref.y" to="fa.r"/>
  <connect from="fa.b" to="fa.a"/>`,
			"c.xml:5: algebraic loop through direct feedthrough among fa (FMU outputs that depend directly on inputs, as the FMUs' modelDescription.xml declares: fa.b ← a)"},
	} {
		src := "<cosim>\n  " + strings.NewReplacer("FT3", ft3, "FT", ft).Replace(c.body) + "\n</cosim>"
		cfg, err := ParseConfig([]byte(src), filepath.Join(dir, "c.xml"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m, err := New(cfg, Options{})
		if err == nil {
			m.Close()
			t.Errorf("%s: accepted", c.name)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error\n%v\nwant\n%s", c.name, err, c.want)
		}
		// the same loop with FMUs that declare no dependencies runs
		src = "<cosim>\n  <settings end=\"0.05\" step=\"0.01\"/>\n  " + strings.NewReplacer("FT3", plain, "FT", plain).Replace(c.body) + "\n</cosim>"
		cfg, err = ParseConfig([]byte(src), filepath.Join(dir, "c.xml"))
		if err != nil {
			t.Fatal(err)
		}
		m, err = New(cfg, Options{})
		if err != nil {
			t.Errorf("%s without dependencies: %v", c.name, err)
			continue
		}
		if _, err := m.Run(RunOptions{}); err != nil {
			t.Errorf("%s without dependencies: %v", c.name, err)
		}
		m.Close()
	}
}

// A macro step of a loop with a refreshed FMU allocates nothing.
func TestFeedthroughNoAllocs(t *testing.T) {
	dir := t.TempDir()
	for _, fmi3 := range []bool{false, true} {
		cfg := ftLoop(t, dir, piftFolder(t, dir, fmt.Sprintf("pift%v", fmi3), fmi3, nil))
		m, err := New(cfg, Options{End: 100})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if err := m.Init(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if err := m.Advance(); err != nil {
				t.Fatal(err)
			}
		}
		var stepErr error
		a := testing.AllocsPerRun(200, func() {
			if err := m.Advance(); err != nil && stepErr == nil {
				stepErr = err
			}
		})
		if stepErr != nil {
			t.Fatal(stepErr)
		}
		if a != 0 {
			t.Errorf("fmi3 %v: %g allocations per macro step with refreshes, want 0", fmi3, a)
		}
	}
}

// The dependencies of <ModelStructure>: FMI 2.0 indices and FMI 3.0 value
// references resolved to ports; absent and empty lists give no
// feedthrough; entries that name nothing are errors.
func TestFeedthroughDescription(t *testing.T) {
	for _, file := range []string{"testdata/pift/modelDescription.xml", "testdata/pift/modelDescription3.xml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		md, err := readDescription(data)
		if err != nil {
			t.Fatal(err)
		}
		// ports: inputs r, y, a; outputs u, b, i
		if got := fmt.Sprint(feedthrough(md)); got != "[[0 1] [2] []]" {
			t.Errorf("%s: feedthrough %s, want [[0 1] [2] []]", file, got)
		}
		for name, edit := range map[string]func(string) string{"absent": noDeps, "empty": depsNone} {
			md, err := readDescription([]byte(edit(string(data))))
			if err != nil {
				t.Fatal(err)
			}
			if ft := feedthrough(md); ft != nil {
				t.Errorf("%s, %s dependencies: feedthrough %v, want none", file, name, ft)
			}
			if v := md.variable("u"); v.DepsGiven != (name == "empty") {
				t.Errorf("%s, %s dependencies: DepsGiven %v", file, name, v.DepsGiven)
			}
		}
	}
	fmi2, _ := os.ReadFile("testdata/pift/modelDescription.xml")
	fmi3, _ := os.ReadFile("testdata/pift/modelDescription3.xml")
	for _, c := range []struct {
		data     []byte
		old, new string
		want     string
	}{
		{fmi2, `dependencies="1 2"`, `dependencies="1 12"`, `<ModelStructure><Outputs><Unknown index=3> (u): dependency index 12 is not in 1…9`},
		{fmi2, `dependencies="1 2"`, `dependencies="1 y"`, `dependencies "1 y": "y" is not a whole number`},
		{fmi2, `<Unknown index="3" dependencies`, `<Unknown index="2" dependencies`, `<Unknown index=2>: y is an input, not an output`},
		{fmi3, `dependencies="0 1"`, `dependencies="0 77"`, `<ModelStructure><Output valueReference=2> (u): dependency value reference 77 names no variable`},
		{fmi3, `<Output valueReference="2"`, `<Output valueReference="6"`, `kp is a parameter, not an output`},
	} {
		_, err := readDescription([]byte(strings.Replace(string(c.data), c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: error %v, want %q", c.old, c.new, err, c.want)
		}
	}
}

// referenceFMUs is the git directory of the Reference FMUs of the Modelica
// Association (github.com/modelica/Reference-FMUs), used when present
// (MBFMU_REFERENCE_FMUS overrides where).
func referenceFMUs(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MBFMU_REFERENCE_FMUS")
	if dir == "" {
		dir = "/work/.mirror/modelica+Reference-FMUs/repo"
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no Reference FMUs at %s", dir)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	return dir
}

// The Reference FMUs' Feedthrough (FMI 2.0 and 3.0, built with gcc from
// the sources): its <ModelStructure> declares Float64_continuous_output
// dependent on Float64_continuous_input (dependenciesKind constant). Two
// instances in a chain after a signal: both refreshed in the direct phase,
// the first before the second, so the second's output is the signal at
// every communication point, the start included — before, the chain was
// two macro steps late.
func TestFeedthroughReferenceFMU(t *testing.T) {
	git := referenceFMUs(t)
	needGCC(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("git", "--git-dir="+git, "archive", "--format=tar", "-o", filepath.Join(dir, "src.tar"), "HEAD", "include", "src", "Feedthrough")
	if out, err := archive.CombinedOutput(); err != nil {
		t.Skipf("git archive: %v\n%s", err, out)
	}
	if out, err := exec.Command("tar", "-xf", filepath.Join(dir, "src.tar"), "-C", src).CombinedOutput(); err != nil {
		t.Skipf("tar: %v\n%s", err, out)
	}
	for _, v := range []int{2, 3} {
		root := filepath.Join(dir, fmt.Sprintf("Feedthrough%d", v))
		platform := map[int]string{2: "linux64", 3: "x86_64-linux"}[v]
		if err := os.MkdirAll(filepath.Join(root, "binaries", platform), 0o755); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(src, "Feedthrough", fmt.Sprintf("FMI%d.xml", v)))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, root, "modelDescription.xml", string(md))
		out := filepath.Join(root, "binaries", platform, "Feedthrough.so")
		args := []string{"-shared", "-fPIC", "-O1", fmt.Sprintf("-DFMI_VERSION=%d", v), "-DDISABLE_PREFIX",
			"-I" + filepath.Join(src, "include"), "-I" + filepath.Join(src, "Feedthrough"), "-o", out,
			filepath.Join(src, "Feedthrough", "model.c"), filepath.Join(src, "src", fmt.Sprintf("fmi%dFunctions.c", v)),
			filepath.Join(src, "src", "cosimulation.c"), "-lm"}
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		// the same FMU without its dependencies: stepped as before
		lagRoot := root + "_nodeps"
		writeFile(t, lagRoot, "modelDescription.xml", noDeps(string(md)))
		lib, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(lagRoot, "binaries", platform), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lagRoot, "binaries", platform, "Feedthrough.so"), lib, 0o755); err != nil {
			t.Fatal(err)
		}
		run := func(root string) (*Master, *memWriter) {
			cfgPath := writeFile(t, dir, fmt.Sprintf("chain%d.xml", v), fmt.Sprintf(`<cosim name="feedthrough-chain">
  <settings end="0.5 s" step="10 ms"/>
  <signal name="ref" expr="sin(10*time) + 1"/>
  <fmu name="f1" path=%q/>
  <fmu name="f2" path=%q/>
  <connect from="f1.Float64_continuous_output" to="f2.Float64_continuous_input"/>
  <connect from="ref.y" to="f1.Float64_continuous_input"/>
</cosim>`, root, root))
			m := newMaster(t, cfgPath, Options{})
			w := &memWriter{}
			if _, err := m.Run(RunOptions{Writer: w}); err != nil {
				t.Fatalf("FMI %d.0: %v", v, err)
			}
			return m, w
		}
		m, w := run(root)
		if d := m.Describe(); !strings.Contains(d, "direct evaluation order: ref → f1 (refresh Float64_continuous_output) → f2 (refresh Float64_continuous_output)") {
			t.Errorf("FMI %d.0: summary\n%s", v, d)
		}
		r, y := w.col(t, "ref.y"), w.col(t, "f2.Float64_continuous_output")
		if d := maxDiff(r, y); d != 0 || len(r) != 51 {
			t.Errorf("FMI %d.0: the chain's output differs from its input by %g over %d rows, want 0", v, d, len(r))
		}
		_, lw := run(lagRoot)
		ly := lw.col(t, "f2.Float64_continuous_output")
		if d := maxDiff(ly[2:], r[:len(r)-2]); d != 0 || ly[0] != 0 || ly[1] != 0 {
			t.Errorf("FMI %d.0 without dependencies: the output is not the signal two steps late (%g)", v, d)
		}
		t.Logf("FMI %d.0: f2's output equals the signal on all %d rows; without dependencies it is the signal two macro steps late (off by up to %.3g)", v, len(r), maxDiff(ly, r))
	}
}
