package main

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"mbfmu/results"
)

// Colours. Body fills come from bodyPalette; every other element uses a
// colour outside that palette, so a body is recognisable by its fill.
var (
	colBackground = color.RGBA{250, 250, 247, 255}
	colGrid       = color.RGBA{232, 232, 228, 255}
	colText       = color.RGBA{20, 20, 20, 255}
	colMarker     = color.RGBA{35, 35, 35, 255}
	colPinRing    = color.RGBA{40, 40, 40, 255}
	colPinHole    = color.RGBA{255, 255, 255, 255}
	colSlot       = color.RGBA{150, 150, 150, 255}
	colSpring     = color.RGBA{150, 75, 15, 255}
	colBeam       = color.RGBA{25, 55, 130, 255}
	colContact    = color.RGBA{210, 0, 0, 255}
	colBarBg      = color.RGBA{215, 215, 215, 255}
	colBarFill    = color.RGBA{160, 160, 160, 255}
	colBarCursor  = color.RGBA{200, 40, 40, 255}
	colAxisX      = color.RGBA{230, 40, 40, 255}
	colAxisY      = color.RGBA{40, 170, 40, 255}
)

// bodyPalette holds the fill colours of bodies, used in order.
var bodyPalette = [...]color.RGBA{
	{70, 130, 200, 255}, {225, 125, 60, 255}, {95, 175, 95, 255}, {180, 95, 175, 255},
	{205, 175, 55, 255}, {65, 175, 175, 255}, {200, 85, 95, 255}, {135, 115, 205, 255},
}

// bodyColor returns the fill colour of body i.
func bodyColor(i int) color.RGBA { return bodyPalette[i%len(bodyPalette)] }

// darker returns c scaled towards black, for outlines.
func darker(c color.RGBA) color.RGBA {
	return color.RGBA{uint8(int(c.R) * 3 / 5), uint8(int(c.G) * 3 / 5), uint8(int(c.B) * 3 / 5), 255}
}

// view maps world coordinates (m, y up) to screen pixels (y down):
// screen = (OX + (x-CX)·S, OY − (y-CY)·S).
type view struct {
	OX, OY float64 // screen point of the world centre
	CX, CY float64 // world centre
	S      float64 // pixels per metre
}

func (v view) toScreen(p [2]float64) vec {
	return vec{v.OX + (p[0]-v.CX)*v.S, v.OY - (p[1]-v.CY)*v.S}
}

func (v view) toWorld(s vec) [2]float64 {
	return [2]float64{v.CX + (s.X-v.OX)/v.S, v.CY - (s.Y-v.OY)/v.S}
}

// Screen layout.
const (
	barHeight = 18 // time bar at the bottom
	margin    = 16
	textScale = 2
)

// fitView returns the view that shows bounds {xmin, ymin, xmax, ymax} in a
// w×h canvas above the time bar, with a margin.
func fitView(b [4]float64, w, h int) view {
	aw := math.Max(float64(w-2*margin), 1)
	ah := math.Max(float64(h-barHeight-2*margin), 1)
	dx, dy := b[2]-b[0], b[3]-b[1]
	if !(dx > 0) {
		dx = 1
	}
	if !(dy > 0) {
		dy = 1
	}
	return view{
		OX: float64(w) / 2, OY: float64(h-barHeight) / 2,
		CX: (b[0] + b[2]) / 2, CY: (b[1] + b[3]) / 2,
		S: math.Min(aw/dx, ah/dy),
	}
}

// frame is everything drawn for one instant.
type frame struct {
	rs   *results.ResolvedScene
	vals []float64 // one interpolated row
	v    view
	// maxFN[i] scales the force arrow of contact i (largest |FN| in the run).
	maxFN []float64
	axes  bool
	cols  []results.Column // names and units of vals
}

// drawScene draws the mechanism of f onto c (without clearing it).
func drawScene(c Canvas, f *frame) {
	rs, vals, v := f.rs, f.vals, f.v
	sc := rs.Scene
	pt := func(b int, p [2]float64) vec { return v.toScreen(rs.World(vals, b, p)) }
	var poly []vec
	// Beams under everything else.
	for _, b := range rs.Beams {
		poly = poly[:0]
		for i := range b.X {
			poly = append(poly, v.toScreen([2]float64{results.Value(vals, b.X[i]), results.Value(vals, b.Y[i])}))
		}
		for i := 0; i+1 < len(poly); i++ {
			c.Line(poly[i], poly[i+1], 4, colBeam)
		}
		for _, p := range poly {
			c.FillCircle(p, 3.5, colBeam)
		}
	}
	// Bodies.
	for bi, b := range sc.Bodies {
		fill := bodyColor(bi)
		edge := darker(fill)
		drawn := false
		if b.Radius > 0 {
			o := pt(bi, [2]float64{})
			c.FillCircle(o, b.Radius*v.S, edge)
			c.FillCircle(o, b.Radius*v.S-1.5, fill)
			drawn = true
		}
		shape := b.Outline
		if len(shape) < 3 && !drawn {
			shape = markerHull(rs.Bodies[bi].Markers)
		}
		if len(shape) >= 3 {
			poly = poly[:0]
			for _, p := range shape {
				poly = append(poly, pt(bi, p))
			}
			c.FillPolygon(poly, fill)
			for i := range poly {
				c.Line(poly[i], poly[(i+1)%len(poly)], 1.5, edge)
			}
			drawn = true
		} else if len(shape) == 2 && !drawn {
			c.Line(pt(bi, shape[0]), pt(bi, shape[1]), 8, fill)
			drawn = true
		}
		if !drawn {
			o := pt(bi, [2]float64{})
			c.FillRect(int(o.X)-5, int(o.Y)-5, int(o.X)+5, int(o.Y)+5, fill)
		}
		if f.axes {
			o := pt(bi, [2]float64{})
			_, _, a := rs.Pose(vals, bi)
			s, co := math.Sincos(a)
			c.Line(o, vec{o.X + 20*co, o.Y - 20*s}, 2, colAxisX)
			c.Line(o, vec{o.X - 20*s, o.Y - 20*co}, 2, colAxisY)
		}
	}
	// Links.
	for li, l := range sc.Links {
		rl := rs.Links[li]
		a, b := pt(rl.A, xy(rl.PA)), pt(rl.B, xy(rl.PB))
		switch l.Kind {
		case results.LinkSpring:
			drawZigZag(c, a, b, colSpring)
		case results.LinkRSpring:
			drawCoil(c, a, colSpring)
		case results.LinkTranslational:
			c.Line(a, b, 7, colSlot)
			c.Line(a, b, 2, colPinRing)
			c.FillRect(int(a.X)-4, int(a.Y)-4, int(a.X)+4, int(a.Y)+4, colPinRing)
		case results.LinkFixed:
			c.FillRect(int(a.X)-4, int(a.Y)-4, int(a.X)+4, int(a.Y)+4, colPinRing)
		default: // revolute
			drawPin(c, a)
			if math.Hypot(a.X-b.X, a.Y-b.Y) > 2 {
				drawPin(c, b)
			}
		}
		if rl.Force >= 0 {
			m := vec{(a.X + b.X) / 2, (a.Y + b.Y) / 2}
			unit := ""
			if rl.Force < len(f.cols) {
				unit = f.cols[rl.Force].Unit
			}
			drawText(c, int(m.X)+8, int(m.Y)-18, fmtValue(l.Force, vals[rl.Force], unit), 1, colText)
		}
	}
	// Markers on top of bodies and links.
	for bi, b := range rs.Bodies {
		for _, m := range b.Markers {
			c.FillCircle(pt(bi, xy(m.P)), 3, colMarker)
		}
	}
	// Contacts with normal force arrows.
	for ci, rc := range rs.Contacts {
		p := v.toScreen([2]float64{results.Value(vals, rc.PX), results.Value(vals, rc.PY)})
		c.FillCircle(p, 4, colContact)
		if rc.FN < 0 {
			continue
		}
		fn := vals[rc.FN]
		nx, ny := 0.0, 1.0
		if rc.NX >= 0 && rc.NY >= 0 {
			nx, ny = vals[rc.NX], vals[rc.NY]
			if n := math.Hypot(nx, ny); n > 0 {
				nx, ny = nx/n, ny/n
			}
		}
		scale := 1.0
		if ci < len(f.maxFN) && f.maxFN[ci] > 0 {
			scale = 60 / f.maxFN[ci]
		}
		l := fn * scale
		if math.Abs(l) >= 2 {
			drawArrow(c, p, vec{p.X + nx*l, p.Y - ny*l}, colContact)
		}
	}
}

// drawPin draws a revolute joint: a ring with a white hole.
func drawPin(c Canvas, p vec) {
	c.FillCircle(p, 5.5, colPinRing)
	c.FillCircle(p, 3, colPinHole)
}

// drawZigZag draws a spring from a to b: straight ends and 6 zig-zags.
func drawZigZag(c Canvas, a, b vec, col color.RGBA) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l < 1 {
		c.FillCircle(a, 3, col)
		return
	}
	ux, uy := dx/l, dy/l
	nx, ny := -uy, ux
	const n = 12
	amp := math.Min(7, 0.15*l+2)
	prev := a
	for i := 0; i <= n; i++ {
		s := 0.15 + 0.7*float64(i)/n
		off := 0.0
		if i > 0 && i < n {
			off = amp * float64(1-2*(i%2))
		}
		p := vec{a.X + ux*s*l + nx*off, a.Y + uy*s*l + ny*off}
		c.Line(prev, p, 2, col)
		prev = p
	}
	c.Line(prev, b, 2, col)
}

// drawCoil draws a rotational spring: a two-turn spiral around p.
func drawCoil(c Canvas, p vec, col color.RGBA) {
	prev := vec{p.X + 3, p.Y}
	for i := 1; i <= 48; i++ {
		th := float64(i) / 48 * 4 * math.Pi
		r := 3 + 9*float64(i)/48
		q := vec{p.X + r*math.Cos(th), p.Y - r*math.Sin(th)}
		c.Line(prev, q, 1.5, col)
		prev = q
	}
}

// drawArrow draws a line from a to b with a triangular head at b.
func drawArrow(c Canvas, a, b vec, col color.RGBA) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	ux, uy := dx/l, dy/l
	h := math.Min(10, l/2)
	base := vec{b.X - ux*h, b.Y - uy*h}
	c.Line(a, base, 2.5, col)
	c.FillPolygon([]vec{b, {base.X - uy*h/2, base.Y + ux*h/2}, {base.X + uy*h/2, base.Y - ux*h/2}}, col)
}

// markerHull returns the convex hull of a body's markers (monotone chain),
// counter-clockwise; it has fewer than 3 points for degenerate input.
func markerHull(ms []results.Frame) [][2]float64 {
	if len(ms) == 0 {
		return nil
	}
	pts := make([][2]float64, len(ms))
	for i, m := range ms {
		pts[i] = xy(m.P)
	}
	// Insertion sort by x, then y.
	for i := 1; i < len(pts); i++ {
		for j := i; j > 0 && (pts[j][0] < pts[j-1][0] || pts[j][0] == pts[j-1][0] && pts[j][1] < pts[j-1][1]); j-- {
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	var hull [][2]float64
	for pass := 0; pass < 2; pass++ {
		start := len(hull)
		for k := range pts {
			p := pts[k]
			if pass == 1 {
				p = pts[len(pts)-1-k]
			}
			for len(hull) >= start+2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
				hull = hull[:len(hull)-1]
			}
			hull = append(hull, p)
		}
		hull = hull[:len(hull)-1]
	}
	if len(hull) == 0 {
		hull = pts[:1]
	}
	return hull
}

// fmtValue formats "name = value unit" for the on-screen read-outs.
func fmtValue(name string, v float64, unit string) string {
	s := name + " = " + strings.TrimSpace(fmt.Sprintf("% .5g", v))
	if unit != "" {
		s += " " + unit
	}
	return s
}

// hud is the text and time bar drawn over the scene.
type hud struct {
	t, t0, t1 float64
	status    string   // e.g. "playing x1"
	lines     []string // channel read-outs
	help      string
	message   string // error or notice, drawn in red
}

// drawHUD draws the read-outs at the top left and the time bar at the bottom.
func drawHUD(c Canvas, h *hud) {
	w, ht := c.Size()
	x, y := margin/2, margin/2
	lh := lineHeight(textScale)
	drawText(c, x, y, fmt.Sprintf("t = %.4f s  %s", h.t, h.status), textScale, colText)
	y += lh
	for _, l := range h.lines {
		drawText(c, x, y, l, textScale, colText)
		y += lh
	}
	if h.message != "" {
		drawText(c, x, y, h.message, textScale, colContact)
	}
	if h.help != "" {
		drawText(c, x, ht-barHeight-lineHeight(1)-2, h.help, 1, colText)
	}
	// Time bar.
	by := ht - barHeight
	c.FillRect(0, by, w, ht, colBarBg)
	if h.t1 > h.t0 {
		fx := int(math.Round(float64(w) * math.Min(math.Max((h.t-h.t0)/(h.t1-h.t0), 0), 1)))
		c.FillRect(0, by+4, fx, ht-4, colBarFill)
		c.FillRect(fx-1, by, fx+2, ht, colBarCursor)
	}
}

// drawGrid draws light grid lines every power-of-ten metres suited to the zoom.
func drawGrid(c Canvas, v view) {
	w, h := c.Size()
	step := math.Pow(10, math.Ceil(math.Log10(40/v.S)))
	if !(step > 0) || math.IsInf(step, 0) {
		return
	}
	lo, hi := v.toWorld(vec{0, float64(h)}), v.toWorld(vec{float64(w), 0})
	if (hi[0]-lo[0])/step > 400 || (hi[1]-lo[1])/step > 400 {
		return
	}
	for x := math.Ceil(lo[0]/step) * step; x <= hi[0]; x += step {
		sx := int(v.toScreen([2]float64{x, 0}).X)
		c.FillRect(sx, 0, sx+1, h, colGrid)
	}
	for y := math.Ceil(lo[1]/step) * step; y <= hi[1]; y += step {
		sy := int(v.toScreen([2]float64{0, y}).Y)
		c.FillRect(0, sy, w, sy+1, colGrid)
	}
}
