package solver

import (
	"fmt"
	"math"
	"strconv"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func cos(x float64) float64 { return math.Cos(x) }
func sin(x float64) float64 { return math.Sin(x) }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// suggest returns ` (did you mean "x"?)` for the closest candidate, or "".
func suggest(name string, candidates []string) string {
	best, bd := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(name, c); d < bd {
			best, bd = c, d
		}
	}
	if best != "" && bd <= 2+len(name)/4 {
		return " (did you mean \"" + best + "\"?)"
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func itoa(i int) string { return strconv.Itoa(i) }
