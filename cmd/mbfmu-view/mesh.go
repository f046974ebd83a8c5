package main

import (
	"math"

	"mbfmu/results"
)

// mesh is a closed triangle mesh of a unit solid in its local frame:
// vertices with outward unit normals, triangles counter-clockwise seen
// from outside. Flat faces have their own vertices (face normals: flat
// shading); curved ones share them (smooth normals: Gouraud shading).
type mesh struct {
	p, n []v3
	tri  [][3]int
}

// Tessellation of the curved solids.
const (
	cylinderSegments = 32
	sphereStacks     = 12
	sphereSlices     = 24
)

// The unit meshes, built once; never modified.
var (
	boxMesh      = unitBox()      // [-1, 1]³
	cylinderMesh = unitCylinder() // radius 1, z in [-1, 1]
	sphereMesh   = unitSphere()   // radius 1
)

func (m *mesh) vertex(p, n v3) int {
	m.p = append(m.p, p)
	m.n = append(m.n, n)
	return len(m.p) - 1
}

func unitBox() *mesh {
	m := &mesh{}
	for a := 0; a < 3; a++ {
		for _, s := range []float64{1, -1} {
			var n, u, v v3
			n[a] = s
			if s > 0 { // u × v = n
				u[(a+1)%3], v[(a+2)%3] = 1, 1
			} else {
				u[(a+2)%3], v[(a+1)%3] = 1, 1
			}
			var k [4]int
			for i, c := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				k[i] = m.vertex(add3(n, add3(scale3(u, c[0]), scale3(v, c[1]))), n)
			}
			m.tri = append(m.tri, [3]int{k[0], k[1], k[2]}, [3]int{k[0], k[2], k[3]})
		}
	}
	return m
}

func unitCylinder() *mesh {
	m := &mesh{}
	const n = cylinderSegments
	ring := func(z float64, normal func(c, s float64) v3) []int {
		k := make([]int, n)
		for i := range k {
			s, c := math.Sincos(2 * math.Pi * float64(i) / n)
			k[i] = m.vertex(v3{c, s, z}, normal(c, s))
		}
		return k
	}
	radial := func(c, s float64) v3 { return v3{c, s, 0} }
	bot, top := ring(-1, radial), ring(1, radial)
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		m.tri = append(m.tri, [3]int{bot[i], bot[j], top[j]}, [3]int{bot[i], top[j], top[i]})
	}
	for _, z := range []float64{1, -1} {
		k := ring(z, func(float64, float64) v3 { return v3{0, 0, z} })
		c := m.vertex(v3{0, 0, z}, v3{0, 0, z})
		for i := 0; i < n; i++ {
			j := (i + 1) % n
			if z > 0 {
				m.tri = append(m.tri, [3]int{c, k[i], k[j]})
			} else {
				m.tri = append(m.tri, [3]int{c, k[j], k[i]})
			}
		}
	}
	return m
}

func unitSphere() *mesh {
	m := &mesh{}
	const st, sl = sphereStacks, sphereSlices
	idx := func(i, j int) int { return i*(sl+1) + j }
	for i := 0; i <= st; i++ {
		sp, cp := math.Sincos(math.Pi * float64(i) / st)
		for j := 0; j <= sl; j++ {
			s, c := math.Sincos(2 * math.Pi * float64(j) / sl)
			p := v3{sp * c, sp * s, cp}
			m.vertex(p, p)
		}
	}
	for i := 0; i < st; i++ {
		for j := 0; j < sl; j++ {
			a, b, c, d := idx(i, j), idx(i+1, j), idx(i+1, j+1), idx(i, j+1)
			// Rows 0 and st are the poles: skip the triangle that collapses there.
			if i < st-1 {
				m.tri = append(m.tri, [3]int{a, b, c})
			}
			if i > 0 {
				m.tri = append(m.tri, [3]int{a, c, d})
			}
		}
	}
	return m
}

// shapeMesh returns the unit mesh of a shape and the scale of its local
// axes.
func shapeMesh(s *results.ResolvedShape) (*mesh, v3) {
	switch s.Kind {
	case results.ShapeBox:
		return boxMesh, scale3(s.Size, 0.5)
	case results.ShapeCylinder:
		return cylinderMesh, v3{s.Radius, s.Radius, s.Length / 2}
	default:
		return sphereMesh, v3{s.Radius, s.Radius, s.Radius}
	}
}
