package cosim

import (
	"math"
	"math/cmplx"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
)

// runFlagship runs examples/cartpole/cosim.xml with the plant packed by
// fmu.Pack (as `mbfmu pack` does) and run in-process.
func runFlagship(t *testing.T) (*Master, *Summary, *memWriter) {
	t.Helper()
	dir := t.TempDir()
	fmuPath := packFMU(t, "../examples/cartpole/model.xml", dir)
	cfg := loadWithPaths(t, "../examples/cartpole/cosim.xml", map[string]string{"plant": fmuPath})
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if f := m.comps[0].(*fmuComp); !f.inProc {
		t.Fatal("the packed cart-pole FMU is not recognised as an mbfmu FMU")
	}
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	return m, sum, w
}

// The flagship: the LQR designed from the engine's linearisation balances
// the pole from an 8° tilt and brings the cart back from 0.2 m.
func TestCartPoleSettles(t *testing.T) {
	_, sum, w := runFlagship(t)
	ts := w.col(t, "time")
	th := w.col(t, "plant.theta")
	x := w.col(t, "plant.x")
	F := w.col(t, "lqr.F")
	if th[0] < 7.99*math.Pi/180 || math.Abs(x[0]-0.2) > 1e-12 {
		t.Fatalf("initial state theta = %g rad, x = %g m: want 8°, 0.2 m", th[0], x[0])
	}
	if got := maxAbsAfter(ts, th, 4); got > 0.5*math.Pi/180 {
		t.Errorf("pole angle after 4 s: %.3g°, want < 0.5°", got*180/math.Pi)
	}
	if got := maxAbsAfter(ts, x, 8); got > 0.01 {
		t.Errorf("cart position after 8 s: %.3g m, want < 1 cm", got)
	}
	if got := maxAbsAfter(ts, th, 9.9); got > 1e-5 {
		t.Errorf("pole angle at the end: %.3g rad, want ~0", got)
	}
	if got := maxAbsAfter(ts, F, 0); got > 40 {
		t.Errorf("force reached %g N: the limit of 40 N was hit", got)
	}
	if !sum.Passed() {
		t.Errorf("checks of the example failed:\n%s", sum)
	}
}

// The closed loop's slowest motion decays as the dominant closed-loop
// eigenvalue of the linearised plant with the LQR gain says: the modal
// coordinate η = wᴴ·x of the dominant pole (w its left eigenvector, x the
// state recovered from the measurements) is measured on the simulated
// results between 3 s and 6 s, when the faster pair has died out (by
// e^(−6.4·3) ≈ 5e−9) and the motion is small enough to be linear.
func TestCartPoleDominantPole(t *testing.T) {
	m, _, w := runFlagship(t)
	lq := m.comps[1].(*blockComp).design
	if lq == nil {
		t.Fatal("no LQR design")
	}
	lin, y0, _, err := m.comps[0].(*fmuComp).linearize(map[string]float64{"tilt0": 0, "x0": 0})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range y0 {
		if math.Abs(v) > 1e-12 {
			t.Fatalf("operating point outputs %v, want the upright at rest (zeros)", y0)
		}
	}
	// Closed loop of the linear model: A − B·Kx (one input, F).
	n, _ := lin.A.Dims()
	var bk, acl mat.Dense
	bk.Mul(lin.B, lq.Kx)
	acl.Sub(lin.A, &bk)
	var eig mat.Eigen
	if !eig.Factorize(&acl, mat.EigenLeft) {
		t.Fatal("eigen decomposition failed")
	}
	vals := eig.Values(nil)
	var left mat.CDense
	eig.LeftVectorsTo(&left)
	dom := 0
	for i, v := range vals {
		if real(v) > real(vals[dom]) || (real(v) == real(vals[dom]) && imag(v) > 0) {
			dom = i
		}
	}
	lam := vals[dom]
	if real(lam) >= 0 {
		t.Fatalf("dominant closed-loop pole %v is not stable", lam)
	}
	for _, v := range vals {
		if real(v) >= 0 {
			t.Errorf("closed-loop pole %v is not stable", v)
		}
	}
	// The design's own poles agree with this closed loop.
	for _, p := range lq.Poles {
		best := math.Inf(1)
		for _, v := range vals {
			best = math.Min(best, cmplx.Abs(p-v))
		}
		if best > 1e-8*cmplx.Abs(p) {
			t.Errorf("design pole %v is not an eigenvalue of A − B·Kx", p)
		}
	}
	// x = T⁻¹·y, outputs ordered as the LQR reads them.
	var Ti mat.Dense
	if err := Ti.Inverse(lq.T); err != nil {
		t.Fatal(err)
	}
	cols := make([][]float64, len(lq.Outputs))
	for i, o := range lq.Outputs {
		cols[i] = w.col(t, "plant."+o)
	}
	ts := w.col(t, "time")
	eta := func(at float64) complex128 {
		r := int(math.Round(at / 0.01))
		if math.Abs(ts[r]-at) > 1e-9 {
			t.Fatalf("row %d is at t = %g, want %g", r, ts[r], at)
		}
		y := mat.NewVecDense(n, nil)
		for i := range cols {
			y.SetVec(i, cols[i][r])
		}
		var x mat.VecDense
		x.MulVec(&Ti, y)
		var s complex128
		for i := 0; i < n; i++ {
			s += cmplx.Conj(left.At(i, dom)) * complex(x.AtVec(i), 0)
		}
		return s
	}
	const t1, t2 = 3.0, 6.0
	e1, e2 := eta(t1), eta(t2)
	rate := math.Log(cmplx.Abs(e2)/cmplx.Abs(e1)) / (t2 - t1)
	turn := math.Remainder(cmplx.Phase(e2)-cmplx.Phase(e1)-imag(lam)*(t2-t1), 2*math.Pi)
	t.Logf("dominant pole %.5g; simulated decay rate %.5g 1/s, phase error %.3g rad over %g s", lam, rate, turn, t2-t1)
	if math.Abs(rate-real(lam)) > 0.01*math.Abs(real(lam)) {
		t.Errorf("simulated decay rate %.5g 1/s, dominant closed-loop pole has real part %.5g", rate, real(lam))
	}
	if math.Abs(turn) > 0.02 {
		t.Errorf("simulated modal phase advanced %.4g rad more than Im λ·Δt = %.4g rad", turn, imag(lam)*(t2-t1))
	}
}

// The slider-crank example: the PID holds the commanded speed through a
// step of the command and a load step.
func TestSliderCrankPIDTracks(t *testing.T) {
	m := newMaster(t, "../examples/slider-crank-pid/cosim.xml", Options{})
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Passed() {
		t.Errorf("checks of the example failed:\n%s", sum)
	}
	ts, om, ref, u := w.col(t, "time"), w.col(t, "plant.omega"), w.col(t, "w_ref.y"), w.col(t, "pid.u")
	// Mean speed over the last second (about 6 ripple periods) within 0.25%
	// of the command: the integral action removes the load's steady error.
	var sum1 float64
	var n int
	for i, tt := range ts {
		if tt >= 5 {
			sum1 += om[i]
			n++
		}
		if ref[i] != 10+10*b2f(tt >= 2) {
			t.Fatalf("signal w_ref at %g s is %g", tt, ref[i])
		}
	}
	if e := math.Abs(sum1/float64(n) - 20); e > 0.05 {
		t.Errorf("mean speed error under load %.4g rad/s, want < 0.05", e)
	}
	// The spin-up saturates the torque, and back-calculation keeps the
	// overshoot small.
	if u[0] != 10 {
		t.Errorf("initial torque %g N·m, want the limit 10", u[0])
	}
	peak := 0.0
	for i, tt := range ts {
		if tt < 1 {
			peak = math.Max(peak, om[i])
		}
	}
	if peak > 11 {
		t.Errorf("spin-up overshoot to %.4g rad/s, want < 10%%", peak)
	}
	if maxAbsAfter(ts, u, 0) > 10 {
		t.Error("torque beyond its limit")
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// A discrete design (discrete="true") on the same plant is also stable and
// settles.
func TestCartPoleDiscreteLQR(t *testing.T) {
	cfg := loadWithPaths(t, "../examples/cartpole/cosim.xml", map[string]string{"plant": ""})
	for _, e := range cfg.Components {
		if e.Name == "plant" {
			e.Kind = "model"
			e.Attr["path"] = "../examples/cartpole/model.xml"
		}
		if e.Name == "lqr" {
			e.Attr["discrete"] = "true"
		}
	}
	cfg.File = "test.xml"
	m, err := New(cfg, Options{End: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	d := m.comps[1].(*blockComp).design
	if d.Dt != 1e-3 {
		t.Fatalf("discrete design sample time %g", d.Dt)
	}
	for _, p := range d.Poles {
		if cmplx.Abs(p) >= 1 {
			t.Errorf("discrete closed-loop pole %v outside the unit circle", p)
		}
	}
	w := &memWriter{}
	if _, err := m.Run(RunOptions{Writer: w}); err != nil {
		t.Fatal(err)
	}
	if got := maxAbsAfter(w.col(t, "time"), w.col(t, "plant.theta"), 4); got > 0.5*math.Pi/180 {
		t.Errorf("pole angle after 4 s: %.3g°", got*180/math.Pi)
	}
	_ = control.Poles
}
