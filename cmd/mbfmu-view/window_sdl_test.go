//go:build viewer

package main

import (
	"bytes"
	"testing"
	"time"
)

// TestSDLWindowHeadless opens the real SDL window with the dummy video
// driver and the software renderer, runs a few frames with input, and
// checks that the renderer shows exactly the software canvas's picture.
func TestSDLWindowHeadless(t *testing.T) {
	t.Setenv("SDL_VIDEODRIVER", "dummy")
	a := newApp(twoBodyScene(), []string{"a.x"}, 320, 240)
	if err := a.setTable(twoBodyTable()); err != nil {
		t.Fatal(err)
	}
	a.interactive = true
	w, err := newSDLWindow(a, "test", true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	for i := 0; i < 3; i++ {
		if err := w.frame(); err != nil {
			t.Fatal(err)
		}
	}
	a.key("end")
	if _, err := w.events(); err != nil {
		t.Fatal(err)
	}
	if err := w.draw(); err != nil {
		t.Fatal(err)
	}
	got, err := w.readPixels()
	if err != nil {
		t.Fatal(err)
	}
	want := newRGBACanvas(w.canvas.Size())
	a.render(want)
	if !bytes.Equal(got.Pix, want.img.Pix) {
		t.Fatal("the SDL renderer's pixels differ from the software canvas")
	}
	w.ren.Present()
}

// TestSDLWindowPlaybackClock runs frames of the real window (dummy driver)
// for 0.3 s of wall time and checks that playback advanced by the wall
// time elapsed times the speed. The bounds are exact: the advance is the
// wall time between the window's first clock reading (taken while it
// opens) and the last frame's, measured here from outside.
func TestSDLWindowPlaybackClock(t *testing.T) {
	t.Setenv("SDL_VIDEODRIVER", "dummy")
	a := newApp(twoBodyScene(), nil, 160, 120)
	if err := a.setTable(twoBodyTable()); err != nil {
		t.Fatal(err)
	}
	a.playing, a.speed = true, 2
	before := time.Now()
	w, err := newSDLWindow(a, "test", true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	after := time.Now()
	var lastStart, lastEnd time.Time
	for time.Since(after) < 300*time.Millisecond {
		lastStart = time.Now()
		if err := w.frame(); err != nil {
			t.Fatal(err)
		}
		lastEnd = time.Now()
		time.Sleep(5 * time.Millisecond)
	}
	lo, hi := 2*lastStart.Sub(after).Seconds(), 2*lastEnd.Sub(before).Seconds()
	if a.t < lo || a.t > hi {
		t.Fatalf("after %.3f s of frames at speed 2, t = %.4f s, want %.4f..%.4f", lastEnd.Sub(before).Seconds(), a.t, lo, hi)
	}
	if a.frames < 10 {
		t.Errorf("%d frames drawn", a.frames)
	}
}
