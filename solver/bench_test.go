package solver

import (
	"fmt"
	"testing"
)

// BenchmarkPendulumStep is one implicit generalized-α step of the A01
// pendulum (2D rigid body on a revolute joint).
func BenchmarkPendulumStep(b *testing.B) {
	m := mustCompile(b, pendulumSpec("genalpha", 8e-4))
	s := mustInit(b, m)
	if err := m.AdvanceTo(s, 8e-4); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := m.step(s, 8e-4, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPendulum10s is A01 for 10 s at h = 0.8 ms.
func BenchmarkPendulum10s(b *testing.B) {
	m := mustCompile(b, pendulumSpec("genalpha", 8e-4))
	s := m.NewState()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := m.Init(s); err != nil {
			b.Fatal(err)
		}
		if err := m.AdvanceTo(s, 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChain(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m := mustCompile(b, chainSpec(n, 1e-3))
			s := mustInit(b, m)
			if err := m.AdvanceTo(s, 1e-3); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := m.step(s, 1e-3, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
