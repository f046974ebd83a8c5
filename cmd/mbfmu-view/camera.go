package main

import (
	"math"
)

// v3 is a point or vector in 3D (m).
type v3 = [3]float64

func add3(a, b v3) v3           { return v3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub3(a, b v3) v3           { return v3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale3(a v3, s float64) v3 { return v3{a[0] * s, a[1] * s, a[2] * s} }
func dot3(a, b v3) float64      { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross3(a, b v3) v3 {
	return v3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm3(a v3) float64 { return math.Sqrt(dot3(a, a)) }

// unit3 returns a/|a|, or a itself when it is (nearly) zero.
func unit3(a v3) v3 {
	if n := norm3(a); n > 1e-300 {
		return scale3(a, 1/n)
	}
	return a
}

// mat3 is a rotation matrix; its columns are the rotated frame's axes.
type mat3 = [3][3]float64

// mulMV returns R·v.
func mulMV(R mat3, v v3) v3 {
	return v3{
		R[0][0]*v[0] + R[0][1]*v[1] + R[0][2]*v[2],
		R[1][0]*v[0] + R[1][1]*v[1] + R[1][2]*v[2],
		R[2][0]*v[0] + R[2][1]*v[1] + R[2][2]*v[2],
	}
}

// mulMM returns A·B.
func mulMM(A, B mat3) mat3 {
	var C mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			C[i][j] = A[i][0]*B[0][j] + A[i][1]*B[1][j] + A[i][2]*B[2][j]
		}
	}
	return C
}

// column returns column j of R (the rotated frame's axis j).
func column(R mat3, j int) v3 { return v3{R[0][j], R[1][j], R[2][j]} }

// Camera defaults.
const (
	defaultFOV = 35 * math.Pi / 180 // vertical field of view
	// The 3/4 view: azimuth from the front view and elevation.
	isoAzimuth   = math.Pi / 4
	isoElevation = 0.45
	maxElevation = math.Pi / 2
	orbitPerPx   = 0.01 // rad of orbit per pixel dragged
)

// camera is the orbit camera of a spatial scene: it looks at Target from
// the direction given by Azimuth (about the up axis) and Elevation (above
// the horizontal plane), from Dist metres away. Azimuth 0 looks along
// −e1, where (e1, e2, up) is (x, y, z) for up z and (z, x, y) for up y,
// so both are right-handed.
type camera struct {
	Target    v3
	Azimuth   float64 // rad
	Elevation float64 // rad, within ±π/2
	Dist      float64 // m
	FOV       float64 // vertical field of view (rad) in perspective
	Ortho     bool    // orthographic projection (same scale as perspective at Dist)
	Up        int     // index of the up axis: 2 (z) or 1 (y)
}

// upBasis returns the horizontal axes e1, e2 and the up axis for up index
// 2 (z up) or 1 (y up).
func upBasis(up int) (e1, e2, u v3) {
	if up == 1 {
		return v3{0, 0, 1}, v3{1, 0, 0}, v3{0, 1, 0}
	}
	return v3{1, 0, 0}, v3{0, 1, 0}, v3{0, 0, 1}
}

// frontAzimuth is the azimuth of the front view: looking along +y from −y
// with z up, along −z from +z with y up.
func frontAzimuth(up int) float64 {
	if up == 1 {
		return 0
	}
	return -math.Pi / 2
}

// axes returns the camera's right, up and forward (view direction) unit
// vectors in world coordinates.
func (c camera) axes() (right, up, fwd v3) {
	e1, e2, u := upBasis(c.Up)
	sa, ca := math.Sincos(c.Azimuth)
	se, ce := math.Sincos(c.Elevation)
	toEye := add3(add3(scale3(e1, ce*ca), scale3(e2, ce*sa)), scale3(u, se))
	fwd = scale3(toEye, -1)
	right = add3(scale3(e1, -sa), scale3(e2, ca))
	up = cross3(right, fwd)
	return right, up, fwd
}

// eye returns the camera position.
func (c camera) eye() v3 {
	_, _, fwd := c.axes()
	return sub3(c.Target, scale3(fwd, c.Dist))
}

// projection maps world points to screen pixels for one frame.
type projection struct {
	eye, right, up, fwd v3
	cx, cy              float64 // screen point of the view axis
	focal               float64 // perspective: pixels per unit of x/depth
	scale               float64 // orthographic: pixels per metre
	ortho               bool
	near                float64 // perspective: nearest depth drawn (m)
}

// project returns the projection of the camera onto a w×h canvas whose
// drawing area ends above the time bar.
func (c camera) project(w, h int) projection {
	r, u, f := c.axes()
	ah := math.Max(float64(h-barHeight), 1)
	p := projection{eye: c.eye(), right: r, up: u, fwd: f,
		cx: float64(w) / 2, cy: ah / 2, ortho: c.Ortho}
	p.focal = ah / 2 / math.Tan(c.FOV/2)
	p.scale = p.focal / c.Dist
	p.near = math.Max(c.Dist*1e-3, 1e-6)
	return p
}

// toCam returns the camera coordinates of world point w: x right, y up,
// d the depth along the view direction.
func (p *projection) toCam(w v3) v3 {
	d := sub3(w, p.eye)
	return v3{dot3(d, p.right), dot3(d, p.up), dot3(d, p.fwd)}
}

// screen maps camera coordinates to a screen point and a depth key that
// grows towards the viewer and is linear in screen space (1/depth in
// perspective, −depth orthographic). ok is false for a point at or behind
// the near plane in perspective.
func (p *projection) screen(c v3) (s vec, key float64, ok bool) {
	if p.ortho {
		return vec{p.cx + c[0]*p.scale, p.cy - c[1]*p.scale}, -c[2], true
	}
	if c[2] < p.near {
		return vec{}, 0, false
	}
	inv := 1 / c[2]
	return vec{p.cx + p.focal*c[0]*inv, p.cy - p.focal*c[1]*inv}, inv, true
}

// toScreen projects a world point; ok is false behind the near plane.
func (p *projection) toScreen(w v3) (vec, bool) {
	s, _, ok := p.screen(p.toCam(w))
	return s, ok
}

// segment clips the world segment a–b to the near plane and projects it.
func (p *projection) segment(a, b v3) (vec, vec, bool) {
	ca, cb := p.toCam(a), p.toCam(b)
	if !p.ortho {
		if ca[2] < p.near && cb[2] < p.near {
			return vec{}, vec{}, false
		}
		if ca[2] < p.near {
			ca = lerp3(ca, cb, (p.near-ca[2])/(cb[2]-ca[2]))
		} else if cb[2] < p.near {
			cb = lerp3(cb, ca, (p.near-cb[2])/(ca[2]-cb[2]))
		}
	}
	sa, _, oka := p.screen(ca)
	sb, _, okb := p.screen(cb)
	return sa, sb, oka && okb
}

func lerp3(a, b v3, t float64) v3 {
	return v3{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1]), a[2] + t*(b[2]-a[2])}
}

// pixelsPerMetre returns the screen size of one metre at world point w
// (perspective: at its depth).
func (p *projection) pixelsPerMetre(w v3) float64 {
	if p.ortho {
		return p.scale
	}
	d := math.Max(p.toCam(w)[2], p.near)
	return p.focal / d
}

// fitDistance returns the camera distance at which the box lo–hi, centred
// on the camera target, just fits the drawing area of a w×h canvas less a
// margin, seen in the camera's direction: every corner, at camera
// coordinates (x, y) and depth d relative to the target, needs
// focal·|x|/(D + d) ≤ half the width (likewise y), which in perspective
// gives D ≥ focal·|x|/half − d (orthographic: D ≥ focal·|x|/half).
func (c camera) fitDistance(lo, hi v3, w, h int) float64 {
	focal := math.Max(float64(h-barHeight), 1) / 2 / math.Tan(c.FOV/2)
	hw := math.Max(float64(w-2*margin), 2) / 2
	hh := math.Max(float64(h-barHeight-2*margin), 2) / 2
	r, u, f := c.axes()
	size := norm3(sub3(hi, lo)) / 2
	d := math.Max(size, 1e-6) * 1e-3
	for k := 0; k < 8; k++ {
		corner := v3{lo[0], lo[1], lo[2]}
		for i := 0; i < 3; i++ {
			if k&(1<<i) != 0 {
				corner[i] = hi[i]
			}
		}
		rel := sub3(corner, c.Target)
		x, y, z := math.Abs(dot3(rel, r)), math.Abs(dot3(rel, u)), dot3(rel, f)
		need := math.Max(focal*x/hw, focal*y/hh)
		if !c.Ortho {
			need -= z
			// Keep every corner in front of the camera.
			need = math.Max(need, 0.1*size-z)
		}
		d = math.Max(d, need)
	}
	return d
}
