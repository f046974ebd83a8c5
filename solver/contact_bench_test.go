package solver

import (
	"os"
	"testing"
)

// BenchmarkSeed003Case1 integrates seed 003's case 1 (e = −0.915 m, exact
// Coulomb stick–slip) for 10 s and reports the steps taken and the body's
// position on the platform at 10 s (x_xd, mm), so that schemes can be
// compared for the same result. The paper integrates with RK4 at h = 1 µs
// (10⁷ steps); the RK4 variants (ours at the paper's step, and at the
// largest stable step, 2 µs — the legs' hinge damping c = 10⁶ N·m·s/rad on
// a 0.83 kg·m² leg limits explicit steps) take minutes and run only with
// MBFMU_BENCH_LONG=1.
func BenchmarkSeed003Case1(b *testing.B) {
	for _, bc := range []struct {
		name  string
		integ string
		h     float64
		long  bool
	}{
		{"genalpha/h=1ms", "genalpha", 1e-3, false},
		{"genalpha/h=0.2ms", "genalpha", 2e-4, false},
		{"bdf2/h=1ms", "bdf2", 1e-3, false},
		{"rk4/h=2us", "rk4", 2e-6, true},
		{"rk4/h=1us", "rk4", 1e-6, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.long && os.Getenv("MBFMU_BENCH_LONG") == "" {
				b.Skip("set MBFMU_BENCH_LONG=1 for the RK4 runs (minutes each)")
			}
			p := seed003Case1(-0.915)
			p.integ, p.h = bc.integ, bc.h
			m := mustCompile(b, p.spec())
			s := m.NewState()
			b.ReportAllocs()
			b.ResetTimer()
			var x float64
			for i := 0; i < b.N; i++ {
				if err := m.Init(s); err != nil {
					b.Fatal(err)
				}
				x10 := s.q[3]
				if err := m.AdvanceTo(s, 10); err != nil {
					b.Fatal(err)
				}
				x = xxd(s, x10)
			}
			b.ReportMetric(float64(s.stats.Steps), "steps/op")
			b.ReportMetric(float64(s.cw.events), "events/op")
			b.ReportMetric(x*1e3, "xxd_mm")
		})
	}
}
