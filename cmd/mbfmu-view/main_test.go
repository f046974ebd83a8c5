package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mbfmu/results"
)

// writeInputs writes the two-body scene and table as JSON and CSV files.
func writeInputs(t *testing.T) (scenePath, csvPath string) {
	t.Helper()
	dir := t.TempDir()
	scenePath, csvPath = filepath.Join(dir, "scene.json"), filepath.Join(dir, "run.csv")
	b, err := json.Marshal(twoBodyScene())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenePath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	w := results.NewCSVWriter(f)
	if err := twoBodyTable().SendTo(w); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	_ = f.Close()
	return scenePath, csvPath
}

func TestScreenshotCommand(t *testing.T) {
	scenePath, csvPath := writeInputs(t)
	out := filepath.Join(t.TempDir(), "shot.png")
	var stderr bytes.Buffer
	err := run([]string{"--scene", scenePath, "--screenshot", out, "--at", "0.25", "--size", "400x300",
		"--channels", "a.x,b.phi", "model.xml", csvPath}, &stderr)
	if err != nil {
		t.Fatalf("%v (%s)", err, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 400, 300) {
		t.Fatalf("size %v", img.Bounds())
	}
	// Body a at t = 0.25: interpolated pose, projected with the fitted view.
	tab := twoBodyTable()
	lerp := func(c int) float64 { return tab.Data[c][0] + 0.25*(tab.Data[c][1]-tab.Data[c][0]) }
	v := fitView([4]float64(twoBodyScene().Bounds), 400, 300)
	ctr := centroid(projected(v, squareOutline, lerp(1), lerp(2), lerp(3)))
	r, g, b, _ := img.At(int(ctr.X), int(ctr.Y)).RGBA()
	if want := bodyColor(0); uint8(r>>8) != want.R || uint8(g>>8) != want.G || uint8(b>>8) != want.B {
		t.Errorf("pixel at body a = %v %v %v, want %v", r>>8, g>>8, b>>8, want)
	}
	// The read-outs are drawn: text-coloured pixels in the top-left corner.
	ink := 0
	for y := 0; y < 60; y++ {
		for x := 0; x < 200; x++ {
			if c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA); c == colText {
				ink++
			}
		}
	}
	if ink < 100 {
		t.Errorf("only %d text pixels in the read-out area", ink)
	}
}

func TestCommandErrors(t *testing.T) {
	scenePath, csvPath := writeInputs(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"bodies":[{"name":"a","x":"nope"}]}`), 0o644)
	typo := filepath.Join(dir, "typo.json")
	_ = os.WriteFile(typo, []byte(`{"bodys":[]}`), 0o644)
	shot := filepath.Join(dir, "x.png")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--scene", bad, "--screenshot", shot, csvPath}, `X column "nope" not in results`},
		{[]string{"--scene", typo, "--screenshot", shot, csvPath}, `unknown field "bodys"`},
		{[]string{"--scene", scenePath, "--screenshot", shot, "--channels", "zz", csvPath}, `channel "zz"`},
		{[]string{"--scene", scenePath}, "no results file"},
		{[]string{"--size", "10x10", csvPath}, "--size"},
		{[]string{"--live", "tcp:1", "--scene", scenePath}, "udp:HOST:PORT"},
		{[]string{"--screenshot", shot, "--live", "udp:127.0.0.1:0", csvPath}, "cannot be combined"},
		{[]string{"model.xml", "--live", "udp:127.0.0.1:0"}, "model.xml: no such file or directory"},
		{[]string{"--screenshot", shot, filepath.Join(dir, "missing.csv")}, "missing.csv"},
		{[]string{"--scene", scenePath, "--screenshot", shot, "--view", "top", csvPath}, "--view applies to spatial scenes"},
		{[]string{"--scene", scenePath, "--screenshot", shot, "--view", "back", csvPath}, `--view "back"`},
		{[]string{"--scene", scenePath, "--screenshot", shot, "--status", "s.json", csvPath}, "--status"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		err := run(c.args, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to contain %q", c.args, err, c.want)
		}
	}
	// A model file that does not exist is named in the error.
	var stderr bytes.Buffer
	if err := run([]string{"--screenshot", shot, "model.xml", csvPath}, &stderr); err == nil || !strings.Contains(err.Error(), "model.xml") {
		t.Errorf("missing model: error %v, want it to name model.xml", err)
	}
}

func TestLiveFeed(t *testing.T) {
	feed, err := startLive("udp:127.0.0.1:0", nil)
	if err != nil {
		t.Skip("no loopback UDP:", err)
	}
	defer feed.close()
	a := newApp(twoBodyScene(), []string{"a.x"}, 320, 240)
	a.live, a.follow = feed, true
	a.advance(0)
	if !strings.Contains(a.msg, "waiting") {
		t.Errorf("message before the header: %q", a.msg)
	}
	conn, err := net.Dial("udp", feed.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := results.NewLiveWriter(conn)
	tab := twoBodyTable()
	if err := w.Header(tab.Cols); err != nil {
		t.Fatal(err)
	}
	// Three rows with increasing time.
	for i := 0; i < 3; i++ {
		_ = w.Row([]float64{float64(i) * 0.5, 1 + float64(i), 0.5, 0, -1, 0, 0})
		time.Sleep(5 * time.Millisecond)
	}
	deadline := time.Now().Add(5 * time.Second)
	for (a.tab == nil || a.tab.Len() < 3) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		a.advance(0.016)
	}
	if a.tab == nil || a.tab.Len() != 3 {
		t.Fatalf("live rows not received (msg %q)", a.msg)
	}
	if a.t != 1 || a.msg != "" {
		t.Errorf("following: t = %v, msg %q", a.t, a.msg)
	}
	c := newRGBACanvas(320, 240)
	a.render(c)
	if x, _ := a.tab.Col("a.x"); x[2] != 3 {
		t.Errorf("a.x = %v", x)
	}
	// Time going back starts a new run.
	_ = w.Row([]float64{0, 9, 0, 0, 0, 0, 0})
	for a.tab.Len() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		a.advance(0.016)
	}
	if a.tab.Len() != 1 || a.tab.Data[1][0] != 9 {
		t.Errorf("after time went back: %d rows", a.tab.Len())
	}
	// A packet of the wrong size is dropped and reported.
	_, _ = conn.Write(make([]byte, 12))
	for !strings.Contains(a.msg, "dropped") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		a.advance(0.016)
	}
	if !strings.Contains(a.msg, "dropped") {
		t.Errorf("bad packet not reported: %q", a.msg)
	}
	if math.IsNaN(a.t) {
		t.Error("NaN time")
	}
}

// The scene of a real model file: bodies with their pose channels, links
// for its joints, drawn where the results put them.
func TestSceneFromModel(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "slider-crank", "model.xml")
	sc, err := loadScene(model)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Bodies) != 3 || sc.Bodies[0].X != sc.Bodies[0].Name+".x" || sc.Bodies[0].Angle != sc.Bodies[0].Name+".angle" {
		t.Fatalf("bodies: %+v", sc.Bodies)
	}
	kinds := map[string]int{}
	for _, l := range sc.Links {
		kinds[l.Kind]++
	}
	if kinds["revolute"] < 3 || kinds["translational"] != 1 {
		t.Errorf("links %v, want 3 revolute and 1 translational", kinds)
	}
}

// Flexible beams are drawn through their node channels and contacts at
// their contact point channels; a simulation's results contain them.
func TestSceneBeamsAndContacts(t *testing.T) {
	sc, err := loadScene(filepath.Join("..", "..", "examples", "ancf-pendulum", "model.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Beams) != 1 || len(sc.Beams[0].NodeX) != 33 || sc.Beams[0].NodeX[32] != "rod.shape160.x" {
		t.Fatalf("beams: %+v", sc.Beams)
	}
	// spatial beams: a rod and a cable, through x, y and z; the rod's
	// clamp to the hub is drawn with the beam, not as a link to its node
	for _, c := range []struct{ ex, last string }{{"slewing-beam", "beam.shape10.z"}, {"ancf-pendulum-3d", "rod.shape160.z"}} {
		sc, err = loadScene(filepath.Join("..", "..", "examples", c.ex, "model.xml"))
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Beams) != 1 || len(sc.Beams[0].NodeZ) != len(sc.Beams[0].NodeX) || sc.Beams[0].NodeZ[len(sc.Beams[0].NodeZ)-1] != c.last {
			t.Fatalf("%s beams: %+v", c.ex, sc.Beams)
		}
		for _, l := range sc.Links {
			if strings.Contains(l.BodyA+l.BodyB, ".n") {
				t.Errorf("%s: a link to a beam node: %+v", c.ex, l)
			}
		}
	}
	sc, err = loadScene(filepath.Join("..", "..", "examples", "seed003-case1", "model.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Contacts) != 2 || sc.Contacts[0].FN == "" || sc.Contacts[0].PX == "" {
		t.Fatalf("contacts: %+v", sc.Contacts)
	}
}
