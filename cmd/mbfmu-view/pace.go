package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// Frame pacing of the interactive window. Playback advances by the wall
// time measured with Go's monotonic clock: the SDL that go-sdl2 bundles
// (2.0.12) has no SDL_GetTicks64, and go-sdl2 then returns 0 from
// sdl.GetTicks64, which once froze playback at t = 0. Nor is a present
// with vsync relied on to block (without a compositor, e.g. on Xvfb or a
// VNC desktop, it returns at once): the loop sleeps to its own frame
// deadline while something moves and waits for input when nothing does.
const (
	// frameInterval caps the frame rate while playing or following a live feed.
	frameInterval = time.Second / 60
	// idleWait is how long the window waits for input when nothing moves
	// (it also bounds how stale a --status file gets); idlePoll is how
	// often it looks for input meanwhile.
	idleWait = 100 * time.Millisecond
	idlePoll = 10 * time.Millisecond
	// maxFrameGap bounds the playback step of one frame, so a stalled
	// window (dragged, stopped in a debugger) does not jump ahead.
	maxFrameGap = 0.5
	// statusPeriod is how often a --status file is rewritten.
	statusPeriod = 100 * time.Millisecond
)

// frameClock measures the wall time between frames.
type frameClock struct {
	last time.Time
}

// step returns the wall seconds since the previous step (0 on the first),
// at most maxFrameGap.
func (c *frameClock) step(now time.Time) float64 {
	if c.last.IsZero() {
		c.last = now
		return 0
	}
	dt := now.Sub(c.last).Seconds()
	c.last = now
	if dt < 0 {
		return 0
	}
	return min(dt, maxFrameGap)
}

// animating reports whether the picture changes without input: playback
// or a live feed.
func (a *app) animating() bool {
	return a.playing || a.live != nil
}

// viewerStatus is what --status writes: one JSON object on one line.
type viewerStatus struct {
	T      float64 `json:"t"`      // current time (s)
	T0     float64 `json:"t0"`     // first time of the data (s)
	T1     float64 `json:"t1"`     // last time of the data (s)
	State  string  `json:"state"`  // playing, paused, live, or quit (written on exit)
	Speed  float64 `json:"speed"`  // simulated seconds per wall second
	Frames int     `json:"frames"` // frames drawn so far
	Wall   float64 `json:"wall"`   // wall seconds from the window opening to the instant t was taken
	W      int     `json:"w"`      // canvas size (pixels)
	H      int     `json:"h"`
	// Camera of a spatial scene.
	Camera *cameraStatus `json:"camera,omitempty"`
}

// cameraStatus is the orbit camera in a --status file: azimuth and
// elevation (rad), distance (m), target (m) and projection.
type cameraStatus struct {
	Azimuth   float64 `json:"azimuth"`
	Elevation float64 `json:"elevation"`
	Distance  float64 `json:"distance"`
	Target    v3      `json:"target"`
	Ortho     bool    `json:"ortho"`
}

// status returns the app's current state for --status.
func (a *app) status() viewerStatus {
	t0, t1 := a.timeRange()
	s := viewerStatus{T: a.t, T0: t0, T1: t1, Speed: a.speed, Frames: a.frames, W: a.w, H: a.h}
	if !a.opened.IsZero() && !a.tick.IsZero() {
		s.Wall = a.tick.Sub(a.opened).Seconds()
	}
	if a.is3D() {
		s.Camera = &cameraStatus{Azimuth: a.cam.Azimuth, Elevation: a.cam.Elevation, Distance: a.cam.Dist,
			Target: a.cam.Target, Ortho: a.cam.Ortho}
	}
	switch {
	case a.quit:
		s.State = "quit"
	case a.live != nil && a.follow:
		s.State = "live"
	case a.playing:
		s.State = "playing"
	default:
		s.State = "paused"
	}
	return s
}

// statusFile rewrites a --status file every statusPeriod and on exit. The
// file is replaced atomically (written beside it, then renamed), so a
// reader never sees half a line.
type statusFile struct {
	path string
	next time.Time
}

// write writes s now if force or if statusPeriod has passed since the last write.
func (f *statusFile) write(s viewerStatus, now time.Time, force bool) error {
	if f == nil || f.path == "" || (!force && now.Before(f.next)) {
		return nil
	}
	f.next = now.Add(statusPeriod)
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(f.path); err == nil && !fi.Mode().IsRegular() {
		// a device or a pipe (/dev/stdout): written directly, never replaced
		w, err := os.OpenFile(f.path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return errors.Join(err, w.Close())
	}
	// a regular file: replaced whole, without an fsync (it is rewritten
	// every statusPeriod and only read while the viewer runs)
	tmp := filepath.Join(filepath.Dir(f.path), "."+filepath.Base(f.path)+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, f.path)
}
