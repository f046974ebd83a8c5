package fmu

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// furuta3 makes an FMI 3.0 instance of the Furuta pendulum (internal step
// 1 ms), initialised, with callback iu (nil: none) and early return
// allowed as given.
func furuta3(t *testing.T, iu IntermediateUpdateFunc, early bool) *Instance {
	t.Helper()
	path := filepath.Join("..", "examples", "furuta", "model.xml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := load(data, path)
	if err != nil {
		t.Fatal(err)
	}
	in := newInstance("t", l.desc, l.compiler(), l.model, nil, false)
	in.fmi3, in.iu, in.early = true, iu, early
	if in.EnterInitializationMode3(false, 0, 0, false, 0) != OK || in.ExitInitializationMode() != OK {
		t.Fatal("initialisation failed")
	}
	return in
}

func vrOf(t *testing.T, in *Instance, name string) uint32 {
	t.Helper()
	for _, v := range in.desc.Variables {
		if v.Name == name {
			return v.VR
		}
	}
	t.Fatalf("no variable %q", name)
	return 0
}

// torque is the input of the intermediate-update tests at time t.
func torque(t float64) float64 { return 0.02 * math.Sin(7*t) }

// Intermediate update (FMI 3.0): at every internal step of a 10 ms
// communication step the master's callback sees the outputs there and may
// set the input, which then acts as if the master stepped at the internal
// step; a passive callback leaves the run bit for bit as without one; an
// early return ends the step at the first internal step at or after the
// time asked, and the run goes on from there.
func TestIntermediateUpdate(t *testing.T) {
	const H, hi, n = 0.01, 0.001, 30
	// reference: the master steps at the internal step, setting the input
	// at every point
	ref := furuta3(t, nil, false)
	tau, alpha := vrOf(t, ref, "tau"), vrOf(t, ref, "alpha")
	refAlpha := map[int]float64{}
	x := []float64{0}
	for k := 0; k < n*10; k++ {
		tk := float64(k) * hi
		ref.SetFloat64([]uint32{tau}, []float64{torque(tk)})
		if st, _, _, _ := ref.DoStep3(tk, hi, false); st != OK {
			t.Fatalf("reference step %d: %v", k, st)
		}
		ref.GetFloat64([]uint32{alpha}, x)
		refAlpha[k+1] = x[0]
	}
	// the same through 10 ms steps with the input set from the callback
	var in *Instance
	seen := 0
	in = furuta3(t, func(tg float64, canReturnEarly bool) (bool, float64) {
		k := int(math.Round(tg / hi))
		y := []float64{0}
		if st := in.GetFloat64([]uint32{alpha}, y); st != OK || y[0] != refAlpha[k] {
			t.Errorf("t = %g: alpha %v (status %v), stepping at the internal step gives %v", tg, y[0], st, refAlpha[k])
		}
		if st := in.SetFloat64([]uint32{tau}, []float64{torque(tg)}); st != OK {
			t.Errorf("setting the input at %g: %v", tg, st)
		}
		if st := in.SetFloat64([]uint32{vrOf(t, in, "m1")}, []float64{1}); st != Error {
			t.Errorf("setting a parameter in intermediate update mode: %v", st)
		}
		if st, _, _, _ := in.DoStep3(tg, hi, false); st != Error {
			t.Errorf("fmi3DoStep from the callback: %v", st)
		}
		seen++
		return false, 0
	}, true)
	for k := 0; k < n; k++ {
		tk := float64(k) * H
		in.SetFloat64([]uint32{tau}, []float64{torque(tk)})
		st, _, early, last := in.DoStep3(tk, H, false)
		if st != OK || early || math.Abs(last-(tk+H)) > 1e-12 {
			t.Fatalf("step %d: %v early %v last %g", k, st, early, last)
		}
		in.GetFloat64([]uint32{alpha}, x)
		if x[0] != refAlpha[10*(k+1)] {
			t.Fatalf("t = %g: alpha %v, stepping at the internal step gives %v", tk+H, x[0], refAlpha[10*(k+1)])
		}
	}
	if seen != 9*n {
		t.Errorf("%d callbacks, want %d (9 internal points a step)", seen, 9*n)
	}

	// a passive callback: bit for bit the run without one
	plain := furuta3(t, nil, false)
	passive := furuta3(t, func(float64, bool) (bool, float64) { return false, 0 }, true)
	a, b := []float64{0}, []float64{0}
	for k := 0; k < n; k++ {
		tk := float64(k) * H
		plain.DoStep3(tk, H, false)
		passive.DoStep3(tk, H, false)
		plain.GetFloat64([]uint32{alpha}, a)
		passive.GetFloat64([]uint32{alpha}, b)
		if a[0] != b[0] {
			t.Fatalf("t = %g: %v with a passive callback, %v without", tk+H, b[0], a[0])
		}
	}

	// early return at 23.4 ms, asked for at the first internal point of
	// the step from 20 ms: the step ends at 24 ms, and the run goes on
	ask := furuta3(t, func(tg float64, can bool) (bool, float64) {
		if !can {
			t.Error("canReturnEarly false with earlyReturnAllowed")
		}
		return tg > 0.0205 && tg < 0.0215, 0.0234
	}, true)
	tk := 0.0
	for tk < 0.02-1e-12 {
		ask.DoStep3(tk, H, false)
		tk += H
	}
	st, _, early, last := ask.DoStep3(0.02, H, false)
	if st != OK || !early || math.Abs(last-0.024) > 1e-12 {
		t.Fatalf("early return: %v early %v last %.17g, want early at 0.024", st, early, last)
	}
	ask.GetFloat64([]uint32{alpha}, a)
	plainAt := furuta3(t, nil, false)
	for k := 0; k < 24; k++ {
		plainAt.DoStep3(float64(k)*hi, hi, false)
	}
	plainAt.GetFloat64([]uint32{alpha}, b)
	if a[0] != b[0] {
		t.Errorf("alpha at the early return %v, stepping to 24 ms gives %v", a[0], b[0])
	}
	if st, _, early, last := ask.DoStep3(0.024, H, false); st != OK || early || math.Abs(last-0.034) > 1e-12 {
		t.Errorf("the step after the early return: %v early %v last %g", st, early, last)
	}
	// without earlyReturnAllowed the request is ignored
	deny := furuta3(t, func(tg float64, can bool) (bool, float64) {
		if can {
			t.Error("canReturnEarly true without earlyReturnAllowed")
		}
		return true, 0
	}, false)
	if st, _, early, _ := deny.DoStep3(0, H, false); st != OK || early {
		t.Errorf("early return not allowed: %v early %v", st, early)
	}
}

// The caches of derivatives follow the internal steps of an intermediate
// update: a master that reads the state derivatives and the output
// derivatives (allowed in intermediate update mode) at every internal
// point gets those of the run stepped at the internal step there, and
// after the step those at its end (they once kept the last internal
// point's).
func TestIntermediateUpdateDerivatives(t *testing.T) {
	const H, hi, n = 0.01, 0.001, 5
	ref := furuta3(t, nil, false)
	acc, alpha := vrOf(t, ref, "der(pend.wbx)"), vrOf(t, ref, "alpha")
	type point struct{ acc, dAlpha float64 }
	want := map[int]point{}
	a, d := []float64{0}, []float64{0}
	for k := 1; k <= n*10; k++ {
		if st, _, _, _ := ref.DoStep3(float64(k-1)*hi, hi, false); st != OK {
			t.Fatalf("reference step %d: %v", k, st)
		}
		ref.GetFloat64([]uint32{acc}, a)
		if st := ref.GetOutputDerivatives3([]uint32{alpha}, []int32{1}, d); st != OK {
			t.Fatalf("reference output derivative: %v", st)
		}
		want[k] = point{a[0], d[0]}
	}
	var in *Instance
	in = furuta3(t, func(tg float64, _ bool) (bool, float64) {
		k := int(math.Round(tg / hi))
		x, y := []float64{0}, []float64{0}
		in.GetFloat64([]uint32{acc}, x)
		if st := in.GetOutputDerivatives3([]uint32{alpha}, []int32{1}, y); st != OK {
			t.Errorf("t = %g: fmi3GetOutputDerivatives in intermediate update mode: %v", tg, st)
		}
		if (point{x[0], y[0]}) != want[k] {
			t.Errorf("t = %g: derivatives %v %v, stepping at the internal step gives %v", tg, x[0], y[0], want[k])
		}
		return false, 0
	}, false)
	for k := 1; k <= n; k++ {
		if st, _, _, _ := in.DoStep3(float64(k-1)*H, H, false); st != OK {
			t.Fatalf("step %d: %v", k, st)
		}
		in.GetFloat64([]uint32{acc}, a)
		in.GetOutputDerivatives3([]uint32{alpha}, []int32{1}, d)
		if (point{a[0], d[0]}) != want[10*k] {
			t.Errorf("t = %g: derivatives after the step %v %v, want those at its end %v", float64(k)*H, a[0], d[0], want[10*k])
		}
	}
}

// Early return at a contact event (FMI 3.0, earlyReturnAllowed): the ball
// of examples/ball-on-plate falls 1 m onto the plate and touches it at
// t = √(2·1 m / 9.81 m/s²) = 0.45152 s; a 100 ms step from 0.4 s ends at
// the first internal step (0.1 ms) with the contact closed, 0.4516 s,
// bit for bit where stepping at the internal step gets, and the run goes
// on from there. Without earlyReturnAllowed the step runs through.
func TestEarlyReturnAtContact(t *testing.T) {
	path := filepath.Join("..", "examples", "ball-on-plate", "model.xml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := load(data, path)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(early bool) *Instance {
		in := newInstance("t", l.desc, l.compiler(), l.model, nil, false)
		in.fmi3, in.early = true, early
		if in.EnterInitializationMode3(false, 0, 0, false, 0) != OK || in.ExitInitializationMode() != OK {
			t.Fatal("initialisation")
		}
		return in
	}
	y := vrOf(t, mk(false), "ball_y")
	in := mk(true)
	for k := 0; k < 4; k++ { // free fall: no event
		if st, _, early, _ := in.DoStep3(float64(k)*0.1, 0.1, false); st != OK || early {
			t.Fatalf("step %d: %v early %v", k, st, early)
		}
	}
	st, _, early, last := in.DoStep3(0.4, 0.1, false)
	tc := math.Sqrt(2 * 1.0 / 9.81)
	if st != OK || !early || !(last >= tc) || last-tc > 1e-4+1e-12 {
		t.Fatalf("the step from 0.4 s: %v early %v at %.17g s, the contact closes at %.6f s", st, early, last, tc)
	}
	a, b := []float64{0}, []float64{0}
	in.GetFloat64([]uint32{y}, a)
	ref := mk(false)
	n := int(math.Round(last / 1e-4))
	for k := 0; k < n; k++ {
		ref.DoStep3(float64(k)*1e-4, 1e-4, false)
	}
	ref.GetFloat64([]uint32{y}, b)
	if a[0] != b[0] {
		t.Errorf("ball height at the early return %v, stepping at the internal step gives %v", a[0], b[0])
	}
	if st, _, early, l2 := in.DoStep3(last, 0.01, false); st != OK || early && l2 <= last {
		t.Errorf("the step after the early return: %v early %v last %g", st, early, l2)
	}
	plain := mk(false)
	for k := 0; k < 6; k++ {
		if st, _, early, _ := plain.DoStep3(float64(k)*0.1, 0.1, false); st != OK || early {
			t.Fatalf("without earlyReturnAllowed, step %d: %v early %v", k, st, early)
		}
	}
}

// A call from the intermediate-update callback that fails inside (a
// recovered panic of the C ABI: Abort) leaves the instance in the error
// state: the step ends with Error there, and the state stays (it once was
// put back to Step Mode when the callback returned).
func TestIntermediateUpdateAbort(t *testing.T) {
	var in *Instance
	calls := 0
	in = furuta3(t, func(tg float64, _ bool) (bool, float64) {
		calls++
		in.Abort("fmi3GetFloat64", "a panic in a call from the callback")
		return false, 0
	}, false)
	if st, _, _, _ := in.DoStep3(0, 0.01, false); st != Error {
		t.Errorf("fmi3DoStep: %v, want Error", st)
	}
	if calls != 1 || in.Phase() != ErrorPhase {
		t.Errorf("%d callbacks, phase %v: want one, and the error state", calls, in.Phase())
	}
}
