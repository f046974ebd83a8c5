package main

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"mbfmu/results"
)

// lookAt projects world point w as a textbook pinhole camera at eye
// looking at target with the given world up: forward f = (target − eye)/|…|,
// right = f × up normalised, camera up = right × f; screen x = cx + F·x/d,
// y = cy − F·y/d with F = (h − bar)/2 / tan(fov/2). Written independently
// of camera.go.
func lookAt(eye, target, up, w v3, fov float64, width, height int) (float64, float64) {
	f := unit3(sub3(target, eye))
	r := unit3(cross3(f, up))
	u := cross3(r, f)
	rel := sub3(w, eye)
	x, y, d := dot3(rel, r), dot3(rel, u), dot3(rel, f)
	ah := float64(height - barHeight)
	F := ah / 2 / math.Tan(fov/2)
	return float64(width)/2 + F*x/d, ah/2 - F*y/d
}

// orbitEye is the camera position for azimuth and elevation about the up
// axis: for z up, azimuth from +x towards +y; for y up, from +z towards +x.
func orbitEye(target v3, up int, az, el, dist float64) v3 {
	ce, se := math.Cos(el), math.Sin(el)
	if up == 1 {
		return add3(target, scale3(v3{ce * math.Sin(az), se, ce * math.Cos(az)}, dist))
	}
	return add3(target, scale3(v3{ce * math.Cos(az), ce * math.Sin(az), se}, dist))
}

func TestCameraProjection(t *testing.T) {
	target := v3{1, 2, 3}
	points := []v3{{1, 2, 3}, {1.5, 2, 3.25}, {0.2, 2.7, 3.9}, {1.3, 1.1, 2.4}, {3, -1, 0}}
	for _, c := range []struct {
		up      int
		az, el  float64
		upAxis  v3
		caption string
	}{
		{2, -math.Pi / 2, 0, v3{0, 0, 1}, "z up, front"},
		{2, 0.7, 0.4, v3{0, 0, 1}, "z up, 3/4"},
		{2, 2.5, -0.6, v3{0, 0, 1}, "z up, from below"},
		{1, 0, 0, v3{0, 1, 0}, "y up, front"},
		{1, -1.1, 0.9, v3{0, 1, 0}, "y up, high"},
	} {
		cam := camera{Target: target, Azimuth: c.az, Elevation: c.el, Dist: 4, FOV: 0.7, Up: c.up}
		p := cam.project(800, 600)
		eye := orbitEye(target, c.up, c.az, c.el, 4)
		if d := norm3(sub3(p.eye, eye)); d > 1e-12 {
			t.Errorf("%s: eye %v, want %v", c.caption, p.eye, eye)
		}
		for _, w := range points {
			got, ok := p.toScreen(w)
			wx, wy := lookAt(eye, target, c.upAxis, w, 0.7, 800, 600)
			if !ok || math.Abs(got.X-wx) > 1e-9 || math.Abs(got.Y-wy) > 1e-9 {
				t.Errorf("%s: %v projects to %v, want (%v, %v)", c.caption, w, got, wx, wy)
			}
		}
	}
	// By hand: front view, z up, eye at (0, −2, 0). The point (0.5, 0, 0.25)
	// is 0.5 right, 0.25 up at depth 2.
	cam := camera{Azimuth: -math.Pi / 2, Dist: 2, FOV: 0.7, Up: 2}
	p := cam.project(800, 600)
	F := 291 / math.Tan(0.35)
	if s, _ := p.toScreen(v3{0.5, 0, 0.25}); math.Abs(s.X-(400+F*0.25)) > 1e-9 || math.Abs(s.Y-(291-F*0.125)) > 1e-9 {
		t.Errorf("front view: %v", s)
	}
	// Orthographic: no perspective division; the scale is that at the target.
	cam.Ortho = true
	p = cam.project(800, 600)
	if s, _ := p.toScreen(v3{0.5, 7, 0.25}); math.Abs(s.X-(400+F/2*0.5)) > 1e-9 || math.Abs(s.Y-(291-F/2*0.25)) > 1e-9 {
		t.Errorf("orthographic: %v", s)
	}
	// Top view (elevation π/2, where a look-at with the world up fails):
	// +x to the right, +y up on the screen.
	cam = camera{Azimuth: frontAzimuth(2), Elevation: math.Pi / 2, Dist: 3, FOV: 0.7, Up: 2}
	p = cam.project(800, 600)
	sx, _ := p.toScreen(v3{1, 0, 0})
	sy, _ := p.toScreen(v3{0, 1, 0})
	if !(sx.X > 400 && math.Abs(sx.Y-291) < 1e-9 && sy.Y < 291 && math.Abs(sy.X-400) < 1e-9) {
		t.Errorf("top view: +x at %v, +y at %v", sx, sy)
	}
	// Behind the camera: not projected.
	if _, ok := p.toScreen(v3{0, 0, 4}); ok {
		t.Error("a point behind the camera was projected")
	}
}

// isShadeOf reports whether c is base lit with some intensity in
// [ambient, 1] (each channel within 1.5 of base·i).
func isShadeOf(c, base color.RGBA) bool {
	i := (float64(c.R) + float64(c.G) + float64(c.B)) / (float64(base.R) + float64(base.G) + float64(base.B))
	if i < ambient-0.01 || i > 1.01 {
		return false
	}
	return math.Abs(float64(c.R)-i*float64(base.R)) <= 1.5 && math.Abs(float64(c.G)-i*float64(base.G)) <= 1.5 &&
		math.Abs(float64(c.B)-i*float64(base.B)) <= 1.5
}

// boxScene is a spatial scene of boxes whose centres are read from columns.
func boxScene(boxes ...results.SceneShape) (*results.Scene, *results.Table) {
	sc := &results.Scene{Dim: 3}
	tab := &results.Table{Cols: []results.Column{{Name: "time"}}, Data: [][]float64{{0}}}
	for i, b := range boxes {
		name := string(rune('a' + i))
		sc.Bodies = append(sc.Bodies, results.SceneBody{Name: name, X: name + ".x", Y: name + ".y", Z: name + ".z",
			Shapes: []results.SceneShape{{Kind: results.ShapeBox, Size: b.Size, Color: b.Color}}})
		for j, ax := range []string{".x", ".y", ".z"} {
			tab.Cols = append(tab.Cols, results.Column{Name: name + ax})
			tab.Data = append(tab.Data, []float64{b.P[j]})
		}
	}
	return sc, tab
}

func render3D(t *testing.T, sc *results.Scene, tab *results.Table, cam camera, w, h int) (*app, *rgbaCanvas) {
	t.Helper()
	a := newApp(sc, nil, w, h)
	if err := a.setTable(tab); err != nil {
		t.Fatal(err)
	}
	a.cam = cam
	c := newRGBACanvas(w, h)
	a.render(c)
	return a, c
}

// A box seen from the front shows exactly its front face: a rectangle at
// the face's projection (computed here by hand), filled with the body
// colour lit by the camera light at the face normal; nothing of the body
// colour outside it. In perspective the box sits on the view axis (its
// side faces then turn away from the eye); orthographic views show only
// the front face wherever the box is, here off the axis.
func TestRender3DBox(t *testing.T) {
	ah := float64(480 - barHeight)
	F := ah / 2 / math.Tan(0.3)
	for _, c := range []struct {
		ortho bool
		x     float64
		// Face rectangle on the screen.
		x0, x1, y0, y1 float64
	}{
		// Eye at (0, −2, 0.5); the front face y = −0.1 is at depth 1.9.
		{false, 0, 320 - F*0.2/1.9, 320 + F*0.2/1.9, ah/2 - F*0.15/1.9, ah/2 + F*0.15/1.9},
		// Orthographic: F/2 pixels per metre (the scale at the target, 2 m away).
		{true, 0.3, 320 + F/2*0.1, 320 + F/2*0.5, ah/2 - F/2*0.15, ah/2 + F/2*0.15},
	} {
		sc, tab := boxScene(results.SceneShape{Size: []float64{0.4, 0.2, 0.3}, P: []float64{c.x, 0, 0.5}})
		cam := camera{Target: v3{0, 0, 0.5}, Azimuth: -math.Pi / 2, Dist: 2, FOV: 0.6, Up: 2, Ortho: c.ortho}
		_, cv := render3D(t, sc, tab, cam, 640, 480)
		// Light towards (−0.3 right + 0.5 up − 0.8 forward), right = +x,
		// up = +z, forward = +y; the face normal is −y.
		L := unit3(v3{-0.3, -0.8, 0.5})
		in := ambient + diffuse*L[1]*-1
		base := bodyColor(0)
		want := color.RGBA{uint8(math.Round(float64(base.R) * in)), uint8(math.Round(float64(base.G) * in)), uint8(math.Round(float64(base.B) * in)), 255}
		inside := 0
		for y := 0; y < 480; y++ {
			for x := 0; x < 640; x++ {
				px, py := float64(x)+0.5, float64(y)+0.5
				got := pixel(cv, x, y)
				switch {
				case px > c.x0+1 && px < c.x1-1 && py > c.y0+1 && py < c.y1-1:
					inside++
					if math.Abs(float64(got.R)-float64(want.R)) > 1 || math.Abs(float64(got.G)-float64(want.G)) > 1 || math.Abs(float64(got.B)-float64(want.B)) > 1 {
						t.Fatalf("ortho %v: pixel (%d,%d) inside the face is %v, want %v", c.ortho, x, y, got, want)
					}
				case px < c.x0-1 || px > c.x1+1 || py < c.y0-1 || py > c.y1+1:
					if isShadeOf(got, base) {
						t.Fatalf("ortho %v: pixel (%d,%d) outside the face has the body colour %v", c.ortho, x, y, got)
					}
				}
			}
		}
		if inside < 2000 {
			t.Errorf("ortho %v: only %d pixels inside the face", c.ortho, inside)
		}
		// Far from the box and the ground line (z = 0 is below the view
		// axis): the background.
		if got := pixel(cv, 20, 60); got != colBackground {
			t.Errorf("ortho %v: background pixel %v", c.ortho, got)
		}
	}
}

// In a 3/4 view from above, the top, front and right faces of a box each
// have the body colour lit by the camera light at their normal, the light
// direction worked out here from a textbook look-at frame.
func TestRender3DFaceShading(t *testing.T) {
	sc, tab := boxScene(results.SceneShape{Size: []float64{0.5, 0.5, 0.5}, P: []float64{0, 0, 0}})
	az, el := -math.Pi/2+0.6, 0.5
	cam := camera{Azimuth: az, Elevation: el, Dist: 3, FOV: 0.6, Up: 2}
	_, cv := render3D(t, sc, tab, cam, 640, 480)
	eye := orbitEye(v3{}, 2, az, el, 3)
	f := unit3(scale3(eye, -1))
	r := unit3(cross3(f, v3{0, 0, 1}))
	u := cross3(r, f)
	L := unit3(add3(add3(scale3(r, -0.3), scale3(u, 0.5)), scale3(f, -0.8)))
	base := bodyColor(0)
	for _, n := range []v3{{0, 0, 1}, {0, -1, 0}, {1, 0, 0}} {
		i := ambient + diffuse*math.Max(0, dot3(n, L))
		x, y := lookAt(eye, v3{}, v3{0, 0, 1}, scale3(n, 0.25), 0.6, 640, 480)
		got := pixel(cv, int(x), int(y))
		for k, ch := range []float64{float64(got.R), float64(got.G), float64(got.B)} {
			want := []float64{float64(base.R), float64(base.G), float64(base.B)}[k] * i
			if math.Abs(ch-want) > 1 {
				t.Errorf("face %v: pixel %v, want %v × %.3f", n, got, base, i)
				break
			}
		}
	}
}

// The depth buffer, not the drawing order, decides what is seen: with a
// near box and a far box on either side of a plane that separates them
// from the eye, every pixel of the pair shows the near box where it
// covers the pixel alone, else the far box where that covers it alone;
// in either drawing order, in perspective and orthographic projection.
func TestRender3DOcclusion(t *testing.T) {
	near := results.SceneShape{Size: []float64{0.4, 0.4, 0.4}, P: []float64{0, -0.5, 0}, Color: "#ff0000"}
	far := results.SceneShape{Size: []float64{0.6, 0.6, 0.6}, P: []float64{0.25, 0.5, 0.05}, Color: "#0000ff"}
	red, blue := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}
	for _, ortho := range []bool{false, true} {
		// The eye is at y < −2: the plane y = −0.25 separates it and the
		// near box from the far box.
		cam := camera{Azimuth: -math.Pi/2 + 0.2, Elevation: 0.3, Dist: 3, FOV: 0.7, Up: 2, Ortho: ortho}
		sc, tab := boxScene(near, far)
		_, both := render3D(t, sc, tab, cam, 400, 300)
		sc, tab = boxScene(far, near)
		_, swapped := render3D(t, sc, tab, cam, 400, 300)
		if !bytes.Equal(both.img.Pix, swapped.img.Pix) {
			t.Errorf("ortho %v: the picture depends on the drawing order", ortho)
		}
		sc, tab = boxScene(near)
		_, nearOnly := render3D(t, sc, tab, cam, 400, 300)
		sc, tab = boxScene(far)
		_, farOnly := render3D(t, sc, tab, cam, 400, 300)
		overlap, farSeen := 0, 0
		for y := 0; y < 300; y++ {
			for x := 0; x < 400; x++ {
				n, f, got := pixel(nearOnly, x, y), pixel(farOnly, x, y), pixel(both, x, y)
				switch {
				case isShadeOf(n, red):
					if isShadeOf(f, blue) {
						overlap++
					}
					if got != n {
						t.Fatalf("ortho %v: pixel (%d,%d) is %v, want the near box's %v", ortho, x, y, got, n)
					}
				case isShadeOf(f, blue):
					farSeen++
					if got != f {
						t.Fatalf("ortho %v: pixel (%d,%d) is %v, want the far box's %v", ortho, x, y, got, f)
					}
				}
			}
		}
		if overlap < 500 || farSeen < 500 {
			t.Errorf("ortho %v: %d pixels where the near box hides the far one, %d of the far box alone; want both >= 500", ortho, overlap, farSeen)
		}
	}
}

// Near-plane clipping keeps the part of a triangle in front of the plane.
func TestClipNear(t *testing.T) {
	poly := []clipVert{{c: v3{0, 0, -1}, rgb: v3{0, 0, 0}}, {c: v3{2, 0, 1}, rgb: v3{100, 0, 0}}, {c: v3{0, 2, 1}, rgb: v3{0, 100, 0}}}
	out := clipNear(poly, 0.5)
	if len(out) != 4 {
		t.Fatalf("%d vertices, want 4", len(out))
	}
	for _, v := range out {
		if v.c[2] < 0.5-1e-12 {
			t.Errorf("vertex %v behind the near plane", v)
		}
	}
	// The edge from (0,0,−1) to (2,0,1) meets d = 0.5 three quarters along: x = 1.5.
	found := false
	for _, v := range out {
		if math.Abs(v.c[0]-1.5) < 1e-12 && math.Abs(v.c[2]-0.5) < 1e-12 && math.Abs(v.rgb[0]-75) < 1e-9 {
			found = true
		}
	}
	if !found {
		t.Errorf("clipped polygon %v lacks (1.5, 0, 0.5) with colour 75", out)
	}
	if len(clipNear([]clipVert{{c: v3{0, 0, -1}}, {c: v3{1, 0, -1}}, {c: v3{0, 1, -2}}}, 0.5)) != 0 {
		t.Error("a triangle behind the plane was kept")
	}
	// A camera inside a large box sees its inside faces culled and its
	// far faces clipped without trouble.
	sc, tab := boxScene(results.SceneShape{Size: []float64{4, 4, 4}, P: []float64{0, 0, 0}})
	_, _ = render3D(t, sc, tab, camera{Azimuth: 0.3, Elevation: 0.2, Dist: 0.5, FOV: 0.7, Up: 2}, 200, 150)
}

// Quaternion columns that switch sign between rows (q and −q are one
// rotation) interpolate along the short way, not through zero.
func TestSampleQuaternionSignFlip(t *testing.T) {
	q0, q1 := axisQuat(2, 0.2), axisQuat(2, 0.4)
	tab := &results.Table{Cols: []results.Column{{Name: "time"}, {Name: "qw"}, {Name: "qx"}, {Name: "qy"}, {Name: "qz"}},
		Data: [][]float64{{0, 1}, {q0[0], -q1[0]}, {q0[1], -q1[1]}, {q0[2], -q1[2]}, {q0[3], -q1[3]}}}
	sc := &results.Scene{Dim: 3, Bodies: []results.SceneBody{{Name: "b", QW: "qw", QX: "qx", QY: "qy", QZ: "qz"}}}
	rs, err := sc.Resolve(tab)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float64, 5)
	sampleAt(tab, 0.5, vals)
	sampleQuats(rs, tab, 0.5, vals)
	// Halfway between turns of 0.2 and 0.4 rad about z: 0.3 rad.
	got := rs.World3(vals, 0, v3{1, 0, 0})
	if want := (v3{math.Cos(0.3), math.Sin(0.3), 0}); norm3(sub3(got, want)) > 1e-12 {
		t.Errorf("halfway: %v, want %v", got, want)
	}
}

// The orbit camera follows the mouse and keys: drags orbit (left) and pan
// (shift or right), the wheel zooms, 1/2/3/0 pick views, p switches the
// projection. Planar scenes ignore the view keys.
func TestOrbitControls(t *testing.T) {
	sc, tab := boxScene(results.SceneShape{Size: []float64{0.2, 0.2, 0.2}, P: []float64{0, 0, 0}})
	a := newApp(sc, nil, 800, 600)
	if err := a.setTable(tab); err != nil {
		t.Fatal(err)
	}
	az, el := a.cam.Azimuth, a.cam.Elevation
	a.mouseDown(100, 100, false)
	a.mouseMove(150, 80)
	a.mouseUp()
	if math.Abs(a.cam.Azimuth-(az-50*orbitPerPx)) > 1e-12 || math.Abs(a.cam.Elevation-(el-20*orbitPerPx)) > 1e-12 {
		t.Errorf("orbit: az %v el %v", a.cam.Azimuth, a.cam.Elevation)
	}
	a.mouseDown(100, 100, false)
	a.mouseMove(100, 100+10000)
	if a.cam.Elevation != maxElevation {
		t.Errorf("elevation %v not clamped", a.cam.Elevation)
	}
	a.mouseUp()
	a.key("0")
	// Panning moves the scene with the pointer: the target's screen point
	// moves by the drag.
	p := a.cam.project(800, 600)
	s0, _ := p.toScreen(a.cam.Target)
	old := a.cam.Target
	a.mouseDown(300, 300, true)
	a.mouseMove(340, 290)
	a.mouseUp()
	p = a.cam.project(800, 600)
	s1, _ := p.toScreen(old)
	if math.Abs(s1.X-s0.X-40) > 1e-6 || math.Abs(s1.Y-s0.Y+10) > 1e-6 {
		t.Errorf("pan: the old target moved from %v to %v, want by (40, −10)", s0, s1)
	}
	d := a.cam.Dist
	a.wheel(2, 0, 0)
	if math.Abs(a.cam.Dist-d/1.44) > 1e-12 {
		t.Errorf("zoom: distance %v, want %v", a.cam.Dist, d/1.44)
	}
	a.key("3")
	if a.cam.Elevation != math.Pi/2 || a.cam.Azimuth != -math.Pi/2 {
		t.Errorf("top view: %+v", a.cam)
	}
	a.key("1")
	if a.cam.Elevation != 0 || a.cam.Azimuth != -math.Pi/2 {
		t.Errorf("front view: %+v", a.cam)
	}
	a.key("2")
	if a.cam.Elevation != 0 || a.cam.Azimuth != 0 {
		t.Errorf("side view: %+v", a.cam)
	}
	a.key("p")
	if !a.cam.Ortho || a.status().Camera == nil || !a.status().Camera.Ortho {
		t.Error("p did not switch to orthographic")
	}
	// f fits the whole box in view from the current direction.
	a.key("f")
	p = a.cam.project(800, 600)
	for _, c := range [][3]float64{{-0.1, -0.1, -0.1}, {0.1, 0.1, 0.1}, {0.1, -0.1, 0.1}} {
		if s, _ := p.toScreen(c); s.X < margin-1e-9 || s.X > 800-margin+1e-9 || s.Y < margin-1e-9 || s.Y > 600-barHeight-margin+1e-9 {
			t.Errorf("after f, corner %v at %v is outside the drawing area", c, s)
		}
	}
	// Planar: the view keys do nothing, drags pan.
	b := newApp(twoBodyScene(), nil, 800, 600)
	if err := b.setTable(twoBodyTable()); err != nil {
		t.Fatal(err)
	}
	v := b.v
	b.key("3")
	b.key("p")
	if b.v != v || b.cam != (camera{}) {
		t.Error("view keys changed a planar view")
	}
	b.mouseDown(10, 10, false)
	b.mouseMove(20, 10)
	if b.v.OX != v.OX+10 {
		t.Error("drag did not pan the planar view")
	}
}

// The demo's screenshot (the command, as a user runs it): each body's
// colour, shaded, at the projection of a point on its surface facing the
// camera, and nowhere outside the projection of the body's motion box.
func TestScreenshot3D(t *testing.T) {
	scenePath, csvPath := filepath.Join("testdata", "spinning_top.json"), filepath.Join("testdata", "spinning_top.csv")
	out := filepath.Join(t.TempDir(), "top.png")
	var stderr bytes.Buffer
	if err := run([]string{"--scene", scenePath, "--screenshot", out, "--at", "1.3", "--size", "640x480", csvPath}, &stderr); err != nil {
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
	at := func(s vec) color.RGBA { return color.RGBAModel.Convert(img.At(int(s.X), int(s.Y))).(color.RGBA) }
	// The default camera: the 3/4 view fitted to the motion.
	sc, _ := readScene(scenePath)
	tab, _ := readTable(csvPath)
	a := newApp(sc, nil, 640, 480)
	if err := a.setTable(tab); err != nil {
		t.Fatal(err)
	}
	p := a.cam.project(640, 480)
	const tm = 1.3
	// Points on top faces (seen from above): the top's disc cap away from
	// its stem and flag, the block's top face, the ball's top.
	q := topQuat(tm)
	sp, cp := math.Sincos(topPrecession * tm)
	com := v3{topL * math.Sin(topTilt) * sp, -topL * math.Sin(topTilt) * cp, topL * math.Cos(topTilt)}
	disc := results.Apply(com, results.QuatMatrix(q[0], q[1], q[2], q[3]), v3{-0.045, 0.03, 0.0325})
	bx := blockX0 + blockAmp*math.Sin(2*math.Pi*blockFreq*tm)
	sa, ca := math.Sincos(ballOmega * tm)
	ball := v3{ballPivot[0] + ballL*math.Sin(ballCone)*ca, ballPivot[1] + ballL*math.Sin(ballCone)*sa, ballPivot[2] - ballL*math.Cos(ballCone)}
	for _, c := range []struct {
		name string
		p    v3
		body int
	}{
		{"top", disc, 0},
		{"block", v3{bx - 0.03, 0.3 - 0.02, 0.06}, 1},
		{"ball", add3(ball, v3{0.012, 0, 0.026}), 2},
	} {
		s, ok := p.toScreen(c.p)
		if !ok {
			t.Fatalf("%s not in front of the camera", c.name)
		}
		if got := at(s); !isShadeOf(got, bodyColor(c.body)) {
			t.Errorf("%s: pixel %v at %v, want its colour %v shaded", c.name, got, s, bodyColor(c.body))
		}
	}
	// The body colours appear only inside the screen box of the body's
	// motion (the scene's motion box, projected) and nowhere near the
	// image's corners.
	lo, hi := sceneBounds3(a.rs, tab)
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for k := 0; k < 8; k++ {
		c := lo
		for i := 0; i < 3; i++ {
			if k&(1<<i) != 0 {
				c[i] = hi[i]
			}
		}
		s, _ := p.toScreen(c)
		x0, y0, x1, y1 = math.Min(x0, s.X), math.Min(y0, s.Y), math.Max(x1, s.X), math.Max(y1, s.Y)
	}
	b := img.Bounds()
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			if float64(x) >= x0-1 && float64(x) <= x1+1 && float64(y) >= y0-1 && float64(y) <= y1+1 {
				continue
			}
			got := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			for i := 0; i < 3; i++ {
				if isShadeOf(got, bodyColor(i)) {
					t.Fatalf("body %d's colour at (%d,%d), outside the motion box", i, x, y)
				}
			}
		}
	}
}
