package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchFactorSolve measures one Factor plus one Solve of sys on a plan of
// the given kind ("" = automatic choice).
func benchFactorSolve(b *testing.B, sys *testSys, kind string) {
	pl, err := NewPlanKind(sys.pat, kind)
	if err != nil {
		b.Fatal(err)
	}
	s := pl.NewSolver()
	sys.load(s)
	rhs := randVec(sys.n, rand.New(rand.NewPCG(1, 1)))
	x := make([]float64, sys.n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := s.Factor(); err != nil {
			b.Fatal(err)
		}
		copy(x, rhs)
		s.Solve(x)
	}
}

// BenchmarkPendulum is the 5×5 pendulum KKT system (dense plan).
func BenchmarkPendulum(b *testing.B) { benchFactorSolve(b, pendulum(0.3), "") }

// BenchmarkChain is the chain-of-bodies KKT system, n = 5N (band plan).
func BenchmarkChain(b *testing.B) {
	for _, N := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("N=%d", N), func(b *testing.B) {
			benchFactorSolve(b, chainKKT(N, rand.New(rand.NewPCG(2, 2))), "")
		})
	}
}

// BenchmarkSpatialChain is the KKT system of a spatial chain on spherical
// joints, n = 9N (band plan): one Factor and one Solve.
func BenchmarkSpatialChain(b *testing.B) {
	for _, N := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("N=%d", N), func(b *testing.B) {
			benchFactorSolve(b, spatialChainKKT(N, rand.New(rand.NewPCG(8, 8))), "")
		})
	}
}

// BenchmarkSpatialChainSolve is one Solve of the spatial chain's system
// (a Newton iteration with old factors); N = 1 and 2 have dense plans.
func BenchmarkSpatialChainSolve(b *testing.B) {
	for _, N := range []int{1, 2, 10, 100, 1000} {
		b.Run(fmt.Sprintf("N=%d", N), func(b *testing.B) {
			sys := spatialChainKKT(N, rand.New(rand.NewPCG(8, 8)))
			s := NewPlan(sys.pat).NewSolver()
			sys.load(s)
			if err := s.Factor(); err != nil {
				b.Fatal(err)
			}
			rhs := randVec(sys.n, rand.New(rand.NewPCG(1, 1)))
			x := make([]float64, sys.n)
			b.ReportAllocs()
			for b.Loop() {
				copy(x, rhs)
				s.Solve(x)
			}
		})
	}
}

// BenchmarkBeam is an ANCF-beam-like KKT system: 300 elements with 12
// coordinates per node (n = 3625, bandwidth 23).
func BenchmarkBeam(b *testing.B) {
	benchFactorSolve(b, beamSys(300, 12, rand.New(rand.NewPCG(7, 7))), "")
}

// BenchmarkDense30 is a random full 30×30 system on the dense kernel.
func BenchmarkDense30(b *testing.B) {
	benchFactorSolve(b, randDense(30, rand.New(rand.NewPCG(3, 3))), KindDense)
}

// BenchmarkAssembleChain100 is Zero plus all Add calls for the N=100 chain.
func BenchmarkAssembleChain100(b *testing.B) {
	sys := chainKKT(100, rand.New(rand.NewPCG(4, 4)))
	s := NewPlan(sys.pat).NewSolver()
	b.ReportAllocs()
	for b.Loop() {
		sys.load(s)
	}
}

// BenchmarkCrossover compares the dense and band kernels on chain KKT
// systems (n = 5N, bandwidth 3) and on random systems with a random band
// (bandwidth 8) or full pattern; used to calibrate the cost model of
// NewPlan.
func BenchmarkCrossover(b *testing.B) {
	for _, N := range []int{2, 3, 4, 6, 8} {
		for _, kind := range []string{KindDense, KindBand} {
			b.Run(fmt.Sprintf("chain/n=%d/%s", 5*N, kind), func(b *testing.B) {
				benchFactorSolve(b, chainKKT(N, rand.New(rand.NewPCG(5, 5))), kind)
			})
		}
	}
	for _, n := range []int{10, 20, 30, 40} {
		for _, kind := range []string{KindDense, KindBand} {
			b.Run(fmt.Sprintf("band8/n=%d/%s", n, kind), func(b *testing.B) {
				benchFactorSolve(b, shuffledBand(n, 8, false, rand.New(rand.NewPCG(6, 6))), kind)
			})
		}
	}
	for _, n := range []int{10, 20, 40} {
		for _, kind := range []string{KindDense, KindBand} {
			b.Run(fmt.Sprintf("full/n=%d/%s", n, kind), func(b *testing.B) {
				benchFactorSolve(b, randDense(n, rand.New(rand.NewPCG(6, 6))), kind)
			})
		}
	}
}
