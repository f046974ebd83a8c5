package solver

import (
	"math"
	"sort"
	"strings"

	"mbfmu/solver/mech"
)

// Measures are the state quantities that expressions read, by name:
//
//	of a marker m: dx(m), dy(m), dz(m) position; vx(m), vy(m), vz(m)
//	velocity; planar: angle(m), omega(m); spatial: rx(m), ry(m), rz(m)
//	Cardan angles (x-y-z) of the marker frame and wx(m), wy(m), wz(m) its
//	angular velocity (world); dist(m1, m2) the distance of two markers;
//	of a joint j: angle(j), omega(j) the relative rotation of a revolute
//	or cylindrical joint and its rate, disp(j), vel(j) the displacement
//	of a prismatic or cylindrical joint and its rate, and fx(j), fy(j),
//	fz(j), tx(j), ty(j), tz(j) (planar: fx, fy, torque) its reaction on
//	the body of marker i (world axes, torque about marker i).
type measure struct {
	kind   measureKind
	m      *Model
	p1, p2 mech.Marker
	joint  int
	user   mech.Measure // a user state or variable (uservars.go), or nil
}

type measureKind uint8

const (
	msDX measureKind = iota
	msDY
	msDZ
	msVX
	msVY
	msVZ
	msAngle
	msOmega
	msRX
	msRY
	msRZ
	msWX
	msWY
	msWZ
	msDist
	msJAngle
	msJOmega
	msJDisp
	msJVel
	msJFX
	msJFY
	msJFZ
	msJTX
	msJTY
	msJTZ
)

// measureNames maps each function to its marker measure and its joint
// measure (-1: none).
var measureNames = map[string][2]int{
	"dx": {int(msDX), -1}, "dy": {int(msDY), -1}, "dz": {int(msDZ), -1},
	"vx": {int(msVX), -1}, "vy": {int(msVY), -1}, "vz": {int(msVZ), -1},
	"angle": {int(msAngle), int(msJAngle)}, "omega": {int(msOmega), int(msJOmega)},
	"rx": {int(msRX), -1}, "ry": {int(msRY), -1}, "rz": {int(msRZ), -1},
	"wx": {int(msWX), -1}, "wy": {int(msWY), -1}, "wz": {int(msWZ), -1},
	"dist": {int(msDist), -1},
	"disp": {-1, int(msJDisp)}, "vel": {-1, int(msJVel)},
	"fx": {-1, int(msJFX)}, "fy": {-1, int(msJFY)}, "fz": {-1, int(msJFZ)},
	"tx": {-1, int(msJTX)}, "ty": {-1, int(msJTY)}, "tz": {-1, int(msJTZ)}, "torque": {-1, int(msJTZ)},
}

// measure resolves a measure function call in an expression.
func (c *compiler) measure(fn string, args []string) (int, bool, error) {
	ks, ok := measureNames[fn]
	if !ok {
		for _, a := range args {
			if strings.Contains(a, ".") {
				// a marker reference: only a measure takes one
				return 0, true, errorf("unknown function %q: a marker or joint is read only by the measure functions %s%s", fn, c.measureList(), suggest(fn, c.measureFuncs()))
			}
		}
		return 0, false, nil
	}
	m := c.m
	want := 1
	if fn == "dist" {
		want = 2
	}
	if len(args) != want {
		return 0, true, errorf("%s takes %d name(s), got %d", fn, want, len(args))
	}
	ms := measure{m: m, joint: -1}
	if j, isJoint := c.jointIdx[args[0]]; isJoint && ks[1] >= 0 {
		ms.kind, ms.joint = measureKind(ks[1]), j
		if err := c.checkJointMeasure(fn, &m.joints[j]); err != nil {
			return 0, true, err
		}
	} else {
		if ks[0] < 0 {
			return 0, true, errorf("%s takes a joint name; %q is not a joint%s", fn, args[0], suggest(args[0], c.jointNames()))
		}
		ms.kind = measureKind(ks[0])
		if err := c.checkMarkerMeasure(fn, ms.kind); err != nil {
			return 0, true, err
		}
		p, err := c.markerRef(args[0])
		if err != nil {
			return 0, true, err
		}
		ms.p1 = p
		if want == 2 {
			if ms.p2, err = c.markerRef(args[1]); err != nil {
				return 0, true, err
			}
		}
	}
	m.measures = append(m.measures, ms)
	return len(m.measures) - 1, true, nil
}

// measureFuncs lists the measure functions of the model's dimension
// (measureNames less those its checks refuse there), sorted.
func (c *compiler) measureFuncs() []string {
	var out []string
	for fn, ks := range measureNames {
		marker := ks[0] >= 0 && c.checkMarkerMeasure(fn, measureKind(ks[0])) == nil
		joint := ks[1] >= 0 && !(c.m.dim == 2 && (fn == "fz" || fn == "tx" || fn == "ty"))
		if marker || joint {
			out = append(out, fn)
		}
	}
	sort.Strings(out)
	return out
}

// measureList names the measure functions for an error message.
func (c *compiler) measureList() string {
	if c.m.dim == 3 {
		return "dx, dy, dz, vx, vy, vz, rx, ry, rz, wx, wy, wz (marker) and dist(m1, m2); angle, omega, disp, vel, fx, fy, fz, tx, ty, tz (joint) — accelerations are not measures"
	}
	return "dx, dy, angle, vx, vy, omega (marker) and dist(m1, m2); angle, omega, disp, vel, fx, fy, torque (joint) — accelerations are not measures"
}

func (c *compiler) jointNames() []string {
	n := make([]string, 0, len(c.jointIdx))
	for k := range c.jointIdx {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// checkMarkerMeasure refuses marker measures of the other dimension.
func (c *compiler) checkMarkerMeasure(fn string, k measureKind) error {
	switch {
	case c.m.dim == 3 && (k == msAngle || k == msOmega):
		return errorf("%s(marker) is planar: in a spatial model use rx, ry, rz (Cardan angles) or wx, wy, wz (angular velocity)", fn)
	case c.m.dim == 2 && (k == msDZ || k == msVZ || k == msRX || k == msRY || k == msRZ || k == msWX || k == msWY || k == msWZ):
		return errorf("%s(marker) belongs to spatial models (dimension=\"3\")", fn)
	}
	return nil
}

// checkJointMeasure refuses joint measures the joint does not have.
func (c *compiler) checkJointMeasure(fn string, j *mech.JointInfo) error {
	switch fn {
	case "angle", "omega", "disp", "vel":
		if j.Coord == nil && j.Coord2 == nil {
			return errorf("%s(%s): a %s has no free coordinate", fn, j.Name, j.Kind)
		}
		ang := fn == "angle" || fn == "omega"
		if jointCoord(j, ang) == nil {
			return errorf("%s(%s): a %s joint has no %s coordinate", fn, j.Name, j.Kind, map[bool]string{true: "rotational", false: "translational"}[ang])
		}
	case "fz", "tx", "ty":
		if c.m.dim == 2 {
			return errorf("%s(joint) belongs to spatial models; a planar joint's reaction is fx, fy, torque", fn)
		}
	}
	if j.Kind.OnBeamNode() && fn != "fx" && fn != "fy" {
		return errorf("%s(%s): joints to beams report fx and fy only", fn, j.Name)
	}
	return nil
}

// jointCoord returns the joint's rotational (ang) or translational
// coordinate, or nil.
func jointCoord(j *mech.JointInfo, ang bool) mech.Coordinate {
	for _, c := range []mech.Coordinate{j.Coord, j.Coord2} {
		if c != nil && (c.Unit() == "rad") == ang {
			return c
		}
	}
	return nil
}

// Eval evaluates the measure at x (mech.Measure).
func (ms *measure) Eval(x *mech.Ctx) float64 {
	if ms.user != nil {
		return ms.user.Eval(x)
	}
	if ms.joint >= 0 {
		return ms.m.jointMeasure(x, ms.kind, ms.joint)
	}
	if ms.m.dim == 3 {
		var k mech.KinFrame
		ms.p1.F.Eval(x.Q, x.V, &k)
		switch ms.kind {
		case msDX, msDY, msDZ:
			return k.P[ms.kind-msDX]
		case msVX, msVY, msVZ:
			return k.V[ms.kind-msVX]
		case msWX, msWY, msWZ:
			return k.W[ms.kind-msWX]
		case msRX, msRY, msRZ:
			R := ms.p1.F.Orient(&k)
			return mech.Cardan(&R)[ms.kind-msRX]
		case msDist:
			var k2 mech.KinFrame
			ms.p2.F.Eval(x.Q, x.V, &k2)
			return mech.Norm(mech.Sub(k2.P, k.P))
		}
		return 0
	}
	var k mech.KinPoint
	ms.p1.P.Eval(x.Q, x.V, &k)
	switch ms.kind {
	case msDX:
		return k.R[0]
	case msDY:
		return k.R[1]
	case msVX:
		return k.V[0]
	case msVY:
		return k.V[1]
	case msAngle:
		return k.Th + ms.p1.P.Ang
	case msOmega:
		return k.Om
	case msDist:
		var k2 mech.KinPoint
		ms.p2.P.Eval(x.Q, x.V, &k2)
		return math.Hypot(k2.R[0]-k.R[0], k2.R[1]-k.R[1])
	}
	return 0
}

// jointMeasure evaluates a joint measure at x: a coordinate or rate, or
// a reaction component (the joint's constraint elements evaluated into
// the context's work space).
func (m *Model) jointMeasure(x *mech.Ctx, k measureKind, j int) float64 {
	ji := &m.joints[j]
	switch k {
	case msJAngle, msJOmega, msJDisp, msJVel:
		c := jointCoord(ji, k == msJAngle || k == msJOmega)
		v, rate := c.Value(x)
		if k == msJOmega || k == msJVel {
			return rate
		}
		return v
	}
	var r [6]float64
	m.reaction(x, j, x.Work, r[:])
	switch k {
	case msJFX:
		return r[0]
	case msJFY:
		return r[1]
	case msJFZ:
		return r[2]
	case msJTX:
		return r[3]
	case msJTY:
		return r[4]
	}
	return r[5]
}

// readsReactions reports whether a force element's run-time parameters
// read a joint's reaction (fx(j), ..., the Lagrange multipliers) or a user
// variable or state (whose expressions may).
func (m *Model) readsReactions(f any) bool {
	pl, ok := f.(mech.ParamLister)
	if !ok {
		return false
	}
	for _, p := range pl.Params() {
		if p.P == nil {
			continue
		}
		for _, id := range p.P.MeasureIDs() {
			if ms := &m.measures[id]; ms.user != nil || ms.joint >= 0 && ms.kind >= msJFX {
				return true
			}
		}
	}
	return false
}
