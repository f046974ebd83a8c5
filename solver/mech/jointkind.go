package mech

import "strconv"

// JointKind is the kind of a JointInfo: a joint of the model file, or one
// of the entries the engine registers itself (a driver, a coupler, a joint
// to a beam's node). Its String is the model-file word, the one error
// messages, channel descriptions, diagnostics and drawn links (GeomLink.Kind)
// show. The zero value, JointUnknown, is no kind.
type JointKind uint8

// The joint kinds. JointRevolute to JointDistance are the joints a model
// file names (ParseJointKind reads them); the others are made by the engine.
const (
	// JointUnknown is the zero value: no valid kind.
	JointUnknown JointKind = iota
	// JointRevolute turns about one axis: planar, the relative angle of
	// the markers; spatial, about their z axes ("revolute").
	JointRevolute
	// JointTranslational is a planar sliding joint along marker i's x
	// axis ("translational"; a spatial one is JointPrismatic).
	JointTranslational
	// JointFixed welds the markers together, planar or spatial ("fixed").
	JointFixed
	// JointPrismatic is a spatial sliding joint along the markers' z axes
	// ("prismatic"; a spatial <translational> is one too).
	JointPrismatic
	// JointCylindrical turns about and slides along the markers' z axes
	// ("cylindrical").
	JointCylindrical
	// JointSpherical is a ball joint: the markers' origins coincide
	// ("spherical").
	JointSpherical
	// JointUniversal is a Hooke joint: a ball joint whose cross keeps the
	// markers' z axes perpendicular ("universal").
	JointUniversal
	// JointPlanar keeps the markers' z axes parallel with j's origin on
	// i's xy plane ("planar").
	JointPlanar
	// JointDistance holds the markers' origins at a distance ("distance").
	JointDistance
	// JointDriver is a driver: a coordinate prescribed as a function of
	// time ("driver").
	JointDriver
	// JointCoupler is a drive-train coupler between two joint coordinates
	// ("coupler").
	JointCoupler
	// JointBeamPin pins a beam's node to a body or another node
	// ("beam-pin").
	JointBeamPin
	// JointBeamClamp clamps a beam's node to a body or another node
	// ("beam-clamp").
	JointBeamClamp
)

// String returns the kind's model-file word ("revolute", "beam-pin", ...;
// "unknown" for JointUnknown, JointKind(n) for a value out of range).
func (k JointKind) String() string {
	switch k {
	case JointUnknown:
		return "unknown"
	case JointRevolute:
		return "revolute"
	case JointTranslational:
		return "translational"
	case JointFixed:
		return "fixed"
	case JointPrismatic:
		return "prismatic"
	case JointCylindrical:
		return "cylindrical"
	case JointSpherical:
		return "spherical"
	case JointUniversal:
		return "universal"
	case JointPlanar:
		return "planar"
	case JointDistance:
		return "distance"
	case JointDriver:
		return "driver"
	case JointCoupler:
		return "coupler"
	case JointBeamPin:
		return "beam-pin"
	case JointBeamClamp:
		return "beam-clamp"
	}
	return "JointKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseJointKind returns the kind of a model file's joint word (a
// spec.Joint's Kind: "revolute", "translational", "fixed", "prismatic",
// "cylindrical", "spherical", "universal", "planar", "distance"), and false
// (with JointUnknown) for any other string, including the words of the
// kinds the engine makes itself (driver, coupler, beam-pin, beam-clamp).
// Which of them a model accepts (planar or spatial) is its compiler's
// choice.
func ParseJointKind(s string) (JointKind, bool) {
	for k := JointRevolute; k <= JointDistance; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return JointUnknown, false
}

// OnBeamNode reports whether the kind joins a beam's node (JointBeamPin,
// JointBeamClamp): such joints are drawn with their beam and report the
// reaction fx and fy only.
func (k JointKind) OnBeamNode() bool {
	return k == JointBeamPin || k == JointBeamClamp
}
