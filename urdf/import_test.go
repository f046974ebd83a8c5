package urdf

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

const ur5 = "../examples/ur5/ur5.urdf"

var ur5Joints = []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}

// The imported UR5-class arm, its joints driven through a pose with
// given rates and accelerations, needs at each joint the effort an
// independent recursive Newton–Euler computation on the same URDF gives
// (rneaTorques: its own reader, link by link): at three poses, with joint
// damping and friction, to 1e-9 of the largest effort.
func TestImportMatchesRNEA(t *testing.T) {
	rb, err := Read(ur5)
	if err != nil {
		t.Fatal(err)
	}
	poses := []struct{ q, qd, qdd [6]float64 }{
		{[6]float64{0.3, -1.1, 1.4, -0.7, 0.9, 0.2}, [6]float64{0.5, -0.8, 1.2, 0.6, -1.5, 2}, [6]float64{1, 2, -3, 4, -5, 6}},
		{[6]float64{-2, -0.4, -1.9, 2.5, -0.3, 1.1}, [6]float64{-1.2, 0.9, 0.4, -2.1, 0.7, -0.5}, [6]float64{-2.5, 0.5, 1.5, -1, 3, -0.5}},
		{[6]float64{1.2, -2.2, 0.6, -1.4, 2.2, -2.9}, [6]float64{2, 1.5, -1.7, 0.3, 1.1, 0.8}, [6]float64{0, -4, 2, 2, -1, 1}},
	}
	for n, p := range poses {
		q, qd, qdd := map[string]float64{}, map[string]float64{}, map[string]float64{}
		for k, j := range ur5Joints {
			q[j], qd[j], qdd[j] = p.q[k], p.qd[k], p.qdd[k]
		}
		data, err := rb.Model(Options{Q: q})
		if err != nil {
			t.Fatal(err)
		}
		var drv strings.Builder
		for _, j := range ur5Joints {
			fmt.Fprintf(&drv, "  <driver name=\"d_%s\" joint=\"%s\" value=\"%.17g + %.17g*time + 0.5*%.17g*time^2\"/>\n", j, j, q[j], qd[j], qdd[j])
		}
		text := strings.Replace(string(data), "</model>", drv.String()+"</model>", 1)
		ms, err := xml.Parse([]byte(text), "ur5.xml")
		if err != nil {
			t.Fatal(err)
		}
		m, err := solver.Compile(ms, solver.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := m.NewState()
		if err := m.Init(s); err != nil {
			t.Fatal(err)
		}
		out := make([]float64, len(m.Channels()))
		m.EvalChannels(s, out)
		ch := func(name string) float64 {
			k, ok := m.ChannelIndex(name)
			if !ok {
				t.Fatalf("no channel %q", name)
			}
			return out[k]
		}
		ref := rneaTorques(t, ur5, q, qd, qdd, [3]float64{0, 0, -9.81})
		scale := 0.0
		for _, j := range ur5Joints {
			scale = math.Max(scale, math.Abs(ref[j]))
		}
		worst := 0.0
		defer func(n int) { t.Logf("pose %d: largest difference %.3g of the largest effort", n, worst) }(n)
		for _, j := range ur5Joints {
			if a, w := ch(j+".angle"), q[j]; math.Abs(a-w) > 1e-12 {
				t.Errorf("pose %d: %s at %.15g rad, want %.15g", n, j, a, w)
			}
			if w, want := ch(j+".omega"), qd[j]; math.Abs(w-want) > 1e-12 {
				t.Errorf("pose %d: %s rate %.15g rad/s, want %.15g", n, j, w, want)
			}
			got := ch("d_" + j + ".force")
			worst = math.Max(worst, math.Abs(got-ref[j])/scale)
			t.Logf("pose %d %-20s τ = %14.9f N·m (RNEA %14.9f)", n, j, got, ref[j])
			if math.Abs(got-ref[j]) > 1e-9*scale {
				t.Errorf("pose %d: %s needs %.12g N·m, recursive Newton–Euler %.12g (difference %.3g)", n, j, got, ref[j], got-ref[j])
			}
		}
	}
}

// Bad URDF files are refused naming the element and line.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	link := func(name, inertial string) string {
		return `<link name="` + name + `">` + inertial + `</link>`
	}
	good := `<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>`
	joint := func(name, typ, parent, child string) string {
		return `<joint name="` + name + `" type="` + typ + `"><parent link="` + parent + `"/><child link="` + child + `"/><axis xyz="0 0 1"/></joint>`
	}
	for _, c := range []struct{ body, want string }{
		{link("base", "") + link("arm", "") + joint("j", "revolute", "base", "arm"), `link "arm" has no <inertial>`},
		{link("base", "") + link("arm", `<inertial><mass value="1"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial>`) + joint("j", "revolute", "base", "arm"), `r.urdf:1: inertia: link "arm": the inertia`},
		{link("base", "") + link("arm", `<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.5" ixy="0" ixz="0" iyz="0"/></inertial>`) + joint("j", "revolute", "base", "arm"), `break the triangle inequality`},
		{link("base", "") + link("arm", `<inertial><mass value="-1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>`) + joint("j", "revolute", "base", "arm"), `mass must be > 0`},
		{link("base", "") + link("arm", good) + joint("j", "revolute", "base", "arn"), `r.urdf:1: <child>: joint "j": child link "arn" does not exist; did you mean "arm"?`},
		{link("base", "") + link("arm", good) + joint("j", "floating", "base", "arm"), `joint "j": type "floating" is not supported`},
		{link("base", "") + link("arm", good) + joint("j", "hinge", "base", "arm"), `joint "j": unknown type "hinge"`},
		{link("base", "") + link("a", good) + link("b", good) + joint("j1", "revolute", "base", "a") + joint("j2", "revolute", "a", "b") + joint("j3", "revolute", "b", "a"), `kinematic loop`},
		{link("base", "") + link("arm", good+`<visual><geometry><mesh filename="package://nowhere/meshes/arm.stl"/></geometry></visual>`) + joint("j", "revolute", "base", "arm"), `mesh "package://nowhere/meshes/arm.stl" not found`},
		{link("base", "") + link("arm", good+`<visual><geometry><mesh filename="arm.stl"/></geometry></visual>`) + joint("j", "revolute", "base", "arm"), `mesh file`},
	} {
		path := filepath.Join(dir, "r.urdf")
		if err := os.WriteFile(path, []byte(`<robot name="r">`+c.body+`</robot>`), 0o644); err != nil {
			t.Fatal(err)
		}
		rb, err := Read(path)
		if err == nil {
			_, err = rb.Model(Options{})
		}
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), c.want) {
			t.Errorf("%s:\n got %v\nwant %q", c.body, err, c.want)
		}
	}
}

// examples/ur5/model.xml is what `mbfmu import ur5.urdf -o model.xml`
// writes with its initial pose (the command in examples/ur5/README.md):
// the generated file is kept in the repository and must stay reproducible.
func TestUR5ExampleReproducible(t *testing.T) {
	rb, err := Read(ur5)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rb.Model(Options{Actuators: true, Q: map[string]float64{
		"shoulder_lift_joint": -1.2, "elbow_joint": 1.2, "wrist_1_joint": -1.5708, "wrist_2_joint": -1.5708}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../examples/ur5/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("examples/ur5/model.xml differs from what mbfmu import writes: regenerate it with\n  bin/mbfmu import examples/ur5/ur5.urdf -o examples/ur5/model.xml --q shoulder_lift_joint=-1.2 --q elbow_joint=1.2 --q wrist_1_joint=-1.5708 --q wrist_2_joint=-1.5708")
	}
}

// Review cases: an initial angle outside (−π, π] or outside the limits is
// refused; a zero-mass inertial on a fixed frame link is a frame; a
// material defined in one visual colours another by name; an empty robot
// is refused, not a crash.
func TestImportReviewCases(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "r.urdf")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	arm := `<link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
  <visual><geometry><box size="0.1 0.1 0.1"/></geometry><material name="red"><color rgba="1 0 0 1"/></material></visual>
  <visual><geometry><box size="0.2 0.1 0.1"/></geometry><material name="red"/></visual></link>`
	rb, err := Read(write(`<robot name="r"><link name="base"><inertial><mass value="0"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>` + arm +
		`<joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/><limit lower="0" upper="5" effort="10"/></joint>
  <link name="tool"><inertial><mass value="0"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="flange" type="fixed"><parent link="arm"/><child link="tool"/></joint></robot>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    float64
		want string
	}{{4, "outside (−π, π]"}, {-1, "outside its limits [0, 5]"}} {
		if _, err := rb.Model(Options{Q: map[string]float64{"j": c.q}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("q = %g: %v, want %q", c.q, err, c.want)
		}
	}
	data, err := rb.Model(Options{Q: map[string]float64{"j": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `color="#ff0000"`); n != 2 || !strings.Contains(string(data), `<marker name="tool"`) {
		t.Errorf("want two red boxes and a tool marker:\n%s", data)
	}
	if _, err := Read(write(`<robot name="e"/>`)); err == nil {
		if rb, _ := Read(write(`<robot name="e"/>`)); rb != nil {
			if _, err := rb.Model(Options{FreeBase: true}); err == nil || !strings.Contains(err.Error(), "no links") {
				t.Errorf("empty robot: %v", err)
			}
		}
	}
}

// A package:// mesh is found in the folders $ROS_PACKAGE_PATH names.
func TestImportMeshROSPackagePath(t *testing.T) {
	dir, pkgs := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(pkgs, "arm_description", "meshes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkgs, "arm_description", "meshes", "arm.stl"), []byte("solid x\nendsolid x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "r.urdf")
	if err := os.WriteFile(p, []byte(`<robot name="r"><link name="base"/><link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
<visual><geometry><mesh filename="package://arm_description/meshes/arm.stl"/></geometry></visual></link>
<joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint></robot>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "ROS_PACKAGE_PATH") {
		t.Fatalf("without the path: %v", err)
	}
	t.Setenv("ROS_PACKAGE_PATH", "/nonexistent"+string(filepath.ListSeparator)+pkgs)
	if _, err := Read(p); err != nil {
		t.Errorf("with the path: %v", err)
	}
}
