package solver

// Geometry is the drawable description of a model for viewers: bodies in
// their frames, joints and springs with their attachment points, beams and
// contacts by the names of the result channels that locate them. Body poses
// are the channels "<body>.x", "<body>.y" and "<body>.angle" (body frame
// origin).
type Geometry struct {
	Bodies   []GeomBody
	Links    []GeomLink
	Beams    []GeomBeam
	Contacts []GeomContact
}

// GeomBody is a rigid body: outline and markers in the body frame (m).
type GeomBody struct {
	Name    string
	Outline [][2]float64
	Radius  float64
	Markers []GeomMarker
}

// GeomMarker is a named point in a body frame.
type GeomMarker struct {
	Name string
	P    [2]float64
}

// GeomLink is a joint or spring between two bodies ("ground" for the fixed
// frame) with attachment points in the body frames (ground: global).
type GeomLink struct {
	Kind, Name   string // revolute, translational, fixed, spring, rspring
	BodyA, BodyB string
	PA, PB       [2]float64
	Force        string // channel to show next to the link, if any
}

// GeomBeam is a flexible beam drawn through its nodes' position channels.
type GeomBeam struct {
	Name         string
	NodeX, NodeY []string
}

// GeomContact is a contact point with its normal force, by channel names.
type GeomContact struct {
	Name, PX, PY, FN, NX, NY string
}

// geomElement is implemented by elements that draw themselves.
type geomElement interface {
	addGeometry(m *Model, g *Geometry)
}

// framePoint converts an engine point to its body-frame coordinates.
func (m *Model) framePoint(p point) (body string, xy [2]float64) {
	if p.body < 0 {
		return "ground", p.s
	}
	b := &m.bodies[p.body]
	return b.name, [2]float64{p.s[0] + b.cm[0], p.s[1] + b.cm[1]}
}

// Geometry returns the drawable description of the model.
func (m *Model) Geometry() *Geometry {
	g := &Geometry{}
	for _, b := range m.bodies {
		gb := GeomBody{Name: b.name, Outline: b.shape.Outline, Radius: b.shape.Radius}
		for i, mk := range b.markers {
			gb.Markers = append(gb.Markers, GeomMarker{Name: mk, P: b.mlocal[i]})
		}
		gb.Markers = append(gb.Markers, GeomMarker{Name: "cm", P: b.cm})
		g.Bodies = append(g.Bodies, gb)
	}
	for _, j := range m.joints {
		switch j.kind {
		case "revolute", "translational", "fixed":
		default:
			continue // drivers; joints to beam nodes are drawn with the beam
		}
		a, pa := m.framePoint(j.pi)
		b, pb := m.framePoint(j.pj)
		g.Links = append(g.Links, GeomLink{Kind: j.kind, Name: j.name, BodyA: a, BodyB: b, PA: pa, PB: pb})
	}
	for i, f := range m.forces {
		switch e := f.(type) {
		case *spring:
			a, pa := m.framePoint(e.pi)
			b, pb := m.framePoint(e.pj)
			g.Links = append(g.Links, GeomLink{Kind: "spring", Name: m.fnames[i], BodyA: a, BodyB: b, PA: pa, PB: pb, Force: m.fnames[i] + ".force"})
		case *rspring:
			a, b := "ground", "ground"
			var pb [2]float64
			if e.bi >= 0 {
				a = m.bodies[e.bi].name
			}
			if e.bj >= 0 {
				b = m.bodies[e.bj].name
				pb = m.bodies[e.bj].cm
			}
			g.Links = append(g.Links, GeomLink{Kind: "rspring", Name: m.fnames[i], BodyA: a, BodyB: b, PB: pb, Force: m.fnames[i] + ".torque"})
		case geomElement:
			e.addGeometry(m, g)
		}
	}
	return g
}
