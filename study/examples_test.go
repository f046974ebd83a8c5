package study

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runExample loads, prepares and executes an example study file.
func runExample(t *testing.T, path string, jobs int) *Result {
	t.Helper()
	st, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(st)
	if err != nil {
		t.Fatal(err)
	}
	return execute(t, p, Options{Jobs: jobs, Store: filepath.Join(t.TempDir(), "store")})
}

// catapultDistance is the throw distance of the catapult of
// examples/catapult in closed form: the arm and projectile (one body, J
// about the pin) start at rest at release + phi; energy conservation
// between the spring (relaxed at release) and gravity gives the angular
// speed at release, the bucket's velocity is ω × r, and the flight is the
// ballistic parabola to y = 0.
func catapultDistance(k, phi, rel float64) float64 {
	const (
		g, L, ma, mp, hp = 9.81, 1.0, 1.0, 0.5, 1.0
	)
	M := ma + mp
	d := (ma*L/2 + mp*L) / M
	J := ma*L*L/3 + mp*L*L
	ke := 0.5*k*phi*phi - M*g*d*(math.Sin(rel)-math.Sin(rel+phi))
	w := math.Sqrt(2 * ke / J)
	vx, vy := w*L*math.Sin(rel), -w*L*math.Cos(rel)
	x, y := L*math.Cos(rel), hp+L*math.Sin(rel)
	return x + vx*(vy+math.Sqrt(vy*vy+2*g*y))/g
}

// TestCatapultOptimum runs examples/catapult/study.xml and checks every
// run's throw distance against the closed form, and the optimum against
// the closed-form optimum: both limits active (½kφ² = 200 J and
// kφ = 320 N·m give k = 256 N·m/rad, φ = 1.25 rad) and the release angle
// that maximises the closed-form distance there (a fine search).
func TestCatapultOptimum(t *testing.T) {
	res := runExample(t, "../examples/catapult/study.xml", 2)
	if res.Failed() > 0 {
		t.Fatalf("%d failed runs", res.Failed())
	}
	d := res.responseIndex("distance")
	worst := 0.0
	for _, r := range res.Runs {
		want := catapultDistance(r.X[0], r.X[1], r.X[2])
		worst = math.Max(worst, math.Abs(r.R[d]-want)/want)
	}
	if worst > 2e-4 {
		t.Errorf("simulated distances differ from the closed form by up to %.3g (relative)", worst)
	}
	t.Logf("%d runs, distances within %.2g of the closed form", len(res.Runs), worst)
	// closed-form optimum: golden-section search of the release angle
	bestRel := golden(func(r float64) float64 { return -catapultDistance(256, 1.25, r) }, 95*math.Pi/180, 150*math.Pi/180)
	bestD := catapultDistance(256, 1.25, bestRel)
	b := res.Optimum.Best
	t.Logf("optimum run %d: k %.6g, phi %.6g, release %.6g° → %.6g m; closed form: 256, 1.25, %.6g° → %.6g m",
		b.Index, b.X[0], b.X[1], b.X[2]*180/math.Pi, b.R[d], bestRel*180/math.Pi, bestD)
	near(t, "k*", b.X[0], 256, 256*3e-3)
	near(t, "phi*", b.X[1], 1.25, 1.25*3e-3)
	near(t, "release* [deg]", b.X[2]*180/math.Pi, bestRel*180/math.Pi, 0.2)
	near(t, "distance*", b.R[d], bestD, bestD*2e-4)
	if !res.Feasible(b) {
		t.Errorf("the optimum violates a limit: energy %g J, stress %g Pa", b.R[res.responseIndex("energy")], b.R[res.responseIndex("stress")])
	}
	// the fine sweep of the release angle at the limits (sweep.xml)
	sw := runExample(t, "../examples/catapult/sweep.xml", 2)
	near(t, "sweep's best distance", sw.Best.R[4], bestD, bestD*1e-4)
	near(t, "sweep's best release [deg]", sw.Best.X[0]*180/math.Pi, bestRel*180/math.Pi, 0.1)
}

// golden minimises f on [a, b] (unimodal) by golden-section search.
func golden(f func(float64) float64, a, b float64) float64 {
	r := (math.Sqrt(5) - 1) / 2
	c, d := b-r*(b-a), a+r*(b-a)
	for b-a > 1e-10 {
		if f(c) < f(d) {
			b, d = d, c
			c = b - r*(b-a)
		} else {
			a, c = c, d
			d = a + r*(b-a)
		}
	}
	return (a + b) / 2
}

// TestPIDTuning runs examples/slider-crank-pid/study.xml: the optimum must
// respect the torque limit and be on it (the ITAE falls with the gains),
// satisfy the KKT condition (the gradients of the ITAE and of the peak
// torque, by finite differences, are opposite), and no point of a finer
// grid about it may be feasible and better.
func TestPIDTuning(t *testing.T) {
	res := runExample(t, "../examples/slider-crank-pid/study.xml", 2)
	b := res.Best
	if b == nil || res.Optimum.Best != b {
		t.Fatal("no optimum, or the best run is not the optimum")
	}
	itae, torque := res.responseIndex("itae"), res.responseIndex("torque")
	t.Logf("optimum run %d: kp %.5g, ki %.5g → itae %.6g, torque %.6g, overshoot %.4g", b.Index, b.X[0], b.X[1], b.R[itae], b.R[torque], b.R[res.responseIndex("overshoot")])
	if b.R[torque] > 10*(1+feasTol) || b.R[torque] < 9.9 {
		t.Errorf("peak torque at the optimum %g N·m, want just below 10", b.R[torque])
	}
	s := res.Sensitivities
	gf := []float64{s.D[0][itae], s.D[1][itae]}
	gc := []float64{s.D[0][torque], s.D[1][torque]}
	// parallelism does not depend on the scale of the axes: compare in
	// relative coordinates (d/d ln kp, d/d ln ki)
	for i := range gf {
		gf[i] *= b.X[i]
		gc[i] *= b.X[i]
	}
	cos := (gf[0]*gc[0] + gf[1]*gc[1]) / math.Hypot(gf[0], gf[1]) / math.Hypot(gc[0], gc[1])
	if cos > -0.99 {
		t.Errorf("KKT: cos(∇itae, ∇torque) = %.4f, want −1", cos)
	}
	// a 9 × 9 grid over ±5 % about the optimum
	var kp, ki []string
	for i := -4; i <= 4; i++ {
		kp = append(kp, strconv.FormatFloat(b.X[0]*(1+0.0125*float64(i)), 'g', -1, 64))
		ki = append(ki, strconv.FormatFloat(b.X[1]*(1+0.0125*float64(i)), 'g', -1, 64))
	}
	src, err := os.ReadFile("../examples/slider-crank-pid/study.xml")
	if err != nil {
		t.Fatal(err)
	}
	s2 := strings.NewReplacer(
		`min="0.5" max="20" levels="5" scale="log"`, `values="`+strings.Join(kp, " ")+`"`,
		`min="5" max="500" levels="5" scale="log"`, `values="`+strings.Join(ki, " ")+`"`,
		`<optimize max-runs="200" tol="1e-5"/>`, ``, `<sensitivity step="0.005"/>`, ``,
		`path="cosim.xml"`, `path="`+mustAbs("../examples/slider-crank-pid/cosim.xml")+`"`).Replace(string(src))
	grid := filepath.Join(t.TempDir(), "grid.xml")
	os.WriteFile(grid, []byte(s2), 0o644)
	g := runExample(t, grid, 2)
	if len(g.Runs) != 81 {
		t.Fatalf("grid: %d runs", len(g.Runs))
	}
	if g.Best == nil || g.Best.R[itae] < b.R[itae]*(1-1e-3) {
		t.Errorf("a grid point beats the optimum: %+v", g.Best)
	}
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}

// fourbarRocker is the rocker angle of the four-bar of
// examples/fourbar-tolerance at crank angle th, in closed form (the
// intersection of the circles about B and D, open branch).
func fourbarRocker(x []float64, th float64) float64 {
	ax, ay, dx, dy, a, b, c := x[0], x[1], x[2], x[3], x[4], x[5], x[6]
	bx, by := ax+a*math.Cos(th), ay+a*math.Sin(th)
	ux, uy := dx-bx, dy-by
	d := math.Hypot(ux, uy)
	l := (b*b - c*c + d*d) / (2 * d)
	h := math.Sqrt(b*b - l*l)
	ux, uy = ux/d, uy/d
	cx, cy := bx+l*ux-h*uy, by+l*uy+h*ux
	return math.Atan2(cy-dy, cx-dx)
}

// TestFourbarMonteCarlo runs examples/fourbar-tolerance/study.xml and
// checks each run's rocker angle and swing against the closed-form
// linkage with the run's sampled joint positions, and the spread of the
// angle against first-order propagation of the 0.05 mm scatter.
func TestFourbarMonteCarlo(t *testing.T) {
	res := runExample(t, "../examples/fourbar-tolerance/study.xml", 2)
	if len(res.Runs) != 400 || res.Failed() > 0 {
		t.Fatalf("%d runs, %d failed", len(res.Runs), res.Failed())
	}
	a90, swing := res.responseIndex("angle90"), res.responseIndex("swing")
	for _, r := range res.Runs {
		if d := math.Abs(r.R[a90] - fourbarRocker(r.X, math.Pi/2)); d > 1e-9 {
			t.Fatalf("run %d: rocker angle at 90° differs from the closed form by %g rad", r.Index, d)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 0; k <= 500; k++ { // the results rows: every 2 ms of a 1 s turn
			v := fourbarRocker(r.X, 2*math.Pi*float64(k)/500)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if d := math.Abs(r.R[swing] - (hi - lo)); d > 1e-9 {
			t.Fatalf("run %d: swing differs from the closed form by %g rad", r.Index, d)
		}
	}
	// first-order propagation: σ² = Σ (∂θ/∂xᵢ σᵢ)², derivatives of the
	// closed form by central differences
	x0 := []float64{0, 0, 0.4, 0, 0.1, 0.35, 0.3}
	const sd, h = 5e-5, 1e-7
	v := 0.0
	for i := range x0 {
		xp := append([]float64(nil), x0...)
		xm := append([]float64(nil), x0...)
		xp[i] += h
		xm[i] -= h
		dd := (fourbarRocker(xp, math.Pi/2) - fourbarRocker(xm, math.Pi/2)) / (2 * h)
		v += dd * dd * sd * sd
	}
	lin := math.Sqrt(v)
	got := res.Stats[a90].SD
	// the standard error of a sample sd of 400 is 3.5 %
	if math.Abs(got-lin) > 0.14*lin {
		t.Errorf("Monte Carlo sd of the angle at 90° %.4g rad, first-order propagation %.4g rad", got, lin)
	}
	t.Logf("sd of the rocker angle at 90°: Monte Carlo %.4g rad, first order %.4g rad", got, lin)
}

// TestCartPoleSweep runs examples/cartpole/study.xml with the plant as
// the model file (instead of the packed FMU the file names, built by
// build.sh) and checks the baseline weights (run 14: q = 10 1 100 1,
// r = 0.1, the flagship's) against the flagship's settling times measured
// on its own results (examples/cartpole/README.md: pole within 0.5° from
// 1.34 s, cart within 1 cm from 2.54 s), and the directions of the main
// effects (a heavier weight on x settles the cart sooner; a heavier r,
// a cheaper force, takes longer).
func TestCartPoleSweep(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../examples/cartpole/cosim.xml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.NewReplacer(`<fmu name="plant" path="../../dist/cartpole.fmu">`, `<model name="plant" path="`+mustAbs("../examples/cartpole/model.xml")+`">`,
		`</fmu>`, `</model>`).Replace(string(data))
	os.WriteFile(filepath.Join(dir, "cosim.xml"), []byte(cfg), 0o644)
	src, err := os.ReadFile("../examples/cartpole/study.xml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "study.xml"), src, 0o644)
	res := runExample(t, filepath.Join(dir, "study.xml"), 2)
	if len(res.Runs) != 27 {
		t.Fatalf("%d runs", len(res.Runs))
	}
	base := res.Runs[13]
	if base.X[0] != 10 || base.X[1] != 100 || base.X[2] != 0.1 {
		t.Fatalf("run 14 = %v", base.X)
	}
	near(t, "baseline pole settling time", base.R[0], 1.34, 0.015)
	near(t, "baseline cart settling time", base.R[1], 2.54, 0.015)
	for _, e := range res.Effects {
		switch res.Factors[e.Factor].Name {
		case "q_x":
			if !(e.Mean[2][1] < e.Mean[0][1]) {
				t.Errorf("mean cart settling time with q_x = 100 (%g) not below q_x = 1 (%g)", e.Mean[2][1], e.Mean[0][1])
			}
		case "r":
			if !(e.Mean[2][1] > e.Mean[0][1]) {
				t.Errorf("mean cart settling time with r = 1 (%g) not above r = 0.01 (%g)", e.Mean[2][1], e.Mean[0][1])
			}
		}
	}
}
