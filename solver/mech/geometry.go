package mech

// Geometry is the drawable description of a model for viewers: bodies in
// their frames, joints and springs with their attachment points, beams and
// contacts by the names of the result channels that locate them. Planar
// body poses are the channels "<body>.x", "<body>.y" and "<body>.angle"
// (body frame origin); spatial ones (Dim 3) "<body>.x", ".y", ".z" and the
// orientation quaternion "<body>.qw", ".qx", ".qy", ".qz" (body to world).
type Geometry struct {
	Dim      int // 2 (planar) or 3 (spatial)
	Bodies   []GeomBody
	Links    []GeomLink
	Beams    []GeomBeam
	Contacts []GeomContact
}

// GeomBody is a rigid body: outline (planar) or shapes (spatial) and
// markers in the body frame (m).
type GeomBody struct {
	Name    string
	CM      [3]float64 // centre of mass in the body frame
	Outline [][2]float64
	Radius  float64
	Shapes  []GeomShape
	Markers []GeomMarker
}

// GeomShape is a solid of a spatial body in its frame: a box (Size: edge
// lengths), a cylinder (Radius, Length; axis along the shape's z) or a
// sphere (Radius), centred at P and turned by the quaternion Q.
type GeomShape struct {
	Kind           string // box, cylinder, sphere
	Size           [3]float64
	Radius, Length float64
	P              [3]float64
	Q              [4]float64
	Color          string // "#rrggbb" or ""
}

// GeomMarker is a named point in a body frame (P planar; P3 and the
// orientation Q spatial).
type GeomMarker struct {
	Name string
	P    [2]float64
	P3   [3]float64
	Q    [4]float64
}

// GeomLink is a joint or spring between two bodies ("ground" for the fixed
// frame) with attachment points in the body frames (ground: global); PA,
// PB planar, PA3, PB3 spatial.
type GeomLink struct {
	Kind, Name   string // revolute, translational, fixed, spring, rspring, spherical, ...
	BodyA, BodyB string
	PA, PB       [2]float64
	PA3, PB3     [3]float64
	Force        string // channel to show next to the link, if any
}

// GeomBeam is a flexible beam drawn through its nodes' position channels.
type GeomBeam struct {
	Name         string
	NodeX, NodeY []string
	NodeZ        []string // spatial beams
}

// GeomContact is a contact point with its normal force, by channel names
// (PZ, NZ spatial).
type GeomContact struct {
	Name, PX, PY, PZ, FN, NX, NY, NZ string
}
