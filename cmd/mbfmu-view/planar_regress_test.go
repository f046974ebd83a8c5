package main

import (
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
)

// TestPlanarUnchanged renders the slider-crank demo (bodies, pins, slot,
// spring with its force, marker, contact arrow, body axes, read-outs, help
// line, time bar) at three instants and compares the pixels with those
// the viewer drew before 3D scenes were added (SHA-256 of the RGBA
// pixels, recorded from commit 49cc9dd): planar scenes must render exactly
// as before. If a deliberate change to planar drawing breaks this, check
// the new pictures by eye and record their hashes.
func TestPlanarUnchanged(t *testing.T) {
	tab, err := readTable(filepath.Join("testdata", "slider_crank.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := readScene(filepath.Join("testdata", "slider_crank.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at          float64
		interactive bool
		want        string
	}{
		{0, false, "31d6008d4572922f953154c8a9921ce91967bdeddb5bd30cfd66ae5f31a98456"},
		{0.37, false, "184b32e57433525f2350b9f8669b5e44a8e1102c0eb6fc8982b6162ad4ba02e3"},
		{1.25, false, "e9a4944aedb6ea982f4b276abdc06c4334c9eaca9dc98ef53b0420ee85e95547"},
		{0.37, true, "f3f6954fc47b5da0037068ee727c2e8e269f2a99a48a3ce8eb542231a439ab7b"},
	} {
		a := newApp(sc, []string{"crank.phi", "spring.F"}, 640, 480)
		a.axes, a.interactive = true, c.interactive
		if err := a.setTable(tab); err != nil {
			t.Fatal(err)
		}
		a.t = c.at
		a.advance(0)
		cv := newRGBACanvas(640, 480)
		a.render(cv)
		if got := fmt.Sprintf("%x", sha256.Sum256(cv.img.Pix)); got != c.want {
			t.Errorf("t = %g (interactive %v): pixels hash %s, want %s", c.at, c.interactive, got, c.want)
		}
	}
}
