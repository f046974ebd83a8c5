package cosim

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"mbfmu/fmu"
)

// The FMI 3.0 importer: modelDescription.xml of FMI 3.0 (archive.go), mbfmu
// FMI 3.0 FMUs in-process (goSlave3) and any FMI 3.0 FMU through dlopen
// (fmi3dl.go, fmi3_shim.c): mbfmu's own runtime library, forced onto the
// dlopen path with MBFMU_COSIM_DLOPEN, and a C FMU (testdata/pi3).

var (
	runtimeOnce sync.Once
	runtimeLib  string
	runtimeErr  error
	runtimeDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if runtimeDir != "" {
		os.RemoveAll(runtimeDir)
	}
	os.Exit(code)
}

// realRuntime builds the FMU runtime library from package cabi (as
// scripts/build-runtime.sh does with gcc: c-shared, only the fmi2/fmi3
// symbols exported), once per test binary.
func realRuntime(t *testing.T) string {
	t.Helper()
	needGCC(t)
	runtimeOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if runtimeDir, runtimeErr = os.MkdirTemp("", "mbfmu-cosim-runtime"); runtimeErr != nil {
			return
		}
		cabi, _ := filepath.Abs("../cabi")
		runtimeLib = filepath.Join(runtimeDir, fmu.RuntimeLibName)
		cmd := exec.Command(goTool, "build", "-buildmode=c-shared",
			"-ldflags=-extldflags=-Wl,--version-script="+filepath.Join(cabi, "exports.map"), "-o", runtimeLib, ".")
		cmd.Dir = cabi
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			runtimeErr = fmt.Errorf("building the runtime library: %v\n%s", err, out)
		}
	})
	if runtimeErr != nil {
		t.Fatal(runtimeErr)
	}
	return runtimeLib
}

// packVersion packs a model file as FMI version (2 or 3) with the runtime
// library lib into dir/name.fmu and returns the path and the description.
func packVersion(t *testing.T, model, dir, name, lib string, version int) (string, *fmu.Description) {
	t.Helper()
	out := filepath.Join(dir, name+".fmu")
	d, err := fmu.PackVersion(model, out, lib, version)
	if err != nil {
		t.Fatal(err)
	}
	return out, d
}

// openArchive opens an FMU, closed when the test ends.
func openArchive(t *testing.T, path string) *fmuArchive {
	t.Helper()
	a, err := openFMU(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	return a
}

// pi3Folder writes the unpacked C FMU of testdata/pi3 into dir/name:
// modelDescription.xml, and with gcc the binary under
// binaries/x86_64-linux.
func pi3Folder(t *testing.T, dir, name string, withBinary bool) string {
	t.Helper()
	root := filepath.Join(dir, name)
	md, err := os.ReadFile("testdata/pi3/modelDescription.xml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "modelDescription.xml", string(md))
	if withBinary {
		if err := os.MkdirAll(filepath.Join(root, "binaries", "x86_64-linux"), 0o755); err != nil {
			t.Fatal(err)
		}
		gcc(t, filepath.Join(root, "binaries", "x86_64-linux", "pi_controller3.so"), "testdata/pi3/pi3.c")
	}
	return root
}

// mbfmu's FMI 3.0 description read by the master: every scalar of the FMI
// 2.0 description of the same model with its value reference, unit and
// start, as a scalar Float64 (connectable); the independent variable time
// with the value reference the packer gave it; the three array outputs of
// the Furuta pendulum's vector and matrix channels with their dimensions
// (not connectable); the co-simulation capabilities; the FMI 3.0 platform
// folder and a plain resource path.
func TestFMI3ArchiveMbfmu(t *testing.T) {
	dir := t.TempDir()
	lib := fakeRuntime(t, dir)
	p2, d2 := packVersion(t, "../examples/furuta/model.xml", dir, "furuta2", lib, 2)
	p3, d3 := packVersion(t, "../examples/furuta/model.xml", dir, "furuta3", lib, 3)
	a2, a3 := openArchive(t, p2), openArchive(t, p3)
	md := a3.md
	if md.FMIVersion != "3.0" || !md.fmi3() || a2.md.fmi3() {
		t.Fatalf("fmiVersion %q (fmi3 %v), FMI 2.0 archive fmi3 %v", md.FMIVersion, md.fmi3(), a2.md.fmi3())
	}
	if md.GUID == "" || md.GUID != d3.GUID || md.GUID != a2.md.GUID {
		t.Errorf("instantiationToken %q, packer's %q, FMI 2.0 guid %q", md.GUID, d3.GUID, a2.md.GUID)
	}
	if !a3.ours() {
		t.Error("the FMI 3.0 FMU is not recognised as packed by mbfmu")
	}
	cs := md.CoSimulation
	if cs.ModelIdentifier != "furuta" || cs.CanHandleVariableCommunicationStepSize != "true" || cs.MaxOutputDerivativeOrder != "1" ||
		!cs.canGetAndSetState() || !cs.canSerializeState() || cs.CanInterpolateInputs != "" || cs.HasEventMode != "false" {
		t.Errorf("<CoSimulation> read as %+v", *cs)
	}
	if !a2.md.CoSimulation.canGetAndSetState() {
		t.Error("FMI 2.0 canGetAndSetFMUstate not read")
	}
	// the scalars: same names, value references, units and starts as FMI 2.0
	if len(d2.Variables) != len(d3.Variables) || len(d3.Arrays) != 3 {
		t.Fatalf("%d FMI 2.0 variables, %d FMI 3.0 scalars and %d arrays", len(d2.Variables), len(d3.Variables), len(d3.Arrays))
	}
	if n := len(md.Variables); n != 1+len(d3.Variables)+len(d3.Arrays) {
		t.Errorf("%d variables read, want time + %d scalars + %d arrays", n, len(d3.Variables), len(d3.Arrays))
	}
	for _, v2 := range a2.md.Variables {
		v3 := md.variable(v2.Name)
		switch {
		case v3 == nil:
			t.Errorf("FMI 2.0 variable %q missing from the FMI 3.0 description", v2.Name)
		case v3.VR != v2.VR || v3.Causality != v2.Causality || v3.Variability != v2.Variability || v3.Type != "Float64" || v3.Dims != nil:
			t.Errorf("%s: FMI 3.0 %+v, FMI 2.0 %+v", v2.Name, *v3, v2)
		case !v3.connectable() || v2.Real == nil || v3.Real.Unit != v2.Real.Unit || v3.realStart() != v2.realStart():
			t.Errorf("%s: FMI 3.0 Real %+v, FMI 2.0 %+v", v2.Name, v3.Real, v2.Real)
		}
	}
	tv := md.variable("time")
	if tv == nil || tv.Causality != "independent" || tv.VR != d3.TimeVR || tv.Real == nil || tv.Real.Unit != "s" {
		t.Errorf("time read as %+v, want independent with value reference %d", tv, d3.TimeVR)
	}
	for _, a := range d3.Arrays {
		v := md.variable(a.Name)
		if v == nil || v.VR != a.VR || !slices.Equal(v.Dims, a.Dims) || v.connectable() || v.Type != "Float64" || v.Causality != "output" {
			t.Errorf("array %s (VR %d, dims %v) read as %+v", a.Name, a.VR, a.Dims, v)
		}
	}
	if v := md.variable("pend_R"); v == nil || v.what() != "Float64 array [3×3]" {
		t.Errorf("pend_R: %+v", v)
	}
	// binaries and resources as FMI 3.0 lays them out and passes them
	bin := a3.binary()
	if !strings.HasSuffix(bin, filepath.Join("binaries", "x86_64-linux", "furuta.so")) {
		t.Errorf("binary %s", bin)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Error(err)
	}
	if !strings.HasSuffix(a2.binary(), filepath.Join("binaries", "linux64", "furuta.so")) {
		t.Errorf("FMI 2.0 binary %s", a2.binary())
	}
	res, err := a3.resources()
	if err != nil || !filepath.IsAbs(res) || !strings.HasSuffix(res, "/resources/") {
		t.Errorf("resourcePath %q (%v), want an absolute path ending with /resources/", res, err)
	}
	if _, err := os.Stat(res + "model.xml"); err != nil {
		t.Error(err)
	}
	if res2, _ := a2.resources(); !strings.HasPrefix(res2, "file:///") {
		t.Errorf("FMI 2.0 fmuResourceLocation %q", res2)
	}
	// The component's ports: the scalar Float64 inputs and outputs, the
	// arrays' elements but not the arrays; no input derivatives.
	cfg := writeFile(t, dir, "ports.xml", `<cosim><settings end="0.01" step="1 ms"/><fmu name="p" path="furuta3.fmu"/></cosim>`)
	m := newMaster(t, cfg, Options{})
	f := m.comps[0].(*fmuComp)
	var outs []string
	for _, p := range f.outs {
		outs = append(outs, p.Name)
	}
	if len(f.ins) != 1 || f.ins[0].Name != "tau" || f.ins[0].Unit != "N*m" || len(outs) != 19 || outs[4] != "pend_tip.x" || slices.Contains(outs, "pend_tip") {
		t.Errorf("ports: in %v, out %v", f.ins, outs)
	}
	if !f.inProc || !f.ours || f.interp || !f.outDer || !f.varStep {
		t.Errorf("inProc %v ours %v interp %v outDer %v varStep %v", f.inProc, f.ours, f.interp, f.outDer, f.varStep)
	}
}

// A third-party FMI 3.0 description: units from a declared type, default
// causality and variability, the types of non-Float64 variables, an array
// output, and the FMI 3.0 errors.
func TestFMI3ArchiveThirdParty(t *testing.T) {
	dir := t.TempDir()
	a := openArchive(t, pi3Folder(t, dir, "pi3", false))
	md := a.md
	if md.GUID != "{3b1d9c55-2f6e-4e0a-9a47-0c1b2d3e4f53}" || md.ModelName != "pi_controller3" || a.ours() {
		t.Errorf("token %q, model %q, ours %v", md.GUID, md.ModelName, a.ours())
	}
	want := map[string]string{ // name: type causality variability unit vr
		"time":      "Float64 independent continuous s 10",
		"r":         "Float64 input continuous m/s 0",
		"y":         "Float64 input continuous m/s 1",
		"u":         "Float64 output continuous N 2",
		"kp":        "Float64 parameter tunable - 3",
		"fail_at":   "Float64 parameter fixed s 6",
		"mode":      "Int32 parameter fixed - 7",
		"saturated": "Boolean output discrete - 8",
		"e_hist":    "Float64 array [2] output discrete - 9",
	}
	for name, w := range want {
		v := md.variable(name)
		if v == nil {
			t.Errorf("no variable %q", name)
			continue
		}
		unit := "-"
		if v.Real != nil && v.Real.Unit != "" {
			unit = v.Real.Unit
		}
		if got := fmt.Sprintf("%s %s %s %s %d", v.what(), v.Causality, v.Variability, unit, v.VR); got != w {
			t.Errorf("%s: %s, want %s", name, got, w)
		}
	}
	if v := md.variable("kp"); v.realStart() != 1 {
		t.Errorf("kp start %g", v.realStart())
	}
	if v := md.variable("e_hist"); v.Real != nil || v.connectable() {
		t.Error("the array e_hist is connectable")
	}
	// A description without a connectable type, or of another version.
	bad := []struct{ md, want string }{
		{`<fmiModelDescription fmiVersion="1.0" guid="x"><CoSimulation modelIdentifier="a"/></fmiModelDescription>`, `fmiVersion "1.0": only FMI 2.0 and FMI 3.0 are supported`},
		{`<fmiModelDescription fmiVersion="3.0"><CoSimulation modelIdentifier="a"/></fmiModelDescription>`, "no instantiationToken"},
		{`<fmiModelDescription fmiVersion="3.0" instantiationToken="x"><ModelExchange modelIdentifier="a"/></fmiModelDescription>`, "not a co-simulation FMU"},
		{`<fmiModelDescription fmiVersion="2.0"><CoSimulation modelIdentifier="a"/></fmiModelDescription>`, "no guid"},
	}
	for i, b := range bad {
		root := filepath.Join(dir, fmt.Sprint("bad", i))
		writeFile(t, root, "modelDescription.xml", b.md)
		if _, err := openFMU(root); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: error %v, want %q", b.md, err, b.want)
		}
	}
}

// Connections to what the master cannot connect are refused, naming the
// variable and saying why: an array (with its scalar elements when the FMU
// has them), a variable of another type than Float64, the independent
// variable, a variable of the wrong causality; <start> and <parameter>
// likewise.
func TestFMI3ConnectErrors(t *testing.T) {
	dir := t.TempDir()
	pi3Folder(t, dir, "pi3", false)
	packVersion(t, "../examples/furuta/model.xml", dir, "furuta3", fakeRuntime(t, dir), 3)
	cases := []struct{ body, want string }{
		{`<connect from="pi.e_hist" to="lim.u"/>`,
			`:6: <connect>: variable "e_hist" of FMU pi (pi3) is a Float64 array [2] output: only scalar Float64 variables can be connected or set`},
		{`<connect from="plant.pend_R" to="lim.u"/>`,
			`variable "pend_R" of FMU plant (furuta3.fmu) is a Float64 array [3×3] output: only scalar Float64 variables can be connected or set; connect its elements, the scalar outputs pend_R.xx, pend_R.xy, pend_R.xz, pend_R.yx, pend_R.yy, pend_R.yz, pend_R.zx, pend_R.zy, pend_R.zz`},
		{`<connect from="pi.saturated" to="lim.u"/>`,
			`variable "saturated" of FMU pi (pi3) is a Boolean output: only Float64 variables can be connected or set`},
		{`<connect from="lim.y" to="pi.mode"/>`,
			`variable "mode" of FMU pi (pi3) is an Int32 parameter: only Float64 variables can be connected or set`},
		{`<connect from="pi.time" to="lim.u"/>`,
			`variable "time" of FMU pi (pi3) is the independent variable, not an output`},
		{`<connect from="lim.y" to="pi.u"/>`,
			`variable "u" of FMU pi (pi3) is an output, not an input`},
		{`<connect from="pi.nothing" to="lim.u"/>`,
			`pi has no output "nothing" (outputs: u)`},
	}
	for _, c := range cases {
		file := writeFile(t, dir, "c.xml", `<cosim><settings end="0.01" step="1 ms"/>
  <fmu name="pi" path="pi3"/>
  <fmu name="plant" path="furuta3.fmu"/>
  <limit name="lim" min="-1" max="1"/>
  <connect from="lim.y" to="pi.r"/>
  `+c.body+`
</cosim>`)
		cfg, err := LoadConfig(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(cfg, Options{})
		if err == nil {
			m.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\nerror %v\nwant %q", c.body, err, c.want)
		}
	}
	file := writeFile(t, dir, "s.xml", `<cosim><settings end="0.01" step="1 ms"/>
  <fmu name="pi" path="pi3">
    <parameter name="mode" value="1"/>
    <parameter name="e_hist" value="1"/>
    <start name="e_hist" value="1"/>
    <start name="saturated" value="1"/>
  </fmu>
</cosim>`)
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(cfg, Options{})
	for _, w := range []string{
		`s.xml:3: FMU parameter "mode" is an Int32: only scalar Float64 parameters can be set`,
		`s.xml:4: FMU variable "e_hist" is an output, not a parameter`,
		`s.xml:5: <start name="e_hist">: variable "e_hist" of FMU pi (pi3) is a Float64 array [2] output: only scalar Float64 variables can be connected or set`,
		`s.xml:6: <start name="saturated">: variable "saturated" of FMU pi (pi3) is a Boolean output`,
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v\nwant %q", err, w)
		}
	}
}

// The closed loop of examples/furuta/cosim.xml (the LQR designed from the
// plant's model file, 10 000 macro steps of 1 ms) with the plant packed by
// mbfmu as FMI 2.0 and as FMI 3.0, each run in-process (package fmu) and
// through its binary loaded with dlopen (the runtime library built from
// package cabi, driven through its fmi2* or fmi3* C functions): every
// value of every result row is bit for bit the same in the four runs, and
// the example's checks pass.
func TestFMI3ClosedLoopBitIdentical(t *testing.T) {
	lib := realRuntime(t)
	dir := t.TempDir()
	p2, _ := packVersion(t, "../examples/furuta/model.xml", dir, "furuta2", lib, 2)
	p3, _ := packVersion(t, "../examples/furuta/model.xml", dir, "furuta3", lib, 3)
	runs := []struct {
		name    string
		path    string
		fmi3    bool
		dlopen  bool
		logging bool
	}{
		{"FMI 2.0 in-process", p2, false, false, false},
		{"FMI 3.0 in-process", p3, true, false, false},
		{"FMI 3.0 dlopen", p3, true, true, true},
		{"FMI 2.0 dlopen", p2, false, true, false},
	}
	var ref *memWriter
	for _, r := range runs {
		env := ""
		if r.dlopen {
			env = "1"
		}
		t.Setenv(dlopenEnv, env)
		cfg := loadWithPaths(t, "../examples/furuta/cosim.xml", map[string]string{"plant": r.path})
		if r.logging {
			cfg.Components[0].Attr["logging"] = "true"
		}
		var logs []string
		m, err := New(cfg, Options{Log: func(s string) { logs = append(logs, s) }})
		if err != nil {
			t.Fatal(err)
		}
		f := m.comps[0].(*fmuComp)
		if f.inProc == r.dlopen || f.arch.md.fmi3() != r.fmi3 {
			m.Close()
			t.Fatalf("%s: inProc %v, FMI 3.0 %v", r.name, f.inProc, f.arch.md.fmi3())
		}
		w := &memWriter{}
		sum, err := m.Run(RunOptions{Writer: w, NoMemStats: true})
		if err != nil {
			m.Close()
			t.Fatalf("%s: %v", r.name, err)
		}
		if d := m.Describe(); r.dlopen && !strings.Contains(d, "FMU via dlopen") || r.fmi3 != strings.Contains(d, "FMI 3.0") {
			t.Errorf("%s: %s", r.name, m.Describe())
		}
		if err := m.Close(); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
		if !sum.Passed() || sum.Steps != 10000 || len(w.rows) != 1001 {
			t.Errorf("%s: %d steps, %d rows, checks:\n%s", r.name, sum.Steps, len(w.rows), sum)
		}
		if r.logging {
			// the FMU's messages come through fmi3LogMessageCallback,
			// named after the instance
			n := 0
			for _, l := range logs {
				if strings.HasPrefix(l, "plant [OK, ") {
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s: no log message of the FMU (%d lines: %q)", r.name, len(logs), logs)
			}
			t.Logf("%s: %d log messages, first %q", r.name, len(logs), logs[0])
		}
		if ref == nil {
			ref = w
			continue
		}
		if len(w.cols) != len(ref.cols) {
			t.Fatalf("%s: %d columns, %d in the FMI 2.0 run", r.name, len(w.cols), len(ref.cols))
		}
		for j, c := range w.cols {
			if c.Name != ref.cols[j].Name {
				t.Fatalf("%s: column %d is %q, %q in the FMI 2.0 run", r.name, j, c.Name, ref.cols[j].Name)
			}
		}
		diff := 0
		for i := range w.rows {
			for j := range w.rows[i] {
				if math.Float64bits(w.rows[i][j]) != math.Float64bits(ref.rows[i][j]) {
					if diff == 0 {
						t.Errorf("%s: row %d %s = %.17g, %.17g in-process with FMI 2.0", r.name, i, w.cols[j].Name, w.rows[i][j], ref.rows[i][j])
					}
					diff++
				}
			}
		}
		if diff > 0 {
			t.Errorf("%s: %d values differ from the FMI 2.0 run", r.name, diff)
		}
	}
}

// An FMI 3.0 FMU takes part in the extrapolation of coupling signals as a
// source only: mass 1 of examples/two-mass-cosim packed as FMI 3.0 gives
// its output derivatives (fmi3GetOutputDerivatives) to the model of mass 2,
// whose outputs reach it held (FMI 3.0 has no input derivatives). Its
// error then lies between the all-held and the all-extrapolated runs of the
// two models, and the run through the binary (dlopen) is bit for bit the
// in-process one.
func TestFMI3OutputDerivatives(t *testing.T) {
	lib := realRuntime(t)
	dir := t.TempDir()
	p3, _ := packVersion(t, "../examples/two-mass-cosim/mass1.xml", dir, "mass1", lib, 3)
	const h = 2e-3
	errHeld, _, _ := twoMassRun(t, h, false, nil)
	errExt, _, _ := twoMassRun(t, h, true, nil)
	errIn, m, wIn := twoMassRun(t, h, true, map[string]string{"a": p3})
	f := m.comps[0].(*fmuComp)
	if !f.inProc || !f.arch.md.fmi3() || len(f.dOut) != 2 || len(f.dIn) != 0 {
		t.Fatalf("FMI 3.0 mass 1: inProc %v, output derivatives %v, input derivatives %v", f.inProc, f.dOut, f.dIn)
	}
	if d := m.Describe(); !strings.Contains(d, "a.x1 → b.x1, a.v1 → b.v1") || strings.Contains(d, "→ a.") {
		t.Errorf("extrapolated connections:\n%s", d)
	}
	t.Logf("largest displacement error at H = 2 ms: %.4g m held, %.4g m with the FMI 3.0 FMU, %.4g m extrapolated both ways", errHeld, errIn, errExt)
	if !(errExt < errIn && errIn < errHeld) {
		t.Errorf("error %.4g m with the FMI 3.0 FMU, want between %.4g and %.4g m", errIn, errExt, errHeld)
	}
	t.Setenv(dlopenEnv, "1")
	errDL, m2, wDL := twoMassRun(t, h, true, map[string]string{"a": p3})
	if f := m2.comps[0].(*fmuComp); f.inProc || len(f.dOut) != 2 {
		t.Fatalf("dlopen run: inProc %v, output derivatives %v", f.inProc, f.dOut)
	}
	if errDL != errIn || len(wDL.rows) != len(wIn.rows) {
		t.Fatalf("dlopen: error %.17g, %d rows; in-process %.17g, %d rows", errDL, len(wDL.rows), errIn, len(wIn.rows))
	}
	for i := range wIn.rows {
		for j := range wIn.rows[i] {
			if math.Float64bits(wIn.rows[i][j]) != math.Float64bits(wDL.rows[i][j]) {
				t.Fatalf("row %d %s: %.17g through dlopen, %.17g in-process", i, wIn.cols[j].Name, wDL.rows[i][j], wIn.rows[i][j])
			}
		}
	}
}

// The C FMU of testdata/pi3 (FMI 3.0, loaded with dlopen) closes the
// velocity loop of TestThirdPartyCFMU around an in-process model: the same
// difference equations step by step. The FMU itself checks the
// instantiation (token, a plain resourcePath ending with '/', no event
// mode, early return or intermediate update) and the times of
// fmi3EnterInitializationMode; its log message, with a '%' in it, comes
// through the non-variadic logger unchanged.
func TestThirdPartyCFMU3(t *testing.T) {
	dir := t.TempDir()
	root := pi3Folder(t, dir, "pi3_unpacked", true)
	zipDir(t, root, filepath.Join(dir, "pi_controller3.fmu"))
	writeFile(t, dir, "body.xml", freeBody)
	cfgPath := writeFile(t, dir, "loop.xml", `<cosim name="pi-loop">
  <settings end="1 s" step="1 ms"/>
  <model name="plant" path="body.xml"/>
  <fmu name="pi" path="pi_controller3.fmu" logging="true">
    <parameter name="kp" value="20"/>
    <parameter name="ki" value="40"/>
  </fmu>
  <signal name="ref" expr="1" unit="m/s"/>
  <connect from="ref.y" to="pi.r"/>
  <connect from="plant.vx" to="pi.y"/>
  <connect from="pi.u" to="plant.F"/>
</cosim>`)
	var logs []string
	m := newMaster(t, cfgPath, Options{Log: func(s string) { logs = append(logs, s) }})
	if f := m.comps[1].(*fmuComp); f.inProc || f.ours || !f.arch.md.fmi3() {
		t.Fatal("the C FMU was taken for an mbfmu FMU, or not for FMI 3.0")
	}
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Steps != 1000 {
		t.Errorf("%d steps, want 1000", sum.Steps)
	}
	if len(logs) == 0 || logs[0] != "pi [OK, logAll]: instantiated (100% C)" {
		t.Errorf("log messages %q, want the FMU's \"instantiated (100%% C)\"", logs)
	}
	const kp, ki, h, r = 20.0, 40.0, 1e-3, 1.0
	v, x, in, u := 0.0, 0.0, 0.0, 0.0
	xs, vs, us := w.col(t, "plant.x"), w.col(t, "plant.vx"), w.col(t, "pi.u")
	for k := range w.rows {
		if d := math.Max(math.Abs(vs[k]-v), math.Abs(xs[k]-x)); d > 1e-12 {
			t.Fatalf("step %d: plant (x, v) = (%.15g, %.15g), reference (%.15g, %.15g)", k, xs[k], vs[k], x, v)
		}
		if math.Abs(us[k]-u) > 1e-12 {
			t.Fatalf("step %d: FMU output %.15g, reference %.15g", k, us[k], u)
		}
		e := r - v
		x, v = x+h*v+h*h*u/(2*bodyMass), v+h*u/bodyMass
		in += ki * e * h
		u = kp*e + in
	}
	if math.Abs(vs[len(vs)-1]-1) > 0.05 {
		t.Errorf("final speed %g, want near 1", vs[len(vs)-1])
	}
}

// How a run with the C FMU ends when fmi3DoStep says it cannot go on, or
// breaks the rules, and the instantiation errors: terminateSimulation with
// fmi3OK and fmi3Discard with terminateSimulation stop the run as the FMI
// 2.0 path stops at fmi2Discard, with the FMU's message and the time it
// reached; an early return, which the master did not allow, stops it too;
// a wrong instantiationToken is refused with the FMU's message, and a
// missing binary names the FMI 3.0 platform folder.
func TestThirdPartyCFMU3Errors(t *testing.T) {
	dir := t.TempDir()
	root := pi3Folder(t, dir, "pi3_unpacked", true)
	writeFile(t, dir, "body.xml", freeBody)
	run := func(param, path string) (*memWriter, error) {
		t.Helper()
		cfgPath := writeFile(t, dir, "loop.xml", `<cosim name="pi-loop">
  <settings end="1 s" step="1 ms"/>
  <model name="plant" path="body.xml"/>
  <fmu name="pi" path="`+path+`">
    <parameter name="kp" value="20"/>
    `+param+`
  </fmu>
  <signal name="ref" expr="1" unit="m/s"/>
  <connect from="ref.y" to="pi.r"/>
  <connect from="plant.vx" to="pi.y"/>
  <connect from="pi.u" to="plant.F"/>
</cosim>`)
		m := newMaster(t, cfgPath, Options{})
		w := &memWriter{}
		_, err := m.Run(RunOptions{Writer: w})
		return w, err
	}
	cases := []struct{ param, want string }{
		{`<parameter name="stop_at" value="0.25"/>`,
			"fmi3DoStep returned fmi3OK and asked to terminate the simulation (terminateSimulation, lastSuccessfulTime 0.25"},
		{`<parameter name="fail_at" value="0.25"/>`,
			"fmi3DoStep returned fmi3Discard with terminateSimulation (lastSuccessfulTime 0.2"},
		{`<parameter name="early_at" value="0.25"/>`,
			"returned early at lastSuccessfulTime 0.25"},
	}
	for _, c := range cases {
		w, err := run(c.param, "pi3_unpacked")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.param, err, c.want)
			continue
		}
		if strings.Contains(c.param, "fail_at") && !strings.Contains(err.Error(), "fail_at reached: the step is discarded") {
			t.Errorf("%s: error %v, want the FMU's message", c.param, err)
		}
		if n := len(w.rows); n < 240 || n > 252 {
			t.Errorf("%s: %d rows recorded before the stop", c.param, n)
		}
	}
	md, err := os.ReadFile(filepath.Join(root, "modelDescription.xml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "modelDescription.xml", strings.Replace(string(md), "4f53}", "4f54}", 1))
	if _, err := run("", "pi3_unpacked"); err == nil || !strings.Contains(err.Error(), "fmi3InstantiateCoSimulation of") ||
		!strings.Contains(err.Error(), "wrong instantiationToken {3b1d9c55-2f6e-4e0a-9a47-0c1b2d3e4f54}") {
		t.Errorf("error %v, want the FMU's instantiationToken message", err)
	}
	os.Remove(filepath.Join(root, "binaries", "x86_64-linux", "pi_controller3.so"))
	if _, err := run("", "pi3_unpacked"); err == nil || !strings.Contains(err.Error(), filepath.Join("x86_64-linux", "pi_controller3.so")) {
		t.Errorf("error %v, want one naming the missing binary", err)
	}
}

// doStep3Error, the FMI 3.0 step outcome as the master judges it.
func TestDoStep3Error(t *testing.T) {
	sink := &logSink{last: "the FMU's message"}
	cases := []struct {
		st          int
		term, early bool
		want        string
	}{
		{0, false, false, ""},
		{1, false, false, ""},
		{2, false, false, "fmi3DoStep returned fmi3Discard: the FMU's message"},
		{2, true, false, "fmi3DoStep returned fmi3Discard with terminateSimulation (lastSuccessfulTime 0.5 s): the FMU's message"},
		{3, false, false, "fmi3DoStep returned fmi3Error: the FMU's message"},
		{0, true, false, "fmi3DoStep returned fmi3OK and asked to terminate the simulation (terminateSimulation, lastSuccessfulTime 0.5 s): the FMU's message"},
		{0, false, true, "fmi3DoStep from t = 0.25 s by 0.5 s returned early at lastSuccessfulTime 0.5 s, but the master instantiated the FMU with earlyReturnAllowed false"},
	}
	for _, c := range cases {
		err := doStep3Error(sink, 0.25, 0.5, c.st, c.term, c.early, 0.5)
		if (err == nil) != (c.want == "") || err != nil && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("status %d terminate %v early %v: %v, want %q", c.st, c.term, c.early, err, c.want)
		}
	}
}
