package solver

// Tests of the acceleration solves near singular positions (singular.go) on
// the IFToMM A02 double four-bar (examples/double-four-bar), against its
// exact one-coordinate motion on the parallelogram branch.

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"mbfmu/xml"

	"gonum.org/v1/gonum/integrate/quad"
)

const a02G = 9.81

// a02Ref is the exact motion of the double four-bar on its parallelogram
// branch (examples/double-four-bar/README.md). With φ the crank angle from
// the x axis (B0 = (cos φ, sin φ)), Lagrange's equation is
// φ̈ = −(7/6) g cos φ, and energy gives φ̇² = ω0² + (7/3) g (sin φ0 − sin φ).
// With φ̇ < 0 throughout (the crank turns round and round), the time to
// reach φ is the quadrature t(φ) = ∫_φ^φ0 dψ / |φ̇(ψ)|, by Gauss–Legendre on
// panels of at most 1/2 rad; φ(t) inverts it by Newton's method
// (dt/dφ = −1/|φ̇|), after removing whole revolutions of period T.
type a02Ref struct {
	phi0, w0 float64 // φ(0), φ̇(0) (< 0)
	n        int     // Gauss–Legendre points per panel
	period   float64
}

func newA02Ref(phi0, w0 float64, n int) *a02Ref {
	r := &a02Ref{phi0: phi0, w0: w0, n: n}
	r.period = r.time(phi0 - 2*math.Pi)
	return r
}

// rate returns |φ̇| at φ.
func (r *a02Ref) rate(phi float64) float64 {
	return math.Sqrt(r.w0*r.w0 + 7.0/3*a02G*(math.Sin(r.phi0)-math.Sin(phi)))
}

// time returns t(φ) for φ ≤ φ0.
func (r *a02Ref) time(phi float64) float64 {
	np := int(math.Ceil((r.phi0 - phi) / 0.5))
	t := 0.0
	for k := 0; k < np; k++ {
		a := phi + (r.phi0-phi)*float64(k)/float64(np)
		b := phi + (r.phi0-phi)*float64(k+1)/float64(np)
		t += quad.Fixed(func(p float64) float64 { return 1 / r.rate(p) }, a, b, r.n, quad.Legendre{}, 0)
	}
	return t
}

// phi returns φ(t).
func (r *a02Ref) phi(t float64) float64 {
	rev := math.Floor(t / r.period)
	tr := t - rev*r.period
	p := r.phi0 - 2*math.Pi*tr/r.period
	for it := 0; it < 50; it++ {
		d := (r.time(p) - tr) * r.rate(p)
		p += d
		if math.Abs(d) < 1e-15 {
			break
		}
	}
	return p - 2*math.Pi*rev
}

// a02Load compiles the double four-bar example with the given integrator
// and step; edit, if set, rewrites the model file's text first.
func a02Load(t testing.TB, integ string, h float64, edit func(string) string) (*Model, *State) {
	t.Helper()
	b, err := os.ReadFile("../examples/double-four-bar/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if edit != nil {
		text = edit(text)
	}
	sp, err := xml.Parse([]byte(text), "double-four-bar/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	sp.Settings.Integrator, sp.Settings.Step = integ, h
	m, err := Compile(sp, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// a02Channels reads the channels the tests compare.
type a02Channels struct {
	m   *Model
	row []float64
	idx [8]int
}

func newA02Channels(t *testing.T, m *Model) *a02Channels {
	c := &a02Channels{m: m, row: make([]float64, len(m.Channels()))}
	for k, n := range []string{"crank0.B.x", "crank0.B.y", "crank0.angle", "crank1.angle", "crank2.angle",
		"coupler1.angle", "coupler2.angle", "energy.total"} {
		i, ok := m.ChannelIndex(n)
		if !ok {
			t.Fatalf("no channel %s", n)
		}
		c.idx[k] = i
	}
	return c
}

// eval returns B0's distance from (cos φ, sin φ), the deviation from the
// parallelogram branch (cranks parallel, couplers horizontal) and the
// total energy.
func (c *a02Channels) eval(s *State, phi float64) (errB, branch, energy float64) {
	c.m.EvalChannels(s, c.row)
	g := func(k int) float64 { return c.row[c.idx[k]] }
	errB = math.Hypot(g(0)-math.Cos(phi), g(1)-math.Sin(phi))
	branch = max(math.Abs(g(3)-g(2)), math.Abs(g(4)-g(2)), math.Abs(g(5)), math.Abs(g(6)))
	return errB, branch, g(7)
}

// The reference is converged: doubling the quadrature points changes the
// period and φ at 10 s by round-off only, and it reproduces the example's
// published figures.
func TestA02Reference(t *testing.T) {
	r, r2 := newA02Ref(math.Pi/2, -1, 20), newA02Ref(math.Pi/2, -1, 40)
	if d := math.Abs(r.period - r2.period); !(d <= 1e-14) {
		t.Errorf("period %.16f s, with twice the points %.16f s", r.period, r2.period)
	}
	if d := math.Abs(r.phi(10) - r2.phi(10)); !(d <= 1e-13) {
		t.Errorf("φ(10 s) changes by %.1e rad with twice the points", d)
	}
	// README: T = 1.942514923 s, dead centres at 0.71435553 s (φ = 0) and
	// 1.22815939 s (φ = −π), B0 at 10 s = (0.328458, 0.944519)
	if !(math.Abs(r.period-1.942514923) <= 1e-9 && math.Abs(r.time(0)-0.71435553) <= 1e-8 &&
		math.Abs(r.time(-math.Pi)-1.22815939) <= 1e-8) {
		t.Errorf("period %.10f s, dead centres at %.9f s and %.9f s", r.period, r.time(0), r.time(-math.Pi))
	}
	if p := r.phi(10); !(math.Abs(math.Cos(p)-0.328458) <= 1e-6 && math.Abs(math.Sin(p)-0.944519) <= 1e-6) {
		t.Errorf("B0 at 10 s = (%.6f, %.6f)", math.Cos(p), math.Sin(p))
	}
}

// RK4 on the double four-bar at 1, 0.5, 0.2 and 0.1 ms: every run passes
// the 2 dead centres per revolution (14 in 10 s) on the parallelogram
// branch, and the error in B0 against the exact motion decreases with the
// step (fourth order while it is above round-off). Before the solves near
// singular positions, 0.2 ms and 0.1 ms stopped with a non-finite state at
// 6.54 s and 7.056 s. With -short, the first 3.5 s (4 dead centres).
func TestDoubleFourBarRK4Steps(t *testing.T) {
	end := 10.0
	if testing.Short() {
		end = 3.5
	}
	ref := newA02Ref(math.Pi/2, -1, 20)
	steps := []float64{1e-3, 5e-4, 2e-4, 1e-4}
	errs := make([]float64, len(steps))
	for k, h := range steps {
		m, s := a02Load(t, "rk4", h, nil)
		ch := newA02Channels(t, m)
		_, _, e0 := ch.eval(s, math.Pi/2)
		worst, branch, dE := 0.0, 0.0, 0.0
		const every = 0.01
		for i := 1; float64(i)*every <= end+1e-9; i++ {
			tt := float64(i) * every
			if err := m.AdvanceTo(s, tt); err != nil {
				t.Fatalf("h = %g s: %v", h, err)
			}
			eb, br, e := ch.eval(s, ref.phi(tt))
			worst, branch, dE = max(worst, eb), max(branch, br), max(dE, math.Abs(e-e0))
		}
		errs[k] = worst
		if s.sw.solves == 0 || s.sw.projected == 0 {
			t.Errorf("h = %g s: %d solves with rows left out, %d velocity projections: the dead centres were not treated",
				h, s.sw.solves, s.sw.projected)
		}
		if s.sw.nbrMiss != 0 {
			t.Errorf("h = %g s: %d solves without neighbours", h, s.sw.nbrMiss)
		}
		if !(branch <= 1e-9) {
			t.Errorf("h = %g s: left the parallelogram branch by %.1e rad", h, branch)
		}
		if !(dE <= 1e-6) {
			t.Errorf("h = %g s: energy error %.1e J", h, dE)
		}
		t.Logf("h = %g s, %g s: B0 error %.2e m, branch %.1e rad, energy %.1e J, %d zone solves, %d projections, %+v",
			h, end, worst, branch, dE, s.sw.solves, s.sw.projected, s.Stats())
	}
	if !(errs[0] <= 1e-7) {
		t.Errorf("h = 1 ms: B0 error %.2e m", errs[0])
	}
	if r := errs[0] / errs[1]; !(r >= 10) {
		t.Errorf("B0 error %.2e m at 1 ms, %.2e m at 0.5 ms: ratio %.1f, fourth order gives 16", errs[0], errs[1], r)
	}
	for k := 1; k < len(steps); k++ {
		if !(errs[k] < errs[k-1]) {
			t.Errorf("B0 error %.2e m at h = %g s, %.2e m at h = %g s: a smaller step is worse",
				errs[k], steps[k], errs[k-1], steps[k-1])
		}
	}
}

// a02SetBranch puts the state on the parallelogram branch at crank angle
// φ and rate w: crank k has its centre at (k + ½cos φ, ½ sin φ) and angle
// φ, coupler k at (k + ½ + cos φ, sin φ) and angle 0.
func a02SetBranch(s *State, phi, w float64) {
	sn, cs := math.Sin(phi), math.Cos(phi)
	for k := 0; k < 3; k++ {
		copy(s.q[3*k:], []float64{float64(k) + cs/2, sn / 2, phi})
		copy(s.v[3*k:], []float64{-sn * w / 2, cs * w / 2, w})
	}
	for k := 0; k < 2; k++ {
		copy(s.q[9+3*k:], []float64{float64(k) + 0.5 + cs, sn, 0})
		copy(s.v[9+3*k:], []float64{-sn * w, cs * w, 0})
	}
}

// a02Accel returns the exact accelerations of the coordinates on the
// branch: φ̈ = −(7/6) g cos φ and the derivatives of a02SetBranch's
// velocities.
func a02Accel(phi, w float64) []float64 {
	a := -7.0 / 6 * a02G * math.Cos(phi)
	sn, cs := math.Sin(phi), math.Cos(phi)
	ax, ay := -(sn*a + cs*w*w), cs*a-sn*w*w
	var out []float64
	for k := 0; k < 3; k++ {
		out = append(out, ax/2, ay/2, a)
	}
	for k := 0; k < 2; k++ {
		out = append(out, ax, ay, 0)
	}
	return out
}

// At states on the branch at and around the dead centres, the
// accelerations equal the exact ones of the one-coordinate motion: by the
// full solve outside the zone, by the solve with the dependent rows left
// out and completed inside it (including the dead centre itself, where
// Φq has rank 12 of 14). The zone solve allocates nothing.
func TestSingularAccelerationsOnBranch(t *testing.T) {
	m, s := a02Load(t, "rk4", 1e-3, nil)
	// the coordinates are laid out as a02SetBranch assumes
	s0 := m.NewState()
	s0.CopyFrom(s)
	a02SetBranch(s, math.Pi/2, -1)
	for i := range s.q {
		if math.Abs(s0.q[i]-s.q[i]) > 1e-12 || math.Abs(s0.v[i]-s.v[i]) > 1e-12 {
			t.Fatalf("coordinate %d: (%g, %g) at the start, a02SetBranch gives (%g, %g)", i, s0.q[i], s0.v[i], s.q[i], s.v[i])
		}
	}
	acc := make([]float64, m.nv)
	for _, dc := range []float64{0, -math.Pi} {
		for _, d := range []float64{-1e-2, -1e-3, -3e-4, -1e-4, 0, 1e-4, 3e-4, 1e-3, 1e-2} {
			phi := dc + d
			w := -math.Sqrt(1 + 7.0/3*a02G*(1-math.Sin(phi)))
			a02SetBranch(s, phi, w)
			if err := m.accelerations(s, acc, true); err != nil {
				t.Fatalf("φ = %g: %v", phi, err)
			}
			worst := 0.0
			for i, a := range a02Accel(phi, w) {
				worst = max(worst, math.Abs(acc[i]-a))
			}
			zone := s.sw.zone
			if inZone := math.Abs(d) <= 1e-3; zone != inZone {
				t.Errorf("φ = %+.0e from the dead centre: rows left out %v, want %v", d, zone, inZone)
			}
			tol := 1e-10
			if zone {
				tol = 3e-7
			}
			if !(worst <= tol) {
				t.Errorf("φ = %+.0e from the dead centre %g: acceleration error %.1e (zone %v)", d, dc, worst, zone)
			}
			t.Logf("dead centre %+.4f, %+.0e: acceleration error %.1e, zone %v", dc, d, worst, zone)
		}
	}
	w := -math.Sqrt(1 + 7.0/3*a02G)
	a02SetBranch(s, 1e-4, w)
	n := s.sw.solves
	if a := testing.AllocsPerRun(10, func() { _ = m.accelerations(s, acc, true) }); a != 0 {
		t.Errorf("%g allocations per solve in the zone", a)
	}
	if s.sw.solves == n {
		t.Errorf("the allocation test did not solve in the zone")
	}
}

// Started 5·10⁻⁴ rad before the dead centre φ = 0 on the example's own
// motion (φ̇0 from its energy), inside the zone of the solves with rows left
// out, so that Init's accelerations and the first steps are solved there,
// every integrator keeps the parallelogram branch and follows the exact
// motion over 2 s (3 more dead centres), within its accuracy at 1 ms.
func TestDoubleFourBarNearDeadCentreStart(t *testing.T) {
	const phi0 = 5e-4
	w0 := -math.Sqrt(1 + 7.0/3*a02G*(1-math.Sin(phi0)))
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	sn, cs := math.Sin(phi0), math.Cos(phi0)
	vel := `velocity="` + f(-sn*w0) + ` ` + f(cs*w0) + `"`
	edit := func(text string) string {
		r := strings.NewReplacer(`angle="90 deg" omega="-1 rad/s"`, `angle="`+f(phi0)+` rad" omega="`+f(w0)+` rad/s"`,
			`at="0, L" velocity="1 0"`, `at="`+f(cs)+`, `+f(sn)+`" `+vel,
			`at="L, L" velocity="1 0"`, `at="`+f(1+cs)+`, `+f(sn)+`" `+vel)
		out := r.Replace(text)
		if strings.Count(out, f(phi0)+" rad") != 3 || strings.Count(out, vel) != 2 {
			t.Fatal("the example's initial positions changed: update the edit")
		}
		return out
	}
	ref := newA02Ref(phi0, w0, 20)
	if d := math.Abs(ref.period - newA02Ref(math.Pi/2, -1, 20).period); d > 1e-12 {
		t.Fatalf("the start is not on the example's motion: periods differ by %.1e s", d)
	}
	for _, c := range []struct {
		integ       string
		tolB, tolBr float64
	}{{"rk4", 1e-7, 1e-9}, {"genalpha", 1e-3, 1e-9}, {"bdf2", 3e-3, 1e-9}} {
		m, s := a02Load(t, c.integ, 1e-3, edit)
		if r := s.Redundant(); r != nil {
			t.Fatalf("%s: redundant rows at the start: %v", c.integ, r)
		}
		ch := newA02Channels(t, m)
		worst, branch := 0.0, 0.0
		for i := 1; i <= 200; i++ {
			tt := float64(i) * 0.01
			if err := m.AdvanceTo(s, tt); err != nil {
				t.Fatalf("%s: %v", c.integ, err)
			}
			eb, br, _ := ch.eval(s, ref.phi(tt))
			worst, branch = max(worst, eb), max(branch, br)
		}
		if !(worst <= c.tolB && branch <= c.tolBr) {
			t.Errorf("%s: B0 error %.1e m, branch %.1e rad", c.integ, worst, branch)
		}
		t.Logf("%s: B0 error %.1e m, branch %.1e rad over 2 s, %+v", c.integ, worst, branch, s.Stats())
	}
}

// BenchmarkDoubleFourBarRK4 is one RK4 step of the double four-bar at
// h = 0.1 ms at a regular configuration (t = 0.3 s: what the singularity
// checks cost on the normal path), and the 300 steps across the dead centre
// at t = 0.714 s (0.70 to 0.73 s: the solves near the singular position).
func BenchmarkDoubleFourBarRK4(b *testing.B) {
	const h = 1e-4
	m, s0 := a02Load(b, "rk4", h, nil)
	if err := m.AdvanceTo(s0, 0.3); err != nil {
		b.Fatal(err)
	}
	s := m.NewState()
	s.CopyFrom(s0)
	b.Run("regular", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := m.rk4Step(s, h); err != nil {
				b.Fatal(err)
			}
			s.CopyFrom(s0)
		}
	})
	if err := m.AdvanceTo(s0, 0.7); err != nil {
		b.Fatal(err)
	}
	b.Run("dead-centre", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s.CopyFrom(s0)
			for k := 0; k < 300; k++ {
				if err := m.rk4Step(s, h); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*300), "ns/step")
	})
}
