package solver

import "math"

// measure is a measured quantity usable in expressions: dx(m), dy(m),
// vx(m), vy(m), angle(m), omega(m), dist(m1, m2).
type measure struct {
	kind   measureKind
	p1, p2 point
}

type measureKind uint8

const (
	msDX measureKind = iota
	msDY
	msVX
	msVY
	msAngle
	msOmega
	msDist
)

var measureKinds = map[string]measureKind{
	"dx": msDX, "dy": msDY, "vx": msVX, "vy": msVY, "angle": msAngle, "omega": msOmega, "dist": msDist,
}

func (ms *measure) eval(x *evalCtx) float64 {
	var k kinPoint
	ms.p1.eval(x.q, x.v, &k)
	switch ms.kind {
	case msDX:
		return k.r[0]
	case msDY:
		return k.r[1]
	case msVX:
		return k.v[0]
	case msVY:
		return k.v[1]
	case msAngle:
		return k.th + ms.p1.ang
	case msOmega:
		return k.om
	case msDist:
		var k2 kinPoint
		ms.p2.eval(x.q, x.v, &k2)
		return math.Hypot(k2.r[0]-k.r[0], k2.r[1]-k.r[1])
	}
	return 0
}
