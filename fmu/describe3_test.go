package fmu

import (
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// md3 is what the FMI 3.0 checks read of a modelDescription.xml.
type md3 struct {
	Version string `xml:"fmiVersion,attr"`
	Token   string `xml:"instantiationToken,attr"`
	CS      struct {
		Attrs []xml.Attr `xml:",any,attr"`
	} `xml:"CoSimulation"`
	Vars []struct {
		Name        string  `xml:"name,attr"`
		VR          uint32  `xml:"valueReference,attr"`
		Causality   string  `xml:"causality,attr"`
		Variability string  `xml:"variability,attr"`
		Derivative  *uint32 `xml:"derivative,attr"`
		Start       *string `xml:"start,attr"`
		Dims        []struct {
			Start int `xml:"start,attr"`
		} `xml:"Dimension"`
	} `xml:"ModelVariables>Float64"`
	Outputs  []unknown3 `xml:"ModelStructure>Output"`
	Derivs   []unknown3 `xml:"ModelStructure>ContinuousStateDerivative"`
	Initials []unknown3 `xml:"ModelStructure>InitialUnknown"`
}

type unknown3 struct {
	VR   uint32  `xml:"valueReference,attr"`
	Deps *string `xml:"dependencies,attr"`
}

// terms3 is what the checks read of terminalsAndIcons.xml.
type terms3 struct {
	Terminals []struct {
		Name    string `xml:"name,attr"`
		Members []struct {
			Variable string `xml:"variableName,attr"`
			Member   string `xml:"memberName,attr"`
		} `xml:"TerminalMemberVariable"`
	} `xml:"Terminals>Terminal"`
}

// check3 checks d's FMI 3.0 description against the FMI 3.0.2 schema and
// the standard's rules the schema cannot see, and against the FMI 2.0
// description of the same model: unique names and value references, one
// independent variable time, the scalars with FMI 2.0's value references
// and causalities, derivative attributes naming states, every output in
// <Output> once and in order, every derivative of a state in
// <ContinuousStateDerivative>, every output, state and derivative an
// <InitialUnknown>, dependencies naming states, array dimensions matching
// their elements, terminals naming outputs.
func check3(t *testing.T, d *Description) {
	t.Helper()
	x := d.XML3()
	validateSchema(t, x, filepath.Join("testdata", "fmi3-schema"), "fmi3ModelDescription.xsd")
	var m md3
	if err := xml.Unmarshal(x, &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != "3.0" || m.Token != d.GUID {
		t.Errorf("fmiVersion %q, instantiationToken %q", m.Version, m.Token)
	}
	byVR := map[uint32]int{}
	byName := map[string]int{}
	independent := 0
	for i, v := range m.Vars {
		if _, dup := byVR[v.VR]; dup {
			t.Errorf("value reference %d used twice", v.VR)
		}
		if _, dup := byName[v.Name]; dup {
			t.Errorf("name %q used twice", v.Name)
		}
		byVR[v.VR], byName[v.Name] = i, i
		if v.Causality == "independent" {
			independent++
			if v.Name != "time" || v.VR != d.TimeVR || v.Start != nil {
				t.Errorf("independent variable %+v", v)
			}
		}
	}
	if independent != 1 {
		t.Errorf("%d independent variables", independent)
	}
	for _, v := range d.Variables {
		k, ok := byName[v.Name]
		if !ok || m.Vars[k].VR != v.VR || m.Vars[k].Causality != v.Causality.String() {
			t.Errorf("FMI 2.0 variable %q (VR %d, %s) not the same in FMI 3.0", v.Name, v.VR, v.Causality)
		}
	}
	states := map[uint32]bool{}
	for _, v := range m.Vars {
		if v.Derivative != nil {
			k, ok := byVR[*v.Derivative]
			if !ok {
				t.Errorf("%q: derivative of unknown value reference %d", v.Name, *v.Derivative)
				continue
			}
			states[*v.Derivative] = m.Vars[k].Causality == "local"
		}
	}
	var outs []uint32
	for _, v := range m.Vars {
		if v.Causality == "output" {
			outs = append(outs, v.VR)
		}
	}
	if len(outs) != len(m.Outputs) {
		t.Errorf("%d outputs, %d <Output>", len(outs), len(m.Outputs))
	}
	for i := range m.Outputs {
		if i < len(outs) && m.Outputs[i].VR != outs[i] {
			t.Errorf("<Output> %d is VR %d, want %d", i, m.Outputs[i].VR, outs[i])
		}
	}
	nder := 0
	for _, v := range m.Vars {
		if v.Derivative != nil {
			nder++
		}
	}
	if len(m.Derivs) != nder {
		t.Errorf("%d derivative attributes, %d <ContinuousStateDerivative>", nder, len(m.Derivs))
	}
	for _, u := range append(append([]unknown3{}, m.Outputs...), m.Derivs...) {
		if u.Deps == nil {
			continue
		}
		for _, f := range strings.Fields(*u.Deps) {
			r, err := strconv.ParseUint(f, 10, 32)
			if k, ok := byVR[uint32(r)]; err != nil || !ok || !states[uint32(r)] && m.Vars[k].Causality != "input" {
				t.Errorf("unknown %d depends on %s, which is no state or input", u.VR, f)
			}
		}
	}
	init := map[uint32]bool{}
	for _, u := range m.Initials {
		init[u.VR] = true
	}
	for _, v := range m.Vars {
		if (v.Causality == "output" || v.Causality == "local") && !init[v.VR] {
			t.Errorf("%q is no <InitialUnknown>", v.Name)
		}
	}
	for _, a := range d.Arrays {
		k, ok := byVR[a.VR]
		if !ok {
			t.Errorf("array %q missing", a.Name)
			continue
		}
		n := 1
		for _, dm := range m.Vars[k].Dims {
			n *= dm.Start
		}
		if n != len(a.Elems) || len(m.Vars[k].Dims) == 0 {
			t.Errorf("array %q: dimensions %v for %d elements", a.Name, m.Vars[k].Dims, len(a.Elems))
		}
	}
	if tx := d.TerminalsXML(); tx != nil {
		validateSchema(t, tx, filepath.Join("testdata", "fmi3-schema"), "fmi3TerminalsAndIcons.xsd")
		var tm terms3
		if err := xml.Unmarshal(tx, &tm); err != nil {
			t.Fatal(err)
		}
		for _, term := range tm.Terminals {
			for _, mem := range term.Members {
				if k, ok := byName[mem.Variable]; !ok || m.Vars[k].Causality != "output" {
					t.Errorf("terminal %s: member %q is no output", term.Name, mem.Variable)
				}
			}
		}
	}
}

// The vector and matrix outputs of the Furuta pendulum: the arrays and
// their scalar elements, and the values against the model's geometry.
func TestVectorOutputs(t *testing.T) {
	path := filepath.Join("..", "examples", "furuta", "model.xml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := load(data, path)
	if err != nil {
		t.Fatal(err)
	}
	d := l.desc
	want := map[string][]int{"pend_tip": {3}, "pend_R": {3, 3}, "hinge_f": {3}}
	if len(d.Arrays) != len(want) {
		t.Fatalf("arrays %+v", d.Arrays)
	}
	for _, a := range d.Arrays {
		if w := want[a.Name]; len(w) != len(a.Dims) || a.Dims[0] != w[0] {
			t.Errorf("%s: dims %v, want %v", a.Name, a.Dims, w)
		}
		for e, vr := range a.Elems {
			v := d.Variables[vr]
			if v.Causality != CausalityOutput || !strings.HasPrefix(v.Name, a.Name+".") {
				t.Errorf("%s element %d is %q", a.Name, e, v.Name)
			}
		}
	}
	in := newInstance("t", d, l.compiler(), l.model, nil, false)
	in.fmi3 = true
	if in.EnterInitializationMode3(false, 0, 0, false, 0) != OK || in.ExitInitializationMode() != OK {
		t.Fatal("initialisation failed")
	}
	for k := 0; k < 200; k++ {
		if st := in.DoStep(in.time, 1e-3, false); st != OK {
			t.Fatalf("step %d: %v", k, st)
		}
	}
	get := func(name string) []float64 {
		for _, a := range d.Arrays {
			if a.Name == name {
				v := make([]float64, len(a.Elems))
				if st := in.GetFloat64([]uint32{a.VR}, v); st != OK {
					t.Fatalf("GetFloat64 %s: %v", name, st)
				}
				return v
			}
		}
		t.Fatalf("no array %s", name)
		return nil
	}
	R := get("pend_R")
	// orthonormal, det +1
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			s := 0.0
			for k := 0; k < 3; k++ {
				s += R[3*k+i] * R[3*k+j]
			}
			if i == j {
				s--
			}
			if math.Abs(s) > 1e-12 {
				t.Errorf("RᵀR - I [%d,%d] = %g", i, j, s)
			}
		}
	}
	det := R[0]*(R[4]*R[8]-R[5]*R[7]) - R[1]*(R[3]*R[8]-R[5]*R[6]) + R[2]*(R[3]*R[7]-R[4]*R[6])
	if math.Abs(det-1) > 1e-12 {
		t.Errorf("det R = %.15g", det)
	}
	// the tip is L2 along the pendulum's z axis (R's third column) from the
	// hinge, the arm's tip: at (L1 cos θ, L1 sin θ, 0)
	tip := get("pend_tip")
	var theta float64
	for _, v := range d.Variables {
		if v.Name == "theta" {
			x := []float64{0}
			in.GetFloat64([]uint32{v.VR}, x)
			theta = x[0]
		}
	}
	const L1, L2 = 0.2, 0.3
	hinge := [3]float64{L1 * math.Cos(theta), L1 * math.Sin(theta), 0}
	for i := 0; i < 3; i++ {
		if e := tip[i] - (hinge[i] + L2*R[3*i+2]); math.Abs(e) > 1e-9 {
			t.Errorf("tip[%d] off by %g", i, e)
		}
	}
	// time and a mix of arrays and scalars in one call, nValues checked
	v := make([]float64, 1+3+1)
	if st := in.GetFloat64([]uint32{d.TimeVR, d.Arrays[0].VR, 0}, v); st != OK || math.Abs(v[0]-0.2) > 1e-12 {
		t.Errorf("time %g (%v)", v[0], st)
	}
	if st := in.GetFloat64([]uint32{d.Arrays[0].VR}, make([]float64, 2)); st != Error {
		t.Errorf("short values: %v", st)
	}
	if st := in.SetFloat64([]uint32{d.TimeVR}, []float64{1}); st != Error {
		t.Errorf("set time: %v", st)
	}
}
