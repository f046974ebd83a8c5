package study

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// stream is a deterministic generator of uniform numbers in (0, 1): a PCG
// (math/rand/v2, whose output for a seed is fixed) seeded with the design's
// seed and a hash of the factor's name and a purpose, so that each factor
// draws from its own stream: adding a factor or reordering them leaves the
// others' samples unchanged. Only the generator's raw 64-bit output is
// used (the conversions below are ours), so the samples do not depend on
// the Go version.
type stream struct{ pcg *rand.PCG }

func newStream(seed uint64, factor, purpose string) *stream {
	h := fnv.New64a()
	h.Write([]byte(factor))
	h.Write([]byte{0})
	h.Write([]byte(purpose))
	return &stream{pcg: rand.NewPCG(seed, h.Sum64())}
}

// uniform returns a number in (0, 1), never 0 or 1.
func (s *stream) uniform() float64 {
	return (float64(s.pcg.Uint64()>>11) + 0.5) / (1 << 53)
}

// intn returns an integer in [0, n) (n ≤ 2^53).
func (s *stream) intn(n int) int {
	k := int(s.uniform() * float64(n))
	if k >= n {
		k = n - 1
	}
	return k
}

// perm returns a random permutation of 0..n-1 (Fisher–Yates).
func (s *stream) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := s.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// quantile maps u in (0, 1) to the factor's distribution: uniform over
// [Min, Max] (log-uniform with a log scale), or normal (truncated to
// [Min, Max] when those are given).
func (f *Factor) quantile(u float64) float64 {
	if f.Dist == "normal" {
		lo, hi := 0.0, 1.0
		if !math.IsNaN(f.Min) {
			lo = normCDF((f.Min - f.Mean) / f.SD)
		}
		if !math.IsNaN(f.Max) {
			hi = normCDF((f.Max - f.Mean) / f.SD)
		}
		p := lo + u*(hi-lo)
		x := f.Mean + f.SD*math.Sqrt2*math.Erfinv(2*p-1)
		if !math.IsNaN(f.Min) {
			x = math.Max(x, f.Min)
		}
		if !math.IsNaN(f.Max) {
			x = math.Min(x, f.Max)
		}
		return x
	}
	if f.Log {
		return math.Exp(math.Log(f.Min) + u*(math.Log(f.Max)-math.Log(f.Min)))
	}
	return f.Min + u*(f.Max-f.Min)
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// nominal returns the nominal point.
func (st *Study) nominal() []float64 {
	x := make([]float64, len(st.Factors))
	for i, f := range st.Factors {
		x[i] = f.Nominal
	}
	return x
}

// designPoints lists the runs of the design, in order.
func (st *Study) designPoints() []point {
	d := st.Design
	nf := len(st.Factors)
	var pts []point
	add := func(x []float64, label string) {
		pts = append(pts, point{x: x, phase: "design", label: label})
	}
	switch d.Kind {
	case "full-factorial":
		// the first factor varies slowest
		idx := make([]int, nf)
		for {
			x := make([]float64, nf)
			for i, f := range st.Factors {
				x[i] = f.Levels[idx[i]]
			}
			add(x, "")
			k := nf - 1
			for k >= 0 {
				idx[k]++
				if idx[k] < len(st.Factors[k].Levels) {
					break
				}
				idx[k] = 0
				k--
			}
			if k < 0 {
				break
			}
		}
	case "one-at-a-time":
		add(st.nominal(), "nominal")
		for i, f := range st.Factors {
			for _, v := range f.Levels {
				if v == f.Nominal {
					continue
				}
				x := st.nominal()
				x[i] = v
				add(x, f.Name)
			}
		}
	case "cases":
		for k, c := range d.Cases {
			x := st.nominal()
			for i, v := range c {
				if !math.IsNaN(v) {
					x[i] = v
				}
			}
			add(x, d.Labels[k])
		}
	case "monte-carlo":
		streams := make([]*stream, nf)
		for i, f := range st.Factors {
			streams[i] = newStream(d.Seed, f.Name, "monte-carlo")
		}
		for k := 0; k < d.Runs; k++ {
			x := make([]float64, nf)
			for i, f := range st.Factors {
				x[i] = f.quantile(streams[i].uniform())
			}
			add(x, "")
		}
	case "latin-hypercube":
		// each factor's range is cut into Runs strata of equal
		// probability; each stratum is used once, in a random order per
		// factor, at a random place within it (its centre if Centered)
		cols := make([][]float64, nf)
		for i, f := range st.Factors {
			perm := newStream(d.Seed, f.Name, "lhs-order").perm(d.Runs)
			pos := newStream(d.Seed, f.Name, "lhs-place")
			cols[i] = make([]float64, d.Runs)
			for k := 0; k < d.Runs; k++ {
				u := 0.5
				if !d.Centered {
					u = pos.uniform()
				}
				cols[i][k] = f.quantile((float64(perm[k]) + u) / float64(d.Runs))
			}
		}
		for k := 0; k < d.Runs; k++ {
			x := make([]float64, nf)
			for i := range x {
				x[i] = cols[i][k]
			}
			add(x, "")
		}
	}
	return pts
}
