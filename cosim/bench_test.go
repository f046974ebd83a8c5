package cosim

import (
	"testing"
	"time"
)

// BenchmarkMacroStep measures one macro step of the flagship loop at 1 kHz
// — the cart-pole plant (packed FMU run in-process, or the model file on
// the engine directly) with the LQR controller — and reports the latency
// quantiles of single steps and the real-time factor.
func BenchmarkMacroStep(b *testing.B) {
	dir := b.TempDir()
	fmuPath := packFMU(b, "../examples/cartpole/model.xml", dir)
	for _, c := range []struct {
		name string
		cfg  func() *Config
	}{
		{"cartpole-fmu-lqr", func() *Config {
			return loadWithPaths(b, "../examples/cartpole/cosim.xml", map[string]string{"plant": fmuPath})
		}},
		{"cartpole-model-lqr", func() *Config { return modelCartpole(b) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := New(c.cfg(), Options{End: 1e7})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			if err := m.Init(); err != nil {
				b.Fatal(err)
			}
			var h histogram
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := m.Advance(); err != nil {
					b.Fatal(err)
				}
				h.add(time.Since(t0))
			}
			wall := time.Since(start)
			b.StopTimer()
			st := h.stats()
			b.ReportMetric(float64(st.P50.Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(st.P99.Nanoseconds()), "p99-ns")
			b.ReportMetric(float64(st.Max.Nanoseconds()), "max-ns")
			b.ReportMetric(float64(b.N)*m.Settings().Step/wall.Seconds(), "rtf")
		})
	}
}
