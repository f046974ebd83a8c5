package fmu

import (
	"math"
	"os"
	"testing"

	"mbfmu/solver"
)

// These tests run the real engine (package solver through the adapter of
// engine_solver.go) on an example model and check how fmi2DoStep steps it.

// sliderCrank is examples/slider-crank-pid/model.xml: a closed-loop
// mechanism (crank, rod, slider) driven by the input torque tau, on fixed
// generalized-α steps of 1 ms.
const sliderCrank = "../examples/slider-crank-pid/model.xml"

// newModelInstance instantiates the model file at path as its FMU would
// be (the file as resources/model.xml) and returns the instance and the
// value references by variable name.
func newModelInstance(t testing.TB, path string) (*Instance, map[string]uint32) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := instantiateText(t, string(data))
	vr := map[string]uint32{}
	for _, v := range in.Description().Variables {
		vr[v.Name] = v.VR
	}
	return in, vr
}

// engineStats returns the engine's step counts of a real-engine instance.
func engineStats(t testing.TB, in *Instance) solver.Stats {
	t.Helper()
	s, ok := in.state.(*solverState)
	if !ok {
		t.Fatalf("instance runs %T, not the real engine", in.state)
	}
	return s.s.Stats()
}

// A communication step that is not a whole number of the model's steps
// (1 ms) is split on the model's time grid k·1 ms without a sliver: every
// communication point and every grid point is a step boundary, except a
// grid point within a thousandth of a step of a communication point, which
// is merged into its neighbour. The counts of the engine (solver.Stats:
// Steps, and Short, the steps shorter than 1 ms) after each fmi2DoStep are
// compared with the counts that rule gives. An engine that took a sliver
// to reach a point a rounding error or 4e-4 ms off the grid, or that split
// the communication step into equal sub-steps (10.5 ms as 11 steps of
// 0.95 ms), fails it.
func TestDoStepSplitsOnTheGridWithoutSliver(t *testing.T) {
	const h = 1e-3 // the model's step
	for _, c := range []struct {
		name  string
		H     float64 // communication step
		n     int     // communication steps
		steps int64   // engine steps in all
		short int64   // of which shorter than h
	}{
		// 10 whole steps and a half, the half first on every other step
		{"10.5 steps", 10.5e-3, 20, 11 * 20, 20},
		// every step a third of h; 3·H is the grid point only within
		// rounding (the clock computes k·H): it must not leave a sliver
		{"a third of a step", h / 3, 3000, 3000, 3000},
		// 1 + 4e-4 steps: the 4e-4 beyond the grid point is merged into
		// the step (the second step starts 4e-4 past the grid point, the
		// grid point before it too close to be a boundary)
		{"1.0004 steps", 1.0004e-3, 2, 2, 0},
		// 1 − 4e-4 steps: the 4e-4 up to the grid point is merged
		{"0.9996 steps", 0.9996e-3, 2, 2, 2},
		// 2.5 steps: whole, whole, half; half, whole, whole
		{"2.5 steps", 2.5e-3, 400, 3 * 400, 400},
		// a whole step 2·10⁴ times, the master adding t += H
		{"one step", h, 20000, 20000, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, vr := newModelInstance(t, sliderCrank)
			must(t, in.SetReal([]uint32{vr["tau"]}, []float64{0.5}), "tau")
			startInstance(t, in)
			tc := 0.0
			for k := 0; k < c.n; k++ {
				before := engineStats(t, in)
				if st := in.DoStep(tc, c.H, true); st != OK {
					t.Fatalf("step %d at t = %.17g: %s", k, tc, st)
				}
				after := engineStats(t, in)
				ws, wsh := gridSplit(float64(k)*c.H, float64(k+1)*c.H, h)
				if ds, dsh := after.Steps-before.Steps, after.Short-before.Short; ds != ws || dsh != wsh {
					t.Fatalf("communication step %d, [%.17g, %.17g] s: the engine took %d steps, %d of them short; the grid gives %d, %d short",
						k, float64(k)*c.H, float64(k+1)*c.H, ds, dsh, ws, wsh)
				}
				tc += c.H
			}
			st := engineStats(t, in)
			if st.Steps != c.steps || st.Short != c.short || st.Rejected != 0 {
				t.Errorf("%d engine steps, %d short, %d rejected; want %d, %d short, none rejected", st.Steps, st.Short, st.Rejected, c.steps, c.short)
			}
			if y := getReal(t, in, vr["omega"]); !(y[0] > 0) || math.IsInf(y[0], 0) {
				t.Errorf("crank speed %g after %g s of a positive torque", y[0], float64(c.n)*c.H)
			}
		})
	}
}

// gridSplit is the number of pieces [t0, t1] is cut into by the grid
// points k·h strictly inside it and farther than h/1000 from both ends,
// and how many pieces are shorter than h (by more than 1e-6·h, the
// rounding of grid points computed from different times).
func gridSplit(t0, t1, h float64) (pieces, short int64) {
	const sliver = 1e-3
	cuts := []float64{t0}
	for k := math.Floor(t0/h) + 1; k*h < t1; k++ {
		if g := k * h; g-t0 > sliver*h && t1-g > sliver*h {
			cuts = append(cuts, g)
		}
	}
	cuts = append(cuts, t1)
	for i := 1; i < len(cuts); i++ {
		pieces++
		if cuts[i]-cuts[i-1] < h*(1-1e-6) {
			short++
		}
	}
	return pieces, short
}

// Two masters, one advancing its time as t += H and one as t = n·H
// (stepping by the difference of two such points), drive two instances of
// the real engine with the same inputs over a long run: their outputs are
// identical bit for bit after every step, and so are the engines' step
// counts. The communication steps are not whole numbers of the model's
// step (1 ms), so most communication points fall between grid points,
// where the end of a partial step depends on every bit of the time.
func TestDoStepTimeSchemesBitIdentical(t *testing.T) {
	for _, c := range []struct {
		H float64
		n int
	}{
		{1e-3 / 3, 30000}, // 10 s
		{1.5e-3, 10000},   // 15 s
		{0.1, 300},        // 30 s, 100 steps each
	} {
		a, vr := newModelInstance(t, sliderCrank)
		b, _ := newModelInstance(t, sliderCrank)
		startInstance(t, a)
		startInstance(t, b)
		in := []uint32{vr["tau"], vr["F_load"]}
		out := []uint32{vr["omega"], vr["angle"], vr["s"], vr["F_rod"]}
		ya, yb := make([]float64, len(out)), make([]float64, len(out))
		ta := 0.0
		for k := 0; k < c.n; k++ {
			// a torque that drives the crank to about 10 rad/s, and a load
			u := []float64{0.5 * (10 - ya[0]), 2 + math.Sin(0.7*float64(k)*c.H)}
			must(t, a.SetReal(in, u), "inputs a")
			must(t, b.SetReal(in, u), "inputs b")
			tb := float64(k) * c.H
			if st := a.DoStep(ta, c.H, true); st != OK {
				t.Fatalf("H = %g: t += H, step %d: %s", c.H, k, st)
			}
			if st := b.DoStep(tb, float64(k+1)*c.H-tb, true); st != OK {
				t.Fatalf("H = %g: t = n·H, step %d: %s", c.H, k, st)
			}
			ta += c.H
			must(t, a.GetReal(out, ya), "outputs a")
			must(t, b.GetReal(out, yb), "outputs b")
			if !sameBits([][]float64{ya}, [][]float64{yb}) {
				t.Fatalf("H = %g, step %d (t = %.17g / %.17g): outputs %v (t += H) and %v (t = n·H) differ", c.H, k, ta, float64(k+1)*c.H, ya, yb)
			}
		}
		sa, sb := engineStats(t, a), engineStats(t, b)
		if sa != sb {
			t.Errorf("H = %g: engine statistics differ: %+v (t += H), %+v (t = n·H)", c.H, sa, sb)
		}
		if math.Abs(ya[0]-10) > 1 {
			t.Errorf("H = %g: crank speed %g at the end, the loop drives it to about 10 rad/s", c.H, ya[0])
		}
		t.Logf("H = %g s, %d steps: %d engine steps (%d short), end speed %.4g rad/s, t += H ends %.3g s off n·H",
			c.H, c.n, sa.Steps, sa.Short, ya[0], ta-float64(c.n)*c.H)
	}
}
