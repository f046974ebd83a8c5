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

// BenchmarkJointFriction is one 1 ms step of a block on a 20° incline
// held by its rail's friction (μ = 0.5) and of a wheel slipping on its
// bearing, with each law: exact Coulomb (a stick row, no factorisation
// beyond the step's own while nothing changes mode) and LuGre bristles;
// "none" is the same mechanism without friction (the block slides).
func BenchmarkJointFriction(b *testing.B) {
	for _, c := range []struct{ name, rail, bearing string }{
		{"none", ``, ``},
		{"coulomb", `<friction name="f" joint="slide" mu-static="0.5" mu-kinetic="0.5" normal="sqrt(fx(slide)^2 + fy(slide)^2)"/>`,
			`<friction name="fb" joint="pin" preload="0.01"/>`},
		{"lugre", `<friction name="f" joint="slide" model="lugre" mu-static="0.5" mu-kinetic="0.5" normal="sqrt(fx(slide)^2 + fy(slide)^2)" bristle-damping="632"/>`,
			`<friction name="fb" joint="pin" model="lugre" preload="0.01" bristle-damping="63"/>`},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, _ := loadText(b, `<model name="incline"><settings end="100 s" step="1 ms"/>
  <ground><marker name="rail" angle="-20 deg"/><marker name="axle" at="1 0"/></ground>
  <body name="block" mass="1" inertia="0.01"><marker name="c"/></body>
  <translational name="slide" i="ground.rail" j="block.c"/>
  <body name="wheel" mass="1" inertia="0.01" at="1 0" omega="100"/>
  <revolute name="pin" i="ground.axle" j="wheel"/>
  `+c.rail+c.bearing+`
</model>`)
			s := mustInit(b, m)
			if err := m.AdvanceTo(s, 0.01); err != nil {
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
