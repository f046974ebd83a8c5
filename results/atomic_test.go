package results

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/xuri/excelize/v2"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range es {
		s = append(s, e.Name())
	}
	return s
}

// RemoveTemps (a second Ctrl-C) removes the temporary files of the
// outputs being written, leaving the folder as it was.
func TestOutputsRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	var o Outputs
	o.AddCSV(filepath.Join(dir, "r.csv"))
	o.AddXLSX(filepath.Join(dir, "r.xlsx"))
	o.Header(testCols())
	o.Row([]float64{0, 1})
	if e := entries(t, dir); len(e) != 1 || !strings.HasPrefix(e[0], ".r.csv.") {
		t.Fatalf("while writing: %v", e)
	}
	o.RemoveTemps()
	if e := entries(t, dir); len(e) != 0 {
		t.Errorf("left %v", e)
	}
}

func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "model.xml")
	os.WriteFile(in, []byte("<model/>"), 0o644)
	link := filepath.Join(dir, "link.xml")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "plain")
	os.WriteFile(file, nil, 0o644)
	wd, _ := os.Getwd()
	rel, _ := filepath.Rel(wd, in)
	for _, c := range []struct {
		out, want string
	}{
		{in, "would overwrite the input file"},
		{rel, "would overwrite the input file"},                  // relative and absolute name of one file
		{dir + "/./model.xml", "would overwrite the input file"}, // not cleaned
		{link, "would overwrite the input file"},                 // a link to the input
		{dir, "is a folder"},
		{filepath.Join(file, "r.csv"), "is a file, not a folder"},
		{filepath.Join(file, "a", "r.csv"), "is a file, not a folder"},
		{filepath.Join(dir, "new", "deeper", "r.csv"), ""}, // folders that can be created
		{filepath.Join(dir, "r.csv"), ""},
	} {
		err := CheckOutput(c.out, in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.out, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.out, err, c.want)
		}
	}
}

func testCols() []Column {
	return []Column{{Name: "time", Unit: "s", Group: GroupTime}, {Name: "x", Unit: "m", Group: GroupPosition}}
}

// Outputs of an interrupted run: Close keeps every row written, whole, in
// the CSV file and the workbook alike.
func TestOutputsCommit(t *testing.T) {
	dir := t.TempDir()
	var o Outputs
	csvPath, xlsxPath := filepath.Join(dir, "sub", "r.csv"), filepath.Join(dir, "sub2", "r.xlsx")
	if err := o.AddCSV(csvPath); err != nil {
		t.Fatal(err)
	}
	if _, err := o.AddXLSX(xlsxPath); err != nil {
		t.Fatal(err)
	}
	if err := o.Header(testCols()); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 7; k++ {
		if err := o.Row([]float64{float64(k) / 10, float64(k * k)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if o.Rows() != 7 || strings.Join(o.Written(), ",") != csvPath+","+xlsxPath {
		t.Errorf("rows %d written %v", o.Rows(), o.Written())
	}
	f, _ := os.Open(csvPath)
	tab, err := ReadCSV(f)
	f.Close()
	if err != nil || tab.Len() != 7 || tab.Data[1][6] != 36 {
		t.Fatalf("csv: %v, %d rows", err, tab.Len())
	}
	x, err := excelize.OpenFile(xlsxPath)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rows, _ := x.GetRows(SheetResults, excelize.Options{RawCellValue: true})
	if len(rows) != 2+7 || rows[8][1] != "36" {
		t.Errorf("workbook rows %v", rows)
	}
	for _, d := range []string{filepath.Dir(csvPath), filepath.Dir(xlsxPath)} {
		if e := entries(t, d); len(e) != 1 {
			t.Errorf("%s holds %v", d, e)
		}
	}
}

// A write error in one output (injected: its file closed under it) stops
// the run: that output is discarded, never left truncated under its name,
// and the others keep the rows written.
func TestOutputsWriteError(t *testing.T) {
	dir := t.TempDir()
	var o Outputs
	csvPath, xlsxPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.xlsx")
	os.WriteFile(csvPath, []byte("an older file\n"), 0o644)
	o.AddCSV(csvPath)
	o.AddXLSX(xlsxPath)
	o.Header(testCols())
	var err error
	for k := 0; k < 100000 && err == nil; k++ {
		if k == 5 {
			o.outs[0].file.(*CSVFile).af.Abort() // every later write fails
		}
		err = o.Row([]float64{float64(k), 1})
	}
	var oe *OutputError
	if !errors.As(err, &oe) || oe.Name != csvPath {
		t.Fatalf("Row error %v, want one naming %s", err, csvPath)
	}
	cerr := o.Close()
	if cerr == nil || !strings.HasPrefix(cerr.Error(), csvPath+" not written: ") {
		t.Errorf("Close: %v", cerr)
	}
	if b, _ := os.ReadFile(csvPath); string(b) != "an older file\n" {
		t.Errorf("csv after the error: %q", b)
	}
	if got := o.Written(); len(got) != 1 || got[0] != xlsxPath {
		t.Errorf("written %v", got)
	}
	if e := entries(t, dir); len(e) != 2 {
		t.Errorf("files left: %v", e)
	}
}

// A full disk (a 64 KiB tmpfs, mounted when the test runs as root) leaves
// neither a truncated CSV nor a 0-byte workbook under the requested names.
func TestOutputsFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs; TestOutputsWriteError injects the error instead")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s); TestOutputsWriteError injects the error instead", err, out)
	}
	defer exec.Command("umount", dir).Run()
	var o Outputs
	csvPath, xlsxPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.xlsx")
	if err := o.AddCSV(csvPath); err != nil {
		t.Fatal(err)
	}
	if _, err := o.AddXLSX(xlsxPath); err != nil {
		t.Fatal(err)
	}
	o.Header(testCols())
	var err error
	for k := 0; k < 100000 && err == nil; k++ {
		err = o.Row([]float64{float64(k) * 1.234567891e-3, 3.14159265358979 * float64(k)})
	}
	if err == nil || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("no ENOSPC while writing 100000 rows to 64 KiB: %v", err)
	}
	cerr := o.Close()
	if cerr == nil {
		t.Error("Close after a full disk succeeded")
	}
	t.Logf("errors: %v", cerr)
	for _, p := range []string{csvPath, xlsxPath} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after the disk filled: %v", p, err)
		}
	}
	if e := entries(t, dir); len(e) != 0 {
		t.Errorf("files left on the full disk: %v", e)
	}
}
