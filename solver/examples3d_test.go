package solver_test

// Reference tests of the spatial example models in ../examples (issue 11):
// heavy top, conical pendulum, torque-free body, universal joint, IFToMM
// spatial slider-crank, IFToMM Bricard mechanism. Every figure is checked
// against an independent reference — a closed form, a conservation law, a
// convergence order, or a reference solution computed outside mbfmu (the
// CSV files next to each model, whose sources the example READMEs name) —
// never against earlier output of the engine.

import (
	"bufio"
	"math"
	"math/cmplx"
	"mbfmu/bench"
	"mbfmu/solver"
	"os"
	"strconv"
	"strings"
	"testing"

	"mbfmu/spec"
	"mbfmu/xml"
)

// exReadCSV reads a numeric CSV file with one header line (lines starting
// with # are comments) and returns its rows.
func exReadCSV(t testing.TB, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]float64
	header := true
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header {
			header = false
			continue
		}
		var row []float64
		for _, s := range strings.Split(line, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// exRot is the rotation matrix of the unit quaternion (w, x, y, z), body to
// world (docs/model-format.md, "Orientations").
func exRot(w, x, y, z float64) [3][3]float64 {
	return [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

func exMulMV(r [3][3]float64, v [3]float64) [3]float64 {
	return [3]float64{
		r[0][0]*v[0] + r[0][1]*v[1] + r[0][2]*v[2],
		r[1][0]*v[0] + r[1][1]*v[1] + r[1][2]*v[2],
		r[2][0]*v[0] + r[2][1]*v[1] + r[2][2]*v[2],
	}
}

func exCross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func exDot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func exNorm(a [3]float64) float64 { return math.Sqrt(exDot(a, a)) }

// exVec3 reads the channels prefix+"x", "y", "z" (or the given suffixes).
func (c *exChannels) vec3(prefix string, sfx ...string) [3]float64 {
	if len(sfx) == 0 {
		sfx = []string{"x", "y", "z"}
	}
	return [3]float64{c.get(prefix + sfx[0]), c.get(prefix + sfx[1]), c.get(prefix + sfx[2])}
}

// exChans lists a body's or marker's position, velocity, quaternion and
// angular velocity channels.
func exChans(prefix string) []string {
	var out []string
	for _, q := range []string{"x", "y", "z", "vx", "vy", "vz", "qw", "qx", "qy", "qz", "wx", "wy", "wz", "wbx", "wby", "wbz"} {
		out = append(out, prefix+"."+q)
	}
	return out
}

// exWrap brings an angle into (−π, π].
func exWrap(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	if a > math.Pi {
		a -= 2 * math.Pi
	} else if a <= -math.Pi {
		a += 2 * math.Pi
	}
	return a
}

// Heavy top (Arnold & Brüls 2007; examples/heavy-top): energy
// (5435.696790865547 J) and the vertical angular momentum about the pivot
// (−70.3124296875 kg·m²/s) are conserved, the spin about the symmetry axis
// stays 150 rad/s, and the centre of mass follows the reference of
// examples/heavy-top/reference.csv (scipy DOP853 at tolerance 1e-13, good
// to 1e-9 m) at second order in h with the Lie-group generalized-α scheme
// (the file's integrator) and at fourth order with RK4 (Munthe-Kaas).
func TestExampleHeavyTop(t *testing.T) {
	ref := exReadCSV(t, "../examples/heavy-top/reference.csv") // t, cm x y z, ω body, q
	const (
		mass         = 15.0
		e0, hz0      = 5435.696790865547, -70.3124296875
		jxx, jyy, jz = 0.234375, 0.46875, 0.234375
	)
	for _, c := range []struct {
		integ       string
		hs          []float64
		order       float64
		maxErr      float64 // centre of mass at the finest step, m
		maxE, maxHz float64
	}{
		{"genalpha", []float64{4e-4, 2e-4, 1e-4}, 2, 2.5e-4, 5e-4, 5e-3},
		{"rk4", []float64{4e-4, 2e-4, 1e-4}, 4, 1e-7, 2e-5, 5e-6},
	} {
		var errs []float64
		for _, h := range c.hs {
			m := exLoad(t, "heavy-top", func(s *spec.Settings) { s.Integrator, s.Step = c.integ, h })
			s := exInit(t, m)
			ch := exNewChannels(t, m, append(exChans("top.cm"), "energy.total")...)
			worstE, worstH, worstX, worstSpin := 0.0, 0.0, 0.0, 0.0
			for k, r := range ref {
				if k > 0 {
					exAdvance(t, m, s, r[0])
				}
				ch.eval(s)
				rc, vc := ch.vec3("top.cm."), ch.vec3("top.cm.v")
				R := exRot(ch.get("top.cm.qw"), ch.get("top.cm.qx"), ch.get("top.cm.qy"), ch.get("top.cm.qz"))
				wb := ch.vec3("top.cm.wb")
				// H about the pivot = m rc × vc + R J ωb
				hw := exMulMV(R, [3]float64{jxx * wb[0], jyy * wb[1], jz * wb[2]})
				hz := mass*exCross(rc, vc)[2] + hw[2]
				worstE = math.Max(worstE, math.Abs(ch.get("energy.total")-e0))
				worstH = math.Max(worstH, math.Abs(hz-hz0))
				worstSpin = math.Max(worstSpin, math.Abs(wb[1]-150))
				worstX = math.Max(worstX, exNorm([3]float64{rc[0] - r[1], rc[1] - r[2], rc[2] - r[3]}))
			}
			st := s.Stats()
			t.Logf("%s h = %g: centre of mass within %.3g m of the reference, max |E − E₀| = %.3g J, max |Hz − Hz₀| = %.3g kg·m²/s, max |ωy − 150| = %.2g rad/s (%.2f Newton iterations per step)",
				c.integ, h, worstX, worstE, worstH, worstSpin, float64(st.NewtonIters)/float64(max(st.Steps, 1)))
			errs = append(errs, worstX)
			// the spin is a first integral of the Lie-group schemes: kept to
			// the Newton tolerance on velocities (1e-8·(1 + |ω|))
			if worstSpin > 1e-8*(1+150) {
				t.Errorf("%s h = %g: spin about the symmetry axis off 150 rad/s by %.3g", c.integ, h, worstSpin)
			}
			if h == c.hs[len(c.hs)-1] && (worstX > c.maxErr || worstE > c.maxE || worstH > c.maxHz) {
				t.Errorf("%s h = %g: error %.3g m (≤ %g), energy %.3g J (≤ %g), Hz %.3g (≤ %g)", c.integ, h, worstX, c.maxErr, worstE, c.maxE, worstH, c.maxHz)
			}
		}
		for i := 1; i < len(errs); i++ {
			if p := math.Log2(errs[i-1] / errs[i]); math.Abs(p-c.order) > 0.25 {
				t.Errorf("%s: observed order %.2f between h = %g and %g, want %g", c.integ, p, c.hs[i-1], c.hs[i], c.order)
			}
		}
	}
}

// Conical pendulum (examples/conical-pendulum): a symmetric body on a
// spherical joint started in steady conical motion keeps its cone angle
// β = 30° and precesses at Ω = √(m g l / ((A − C) cos β)) = 4.5800720279
// rad/s (A = A_cm + m l² about the pivot, C axial), with the world angular
// velocity staying (0, 0, Ω).
func TestExampleConicalPendulum(t *testing.T) {
	m := exLoad(t, "conical-pendulum", nil)
	s := exInit(t, m)
	ch := exNewChannels(t, m, append(exChans("bob.cm"), "energy.total")...)
	const mass, l, acm, cax, g = 2.0, 0.5, 0.05, 0.01, 9.81
	beta := math.Pi / 6
	omega := math.Sqrt(mass * g * l / ((acm + mass*l*l - cax) * math.Cos(beta)))
	if math.Abs(omega-4.5800720279) > 1e-9 {
		t.Fatalf("closed form Ω = %.10f, refs/conical_pendulum.md gives 4.5800720279", omega)
	}
	ch.eval(s)
	e0 := ch.get("energy.total")
	var worstCone, worstAz, worstW, worstE float64
	az, prev := 0.0, 0.0 // unwrapped azimuth
	const dt, end = 0.01, 5.0
	for k := 0; float64(k)*dt <= end+dt/2; k++ {
		tk := float64(k) * dt
		if k > 0 {
			exAdvance(t, m, s, tk)
		}
		ch.eval(s)
		rc := ch.vec3("bob.cm.")
		a := math.Atan2(rc[1], rc[0])
		az += exWrap(a - prev)
		prev = a
		cone := math.Acos(-rc[2] / exNorm(rc))
		w := ch.vec3("bob.cm.w")
		worstCone = math.Max(worstCone, math.Abs(cone-beta))
		worstAz = math.Max(worstAz, math.Abs(az-omega*tk))
		worstW = math.Max(worstW, exNorm([3]float64{w[0], w[1], w[2] - omega}))
		worstE = math.Max(worstE, math.Abs(ch.get("energy.total")-e0))
	}
	rate := az / end
	st := s.Stats()
	t.Logf("Ω closed form %.10f rad/s, mean rate over %g s %.10f rad/s (relative error %.2g); max |β(t) − β| = %.2g rad, max azimuth error %.2g rad, max |ω − Ω ẑ| = %.2g rad/s, max |ΔE| = %.2g J (%.2f Newton iterations per step)",
		omega, end, rate, rate/omega-1, worstCone, worstAz, worstW, worstE, float64(st.NewtonIters)/float64(max(st.Steps, 1)))
	if worstCone > 1e-6 {
		t.Errorf("cone angle varies by %.3g rad, want ≤ 1e-6", worstCone)
	}
	if math.Abs(rate/omega-1) > 1e-5 || worstAz > 2e-4 {
		t.Errorf("precession rate %.10f rad/s vs closed form %.10f (azimuth error up to %.3g rad)", rate, omega, worstAz)
	}
	if worstW > 1e-4 || worstE > 1e-6 {
		t.Errorf("angular velocity off (0, 0, Ω) by %.3g rad/s (≤ 1e-4), energy by %.3g J (≤ 1e-6)", worstW, worstE)
	}
}

// Conical pendulum, small oscillations: the static equilibrium hangs the
// body straight down, and the linearisation about it has the double
// pendulum frequency √(m g l / A) = 4.2233 rad/s (A = A_cm + m l² about the
// pivot) and a rigid spin about the vertical.
func TestExampleConicalPendulumModes(t *testing.T) {
	m := exLoad(t, "conical-pendulum", nil)
	s := exInit(t, m)
	if err := m.Static(s); err != nil {
		t.Fatal(err)
	}
	ch := exNewChannels(t, m, "bob.cm.x", "bob.cm.y", "bob.cm.z")
	ch.eval(s)
	if rc := ch.vec3("bob.cm."); exNorm([3]float64{rc[0], rc[1], rc[2] + 0.5}) > 1e-9 {
		t.Errorf("static equilibrium: centre of mass at %v, want (0, 0, −0.5)", rc)
	}
	lin, err := m.Linearize(s)
	if err != nil {
		t.Fatal(err)
	}
	const mass, l, acm, g = 2.0, 0.5, 0.05, 9.81
	want := math.Sqrt(mass * g * l / (acm + mass*l*l))
	var osc []float64
	for _, md := range lin.Modes {
		if md.Oscillate {
			osc = append(osc, 2*math.Pi*md.Freq)
		} else if cmplx.Abs(md.Eig) > 1e-6 {
			t.Errorf("real eigenvalue %v, want only the rigid spin (0)", md.Eig)
		}
	}
	t.Logf("pendulum modes %v rad/s, closed form %.8f rad/s", osc, want)
	if len(osc) != 2 {
		t.Fatalf("%d oscillating modes, want 2 (swinging in two planes)", len(osc))
	}
	for _, w := range osc {
		if math.Abs(w-want) > 1e-6*want {
			t.Errorf("mode at %.8f rad/s, want %.8f", w, want)
		}
	}
}

// Torque-free axisymmetric body (examples/torque-free, A = 2, C = 1 kg·m²,
// ω(0) = (1, 0, 3) rad/s in the body frame): the body-frame angular
// velocity turns about the symmetry axis at λ = (C − A) ω₃ / A = −1.5 rad/s,
// ω(t) = (cos λt, sin λt, 3); the angular momentum H = (2, 0, 3) kg·m²/s
// (world) is constant; the symmetry axis keeps the angle
// θ = acos(C ω₃ / |H|) = 33.69° with H and precesses about it at
// Ω_p = |H| / A = 1.802775637732 rad/s.
func TestExampleTorqueFree(t *testing.T) {
	const a, c, w1, w3 = 2.0, 1.0, 1.0, 3.0
	lam := (c - a) * w3 / a
	h0 := [3]float64{a * w1, 0, c * w3}
	hn := exNorm(h0)
	hh := [3]float64{h0[0] / hn, h0[1] / hn, h0[2] / hn}
	theta := math.Acos(c * w3 / hn)
	wp := hn / a
	// reference directions normal to ĥ for the precession angle
	u := exCross([3]float64{0, 1, 0}, hh)
	u = [3]float64{u[0] / exNorm(u), u[1] / exNorm(u), u[2] / exNorm(u)}
	v := exCross(hh, u)
	var errs []float64
	for _, step := range []float64{1e-3, 5e-4} { // the file's step, then half
		m := exLoad(t, "torque-free", func(s *spec.Settings) { s.Step = step })
		s := exInit(t, m)
		ch := exNewChannels(t, m, append(exChans("body"), "energy.total")...)
		var worstW, worstH, worstTh, worstPhi, worstE float64
		phi, prev := 0.0, 0.0
		const dt, end = 0.01, 10.0
		for k := 0; float64(k)*dt <= end+dt/2; k++ {
			tk := float64(k) * dt
			if k > 0 {
				exAdvance(t, m, s, tk)
			}
			ch.eval(s)
			wb := ch.vec3("body.wb")
			want := [3]float64{w1 * math.Cos(lam*tk), w1 * math.Sin(lam*tk), w3}
			worstW = math.Max(worstW, exNorm([3]float64{wb[0] - want[0], wb[1] - want[1], wb[2] - want[2]}))
			R := exRot(ch.get("body.qw"), ch.get("body.qx"), ch.get("body.qy"), ch.get("body.qz"))
			h := exMulMV(R, [3]float64{a * wb[0], a * wb[1], c * wb[2]})
			worstH = math.Max(worstH, exNorm([3]float64{h[0] - h0[0], h[1] - h0[1], h[2] - h0[2]}))
			e3 := [3]float64{R[0][2], R[1][2], R[2][2]}
			worstTh = math.Max(worstTh, math.Abs(math.Acos(exDot(e3, hh))-theta))
			p := math.Atan2(exDot(e3, v), exDot(e3, u))
			if k == 0 {
				prev = p
			}
			phi += exWrap(p - prev)
			prev = p
			worstPhi = math.Max(worstPhi, math.Abs(phi-wp*tk))
			worstE = math.Max(worstE, math.Abs(ch.get("energy.total")-0.5*(a*w1*w1+c*w3*w3)))
		}
		st := s.Stats()
		t.Logf("h = %g, %g s: max |ωb − closed form| = %.2g rad/s, max |H − H₀| = %.2g kg·m²/s, max |θ − %.8f°| = %.2g rad, precession %.10f rad/s (closed form %.10f, max angle error %.2g rad), max |ΔE| = %.2g J (%.2f Newton iterations per step)",
			step, end, worstW, worstH, theta*180/math.Pi, worstTh, phi/end, wp, worstPhi, worstE, float64(st.NewtonIters)/float64(max(st.Steps, 1)))
		errs = append(errs, worstW)
		if step == 1e-3 {
			if worstW > 1e-5 {
				t.Errorf("body angular velocity off the closed form by %.3g rad/s, want ≤ 1e-5", worstW)
			}
			if worstH > 1e-5 || worstE > 1e-6 {
				t.Errorf("angular momentum off H₀ by %.3g kg·m²/s (≤ 1e-5), energy by %.3g J (≤ 1e-6)", worstH, worstE)
			}
			if worstTh > 1e-5 || worstPhi > 1e-5 {
				t.Errorf("nutation angle varies by %.3g rad (≤ 1e-5), precession angle off Ω_p t by %.3g rad (≤ 1e-5)", worstTh, worstPhi)
			}
		}
	}
	if p := math.Log2(errs[0] / errs[1]); math.Abs(p-2) > 0.25 {
		t.Errorf("observed order %.2f of the angular velocity error, want 2", p)
	}
}

// Cardan joint (examples/universal-joint, β = 30°, input at ω₁ = 10 rad/s;
// θ₁ = 0 with the input yoke pin in the plane of the shafts): the kinematic
// analysis gives tan θ₂ = tan θ₁ / cos β and ω₂/ω₁ = cos β / (1 − sin²β
// cos²θ₁) over a whole revolution; the driving torque balances the power
// into the output shaft, T ω₁ = J₂ ω₂ ω̇₂ (J₂ = 5e-4 kg·m² about its axis,
// the input shaft turning uniformly).
func TestExampleUniversalJoint(t *testing.T) {
	m := exLoad(t, "universal-joint", nil)
	s := exInit(t, m)
	if red := s.Redundant(); len(red) != 1 || red[0] != "cross (3)" {
		t.Errorf("redundant equations %v, want the cross's 3 (its centre is held by both bearings)", red)
	}
	ch := exNewChannels(t, m, "input.angle", "output.angle", "output.omega", "motor.force")
	const w1, j2 = 10.0, 5e-4
	beta := math.Pi / 6
	cb, sb := math.Cos(beta), math.Sin(beta)
	var worstTh, worstW, worstT, maxT float64
	const dt, end = 1e-3, 0.7 // more than one revolution (0.628 s)
	for k := 0; float64(k)*dt <= end+dt/2; k++ {
		tk := float64(k) * dt
		if err := m.Kinematics(s, tk); err != nil {
			t.Fatalf("t = %g: %v", tk, err)
		}
		ch.eval(s)
		th1 := w1 * tk
		th2 := math.Atan2(math.Sin(th1), cb*math.Cos(th1))
		den := 1 - sb*sb*math.Cos(th1)*math.Cos(th1)
		w2 := w1 * cb / den
		w2dot := -w1 * w1 * cb * sb * sb * math.Sin(2*th1) / (den * den)
		worstTh = math.Max(worstTh, math.Abs(exWrap(ch.get("output.angle")-th2)))
		worstTh = math.Max(worstTh, math.Abs(exWrap(ch.get("input.angle")-th1)))
		worstW = math.Max(worstW, math.Abs(ch.get("output.omega")-w2))
		torque := j2 * w2 * w2dot / w1
		worstT = math.Max(worstT, math.Abs(ch.get("motor.force")-torque))
		maxT = math.Max(maxT, math.Abs(torque))
	}
	t.Logf("over %g s: max |θ₂ − atan(tan θ₁/cos β)| = %.2g rad, max |ω₂ − closed form| = %.2g rad/s, max |T − J₂ω₂ω̇₂/ω₁| = %.2g N·m (peak %.4g N·m)",
		end, worstTh, worstW, worstT, maxT)
	if worstTh > 1e-10 || worstW > 1e-9 {
		t.Errorf("output angle off by %.3g rad (≤ 1e-10), speed by %.3g rad/s (≤ 1e-9)", worstTh, worstW)
	}
	if worstT > 1e-9*maxT+1e-12 {
		t.Errorf("driving torque off the power balance by %.3g N·m (peak %.3g)", worstT, maxT)
	}
}

// IFToMM spatial slider-crank driven at 6 rad/s
// (examples/spatial-slider-crank/kinematics.xml): slider position, velocity
// and acceleration against the closed form x(θ) = √(L² − (a_y − r sin θ)² −
// (a_z + r cos θ)²) and its derivatives; the driving torque against the
// power balance T θ̇ = dE/dt (E the mechanical energy, gravity included).
func TestExampleSpatialSliderCrankKinematics(t *testing.T) {
	ms := exLoadSpec(t, "spatial-slider-crank/kinematics.xml")
	m := exCompile(t, ms)
	s := exInit(t, m)
	ch := exNewChannels(t, m, "slider.x", "slider.vx", "slider.ax", "motor.force", "energy.total")
	const ay, az, r, L, w = 0.1, 0.12, 0.08, 0.3, 6.0
	const dt, end = 1e-3, 2 * math.Pi / w
	var worstX, worstV, worstA, worstP, maxP float64
	var e, tq []float64
	for k := 0; float64(k)*dt <= end; k++ {
		tk := float64(k) * dt
		if err := m.Kinematics(s, tk); err != nil {
			t.Fatalf("t = %g: %v", tk, err)
		}
		ch.eval(s)
		th := w * tk
		by, bz := ay-r*math.Sin(th), az+r*math.Cos(th)
		x := math.Sqrt(L*L - by*by - bz*bz)
		n := r * (ay*math.Cos(th) + az*math.Sin(th))
		np := r * (az*math.Cos(th) - ay*math.Sin(th))
		xd := n * w / x
		xdd := (np*w*w - xd*xd) / x
		worstX = math.Max(worstX, math.Abs(ch.get("slider.x")-x))
		worstV = math.Max(worstV, math.Abs(ch.get("slider.vx")-xd))
		worstA = math.Max(worstA, math.Abs(ch.get("slider.ax")-xdd))
		e = append(e, ch.get("energy.total"))
		tq = append(tq, ch.get("motor.force"))
	}
	for k := 1; k+1 < len(e); k++ {
		dedt := (e[k+1] - e[k-1]) / (2 * dt)
		worstP = math.Max(worstP, math.Abs(tq[k]*w-dedt))
		maxP = math.Max(maxP, math.Abs(dedt))
	}
	t.Logf("one revolution: max |x − closed form| = %.2g m, |ẋ − …| = %.2g m/s, |ẍ − …| = %.2g m/s², max |T θ̇ − dE/dt| = %.2g W (peak %.3g W)",
		worstX, worstV, worstA, worstP, maxP)
	if worstX > 1e-12 || worstV > 1e-12 || worstA > 1e-10 {
		t.Errorf("slider off the closed form: %.3g m (≤ 1e-12), %.3g m/s (≤ 1e-12), %.3g m/s² (≤ 1e-10)", worstX, worstV, worstA)
	}
	if worstP > 1e-4*maxP {
		t.Errorf("driving power off dE/dt by %.3g W (peak %.3g W)", worstP, maxP)
	}
}

// IFToMM spatial slider-crank, free motion (examples/spatial-slider-crank):
// the slider position and crank angle follow the converged reference
// (reference.csv: Lagrange multipliers, RK4 h = 2.5e-4 s with projection,
// converged to 2e-8 m) at second order in h; at the file's step (1 ms) the
// slider stays within 4e-4 m of it and of M. González's published
// solution over 5 s (3.3e-4 m with the index-2 form spatial models take
// by default; 1.9e-4 m with index-3); energy (0.76643568 J with V = m g z)
// is conserved.
func TestExampleSpatialSliderCrank(t *testing.T) {
	ref := exReadCSV(t, "../examples/spatial-slider-crank/reference.csv") // t, x, ẋ, crank angle, rate, drift
	gon := exReadCSV(t, "../examples/spatial-slider-crank/gonzalez.csv")  // t, x
	var errs []float64
	for _, h := range []float64{1e-3, 5e-4} {
		m := exLoad(t, "spatial-slider-crank", func(s *spec.Settings) { s.Step = h })
		s := exInit(t, m)
		if red := s.Redundant(); len(red) != 0 {
			t.Errorf("h = %g: redundant equations %v; the slider-crank has none", h, red)
		}
		if dof := m.DOF(s); dof != 1 {
			t.Errorf("h = %g: %d degrees of freedom, want 1", h, dof)
		}
		ch := exNewChannels(t, m, "slider.x", "A.angle", "A.omega", "energy.total")
		var worstX, worstG, worstTh, worstE float64
		turns, prev := 0.0, 0.0
		for k, r := range ref {
			if k > 0 {
				exAdvance(t, m, s, r[0])
			}
			ch.eval(s)
			x := ch.get("slider.x")
			th := ch.get("A.angle")
			turns += exWrap(th - prev)
			prev = th
			worstX = math.Max(worstX, math.Abs(x-r[1]))
			worstTh = math.Max(worstTh, math.Abs(turns-r[3]))
			if g := gon[k]; math.Abs(g[0]-r[0]) < 1e-9 {
				worstG = math.Max(worstG, math.Abs(x-g[1]))
			} else {
				t.Fatalf("gonzalez.csv row %d at t = %g, reference at %g", k, g[0], r[0])
			}
			worstE = math.Max(worstE, math.Abs(ch.get("energy.total")-0.76643568))
		}
		st := s.Stats()
		t.Logf("h = %g: slider within %.3g m of the reference (%.3g m of González), crank angle within %.3g rad, max |E − E₀| = %.3g J (%.2f Newton iterations per step)",
			h, worstX, worstG, worstTh, worstE, float64(st.NewtonIters)/float64(max(st.Steps, 1)))
		errs = append(errs, worstX)
		if h == 1e-3 && (worstX > 4e-4 || worstG > 4e-4 || worstTh > 0.02 || worstE > 1e-3) {
			t.Errorf("h = %g: slider off the reference by %.3g m (≤ 4e-4), off González by %.3g m (≤ 4e-4), crank angle by %.3g rad (≤ 0.02), energy by %.3g J (≤ 1e-3)",
				h, worstX, worstG, worstTh, worstE)
		}
	}
	if p := math.Log2(errs[0] / errs[1]); math.Abs(p-2) > 0.3 {
		t.Errorf("observed order %.2f, want 2", p)
	}
}

// IFToMM A04 Bricard mechanism (examples/bricard): six revolutes close a
// loop of five rods; the 30 constraint equations on 30 velocity
// coordinates have rank 29, so the engine removes one redundant equation
// at the start and the mechanism keeps one degree of freedom. Released at
// rest it swings through its path and returns to the start at ≈ 4.99 s;
// joint points P2 and P3 follow the reference (reference.csv: least-squares
// multipliers, RK4 h = 1e-3 s with projection) and energy is conserved.
func TestExampleBricard(t *testing.T) {
	ref := exReadCSV(t, "../examples/bricard/reference.csv") // t, P2 xyz, P3 xyz, drift
	m := exLoad(t, "bricard", nil)
	s := exInit(t, m)
	red := s.Redundant()
	if len(red) != 1 || !strings.HasSuffix(red[0], " (1)") {
		t.Errorf("redundant equations %v, want one", red)
	}
	if dof := m.DOF(s); dof != 1 {
		t.Errorf("%d degrees of freedom at the start, want 1", dof)
	}
	ch := exNewChannels(t, m, "rod2.P2.x", "rod2.P2.y", "rod2.P2.z", "rod3.P3.x", "rod3.P3.y", "rod3.P3.z", "energy.total")
	ch.eval(s)
	e0 := ch.get("energy.total")
	if math.Abs(e0-(-3*9.81)) > 1e-12 {
		t.Errorf("energy at the start %.12g J, want −3 m g = −29.43 J (centres of mass at y = 0, −0.5, −1, −1, −0.5 m)", e0)
	}
	var worstP, worstE float64
	for k, r := range ref {
		if k > 0 {
			exAdvance(t, m, s, r[0])
		}
		ch.eval(s)
		p2, p3 := ch.vec3("rod2.P2."), ch.vec3("rod3.P3.")
		for i := 0; i < 3; i++ {
			worstP = math.Max(worstP, math.Max(math.Abs(p2[i]-r[1+i]), math.Abs(p3[i]-r[4+i])))
		}
		worstE = math.Max(worstE, math.Abs(ch.get("energy.total")-e0))
	}
	st := s.Stats()
	t.Logf("10 s: P2, P3 within %.3g m of the reference, max |E − E₀| = %.3g J, removed %v (%.2f Newton iterations per step)",
		worstP, worstE, red, float64(st.NewtonIters)/float64(max(st.Steps, 1)))
	if worstP > 5e-5 || worstE > 5e-5 {
		t.Errorf("joint points off the reference by %.3g m (≤ 5e-5), energy by %.3g J (≤ 5e-5)", worstP, worstE)
	}
}

// exLoadSpec reads a model file of ../examples.
func exLoadSpec(t testing.TB, path string) *spec.Model {
	t.Helper()
	ms, err := xml.LoadFile("../examples/" + path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ms
}

// TestHeavyTopReusesFactors checks what makes the heavy top's step cheap
// at h = 1 ms, where it spins 0.15 rad a step: its angular accelerations
// are extrapolated in the world frame (the first Newton increment is then
// about 1e-7 instead of 1e-3), and factors of earlier steps are carried
// into the turned body frame (coRotate), so that they keep converging
// (before: 2.05 iterations and a factorisation at every step). With the
// index-2 form that spatial models take since the Simo–Wong top's
// instability (stability_test.go) old factors contract by about 0.15 an
// iteration instead of 0.07, so about half the steps refactor: 2.43
// iterations and 0.46 factorisations a step (index-3: 2.15 and 0.15).
func TestHeavyTopReusesFactors(t *testing.T) {
	m, err := solver.Compile(bench.HeavyTop(1e-3), solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceTo(s, 1); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	its, facts := float64(st.NewtonIters)/float64(st.Steps), float64(st.Factorizations)/float64(st.Steps)
	t.Logf("%d steps: %.3f Newton iterations and %.3f factorisations a step", st.Steps, its, facts)
	if its > 2.6 || facts > 0.6 {
		t.Errorf("%.3f iterations and %.3f factorisations a step, want at most 2.6 and 0.6", its, facts)
	}
}

// TestCable640ReusesFactors: the 640-element spatial ANCF pendulum
// (examples/ancf-pendulum-3d with n = 640, the speed case's largest row)
// reuses its factors as the 160-element one does. Its elements' forces
// were formed from the Gram products of absolute positions, whose
// cancellation (1/l² with l = 1.6 mm) left Newton's increments a floor
// near 1e-9 m, the tolerance's level: old factors seemed not to converge
// and every step refactored (301 factorisations in 0.3 s, 1101 in the
// 1.1 s run). With positions relative to each element's first node: at
// most 0.1 factorisations a step (measured 70 in 1100 steps).
func TestCable640ReusesFactors(t *testing.T) {
	ms := exLoadSpec(t, "ancf-pendulum-3d/model.xml")
	for i := range ms.Params {
		if ms.Params[i].Name == "n" {
			ms.Params[i].Value = 640
		}
	}
	ms.Settings.End = 0.3
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	if err := m.AdvanceTo(s, 0.3); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	facts := float64(st.Factorizations) / float64(st.Steps)
	t.Logf("%d steps: %.2f Newton iterations and %.3f factorisations a step", st.Steps, float64(st.NewtonIters)/float64(st.Steps), facts)
	if facts > 0.1 {
		t.Errorf("%.3f factorisations a step, want at most 0.1", facts)
	}
}
