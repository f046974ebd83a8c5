package main

import (
	"archive/zip"
	"encoding/csv"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mbfmu/fmu"
	"mbfmu/solver"
	modelxml "mbfmu/xml"
)

// The compatibility folders (mbfmu compat): the rules FMPy's cross-check
// validator (fmpy/cross_check/validate_vendor_repo.py, validate_test_fmu)
// applies to an exported FMU, checked here as it checks them — file sizes,
// the folder layout against the FMU's FMI version and interface, the
// _ref.opt entries, the CSVs' time column and variable names — and the
// reference results against the engine run directly (package solver, not
// through package fmu), for FMI 2.0 and 3.0.
func TestCrossCheckFolders(t *testing.T) {
	e := setup(t)
	root := t.TempDir()
	model := filepath.Join("..", "examples", "cartpole", "model.xml")
	for _, v := range []int{2, 3} {
		dir, err := fmu.CrossCheck(model, root, "cartpole", fmu.CrossCheckOptions{Runtime: e.lib, Version: v, StopTime: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range validateCrossCheckFMU(t, dir) {
			t.Errorf("FMI %d: %s", v, p)
		}
		checkReference(t, model, dir)
	}
}

// validateCrossCheckFMU returns the problems FMPy's validate_test_fmu
// would report for the folder dir.
func validateCrossCheckFMU(t *testing.T, dir string) []string {
	t.Helper()
	var problems []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		max := int64(1e6)
		if strings.HasSuffix(p, ".fmu") {
			max = 10e6
		}
		if fi.Size() > max {
			problems = append(problems, p+" is too large")
		}
		return nil
	})
	seg := strings.Split(filepath.ToSlash(dir), "/")
	n := len(seg)
	model, fmiVersion, fmiType := seg[n-1], seg[n-6], seg[n-5]
	zr, err := zip.OpenReader(filepath.Join(dir, model+".fmu"))
	if err != nil {
		return append(problems, err.Error())
	}
	defer zr.Close()
	var md struct {
		Version string    `xml:"fmiVersion,attr"`
		CS      *struct{} `xml:"CoSimulation"`
		Vars2   []struct {
			Name string `xml:"name,attr"`
		} `xml:"ModelVariables>ScalarVariable"`
		Vars3 []struct {
			Name string `xml:"name,attr"`
		} `xml:"ModelVariables>Float64"`
	}
	for _, f := range zr.File {
		if f.Name == "modelDescription.xml" {
			r, _ := f.Open()
			data, _ := io.ReadAll(r)
			r.Close()
			if err := xml.Unmarshal(data, &md); err != nil {
				return append(problems, err.Error())
			}
		}
	}
	if md.Version != fmiVersion {
		problems = append(problems, "not an FMI "+fmiVersion+" FMU: "+md.Version)
	}
	if fmiType != "cs" || md.CS == nil {
		problems = append(problems, "not a co-simulation FMU in a cs folder")
	}
	names := map[string]bool{}
	for _, v := range md.Vars2 {
		names[v.Name] = true
	}
	for _, v := range md.Vars3 {
		names[v.Name] = true
	}
	opts := map[string]float64{}
	data, err := os.ReadFile(filepath.Join(dir, model+"_ref.opt"))
	if err != nil {
		return append(problems, err.Error())
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Split(l, ","); len(f) == 2 {
			x, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				problems = append(problems, "_ref.opt: "+err.Error())
			}
			opts[f[0]] = x
		}
	}
	for _, k := range []string{"StepSize", "StartTime", "StopTime", "RelTol"} {
		if _, ok := opts[k]; !ok {
			problems = append(problems, "_ref.opt lacks "+k)
		}
	}
	if !(opts["StartTime"] < opts["StopTime"]) || opts["StepSize"] < 0 || opts["StepSize"] > opts["StopTime"]-opts["StartTime"] {
		problems = append(problems, "_ref.opt: bad times")
	}
	for _, suffix := range []string{"_in.csv", "_ref.csv"} {
		rows, err := readCSV(filepath.Join(dir, model+suffix))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, name := range rows[0][1:] {
			if !names[name] {
				problems = append(problems, suffix+": "+name+" is no variable of the FMU")
			}
		}
		last := math.Inf(-1)
		for _, r := range rows[1:] {
			x, err := strconv.ParseFloat(r[0], 64)
			if err != nil || x < last {
				problems = append(problems, suffix+": time not increasing at "+r[0])
			}
			last = x
		}
	}
	return problems
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return csv.NewReader(f).ReadAll()
}

// checkReference compares _ref.csv with the model integrated by package
// solver over the same communication points, inputs at their start values:
// equal to the 12 digits written.
func checkReference(t *testing.T, model, dir string) {
	t.Helper()
	rows, err := readCSV(filepath.Join(dir, "cartpole_ref.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := modelxml.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	for i, in := range m.InputInfo() {
		s.SetInput(i, in.Start)
	}
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	y := make([]float64, len(m.OutputInfo()))
	if len(rows[0])-1 != len(y) {
		t.Fatalf("%d output columns, %d outputs", len(rows[0])-1, len(y))
	}
	worst := 0.0
	for k, r := range rows[1:] {
		tk, _ := strconv.ParseFloat(r[0], 64)
		if k > 0 {
			if err := m.AdvanceTo(s, tk); err != nil {
				t.Fatal(err)
			}
		}
		m.EvalOutputs(s, y)
		for j, v := range y {
			got, _ := strconv.ParseFloat(r[1+j], 64)
			if e := math.Abs(got-v) / math.Max(math.Abs(v), 1e-6); e > worst {
				worst = e
			}
		}
	}
	if worst > 1e-11 || len(rows) < 100 {
		t.Errorf("_ref.csv against the engine: worst relative difference %g over %d rows", worst, len(rows)-1)
	}
}
