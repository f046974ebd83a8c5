package results

import (
	"fmt"
	"math"
	"strconv"
)

// Scene describes how to draw a mechanism from result columns: planar
// (Dim absent or 2) or spatial (Dim 3). It is plain data (JSON-friendly)
// so that the viewer needs no solver code. Points in body frames are
// [x, y] in a planar scene and [x, y, z] in a spatial one; an empty point
// is the frame origin.
type Scene struct {
	// Dim is 2 (planar; also when 0) or 3 (spatial).
	Dim int `json:"dim,omitempty"`
	// Up names the world axis that points up in a spatial scene: "z" (the
	// default) or "y". Planar scenes leave it empty (y is up).
	Up string `json:"up,omitempty"`
	// Bodies are the rigid bodies.
	Bodies []SceneBody `json:"bodies,omitempty"`
	// Links are joints (drawn as small symbols) and springs (zig-zags).
	Links []SceneLink `json:"links,omitempty"`
	// Beams are flexible beams drawn as polylines through their nodes.
	Beams []SceneBeam `json:"beams,omitempty"`
	// Contacts are contact points with normal force arrows.
	Contacts []SceneContact `json:"contacts,omitempty"`
	// Bounds is a view hint in metres: {xmin, ymin, xmax, ymax} in a
	// planar scene, {xmin, ymin, zmin, xmax, ymax, zmax} in a spatial one.
	// Empty (or, planar, all zero) means "fit the motion".
	Bounds []float64 `json:"bounds,omitempty"`
}

// SceneBody is a rigid body whose frame pose is read from result columns:
// X, Y, Angle in a planar scene; X, Y, Z and the orientation quaternion
// QW, QX, QY, QZ in a spatial one. An empty column name means the value is
// 0, except QW, which is then 1 (so a body without quaternion columns
// keeps the world orientation).
type SceneBody struct {
	// Name identifies the body in SceneLink.BodyA/BodyB ("ground" is reserved).
	Name string `json:"name"`
	// X, Y, Z name the result columns of the body frame origin (m); Z only
	// in a spatial scene.
	X string `json:"x,omitempty"`
	Y string `json:"y,omitempty"`
	Z string `json:"z,omitempty"`
	// Angle names the column of the planar body angle (rad).
	Angle string `json:"angle,omitempty"`
	// QW, QX, QY, QZ name the columns of the unit quaternion (scalar
	// first) that rotates body-frame vectors into the world frame (spatial
	// scenes). Values are normalised when read.
	QW string `json:"qw,omitempty"`
	QX string `json:"qx,omitempty"`
	QY string `json:"qy,omitempty"`
	QZ string `json:"qz,omitempty"`
	// Outline is a polygon in the body frame (m), drawn filled (planar).
	Outline [][2]float64 `json:"outline,omitempty"`
	// Shapes are solids in the body frame (spatial).
	Shapes []SceneShape `json:"shapes,omitempty"`
	// Markers are named frames in the body frame: dots in a planar scene,
	// RGB axis triads in a spatial one.
	Markers []SceneMarker `json:"markers,omitempty"`
	// Radius, if > 0, draws a circle (planar) or sphere (spatial) of that
	// radius around the frame origin.
	Radius float64 `json:"radius,omitempty"`
}

// Kinds of SceneShape.
const (
	ShapeBox      = "box"
	ShapeCylinder = "cylinder"
	ShapeSphere   = "sphere"
)

// SceneShape is a solid of a body in a spatial scene, placed in the body
// frame at P with orientation Q (unit quaternion, scalar first, shape →
// body; empty = identity).
type SceneShape struct {
	// Kind is one of the Shape* constants.
	Kind string `json:"kind"`
	// Size is the box's edge lengths {lx, ly, lz} (m), centred at P.
	Size []float64 `json:"size,omitempty"`
	// Radius of a cylinder or sphere (m).
	Radius float64 `json:"radius,omitempty"`
	// Length of a cylinder (m), along the shape's local z, centred at P.
	Length float64 `json:"length,omitempty"`
	// P is the shape's centre in the body frame (m); Q its orientation.
	P []float64 `json:"p,omitempty"`
	Q []float64 `json:"q,omitempty"`
	// Color is "#rrggbb"; empty uses the body's colour.
	Color string `json:"color,omitempty"`
}

// SceneMarker is a named point (planar) or frame (spatial: position P and
// orientation Q, unit quaternion scalar first, marker → body, empty =
// identity) in a body frame (m).
type SceneMarker struct {
	Name string    `json:"name"`
	P    []float64 `json:"p,omitempty"`
	Q    []float64 `json:"q,omitempty"`
}

// Kinds of SceneLink. Planar models use the first five; spatial ones
// any. Joints are drawn as small symbols at their attachment points,
// springs, distance constraints and bushings as lines between them.
const (
	LinkRevolute      = "revolute"
	LinkTranslational = "translational"
	LinkFixed         = "fixed"
	LinkSpring        = "spring"
	LinkRSpring       = "rspring"
	LinkSpherical     = "spherical"
	LinkUniversal     = "universal"
	LinkCylindrical   = "cylindrical"
	LinkPrismatic     = "prismatic"
	LinkPlanar        = "planar"
	LinkDistance      = "distance"
	LinkBushing       = "bushing"
)

// SceneLink is a joint or a spring between two bodies ("" or "ground" for
// the ground frame), attached at points PA on BodyA and PB on BodyB, each
// in its body's frame (world frame for the ground).
type SceneLink struct {
	// Kind is one of the Link* constants.
	Kind  string `json:"kind"`
	BodyA string `json:"bodyA,omitempty"`
	BodyB string `json:"bodyB,omitempty"`
	// PA and PB are the attachment points in the body frames (m).
	PA []float64 `json:"pa,omitempty"`
	PB []float64 `json:"pb,omitempty"`
	// Force optionally names a result column shown next to the link.
	Force string `json:"force,omitempty"`
}

// SceneBeam is a flexible beam drawn through node position columns.
type SceneBeam struct {
	Name string `json:"name"`
	// NodeX, NodeY (and in a spatial scene optionally NodeZ) name the
	// columns of the node positions, node by node.
	NodeX []string `json:"nodeX"`
	NodeY []string `json:"nodeY"`
	NodeZ []string `json:"nodeZ,omitempty"`
}

// SceneContact is a contact point with a normal force.
type SceneContact struct {
	Name string `json:"name"`
	// PX, PY (and PZ in a spatial scene) name the columns of the contact
	// point (m); FN the normal force (N), optional.
	PX string `json:"px"`
	PY string `json:"py"`
	PZ string `json:"pz,omitempty"`
	FN string `json:"fn,omitempty"`
	// NX, NY, NZ optionally name the columns of the unit contact normal;
	// the force arrow points up (+y planar, the up axis spatial) when they
	// are empty.
	NX string `json:"nx,omitempty"`
	NY string `json:"ny,omitempty"`
	NZ string `json:"nz,omitempty"`
}

// GroundName is the body name that stands for the fixed ground frame.
const GroundName = "ground"

// ResolvedScene is a Scene whose column names have been mapped to column
// indices of a Table and whose constant geometry has been checked and put
// in a fixed form (3-vectors; rotation matrices for shape and marker
// orientations). A column index of -1 means "not given" (value 0, or the
// element is not drawn).
type ResolvedScene struct {
	Scene *Scene
	// Dim is 2 or 3.
	Dim int
	// Up is the index (0 x, 1 y, 2 z) of the up axis.
	Up       int
	Bodies   []ResolvedBody
	Links    []ResolvedLink
	Beams    []ResolvedBeam
	Contacts []ResolvedContact
	// Bounds is the view hint {xmin, ymin, zmin, xmax, ymax, zmax} (planar:
	// z 0), or nil to fit the motion.
	Bounds []float64
}

// ResolvedBody holds the pose column indices of a body and, in a spatial
// scene, its shapes and marker frames.
type ResolvedBody struct {
	X, Y, Angle    int
	Z              int
	QW, QX, QY, QZ int
	Shapes         []ResolvedShape
	Markers        []Frame
}

// Frame is a position and a rotation matrix (columns: the frame's axes).
type Frame struct {
	P [3]float64
	R [3][3]float64
}

// ResolvedShape is a checked SceneShape: its kind, dimensions, placement
// in the body frame and colour (Color false: the body's colour).
type ResolvedShape struct {
	Kind   string
	Size   [3]float64 // box edge lengths
	Radius float64
	Length float64
	Frame
	RGB   [3]uint8
	Color bool
}

// ResolvedLink holds the body indices (-1 = ground), the force column and
// the attachment points (z 0 in a planar scene) of a link.
type ResolvedLink struct {
	A, B, Force int
	PA, PB      [3]float64
}

// ResolvedBeam holds the node column indices of a beam (Z nil: z = 0).
type ResolvedBeam struct{ X, Y, Z []int }

// ResolvedContact holds the column indices of a contact.
type ResolvedContact struct{ PX, PY, PZ, FN, NX, NY, NZ int }

// Resolve maps the scene's column names to indices of t's columns and
// checks its geometry. The error names the element, the field and the
// missing column or bad value.
func (s *Scene) Resolve(t *Table) (*ResolvedScene, error) {
	if t == nil {
		return nil, fmt.Errorf("results: scene: no table")
	}
	fail := func(format string, args ...any) (*ResolvedScene, error) {
		return nil, fmt.Errorf("results: scene: "+format, args...)
	}
	r := &ResolvedScene{Scene: s, Dim: 2, Up: 1}
	switch s.Dim {
	case 0, 2:
		if s.Up != "" {
			return fail("up %q: only spatial scenes (dim 3) take an up axis", s.Up)
		}
	case 3:
		r.Dim = 3
		switch s.Up {
		case "", "z":
			r.Up = 2
		case "y":
			r.Up = 1
		default:
			return fail("up %q: want \"z\" or \"y\"", s.Up)
		}
	default:
		return fail("dim %d: want 2 (planar) or 3 (spatial)", s.Dim)
	}
	spatial := r.Dim == 3
	if err := r.resolveBounds(); err != nil {
		return nil, err
	}
	idx := make(map[string]int, len(t.Cols))
	for i, c := range t.Cols {
		idx[c.Name] = i
	}
	col := func(what, field, name string, optional bool) (int, error) {
		if name == "" {
			if optional {
				return -1, nil
			}
			return -1, fmt.Errorf("results: scene: %s: %s column not given", what, field)
		}
		i, ok := idx[name]
		if !ok {
			return -1, fmt.Errorf("results: scene: %s: %s column %q not in results", what, field, name)
		}
		return i, nil
	}
	// cols resolves named columns into the given indices.
	cols := func(what string, pairs ...any) error {
		for i := 0; i < len(pairs); i += 3 {
			var err error
			*pairs[i].(*int), err = col(what, pairs[i+1].(string), pairs[i+2].(string), true)
			if err != nil {
				return err
			}
		}
		return nil
	}
	planarOnly := func(what string, fields map[string]bool) error {
		for f, set := range fields {
			if set {
				return fmt.Errorf("results: scene: %s: %s is for spatial scenes (dim 3)", what, f)
			}
		}
		return nil
	}
	var err error
	bodies := map[string]int{}
	for bi, b := range s.Bodies {
		what := fmt.Sprintf("body %q", b.Name)
		if b.Name == "" || b.Name == GroundName {
			return fail("body %d: name %q is empty or reserved", bi+1, b.Name)
		}
		if _, dup := bodies[b.Name]; dup {
			return fail("body name %q repeated", b.Name)
		}
		bodies[b.Name] = bi
		if !finite(b.Radius) || b.Radius < 0 {
			return fail("%s: invalid radius %g", what, b.Radius)
		}
		rb := ResolvedBody{X: -1, Y: -1, Angle: -1, Z: -1, QW: -1, QX: -1, QY: -1, QZ: -1}
		if err := cols(what, &rb.X, "X", b.X, &rb.Y, "Y", b.Y); err != nil {
			return nil, err
		}
		if spatial {
			if b.Angle != "" {
				return fail("%s: angle is for planar scenes; a spatial body turns by its quaternion columns qw, qx, qy, qz", what)
			}
			if len(b.Outline) > 0 {
				return fail("%s: outline is for planar scenes; a spatial body is drawn by its shapes", what)
			}
			if err := cols(what, &rb.Z, "Z", b.Z, &rb.QW, "QW", b.QW, &rb.QX, "QX", b.QX, &rb.QY, "QY", b.QY, &rb.QZ, "QZ", b.QZ); err != nil {
				return nil, err
			}
			for si, sh := range b.Shapes {
				rs, err := resolveShape(fmt.Sprintf("%s: shape %d (%s)", what, si+1, sh.Kind), sh)
				if err != nil {
					return nil, err
				}
				rb.Shapes = append(rb.Shapes, rs)
			}
		} else {
			if err := planarOnly(what, map[string]bool{"z": b.Z != "", "qw": b.QW != "", "qx": b.QX != "",
				"qy": b.QY != "", "qz": b.QZ != "", "shapes": len(b.Shapes) > 0}); err != nil {
				return nil, err
			}
			if rb.Angle, err = col(what, "Angle", b.Angle, true); err != nil {
				return nil, err
			}
		}
		for mi, m := range b.Markers {
			mwhat := fmt.Sprintf("%s: marker %q", what, m.Name)
			if m.Name == "" {
				mwhat = fmt.Sprintf("%s: marker %d", what, mi+1)
			}
			var f Frame
			if f.P, err = r.point(mwhat, "p", m.P); err != nil {
				return nil, err
			}
			if !spatial && len(m.Q) > 0 {
				return fail("%s: q is for spatial scenes (dim 3)", mwhat)
			}
			if f.R, err = rotation(mwhat, m.Q); err != nil {
				return nil, err
			}
			rb.Markers = append(rb.Markers, f)
		}
		r.Bodies = append(r.Bodies, rb)
	}
	body := func(what, name string) (int, error) {
		if name == "" || name == GroundName {
			return -1, nil
		}
		i, ok := bodies[name]
		if !ok {
			return -1, fmt.Errorf("results: scene: %s: unknown body %q", what, name)
		}
		return i, nil
	}
	for li, l := range s.Links {
		what := fmt.Sprintf("link %d (%s %s-%s)", li+1, l.Kind, l.BodyA, l.BodyB)
		switch l.Kind {
		case LinkRevolute, LinkTranslational, LinkFixed, LinkSpring, LinkRSpring,
			LinkSpherical, LinkUniversal, LinkCylindrical, LinkPrismatic, LinkPlanar, LinkDistance, LinkBushing:
		default:
			return fail("%s: unknown kind %q", what, l.Kind)
		}
		var rl ResolvedLink
		if rl.A, err = body(what, l.BodyA); err != nil {
			return nil, err
		}
		if rl.B, err = body(what, l.BodyB); err != nil {
			return nil, err
		}
		if rl.Force, err = col(what, "Force", l.Force, true); err != nil {
			return nil, err
		}
		if rl.PA, err = r.point(what, "pa", l.PA); err != nil {
			return nil, err
		}
		if rl.PB, err = r.point(what, "pb", l.PB); err != nil {
			return nil, err
		}
		r.Links = append(r.Links, rl)
	}
	for _, b := range s.Beams {
		what := fmt.Sprintf("beam %q", b.Name)
		if len(b.NodeX) != len(b.NodeY) || len(b.NodeX) < 2 {
			return fail("%s: needs the same number (>= 2) of NodeX and NodeY columns, has %d and %d", what, len(b.NodeX), len(b.NodeY))
		}
		if len(b.NodeZ) > 0 && !spatial {
			return fail("%s: nodeZ is for spatial scenes (dim 3)", what)
		}
		if len(b.NodeZ) > 0 && len(b.NodeZ) != len(b.NodeX) {
			return fail("%s: has %d NodeZ columns for %d nodes", what, len(b.NodeZ), len(b.NodeX))
		}
		rb := ResolvedBeam{X: make([]int, len(b.NodeX)), Y: make([]int, len(b.NodeY))}
		if len(b.NodeZ) > 0 {
			rb.Z = make([]int, len(b.NodeZ))
		}
		for i := range b.NodeX {
			if rb.X[i], err = col(what, fmt.Sprintf("NodeX[%d]", i), b.NodeX[i], false); err != nil {
				return nil, err
			}
			if rb.Y[i], err = col(what, fmt.Sprintf("NodeY[%d]", i), b.NodeY[i], false); err != nil {
				return nil, err
			}
			if rb.Z != nil {
				if rb.Z[i], err = col(what, fmt.Sprintf("NodeZ[%d]", i), b.NodeZ[i], false); err != nil {
					return nil, err
				}
			}
		}
		r.Beams = append(r.Beams, rb)
	}
	for _, c := range s.Contacts {
		what := fmt.Sprintf("contact %q", c.Name)
		rc := ResolvedContact{PZ: -1, NZ: -1}
		if rc.PX, err = col(what, "PX", c.PX, false); err != nil {
			return nil, err
		}
		if rc.PY, err = col(what, "PY", c.PY, false); err != nil {
			return nil, err
		}
		if err := cols(what, &rc.FN, "FN", c.FN, &rc.NX, "NX", c.NX, &rc.NY, "NY", c.NY); err != nil {
			return nil, err
		}
		if spatial {
			if err := cols(what, &rc.PZ, "PZ", c.PZ, &rc.NZ, "NZ", c.NZ); err != nil {
				return nil, err
			}
		} else if err := planarOnly(what, map[string]bool{"pz": c.PZ != "", "nz": c.NZ != ""}); err != nil {
			return nil, err
		}
		r.Contacts = append(r.Contacts, rc)
	}
	return r, nil
}

// resolveBounds checks the bounds hint and puts it in 3D form.
func (r *ResolvedScene) resolveBounds() error {
	b := r.Scene.Bounds
	for i, v := range b {
		if !finite(v) {
			return fmt.Errorf("results: scene: bounds[%d] = %g is not finite", i, v)
		}
	}
	switch {
	case len(b) == 0:
	case r.Dim == 2 && len(b) == 4:
		if b[0] != 0 || b[1] != 0 || b[2] != 0 || b[3] != 0 { // all zero: fit the motion
			r.Bounds = []float64{b[0], b[1], 0, b[2], b[3], 0}
		}
	case r.Dim == 3 && len(b) == 6:
		for i := 0; i < 3; i++ {
			if b[i] > b[i+3] {
				return fmt.Errorf("results: scene: bounds: min %g > max %g on axis %c", b[i], b[i+3], "xyz"[i])
			}
		}
		r.Bounds = append([]float64(nil), b...)
	case r.Dim == 2:
		return fmt.Errorf("results: scene: bounds has %d numbers; a planar scene takes 4 (xmin, ymin, xmax, ymax)", len(b))
	default:
		return fmt.Errorf("results: scene: bounds has %d numbers; a spatial scene takes 6 (xmin, ymin, zmin, xmax, ymax, zmax)", len(b))
	}
	return nil
}

// point checks a body-frame point: empty, or 2 (planar) or 3 (spatial)
// finite numbers.
func (r *ResolvedScene) point(what, field string, p []float64) ([3]float64, error) {
	var out [3]float64
	if len(p) == 0 {
		return out, nil
	}
	if len(p) != r.Dim {
		form := "[x, y]"
		if r.Dim == 3 {
			form = "[x, y, z]"
		}
		return out, fmt.Errorf("results: scene: %s: %s has %d numbers, want %s", what, field, len(p), form)
	}
	for i, v := range p {
		if !finite(v) {
			return out, fmt.Errorf("results: scene: %s: %s[%d] = %g is not finite", what, field, i, v)
		}
		out[i] = v
	}
	return out, nil
}

// rotation returns the rotation matrix of a quaternion field [w, x, y, z]
// (empty: identity), normalised.
func rotation(what string, q []float64) ([3][3]float64, error) {
	if len(q) == 0 {
		return QuatMatrix(1, 0, 0, 0), nil
	}
	if len(q) != 4 {
		return [3][3]float64{}, fmt.Errorf("results: scene: %s: q has %d numbers, want [w, x, y, z]", what, len(q))
	}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !finite(n) || n < 1e-12 {
		return [3][3]float64{}, fmt.Errorf("results: scene: %s: q %v is not a rotation (norm %g)", what, q, n)
	}
	return QuatMatrix(q[0], q[1], q[2], q[3]), nil
}

// resolveShape checks a spatial shape.
func resolveShape(what string, sh SceneShape) (ResolvedShape, error) {
	r := ResolvedShape{Kind: sh.Kind, Radius: sh.Radius, Length: sh.Length}
	bad := func(format string, args ...any) (ResolvedShape, error) {
		return r, fmt.Errorf("results: scene: %s: "+format, append([]any{what}, args...)...)
	}
	pos := func(v float64) bool { return finite(v) && v > 0 }
	switch sh.Kind {
	case ShapeBox:
		if len(sh.Size) != 3 || !pos(sh.Size[0]) || !pos(sh.Size[1]) || !pos(sh.Size[2]) {
			return bad("size %v: want three positive edge lengths [lx, ly, lz]", sh.Size)
		}
		copy(r.Size[:], sh.Size)
	case ShapeCylinder:
		if !pos(sh.Radius) || !pos(sh.Length) {
			return bad("radius %g and length %g must be positive", sh.Radius, sh.Length)
		}
	case ShapeSphere:
		if !pos(sh.Radius) {
			return bad("radius %g must be positive", sh.Radius)
		}
	default:
		return bad("unknown kind %q (want box, cylinder or sphere)", sh.Kind)
	}
	var err error
	if r.P, err = (&ResolvedScene{Dim: 3}).point(what, "p", sh.P); err != nil {
		return r, err
	}
	if r.R, err = rotation(what, sh.Q); err != nil {
		return r, err
	}
	if sh.Color != "" {
		if r.RGB, err = parseColor(sh.Color); err != nil {
			return bad("color: %v", err)
		}
		r.Color = true
	}
	return r, nil
}

// parseColor reads "#rrggbb".
func parseColor(s string) ([3]uint8, error) {
	var c [3]uint8
	if len(s) != 7 || s[0] != '#' {
		return c, fmt.Errorf("%q: want #rrggbb", s)
	}
	for i := range c {
		v, err := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		if err != nil {
			return c, fmt.Errorf("%q: want #rrggbb", s)
		}
		c[i] = uint8(v)
	}
	return c, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Value returns vals[i], or 0 when i < 0 (column not given).
func Value(vals []float64, i int) float64 {
	if i < 0 || i >= len(vals) {
		return 0
	}
	return vals[i]
}

// Pose returns the planar frame pose of body b (-1 = ground: all zero) in the row vals.
func (r *ResolvedScene) Pose(vals []float64, b int) (x, y, angle float64) {
	if b < 0 || b >= len(r.Bodies) {
		return 0, 0, 0
	}
	rb := r.Bodies[b]
	return Value(vals, rb.X), Value(vals, rb.Y), Value(vals, rb.Angle)
}

// World maps point p of body b's frame (-1 = ground) to world coordinates
// in a planar scene.
func (r *ResolvedScene) World(vals []float64, b int, p [2]float64) [2]float64 {
	x, y, a := r.Pose(vals, b)
	s, c := math.Sincos(a)
	return [2]float64{x + c*p[0] - s*p[1], y + s*p[0] + c*p[1]}
}

// Quat returns the normalised orientation quaternion {w, x, y, z} of body
// b (-1 = ground: identity) in the row vals of a spatial scene: QW reads
// 1 and the others 0 when their columns are not given; a zero or
// non-finite quaternion gives the identity.
func (r *ResolvedScene) Quat(vals []float64, b int) [4]float64 {
	if b < 0 || b >= len(r.Bodies) {
		return [4]float64{1, 0, 0, 0}
	}
	rb := r.Bodies[b]
	q := [4]float64{1, Value(vals, rb.QX), Value(vals, rb.QY), Value(vals, rb.QZ)}
	if rb.QW >= 0 {
		q[0] = Value(vals, rb.QW)
	}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !finite(n) || n < 1e-12 {
		return [4]float64{1, 0, 0, 0}
	}
	return [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// Pose3 returns the origin and rotation matrix of body b's frame (-1 =
// ground: world) in the row vals. In a planar scene it is the planar pose
// as a turn about z.
func (r *ResolvedScene) Pose3(vals []float64, b int) (p [3]float64, R [3][3]float64) {
	if r.Dim != 3 {
		x, y, a := r.Pose(vals, b)
		s, c := math.Sincos(a)
		return [3]float64{x, y, 0}, [3][3]float64{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
	}
	if b >= 0 && b < len(r.Bodies) {
		rb := r.Bodies[b]
		p = [3]float64{Value(vals, rb.X), Value(vals, rb.Y), Value(vals, rb.Z)}
	}
	q := r.Quat(vals, b)
	return p, QuatMatrix(q[0], q[1], q[2], q[3])
}

// World3 maps point p of body b's frame (-1 = ground) to world coordinates.
func (r *ResolvedScene) World3(vals []float64, b int, p [3]float64) [3]float64 {
	o, R := r.Pose3(vals, b)
	return Apply(o, R, p)
}

// Apply returns o + R·p.
func Apply(o [3]float64, R [3][3]float64, p [3]float64) [3]float64 {
	var w [3]float64
	for i := range w {
		w[i] = o[i] + R[i][0]*p[0] + R[i][1]*p[1] + R[i][2]*p[2]
	}
	return w
}

// QuatMatrix returns the rotation matrix of the quaternion w + xi + yj + zk
// (normalised first; scalar first, so that R·v rotates v as q v q*).
func QuatMatrix(w, x, y, z float64) [3][3]float64 {
	n := w*w + x*x + y*y + z*z
	if !(n > 0) || !finite(n) {
		return [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	}
	s := 2 / n
	return [3][3]float64{
		{1 - s*(y*y+z*z), s * (x*y - w*z), s * (x*z + w*y)},
		{s * (x*y + w*z), 1 - s*(x*x+z*z), s * (y*z - w*x)},
		{s * (x*z - w*y), s * (y*z + w*x), 1 - s*(x*x+y*y)},
	}
}
