package main

import (
	"math"
)

// vert is a projected vertex: screen position (pixels), depth key (larger
// is nearer; linear in screen space) and colour (0..255 per channel).
type vert struct {
	X, Y, Z float64
	R, G, B float64
}

// clearDepth resets the canvas's depth buffer (allocating it at the
// canvas size) so that every pixel is infinitely far.
func (c *rgbaCanvas) clearDepth() {
	w, h := c.Size()
	if len(c.depth) != w*h {
		c.depth = make([]float32, w*h)
	}
	far := float32(math.Inf(-1))
	for i := range c.depth {
		c.depth[i] = far
	}
}

// fillTriangleZ fills the triangle abd where it is nearer than what the
// depth buffer holds, interpolating depth and colour linearly in screen
// space (Gouraud). As in FillPolygon, a pixel is covered when its centre
// is inside. Call clearDepth first.
func (c *rgbaCanvas) fillTriangleZ(a, b, d vert) {
	w, h := c.Size()
	area := (b.X-a.X)*(d.Y-a.Y) - (b.Y-a.Y)*(d.X-a.X)
	if !(math.Abs(area) > 1e-12) || !finite(area) {
		return
	}
	x0, x1 := pixelRange(math.Min(a.X, math.Min(b.X, d.X)), math.Max(a.X, math.Max(b.X, d.X)))
	y0, y1 := pixelRange(math.Min(a.Y, math.Min(b.Y, d.Y)), math.Max(a.Y, math.Max(b.Y, d.Y)))
	x0, x1, y0, y1 = max(x0, 0), min(x1+1, w), max(y0, 0), min(y1+1, h)
	if x0 >= x1 || y0 >= y1 {
		return
	}
	inv := 1 / area
	// Barycentric weights of a and b at pixel centre (x, y) are affine:
	// wa = (ea0 + eax·x + eay·y)·inv, likewise wb; wd = 1 − wa − wb.
	eax, eay := (b.Y-d.Y)*inv, (d.X-b.X)*inv
	ea0 := ((b.X*d.Y - d.X*b.Y) * inv)
	ebx, eby := (d.Y-a.Y)*inv, (a.X-d.X)*inv
	eb0 := ((d.X*a.Y - a.X*d.Y) * inv)
	const eps = -1e-9
	for j := y0; j < y1; j++ {
		y := float64(j) + 0.5
		row := c.img.Pix[j*c.img.Stride:]
		drow := c.depth[j*w:]
		for i := x0; i < x1; i++ {
			x := float64(i) + 0.5
			wa := ea0 + eax*x + eay*y
			wb := eb0 + ebx*x + eby*y
			wd := 1 - wa - wb
			if wa < eps || wb < eps || wd < eps {
				continue
			}
			z := wa*a.Z + wb*b.Z + wd*d.Z
			if float32(z) <= drow[i] {
				continue
			}
			drow[i] = float32(z)
			p := row[4*i : 4*i+4]
			p[0] = channel(wa*a.R + wb*b.R + wd*d.R)
			p[1] = channel(wa*a.G + wb*b.G + wd*d.G)
			p[2] = channel(wa*a.B + wb*b.B + wd*d.B)
			p[3] = 255
		}
	}
}

// channel rounds a colour channel to 0..255.
func channel(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
