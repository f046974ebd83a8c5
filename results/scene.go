package results

import (
	"fmt"
	"math"
)

// Scene describes how to draw a planar mechanism from result columns. It is
// plain data (JSON-friendly) so that the viewer needs no solver code.
type Scene struct {
	// Bodies are the rigid bodies.
	Bodies []SceneBody `json:"bodies,omitempty"`
	// Links are joints (drawn as pins, slots, welds) and springs (zig-zags).
	Links []SceneLink `json:"links,omitempty"`
	// Beams are flexible beams drawn as polylines through their nodes.
	Beams []SceneBeam `json:"beams,omitempty"`
	// Contacts are contact points with normal force arrows.
	Contacts []SceneContact `json:"contacts,omitempty"`
	// Bounds is a view hint {xmin, ymin, xmax, ymax} in metres; all zero
	// means "autoscale from the data".
	Bounds [4]float64 `json:"bounds,omitempty"`
}

// SceneBody is a rigid body whose frame pose (x, y, angle) is read from
// result columns. An empty column name means the value is 0.
type SceneBody struct {
	// Name identifies the body in SceneLink.BodyA/BodyB ("ground" is reserved).
	Name string `json:"name"`
	// X, Y, Angle name the result columns of the body frame pose (m, m, rad).
	X     string `json:"x,omitempty"`
	Y     string `json:"y,omitempty"`
	Angle string `json:"angle,omitempty"`
	// Outline is a polygon in the body frame (m), drawn filled.
	Outline [][2]float64 `json:"outline,omitempty"`
	// Markers are named points in the body frame, drawn as dots.
	Markers []SceneMarker `json:"markers,omitempty"`
	// Radius, if > 0, draws a circle of that radius around the frame origin.
	Radius float64 `json:"radius,omitempty"`
}

// SceneMarker is a named point in a body frame (m).
type SceneMarker struct {
	Name string     `json:"name"`
	P    [2]float64 `json:"p"`
}

// Kinds of SceneLink.
const (
	LinkRevolute      = "revolute"
	LinkTranslational = "translational"
	LinkFixed         = "fixed"
	LinkSpring        = "spring"
	LinkRSpring       = "rspring"
)

// SceneLink is a joint or a spring between two bodies ("" or "ground" for
// the ground frame), attached at local points PA on BodyA and PB on BodyB.
type SceneLink struct {
	// Kind is one of the Link* constants.
	Kind  string `json:"kind"`
	BodyA string `json:"bodyA,omitempty"`
	BodyB string `json:"bodyB,omitempty"`
	// PA and PB are the attachment points in the body frames (m).
	PA [2]float64 `json:"pa"`
	PB [2]float64 `json:"pb"`
	// Force optionally names a result column shown next to the link.
	Force string `json:"force,omitempty"`
}

// SceneBeam is a flexible beam drawn through node position columns.
type SceneBeam struct {
	Name string `json:"name"`
	// NodeX and NodeY name the columns of the node positions, node by node.
	NodeX []string `json:"nodeX"`
	NodeY []string `json:"nodeY"`
}

// SceneContact is a contact point with a normal force.
type SceneContact struct {
	Name string `json:"name"`
	// PX, PY name the columns of the contact point (m); FN the normal
	// force (N), optional.
	PX string `json:"px"`
	PY string `json:"py"`
	FN string `json:"fn,omitempty"`
	// NX, NY optionally name the columns of the unit contact normal; the
	// force arrow points along +y when they are empty.
	NX string `json:"nx,omitempty"`
	NY string `json:"ny,omitempty"`
}

// GroundName is the body name that stands for the fixed ground frame.
const GroundName = "ground"

// ResolvedScene is a Scene whose column names have been mapped to column
// indices of a Table. An index of -1 means "not given" (value 0, or the
// element is not drawn).
type ResolvedScene struct {
	Scene    *Scene
	Bodies   []ResolvedBody
	Links    []ResolvedLink
	Beams    []ResolvedBeam
	Contacts []ResolvedContact
}

// ResolvedBody holds the pose column indices of a body.
type ResolvedBody struct{ X, Y, Angle int }

// ResolvedLink holds the body indices (-1 = ground) and force column of a link.
type ResolvedLink struct{ A, B, Force int }

// ResolvedBeam holds the node column indices of a beam.
type ResolvedBeam struct{ X, Y []int }

// ResolvedContact holds the column indices of a contact.
type ResolvedContact struct{ PX, PY, FN, NX, NY int }

// Resolve maps the scene's column names to indices of t's columns. The
// error names the element and the missing column.
func (s *Scene) Resolve(t *Table) (*ResolvedScene, error) {
	if t == nil {
		return nil, fmt.Errorf("results: scene: no table")
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
	var err error
	r := &ResolvedScene{Scene: s}
	bodies := map[string]int{}
	for bi, b := range s.Bodies {
		what := fmt.Sprintf("body %q", b.Name)
		if b.Name == "" || b.Name == GroundName {
			return nil, fmt.Errorf("results: scene: body %d: name %q is empty or reserved", bi+1, b.Name)
		}
		if _, dup := bodies[b.Name]; dup {
			return nil, fmt.Errorf("results: scene: body name %q repeated", b.Name)
		}
		bodies[b.Name] = bi
		if !finite(b.Radius) || b.Radius < 0 {
			return nil, fmt.Errorf("results: scene: %s: invalid radius %g", what, b.Radius)
		}
		var rb ResolvedBody
		if rb.X, err = col(what, "X", b.X, true); err != nil {
			return nil, err
		}
		if rb.Y, err = col(what, "Y", b.Y, true); err != nil {
			return nil, err
		}
		if rb.Angle, err = col(what, "Angle", b.Angle, true); err != nil {
			return nil, err
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
		case LinkRevolute, LinkTranslational, LinkFixed, LinkSpring, LinkRSpring:
		default:
			return nil, fmt.Errorf("results: scene: %s: unknown kind %q", what, l.Kind)
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
		r.Links = append(r.Links, rl)
	}
	for _, b := range s.Beams {
		what := fmt.Sprintf("beam %q", b.Name)
		if len(b.NodeX) != len(b.NodeY) || len(b.NodeX) < 2 {
			return nil, fmt.Errorf("results: scene: %s: needs the same number (>= 2) of NodeX and NodeY columns, has %d and %d", what, len(b.NodeX), len(b.NodeY))
		}
		rb := ResolvedBeam{X: make([]int, len(b.NodeX)), Y: make([]int, len(b.NodeY))}
		for i := range b.NodeX {
			if rb.X[i], err = col(what, fmt.Sprintf("NodeX[%d]", i), b.NodeX[i], false); err != nil {
				return nil, err
			}
			if rb.Y[i], err = col(what, fmt.Sprintf("NodeY[%d]", i), b.NodeY[i], false); err != nil {
				return nil, err
			}
		}
		r.Beams = append(r.Beams, rb)
	}
	for _, c := range s.Contacts {
		what := fmt.Sprintf("contact %q", c.Name)
		var rc ResolvedContact
		if rc.PX, err = col(what, "PX", c.PX, false); err != nil {
			return nil, err
		}
		if rc.PY, err = col(what, "PY", c.PY, false); err != nil {
			return nil, err
		}
		if rc.FN, err = col(what, "FN", c.FN, true); err != nil {
			return nil, err
		}
		if rc.NX, err = col(what, "NX", c.NX, true); err != nil {
			return nil, err
		}
		if rc.NY, err = col(what, "NY", c.NY, true); err != nil {
			return nil, err
		}
		r.Contacts = append(r.Contacts, rc)
	}
	return r, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Value returns vals[i], or 0 when i < 0 (column not given).
func Value(vals []float64, i int) float64 {
	if i < 0 || i >= len(vals) {
		return 0
	}
	return vals[i]
}

// Pose returns the frame pose of body b (-1 = ground: all zero) in the row vals.
func (r *ResolvedScene) Pose(vals []float64, b int) (x, y, angle float64) {
	if b < 0 || b >= len(r.Bodies) {
		return 0, 0, 0
	}
	rb := r.Bodies[b]
	return Value(vals, rb.X), Value(vals, rb.Y), Value(vals, rb.Angle)
}

// World maps point p of body b's frame (-1 = ground) to world coordinates.
func (r *ResolvedScene) World(vals []float64, b int, p [2]float64) [2]float64 {
	x, y, a := r.Pose(vals, b)
	s, c := math.Sincos(a)
	return [2]float64{x + c*p[0] - s*p[1], y + s*p[0] + c*p[1]}
}
