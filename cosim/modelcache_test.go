package cosim

import (
	"math"
	"testing"
)

// TestModelCache checks that masters built with a shared model cache
// reuse the compiled model (once per parameter set and span) and give the
// same results, bit for bit, as masters that compile their own.
func TestModelCache(t *testing.T) {
	cfg, err := LoadConfig("../examples/slider-crank-pid/cosim.xml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(o Options) []float64 {
		m, err := New(cfg, o)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if _, err := m.Run(RunOptions{}); err != nil {
			t.Fatal(err)
		}
		row := make([]float64, len(m.Columns()))
		m.Row(row)
		return row
	}
	want := run(Options{End: 0.5})
	cache := NewModelCache()
	for i := 0; i < 3; i++ {
		got := run(Options{End: 0.5, Models: cache})
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("run %d, column %d: %v with the cache, %v without", i, k, got[k], want[k])
			}
		}
	}
	// one spec; two compiled models: the ports' (the file's span) and the run's
	if len(cache.specs) != 1 || len(cache.models) != 2 {
		t.Errorf("cache holds %d specs and %d models, want 1 and 2", len(cache.specs), len(cache.models))
	}
	run(Options{End: 0.25, Models: cache})
	if len(cache.models) != 3 {
		t.Errorf("another span: %d models, want 3", len(cache.models))
	}
}
