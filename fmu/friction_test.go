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
	vr := func(name string) uint32 {
		for _, v := range in.desc.Variables {
			if v.Name == name {
				return v.VR
			}
		}
		t.Fatalf("no variable %q", name)
		return 0
	}
	uT := vr("T")
	outs := []uint32{vr("omega"), vr("effort"), vr("mode")}
	read := func() [3]float64 {
		var y [3]float64
		if st := in.GetReal(outs, y[:]); st != OK {
			t.Fatalf("GetReal: %s", st)
		}
		return y
	}
	run := func(k0, k1 int) {
		for k := k0; k < k1; k++ {
			if st := in.DoStep(float64(k)*1e-3, 1e-3, true); st != OK {
				t.Fatalf("doStep %d: %s", k, st)
			}
		}
	}
	run(0, 100)
	if y := read(); math.Abs(y[0]) > 1e-15 || math.Abs(y[1]+0.2) > 1e-12 || y[2] != 0 {
		t.Errorf("under 0.2 N·m: ω %g, friction %.12g N·m, mode %g: want 0, −0.2, 0 (stick)", y[0], y[1], y[2])
	}
	snap, st := in.GetFMUState(nil)
	if st != OK {
		t.Fatal(st)
	}
	in.SetReal([]uint32{uT}, []float64{0.5})
	run(100, 200)
	want := read()
	if w := (0.5 - 0.2) / 0.01 * 0.1; math.Abs(want[0]-w) > 1e-9*w || want[1] != -0.2 || want[2] != 1 {
		t.Errorf("under 0.5 N·m for 0.1 s: ω %.12g, friction %g, mode %g: want %g, −0.2, 1", want[0], want[1], want[2], w)
	}
	if st := in.SetFMUState(snap); st != OK {
		t.Fatal(st)
	}
	in.SetReal([]uint32{uT}, []float64{0.5})
	run(100, 200)
	if got := read(); got != want {
		t.Errorf("replay from the saved state: %v, want %v bit for bit", got, want)
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
	var vrs []uint32
	var uF uint32
	for _, v := range in.desc.Variables {
		switch v.Name {
		case "vx", "slip":
			vrs = append(vrs, v.VR)
		case "F":
			uF = v.VR
		}
	}
	read := func() [2]float64 {
		var y [2]float64
		if st := in.GetReal(vrs, y[:]); st != OK {
			t.Fatalf("GetReal: %s", st)
		}
		return y
	}
	run := func(k0, k1 int) {
		for k := k0; k < k1; k++ {
			if st := in.DoStep(float64(k)*1e-3, 1e-3, true); st != OK {
				t.Fatalf("doStep %d: %s", k, st)
			}
		}
	}
	run(0, 200)
	if y := read(); math.Abs(y[0]-5.0/7*0.2) > 1e-6 || y[1] > 1e-10 {
		t.Errorf("under 1 N for 0.2 s: v %.9g m/s, slip %.3g m/s: want %.9g, rolling", y[0], y[1], 5.0/7*0.2)
	}
	snap, st := in.GetFMUState(nil)
	if st != OK {
		t.Fatal(st)
	}
	in.SetReal([]uint32{uF}, []float64{5})
	run(200, 400)
	want := read()
	if want[1] < 0.1 {
		t.Errorf("under 5 N the ball must slip (slip %.3g m/s)", want[1])
	}
	if st := in.SetFMUState(snap); st != OK {
		t.Fatal(st)
	}
	in.SetReal([]uint32{uF}, []float64{5})
	run(200, 400)
	if got := read(); got != want {
		t.Errorf("replay from the saved state: %v, want %v bit for bit", got, want)
	}
}
