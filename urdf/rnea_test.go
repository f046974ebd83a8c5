package urdf

// This file is an independent reference implementation of inverse dynamics
// for fixed-base robots described by URDF files, used by tests to check the
// package's own implementation. It has its own URDF parser and its own
// recursive Newton–Euler algorithm (RNEA) written in the world frame, and
// uses nothing but the Go standard library, so that a mistake in the code
// under test cannot be repeated here.

import (
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// rneaVec is a 3-vector.
type rneaVec [3]float64

// rneaMat is a 3x3 matrix, row-major.
type rneaMat [3][3]float64

func (a rneaVec) add(b rneaVec) rneaVec { return rneaVec{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a rneaVec) sub(b rneaVec) rneaVec { return rneaVec{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a rneaVec) scale(s float64) rneaVec {
	return rneaVec{a[0] * s, a[1] * s, a[2] * s}
}
func (a rneaVec) dot(b rneaVec) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a rneaVec) cross(b rneaVec) rneaVec {
	return rneaVec{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// rneaIdentity returns the 3x3 identity matrix.
func rneaIdentity() rneaMat { return rneaMat{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

// mul returns the matrix product a·b.
func (a rneaMat) mul(b rneaMat) rneaMat {
	var c rneaMat
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			c[i][j] = a[i][0]*b[0][j] + a[i][1]*b[1][j] + a[i][2]*b[2][j]
		}
	}
	return c
}

// apply returns the matrix-vector product a·v.
func (a rneaMat) apply(v rneaVec) rneaVec {
	return rneaVec{
		a[0][0]*v[0] + a[0][1]*v[1] + a[0][2]*v[2],
		a[1][0]*v[0] + a[1][1]*v[1] + a[1][2]*v[2],
		a[2][0]*v[0] + a[2][1]*v[1] + a[2][2]*v[2],
	}
}

// transpose returns aᵀ.
func (a rneaMat) transpose() rneaMat {
	var c rneaMat
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			c[i][j] = a[j][i]
		}
	}
	return c
}

// rneaRPY returns the rotation of URDF fixed-axis roll-pitch-yaw angles,
// R = Rz(yaw)·Ry(pitch)·Rx(roll).
func rneaRPY(r, p, y float64) rneaMat {
	cr, sr := math.Cos(r), math.Sin(r)
	cp, sp := math.Cos(p), math.Sin(p)
	cy, sy := math.Cos(y), math.Sin(y)
	rx := rneaMat{{1, 0, 0}, {0, cr, -sr}, {0, sr, cr}}
	ry := rneaMat{{cp, 0, sp}, {0, 1, 0}, {-sp, 0, cp}}
	rz := rneaMat{{cy, -sy, 0}, {sy, cy, 0}, {0, 0, 1}}
	return rz.mul(ry).mul(rx)
}

// rneaAxisAngle returns the rotation by angle th about the unit axis u
// (Rodrigues' formula R = I + sin(th) K + (1 - cos(th)) K², K = [u]×).
func rneaAxisAngle(u rneaVec, th float64) rneaMat {
	k := rneaMat{{0, -u[2], u[1]}, {u[2], 0, -u[0]}, {-u[1], u[0], 0}}
	k2 := k.mul(k)
	s, c := math.Sin(th), 1-math.Cos(th)
	r := rneaIdentity()
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[i][j] += s*k[i][j] + c*k2[i][j]
		}
	}
	return r
}

// XML shapes of the parts of a URDF file that matter for dynamics.
type (
	rneaXMLRobot struct {
		Links  []rneaXMLLink  `xml:"link"`
		Joints []rneaXMLJoint `xml:"joint"`
	}
	rneaXMLOrigin struct {
		XYZ string `xml:"xyz,attr"`
		RPY string `xml:"rpy,attr"`
	}
	rneaXMLLink struct {
		Name     string `xml:"name,attr"`
		Inertial *struct {
			Origin *rneaXMLOrigin `xml:"origin"`
			Mass   *struct {
				Value string `xml:"value,attr"`
			} `xml:"mass"`
			Inertia *struct {
				Ixx string `xml:"ixx,attr"`
				Ixy string `xml:"ixy,attr"`
				Ixz string `xml:"ixz,attr"`
				Iyy string `xml:"iyy,attr"`
				Iyz string `xml:"iyz,attr"`
				Izz string `xml:"izz,attr"`
			} `xml:"inertia"`
		} `xml:"inertial"`
	}
	rneaXMLJoint struct {
		Name   string         `xml:"name,attr"`
		Type   string         `xml:"type,attr"`
		Origin *rneaXMLOrigin `xml:"origin"`
		Parent struct {
			Link string `xml:"link,attr"`
		} `xml:"parent"`
		Child struct {
			Link string `xml:"link,attr"`
		} `xml:"child"`
		Axis *struct {
			XYZ string `xml:"xyz,attr"`
		} `xml:"axis"`
		Dynamics *struct {
			Damping  string `xml:"damping,attr"`
			Friction string `xml:"friction,attr"`
		} `xml:"dynamics"`
		Mimic *struct{} `xml:"mimic"`
	}
)

// rneaLink is a parsed link: its mass, its centre of mass and its inertia
// tensor about the centre of mass, both in the link frame.
type rneaLink struct {
	name string
	mass float64
	com  rneaVec
	icm  rneaMat
}

// rneaJoint is a parsed joint: its fixed placement in the parent link frame,
// its unit axis in the joint frame and its damping and friction.
type rneaJoint struct {
	name, typ         string
	parent, child     string
	xyz               rneaVec
	rot               rneaMat
	axis              rneaVec
	damping, friction float64
}

// rneaModel is a parsed URDF tree: its root link, its links by name and, for
// every link, the joints of which it is the parent, in file order.
type rneaModel struct {
	root     string
	links    map[string]*rneaLink
	children map[string][]*rneaJoint
	joints   []*rneaJoint
}

// rneaFloat parses a number attribute; an empty string gives def.
func rneaFloat(s string, def float64) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	return strconv.ParseFloat(s, 64)
}

// rneaTriple parses an "x y z" attribute; an empty string gives def.
func rneaTriple(s string, def rneaVec) (rneaVec, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return def, nil
	}
	if len(f) != 3 {
		return rneaVec{}, fmt.Errorf("want 3 numbers, got %q", s)
	}
	var v rneaVec
	for i := range f {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return rneaVec{}, err
		}
		v[i] = x
	}
	return v, nil
}

// rneaPose parses an <origin> element (nil: identity) into a translation
// and a rotation.
func rneaPose(o *rneaXMLOrigin) (rneaVec, rneaMat, error) {
	if o == nil {
		return rneaVec{}, rneaIdentity(), nil
	}
	xyz, err := rneaTriple(o.XYZ, rneaVec{})
	if err != nil {
		return rneaVec{}, rneaMat{}, fmt.Errorf("origin xyz: %v", err)
	}
	rpy, err := rneaTriple(o.RPY, rneaVec{})
	if err != nil {
		return rneaVec{}, rneaMat{}, fmt.Errorf("origin rpy: %v", err)
	}
	return xyz, rneaRPY(rpy[0], rpy[1], rpy[2]), nil
}

// rneaParse reads and parses the URDF file at path.
func rneaParse(path string) (*rneaModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var x rneaXMLRobot
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	m := &rneaModel{links: map[string]*rneaLink{}, children: map[string][]*rneaJoint{}}
	for _, xl := range x.Links {
		if _, dup := m.links[xl.Name]; dup {
			return nil, fmt.Errorf("duplicate link %q", xl.Name)
		}
		l := &rneaLink{name: xl.Name}
		if in := xl.Inertial; in != nil {
			com, rot, err := rneaPose(in.Origin)
			if err != nil {
				return nil, fmt.Errorf("link %q inertial: %v", xl.Name, err)
			}
			if in.Mass != nil {
				if l.mass, err = rneaFloat(in.Mass.Value, 0); err != nil {
					return nil, fmt.Errorf("link %q mass: %v", xl.Name, err)
				}
			}
			var ic rneaMat
			if it := in.Inertia; it != nil {
				var v [6]float64
				for i, s := range []string{it.Ixx, it.Ixy, it.Ixz, it.Iyy, it.Iyz, it.Izz} {
					if v[i], err = rneaFloat(s, 0); err != nil {
						return nil, fmt.Errorf("link %q inertia: %v", xl.Name, err)
					}
				}
				ic = rneaMat{{v[0], v[1], v[2]}, {v[1], v[3], v[4]}, {v[2], v[4], v[5]}}
			}
			l.com = com
			l.icm = rot.mul(ic).mul(rot.transpose())
		}
		m.links[xl.Name] = l
	}
	isChild := map[string]bool{}
	names := map[string]bool{}
	for _, xj := range x.Joints {
		if names[xj.Name] {
			return nil, fmt.Errorf("duplicate joint %q", xj.Name)
		}
		names[xj.Name] = true
		j := &rneaJoint{name: xj.Name, typ: xj.Type, parent: xj.Parent.Link, child: xj.Child.Link}
		switch j.typ {
		case "revolute", "continuous", "prismatic", "fixed":
		default:
			return nil, fmt.Errorf("joint %q: unsupported type %q", j.name, j.typ)
		}
		if xj.Mimic != nil {
			return nil, fmt.Errorf("joint %q: mimic joints are not supported", j.name)
		}
		if m.links[j.parent] == nil || m.links[j.child] == nil {
			return nil, fmt.Errorf("joint %q: unknown parent %q or child %q", j.name, j.parent, j.child)
		}
		if isChild[j.child] {
			return nil, fmt.Errorf("link %q is the child of two joints", j.child)
		}
		isChild[j.child] = true
		if j.xyz, j.rot, err = rneaPose(xj.Origin); err != nil {
			return nil, fmt.Errorf("joint %q: %v", j.name, err)
		}
		j.axis = rneaVec{1, 0, 0}
		if xj.Axis != nil {
			if j.axis, err = rneaTriple(xj.Axis.XYZ, rneaVec{1, 0, 0}); err != nil {
				return nil, fmt.Errorf("joint %q axis: %v", j.name, err)
			}
		}
		n := math.Sqrt(j.axis.dot(j.axis))
		if n == 0 && j.typ != "fixed" {
			return nil, fmt.Errorf("joint %q: zero axis", j.name)
		}
		if n > 0 {
			j.axis = j.axis.scale(1 / n)
		}
		if d := xj.Dynamics; d != nil {
			if j.damping, err = rneaFloat(d.Damping, 0); err != nil {
				return nil, fmt.Errorf("joint %q damping: %v", j.name, err)
			}
			if j.friction, err = rneaFloat(d.Friction, 0); err != nil {
				return nil, fmt.Errorf("joint %q friction: %v", j.name, err)
			}
		}
		m.children[j.parent] = append(m.children[j.parent], j)
		m.joints = append(m.joints, j)
	}
	var roots []string
	for _, xl := range x.Links {
		if !isChild[xl.Name] {
			roots = append(roots, xl.Name)
		}
	}
	if len(roots) != 1 {
		return nil, fmt.Errorf("want exactly one root link, got %q", roots)
	}
	m.root = roots[0]
	// Every link must be reachable from the root (no cycles).
	seen := 0
	var walk func(string)
	walk = func(l string) {
		seen++
		for _, j := range m.children[l] {
			walk(j.child)
		}
	}
	walk(m.root)
	if seen != len(m.links) {
		return nil, fmt.Errorf("links not reachable from root %q (cycle?)", m.root)
	}
	return m, nil
}

// rneaState is the world-frame kinematic state of one link: the pose of its
// frame (rotation r, origin p), the angular velocity w and acceleration wd,
// and the velocity v and acceleration a of its frame origin.
type rneaState struct {
	r               rneaMat
	p, w, wd, v, a  rneaVec
	force, momentum rneaVec // filled by the backward pass
}

// forward propagates the link states from the fixed root (identity pose, at
// rest, origin acceleration a0) through the tree, depth first, and returns
// them by link name. Velocities and accelerations are world-frame vectors.
func (m *rneaModel) forward(q, qd, qdd map[string]float64, a0 rneaVec) map[string]*rneaState {
	st := map[string]*rneaState{m.root: {r: rneaIdentity(), a: a0}}
	var rec func(string)
	rec = func(pl string) {
		ps := st[pl]
		for _, j := range m.children[pl] {
			// Joint frame in the world.
			rj := ps.r.mul(j.rot)
			pj := ps.p.add(ps.r.apply(j.xyz))
			z := rj.apply(j.axis) // joint axis in the world
			qi, qdi, qddi := q[j.name], qd[j.name], qdd[j.name]
			cs := &rneaState{w: ps.w, wd: ps.wd}
			switch j.typ {
			case "revolute", "continuous":
				cs.r = rj.mul(rneaAxisAngle(j.axis, qi))
				cs.p = pj
				cs.w = ps.w.add(z.scale(qdi))
				cs.wd = ps.wd.add(ps.w.cross(z.scale(qdi))).add(z.scale(qddi))
			case "prismatic":
				cs.r = rj
				cs.p = pj.add(z.scale(qi))
			default: // fixed
				cs.r = rj
				cs.p = pj
			}
			d := cs.p.sub(ps.p)
			cs.v = ps.v.add(ps.w.cross(d))
			cs.a = ps.a.add(ps.wd.cross(d)).add(ps.w.cross(ps.w.cross(d)))
			if j.typ == "prismatic" {
				cs.v = cs.v.add(z.scale(qdi))
				cs.a = cs.a.add(ps.w.cross(z.scale(2 * qdi))).add(z.scale(qddi))
			}
			st[j.child] = cs
			rec(j.child)
		}
	}
	rec(m.root)
	return st
}

// rneaSign is sign(x) with sign(0) = 0.
func rneaSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// torques runs the RNEA: the forward pass gives every link's motion with the
// root accelerating at −g (which accounts for gravity on every body); the
// backward pass accumulates, for every link, the total force and the moment
// about the link origin that its parent joint must transmit to the subtree
// below it. The effort of a revolute joint is that moment projected on the
// (world) joint axis, whose line passes through the child origin; of a
// prismatic joint the force projected on its axis. With joints true, damping
// and friction are added.
func (m *rneaModel) torques(q, qd, qdd map[string]float64, g [3]float64, joints bool) map[string]float64 {
	st := m.forward(q, qd, qdd, rneaVec{-g[0], -g[1], -g[2]})
	tau := map[string]float64{}
	var rec func(string)
	rec = func(l string) {
		s := st[l]
		lk := m.links[l]
		// Own inertial force and moment about the link origin.
		c := s.r.apply(lk.com)                     // origin → COM, world
		iw := s.r.mul(lk.icm).mul(s.r.transpose()) // inertia about COM, world
		ac := s.a.add(s.wd.cross(c)).add(s.w.cross(s.w.cross(c)))
		f := ac.scale(lk.mass)
		n := iw.apply(s.wd).add(s.w.cross(iw.apply(s.w))).add(c.cross(f))
		for _, j := range m.children[l] {
			rec(j.child)
			cs := st[j.child]
			f = f.add(cs.force)
			n = n.add(cs.momentum).add(cs.p.sub(s.p).cross(cs.force))
		}
		s.force, s.momentum = f, n
	}
	rec(m.root)
	for _, j := range m.joints {
		if j.typ == "fixed" {
			continue
		}
		cs := st[j.child]
		z := cs.r.apply(j.axis) // the joint motion leaves the axis unchanged
		var e float64
		if j.typ == "prismatic" {
			e = z.dot(cs.force)
		} else {
			e = z.dot(cs.momentum)
		}
		if joints {
			e += j.damping*qd[j.name] + j.friction*rneaSign(qd[j.name])
		}
		tau[j.name] = e
	}
	return tau
}

// rneaTorques reads the URDF at path with its own parser and returns, for
// every non-fixed joint (revolute, continuous, prismatic) by name, the joint
// effort tau = M(q) qdd + C(q,qd) qd + g(q) + damping*qd + friction*sign(qd)
// computed by the recursive Newton–Euler algorithm, for joint positions q,
// rates qd and accelerations qdd given by joint name (missing: 0) and gravity
// g (world frame, e.g. {0, 0, -9.81}).
//
// The effort of a revolute or continuous joint is the torque about its
// (normalised) axis that the parent link applies to the child link; of a
// prismatic joint the force along its axis. A positive effort therefore
// drives the joint towards positive q (right-hand rule about the axis for
// rotations, along the axis for translations). The root link is fixed to
// the world at the identity pose.
func rneaTorques(t testing.TB, path string, q, qd, qdd map[string]float64, g [3]float64) map[string]float64 {
	t.Helper()
	m, err := rneaParse(path)
	if err != nil {
		t.Fatalf("rneaTorques: %v", err)
	}
	return m.torques(q, qd, qdd, g, true)
}

// rneaWrite writes a URDF file named name into dir and returns its path.
func rneaWrite(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := dir + string(os.PathSeparator) + name
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rneaClose checks that got equals want to tolerance tol relative to
// max(|got|, |want|, floor) (floor sets the scale for values near zero, e.g.
// the largest component of the vector being compared) and logs the
// comparison.
func rneaClose(t *testing.T, what string, got, want, tol, floor float64) {
	t.Helper()
	err := math.Abs(got - want)
	scale := math.Max(floor, math.Max(math.Abs(got), math.Abs(want)))
	t.Logf("%s: got %.15g want %.15g (abs err %.3g, rel err %.3g)", what, got, want, err, err/scale)
	if !(err <= tol*scale) {
		t.Errorf("%s: got %.17g, want %.17g (diff %.3g, tol %.3g)", what, got, want, err, tol*scale)
	}
}

// TestRNEASelfCheck checks rneaTorques against closed-form dynamics and
// against energy identities, independently of any other code.
func TestRNEASelfCheck(t *testing.T) {
	dir := t.TempDir()

	// 1. Pendulum: a revolute joint about z, gravity −y (so the plane of
	// rotation, xy, is vertical), centre of mass at (l, 0, 0) in the link
	// frame, i.e. at (l cos q, l sin q) in the world. Its potential energy is
	// V = m g0 l sin q, so the joint torque is
	// tau = (Izz + m l²) qdd + m g0 l cos q + b qd + f sign(qd).
	// The inertia is given in a frame rotated by roll π/2 (its y axis is the
	// link z axis), so Izz about the joint axis is the file's iyy; the joint
	// itself is placed with a non-trivial xyz (its origin does not matter).
	t.Run("pendulum", func(t *testing.T) {
		const m, l, iyy, b, fr, g0 = 1.7, 0.45, 0.031, 0.3, 0.8, 9.81
		p := rneaWrite(t, dir, "pendulum.urdf", fmt.Sprintf(`<robot name="p">
  <link name="base"/>
  <joint name="j" type="revolute">
    <parent link="base"/><child link="arm"/>
    <origin xyz="0.1 -0.2 0.3"/>
    <axis xyz="0 0 2"/>
    <dynamics damping="%g" friction="%g"/>
  </joint>
  <link name="arm">
    <inertial>
      <origin xyz="%g 0 0" rpy="1.5707963267948966 0 0"/>
      <mass value="%g"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="%g" iyz="0" izz="0.05"/>
    </inertial>
  </link>
</robot>`, b, fr, l, m, iyy))
		for _, s := range [][3]float64{{0.3, 0, 0}, {-1.1, 0.7, 2.5}, {2.4, -1.3, -0.4}} {
			qv, qdv, qddv := s[0], s[1], s[2]
			got := rneaTorques(t, p, map[string]float64{"j": qv}, map[string]float64{"j": qdv},
				map[string]float64{"j": qddv}, [3]float64{0, -g0, 0})["j"]
			want := (iyy+m*l*l)*qddv + m*g0*l*math.Cos(qv) + b*qdv + fr*rneaSign(qdv)
			rneaClose(t, fmt.Sprintf("q=%g qd=%g qdd=%g", qv, qdv, qddv), got, want, 1e-13, 1)
		}
	})

	// 2. Two-link planar arm, both joints about world z, gravity −y. Link i
	// has length li, centre of mass at lci along its x axis and Izz Ii about
	// it (plus off-plane inertia products that must not affect the in-plane
	// torques). Joint 2 is written with a flipped frame (roll π) and axis
	// −z, which is world +z again. Textbook dynamics (Spong):
	//   M11 = m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 cos q2) + I1 + I2
	//   M12 = m2 (lc2² + l1 lc2 cos q2) + I2,  M22 = m2 lc2² + I2
	//   h = −m2 l1 lc2 sin q2
	//   tau1 = M11 qdd1 + M12 qdd2 + h qd2² + 2 h qd1 qd2 + G1
	//   tau2 = M12 qdd1 + M22 qdd2 − h qd1² + G2
	//   G1 = (m1 lc1 + m2 l1) g cos q1 + m2 lc2 g cos(q1+q2)
	//   G2 = m2 lc2 g cos(q1+q2)
	t.Run("two-link", func(t *testing.T) {
		const m1, m2, l1, lc1, lc2, i1, i2, g0 = 2.3, 1.4, 0.6, 0.27, 0.35, 0.071, 0.043, 9.81
		p := rneaWrite(t, dir, "twolink.urdf", fmt.Sprintf(`<robot name="two">
  <link name="base"/>
  <joint name="j1" type="continuous">
    <parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/>
  </joint>
  <link name="l1">
    <inertial>
      <origin xyz="%g 0 0"/>
      <mass value="%g"/>
      <inertia ixx="0.01" ixy="0.002" ixz="0.003" iyy="0.09" iyz="-0.004" izz="%g"/>
    </inertial>
  </link>
  <joint name="j2" type="revolute">
    <parent link="l1"/><child link="l2"/>
    <origin xyz="%g 0 0" rpy="3.141592653589793 0 0"/>
    <axis xyz="0 0 -1"/>
  </joint>
  <link name="l2">
    <inertial>
      <origin xyz="%g 0 0"/>
      <mass value="%g"/>
      <inertia ixx="0.005" ixy="-0.001" ixz="0.002" iyy="0.04" iyz="0.003" izz="%g"/>
    </inertial>
  </link>
</robot>`, lc1, m1, i1, l1, lc2, m2, i2))
		states := [][6]float64{
			{0.7134, -1.2871, 1.9432, -0.5517, 0.3318, -2.7164},
			{-2.2415, 2.6083, -0.8126, 1.4471, -3.1908, 0.9265},
		}
		for k, s := range states {
			q1, q2, qd1, qd2, qdd1, qdd2 := s[0], s[1], s[2], s[3], s[4], s[5]
			tau := rneaTorques(t, p,
				map[string]float64{"j1": q1, "j2": q2},
				map[string]float64{"j1": qd1, "j2": qd2},
				map[string]float64{"j1": qdd1, "j2": qdd2},
				[3]float64{0, -g0, 0})
			c2 := math.Cos(q2)
			m11 := m1*lc1*lc1 + m2*(l1*l1+lc2*lc2+2*l1*lc2*c2) + i1 + i2
			m12 := m2*(lc2*lc2+l1*lc2*c2) + i2
			m22 := m2*lc2*lc2 + i2
			h := -m2 * l1 * lc2 * math.Sin(q2)
			g1 := (m1*lc1+m2*l1)*g0*math.Cos(q1) + m2*lc2*g0*math.Cos(q1+q2)
			g2 := m2 * lc2 * g0 * math.Cos(q1+q2)
			w1 := m11*qdd1 + m12*qdd2 + h*qd2*qd2 + 2*h*qd1*qd2 + g1
			w2 := m12*qdd1 + m22*qdd2 - h*qd1*qd1 + g2
			rneaClose(t, fmt.Sprintf("state %d tau1", k), tau["j1"], w1, 1e-12, 1)
			rneaClose(t, fmt.Sprintf("state %d tau2", k), tau["j2"], w2, 1e-12, 1)
		}
	})

	// 3. A prismatic joint along +z lifting a slider of mass m1 with a second
	// mass m2 attached below a fixed joint: tau = (m1 + m2)(qdd + 9.81).
	t.Run("prismatic", func(t *testing.T) {
		const m1, m2 = 3.2, 0.9
		p := rneaWrite(t, dir, "lift.urdf", fmt.Sprintf(`<robot name="lift">
  <link name="base"><inertial><mass value="100"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
  <joint name="z" type="prismatic">
    <parent link="base"/><child link="slider"/>
    <origin xyz="0.2 0.1 0.5" rpy="0.4 0 0"/>
    <axis xyz="0 %.17g %.17g"/>
  </joint>
  <link name="slider">
    <inertial><origin xyz="0.1 0.2 0.3"/><mass value="%g"/><inertia ixx="0.1" iyy="0.2" izz="0.3"/></inertial>
  </link>
  <joint name="tool" type="fixed">
    <parent link="slider"/><child link="weight"/>
    <origin xyz="0 0.3 0" rpy="0.2 0.5 0.1"/>
  </joint>
  <link name="weight">
    <inertial><origin xyz="0.05 0 -0.1"/><mass value="%g"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial>
  </link>
</robot>`, 3*math.Sin(0.4), 3*math.Cos(0.4), m1, m2))
		// The axis 3·(0, sin 0.4, cos 0.4), normalised, in a frame rolled by
		// 0.4 is world +z.
		for _, s := range [][3]float64{{0, 0, 0}, {0.37, 1.3, -2.1}, {-0.2, -0.6, 4.4}} {
			got := rneaTorques(t, p, map[string]float64{"z": s[0]}, map[string]float64{"z": s[1]},
				map[string]float64{"z": s[2]}, [3]float64{0, 0, -9.81})["z"]
			want := (m1 + m2) * (s[2] + 9.81)
			rneaClose(t, fmt.Sprintf("q=%g qd=%g qdd=%g", s[0], s[1], s[2]), got, want, 1e-12, 1)
		}
	})

	// 4. UR5: (a) with qd = qdd = 0 the efforts are the gradient of the
	// potential energy V(q) = −Σ m_i g·p_cm_i(q); (b) the mass matrix built
	// column by column from the RNEA (qd = 0, g = 0) gives the kinetic energy
	// ½ qdᵀ M qd equal to Σ ½ m v_cm² + ½ ωᵀ I ω from the link velocities;
	// (c) with g = 0 and qdd = 0 (no damping or friction) the power
	// qdᵀ tau = qdᵀ C qd equals ½ qdᵀ Ṁ qd (skew-symmetry of Ṁ − 2C), with
	// Ṁ by central differences along qd.
	t.Run("ur5", func(t *testing.T) {
		path := "../examples/ur5/ur5.urdf"
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no UR5 model: %v", err)
		}
		mdl, err := rneaParse(path)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
			"wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}
		q0 := []float64{0.41, -1.13, 1.72, -0.87, 1.26, 0.58}
		qdv := []float64{0.9, -0.7, 1.3, 0.5, -1.1, 0.8}
		toMap := func(v []float64) map[string]float64 {
			mp := map[string]float64{}
			for i, n := range names {
				mp[n] = v[i]
			}
			return mp
		}
		// Links in a fixed order, so that sums are reproducible.
		linkNames := []string{mdl.root}
		for _, j := range mdl.joints {
			linkNames = append(linkNames, j.child)
		}
		g := [3]float64{0, 0, -9.81}
		gv := rneaVec(g)
		potential := func(qv []float64) float64 {
			st := mdl.forward(toMap(qv), nil, nil, rneaVec{})
			var v float64
			for _, name := range linkNames {
				s, lk := st[name], mdl.links[name]
				pc := s.p.add(s.r.apply(lk.com))
				v -= lk.mass * gv.dot(pc)
			}
			return v
		}

		// (a) Gravity torques against the potential-energy gradient.
		tau := rneaTorques(t, path, toMap(q0), nil, nil, g)
		if len(tau) != 6 {
			t.Fatalf("got %d joint efforts, want 6: %v", len(tau), tau)
		}
		// The finite differences lose about eps·|V|/h ≈ 1e-9 absolute, so
		// each component is compared relative to the largest torque.
		var tmax float64
		for _, v := range tau {
			tmax = math.Max(tmax, math.Abs(v))
		}
		const hh = 1e-6
		for i, n := range names {
			qp := append([]float64(nil), q0...)
			qm := append([]float64(nil), q0...)
			qp[i] += hh
			qm[i] -= hh
			grad := (potential(qp) - potential(qm)) / (2 * hh)
			rneaClose(t, "dV/dq "+n, tau[n], grad, 1e-7, tmax)
		}

		// (b) Mass matrix and kinetic energy.
		massMatrix := func(qv []float64) [6][6]float64 {
			var mm [6][6]float64
			for j := range names {
				u := make([]float64, 6)
				u[j] = 1
				col := mdl.torques(toMap(qv), nil, toMap(u), [3]float64{}, false)
				for i, n := range names {
					mm[i][j] = col[n]
				}
			}
			return mm
		}
		quad := func(mm [6][6]float64, v []float64) float64 {
			var s float64
			for i := range v {
				for j := range v {
					s += v[i] * mm[i][j] * v[j]
				}
			}
			return s
		}
		mm := massMatrix(q0)
		var asym float64
		for i := range mm {
			for j := range mm {
				asym = math.Max(asym, math.Abs(mm[i][j]-mm[j][i]))
			}
		}
		t.Logf("mass matrix max asymmetry %.3g", asym)
		if asym > 1e-13 {
			t.Errorf("mass matrix asymmetric by %g", asym)
		}
		st := mdl.forward(toMap(q0), toMap(qdv), nil, rneaVec{})
		var ke float64
		for _, name := range linkNames {
			s, lk := st[name], mdl.links[name]
			c := s.r.apply(lk.com)
			vc := s.v.add(s.w.cross(c))
			iw := s.r.mul(lk.icm).mul(s.r.transpose())
			ke += 0.5*lk.mass*vc.dot(vc) + 0.5*s.w.dot(iw.apply(s.w))
		}
		rneaClose(t, "kinetic energy", 0.5*quad(mm, qdv), ke, 1e-12, 0)

		// (c) Power identity qdᵀ C qd = ½ qdᵀ Ṁ qd.
		tc := mdl.torques(toMap(q0), toMap(qdv), nil, [3]float64{}, false)
		var power float64
		for i, n := range names {
			power += qdv[i] * tc[n]
		}
		qp := make([]float64, 6)
		qm := make([]float64, 6)
		for i := range q0 {
			qp[i] = q0[i] + hh*qdv[i]
			qm[i] = q0[i] - hh*qdv[i]
		}
		mdot := 0.5 * (quad(massMatrix(qp), qdv) - quad(massMatrix(qm), qdv)) / (2 * hh)
		rneaClose(t, "qd·C qd vs ½ qd·Mdot qd", power, mdot, 1e-7, 0)

		// Damping and friction: rneaTorques adds b qd + f sign(qd).
		full := rneaTorques(t, path, toMap(q0), toMap(qdv), nil, [3]float64{})
		for _, j := range mdl.joints {
			if j.typ == "fixed" {
				continue
			}
			want := tc[j.name] + j.damping*toMap(qdv)[j.name] + j.friction*rneaSign(toMap(qdv)[j.name])
			rneaClose(t, "with damping/friction "+j.name, full[j.name], want, 1e-14, 1)
		}
	})
}
