//go:build viewer

package main

import (
	"bytes"
	"testing"
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
	if err := w.events(); err != nil {
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
