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

// The closed-loop frequency response of a co-simulation by time
// integration: a mass–spring–damper plant (m = 1, c = 2, k = 10) under a
// proportional controller (kp = 30) at a 1 ms macro step, the reference
// excited. The loop holds the controller's output over each macro step,
// a delay of half a step: T(s) = kp G e^{−sh/2}/(1 + kp G e^{−sh/2}),
// G = 1/(m s² + c s + k), and the controller's output kp (1 − T), to
// 1e-4 in magnitude and 0.02° in phase over 0.2–3 Hz (the resonance at
// 1 Hz inside).
func TestBodeCosimClosedLoop(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"msd.xml": `<model name="msd"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <input name="F" unit="N" start="0"/>
  <ground><marker name="O"/></ground>
  <body name="m" mass="1" inertia="1"><marker name="c"/></body>
  <translational name="rail" i="ground.O" j="m.c"/>
  <force name="law" i="m.c" fx="F - 10*dx(m.c) - 2*vx(m.c)"/>
  <output name="x" channel="m.x" unit="m"/>
</model>`,
		"loop.xml": `<cosim name="loop"><settings start="0" end="10 s" step="1 ms"/>
  <model name="plant" path="msd.xml"/>
  <signal name="ref" unit="m" expr="0"/>
  <pid name="ctl" kp="30" ki="0" kd="0"/>
  <connect from="ref.y" to="ctl.r"/>
  <connect from="plant.x" to="ctl.y"/>
  <connect from="ctl.u" to="plant.F"/>
</cosim>`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := run(t, dir, "bode", "loop.xml", "--inputs", "ref", "--outputs", "plant.x,ctl.u", "--amplitude", "0.01",
		"--from", "0.2", "--to", "3", "--points", "6", "--settle", "8", "-o", "b.csv", "--svg", "b.svg", "-q")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "b.csv"))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(raw), "\n")
	if want := "frequency [Hz],plant.x/ref magnitude [m/m],plant.x/ref phase [deg],ctl.u/ref magnitude [N/m],ctl.u/ref phase [deg]"; head != want {
		t.Fatalf("header %q, want %q", head, want)
	}
	_, rows := readCSV(t, filepath.Join(dir, "b.csv"))
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	const h, kp = 1e-3, 30.0
	for _, row := range rows {
		s := complex(0, 2*math.Pi*row[0])
		g := 1 / (s*s + 2*s + 10)
		d := cmplx.Exp(-s * h / 2)
		T := kp * g * d / (1 + kp*g*d)
		U := kp * (1 - T) // the controller's output, sampled where it is computed
		for p, ref := range []complex128{T, U} {
			mag, ph := row[1+2*p], row[2+2*p]
			dph := ph - cmplx.Phase(ref)*180/math.Pi
			dph -= 360 * math.Round(dph/360)
			if math.Abs(mag/cmplx.Abs(ref)-1) > 1e-4 || math.Abs(dph) > 0.02 {
				t.Errorf("%g Hz, output %d: |H| %.6g phase %.4f°, closed form %.6g %.4f°", row[0], p, mag, ph, cmplx.Abs(ref), cmplx.Phase(ref)*180/math.Pi)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b.svg")); err != nil {
		t.Error(err)
	}
	// a controller that reaches its output limit is reported
	lim := strings.Replace(mustRead(t, filepath.Join(dir, "loop.xml")), `kd="0"/>`, `kd="0" umin="-0.5" umax="0.5"/>`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lim.xml"), []byte(lim), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, "bode", "lim.xml", "--inputs", "ref", "--outputs", "plant.x", "--amplitude", "0.1", "--points", "2", "--from", "0.5", "--to", "2", "-o", "", "-q")
	if r.code != 0 || !strings.Contains(r.stderr, "ctl reached its output limit") {
		t.Errorf("saturation not reported: exit %d, %s", r.code, r.stderr)
	}
	// a value the loop does not have is refused with the list
	r = run(t, dir, "bode", "loop.xml", "--inputs", "ref", "--outputs", "plant.y", "--amplitude", "0.01", "-o", "", "-q")
	if r.code == 0 || !strings.Contains(r.stderr, `no value "plant.y"`) {
		t.Errorf("unknown output: exit %d, %s", r.code, r.stderr)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
