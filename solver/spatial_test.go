package solver

import (
	"math"
	"math/rand"
	"testing"

	"mbfmu/spec"
	"mbfmu/xml"
)

func vec3(x, y, z float64) spec.Vec { return spec.Vec{num(x), num(y), num(z)} }

// heavyTopSpec is the heavy top of Arnold & Brüls (2007): a symmetric top
// on a spherical joint at the origin, spinning fast about its body y axis.
func heavyTopSpec(integ string, h, end float64) *spec.Model {
	return &spec.Model{
		Name: "heavy_top", Dimension: 3,
		Settings: spec.Settings{End: end, Step: h, Integrator: integ, Gravity: vec3(0, 0, -9.81), NewtonTol: 1e-10},
		Ground:   spec.Ground{Markers: []spec.Marker{{Name: "O"}}},
		Bodies: []spec.Body{{Name: "top", Mass: num(15),
			InertiaTensor: [6]spec.Expr{num(0.234375), num(0.46875), num(0.234375)},
			CM:            vec3(0, 1, 0), AngVel: vec3(0, 150, -4.61538),
			Markers: []spec.Marker{{Name: "tip"}}}},
		Joints: []spec.Joint{{Kind: "spherical", Name: "pivot", I: "ground.O", J: "top.tip"}},
	}
}

// The heavy top conserves energy and the vertical angular momentum about
// the pivot (Hz = −70.3124296875 kg·m²/s); its centre of mass follows an
// independent reference (scipy DOP853 at tolerance 1e-13, on the Euler
// equations about the pivot with a quaternion) at second order in h, with
// the Lie-group generalized-α scheme and with RK4 (Munthe-Kaas) at fourth.
func TestHeavyTop(t *testing.T) {
	ref := map[int][3]float64{ // centre of mass at t = k/2 s
		1: {-0.702468297057, -0.021165184702, -0.711400257652},
		2: {0.173343964098, 0.640088592070, -0.748490791134},
		4: {-0.150416822746, -0.724165591637, -0.673022269560},
	}
	const e0, hz0 = 5435.696790865547, -70.3124296875
	hz := func(s *State) float64 {
		// H = m rc × vc + A J ω about the pivot, z component
		q, v := s.q, s.v
		h := 15 * (q[0]*v[1] - q[1]*v[0])
		qw, qx, qy, qz := q[3], q[4], q[5], q[6]
		a20, a21, a22 := 2*(qx*qz-qw*qy), 2*(qy*qz+qw*qx), 1-2*(qx*qx+qy*qy)
		return h + a20*0.234375*v[3] + a21*0.46875*v[4] + a22*0.234375*v[5]
	}
	for _, c := range []struct {
		integ       string
		hs          []float64
		order       float64
		maxErr      float64 // at the finest step
		maxE, maxHz float64
	}{
		{"genalpha", []float64{4e-4, 2e-4, 1e-4}, 2, 2e-4, 5e-4, 5e-3},
		{"rk4", []float64{4e-4, 2e-4, 1e-4}, 4, 1e-6, 5e-5, 5e-6},
	} {
		var errs []float64
		for _, h := range c.hs {
			m := mustCompile(t, heavyTopSpec(c.integ, h, 2))
			s := mustInit(t, m)
			e, _ := m.ChannelIndex("energy.total")
			out := make([]float64, len(m.Channels()))
			worstE, worstH, worstX := 0.0, 0.0, 0.0
			for k := 1; k <= 40; k++ {
				if err := m.AdvanceTo(s, 0.05*float64(k)); err != nil {
					t.Fatalf("%s h = %g: %v", c.integ, h, err)
				}
				m.EvalChannels(s, out)
				worstE = math.Max(worstE, math.Abs(out[e]-e0))
				worstH = math.Max(worstH, math.Abs(hz(s)-hz0))
				if r, ok := ref[k/10]; ok && k%10 == 0 {
					worstX = math.Max(worstX, math.Sqrt(sq(s.q[0]-r[0])+sq(s.q[1]-r[1])+sq(s.q[2]-r[2])))
				}
			}
			t.Logf("%s h = %g: centre of mass within %.3g m of the reference, max |E − E₀| = %.3g J, max |Hz − Hz₀| = %.3g kg·m²/s (%d Newton iterations per step)",
				c.integ, h, worstX, worstE, worstH, s.stats.NewtonIters/max(s.stats.Steps, 1))
			errs = append(errs, worstX)
			if h == c.hs[len(c.hs)-1] {
				if worstX > c.maxErr || worstE > c.maxE || worstH > c.maxHz {
					t.Errorf("%s h = %g: error %.3g m (≤ %g), energy %.3g J (≤ %g), Hz %.3g (≤ %g)", c.integ, h, worstX, c.maxErr, worstE, c.maxE, worstH, c.maxHz)
				}
			}
		}
		for i := 1; i < len(errs); i++ {
			if p := math.Log2(errs[i-1] / errs[i]); math.Abs(p-c.order) > 0.25 {
				t.Errorf("%s: observed order %.2f between h = %g and %g, want %g", c.integ, p, c.hs[i-1], c.hs[i], c.order)
			}
		}
	}
}

func sq(x float64) float64 { return x * x }

// Element derivatives of a spatial model with every joint kind.
func TestSpatialJacobians(t *testing.T) {
	m := mustCompile(t, heavyTopSpec("genalpha", 1e-3, 1))
	s := m.NewState()
	copy(s.q, m.q0)
	rng := rand.New(rand.NewSource(2))
	e := make([]float64, m.nv)
	for i := range e {
		e[i] = 0.3 * rng.NormFloat64()
		s.v[i] = rng.NormFloat64()
	}
	m.addTo(s.q, e, 1)
	checkElementDerivatives(t, m, s, rng)
}

// Every spatial joint, driver, force and contact element against finite
// differences at random poses (testdata/spatial_elements.xml).
func TestSpatialElementDerivatives(t *testing.T) {
	ms, err := xml.LoadFile("testdata/spatial_elements.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := mustCompile(t, ms)
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 3; trial++ {
		s := m.NewState()
		copy(s.q, m.q0)
		e := make([]float64, m.nv)
		for i := range e {
			e[i] = 0.2 * rng.NormFloat64()
			s.v[i] = rng.NormFloat64()
			s.a[i] = rng.NormFloat64()
		}
		for i := range s.lam {
			s.lam[i] = rng.NormFloat64()
		}
		m.addTo(s.q, e, 1)
		s.setTime(0.3 + float64(trial))
		checkElementDerivatives(t, m, s, rng)
	}
}
