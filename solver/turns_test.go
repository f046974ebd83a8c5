package solver_test

import (
	"math"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// exParse compiles a model file held in a string.
func exParse(t testing.TB, src string) *solver.Model {
	t.Helper()
	ms, err := xml.Parse([]byte(src), "test.xml")
	if err != nil {
		t.Fatal(err)
	}
	return exCompile(t, ms)
}

// A spatial revolute's angle counts whole turns: a wheel (J = 1 kg·m²) on
// a rotational spring (k = 1 N·m/rad) started at 4 rad/s swings as
// θ = 4 sin t, through ±π. Before, the angle wrapped at ±π, the spring's
// torque flipped sign there and the wheel spun for ever between 2.48 and
// 4 rad/s (with its energy constant, which is why no test saw it).
func TestSpatialAngleCountsTurns(t *testing.T) {
	m := exParse(t, `<model name="wheel" dimension="3">
  <settings end="20 s" step="1 ms" gravity="0 0 0"/>
  <ground><marker name="O"/></ground>
  <body name="wheel" mass="1 kg" inertia="1 1 1 kg*m^2" omega="0 0 4 rad/s"><marker name="c"/></body>
  <revolute name="axle" i="ground.O" j="wheel.c"/>
  <rspring name="spring" joint="axle" k="1 N*m/rad"/>
</model>`)
	s := exInit(t, m)
	ch := exNewChannels(t, m, "axle.angle", "spring.angle", "spring.torque")
	worst, top := 0.0, 0.0
	for k := 1; k <= 2000; k++ {
		tm := float64(k) * 0.01
		exAdvance(t, m, s, tm)
		ch.eval(s)
		th := ch.get("axle.angle")
		top = math.Max(top, th)
		worst = math.Max(worst, math.Abs(th-4*math.Sin(tm)))
		if d := math.Abs(ch.get("spring.angle") - th); d > 1e-12 {
			t.Fatalf("t = %g: spring angle %g, joint angle %g", tm, ch.get("spring.angle"), th)
		}
		if d := math.Abs(ch.get("spring.torque") + th); d > 1e-9 {
			t.Fatalf("t = %g: spring torque %g at angle %g, want −k θ", tm, ch.get("spring.torque"), th)
		}
	}
	t.Logf("θ = 4 sin t within %.2e rad over 20 s (largest angle %.6f rad)", worst, top)
	if worst > 2e-5 || top < 3.99 {
		t.Errorf("θ off 4 sin t by %.3g rad (want ≤ 2e-5), largest angle %g (want 4)", worst, top)
	}
}

// A driven revolute turning at 10 rad/s for 3 s: its angle output reads
// 10 t (about 4.8 turns), and a state saved after 1.234 s and restored
// into a new state replays the rest bit for bit (the turn reference is
// part of the state).
func TestDrivenAngleWholeTurnsReplay(t *testing.T) {
	src := `<model name="spindle" dimension="3">
  <settings end="3 s" step="1 ms"/>
  <ground><marker name="O"/></ground>
  <body name="rotor" mass="2 kg" inertia="0.1 0.1 0.2 kg*m^2" cm="0.01 0 0"><marker name="c"/></body>
  <revolute name="axle" i="ground.O" j="rotor.c"/>
  <driver name="spin" joint="axle" value="10*time"/>
</model>`
	m := exParse(t, src)
	s := exInit(t, m)
	ch := exNewChannels(t, m, "axle.angle")
	var saved []byte
	var tail []float64
	for k := 1; k <= 3000; k++ {
		tm := float64(k) * 1e-3
		exAdvance(t, m, s, tm)
		ch.eval(s)
		if d := math.Abs(ch.get("axle.angle") - 10*tm); d > 1e-8 {
			t.Fatalf("t = %g: angle %.12g, want %.12g", tm, ch.get("axle.angle"), 10*tm)
		}
		if k == 1234 {
			b, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			saved = b
		}
		if k > 1234 {
			tail = append(tail, ch.get("axle.angle"))
		}
	}
	r := m.NewState()
	if err := r.UnmarshalBinary(saved); err != nil {
		t.Fatal(err)
	}
	for k := 1235; k <= 3000; k++ {
		exAdvance(t, m, r, float64(k)*1e-3)
		ch.eval(r)
		if got := ch.get("axle.angle"); got != tail[k-1235] {
			t.Fatalf("restored state at t = %g: angle %.17g, the run had %.17g", float64(k)*1e-3, got, tail[k-1235])
		}
	}
}
