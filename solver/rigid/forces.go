package rigid

import (
	"math"

	"mbfmu/solver/mech"
)

// addPointForce adds the generalized force of a global force F applied at
// point pt (kinematics kp) into the local vector f at offset o (3 entries),
// and its stiffness contribution for a force fixed in the global frame
// (follower=false) or rotating with the body (follower=true).
func addPointForce(kp *mech.KinPoint, F [2]float64, f []float64, o int, k []float64, n int, follower bool) {
	bs := kp.BS()
	f[o] += F[0]
	f[o+1] += F[1]
	f[o+2] += mech.Cross2(kp.AS, F)
	if k == nil {
		return
	}
	if follower {
		// ∂Q_R/∂θ = rot90(F); ∂Q_θ/∂θ = 0.
		r := mech.Rot90(F)
		k[o*n+o+2] -= r[0]
		k[(o+1)*n+o+2] -= r[1]
	} else {
		// ∂Q_θ/∂θ = cross(Bs, F) = −(As)·F.
		k[(o+2)*n+o+2] -= mech.Cross2(bs, F)
	}
}

// pointForce is a force given by components at a marker.
type pointForce struct {
	name     string
	pt       mech.Point
	fx, fy   mech.Param
	follower bool
	d        [3]int
}

func (e *pointForce) Dofs() []int           { return e.d[:] }
func (e *pointForce) Params() []*mech.Param { return []*mech.Param{&e.fx, &e.fy} }

func (e *pointForce) force(x *mech.Ctx) (kp mech.KinPoint, F [2]float64) {
	e.pt.Eval(x.Q, x.V, &kp)
	F = [2]float64{e.fx.Get(x), e.fy.Get(x)}
	if e.follower {
		sn, cs := math.Sincos(kp.Th + e.pt.Ang)
		F = [2]float64{cs*F[0] - sn*F[1], sn*F[0] + cs*F[1]}
	}
	return
}

func (e *pointForce) Eval(x *mech.Ctx, f, k, c []float64) {
	if e.pt.Body < 0 {
		return
	}
	kp, F := e.force(x)
	addPointForce(&kp, F, f, 0, k, 3, e.follower)
}

func (e *pointForce) Potential(*mech.Ctx) float64 { return 0 }

// torqueElem is a torque on body j with the reaction on body i.
type torqueElem struct {
	name string
	bi   int // -1 ground
	bj   int
	t    mech.Param
	d    [6]int
}

func (e *torqueElem) Dofs() []int           { return e.d[:] }
func (e *torqueElem) Params() []*mech.Param { return []*mech.Param{&e.t} }

func (e *torqueElem) Eval(x *mech.Ctx, f, k, c []float64) {
	t := e.t.Get(x)
	f[2] -= t
	f[5] += t
}

func (e *torqueElem) Potential(*mech.Ctx) float64 { return 0 }

// spring is a translational spring–damper between two points:
// tension f = K (l − L0) + C l' + P.
type spring struct {
	name       string
	pi, pj     mech.Point
	k, c, l, p mech.Param
	d          [6]int
}

func (e *spring) Dofs() []int           { return e.d[:] }
func (e *spring) Params() []*mech.Param { return []*mech.Param{&e.k, &e.c, &e.l, &e.p} }

// state returns length, rate, tension and the kinematics.
func (e *spring) state(x *mech.Ctx) (l, ld, f float64, ki, kj mech.KinPoint, u [2]float64) {
	e.pi.Eval(x.Q, x.V, &ki)
	e.pj.Eval(x.Q, x.V, &kj)
	d := [2]float64{kj.R[0] - ki.R[0], kj.R[1] - ki.R[1]}
	l = math.Hypot(d[0], d[1])
	if l > 1e-300 {
		u = [2]float64{d[0] / l, d[1] / l}
	}
	ld = u[0]*(kj.V[0]-ki.V[0]) + u[1]*(kj.V[1]-ki.V[1])
	f = e.k.Get(x)*(l-e.l.Get(x)) + e.c.Get(x)*ld + e.p.Get(x)
	return
}

func (e *spring) Eval(x *mech.Ctx, f, k, c []float64) {
	l, _, fs, ki, kj, u := e.state(x)
	// D = ∂d/∂q (2×6): [−I, −Bs_i, I, Bs_j]
	bi, bj := ki.BS(), kj.BS()
	var D [2][6]float64
	D[0][0], D[1][1] = -1, -1
	D[0][2], D[1][2] = -bi[0], -bi[1]
	D[0][3], D[1][4] = 1, 1
	D[0][5], D[1][5] = bj[0], bj[1]
	if e.pi.Body < 0 {
		for r := 0; r < 2; r++ {
			D[r][0], D[r][1], D[r][2] = 0, 0, 0
		}
	}
	if e.pj.Body < 0 {
		for r := 0; r < 2; r++ {
			D[r][3], D[r][4], D[r][5] = 0, 0, 0
		}
	}
	// Dtu = Dᵀu; Q = −f Dᵀu.
	var Dtu [6]float64
	for a := 0; a < 6; a++ {
		Dtu[a] = D[0][a]*u[0] + D[1][a]*u[1]
		f[a] -= fs * Dtu[a]
	}
	if k == nil || l < 1e-300 {
		return
	}
	kk, cc := e.k.Get(x), e.c.Get(x)
	dd := [2]float64{kj.V[0] - ki.V[0], kj.V[1] - ki.V[1]}
	// P = (I − uuᵀ)/l
	P := [2][2]float64{{(1 - u[0]*u[0]) / l, -u[0] * u[1] / l}, {-u[0] * u[1] / l, (1 - u[1]*u[1]) / l}}
	// ∂u/∂q = P D (2×6)
	var du [2][6]float64
	for r := 0; r < 2; r++ {
		for a := 0; a < 6; a++ {
			du[r][a] = P[r][0]*D[0][a] + P[r][1]*D[1][a]
		}
	}
	// ∂l'/∂q = ḋᵀ ∂u/∂q + uᵀ ∂ḋ/∂q ; ∂ḋ/∂θi = +A s_i ω_i, ∂ḋ/∂θj = −A s_j ω_j
	var dldq, dfdq [6]float64
	for a := 0; a < 6; a++ {
		dldq[a] = dd[0]*du[0][a] + dd[1]*du[1][a]
	}
	if e.pi.Body >= 0 {
		dldq[2] += ki.Om * mech.Dot2(u, ki.AS)
	}
	if e.pj.Body >= 0 {
		dldq[5] -= kj.Om * mech.Dot2(u, kj.AS)
	}
	for a := 0; a < 6; a++ {
		dfdq[a] = kk*Dtu[a] + cc*dldq[a]
	}
	// K = −∂Q/∂q = Dᵀu ∂f/∂q + f Dᵀ ∂u/∂q + f (∂Dᵀ/∂q) u
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			k[a*6+b] += Dtu[a]*dfdq[b] + fs*(D[0][a]*du[0][b]+D[1][a]*du[1][b])
			c[a*6+b] += cc * Dtu[a] * Dtu[b]
		}
	}
	if e.pi.Body >= 0 {
		k[2*6+2] += fs * mech.Dot2(ki.AS, u)
	}
	if e.pj.Body >= 0 {
		k[5*6+5] -= fs * mech.Dot2(kj.AS, u)
	}
}

func (e *spring) Potential(x *mech.Ctx) float64 {
	l, _, _, _, _, _ := e.state(x)
	dl := l - e.l.Get(x)
	return 0.5*e.k.Get(x)*dl*dl + e.p.Get(x)*dl
}

// rspring is a rotational spring–damper between bodies i and j:
// τ = −K (θj − θi − φ0) − C (ωj − ωi) + P acts on j, −τ on i.
type rspring struct {
	name       string
	bi, bj     int
	k, c, a, p mech.Param
	d          [6]int
}

func (e *rspring) Dofs() []int           { return e.d[:] }
func (e *rspring) Params() []*mech.Param { return []*mech.Param{&e.k, &e.c, &e.a, &e.p} }

func (e *rspring) rel(x *mech.Ctx) (th, om float64) {
	if e.bj >= 0 {
		th, om = x.Q[3*e.bj+2], x.V[3*e.bj+2]
	}
	if e.bi >= 0 {
		th -= x.Q[3*e.bi+2]
		om -= x.V[3*e.bi+2]
	}
	return
}

func (e *rspring) torque(x *mech.Ctx) float64 {
	th, om := e.rel(x)
	return -e.k.Get(x)*(th-e.a.Get(x)) - e.c.Get(x)*om + e.p.Get(x)
}

func (e *rspring) Eval(x *mech.Ctx, f, k, c []float64) {
	t := e.torque(x)
	f[2] -= t
	f[5] += t
	if k == nil {
		return
	}
	kk, cc := e.k.Get(x), e.c.Get(x)
	k[2*6+2] += kk
	k[2*6+5] -= kk
	k[5*6+2] -= kk
	k[5*6+5] += kk
	c[2*6+2] += cc
	c[2*6+5] -= cc
	c[5*6+2] -= cc
	c[5*6+5] += cc
}

func (e *rspring) Potential(x *mech.Ctx) float64 {
	th, _ := e.rel(x)
	d := th - e.a.Get(x)
	return 0.5*e.k.Get(x)*d*d - e.p.Get(x)*d
}

// Channels lists the spring's result channels (mech.Channeler).
func (e *spring) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".force", Unit: "N", Group: "force", Description: "spring " + name + " tension"},
		{Name: name + ".length", Unit: "m", Group: "position", Description: "spring " + name + " length"},
		{Name: name + ".velocity", Unit: "m/s", Group: "velocity", Description: "spring " + name + " extension rate"},
		{Name: name + ".energy", Unit: "J", Group: "energy", Description: "spring " + name + " potential energy"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *spring) Channel(x *mech.Ctx, sub int) float64 {
	l, ld, fs, _, _, _ := e.state(x)
	switch sub {
	case 0:
		return fs
	case 1:
		return l
	case 2:
		return ld
	}
	return e.Potential(x)
}

// Channels lists the rotational spring's result channels (mech.Channeler).
func (e *rspring) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".torque", Unit: "N*m", Group: "force", Description: "rotational spring " + name + " torque on the body of j"},
		{Name: name + ".angle", Unit: "rad", Group: "position", Description: "rotational spring " + name + " relative angle"},
		{Name: name + ".energy", Unit: "J", Group: "energy", Description: "rotational spring " + name + " potential energy"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *rspring) Channel(x *mech.Ctx, sub int) float64 {
	switch sub {
	case 0:
		return e.torque(x)
	case 1:
		th, _ := e.rel(x)
		return th
	}
	return e.Potential(x)
}

// Channels lists the point force's result channels (mech.Channeler).
func (e *pointForce) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{
		{Name: name + ".fx", Unit: "N", Group: "force", Description: "force " + name + " x component (global)"},
		{Name: name + ".fy", Unit: "N", Group: "force", Description: "force " + name + " y component (global)"},
	}
}

// Channel evaluates channel sub (mech.Channeler).
func (e *pointForce) Channel(x *mech.Ctx, sub int) float64 {
	_, F := e.force(x)
	return F[sub]
}

// Channels lists the torque's result channel (mech.Channeler).
func (e *torqueElem) Channels(name string) []mech.ChannelInfo {
	return []mech.ChannelInfo{{Name: name + ".torque", Unit: "N*m", Group: "force", Description: "torque " + name}}
}

// Channel evaluates the torque (mech.Channeler).
func (e *torqueElem) Channel(x *mech.Ctx, sub int) float64 { return e.t.Get(x) }

// Draw draws the spring (mech.Drawer).
func (e *spring) Draw(g *mech.Geometry) {
	g.Links = append(g.Links, mech.GeomLink{Kind: "spring", Name: e.name, BodyA: bodyName(g, e.pi.Body), BodyB: bodyName(g, e.pj.Body),
		PA: framePoint(g, e.pi), PB: framePoint(g, e.pj), Force: e.name + ".force"})
}

// Draw draws the rotational spring (mech.Drawer).
func (e *rspring) Draw(g *mech.Geometry) {
	var pb [2]float64
	if e.bj >= 0 {
		pb = [2]float64{g.Bodies[e.bj].CM[0], g.Bodies[e.bj].CM[1]}
	}
	g.Links = append(g.Links, mech.GeomLink{Kind: "rspring", Name: e.name, BodyA: bodyName(g, e.bi), BodyB: bodyName(g, e.bj), PB: pb, Force: e.name + ".torque"})
}

// bodyName names body b in a geometry ("ground" for -1).
func bodyName(g *mech.Geometry, b int) string {
	if b < 0 {
		return "ground"
	}
	return g.Bodies[b].Name
}

// framePoint converts a planar point to its body-frame coordinates.
func framePoint(g *mech.Geometry, p mech.Point) [2]float64 {
	if p.Body < 0 {
		return p.S
	}
	cm := g.Bodies[p.Body].CM
	return [2]float64{p.S[0] + cm[0], p.S[1] + cm[1]}
}
