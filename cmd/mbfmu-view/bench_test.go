package main

import (
	"path/filepath"
	"testing"
)

// benchRender renders one frame of a demo per iteration at the window's
// default size (1024×720), advancing the time so that every frame differs.
func benchRender(b *testing.B, name string) {
	tab, err := readTable(filepath.Join("testdata", name+".csv"))
	if err != nil {
		b.Fatal(err)
	}
	sc, err := readScene(filepath.Join("testdata", name+".json"))
	if err != nil {
		b.Fatal(err)
	}
	a := newApp(sc, nil, 1024, 720)
	a.interactive, a.axes = true, true
	if err := a.setTable(tab); err != nil {
		b.Fatal(err)
	}
	c := newRGBACanvas(1024, 720)
	_, t1 := a.timeRange()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.t = t1 * float64(i%100) / 100
		a.render(c)
	}
}

// BenchmarkRenderPlanar: the slider-crank demo.
func BenchmarkRenderPlanar(b *testing.B) { benchRender(b, "slider_crank") }

// BenchmarkRenderSpatial: the spinning-top demo (1336 triangles).
func BenchmarkRenderSpatial(b *testing.B) { benchRender(b, "spinning_top") }
