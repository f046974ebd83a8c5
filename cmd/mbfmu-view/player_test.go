package main

import (
	"math"
	"testing"

	"mbfmu/results"
)

func TestSampleAt(t *testing.T) {
	tab := &results.Table{Cols: []results.Column{{Name: "t"}, {Name: "x"}},
		Data: [][]float64{{0, 1, 1, 3}, {10, 20, 30, 50}}}
	dst := make([]float64, 2)
	for _, c := range []struct{ at, want float64 }{
		{-1, 10}, {0, 10}, {0.5, 15}, {1, 30}, {2, 40}, {2.5, 45}, {3, 50}, {9, 50},
	} {
		if !sampleAt(tab, c.at, dst) || dst[1] != c.want || (c.at >= 0 && c.at <= 3 && dst[0] != c.at) {
			t.Errorf("at %v: got %v, want x = %v", c.at, dst, c.want)
		}
	}
	if sampleAt(&results.Table{Cols: tab.Cols, Data: [][]float64{nil, nil}}, 0, dst) {
		t.Error("empty table sampled")
	}
	one := &results.Table{Cols: tab.Cols, Data: [][]float64{{2}, {7}}}
	if !sampleAt(one, 0, dst) || dst[1] != 7 || !sampleAt(one, 5, dst) || dst[1] != 7 {
		t.Errorf("single row: %v", dst)
	}
}

func TestAutoScene(t *testing.T) {
	tab := &results.Table{Cols: []results.Column{{Name: "time"}, {Name: "arm.x"}, {Name: "arm.y"}, {Name: "arm.phi"},
		{Name: "p.x"}, {Name: "p.y"}, {Name: "lone.x"}}}
	s := autoScene(tab)
	if len(s.Bodies) != 2 || s.Bodies[0].Name != "arm" || s.Bodies[0].X != "arm.x" || s.Bodies[0].Y != "arm.y" ||
		s.Bodies[0].Angle != "arm.phi" || s.Bodies[1].Name != "p" || s.Bodies[1].Angle != "" {
		t.Errorf("auto scene %+v", s.Bodies)
	}
	if s.Dim != 0 {
		t.Errorf("planar columns gave dim %d", s.Dim)
	}
	// With z columns the scene is spatial, with the quaternion columns there are.
	tab = &results.Table{Cols: []results.Column{{Name: "time"}, {Name: "arm.x"}, {Name: "arm.y"}, {Name: "arm.z"},
		{Name: "arm.qw"}, {Name: "arm.qz"}, {Name: "p.x"}, {Name: "p.y"}, {Name: "p.phi"}}}
	s = autoScene(tab)
	if s.Dim != 3 || len(s.Bodies) != 2 || s.Bodies[0].Z != "arm.z" || s.Bodies[0].QW != "arm.qw" || s.Bodies[0].QX != "" ||
		s.Bodies[0].QZ != "arm.qz" || s.Bodies[1].Z != "" || s.Bodies[1].Angle != "" {
		t.Errorf("spatial auto scene %+v", s)
	}
	if _, err := s.Resolve(tab); err != nil {
		t.Error(err)
	}
}

func TestSceneBounds(t *testing.T) {
	tab := twoBodyTable()
	sc := twoBodyScene()
	rs, err := sc.Resolve(tab)
	if err != nil {
		t.Fatal(err)
	}
	b := sceneBounds(rs, tab)
	// Every outline vertex of every row lies inside the bounds.
	vals := make([]float64, len(tab.Cols))
	for r := 0; r < tab.Len(); r++ {
		for c := range vals {
			vals[c] = tab.Data[c][r]
		}
		for bi, body := range sc.Bodies {
			for _, p := range body.Outline {
				w := rs.World(vals, bi, p)
				if w[0] < b[0] || w[0] > b[2] || w[1] < b[1] || w[1] > b[3] {
					t.Errorf("point %v outside bounds %v", w, b)
				}
			}
		}
	}
	if b[2]-b[0] > 4 || b[3]-b[1] > 3 {
		t.Errorf("bounds %v far larger than the motion", b)
	}
}

func TestAppControls(t *testing.T) {
	a := newApp(twoBodyScene(), nil, 800, 600)
	if err := a.setTable(twoBodyTable()); err != nil {
		t.Fatal(err)
	}
	a.key("space")
	if !a.playing {
		t.Fatal("space did not start playback")
	}
	a.advance(0.25)
	if a.t != 0.25 {
		t.Errorf("t = %v after 0.25 s at speed 1", a.t)
	}
	a.key("plus")
	a.advance(0.25)
	if a.t != 0.75 || a.speed != 2 {
		t.Errorf("t = %v speed %v after + and 0.25 s", a.t, a.speed)
	}
	a.advance(10)
	if a.t != 1 || a.playing {
		t.Errorf("playback did not stop at the end: t = %v playing %v", a.t, a.playing)
	}
	a.key("space") // restarts from the beginning
	if a.t != 0 || !a.playing {
		t.Errorf("space at the end: t = %v playing %v", a.t, a.playing)
	}
	a.key("space")
	a.key("minus")
	a.key("minus")
	if a.speed != 0.5 {
		t.Errorf("speed %v", a.speed)
	}
	a.key("right")
	a.key("right")
	if math.Abs(a.t-0.02) > 1e-15 {
		t.Errorf("right x2: t = %v, want 0.02 (1 %% steps)", a.t)
	}
	a.key("shift+right")
	if a.t != 1 {
		t.Errorf("shift+right: t = %v, want the next row time 1", a.t)
	}
	a.key("shift+left")
	if a.t != 0 {
		t.Errorf("shift+left: t = %v", a.t)
	}
	a.key("end")
	if a.t != 1 {
		t.Errorf("end: %v", a.t)
	}
	a.key("home")
	if a.t != 0 {
		t.Errorf("home: %v", a.t)
	}
	// Dragging on the time bar scrubs: x = 3/4 of the width → t = 0.75.
	a.mouseDown(600, 595, false)
	if a.t != 0.75 {
		t.Errorf("click on the time bar at 3/4: t = %v", a.t)
	}
	a.mouseMove(200, 590)
	a.mouseUp()
	if a.t != 0.25 {
		t.Errorf("drag on the time bar to 1/4: t = %v", a.t)
	}
	// Dragging the scene pans by the mouse motion.
	p := a.v.toScreen([2]float64{0.3, 0.4})
	a.mouseDown(100, 100, false)
	a.mouseMove(130, 90)
	a.mouseUp()
	if q := a.v.toScreen([2]float64{0.3, 0.4}); math.Abs(q.X-p.X-30) > 1e-9 || math.Abs(q.Y-p.Y+10) > 1e-9 {
		t.Errorf("pan moved the point from %v to %v, want (+30, -10)", p, q)
	}
	// The wheel zooms about the cursor: the world point under it stays.
	under := a.v.toWorld(vec{321, 123})
	s0 := a.v.S
	a.wheel(2, 321, 123)
	if w := a.v.toWorld(vec{321, 123}); math.Abs(w[0]-under[0]) > 1e-12 || math.Abs(w[1]-under[1]) > 1e-12 || math.Abs(a.v.S-s0*1.44) > 1e-9 {
		t.Errorf("zoom moved the point under the cursor: %v -> %v, scale %v -> %v", under, w, s0, a.v.S)
	}
	a.key("f")
	if a.v != fitView([4]float64(twoBodyScene().Bounds), 800, 600) {
		t.Error("f did not refit the view")
	}
	// Resizing keeps the world point at the centre of the drawing area.
	ctr := a.v.toWorld(vec{400, float64(600-barHeight) / 2})
	a.resize(1000, 500)
	if w := a.v.toWorld(vec{500, float64(500-barHeight) / 2}); math.Abs(w[0]-ctr[0]) > 1e-12 || math.Abs(w[1]-ctr[1]) > 1e-12 {
		t.Errorf("resize moved the centre %v -> %v", ctr, w)
	}
	a.key("q")
	if !a.quit {
		t.Error("q did not quit")
	}
}
