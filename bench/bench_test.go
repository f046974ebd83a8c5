package bench

import (
	"testing"

	"mbfmu/solver"
)

func benchStep(b *testing.B, m *solver.Model, s *solver.State, h float64) {
	b.Helper()
	if err := m.AdvanceTo(s, 2*h); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var steps, iters, facts int64 // over every run (Init clears the state's counts)
	for i := 0; i < b.N; i++ {
		if s.T >= 1 {
			b.StopTimer()
			st := s.Stats()
			steps, iters, facts = steps+st.Steps, iters+st.NewtonIters, facts+st.Factorizations
			if err := m.Init(s); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if err := m.Step(s, h); err != nil {
			b.Fatal(err)
		}
	}
	st := s.Stats()
	steps, iters, facts = steps+st.Steps, iters+st.NewtonIters, facts+st.Factorizations
	b.ReportMetric(float64(iters)/float64(max(steps, 1)), "iters/step")
	b.ReportMetric(float64(facts)/float64(max(steps, 1)), "facts/step")
}

func BenchmarkSpatialChain10(b *testing.B)   { benchSpatial(b, 10) }
func BenchmarkSpatialChain100(b *testing.B)  { benchSpatial(b, 100) }
func BenchmarkSpatialChain1000(b *testing.B) { benchSpatial(b, 1000) }

func benchSpatial(b *testing.B, n int) {
	m, s, err := compileInit(SpatialChain(n, 1e-3))
	if err != nil {
		b.Fatal(err)
	}
	benchStep(b, m, s, 1e-3)
}

func BenchmarkHeavyTop(b *testing.B) {
	m, s, err := compileInit(HeavyTop(1e-3))
	if err != nil {
		b.Fatal(err)
	}
	benchStep(b, m, s, 1e-3)
}
