package cosim

import (
	"archive/zip"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// modelDescription is the part of an FMI 2.0 modelDescription.xml the
// master uses.
type modelDescription struct {
	FMIVersion     string `xml:"fmiVersion,attr"`
	ModelName      string `xml:"modelName,attr"`
	GUID           string `xml:"guid,attr"`
	GenerationTool string `xml:"generationTool,attr"`
	CoSimulation   *struct {
		ModelIdentifier                        string `xml:"modelIdentifier,attr"`
		CanHandleVariableCommunicationStepSize string `xml:"canHandleVariableCommunicationStepSize,attr"`
		CanInterpolateInputs                   string `xml:"canInterpolateInputs,attr"`
		MaxOutputDerivativeOrder               string `xml:"maxOutputDerivativeOrder,attr"`
	} `xml:"CoSimulation"`
	Variables []scalarVariable `xml:"ModelVariables>ScalarVariable"`
}

// scalarVariable is one ScalarVariable; only Real ones can be connected.
type scalarVariable struct {
	Name        string `xml:"name,attr"`
	VR          uint32 `xml:"valueReference,attr"`
	Causality   string `xml:"causality,attr"`
	Variability string `xml:"variability,attr"`
	Real        *struct {
		Start string `xml:"start,attr"`
		Unit  string `xml:"unit,attr"`
	} `xml:"Real"`
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
		if err := unzip(path, dir); err != nil {
			a.close()
			return nil, fmt.Errorf("unpacking %s: %v", path, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(a.dir, "modelDescription.xml"))
	if err != nil {
		a.close()
		return nil, fmt.Errorf("%s: no modelDescription.xml: not an FMU (%v)", path, err)
	}
	md := &modelDescription{}
	if err := xml.Unmarshal(data, md); err != nil {
		a.close()
		return nil, fmt.Errorf("%s: modelDescription.xml: %v", path, err)
	}
	switch {
	case !strings.HasPrefix(md.FMIVersion, "2."):
		err = fmt.Errorf("fmiVersion %q: only FMI 2.0 is supported", md.FMIVersion)
	case md.CoSimulation == nil:
		err = fmt.Errorf("not a co-simulation FMU (no <CoSimulation> element)")
	case md.CoSimulation.ModelIdentifier == "":
		err = fmt.Errorf("<CoSimulation> has no modelIdentifier")
	case md.GUID == "":
		err = fmt.Errorf("no guid")
	}
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

// resources returns the fmuResourceLocation URI of the unpacked FMU.
func (a *fmuArchive) resources() (string, error) {
	abs, err := filepath.Abs(filepath.Join(a.dir, "resources"))
	if err != nil {
		return "", err
	}
	return "file://" + (&urlPath{abs}).escaped(), nil
}

// binary returns the path of the linux64 binary.
func (a *fmuArchive) binary() string {
	return filepath.Join(a.dir, "binaries", "linux64", a.md.CoSimulation.ModelIdentifier+".so")
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

// unzip extracts the archive at path into dir, refusing entries that would
// land outside it.
func unzip(path, dir string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		name := filepath.FromSlash(f.Name)
		if filepath.IsAbs(name) || strings.HasPrefix(filepath.Clean(name), "..") {
			return fmt.Errorf("entry %q points outside the archive", f.Name)
		}
		dst := filepath.Join(dir, name)
		if f.FileInfo().IsDir() || strings.HasSuffix(f.Name, "/") {
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := extract(f, dst); err != nil {
			return err
		}
	}
	return nil
}

func extract(f *zip.File, dst string) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	mode := os.FileMode(0o644)
	if f.Mode()&0o111 != 0 || strings.HasSuffix(f.Name, ".so") {
		mode = 0o755
	}
	w, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
