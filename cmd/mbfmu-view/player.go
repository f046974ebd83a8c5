package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"mbfmu/results"
)

// sampleAt interpolates the table linearly in time at t (clamped to the
// run) into dst, which must have one entry per column. It returns false if
// the table has no rows. Rows must be in non-decreasing time order; at a
// repeated time the later row wins.
func sampleAt(t *results.Table, at float64, dst []float64) bool {
	n := t.Len()
	if n == 0 {
		return false
	}
	tc := t.Data[0]
	k := sort.Search(n, func(i int) bool { return tc[i] > at }) // first row after at
	if k == 0 || k == n {
		row := max(k-1, 0)
		for c := range dst {
			dst[c] = t.Data[c][row]
		}
		return true
	}
	i := k - 1
	a := 0.0
	if den := tc[k] - tc[i]; den > 0 {
		a = (at - tc[i]) / den
	}
	for c := range dst {
		x0, x1 := t.Data[c][i], t.Data[c][k]
		dst[c] = x0 + a*(x1-x0)
	}
	return true
}

// sceneBounds returns {xmin, ymin, xmax, ymax} of everything the scene
// draws, over up to 400 evenly spread rows, padded by 10 %.
func sceneBounds(rs *results.ResolvedScene, t *results.Table) [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	add := func(p [2]float64, r float64) {
		if !finite(p[0]) || !finite(p[1]) {
			return
		}
		b[0], b[1] = math.Min(b[0], p[0]-r), math.Min(b[1], p[1]-r)
		b[2], b[3] = math.Max(b[2], p[0]+r), math.Max(b[3], p[1]+r)
	}
	n := t.Len()
	vals := make([]float64, len(t.Cols))
	step := max(n/400, 1)
	for row := 0; row < n; row += step {
		for c := range vals {
			vals[c] = t.Data[c][row]
		}
		for bi, body := range rs.Scene.Bodies {
			add(rs.World(vals, bi, [2]float64{}), body.Radius)
			for _, p := range body.Outline {
				add(rs.World(vals, bi, p), 0)
			}
			for _, m := range rs.Bodies[bi].Markers {
				add(rs.World(vals, bi, xy(m.P)), 0)
			}
		}
		for _, l := range rs.Links {
			add(rs.World(vals, l.A, xy(l.PA)), 0)
			add(rs.World(vals, l.B, xy(l.PB)), 0)
		}
		for _, bm := range rs.Beams {
			for i := range bm.X {
				add([2]float64{vals[bm.X[i]], vals[bm.Y[i]]}, 0)
			}
		}
		for _, c := range rs.Contacts {
			add([2]float64{vals[c.PX], vals[c.PY]}, 0)
		}
	}
	if b[0] > b[2] { // nothing finite
		return [4]float64{-1, -1, 1, 1}
	}
	dx, dy := b[2]-b[0], b[3]-b[1]
	pad := 0.1 * math.Max(math.Max(dx, dy), 1e-3)
	return [4]float64{b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad}
}

// sceneBounds3 returns the corners of a box around everything a spatial
// scene draws, over up to 400 evenly spread rows: body origins and their
// shapes (by bounding spheres), markers, link points, beam nodes and
// contact points.
func sceneBounds3(rs *results.ResolvedScene, t *results.Table) (lo, hi v3) {
	lo, hi = v3{math.Inf(1), math.Inf(1), math.Inf(1)}, v3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	add := func(p v3, r float64) {
		if !finite(p[0]) || !finite(p[1]) || !finite(p[2]) {
			return
		}
		for i := range p {
			lo[i], hi[i] = math.Min(lo[i], p[i]-r), math.Max(hi[i], p[i]+r)
		}
	}
	n := t.Len()
	vals := make([]float64, len(t.Cols))
	step := max(n/400, 1)
	for row := 0; row < n; row += step {
		for c := range vals {
			vals[c] = t.Data[c][row]
		}
		sampleQuats(rs, t, t.Data[0][row], vals)
		for bi, b := range rs.Bodies {
			o, R := rs.Pose3(vals, bi)
			add(o, rs.Scene.Bodies[bi].Radius)
			for _, s := range b.Shapes {
				r := s.Radius
				switch s.Kind {
				case results.ShapeBox:
					r = norm3(s.Size) / 2
				case results.ShapeCylinder:
					r = math.Hypot(s.Radius, s.Length/2)
				}
				add(results.Apply(o, R, s.P), r)
			}
			for _, m := range b.Markers {
				add(results.Apply(o, R, m.P), 0)
			}
		}
		for _, l := range rs.Links {
			add(rs.World3(vals, l.A, l.PA), 0)
			add(rs.World3(vals, l.B, l.PB), 0)
		}
		for _, bm := range rs.Beams {
			for i := range bm.X {
				p := v3{vals[bm.X[i]], vals[bm.Y[i]], 0}
				if bm.Z != nil {
					p[2] = vals[bm.Z[i]]
				}
				add(p, 0)
			}
		}
		for _, c := range rs.Contacts {
			add(v3{vals[c.PX], vals[c.PY], results.Value(vals, c.PZ)}, 0)
		}
	}
	if lo[0] > hi[0] { // nothing finite
		return v3{-1, -1, -1}, v3{1, 1, 1}
	}
	return lo, hi
}

// sampleQuats re-interpolates the orientation quaternion columns of a
// spatial scene's bodies at time at into dst (after sampleAt). q and −q
// are the same rotation, and results may switch between them from one row
// to the next; interpolating the columns one by one would then pass near
// zero. Here the later row's quaternion is negated when it points into
// the other hemisphere first.
func sampleQuats(rs *results.ResolvedScene, t *results.Table, at float64, dst []float64) {
	n := t.Len()
	if rs.Dim != 3 || n < 2 {
		return
	}
	tc := t.Data[0]
	k := sort.Search(n, func(i int) bool { return tc[i] > at })
	if k == 0 || k == n {
		return // clamped to a row: nothing interpolated
	}
	i := k - 1
	f := 0.0
	if den := tc[k] - tc[i]; den > 0 {
		f = (at - tc[i]) / den
	}
	for _, b := range rs.Bodies {
		cols := [4]int{b.QW, b.QX, b.QY, b.QZ}
		var q0, q1 [4]float64
		q0[0], q1[0] = 1, 1 // qw "" means 1
		given := false
		for j, c := range cols {
			if c >= 0 {
				q0[j], q1[j] = t.Data[c][i], t.Data[c][k]
				given = true
			}
		}
		if !given || q0[0]*q1[0]+q0[1]*q1[1]+q0[2]*q1[2]+q0[3]*q1[3] >= 0 {
			continue
		}
		for j, c := range cols {
			if c >= 0 {
				dst[c] = q0[j] + f*(-q1[j]-q0[j])
			}
		}
	}
}

// xy returns the planar part of a point.
func xy(p [3]float64) [2]float64 { return [2]float64{p[0], p[1]} }

// maxForces returns the largest |FN| of each contact over the table.
func maxForces(rs *results.ResolvedScene, t *results.Table) []float64 {
	out := make([]float64, len(rs.Contacts))
	for i, c := range rs.Contacts {
		if c.FN < 0 {
			continue
		}
		for _, v := range t.Data[c.FN] {
			if finite(v) {
				out[i] = math.Max(out[i], math.Abs(v))
			}
		}
	}
	return out
}

// autoScene builds a scene from column names when no scene is given: every
// pair NAME.x / NAME.y becomes a body, with NAME.phi, NAME.angle or
// NAME.theta as its angle when present. If any such body also has NAME.z,
// the scene is spatial: bodies take NAME.z and the quaternion columns
// NAME.qw, NAME.qx, NAME.qy, NAME.qz that exist, and are drawn as small
// cubes.
func autoScene(t *results.Table) *results.Scene {
	s := &results.Scene{}
	has := func(n string) string {
		if t.Index(n) >= 0 {
			return n
		}
		return ""
	}
	for _, c := range t.Cols {
		base, ok := strings.CutSuffix(c.Name, ".x")
		if !ok || t.Index(base+".y") < 0 || base == results.GroundName {
			continue
		}
		if has(base+".z") != "" {
			s.Dim = 3
		}
	}
	for _, c := range t.Cols {
		base, ok := strings.CutSuffix(c.Name, ".x")
		if !ok || t.Index(base+".y") < 0 {
			continue
		}
		b := results.SceneBody{Name: base, X: c.Name, Y: base + ".y"}
		if s.Dim == 3 {
			b.Z, b.QW, b.QX, b.QY, b.QZ = has(base+".z"), has(base+".qw"), has(base+".qx"), has(base+".qy"), has(base+".qz")
		} else {
			for _, a := range []string{".phi", ".angle", ".theta"} {
				if t.Index(base+a) >= 0 {
					b.Angle = base + a
					break
				}
			}
		}
		if b.Name == results.GroundName {
			continue
		}
		s.Bodies = append(s.Bodies, b)
	}
	return s
}

// channelLines formats the selected channels of vals for the HUD.
func channelLines(t *results.Table, idx []int, vals []float64) []string {
	out := make([]string, 0, len(idx))
	for _, i := range idx {
		out = append(out, fmtValue(t.Cols[i].Name, vals[i], t.Cols[i].Unit))
	}
	return out
}

// channelIndices resolves the -channels list.
func channelIndices(t *results.Table, names []string) ([]int, error) {
	var idx []int
	for _, n := range names {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		i := t.Index(n)
		if i < 0 {
			return nil, fmt.Errorf("channel %q not in results", n)
		}
		idx = append(idx, i)
	}
	return idx, nil
}
