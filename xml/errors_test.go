package xml

import (
	"errors"
	"mbfmu/spec"
	"os"
	"strings"
	"testing"
)

// Two bodies and a ground marker that the cases below can refer to.
const base = `<ground><marker name="O"/></ground>
<body name="a" mass="1" inertia="1"><marker name="p"/></body>
<body name="b" mass="1" inertia="1"><marker name="q"/></body>
`

// TestErrors checks the exact "file:line: field: message" of each class of
// problem. The model text starts on line 2 (line 1 is <model name="m">);
// cases that use base start on line 5.
func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"malformed XML", "<body name=\"a\" mass=\"1\" inertia=\"1\">\n", []string{
			`m.xml:4: malformed XML: element <body> closed by </model>`,
		}},
		{"malformed attribute", `<body name=a/>`, []string{
			`m.xml:2: malformed XML: unquoted or missing attribute value in element`,
		}},
		{"unknown element", `<bdy name="x"/>`, []string{
			`m.xml:2: <bdy>: unknown element inside <model>; did you mean <body>?`,
		}},
		{"misplaced element", `<marker name="x"/>`, []string{
			`m.xml:2: <marker>: <marker> is not allowed inside <model>; it belongs inside <ground> or <body> or <beam>`,
		}},
		{"unknown attribute", `<body name="x" mas="1" inertia="1"/>`, []string{
			`m.xml:2: mas: unknown attribute of <body>; did you mean "mass"?`,
			`m.xml:2: mass: required attribute of <body> is missing`,
		}},
		{"unknown attribute far from any", `<body name="x" mass="1" inertia="1" colour="red"/>`, []string{
			`m.xml:2: colour: unknown attribute of <body>`,
		}},
		{"attribute twice", `<body name="x" mass="1" mass="2" inertia="1"/>`, []string{
			`m.xml:2: mass: attribute given twice (first on line 2)`,
		}},
		{"missing required", `<body name="x"/>` + "\n" + `<revolute name="r" i="ground"/>`, []string{
			`m.xml:2: mass: required attribute of <body> is missing`,
			`m.xml:2: inertia: required attribute of <body> is missing`,
			`m.xml:3: j: required attribute of <revolute> is missing`,
		}},
		{"duplicate names", base + `<revolute name="a" i="ground.O" j="b"/>
<parameter name="x" value="1"/>
<output name="x" channel="a.x"/>
<marker name="p"/>`, []string{
			`m.xml:5: name: duplicate name "a": <body> on line 3 has it already (bodies, beams, joints, drivers, forces and contacts share one namespace)`,
			`m.xml:7: name: duplicate name "x": <parameter> on line 6 has it already (parameters, inputs, tables, states, variables and outputs share one namespace)`,
			`m.xml:8: <marker>: <marker> is not allowed inside <model>; it belongs inside <ground> or <body> or <beam>`,
		}},
		{"duplicate marker", `<body name="x" mass="1" inertia="1">
  <marker name="p"/>
  <marker name="p"/>
</body>`, []string{
			`m.xml:4: name: duplicate marker "p" (first on line 3)`,
		}},
		{"reserved and invalid names", `<body name="ground" mass="1" inertia="1"/>
<parameter name="time" value="1"/>
<body name="2x" mass="1" inertia="1"/>`, []string{
			`m.xml:2: name: "ground" is a reserved name`,
			`m.xml:3: name: "time" is a reserved name`,
			`m.xml:4: name: "2x" is not a valid name (use letters, digits and _, not starting with a digit)`,
		}},
		{"non-positive mass and inertia", `<body name="x" mass="0" inertia="-1 kg*m^2"/>
<body name="y" mass="m0" inertia="-I0"/>`, []string{
			`m.xml:2: mass: must be > 0 (got 0)`,
			`m.xml:2: inertia: must be > 0 (got -1 kg*m^2)`,
		}},
		{"wrong dimension", `<body name="x" mass="1 m" inertia="1 kg*m" omega="2 Hz"/>`, []string{
			`m.xml:2: mass: unit "m" is a length; mass needs kg (or g, t)`,
			`m.xml:2: inertia: unit "kg*m" has dimension kg*m; moment of inertia needs kg*m^2 (or kg*mm^2, g*mm^2)`,
			`m.xml:2: omega: unit "Hz" is a frequency; angular velocity needs rad/s (or deg/s, rpm)`,
		}},
		{"unknown unit", `<body name="x" mass="1 kgs" inertia="1"/>`, []string{
			`m.xml:2: mass: unknown unit "kgs"; did you mean "kg"?`,
		}},
		{"unparsable numbers", `<body name="x" mass="1.2.3" inertia="1e" at="1..0 0"/>
<settings max-iter="8.5" adaptive="maybe"/>`, []string{
			`m.xml:2: mass: "1.2.3" is not a number`,
			`m.xml:2: inertia: "1e" is not a number`,
			`m.xml:2: at: "1..0" is not a number`,
			`m.xml:3: max-iter: "8.5" is not an integer`,
			`m.xml:3: adaptive: "maybe" is not a boolean (true or false)`,
		}},
		{"bad vectors", `<body name="x" mass="1" inertia="1" at="1 2 3" cm="1" velocity="a b">
  <marker name="m1" at="1, 2, 3"/>
  <marker name="m2" at="1 2 3 mm"/>
  <marker name="m3" at="1 2 mm/s"/>
  <marker name="m4" at="1,"/>
</body>`, []string{
			`m.xml:2: at: bad vector "1 2 3": more than two numbers`,
			`m.xml:2: cm: bad vector "1": want two numbers and an optional unit ("500 0 mm") or two expressions separated by a comma ("L/2, 0")`,
			`m.xml:2: velocity: bad vector "a b": want two numbers and an optional unit ("500 0 mm") or two expressions separated by a comma ("L/2, 0")`,
			`m.xml:3: at: bad vector "1, 2, 3": want two numbers and an optional unit ("500 0 mm") or two expressions separated by a comma ("L/2, 0")`,
			`m.xml:4: at: bad vector "1 2 3 mm": more than two numbers`,
			`m.xml:5: at: unit "mm/s" is a velocity; length needs m (or mm, cm, km)`,
			`m.xml:6: at: bad vector "1,": want two numbers and an optional unit ("500 0 mm") or two expressions separated by a comma ("L/2, 0")`,
		}},
		{"settings", `<settings integrator="genalfa" end="-1" rho-inf="2" alpha="0.1" step="0" min-step="1" max-step="0.1" start="L"/>
<settings/>`, []string{
			`m.xml:2: integrator: unknown value "genalfa"; want one of genalpha, hht, newmark, bdf1, bdf2, rk4 (aliases: gen-alpha, generalized-alpha for genalpha; hht-alpha for hht; euler, implicit-euler for bdf1; bdf for bdf2); did you mean "genalpha"?`,
			`m.xml:2: step: must be > 0 (got 0)`,
			`m.xml:2: start: "L" must be a number with an optional unit; expressions are not allowed here`,
			`m.xml:2: rho-inf: must be in [0, 1] (got 2)`,
			`m.xml:2: alpha: must be in [-1/3, 0] (got 0.1)`,
			`m.xml:2: min-step: is larger than max-step (1 s > 0.1 s)`,
			`m.xml:3: <settings>: given twice in <model> (first on line 2)`,
		}},
		{"end before start", `<settings start="2 s" end="1 s"/>`, []string{
			`m.xml:2: end: must be after start (2 s), got 1 s`,
		}},
		{"marker references", base + `<revolute name="r1" i="ground.X" j="c.q"/>
<spring name="s" i="a.pp" j="b.q.r"/>
<revolute name="r2" i="a.p" j="a"/>
<torque name="t" i="r1" t="1"/>`, []string{
			`m.xml:5: i: ground has no marker "X"`,
			`m.xml:5: j: unknown body "c"`,
			`m.xml:6: j: bad reference "b.q.r": want "body.marker" or "body"`,
			`m.xml:6: i: <body> "a" has no marker "pp"; did you mean "p"?`,
			`m.xml:7: j: i and j are on the same body "a"; a joint connects two bodies`,
			`m.xml:8: i: "r1" is a <revolute>, not a body`,
		}},
		{"unknown body with suggestion", base + `<revolute name="r" i="ground" j="aa"/>
<body name="link" mass="1" inertia="1"/>
<force name="f" i="lnk" fx="1"/>`, []string{
			`m.xml:5: j: unknown body "aa"; did you mean "a"?`,
			`m.xml:7: i: unknown body "lnk"; did you mean "link"?`,
		}},
		{"drivers", base + `<revolute name="pin" i="ground.O" j="a"/>
<fixed name="weld" i="a" j="b"/>
<driver name="d1" joint="pn" value="0"/>
<driver name="d2" body="c" coord="x" value="0"/>
<driver name="d3" joint="pin" body="a" value="0"/>
<driver name="d4" value="0"/>
<driver name="d5" body="a" coord="z" value="0"/>
<driver name="d6" joint="weld" value="0"/>
<driver name="d7" joint="a" value="0"/>
<driver name="d8" joint="pin" value="5 mm"/>
<driver name="d9" body="b" coord="x" value="5 deg"/>
<driver name="d10" body="b" value="0"/>
<driver name="d11" joint="pin" coord="x" value="0"/>
<driver name="d12" body="pin" coord="x" value="0"/>
<driver name="d13" body="ground" coord="x" value="0"/>`, []string{
			`m.xml:7: joint: unknown joint "pn"; did you mean "pin"?`,
			`m.xml:8: body: unknown body "c"`,
			`m.xml:9: body: give either joint or body (with coord), not both`,
			`m.xml:10: joint: missing: give joint="..." (a revolute or translational joint) or body="..." with coord="x|y|angle"`,
			`m.xml:11: coord: unknown value "z"; want one of x, y, angle`,
			`m.xml:12: joint: "weld" is a <fixed> joint; a driver needs a revolute or translational joint`,
			`m.xml:13: joint: "a" is a <body>, not a joint`,
			`m.xml:14: value: unit "mm" is a length; angle needs rad (or deg, rev)`,
			`m.xml:15: value: unit "deg" is an angle; length needs m (or mm, cm, km)`,
			`m.xml:16: coord: required attribute of <driver> is missing (with body: x, y or angle)`,
			`m.xml:17: coord: is only for body drivers (a joint driver drives the joint's own coordinate)`,
			`m.xml:18: body: "pin" is a <revolute>, not a rigid body`,
			`m.xml:19: body: the ground cannot be driven`,
		}},
		{"tables", `<table name="t1" x="0 1 1" y="1 2 3"/>
<table name="t2" x="0 1 2" y="1 2"/>
<table name="t3" x="0 1 2 s" y="1 2 3"/>
<table name="t4" x="0 1" y="1 2">0 0; 1 1</table>
<table name="t5" kind="cubic" x="0 1" y="1 2"/>
<table name="t6" x="0" y="1"/>
<table name="t7" y="1 2"/>
<table name="t8" x="0 1" y="0 1" x-unit="zz"/>
<table name="t9">
  0 0
  2 1
  1 1
</table>`, []string{
			`m.xml:2: x: must be strictly increasing (x[3] = 1 after x[2] = 1)`,
			`m.xml:3: y: has 2 values but x has 3`,
			`m.xml:4: x: value 4 ("s") is not a number (give units with the x-unit and y-unit attributes)`,
			`m.xml:5: <table>: give the points either as x and y attributes or as rows of text, not both`,
			`m.xml:6: kind: unknown value "cubic"; want one of linear, spline, akima`,
			`m.xml:7: x: a table needs at least 2 points`,
			`m.xml:8: x: required attribute of <table> is missing`,
			`m.xml:9: x-unit: unknown unit "zz"`,
			`m.xml:11: x: must be strictly increasing (x[3] = 1 after x[2] = 2)`,
		}},
		{"parameters and inputs", `<parameter name="p1" value="L/2"/>
<parameter name="p2" value="5 mm" unit="kg"/>
<parameter name="p3"/>
<input name="u1" unit="N/zz" start="1"/>
<input name="u2" start="2 q"/>`, []string{
			`m.xml:2: value: "L/2" must be a number with an optional unit; expressions are not allowed here`,
			`m.xml:3: value: unit "mm" is a length but unit="kg" is a mass`,
			`m.xml:4: value: required attribute of <parameter> is missing`,
			`m.xml:5: unit: unknown unit "zz"`,
			`m.xml:6: start: unknown unit "q"`,
		}},
		{"shapes", `<body name="x" mass="1" inertia="1">
  <shape/>
  <shape radius="0"/>
</body>
<body name="y" mass="1" inertia="1"><shape outline="0 0; 1 1" radius="-1 mm"/></body>
<body name="z" mass="1" inertia="1"><shape outline="0 0; 1; 1 1 1; 0 a"/></body>`, []string{
			`m.xml:3: <shape>: needs outline or radius`,
			`m.xml:4: <shape>: given twice in <body> (first on line 3)`,
			`m.xml:6: radius: must be > 0 (got -1 mm)`,
			`m.xml:6: outline: a polygon needs at least 3 points`,
			`m.xml:7: outline: row 2 ("1") must be two numbers "x y"`,
			`m.xml:7: outline: row 3 ("1 1 1") must be two numbers "x y"`,
			`m.xml:7: outline: row 4: "a" is not a number`,
		}},
		{"forces", base + `<force name="f" i="a.p" fx="1 N*m" frame="local"/>
<spring name="s" i="a" j="b" k="1 N*m/rad" c="1 N*s"/>
<rspring name="r" i="a" j="b" k="1 N/m" angle="1 m"/>
<torque name="t" i="a" t="1 N"/>`, []string{
			`m.xml:5: fx: unit "N*m" is a torque; force needs N (or kN, mN)`,
			`m.xml:5: frame: unknown value "local"; want one of global, marker; did you mean "global"?`,
			`m.xml:6: k: unit "N*m/rad" is a rotational stiffness; stiffness needs N/m (or N/mm, kN/m)`,
			`m.xml:6: c: unit "N*s" has dimension kg*m*s^-1; damping needs N*s/m (or N*s/mm)`,
			`m.xml:7: k: unit "N/m" is a stiffness; rotational stiffness needs N*m/rad (or N*m/deg, N*mm/deg)`,
			`m.xml:7: angle: unit "m" is a length; angle needs rad (or deg, rev)`,
			`m.xml:8: t: unit "N" is a force; torque needs N*m (or N*mm, kN*m)`,
		}},
		{"outputs", base + `<revolute name="pin" i="ground.O" j="a"/>
<input name="u"/>
<output name="o1" channel="u"/>
<output name="o2" channel="a.p.x" expr="1"/>
<output name="o3"/>
<output name="o4" channel="lnk.x"/>
<output name="o5" channel="a.qq.x"/>
<output name="o6" channel="time"/>
<output name="o7" channel="energy.kinetic.x"/>
<output name="o8" channel="x"/>
<output name="o9" expr="dx(a.p)" unit="mm"/>
<output name="o10" channel="pin.p.x"/>
<output name="o11" channel="a.b.c.d"/>`, []string{
			`m.xml:8: expr: give either channel or expr, not both`,
			`m.xml:9: channel: missing: give channel="body.quantity" (such as "link.x") or expr="..."`,
			`m.xml:10: channel: unknown element "lnk" in channel "lnk.x"`,
			`m.xml:11: channel: <body> "a" has no marker "qq"`,
			`m.xml:13: channel: bad channel "energy.kinetic.x": want energy.quantity`,
			`m.xml:14: channel: unknown channel "x": a one-word channel is "time", an input, a <state> or a <variable>`,
			`m.xml:15: unit: unit "mm" is not SI: outputs are in SI units; write "m" (or scale an expression output and name its unit)`,
			`m.xml:16: channel: <revolute> "pin" has no markers (channel "pin.p.x")`,
			`m.xml:17: channel: bad channel "a.b.c.d": want "element.quantity" or "body.marker.quantity" (such as "link.x", "link.tip.vy", "energy.total"), "time" or an input`,
		}},
		{"beams and contacts", base + `<beam kind="ancfx" name="b1" foo="1"/>
<beam kind="ancf" name="b2" at="0 0" length="1 kg" area="1 mm^2" area-moment="1 mm^4" youngs="1 GPa" density="1 g/cm^3" foo="1">
  <marker name="e" s="1"/>
  <shape radius="1"/>
  <marker name="e" s="2"/>
</beam>
<contact kind="circle-line" name="c1" i="a.p" j="b2.e" radius="0" k="1e5"/>
<contact name="c2"/>
<revolute name="r" i="b2.e" j="b2.f"/>`, []string{
			`m.xml:5: kind: unknown <beam> kind "ancfx"; want one of ancf, ffr; did you mean "ancf"?`,
			`m.xml:6: length: unit "kg" is a mass; length needs m (or mm, cm, km)`,
			`m.xml:6: foo: unknown attribute of <beam>`,
			`m.xml:8: <shape>: <shape> is not allowed inside <beam>; it belongs inside <body>`,
			`m.xml:9: name: duplicate marker "e" (first on line 7)`,
			`m.xml:11: radius: must be > 0 (got 0)`,
			`m.xml:12: kind: required attribute of <contact> is missing`,
			`m.xml:13: j: <beam> "b2" has no marker "f"`,
		}},
		{"text and root", `<body name="x" mass="1" inertia="1">hello</body>`, []string{
			`m.xml:2: <body>: unexpected text "hello"`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte("<model name=\"m\">\n"+tc.body+"\n</model>\n"), "m.xml")
			checkErrors(t, err, tc.want)
		})
	}
}

func TestRootErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{``, `r.xml:1: malformed XML: no <model> element: the file is empty`},
		{`<model name="m">`, `r.xml:1: malformed XML: unexpected EOF`},
		{`<foo/>`, `r.xml:1: <foo>: the root element must be <model>`},
		{`<model name="m"/><model name="n"/>`, `r.xml:1: malformed XML: more than one root element (<model> after </model>)`},
		{"<model name=\"m\"/>\ntext", `r.xml:2: malformed XML: text outside the root element`},
		{`<model/>`, `r.xml:1: name: required attribute of <model> is missing`},
		{"<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n<model name=\"m\"/>", `r.xml:1: malformed XML: xml: opening charset "windows-1252": not supported: save the file as UTF-8 (and declare encoding="UTF-8" or nothing); ISO-8859-1 and US-ASCII are read too`},
		{`<model name="m">` + strings.Repeat("<a>", 100), "r.xml:1: malformed XML: elements nested too deeply\nr.xml:1: <a>: unknown element inside <model>"},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.src), "r.xml")
		checkErrors(t, err, strings.Split(tc.want, "\n"))
	}
}

// Every problem of a file is reported, in line order, and the partial
// spec is still returned.
func TestAllErrorsReported(t *testing.T) {
	src := `<model name="m">
<body name="a" mass="-1" inertia="1 m"/>
<revolute name="r" i="ground.X" j="zz"/>
<settings integrator="leapfrog"/>
<table name="t" x="1 0" y="0 1"/>
</model>`
	ms, err := Parse([]byte(src), "all.xml")
	checkErrors(t, err, []string{
		`all.xml:2: mass: must be > 0 (got -1)`,
		`all.xml:2: inertia: unit "m" is a length; moment of inertia needs kg*m^2 (or kg*mm^2, g*mm^2)`,
		`all.xml:3: i: ground has no marker "X" (it has no markers)`,
		`all.xml:3: j: unknown body "zz"`,
		`all.xml:4: integrator: unknown value "leapfrog"; want one of genalpha, hht, newmark, bdf1, bdf2, rk4 (aliases: gen-alpha, generalized-alpha for genalpha; hht-alpha for hht; euler, implicit-euler for bdf1; bdf for bdf2)`,
		`all.xml:5: x: must be strictly increasing (x[2] = 0 after x[1] = 1)`,
	})
	if ms == nil || len(ms.Bodies) != 1 || len(ms.Joints) != 1 {
		t.Errorf("partial spec not returned: %+v", ms)
	}
	var list spec.ErrorList
	if !errors.As(err, &list) || list[0].Field != "mass" || list[0].Pos.Line != 2 {
		t.Errorf("error list fields: %#v", list)
	}
}

func TestLoadFileMissing(t *testing.T) {
	_, err := LoadFile("testdata/no-such-file.xml")
	if err == nil || !strings.Contains(err.Error(), "testdata/no-such-file.xml") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadFile of a missing file: %v", err)
	}
}

// A model file declared and written in ISO-8859-1 is read: its é in a
// description arrives as é.
func TestLatin1ModelFile(t *testing.T) {
	src := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<model name=\"m\" description=\"caf\xe9\"/>")
	m, err := Parse(src, "l.xml")
	if err != nil {
		t.Fatal(err)
	}
	if m.Description != "café" {
		t.Errorf("description %q, want café", m.Description)
	}
}
