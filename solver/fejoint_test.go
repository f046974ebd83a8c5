package solver_test

// Joints at nodes of fe-bodies that move with the modes
// (solver/flex/fejoint.go) against closed-form beam frequencies and
// conservation laws.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// A straight steel beam (writeFreeBeam: Euler–Bernoulli frame elements,
// consistent mass, along x) whose bending modes are its lowest: the
// torsion constant and the axial stiffness put torsion and axial modes
// far above them.
const (
	fjL, fjE, fjG, fjRho = 2.0, 2.1e11, 8.1e10, 7850.0
	fjA, fjIy, fjIz, fjJ = 1e-4, 2e-9, 1e-9, 3e-8
)

// fjBendFreqs returns the beam's bending frequencies (Hz) for the roots
// βL of its frequency equations in the xz plane (I_y) and the xy plane
// (I_z), ascending.
func fjBendFreqs(blY, blZ []float64) []float64 {
	var f []float64
	for k, bl := range [][]float64{blY, blZ} {
		I := []float64{fjIy, fjIz}[k]
		for _, b := range bl {
			f = append(f, b*b/(fjL*fjL)*math.Sqrt(fjE*I/(fjRho*fjA))/(2*math.Pi))
		}
	}
	sort.Float64s(f)
	return f
}

// The beam jointed at its end node (node 1; free-free FE body,
// Craig–Bampton interface at the jointed nodes) to the ground, without
// gravity: the linearised model's frequencies are the Euler–Bernoulli
// beam's, within the mesh's discretisation error, which falls at fourth
// order as the mesh refines:
//
//   - a ball joint: pinned-free, βL = 3.9266, 7.0686, 10.2102 in both
//     planes (the turns about the pin are at zero);
//   - ball joints at both end nodes: pinned-pinned, βL = nπ (the turn
//     about the beam's axis at zero);
//   - a revolute joint with its axis along z: pinned-free in the xy plane,
//     clamped-free (βL = 1.8751, 4.6941, 7.8548, 10.9955) in the xz plane;
//   - a fixed joint: clamped-free in both planes.
func TestFEJointFrequencies(t *testing.T) {
	pf := []float64{3.926602312047919, 7.068582745628732, 10.210176122813031}
	pp := []float64{math.Pi, 2 * math.Pi, 3 * math.Pi}
	cf := []float64{1.875104068711961, 4.694091132974175, 7.854757438237613, 10.995540734875467}
	for _, c := range []struct {
		what          string
		rows, rigid   int // constraint rows; turns about the pins
		iface, joints string
		want          []float64
	}{
		{"ball (pinned-free)", 3, 3, "1", `<spherical name="pin" i="ground.O" j="b.a"/>`, fjBendFreqs(pf, pf)},
		{"two balls (pinned-pinned)", 6, 1, "1 %[1]d", `<spherical name="pin" i="ground.O" j="b.a"/>
  <spherical name="pin2" i="b.z" j="ground.E"/>`, fjBendFreqs(pp, pp)},
		{"revolute about z", 5, 1, "1", `<revolute name="hinge" i="b.a" j="ground.O"/>`, fjBendFreqs(cf, pf)},
		{"fixed (clamped-free)", 6, 0, "1", `<fixed name="wall" i="ground.O" j="b.a"/>`, fjBendFreqs(cf, cf)},
	} {
		var errs []float64
		for _, ne := range []int{8, 16, 32} {
			dir := t.TempDir()
			writeFreeBeam(t, dir, ne, fjL, fjE, fjG, fjRho, fjA, fjIy, fjIz, fjJ)
			iface := c.iface
			if strings.Contains(iface, "%") {
				iface = fmt.Sprintf(iface, ne+1)
			}
			src := fmt.Sprintf(`<model name="fj" dimension="3"><settings gravity="0 0 0"/>
  <ground><marker name="O"/><marker name="E" at="%g 0 0"/></ground>
  <fe-body kind="matrix-market" name="b" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6" units="m-kg-s"
           reduction="craig-bampton" interface="%s" modes="40">
    <marker name="a" node="1"/><marker name="z" node="%d"/></fe-body>
  %s
</model>`, fjL, iface, ne+1, c.joints)
			m, err := feModel(t, dir, src)
			if err != nil {
				t.Fatal(err)
			}
			s := exInit(t, m)
			lin, err := m.Linearize(s)
			if err != nil {
				t.Fatal(err)
			}
			_, nf := lin.N.Dims()
			got := linFreqs(t, m, s, 1, true)
			// every degree of freedom but the turns about the pins
			// oscillates
			if nf != 6+len(m.Reductions()[0].Kept)-c.rows || len(got) != nf-c.rigid {
				t.Errorf("%s, %d elements: %d degrees of freedom, %d elastic frequencies (want %d rigid turns)", c.what, ne, nf, len(got), c.rigid)
			}
			if len(got) < 6 {
				t.Fatalf("%s, %d elements: %d elastic frequencies %v", c.what, ne, len(got), got)
			}
			worst := 0.0
			for k := 0; k < 6; k++ {
				d := (got[k] - c.want[k]) / c.want[k]
				worst = math.Max(worst, math.Abs(d))
				if d < -1e-9 { // consistent mass, Ritz basis: never below
					t.Errorf("%s, %d elements: mode %d at %.8g Hz, below the continuous beam's %.8g Hz", c.what, ne, k+1, got[k], c.want[k])
				}
			}
			t.Logf("%s, %d elements: %.6g %.6g %.6g %.6g %.6g %.6g Hz (closed form %.6g … %.6g), largest relative difference %.2g",
				c.what, ne, got[0], got[1], got[2], got[3], got[4], got[5], c.want[0], c.want[5], worst)
			errs = append(errs, worst)
		}
		if errs[2] > 1e-5 {
			t.Errorf("%s: 32 elements differ from the closed form by %.3g", c.what, errs[2])
		}
		for k := 1; k < len(errs); k++ {
			if errs[k-1]/errs[k] < 12 {
				t.Errorf("%s: the difference from the closed form does not fall at fourth order: %v", c.what, errs)
			}
		}
	}
}

// The beam as a flexible link jointed at both ends: hung from a joint at
// its end node (a ball joint, or a revolute joint whose axis leans 31°
// from the horizontal, so that it carries a moment), a 1 kg body
// on a ball joint at its other end node, released horizontal under
// gravity (generalized-α without numerical damping). The joints stay
// closed (node positions on the pin and on the body to the Newton
// tolerance), the energy is conserved to the integrator's error, which
// falls at second order with the step, while the link bends by
// millimetres; the hinge's angle channel turns by the swing and its rate
// channel follows the angle's derivative.
func TestFEJointSwingingLink(t *testing.T) {
	dir := t.TempDir()
	const ne = 8
	writeFreeBeam(t, dir, ne, fjL, fjE, fjG, fjRho, fjA, fjIy, fjIz, fjJ)
	run := func(pin string, h float64) (dE, gap, bend, drop, swing, rateErr float64) {
		src := fmt.Sprintf(`<model name="fj" dimension="3">
  <settings end="0.6" step="%g" integrator="genalpha" rho-inf="1" gravity="0 0 -9.81"/>
  <ground><marker name="O"/><marker name="H" z-axis="0 1 0.6" x-axis="1 0 0"/></ground>
  <fe-body kind="matrix-market" name="b" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6" units="m-kg-s"
           reduction="craig-bampton" interface="1 %d" modes="8">
    <marker name="a" node="1"/><marker name="z" node="%d"/></fe-body>
  <body name="m" mass="1" inertia="1e-3, 1e-3, 1e-3" at="%g 0 0"/>
  %s
  <spherical name="end" i="b.z" j="m"/>
</model>`, h, ne+1, ne+1, fjL, pin)
		m, err := feModel(t, dir, src)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"energy.total", "b.a.x", "b.a.y", "b.a.z", "b.z.x", "b.z.y", "b.z.z", "m.x", "m.y", "m.z", "b.z.uz", "b.z.uy"}
		if strings.HasPrefix(pin, "<revolute") {
			names = append(names, "pin.angle", "pin.omega")
		}
		const dt = 0.002
		_, out, err := series(t, m, dt, names...)
		if err != nil {
			t.Fatal(err)
		}
		for k := range out[0] {
			dE = math.Max(dE, math.Abs(out[0][k]-out[0][0]))
			gap = math.Max(gap, math.Hypot(math.Hypot(out[1][k], out[2][k]), out[3][k]))
			gap = math.Max(gap, math.Hypot(math.Hypot(out[4][k]-out[7][k], out[5][k]-out[8][k]), out[6][k]-out[9][k]))
			bend = math.Max(bend, math.Hypot(out[10][k], out[11][k]))
			drop = math.Max(drop, -out[9][k])
			if len(out) > 12 {
				swing = math.Max(swing, math.Abs(out[12][k]))
				if k > 0 && k+1 < len(out[0]) {
					d := (out[12][k+1] - out[12][k-1]) / (2 * dt)
					rateErr = math.Max(rateErr, math.Abs(d-out[13][k]))
				}
			}
		}
		return
	}
	for _, pin := range []string{`<spherical name="pin" i="ground.O" j="b.a"/>`, `<revolute name="pin" i="ground.H" j="b.a"/>`} {
		// the energy scale: the body and the beam falling by the drop
		e1, g1, bend, drop, swing, rateErr := run(pin, 1e-3)
		e2, g2, _, _, _, _ := run(pin, 5e-4)
		scale := 9.81 * (1 + fjRho*fjA*fjL/2) * drop
		t.Logf("%s: tip drops %.3g m, the link bends by %.3g mm; largest joint gap %.2g m, %.2g m; energy error %.3g J, %.3g J (%.2g, %.2g of the %.3g J released) at h = 1 ms, 0.5 ms",
			pin[1:10], drop, bend*1e3, g1, g2, e1, e2, e1/scale, e2/scale, scale)
		if drop < 1 || bend < 1e-3 {
			t.Errorf("%s: the link did not swing and bend: drop %.3g m, bend %.3g m", pin[1:10], drop, bend)
		}
		if g1 > 1e-8 || g2 > 1e-8 {
			t.Errorf("%s: joints open: gap %.3g m, %.3g m", pin[1:10], g1, g2)
		}
		if e2 > 1e-3*scale || e1/e2 < 3 {
			t.Errorf("%s: energy not conserved to second order: %.3g J, %.3g J", pin[1:10], e1, e2)
		}
		if strings.HasPrefix(pin, "<revolute") {
			// (the rate channel follows the node's rotation, which
			// rattles in the stiff interface shapes: a central difference
			// of sampled angles agrees to a percent; the exact check is
			// TestFEJointDerivatives')
			t.Logf("hinge angle up to %.3g rad; its rate channel differs from the central difference of the angle (2 ms) by %.2g rad/s", swing, rateErr)
			if swing < 0.5 || rateErr > 0.05 {
				t.Errorf("hinge: angle up to %.3g rad, rate off by %.3g rad/s", swing, rateErr)
			}
		}
	}
}

// The free-free beam held by a fixed joint at its end node (Craig–Bampton
// interface there, every fixed-interface mode kept: the FE model's own
// statics) under gravity: a cantilever. The joint's reaction on the
// ground is the weight W = ρALg and the moment W L/2 about the wall
// (exactly W times the centre of mass' distance from it), and
// the tip deflects by the Euler–Bernoulli beam's wL⁴/(8EI) (Hermite
// elements are exact at the nodes under a uniform load), both to the
// second order of the small rotations that the floating frame takes
// finitely.
func TestFEJointCantileverStatics(t *testing.T) {
	dir := t.TempDir()
	const ne = 8
	writeFreeBeam(t, dir, ne, fjL, fjE, fjG, fjRho, fjA, fjIy, fjIz, fjJ)
	src := fmt.Sprintf(`<model name="fj" dimension="3"><settings gravity="0 0 -9.81"/>
  <ground><marker name="O"/></ground>
  <fe-body kind="matrix-market" name="b" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6" units="m-kg-s"
           reduction="craig-bampton" interface="1" modes="%d">
    <marker name="a" node="1"/><marker name="z" node="%d"/></fe-body>
  <fixed name="wall" i="ground.O" j="b.a"/>
</model>`, 6*ne, ne+1)
	m, err := feModel(t, dir, src)
	if err != nil {
		t.Fatal(err)
	}
	got := staticChannels(t, m, "wall.fx", "wall.fy", "wall.fz", "wall.tx", "wall.ty", "wall.tz", "b.z.z", "b.a.x", "b.a.y", "b.a.z", "b.x")
	W := fjRho * fjA * fjL * 9.81
	tip := W / fjL * math.Pow(fjL, 4) / (8 * fjE * fjIy)
	want := []float64{0, 0, -W, 0, W * fjL / 2, 0, -tip, 0, 0, 0}
	t.Logf("reaction %.6g %.6g %.6g N, %.6g %.6g %.6g N*m (W = %.6g N, W L/2 = %.6g N*m); tip %.6g m (wL⁴/8EI = %.6g m); node at the wall %.2g %.2g %.2g m",
		got[0], got[1], got[2], got[3], got[4], got[5], W, W*fjL/2, got[6], -tip, got[7], got[8], got[9])
	// the frame's origin is the centre of mass (the free body's shapes
	// leave it in place): the moment is exactly W times its distance
	if d := got[4] - W*got[10]; math.Abs(d) > 1e-9*W*fjL {
		t.Errorf("moment %.9g N*m, W x_cm = %.9g N*m", got[4], W*got[10])
	}
	for k, sc := range []float64{W, W, W, W * fjL, W * fjL, W * fjL, tip, 1, 1, 1} {
		tol := 1e-9
		switch k {
		case 4:
			tol = 1e-4 // the moment: its arm shortens by the frame's turn (1.4 %) to second order
		case 6:
			tol = 2e-3 // the tip likewise
		}
		if math.Abs(got[k]-want[k]) > tol*sc {
			t.Errorf("channel %d: %.9g, want %.9g", k, got[k], want[k])
		}
	}
}

// writeTetTruss writes a free tetrahedron of six steel bars (nodes with
// translations only, as a solid's; lumped mass) as Matrix Market files
// with a node list into dir.
func writeTetTruss(t *testing.T, dir string) {
	t.Helper()
	p := [4][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	const EA, mass = 2e7, 1.0
	k := map[[2]int]float64{}
	for a := 0; a < 4; a++ {
		for b := a + 1; b < 4; b++ {
			var e [3]float64
			l := 0.0
			for c := range e {
				e[c] = p[b][c] - p[a][c]
				l += e[c] * e[c]
			}
			l = math.Sqrt(l)
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					v := EA / l * e[i] * e[j] / (l * l)
					k[[2]int{3*a + i, 3*a + j}] += v
					k[[2]int{3*b + i, 3*b + j}] += v
					k[[2]int{3*a + i, 3*b + j}] -= v
					k[[2]int{3*b + i, 3*a + j}] -= v
				}
			}
		}
	}
	var ks, ms, nodes strings.Builder
	n := 0
	for i := 0; i < 12; i++ {
		for j := 0; j <= i; j++ {
			if v := k[[2]int{i, j}]; v != 0 {
				fmt.Fprintf(&ks, "%d %d %.17g\n", i+1, j+1, v)
				n++
			}
		}
		fmt.Fprintf(&ms, "%d %d %g\n", i+1, i+1, mass/4)
	}
	for a, q := range p {
		fmt.Fprintf(&nodes, "%d %g %g %g\n", a+1, q[0], q[1], q[2])
	}
	for name, body := range map[string]string{
		"Kt.mtx":     fmt.Sprintf("%%%%MatrixMarket matrix coordinate real symmetric\n12 12 %d\n%s", n, ks.String()),
		"Mt.mtx":     fmt.Sprintf("%%%%MatrixMarket matrix coordinate real symmetric\n12 12 12\n%s", ms.String()),
		"tnodes.txt": nodes.String(),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// What joints at moving nodes still refuse, with the message naming what
// works: joint kinds other than spherical, revolute and fixed; revolute
// and fixed joints at nodes without rotational dofs (a solid's); a driver
// of a joint without a coordinate; drive-train elements and rotational
// springs on such joints (they would read the node as a rigid marker); a
// joint between two markers of the same fe-body. A spherical joint at a
// solid's node compiles.
func TestFEJointRefusals(t *testing.T) {
	dir := t.TempDir()
	writeFreeBeam(t, dir, 4, fjL, fjE, fjG, fjRho, fjA, fjIy, fjIz, fjJ)
	writeTetTruss(t, dir)
	model := func(rest string) string {
		return `<model name="e" dimension="3"><settings gravity="0 0 0"/><ground><marker name="O"/></ground>
  <fe-body kind="matrix-market" name="b" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6" units="m-kg-s">
    <marker name="a" node="1"/><marker name="z" node="5"/></fe-body>
  <fe-body kind="matrix-market" name="s" mass="Mt.mtx" stiffness="Kt.mtx" nodes="tnodes.txt" dofs-per-node="3" units="m-kg-s">
    <marker name="c" node="4"/></fe-body>
  <body name="r" mass="1" inertia="0.1, 0.1, 0.1" at="0 0 1"/>
  ` + rest + `
</model>`
	}
	for _, c := range []struct{ rest, want string }{
		{`<prismatic name="j" i="ground.O" j="b.a"/>`, `test.xml:7: j: joint "j": marker "b.a" is at a node of fe-body "b" that moves with the modes, where spherical, revolute and fixed joints attach (revolute and fixed at nodes with rotational dofs), not a prismatic joint`},
		{`<universal name="j" i="b.z" j="r"/>`, `test.xml:7: i: joint "j": marker "b.z" is at a node of fe-body "b" that moves with the modes, where spherical, revolute and fixed joints attach`},
		{`<revolute name="j" i="ground.O" j="s.c"/>`, `test.xml:7: j: joint "j": node 4 of fe-body "s" has no rotational dofs (a solid's node): only a spherical joint attaches there`},
		{`<fixed name="j" i="s.c" j="b.z"/>`, `test.xml:7: i: joint "j": node 4 of fe-body "s" has no rotational dofs`},
		{`<fixed name="j" i="ground.O" j="b.a"/>
  <driver name="d" joint="j" value="time"/>`, `test.xml:8: joint: "j" is a <fixed> joint; a driver needs a revolute, prismatic or cylindrical joint`},
		{`<revolute name="j" i="ground.O" j="b.a"/>
  <rspring name="k" joint="j" k="10"/>`, `test.xml:8: joint: rspring "k": joint "j" is at a node of fe-body "b" that moves with the modes`},
		{`<spherical name="j" i="ground.O" j="b.a"/>
  <friction name="f" joint="j" mu-static="0.3" normal="10" radius="0.01"/>`, `test.xml:8: i: friction "f": joint "j" is a spherical joint at a node of fe-body "b" that moves with the modes: drive-train elements and joint friction there take a revolute joint's angle`},
		{`<revolute name="j" i="ground.O" j="b.a"/><revolute name="j2" i="ground.O" j="r"/>
  <coupler kind="gear" name="g" i="j" j="j2" ratio="2"/>`, `test.xml:8: i: gear "g": joint "j" is at a node of fe-body "b" that moves with the modes: couplers there are not supported (motors, stops, friction and drivers are)`},
		{`<spherical name="j" i="b.a" j="b.z"/>`, `test.xml:7: j: i and j are on the same body "b"`},
	} {
		_, err := feModel(t, dir, model(c.rest))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.rest, err, c.want)
		}
	}
	if _, err := feModel(t, dir, model(`<spherical name="j" i="s.c" j="r"/><spherical name="j2" i="b.z" j="s.c"/>`)); err != nil {
		t.Errorf("spherical joints at a solid's node: %v", err)
	}
}

// pinnedBeam is the free beam of writeFreeBeam (ne elements, a
// Craig–Bampton basis with both end nodes as interface) pinned at its end
// node to the ground by the revolute joint "pin", with the settings and
// the elements rest.
func pinnedBeam(ne int, settings, rest string) string {
	return fmt.Sprintf(`<model name="fj" dimension="3">
  %s
  <ground><marker name="O"/></ground>
  <fe-body kind="matrix-market" name="b" mass="M.mtx" stiffness="K.mtx" nodes="nodes.txt" dofs-per-node="6" units="m-kg-s"
           reduction="craig-bampton" interface="1 %d" modes="8">
    <marker name="a" node="1"/><marker name="z" node="%d"/></fe-body>
  <revolute name="pin" i="ground.O" j="b.a"/>
  %s
</model>`, settings, ne+1, ne+1, rest)
}

// A driver on a revolute joint at a moving node (its coordinate row,
// mech.JointInfo.CoordRow): a free beam pinned at its end node to the
// ground and swung through 1.2 rad with a fast smooth profile, no gravity.
// The joint's angle follows the profile to round-off, the beam bends
// behind it, and the work of the driver's torque, ∫ τ ω dt, is the
// energy the beam gains (kinetic and strain) to the trapezoid rule's
// second order.
func TestFEJointDriven(t *testing.T) {
	dir := t.TempDir()
	const ne = 8
	writeFreeBeam(t, dir, ne, fjL, fjE, fjG, fjRho, fjA, fjIy, fjIz, fjJ)
	src := pinnedBeam(ne, `<settings end="0.6" step="2e-4" integrator="genalpha" rho-inf="1" gravity="0 0 0"/>`,
		`<driver name="d" joint="pin" value="2*(time - 0.1*sin(10*time))"/>`)
	m, err := feModel(t, dir, src)
	if err != nil {
		t.Fatal(err)
	}
	const dt = 2e-4
	tm, out, err := series(t, m, dt, "pin.angle", "pin.omega", "d.force", "energy.total", "b.z.uy")
	if err != nil {
		t.Fatal(err)
	}
	track, bend, work := 0.0, 0.0, 0.0
	for k, tt := range tm {
		track = math.Max(track, math.Abs(out[0][k]-2*(tt-0.1*math.Sin(10*tt))))
		bend = math.Max(bend, math.Abs(out[4][k]))
		if k > 0 {
			work += 0.5 * dt * (out[2][k]*out[1][k] + out[2][k-1]*out[1][k-1])
		}
	}
	n := len(tm) - 1
	gain := out[3][n] - out[3][0]
	t.Logf("angle %.4f rad at %.2f s, tracked to %.2g rad; tip bends by %.3g mm; work of the driver %.6g J, energy gained %.6g J (%.2g)", out[0][n], tm[n], track, bend*1e3, work, gain, (work-gain)/gain)
	if track > 1e-9 {
		t.Errorf("the joint angle leaves the driver's profile by %.3g rad", track)
	}
	if bend < 1e-3 {
		t.Errorf("the beam did not bend: %.3g m", bend)
	}
	if math.Abs(work-gain) > 1e-4*math.Abs(gain) {
		t.Errorf("the driver's work %.6g J is not the energy gained %.6g J", work, gain)
	}
}

// Drive-train elements on a revolute joint at a moving node take its
// angle row too: a DC motor (no inductance) swings a free beam pinned at
// its end node against Coulomb joint friction, and an end stop catches
// it. The work of the motor's torque and the friction's effort, ∫ (τ_m
// + τ_f) ω dt, is the energy the beam gains; the friction's effort is its
// preload while the joint slips; the stop holds the angle at its limit
// (within the contact law's penetration) and its work is the energy
// taken.
func TestFEJointDriveTrain(t *testing.T) {
	dir := t.TempDir()
	const ne = 8
	writeFreeBeam(t, dir, ne, fjL, fjE, fjG, fjRho, fjA, fjIy, fjIz, fjJ)
	run := func(stop string, h float64) ([]float64, [][]float64) {
		rho := 1.0 // energy conserving
		if stop != "" {
			rho = 0.8 // the stop's impacts want some numerical damping
		}
		src := pinnedBeam(ne, fmt.Sprintf(`<settings end="0.8" step="%g" integrator="genalpha" rho-inf="%g" gravity="0 0 0"/>`, h, rho),
			`<motor name="m" joint="pin" voltage="20" resistance="1" kt="2" ke="2"/>
  <friction name="f" joint="pin" preload="2"/>
  `+stop)
		m, err := feModel(t, dir, src)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"pin.angle", "pin.omega", "m.torque", "f.effort", "energy.total", "b.z.uy"}
		if stop != "" {
			names = append(names, "s.effort")
		}
		tm, out, err := series(t, m, h, names...)
		if err != nil {
			t.Fatal(err)
		}
		return tm, out
	}
	balance := func(dt float64) (rel float64) {
		tm, out := run("", dt)
		work, fe := 0.0, 0.0
		for k := 1; k < len(tm); k++ {
			p := func(k int) float64 { return (out[2][k] + out[3][k]) * out[1][k] }
			work += 0.5 * dt * (p(k) + p(k-1))
			if out[1][k] > 1e-3 {
				fe = math.Max(fe, math.Abs(out[3][k]+2))
			}
		}
		n := len(tm) - 1
		gain := out[4][n] - out[4][0]
		t.Logf("h = %g s: motor and friction: %.3f rad at %.1f s, %.3f rad/s (no-load speed 10); the work %.6g J, energy gained %.6g J (%.2g); friction effort off its preload by %.2g N·m while slipping",
			dt, out[0][n], tm[n], out[1][n], work, gain, (work-gain)/gain, fe)
		if out[0][n] < 0.5 {
			t.Errorf("the motor did not turn the beam: %.3g rad", out[0][n])
		}
		if fe > 1e-9 {
			t.Errorf("the friction's effort leaves its preload by %.3g N·m while the joint slips", fe)
		}
		return math.Abs(work-gain) / gain
	}
	// the balance holds to the time step's second order
	e1, e2 := balance(2e-4), balance(1e-4)
	if e1 > 5e-4 || e2 > e1/3 {
		t.Errorf("the work of the motor and the friction leaves the energy gained by %.3g, %.3g at h = 0.2, 0.1 ms: not second order", e1, e2)
	}
	// the end stop
	tm, out := run(`<stop name="s" joint="pin" upper="0.3" k="1e5" c="50"/>`, 2e-4)
	peak, last, held := 0.0, out[0][len(tm)-1], 0.0
	for k := range tm {
		peak = math.Max(peak, out[0][k])
		if out[0][k] > 0.3 {
			held = math.Max(held, -out[6][k])
		}
	}
	t.Logf("stop at 0.3 rad: the angle peaks at %.5f rad and ends at %.5f rad; the stop's effort reaches %.1f N·m (the motor's stall torque 40)", peak, last, held)
	if peak > 0.31 || math.Abs(last-0.3) > 2e-3 || held < 40 {
		t.Errorf("the stop does not hold the angle at 0.3 rad: peak %.4f, end %.4f, effort up to %.3g N·m", peak, last, held)
	}
}
