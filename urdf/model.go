package urdf

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"mbfmu/solver/mech"
	"mbfmu/xml"
)

// Options are the choices of Model.
type Options struct {
	// Q holds initial joint positions by URDF joint name (rad or m; the
	// others start at 0): the bodies are placed there.
	Q map[string]float64
	// FreeBase makes the root link a free body (it needs an <inertial>)
	// instead of fixing it to the ground.
	FreeBase bool
	// Actuators adds, per moving joint, an input tau_JOINT (N*m or N)
	// acting on the joint, and outputs of its position and rate.
	Actuators bool
}

// Model writes the robot as a spatial mbfmu model file.
func (rb *Robot) Model(opt Options) ([]byte, error) {
	w := &writer{rb: rb, opt: opt, names: map[string]string{}, used: map[string]bool{"ground": true, "energy": true, "constraint": true, "time": true}}
	return w.write()
}

type writer struct {
	rb    *Robot
	opt   Options
	b     strings.Builder
	names map[string]string // URDF link or joint name → model name
	used  map[string]bool
}

// ident turns a URDF name into a unique model identifier.
func (w *writer) ident(kind, name string) string {
	key := kind + ":" + name
	if n, ok := w.names[key]; ok {
		return n
	}
	var s strings.Builder
	for i, r := range name {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			if i == 0 && r >= '0' && r <= '9' {
				s.WriteString("_")
				s.WriteRune(r)
				continue
			}
			r = '_'
		}
		s.WriteRune(r)
	}
	base := s.String()
	if base == "" {
		base = kind
	}
	n := base
	for k := 2; w.used[n]; k++ {
		n = base + "_" + strconv.Itoa(k)
	}
	w.used[n] = true
	w.names[key] = n
	return n
}

func num(f float64) string {
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func vec3(v [3]float64) string { return num(v[0]) + " " + num(v[1]) + " " + num(v[2]) }

// mul composes poses: a then b (b given in a's frame).
func mul(a, b Pose) Pose {
	return Pose{R: mech.MulMM(&a.R, &b.R), P: mech.Add(a.P, mech.MulMV(&a.R, b.P))}
}

// motion is the joint's pose at coordinate q.
func motion(j *Joint, q float64) Pose {
	p := identity
	switch j.Type {
	case "revolute", "continuous":
		p.R = mech.QuatMat(mech.QuatExp(mech.Scale(q, j.Axis)))
	case "prismatic":
		p.P = mech.Scale(q, j.Axis)
	}
	return p
}

// align is a rotation taking z to the unit axis u (x chosen
// perpendicular to it).
func align(u mech.Vec3) mech.Mat3 {
	ref := mech.Vec3{1, 0, 0}
	if math.Abs(u[0]) > 0.9 {
		ref = mech.Vec3{0, 1, 0}
	}
	r, _ := mech.AxesMat(2, u, 0, ref)
	return r
}

// quat returns the unit quaternion (w, x, y, z) of a rotation matrix,
// w ≥ 0.
func quat(r mech.Mat3) mech.Quat {
	q := mech.MatQuat(&r)
	if q[0] < 0 {
		q = mech.Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	return q
}

func quatAttr(r mech.Mat3) string {
	q := quat(r)
	return num(q[0]) + ", " + num(q[1]) + ", " + num(q[2]) + ", " + num(q[3])
}

// frame writes at= and quaternion= of a pose (omitting identities).
func frame(p Pose) string {
	s := ""
	if p.P != (mech.Vec3{}) {
		s += ` at="` + vec3(p.P) + `"`
	}
	if p.R != mech.Ident {
		s += ` quaternion="` + quatAttr(p.R) + `"`
	}
	return s
}

func (w *writer) f(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

func (w *writer) write() ([]byte, error) {
	rb := w.rb
	links := map[string]*Link{}
	for _, l := range rb.Links {
		links[l.Name] = l
	}
	children := map[string][]*Joint{}
	for _, j := range rb.Joints {
		children[j.Parent] = append(children[j.Parent], j)
	}
	for name := range w.opt.Q {
		found := false
		var names []string
		for _, j := range rb.Joints {
			found = found || (j.Name == name && j.Moving())
			if j.Moving() {
				names = append(names, j.Name)
			}
		}
		if !found {
			return nil, fmt.Errorf("initial position for %q: no moving joint of that name%s", name, xml.DidYouMean(name, names))
		}
		for _, j := range rb.Joints {
			if j.Name != name {
				continue
			}
			q := w.opt.Q[name]
			if (j.Type == "revolute" || j.Type == "continuous") && !(q > -math.Pi && q <= math.Pi) {
				return nil, fmt.Errorf("initial position of joint %q: %g rad is outside (−π, π]: a joint's angle starts there (give %g)", name, q, q-2*math.Pi*math.Round(q/(2*math.Pi)))
			}
			if j.HasLimit && (q < j.Lower || q > j.Upper) {
				return nil, fmt.Errorf("initial position of joint %q: %g is outside its limits [%g, %g]", name, q, j.Lower, j.Upper)
			}
		}
	}
	if len(rb.Links) == 0 {
		return nil, fmt.Errorf("%s: the robot has no links", rb.File)
	}
	root := rb.Root()
	// carrier body (model name, "ground") and offset of every link
	carrier := map[string]string{}
	offset := map[string]Pose{}
	world := map[string]Pose{root: identity}
	type jw struct {
		j            *Joint
		pi           string // parent marker ref
		ci           string // child marker ref
		pMark, cMark Pose
	}
	var bodies []string // URDF link names, in tree order
	var joints []jw
	ground := map[string]Pose{} // ground markers
	var errs []string
	if w.opt.FreeBase {
		if links[root].Inertial == nil {
			return nil, fmt.Errorf("%s:%d: link %q: a free base needs an <inertial>", rb.File, links[root].Line, root)
		}
		carrier[root] = w.ident("link", root)
		bodies = append(bodies, root)
	} else {
		carrier[root] = "ground"
	}
	offset[root] = identity
	var walk func(link string)
	walk = func(link string) {
		for _, j := range children[link] {
			c := j.Child
			world[c] = mul(mul(world[link], j.Origin), motion(j, w.opt.Q[j.Name]))
			if !j.Moving() && links[c].Inertial == nil {
				carrier[c], offset[c] = carrier[link], mul(offset[link], j.Origin)
				walk(c)
				continue
			}
			if links[c].Inertial == nil {
				errs = append(errs, fmt.Sprintf("%s:%d: link %q has no <inertial>: a link that moves needs its mass and inertia", rb.File, links[c].Line, c))
			}
			carrier[c], offset[c] = w.ident("link", c), identity
			bodies = append(bodies, c)
			al := identity
			if j.Moving() {
				al.R = align(j.Axis)
			}
			jn := w.ident("joint", j.Name)
			pm := mul(mul(offset[link], j.Origin), al)
			x := jw{j: j, pMark: pm, cMark: al}
			if carrier[link] == "ground" {
				ground[jn] = pm
				x.pi = "ground." + jn
			} else {
				x.pi = carrier[link] + "." + jn
			}
			x.ci = carrier[c] + "." + jn
			joints = append(joints, x)
			walk(c)
		}
	}
	walk(root)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}

	w.f("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	w.f("<!-- written by mbfmu import from %s (URDF robot %q): one body per link with a joint that moves it;\n", filepath.Base(rb.File), rb.Name)
	w.f("     links fixed to another without an <inertial> are frames (markers) of it. Joint markers have\n")
	w.f("     their z axis along the URDF joint axis, so a joint's angle or displacement is its URDF coordinate. -->\n")
	w.f("<model name=%q dimension=\"3\" description=\"%s, imported from URDF\">\n", w.ident("model", rb.Name), xmlText(rb.Name))
	w.f("  <settings end=\"5 s\" step=\"1 ms\" gravity=\"0 0 -9.81\"/>\n")
	var moving []jw
	for _, x := range joints {
		if x.j.Moving() {
			moving = append(moving, x)
		}
	}
	if w.opt.Actuators {
		for _, x := range moving {
			unit := "N*m"
			if x.j.Type == "prismatic" {
				unit = "N"
			}
			w.f("  <input name=%q unit=%q start=\"0\" description=\"effort of joint %s\"/>\n", "tau_"+w.ident("joint", x.j.Name), unit, xmlText(x.j.Name))
		}
	}
	w.f("  <ground>\n")
	gnames := make([]string, 0, len(ground))
	for n := range ground {
		gnames = append(gnames, n)
	}
	sort.Strings(gnames)
	for _, n := range gnames {
		w.f("    <marker name=%q%s/>\n", n, frame(ground[n]))
	}
	w.f("  </ground>\n")
	// visuals by carrier
	type vis struct {
		v   Visual
		off Pose
		of  string
	}
	visuals := map[string][]vis{}
	for _, l := range rb.Links {
		for _, v := range l.Visuals {
			visuals[carrier[l.Name]] = append(visuals[carrier[l.Name]], vis{v, offset[l.Name], l.Name})
		}
	}
	marks := map[string][]string{}
	for _, x := range joints {
		jn := w.ident("joint", x.j.Name)
		marks[carrier[x.j.Child]] = append(marks[carrier[x.j.Child]], fmt.Sprintf("    <marker name=%q%s/>\n", jn, frame(x.cMark)))
		if carrier[x.j.Parent] != "ground" {
			marks[carrier[x.j.Parent]] = append(marks[carrier[x.j.Parent]], fmt.Sprintf("    <marker name=%q%s/>\n", jn, frame(x.pMark)))
		}
	}
	// frames: links carried by a body
	isBody := map[string]bool{}
	for _, name := range bodies {
		isBody[name] = true
	}
	for _, l := range rb.Links {
		if c := carrier[l.Name]; c != "ground" && !isBody[l.Name] {
			marks[c] = append(marks[c], fmt.Sprintf("    <marker name=%q%s/>\n", w.ident("frame", l.Name), frame(offset[l.Name])))
		}
	}
	for _, name := range bodies {
		l := links[name]
		in := l.Inertial
		bn := carrier[name]
		ic := rotateInertia(in.Origin.R, in.I)
		wp := world[name]
		w.f("  <body name=%q mass=\"%s\" inertia=\"%s, %s, %s, %s, %s, %s\" cm=\"%s\"%s>\n", bn, num(in.Mass),
			num(ic[0]), num(ic[1]), num(ic[2]), num(ic[3]), num(ic[4]), num(ic[5]), vec3(in.Origin.P), frame(wp))
		for _, m := range marks[bn] {
			w.b.WriteString(m)
		}
		for _, v := range visuals[bn] {
			p := mul(v.off, v.v.Origin)
			col := ""
			if v.v.Color != "" {
				col = fmt.Sprintf(" color=%q", v.v.Color)
			}
			switch v.v.Kind {
			case "box":
				w.f("    <box size=\"%s\"%s%s/>\n", vec3(v.v.Size), frame(p), col)
			case "cylinder":
				w.f("    <cylinder radius=\"%s\" length=\"%s\"%s%s/>\n", num(v.v.Radius), num(v.v.Length), frame(p), col)
			case "sphere":
				w.f("    <sphere radius=\"%s\"%s%s/>\n", num(v.v.Radius), frame(Pose{R: mech.Ident, P: p.P}), col)
			case "mesh":
				w.f("    <!-- link %s: mesh %s is not drawn (the viewer draws boxes, cylinders and spheres) -->\n", xmlText(v.of), xmlText(v.v.MeshRef))
			}
		}
		w.f("  </body>\n")
	}
	for _, x := range joints {
		kind := map[string]string{"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic", "fixed": "fixed"}[x.j.Type]
		w.f("  <%s name=%q i=%q j=%q/>\n", kind, w.ident("joint", x.j.Name), x.pi, x.ci)
	}
	for _, x := range moving {
		j := x.j
		jn := w.ident("joint", j.Name)
		if j.HasLimit {
			k, c := w.stopLaw(j, world, children, links)
			w.f("  <stop name=%q joint=%q lower=\"%s\" upper=\"%s\" k=\"%s\" c=\"%s\"/>\n", jn+"_limits", jn, num(j.Lower), num(j.Upper), num(k), num(c))
		}
		if j.Friction > 0 || j.Damping > 0 {
			attrs := ""
			if j.Friction > 0 {
				attrs += fmt.Sprintf(" preload=\"%s\"", num(j.Friction))
			}
			if j.Damping > 0 {
				attrs += fmt.Sprintf(" viscous=\"%s\"", num(j.Damping))
			}
			w.f("  <friction name=%q joint=%q%s/>\n", jn+"_friction", jn, attrs)
		}
	}
	if w.opt.Actuators {
		for _, x := range moving {
			jn := w.ident("joint", x.j.Name)
			in := "tau_" + jn
			if x.j.Type == "prismatic" {
				w.f("  <force name=%q i=%q fz=%q frame=\"marker\"/>\n", jn+"_drive", x.ci, in)
				if carrier[x.j.Parent] != "ground" {
					w.f("  <force name=%q i=%q fz=\"-%s\" frame=\"marker\"/>\n", jn+"_drive_reaction", x.pi, in)
				}
			} else {
				w.f("  <torque name=%q i=%q j=%q tz=%q frame=\"marker\"/>\n", jn+"_drive", x.ci, x.pi, in)
			}
		}
		for _, x := range moving {
			jn := w.ident("joint", x.j.Name)
			pos, rate := "angle", "omega"
			if x.j.Type == "prismatic" {
				pos, rate = "disp", "vel"
			}
			w.f("  <output name=%q channel=%q/>\n", "q_"+jn, jn+"."+pos)
			w.f("  <output name=%q channel=%q/>\n", "qd_"+jn, jn+"."+rate)
		}
	}
	w.f("</model>\n")
	return []byte(w.b.String()), nil
}

// stopLaw returns the stiffness and damping of joint j's end stops:
// stiff enough that the joint's effort limit (100 when not given) presses
// 1 mrad (1 mm) in, critically damped for I, the inertia about the joint's
// axis of everything it moves at the initial pose (their mass for a
// sliding joint), so that an impact does not bounce even where the step
// does not resolve it.
func (w *writer) stopLaw(j *Joint, world map[string]Pose, children map[string][]*Joint, links map[string]*Link) (k, c float64) {
	eff := j.Effort
	if !(eff > 0) {
		eff = 100
	}
	k = eff / 1e-3
	// the joint's axis and origin in the world
	jf := mul(world[j.Parent], j.Origin)
	ax, o := mech.MulMV(&jf.R, j.Axis), jf.P
	inertia := 0.0
	var sub func(l string)
	sub = func(l string) {
		if in := links[l].Inertial; in != nil {
			p := world[l]
			if j.Type == "prismatic" {
				inertia += in.Mass
			} else {
				m3 := tensor(rotateInertia(p.R, rotateInertia(in.Origin.R, in.I)))
				inertia += mech.Dot(ax, mech.MulMV(&m3, ax))
				d := mech.Sub(mul(p, in.Origin).P, o)
				along := mech.Dot(d, ax)
				r2 := mech.Dot(d, d) - along*along
				inertia += in.Mass * math.Max(r2, 0)
			}
		}
		for _, cj := range children[l] {
			sub(cj.Child)
		}
	}
	sub(j.Child)
	if inertia > 0 {
		c = 2 * math.Sqrt(k*inertia)
	} else {
		c = k * 1e-3
	}
	return k, c
}

// rotateInertia returns R I Rᵀ as (xx, yy, zz, xy, xz, yz).
func rotateInertia(r mech.Mat3, i [6]float64) [6]float64 {
	m := tensor(i)
	rt := mech.Transpose(&r)
	rm := mech.MulMM(&r, &m)
	o := mech.MulMM(&rm, &rt)
	return [6]float64{o[0], o[4], o[8], (o[1] + o[3]) / 2, (o[2] + o[6]) / 2, (o[5] + o[7]) / 2}
}

// tensor is the symmetric matrix of (xx, yy, zz, xy, xz, yz).
func tensor(i [6]float64) mech.Mat3 {
	return mech.Mat3{i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2]}
}

func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;", "--", "- -").Replace(s)
}
