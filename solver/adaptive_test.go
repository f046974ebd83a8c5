package solver_test

import (
	"math"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// Error-controlled variable steps on Andrews' squeezing mechanism: the
// error against the published reference at 0.03 s (Hairer–Wanner test set)
// follows the requested tolerance, and tighter tolerances give smaller
// errors in more steps. The run is done in one call and, as an FMU master
// would, in communication steps of 0.1 ms (a step rejected just before a
// communication point once let the time jump ahead of the state).
func TestAdaptiveAndrews(t *testing.T) {
	yq := []float64{0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
		-0.5347301163226948e+0, 0.5244099658805304e+0, 0.5347301163226948e+0, 0.1048080741042263e+1}
	ref := []float64{yq[0], yq[0] + yq[1], yq[2], yq[3] + yq[4], yq[4], yq[5] + yq[6], yq[6]}
	for _, run := range []struct {
		integ string
		comm  float64
	}{{"genalpha", 0}, {"bdf2", 0}, {"rk4", 0}, {"rk4", 1e-4}, {"genalpha", 1e-4}} {
		integ := run.integ
		var prevErr float64
		var prevSteps int64
		for k, tol := range []float64{1e-5, 1e-7} {
			spec, err := xml.LoadFile("../examples/andrews/model.xml")
			if err != nil {
				t.Fatal(err)
			}
			st := &spec.Settings
			st.Integrator, st.Adaptive, st.RelTol, st.AbsTol, st.Step = integ, true, tol, tol, 1e-5
			m, err := solver.Compile(spec, solver.CompileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := m.NewState()
			if err := m.Init(s); err != nil {
				t.Fatal(err)
			}
			if run.comm == 0 {
				if err := m.AdvanceTo(s, 0.03); err != nil {
					t.Fatalf("%s tol %g: %v", integ, tol, err)
				}
			} else {
				for k := 1; k <= 300; k++ {
					if err := m.AdvanceTo(s, float64(k)*run.comm); err != nil {
						t.Fatalf("%s tol %g: %v", integ, tol, err)
					}
				}
			}
			ch := make([]float64, len(m.Channels()))
			m.EvalChannels(s, ch)
			worst := 0.0
			for i := 0; i < 7; i++ {
				k, _ := m.ChannelIndex("b" + string(rune('1'+i)) + ".angle")
				worst = math.Max(worst, math.Abs(ch[k]-ref[i]))
			}
			steps := s.Stats().Steps
			t.Logf("%s tol %g, communication step %g s: angle error %.2e rad, %d steps, %d rejected", integ, tol, run.comm, worst, steps, s.Stats().Rejected)
			// the global error of a 0.03 s run with local tolerance tol
			if worst > 100*tol {
				t.Errorf("%s tol %g: angle error %.2e rad is not controlled by the tolerance", integ, tol, worst)
			}
			if k == 1 && run.comm == 0 && !(worst < prevErr/10 && steps > prevSteps) {
				t.Errorf("%s: tolerance 100× tighter gave error %.2e (was %.2e) in %d steps (was %d)", integ, worst, prevErr, steps, prevSteps)
			}
			prevErr, prevSteps = worst, steps
		}
	}
}
