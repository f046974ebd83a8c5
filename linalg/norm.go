package linalg

import "math"

// Norm2 returns the Euclidean norm of x, computed with scaling so that it
// neither overflows nor underflows for finite entries.
func Norm2(x []float64) float64 {
	scale := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > scale {
			scale = a
		} else if a != a {
			return math.NaN()
		}
	}
	if scale == 0 || math.IsInf(scale, 0) {
		return scale
	}
	inv := 1 / scale
	s := 0.0
	for _, v := range x {
		t := v * inv
		s += t * t
	}
	return scale * math.Sqrt(s)
}

// NormInf returns the maximum absolute entry of x (0 for an empty slice,
// NaN if any entry is NaN).
func NormInf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		a := math.Abs(v)
		if a > m {
			m = a
		} else if a != a {
			return math.NaN()
		}
	}
	return m
}
