package cosim

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"mbfmu/atomicfile"
	"mbfmu/controller"
	"mbfmu/fmu"
)

// The closed loop as an SSP 1.0 package (System Structure and
// Parameterization): SystemStructure.ssd, one FMU per component in
// resources/ — a plant's model file packed as an FMU, an FMU copied, a
// controller (PID, state feedback, LQR, state space, signal, limit) as a
// controller FMU of the same runtime (package controller: it runs the
// controller as `mbfmu cosim` does, with direct feedthrough) —, their
// connections, parameter values and input start values, the macro step
// (OMSimulator's annotation) and the master's settings and checks
// (annotation org.mbfmu.cosim). `mbfmu cosim` runs such a package (ReadSSP)
// to the same results as the cosim file: a controller FMU of mbfmu runs as
// the controller itself.

// The namespaces of SSP 1.0 and of the annotations.
const (
	nsSSD  = "http://ssp-standard.org/SSP1/SystemStructureDescription"
	nsSSC  = "http://ssp-standard.org/SSP1/SystemStructureCommon"
	nsSSV  = "http://ssp-standard.org/SSP1/SystemStructureParameterValues"
	nsOMS  = "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd"
	nsMB   = "https://github.com/mbfmu/ssp"
	annMB  = "org.mbfmu.cosim"
	annOMS = "org.openmodelica"
)

// sspComp is one component as the package holds it.
type sspComp struct {
	name      string
	fmuPath   string // the FMU file to copy into resources/
	ins, outs []Port
	params    []sspValue
	starts    []sspValue
}

type sspValue struct {
	name string
	v    float64
}

// WriteSSP writes the master's loop as an SSP 1.0 package at out, packing
// plants and controllers as FMUs with the runtime library at runtime (""
// = fmu.FindRuntime). A UDP bridge cannot go into a package.
func (m *Master) WriteSSP(out, runtime string) error {
	tmp, err := os.MkdirTemp("", "mbfmu-ssp-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var comps []sspComp
	for _, c := range m.comps {
		b := c.base()
		sc := sspComp{name: b.name, ins: b.ins, outs: b.outs, fmuPath: filepath.Join(tmp, b.name+".fmu")}
		switch x := c.(type) {
		case *modelComp:
			if _, err := fmu.PackVersion(x.path, sc.fmuPath, runtime, 2); err != nil {
				return fmt.Errorf("component %s: packing %s: %v", b.name, x.path, err)
			}
			for _, p := range x.spec.Params {
				if v, ok := x.params[p.Name]; ok {
					sc.params = append(sc.params, sspValue{p.Name, v})
				}
			}
			for i, in := range x.spec.Inputs {
				if x.start0[i] != in.Start {
					sc.starts = append(sc.starts, sspValue{in.Name, x.start0[i]})
				}
			}
		case *fmuComp:
			if fi, err := os.Stat(x.path); err != nil || fi.IsDir() {
				return fmt.Errorf("component %s: %s is not an FMU file (an unpacked folder cannot go into an SSP package)", b.name, x.path)
			}
			sc.fmuPath = x.path
			for name, v := range x.params {
				sc.params = append(sc.params, sspValue{name, v})
			}
			sortValues(sc.params)
			for i, p := range x.ins {
				if v := x.arch.md.variable(p.Name); v != nil && x.start0[i] != v.realStart() {
					sc.starts = append(sc.starts, sspValue{p.Name, x.start0[i]})
				}
			}
		case *blockComp:
			// the loop's macro step and span: a controller FMU's own (its
			// first evaluation's dt) may differ, and an FMI master would
			// then not run it as mbfmu cosim does
			spec := *x.r.Spec()
			spec.Step, spec.Start, spec.End = m.cfg.Settings.Step, m.cfg.Settings.Start, m.cfg.Settings.End
			data, err := spec.XML()
			if err != nil {
				return err
			}
			src := filepath.Join(tmp, b.name+".xml")
			if err := os.WriteFile(src, data, 0o644); err != nil {
				return err
			}
			if _, err := fmu.PackVersion(src, sc.fmuPath, runtime, 2); err != nil {
				return fmt.Errorf("component %s: packing its controller FMU: %v", b.name, err)
			}
		default:
			return fmt.Errorf("component %s (<%s>) cannot go into an SSP package: only plants (<model>, <fmu>) and controllers can", b.name, b.kind)
		}
		comps = append(comps, sc)
	}
	ssd := m.ssd(comps)
	return atomicfile.WriteFile(out, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		f, err := zw.Create("SystemStructure.ssd")
		if err != nil {
			return err
		}
		if _, err := f.Write(ssd); err != nil {
			return err
		}
		for _, c := range comps {
			data, err := os.ReadFile(c.fmuPath)
			if err != nil {
				return err
			}
			f, err := zw.CreateHeader(&zip.FileHeader{Name: "resources/" + c.name + ".fmu", Method: zip.Store})
			if err != nil {
				return err
			}
			if _, err := f.Write(data); err != nil {
				return err
			}
		}
		return zw.Close()
	})
}

func sortValues(v []sspValue) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j].name < v[j-1].name; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&#34;")
}

// ssd renders SystemStructure.ssd.
func (m *Master) ssd(comps []sspComp) []byte {
	s := &m.cfg.Settings
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<ssd:SystemStructureDescription xmlns:ssc=%q xmlns:ssd=%q xmlns:ssv=%q xmlns:oms=%q xmlns:mbfmu=%q name="%s" version="1.0" generationTool="mbfmu"`,
		nsSSC, nsSSD, nsSSV, nsOMS, nsMB, esc(m.cfg.Name))
	if m.cfg.Description != "" {
		fmt.Fprintf(&b, ` description="%s"`, esc(m.cfg.Description))
	}
	b.WriteString(">\n  <ssd:System name=\"root\">\n    <ssd:Elements>\n")
	units := map[string]bool{} // the units the connectors use
	for _, c := range comps {
		fmt.Fprintf(&b, "      <ssd:Component name=\"%s\" type=\"application/x-fmu-sharedlibrary\" source=\"resources/%s.fmu\">\n", esc(c.name), esc(c.name))
		b.WriteString("        <ssd:Connectors>\n")
		conn := func(name, kind, unit string) {
			u := ""
			if _, ok := fmu.BaseUnitAttrs(unit); ok && unit != "" {
				u = ` unit="` + esc(unit) + `"`
				units[unit] = true
			}
			fmt.Fprintf(&b, "          <ssd:Connector name=\"%s\" kind=\"%s\"><ssc:Real%s/></ssd:Connector>\n", esc(name), kind, u)
		}
		for _, p := range c.ins {
			conn(p.Name, "input", p.Unit)
		}
		for _, p := range c.outs {
			conn(p.Name, "output", p.Unit)
		}
		for _, p := range c.params {
			conn(p.name, "parameter", "")
		}
		b.WriteString("        </ssd:Connectors>\n")
		if vals := append(append([]sspValue{}, c.params...), c.starts...); len(vals) > 0 {
			b.WriteString("        <ssd:ParameterBindings>\n          <ssd:ParameterBinding>\n            <ssd:ParameterValues>\n")
			b.WriteString("              <ssv:ParameterSet version=\"1.0\" name=\"parameters\">\n                <ssv:Parameters>\n")
			for _, v := range vals {
				fmt.Fprintf(&b, "                  <ssv:Parameter name=\"%s\"><ssv:Real value=\"%s\"/></ssv:Parameter>\n", esc(v.name), num(v.v))
			}
			b.WriteString("                </ssv:Parameters>\n              </ssv:ParameterSet>\n")
			b.WriteString("            </ssd:ParameterValues>\n          </ssd:ParameterBinding>\n        </ssd:ParameterBindings>\n")
		}
		b.WriteString("      </ssd:Component>\n")
	}
	b.WriteString("    </ssd:Elements>\n    <ssd:Connections>\n")
	for _, c := range m.cfg.Connections {
		fc, fp := splitRef(c.From)
		tc, tp := splitRef(c.To)
		fmt.Fprintf(&b, "      <ssd:Connection startElement=\"%s\" startConnector=\"%s\" endElement=\"%s\" endConnector=\"%s\"/>\n", esc(fc), esc(fp), esc(tc), esc(tp))
	}
	b.WriteString("    </ssd:Connections>\n    <ssd:Annotations>\n")
	fmt.Fprintf(&b, "      <ssc:Annotation type=%q>\n        <oms:Annotations>\n          <oms:SimulationInformation>\n", annOMS)
	fmt.Fprintf(&b, "            <oms:FixedStepMaster description=\"oms-ma\" stepSize=\"%s\" absoluteTolerance=\"%s\" relativeTolerance=\"%s\"/>\n", num(s.Step), num(s.AbsTol), num(s.RelTol))
	b.WriteString("          </oms:SimulationInformation>\n        </oms:Annotations>\n      </ssc:Annotation>\n")
	fmt.Fprintf(&b, "      <ssc:Annotation type=%q>\n        <mbfmu:cosim>\n", annMB)
	fmt.Fprintf(&b, "          <mbfmu:settings start=\"%s\" end=\"%s\" step=\"%s\"", num(s.Start), num(s.End), num(s.Step))
	if s.OutputStep > 0 {
		fmt.Fprintf(&b, " output-step=\"%s\"", num(s.OutputStep))
	}
	if s.Variable {
		fmt.Fprintf(&b, " variable=\"true\" min-step=\"%s\" max-step=\"%s\"", num(s.MinStep), num(s.MaxStep))
	}
	fmt.Fprintf(&b, " rel-tol=\"%s\" abs-tol=\"%s\" extrapolate=\"%t\"/>\n", num(s.RelTol), num(s.AbsTol), s.Extrapolate)
	for _, c := range m.cfg.Checks {
		fmt.Fprintf(&b, "          <mbfmu:check signal=\"%s\"", esc(c.Signal))
		if c.Minus != "" {
			fmt.Fprintf(&b, " minus=\"%s\"", esc(c.Minus))
		}
		if !math.IsInf(c.After, -1) {
			fmt.Fprintf(&b, " after=\"%s\"", num(c.After))
		}
		if !math.IsInf(c.Until, 1) {
			fmt.Fprintf(&b, " until=\"%s\"", num(c.Until))
		}
		fmt.Fprintf(&b, " near=\"%s\" tol=\"%s\"", num(c.Near), num(c.Tol))
		if c.Mean {
			b.WriteString(` mean="true"`)
		}
		if c.RMS {
			b.WriteString(` rms="true"`)
		}
		if c.Description != "" {
			fmt.Fprintf(&b, " description=\"%s\"", esc(c.Description))
		}
		b.WriteString("/>\n")
	}
	b.WriteString("        </mbfmu:cosim>\n      </ssc:Annotation>\n    </ssd:Annotations>\n  </ssd:System>\n")
	if len(units) > 0 {
		names := make([]string, 0, len(units))
		for u := range units {
			names = append(names, u)
		}
		sort.Strings(names)
		b.WriteString("  <ssd:Units>\n")
		for _, u := range names {
			attrs, _ := fmu.BaseUnitAttrs(u)
			fmt.Fprintf(&b, "    <ssc:Unit name=\"%s\"><ssc:BaseUnit%s/></ssc:Unit>\n", esc(u), attrs)
		}
		b.WriteString("  </ssd:Units>\n")
	}
	fmt.Fprintf(&b, "  <ssd:DefaultExperiment startTime=\"%s\" stopTime=\"%s\"/>\n", num(s.Start), num(s.End))
	b.WriteString("</ssd:SystemStructureDescription>\n")
	return []byte(b.String())
}

// splitRef splits "component.port" at the first dot.
func splitRef(ref string) (string, string) {
	if i := strings.IndexByte(ref, '.'); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// The parts of an SSD that ReadSSP reads (local names: the namespaces are
// those of SSP 1.0 and the annotations').
type ssdDoc struct {
	Name        string `xml:"name,attr"`
	Description string `xml:"description,attr"`
	System      struct {
		Name     string `xml:"name,attr"`
		Elements struct {
			Components []struct {
				Name     string       `xml:"name,attr"`
				Type     string       `xml:"type,attr"`
				Source   string       `xml:"source,attr"`
				Bindings []ssdBinding `xml:"ParameterBindings>ParameterBinding"`
			} `xml:"Component"`
			Systems []struct {
				Name string `xml:"name,attr"`
			} `xml:"System"`
		} `xml:"Elements"`
		Connectors struct {
			Items []struct {
				Name string `xml:"name,attr"`
			} `xml:"Connector"`
		} `xml:"Connectors"`
		// bindings of the system itself (hierarchical names): refused
		Bindings    []ssdBinding `xml:"ParameterBindings>ParameterBinding"`
		Connections []struct {
			StartElement   string `xml:"startElement,attr"`
			StartConnector string `xml:"startConnector,attr"`
			EndElement     string `xml:"endElement,attr"`
			EndConnector   string `xml:"endConnector,attr"`
			// the children: a transformation (LinearTransformation, …)
			// is refused, ConnectionGeometry and Annotations ignored
			Any []xml.Name `xml:",any"`
		} `xml:"Connections>Connection"`
		Annotations []struct {
			Type     string `xml:"type,attr"`
			Step     []oms  `xml:"Annotations>SimulationInformation>FixedStepMaster"`
			Settings []struct {
				Attrs []xml.Attr `xml:",any,attr"`
			} `xml:"cosim>settings"`
			Checks []struct {
				Attrs []xml.Attr `xml:",any,attr"`
			} `xml:"cosim>check"`
		} `xml:"Annotations>Annotation"`
	} `xml:"System"`
	Experiment *struct {
		Start *float64 `xml:"startTime,attr"`
		Stop  *float64 `xml:"stopTime,attr"`
	} `xml:"DefaultExperiment"`
}

// ssdBinding is one ParameterBinding: inline values or a source (.ssv),
// with what ReadSSP cannot honour and so refuses (a ParameterMapping, a
// prefix, a source relative to the component, a type other than SSV).
type ssdBinding struct {
	Source     string     `xml:"source,attr"`
	SourceBase string     `xml:"sourceBase,attr"`
	Prefix     string     `xml:"prefix,attr"`
	Type       string     `xml:"type,attr"`
	Sets       []ssvSet   `xml:"ParameterValues>ParameterSet"`
	Any        []xml.Name `xml:",any"`
}

// unsupported names what of a binding ReadSSP cannot apply as SSP 1.0
// means it ("" when it can).
func (b *ssdBinding) unsupported() string {
	for _, n := range b.Any {
		if n.Local == "ParameterMapping" {
			return "a ParameterMapping (renamed or transformed parameters)"
		}
	}
	switch {
	case b.Prefix != "":
		return fmt.Sprintf("the prefix %q", b.Prefix)
	case b.SourceBase != "" && b.SourceBase != "SSD":
		return fmt.Sprintf("sourceBase=%q (a source inside the component)", b.SourceBase)
	case b.Type != "" && b.Type != "application/x-ssp-parameter-set":
		return fmt.Sprintf("a parameter source of type %q", b.Type)
	}
	return ""
}

// packagePath returns the file of a relative URI inside the package
// unpacked at dir, or false when the URI is absolute (a scheme, a rooted
// path) or leads outside the package.
func packagePath(dir, uri string) (string, bool) {
	if strings.Contains(uri, ":") || strings.HasPrefix(uri, "/") {
		return "", false
	}
	p := filepath.FromSlash(path.Clean(uri))
	if !filepath.IsLocal(p) {
		return "", false
	}
	return filepath.Join(dir, p), true
}

type oms struct {
	StepSize float64 `xml:"stepSize,attr"`
}

type ssvSet struct {
	Params []struct {
		Name string `xml:"name,attr"`
		Real *struct {
			Value string `xml:"value,attr"`
			Unit  string `xml:"unit,attr"`
		} `xml:"Real"`
	} `xml:"Parameters>Parameter"`
}

// ReadSSP unpacks the SSP package at pkg into dir (an empty folder the
// caller removes after the run) and reads its system as a co-simulation
// configuration: each FMU component an <fmu> (a controller FMU of mbfmu
// runs as the controller itself), its parameter values as <parameter>s
// (<start>s for inputs), the connections, and the master's settings and
// checks from mbfmu's annotation — else the default experiment and
// OMSimulator's fixed macro step. Nested systems and connectors of the
// system itself are refused, with a message.
func ReadSSP(pkg, dir string) (*Config, error) {
	if err := fmu.Unzip(pkg, dir); err != nil {
		return nil, fmt.Errorf("%s: %v", pkg, err)
	}
	ssdPath := filepath.Join(dir, "SystemStructure.ssd")
	data, err := os.ReadFile(ssdPath)
	if err != nil {
		return nil, fmt.Errorf("%s: no SystemStructure.ssd: %v", pkg, err)
	}
	var d ssdDoc
	if err := xml.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: SystemStructure.ssd: %v", pkg, err)
	}
	sys := &d.System
	if len(sys.Elements.Systems) > 0 {
		return nil, fmt.Errorf("%s: system %q holds the subsystem %q: mbfmu cosim runs one flat system of FMUs", pkg, sys.Name, sys.Elements.Systems[0].Name)
	}
	if len(sys.Connectors.Items) > 0 {
		return nil, fmt.Errorf("%s: system %q has connectors of its own (%q): mbfmu cosim runs a closed system", pkg, sys.Name, sys.Connectors.Items[0].Name)
	}
	if len(sys.Bindings) > 0 {
		// (ignored, the components would silently keep their defaults)
		return nil, fmt.Errorf("%s: system %q has parameter bindings of its own: mbfmu cosim reads the parameter bindings of its components only", pkg, sys.Name)
	}
	for _, c := range sys.Connections {
		for _, n := range c.Any {
			if strings.HasSuffix(n.Local, "Transformation") {
				return nil, fmt.Errorf("%s: the connection %s.%s → %s.%s has a %s: mbfmu cosim connects values unchanged", pkg,
					c.StartElement, c.StartConnector, c.EndElement, c.EndConnector, n.Local)
			}
		}
	}
	var b strings.Builder
	name := d.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(pkg), filepath.Ext(pkg))
	}
	fmt.Fprintf(&b, "<cosim name=\"%s\" description=\"%s\">\n", esc(name), esc(d.Description))
	var settings, checks []string
	step := 0.0
	for _, a := range sys.Annotations {
		switch a.Type {
		case annMB:
			for _, s := range a.Settings {
				settings = append(settings, "  <settings"+attrs(s.Attrs)+"/>\n")
			}
			for _, c := range a.Checks {
				checks = append(checks, "  <check"+attrs(c.Attrs)+"/>\n")
			}
		case annOMS:
			for _, o := range a.Step {
				step = o.StepSize
			}
		}
	}
	if len(settings) == 0 {
		// another tool's package: its experiment and macro step
		s := "  <settings"
		if e := d.Experiment; e != nil {
			if e.Start != nil {
				s += fmt.Sprintf(" start=\"%s\"", num(*e.Start))
			}
			if e.Stop != nil {
				s += fmt.Sprintf(" end=\"%s\"", num(*e.Stop))
			}
		}
		if step > 0 {
			s += fmt.Sprintf(" step=\"%s\"", num(step))
		}
		settings = append(settings, s+"/>\n")
	}
	b.WriteString(strings.Join(settings, ""))
	for _, c := range sys.Elements.Components {
		if c.Type != "" && c.Type != "application/x-fmu-sharedlibrary" {
			return nil, fmt.Errorf("%s: component %q is of type %q: mbfmu cosim runs FMUs (application/x-fmu-sharedlibrary)", pkg, c.Name, c.Type)
		}
		src := filepath.FromSlash(path.Clean(c.Source))
		if strings.HasPrefix(src, "..") || filepath.IsAbs(src) || !filepath.IsLocal(src) {
			return nil, fmt.Errorf("%s: component %q: source %q is outside the package", pkg, c.Name, c.Source)
		}
		fmt.Fprintf(&b, "  <fmu name=\"%s\" path=\"%s\">\n", esc(c.Name), esc(filepath.ToSlash(src)))
		var inputs map[string]bool // the FMU's inputs, read once (opening an FMU unpacks it)
		for _, bind := range c.Bindings {
			if why := bind.unsupported(); why != "" {
				return nil, fmt.Errorf("%s: component %q: a parameter binding with %s: mbfmu cosim does not apply it", pkg, c.Name, why)
			}
			sets := bind.Sets
			if bind.Source != "" {
				file, ok := packagePath(dir, bind.Source)
				if !ok {
					return nil, fmt.Errorf("%s: component %q: parameter values %q are not a file of the package", pkg, c.Name, bind.Source)
				}
				sv, err := readSSV(file)
				if err != nil {
					return nil, fmt.Errorf("%s: component %q: parameter values %s: %v", pkg, c.Name, bind.Source, err)
				}
				sets = append(sets, sv)
			}
			for _, set := range sets {
				for _, p := range set.Params {
					if p.Real == nil {
						return nil, fmt.Errorf("%s: component %q: parameter %q is not a Real", pkg, c.Name, p.Name)
					}
					v := p.Real.Value
					if p.Real.Unit != "" && p.Real.Unit != "1" {
						v += " " + p.Real.Unit
					}
					// an input's value is its start value
					kind := "parameter"
					if inputs == nil {
						inputs = fmuInputs(filepath.Join(dir, src))
					}
					if inputs[p.Name] {
						kind = "start"
					}
					fmt.Fprintf(&b, "    <%s name=\"%s\" value=\"%s\"/>\n", kind, esc(p.Name), esc(v))
				}
			}
		}
		b.WriteString("  </fmu>\n")
	}
	for _, c := range sys.Connections {
		fmt.Fprintf(&b, "  <connect from=\"%s.%s\" to=\"%s.%s\"/>\n", esc(c.StartElement), esc(c.StartConnector), esc(c.EndElement), esc(c.EndConnector))
	}
	b.WriteString(strings.Join(checks, ""))
	b.WriteString("</cosim>\n")
	cfg, err := ParseConfig([]byte(b.String()), ssdPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", pkg, err)
	}
	return cfg, nil
}

func attrs(as []xml.Attr) string {
	var b strings.Builder
	for _, a := range as {
		fmt.Fprintf(&b, " %s=\"%s\"", a.Name.Local, esc(a.Value))
	}
	return b.String()
}

// readSSV reads a parameter values file (.ssv).
func readSSV(file string) (ssvSet, error) {
	var s ssvSet
	data, err := os.ReadFile(file)
	if err != nil {
		return s, err
	}
	return s, xml.Unmarshal(data, &s)
}

// fmuInputs returns the names of the inputs of the FMU at p (none when it
// cannot be opened: the <fmu> reports that).
func fmuInputs(p string) map[string]bool {
	in := map[string]bool{}
	a, err := openFMU(p)
	if err != nil {
		return in
	}
	defer a.close()
	for _, v := range a.md.Variables {
		if v.Causality == "input" {
			in[v.Name] = true
		}
	}
	return in
}

// controllerFMU reports the controller spec of an mbfmu controller FMU at
// p (nil when it is not one).
func controllerFMU(p string) (*controller.Spec, error) {
	a, err := openFMU(p)
	if err != nil {
		return nil, nil // newFMUComp reports it
	}
	defer a.close()
	if !a.ours() {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(a.dir, "resources", fmu.ModelFileName))
	if err != nil || !controller.IsFile(data) {
		return nil, nil
	}
	s, err := controller.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("controller FMU %s: %v", filepath.Base(p), err)
	}
	return s, nil
}
