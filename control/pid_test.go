package control

import (
	"math"
	"strings"
	"testing"
)

// firstOrder is the plant τ·ẏ = −y + K·u discretised exactly under a
// zero-order hold on u.
type firstOrder struct{ a, k, y float64 }

func newFirstOrder(tau, k, dt, y0 float64) *firstOrder {
	return &firstOrder{a: math.Exp(-dt / tau), k: k, y: y0}
}

func (p *firstOrder) step(u float64) { p.y = p.a*p.y + (1-p.a)*p.k*u }

func mustPID(t *testing.T, cfg PIDConfig) *PID {
	t.Helper()
	p, err := NewPID(cfg)
	if err != nil {
		t.Fatalf("NewPID(%+v): %v", cfg, err)
	}
	return p
}

// P-only control of K/(τs+1) with unit K settles at y = Kp/(1+Kp)·r: the
// steady-state error is r/(1+Kp) (final-value theorem). For the exactly
// discretised plant the fixed point is the same for every dt.
func TestPIDProportionalSteadyStateError(t *testing.T) {
	for _, kp := range []float64{0.5, 2, 10} {
		p := mustPID(t, PIDConfig{Kp: kp})
		dt, r := 0.01, 1.5
		plant := newFirstOrder(1, 1, dt, 0)
		for k := 0; k < 3000; k++ {
			plant.step(p.Update(r, plant.y, dt))
		}
		want := kp / (1 + kp) * r
		if math.Abs(plant.y-want) > 1e-12 {
			t.Errorf("Kp = %g: y = %.15g, closed form Kp/(1+Kp)·r = %.15g", kp, plant.y, want)
		}
		if e := r - plant.y; math.Abs(e-r/(1+kp)) > 1e-12 {
			t.Errorf("Kp = %g: error %.15g, want r/(1+Kp) = %.15g", kp, e, r/(1+kp))
		}
	}
}

// PI with Ki/Kp = 1/τ cancels the plant pole: the loop is Kp/(τs), so the
// closed loop is first order, y = r·(1 − exp(−Kp·t/τ)). The discrete loop
// converges to that trajectory with order 1 in dt and integrates the
// steady-state error to zero.
func TestPIDPIZeroErrorAndClosedForm(t *testing.T) {
	const tau, kp, r, tEnd = 0.5, 2.0, 1.0, 10.0
	run := func(dt float64) (maxErr, final float64) {
		p := mustPID(t, PIDConfig{Kp: kp, Ki: kp / tau})
		plant := newFirstOrder(tau, 1, dt, 0)
		n := int(math.Round(tEnd / dt))
		for k := 0; k <= n; k++ {
			tk := float64(k) * dt
			if e := math.Abs(plant.y - r*(1-math.Exp(-kp*tk/tau))); e > maxErr {
				maxErr = e
			}
			plant.step(p.Update(r, plant.y, dt))
		}
		return maxErr, r - plant.y
	}
	e1, f1 := run(2e-3)
	e2, f2 := run(1e-3)
	if math.Abs(f1) > 1e-9 || math.Abs(f2) > 1e-9 {
		t.Errorf("steady-state error %g, %g: the integrator should remove it", f1, f2)
	}
	if e2 > 5e-3 {
		t.Errorf("max deviation from r(1−exp(−Kp t/τ)) at dt = 1e-3: %g", e2)
	}
	if ratio := e1 / e2; ratio < 1.8 || ratio > 2.2 {
		t.Errorf("deviation ratio for dt halved = %g (e %g, %g), want ≈ 2 (first order)", ratio, e1, e2)
	}
}

// The filtered derivative Kd·s/(1+s·Tf) answers a unit step with
// Kd/Tf·exp(−t/Tf). The discrete filter is exact for inputs that are linear
// between samples, so its samples equal the continuous response to the
// ramp-interpolated step, Kd·(1−exp(−dt/Tf))/dt·exp(−(t−dt)/Tf), and they
// converge to the ideal response with order 1 in dt.
func TestPIDDerivativeFilterStepResponse(t *testing.T) {
	const kd, tf = 0.5, 0.1
	run := func(dt float64, onSetpoint bool) (maxErr, maxRampErr float64) {
		cfg := PIDConfig{Kd: kd, Tf: tf}
		if onSetpoint {
			cfg.C = 1
		}
		p := mustPID(t, cfg)
		p.Update(0, 0, dt)
		sign := -1.0
		if onSetpoint {
			sign = 1
		}
		for k := 1; float64(k-1)*dt <= 5*tf; k++ {
			var u float64
			if onSetpoint {
				u = p.Update(1, 0, dt)
			} else {
				u = p.Update(0, 1, dt)
			}
			ts := float64(k-1) * dt // time since the end of the ramp
			ideal := sign * kd / tf * math.Exp(-ts/tf)
			ramp := sign * kd * (1 - math.Exp(-dt/tf)) / dt * math.Exp(-ts/tf)
			maxErr = math.Max(maxErr, math.Abs(u-ideal))
			maxRampErr = math.Max(maxRampErr, math.Abs(u-ramp))
		}
		return
	}
	for _, onSP := range []bool{false, true} {
		var prev float64
		for i, dt := range []float64{4e-3, 2e-3, 1e-3} {
			e, er := run(dt, onSP)
			if er > 1e-12 {
				t.Errorf("setpoint=%v dt=%g: deviation from the ramp-interpolated closed form %g", onSP, dt, er)
			}
			if e > kd/tf*dt/tf {
				t.Errorf("setpoint=%v dt=%g: max error %g exceeds Kd/Tf·dt/Tf = %g", onSP, dt, e, kd/tf*dt/tf)
			}
			if i > 0 {
				if ratio := prev / e; ratio < 1.9 || ratio > 2.1 {
					t.Errorf("setpoint=%v: error ratio %g for dt halved, want ≈ 2", onSP, ratio)
				}
			}
			prev = e
		}
	}
}

// Setpoint weights on a setpoint step r: 0 → 1 with y = 0, Kp = 2,
// Kd = 1, Tf = 0.01, dt = 1e-3. Defaults (B = 1, C = 0): only the
// proportional term jumps, u = Kp. C = 1 adds the derivative kick
// Kd·(1 − exp(−dt/Tf))/dt. ExplicitWeights with B = 0 (I-PD): no jump at all.
func TestPIDSetpointWeights(t *testing.T) {
	const dt = 1e-3
	kick := 1 * (1 - math.Exp(-dt/0.01)) / dt
	for _, c := range []struct {
		name string
		cfg  PIDConfig
		want float64
	}{
		{"default", PIDConfig{Kp: 2, Kd: 1, Tf: 0.01}, 2},
		{"C = 1", PIDConfig{Kp: 2, Kd: 1, Tf: 0.01, C: 1}, 2 + kick},
		{"B = 0.25", PIDConfig{Kp: 2, Kd: 1, Tf: 0.01, B: 0.25}, 0.5},
		{"I-PD", PIDConfig{Kp: 2, Kd: 1, Tf: 0.01, ExplicitWeights: true}, 0},
	} {
		p := mustPID(t, c.cfg)
		p.Update(0, 0, dt)
		if u := p.Update(1, 0, dt); math.Abs(u-c.want) > 1e-12 {
			t.Errorf("%s: u after setpoint step = %.15g, want %.15g", c.name, u, c.want)
		}
	}
}

// With a variable sample time the filter stays exact for a ramp y = 2t,
// whose filtered derivative from rest is −Kd·2·(1 − exp(−t/Tf)).
func TestPIDDerivativeVariableStep(t *testing.T) {
	const kd, tf = 0.3, 0.05
	p := mustPID(t, PIDConfig{Kd: kd, Tf: tf})
	p.Update(0, 0, 0)
	tk := 0.0
	for i, dt := range []float64{1e-3, 7e-3, 2e-4, 0.03, 0.011, 1e-5, 0.2, 3e-3} {
		tk += dt
		u := p.Update(0, 2*tk, dt)
		want := -kd * 2 * (1 - math.Exp(-tk/tf))
		if math.Abs(u-want) > 1e-13 {
			t.Errorf("step %d (t = %g): u = %.15g, closed form %.15g", i, tk, u, want)
		}
	}
}

// N sets Tf = Kd/(Kp·N); check the first sample after a measurement step
// against the closed form −Kp − Kd·(1 − exp(−dt/Tf))/dt with Tf = 0.02.
func TestPIDFilterFromN(t *testing.T) {
	const kp, kd, n, dt = 2.0, 0.4, 10.0, 1e-3
	p := mustPID(t, PIDConfig{Kp: kp, Kd: kd, N: n})
	p.Update(0, 0, dt)
	u := p.Update(0, 1, dt)
	want := -kp - kd*(1-math.Exp(-dt/0.02))/dt
	if math.Abs(u-want) > 1e-12 {
		t.Errorf("u = %.15g, want %.15g", u, want)
	}
	// Tf = 0 and N = 0: unfiltered backward difference.
	q := mustPID(t, PIDConfig{Kd: kd})
	q.Update(0, 0, dt)
	if u := q.Update(0, 1, dt); math.Abs(u-(-kd/dt)) > 1e-9 {
		t.Errorf("unfiltered derivative = %g, want −Kd/dt = %g", u, -kd/dt)
	}
}

// integratorPlant is ẏ = u under a zero-order hold.
func simulateWindup(t *testing.T, mode AntiWindupMode, dt float64) (overshoot, maxIntegral float64) {
	p := mustPID(t, PIDConfig{Kp: 1, Ki: 1, Umin: -1, Umax: 1, AntiWindup: mode})
	const R = 10.0
	y := 0.0
	maxIntegral = math.Inf(-1)
	for k := 0; k < int(60/dt); k++ {
		u := p.Update(R, y, dt)
		y += dt * u
		overshoot = math.Max(overshoot, y-R)
		maxIntegral = math.Max(maxIntegral, p.State().Integral)
	}
	return overshoot, maxIntegral
}

// Setpoint step R = 10 on ẏ = u with PI Kp = Ki = 1, |u| ≤ 1.
//
// No anti-windup: the rise is saturated and lasts at least R, so when y
// crosses R the integrator holds at least Ki·R²/2 = 50; y keeps rising at
// rate 1 while Kp·e + I ≥ 1, i.e. for s with s²/2 + s = I − 1, so the
// overshoot is at least √99 − 1 = 8.95.
//
// Back-calculation with Tt = Ti = 1 (the default): while saturated the
// integrator tracks I* = Umax + (Ki·Tt − Kp)·e = 1, so it never exceeds 1,
// and the loop leaves saturation at the crossing with ė = −1. The linear
// loop ë + ė + e = 0 then overshoots by exp(−π/(3√3)) = 0.5463.
//
// Conditional integration: I stays 0 while Kp·e > 1, the linear phase
// starts at e = 1, ė = −1 and overshoots by e^(−σt)·|cos ωt − (σ/ω) sin ωt|
// at ωt = 2π/3: exp(−2π/(3√3)) = 0.2984.
func TestPIDAntiWindupOvershoot(t *testing.T) {
	const dt = 1e-3
	osNone, iNone := simulateWindup(t, AntiWindupNone, dt)
	osBC, iBC := simulateWindup(t, AntiWindupBackCalculation, dt)
	osCI, iCI := simulateWindup(t, AntiWindupConditional, dt)
	t.Logf("overshoot: none %.4f, back-calculation %.4f, conditional %.4f; max integrator %.3f, %.4f, %.4f",
		osNone, osBC, osCI, iNone, iBC, iCI)
	if osNone < math.Sqrt(99)-1-0.05 {
		t.Errorf("no anti-windup: overshoot %g below the hand bound √99−1 = %g", osNone, math.Sqrt(99)-1)
	}
	if want := math.Exp(-math.Pi / (3 * math.Sqrt(3))); math.Abs(osBC-want) > 0.01 {
		t.Errorf("back-calculation: overshoot %g, hand-derived %g", osBC, want)
	}
	if iBC > 1+1e-12 {
		t.Errorf("back-calculation: integrator reached %g, bound Umax = 1", iBC)
	}
	if want := math.Exp(-2 * math.Pi / (3 * math.Sqrt(3))); math.Abs(osCI-want) > 0.01 {
		t.Errorf("conditional integration: overshoot %g, hand-derived %g", osCI, want)
	}
	if iNone < 49 {
		t.Errorf("no anti-windup: integrator peak %g, expected ≥ Ki·R²/2 ≈ 50", iNone)
	}
}

// With the plant disconnected (y = 0, e = 1 forever) and |u| ≤ 0.5, the
// back-calculated integrator settles at I* = Umax + (Ki·Tt − Kp)·e whatever
// Tt (the discrete tracking is exact over each step), conditional integration keeps it at 0, and without
// anti-windup it grows as Ki·e·t.
func TestPIDIntegratorBounded(t *testing.T) {
	const dt, tEnd, umax = 1e-3, 100.0, 0.5
	run := func(cfg PIDConfig) float64 {
		cfg.Kp, cfg.Ki, cfg.Umin, cfg.Umax = 1, 1, -umax, umax
		p := mustPID(t, cfg)
		for k := 0; k < int(tEnd/dt); k++ {
			p.Update(1, 0, dt)
		}
		return p.State().Integral
	}
	for _, tt := range []float64{0.2, 1, 3} {
		got := run(PIDConfig{Tt: tt})
		want := umax + (tt - 1)
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("Tt = %g: integrator %g, want Umax + (Ki·Tt − Kp)·e = %g", tt, got, want)
		}
	}
	if got := run(PIDConfig{AntiWindup: AntiWindupConditional}); got != 0 {
		t.Errorf("conditional: integrator %g, want 0", got)
	}
	if got := run(PIDConfig{AntiWindup: AntiWindupNone}); math.Abs(got-tEnd) > 2*dt {
		t.Errorf("none: integrator %g, want Ki·e·t = %g", got, tEnd)
	}
}

// Switching manual → auto does not bump the output: at rest (e = 0, D at
// rest) the first automatic output equals the manual one to rounding, even
// with a setpoint weight B = 0.5 that makes the proportional term non-zero;
// in a transient the jump is one ordinary step, O(dt).
func TestPIDBumplessManualToAuto(t *testing.T) {
	cfg := PIDConfig{Kp: 2, Ki: 1, Kd: 0.3, Tf: 0.05, B: 0.5, Umin: -5, Umax: 5}
	// At rest.
	{
		const dt, uman = 1e-3, 0.7
		p := mustPID(t, cfg)
		if err := p.SetManual(uman); err != nil {
			t.Fatal(err)
		}
		plant := newFirstOrder(0.4, 1, dt, uman)
		var last float64
		for k := 0; k < 1000; k++ {
			last = p.Update(uman, plant.y, dt)
			plant.step(last)
		}
		p.SetAuto()
		u := p.Update(uman, plant.y, dt)
		if math.Abs(u-last) > 1e-12 {
			t.Errorf("at rest: manual %.17g → auto %.17g, jump %g", last, u, u-last)
		}
		if naive := cfg.Kp * (cfg.B*uman - plant.y); math.Abs(naive-last) < 0.1 {
			t.Fatalf("test is vacuous: P term alone %g already equals the manual output", naive)
		}
	}
	// In a transient: the jump is O(dt).
	jump := func(dt float64) float64 {
		p := mustPID(t, cfg)
		if err := p.SetManual(0.2); err != nil {
			t.Fatal(err)
		}
		plant := newFirstOrder(0.4, 1, dt, 0)
		var last float64
		n := int(0.3 / dt)
		for k := 0; k < n; k++ {
			last = p.Update(1, plant.y, dt)
			plant.step(last)
		}
		p.SetAuto()
		return math.Abs(p.Update(1, plant.y, dt) - last)
	}
	j1, j2 := jump(2e-3), jump(1e-3)
	if j2 > 20*1e-3 || j1/j2 < 1.7 || j1/j2 > 2.3 {
		t.Errorf("transient manual→auto jumps %g (dt 2e-3), %g (dt 1e-3): want O(dt)", j1, j2)
	}
}

// Changing the gains (and setpoint weight) on the fly does not bump the
// output: at rest the next output is unchanged to rounding; in a transient
// it differs from the next output with the old gains by O(dt) (the new gains
// acting over one step), where an un-rebalanced change would jump by
// ΔKp·(B·r − y) + ΔKd·ḋ = O(1).
func TestPIDBumplessGainChange(t *testing.T) {
	cfg := PIDConfig{Kp: 2, Ki: 1, Kd: 0.3, Tf: 0.05, B: 0.5}
	{
		const dt = 1e-3
		p := mustPID(t, cfg)
		plant := newFirstOrder(0.4, 1, dt, 1) // at rest with u = 1
		if err := p.SetManual(1); err != nil {
			t.Fatal(err)
		}
		var last float64
		for k := 0; k < 200; k++ {
			if k == 100 {
				p.SetAuto()
			}
			last = p.Update(1, plant.y, dt)
			plant.step(last)
		}
		if math.Abs(last-1) > 1e-12 {
			t.Fatalf("not at rest: u = %.17g", last)
		}
		if err := p.SetGains(5, 3, 0.1); err != nil {
			t.Fatal(err)
		}
		u := p.Update(1, plant.y, dt)
		if math.Abs(u-last) > 1e-12 {
			t.Errorf("at rest: output %.17g → %.17g after SetGains, jump %g", last, u, u-last)
		}
		c := p.Config()
		c.B = 0.9
		if err := p.SetConfig(c); err != nil {
			t.Fatal(err)
		}
		u2 := p.Update(1, plant.y, dt)
		if math.Abs(u2-u) > 1e-12 {
			t.Errorf("at rest: output %.17g → %.17g after changing B, jump %g", u, u2, u2-u)
		}
	}
	bump := func(dt float64) (withChange, naive float64) {
		p := mustPID(t, cfg)
		plant := newFirstOrder(0.4, 1, dt, 0)
		for k := 0; k < int(0.05/dt); k++ {
			plant.step(p.Update(1, plant.y, dt))
		}
		s := p.State()
		q := mustPID(t, cfg) // twin that keeps the old gains
		if err := q.SetState(s); err != nil {
			t.Fatal(err)
		}
		const kp, ki, kd = 4.0, 2.0, 0.6
		if err := p.SetGains(kp, ki, kd); err != nil {
			t.Fatal(err)
		}
		uNew := p.Update(1, plant.y, dt)
		uOld := q.Update(1, plant.y, dt)
		naive = (kp-cfg.Kp)*(cfg.B*1-s.Y) + (kd-cfg.Kd)*s.Deriv
		return math.Abs(uNew - uOld), math.Abs(naive)
	}
	b1, _ := bump(2e-3)
	b2, naive := bump(1e-3)
	t.Logf("gain-change bump %g (dt 2e-3), %g (dt 1e-3); un-rebalanced %g", b1, b2, naive)
	if b2 > 1e-2*naive || b1/b2 < 1.8 || b1/b2 > 2.2 {
		t.Errorf("transient gain change: bump %g (dt 2e-3), %g (dt 1e-3), want O(dt) and ≪ the un-rebalanced %g", b1, b2, naive)
	}
}

// Restoring a snapshot reproduces the run bit for bit (determinism), and
// dt = 0 or a bad sample leaves the state untouched.
func TestPIDStateSnapshotAndBadSamples(t *testing.T) {
	p := mustPID(t, PIDConfig{Kp: 1.3, Ki: 0.7, Kd: 0.2, Tf: 0.02, Umin: -1, Umax: 1})
	const dt = 1e-3
	plant := newFirstOrder(0.3, 2, dt, 0)
	for k := 0; k < 500; k++ {
		plant.step(p.Update(1, plant.y, dt))
	}
	snap, y0 := p.State(), plant.y
	var first []float64
	for k := 0; k < 500; k++ {
		u := p.Update(1, plant.y, dt)
		first = append(first, u)
		plant.step(u)
	}
	if err := p.SetState(snap); err != nil {
		t.Fatal(err)
	}
	plant.y = y0
	for k := 0; k < 500; k++ {
		u := p.Update(1, plant.y, dt)
		if u != first[k] {
			t.Fatalf("step %d after restore: %v, first run %v", k, u, first[k])
		}
		plant.step(u)
	}
	before := p.State()
	if u := p.Update(math.NaN(), 0, dt); !math.IsNaN(u) {
		t.Errorf("NaN setpoint gave %v, want NaN", u)
	}
	if u := p.Update(1, 0, -dt); !math.IsNaN(u) {
		t.Errorf("negative dt gave %v, want NaN", u)
	}
	p.Update(1, 0.3, 0)
	if p.State() != before {
		t.Errorf("bad samples or dt = 0 changed the state")
	}
	if err := p.SetState(PIDState{Integral: math.Inf(1)}); err == nil {
		t.Errorf("SetState accepted an infinite integral")
	}
	p.Reset()
	if p.State() != (PIDState{}) {
		t.Errorf("Reset left state %+v", p.State())
	}
}

func TestPIDConfigErrors(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		cfg  PIDConfig
		want string
	}{
		{PIDConfig{Kp: math.NaN()}, "Kp = NaN"},
		{PIDConfig{Kp: 1, Ki: -1}, "mixed signs"},
		{PIDConfig{Kp: 1, Tf: -1}, "Tf = -1"},
		{PIDConfig{Kp: 1, Kd: 1, Tf: 0.1, N: 10}, "not both"},
		{PIDConfig{Ki: 1, Kd: 1, N: 10}, "needs Kp"},
		{PIDConfig{Kp: 1, Umin: 2, Umax: 1}, "Umin < Umax"},
		{PIDConfig{Kp: 1, Umin: math.NaN(), Umax: 1}, "NaN"},
		{PIDConfig{Kp: 1, Tt: -1}, "Tt = -1"},
		{PIDConfig{Kp: 1, Tt: inf}, "must be finite"},
		{PIDConfig{Kp: 1, AntiWindup: 7}, "mode 7 unknown"},
	}
	for _, c := range cases {
		_, err := NewPID(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPID(%+v) error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
	// Reverse-acting (all gains ≤ 0) and one-sided limits are valid.
	if _, err := NewPID(PIDConfig{Kp: -1, Ki: -2, Umin: math.Inf(-1), Umax: 3}); err != nil {
		t.Errorf("reverse-acting PID rejected: %v", err)
	}
	p := mustPID(t, PIDConfig{Kp: 1})
	if err := p.SetGains(1, -1, 0); err == nil {
		t.Errorf("SetGains accepted mixed signs")
	}
	if p.Config().Ki != 0 {
		t.Errorf("failed SetGains changed the configuration")
	}
	if err := p.SetManual(math.Inf(1)); err == nil {
		t.Errorf("SetManual accepted +Inf")
	}
}

// The manual output is limited like the automatic one.
func TestPIDManualLimited(t *testing.T) {
	p := mustPID(t, PIDConfig{Kp: 1, Umin: -1, Umax: 1})
	if err := p.SetManual(3); err != nil {
		t.Fatal(err)
	}
	if u := p.Update(0, 0, 0.1); u != 1 || !p.Manual() {
		t.Errorf("manual 3 with Umax 1 gave %g (manual %v)", u, p.Manual())
	}
}

func TestPIDZeroAlloc(t *testing.T) {
	p := mustPID(t, PIDConfig{Kp: 1.3, Ki: 0.7, Kd: 0.2, Tf: 0.02, Umin: -1, Umax: 1})
	y, k := 0.0, 0
	allocs := testing.AllocsPerRun(1000, func() {
		k++
		dt := 1e-3 * (1 + 0.1*float64(k%3)) // defeat the coefficient cache
		y += 0.01 * p.Update(1, y, dt)
	})
	if allocs != 0 {
		t.Errorf("PID.Update allocates %v per call", allocs)
	}
	allocs = testing.AllocsPerRun(100, func() {
		if err := p.SetGains(1.3, 0.7+1e-3*float64(k%2), 0.2); err != nil {
			t.Fatal(err)
		}
		k++
	})
	if allocs != 0 {
		t.Errorf("PID.SetGains allocates %v per call", allocs)
	}
}

func BenchmarkPIDUpdate(b *testing.B) {
	p, _ := NewPID(PIDConfig{Kp: 1.3, Ki: 0.7, Kd: 0.2, Tf: 0.02, Umin: -1, Umax: 1})
	y := 0.0
	for i := 0; i < b.N; i++ {
		y += 1e-3 * p.Update(1, y, 1e-3)
	}
}
