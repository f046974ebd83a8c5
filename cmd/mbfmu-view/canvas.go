package main

import (
	"image"
	"image/color"
	"math"
	"sort"
)

// vec is a point in screen pixels (x right, y down).
type vec struct{ X, Y float64 }

// Canvas is the small set of drawing primitives the scene renderer needs.
// Coordinates are screen pixels; a pixel (i, j) is covered when its centre
// (i+0.5, j+0.5) is inside the shape. All shapes are opaque.
type Canvas interface {
	// Size returns the canvas size in pixels.
	Size() (w, h int)
	// Clear fills the whole canvas.
	Clear(c color.RGBA)
	// FillRect fills the pixels x0 <= i < x1, y0 <= j < y1.
	FillRect(x0, y0, x1, y1 int, c color.RGBA)
	// FillPolygon fills a polygon (even-odd rule).
	FillPolygon(pts []vec, c color.RGBA)
	// FillCircle fills a disc.
	FillCircle(center vec, r float64, c color.RGBA)
	// Line draws a segment of the given width (pixels) with square ends.
	Line(a, b vec, width float64, c color.RGBA)
}

// rgbaCanvas is the pure-Go software rasteriser behind both the screenshot
// and the SDL window (which only uploads its pixels), so both show the
// same picture.
type rgbaCanvas struct {
	img   *image.RGBA
	xs    []float64 // scanline intersections, reused
	quad  [4]vec
	depth []float32 // depth keys of spatial scenes (raster3d.go), larger is nearer
}

func newRGBACanvas(w, h int) *rgbaCanvas {
	return &rgbaCanvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
}

func (c *rgbaCanvas) Size() (int, int) { return c.img.Rect.Dx(), c.img.Rect.Dy() }

func (c *rgbaCanvas) Clear(col color.RGBA) {
	w, h := c.Size()
	c.FillRect(0, 0, w, h, col)
}

// span fills row y from x0 to x1-1 (clipped).
func (c *rgbaCanvas) span(y, x0, x1 int, col color.RGBA) {
	w, h := c.Size()
	if y < 0 || y >= h {
		return
	}
	x0, x1 = max(x0, 0), min(x1, w)
	if x0 >= x1 {
		return
	}
	p := c.img.Pix[y*c.img.Stride+4*x0 : y*c.img.Stride+4*x1]
	for i := 0; i < len(p); i += 4 {
		p[i], p[i+1], p[i+2], p[i+3] = col.R, col.G, col.B, col.A
	}
}

func (c *rgbaCanvas) FillRect(x0, y0, x1, y1 int, col color.RGBA) {
	_, h := c.Size()
	for y := max(y0, 0); y < min(y1, h); y++ {
		c.span(y, x0, x1, col)
	}
}

// pixelRange returns the half-open range [i0, i1) of pixel indices whose
// centres c satisfy lo <= c < hi, so shapes that share an edge do not
// overlap.
func pixelRange(lo, hi float64) (int, int) {
	const big = 1 << 30 // keeps far-off coordinates inside int range
	lo, hi = math.Max(math.Min(lo, big), -big), math.Max(math.Min(hi, big), -big)
	return int(math.Ceil(lo - 0.5)), int(math.Ceil(hi - 0.5))
}

func (c *rgbaCanvas) FillPolygon(pts []vec, col color.RGBA) {
	if len(pts) < 3 {
		return
	}
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		if !finite(p.X) || !finite(p.Y) {
			return
		}
		ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
	}
	_, h := c.Size()
	j0, j1 := pixelRange(ymin, ymax)
	j0, j1 = max(j0, 0), min(j1, h)
	for j := j0; j < j1; j++ {
		y := float64(j) + 0.5
		xs := c.xs[:0]
		for i := range pts {
			a, b := pts[i], pts[(i+1)%len(pts)]
			if (a.Y <= y) == (b.Y <= y) {
				continue
			}
			xs = append(xs, a.X+(y-a.Y)*(b.X-a.X)/(b.Y-a.Y))
		}
		sort.Float64s(xs)
		for k := 0; k+1 < len(xs); k += 2 {
			i0, i1 := pixelRange(xs[k], xs[k+1])
			c.span(j, i0, i1, col)
		}
		c.xs = xs
	}
}

func (c *rgbaCanvas) FillCircle(o vec, r float64, col color.RGBA) {
	if !finite(o.X) || !finite(o.Y) || !(r > 0) {
		return
	}
	_, h := c.Size()
	j0, j1 := pixelRange(o.Y-r, o.Y+r)
	for j := max(j0, 0); j < min(j1, h); j++ {
		dy := float64(j) + 0.5 - o.Y
		hw := math.Sqrt(math.Max(r*r-dy*dy, 0))
		i0, i1 := pixelRange(o.X-hw, o.X+hw)
		c.span(j, i0, i1, col)
	}
}

func (c *rgbaCanvas) Line(a, b vec, width float64, col color.RGBA) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	hw := math.Max(width, 1) / 2
	if !(l > 1e-9) {
		c.FillRect(int(math.Round(a.X-hw)), int(math.Round(a.Y-hw)), int(math.Round(a.X+hw)), int(math.Round(a.Y+hw)), col)
		return
	}
	// Unit direction u and normal n, extended by half a width at both ends.
	ux, uy := dx/l*hw, dy/l*hw
	nx, ny := -uy, ux
	c.quad = [4]vec{
		{a.X - ux + nx, a.Y - uy + ny}, {b.X + ux + nx, b.Y + uy + ny},
		{b.X + ux - nx, b.Y + uy - ny}, {a.X - ux - nx, a.Y - uy - ny},
	}
	c.FillPolygon(c.quad[:], col)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
