package cosim

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/controller"
	"mbfmu/fmu"
)

// runCfg runs a configuration into memory.
func runCfg(t *testing.T, cfg *Config) (*Summary, *memWriter) {
	t.Helper()
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	return sum, w
}

// sspOf writes the loop of cfg as an SSP package in dir (plants and
// controllers packed with a stand-in runtime: the FMUs run in-process).
func sspOf(t *testing.T, cfg *Config, dir string) string {
	t.Helper()
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	out := filepath.Join(dir, "loop.ssp")
	if err := m.WriteSSP(out, fakeRuntime(t, dir)); err != nil {
		t.Fatal(err)
	}
	return out
}

// validateSSD checks SystemStructure.ssd against the SSP 1.0 schema
// (testdata/ssp-schema) with xmllint; without xmllint it skips, or fails
// when MBFMU_REQUIRE is set.
func validateSSD(t *testing.T, ssd string) {
	t.Helper()
	xl, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("MBFMU_REQUIRE") != "" {
			t.Fatal("xmllint not installed (Debian libxml2-utils): required here")
		}
		t.Skip("xmllint not installed: SSP schema validation skipped")
	}
	out, err := exec.Command(xl, "--noout", "--schema", filepath.Join("testdata", "ssp-schema", "SystemStructureDescription.xsd"), ssd).CombinedOutput()
	if err != nil {
		t.Errorf("xmllint: %v\n%s", err, out)
	}
}

// The closed loops as SSP 1.0 packages: the slider-crank under PID with two
// signal sources (a model plant, controller FMUs) and the Furuta pendulum
// under LQR (an FMU plant with parameters set, the LQR as a state feedback
// FMU) are written, their SystemStructure.ssd passes the SSP 1.0 schema,
// and the packages run to results bit-identical to the cosim files', with
// the same checks passing.
func TestSSPRoundTrip(t *testing.T) {
	for _, ex := range []string{"slider-crank-pid", "furuta"} {
		t.Run(ex, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join("..", "examples", ex, "cosim.xml")
			var cfg *Config
			if ex == "furuta" {
				cfg = loadWithPaths(t, file, map[string]string{"plant": packFMU(t, filepath.Join("..", "examples", ex, "model.xml"), dir)})
			} else {
				var err error
				if cfg, err = LoadConfig(file); err != nil {
					t.Fatal(err)
				}
			}
			sumA, a := runCfg(t, cfg)
			pkg := sspOf(t, cfg, dir)
			x := filepath.Join(dir, "x")
			os.MkdirAll(x, 0o755)
			cfgB, err := ReadSSP(pkg, x)
			if err != nil {
				t.Fatal(err)
			}
			validateSSD(t, filepath.Join(x, "SystemStructure.ssd"))
			if ex == "slider-crank-pid" {
				ssd, _ := os.ReadFile(filepath.Join(x, "SystemStructure.ssd"))
				for _, want := range []string{`<ssd:Connector name="omega" kind="output"><ssc:Real unit="rad/s"/>`, `<ssc:Unit name="N*m"><ssc:BaseUnit kg="1" m="2" s="-2"/></ssc:Unit>`} {
					if !strings.Contains(string(ssd), want) {
						t.Errorf("SystemStructure.ssd lacks %s", want)
					}
				}
			}
			if len(cfgB.Checks) != len(cfg.Checks) || len(cfgB.Connections) != len(cfg.Connections) {
				t.Errorf("%d checks and %d connections from the package, %d and %d in the file", len(cfgB.Checks), len(cfgB.Connections), len(cfg.Checks), len(cfg.Connections))
			}
			sumB, b := runCfg(t, cfgB)
			if len(a.rows) != len(b.rows) || len(a.cols) != len(b.cols) {
				t.Fatalf("%d×%d results from the file, %d×%d from the package", len(a.rows), len(a.cols), len(b.rows), len(b.cols))
			}
			for i := range a.rows {
				for j := range a.rows[i] {
					if math.Float64bits(a.rows[i][j]) != math.Float64bits(b.rows[i][j]) {
						t.Fatalf("row %d, %s: %v from the file, %v from the package", i, a.cols[j].Name, a.rows[i][j], b.rows[i][j])
					}
				}
			}
			if !sumA.Passed() || !sumB.Passed() {
				t.Errorf("checks passed: file %v, package %v", sumA.Passed(), sumB.Passed())
			}
		})
	}
}

// The controller FMUs of a package run through the FMI calls as any master
// runs FMUs with direct feedthrough (set a controller's inputs at a
// communication point, read its outputs, then step): a plain FMI 2.0 loop
// over the slider-crank package's four FMUs — the plant, the PID and the
// two signal sources, each instantiated from its own resources — gives
// the crank speed of `mbfmu cosim` bit for bit at every output step.
func TestSSPControllerFMUsThroughFMI(t *testing.T) {
	dir := t.TempDir()
	cfg, err := LoadConfig(filepath.Join("..", "examples", "slider-crank-pid", "cosim.xml"))
	if err != nil {
		t.Fatal(err)
	}
	_, ref := runCfg(t, cfg)
	pkg := sspOf(t, cfg, dir)
	x := filepath.Join(dir, "x")
	if err := fmu.Unzip(pkg, x); err != nil {
		t.Fatal(err)
	}
	inst := map[string]*fmu.Instance{}
	vr := func(name, v string) uint32 {
		for _, x := range inst[name].Description().Variables {
			if x.Name == v {
				return x.VR
			}
		}
		t.Fatalf("%s has no %s", name, v)
		return 0
	}
	for _, n := range []string{"plant", "pid", "w_ref", "load"} {
		a, err := openFMU(filepath.Join(x, "resources", n+".fmu"))
		if err != nil {
			t.Fatal(err)
		}
		defer a.close()
		in, err := fmu.Instantiate(fmu.Config{InstanceName: n, GUID: a.md.GUID, ResourceLocation: filepath.Join(a.dir, "resources")})
		if err != nil {
			t.Fatal(err)
		}
		if in.SetupExperiment(false, 0, 0, true, 6) != fmu.OK || in.EnterInitializationMode() != fmu.OK || in.ExitInitializationMode() != fmu.OK {
			t.Fatalf("%s: initialisation", n)
		}
		inst[n] = in
	}
	get := func(n, v string) float64 {
		y := []float64{0}
		if st := inst[n].GetReal([]uint32{vr(n, v)}, y); st != fmu.OK {
			t.Fatalf("%s.%s: %v", n, v, st)
		}
		return y[0]
	}
	set := func(n, v string, val float64) {
		if st := inst[n].SetReal([]uint32{vr(n, v)}, []float64{val}); st != fmu.OK {
			t.Fatalf("%s.%s: %v", n, v, st)
		}
	}
	omega := ref.col(t, "plant.omega")
	const h = 1e-3
	for k := 0; k <= 6000; k++ {
		tk := float64(k) * h
		// the communication point: the controllers' inputs, then outputs
		set("pid", "r", get("w_ref", "y"))
		set("pid", "y", get("plant", "omega"))
		set("plant", "tau", get("pid", "u"))
		set("plant", "F_load", get("load", "y"))
		if k%5 == 0 {
			if w := omega[k/5]; get("plant", "omega") != w {
				t.Fatalf("t = %g: omega %v through FMI, %v from mbfmu cosim", tk, get("plant", "omega"), w)
			}
		}
		if k == 6000 {
			break
		}
		for _, n := range []string{"plant", "pid", "w_ref", "load"} {
			if st := inst[n].DoStep(tk, h, true); st != fmu.OK {
				t.Fatalf("%s: step at %g: %v", n, tk, st)
			}
		}
	}
}

// What a package cannot hold or hold badly is refused with a message.
func TestSSPErrors(t *testing.T) {
	dir := t.TempDir()
	cfgFile := writeFile(t, dir, "udp.xml", `<cosim><settings end="0.01"/>
  <signal name="s" expr="time"/>
  <udp name="rig" local="127.0.0.1:0" remote="127.0.0.1:9" inputs="a" outputs="b" timeout="1 ms" on-timeout="hold"/>
  <connect from="s.y" to="rig.a"/>
</cosim>`)
	cfg, err := LoadConfig(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.WriteSSP(filepath.Join(dir, "x.ssp"), fakeRuntime(t, dir)); err == nil || !strings.Contains(err.Error(), "rig") {
		t.Errorf("a UDP bridge in a package: %v", err)
	}
	nested := writeFile(t, dir, "n/SystemStructure.ssd", `<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" name="n" version="1.0">
  <ssd:System name="root"><ssd:Elements><ssd:System name="inner"/></ssd:Elements></ssd:System></ssd:SystemStructureDescription>`)
	zipDir(t, filepath.Dir(nested), filepath.Join(dir, "n.ssp"))
	if _, err := ReadSSP(filepath.Join(dir, "n.ssp"), t.TempDir()); err == nil || !strings.Contains(err.Error(), "subsystem \"inner\"") {
		t.Errorf("a nested system: %v", err)
	}
	// what a package may say and mbfmu cosim cannot apply is refused, not
	// ignored (the values would silently be others)
	const head = `<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues" xmlns:ssm="http://ssp-standard.org/SSP1/SystemStructureParameterMapping" name="p" version="1.0"><ssd:System name="root">`
	const comp = `<ssd:Elements><ssd:Component name="a" source="resources/a.fmu">%s</ssd:Component></ssd:Elements>`
	for i, c := range []struct{ body, want string }{
		{`<ssd:ParameterBindings><ssd:ParameterBinding source="resources/root.ssv"/></ssd:ParameterBindings>` + strings.Replace(comp, "%s", "", 1),
			"parameter bindings of its own"},
		{strings.Replace(comp, "%s", `<ssd:ParameterBindings><ssd:ParameterBinding source="resources/a.ssv"><ssd:ParameterMapping source="resources/a.ssm"/></ssd:ParameterBinding></ssd:ParameterBindings>`, 1),
			"ParameterMapping"},
		{strings.Replace(comp, "%s", `<ssd:ParameterBindings><ssd:ParameterBinding source="a.ssv" prefix="a."/></ssd:ParameterBindings>`, 1),
			`prefix "a."`},
		{strings.Replace(comp, "%s", `<ssd:ParameterBindings><ssd:ParameterBinding source="resources/p.ssv" sourceBase="component"/></ssd:ParameterBindings>`, 1),
			"sourceBase"},
		{strings.Replace(comp, "%s", `<ssd:ParameterBindings><ssd:ParameterBinding source="../../etc/x.ssv"/></ssd:ParameterBindings>`, 1),
			"not a file of the package"},
		{strings.Replace(comp, "%s", "", 1) + `<ssd:Connections><ssd:Connection startElement="a" startConnector="y" endElement="a" endConnector="u"><ssc:LinearTransformation factor="2"/></ssd:Connection></ssd:Connections>`,
			"LinearTransformation"},
	} {
		d := filepath.Join(dir, fmt.Sprintf("bad%d", i))
		writeFile(t, d, "SystemStructure.ssd", head+c.body+`</ssd:System></ssd:SystemStructureDescription>`)
		pkg := filepath.Join(dir, fmt.Sprintf("bad%d.ssp", i))
		zipDir(t, d, pkg)
		if _, err := ReadSSP(pkg, t.TempDir()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: %v, want an error naming %q", i, err, c.want)
		}
	}
}

// A controller FMU of a cosim file whose own macro step differs from the
// loop's goes into a package with the loop's step and span: mbfmu cosim
// evaluates it first with dt = the loop's step, and an FMI master running
// the package's FMU does so with the file's step.
func TestSSPControllerFMUStep(t *testing.T) {
	dir := t.TempDir()
	s := &controller.Spec{Name: "pi", Kind: controller.KindPID, Step: 0.05, Start: 0, End: 9,
		Inputs: []controller.Port{{Name: "r"}, {Name: "y"}}, Outputs: []controller.Port{{Name: "u"}},
		Min: math.Inf(-1), Max: math.Inf(1), Kp: 20, Ki: 40, B: 1}
	data, err := s.XML()
	if err != nil {
		t.Fatal(err)
	}
	src := writeFile(t, dir, "pi.xml", string(data))
	lib := fakeRuntime(t, dir)
	if _, err := fmu.PackVersion(src, filepath.Join(dir, "pi.fmu"), lib, 2); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "body.xml", freeBody)
	cfg, err := LoadConfig(writeFile(t, dir, "loop.xml", `<cosim name="loop">
  <settings end="0.1 s" step="10 ms"/>
  <model name="plant" path="body.xml"/>
  <fmu name="pi" path="pi.fmu"/>
  <signal name="ref" expr="1"/>
  <connect from="ref.y" to="pi.r"/>
  <connect from="plant.vx" to="pi.y"/>
  <connect from="pi.u" to="plant.F"/>
</cosim>`))
	if err != nil {
		t.Fatal(err)
	}
	pkg := sspOf(t, cfg, dir)
	x := filepath.Join(dir, "x")
	if err := fmu.Unzip(pkg, x); err != nil {
		t.Fatal(err)
	}
	s2, err := controllerFMU(filepath.Join(x, "resources", "pi.fmu"))
	if err != nil || s2 == nil {
		t.Fatalf("the package's pi.fmu: %v", err)
	}
	if s2.Step != 0.01 || s2.Start != 0 || s2.End != 0.1 {
		t.Errorf("the package's controller: step %g, span %g … %g; want the loop's 0.01, 0 … 0.1", s2.Step, s2.Start, s2.End)
	}
}
