package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"mbfmu/results"
)

// Slider-crank demo (testdata/slider_crank.*): crank r = 0.1 m turning at
// 1 rev/s, rod l = 0.3 m, slider on the x axis; positions in closed form.
const (
	demoR, demoL = 0.1, 0.3
)

func sliderCrank(rows int) *results.Table {
	names := []results.Column{
		{Name: "time", Unit: "s", Group: results.GroupTime},
		{Name: "crank.phi", Unit: "rad", Group: results.GroupPosition},
		{Name: "rod.x", Unit: "m", Group: results.GroupPosition}, {Name: "rod.y", Unit: "m", Group: results.GroupPosition},
		{Name: "rod.phi", Unit: "rad", Group: results.GroupPosition},
		{Name: "slider.x", Unit: "m", Group: results.GroupPosition},
		{Name: "spring.F", Unit: "N", Group: results.GroupForce},
		{Name: "pad.x", Unit: "m", Group: results.GroupPosition}, {Name: "pad.y", Unit: "m", Group: results.GroupPosition},
		{Name: "pad.FN", Unit: "N", Group: results.GroupForce},
	}
	t := &results.Table{Cols: names, Data: make([][]float64, len(names))}
	for i := 0; i < rows; i++ {
		tm := float64(i) / float64(rows-1) * 2
		th := 2 * math.Pi * tm
		bx, by := demoR*math.Cos(th), demoR*math.Sin(th)
		phi := -math.Asin(by / demoL)
		sx := bx + demoL*math.Cos(phi)
		vals := []float64{tm, th, bx, by, phi, sx, -200 * (sx - 0.35), sx, -0.03, 20 + 5*math.Sin(th)}
		for c, v := range vals {
			t.Data[c] = append(t.Data[c], v)
		}
	}
	return t
}

func sliderCrankScene() *results.Scene {
	return &results.Scene{
		Bodies: []results.SceneBody{
			{Name: "crank", Angle: "crank.phi", Outline: [][2]float64{{-0.015, -0.012}, {demoR + 0.015, -0.012}, {demoR + 0.015, 0.012}, {-0.015, 0.012}}},
			{Name: "rod", X: "rod.x", Y: "rod.y", Angle: "rod.phi", Outline: [][2]float64{{-0.012, -0.008}, {demoL + 0.012, -0.008}, {demoL + 0.012, 0.008}, {-0.012, 0.008}},
				Markers: []results.SceneMarker{{Name: "mid", P: []float64{demoL / 2, 0}}}},
			{Name: "slider", X: "slider.x", Outline: [][2]float64{{-0.04, -0.025}, {0.04, -0.025}, {0.04, 0.025}, {-0.04, 0.025}}},
		},
		Links: []results.SceneLink{
			{Kind: results.LinkRevolute, BodyA: "ground", BodyB: "crank"},
			{Kind: results.LinkRevolute, BodyA: "crank", PA: []float64{demoR, 0}, BodyB: "rod"},
			{Kind: results.LinkRevolute, BodyA: "rod", PA: []float64{demoL, 0}, BodyB: "slider"},
			{Kind: results.LinkTranslational, BodyA: "ground", PA: []float64{0.15, 0}, BodyB: "slider"},
			{Kind: results.LinkSpring, BodyA: "ground", PA: []float64{0.55, 0}, BodyB: "slider", PB: []float64{0.04, 0}, Force: "spring.F"},
		},
		Contacts: []results.SceneContact{{Name: "pad", PX: "pad.x", PY: "pad.y", FN: "pad.FN"}},
	}
}

// TestDemoFiles checks testdata/slider_crank.{csv,json}: the rod keeps its
// length (closed-form kinematics) and the scene resolves. With
// MBFMU_VIEW_WRITE_DEMO=1 it rewrites them first.
func TestDemoFiles(t *testing.T) {
	csvPath, scenePath := filepath.Join("testdata", "slider_crank.csv"), filepath.Join("testdata", "slider_crank.json")
	if os.Getenv("MBFMU_VIEW_WRITE_DEMO") == "1" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		w := results.NewCSVWriterDigits(f, 10)
		if err := sliderCrank(201).SendTo(w); err != nil {
			t.Fatal(err)
		}
		_ = w.Close()
		_ = f.Close()
		b, _ := json.MarshalIndent(sliderCrankScene(), "", "  ")
		if err := os.WriteFile(scenePath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tab, err := readTable(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := readScene(scenePath)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := sc.Resolve(tab)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float64, len(tab.Cols))
	for r := 0; r < tab.Len(); r++ {
		for c := range vals {
			vals[c] = tab.Data[c][r]
		}
		pin := rs.World(vals, 1, [2]float64{demoL, 0}) // rod end
		sl := rs.World(vals, 2, [2]float64{})          // slider origin
		if math.Hypot(pin[0]-sl[0], pin[1]-sl[1]) > 1e-8 {
			t.Fatalf("row %d: rod end %v and slider %v apart", r, pin, sl)
		}
	}
}
