package main

import (
	"image/color"
	"math"

	"mbfmu/results"
)

// colAxisZ draws z axes of frames (planar scenes have none).
var colAxisZ = color.RGBA{50, 90, 230, 255}

// Lighting of solids: ambient plus one directional light fixed to the
// camera (from the upper left, behind the viewer), so that a face turned
// to the viewer is always lit. A surface with unit normal n has the
// colour base·(ambient + diffuse·max(0, n·L)).
const (
	ambient = 0.35
	diffuse = 0.65
)

// lightDir returns the unit vector towards the light for a projection.
func lightDir(p *projection) v3 {
	return unit3(add3(add3(scale3(p.right, -0.3), scale3(p.up, 0.5)), scale3(p.fwd, -0.8)))
}

// shade returns base lit by a surface with unit normal n.
func shade(base color.RGBA, n, light v3) (r, g, b float64) {
	i := ambient + diffuse*math.Max(0, dot3(n, light))
	return float64(base.R) * i, float64(base.G) * i, float64(base.B) * i
}

// frame3 is everything drawn for one instant of a spatial scene.
type frame3 struct {
	rs    *results.ResolvedScene
	vals  []float64 // one interpolated row
	cam   camera
	size  float64 // scene radius (m): sets triad, coil and arrow lengths
	maxFN []float64
	axes  bool
	cols  []results.Column
}

// painter draws solids with a depth buffer and overlays without one.
type painter struct {
	c     *rgbaCanvas
	p     projection
	light v3
	world []v3 // per-vertex scratch
	cam   []v3
	rgb   []v3
	poly  []clipVert
}

// clipVert is a vertex in camera coordinates with its colour.
type clipVert struct{ c, rgb v3 }

// drawScene3D draws a spatial scene onto c (which it clears): ground grid,
// solids with depth, then joints, springs, beams, frames and contact
// forces on top.
func drawScene3D(c *rgbaCanvas, f *frame3) {
	w, h := c.Size()
	pt := &painter{c: c, p: f.cam.project(w, h)}
	pt.light = lightDir(&pt.p)
	rs, vals := f.rs, f.vals
	drawGround(pt, f)
	c.clearDepth()
	for bi, b := range rs.Bodies {
		o, R := rs.Pose3(vals, bi)
		base := bodyColor(bi)
		for si := range b.Shapes {
			s := &b.Shapes[si]
			col := base
			if s.Color {
				col = color.RGBA{s.RGB[0], s.RGB[1], s.RGB[2], 255}
			}
			m, sc := shapeMesh(s)
			pt.solid(m, add3(o, mulMV(R, s.P)), mulMM(R, s.R), sc, col)
		}
		if r := rs.Scene.Bodies[bi].Radius; r > 0 {
			pt.solid(sphereMesh, o, R, v3{r, r, r}, base)
		} else if len(b.Shapes) == 0 {
			e := 0.03 * f.size // a small cube marks a body without shapes
			pt.solid(boxMesh, o, R, v3{e, e, e}, base)
		}
	}
	// Beams.
	for _, b := range rs.Beams {
		var prev vec
		for i := range b.X {
			p := v3{results.Value(vals, b.X[i]), results.Value(vals, b.Y[i]), 0}
			if b.Z != nil {
				p[2] = results.Value(vals, b.Z[i])
			}
			s, ok := pt.p.toScreen(p)
			if !ok {
				continue
			}
			if i > 0 {
				c.Line(prev, s, 4, colBeam)
			}
			c.FillCircle(s, 3.5, colBeam)
			prev = s
		}
	}
	// Links.
	for li, l := range rs.Links {
		a, b := rs.World3(vals, l.A, l.PA), rs.World3(vals, l.B, l.PB)
		pt.link(rs.Scene.Links[li].Kind, a, b, f.size)
		if l.Force >= 0 {
			if s, ok := pt.p.toScreen(scale3(add3(a, b), 0.5)); ok {
				unit := ""
				if l.Force < len(f.cols) {
					unit = f.cols[l.Force].Unit
				}
				drawText(c, int(s.X)+8, int(s.Y)-18, fmtValue(rs.Scene.Links[li].Force, vals[l.Force], unit), 1, colText)
			}
		}
	}
	// Marker frames, and body frames when asked.
	for bi, b := range rs.Bodies {
		o, R := rs.Pose3(vals, bi)
		for _, m := range b.Markers {
			pt.triad(add3(o, mulMV(R, m.P)), mulMM(R, m.R), 0.08*f.size, 2)
		}
		if f.axes {
			pt.triad(o, R, 0.2*f.size, 2.5)
		}
	}
	// Contacts with normal force arrows.
	_, _, up := upBasis(rs.Up)
	for ci, rc := range rs.Contacts {
		p := v3{results.Value(vals, rc.PX), results.Value(vals, rc.PY), results.Value(vals, rc.PZ)}
		s, ok := pt.p.toScreen(p)
		if !ok {
			continue
		}
		c.FillCircle(s, 4, colContact)
		if rc.FN < 0 {
			continue
		}
		n := up
		if rc.NX >= 0 || rc.NY >= 0 || rc.NZ >= 0 {
			if g := (v3{results.Value(vals, rc.NX), results.Value(vals, rc.NY), results.Value(vals, rc.NZ)}); norm3(g) > 0 {
				n = unit3(g)
			}
		}
		scale := 1.0
		if ci < len(f.maxFN) && f.maxFN[ci] > 0 {
			scale = 1 / f.maxFN[ci]
		}
		tip := add3(p, scale3(n, 0.3*f.size*vals[rc.FN]*scale))
		if a, b, ok := pt.p.segment(p, tip); ok && math.Hypot(b.X-a.X, b.Y-a.Y) >= 2 {
			drawArrow(c, a, b, colContact)
		}
	}
}

// solid draws mesh m scaled by sc along its local axes, turned by R and
// placed at o, in colour base, with back faces culled, near-plane
// clipping and the depth buffer.
func (pt *painter) solid(m *mesh, o v3, R mat3, sc v3, base color.RGBA) {
	n := len(m.p)
	if cap(pt.world) < n {
		pt.world, pt.cam, pt.rgb = make([]v3, n), make([]v3, n), make([]v3, n)
	}
	world, cam, rgb := pt.world[:n], pt.cam[:n], pt.rgb[:n]
	for i, q := range m.p {
		world[i] = add3(o, mulMV(R, v3{q[0] * sc[0], q[1] * sc[1], q[2] * sc[2]}))
		cam[i] = pt.p.toCam(world[i])
		r, g, b := shade(base, mulMV(R, m.n[i]), pt.light)
		rgb[i] = v3{r, g, b}
	}
	for _, t := range m.tri {
		a, b, d := world[t[0]], world[t[1]], world[t[2]]
		nrm := cross3(sub3(b, a), sub3(d, a))
		view := pt.p.fwd
		if !pt.p.ortho {
			view = sub3(a, pt.p.eye)
		}
		if dot3(nrm, view) >= 0 { // facing away
			continue
		}
		pt.poly = append(pt.poly[:0], clipVert{cam[t[0]], rgb[t[0]]}, clipVert{cam[t[1]], rgb[t[1]]}, clipVert{cam[t[2]], rgb[t[2]]})
		if !pt.p.ortho {
			pt.poly = clipNear(pt.poly, pt.p.near)
		}
		if len(pt.poly) < 3 {
			continue
		}
		v0 := pt.vert(pt.poly[0])
		for k := 1; k+1 < len(pt.poly); k++ {
			pt.c.fillTriangleZ(v0, pt.vert(pt.poly[k]), pt.vert(pt.poly[k+1]))
		}
	}
}

func (pt *painter) vert(v clipVert) vert {
	s, z, _ := pt.p.screen(v.c)
	return vert{X: s.X, Y: s.Y, Z: z, R: v.rgb[0], G: v.rgb[1], B: v.rgb[2]}
}

// clipNear clips a convex polygon in camera coordinates to depth >= near
// (Sutherland–Hodgman), in place of poly's storage.
func clipNear(poly []clipVert, near float64) []clipVert {
	in := 0
	for _, v := range poly {
		if v.c[2] >= near {
			in++
		}
	}
	if in == len(poly) {
		return poly
	}
	if in == 0 {
		return poly[:0]
	}
	src := append([]clipVert(nil), poly...)
	out := poly[:0]
	for i, a := range src {
		b := src[(i+1)%len(src)]
		ina, inb := a.c[2] >= near, b.c[2] >= near
		if ina {
			out = append(out, a)
		}
		if ina != inb {
			t := (near - a.c[2]) / (b.c[2] - a.c[2])
			out = append(out, clipVert{lerp3(a.c, b.c, t), lerp3(a.rgb, b.rgb, t)})
		}
	}
	return out
}

// line3 draws a world segment on top of everything.
func (pt *painter) line3(a, b v3, width float64, col color.RGBA) {
	if sa, sb, ok := pt.p.segment(a, b); ok {
		pt.c.Line(sa, sb, width, col)
	}
}

// triad draws the axes of frame (o, R) as red, green and blue lines of length l.
func (pt *painter) triad(o v3, R mat3, l, width float64) {
	for j, col := range []color.RGBA{colAxisX, colAxisY, colAxisZ} {
		pt.line3(o, add3(o, scale3(column(R, j), l)), width, col)
	}
	if s, ok := pt.p.toScreen(o); ok {
		pt.c.FillCircle(s, width, colMarker)
	}
}

// link draws a joint symbol at a (and b, when apart) or a spring, distance
// or bushing between a and b.
func (pt *painter) link(kind string, a, b v3, size float64) {
	c := pt.c
	sa, oka := pt.p.toScreen(a)
	sb, okb := pt.p.toScreen(b)
	apart := oka && okb && math.Hypot(sa.X-sb.X, sa.Y-sb.Y) > 2
	square := func(p vec, r float64) {
		c.FillRect(int(p.X)-int(r), int(p.Y)-int(r), int(p.X)+int(r), int(p.Y)+int(r), colPinRing)
	}
	switch kind {
	case results.LinkSpring:
		pt.helix(a, b, 0.04*size, colSpring)
	case results.LinkBushing:
		if apart {
			pt.helix(a, b, 0.025*size, colSpring)
		}
		if oka {
			c.FillCircle(sa, 4, colSpring)
		}
	case results.LinkDistance:
		pt.line3(a, b, 1.5, colPinRing)
		for _, p := range []vec{sa, sb} {
			c.FillCircle(p, 3, colPinRing)
		}
	case results.LinkRSpring:
		if oka {
			drawCoil(c, sa, colSpring)
		}
	case results.LinkTranslational, results.LinkPrismatic, results.LinkCylindrical:
		if apart {
			c.Line(sa, sb, 7, colSlot)
			c.Line(sa, sb, 2, colPinRing)
		}
		if oka {
			square(sa, 4)
			if kind == results.LinkCylindrical {
				c.FillCircle(sa, 2.5, colPinHole)
			}
		}
	case results.LinkFixed:
		if oka {
			square(sa, 4)
		}
	case results.LinkPlanar:
		if oka {
			c.FillPolygon([]vec{{sa.X, sa.Y - 6}, {sa.X + 6, sa.Y}, {sa.X, sa.Y + 6}, {sa.X - 6, sa.Y}}, colPinRing)
		}
	default: // revolute, spherical, universal
		for i, p := range []vec{sa, sb} {
			if !(i == 0 && oka || i == 1 && okb && apart) {
				continue
			}
			switch kind {
			case results.LinkSpherical:
				c.FillCircle(p, 5.5, colPinRing)
				c.FillCircle(vec{p.X - 1.5, p.Y - 1.5}, 1.8, colPinHole)
			case results.LinkUniversal:
				drawPin(c, p)
				c.Line(vec{p.X - 8, p.Y}, vec{p.X + 8, p.Y}, 1.5, colPinRing)
				c.Line(vec{p.X, p.Y - 8}, vec{p.X, p.Y + 8}, 1.5, colPinRing)
			default:
				drawPin(c, p)
			}
		}
	}
}

// helix draws a coil spring of radius r from a to b: straight ends, 8 turns.
func (pt *painter) helix(a, b v3, r float64, col color.RGBA) {
	d := sub3(b, a)
	l := norm3(d)
	if !(l > 1e-12) {
		if s, ok := pt.p.toScreen(a); ok {
			pt.c.FillCircle(s, 3, col)
		}
		return
	}
	u := scale3(d, 1/l)
	// Two unit vectors across the axis.
	e := v3{1, 0, 0}
	if math.Abs(u[0]) > 0.9 {
		e = v3{0, 1, 0}
	}
	n1 := unit3(cross3(u, e))
	n2 := cross3(u, n1)
	const turns, per = 8, 12
	prev := a
	for i := 0; i <= turns*per; i++ {
		s := 0.15 + 0.7*float64(i)/(turns*per)
		sn, cs := math.Sincos(2 * math.Pi * float64(i) / per)
		p := add3(add3(a, scale3(u, s*l)), add3(scale3(n1, r*cs), scale3(n2, r*sn)))
		pt.line3(prev, p, 2, col)
		prev = p
	}
	pt.line3(prev, b, 2, col)
}

// drawGround draws a grid on the ground plane (up coordinate 0) around the
// point below the camera target, at a power-of-ten spacing suited to the
// scene size, and the world axes at the origin.
func drawGround(pt *painter, f *frame3) {
	e1, e2, up := upBasis(f.cam.Up)
	step := math.Pow(10, math.Ceil(math.Log10(f.size/5)))
	if !(step > 0) || math.IsInf(step, 0) {
		return
	}
	centre := sub3(f.cam.Target, scale3(up, dot3(f.cam.Target, up)))
	c1 := math.Round(dot3(centre, e1)/step) * step
	c2 := math.Round(dot3(centre, e2)/step) * step
	n := int(math.Ceil(2 * f.size / step))
	if n > 200 {
		return
	}
	ext := float64(n) * step
	for k := -n; k <= n; k++ {
		o := float64(k) * step
		p1 := add3(scale3(e1, c1+o), scale3(e2, c2-ext))
		p2 := add3(scale3(e1, c1+o), scale3(e2, c2+ext))
		q1 := add3(scale3(e2, c2+o), scale3(e1, c1-ext))
		q2 := add3(scale3(e2, c2+o), scale3(e1, c1+ext))
		pt.line3(p1, p2, 1, colGrid)
		pt.line3(q1, q2, 1, colGrid)
	}
	l := 0.25 * f.size
	pt.line3(v3{}, v3{l, 0, 0}, 2, colAxisX)
	pt.line3(v3{}, v3{0, l, 0}, 2, colAxisY)
	pt.line3(v3{}, v3{0, 0, l}, 2, colAxisZ)
}
