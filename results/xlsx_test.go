package results

import (
	"archive/zip"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// testTable builds a table with closed-form columns over n rows.
func testTable(n int) *Table {
	cols := []Column{
		{Name: "time", Unit: "s", Group: GroupTime},
		{Name: "a.x", Unit: "m", Group: GroupPosition, Description: "x of a"},
		{Name: "a.y", Unit: "m", Group: GroupPosition},
		{Name: "a.phi", Unit: "rad", Group: GroupPosition},
	}
	for i := 1; i <= 10; i++ {
		cols = append(cols, Column{Name: fmt.Sprintf("v%d", i), Unit: "m/s", Group: GroupVelocity})
	}
	cols = append(cols,
		Column{Name: "F", Unit: "N", Group: GroupForce},
		Column{Name: "E", Unit: "J", Group: GroupEnergy},
		Column{Name: "u", Group: GroupInput})
	t := &Table{Cols: cols, Data: make([][]float64, len(cols))}
	for r := 0; r < n; r++ {
		tm := float64(r) * 0.01
		for c := range cols {
			var v float64
			switch {
			case c == 0:
				v = tm
			case c == len(cols)-1 && r == 5:
				v = math.NaN()
			default:
				v = math.Sin(float64(c)*tm) * math.Pow(10, float64(c%7-3))
			}
			t.Data[c] = append(t.Data[c], v)
		}
	}
	return t
}

// Minimal DrawingML chart structure, matched by local names.
type xChart struct {
	Title []string `xml:"chart>title>tx>rich>p>r>t"`
	Sers  []xSer   `xml:"chart>plotArea>scatterChart>ser"`
	// Legend is the position of the legend ("" when there is none).
	Legend xVal `xml:"chart>legend>legendPos"`
	Axes   []struct {
		Title []string `xml:"title>tx>rich>p>r>t"`
	} `xml:"chart>plotArea>valAx"`
}

type xSer struct {
	Name    string `xml:"tx>strRef>f"`
	Cached  string `xml:"tx>strRef>strCache>pt>v"`
	XStr    string `xml:"xVal>strRef>f"`
	XNum    string `xml:"xVal>numRef>f"`
	Y       string `xml:"yVal>numRef>f"`
	Smooth  xVal   `xml:"smooth"`
	Marker  xVal   `xml:"marker>symbol"`
	LineOff *struct {
	} `xml:"spPr>ln>noFill"`
}

type xVal struct {
	Val string `xml:"val,attr"`
}

// readCharts returns the parsed chart parts of an xlsx file in chart order.
func readCharts(t *testing.T, path string) []xChart {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var names []string
	files := map[string]*zip.File{}
	for _, f := range z.File {
		if strings.HasPrefix(f.Name, "xl/charts/chart") && strings.HasSuffix(f.Name, ".xml") {
			names = append(names, f.Name)
			files[f.Name] = f
		}
	}
	num := func(s string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(s, "xl/charts/chart"), ".xml"))
		return n
	}
	sort.Slice(names, func(i, j int) bool { return num(names[i]) < num(names[j]) })
	var out []xChart
	for _, n := range names {
		rc, err := files[n].Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		var c xChart
		if err := xml.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out = append(out, c)
	}
	return out
}

func TestXLSXWorkbook(t *testing.T) {
	const n = 1000
	tab := testTable(n)
	path := filepath.Join(t.TempDir(), "run.xlsx")
	ri := RunInfo{}
	ri.Add("model file", "pendulum.xml")
	ri.Add("integrator", "HHT-alpha")
	ri.Add("step", "1e-3 s")
	modes := &Modes{Freq: []float64{1.5, 7.25}, Damping: []float64{0.01, 0.02},
		Eig:        []complex128{complex(-0.0942, 9.4243), complex(-0.911, 45.54)},
		ShapeNames: []string{"q1", "q2", "q3"}, Shapes: [][]float64{{1, 0.5, -0.25}, {0, 1, 2}}}
	if err := WriteXLSX(path, tab, ri, modes); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); strings.Join(got, ",") != "Results,Charts,Channels,Run,Modes" {
		t.Fatalf("sheets %v", got)
	}
	// Header rows, values (bit-exact through the XML text), NaN as #N/A formula.
	for c, col := range tab.Cols {
		name, _ := excelize.ColumnNumberToName(c + 1)
		if v, _ := f.GetCellValue(SheetResults, name+"1"); v != col.Name {
			t.Errorf("%s1 = %q, want %q", name, v, col.Name)
		}
		if v, _ := f.GetCellValue(SheetResults, name+"2"); v != col.Unit {
			t.Errorf("%s2 = %q, want %q", name, v, col.Unit)
		}
		for _, r := range []int{0, 1, 5, 517, n - 1} {
			cell := fmt.Sprintf("%s%d", name, r+FirstDataRow)
			want := tab.Data[c][r]
			if math.IsNaN(want) {
				if fo, _ := f.GetCellFormula(SheetResults, cell); fo != "NA()" {
					t.Errorf("%s: NaN stored as formula %q", cell, fo)
				}
				continue
			}
			s, _ := f.GetCellValue(SheetResults, cell, excelize.Options{RawCellValue: true})
			got, err := strconv.ParseFloat(s, 64)
			if err != nil || got != want {
				t.Errorf("%s = %q, want %v", cell, s, want)
			}
		}
	}
	if v, _ := f.GetCellValue(SheetResults, fmt.Sprintf("A%d", n+FirstDataRow)); v != "" {
		t.Errorf("row after the data holds %q", v)
	}
	// Number format of value cells.
	st, _ := f.GetCellStyle(SheetResults, "B3")
	style, err := f.GetStyle(st)
	if err != nil || style.CustomNumFmt == nil || *style.CustomNumFmt != "0.000000E+00" {
		t.Errorf("B3 style %+v err %v", style, err)
	}
	if cp, err := f.GetCalcProps(); err != nil || cp.FullCalcOnLoad == nil || !*cp.FullCalcOnLoad {
		t.Errorf("fullCalcOnLoad not set for the =NA() cells: %+v %v", cp, err)
	}
	panes, err := f.GetPanes(SheetResults)
	if err != nil || !panes.Freeze || panes.XSplit != 1 || panes.YSplit != 2 || panes.TopLeftCell != "B3" {
		t.Errorf("panes %+v err %v", panes, err)
	}
	if w, _ := f.GetColWidth(SheetResults, "B"); w < 12 {
		t.Errorf("column B width %v", w)
	}

	// Charts: one per (group, unit), at most 8 series, exact ranges; a
	// chart of one series is titled with the channel's name. Every chart
	// has a legend naming each channel (cached beside the cell reference).
	charts := readCharts(t, path)
	type want struct {
		title, yTitle string
		cols          string // column letters
	}
	wants := []want{
		{"position [m]", "position [m]", "BC"}, {"a.phi [rad]", "position [rad]", "D"},
		{"velocity [m/s] (1/2)", "velocity [m/s]", "EFGHIJKL"}, {"velocity [m/s] (2/2)", "velocity [m/s]", "MN"},
		{"F [N]", "force [N]", "O"}, {"E [J]", "energy [J]", "P"}, {"u", "input", "Q"},
	}
	if len(charts) != len(wants) {
		t.Fatalf("%d charts, want %d", len(charts), len(wants))
	}
	for i, w := range wants {
		c := charts[i]
		if strings.Join(c.Title, "") != w.title {
			t.Errorf("chart %d title %q, want %q", i+1, strings.Join(c.Title, ""), w.title)
		}
		if len(c.Axes) != 2 || strings.Join(c.Axes[0].Title, "") != "time [s]" {
			t.Errorf("chart %d axis titles %+v", i+1, c.Axes)
		} else if yt := strings.Join(c.Axes[1].Title, ""); yt != w.yTitle {
			t.Errorf("chart %d y axis title %q, want %q", i+1, yt, w.yTitle)
		}
		if c.Legend.Val != "r" {
			t.Errorf("chart %d: legend position %q, want r", i+1, c.Legend.Val)
		}
		if len(c.Sers) != len(w.cols) || len(c.Sers) > MaxSeriesPerChart {
			t.Fatalf("chart %d has %d series, want %d", i+1, len(c.Sers), len(w.cols))
		}
		for k, s := range c.Sers {
			L := string(w.cols[k])
			if s.Name != "Results!$"+L+"$1" {
				t.Errorf("chart %d series %d name %q", i+1, k, s.Name)
			}
			if ci := int(L[0] - 'A'); s.Cached != tab.Cols[ci].Name {
				t.Errorf("chart %d series %d: cached name %q, want %q", i+1, k, s.Cached, tab.Cols[ci].Name)
			}
			if x := s.XNum; x != "Results!$A$3:$A$1002" || s.XStr != "" {
				t.Errorf("chart %d series %d x range %q", i+1, k, x)
			}
			if y := "Results!$" + L + "$3:$" + L + "$1002"; s.Y != y {
				t.Errorf("chart %d series %d y range %q, want %q", i+1, k, s.Y, y)
			}
			if s.Smooth.Val != "0" || s.Marker.Val != "none" || s.LineOff != nil {
				t.Errorf("chart %d series %d smooth=%q marker=%q noLine=%v", i+1, k, s.Smooth.Val, s.Marker.Val, s.LineOff != nil)
			}
		}
	}

	// Channels sheet.
	rows, _ := f.GetRows(SheetChannels)
	if len(rows) != len(tab.Cols)+1 || rows[2][1] != "a.x" || rows[2][2] != "m" || rows[2][3] != "position" || rows[2][4] != "x of a" {
		t.Errorf("channels %v", rows[:3])
	}
	// Run sheet.
	rows, _ = f.GetRows(SheetRun)
	if len(rows) != 4 || rows[1][0] != "model file" || rows[1][1] != "pendulum.xml" || rows[3][1] != "1e-3 s" {
		t.Errorf("run sheet %v", rows)
	}
	// Modes sheet.
	checkModes(t, f, modes)
}

func checkModes(t *testing.T, f *excelize.File, m *Modes) {
	t.Helper()
	num := func(cell string) float64 {
		s, _ := f.GetCellValue(SheetModes, cell, excelize.Options{RawCellValue: true})
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Errorf("Modes!%s = %q", cell, s)
		}
		return v
	}
	for i := range m.Freq {
		r := strconv.Itoa(i + 2)
		if num("A"+r) != float64(i+1) || num("B"+r) != m.Freq[i] || num("C"+r) != m.Damping[i] ||
			num("D"+r) != real(m.Eig[i]) || num("E"+r) != imag(m.Eig[i]) {
			t.Errorf("mode row %d wrong", i+1)
		}
	}
	r0 := ModesShapeRow(len(m.Freq))
	if v, _ := f.GetCellValue(SheetModes, fmt.Sprintf("A%d", r0)); v != "coordinate" {
		t.Errorf("shape header %q", v)
	}
	for c, name := range m.ShapeNames {
		if v, _ := f.GetCellValue(SheetModes, fmt.Sprintf("A%d", r0+1+c)); v != name {
			t.Errorf("shape coord %d name %q", c, v)
		}
		for k := range m.Shapes {
			col, _ := excelize.ColumnNumberToName(k + 2)
			if got := num(fmt.Sprintf("%s%d", col, r0+1+c)); got != m.Shapes[k][c] {
				t.Errorf("shape %d coord %d = %v want %v", k, c, got, m.Shapes[k][c])
			}
		}
	}
}

func TestXLSXNoRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.xlsx")
	x, err := NewXLSXWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Header(testTable(0).Cols); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v, _ := f.GetCellValue(SheetResults, "B1"); v != "a.x" {
		t.Errorf("B1 = %q", v)
	}
	if v, _ := f.GetCellValue(SheetCharts, "A1"); !strings.Contains(v, "No data rows") {
		t.Errorf("Charts!A1 = %q", v)
	}
	if c := readCharts(t, path); len(c) != 0 {
		t.Errorf("%d charts in an empty run", len(c))
	}
}

func TestXLSXModesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "modes.xlsx")
	// Two undamped modes of a 2-DOF chain (k = m = 1): ω² = (3 ∓ √5)/2.
	w1, w2 := math.Sqrt((3-math.Sqrt(5))/2), math.Sqrt((3+math.Sqrt(5))/2)
	m := &Modes{Freq: []float64{w1 / (2 * math.Pi), w2 / (2 * math.Pi)}, Damping: []float64{0, 0},
		Eig:        []complex128{complex(0, w1), complex(0, w2)},
		ShapeNames: []string{"x1", "x2"},
		Shapes:     [][]float64{{1, (1 + math.Sqrt(5)) / 2}, {1, (1 - math.Sqrt(5)) / 2}}}
	if err := WriteXLSX(path, nil, RunInfo{Items: [][2]string{{"analysis", "eigen"}}}, m); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v, _ := f.GetCellValue(SheetResults, "A1"); !strings.Contains(v, "Modes") {
		t.Errorf("Results!A1 = %q", v)
	}
	checkModes(t, f, m)
	if cmplx.Abs(m.Eig[0]) != w1 {
		t.Fatal("test setup")
	}
}

func TestModesValidation(t *testing.T) {
	bad := []*Modes{
		{Freq: []float64{1, 2}, Damping: []float64{0.1}},
		{Freq: []float64{1}, Shapes: [][]float64{{1, 2}, {1, 2}}},
		{Freq: []float64{1, 2}, ShapeNames: []string{"a"}, Shapes: [][]float64{{1}, {1, 2}}},
	}
	for i, m := range bad {
		err := WriteXLSX(filepath.Join(t.TempDir(), "m.xlsx"), nil, RunInfo{}, m)
		if err == nil || !strings.Contains(err.Error(), "modes") {
			t.Errorf("case %d: error %v", i, err)
		}
	}
}

func TestXLSXPathChecks(t *testing.T) {
	if _, err := NewXLSXWriter(filepath.Join(t.TempDir(), "a.csv")); err == nil {
		t.Error("non-.xlsx name accepted")
	}
	if _, err := NewXLSXWriter(filepath.Join(t.TempDir(), "no", "such", "a.xlsx")); err == nil {
		t.Error("missing directory accepted")
	}
}

func TestXLSXRowLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limit.xlsx")
	x, err := NewXLSXWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Header([]Column{{Name: "time", Unit: "s"}, {Name: "x", Unit: "m", Group: GroupPosition}}); err != nil {
		t.Fatal(err)
	}
	_ = x.Row([]float64{0, 1})
	x.rows = MaxXLSXRows - 1 // pretend the sheet is nearly full
	if err := x.Row([]float64{1, 2}); err != nil {
		t.Fatalf("last row rejected: %v", err)
	}
	if err := x.Row([]float64{2, 3}); err == nil || !strings.Contains(err.Error(), "row limit") {
		t.Fatalf("row past the limit: %v", err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v, _ := f.GetCellValue(SheetResults, "B1048576"); v != "2.000000E+00" {
		t.Errorf("last sheet row holds %q", v)
	}
	rows, _ := f.GetRows(SheetRun)
	if len(rows) != 2 || rows[1][0] != "warning" {
		t.Errorf("run sheet %v", rows)
	}
	if c := readCharts(t, path); len(c) != 1 || c[0].Sers[0].Y != "Results!$B$3:$B$1048576" {
		t.Errorf("chart ranges %+v", c)
	}
}

func TestCSVToXLSX(t *testing.T) {
	dir := t.TempDir()
	csvPath, xlsxPath := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.xlsx")
	tab := testTable(50)
	fh, err := os.Create(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	w := NewCSVWriter(fh)
	if err := tab.SendTo(w); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	_ = fh.Close()
	if err := CSVToXLSX(csvPath, xlsxPath, RunInfo{Items: [][2]string{{"source", "r.csv"}}}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(xlsxPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, _ := f.GetCellValue(SheetResults, "D52", excelize.Options{RawCellValue: true})
	if got, _ := strconv.ParseFloat(s, 64); got != tab.Data[3][49] {
		t.Errorf("D52 = %q want %v", s, tab.Data[3][49])
	}
	if v, _ := f.GetCellValue(SheetResults, "D2"); v != "rad" {
		t.Errorf("unit D2 = %q", v)
	}
	charts := readCharts(t, xlsxPath)
	// Groups guessed from units: the "u" column (no unit) becomes "other",
	// a chart of its own titled with the channel.
	if len(charts) != 7 || strings.Join(charts[0].Title, "") != "position [m]" ||
		charts[0].Sers[1].Y != "Results!$C$3:$C$52" || strings.Join(charts[6].Title, "") != "u" ||
		strings.Join(charts[6].Axes[1].Title, "") != "other" {
		t.Errorf("charts %+v", charts)
	}
	// A bad CSV gives an error naming the file and line, and no workbook.
	bad := filepath.Join(dir, "bad.csv")
	_ = os.WriteFile(bad, []byte("time [s],x [m]\n0,1\n1,x\n"), 0o644)
	err = CSVToXLSX(bad, filepath.Join(dir, "bad.xlsx"), RunInfo{})
	if err == nil || !strings.Contains(err.Error(), "bad.csv") || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error %v", err)
	}
}

// The chart post-process (fixChart) patches excelize's output with
// regular expressions because excelize cannot express a number reference
// for x values or a cached series name. This test fails when excelize
// (after an upgrade) writes the chart parts in another shape, so that the
// patterns no longer find every series: each chart part must have had
// every series' x values and name rewritten.
func TestChartFixMatchesExcelize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.xlsx")
	x, err := NewXLSXWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := testTable(50).SendTo(x); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if len(x.chartFixes) != 7 {
		t.Fatalf("the post-process saw %d chart parts, want 7: %+v", len(x.chartFixes), x.chartFixes)
	}
	for _, n := range x.chartFixes {
		if n.series == 0 || n.xVals != n.series || n.names != n.series {
			t.Errorf("%s: %d series, %d x references and %d names rewritten: excelize's chart XML has changed shape; update fixChart (results/xlsx.go)", n.part, n.series, n.xVals, n.names)
		}
	}
	// The result opens in excelize and every series has its number
	// reference and cached name (TestXLSXWorkbook checks the values).
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for i, c := range readCharts(t, path) {
		for k, s := range c.Sers {
			if s.XNum == "" || s.XStr != "" || s.Cached == "" {
				t.Errorf("chart %d series %d: %+v", i+1, k, s)
			}
		}
	}
}

// fixChart on the shape excelize v2.11.0 writes, and on text it must leave
// alone (a name that is not a header cell, other elements).
func TestFixChart(t *testing.T) {
	in := `<c><ser><tx><strRef><f>Results!$B$1</f></strRef></tx><xVal><strRef><f>Results!$A$3:$A$9</f></strRef></xVal>` +
		`<yVal><numRef><f>Results!$B$3:$B$9</f></numRef></yVal></ser>` +
		`<ser><tx><strRef><f>Other!$Z$1</f></strRef></tx><cat><strRef><f>Results!$A$3:$A$9</f></strRef></cat></ser></c>`
	out, n := fixChart("xl/charts/chart1.xml", []byte(in), map[string]string{"Results!$B$1": `a<b & "c"`}, false)
	want := `<c><ser><tx><strRef><f>Results!$B$1</f><strCache><ptCount val="1"/><pt idx="0"><v>a&lt;b &amp; &#34;c&#34;</v></pt></strCache></strRef></tx>` +
		`<xVal><numRef><f>Results!$A$3:$A$9</f></numRef></xVal>` +
		`<yVal><numRef><f>Results!$B$3:$B$9</f></numRef></yVal></ser>` +
		`<ser><tx><strRef><f>Other!$Z$1</f></strRef></tx><cat><strRef><f>Results!$A$3:$A$9</f></strRef></cat></ser></c>`
	if string(out) != want {
		t.Errorf("fixChart:\n got %s\nwant %s", out, want)
	}
	if n != (chartFixCount{part: "xl/charts/chart1.xml", series: 2, xVals: 1, names: 1}) {
		t.Errorf("counts %+v", n)
	}
}

// Every sheet declares its used range in <dimension>: excelize wrote "A1"
// for all of them, and readers that trust it (openpyxl in read-only mode)
// saw one row of a 1000-row run. The streamed Results sheet's range is
// patched in as the part is written; the others are set from their cells.
func TestXLSXDimensions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.xlsx")
	x, err := NewXLSXWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Header([]Column{{Name: "time", Unit: "s"}, {Name: "a", Unit: "m"}, {Name: "b", Unit: "m"}}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 1000; k++ {
		if err := x.Row([]float64{float64(k), 1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if d, _ := f.GetSheetDimension(SheetResults); d != "A1:C1002" {
		t.Errorf("Results declares %q, want A1:C1002 (two header rows and 1000 data rows)", d)
	}
	for _, name := range f.GetSheetList() {
		rows, _ := f.GetRows(name)
		d, _ := f.GetSheetDimension(name)
		if len(rows) > 1 && d == "A1" {
			t.Errorf("sheet %s has %d rows but declares A1", name, len(rows))
		}
	}
}
