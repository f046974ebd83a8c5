package solver

import (
	"math"
	"strings"

	"mbfmu/expr"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

type chanKind uint8

const (
	chTime chanKind = iota
	chInput
	chUser // a user state or variable: idx is its measure
	// planar points
	chPX
	chPY
	chPAngle
	chPVX
	chPVY
	chPOmega
	chPAX
	chPAY
	chPAlpha
	// spatial frames: sub selects the component (see frameQty)
	chFrame
	// joints
	chJFX
	chJFY
	chJT
	chCoupler // a coupler's effort on joint i's (sub 0) or j's (sub 1) coordinate
	chJR      // spatial reaction: sub 0–5 world force, torque; 6–11 in marker i's frame
	chJCoord
	chJRate
	chDValue
	chDForce
	chForce // element: sub selects the quantity
	chEKin
	chEPot
	chESpring
	chETotal
	chCPos
	chCVel
	chExpr
)

type channel struct {
	info mech.ChannelInfo
	kind chanKind
	mk   mech.Marker
	idx  int // joint, force element, input
	sub  int
	prog *expr.Program
}

// Channels lists every result channel of the model, time first.
func (m *Model) Channels() []mech.ChannelInfo {
	out := make([]mech.ChannelInfo, len(m.channels))
	for i, c := range m.channels {
		out[i] = c.info
	}
	return out
}

// ChannelIndex returns the index of a channel by name.
func (m *Model) ChannelIndex(name string) (int, bool) {
	i, ok := m.chanIdx[name]
	return i, ok
}

// pushChan appends a channel and indexes its name (the first channel of a
// name keeps it).
func (m *Model) pushChan(ch channel) int {
	m.channels = append(m.channels, ch)
	k := len(m.channels) - 1
	if m.chanIdx == nil {
		m.chanIdx = map[string]int{}
	}
	if _, dup := m.chanIdx[ch.info.Name]; !dup {
		m.chanIdx[ch.info.Name] = k
	}
	return k
}

func (c *compiler) addChan(name, unit, group, desc string, k chanKind, mk mech.Marker, idx, sub int) {
	c.m.pushChan(channel{info: mech.ChannelInfo{Name: name, Unit: unit, Group: group, Description: desc}, kind: k, mk: mk, idx: idx, sub: sub})
}

func (c *compiler) pointChans(prefix, what string, mk mech.Marker) {
	c.addChan(prefix+".x", "m", "position", what+" x position", chPX, mk, 0, 0)
	c.addChan(prefix+".y", "m", "position", what+" y position", chPY, mk, 0, 0)
	c.addChan(prefix+".angle", "rad", "position", what+" angle", chPAngle, mk, 0, 0)
	c.addChan(prefix+".vx", "m/s", "velocity", what+" x velocity", chPVX, mk, 0, 0)
	c.addChan(prefix+".vy", "m/s", "velocity", what+" y velocity", chPVY, mk, 0, 0)
	c.addChan(prefix+".omega", "rad/s", "velocity", what+" angular velocity", chPOmega, mk, 0, 0)
	c.addChan(prefix+".ax", "m/s^2", "acceleration", what+" x acceleration", chPAX, mk, 0, 0)
	c.addChan(prefix+".ay", "m/s^2", "acceleration", what+" y acceleration", chPAY, mk, 0, 0)
	c.addChan(prefix+".alpha", "rad/s^2", "acceleration", what+" angular acceleration", chPAlpha, mk, 0, 0)
}

// frameQty lists the channels of a spatial frame, in order (sub).
var frameQty = [...]struct{ q, unit, group, desc string }{
	{"x", "m", "position", "x position"},
	{"y", "m", "position", "y position"},
	{"z", "m", "position", "z position"},
	{"vx", "m/s", "velocity", "x velocity"},
	{"vy", "m/s", "velocity", "y velocity"},
	{"vz", "m/s", "velocity", "z velocity"},
	{"ax", "m/s^2", "acceleration", "x acceleration"},
	{"ay", "m/s^2", "acceleration", "y acceleration"},
	{"az", "m/s^2", "acceleration", "z acceleration"},
	{"qw", "", "orientation", "orientation quaternion (frame to world), w"},
	{"qx", "", "orientation", "orientation quaternion, x"},
	{"qy", "", "orientation", "orientation quaternion, y"},
	{"qz", "", "orientation", "orientation quaternion, z"},
	{"rx", "rad", "orientation", "Cardan angle about x (x-y-z sequence, moving axes)"},
	{"ry", "rad", "orientation", "Cardan angle about y (x-y-z sequence)"},
	{"rz", "rad", "orientation", "Cardan angle about z (x-y-z sequence)"},
	{"wx", "rad/s", "velocity", "angular velocity x (world)"},
	{"wy", "rad/s", "velocity", "angular velocity y (world)"},
	{"wz", "rad/s", "velocity", "angular velocity z (world)"},
	{"wbx", "rad/s", "velocity", "angular velocity x (own frame)"},
	{"wby", "rad/s", "velocity", "angular velocity y (own frame)"},
	{"wbz", "rad/s", "velocity", "angular velocity z (own frame)"},
	{"alphax", "rad/s^2", "acceleration", "angular acceleration x (world)"},
	{"alphay", "rad/s^2", "acceleration", "angular acceleration y (world)"},
	{"alphaz", "rad/s^2", "acceleration", "angular acceleration z (world)"},
	{"alphabx", "rad/s^2", "acceleration", "angular acceleration x (own frame)"},
	{"alphaby", "rad/s^2", "acceleration", "angular acceleration y (own frame)"},
	{"alphabz", "rad/s^2", "acceleration", "angular acceleration z (own frame)"},
}

func (c *compiler) frameChans(prefix, what string, mk mech.Marker) {
	for k, q := range frameQty {
		c.addChan(prefix+"."+q.q, q.unit, q.group, what+" "+q.desc, chFrame, mk, 0, k)
	}
}

// reactionQty lists the reaction channels of a spatial joint (sub).
var reactionQty = [...]struct{ q, unit, desc string }{
	{"fx", "N", "reaction force on the body of marker i, x (world)"},
	{"fy", "N", "reaction force on the body of marker i, y (world)"},
	{"fz", "N", "reaction force on the body of marker i, z (world)"},
	{"tx", "N*m", "reaction torque on the body of marker i about marker i, x (world)"},
	{"ty", "N*m", "reaction torque on the body of marker i about marker i, y (world)"},
	{"tz", "N*m", "reaction torque on the body of marker i about marker i, z (world)"},
	{"fxi", "N", "reaction force on the body of marker i, x (marker i's frame)"},
	{"fyi", "N", "reaction force on the body of marker i, y (marker i's frame)"},
	{"fzi", "N", "reaction force on the body of marker i, z (marker i's frame)"},
	{"txi", "N*m", "reaction torque about marker i, x (marker i's frame)"},
	{"tyi", "N*m", "reaction torque about marker i, y (marker i's frame)"},
	{"tzi", "N*m", "reaction torque about marker i, z (marker i's frame)"},
}

// channels builds the standard channel list.
func (c *compiler) channels() {
	m := c.m
	// sized up front: a model of 10⁵ bodies has millions of channels
	n := 1 + len(m.inputs) + 16*len(m.joints) + len(m.forces)
	for _, b := range m.bodies {
		if b.Node {
			continue
		}
		per := 9
		if b.Spatial {
			per = len(frameQty)
		}
		n += per * (1 + len(b.Markers))
	}
	m.channels = make([]channel, 0, n)
	m.chanIdx = make(map[string]int, n)
	c.addChan("time", "s", "time", "simulation time", chTime, mech.Marker{}, 0, 0)
	for i, in := range m.inputs {
		c.addChan(in.Name, in.Unit, "input", "input: "+in.Description, chInput, mech.Marker{}, i, 0)
	}
	if u := c.user; u != nil {
		for k, st := range u.states {
			c.addChan(st.Name, st.Unit, "state", "state: "+st.Description, chUser, mech.Marker{}, u.measureID(umState, k), 0)
		}
		for k, v := range u.vars {
			c.addChan(v.Name, v.Unit, "variable", "variable: "+v.Description, chUser, mech.Marker{}, u.measureID(umVar, k), 0)
		}
	}
	for _, b := range m.bodies {
		if b.Node {
			continue // a beam's node: the beam has the channels
		}
		chans := c.pointChans
		if b.Spatial {
			chans = c.frameChans
		}
		chans(b.Name, "body "+b.Name+" frame", m.markers[b.Name])
		for _, mk := range b.Markers {
			chans(b.Name+"."+mk, "marker "+b.Name+"."+mk, m.markers[b.Name+"."+mk])
		}
	}
	none := mech.Marker{}
	for i, j := range m.joints {
		if j.Kind == mech.JointCoupler {
			ce := &m.cons[m.rowCon[m.jrows[i].r0]]
			_, units := ce.c.(mech.Coupling).Coefficients()
			for k, side := range []string{"i", "j"} {
				u := "N"
				if units[k] == "rad" {
					u = "N*m"
				}
				c.addChan(j.Name+".effort-"+side, u, "force", "coupler "+j.Name+" effort on joint "+side+"'s coordinate (torque or force)", chCoupler, none, i, k)
			}
			continue
		}
		if j.Kind == mech.JointDriver {
			c.addChan(j.Name+".value", driverUnit(j.Driver), "position", "driver "+j.Name+" prescribed value", chDValue, none, i, 0)
			c.addChan(j.Name+".force", driverForceUnit(j.Driver), "force", "driver "+j.Name+" effort (force or torque it applies)", chDForce, none, i, 0)
			continue
		}
		if m.dim == 3 {
			for k, q := range reactionQty {
				c.addChan(j.Name+"."+q.q, q.unit, "force", "joint "+j.Name+" "+q.desc, chJR, none, i, k)
			}
			for k, co := range []mech.Coordinate{j.Coord, j.Coord2} {
				if co == nil {
					continue
				}
				name, rate, what := "disp", "vel", "displacement of marker j along marker i's z axis"
				ru := "m/s"
				if co.Unit() == "rad" {
					name, rate, what, ru = "angle", "omega", "rotation of marker j about marker i's z axis", "rad/s"
				}
				c.addChan(j.Name+"."+name, co.Unit(), "position", "joint "+j.Name+" "+what, chJCoord, none, i, k)
				c.addChan(j.Name+"."+rate, ru, "velocity", "joint "+j.Name+" rate of its "+name, chJRate, none, i, k)
			}
			continue
		}
		c.addChan(j.Name+".fx", "N", "force", "joint "+j.Name+" reaction force on the body of marker i, x (global)", chJFX, none, i, 0)
		c.addChan(j.Name+".fy", "N", "force", "joint "+j.Name+" reaction force on the body of marker i, y (global)", chJFY, none, i, 0)
		c.addChan(j.Name+".torque", "N*m", "force", "joint "+j.Name+" reaction torque on the body of marker i about marker i", chJT, none, i, 0)
		switch j.Kind {
		case mech.JointRevolute:
			c.addChan(j.Name+".angle", "rad", "position", "joint "+j.Name+" relative angle of marker j to marker i", chJCoord, none, i, 0)
		case mech.JointTranslational:
			c.addChan(j.Name+".disp", "m", "position", "joint "+j.Name+" displacement of marker j along marker i's x axis", chJCoord, none, i, 0)
		}
	}
	for i, f := range m.forces {
		if ch, ok := f.(mech.Channeler); ok {
			for k, info := range ch.Channels(m.fnames[i]) {
				c.m.pushChan(channel{info: info, kind: chForce, idx: i, sub: k})
			}
		}
	}
	c.addChan("energy.kinetic", "J", "energy", "kinetic energy", chEKin, none, 0, 0)
	c.addChan("energy.potential", "J", "energy", "gravitational potential energy", chEPot, none, 0, 0)
	c.addChan("energy.spring", "J", "energy", "energy stored in springs and elastic elements", chESpring, none, 0, 0)
	c.addChan("energy.total", "J", "energy", "total mechanical energy", chETotal, none, 0, 0)
	c.addChan("constraint.position", "", "constraint", "max |Φ| over all constraint equations", chCPos, none, 0, 0)
	c.addChan("constraint.velocity", "", "constraint", "max |Φq v + Φt|", chCVel, none, 0, 0)
}

func driverUnit(k string) string {
	if k == "joint-angle" || k == "body-angle" {
		return "rad"
	}
	return "m"
}

func driverForceUnit(k string) string {
	if k == "joint-angle" || k == "body-angle" {
		return "N*m"
	}
	return "N"
}

// outputs resolves the declared outputs.
func (c *compiler) outputs() {
	m := c.m
	for _, o := range c.spec.Outputs {
		if o.Name == "" {
			c.errf(o.Pos, "name", "output needs a name")
			continue
		}
		if !mech.ValidName(o.Name) {
			c.errf(o.Pos, "name", "output name %q is not a valid identifier", o.Name)
		}
		info := VarInfo{Name: o.Name, Unit: o.Unit, Description: o.Description}
		switch {
		case o.Channel != "" && o.Expr.Given():
			c.errf(o.Pos, "channel", "output %q has both channel and expr: choose one", o.Name)
			continue
		case o.Channel != "":
			k, ok := m.ChannelIndex(o.Channel)
			if !ok && c.vectorOutput(o, info) {
				continue
			}
			if !ok {
				names := make([]string, len(m.channels))
				for i, ch := range m.channels {
					names[i] = ch.info.Name
				}
				c.errf(o.Pos, "channel", "output %q: unknown channel %q%s", o.Name, o.Channel, suggest(o.Channel, names))
				continue
			}
			if info.Unit == "" {
				info.Unit = m.channels[k].info.Unit
			} else if info.Unit != m.channels[k].info.Unit {
				c.errf(o.Pos, "unit", "output %q: channel %s is in %s, not %s", o.Name, o.Channel, m.channels[k].info.Unit, info.Unit)
			}
			if info.Description == "" {
				info.Description = m.channels[k].info.Description
			}
			if o.Name != o.Channel {
				if _, clash := m.ChannelIndex(o.Name); !clash {
					ch := m.channels[k]
					ch.info.Name = o.Name
					k = m.pushChan(ch)
				}
			}
			info.Channel = o.Channel
			m.outChan = append(m.outChan, k)
		case o.Expr.Given():
			p := c.runProgram(o.Expr)
			if p == nil {
				continue
			}
			if _, clash := m.ChannelIndex(o.Name); clash {
				c.errf(o.Pos, "name", "output %q has the name of a standard channel", o.Name)
				continue
			}
			m.outChan = append(m.outChan, m.pushChan(channel{info: mech.ChannelInfo{Name: o.Name, Unit: o.Unit, Group: "output", Description: o.Description}, kind: chExpr, prog: p}))
		default:
			c.errf(o.Pos, "channel", "output %q needs a channel or an expr", o.Name)
			continue
		}
		m.outputs = append(m.outputs, info)
	}
}

// vectorKinds lists the vector and matrix channels an <output> may name
// (NAME.r of a body or marker NAME, NAME.f of a joint): the suffixes of
// their element channels and of the element outputs' names.
var vectorKinds = [...]struct {
	kind, prefix string   // NAME.kind; element channels NAME.prefix+comp
	comps        []string // element channels' suffixes (spatial)
	names        []string // element outputs' suffixes
}{
	{"r", "", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"v", "v", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"a", "a", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"w", "w", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"wb", "wb", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"alpha", "alpha", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"alphab", "alphab", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"q", "q", []string{"w", "x", "y", "z"}, []string{"w", "x", "y", "z"}},
	{"f", "f", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"t", "t", []string{"x", "y", "z"}, []string{"x", "y", "z"}},
	{"fi", "f", []string{"xi", "yi", "zi"}, []string{"x", "y", "z"}},
	{"ti", "t", []string{"xi", "yi", "zi"}, []string{"x", "y", "z"}},
	{"R", "", nil, []string{"xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"}},
}

// rotSub is the first sub of a frame channel that is an entry of the
// frame's rotation matrix (row-major; not among the standard channels,
// made for outputs of NAME.R only).
const rotSub = len(frameQty)

// vectorOutput declares output o of a vector or matrix channel (body.r,
// body.R, joint.f, ...) as one scalar output an element, named o.Name.x,
// .y, .z (o.Name.w, .x, .y, .z for a quaternion; o.Name.xx ... .zz for a
// rotation matrix, row-major), each marked as an element of the array
// o.Name. It reports false when o.Channel is no vector channel.
func (c *compiler) vectorOutput(o spec.Output, info VarInfo) bool {
	m := c.m
	dot := strings.LastIndexByte(o.Channel, '.')
	if dot < 0 {
		return false
	}
	base, kind := o.Channel[:dot], o.Channel[dot+1:]
	for _, vk := range vectorKinds {
		if vk.kind != kind {
			continue
		}
		var ks []int
		dims := []int{len(vk.names)}
		if vk.comps == nil { // rotation matrix of a spatial frame
			k, ok := m.ChannelIndex(base + ".qw")
			if !ok || m.channels[k].kind != chFrame {
				return false
			}
			for e := range vk.names {
				// the elements as channels of their own, BASE.Rxx … .Rzz
				// (once: another output of the same matrix reuses them)
				name := base + ".R" + vk.names[e]
				if ke, ok := m.ChannelIndex(name); ok {
					ks = append(ks, ke)
					continue
				}
				ch := m.channels[k]
				ch.sub = rotSub + e
				ch.info.Name, ch.info.Unit, ch.info.Group = name, "", "orientation"
				ch.info.Description = "rotation matrix (frame to world), row " + vk.names[e][:1] + ", column " + vk.names[e][1:]
				ks = append(ks, m.pushChan(ch))
			}
			dims = []int{3, 3}
		} else {
			for _, comp := range vk.comps {
				k, ok := m.ChannelIndex(base + "." + vk.prefix + comp)
				if !ok {
					break
				}
				ks = append(ks, k)
			}
			if len(ks) < 2 {
				return false
			}
			dims = []int{len(ks)} // a planar model has x and y only
		}
		unit := m.channels[ks[0]].info.Unit
		if info.Unit != "" && info.Unit != unit {
			c.errf(o.Pos, "unit", "output %q: channel %s is in %s, not %s", o.Name, o.Channel, unit, info.Unit)
			return true
		}
		for e, k := range ks {
			el := info
			el.Name = o.Name + "." + vk.names[e]
			el.Unit = unit
			if el.Description == "" {
				el.Description = m.channels[k].info.Description
			} else {
				el.Description += " (" + vk.names[e] + ")"
			}
			el.Array, el.Dims, el.Elem, el.Channel = o.Name, dims, e, o.Channel
			if _, clash := m.ChannelIndex(el.Name); clash {
				c.errf(o.Pos, "name", "output %q: its element %q has the name of a standard channel", o.Name, el.Name)
				return true
			}
			ch := m.channels[k]
			ch.info.Name = el.Name
			m.outChan = append(m.outChan, m.pushChan(ch))
			m.outputs = append(m.outputs, el)
		}
		return true
	}
	return false
}

// EvalOutputs writes the declared outputs at the current state into dst
// (len(OutputInfo())). It allocates nothing.
func (m *Model) EvalOutputs(s *State, dst []float64) {
	var jc coordMemo
	for i, k := range m.outChan {
		dst[i] = m.evalChannelMemo(s, k, &jc)
	}
}

// EvalChannels writes every channel at the current state into dst
// (len(Channels())).
func (m *Model) EvalChannels(s *State, dst []float64) {
	var jc coordMemo
	for k := range m.channels {
		dst[k] = m.evalChannelMemo(s, k, &jc)
	}
}

// coordMemo holds the joint coordinate last evaluated while channels are
// evaluated at one state: a coordinate's value and rate come from one
// evaluation, and outputs often list both (a joint's angle and rate).
type coordMemo struct {
	ok       bool
	idx, sub int
	v, rate  float64
}

// evalChannelMemo is evalChannel with the memo jc of the coordinate
// channels evaluated before at the same state.
func (m *Model) evalChannelMemo(s *State, k int, jc *coordMemo) float64 {
	ch := &m.channels[k]
	if ch.kind != chJCoord && ch.kind != chJRate {
		return m.evalChannel(s, k)
	}
	if !jc.ok || jc.idx != ch.idx || jc.sub != ch.sub {
		j := &m.joints[ch.idx]
		co := j.Coord
		if ch.sub == 1 {
			co = j.Coord2
		}
		jc.v, jc.rate = co.Value(&s.x)
		jc.ok, jc.idx, jc.sub = true, ch.idx, ch.sub
	}
	if ch.kind == chJRate {
		return jc.rate
	}
	return jc.v
}

// reaction writes the reaction of joint j on the body of marker i into r:
// force (world) then torque about marker i's origin (world); planar r[5]
// is the torque. When marker i is on the ground it is minus the reaction
// on the body of marker j, moved to marker i. The joint's constraint elements are
// evaluated into work (phi, phit, gamma, jac of its rows).
func (m *Model) reaction(x *mech.Ctx, j int, work []float64, r []float64) {
	clear(r[:6])
	rr := m.jrows[j]
	ji := &m.joints[j]
	side, sign := 0, 1.0
	mk := ji.I
	if ji.I.OnGround(m.dim) {
		side, sign, mk = 1, -1, ji.J
	}
	var g [6]float64 // generalized force on the side's body: −Σ Jᵀλ
	for k := m.rowCon[rr.r0]; rr.nr > 0 && k <= m.rowCon[rr.r0+rr.nr-1]; k++ {
		ce := &m.cons[k]
		nd := len(ce.d)
		nr := ce.nr
		out := mech.Rows{Phi: work[:nr], Phit: work[nr : 2*nr], Gamma: work[2*nr : 3*nr], Jac: work[3*nr : 3*nr+nr*nd]}
		ce.c.Eval(x, out, false)
		w := nd / 2
		for lr := 0; lr < nr; lr++ {
			l := x.Lam[ce.r0+lr]
			for a := 0; a < w && a < 6; a++ {
				g[a] -= out.Jac[lr*nd+side*w+a] * l
			}
		}
	}
	if m.dim == 3 {
		var kf mech.KinFrame
		mk.F.Eval(x.Q, nil, &kf)
		F := mech.Vec3{g[0], g[1], g[2]}
		T := mech.MulMV(&kf.A, mech.Vec3{g[3], g[4], g[5]}) // body → world, about the centre of mass
		T = mech.Sub(T, mech.Cross(kf.AS, F))               // about the marker
		if sign < 0 {
			// about marker i (on the ground): T + (pⱼ − pᵢ) × F
			var ki mech.KinFrame
			ji.I.F.Eval(x.Q, nil, &ki)
			T = mech.Add(T, mech.Cross(mech.Sub(kf.P, ki.P), F))
		}
		for a := 0; a < 3; a++ {
			r[a], r[3+a] = sign*F[a], sign*T[a]
		}
		return
	}
	var kp mech.KinPoint
	mk.P.Eval(x.Q, nil, &kp)
	F := [2]float64{g[0], g[1]}
	tq := g[2] - mech.Cross2(kp.AS, F)
	if sign < 0 {
		// about marker i (on the ground)
		var ki mech.KinPoint
		ji.I.P.Eval(x.Q, nil, &ki)
		tq += mech.Cross2(mech.Sub2(kp.R, ki.R), F)
	}
	r[0], r[1] = sign*F[0], sign*F[1]
	r[5] = sign * tq
}

func (m *Model) evalChannel(s *State, k int) float64 {
	ch := &m.channels[k]
	x := &s.x
	switch ch.kind {
	case chTime:
		return s.T
	case chInput:
		return s.Input(ch.idx)
	case chUser:
		return m.measures[ch.idx].Eval(x)
	case chPX, chPY, chPAngle, chPVX, chPVY, chPOmega, chPAX, chPAY, chPAlpha:
		var kp mech.KinPoint
		p := ch.mk.P
		p.Eval(s.q, s.v, &kp)
		switch ch.kind {
		case chPX:
			return kp.R[0]
		case chPY:
			return kp.R[1]
		case chPAngle:
			return kp.Th + p.Ang
		case chPVX:
			return kp.V[0]
		case chPVY:
			return kp.V[1]
		case chPOmega:
			return kp.Om
		}
		o := 3 * p.Body
		al := s.a[o+2]
		switch ch.kind {
		case chPAX:
			return s.a[o] - kp.AS[1]*al - kp.AS[0]*kp.Om*kp.Om
		case chPAY:
			return s.a[o+1] + kp.AS[0]*al - kp.AS[1]*kp.Om*kp.Om
		}
		return al
	case chFrame:
		return m.frameChannel(s, &ch.mk.F, ch.sub)
	case chJFX, chJFY, chJT, chJR:
		var r [6]float64
		m.reaction(x, ch.idx, x.Work, r[:])
		switch ch.kind {
		case chJFX:
			return r[0]
		case chJFY:
			return r[1]
		case chJT:
			return r[5]
		}
		if ch.sub < 6 {
			return r[ch.sub]
		}
		// in marker i's frame
		var kf mech.KinFrame
		fi := &m.joints[ch.idx].I.F
		fi.Eval(s.q, nil, &kf)
		R := fi.Orient(&kf)
		if ch.sub < 9 {
			return mech.MulMTV(&R, mech.Vec3{r[0], r[1], r[2]})[ch.sub-6]
		}
		return mech.MulMTV(&R, mech.Vec3{r[3], r[4], r[5]})[ch.sub-9]
	case chJCoord, chJRate:
		j := &m.joints[ch.idx]
		co := j.Coord
		if ch.sub == 1 {
			co = j.Coord2
		}
		v, rate := co.Value(x)
		if ch.kind == chJRate {
			return rate
		}
		return v
	case chDForce:
		j := &m.joints[ch.idx]
		rr := m.jrows[ch.idx]
		ce := &m.cons[m.rowCon[rr.r0]]
		ce.c.Eval(x, ce.out(s), false)
		// effort along the driven coordinate: the row's generalized force on j
		switch j.Driver {
		case "joint-angle", "body-angle":
			if m.dim == 2 {
				return -s.jac[ce.jo+(rr.r0-ce.r0)*len(ce.d)+5] * s.lam[rr.r0]
			}
		}
		return -s.lam[rr.r0]
	case chDValue:
		return m.joints[ch.idx].Value.Get(x)
	case chCoupler:
		rr := m.jrows[ch.idx]
		a, _ := m.cons[m.rowCon[rr.r0]].c.(mech.Coupling).Coefficients()
		return -a[ch.sub] * s.lam[rr.r0]
	case chForce:
		return m.forces[ch.idx].(mech.Channeler).Channel(x, ch.sub)
	case chEKin:
		return m.kinetic(s.v, s.tmp) + m.flexKinetic(s)
	case chEPot:
		return m.gravityPotential(s.q)
	case chESpring:
		return m.springEnergy(s)
	case chETotal:
		return m.kinetic(s.v, s.tmp) + m.flexKinetic(s) + m.gravityPotential(s.q) + m.springEnergy(s)
	case chCPos, chCVel:
		// every row, the redundant ones too: they hold as well
		w := 0.0
		nred := s.nred
		s.nred = 0
		m.evalCons(s, false)
		s.nred = nred
		for r := 0; r < m.nc; r++ {
			if ch.kind == chCPos {
				w = math.Max(w, math.Abs(s.phi[r]))
				continue
			}
			w = math.Max(w, math.Abs(s.phit[r]+m.rowDot(s, r, s.v)))
		}
		return w
	case chExpr:
		return ch.prog.Eval(s.vars, x)
	}
	return math.NaN()
}

// frameChannel evaluates quantity sub (frameQty) of a spatial frame.
func (m *Model) frameChannel(s *State, f *mech.Frame, sub int) float64 {
	var k mech.KinFrame
	f.Eval(s.q, s.v, &k)
	switch {
	case sub >= rotSub:
		R := f.Orient(&k)
		return R[sub-rotSub]
	case sub < 3:
		return k.P[sub]
	case sub < 6:
		return k.V[sub-3]
	case sub < 9:
		if f.Body < 0 {
			return 0
		}
		// p̈ = r̈ + A (α × s) + ω × (ω × A s), α in the body frame
		u := f.V
		ab := mech.Vec3{s.a[u+3], s.a[u+4], s.a[u+5]}
		acc := mech.Add(mech.Vec3{s.a[u], s.a[u+1], s.a[u+2]}, mech.MulMV(&k.A, mech.Cross(ab, f.S)))
		acc = mech.Add(acc, mech.Cross(k.W, mech.Cross(k.W, k.AS)))
		return acc[sub-6]
	case sub < 13:
		var q mech.Quat
		if f.Body < 0 {
			q = mech.MatQuat(&f.R)
		} else {
			o := f.Q
			q = mech.QuatMul(mech.Quat{s.q[o+3], s.q[o+4], s.q[o+5], s.q[o+6]}, mech.MatQuat(&f.R))
		}
		return q[sub-9]
	case sub < 16:
		R := f.Orient(&k)
		return mech.Cardan(&R)[sub-13]
	case sub < 19:
		return k.W[sub-16]
	case sub < 22:
		// in the frame's own axes: Rᵀ ω_body
		return mech.MulMTV(&f.R, k.Wb)[sub-19]
	}
	if f.Body < 0 {
		return 0
	}
	u := f.V
	ab := mech.Vec3{s.a[u+3], s.a[u+4], s.a[u+5]}
	if sub < 25 {
		return mech.MulMV(&k.A, ab)[sub-22]
	}
	return mech.MulMTV(&f.R, ab)[sub-25]
}

func (m *Model) springEnergy(s *State) float64 {
	e := 0.0
	for _, f := range m.forces {
		e += f.Potential(&s.x)
	}
	return e
}

// flexKinetic returns the kinetic energy not in ½ vᵀ M̄ v (floating-frame
// beams' configuration-dependent inertia).
func (m *Model) flexKinetic(s *State) float64 {
	e := 0.0
	for _, f := range m.forces {
		if k, ok := f.(mech.KineticCorrector); ok {
			e += k.KineticCorrection(&s.x)
		}
	}
	return e
}
