package main

import (
	"fmt"
	"math"
	"sort"
	"time"

	"mbfmu/results"
)

// app is the viewer state: data, scene, view and playback. It is driven by
// the SDL window (window_sdl.go) or used once for a screenshot; it knows
// nothing about SDL, so its behaviour is tested without a display.
type app struct {
	scene     *results.Scene
	tab       *results.Table
	rs        *results.ResolvedScene
	chanNames []string
	chans     []int
	vals      []float64
	maxFN     []float64
	axes      bool

	w, h   int
	v      view   // planar view
	cam    camera // spatial view
	size3  float64
	fitted bool

	t       float64
	playing bool
	speed   float64 // simulated seconds per wall second

	live    *liveFeed
	liveGen int
	follow  bool // live: stay at the newest row

	interactive bool
	msg         string // error shown on screen
	quit        bool
	frames      int         // frames drawn by the window
	opened      time.Time   // when the window opened
	tick        time.Time   // the wall instant of the last playback step
	statusOut   *statusFile // --status, or nil

	dragging int // one of the drag* constants
	lastX    int
	lastY    int
}

// Mouse drags.
const (
	dragNone  = iota
	dragPan   // planar view: move; spatial: move the camera target
	dragBar   // scrub on the time bar
	dragOrbit // spatial: turn the camera about its target
)

// newApp returns a viewer for a w×h canvas.
func newApp(scene *results.Scene, channels []string, w, h int) *app {
	a := &app{scene: scene, chanNames: channels, w: w, h: h, speed: 1}
	if a.is3D() {
		a.cam = camera{FOV: defaultFOV, Up: 2, Dist: 1, Elevation: isoElevation}
		if scene.Up == "y" {
			a.cam.Up = 1
		}
		a.cam.Azimuth = frontAzimuth(a.cam.Up) + isoAzimuth
		a.size3 = 1
	}
	return a
}

// is3D reports whether the scene is spatial.
func (a *app) is3D() bool { return a.scene.Dim == 3 }

// setTable installs a results table: resolves the scene and channels and
// fits the view (unless the user has moved it).
func (a *app) setTable(t *results.Table) error {
	rs, err := a.scene.Resolve(t)
	if err != nil {
		return err
	}
	chans, err := channelIndices(t, a.chanNames)
	if err != nil {
		return err
	}
	a.tab, a.rs, a.chans = t, rs, chans
	a.vals = make([]float64, len(t.Cols))
	a.maxFN = maxForces(rs, t)
	t0, _ := a.timeRange()
	if a.t < t0 {
		a.t = t0
	}
	if !a.fitted {
		a.fit()
	}
	return nil
}

// fit sets the view to the scene bounds hint or to the data extent.
func (a *app) fit() {
	if a.is3D() {
		a.fit3D()
		return
	}
	var b [4]float64
	hint := a.boundsHint()
	if hint != nil {
		b = [4]float64{hint[0], hint[1], hint[3], hint[4]}
	} else if a.tab != nil && a.rs != nil {
		if a.tab.Len() == 0 {
			return
		}
		b = sceneBounds(a.rs, a.tab)
	}
	a.v = fitView(b, a.w, a.h)
	a.fitted = a.tab != nil && a.tab.Len() > 0 || hint != nil
}

// boundsHint returns the scene's bounds {xmin, ymin, zmin, xmax, ymax,
// zmax}, or nil when the view should fit the motion.
func (a *app) boundsHint() []float64 {
	if a.rs != nil {
		return a.rs.Bounds
	}
	b := a.scene.Bounds // not resolved yet (live mode before the header)
	switch {
	case len(b) == 4 && (b[0] != 0 || b[1] != 0 || b[2] != 0 || b[3] != 0):
		return []float64{b[0], b[1], 0, b[2], b[3], 0}
	case len(b) == 6:
		return b
	}
	return nil
}

// fit3D aims the camera at the centre of the bounds hint or of the data
// extent, from a distance at which all of it is in view; the viewing
// direction stays.
func (a *app) fit3D() {
	var lo, hi v3
	hint := a.boundsHint()
	switch {
	case hint != nil:
		lo, hi = v3{hint[0], hint[1], hint[2]}, v3{hint[3], hint[4], hint[5]}
	case a.tab != nil && a.rs != nil && a.tab.Len() > 0:
		lo, hi = sceneBounds3(a.rs, a.tab)
	default:
		return
	}
	a.size3 = math.Max(norm3(sub3(hi, lo))/2, 1e-3)
	a.cam.Target = scale3(add3(lo, hi), 0.5)
	a.cam.Dist = a.cam.fitDistance(lo, hi, a.w, a.h)
	a.fitted = true
}

// timeRange returns the first and last time of the data.
func (a *app) timeRange() (float64, float64) {
	if a.tab == nil || a.tab.Len() == 0 {
		return 0, 0
	}
	tc := a.tab.Data[0]
	return tc[0], tc[len(tc)-1]
}

// advance moves playback on by dt wall seconds and takes in live rows.
func (a *app) advance(dt float64) {
	if a.live != nil {
		a.pollLive()
	}
	t0, t1 := a.timeRange()
	if a.live != nil && a.follow {
		a.t = t1
		return
	}
	if a.playing {
		a.t += dt * a.speed
		if a.t >= t1 {
			a.t = t1
			if a.live == nil {
				a.playing = false
			}
		}
	}
	a.t = math.Min(math.Max(a.t, t0), t1)
}

// pollLive appends the rows received since the last frame.
func (a *app) pollLive() {
	cols, gen, rows, dropped, err := a.live.take()
	if err != nil {
		a.msg = "live: " + err.Error()
	}
	if len(cols) == 0 {
		a.msg = "waiting for the live header on " + a.live.addr()
		return
	}
	if gen != a.liveGen || a.tab == nil {
		a.liveGen = gen
		t := &results.Table{Cols: cols, Data: make([][]float64, len(cols))}
		if err := a.setTable(t); err != nil {
			a.msg = err.Error()
			a.tab, a.rs = nil, nil
			return
		}
		a.msg = ""
	}
	if a.rs == nil {
		return
	}
	n := len(cols)
	for r := 0; r+n <= len(rows); r += n {
		row := rows[r : r+n]
		if l := a.tab.Len(); l > 0 && row[0] < a.tab.Data[0][l-1] {
			// Time went back: a new run. Start over.
			for c := range a.tab.Data {
				a.tab.Data[c] = a.tab.Data[c][:0]
			}
		}
		for c, v := range row {
			a.tab.Data[c] = append(a.tab.Data[c], v)
		}
		for i, rc := range a.rs.Contacts {
			if rc.FN >= 0 && finite(row[rc.FN]) {
				a.maxFN[i] = math.Max(a.maxFN[i], math.Abs(row[rc.FN]))
			}
		}
	}
	if !a.fitted && a.tab.Len() > 0 {
		a.fit()
	}
	if dropped > 0 && a.msg == "" {
		a.msg = fmt.Sprintf("live: %d packets dropped (size does not match the header)", dropped)
	}
}

// render draws the current frame.
func (a *app) render(c Canvas) {
	c.Clear(colBackground)
	drawGrid(c, a.v)
	t0, t1 := a.timeRange()
	h := &hud{t: a.t, t0: t0, t1: t1, message: a.msg}
	switch {
	case a.live != nil && a.follow:
		h.status = "live"
	case a.playing:
		h.status = fmt.Sprintf("playing x%g", a.speed)
	default:
		h.status = fmt.Sprintf("paused x%g", a.speed)
	}
	if a.interactive {
		h.help = "space play/pause  +/- speed  left/right/home/end scrub  wheel zoom  drag pan  f fit  a axes  q quit"
		if a.is3D() {
			h.help = "space play  +/- speed  arrows/home/end scrub  drag orbit  shift/right-drag pan  wheel zoom  1/2/3/0 views  p ortho  f fit  a axes  q quit"
		}
	}
	if a.tab != nil && a.rs != nil && sampleAt(a.tab, a.t, a.vals) {
		if a.is3D() {
			sampleQuats(a.rs, a.tab, a.t, a.vals)
			if rc, ok := c.(*rgbaCanvas); ok {
				drawScene3D(rc, &frame3{rs: a.rs, vals: a.vals, cam: a.cam, size: a.size3, maxFN: a.maxFN, axes: a.axes, cols: a.tab.Cols})
			} else {
				h.message = "spatial scenes need the software canvas"
			}
		} else {
			drawScene(c, &frame{rs: a.rs, vals: a.vals, v: a.v, maxFN: a.maxFN, axes: a.axes, cols: a.tab.Cols})
		}
		h.lines = channelLines(a.tab, a.chans, a.vals)
	}
	drawHUD(c, h)
}

// key handles a key press; names are "space", "plus", "minus", "left",
// "right", "shift+left", "shift+right", "home", "end", "f", "a", "q",
// "escape".
func (a *app) key(k string) {
	t0, t1 := a.timeRange()
	step := (t1 - t0) / 100
	switch k {
	case "space":
		if !a.playing && a.t >= t1 && a.live == nil {
			a.t = t0
		}
		a.playing = !a.playing
		a.follow = false
	case "plus":
		a.speed = math.Min(a.speed*2, 1024)
	case "minus":
		a.speed = math.Max(a.speed/2, 1.0/1024)
	case "left":
		a.follow, a.t = false, math.Max(a.t-step, t0)
	case "right":
		a.t = math.Min(a.t+step, t1)
	case "shift+left":
		a.follow, a.t = false, a.rowTime(-1)
	case "shift+right":
		a.t = a.rowTime(+1)
	case "home":
		a.follow, a.t = false, t0
	case "end":
		a.t = t1
		a.follow = a.live != nil
	case "f":
		a.fitted = false
		a.fit()
	case "a":
		a.axes = !a.axes
	case "q", "escape":
		a.quit = true
	case "1", "2", "3", "0":
		if a.is3D() {
			a.presetView(k)
		}
	case "p":
		if a.is3D() {
			a.cam.Ortho = !a.cam.Ortho
		}
	}
}

// presetView turns the camera to the front (1), side (2: from +x), top (3)
// or 3/4 view (0), keeping its target and distance.
func (a *app) presetView(k string) {
	front := frontAzimuth(a.cam.Up)
	switch k {
	case "1":
		a.cam.Azimuth, a.cam.Elevation = front, 0
	case "2":
		a.cam.Azimuth, a.cam.Elevation = front+math.Pi/2, 0
	case "3":
		a.cam.Azimuth, a.cam.Elevation = front, maxElevation
	default:
		a.cam.Azimuth, a.cam.Elevation = front+isoAzimuth, isoElevation
	}
}

// rowTime returns the time of the row before (dir < 0) or after the current time.
func (a *app) rowTime(dir int) float64 {
	if a.tab == nil || a.tab.Len() == 0 {
		return a.t
	}
	tc := a.tab.Data[0]
	if dir < 0 {
		k := sort.Search(len(tc), func(i int) bool { return tc[i] >= a.t })
		return tc[max(k-1, 0)]
	}
	k := sort.Search(len(tc), func(i int) bool { return tc[i] > a.t })
	return tc[min(k, len(tc)-1)]
}

// onTimeBar reports whether screen row y is on the time bar.
func (a *app) onTimeBar(y int) bool { return y >= a.h-barHeight }

// scrubTo sets the time from a screen x on the time bar.
func (a *app) scrubTo(x int) {
	t0, t1 := a.timeRange()
	f := math.Min(math.Max(float64(x)/float64(max(a.w, 1)), 0), 1)
	a.t, a.follow = t0+f*(t1-t0), false
}

// mouseDown starts a drag: scrubbing on the time bar, elsewhere panning
// (planar) or, in a spatial scene, orbiting, or panning when pan is set
// (right or middle button, or shift held).
func (a *app) mouseDown(x, y int, pan bool) {
	a.lastX, a.lastY = x, y
	switch {
	case a.onTimeBar(y):
		a.dragging = dragBar
		a.scrubTo(x)
	case a.is3D() && !pan:
		a.dragging = dragOrbit
	default:
		a.dragging = dragPan
	}
}

func (a *app) mouseMove(x, y int) {
	dx, dy := float64(x-a.lastX), float64(y-a.lastY)
	switch {
	case a.dragging == dragPan && a.is3D():
		// The target moves against the drag, so the scene follows the
		// pointer at the target's depth.
		p := a.cam.project(a.w, a.h)
		s := p.pixelsPerMetre(a.cam.Target)
		a.cam.Target = sub3(a.cam.Target, add3(scale3(p.right, dx/s), scale3(p.up, -dy/s)))
		a.fitted = true
	case a.dragging == dragPan:
		a.v.OX += dx
		a.v.OY += dy
		a.fitted = true
	case a.dragging == dragOrbit:
		a.cam.Azimuth -= dx * orbitPerPx
		a.cam.Elevation = math.Max(-maxElevation, math.Min(maxElevation, a.cam.Elevation+dy*orbitPerPx))
	case a.dragging == dragBar:
		a.scrubTo(x)
	}
	a.lastX, a.lastY = x, y
}

func (a *app) mouseUp() { a.dragging = dragNone }

// wheel zooms by 1.2^dy: about the screen point (x, y), which stays put,
// in a planar scene; towards the camera target in a spatial one.
func (a *app) wheel(dy float64, x, y int) {
	if a.is3D() {
		a.cam.Dist /= math.Pow(1.2, dy)
		a.fitted = true
		return
	}
	p := a.v.toWorld(vec{float64(x), float64(y)})
	a.v.S *= math.Pow(1.2, dy)
	q := a.v.toScreen(p)
	a.v.OX += float64(x) - q.X
	a.v.OY += float64(y) - q.Y
	a.fitted = true
}

// resize adapts to a new canvas size, keeping the world centre in the middle.
func (a *app) resize(w, h int) {
	if w == a.w && h == a.h {
		return
	}
	c := a.v.toWorld(vec{float64(a.w) / 2, float64(a.h-barHeight) / 2})
	a.w, a.h = w, h
	a.v.OX, a.v.OY, a.v.CX, a.v.CY = float64(w)/2, float64(h-barHeight)/2, c[0], c[1]
}
