package study

import (
	"archive/zip"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

var seriesName = regexp.MustCompile(`<tx><strRef><f>([^<]*)</f>`)

// TestOutputs writes the CSV and the workbook of a study with an
// objective and a constraint and reads them back: the same numbers, the
// best run named and highlighted, one chart per (response, factor) with
// the main effects, and the sheets of the effects.
func TestOutputs(t *testing.T) {
	src := strings.Replace(goodStudy, `</study>`, `  <objective response="vmax" goal="maximize"/>
  <constraint response="quarter" min="0.12 s"/>
</study>`, 1)
	p, dir := prepareSrc(t, src)
	res := execute(t, p, Options{Jobs: 2, Store: filepath.Join(dir, "store")})
	// the best feasible run: quarter = π/(2√k) ≥ 0.12 needs k ≤ 171, so
	// k = 150 with the larger x0 maximises x0 √k
	if res.Best == nil || res.Best.X[0] != 150 || res.Best.X[1] != 0.1 {
		t.Fatalf("best run %+v, want k = 150, x0 = 0.1", res.Best)
	}
	csvPath := filepath.Join(dir, "out", "runs.csv")
	xlsxPath := filepath.Join(dir, "out", "runs.xlsx")
	if err := res.SaveCSV(csvPath); err != nil {
		t.Fatal(err)
	}
	if err := res.SaveXLSX(xlsxPath); err != nil {
		t.Fatal(err)
	}
	// no temporary files left beside the outputs
	left, _ := filepath.Glob(filepath.Join(dir, "out", ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	data, _ := os.ReadFile(csvPath)
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(rows[0], ",")
	if want := "run,phase,label,k [N/m],x0 [m],quarter [s],vmax [m/s],w [rad/s],feasible,status,reason,wall [s],id"; head != want {
		t.Errorf("header\n%s\nwant\n%s", head, want)
	}
	if len(rows) != 9 {
		t.Fatalf("%d CSV rows", len(rows))
	}
	f, err := excelize.OpenFile(xlsxPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheets := strings.Join(f.GetSheetList(), " ")
	if sheets != "Runs Charts Summary Effects" {
		t.Errorf("sheets %q", sheets)
	}
	xr, err := f.GetRows(SheetRuns)
	if err != nil {
		t.Fatal(err)
	}
	if len(xr) != 2+8 || xr[0][3] != "k" || xr[1][3] != "N/m" {
		t.Fatalf("Runs sheet: %d rows, header %v / %v", len(xr), xr[0], xr[1])
	}
	for i := 1; i < len(rows); i++ {
		for _, c := range []int{3, 4, 5, 6, 7} {
			a, _ := strconv.ParseFloat(rows[i][c], 64)
			cell, _ := excelize.CoordinatesToCellName(c+1, i+2)
			s, _ := f.GetCellValue(SheetRuns, cell, excelize.Options{RawCellValue: true})
			b, err := strconv.ParseFloat(s, 64)
			if err != nil || a != b {
				t.Errorf("%s: workbook %q, CSV %s", cell, s, rows[i][c])
			}
		}
	}
	// the best run's row is highlighted
	bestCell, _ := excelize.CoordinatesToCellName(1, 2+res.Best.Index)
	style, _ := f.GetCellStyle(SheetRuns, bestCell)
	st, _ := f.GetStyle(style)
	if st == nil || len(st.Fill.Color) == 0 {
		t.Errorf("the best run's row (%s) is not highlighted", bestCell)
	}
	summary, _ := f.GetRows(SheetSummary)
	found := false
	for _, r := range summary {
		if len(r) > 1 && r[0] == "best run" && strings.HasPrefix(r[1], "run "+strconv.Itoa(res.Best.Index)+" ") {
			found = true
		}
	}
	if !found {
		t.Errorf("the Summary sheet does not name the best run %d", res.Best.Index)
	}
	// charts: 3 responses × 2 factors, each with the main effect
	z, err := zip.OpenReader(xlsxPath)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	charts := 0
	for _, file := range z.File {
		if strings.HasPrefix(file.Name, "xl/charts/chart") {
			charts++
			rc, _ := file.Open()
			b := make([]byte, 1<<20)
			n, _ := rc.Read(b)
			rc.Close()
			x := string(b[:n])
			if !strings.Contains(x, "<c:numRef><c:f>Runs!") && !strings.Contains(x, "<numRef><f>Runs!") && !strings.Contains(x, "numRef") {
				t.Errorf("%s: x values are not numeric references", file.Name)
			}
			if !strings.Contains(x, "Effects!") {
				t.Errorf("%s has no main-effect series", file.Name)
			}
			// series names must be references (a plain text there is an
			// invalid formula for Excel)
			for _, m := range seriesName.FindAllStringSubmatch(x, -1) {
				if !strings.Contains(m[1], "!$") {
					t.Errorf("%s: series name %q is not a cell reference", file.Name, m[1])
				}
			}
		}
	}
	if charts != 6 {
		t.Errorf("%d charts, want 6", charts)
	}
	// main effect of x0 on vmax in the Effects sheet
	er, _ := f.GetRows(SheetEffects)
	if len(er) < 5 {
		t.Fatalf("Effects sheet: %v", er)
	}
	if math.IsNaN(res.Effects[1].Mean[0][1]) {
		t.Error("NaN main effect")
	}
}
