package xml

import (
	"strconv"

	"mbfmu/spec"
)

// This file is the schema of spatial models (<model dimension="3">). It
// shares <settings>, <parameter>, <input>, <table>, <spring> and <output>
// with the planar schema (their vectors take three components in a
// spatial model); bodies, markers, joints, drivers, forces and contacts
// have spatial definitions, and what is planar only is refused with a
// message that names the spatial equivalent (planarHints).

// rotationSequences are the twelve sequences of three rotations about the
// axes of the moving frame: six Cardan (Tait–Bryan) and six Euler ones.
func rotationSequences() []string {
	return []string{"xyz", "xzy", "yxz", "yzx", "zxy", "zyx", "xyx", "xzx", "yxy", "yzy", "zxz", "zyz"}
}

// orientAttrs are the attributes of the orientation forms, named with
// prefix ("" for a frame's orientation, "inertia-" for the principal axes
// of a body): quaternion; axis and angle; angles and sequence; two of
// x-axis, y-axis, z-axis. checkOrient checks that one form is complete.
func orientAttrs(prefix string, get func(obj any) *spec.Orientation) []attrDef {
	return []attrDef{
		{name: prefix + "quaternion", kind: vQuat, dim: Dimensionless, field: func(o any) any { return &get(o).Quaternion }},
		{name: prefix + "axis", kind: vVec, dim: Dimensionless, field: func(o any) any { return &get(o).Axis }},
		{name: prefix + "angle", kind: vExpr, dim: Angle, field: func(o any) any { return &get(o).Angle }},
		{name: prefix + "angles", kind: vVec, dim: Angle, field: func(o any) any { return &get(o).Angles }},
		{name: prefix + "sequence", kind: vEnum, enum: rotationSequences(), field: func(o any) any { return &get(o).Sequence }},
		{name: prefix + "x-axis", kind: vVec, dim: Dimensionless, field: func(o any) any { return &get(o).XAxis }},
		{name: prefix + "y-axis", kind: vVec, dim: Dimensionless, field: func(o any) any { return &get(o).YAxis }},
		{name: prefix + "z-axis", kind: vVec, dim: Dimensionless, field: func(o any) any { return &get(o).ZAxis }},
	}
}

// schema3 returns the element table of spatial models, rooted at <model>.
func schema3() *elemDef {
	planar := map[string]*elemDef{}
	for _, c := range schema().children {
		planar[c.name] = c
	}
	attrs := func(lists ...[]attrDef) []attrDef {
		var all []attrDef
		for _, l := range lists {
			all = append(all, l...)
		}
		return all
	}

	marker := &elemDef{
		name: "marker",
		attrs: attrs([]attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Marker).Name }},
			{name: "at", kind: vVec, dim: Length, field: func(o any) any { return &o.(*spec.Marker).At }},
		}, orientAttrs("", func(o any) *spec.Orientation { return &o.(*spec.Marker).Orient })),
		new: func(any) any { return &spec.Marker{} },
		add: func(parent, obj any) {
			m := *obj.(*spec.Marker)
			switch p := parent.(type) {
			case *spec.Body:
				p.Markers = append(p.Markers, m)
			case *spec.Ground:
				p.Markers = append(p.Markers, m)
			}
		},
		check: (*parser).checkMarker3,
	}
	ground := &elemDef{
		name: "ground", once: true,
		children: []*elemDef{marker},
		new:      func(parent any) any { return &parent.(*spec.Model).Ground },
		check:    (*parser).checkMarkers,
	}

	solidAttr := func(name string, kind valKind, dim Dim, req, positive bool, field func(*spec.Solid) any) attrDef {
		return attrDef{name: name, kind: kind, dim: dim, req: req, positive: positive, field: func(o any) any { return field(o.(*spec.Solid)) }}
	}
	solidOrient := orientAttrs("", func(o any) *spec.Orientation { return &o.(*spec.Solid).Orient })
	at := solidAttr("at", vVec, Length, false, false, func(s *spec.Solid) any { return &s.At })
	color := solidAttr("color", vText, 0, false, false, func(s *spec.Solid) any { return &s.Color })
	radius := solidAttr("radius", vExpr, Length, true, true, func(s *spec.Solid) any { return &s.Radius })
	solid := func(name string, a []attrDef) *elemDef {
		return &elemDef{
			name: name, attrs: a,
			new: func(any) any { return &spec.Solid{Kind: name} },
			add: func(parent, obj any) {
				b := parent.(*spec.Body)
				b.Solids = append(b.Solids, *obj.(*spec.Solid))
			},
			check: (*parser).checkSolid,
		}
	}
	box := solid("box", attrs([]attrDef{
		solidAttr("size", vVec, Length, true, false, func(s *spec.Solid) any { return &s.Size }), at,
	}, solidOrient, []attrDef{color}))
	cylinder := solid("cylinder", attrs([]attrDef{
		radius, solidAttr("length", vExpr, Length, true, true, func(s *spec.Solid) any { return &s.Length }), at,
	}, solidOrient, []attrDef{color}))
	sphere := solid("sphere", []attrDef{radius, at, color})

	bodyOrient := func(o any) *spec.Orientation { return &o.(*spec.Body).Orient }
	inertiaOrient := func(o any) *spec.Orientation { return &o.(*spec.Body).InertiaOrient }
	body := &elemDef{
		name: "body", family: "body", ns: nsElement,
		attrs: attrs([]attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Body).Name }},
			{name: "mass", kind: vExpr, dim: Mass, req: true, positive: true, field: func(o any) any { return &o.(*spec.Body).Mass }},
			{name: "inertia", kind: vTensor, dim: Inertia, req: true, field: func(o any) any { return &o.(*spec.Body).InertiaTensor },
				hint: `a single moment of inertia is planar; a spatial body takes inertia="Jxx, Jyy, Jzz" (moments about its axes, or principal moments with inertia-quaternion and the like) or "Jxx, Jyy, Jzz, Jxy, Jxz, Jyz" (the tensor)`},
		}, orientAttrs("inertia-", inertiaOrient), []attrDef{
			{name: "cm", kind: vVec, dim: Length, field: func(o any) any { return &o.(*spec.Body).CM }},
			{name: "at", kind: vVec, dim: Length, field: func(o any) any { return &o.(*spec.Body).At }},
		}, orientAttrs("", bodyOrient), []attrDef{
			{name: "velocity", kind: vVec, dim: Velocity, field: func(o any) any { return &o.(*spec.Body).Vel }},
			{name: "omega", kind: vVec, dim: AngularVelocity, field: func(o any) any { return &o.(*spec.Body).AngVel },
				hint: `a single angular velocity is planar; in a spatial model omega is the vector "wx, wy, wz", in the body frame (or the world frame with omega-frame="global")`},
			{name: "omega-frame", kind: vEnum, enum: []string{"body", "global"}, field: func(o any) any { return &o.(*spec.Body).AngVelFrame }},
		}),
		children: []*elemDef{marker, box, cylinder, sphere},
		new:      func(any) any { return &spec.Body{} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Bodies = append(s.Bodies, *obj.(*spec.Body))
		},
		check: (*parser).checkBody3,
		planarHints: map[string]string{
			"<shape>": "<shape> is planar drawing geometry; a spatial body is drawn with <box>, <cylinder> and <sphere>",
		},
	}

	joint := func(name, kind string, extra ...attrDef) *elemDef {
		return &elemDef{
			name: name, family: "joint", ns: nsElement,
			attrs: append([]attrDef{
				{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Joint).Name }},
				{name: "i", kind: vRef, req: true, field: func(o any) any { return &o.(*spec.Joint).I }},
				{name: "j", kind: vRef, req: true, field: func(o any) any { return &o.(*spec.Joint).J }},
			}, extra...),
			new: func(any) any { return &spec.Joint{Kind: kind} },
			add: func(parent, obj any) {
				s := parent.(*spec.Model)
				s.Joints = append(s.Joints, *obj.(*spec.Joint))
			},
			check: (*parser).checkJoint,
		}
	}
	distance := attrDef{name: "distance", kind: vExpr, dim: Length, positive: true, field: func(o any) any { return &o.(*spec.Joint).Distance }}

	driver := driverDef([]string{"x", "y", "z", "angle", "disp"}, (*parser).checkDriver3)

	force := func(kind string, attrs ...attrDef) *elemDef {
		return &elemDef{
			name: kind, family: "force", ns: nsElement,
			attrs: append([]attrDef{{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Force).Name }}}, attrs...),
			new:   func(any) any { return &spec.Force{Kind: kind} },
			add: func(parent, obj any) {
				s := parent.(*spec.Model)
				s.Forces = append(s.Forces, *obj.(*spec.Force))
			},
		}
	}
	fAttr := func(name string, kind valKind, dim Dim, req bool, field func(*spec.Force) any) attrDef {
		return attrDef{name: name, kind: kind, dim: dim, req: req, field: func(o any) any { return field(o.(*spec.Force)) }}
	}
	fI := fAttr("i", vRef, 0, true, func(f *spec.Force) any { return &f.I })
	fJ := func(req bool) attrDef { return fAttr("j", vRef, 0, req, func(f *spec.Force) any { return &f.J }) }
	frame := attrDef{name: "frame", kind: vEnum, enum: []string{"global", "marker"}, field: func(o any) any { return &o.(*spec.Force).Frame }}
	pointForce := force("force", fI,
		fAttr("fx", vExpr, Force, false, func(f *spec.Force) any { return &f.FX }),
		fAttr("fy", vExpr, Force, false, func(f *spec.Force) any { return &f.FY }),
		fAttr("fz", vExpr, Force, false, func(f *spec.Force) any { return &f.FZ }),
		frame)
	torque := force("torque", fI, fJ(false),
		fAttr("tx", vExpr, Torque, false, func(f *spec.Force) any { return &f.TX }),
		fAttr("ty", vExpr, Torque, false, func(f *spec.Force) any { return &f.TY }),
		fAttr("tz", vExpr, Torque, false, func(f *spec.Force) any { return &f.TZ }),
		frame)
	torque.planarHints = map[string]string{
		"t": `t is a planar torque (about the normal of the plane); in a spatial model give the components tx, ty, tz (frame="global" or "marker")`,
	}
	rspring := force("rspring",
		fAttr("joint", vElemRef, 0, true, func(f *spec.Force) any { return &f.Joint }),
		fAttr("k", vExpr, RotStiffness, false, func(f *spec.Force) any { return &f.K }),
		fAttr("c", vExpr, RotDamping, false, func(f *spec.Force) any { return &f.C }),
		fAttr("angle", vExpr, Angle, false, func(f *spec.Force) any { return &f.Angle }),
		fAttr("preload", vExpr, Torque, false, func(f *spec.Force) any { return &f.Preload }))
	rspring.check = (*parser).checkRSpring3
	onJoint := `a spatial <rspring> acts about the axis of a revolute joint: give joint="..." (the revolute) instead of i and j`
	rspring.planarHints = map[string]string{"i": onJoint, "j": onJoint}
	kDims := []Dim{Stiffness, Stiffness, Stiffness, RotStiffness, RotStiffness, RotStiffness}
	cDims := []Dim{Damping, Damping, Damping, RotDamping, RotDamping, RotDamping}
	bushing := force("bushing", fI, fJ(true),
		attrDef{name: "k", kind: vVec6, dims: kDims, field: func(o any) any { return &o.(*spec.Force).KV }},
		attrDef{name: "c", kind: vVec6, dims: cDims, field: func(o any) any { return &o.(*spec.Force).CV }})
	bushing.check = (*parser).checkBushing

	contact := &elemDef{
		name: "contact", family: "contact", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Contact).Name }},
		},
		kinds: spatialContactKinds(),
		new:   func(any) any { return &spec.Contact{Attr: map[string]spec.Expr{}} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Contacts = append(s.Contacts, *obj.(*spec.Contact))
		},
		planarHints: map[string]string{},
	}
	for _, k := range contactKinds() {
		contact.planarHints["kind:"+k.name] = `"` + k.name + `" is a planar contact kind; a spatial model has sphere-plane and sphere-sphere`
	}

	beam := &elemDef{
		name: "beam", family: "beam", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Beam).Name }},
		},
		kinds: spatialBeamKinds(planar["beam"]),
		check: (*parser).checkMarkers,
		new:   func(any) any { return &spec.Beam{Attr: map[string]spec.Expr{}} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			s.Beams = append(s.Beams, *obj.(*spec.Beam))
		},
	}

	feBody := &elemDef{
		name: "fe-body", family: "beam", ns: nsElement,
		attrs: []attrDef{
			{name: "kind", kind: vEnum, req: true}, // read first, by element
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*spec.Beam).Name }},
		},
		kinds: feBodyKinds(),
		check: (*parser).checkMarkers,
		new:   func(any) any { return &spec.Beam{Attr: map[string]spec.Expr{}} },
		add: func(parent, obj any) {
			s := parent.(*spec.Model)
			bs := *obj.(*spec.Beam)
			bs.Kind = "fe-" + bs.Kind
			s.Beams = append(s.Beams, bs)
		},
	}

	return &elemDef{
		name:  "model",
		attrs: modelAttrs(),
		children: []*elemDef{planar["settings"], planar["parameter"], planar["input"], planar["table"], ground, body, feBody,
			joint("fixed", "fixed"), joint("revolute", "revolute"), joint("prismatic", "prismatic"),
			joint("translational", "prismatic"), joint("cylindrical", "cylindrical"), joint("spherical", "spherical"),
			joint("universal", "universal"), joint("planar", "planar"), joint("distance", "distance", distance),
			beam, driver, pointForce, torque, planar["spring"], rspring, bushing, contact, planar["coupler"], planar["stop"], planar["motor"], planar["friction"], planar["state"], planar["variable"], planar["output"]},
		check: (*parser).checkModel,
	}
}

// spatialBeamKinds lists the beam kinds of spatial models: the
// geometrically exact rod (solver/flex/rod.go), with the planar beams'
// <marker s> children.
func spatialBeamKinds(planarBeam *elemDef) []kindDef {
	marker := planarBeam.kinds[0].children[0]
	return []kindDef{
		{name: "rod", attrs: append(append([]attrDef{
			{name: "at", kind: vVec, dim: Length, req: true},
			{name: "x-axis", kind: vVec, dim: Dimensionless},
			{name: "y-axis", kind: vVec, dim: Dimensionless},
			{name: "length", kind: vExpr, dim: Length, req: true, positive: true},
			{name: "elements", kind: vExpr, dim: Dimensionless, positive: true},
			{name: "radius", kind: vExpr, dim: Length, positive: true},
			{name: "bend-axis", kind: vVec, dim: Dimensionless},
			{name: "line-load", kind: vVec, dim: LineLoad},
			{name: "line-load-frame", kind: vEnum, enum: []string{"global", "section"}},
			{name: "mass-matrix", kind: vEnum, enum: []string{"lumped", "consistent"}},
		}, rodSection(true)...),
			attrDef{name: "damping", kind: vExpr, dim: Time},
			attrDef{name: "velocity", kind: vVec, dim: Velocity},
			attrDef{name: "omega", kind: vVec, dim: AngularVelocity},
			attrDef{name: "i", kind: vRef},
			attrDef{name: "j", kind: vRef},
		), children: []*elemDef{marker}},
		{name: "ffr", attrs: append(append([]attrDef{
			{name: "i", kind: vRef, req: true},
			{name: "length", kind: vExpr, dim: Length, req: true, positive: true},
			{name: "elements", kind: vExpr, dim: Dimensionless, positive: true},
		}, rodSection(false)...),
			attrDef{name: "damping", kind: vExpr, dim: Time},
			attrDef{name: "coupling", kind: vEnum, enum: []string{"zero-order", "stiffened"}},
			attrDef{name: "reduction", kind: vEnum, enum: []string{"none", "modal", "krylov", "craig-bampton"}},
			attrDef{name: "modes", kind: vExpr, dim: Dimensionless, positive: true},
			attrDef{name: "sigma", kind: vExpr, dim: AngularVelocity},
			attrDef{name: "krylov-input", kind: vEnum, enum: []string{"both", "transverse"}},
		), children: []*elemDef{marker}},
		{name: "ancf", attrs: append(append(append([]attrDef{
			{name: "at", kind: vVec, dim: Length, req: true},
			{name: "x-axis", kind: vVec, dim: Dimensionless},
		}, beamSection()...),
			attrDef{name: "velocity", kind: vVec, dim: Velocity},
			attrDef{name: "omega", kind: vVec, dim: AngularVelocity},
			attrDef{name: "curvature", kind: vEnum, enum: []string{"small-strain", "exact"}},
			attrDef{name: "axial-strain", kind: vEnum, enum: []string{"green", "engineering"}},
			attrDef{name: "gauss-points", kind: vExpr, dim: Dimensionless, positive: true},
		), adaptiveAttrs()...), children: []*elemDef{marker}},
	}
}

// spatialContactKinds lists the contact kinds of spatial models, with the
// force-law and friction attributes of the planar kinds.
func spatialContactKinds() []kindDef {
	// the planar law and friction attributes, friction="lugre" besides
	// (bristles as the contact's state: exact stick in a spatial contact)
	law := contactLaw()
	for k := range law {
		if law[k].name == "friction" {
			law[k].enum = []string{"none", "coulomb", "regularized", "lugre"}
		}
	}
	law = append(law,
		attrDef{name: "bristle-stiffness", kind: vExpr, dim: Stiffness, positive: true},
		attrDef{name: "bristle-damping", kind: vExpr, dim: Damping})
	common := func(extra ...attrDef) []attrDef { return append(extra, law...) }
	i := attrDef{name: "i", kind: vRef, req: true}
	j := attrDef{name: "j", kind: vRef, req: true}
	return []kindDef{
		{name: "sphere-plane", attrs: common(i,
			attrDef{name: "radius", kind: vExpr, dim: Length, req: true, positive: true}, j)},
		{name: "sphere-sphere", attrs: common(i,
			attrDef{name: "radius-i", kind: vExpr, dim: Length, req: true, positive: true}, j,
			attrDef{name: "radius-j", kind: vExpr, dim: Length, req: true, positive: true})},
	}
}

// feBodyKinds lists the kinds of <fe-body> (the FE program's file
// formats; solver/flex/feimport.go) with their common attributes and the
// <marker node> children.
func feBodyKinds() []kindDef {
	marker := &elemDef{
		name: "marker",
		attrs: []attrDef{
			{name: "name", kind: vName, req: true, field: func(o any) any { return &o.(*beamMarker).name }},
			{name: "node", kind: vInt, req: true, field: func(o any) any { return &o.(*beamMarker).node }},
		},
		new: func(any) any { return &beamMarker{} },
		add: func(parent, obj any) {
			if m := obj.(*beamMarker); m.name != "" {
				parent.(*spec.Beam).Attr["marker."+m.name] = spec.Expr{Src: strconv.Itoa(m.node), Pos: m.pos, Field: "node"}
			}
		},
	}
	// <prestress stiffness omega|acceleration|angular-acceleration>: the
	// FE model's stiffness in a prestressed state (geometric stiffening;
	// solver/flex/feprestress.go), stored as "prestress.I" (the file) and
	// "prestress-LOAD.I.x|y|z"
	prestress := &elemDef{
		name: "prestress",
		attrs: []attrDef{
			{name: "stiffness", kind: vText, req: true, field: func(o any) any { return &o.(*prestressDef).file }},
			{name: "omega", kind: vVec, dim: AngularVelocity, field: func(o any) any { return &o.(*prestressDef).load[0] }},
			{name: "acceleration", kind: vVec, dim: Acceleration, field: func(o any) any { return &o.(*prestressDef).load[1] }},
			{name: "angular-acceleration", kind: vVec, dim: AngularAcceleration, field: func(o any) any { return &o.(*prestressDef).load[2] }},
		},
		new: func(any) any { return &prestressDef{} },
		add: func(parent, obj any) {
			d := obj.(*prestressDef)
			bs := parent.(*spec.Beam)
			// the first free slot (present, not non-empty: an empty
			// stiffness must not let the next <prestress> share its slot)
			i := 1
			for {
				if _, taken := bs.Attr["prestress."+strconv.Itoa(i)]; !taken {
					break
				}
				i++
			}
			key := strconv.Itoa(i)
			bs.Attr["prestress."+key] = spec.Expr{Src: d.file, Pos: d.pos, Field: "stiffness"}
			for k, load := range spec.PrestressLoads() {
				for c, e := range d.load[k] {
					if e.Src != "" {
						bs.Attr["prestress-"+load+"."+key+"."+"xyz"[c:c+1]] = e
					}
				}
			}
		},
	}
	common := func(extra ...attrDef) []attrDef {
		return append([]attrDef{
			{name: "mass", kind: vText, req: true},
			{name: "stiffness", kind: vText, req: true},
			{name: "nodes", kind: vText, req: true},
			{name: "units", kind: vEnum, req: true, enum: []string{"m-kg-s", "mm-t-s", "mm-kg-s", "mm-kg-ms", "mm-g-ms", "in-lbf-s"}},
			{name: "at", kind: vVec, dim: Length},
			{name: "x-axis", kind: vVec, dim: Dimensionless},
			{name: "y-axis", kind: vVec, dim: Dimensionless},
			{name: "velocity", kind: vVec, dim: Velocity},
			{name: "omega", kind: vVec, dim: AngularVelocity},
			{name: "clamp", kind: vText},
			{name: "reduction", kind: vEnum, enum: []string{"modal", "craig-bampton"}},
			{name: "modes", kind: vExpr, dim: Dimensionless, positive: true},
			{name: "interface", kind: vText},
			{name: "damping", kind: vExpr, dim: Time},
		}, extra...)
	}
	return []kindDef{
		{name: "abaqus", attrs: common(), children: []*elemDef{marker, prestress}},
		{name: "matrix-market", attrs: common(
			attrDef{name: "dof-map", kind: vText},
			attrDef{name: "dofs-per-node", kind: vExpr, dim: Dimensionless, positive: true},
		), children: []*elemDef{marker, prestress}},
	}
}

// rodSection lists the section attributes of spatial rods and ffr beams:
// by material and geometry, or by stiffnesses and mass per length; shear
// ones for the shear-deformable rod.
func rodSection(shear bool) []attrDef {
	out := []attrDef{
		{name: "area", kind: vExpr, dim: Area, positive: true},
		{name: "area-moment-y", kind: vExpr, dim: AreaMoment, positive: true},
		{name: "area-moment-z", kind: vExpr, dim: AreaMoment, positive: true},
		{name: "torsion-constant", kind: vExpr, dim: AreaMoment, positive: true},
		{name: "youngs", kind: vExpr, dim: Pressure, positive: true},
		{name: "shear-modulus", kind: vExpr, dim: Pressure, positive: true},
		{name: "poisson", kind: vExpr, dim: Dimensionless},
		{name: "density", kind: vExpr, dim: Density, positive: true},
		{name: "axial-stiffness", kind: vExpr, dim: Force, positive: true},
		{name: "torsional-stiffness", kind: vExpr, dim: FlexuralRigidity, positive: true},
		{name: "bending-stiffness-y", kind: vExpr, dim: FlexuralRigidity, positive: true},
		{name: "bending-stiffness-z", kind: vExpr, dim: FlexuralRigidity, positive: true},
		{name: "mass-per-length", kind: vExpr, dim: LinearDensity, positive: true},
	}
	if shear {
		out = append(out,
			attrDef{name: "shear-factor", kind: vExpr, dim: Dimensionless, positive: true},
			attrDef{name: "shear-stiffness", kind: vExpr, dim: Force, positive: true})
	}
	return out
}

// prestressDef is a <prestress> of an fe-body: a stiffness file and the
// load that prestressed the FE model (load: spec.PrestressLoads' order).
type prestressDef struct {
	file string
	load [3]spec.Vec
	pos  spec.Pos
}
