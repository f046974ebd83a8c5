package solver

import "mbfmu/solver/mech"

// Geometry returns the drawable description of the model for viewers:
// bodies with their outlines or solids and markers, joints as links
// between their markers, and whatever force elements draw (springs,
// beams, contacts).
func (m *Model) Geometry() *mech.Geometry {
	g := &mech.Geometry{Dim: m.dim}
	for _, b := range m.bodies {
		if b.Node {
			continue // drawn with its beam
		}
		gb := mech.GeomBody{Name: b.Name, CM: b.CM, Outline: b.Outline, Radius: b.Radius, Shapes: b.Shapes}
		for i, mk := range b.Markers {
			f := b.Local[i]
			gm := mech.GeomMarker{Name: mk, P: [2]float64{f.S[0], f.S[1]}, P3: f.S, Q: mech.MatQuat(&f.R)}
			gb.Markers = append(gb.Markers, gm)
		}
		gb.Markers = append(gb.Markers, mech.GeomMarker{Name: "cm", P: [2]float64{b.CM[0], b.CM[1]}, P3: b.CM, Q: mech.Quat{1}})
		g.Bodies = append(g.Bodies, gb)
	}
	for _, j := range m.joints {
		switch j.Kind {
		case mech.JointDriver, mech.JointBeamPin, mech.JointBeamClamp, mech.JointCoupler:
			continue // joints to beam nodes are drawn with the beam; drivers and couplers act on coordinates
		}
		if m.onNode(j.I) || m.onNode(j.J) {
			continue // a joint to a beam's node is drawn with the beam
		}
		l := mech.GeomLink{Kind: j.Kind.String(), Name: j.Name}
		l.BodyA, l.PA, l.PA3 = m.framePoint(j.I)
		l.BodyB, l.PB, l.PB3 = m.framePoint(j.J)
		g.Links = append(g.Links, l)
	}
	for _, f := range m.forces {
		if d, ok := f.(mech.Drawer); ok {
			d.Draw(g)
		}
	}
	return g
}

// framePoint returns a marker's body and its origin in the body frame
// (from the body frame origin; ground: world).
func (m *Model) framePoint(mk mech.Marker) (body string, p2 [2]float64, p3 [3]float64) {
	if m.dim == 3 {
		f := mk.F
		if f.Body < 0 {
			return "ground", [2]float64{f.S[0], f.S[1]}, f.S
		}
		b := &m.bodies[f.Body]
		p3 = mech.Add(f.S, b.CM)
		return b.Name, [2]float64{p3[0], p3[1]}, p3
	}
	p := mk.P
	if p.Body < 0 {
		return "ground", p.S, [3]float64{p.S[0], p.S[1], 0}
	}
	b := &m.bodies[p.Body]
	p2 = [2]float64{p.S[0] + b.CM[0], p.S[1] + b.CM[1]}
	return b.Name, p2, [3]float64{p2[0], p2[1], 0}
}

// onNode reports whether a spatial marker is on a beam's node.
func (m *Model) onNode(mk mech.Marker) bool {
	return m.dim == 3 && mk.F.Body >= 0 && m.bodies[mk.F.Body].Node
}

// Reductions lists how the model's flexible bodies were reduced.
func (m *Model) Reductions() []mech.Reduction {
	var out []mech.Reduction
	for _, f := range m.forces {
		if r, ok := f.(mech.Reducer); ok {
			out = append(out, r.Reduction())
		}
	}
	return out
}
