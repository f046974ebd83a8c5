package cosim

import (
	"archive/zip"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/fmu"
	"mbfmu/results"
)

// memWriter keeps the results in memory.
type memWriter struct {
	cols []results.Column
	rows [][]float64
}

func (w *memWriter) Header(c []results.Column) error { w.cols = c; return nil }
func (w *memWriter) Row(v []float64) error {
	w.rows = append(w.rows, append([]float64(nil), v...))
	return nil
}
func (w *memWriter) Close() error { return nil }

// col returns the values of a column.
func (w *memWriter) col(t *testing.T, name string) []float64 {
	t.Helper()
	for i, c := range w.cols {
		if c.Name == name {
			out := make([]float64, len(w.rows))
			for r, row := range w.rows {
				out[r] = row[i]
			}
			return out
		}
	}
	t.Fatalf("no column %q", name)
	return nil
}

// writeFile writes a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// needGCC skips the test when no C compiler is available.
func needGCC(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found")
	}
	return p
}

// gcc compiles C sources into a shared library.
func gcc(t testing.TB, out string, srcs ...string) {
	t.Helper()
	cc := needGCC(t)
	cabi, _ := filepath.Abs("../cabi")
	args := append([]string{"-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-Wno-unused-parameter", "-I" + cabi, "-o", out}, srcs...)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
}

// zipDir zips the folder dir into the file out.
func zipDir(t testing.TB, dir, out string) {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// piFMU builds the C PI controller FMU of testdata/pi with gcc and zips it.
func piFMU(t testing.TB, dir string) string {
	t.Helper()
	root := filepath.Join(dir, "pi_unpacked")
	if err := os.MkdirAll(filepath.Join(root, "binaries", "linux64"), 0o755); err != nil {
		t.Fatal(err)
	}
	gcc(t, filepath.Join(root, "binaries", "linux64", "pi_controller.so"), "testdata/pi/pi.c")
	md, err := os.ReadFile("testdata/pi/modelDescription.xml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t.(*testing.T), root, "modelDescription.xml", string(md))
	out := filepath.Join(dir, "pi_controller.fmu")
	zipDir(t, root, out)
	return out
}

// fakeRuntime builds a stand-in for the mbfmu runtime library: an ELF
// shared library exporting the symbols fmu.PackVersion checks for (FMI 2.0
// and 3.0). The master never loads it: mbfmu FMUs run in-process.
func fakeRuntime(t testing.TB, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "fake.c")
	if err := os.WriteFile(src, []byte("int fmi2Instantiate(void){return 0;}\nint fmi2DoStep(void){return 0;}\nint fmi2GetFMUstate(void){return 0;}\n"+
		"int fmi3InstantiateCoSimulation(void){return 0;}\nint fmi3DoStep(void){return 0;}\nint fmi3GetFMUState(void){return 0;}\nint fmi3GetFloat64(void){return 0;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "libfake-fmi2.so")
	gcc(t, out, src)
	return out
}

// packFMU packs a model file with fmu.Pack, as `mbfmu pack` does.
func packFMU(t testing.TB, model, dir string) string {
	t.Helper()
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(filepath.Dir(model)), "/")+".fmu")
	if err := fmu.Pack(model, out, fakeRuntime(t, dir)); err != nil {
		t.Fatal(err)
	}
	return out
}

// newMaster loads a configuration file and builds its master, closed when
// the test ends.
func newMaster(t testing.TB, file string, o Options) *Master {
	t.Helper()
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// loadWithPaths loads a configuration file and points the paths of the
// named components at other files.
func loadWithPaths(t testing.TB, file string, paths map[string]string) *Config {
	t.Helper()
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cfg.Components {
		if p, ok := paths[e.Name]; ok {
			e.Attr["path"] = p
		}
	}
	return cfg
}

// maxAbsAfter returns max |v| over rows with t ≥ after.
func maxAbsAfter(ts, v []float64, after float64) float64 {
	m := 0.0
	for i, t := range ts {
		if t >= after-1e-12 {
			m = math.Max(m, math.Abs(v[i]))
		}
	}
	return m
}

// runExampleLoop runs examples/<dir>/cosim.xml with its "plant" the FMU
// packed from the example's model.xml (fmuPath), or, with viaFMU false,
// the model run in-process; it returns the summary and the rows.
func runExampleLoop(t *testing.T, dir, fmuPath string, viaFMU bool) (*Summary, *memWriter) {
	t.Helper()
	cfg := loadWithPaths(t, dir+"cosim.xml", map[string]string{"plant": fmuPath})
	if !viaFMU {
		for _, e := range cfg.Components {
			if e.Name == "plant" {
				e.Kind = "model"
				e.Attr["path"] = "model.xml" // relative to the cosim file
			}
		}
	}
	return runCfg(t, cfg)
}

// runConfig builds and runs a configuration and returns the master
// (closed at the end of the test) and the rows.
func runConfig(t *testing.T, cfg *Config) (*Master, *memWriter) {
	t.Helper()
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	w := &memWriter{}
	if _, err := m.Run(RunOptions{Writer: w}); err != nil {
		t.Fatal(err)
	}
	return m, w
}
