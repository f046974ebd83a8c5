package fmu

import (
	"math"
	"testing"
)

// Exact Coulomb bearing friction through the FMU: a flywheel under an
// input torque below the static level (0.3 N·m) does not move at all, the
// friction's effort balancing the torque; a torque above it breaks the
// wheel away to accelerate at (T − F_c)/J; a state saved while stuck and
// restored replays the break-away bit for bit (the stick/slip mode and
// the stick force are in the FMU state).
func TestCoulombFrictionThroughFMU(t *testing.T) {
	in, _ := instantiateText(t, `<model name="fw"><settings end="1 s" step="1 ms" gravity="0 0"/>
  <input name="T" start="0.2" description="torque on the wheel, N*m"/>
  <ground><marker name="A"/></ground>
  <body name="wheel" mass="1" inertia="0.01"/>
  <revolute name="shaft" i="ground.A" j="wheel"/>
  <torque name="drive" i="wheel" t="T"/>
  <friction name="bearing" joint="shaft" preload="0.2" mu-static="0.1" normal="1" radius="1"/>
  <output name="omega" channel="wheel.omega"/>
  <output name="effort" channel="bearing.effort"/>
  <output name="mode" channel="bearing.mode"/>
</model>
`)
	startInstance(t, in)
	vrs := varRefs(t, in, "T", "omega", "effort", "mode")
	uT, outs := vrs[0], vrs[1:]
	doSteps(t, in, 0, 100, 1e-3)
	if y := getReal(t, in, outs...); math.Abs(y[0]) > 1e-15 || math.Abs(y[1]+0.2) > 1e-12 || y[2] != 0 {
		t.Errorf("under 0.2 N·m: ω %g, friction %.12g N·m, mode %g: want 0, −0.2, 0 (stick)", y[0], y[1], y[2])
	}
	want := replaysFromSaved(t, in, uT, 0.5, 100, 200, 1e-3, outs)
	if w := (0.5 - 0.2) / 0.01 * 0.1; math.Abs(want[0]-w) > 1e-9*w || want[1] != -0.2 || want[2] != 1 {
		t.Errorf("under 0.5 N·m for 0.1 s: ω %.12g, friction %g, mode %g: want %g, −0.2, 1", want[0], want[1], want[2], w)
	}
}

// Exact Coulomb friction of a spatial contact through the FMU: a ball on
// a table pushed at its centre by an input force rolls (its contact
// sticking) at (5/7) F/m while (2/7) F ≤ μ m g, slips above; a state saved
// while rolling replays the slip bit for bit.
func TestSpatialCoulombContactThroughFMU(t *testing.T) {
	in, _ := instantiateText(t, `<model name="ball" dimension="3"><settings end="1 s" step="1 ms" gravity="0 0 -9.81"/>
  <input name="F" start="1" description="push, N"/>
  <ground><marker name="table"/></ground>
  <body name="ball" mass="1" inertia="0.004 0.004 0.004" at="0 0 0.09999019"/>
  <force name="push" i="ball" fx="F" fy="0" fz="0"/>
  <contact kind="sphere-plane" name="c" i="ball" radius="0.1" j="ground.table" k="1e6" c="2000"
           friction="coulomb" mu-static="0.1"/>
  <output name="vx" channel="ball.vx"/>
  <output name="slip" channel="c.slip"/>
</model>
`)
	startInstance(t, in)
	vrs := varRefs(t, in, "F", "vx", "slip")
	uF, outs := vrs[0], vrs[1:]
	doSteps(t, in, 0, 200, 1e-3)
	if y := getReal(t, in, outs...); math.Abs(y[0]-5.0/7*0.2) > 1e-6 || y[1] > 1e-10 {
		t.Errorf("under 1 N for 0.2 s: v %.9g m/s, slip %.3g m/s: want %.9g, rolling", y[0], y[1], 5.0/7*0.2)
	}
	if want := replaysFromSaved(t, in, uF, 5, 200, 400, 1e-3, outs); want[1] < 0.1 {
		t.Errorf("under 5 N the ball must slip (slip %.3g m/s)", want[1])
	}
}
