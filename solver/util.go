package solver

import (
	"fmt"
	"math"
	"mbfmu/solver/mech"
	"strconv"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func cos(x float64) float64 { return math.Cos(x) }
func sin(x float64) float64 { return math.Sin(x) }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// suggest returns ` (did you mean "x"?)` for the closest candidate, or "".
func suggest(name string, candidates []string) string { return mech.Suggest(name, candidates) }

func itoa(i int) string { return strconv.Itoa(i) }

func dotN(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
