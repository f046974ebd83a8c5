package contact

import (
	"math"
	"math/rand"
	"testing"
)

func vnear(a, b Vec2, tol float64) bool {
	return math.Abs(a.X-b.X) <= tol && math.Abs(a.Y-b.Y) <= tol
}

type want struct {
	delta  float64
	n, pa  Vec2
	pb     Vec2
	lambda float64
	feat   Feature
}

func checkContact(t *testing.T, name string, c Contact, w want) {
	t.Helper()
	const tol = 1e-14
	if math.Abs(c.Delta-w.delta) > tol || !vnear(c.N, w.n, tol) || !vnear(c.PA, w.pa, tol) ||
		!vnear(c.PB, w.pb, tol) || math.Abs(c.Lambda-w.lambda) > tol || c.Feature != w.feat {
		t.Errorf("%s: got %+v, want %+v", name, c, w)
	}
	if !vnear(c.T, Vec2{c.N.Y, -c.N.X}, 0) || !vnear(c.PA, c.PB.Sub(c.N.Scale(c.Delta)), 1e-14) {
		t.Errorf("%s: T or PA = PB − δN violated: %+v", name, c)
	}
}

// Hand-computed configurations.
func TestGeometryHandCases(t *testing.T) {
	s2 := math.Sqrt2
	// Unit circle at (1, 0.5) on the floor a=(0,0)→b=(2,0): free side is +Y.
	checkContact(t, "floor", CircleLine(Vec2{1, 0.5}, 1, Vec2{0, 0}, Vec2{2, 0}),
		want{0.5, Vec2{0, 1}, Vec2{1, -0.5}, Vec2{1, 0}, 0.5, FeatureFace})
	// Reversed line: free side is −Y, the circle is 0.5 behind it: δ = 1.5.
	checkContact(t, "reversed", CircleLine(Vec2{1, 0.5}, 1, Vec2{2, 0}, Vec2{0, 0}),
		want{1.5, Vec2{0, -1}, Vec2{1, 1.5}, Vec2{1, 0}, 0.5, FeatureFace})
	// Inclined line a=(0,0)→b=(3,4): t=(0.6,0.8), n=(−0.8,0.6); point p=(0,5):
	// d = n·p = 3, s = t·p = 4 -> foot (2.4,3.2), λ = 4/5, δ = −3 (gap).
	checkContact(t, "inclined point", CircleLine(Vec2{0, 5}, 0, Vec2{0, 0}, Vec2{3, 4}),
		want{-3, Vec2{-0.8, 0.6}, Vec2{0, 5}, Vec2{2.4, 3.2}, 0.8, FeatureFace})
	// Segment (0,0)–(2,0), circle r=1.5 at (3,1): closest is cap b, distance √2.
	checkContact(t, "cap b", CircleSegment(Vec2{3, 1}, 1.5, Vec2{0, 0}, Vec2{2, 0}, 0),
		want{1.5 - s2, Vec2{1 / s2, 1 / s2}, Vec2{3 - 1.5/s2, 1 - 1.5/s2}, Vec2{2, 0}, 1, FeatureEndB})
	// Same segment with thickness rs = 0.25, circle r=0.5 at (−0.3,−0.4): cap a,
	// distance 0.5, δ = 0.25, N = (−0.6,−0.8).
	checkContact(t, "cap a capsule", CircleSegment(Vec2{-0.3, -0.4}, 0.5, Vec2{0, 0}, Vec2{2, 0}, 0.25),
		want{0.25, Vec2{-0.6, -0.8}, Vec2{0, 0}, Vec2{-0.15, -0.2}, 0, FeatureEndA})
	// Face contact from below (two-sided): p = (0.5,−0.2), r = 0.3 -> δ = 0.1, N = −Y.
	checkContact(t, "face below", CircleSegment(Vec2{0.5, -0.2}, 0.3, Vec2{0, 0}, Vec2{2, 0}, 0),
		want{0.1, Vec2{0, -1}, Vec2{0.5, 0.1}, Vec2{0.5, 0}, 0.25, FeatureFace})
	// Circles: A r=2 at (3,4), B r=3.5 at origin: distance 5, δ = 0.5.
	checkContact(t, "circles", CircleCircle(Vec2{3, 4}, 2, Vec2{0, 0}, 3.5),
		want{0.5, Vec2{0.6, 0.8}, Vec2{1.8, 2.4}, Vec2{2.1, 2.8}, 0, FeatureCircle})
	// Degenerate inputs do not produce NaN.
	for _, c := range []Contact{
		CircleCircle(Vec2{1, 1}, 1, Vec2{1, 1}, 1),
		CircleLine(Vec2{1, 1}, 1, Vec2{0, 0}, Vec2{0, 0}),
		CircleSegment(Vec2{1, 0}, 1, Vec2{0, 0}, Vec2{2, 0}, 0),
		CircleSegment(Vec2{0, 0}, 1, Vec2{0, 0}, Vec2{2, 0}, 0),
		CircleSegment(Vec2{3, 0}, 1, Vec2{3, 0}, Vec2{3, 0}, 0),
	} {
		if math.IsNaN(c.Delta+c.N.X+c.N.Y+c.PA.X+c.PB.Y+c.GradPhi[0].X+c.GradPhi[1].Y) || math.Abs(c.N.Norm()-1) > 1e-15 {
			t.Errorf("degenerate case: %+v", c)
		}
	}
}

// Seed 003: leg i with centre (xi, yi), angle θi and half-length l0 has its
// tip at (xi + l0 sin θi, yi − l0 cos θi); against the platform surface at
// height y0 the penetration must be δ = y0 − yi + l0 cos θi.
func TestSeed003Penetration(t *testing.T) {
	x0, y0, l0 := 0.3, 0.05, 0.25
	for _, th := range []float64{-math.Pi / 3, 0, 0.4} {
		xi, yi := 1.1, 0.05+0.2
		tip := Vec2{xi + l0*math.Sin(th), yi - l0*math.Cos(th)}
		c := CircleLine(tip, 0, Vec2{x0 - 10, y0}, Vec2{x0 + 10, y0})
		if want := y0 - yi + l0*math.Cos(th); math.Abs(c.Delta-want) > 1e-15 || c.N != (Vec2{0, 1}) || c.T != (Vec2{1, 0}) {
			t.Errorf("θ=%g: δ=%g want %g, N=%v T=%v", th, c.Delta, want, c.N, c.T)
		}
	}
}

type query func(x [3]Vec2) Contact

func queries() map[string]struct {
	q   query
	gen func(r *rand.Rand) [3]Vec2
} {
	rv := func(r *rand.Rand, s float64) Vec2 { return Vec2{s * r.NormFloat64(), s * r.NormFloat64()} }
	return map[string]struct {
		q   query
		gen func(r *rand.Rand) [3]Vec2
	}{
		"line":    {func(x [3]Vec2) Contact { return CircleLine(x[0], 0.3, x[1], x[2]) }, func(r *rand.Rand) [3]Vec2 { return [3]Vec2{rv(r, 1), rv(r, 1), rv(r, 1)} }},
		"segment": {func(x [3]Vec2) Contact { return CircleSegment(x[0], 0.3, x[1], x[2], 0.1) }, func(r *rand.Rand) [3]Vec2 { return [3]Vec2{rv(r, 1), rv(r, 1), rv(r, 1)} }},
		"circles": {func(x [3]Vec2) Contact { return CircleCircle(x[0], 0.3, x[1], 0.7) }, func(r *rand.Rand) [3]Vec2 { return [3]Vec2{rv(r, 1), rv(r, 1), {}} }},
	}
}

// GradDelta and GradPhi against central finite differences of Delta and of
// the normal angle, over random configurations (faces and caps).
func TestGeometryGradients(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for name, qq := range queries() {
		feats := map[Feature]int{}
		for trial := 0; trial < 500; trial++ {
			x := qq.gen(rng)
			c := qq.q(x)
			feats[c.Feature]++
			phi := math.Atan2(c.N.Y, c.N.X)
			const h = 1e-6
			for k := 0; k < 3; k++ {
				for dim := 0; dim < 2; dim++ {
					xp, xm := x, x
					if dim == 0 {
						xp[k].X += h
						xm[k].X -= h
					} else {
						xp[k].Y += h
						xm[k].Y -= h
					}
					cp, cm := qq.q(xp), qq.q(xm)
					if cp.Feature != c.Feature || cm.Feature != c.Feature {
						continue // straddles a feature switch
					}
					gd := (cp.Delta - cm.Delta) / (2 * h)
					dphi := math.Remainder(math.Atan2(cp.N.Y, cp.N.X)-math.Atan2(cm.N.Y, cm.N.X), 2*math.Pi)
					gp := dphi / (2 * h)
					ad, ap := c.GradDelta[k].X, c.GradPhi[k].X
					if dim == 1 {
						ad, ap = c.GradDelta[k].Y, c.GradPhi[k].Y
					}
					if math.Abs(gd-ad) > 1e-7 || math.Abs(gp-ap) > 1e-6*(1+math.Abs(ap)) {
						t.Fatalf("%s trial %d input %d dim %d: dδ %g vs FD %g, dφ %g vs FD %g (phi %g)", name, trial, k, dim, ad, gd, ap, gp, phi)
					}
				}
			}
		}
		if name == "segment" && (feats[FeatureFace] == 0 || feats[FeatureEndA] == 0 || feats[FeatureEndB] == 0) {
			t.Errorf("segment features not all exercised: %v", feats)
		}
	}
}

// Rigid motions: body A (circle centre p, velocity vA, rate ωA) and body B
// (carrying a, b or its centre, reference point cB, velocity vB, rate ωB).
// δ' from DeltaRate (input-point velocities) and from Rates (material
// points at PA, PB) must both equal the finite-difference rate of δ(t).
func TestRatesRigidMotion(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	rot := func(p, c Vec2, ang float64) Vec2 {
		d := p.Sub(c)
		s, co := math.Sincos(ang)
		return c.Add(Vec2{co*d.X - s*d.Y, s*d.X + co*d.Y})
	}
	for name, qq := range queries() {
		for trial := 0; trial < 300; trial++ {
			x := qq.gen(rng)
			vA := Vec2{rng.NormFloat64(), rng.NormFloat64()}
			vB := Vec2{rng.NormFloat64(), rng.NormFloat64()}
			wB := rng.NormFloat64()
			cB := Vec2{rng.NormFloat64(), rng.NormFloat64()}
			at := func(tm float64) [3]Vec2 {
				var y [3]Vec2
				y[0] = x[0].Add(vA.Scale(tm))
				for k := 1; k < 3; k++ {
					y[k] = rot(x[k], cB, wB*tm).Add(vB.Scale(tm))
				}
				return y
			}
			c := qq.q(x)
			const h = 1e-6
			cp, cm := qq.q(at(h)), qq.q(at(-h))
			if cp.Feature != c.Feature || cm.Feature != c.Feature {
				continue
			}
			fd := (cp.Delta - cm.Delta) / (2 * h)
			v1 := PointVelocity(vB, wB, cB, x[1])
			v2 := PointVelocity(vB, wB, cB, x[2])
			r1 := c.DeltaRate(vA, v1, v2)
			// Material velocities at the contact points (A translates only
			// here; its spin does not change δ for a circle).
			dd, _ := c.Rates(vA, PointVelocity(vB, wB, cB, c.PB))
			if math.Abs(r1-fd) > 1e-6 || math.Abs(dd-fd) > 1e-6 {
				t.Fatalf("%s: FD %g, DeltaRate %g, Rates %g", name, fd, r1, dd)
			}
		}
	}
}

// A circle rolling without slip on a floor has zero slip velocity; sliding
// without spin slips at the centre speed; JacobianRow reproduces the
// projected point velocity.
func TestSlipAndJacobian(t *testing.T) {
	r, v := 0.4, 1.3
	p := Vec2{2, r - 0.001}
	c := CircleLine(p, r, Vec2{-5, 0}, Vec2{5, 0})
	vPA := PointVelocity(Vec2{v, 0}, -v/r, p, c.PA)
	dd, slip := c.Rates(vPA, Vec2{})
	if math.Abs(slip) > 1e-15 || math.Abs(dd) > 1e-15 {
		t.Errorf("rolling: δ'=%g slip=%g", dd, slip)
	}
	if _, slip = c.Rates(PointVelocity(Vec2{v, 0}, 0, p, c.PA), Vec2{}); math.Abs(slip-v) > 1e-15 {
		t.Errorf("sliding: slip=%g", slip)
	}
	// Platform moving with the body: no slip either.
	if _, slip = c.Rates(PointVelocity(Vec2{v, 0}, 0, p, c.PA), Vec2{v, 0}); slip != 0 {
		t.Errorf("co-moving: slip=%g", slip)
	}
	rng := rand.New(rand.NewSource(9))
	for i := 0; i < 100; i++ {
		dir := Vec2{rng.NormFloat64(), rng.NormFloat64()}
		pt := Vec2{rng.NormFloat64(), rng.NormFloat64()}
		ctr := Vec2{rng.NormFloat64(), rng.NormFloat64()}
		vx, vy, w := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		jx, jy, jt := JacobianRow(dir, pt, ctr)
		want := dir.Dot(PointVelocity(Vec2{vx, vy}, w, ctr, pt))
		if math.Abs(jx*vx+jy*vy+jt*w-want) > 1e-13 {
			t.Fatalf("JacobianRow mismatch")
		}
	}
}

func TestGeometryNoAllocs(t *testing.T) {
	p, a, b := Vec2{0.5, 0.1}, Vec2{0, 0}, Vec2{2, 0.1}
	var s float64
	allocs := testing.AllocsPerRun(100, func() {
		c1 := CircleLine(p, 0.2, a, b)
		c2 := CircleSegment(p, 0.2, a, b, 0)
		c3 := CircleCircle(p, 0.2, b, 0.3)
		d, sl := c1.Rates(Vec2{1, 0}, Vec2{})
		s += c1.Delta + c2.Delta + c3.Delta + d + sl + c2.DeltaRate(Vec2{1, 1}, Vec2{}, Vec2{})
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
	sink = s
}

func BenchmarkGeometry(b *testing.B) {
	p, a, q := Vec2{0.5, 0.1}, Vec2{0, 0}, Vec2{2, 0.1}
	b.Run("CircleLine", func(b *testing.B) {
		s := 0.0
		for i := 0; i < b.N; i++ {
			s += CircleLine(p, 0.2, a, q).Delta
		}
		sink = s
	})
	b.Run("CircleSegment", func(b *testing.B) {
		s := 0.0
		for i := 0; i < b.N; i++ {
			s += CircleSegment(p, 0.2, a, q, 0).Delta
		}
		sink = s
	})
	b.Run("CircleCircle", func(b *testing.B) {
		s := 0.0
		for i := 0; i < b.N; i++ {
			s += CircleCircle(p, 0.2, q, 0.3).Delta
		}
		sink = s
	})
}
