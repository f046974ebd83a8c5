package solver

import (
	"math"
	"mbfmu/solver/mech"
	"mbfmu/spec"
	"testing"
)

// ancfPendulumSpec is seed 004 case 1: a flexible pendulum pinned at one
// end to the ground and released horizontal at rest: L = 1 m,
// A = 4e-4 m², E = 7e5 Pa, ρ = 7.2e3 kg/m³, I = 1.333e-8 m⁴, n elements.
func ancfPendulumSpec(n int, h, end float64) *spec.Model {
	return &spec.Model{
		Name:     "ancf_pendulum",
		Settings: spec.Settings{End: end, Step: h, NewtonTol: 1e-6},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Beams: []spec.Beam{{Kind: "ancf", Name: "b", Attr: beamAttrs("at.x", 0.0, "at.y", 0.0, "length", 1.0,
			"elements", n, "area", 4e-4, "area-moment", 1.333e-8, "youngs", 7e5, "density", 7.2e3,
			"marker.pin", 0.0, "marker.tip", 1.0)}},
		Joints: []spec.Joint{{Kind: "revolute", Name: "pin", I: "ground.O", J: "b.pin"}},
	}
}

// BenchmarkANCFPendulum is seed 004 case 1: 160 ANCF elements (644
// coordinates), 1.1 s at h = 1 ms, generalized-α (ρ∞ = 0.8).
func BenchmarkANCFPendulum(b *testing.B) {
	benchWholeRun(b, mustCompile(b, ancfPendulumSpec(160, 1e-3, 1.1)), 1.1)
}

// benchWholeRun times Init and a run to end, reporting the Newton
// iterations per step and the factorisations of one run.
func benchWholeRun(b *testing.B, m *Model, end float64) {
	s := m.NewState()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Init(s); err != nil {
			b.Fatal(err)
		}
		if err := m.AdvanceTo(s, end); err != nil {
			b.Fatal(err)
		}
	}
	st := s.Stats()
	b.ReportMetric(float64(st.NewtonIters)/float64(st.Steps), "iters/step")
	b.ReportMetric(float64(st.Factorizations), "factorizations")
}

// rrrGeometry is the 3-RRR robot of seed 004 case 2 as interpreted in
// examples/three-rrr: fixed and moving stages equilateral triangles of side
// 0.400 m and 0.112 m (pivots on their circumcircles at 90°, 210°, 330°,
// the platform at orientation 0), driving links 0.245 m, passive links
// 0.242 m, the platform centre on the circle R (cos ωt, sin ωt), R = 0.1 m,
// ω = 2π rad/s, the elbows all on the same side (θ = atan2 + acos).
type rrrGeometry struct {
	l1, l2, r, w float64
	a, c         [3][2]float64 // base pivots (global), platform pivots (platform frame)
}

func newRRRGeometry() rrrGeometry {
	g := rrrGeometry{l1: 0.245, l2: 0.242, r: 0.1, w: 2 * math.Pi}
	rb, rp := 0.4/math.Sqrt(3), 0.112/math.Sqrt(3)
	for i := 0; i < 3; i++ {
		phi := math.Pi/2 + 2*math.Pi*float64(i)/3
		g.a[i] = [2]float64{rb * math.Cos(phi), rb * math.Sin(phi)}
		g.c[i] = [2]float64{rp * math.Cos(phi), rp * math.Sin(phi)}
	}
	return g
}

// ref is the direction of c_i − a_i, the mean direction of the leg: the
// angle of d(t) = P(t) + c_i − a_i is measured from it so that it stays
// continuous (d turns by less than ±40° on the circle).
func (g rrrGeometry) ref(i int) float64 {
	return math.Atan2(g.c[i][1]-g.a[i][1], g.c[i][0]-g.a[i][0])
}

// theta is the driving link angle of leg i at time t (inverse kinematics).
func (g rrrGeometry) theta(i int, t float64) float64 {
	dx := g.r*math.Cos(g.w*t) + g.c[i][0] - g.a[i][0]
	dy := g.r*math.Sin(g.w*t) + g.c[i][1] - g.a[i][1]
	d := math.Hypot(dx, dy)
	sr, cr := math.Sincos(g.ref(i))
	return g.ref(i) + math.Atan2(dy*cr-dx*sr, dx*cr+dy*sr) + math.Acos((g.l1*g.l1-g.l2*g.l2+d*d)/(2*g.l1*d))
}

// thetaExpr is theta as a model expression of time.
func (g rrrGeometry) thetaExpr(i int) string {
	dx := sprintf("(R*cos(w*time) + %.17g)", g.c[i][0]-g.a[i][0])
	dy := sprintf("(R*sin(w*time) + %.17g)", g.c[i][1]-g.a[i][1])
	sr, cr := math.Sincos(g.ref(i))
	return sprintf("%.17g + atan2(%s*%.17g - %s*%.17g, %s*%.17g + %s*%.17g) + acos((l1^2 - l2^2 + %s^2 + %s^2)/(2*l1*hypot(%s, %s)))",
		g.ref(i), dy, cr, dx, sr, dx, cr, dy, sr, dx, dy, dx, dy)
}

// threeRRRSpec is seed 004 case 2 with n ANCF elements per passive link.
func threeRRRSpec(n int, h, end float64) *spec.Model {
	g := newRRRGeometry()
	sp := &spec.Model{
		Name:     "three_rrr",
		Settings: spec.Settings{End: end, Step: h, Gravity: vec(0, 0), NewtonTol: 1e-6},
		Params: []spec.Param{{Name: "l1", Value: g.l1}, {Name: "l2", Value: g.l2},
			{Name: "R", Value: g.r}, {Name: "w", Value: g.w}},
	}
	m1 := 2700 * 0.01 * 0.03 * g.l1
	sp.Bodies = append(sp.Bodies, spec.Body{Name: "platform", Mass: num(0.14666), Inertia: num(1.533e-4),
		At: vec(g.r, 0), Vel: vec(0, g.r*g.w)})
	for i := 0; i < 3; i++ {
		s := itoa(i + 1)
		th := g.theta(i, 0)
		const dt = 1e-6
		thd := (g.theta(i, dt) - g.theta(i, -dt)) / (2 * dt)
		sp.Ground.Markers = append(sp.Ground.Markers, spec.Marker{Name: "A" + s, At: vec(g.a[i][0], g.a[i][1])})
		sp.Bodies[0].Markers = append(sp.Bodies[0].Markers, spec.Marker{Name: "C" + s, At: vec(g.c[i][0], g.c[i][1])})
		sp.Bodies = append(sp.Bodies, spec.Body{Name: "link" + s, Mass: num(m1), Inertia: num(m1 * (g.l1*g.l1 + 0.03*0.03) / 12),
			CM: vec(g.l1/2, 0), At: vec(g.a[i][0], g.a[i][1]), Angle: num(th), Omega: num(thd),
			Markers: []spec.Marker{{Name: "a"}, {Name: "b", At: vec(g.l1, 0)}}})
		b := [2]float64{g.a[i][0] + g.l1*math.Cos(th), g.a[i][1] + g.l1*math.Sin(th)}
		c := [2]float64{g.r + g.c[i][0], g.c[i][1]}
		vb := [2]float64{-thd * g.l1 * math.Sin(th), thd * g.l1 * math.Cos(th)}
		vc := [2]float64{0, g.r * g.w}
		d := mech.Sub2(c, b)
		om := mech.Cross2(d, mech.Sub2(vc, vb)) / mech.Dot2(d, d)
		sp.Beams = append(sp.Beams, spec.Beam{Kind: "ancf", Name: "rod" + s, Attr: beamAttrs(
			"at.x", b[0], "at.y", b[1], "angle", math.Atan2(d[1], d[0]), "length", g.l2, "elements", n,
			"area", 0.005*0.01, "area-moment", 0.01*math.Pow(0.005, 3)/12, "youngs", 7e8, "density", 2700.0,
			"velocity.x", vb[0], "velocity.y", vb[1], "omega", om, "marker.a", 0.0, "marker.mid", g.l2/2, "marker.b", g.l2)})
		sp.Joints = append(sp.Joints,
			spec.Joint{Kind: "revolute", Name: "motor" + s, I: "ground.A" + s, J: "link" + s + ".a"},
			spec.Joint{Kind: "revolute", Name: "elbow" + s, I: "link" + s + ".b", J: "rod" + s + ".a"},
			spec.Joint{Kind: "revolute", Name: "wrist" + s, I: "rod" + s + ".b", J: "platform.C" + s})
		sp.Drivers = append(sp.Drivers, spec.Driver{Name: "drive" + s, Joint: "motor" + s, Value: ex(g.thetaExpr(i))})
	}
	return sp
}

// BenchmarkThreeRRR is seed 004 case 2: three passive links of 100 ANCF
// elements (1224 coordinates, 21 constraints), 2 s at h = 1 ms.
func BenchmarkThreeRRR(b *testing.B) {
	benchWholeRun(b, mustCompile(b, threeRRRSpec(100, 1e-3, 2)), 2)
}

// BenchmarkANCFPendulumStep is one step of the seed 004 pendulum with n
// elements (after 0.3 s, during the whip): the cost per step grows about
// linearly with n (band LU on the RCM ordering).
func BenchmarkANCFPendulumStep(b *testing.B) {
	for _, n := range []int{40, 160, 640} {
		b.Run(itoa(n), func(b *testing.B) {
			m := mustCompile(b, ancfPendulumSpec(n, 1e-3, 1.1))
			s := mustInit(b, m)
			if err := m.AdvanceTo(s, 0.3); err != nil {
				b.Fatal(err)
			}
			save := m.NewState()
			save.CopyFrom(s)
			var its, fac int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%100 == 0 {
					s.CopyFrom(save) // (refactors at the next step)
				}
				st0 := s.Stats()
				if err := m.Step(s, 1e-3); err != nil {
					b.Fatal(err)
				}
				st := s.Stats()
				its += st.NewtonIters - st0.NewtonIters
				fac += st.Factorizations - st0.Factorizations
			}
			b.ReportMetric(float64(its)/float64(b.N), "iters/step")
			b.ReportMetric(float64(fac)/float64(b.N), "factor/step")
		})
	}
}

// BenchmarkANCFPendulumExact is BenchmarkANCFPendulum with the exact
// curvature, and with the exact curvature and the engineering strain.
func BenchmarkANCFPendulumExact(b *testing.B) {
	for _, as := range []string{"green", "engineering"} {
		b.Run(as, func(b *testing.B) {
			sp := ancfPendulumSpec(160, 1e-3, 1.1)
			sp.Beams[0].Attr["curvature"] = spec.Expr{Src: "exact", Field: "curvature"}
			sp.Beams[0].Attr["axial-strain"] = spec.Expr{Src: as, Field: "axial-strain"}
			benchWholeRun(b, mustCompile(b, sp), 1.1)
		})
	}
}
