package xml

import (
	"fmt"
	"math"
	"mbfmu/spec"
	"os"
	"reflect"
	"testing"
)

// TestSpatialModel reads testdata/spatial.xml, which uses every spatial
// element and every orientation form, and compares the whole spec with
// values worked out by hand from the file (units converted to SI,
// positions counted in the file).
func TestSpatialModel(t *testing.T) {
	const file = "testdata/spatial.xml"
	got, err := LoadFile(file)
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	pos := func(line int) spec.Pos { return spec.Pos{File: file, Line: line} }
	e := func(src string, line int, field string) spec.Expr {
		return spec.Expr{Src: src, Pos: pos(line), Field: field}
	}
	v := func(x, y, z string, line int, field string) spec.Vec {
		return spec.Vec{e(x, line, field), e(y, line, field), e(z, line, field)}
	}
	num := func(x float64) string { return fmt.Sprint(x) }
	deg := math.Pi / 180
	want := &spec.Model{
		Name: "gyro", Description: "every spatial element", Dimension: 3, Pos: pos(2),
		Settings: spec.Settings{Pos: pos(3), End: 2, Step: 0.0005, Gravity: v("0", "0", "-9.81", 3, "gravity")},
		Params: []spec.Param{
			{Name: "L", Unit: "m", Value: 0.5, Pos: pos(4)},
			{Name: "w0", Unit: "rad/s", Value: 10, Pos: pos(5)},
		},
		Inputs: []spec.Input{{Name: "T", Unit: "N*m", Pos: pos(6)}},
		Ground: spec.Ground{Pos: pos(7), Markers: []spec.Marker{
			{Name: "O", Pos: pos(8)},
			{Name: "A", At: v("1", "0", "-L", 9, "at"), Pos: pos(9), Orient: spec.Orientation{
				Quaternion: [4]spec.Expr{e("0.5", 9, "quaternion"), e("0.5", 9, "quaternion"), e("0.5", 9, "quaternion"), e("0.5", 9, "quaternion")},
				Pos:        pos(9)}},
			{Name: "B", At: v("0", "0", "1", 10, "at"), Pos: pos(10), Orient: spec.Orientation{
				XAxis: v("0", "1", "0", 10, "x-axis"), YAxis: v("-1", "0", "0", 10, "y-axis"), Pos: pos(10)}},
		}},
		Bodies: []spec.Body{
			{
				Name: "top", Mass: e("15", 12, "mass"),
				InertiaTensor: [6]spec.Expr{e("0.234375", 12, "inertia"), e("0.46875", 12, "inertia"), e("0.234375", 12, "inertia")},
				CM:            v("0", "1", "0", 12, "cm"), At: v("0", "0", "0", 13, "at"),
				Orient: spec.Orientation{Quaternion: [4]spec.Expr{e("1", 13, "quaternion"), e("0", 13, "quaternion"), e("0", 13, "quaternion"), e("0", 13, "quaternion")},
					Pos: pos(13)},
				Vel: v("0", "0", "0", 13, "velocity"), AngVel: v("0", "150", "-4.61538", 13, "omega"), AngVelFrame: "body",
				Markers: []spec.Marker{
					{Name: "tip", At: v("0", "1", "0", 14, "at"), Pos: pos(14), Orient: spec.Orientation{
						Axis: v("1", "0", "0", 14, "axis"), Angle: e(num(90*deg), 14, "angle"), Pos: pos(14)}},
					{Name: "side", At: v("L", "0", "0", 15, "at"), Pos: pos(15), Orient: spec.Orientation{
						Angles: v("0", num(90*deg), "0", 15, "angles"), Sequence: "zxz", Pos: pos(15)}},
					{Name: "up", Pos: pos(16), Orient: spec.Orientation{
						ZAxis: v("0", "0", "1", 16, "z-axis"), XAxis: v("1", "1", "0", 16, "x-axis"), Pos: pos(16)}},
				},
				Solids: []spec.Solid{
					{Kind: "box", Size: v("0.1", "0.2", "0.3", 17, "size"), At: v("0", "0.5", "0", 17, "at"), Color: "#ff8000", Pos: pos(17)},
					{Kind: "cylinder", Radius: e("0.02", 18, "radius"), Length: e("L", 18, "length"), At: v("0", "L/2", "0", 18, "at"),
						Orient: spec.Orientation{XAxis: v("0", "0", "1", 18, "x-axis"), ZAxis: v("0", "1", "0", 18, "z-axis"), Pos: pos(18)},
						Color:  "#0080FF", Pos: pos(18)},
					{Kind: "sphere", Radius: e("0.05", 19, "radius"), At: v("0", "1", "0", 19, "at"), Pos: pos(19)},
				},
				Pos: pos(12),
			},
			{
				Name: "rotor", Mass: e("2", 21, "mass"),
				InertiaTensor: [6]spec.Expr{e("0.01", 21, "inertia"), e("0.02", 21, "inertia"), e("0.025", 21, "inertia"),
					e("-0.001", 21, "inertia"), e("0", 21, "inertia"), e("0.002", 21, "inertia")},
				At:     v("1", "0", "-0.5", 21, "at"),
				Orient: spec.Orientation{Axis: v("0", "0", "1", 22, "axis"), Angle: e("pi/6", 22, "angle"), Pos: pos(22)},
				AngVel: v("0", "0", "w0", 22, "omega"), AngVelFrame: "global", Vel: v("0.1", "0", "0", 22, "velocity"),
				Pos: pos(21),
			},
			{
				Name: "arm", Mass: e("m1", 23, "mass"),
				InertiaTensor: [6]spec.Expr{e("J1", 23, "inertia"), e("J1", 23, "inertia"), e("J2", 23, "inertia")},
				InertiaOrient: spec.Orientation{Angles: v("0", "0", num(45*deg), 23, "inertia-angles"), Sequence: "xyz", Pos: pos(23)},
				Orient:        spec.Orientation{Angles: v("0.1", "0.2", "0.3", 24, "angles"), Sequence: "xyz", Pos: pos(24)},
				Markers:       []spec.Marker{{Name: "a", Pos: pos(25)}, {Name: "b", At: v("0", "0", "1", 26, "at"), Pos: pos(26)}},
				Pos:           pos(23),
			},
			{
				Name: "plate", Mass: e("1", 28, "mass"),
				InertiaTensor: [6]spec.Expr{e("1", 28, "inertia"), e("2", 28, "inertia"), e("2.5", 28, "inertia")},
				InertiaOrient: spec.Orientation{Quaternion: [4]spec.Expr{e("0.6", 28, "inertia-quaternion"), e("0.8", 28, "inertia-quaternion"),
					e("0", 28, "inertia-quaternion"), e("0", 28, "inertia-quaternion")}, Pos: pos(28)},
				Orient: spec.Orientation{XAxis: v("0", "0", "1", 28, "x-axis"), ZAxis: v("1", "0", "0", 28, "z-axis"), Pos: pos(28)},
				Pos:    pos(28),
			},
			{
				Name: "wheel", Mass: e("1", 29, "mass"),
				InertiaTensor: [6]spec.Expr{e("0.1", 29, "inertia"), e("0.1", 29, "inertia"), e("0.2", 29, "inertia")},
				InertiaOrient: spec.Orientation{Axis: v("1", "1", "0", 29, "inertia-axis"), Angle: e("0.5", 29, "inertia-angle"), Pos: pos(29)},
				Pos:           pos(29),
			},
			{
				Name: "link", Mass: e("1", 30, "mass"),
				InertiaTensor: [6]spec.Expr{e("1", 30, "inertia"), e("1", 30, "inertia"), e("1", 30, "inertia")},
				InertiaOrient: spec.Orientation{XAxis: v("1", "0", "0", 30, "inertia-x-axis"), YAxis: v("0", "1", "1", 30, "inertia-y-axis"), Pos: pos(30)},
				Pos:           pos(30),
			},
		},
		Joints: []spec.Joint{
			{Kind: "fixed", Name: "weld", I: "ground.B", J: "link", Pos: pos(31)},
			{Kind: "spherical", Name: "ball", I: "ground.O", J: "top", Pos: pos(32)},
			{Kind: "revolute", Name: "hinge", I: "ground.A", J: "rotor", Pos: pos(33)},
			{Kind: "prismatic", Name: "slide", I: "top.up", J: "arm.a", Pos: pos(34)},
			{Kind: "prismatic", Name: "slide2", I: "arm.b", J: "plate", Pos: pos(35)},
			{Kind: "cylindrical", Name: "cyl", I: "plate", J: "wheel", Pos: pos(36)},
			{Kind: "universal", Name: "cross", I: "wheel", J: "link", Pos: pos(37)},
			{Kind: "planar", Name: "flat", I: "link", J: "arm", Pos: pos(38)},
			{Kind: "distance", Name: "rod", I: "top.tip", J: "arm.b", Distance: e("1.5", 39, "distance"), Pos: pos(39)},
			{Kind: "distance", Name: "rod2", I: "top.side", J: "wheel", Pos: pos(40)},
		},
		Drivers: []spec.Driver{
			{Name: "spin", Joint: "hinge", Value: e("w0*time", 41, "value"), Pos: pos(41)},
			{Name: "turn", Joint: "cyl", Coord: "angle", Value: e("0.1*time", 42, "value"), Pos: pos(42)},
			{Name: "push", Joint: "slide", Coord: "disp", Value: e("0.01", 43, "value"), Pos: pos(43)},
			{Name: "lift", Body: "plate", Coord: "z", Value: e("0.1*sin(time)", 44, "value"), Pos: pos(44)},
		},
		Forces: []spec.Force{
			{Kind: "force", Name: "f", I: "top.tip", FX: e("1", 45, "fx"), FY: e("-2000", 45, "fy"), FZ: e("3", 45, "fz"), Frame: "marker", Pos: pos(45)},
			{Kind: "torque", Name: "motor", I: "rotor", J: "ground", TX: e("0", 46, "tx"), TY: e("0", 46, "ty"), TZ: e("T", 46, "tz"), Frame: "global", Pos: pos(46)},
			{Kind: "spring", Name: "s", I: "top.tip", J: "ground.O", K: e("1000", 47, "k"), C: e("10", 47, "c"),
				Length: e("1", 47, "length"), Preload: e("5", 47, "preload"), Pos: pos(47)},
			{Kind: "rspring", Name: "tors", Joint: "hinge", K: e(num(1/deg), 48, "k"), C: e("0.1", 48, "c"),
				Angle: e(num(30*deg), 48, "angle"), Preload: e("0.5", 48, "preload"), Pos: pos(48)},
			{Kind: "bushing", Name: "mount", I: "ground.O", J: "link",
				KV:  [6]spec.Expr{e("1e+08", 49, "k"), e("1e+08", 49, "k"), e("2e+08", 49, "k"), e("100", 49, "k"), e("100", 49, "k"), e(num(2/deg), 49, "k")},
				CV:  [6]spec.Expr{e("100", 49, "c"), e("100", 49, "c"), e("100", 49, "c"), e("1", 49, "c"), e("1", 49, "c"), e("1", 49, "c")},
				Pos: pos(49)},
		},
		Contacts: []spec.Contact{
			{Kind: "sphere-plane", Name: "floor", Pos: pos(50), Attr: map[string]spec.Expr{
				"i": e("top.tip", 50, "i"), "radius": e("0.05", 50, "radius"), "j": e("ground.B", 50, "j"), "k": e("1e+06", 50, "k"),
				"law": e("hertz", 50, "law"), "friction": e("regularized", 50, "friction"), "mu-static": e("0.5", 50, "mu-static"),
				"mu-dynamic": e("0.4", 50, "mu-dynamic"), "v-static": e("0.001", 50, "v-static"),
			}},
			{Kind: "sphere-sphere", Name: "knock", Pos: pos(51), Attr: map[string]spec.Expr{
				"i": e("top", 51, "i"), "radius-i": e("0.1", 51, "radius-i"), "j": e("rotor", 51, "j"), "radius-j": e("0.2", 51, "radius-j"),
				"k": e("1e+07", 51, "k"), "law": e("hunt-crossley", 51, "law"), "restitution": e("0.8", 51, "restitution"),
				"friction": e("coulomb", 51, "friction"), "mu-static": e("0.2", 51, "mu-static"),
			}},
		},
		Outputs: []spec.Output{
			{Name: "qw", Channel: "top.qw", Pos: pos(52)},
			{Name: "tipz", Channel: "top.tip.z", Pos: pos(53)},
			{Name: "wb", Channel: "rotor.wbz", Description: "spin", Pos: pos(54)},
		},
	}

	// Values converted with π are compared to within rounding; the rest
	// must be exact.
	approx := []struct {
		name      string
		got, want *spec.Expr
	}{
		{"tip angle", &got.Bodies[0].Markers[0].Orient.Angle, &want.Bodies[0].Markers[0].Orient.Angle},
		{"side angles", &got.Bodies[0].Markers[1].Orient.Angles[1], &want.Bodies[0].Markers[1].Orient.Angles[1]},
		{"arm inertia-angles", &got.Bodies[2].InertiaOrient.Angles[2], &want.Bodies[2].InertiaOrient.Angles[2]},
		{"tors k", &got.Forces[3].K, &want.Forces[3].K},
		{"tors angle", &got.Forces[3].Angle, &want.Forces[3].Angle},
		{"mount krz", &got.Forces[4].KV[5], &want.Forces[4].KV[5]},
	}
	for _, a := range approx {
		var g, w float64
		_, err1 := fmt.Sscan(a.got.Src, &g)
		_, err2 := fmt.Sscan(a.want.Src, &w)
		if err1 != nil || err2 != nil || math.Abs(g-w) > 1e-15*math.Abs(w) {
			t.Errorf("%s = %q, want %q", a.name, a.got.Src, a.want.Src)
		}
		a.got.Src = a.want.Src
	}
	if !reflect.DeepEqual(got, want) {
		gv, wv := reflect.ValueOf(*got), reflect.ValueOf(*want)
		for i := 0; i < gv.NumField(); i++ {
			if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
				t.Errorf("%s:\n got %+v\nwant %+v", gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
			}
		}
	}
}

// Ground markers and two spatial bodies that the cases below can refer to.
const base3 = `<ground><marker name="O"/></ground>
<body name="a" mass="1" inertia="1 1 1"><marker name="p"/></body>
<body name="b" mass="1" inertia="1 1 1"><marker name="q"/></body>
`

// TestSpatialErrors checks the exact "file:line: field: message" of each
// problem of a spatial model. The model text starts on line 2 (line 1 is
// <model name="m" dimension="3">); cases that use base3 start on line 5.
func TestSpatialErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"vectors of three", `<body name="x" mass="1" inertia="1 1 1" at="1 2" cm="1, 2" velocity="1 2 3 4" omega="1 2 rad/s"/>
<settings gravity="0 -9.81"/>
<ground><marker name="m" at="1 2 3 4 mm"/></ground>`, []string{
			`m.xml:2: at: bad vector "1 2": want three numbers and an optional unit ("0 0 500 mm") or three expressions separated by commas ("L/2, 0, h")`,
			`m.xml:2: cm: bad vector "1, 2": want three numbers and an optional unit ("0 0 500 mm") or three expressions separated by commas ("L/2, 0, h")`,
			`m.xml:2: velocity: bad vector "1 2 3 4": more than three numbers`,
			`m.xml:2: omega: bad vector "1 2 rad/s": want three numbers and an optional unit ("0 0 500 mm") or three expressions separated by commas ("L/2, 0, h")`,
			`m.xml:3: gravity: bad vector "0 -9.81": want three numbers and an optional unit ("0 0 500 mm") or three expressions separated by commas ("L/2, 0, h")`,
			`m.xml:4: at: bad vector "1 2 3 4 mm": more than three numbers`,
		}},
		{"quaternions", `<body name="x" mass="1" inertia="1 1 1" quaternion="1 0 0">
  <marker name="m1" quaternion="1 0 0 0.1"/>
  <marker name="m2" quaternion="2, 0, 0, 0"/>
  <marker name="m3" quaternion="cos(a), 0, 0, sin(a)"/>
  <marker name="m4" quaternion="0.6 0 0.8 0.0000009"/>
  <marker name="m5" quaternion="0.6 0 0.8 0.002"/>
  <marker name="m6" quaternion="1 0 0 0 deg"/>
</body>`, []string{
			`m.xml:2: quaternion: bad quaternion "1 0 0": want four numbers (w x y z, scalar first: "1 0 0 0") or four expressions separated by commas ("cos(a/2), 0, 0, sin(a/2)")`,
			`m.xml:3: quaternion: must be a unit quaternion (norm 1 within 1e-06); its norm is 1.004987562`,
			`m.xml:4: quaternion: must be a unit quaternion (norm 1 within 1e-06); its norm is 2`,
			`m.xml:7: quaternion: must be a unit quaternion (norm 1 within 1e-06); its norm is 1.000002`,
			`m.xml:8: quaternion: unit "deg" is an angle; expected a plain number (dimensionless)`,
		}},
		{"orientation forms", `<body name="x" mass="1" inertia="1 1 1" quaternion="1 0 0 0" angles="0 0 0" sequence="xyz">
  <marker name="m1" angle="30 deg"/>
  <marker name="m2" axis="0 0 1"/>
  <marker name="m3" axis="0 0 0" angle="1"/>
  <marker name="m4" angles="0 0 1"/>
  <marker name="m5" sequence="zxz"/>
  <marker name="m6" angles="0 0 1" sequence="xyy"/>
  <marker name="m7" z-axis="0 0 1"/>
  <marker name="m8" x-axis="1 0 0" y-axis="0 1 0" z-axis="0 0 1"/>
  <marker name="m9" x-axis="0 0 0" y-axis="0 1 0"/>
  <marker name="m10" x-axis="1 0 0" z-axis="-2, 0, 0"/>
  <marker name="m11" x-axis="1 0 0" y-axis="1 1e-7 0"/>
  <marker name="m12" x-axis="1 0 0" y-axis="1 1e-5 0"/>
  <marker name="m13" x-axis="1 0 0" y-axis="u, 1, 0" axis="0 1 0" angle="1"/>
</body>
<body name="y" mass="1" inertia="1 1 1" angle="1"/>`, []string{
			`m.xml:2: angles: a second orientation (the first is quaternion); give one of quaternion, axis with angle, angles with sequence, or two of x-axis, y-axis, z-axis`,
			`m.xml:3: angle: a single angle is planar; in a spatial model angle is the angle of a rotation about axis="x, y, z" (give axis too), or give quaternion, angles with sequence, or two of x-axis, y-axis, z-axis`,
			`m.xml:4: angle: required with axis (the angle of the rotation about it)`,
			`m.xml:5: axis: must not be zero (it is the direction of the rotation axis)`,
			`m.xml:6: sequence: required with angles: one of xyz, xzy, yxz, yzx, zxy, zyx, xyx, xzx, yxy, yzy, zxz, zyz`,
			`m.xml:7: angles: required with sequence (the three angles)`,
			`m.xml:8: sequence: unknown value "xyy"; want one of xyz, xzy, yxz, yzx, zxy, zyx, xyx, xzx, yxy, yzy, zxz, zyz; did you mean "xyz"?`,
			`m.xml:9: z-axis: needs a second axis direction: give exactly two of x-axis, y-axis, z-axis`,
			`m.xml:10: z-axis: give exactly two of x-axis, y-axis, z-axis (the third follows from them)`,
			`m.xml:11: x-axis: must not be zero (it is an axis direction)`,
			`m.xml:12: z-axis: is parallel to x-axis (1, 0, 0 and -2, 0, 0); two axis directions must differ by more than 1e-06 rad`,
			`m.xml:13: y-axis: is parallel to x-axis (1, 0, 0 and 1, 1e-07, 0); two axis directions must differ by more than 1e-06 rad`,
			`m.xml:15: axis: a second orientation (the first is x-axis); give one of quaternion, axis with angle, angles with sequence, or two of x-axis, y-axis, z-axis`,
			`m.xml:17: angle: a single angle is planar; in a spatial model angle is the angle of a rotation about axis="x, y, z" (give axis too), or give quaternion, angles with sequence, or two of x-axis, y-axis, z-axis`,
		}},
		{"inertia", `<body name="i1" mass="1" inertia="0.1"/>
<body name="i2" mass="1" inertia="1 2"/>
<body name="i3" mass="1" inertia="1 2 4"/>
<body name="i4" mass="1" inertia="1 0 1"/>
<body name="i5" mass="1" inertia="1 1 1 2 0 0"/>
<body name="i6" mass="1" inertia="2 2 0.5 1 0 0"/>
<body name="i7" mass="1" inertia="2 2 1 1 0 0" inertia-quaternion="1 0 0 0"/>
<body name="i8" mass="1" inertia="1 2 3 kg"/>
<body name="i9" mass="1" inertia="1 1 1 0 0 0 0"/>
<body name="i10" mass="1" inertia="J, J, 2*J"/>
<body name="i11" mass="1" inertia="1 1 1" inertia-angle="1"/>
<body name="i12" mass="1" inertia="1 1 1" inertia-angles="0 0 1"/>
<body name="i13" mass="1" inertia="1 1 2" inertia-z-axis="0 0 1" inertia-x-axis="0 0 1"/>
<body name="i14" mass="1" inertia="1, 1, 1, 0.5, 0.5, 0.5"/>`, []string{
			`m.xml:2: inertia: a single moment of inertia is planar; a spatial body takes inertia="Jxx, Jyy, Jzz" (moments about its axes, or principal moments with inertia-quaternion and the like) or "Jxx, Jyy, Jzz, Jxy, Jxz, Jyz" (the tensor)`,
			`m.xml:3: inertia: bad inertia "1 2": want three numbers Jxx Jyy Jzz or six Jxx Jyy Jzz Jxy Jxz Jyz, with an optional unit ("40 60 80 kg*mm^2"), or as many expressions separated by commas ("Jt, Jt, Ja")`,
			`m.xml:4: inertia: violates the triangle inequality Jxx + Jyy ≥ Jzz (1 + 2 < 4 kg*m^2); no rigid body has these moments`,
			`m.xml:5: inertia: Jxx, Jyy, Jzz must be > 0 (got 1, 0, 1 kg*m^2)`,
			`m.xml:6: inertia: the tensor is not positive definite (eigenvalues -1, 1, 3 kg*m^2)`,
			`m.xml:7: inertia: the principal moments (eigenvalues 0.5, 1, 3 kg*m^2) violate the triangle inequality: 0.5 + 1 < 3; no rigid body has them`,
			`m.xml:8: inertia: with inertia-quaternion give the three principal moments Jxx, Jyy, Jzz, not products of inertia`,
			`m.xml:9: inertia: unit "kg" is a mass; moment of inertia needs kg*m^2 (or kg*mm^2, g*mm^2)`,
			`m.xml:10: inertia: bad inertia "1 1 1 0 0 0 0": more than six numbers`,
			`m.xml:12: inertia-axis: required with inertia-angle (the axis the rotation is about)`,
			`m.xml:13: inertia-sequence: required with inertia-angles: one of xyz, xzy, yxz, yzx, zxy, zyx, xyx, xzx, yxy, yzy, zxz, zyz`,
			`m.xml:14: inertia-x-axis: is parallel to inertia-z-axis (0, 0, 1 and 0, 0, 1); two axis directions must differ by more than 1e-06 rad`,
			`m.xml:15: inertia: the principal moments (eigenvalues 0.5, 0.5, 2 kg*m^2) violate the triangle inequality: 0.5 + 0.5 < 2; no rigid body has them`,
		}},
		{"angular velocity", `<body name="x" mass="1" inertia="1 1 1" omega="60 rpm" omega-frame="world"/>
<body name="y" mass="1" inertia="1 1 1" omega="w0"/>`, []string{
			`m.xml:2: omega: a single angular velocity is planar; in a spatial model omega is the vector "wx, wy, wz", in the body frame (or the world frame with omega-frame="global")`,
			`m.xml:2: omega-frame: unknown value "world"; want one of body, global`,
			`m.xml:3: omega: a single angular velocity is planar; in a spatial model omega is the vector "wx, wy, wz", in the body frame (or the world frame with omega-frame="global")`,
		}},
		{"solids", `<body name="x" mass="1" inertia="1 1 1">
  <box/>
  <box size="0 1 1" color="red"/>
  <cylinder radius="0" length="1" z-axis="0 0 1"/>
  <sphere radius="1" angle="1"/>
  <shape radius="1"/>
  <sphere radius="1 kg" color="#12345g"/>
</body>`, []string{
			`m.xml:3: size: required attribute of <box> is missing`,
			`m.xml:4: size: every edge length must be > 0 (got 0, 1, 1 m)`,
			`m.xml:4: color: "red" is not a colour "#rrggbb" (such as "#3070c0")`,
			`m.xml:5: radius: must be > 0 (got 0)`,
			`m.xml:5: z-axis: needs a second axis direction: give exactly two of x-axis, y-axis, z-axis`,
			`m.xml:6: angle: unknown attribute of <sphere>`,
			`m.xml:7: <shape>: <shape> is planar drawing geometry; a spatial body is drawn with <box>, <cylinder> and <sphere>`,
			`m.xml:8: radius: unit "kg" is a mass; length needs m (or mm, cm, km)`,
			`m.xml:8: color: "#12345g" is not a colour "#rrggbb" (such as "#3070c0")`,
		}},
		{"joints", base3 + `<spherical name="s" i="a.p" j="a"/>
<distance name="d" i="a" j="b" distance="0"/>
<hinge name="h" i="a" j="b"/>
<universal name="u" i="a" j="ground.X"/>`, []string{
			`m.xml:5: j: i and j are on the same body "a"; a joint connects two bodies`,
			`m.xml:6: distance: must be > 0 (got 0)`,
			`m.xml:7: <hinge>: unknown element inside <model>`,
			`m.xml:8: j: ground has no marker "X"`,
		}},
		{"drivers", base3 + `<revolute name="pin" i="ground.O" j="a"/>
<cylindrical name="cyl" i="a.p" j="b"/>
<translational name="tr" i="ground" j="b.q"/>
<spherical name="ball" i="ground" j="b"/>
<driver name="d1" body="a" coord="angle" value="0"/>
<driver name="d2" body="a" coord="disp" value="0"/>
<driver name="d3" joint="pin" coord="x" value="0"/>
<driver name="d4" joint="cyl" value="0"/>
<driver name="d5" joint="pin" coord="disp" value="0"/>
<driver name="d6" joint="tr" coord="angle" value="0"/>
<driver name="d7" joint="ball" value="0"/>
<driver name="d8" joint="pin" value="5 mm"/>
<driver name="d9" joint="cyl" coord="disp" value="5 deg"/>
<driver name="d10" joint="tr" value="5 mm"/>
<driver name="d11" body="b" coord="z" value="1 deg"/>
<driver name="d12" body="b" value="0"/>
<driver name="d13"  value="0"/>
<driver name="d14" joint="cyl" coord="angle" value="5 deg"/>`, []string{
			`m.xml:9: coord: "angle" drives the orientation of a planar body; in a spatial model drive the angle of a revolute or cylindrical joint (<driver joint="..." coord="angle">)`,
			`m.xml:10: coord: "disp" is a joint coordinate; with body give x, y or z`,
			`m.xml:11: coord: with joint, coord is "angle" or "disp" (x, y and z are for body drivers)`,
			`m.xml:12: coord: required for the cylindrical joint "cyl": "angle" (the rotation about its axis) or "disp" (the slide along it)`,
			`m.xml:13: coord: the revolute joint "pin" has an angle only; coord="disp" is for prismatic and cylindrical joints`,
			`m.xml:14: coord: the <translational> joint "tr" has a displacement only; coord="angle" is for revolute and cylindrical joints`,
			`m.xml:15: joint: "ball" is a <spherical> joint; a driver needs a revolute, prismatic or cylindrical joint`,
			`m.xml:16: value: unit "mm" is a length; angle needs rad (or deg, rev)`,
			`m.xml:17: value: unit "deg" is an angle; length needs m (or mm, cm, km)`,
			`m.xml:19: value: unit "deg" is an angle; length needs m (or mm, cm, km)`,
			`m.xml:20: coord: required attribute of <driver> is missing (with body: x, y or z)`,
			`m.xml:21: joint: missing: give joint="..." (a revolute, prismatic or cylindrical joint) or body="..." with coord="x|y|z"`,
		}},
		{"forces", base3 + `<revolute name="pin" i="ground.O" j="a"/>
<spherical name="ball" i="ground" j="b"/>
<torque name="t1" i="a" t="1"/>
<torque name="t2" i="a" tx="1 N" frame="body"/>
<force name="f1" i="a.p" fz="1 N*m"/>
<rspring name="r1" i="a" j="b" k="1"/>
<rspring name="r2" joint="pn" k="1 N/m"/>
<rspring name="r3" joint="ball"/>
<rspring name="r4" joint="a"/>
<bushing name="b1" i="a" j="b" k="1 1 1 1 1"/>
<bushing name="b2" i="a" j="b" k="1 1 1 1 1 1 N/m"/>
<bushing name="b3" i="a" j="b" k="1 N/m, 1 N/m, 1 N/m, 1 N/m, 1, 1" c="1 N*s/m, 1, 1, 1, 1 N*m*s/deg, 1 N*s/m"/>
<bushing name="b4" i="a" j="b"/>
<bushing name="b5" i="a" j="b" k="1 1 1 1 1 1 1"/>
<bushing name="b6" i="a" c="1 1 1 1 1 1 N*s/m"/>`, []string{
			`m.xml:7: t: t is a planar torque (about the normal of the plane); in a spatial model give the components tx, ty, tz (frame="global" or "marker")`,
			`m.xml:8: tx: unit "N" is a force; torque needs N*m (or N*mm, kN*m)`,
			`m.xml:8: frame: unknown value "body"; want one of global, marker`,
			`m.xml:9: fz: unit "N*m" is a torque; force needs N (or kN, mN)`,
			`m.xml:10: i: a spatial <rspring> acts about the axis of a revolute joint: give joint="..." (the revolute) instead of i and j`,
			`m.xml:10: j: a spatial <rspring> acts about the axis of a revolute joint: give joint="..." (the revolute) instead of i and j`,
			`m.xml:10: joint: required attribute of <rspring> is missing`,
			`m.xml:11: k: unit "N/m" is a stiffness; rotational stiffness needs N*m/rad (or N*m/deg, N*mm/deg)`,
			`m.xml:11: joint: unknown joint "pn"; did you mean "pin"?`,
			`m.xml:12: joint: "ball" is a <spherical> joint; a spatial <rspring> acts about the axis of a revolute joint`,
			`m.xml:13: joint: "a" is a <body>, not a joint`,
			`m.xml:14: k: bad value "1 1 1 1 1": want six numbers in SI units (translations x, y, z, then rotations x, y, z) or six values separated by commas, each with its own unit ("1 N/m, 1 N/m, 1 N/m, 1 N*m/rad, 1 N*m/rad, 1 N*m/rad")`,
			`m.xml:15: k: one unit ("N/m") cannot serve every component (N/m and N*m/rad): write the values in SI without a unit, or give each its own unit and separate them by commas`,
			`m.xml:16: k: component 4 (rotation about x): unit "N/m" is a stiffness; rotational stiffness needs N*m/rad (or N*m/deg, N*mm/deg)`,
			`m.xml:16: c: component 6 (rotation about z): unit "N*s/m" is a damping; rotational damping needs N*m*s/rad (or N*m*s/deg)`,
			`m.xml:17: k: a <bushing> needs k, c or both (six stiffnesses, six dampings)`,
			`m.xml:18: k: bad value "1 1 1 1 1 1 1": more than six numbers`,
			`m.xml:19: c: one unit ("N*s/m") cannot serve every component (N*s/m and N*m*s/rad): write the values in SI without a unit, or give each its own unit and separate them by commas`,
			`m.xml:19: j: required attribute of <bushing> is missing`,
		}},
		{"contacts and beams", base3 + `<contact kind="circle-line" name="c1" i="a" radius="1" j="b"/>
<contact kind="sphere-plane" name="c2" i="a" j="b" k="1e5"/>
<contact kind="sphere-sphere" name="c3" i="a" radius-i="1" j="b" radius-j="-1" k="1" friction="viscous"/>
<contact kind="sphere-cylinder" name="c4"/>
<beam kind="ffr" name="beam"/>`, []string{
			`m.xml:5: kind: "circle-line" is a planar contact kind; a spatial model has sphere-plane and sphere-sphere`,
			`m.xml:6: radius: required attribute of <contact> is missing`,
			`m.xml:7: radius-j: must be > 0 (got -1)`,
			`m.xml:7: friction: unknown value "viscous"; want one of none, coulomb, regularized, lugre`,
			`m.xml:8: kind: unknown <contact> kind "sphere-cylinder"; want one of sphere-plane, sphere-sphere`,
			`m.xml:9: i: required attribute of <beam> is missing`,
			`m.xml:9: length: required attribute of <beam> is missing`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte("<model name=\"m\" dimension=\"3\">\n"+tc.body+"\n</model>\n"), "m.xml")
			checkErrors(t, err, tc.want)
		})
	}
}

// The root's dimension: 2 (also when absent) or 3; anything else is an
// error and the file is read as planar.
func TestDimension(t *testing.T) {
	tests := []struct {
		src  string
		dim  int
		want []string
	}{
		{`<model name="m"/>`, 0, nil},
		{`<model name="m" dimension="2"/>`, 2, nil},
		{`<model name="m" dimension=" 3 "/>`, 3, nil},
		{`<model name="m" dimension="4"/>`, 4, []string{`d.xml:1: dimension: must be 2 (planar) or 3 (spatial), got 4`}},
		{`<model name="m" dimension="3d"/>`, 0, []string{`d.xml:1: dimension: "3d" is not an integer`}},
		{"<model name=\"m\" dimension=\"4\">\n<body name=\"b\" mass=\"1\" inertia=\"1\" at=\"1 2\"/>\n</model>", 4,
			[]string{`d.xml:1: dimension: must be 2 (planar) or 3 (spatial), got 4`}},
	}
	for _, tc := range tests {
		m, err := Parse([]byte(tc.src), "d.xml")
		checkErrors(t, err, tc.want)
		if m.Dimension != tc.dim {
			t.Errorf("%s: Dimension = %d, want %d", tc.src, m.Dimension, tc.dim)
		}
	}
}

// What belongs to the other dimension says so: spatial elements and
// attributes in a planar model, planar ones in a spatial model.
func TestOtherDimension(t *testing.T) {
	planar := `<model name="m">
<body name="a" mass="1" inertia="1" quaternion="1 0 0 0"><box size="1 1 1"/></body>
<spherical name="s" i="ground" j="a"/>
<torque name="t" i="a" tz="1"/>
<bushing name="b" i="ground" j="a"/>
<contact kind="sphere-plane" name="c" i="a" j="ground" radius="1" k="1"/>
</model>`
	_, err := Parse([]byte(planar), "p.xml")
	checkErrors(t, err, []string{
		`p.xml:2: quaternion: unknown attribute of <body>; quaternion is spatial: it belongs to models with <model dimension="3">`,
		`p.xml:2: <box>: unknown element inside <body>; <box> is spatial: it belongs to models with <model dimension="3">`,
		`p.xml:3: <spherical>: unknown element inside <model>; <spherical> is spatial: it belongs to models with <model dimension="3">`,
		`p.xml:4: tz: unknown attribute of <torque>; tz is spatial: it belongs to models with <model dimension="3">`,
		`p.xml:4: t: required attribute of <torque> is missing`,
		`p.xml:5: <bushing>: unknown element inside <model>; <bushing> is spatial: it belongs to models with <model dimension="3">`,
		`p.xml:6: kind: unknown <contact> kind "sphere-plane"; want one of circle-line, point-line, circle-segment, point-segment, circle-circle, point-circle`,
	})
	spatial := `<model name="m" dimension="3">
<ground><marker name="O"/><shape radius="1"/></ground>
<body name="a" mass="1" inertia="1 1 1"><shape radius="1"/></body>
<revolute name="r" i="ground.O" j="a"/>
<rspring name="k" joint="r" k="1"/>
</model>`
	_, err = Parse([]byte(spatial), "s.xml")
	checkErrors(t, err, []string{
		`s.xml:2: <shape>: unknown element inside <ground>; <shape> is planar: it belongs to models without dimension="3"`,
		`s.xml:3: <shape>: <shape> is planar drawing geometry; a spatial body is drawn with <box>, <cylinder> and <sphere>`,
	})
}

// Inertias of real bodies pass the parse-time checks, including those on
// the boundary of the triangle inequality (flat plates) and tensors with
// products of inertia.
func TestInertiaOfBodies(t *testing.T) {
	// A box 0.1 × 0.2 × 0.3 m of 6 kg: J = m/12 (b² + c², a² + c², a² + b²).
	// Turned by 30° about z its tensor gains Jxy (the entry, −∫xy dm).
	m, a, b, c := 6.0, 0.1, 0.2, 0.3
	jx, jy, jz := m/12*(b*b+c*c), m/12*(a*a+c*c), m/12*(a*a+b*b)
	s, co := math.Sin(math.Pi/6), math.Cos(math.Pi/6)
	rx := co*co*jx + s*s*jy
	ry := s*s*jx + co*co*jy
	rxy := co * s * (jx - jy)
	for _, inertia := range []string{
		fmt.Sprintf("%.17g %.17g %.17g", jx, jy, jz),
		fmt.Sprintf("%.17g %.17g %.17g %.17g 0 0", rx, ry, jz, rxy),
		"1 2 3",             // a flat plate in the xy plane: Jxx + Jyy = Jzz
		"0.5 1.5 2 0.5 0 0", // another plate, turned about z: eigenvalues 1 ∓ √0.5, 2
		"1e-9 1e-9 2e-9 kg*m^2",
	} {
		src := `<model name="m" dimension="3"><body name="b" mass="1" inertia="` + inertia + `"/></model>`
		if _, err := Parse([]byte(src), "i.xml"); err != nil {
			t.Errorf("inertia %q: %v", inertia, err)
		}
	}
}

// SymEig3 finds the eigenvalues of R·diag(λ)·Rᵀ for rotations R built from
// known angles, to rounding.
func TestSymEig3(t *testing.T) {
	rot := func(axis int, a float64) [3][3]float64 {
		var r [3][3]float64
		i, j := (axis+1)%3, (axis+2)%3
		r[axis][axis] = 1
		r[i][i], r[i][j], r[j][i], r[j][j] = math.Cos(a), -math.Sin(a), math.Sin(a), math.Cos(a)
		return r
	}
	mul := func(a, b [3][3]float64) (c [3][3]float64) {
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					c[i][j] += a[i][k] * b[k][j]
				}
			}
		}
		return c
	}
	tr := func(a [3][3]float64) (b [3][3]float64) {
		for i := range 3 {
			for j := range 3 {
				b[i][j] = a[j][i]
			}
		}
		return b
	}
	for _, tc := range []struct {
		lambda [3]float64
		angles [3]float64
	}{
		{[3]float64{1, 2, 3}, [3]float64{0.3, -1.1, 2.5}},
		{[3]float64{-1, 0.5, 0.5}, [3]float64{1, 1, 1}}, // repeated eigenvalue
		{[3]float64{1e-4, 2e-4, 2.5e-4}, [3]float64{0, 0.7, 0}},
		{[3]float64{2, 2, 2}, [3]float64{0.1, 0.2, 0.3}},
		{[3]float64{0, 1, 1e6}, [3]float64{-0.4, 0.9, 3}},
	} {
		r := mul(mul(rot(2, tc.angles[0]), rot(0, tc.angles[1])), rot(2, tc.angles[2]))
		var d [3][3]float64
		for i, l := range tc.lambda {
			d[i][i] = l
		}
		got := SymEig3(mul(mul(r, d), tr(r)))
		// Rounding is relative to the largest eigenvalue.
		tol := 1e-14 * max(math.Abs(tc.lambda[0]), math.Abs(tc.lambda[2]))
		for i := range got {
			if math.Abs(got[i]-tc.lambda[i]) > tol {
				t.Errorf("eigenvalues of R diag%v Rᵀ = %v", tc.lambda, got)
				break
			}
		}
	}
}

func BenchmarkParseSpatial(b *testing.B) {
	data, err := os.ReadFile("testdata/spatial.xml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, "spatial.xml"); err != nil {
			b.Fatal(err)
		}
	}
}

// Space-separated components whose second one is negative are a vector,
// not the expression "a − b" (which would draw the planar hint).
func TestNegativeComponents(t *testing.T) {
	src := `<model name="m" dimension="3">
<body name="b" mass="1" inertia="1 1 1" omega="1.92 -0.96 0.48 rad/s" velocity="0.12 -0.24 0"/>
<body name="c" mass="1" inertia="1 1 1" omega="0 -60 0 rpm"/>
</model>`
	m, err := Parse([]byte(src), "m.xml")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][3]string{{"1.92", "-0.96", "0.48"}, {"0", "-6.283185307179587", "0"}} {
		w := m.Bodies[i].AngVel
		for k := range 3 {
			if w[k].Src != want[k] {
				t.Errorf("body %d omega[%d] = %q, want %q", i, k, w[k].Src, want[k])
			}
		}
	}
	if v := m.Bodies[0].Vel; v[1].Src != "-0.24" {
		t.Errorf("velocity[1] = %q, want -0.24", v[1].Src)
	}
}
