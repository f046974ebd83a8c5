package solver

import (
	"math"

	"mbfmu/expr"
)

// ChannelInfo describes a result channel.
type ChannelInfo struct {
	Name, Unit, Group, Description string
}

type chanKind uint8

const (
	chTime chanKind = iota
	chPX
	chPY
	chPAngle
	chPVX
	chPVY
	chPOmega
	chPAX
	chPAY
	chPAlpha
	chJFX
	chJFY
	chJT
	chJAngle
	chJDisp
	chDValue
	chDForce
	chForce // element: sub selects the quantity
	chEKin
	chEPot
	chESpring
	chETotal
	chCPos
	chCVel
	chInput
	chExpr
)

type channel struct {
	info ChannelInfo
	kind chanKind
	pt   point
	idx  int // joint, force element, input
	sub  int
	prog *expr.Program
}

// Channels lists every result channel of the model, time first.
func (m *Model) Channels() []ChannelInfo {
	out := make([]ChannelInfo, len(m.channels))
	for i, c := range m.channels {
		out[i] = c.info
	}
	return out
}

// ChannelIndex returns the index of a channel by name.
func (m *Model) ChannelIndex(name string) (int, bool) {
	for i, c := range m.channels {
		if c.info.Name == name {
			return i, true
		}
	}
	return 0, false
}

func (c *compiler) addChan(name, unit, group, desc string, k chanKind, pt point, idx, sub int) {
	c.m.channels = append(c.m.channels, channel{info: ChannelInfo{name, unit, group, desc}, kind: k, pt: pt, idx: idx, sub: sub})
}

func (c *compiler) pointChans(prefix, what string, p point, full bool) {
	c.addChan(prefix+".x", "m", "position", what+" x position", chPX, p, 0, 0)
	c.addChan(prefix+".y", "m", "position", what+" y position", chPY, p, 0, 0)
	if full {
		c.addChan(prefix+".angle", "rad", "position", what+" angle", chPAngle, p, 0, 0)
	}
	c.addChan(prefix+".vx", "m/s", "velocity", what+" x velocity", chPVX, p, 0, 0)
	c.addChan(prefix+".vy", "m/s", "velocity", what+" y velocity", chPVY, p, 0, 0)
	if full {
		c.addChan(prefix+".omega", "rad/s", "velocity", what+" angular velocity", chPOmega, p, 0, 0)
		c.addChan(prefix+".ax", "m/s^2", "acceleration", what+" x acceleration", chPAX, p, 0, 0)
		c.addChan(prefix+".ay", "m/s^2", "acceleration", what+" y acceleration", chPAY, p, 0, 0)
		c.addChan(prefix+".alpha", "rad/s^2", "acceleration", what+" angular acceleration", chPAlpha, p, 0, 0)
	}
}

// channels builds the standard channel list.
func (c *compiler) channels() {
	m := c.m
	c.addChan("time", "s", "time", "simulation time", chTime, point{}, 0, 0)
	for i, in := range m.inputs {
		c.addChan(in.Name, in.Unit, "input", "input: "+in.Description, chInput, point{}, i, 0)
	}
	for _, b := range m.bodies {
		c.pointChans(b.name, "body "+b.name+" frame", m.markers[b.name], true)
		for _, mk := range b.markers {
			c.pointChans(b.name+"."+mk, "marker "+b.name+"."+mk, m.markers[b.name+"."+mk], true)
		}
	}
	for i, j := range m.joints {
		switch j.kind {
		case "driver":
			c.addChan(j.name+".value", driverUnit(j.dkind), "position", "driver "+j.name+" prescribed value", chDValue, point{}, i, 0)
			c.addChan(j.name+".force", driverForceUnit(j.dkind), "force", "driver "+j.name+" effort (force or torque it applies)", chDForce, point{}, i, 0)
		default:
			c.addChan(j.name+".fx", "N", "force", "joint "+j.name+" reaction force on the body of marker i, x (global)", chJFX, point{}, i, 0)
			c.addChan(j.name+".fy", "N", "force", "joint "+j.name+" reaction force on the body of marker i, y (global)", chJFY, point{}, i, 0)
			c.addChan(j.name+".torque", "N*m", "force", "joint "+j.name+" reaction torque on the body of marker i about marker i", chJT, point{}, i, 0)
			if j.kind == "revolute" {
				c.addChan(j.name+".angle", "rad", "position", "joint "+j.name+" relative angle of marker j to marker i", chJAngle, point{}, i, 0)
			}
			if j.kind == "translational" {
				c.addChan(j.name+".disp", "m", "position", "joint "+j.name+" displacement of marker j along marker i's x axis", chJDisp, point{}, i, 0)
			}
		}
	}
	for i, f := range m.forces {
		name := m.fnames[i]
		switch f.(type) {
		case *spring:
			c.addChan(name+".force", "N", "force", "spring "+name+" tension", chForce, point{}, i, 0)
			c.addChan(name+".length", "m", "position", "spring "+name+" length", chForce, point{}, i, 1)
			c.addChan(name+".velocity", "m/s", "velocity", "spring "+name+" extension rate", chForce, point{}, i, 2)
			c.addChan(name+".energy", "J", "energy", "spring "+name+" potential energy", chForce, point{}, i, 3)
		case *rspring:
			c.addChan(name+".torque", "N*m", "force", "rotational spring "+name+" torque on the body of j", chForce, point{}, i, 0)
			c.addChan(name+".angle", "rad", "position", "rotational spring "+name+" relative angle", chForce, point{}, i, 1)
			c.addChan(name+".energy", "J", "energy", "rotational spring "+name+" potential energy", chForce, point{}, i, 3)
		case *pointForce:
			c.addChan(name+".fx", "N", "force", "force "+name+" x component (global)", chForce, point{}, i, 0)
			c.addChan(name+".fy", "N", "force", "force "+name+" y component (global)", chForce, point{}, i, 1)
		case *torqueElem:
			c.addChan(name+".torque", "N*m", "force", "torque "+name, chForce, point{}, i, 0)
		default:
			if ch, ok := f.(elementChannels); ok {
				for k, info := range ch.channelInfo(name) {
					c.m.channels = append(c.m.channels, channel{info: info, kind: chForce, idx: i, sub: k})
				}
			}
		}
	}
	c.addChan("energy.kinetic", "J", "energy", "kinetic energy", chEKin, point{}, 0, 0)
	c.addChan("energy.potential", "J", "energy", "gravitational potential energy", chEPot, point{}, 0, 0)
	c.addChan("energy.spring", "J", "energy", "energy stored in springs and elastic elements", chESpring, point{}, 0, 0)
	c.addChan("energy.total", "J", "energy", "total mechanical energy", chETotal, point{}, 0, 0)
	c.addChan("constraint.position", "", "constraint", "max |Φ| over all constraint equations", chCPos, point{}, 0, 0)
	c.addChan("constraint.velocity", "", "constraint", "max |Φq v + Φt|", chCVel, point{}, 0, 0)
}

// elementChannels is implemented by force elements with outputs of their own.
type elementChannels interface {
	channelInfo(name string) []ChannelInfo
	channel(x *evalCtx, sub int) float64
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
		if !validName(o.Name) {
			c.errf(o.Pos, "name", "output name %q is not a valid identifier", o.Name)
		}
		info := VarInfo{Name: o.Name, Unit: o.Unit, Description: o.Description}
		switch {
		case o.Channel != "" && o.Expr.Given():
			c.errf(o.Pos, "channel", "output %q has both channel and expr: choose one", o.Name)
			continue
		case o.Channel != "":
			k, ok := m.ChannelIndex(o.Channel)
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
					m.channels = append(m.channels, m.channels[k])
					m.channels[len(m.channels)-1].info.Name = o.Name
					k = len(m.channels) - 1
				}
			}
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
			m.channels = append(m.channels, channel{info: ChannelInfo{o.Name, o.Unit, "output", o.Description}, kind: chExpr, prog: p})
			m.outChan = append(m.outChan, len(m.channels)-1)
		default:
			c.errf(o.Pos, "channel", "output %q needs a channel or an expr", o.Name)
			continue
		}
		m.outputs = append(m.outputs, info)
	}
}

// EvalOutputs writes the declared outputs at the current state into dst
// (len(OutputInfo())). It allocates nothing.
func (m *Model) EvalOutputs(s *State, dst []float64) {
	for i, k := range m.outChan {
		dst[i] = m.evalChannel(s, k)
	}
}

// EvalChannels writes every channel at the current state into dst
// (len(Channels())).
func (m *Model) EvalChannels(s *State, dst []float64) {
	for k := range m.channels {
		dst[k] = m.evalChannel(s, k)
	}
}

// evalJoint evaluates the constraint elements of joint j.
func (m *Model) evalJoint(s *State, j *jointInfo, vel bool) {
	for k := m.rowCon[j.r0]; k <= m.rowCon[j.r0+j.nr-1]; k++ {
		ce := &m.cons[k]
		ce.c.eval(&s.x, ce.out(s), vel)
	}
}

// jointForce returns the generalized constraint force the rows of joint j
// (as evaluated by evalJoint) apply to one side: −Σ Φqᵀ λ over the
// element coordinates of side 0 (marker i's body, the first half of each
// element's coordinates) or side 1 (marker j's).
func (m *Model) jointForce(s *State, j *jointInfo, side int, f []float64) {
	clear(f)
	for r := j.r0; r < j.r0+j.nr; r++ {
		ce := &m.cons[m.rowCon[r]]
		nd := len(ce.d)
		w := nd / 2
		jr := s.jac[ce.jo+(r-ce.r0)*nd : ce.jo+(r-ce.r0+1)*nd]
		for k := 0; k < w && k < len(f); k++ {
			f[k] -= jr[side*w+k] * s.lam[r]
		}
	}
}

func (m *Model) evalChannel(s *State, k int) float64 {
	ch := &m.channels[k]
	x := &s.x
	switch ch.kind {
	case chTime:
		return s.T
	case chInput:
		return s.Input(ch.idx)
	case chPX, chPY, chPAngle, chPVX, chPVY, chPOmega, chPAX, chPAY, chPAlpha:
		var kp kinPoint
		ch.pt.eval(s.q, s.v, &kp)
		switch ch.kind {
		case chPX:
			return kp.r[0]
		case chPY:
			return kp.r[1]
		case chPAngle:
			return kp.th + ch.pt.ang
		case chPVX:
			return kp.v[0]
		case chPVY:
			return kp.v[1]
		case chPOmega:
			return kp.om
		}
		o := 3 * ch.pt.body
		al := s.a[o+2]
		switch ch.kind {
		case chPAX:
			return s.a[o] - kp.as[1]*al - kp.as[0]*kp.om*kp.om
		case chPAY:
			return s.a[o+1] + kp.as[0]*al - kp.as[1]*kp.om*kp.om
		}
		return al
	case chJFX, chJFY, chJT, chDForce:
		j := &m.joints[ch.idx]
		m.evalJoint(s, j, false)
		if ch.kind == chDForce {
			// effort along the driven coordinate: the row's generalized force on j
			switch j.dkind {
			case "joint-angle", "body-angle":
				ce := &m.cons[m.rowCon[j.r0]]
				return -s.jac[ce.jo+(j.r0-ce.r0)*len(ce.d)+5] * s.lam[j.r0]
			}
			return -s.lam[j.r0]
		}
		// reaction on the body of marker i; when i is ground, minus the
		// reaction on j (about j's marker, which coincides for these joints)
		side, sign := 0, 1.0
		p := j.pi
		if j.pi.body < 0 {
			side, sign, p = 1, -1, j.pj
		}
		var f [3]float64
		m.jointForce(s, j, side, f[:])
		switch ch.kind {
		case chJFX:
			return sign * f[0]
		case chJFY:
			return sign * f[1]
		}
		var kp kinPoint
		p.eval(s.q, nil, &kp)
		return sign * (f[2] - cross2(kp.as, [2]float64{f[0], f[1]}))
	case chJAngle:
		j := &m.joints[ch.idx]
		return angleOf(s.q, j.pj) - angleOf(s.q, j.pi)
	case chJDisp:
		j := &m.joints[ch.idx]
		var ki, kj kinPoint
		j.pi.eval(s.q, nil, &ki)
		j.pj.eval(s.q, nil, &kj)
		a := ki.th + j.pi.ang
		return math.Cos(a)*(kj.r[0]-ki.r[0]) + math.Sin(a)*(kj.r[1]-ki.r[1])
	case chDValue:
		j := &m.joints[ch.idx]
		f, _, _ := m.rows[j.r0].value(x)
		return f
	case chForce:
		return m.forceChannel(s, ch)
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

func angleOf(q []float64, p point) float64 {
	if p.body < 0 {
		return p.ang
	}
	return q[3*p.body+2] + p.ang
}

func (m *Model) springEnergy(s *State) float64 {
	e := 0.0
	for _, f := range m.forces {
		e += f.potential(&s.x)
	}
	return e
}

func (m *Model) forceChannel(s *State, ch *channel) float64 {
	x := &s.x
	switch f := m.forces[ch.idx].(type) {
	case *spring:
		l, ld, fs, _, _, _ := f.state(x)
		switch ch.sub {
		case 0:
			return fs
		case 1:
			return l
		case 2:
			return ld
		}
		return f.potential(x)
	case *rspring:
		switch ch.sub {
		case 0:
			return f.torque(x)
		case 1:
			th, _ := f.rel(x)
			return th
		}
		return f.potential(x)
	case *pointForce:
		_, F := f.force(x)
		return F[ch.sub]
	case *torqueElem:
		return f.t.get(x)
	case elementChannels:
		return f.channel(x, ch.sub)
	}
	return math.NaN()
}
