package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// The viewer takes an mbfmu FMU for the model (the geometry travels in
// its resources/model.xml) and a results file written by another master,
// which holds the FMU's inputs and outputs but no poses: it replays the
// model at the file's times with the file's inputs (held from row to
// row, as the master did), and the replay's outputs equal the file's, bit
// for bit, for a run of the same engine; the screenshot is drawn from it.
func TestViewFMUReplay(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/cartpole/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	// an "FMU": what the viewer reads of one
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, err := zw.Create("resources/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	fmuPath := filepath.Join(dir, "cartpole.fmu")
	if err := os.WriteFile(fmuPath, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// a master's run: the input and the outputs every 10 ms, input held
	ms, err := xml.Parse(src, "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	u := func(k int) float64 { return 2 * math.Sin(0.3*float64(k)) }
	s.SetInput(0, u(0))
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	outs := m.OutputInfo()
	in := m.InputInfo()[0].Name
	var b, bc strings.Builder
	b.WriteString("time,plant." + in)
	// mbfmu cosim's layout: the components' outputs (a controller's output
	// named like the plant's input but not connected to it), then the
	// plant's connected input
	bc.WriteString("time,ctl." + in)
	for _, o := range outs {
		b.WriteString(",plant." + o.Name)
		bc.WriteString(",plant." + o.Name)
	}
	b.WriteString("\n")
	bc.WriteString(",plant." + in + "\n")
	y := make([]float64, len(outs))
	for k := 0; k <= 100; k++ {
		tk := 0.01 * float64(k)
		if k > 0 {
			s.SetInput(0, u(k-1))
			if err := m.AdvanceTo(s, tk); err != nil {
				t.Fatal(err)
			}
		}
		m.EvalOutputs(s, y)
		fmt.Fprintf(&b, "%.17g,%.17g", tk, u(k))
		fmt.Fprintf(&bc, "%.17g,%.17g", tk, u(k)+1)
		for _, v := range y {
			fmt.Fprintf(&b, ",%.17g", v)
			fmt.Fprintf(&bc, ",%.17g", v)
		}
		b.WriteString("\n")
		fmt.Fprintf(&bc, ",%.17g\n", u(k))
	}
	cosimPath := filepath.Join(dir, "cosim_run.csv")
	if err := os.WriteFile(cosimPath, []byte(bc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(dir, "fmpy_run.csv")
	if err := os.WriteFile(csvPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := readTable(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	mm, err := loadModel(fmuPath)
	if err != nil {
		t.Fatal(err)
	}
	rt, worst, err := replay(mm, tab)
	if err != nil {
		t.Fatal(err)
	}
	if worst != 0 {
		t.Errorf("the replay's outputs differ from the run's by %g (want bit for bit)", worst)
	}
	if rt.Len() != 101 || rt.Index("cart.x") < 0 {
		t.Fatalf("replay: %d rows, cart.x at %d", rt.Len(), rt.Index("cart.x"))
	}
	// the cosim layout: the plant's input is taken from its own instance's
	// column, not from the controller's of the same name
	ctab, err := readTable(cosimPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, worst, err := replay(mm, ctab); err != nil || worst != 0 {
		t.Errorf("replay of the cosim layout: outputs differ by %g (%v), want bit for bit", worst, err)
	}
	png := filepath.Join(dir, "shot.png")
	var stderr bytes.Buffer
	if err := run([]string{"--screenshot", png, "--at", "0.5", fmuPath, csvPath}, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "replayed cartpole.fmu at its 101 times") || !strings.Contains(stderr.String(), "differ from the file's by at most 0") {
		t.Errorf("stderr: %s", stderr.String())
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	}
}
