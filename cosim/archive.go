package cosim

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mbfmu/fmu"
)

// modelDescription is the part of an FMI 2.0 or FMI 3.0 modelDescription.xml
// the master uses. FMI 2.0 descriptions are decoded into it directly; FMI
// 3.0 ones through description3 (toMD), which maps their
// variables onto the same form.
type modelDescription struct {
	FMIVersion string `xml:"fmiVersion,attr"`
	ModelName  string `xml:"modelName,attr"`
	// GUID is FMI 2.0's guid, or FMI 3.0's instantiationToken: the string
	// the instantiation passes back to the FMU.
	GUID           string        `xml:"guid,attr"`
	GenerationTool string        `xml:"generationTool,attr"`
	CoSimulation   *coSimulation `xml:"CoSimulation"`
	// Variables in the file's order; in FMI 3.0 with the independent
	// variable (causality "independent", usually time), the arrays and the
	// variables of every type.
	Variables []scalarVariable `xml:"ModelVariables>ScalarVariable"`
	// Outputs are the entries of <ModelStructure><Outputs> (FMI 2.0, as
	// decoded; FMI 3.0's <ModelStructure><Output> are mapped onto them by
	// toMD). resolveOutputs turns them into the outputs' Deps.
	Outputs []outputUnknown `xml:"ModelStructure>Outputs>Unknown"`
}

// outputUnknown is an output's entry of <ModelStructure>: FMI 2.0's
// <Unknown index=…> in <Outputs> (index: 1-based position in
// ModelVariables, as are its dependencies), FMI 3.0's <Output
// valueReference=…> (dependencies: value references).
type outputUnknown struct {
	Index int    `xml:"index,attr"`
	VR    uint32 `xml:"valueReference,attr"`
	// Dependencies is nil when the attribute is absent (the output may
	// depend on every known), "" when it lists none.
	Dependencies *string `xml:"dependencies,attr"`
	// DependenciesKind is not used: every kind (dependent, constant,
	// fixed, tunable, discrete) is a dependency at a communication point.
	DependenciesKind *string `xml:"dependenciesKind,attr"`
}

// coSimulation holds the attributes of <CoSimulation>; an attribute the
// file leaves out is "". Some are spelt differently in the two versions.
type coSimulation struct {
	ModelIdentifier                        string `xml:"modelIdentifier,attr"`
	CanHandleVariableCommunicationStepSize string `xml:"canHandleVariableCommunicationStepSize,attr"`
	// CanInterpolateInputs is FMI 2.0 only: FMI 3.0 has no input
	// derivatives.
	CanInterpolateInputs     string `xml:"canInterpolateInputs,attr"`
	MaxOutputDerivativeOrder string `xml:"maxOutputDerivativeOrder,attr"`
	// FMI 2.0 spelling, then FMI 3.0's.
	CanGetAndSetFMUstate string `xml:"canGetAndSetFMUstate,attr"`
	CanGetAndSetFMUState string `xml:"canGetAndSetFMUState,attr"`
	CanSerializeFMUstate string `xml:"canSerializeFMUstate,attr"`
	CanSerializeFMUState string `xml:"canSerializeFMUState,attr"`
	NeedsExecutionTool   string `xml:"needsExecutionTool,attr"`
	OnlyOncePerProcess   string `xml:"canBeInstantiatedOnlyOncePerProcess,attr"`
	// FMI 3.0 only; the master uses none of them (it instantiates with
	// eventModeUsed and earlyReturnAllowed false and no intermediate
	// update).
	ProvidesIntermediateUpdate string `xml:"providesIntermediateUpdate,attr"`
	MightReturnEarlyFromDoStep string `xml:"mightReturnEarlyFromDoStep,attr"`
	HasEventMode               string `xml:"hasEventMode,attr"`
}

// canGetAndSetState reports canGetAndSetFMUstate (FMI 2.0) or
// canGetAndSetFMUState (FMI 3.0).
func (cs *coSimulation) canGetAndSetState() bool {
	return cs.CanGetAndSetFMUstate == "true" || cs.CanGetAndSetFMUState == "true"
}

// canSerializeState reports canSerializeFMUstate (FMI 2.0) or
// canSerializeFMUState (FMI 3.0).
func (cs *coSimulation) canSerializeState() bool {
	return cs.CanSerializeFMUstate == "true" || cs.CanSerializeFMUState == "true"
}

// scalarVariable is one variable of the FMU. Only Real (FMI 2.0) and
// scalar Float64 (FMI 3.0) variables can be connected and set: they have
// Real.
type scalarVariable struct {
	Name        string `xml:"name,attr"`
	VR          uint32 `xml:"valueReference,attr"`
	Causality   string `xml:"causality,attr"`
	Variability string `xml:"variability,attr"`
	// Real is the start value and unit of a Real or scalar Float64
	// variable; nil for every other type and for arrays.
	Real *realAttrs `xml:"Real"`
	// Other are the other children of an FMI 2.0 variable: the type
	// element of one that is not Real (Integer, Boolean, String,
	// Enumeration), and Annotations.
	Other []struct {
		XMLName xml.Name
	} `xml:",any"`
	// Type is the variable's type as the file names it: Real, Integer, …
	// (FMI 2.0) or Float64, Int32, Boolean, … (FMI 3.0).
	Type string `xml:"-"`
	// Dims are the sizes of an FMI 3.0 array variable's dimensions (0: a
	// size given by a structural parameter); nil for a scalar.
	Dims []int `xml:"-"`
	// DepsGiven tells whether <ModelStructure> lists the dependencies of
	// this output (the attribute dependencies is present); Deps are then
	// the positions in modelDescription.Variables of the knowns it
	// depends on directly (inputs, states, the independent variable, …).
	DepsGiven bool  `xml:"-"`
	Deps      []int `xml:"-"`
}

// realAttrs are the attributes of a Real (or Float64) variable the master
// uses.
type realAttrs struct {
	Start string `xml:"start,attr"`
	Unit  string `xml:"unit,attr"`
}

// connectable reports whether the variable can be a port or a parameter
// the master sets: a Real, or a scalar Float64.
func (v *scalarVariable) connectable() bool { return v.Real != nil }

// what describes the variable's type for messages: "Float64 array [3]",
// "Int32", "Real".
func (v *scalarVariable) what() string {
	if len(v.Dims) == 0 {
		return v.Type
	}
	d := make([]string, len(v.Dims))
	for i, n := range v.Dims {
		d[i] = strconv.Itoa(n)
		if n == 0 {
			d[i] = "?"
		}
	}
	return v.Type + " array [" + strings.Join(d, "×") + "]"
}

// fmi3 reports whether the description is FMI 3.0.
func (md *modelDescription) fmi3() bool { return strings.HasPrefix(md.FMIVersion, "3.") }

// description3 is an FMI 3.0 modelDescription.xml as decoded; toMD maps
// it onto modelDescription.
type description3 struct {
	FMIVersion         string        `xml:"fmiVersion,attr"`
	ModelName          string        `xml:"modelName,attr"`
	InstantiationToken string        `xml:"instantiationToken,attr"`
	GenerationTool     string        `xml:"generationTool,attr"`
	CoSimulation       *coSimulation `xml:"CoSimulation"`
	Float64Types       []struct {
		Name string `xml:"name,attr"`
		Unit string `xml:"unit,attr"`
	} `xml:"TypeDefinitions>Float64Type"`
	ModelVariables struct {
		Vars []variable3 `xml:",any"`
	} `xml:"ModelVariables"`
	Outputs []outputUnknown `xml:"ModelStructure>Output"`
}

// variable3 is one child of <ModelVariables> in FMI 3.0: <Float64>,
// <Int32>, <Boolean>, … (the element's name is the type).
type variable3 struct {
	XMLName      xml.Name
	Name         string `xml:"name,attr"`
	VR           uint32 `xml:"valueReference,attr"`
	Causality    string `xml:"causality,attr"`
	Variability  string `xml:"variability,attr"`
	Start        string `xml:"start,attr"`
	Unit         string `xml:"unit,attr"`
	DeclaredType string `xml:"declaredType,attr"`
	Dimensions   []struct {
		Start string `xml:"start,attr"`
		VR    string `xml:"valueReference,attr"`
	} `xml:"Dimension"`
}

// toMD maps an FMI 3.0 description onto modelDescription: the
// instantiationToken is the GUID; a scalar Float64 gets Real (its unit, or
// its declared type's); arrays and the other types keep their type and
// dimensions only. Causality defaults to local and variability to
// continuous (Float32/Float64) or discrete, as FMI 3.0 says.
func (d *description3) toMD() *modelDescription {
	md := &modelDescription{FMIVersion: d.FMIVersion, ModelName: d.ModelName, GUID: d.InstantiationToken,
		GenerationTool: d.GenerationTool, CoSimulation: d.CoSimulation, Outputs: d.Outputs}
	typeUnit := map[string]string{}
	for _, t := range d.Float64Types {
		typeUnit[t.Name] = t.Unit
	}
	for _, x := range d.ModelVariables.Vars {
		v := scalarVariable{Name: x.Name, VR: x.VR, Causality: x.Causality, Variability: x.Variability, Type: x.XMLName.Local}
		if v.Causality == "" {
			v.Causality = "local"
		}
		if v.Variability == "" {
			v.Variability = "discrete"
			if v.Type == "Float64" || v.Type == "Float32" {
				v.Variability = "continuous"
			}
		}
		for _, dim := range x.Dimensions {
			n, err := strconv.Atoi(strings.TrimSpace(dim.Start))
			if err != nil || n < 0 {
				n = 0 // sized by a structural parameter
			}
			v.Dims = append(v.Dims, n)
		}
		if v.Type == "Float64" && len(v.Dims) == 0 {
			unit := x.Unit
			if unit == "" {
				unit = typeUnit[x.DeclaredType]
			}
			v.Real = &realAttrs{Start: x.Start, Unit: unit}
		}
		md.Variables = append(md.Variables, v)
	}
	return md
}

// readDescription decodes modelDescription.xml of FMI 2.0 or 3.0 and
// checks what the master needs of it.
func readDescription(data []byte) (*modelDescription, error) {
	var head struct {
		FMIVersion string `xml:"fmiVersion,attr"`
	}
	if err := xml.Unmarshal(data, &head); err != nil {
		return nil, err
	}
	var md *modelDescription
	switch {
	case strings.HasPrefix(head.FMIVersion, "2."):
		md = &modelDescription{}
		if err := xml.Unmarshal(data, md); err != nil {
			return nil, err
		}
		for i := range md.Variables {
			v := &md.Variables[i]
			if v.Real != nil {
				v.Type = "Real"
			}
			for _, o := range v.Other {
				if v.Type == "" && o.XMLName.Local != "Annotations" {
					v.Type = o.XMLName.Local
				}
			}
			v.Other = nil
		}
	case strings.HasPrefix(head.FMIVersion, "3."):
		d := &description3{}
		if err := xml.Unmarshal(data, d); err != nil {
			return nil, err
		}
		md = d.toMD()
	default:
		return nil, fmt.Errorf("fmiVersion %q: only FMI 2.0 and FMI 3.0 are supported", head.FMIVersion)
	}
	if err := md.resolveOutputs(); err != nil {
		return nil, err
	}
	token := "guid"
	if md.fmi3() {
		token = "instantiationToken"
	}
	switch {
	case md.CoSimulation == nil:
		return nil, fmt.Errorf("not a co-simulation FMU (no <CoSimulation> element)")
	case md.CoSimulation.ModelIdentifier == "":
		return nil, fmt.Errorf("<CoSimulation> has no modelIdentifier")
	case md.GUID == "":
		return nil, fmt.Errorf("no %s", token)
	}
	return md, nil
}

// resolveOutputs sets Deps and DepsGiven of the outputs listed in
// <ModelStructure> from their dependencies: FMI 2.0 indices (1-based
// positions in ModelVariables), FMI 3.0 value references. An entry that
// names no output, or a dependency that names no variable, is an error:
// the master relies on the list to find direct feedthrough.
func (md *modelDescription) resolveOutputs() error {
	fmi3 := md.fmi3()
	byVR := map[uint32]int{}
	if fmi3 {
		for i, v := range md.Variables {
			if _, dup := byVR[v.VR]; !dup {
				byVR[v.VR] = i
			}
		}
	}
	locate := func(index int, vr uint32) (int, string) {
		if fmi3 {
			i, ok := byVR[vr]
			if !ok {
				return -1, fmt.Sprintf("value reference %d names no variable", vr)
			}
			return i, ""
		}
		if index < 1 || index > len(md.Variables) {
			return -1, fmt.Sprintf("index %d is not in 1…%d (the ModelVariables)", index, len(md.Variables))
		}
		return index - 1, ""
	}
	where := "<ModelStructure><Outputs><Unknown index=%d>"
	if fmi3 {
		where = "<ModelStructure><Output valueReference=%d>"
	}
	for _, u := range md.Outputs {
		id := u.Index
		if fmi3 {
			id = int(u.VR)
		}
		at := fmt.Sprintf(where, id)
		o, why := locate(u.Index, u.VR)
		if o < 0 {
			return fmt.Errorf("%s: %s", at, why)
		}
		v := &md.Variables[o]
		if v.Causality != "output" {
			return fmt.Errorf("%s: %s is a%s %s, not an output", at, v.Name, nIf(v.Causality), v.Causality)
		}
		if u.Dependencies == nil {
			continue
		}
		v.DepsGiven, v.Deps = true, nil
		for _, f := range strings.Fields(*u.Dependencies) {
			n, err := strconv.ParseUint(f, 10, 32)
			if err != nil {
				return fmt.Errorf("%s: dependencies %q: %q is not a whole number", at, *u.Dependencies, f)
			}
			k, why := locate(int(n), uint32(n))
			if k < 0 {
				return fmt.Errorf("%s (%s): dependency %s", at, v.Name, why)
			}
			v.Deps = append(v.Deps, k)
		}
	}
	return nil
}

// fmuArchive is an unpacked FMU.
type fmuArchive struct {
	dir  string // root of the unpacked FMU
	temp bool   // dir was created by openFMU and is removed by close
	md   *modelDescription
}

// openFMU unpacks the FMU at path (a .fmu file or an already unpacked
// folder) and reads its modelDescription.xml.
func openFMU(path string) (*fmuArchive, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	a := &fmuArchive{dir: path}
	if !fi.IsDir() {
		dir, err := os.MkdirTemp("", "mbfmu-cosim-*")
		if err != nil {
			return nil, err
		}
		a.dir, a.temp = dir, true
		if err := fmu.Unzip(path, dir); err != nil {
			a.close()
			return nil, fmt.Errorf("unpacking %s: %v", path, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(a.dir, "modelDescription.xml"))
	if err != nil {
		a.close()
		return nil, fmt.Errorf("%s: no modelDescription.xml: not an FMU (%v)", path, err)
	}
	md, err := readDescription(data)
	if err != nil {
		a.close()
		return nil, fmt.Errorf("%s: modelDescription.xml: %v", path, err)
	}
	a.md = md
	return a, nil
}

// ours reports whether the FMU was packed by mbfmu (generationTool and a
// model file in its resources): it is then run in-process.
func (a *fmuArchive) ours() bool {
	if a.md.GenerationTool != "mbfmu" && !strings.HasPrefix(a.md.GenerationTool, "mbfmu ") {
		return false
	}
	fi, err := os.Stat(filepath.Join(a.dir, "resources", "model.xml"))
	return err == nil && fi.Mode().IsRegular()
}

// resources returns where the unpacked FMU's resources folder is, as the
// instantiation passes it: for FMI 2.0 the fmuResourceLocation, a file://
// URI; for FMI 3.0 the resourcePath, a plain absolute path ending with the
// separator.
func (a *fmuArchive) resources() (string, error) {
	abs, err := filepath.Abs(filepath.Join(a.dir, "resources"))
	if err != nil {
		return "", err
	}
	if a.md.fmi3() {
		return abs + string(filepath.Separator), nil
	}
	return "file://" + (&urlPath{abs}).escaped(), nil
}

// platform is the binaries folder of x86-64 Linux: linux64 in FMI 2.0,
// x86_64-linux in FMI 3.0.
func (a *fmuArchive) platform() string {
	if a.md.fmi3() {
		return "x86_64-linux"
	}
	return "linux64"
}

// binary returns the path of the x86-64 Linux binary.
func (a *fmuArchive) binary() string {
	return filepath.Join(a.dir, "binaries", a.platform(), a.md.CoSimulation.ModelIdentifier+".so")
}

func (a *fmuArchive) close() {
	if a.temp {
		os.RemoveAll(a.dir)
		a.temp = false
	}
}

// variable finds a variable by name.
func (md *modelDescription) variable(name string) *scalarVariable {
	for i := range md.Variables {
		if md.Variables[i].Name == name {
			return &md.Variables[i]
		}
	}
	return nil
}

// realStart returns the start value of a Real variable (0 if none).
func (v *scalarVariable) realStart() float64 {
	if v.Real == nil || v.Real.Start == "" {
		return 0
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.Real.Start), 64)
	if err != nil {
		return 0
	}
	return f
}

// urlPath percent-encodes a file path for a file: URI.
type urlPath struct{ p string }

func (u *urlPath) escaped() string {
	var b strings.Builder
	for _, c := range []byte(filepath.ToSlash(u.p)) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '/', c == '-', c == '_', c == '.', c == '~':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
