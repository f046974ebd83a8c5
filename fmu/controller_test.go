package fmu

import (
	"math"
	"strings"
	"testing"

	"mbfmu/control"
	"mbfmu/controller"
)

// A controller FMU (a PID of a co-simulation as resources/model.xml) run as
// a master runs it: the output follows the inputs set at each communication
// point (direct feedthrough; a second setting at the same point is
// evaluated again from the same state), against package control's PID
// updated directly with the same steps; FMU state save, restore and
// serialisation replay bit for bit; both descriptions pass their XSD and
// declare the feedthrough.
func TestControllerFMU(t *testing.T) {
	s := &controller.Spec{Name: "pid", Kind: controller.KindPID, Step: 0.01, Start: 0, End: 2,
		Inputs:  []controller.Port{{Name: "r", Unit: "rad"}, {Name: "y", Unit: "rad"}},
		Outputs: []controller.Port{{Name: "u", Unit: "N*m"}},
		Min:     -0.8, Max: 0.8, Kp: 3, Ki: 2, Kd: 0.05, Tf: 0.02, B: 1}
	data, err := s.XML()
	if err != nil {
		t.Fatal(err)
	}
	l, err := load(data, "pid.xml")
	if err != nil {
		t.Fatal(err)
	}
	d := l.desc
	validateXSD(t, d.XML())
	check3(t, d)
	if x := string(d.XML()); !strings.Contains(x, `<Unknown index="3" dependencies="1 2"/>`) || !strings.Contains(x, `providesDirectionalDerivative="false"`) {
		t.Errorf("the output's dependencies on the inputs or the flags:\n%s", x)
	}
	pid, err := control.NewPID(control.PIDConfig{Kp: 3, Ki: 2, Kd: 0.05, Tf: 0.02, B: 1, Umin: -0.8, Umax: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	in := newInstance("pid", d, l.compiler(), l.model, nil, false)
	if in.SetupExperiment(false, 0, 0, false, 0) != OK || in.EnterInitializationMode() != OK || in.ExitInitializationMode() != OK {
		t.Fatal("initialisation")
	}
	y := func(t float64) float64 { return 0.3 * math.Sin(5*t) }
	const h = 0.01
	u := []float64{0}
	var saved *Snapshot
	var blob []byte
	var after []float64
	for k := 0; k < 150; k++ {
		tk := float64(k) * h
		// a first guess, then the value: the output is that of the value
		in.SetReal([]uint32{0, 1}, []float64{1, 99})
		in.GetReal([]uint32{2}, u)
		in.SetReal([]uint32{0, 1}, []float64{1, y(tk)})
		if st := in.GetReal([]uint32{2}, u); st != OK {
			t.Fatalf("k = %d: %v", k, st)
		}
		if want := pid.Update(1, y(tk), h); u[0] != want {
			t.Fatalf("t = %g: u = %v, the PID gives %v", tk, u[0], want)
		}
		if k >= 100 {
			after = append(after, u[0])
		}
		if st := in.DoStep(tk, h, false); st != OK {
			t.Fatalf("step %d: %v", k, st)
		}
		if k == 99 { // at t = 1 s, before its inputs are set
			var st Status
			if saved, st = in.GetFMUState(nil); st != OK {
				t.Fatal("GetFMUState")
			}
			if blob, st = in.SerializeFMUState(saved); st != OK {
				t.Fatal("SerializeFMUState")
			}
		}
	}
	for _, how := range []string{"restored", "deserialised"} {
		snap := saved
		if how == "deserialised" {
			var st Status
			if snap, st = in.DeserializeFMUState(blob); st != OK {
				t.Fatal("DeserializeFMUState")
			}
		}
		if in.SetFMUState(snap) != OK {
			t.Fatal("SetFMUState")
		}
		for k := 100; k < 150; k++ {
			tk := float64(k) * h
			in.SetReal([]uint32{0, 1}, []float64{1, y(tk)})
			in.GetReal([]uint32{2}, u)
			if u[0] != after[k-100] {
				t.Fatalf("%s state, t = %g: u = %v, first run %v", how, tk, u[0], after[k-100])
			}
			in.DoStep(tk, h, false)
		}
	}
	if st := in.SetReal([]uint32{0}, []float64{math.NaN()}); st != Error {
		t.Errorf("a NaN input: %v", st)
	}
	if st := in.GetDirectionalDerivative([]uint32{2}, []uint32{0}, []float64{1}, []float64{0}); st == OK {
		t.Error("directional derivative of a controller FMU")
	}
	if st := in.GetRealOutputDerivatives([]uint32{2}, []int32{1}, []float64{0}); st == OK {
		t.Error("output derivative of a controller FMU")
	}
	// input derivatives are refused at the call, and the steps go on (they
	// once were taken, and every following fmi2DoStep failed)
	if st := in.SetRealInputDerivatives([]uint32{1}, []int32{1}, []float64{1}); st != Error {
		t.Errorf("an input derivative on a controller FMU: %v", st)
	}
	if st := in.DoStep(in.Time(), h, false); st != OK {
		t.Errorf("the step after a refused input derivative: %v", st)
	}
}

// A controller FMU started at another time than its file's start time
// starts there: its first evaluation is at the master's start time with
// dt = its step, as at the file's start (it once was evaluated and
// committed at the file's start time first, and an earlier start time was
// refused).
func TestControllerFMUStartTime(t *testing.T) {
	s := &controller.Spec{Name: "pid", Kind: controller.KindPID, Step: 0.01, Start: 0, End: 2,
		Inputs:  []controller.Port{{Name: "r"}, {Name: "y"}},
		Outputs: []controller.Port{{Name: "u"}},
		Min:     math.Inf(-1), Max: math.Inf(1), Kp: 3, Ki: 2, B: 1}
	data, err := s.XML()
	if err != nil {
		t.Fatal(err)
	}
	l, err := load(data, "pid.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, t0 := range []float64{0, 0.5, -1} {
		pid, err := control.NewPID(control.PIDConfig{Kp: 3, Ki: 2, B: 1})
		if err != nil {
			t.Fatal(err)
		}
		in := newInstance("pid", l.desc, l.compiler(), l.model, nil, false)
		if in.SetupExperiment(false, 0, t0, false, 0) != OK || in.EnterInitializationMode() != OK {
			t.Fatal("setup")
		}
		in.SetReal([]uint32{0, 1}, []float64{1, 0.25})
		if st := in.ExitInitializationMode(); st != OK {
			t.Fatalf("start time %g: %v", t0, st)
		}
		u := []float64{0}
		for k := 0; k < 5; k++ {
			y := 0.25 + 0.1*float64(k)
			in.SetReal([]uint32{1}, []float64{y})
			in.GetReal([]uint32{2}, u)
			if want := pid.Update(1, y, 0.01); u[0] != want {
				t.Fatalf("start time %g, step %d: u = %v, the PID gives %v", t0, k, u[0], want)
			}
			if st := in.DoStep(t0+float64(k)*0.01, 0.01, false); st != OK {
				t.Fatalf("start time %g, step %d: %v", t0, k, st)
			}
		}
	}
}
