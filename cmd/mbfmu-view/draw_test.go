package main

import (
	"image/color"
	"math"
	"testing"

	"mbfmu/results"
)

// twoBodyTable holds the poses of bodies a and b at t = 0 and t = 1.
func twoBodyTable() *results.Table {
	cols := []results.Column{{Name: "time", Unit: "s"}, {Name: "a.x", Unit: "m"}, {Name: "a.y", Unit: "m"},
		{Name: "a.phi", Unit: "rad"}, {Name: "b.x", Unit: "m"}, {Name: "b.y", Unit: "m"}, {Name: "b.phi", Unit: "rad"}}
	return &results.Table{Cols: cols, Data: [][]float64{
		{0, 1}, {1.0, 0.6}, {0.5, 0.7}, {0.3, 0.5}, {-1.0, -1.2}, {-0.3, -0.1}, {-0.7, -0.3},
	}}
}

var (
	squareOutline   = [][2]float64{{-0.2, -0.2}, {0.2, -0.2}, {0.2, 0.2}, {-0.2, 0.2}}
	triangleOutline = [][2]float64{{-0.3, -0.2}, {0.4, -0.2}, {0, 0.35}}
)

func twoBodyScene() *results.Scene {
	return &results.Scene{
		Bodies: []results.SceneBody{
			{Name: "a", X: "a.x", Y: "a.y", Angle: "a.phi", Outline: squareOutline},
			{Name: "b", X: "b.x", Y: "b.y", Angle: "b.phi", Outline: triangleOutline},
		},
		Bounds: []float64{-2, -1.5, 2, 1.5},
	}
}

// projected returns the screen polygon of an outline at pose (x, y, phi),
// computed here independently of the renderer's World.
func projected(v view, outline [][2]float64, x, y, phi float64) []vec {
	var out []vec
	for _, p := range outline {
		wx := x + math.Cos(phi)*p[0] - math.Sin(phi)*p[1]
		wy := y + math.Sin(phi)*p[0] + math.Cos(phi)*p[1]
		out = append(out, vec{v.OX + (wx-v.CX)*v.S, v.OY - (wy-v.CY)*v.S})
	}
	return out
}

func inside(poly []vec, p vec) bool {
	in := false
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < a.X+(p.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			in = !in
		}
	}
	return in
}

func distToPoly(poly []vec, p vec) float64 {
	d := math.Inf(1)
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		dx, dy := b.X-a.X, b.Y-a.Y
		t := math.Max(0, math.Min(1, ((p.X-a.X)*dx+(p.Y-a.Y)*dy)/(dx*dx+dy*dy)))
		d = math.Min(d, math.Hypot(p.X-a.X-t*dx, p.Y-a.Y-t*dy))
	}
	return d
}

func area(poly []vec) float64 {
	s := 0.0
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		s += a.X*b.Y - b.X*a.Y
	}
	return math.Abs(s) / 2
}

func centroid(poly []vec) vec {
	var c vec
	for _, p := range poly {
		c.X += p.X / float64(len(poly))
		c.Y += p.Y / float64(len(poly))
	}
	return c
}

func pixel(c *rgbaCanvas, x, y int) color.RGBA {
	i := c.img.PixOffset(x, y)
	p := c.img.Pix[i : i+4]
	return color.RGBA{p[0], p[1], p[2], p[3]}
}

// checkBody asserts that body colour col fills the polygon and appears
// nowhere outside it.
func checkBody(t *testing.T, c *rgbaCanvas, poly []vec, col color.RGBA, name string) {
	t.Helper()
	ctr := centroid(poly)
	if got := pixel(c, int(ctr.X), int(ctr.Y)); got != col {
		t.Errorf("%s: pixel at its projected centroid (%d,%d) is %v, want %v", name, int(ctr.X), int(ctr.Y), got, col)
	}
	w, h := c.Size()
	n := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if pixel(c, x, y) != col {
				continue
			}
			n++
			p := vec{float64(x) + 0.5, float64(y) + 0.5}
			if !inside(poly, p) && distToPoly(poly, p) > 0.75 {
				t.Fatalf("%s: its colour at (%d,%d), outside the projected outline", name, x, y)
			}
		}
	}
	// The fill covers the polygon less a ~1.5 px outline stroke.
	perim := 0.0
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		perim += math.Hypot(b.X-a.X, b.Y-a.Y)
	}
	if lo, hi := area(poly)-2*perim, area(poly)+perim; float64(n) < lo || float64(n) > hi {
		t.Errorf("%s: %d pixels of its colour, want between %.0f and %.0f", name, n, lo, hi)
	}
}

func TestRenderTwoBodies(t *testing.T) {
	tab := twoBodyTable()
	for _, tc := range []struct {
		at   float64
		frac float64 // expected interpolation fraction between the two rows
	}{{0, 0}, {1, 1}, {0.25, 0.25}, {-3, 0}, {7, 1}} {
		a := newApp(twoBodyScene(), nil, 800, 600)
		if err := a.setTable(tab); err != nil {
			t.Fatal(err)
		}
		a.t = tc.at
		a.advance(0)
		c := newRGBACanvas(800, 600)
		a.render(c)
		// Not blank: many pixels differ from the background.
		nonBg := 0
		for i := 0; i < len(c.img.Pix); i += 4 {
			if c.img.Pix[i] != colBackground.R || c.img.Pix[i+1] != colBackground.G || c.img.Pix[i+2] != colBackground.B {
				nonBg++
			}
		}
		if nonBg < 2000 {
			t.Fatalf("t=%v: only %d non-background pixels", tc.at, nonBg)
		}
		// The view is the bounds hint fitted to 800×(600−bar) with a margin.
		s := math.Min((800-2*margin)/4.0, (600-barHeight-2*margin)/3.0)
		if math.Abs(a.v.S-s) > 1e-9 || a.v.CX != 0 || a.v.CY != 0 {
			t.Fatalf("view %+v, want scale %v centred at 0", a.v, s)
		}
		lerp := func(c int) float64 { return tab.Data[c][0] + tc.frac*(tab.Data[c][1]-tab.Data[c][0]) }
		checkBody(t, c, projected(a.v, squareOutline, lerp(1), lerp(2), lerp(3)), bodyColor(0), "body a")
		checkBody(t, c, projected(a.v, triangleOutline, lerp(4), lerp(5), lerp(6)), bodyColor(1), "body b")
	}
}

func TestRenderElements(t *testing.T) {
	// Links, markers, beams and contacts draw in their own colours at the
	// projected points.
	tab := twoBodyTable()
	tab.Cols = append(tab.Cols, results.Column{Name: "n0.x"}, results.Column{Name: "n0.y"},
		results.Column{Name: "n1.x"}, results.Column{Name: "n1.y"}, results.Column{Name: "c.x"},
		results.Column{Name: "c.y"}, results.Column{Name: "c.fn", Unit: "N"})
	tab.Data = append(tab.Data, []float64{-1.5, -1.5}, []float64{1, 1}, []float64{1.5, 1.5}, []float64{1, 1},
		[]float64{0, 0}, []float64{-1, -1}, []float64{100, 50})
	sc := twoBodyScene()
	sc.Bodies[0].Markers = []results.SceneMarker{{Name: "m", P: []float64{0.1, 0}}}
	sc.Links = []results.SceneLink{
		{Kind: results.LinkRevolute, BodyB: "a", PA: []float64{1.8, -1.2}, PB: []float64{0.5, -1.4}},
		{Kind: results.LinkSpring, BodyA: "ground", PA: []float64{-1.8, 1.3}, BodyB: "b", PB: []float64{0, 0}},
	}
	sc.Beams = []results.SceneBeam{{Name: "beam", NodeX: []string{"n0.x", "n1.x"}, NodeY: []string{"n0.y", "n1.y"}}}
	sc.Contacts = []results.SceneContact{{Name: "c", PX: "c.x", PY: "c.y", FN: "c.fn"}}
	a := newApp(sc, []string{"a.x", "c.fn"}, 800, 600)
	if err := a.setTable(tab); err != nil {
		t.Fatal(err)
	}
	c := newRGBACanvas(800, 600)
	a.render(c)
	at := func(p [2]float64) color.RGBA { s := a.v.toScreen(p); return pixel(c, int(s.X), int(s.Y)) }
	// Marker on body a at (1, 0.5) turned 0.3 rad: (0.1 cos 0.3, 0.1 sin 0.3) from the origin.
	if got := at([2]float64{1 + 0.1*math.Cos(0.3), 0.5 + 0.1*math.Sin(0.3)}); got != colMarker {
		t.Errorf("marker pixel %v", got)
	}
	// Revolute pin: ring around the ground point, white hole at its centre.
	if got := at([2]float64{1.8, -1.2}); got != colPinHole {
		t.Errorf("pin centre %v", got)
	}
	pin := a.v.toScreen([2]float64{1.8, -1.2})
	if got := pixel(c, int(pin.X)+4, int(pin.Y)); got != colPinRing {
		t.Errorf("pin ring %v", got)
	}
	// Beam midpoint.
	if got := at([2]float64{0, 1}); got != colBeam {
		t.Errorf("beam pixel %v", got)
	}
	// Contact point and its arrow: 60 px up for the largest force (100 N at t = 0).
	if got := at([2]float64{0, -1}); got != colContact {
		t.Errorf("contact pixel %v", got)
	}
	cp := a.v.toScreen([2]float64{0, -1})
	if got := pixel(c, int(cp.X), int(cp.Y)-55); got != colContact {
		t.Errorf("arrow near its head %v", got)
	}
	if got := pixel(c, int(cp.X), int(cp.Y)-66); got == colContact {
		t.Errorf("arrow longer than 60 px")
	}
	// Spring colour appears between its ends.
	found := false
	p0, p1 := a.v.toScreen([2]float64{-1.8, 1.3}), a.v.toScreen([2]float64{-1, -0.3})
	for y := int(math.Min(p0.Y, p1.Y)); y <= int(math.Max(p0.Y, p1.Y)) && !found; y++ {
		for x := int(math.Min(p0.X, p1.X)) - 8; x <= int(math.Max(p0.X, p1.X))+8; x++ {
			if pixel(c, x, y) == colSpring {
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("no spring pixels between the spring ends")
	}
	lines := channelLines(tab, a.chans, a.vals)
	if len(lines) != 2 || lines[0] != "a.x = 1 m" || lines[1] != "c.fn = 100 N" {
		t.Errorf("channel lines %q", lines)
	}
}

func TestFitView(t *testing.T) {
	b := [4]float64{-3, 2, 5, 4}
	v := fitView(b, 640, 480)
	for _, p := range [][2]float64{{-3, 2}, {5, 4}, {-3, 4}, {5, 2}} {
		s := v.toScreen(p)
		if s.X < margin-1e-9 || s.X > 640-margin+1e-9 || s.Y < margin-1e-9 || s.Y > 480-barHeight-margin+1e-9 {
			t.Errorf("corner %v maps to %v, outside the drawing area", p, s)
		}
		if w := v.toWorld(s); math.Abs(w[0]-p[0]) > 1e-12 || math.Abs(w[1]-p[1]) > 1e-12 {
			t.Errorf("toWorld(toScreen(%v)) = %v", p, w)
		}
	}
	// Upward world y is upward on screen.
	if v.toScreen([2]float64{0, 4}).Y >= v.toScreen([2]float64{0, 2}).Y {
		t.Error("y axis not flipped")
	}
}

func TestMarkerHull(t *testing.T) {
	ms := []results.Frame{{P: [3]float64{0, 0}}, {P: [3]float64{1, 0}}, {P: [3]float64{0.5, 0.2}},
		{P: [3]float64{1, 1}}, {P: [3]float64{0, 1}}, {P: [3]float64{0.5, 0.5}}}
	h := markerHull(ms)
	if len(h) != 4 {
		t.Fatalf("hull %v, want the 4 corners", h)
	}
	a := 0.0
	for i := range h {
		a += h[i][0]*h[(i+1)%len(h)][1] - h[(i+1)%len(h)][0]*h[i][1]
	}
	if a/2 != 1 {
		t.Errorf("hull area %v, want 1 (counter-clockwise unit square)", a/2)
	}
	if len(markerHull(ms[:2])) != 2 || len(markerHull(ms[:1])) != 1 {
		t.Error("degenerate hulls")
	}
}

func TestColoursDistinct(t *testing.T) {
	seen := map[color.RGBA]string{}
	add := func(c color.RGBA, name string) {
		if o, dup := seen[c]; dup {
			t.Errorf("%s and %s share colour %v", name, o, c)
		}
		seen[c] = name
	}
	for i, c := range bodyPalette {
		add(c, "body fill")
		add(darker(c), "body edge")
		_ = i
	}
	for name, c := range map[string]color.RGBA{"background": colBackground, "grid": colGrid, "text": colText,
		"marker": colMarker, "pin ring": colPinRing, "pin hole": colPinHole, "slot": colSlot, "spring": colSpring,
		"beam": colBeam, "contact": colContact, "bar": colBarBg, "bar fill": colBarFill, "axis x": colAxisX, "axis y": colAxisY} {
		add(c, name)
	}
}

func TestRasteriser(t *testing.T) {
	c := newRGBACanvas(40, 30)
	red := color.RGBA{255, 0, 0, 255}
	count := func() int {
		n := 0
		for i := 0; i < len(c.img.Pix); i += 4 {
			if c.img.Pix[i] == 255 && c.img.Pix[i+1] == 0 {
				n++
			}
		}
		return n
	}
	// A 10×6 axis-aligned rectangle on pixel edges covers exactly 60 pixels.
	c.FillPolygon([]vec{{2, 3}, {12, 3}, {12, 9}, {2, 9}}, red)
	if n := count(); n != 60 {
		t.Errorf("rectangle covers %d pixels, want 60", n)
	}
	c.Clear(color.RGBA{})
	// A disc of radius 8 covers about π·64 ≈ 201 pixels.
	c.FillCircle(vec{20, 15}, 8, red)
	if n := count(); math.Abs(float64(n)-math.Pi*64) > 12 {
		t.Errorf("disc covers %d pixels, want ≈ 201", n)
	}
	c.Clear(color.RGBA{})
	// Shapes far outside are clipped without panicking.
	c.FillPolygon([]vec{{-1e6, -1e6}, {1e6, -1e6}, {0, 1e6}}, red)
	c.Line(vec{-50, -50}, vec{90, 80}, 3, red)
	c.FillCircle(vec{math.NaN(), 0}, 3, red)
	c.FillPolygon([]vec{{0, 0}, {math.Inf(1), 0}, {0, 5}}, red)
	// A horizontal 3-px line 20 px long covers 3 × (20 + 3) pixels (square ends).
	c.Clear(color.RGBA{})
	c.Line(vec{10, 15}, vec{30, 15}, 3, red)
	if n := count(); n != 69 {
		t.Errorf("line covers %d pixels, want 69", n)
	}
}
