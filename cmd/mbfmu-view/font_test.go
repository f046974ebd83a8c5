package main

import (
	"image/color"
	"testing"
)

func TestFont(t *testing.T) {
	seen := map[[7]uint8]rune{}
	for r := rune(firstGlyph); r < firstGlyph+rune(len(font5x7)); r++ {
		g := glyph(r)
		for _, row := range g {
			if row >= 1<<glyphW {
				t.Errorf("%q: row %#x wider than %d pixels", r, row, glyphW)
			}
		}
		if r == ' ' {
			if g != ([7]uint8{}) {
				t.Error("space is not blank")
			}
			continue
		}
		if g == ([7]uint8{}) {
			t.Errorf("%q is blank", r)
		}
		if o, dup := seen[g]; dup {
			t.Errorf("%q and %q have the same glyph", r, o)
		}
		seen[g] = r
	}
	if glyph('é') != glyph('?') || glyph(0) != glyph('?') {
		t.Error("characters outside the font do not fall back to '?'")
	}
	if textWidth("", 2) != 0 || textWidth("ab", 1) != 11 || textWidth("ab", 3) != 33 {
		t.Error("textWidth")
	}
}

func TestDrawText(t *testing.T) {
	// "I" has 3+1+1+1+1+1+3 = 11 pixels set; at scale 2 that is 44 canvas pixels.
	c := newRGBACanvas(40, 20)
	ink := color.RGBA{1, 2, 3, 255}
	end := drawText(c, 2, 1, "I", 2, ink)
	n := 0
	for i := 0; i < len(c.img.Pix); i += 4 {
		if c.img.Pix[i] == 1 && c.img.Pix[i+1] == 2 {
			n++
		}
	}
	if n != 44 || end != 2+12 {
		t.Errorf("%d pixels, end %d; want 44 and 14", n, end)
	}
	// The top row of "I" (.###.) at scale 2 starts 2 px right of x.
	if pixel(c, 2+2, 1) != ink || pixel(c, 2+1, 1) == ink {
		t.Error("glyph placed wrongly")
	}
}
