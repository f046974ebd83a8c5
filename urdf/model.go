package urdf

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"mbfmu/suggest"
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
	var p Pose
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				p.R[i][j] += a.R[i][k] * b.R[k][j]
			}
		}
		p.P[i] = a.P[i]
		for k := 0; k < 3; k++ {
			p.P[i] += a.R[i][k] * b.P[k]
		}
	}
	return p
}

// axisRot is the rotation by angle a about the unit axis u.
func axisRot(u [3]float64, a float64) [3][3]float64 {
	c, s, t := math.Cos(a), math.Sin(a), 1-math.Cos(a)
	x, y, z := u[0], u[1], u[2]
	return [3][3]float64{
		{t*x*x + c, t*x*y - s*z, t*x*z + s*y},
		{t*x*y + s*z, t*y*y + c, t*y*z - s*x},
		{t*x*z - s*y, t*y*z + s*x, t*z*z + c},
	}
}

// motion is the joint's pose at coordinate q.
func motion(j *Joint, q float64) Pose {
	p := identity
	switch j.Type {
	case "revolute", "continuous":
		p.R = axisRot(j.Axis, q)
	case "prismatic":
		p.P = [3]float64{j.Axis[0] * q, j.Axis[1] * q, j.Axis[2] * q}
	}
	return p
}

// align is a rotation taking z to the unit axis u (x chosen
// perpendicular to it).
func align(u [3]float64) [3][3]float64 {
	ref := [3]float64{1, 0, 0}
	if math.Abs(u[0]) > 0.9 {
		ref = [3]float64{0, 1, 0}
	}
	// x = ref − (ref·u) u, normalised; y = z × x
	d := ref[0]*u[0] + ref[1]*u[1] + ref[2]*u[2]
	x := [3]float64{ref[0] - d*u[0], ref[1] - d*u[1], ref[2] - d*u[2]}
	n := math.Sqrt(x[0]*x[0] + x[1]*x[1] + x[2]*x[2])
	x = [3]float64{x[0] / n, x[1] / n, x[2] / n}
	y := [3]float64{u[1]*x[2] - u[2]*x[1], u[2]*x[0] - u[0]*x[2], u[0]*x[1] - u[1]*x[0]}
	return [3][3]float64{{x[0], y[0], u[0]}, {x[1], y[1], u[1]}, {x[2], y[2], u[2]}}
}

// quat returns the unit quaternion (w, x, y, z) of a rotation matrix.
func quat(r [3][3]float64) [4]float64 {
	var q [4]float64
	tr := r[0][0] + r[1][1] + r[2][2]
	switch {
	case tr > 0:
		s := math.Sqrt(tr+1) * 2
		q = [4]float64{s / 4, (r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s}
	case r[0][0] > r[1][1] && r[0][0] > r[2][2]:
		s := math.Sqrt(1+r[0][0]-r[1][1]-r[2][2]) * 2
		q = [4]float64{(r[2][1] - r[1][2]) / s, s / 4, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s}
	case r[1][1] > r[2][2]:
		s := math.Sqrt(1+r[1][1]-r[0][0]-r[2][2]) * 2
		q = [4]float64{(r[0][2] - r[2][0]) / s, (r[0][1] + r[1][0]) / s, s / 4, (r[1][2] + r[2][1]) / s}
	default:
		s := math.Sqrt(1+r[2][2]-r[0][0]-r[1][1]) * 2
		q = [4]float64{(r[1][0] - r[0][1]) / s, (r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, s / 4}
	}
	if q[0] < 0 {
		q = [4]float64{-q[0], -q[1], -q[2], -q[3]}
	}
	return q
}

func quatAttr(r [3][3]float64) string {
	q := quat(r)
	return num(q[0]) + ", " + num(q[1]) + ", " + num(q[2]) + ", " + num(q[3])
}

func isIdentity(r [3][3]float64) bool { return r == identity.R }

// frame writes at= and quaternion= of a pose (omitting identities).
func frame(p Pose) string {
	s := ""
	if p.P != [3]float64{} {
		s += ` at="` + vec3(p.P) + `"`
	}
	if !isIdentity(p.R) {
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
			return nil, fmt.Errorf("initial position for %q: no moving joint of that name%s", name, didYouMean(name, names))
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
				w.f("    <sphere radius=\"%s\"%s%s/>\n", num(v.v.Radius), frame(Pose{R: identity.R, P: p.P}), col)
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
	var ax, o [3]float64
	for a := 0; a < 3; a++ {
		o[a] = jf.P[a]
		for b := 0; b < 3; b++ {
			ax[a] += jf.R[a][b] * j.Axis[b]
		}
	}
	inertia := 0.0
	var sub func(l string)
	sub = func(l string) {
		if in := links[l].Inertial; in != nil {
			p := world[l]
			if j.Type == "prismatic" {
				inertia += in.Mass
			} else {
				ic := rotateInertia(p.R, rotateInertia(in.Origin.R, in.I))
				m3 := [3][3]float64{{ic[0], ic[3], ic[4]}, {ic[3], ic[1], ic[5]}, {ic[4], ic[5], ic[2]}}
				for a := 0; a < 3; a++ {
					for b := 0; b < 3; b++ {
						inertia += ax[a] * m3[a][b] * ax[b]
					}
				}
				cm := mul(p, in.Origin).P
				d := [3]float64{cm[0] - o[0], cm[1] - o[1], cm[2] - o[2]}
				along := d[0]*ax[0] + d[1]*ax[1] + d[2]*ax[2]
				r2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2] - along*along
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
func rotateInertia(r [3][3]float64, i [6]float64) [6]float64 {
	m := [3][3]float64{{i[0], i[3], i[4]}, {i[3], i[1], i[5]}, {i[4], i[5], i[2]}}
	var o [3][3]float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			for c := 0; c < 3; c++ {
				for d := 0; d < 3; d++ {
					o[a][b] += r[a][c] * m[c][d] * r[b][d]
				}
			}
		}
	}
	return [6]float64{o[0][0], o[1][1], o[2][2], (o[0][1] + o[1][0]) / 2, (o[0][2] + o[2][0]) / 2, (o[1][2] + o[2][1]) / 2}
}

func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;", "--", "- -").Replace(s)
}

// didYouMean suggests the nearest of names.
func didYouMean(s string, names []string) string {
	best, bd := "", 1<<30
	for _, n := range names {
		if d := suggest.Distance(s, n); d < bd {
			best, bd = n, d
		}
	}
	if best == "" || bd > max(2, len(s)/3) {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}
