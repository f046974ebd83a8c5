// Package urdf reads a robot described in URDF (the Unified Robot
// Description Format of ROS) and writes it as a spatial mbfmu model:
// links with their mass, centre of mass and inertia, revolute, continuous,
// prismatic and fixed joints with their axes, joint limits as end stops,
// joint damping and friction, and the visual boxes, cylinders and spheres
// for the viewer. See docs/urdf.md.
package urdf

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mbfmu/solver/mech"
	"mbfmu/spec"
	"mbfmu/xml"
)

// Robot is a URDF robot: its links and joints as the file gives them.
type Robot struct {
	Name   string
	File   string
	Links  []*Link
	Joints []*Joint
}

// Pose is a rigid transformation: a rotation R and a translation P.
type Pose struct {
	R mech.Mat3
	P mech.Vec3
}

// identity is the identity pose.
var identity = Pose{R: mech.Ident}

// Link is a URDF link.
type Link struct {
	Name     string
	Line     int
	Inertial *Inertial
	Visuals  []Visual
}

// Inertial is a link's mass, centre of mass and inertia: Origin places
// the inertia frame in the link frame; I is (ixx, iyy, izz, ixy, ixz, iyz)
// in that frame, about the centre of mass.
type Inertial struct {
	Origin Pose
	Mass   float64
	I      [6]float64
	Line   int
}

// Visual is a drawn shape of a link.
type Visual struct {
	Origin  Pose
	Kind    string // box, cylinder, sphere, mesh
	Size    [3]float64
	Radius  float64
	Length  float64
	Mesh    string // the mesh file, resolved
	Color   string // #rrggbb or ""
	Line    int
	MeshRef string // as written
}

// Joint is a URDF joint.
type Joint struct {
	Name, Type    string
	Parent, Child string
	Origin        Pose
	Axis          [3]float64
	HasLimit      bool
	Lower, Upper  float64
	Effort        float64
	Damping       float64
	Friction      float64
	Line          int
}

// Moving reports whether the joint has a coordinate.
func (j *Joint) Moving() bool { return j.Type != "fixed" }

// Read reads and checks the URDF file at path. Problems are reported
// together, each with the file, line and element (a spec.ErrorList).
func Read(path string) (*Robot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

type reader struct {
	file string
	errs spec.ErrorList
	dir  string
}

func (r *reader) errf(line int, field, format string, args ...any) {
	r.errs.Add(spec.Pos{File: r.file, Line: line}, field, format, args...)
}

// Parse reads URDF data (named filename, against which mesh files are
// resolved).
func Parse(data []byte, filename string) (*Robot, error) {
	r := &reader{file: filename, dir: filepath.Dir(filename)}
	root, line, err := xml.ReadTree(data, "robot")
	if err != nil {
		r.errf(line, "", "malformed XML: %v", err)
		return nil, r.errs.Err()
	}
	if root.Name != "robot" {
		r.errf(root.Line, "<"+root.Name+">", "the root element of a URDF file must be <robot>")
		return nil, r.errs.Err()
	}
	rb := &Robot{File: filename}
	rb.Name, _ = root.Get("name")
	// materials are global: at the robot's level or defined in a visual
	// and used by name elsewhere
	materials := map[string]string{}
	var collect func(n *xml.Node)
	collect = func(n *xml.Node) {
		for _, c := range n.Children {
			if c.Name == "material" {
				if nm, _ := c.Get("name"); nm != "" {
					if col := r.color(c); col != "" {
						materials[nm] = col
					}
				}
			}
			collect(c)
		}
	}
	collect(root)
	links := map[string]*Link{}
	for _, c := range root.Children {
		switch c.Name {
		case "link":
			l := r.link(c, materials)
			if l == nil {
				continue
			}
			if _, dup := links[l.Name]; dup {
				r.errf(c.Line, "name", "link %q defined twice", l.Name)
				continue
			}
			links[l.Name] = l
			rb.Links = append(rb.Links, l)
		case "joint":
			if j := r.joint(c); j != nil {
				rb.Joints = append(rb.Joints, j)
			}
		}
	}
	r.tree(rb, links)
	if err := r.errs.Err(); err != nil {
		return nil, err
	}
	return rb, nil
}

// num reads a number attribute.
func (r *reader) num(n *xml.Node, name string, def float64) float64 {
	v, ok := n.Get(name)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		r.errf(n.AttrLine(name), name, "<%s> %s=%q is not a finite number", n.Name, name, v)
		return def
	}
	return f
}

// vec reads a vector of n numbers.
func (r *reader) vec(n *xml.Node, name string, def []float64) []float64 {
	v, ok := n.Get(name)
	if !ok {
		return def
	}
	fs := strings.Fields(v)
	if len(fs) != len(def) {
		r.errf(n.AttrLine(name), name, "<%s> %s=%q: want %d numbers", n.Name, name, v, len(def))
		return def
	}
	out := make([]float64, len(fs))
	for i, s := range fs {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			r.errf(n.AttrLine(name), name, "<%s> %s=%q: %q is not a finite number", n.Name, name, v, s)
			return def
		}
		out[i] = f
	}
	return out
}

func child(n *xml.Node, name string) *xml.Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// origin reads an <origin xyz rpy> child (identity when absent).
func (r *reader) origin(n *xml.Node) Pose {
	o := child(n, "origin")
	if o == nil {
		return identity
	}
	xyz := r.vec(o, "xyz", []float64{0, 0, 0})
	rpy := r.vec(o, "rpy", []float64{0, 0, 0})
	// roll, pitch, yaw about fixed axes: Rz(yaw) Ry(pitch) Rx(roll)
	return Pose{R: mech.QuatMat(mech.SequenceQuat("zyx", mech.Vec3{rpy[2], rpy[1], rpy[0]})), P: mech.Vec3{xyz[0], xyz[1], xyz[2]}}
}

func (r *reader) color(m *xml.Node) string {
	c := child(m, "color")
	if c == nil {
		return ""
	}
	v := r.vec(c, "rgba", []float64{0.7, 0.7, 0.7, 1})
	hex := func(f float64) int { return int(math.Round(math.Max(0, math.Min(1, f)) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", hex(v[0]), hex(v[1]), hex(v[2]))
}

func (r *reader) link(n *xml.Node, materials map[string]string) *Link {
	name, ok := n.Get("name")
	if !ok || strings.TrimSpace(name) == "" {
		r.errf(n.Line, "name", "<link> needs a name")
		return nil
	}
	l := &Link{Name: name, Line: n.Line}
	if in := child(n, "inertial"); in != nil {
		it := &Inertial{Origin: r.origin(in), Line: in.Line}
		if m := child(in, "mass"); m != nil {
			it.Mass = r.num(m, "value", 0)
		} else {
			r.errf(in.Line, "<mass>", "link %q: <inertial> without <mass>", name)
		}
		if i := child(in, "inertia"); i != nil {
			for k, a := range []string{"ixx", "iyy", "izz", "ixy", "ixz", "iyz"} {
				it.I[k] = r.num(i, a, 0)
			}
		} else {
			r.errf(in.Line, "<inertia>", "link %q: <inertial> without <inertia>", name)
		}
		switch {
		case it.Mass == 0 && it.I == [6]float64{}:
			it = nil // a massless frame (a root or a link fixed to another): no inertial
		case !(it.Mass > 0):
			r.errf(in.Line, "mass", "link %q: mass must be > 0, got %g", name, it.Mass)
		default:
			if msg := inertiaProblem(it.I); msg != "" {
				r.errf(in.Line, "inertia", "link %q: %s", name, msg)
			}
		}
		l.Inertial = it
	}
	for _, v := range n.Children {
		if v.Name != "visual" {
			continue
		}
		vis := Visual{Origin: r.origin(v), Line: v.Line}
		g := child(v, "geometry")
		if g == nil || len(g.Children) == 0 {
			r.errf(v.Line, "<geometry>", "link %q: <visual> without a <geometry>", name)
			continue
		}
		s := g.Children[0]
		vis.Kind = s.Name
		switch s.Name {
		case "box":
			sz := r.vec(s, "size", []float64{0, 0, 0})
			vis.Size = [3]float64{sz[0], sz[1], sz[2]}
		case "cylinder":
			vis.Radius, vis.Length = r.num(s, "radius", 0), r.num(s, "length", 0)
		case "sphere":
			vis.Radius = r.num(s, "radius", 0)
		case "mesh":
			ref, _ := s.Get("filename")
			vis.MeshRef = ref
			p, err := r.meshPath(ref)
			if err != "" {
				r.errf(s.AttrLine("filename"), "filename", "link %q: %s", name, err)
			}
			vis.Mesh = p
		default:
			r.errf(s.Line, "<"+s.Name+">", "link %q: unknown geometry <%s> (box, cylinder, sphere or mesh)", name, s.Name)
			continue
		}
		if m := child(v, "material"); m != nil {
			if c := r.color(m); c != "" {
				vis.Color = c
			} else if mn, ok := m.Get("name"); ok {
				vis.Color = materials[mn]
			}
		}
		l.Visuals = append(l.Visuals, vis)
	}
	return l
}

// inertiaProblem returns what is wrong with an inertia tensor (not
// positive definite, or against the triangle inequality of the principal
// moments), or "".
func inertiaProblem(i [6]float64) string {
	ev := xml.SymEig3([3][3]float64{{i[0], i[3], i[4]}, {i[3], i[1], i[5]}, {i[4], i[5], i[2]}})
	switch {
	case !(ev[0] > 0):
		return fmt.Sprintf("the inertia (ixx %g, iyy %g, izz %g, ixy %g, ixz %g, iyz %g) is not positive definite (principal moments %.6g, %.6g, %.6g)", i[0], i[1], i[2], i[3], i[4], i[5], ev[0], ev[1], ev[2])
	case ev[0]+ev[1] < ev[2]*(1-1e-9):
		return fmt.Sprintf("the principal moments %.6g, %.6g, %.6g break the triangle inequality (no body has them)", ev[0], ev[1], ev[2])
	}
	return ""
}

// meshPath resolves a mesh reference: package://pkg/path (pkg searched
// as a folder beside or above the URDF file), file:// or a relative path.
func (r *reader) meshPath(ref string) (string, string) {
	switch {
	case ref == "":
		return "", "<mesh> needs a filename"
	case strings.HasPrefix(ref, "package://"):
		rest := strings.TrimPrefix(ref, "package://")
		pkg, sub, _ := strings.Cut(rest, "/")
		dir, _ := filepath.Abs(r.dir)
		for {
			for _, cand := range []string{filepath.Join(dir, pkg, sub), filepath.Join(dir, sub)} {
				if filepath.Base(dir) == pkg || cand == filepath.Join(dir, pkg, sub) {
					if _, err := os.Stat(cand); err == nil {
						return cand, ""
					}
				}
			}
			up := filepath.Dir(dir)
			if up == dir {
				break
			}
			dir = up
		}
		// and in the packages' folders ROS names
		for _, d := range filepath.SplitList(os.Getenv("ROS_PACKAGE_PATH")) {
			for _, cand := range []string{filepath.Join(d, pkg, sub), filepath.Join(d, sub)} {
				if cand == filepath.Join(d, sub) && filepath.Base(d) != pkg {
					continue
				}
				if _, err := os.Stat(cand); err == nil {
					return cand, ""
				}
			}
		}
		return "", fmt.Sprintf("mesh %q not found (package %q looked for beside and above %s, and in $ROS_PACKAGE_PATH)", ref, pkg, r.dir)
	case strings.HasPrefix(ref, "file://"):
		p := strings.TrimPrefix(ref, "file://")
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Sprintf("mesh file %s does not exist", p)
		}
		return p, ""
	}
	p := ref
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, ref)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Sprintf("mesh file %s does not exist", p)
	}
	return p, ""
}

func (r *reader) joint(n *xml.Node) *Joint {
	name, ok := n.Get("name")
	if !ok || strings.TrimSpace(name) == "" {
		r.errf(n.Line, "name", "<joint> needs a name")
		return nil
	}
	typ, _ := n.Get("type")
	j := &Joint{Name: name, Type: typ, Line: n.Line, Origin: r.origin(n), Axis: [3]float64{1, 0, 0}}
	switch typ {
	case "revolute", "continuous", "prismatic", "fixed":
	case "floating", "planar":
		r.errf(n.AttrLine("type"), "type", "joint %q: type %q is not supported (revolute, continuous, prismatic, fixed); a floating base is `mbfmu import --free-base`", name, typ)
		return nil
	default:
		r.errf(n.AttrLine("type"), "type", "joint %q: unknown type %q (revolute, continuous, prismatic, fixed)", name, typ)
		return nil
	}
	if p := child(n, "parent"); p != nil {
		j.Parent, _ = p.Get("link")
	}
	if c := child(n, "child"); c != nil {
		j.Child, _ = c.Get("link")
	}
	if j.Parent == "" || j.Child == "" {
		r.errf(n.Line, "<parent>", "joint %q needs <parent link=...> and <child link=...>", name)
		return nil
	}
	if a := child(n, "axis"); a != nil {
		v := r.vec(a, "xyz", []float64{1, 0, 0})
		nv := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		if nv == 0 {
			r.errf(a.AttrLine("xyz"), "xyz", "joint %q: the axis is zero", name)
			nv = 1
		}
		j.Axis = [3]float64{v[0] / nv, v[1] / nv, v[2] / nv}
	}
	if l := child(n, "limit"); l != nil && typ != "continuous" && typ != "fixed" {
		_, hasLo := l.Get("lower")
		_, hasUp := l.Get("upper")
		j.Lower, j.Upper = r.num(l, "lower", 0), r.num(l, "upper", 0)
		j.Effort = r.num(l, "effort", 0)
		j.HasLimit = (hasLo || hasUp) && j.Upper > j.Lower
		if (hasLo || hasUp) && j.Upper < j.Lower {
			r.errf(l.Line, "upper", "joint %q: upper limit %g is below the lower %g", name, j.Upper, j.Lower)
		}
	}
	if d := child(n, "dynamics"); d != nil {
		j.Damping, j.Friction = r.num(d, "damping", 0), r.num(d, "friction", 0)
		if j.Damping < 0 || j.Friction < 0 {
			r.errf(d.Line, "<dynamics>", "joint %q: damping and friction must not be negative", name)
		}
	}
	if child(n, "mimic") != nil {
		r.errf(n.Line, "<mimic>", "joint %q: <mimic> is not supported yet (couple the joints with a <coupler kind=\"linear\"> in the model)", name)
	}
	return j
}

// tree checks the links and joints form one tree.
func (r *reader) tree(rb *Robot, links map[string]*Link) {
	parentOf := map[string]*Joint{}
	for _, j := range rb.Joints {
		for _, end := range []struct{ which, name string }{{"parent", j.Parent}, {"child", j.Child}} {
			if _, ok := links[end.name]; !ok {
				names := make([]string, 0, len(rb.Links))
				for _, l := range rb.Links {
					names = append(names, l.Name)
				}
				r.errf(j.Line, "<"+end.which+">", "joint %q: %s link %q does not exist%s", j.Name, end.which, end.name, xml.DidYouMean(end.name, names))
			}
		}
		if prev, dup := parentOf[j.Child]; dup {
			r.errf(j.Line, "<child>", "link %q is the child of joints %q and %q: a kinematic loop (URDF describes trees)", j.Child, prev.Name, j.Name)
			continue
		}
		parentOf[j.Child] = j
	}
	var roots []string
	for _, l := range rb.Links {
		if parentOf[l.Name] == nil {
			roots = append(roots, l.Name)
		}
	}
	if len(rb.Links) > 0 && len(roots) != 1 {
		if len(roots) == 0 {
			r.errf(0, "<robot>", "no root link: the joints form a loop")
		} else {
			r.errf(0, "<robot>", "%d root links (%s): the robot must be one tree", len(roots), strings.Join(roots, ", "))
		}
	}
	// loops through parents
	for _, j := range rb.Joints {
		seen := map[string]bool{}
		for l := j.Child; parentOf[l] != nil; l = parentOf[l].Parent {
			if seen[l] {
				r.errf(j.Line, "<parent>", "joint %q is in a kinematic loop", j.Name)
				break
			}
			seen[l] = true
		}
	}
}

// Root returns the root link's name.
func (rb *Robot) Root() string {
	isChild := map[string]bool{}
	for _, j := range rb.Joints {
		isChild[j.Child] = true
	}
	for _, l := range rb.Links {
		if !isChild[l.Name] {
			return l.Name
		}
	}
	return ""
}
