package fmu

import (
	"encoding/xml"
	"mbfmu/spec"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	modelxml "mbfmu/xml"
)

// mdXML is the subset of modelDescription.xml the structural check reads.
type mdXML struct {
	FMIVersion string `xml:"fmiVersion,attr"`
	GUID       string `xml:"guid,attr"`
	CoSim      struct {
		ModelIdentifier string `xml:"modelIdentifier,attr"`
	} `xml:"CoSimulation"`
	Units []struct {
		Name string `xml:"name,attr"`
	} `xml:"UnitDefinitions>Unit"`
	Categories []struct {
		Name string `xml:"name,attr"`
	} `xml:"LogCategories>Category"`
	Experiment struct {
		Start string `xml:"startTime,attr"`
		Stop  string `xml:"stopTime,attr"`
		Step  string `xml:"stepSize,attr"`
	} `xml:"DefaultExperiment"`
	Vars []struct {
		Name        string `xml:"name,attr"`
		VR          uint32 `xml:"valueReference,attr"`
		Causality   string `xml:"causality,attr"`
		Variability string `xml:"variability,attr"`
		Initial     string `xml:"initial,attr"`
		Real        *struct {
			Unit       string  `xml:"unit,attr"`
			Start      *string `xml:"start,attr"`
			Derivative int     `xml:"derivative,attr"`
		} `xml:"Real"`
	} `xml:"ModelVariables>ScalarVariable"`
	Outputs []struct {
		Index int     `xml:"index,attr"`
		Deps  *string `xml:"dependencies,attr"`
	} `xml:"ModelStructure>Outputs>Unknown"`
	Derivs []struct {
		Index int     `xml:"index,attr"`
		Deps  *string `xml:"dependencies,attr"`
		Kind  *string `xml:"dependenciesKind,attr"`
	} `xml:"ModelStructure>Derivatives>Unknown"`
	Initial []struct {
		Index int     `xml:"index,attr"`
		Deps  *string `xml:"dependencies,attr"`
	} `xml:"ModelStructure>InitialUnknowns>Unknown"`
}

// checkModelDescription checks what the XSD cannot: unique value
// references, causality/variability/initial combinations allowed by FMI 2.0
// (table in 2.2.7), start values where required and only there, every unit
// declared, and the ModelStructure rules (2.2.8): every output in Outputs,
// in order, depending on the continuous states only (no direct feedthrough
// from the inputs); every variable with a derivative attribute in
// Derivatives, its state a continuous local variable, dependencies on
// inputs and states in ascending order; InitialUnknowns exactly the
// outputs, states and derivatives with initial="calculated", ascending,
// without duplicates (as FMPy validates). The capability flags of
// <CoSimulation> are checked against the behaviour by
// TestCapabilityFlagsHold.
func checkModelDescription(t *testing.T, data []byte) *mdXML {
	t.Helper()
	var md mdXML
	if err := xml.Unmarshal(data, &md); err != nil {
		t.Fatalf("modelDescription.xml is not well-formed: %v", err)
	}
	if md.FMIVersion != "2.0" || md.GUID == "" || md.CoSim.ModelIdentifier == "" {
		t.Errorf("header: %+v", md)
	}
	units := map[string]bool{}
	for _, u := range md.Units {
		if units[u.Name] {
			t.Errorf("unit %q declared twice", u.Name)
		}
		units[u.Name] = true
	}
	vrs := map[uint32]bool{}
	names := map[string]bool{}
	var outIdx, derIdx []int
	inputs, states, calc := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for i, v := range md.Vars {
		if vrs[v.VR] || names[v.Name] {
			t.Errorf("variable %q: duplicate value reference %d or name", v.Name, v.VR)
		}
		vrs[v.VR], names[v.Name] = true, true
		if v.Real == nil {
			t.Errorf("variable %q is not Real", v.Name)
			continue
		}
		if v.Real.Unit != "" && !units[v.Real.Unit] {
			t.Errorf("variable %q: unit %q not in UnitDefinitions", v.Name, v.Real.Unit)
		}
		hasStart := v.Real.Start != nil
		switch combo := v.Causality + "/" + v.Variability + "/" + v.Initial; combo {
		case "parameter/fixed/exact", "parameter/tunable/exact", "parameter/fixed/", "parameter/tunable/":
			if !hasStart {
				t.Errorf("parameter %q without start", v.Name)
			}
		case "input/continuous/":
			if !hasStart {
				t.Errorf("input %q without start", v.Name)
			}
			inputs[i+1] = true
		case "output/continuous/calculated", "output/continuous/":
			if hasStart {
				t.Errorf("calculated output %q with a start value", v.Name)
			}
			outIdx = append(outIdx, i+1)
			calc[i+1] = true
		case "local/continuous/calculated", "local/continuous/":
			if hasStart {
				t.Errorf("calculated local %q with a start value", v.Name)
			}
			calc[i+1] = true
		default:
			t.Errorf("variable %q: combination %s not allowed", v.Name, combo)
		}
		if d := v.Real.Derivative; d != 0 {
			derIdx = append(derIdx, i+1)
			if d < 1 || d > len(md.Vars) || md.Vars[d-1].Variability != "continuous" || md.Vars[d-1].Causality != "local" {
				t.Errorf("variable %q: derivative=%d is not a continuous local variable", v.Name, d)
				continue
			}
			states[d] = true
		}
	}
	// dependency lists: ascending indices of knowns
	deps := func(what string, attr *string, known func(int) bool) []int {
		t.Helper()
		if attr == nil {
			return nil
		}
		var out []int
		for _, f := range strings.Fields(*attr) {
			k, err := strconv.Atoi(f)
			if err != nil || !known(k) || len(out) > 0 && k <= out[len(out)-1] {
				t.Errorf("%s: dependency %q is not a known or not in ascending order", what, f)
				return out
			}
			out = append(out, k)
		}
		return out
	}
	var stateIdx []int
	for i := range md.Vars {
		if states[i+1] {
			stateIdx = append(stateIdx, i+1)
		}
	}
	if len(md.Outputs) != len(outIdx) {
		t.Fatalf("ModelStructure lists %d outputs, want %d", len(md.Outputs), len(outIdx))
	}
	for k, idx := range outIdx {
		o := md.Outputs[k]
		if o.Index != idx || o.Deps == nil {
			t.Errorf("ModelStructure output %d: %+v, want index %d with dependencies", k, o, idx)
			continue
		}
		if d := deps("output "+strconv.Itoa(idx), o.Deps, func(k int) bool { return states[k] }); !slices.Equal(d, stateIdx) {
			t.Errorf("output %d depends on %v, want the states %v and no input", idx, d, stateIdx)
		}
	}
	if len(md.Derivs) != len(derIdx) {
		t.Errorf("Derivatives lists %d unknowns, %d variables have a derivative attribute", len(md.Derivs), len(derIdx))
	}
	seen := map[int]bool{}
	for _, u := range md.Derivs {
		if !slices.Contains(derIdx, u.Index) || seen[u.Index] {
			t.Errorf("Derivatives: index %d has no derivative attribute or is listed twice", u.Index)
		}
		seen[u.Index] = true
		d := deps("derivative "+strconv.Itoa(u.Index), u.Deps, func(k int) bool { return states[k] || inputs[k] })
		if u.Kind != nil && len(strings.Fields(*u.Kind)) != len(d) {
			t.Errorf("derivative %d: dependenciesKind %q does not match its dependencies", u.Index, *u.Kind)
		}
	}
	var wantInit []int
	for i := range md.Vars {
		if calc[i+1] && (md.Vars[i].Causality == "output" || states[i+1] || md.Vars[i].Real.Derivative != 0) {
			wantInit = append(wantInit, i+1)
		}
	}
	var gotInit []int
	for _, u := range md.Initial {
		gotInit = append(gotInit, u.Index)
	}
	if !slices.Equal(gotInit, wantInit) {
		t.Errorf("InitialUnknowns %v, want the outputs, states and derivatives in index order %v", gotInit, wantInit)
	}
	cats := map[string]bool{}
	for _, c := range md.Categories {
		cats[c.Name] = true
	}
	for _, c := range []string{"logEvents", "logStatusWarning", "logStatusError", "logStatusFatal", "logAll", "logSolver"} {
		if !cats[c] {
			t.Errorf("log category %s not declared", c)
		}
	}
	return &md
}

// schemaDir is the folder of the FMI 2.0.5 XSD: $MBFMU_FMI2_SCHEMA when
// set, else the copy in testdata/fmi2-schema (2-Clause BSD, see its README).
func schemaDir() string {
	if d := os.Getenv("MBFMU_FMI2_SCHEMA"); d != "" {
		return d
	}
	return filepath.Join("testdata", "fmi2-schema")
}

// xsdRequired reports whether the XSD validation must run: in CI
// (.ci/run sets MBFMU_REQUIRE=1; most CI services set CI=true),
// where a missing xmllint or schema fails the tests instead of skipping
// them silently.
func xsdRequired() bool {
	for _, v := range []string{os.Getenv("MBFMU_REQUIRE"), os.Getenv("CI")} {
		if v != "" && v != "0" && !strings.EqualFold(v, "false") {
			return true
		}
	}
	return false
}

// validateXSD validates with xmllint against the FMI 2.0 XSD. Without
// xmllint it skips with a message, or fails when xsdRequired; without the
// schema it skips with a message.
func validateXSD(t *testing.T, data []byte) {
	t.Helper()
	validateSchema(t, data, schemaDir(), "fmi2ModelDescription.xsd")
}

// validateSchema validates data with xmllint against the schema file xsd of
// folder dir, as validateXSD.
func validateSchema(t *testing.T, data []byte, dir, xsd string) {
	t.Helper()
	missing := func(msg string) {
		t.Helper()
		if xsdRequired() {
			t.Fatal(msg + " (required here: MBFMU_REQUIRE or CI is set)")
		}
		t.Skip(msg)
	}
	xl, err := exec.LookPath("xmllint")
	if err != nil {
		missing("xmllint not installed (Debian package libxml2-utils): XSD validation skipped")
		return
	}
	if _, err := os.Stat(filepath.Join(dir, xsd)); err != nil {
		t.Fatalf("FMI schema: %v", err)
	}
	f := filepath.Join(t.TempDir(), "doc.xml")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xl, "--noout", "--schema", filepath.Join(dir, xsd), f).CombinedOutput()
	if err != nil {
		t.Errorf("xmllint: %v\n%s", err, out)
	}
}

// The validation fails, rather than skips, when it is required and
// xmllint is missing: run with an empty PATH and MBFMU_REQUIRE=1
// in a child process.
func TestXSDRequiredFailsWithoutXmllint(t *testing.T) {
	if os.Getenv("MBFMU_XSD_CHILD") != "" {
		validateXSD(t, []byte("<fmiModelDescription/>"))
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		require  string
		wantFail bool
	}{{"1", true}, {"", false}} {
		cmd := exec.Command(exe, "-test.run=^TestXSDRequiredFailsWithoutXmllint$", "-test.v")
		cmd.Env = []string{"PATH=" + t.TempDir(), "MBFMU_XSD_CHILD=1", "MBFMU_REQUIRE=" + c.require, "CI=", "HOME=" + os.Getenv("HOME")}
		out, err := cmd.CombinedOutput()
		failed := err != nil
		if failed != c.wantFail || !strings.Contains(string(out), "xmllint not installed") {
			t.Errorf("MBFMU_REQUIRE=%q without xmllint: failed=%v, want %v\n%s", c.require, failed, c.wantFail, out)
		}
		if !c.wantFail && !strings.Contains(string(out), "--- SKIP") {
			t.Errorf("not skipped:\n%s", out)
		}
	}
}

func oscDescription(t *testing.T) *Description {
	o := newOsc(4, 1)
	o.mi.inputs = append(o.mi.inputs, varInfo{name: "odd & <name>", unit: "kN*m", desc: "quote \" and tab\t", start: -1.5e-7})
	o.mi.params = append(o.mi.params, paramInfo{name: "L", unit: "furlong", value: 2})
	d, err := describe(o.info(), GUID([]byte("x")))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestModelDescriptionStructure(t *testing.T) {
	d := oscDescription(t)
	md := checkModelDescription(t, d.XML())
	if len(md.Vars) != 10 || md.Vars[0].Name != "u" || md.Vars[2].Name != "x" || md.Vars[4].Name != "k" ||
		md.Vars[7].Name != "mass.x" || md.Vars[8].Name != "der(mass.x)" || md.Vars[9].Name != "der(der(mass.x))" {
		t.Errorf("variable order: %+v", md.Vars)
	}
	// the velocity is the derivative of the position, the acceleration that
	// of the velocity; the outputs depend on both states
	if md.Vars[8].Real.Derivative != 8 || md.Vars[9].Real.Derivative != 9 || md.Vars[9].Real.Unit != "m/s2" {
		t.Errorf("derivative attributes or units: %+v %+v", md.Vars[8].Real, md.Vars[9].Real)
	}
	if len(md.Derivs) != 2 || md.Derivs[0].Index != 9 || *md.Derivs[0].Deps != "9" || *md.Derivs[0].Kind != "constant" ||
		md.Derivs[1].Index != 10 || md.Derivs[1].Deps != nil {
		t.Errorf("Derivatives %+v", md.Derivs)
	}
	if md.Vars[4].Variability != "tunable" || md.Vars[5].Variability != "fixed" {
		t.Errorf("k tunable, m fixed: %+v", md.Vars[4:])
	}
	if md.Experiment.Step != "0.01" || md.Experiment.Stop != "10" {
		t.Errorf("DefaultExperiment %+v", md.Experiment)
	}
	x := string(d.XML())
	for _, want := range []string{
		`<Unit name="N/m">` + "\n" + `      <BaseUnit kg="1" s="-2"/>`,
		`<Unit name="kN*m">` + "\n" + `      <BaseUnit kg="1" m="2" s="-2" factor="1000"/>`,
		`<Unit name="furlong"/>`,
	} {
		if !strings.Contains(x, want) {
			t.Errorf("modelDescription.xml lacks %s", want)
		}
	}
	h := string(d.HTML())
	if !strings.Contains(h, "odd &amp; &lt;name&gt;") || !strings.Contains(h, "<td>tunable</td>") {
		t.Errorf("documentation does not list the variables")
	}
}

func TestModelDescriptionXSD(t *testing.T) {
	validateXSD(t, oscDescription(t).XML())
}

func TestDescribeRejectsDuplicates(t *testing.T) {
	o := newOsc(4, 1)
	o.mi.params = append(o.mi.params, paramInfo{name: "x", value: 1})
	if _, err := describe(o.info(), "g"); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("duplicate name: %v", err)
	}
}

// Every example model's modelDescription.xml, with its continuous states,
// passes the structural and ModelStructure checks and the FMI 2.0.5 XSD.
// A model whose elements have states of their own (a motor's current, a
// friction's bristles, a user <state>) declares them among its continuous
// states, with their derivatives (docs/fmu.md, TestElementStatesFMI2).
func TestExampleModelDescriptions(t *testing.T) {
	models, err := filepath.Glob(filepath.Join("..", "examples", "*", "model.xml"))
	if err != nil || len(models) == 0 {
		t.Fatalf("no example models: %v", err)
	}
	for _, m := range models {
		name := filepath.Base(filepath.Dir(m))
		t.Run(name, func(t *testing.T) {
			d, err := Describe(m)
			if err != nil {
				t.Fatal(err)
			}
			x := d.XML()
			md := checkModelDescription(t, x)
			ms, err := modelxml.LoadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			own := len(ms.States) > 0 // elements with states of their own
			for _, d := range ms.Drives {
				// a joint's friction has a state with LuGre bristles (a
				// spherical or universal joint's always); exact Coulomb
				// friction has a discrete mode only, as a contact
				own = own || d.Kind == "motor" || d.Kind == "friction" && (d.Attr["model"].Src == "lugre" || ms.Dimension == 3 && ballJoint(ms, d.I))
			}
			if len(md.Derivs) == 0 {
				t.Errorf("no <Derivatives>")
			}
			if el := slices.ContainsFunc(d.Variables, func(v Variable) bool { return v.Local == LocalElementState }); el != own {
				t.Errorf("element states declared: %v; the model has elements with states of their own: %v", el, own)
			}
			validateXSD(t, x)
			check3(t, d)
		})
	}
}

// ballJoint reports whether the joint named name is spherical or universal.
func ballJoint(ms *spec.Model, name string) bool {
	for _, j := range ms.Joints {
		if j.Name == name {
			return j.Kind == "spherical" || j.Kind == "universal"
		}
	}
	return false
}
