package main

import (
	"archive/zip"
	"encoding/xml"
	"io"
	"math"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The frequency response of the two-mass spring–damper example against
// its closed form: with Z(s) the 2×2 dynamic stiffness
// [m1 s² + (c1+c2) s + k1 + k2, −(c2 s + k2); −(c2 s + k2), m2 s² + c2 s + k2],
// X1/F = Z22/det Z, X2/F = (c2 s + k2)/det Z, V2/F = s X2/F at s = j2πf.
// Magnitudes to 1e-9 relative, phases to 1e-7 degrees, over 0.1–100 Hz
// (both resonances inside); the workbook's charts have log axes and the
// SVG is well-formed.
func TestBodeTwoMassClosedForm(t *testing.T) {
	dir := t.TempDir()
	model := abs(t, "../../examples/two-mass-bode/model.xml")
	r := run(t, dir, "bode", model, "-o", "b.csv", "--xlsx", "b.xlsx", "--svg", "b.svg", "--points", "301")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, rows := readCSV(t, filepath.Join(dir, "b.csv"))
	raw, err := os.ReadFile(filepath.Join(dir, "b.csv"))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(raw), "\n")
	want := "frequency [Hz],x1/F magnitude [m/N],x1/F phase [deg],x2/F magnitude [m/N],x2/F phase [deg],v2/F magnitude [(m/s)/N],v2/F phase [deg]"
	if head != want {
		t.Fatalf("header %q, want %q", head, want)
	}
	if len(rows) != 301 || rows[0][0] != 0.1 || rows[300][0] != 100 {
		t.Fatalf("%d rows from %g to %g Hz, want 301 from 0.1 (a decade below 2.25 Hz) to 100 (a decade above 4.5 Hz)", len(rows), rows[0][0], rows[len(rows)-1][0])
	}
	const m1, m2, k1, k2, c1, c2 = 1, 0.5, 400, 200, 2, 0.5
	var worstMag, worstPh float64
	prev := [3]float64{}
	for k, row := range rows {
		s := complex(0, 2*math.Pi*row[0])
		z11 := m1*s*s + (c1+c2)*s + k1 + k2
		z12 := -(c2*s + k2)
		z22 := m2*s*s + c2*s + k2
		det := z11*z22 - z12*z12
		ref := [3]complex128{z22 / det, -z12 / det, -s * z12 / det}
		for p, h := range ref {
			mag, ph := row[1+2*p], row[2+2*p]
			worstMag = math.Max(worstMag, math.Abs(mag/cmplx.Abs(h)-1))
			d := ph - cmplx.Phase(h)*180/math.Pi
			d -= 360 * math.Round(d/360)
			worstPh = math.Max(worstPh, math.Abs(d))
			if k > 0 && math.Abs(ph-prev[p]) > 90 {
				t.Errorf("pair %d: phase jumps from %g to %g deg at %g Hz", p, prev[p], ph, row[0])
			}
			prev[p] = ph
		}
	}
	t.Logf("max relative magnitude error %.2g, max phase error %.2g deg", worstMag, worstPh)
	if worstMag > 1e-9 || worstPh > 1e-7 {
		t.Errorf("magnitude error %.3g (≤ 1e-9), phase error %.3g deg (≤ 1e-7)", worstMag, worstPh)
	}
	// the phase starts as a lag and x2/F ends near −360° (two double poles, a zero)
	if p := rows[0][2]; p > 0 || p < -1 {
		t.Errorf("x1/F phase at 0.1 Hz %g deg, want a small lag", p)
	}
	if p := rows[300][4]; p > -270 || p < -360 {
		t.Errorf("x2/F phase at 100 Hz %g deg, want between −360 and −270", p)
	}
	// the workbook: magnitude charts with log x and y axes
	zr, err := zip.OpenReader(filepath.Join(dir, "b.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	logAxes := 0
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "xl/charts/chart") {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			logAxes += strings.Count(string(b), `<logBase val="10"`)
		}
	}
	// 2 magnitude charts (m/N, (m/s)/N): x and y; 1 phase chart: x
	if logAxes != 5 {
		t.Errorf("%d log-scale axes in the charts, want 5", logAxes)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "b.svg"))
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	lines := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			lines++
		}
	}
	if lines != 6 {
		t.Errorf("SVG has %d curves, want 6 (3 pairs × magnitude and phase)", lines)
	}
}

// --inputs and --outputs choose the pairs; an unknown name is refused
// with the names there are.
func TestBodeSelection(t *testing.T) {
	dir := t.TempDir()
	model := abs(t, "../../examples/two-mass-bode/model.xml")
	if r := run(t, dir, "bode", model, "--outputs", "x2", "--inputs", "F", "-o", "s.csv", "--points", "5"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "s.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(string(raw), "\n"); head != "frequency [Hz],x2/F magnitude [m/N],x2/F phase [deg]" {
		t.Errorf("header %q", head)
	}
	if r := run(t, dir, "bode", model, "--outputs", "x9"); r.code != 2 || !strings.Contains(r.stderr, `--outputs: the model has no output "x9" (it has x1, x2, v2)`) {
		t.Errorf("unknown output: exit %d, %q", r.code, r.stderr)
	}
}
