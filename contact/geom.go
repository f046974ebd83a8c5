package contact

import "math"

// Vec2 is a planar vector or point.
type Vec2 struct{ X, Y float64 }

// Add returns u + v.
func (u Vec2) Add(v Vec2) Vec2 { return Vec2{u.X + v.X, u.Y + v.Y} }

// Sub returns u − v.
func (u Vec2) Sub(v Vec2) Vec2 { return Vec2{u.X - v.X, u.Y - v.Y} }

// Scale returns s·u.
func (u Vec2) Scale(s float64) Vec2 { return Vec2{s * u.X, s * u.Y} }

// Dot returns u·v.
func (u Vec2) Dot(v Vec2) float64 { return u.X*v.X + u.Y*v.Y }

// Cross returns the scalar cross product u × v = u.X v.Y − u.Y v.X.
func (u Vec2) Cross(v Vec2) float64 { return u.X*v.Y - u.Y*v.X }

// Perp returns u rotated by +90°: (−u.Y, u.X).
func (u Vec2) Perp() Vec2 { return Vec2{-u.Y, u.X} }

// Norm returns |u|.
func (u Vec2) Norm() float64 { return math.Hypot(u.X, u.Y) }

// Feature tells which feature of body B carries the contact.
type Feature int

// Contact features of body B.
const (
	// FeatureFace: the interior of the line or segment.
	FeatureFace Feature = iota
	// FeatureEndA: the end cap at the segment's first endpoint a.
	FeatureEndA
	// FeatureEndB: the end cap at the segment's second endpoint b.
	FeatureEndB
	// FeatureCircle: body B is a circle (CircleCircle, or a degenerate
	// zero-length line).
	FeatureCircle
)

// Contact is the result of a planar proximity query between body A (a circle
// or point) and body B (half-plane, segment or circle).
//
// Inputs are numbered: 0 is A's centre p; 1 and 2 are B's defining points
// (line/segment endpoints a and b, or B's centre for CircleCircle, in which
// case index 2 is unused and zero). GradDelta[k] = ∂Delta/∂(input k) and
// GradPhi[k] = ∂φ/∂(input k), where φ = atan2(N.Y, N.X) is the normal angle,
// so dN = −T dφ and dT = N dφ. These give exact first derivatives for Newton
// Jacobians; for rigid bodies chain them with the point velocities
// (PointVelocity, JacobianRow).
type Contact struct {
	// Delta is the penetration (> 0 overlap, < 0 gap).
	Delta float64
	// N is the unit contact normal, pointing from B towards A (the direction
	// in which the normal force pushes A).
	N Vec2
	// T is the unit tangent, N rotated by −90°: T = (N.Y, −N.X).
	T Vec2
	// PA and PB are the contact points on the surfaces of A and B
	// (PA = PB − Delta·N).
	PA, PB Vec2
	// Lambda is the position of B's closest point along a→b (0 at a, 1 at
	// b; unclamped for a half-plane); 0 for CircleCircle.
	Lambda float64
	// Feature is the feature of B in contact.
	Feature Feature
	// GradDelta holds ∂Delta/∂input_k.
	GradDelta [3]Vec2
	// GradPhi holds ∂φ/∂input_k for the normal angle φ.
	GradPhi [3]Vec2
}

// DeltaRate returns δ' = Σ_k GradDelta[k]·v_k from the velocities of the
// input points (v0 of A's centre, v1 and v2 of B's defining points; for
// CircleCircle v2 is ignored). Equal to −N·(vPA − vPB) for material points.
func (c *Contact) DeltaRate(v0, v1, v2 Vec2) float64 {
	return c.GradDelta[0].Dot(v0) + c.GradDelta[1].Dot(v1) + c.GradDelta[2].Dot(v2)
}

// Rates returns the penetration rate δ' = −N·(vA − vB) and the slip
// velocity vt = T·(vA − vB), where vA and vB are the velocities of the
// material points of A and B at PA and PB (see PointVelocity). δ' is exact;
// the slip uses each body's own surface point, which differs from other
// common choices by O(Delta·ω).
func (c *Contact) Rates(vA, vB Vec2) (deltaDot, slip float64) {
	r := vA.Sub(vB)
	return -c.N.Dot(r), c.T.Dot(r)
}

// PointVelocity returns the velocity of the material point at position
// point of a rigid body with reference point centre moving with velocity v
// and angular velocity omega (counter-clockwise): v + ω × (point − centre).
func PointVelocity(v Vec2, omega float64, centre, point Vec2) Vec2 {
	return v.Add(point.Sub(centre).Perp().Scale(omega))
}

// JacobianRow returns the row (jx, jy, jθ) with dir·v_point = jx·ẋ + jy·ẏ +
// jθ·θ̇ for a point rigidly attached to a body with coordinates (x, y, θ) at
// centre: jx, jy = dir, jθ = (point − centre) × dir. With dir = −N (body A)
// or +N (body B) it is the body's block of the Jacobian of Delta; with T, of
// the slip velocity.
func JacobianRow(dir, point, centre Vec2) (jx, jy, jtheta float64) {
	return dir.X, dir.Y, point.Sub(centre).Cross(dir)
}

func tangentOf(n Vec2) Vec2 { return Vec2{n.Y, -n.X} }

// CircleLine is circle A (centre p, radius r >= 0; r = 0 for a point)
// against the half-plane B whose boundary is the infinite line through a and
// b; the free side is to the left of a→b (the normal is the left normal
// (b−a)ᵀ rotated +90°, normalised). Delta = r − d with d the signed distance
// of p from the line, so a circle fully behind the line still reports a
// (large) penetration. If a == b the line is undefined and the query falls
// back to CircleCircle(p, r, a, 0).
//
// Seed 003: a leg tip (r = 0) against a horizontal platform at height y0,
// a = (x0−L, y0), b = (x0+L, y0), gives Delta = y0 − y_tip.
func CircleLine(p Vec2, r float64, a, b Vec2) Contact {
	u := b.Sub(a)
	L := math.Sqrt(u.Dot(u))
	if L == 0 {
		return CircleCircle(p, r, a, 0)
	}
	t := u.Scale(1 / L)
	n := t.Perp()
	rel := p.Sub(a)
	d := n.Dot(rel)
	lam := t.Dot(rel) / L
	var c Contact
	c.Delta = r - d
	c.N = n
	c.T = t
	c.PB = p.Sub(n.Scale(d))
	c.PA = p.Sub(n.Scale(r))
	c.Lambda = lam
	c.Feature = FeatureFace
	c.GradDelta[0] = n.Scale(-1)
	c.GradDelta[1] = n.Scale(1 - lam)
	c.GradDelta[2] = n.Scale(lam)
	c.GradPhi[1] = n.Scale(-1 / L)
	c.GradPhi[2] = n.Scale(1 / L)
	return c
}

// CircleSegment is circle A (centre p, radius r >= 0) against the segment
// a–b of B thickened by radius rs >= 0 (a capsule; rs = 0 for a bare
// segment). The segment is two-sided; the closest point of the segment to p
// decides between the face (0 < Lambda < 1) and the end caps (Feature
// FeatureEndA/FeatureEndB, where the contact is circle against circle).
// Delta = r + rs − dist(p, segment). When p lies exactly on the segment the
// normal falls back to the left normal of a→b, and when it coincides with a
// cap centre to the segment direction outward of that cap (for a == b, to
// +Y); GradPhi is then not meaningful.
func CircleSegment(p Vec2, r float64, a, b Vec2, rs float64) Contact {
	u := b.Sub(a)
	L2 := u.Dot(u)
	if L2 == 0 {
		c := CircleCircle(p, r, a, rs)
		c.Feature = FeatureEndA
		return c
	}
	rel := p.Sub(a)
	lam := u.Dot(rel) / L2
	var c Contact
	switch {
	case lam <= 0 || lam >= 1:
		end, gi := a, 1
		c.Feature = FeatureEndA
		out := u.Scale(-1)
		if lam >= 1 {
			end, gi = b, 2
			c.Feature = FeatureEndB
			out = u
		}
		dv := p.Sub(end)
		D := math.Sqrt(dv.Dot(dv))
		var n Vec2
		if D > 0 {
			n = dv.Scale(1 / D)
		} else {
			n = out.Scale(1 / math.Sqrt(L2))
		}
		t := tangentOf(n)
		c.Delta = r + rs - D
		c.N, c.T = n, t
		c.PA = p.Sub(n.Scale(r))
		c.PB = end.Add(n.Scale(rs))
		c.Lambda = math.Min(math.Max(lam, 0), 1)
		c.GradDelta[0] = n.Scale(-1)
		c.GradDelta[gi] = n
		if D > 0 {
			c.GradPhi[0] = t.Scale(-1 / D)
			c.GradPhi[gi] = t.Scale(1 / D)
		}
	default:
		L := math.Sqrt(L2)
		tu := u.Scale(1 / L)
		n := tu.Perp()
		d := n.Dot(rel)
		if d < 0 {
			n, d = n.Scale(-1), -d
		}
		c.Delta = r + rs - d
		c.N, c.T = n, tangentOf(n)
		foot := a.Add(u.Scale(lam))
		c.PA = p.Sub(n.Scale(r))
		c.PB = foot.Add(n.Scale(rs))
		c.Lambda = lam
		c.Feature = FeatureFace
		c.GradDelta[0] = n.Scale(-1)
		c.GradDelta[1] = n.Scale(1 - lam)
		c.GradDelta[2] = n.Scale(lam)
		// φ of ±n rotates with the segment: dφ = n_left·(db − da)/L, and
		// n_left·v = (n·v)·sign, while the sign flip leaves dφ unchanged.
		nl := tu.Perp()
		c.GradPhi[1] = nl.Scale(-1 / L)
		c.GradPhi[2] = nl.Scale(1 / L)
	}
	return c
}

// CircleCircle is circle A (centre pA, radius rA >= 0) against circle B
// (centre pB, radius rB >= 0): Delta = rA + rB − |pA − pB|, N = (pA −
// pB)/|pA − pB| (+Y if the centres coincide; GradPhi is then zero). Input 1
// is pB; index 2 of the gradients is unused (zero).
func CircleCircle(pA Vec2, rA float64, pB Vec2, rB float64) Contact {
	dv := pA.Sub(pB)
	D := math.Sqrt(dv.Dot(dv))
	var c Contact
	n := Vec2{0, 1}
	if D > 0 {
		n = dv.Scale(1 / D)
	}
	t := tangentOf(n)
	c.Delta = rA + rB - D
	c.N, c.T = n, t
	c.PA = pA.Sub(n.Scale(rA))
	c.PB = pB.Add(n.Scale(rB))
	c.Feature = FeatureCircle
	c.GradDelta[0] = n.Scale(-1)
	c.GradDelta[1] = n
	if D > 0 {
		c.GradPhi[0] = t.Scale(-1 / D)
		c.GradPhi[1] = t.Scale(1 / D)
	}
	return c
}
