package solver_test

import (
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// BenchmarkANCFCable3D is the speed case: examples/ancf-pendulum-3d
// (160 spatial ANCF cable elements, 1.1 s at h = 1 ms, generalized-α).
func BenchmarkANCFCable3D(b *testing.B) {
	ms, err := xml.LoadFile("../examples/ancf-pendulum-3d/model.xml")
	if err != nil {
		b.Fatal(err)
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := m.NewState()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.Init(s); err != nil {
			b.Fatal(err)
		}
		if err := m.AdvanceTo(s, 1.1); err != nil {
			b.Fatal(err)
		}
	}
	st := s.Stats()
	b.ReportMetric(float64(st.NewtonIters)/float64(st.Steps), "iters/step")
	b.ReportMetric(float64(st.Factorizations), "factorizations")
}
