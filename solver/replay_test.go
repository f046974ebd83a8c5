package solver_test

import (
	"math"
	"testing"

	"mbfmu/spec"
)

// The factorisation of the iteration matrix is reused across steps and
// AdvanceTo calls; what decides its reuse, and the state it was computed
// at, are part of the state. So a run gives the same numbers, bit for bit,
// whatever happens between its steps: the state copied into a fresh one,
// serialised and restored, a linearisation or an acceleration solve in
// between (which leave other factors in the linear solver).
//
// The heavy top with h = 1 ms and tolerance 1e-8 (0.15 rad of spin a step)
// also runs through the backed-off trials of old factors (implicitStep's
// reuseLen).
func TestResultsIndependentOfInterruptions(t *testing.T) {
	type cas struct {
		label, name string
		edit        func(*spec.Settings)
	}
	var cases []cas
	for _, name := range []string{"pendulum", "double-four-bar", "slider-crank-pid", "cartpole", "heavy-top", "furuta",
		"spatial-slider-crank", "ancf-pendulum", "hub-beam", "seed003-case1", "ball-on-plate"} {
		cases = append(cases, cas{name, name, nil})
	}
	cases = append(cases, cas{"heavy-top-1ms", "heavy-top", func(st *spec.Settings) { st.Step, st.OutputStep, st.NewtonTol = 1e-3, 5e-3, 1e-8 }})
	for _, c := range cases {
		name := c.name
		t.Run(c.label, func(t *testing.T) {
			m := exLoad(t, name, c.edit)
			st := m.Settings()
			h := st.OutputStep
			n := int(math.Min(300, math.Round((st.End-st.Start)/h)))
			nu := len(m.InputInfo())
			run := func(interrupt bool) [][]float64 {
				s := exInit(t, m)
				var out [][]float64
				for k := 1; k <= n; k++ {
					for i := 0; i < nu; i++ {
						s.SetInput(i, 0.01*math.Sin(0.37*float64(k)+float64(i)))
					}
					if interrupt {
						switch k % 4 {
						case 1:
							s2 := m.NewState()
							s2.CopyFrom(s)
							s = s2
						case 2:
							b, err := s.MarshalBinary()
							if err != nil {
								t.Fatal(err)
							}
							s2 := m.NewState()
							if err := s2.UnmarshalBinary(b); err != nil {
								t.Fatal(err)
							}
							s = s2
						case 3:
							if nu > 0 {
								if _, err := m.Linearize(s); err != nil {
									t.Fatalf("step %d: linearize: %v", k, err)
								}
							}
						}
					}
					if err := m.AdvanceTo(s, st.Start+float64(k)*h); err != nil {
						t.Fatalf("step %d: %v", k, err)
					}
					row := make([]float64, len(m.Channels()))
					m.EvalChannels(s, row)
					out = append(out, row)
				}
				return out
			}
			a, b := run(false), run(true)
			for k := range a {
				for i := range a[k] {
					if math.Float64bits(a[k][i]) != math.Float64bits(b[k][i]) && !(math.IsNaN(a[k][i]) && math.IsNaN(b[k][i])) {
						t.Fatalf("step %d, channel %s: %v uninterrupted, %v interrupted", k+1, m.Channels()[i].Name, a[k][i], b[k][i])
					}
				}
			}
		})
	}
}
