package suggest

import (
	"math/rand/v2"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"mass", "mass", 0}, {"mas", "mass", 1}, {"msas", "mass", 1},
		{"kitten", "sitting", 3}, {"abc", "", 3}, {"", "abc", 3}, {"genalfa", "genalpha", 2},
		{"sni", "sin", 1}, {"stpe", "step", 1}, {"ca", "abc", 3}, // OSA, not Damerau: "ca"→"abc" is 3
		{"kgs", "kg", 1}, {"μm", "um", 1}, {"größe", "grösse", 2}, // runes, not bytes
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.want)
		}
	}
}

// osaMatrix is the full-matrix optimal-string-alignment distance that
// package expr used before it shared Distance (on bytes; the same on
// ASCII, which is all expression names can hold).
func osaMatrix(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// TestDistanceMatchesMatrix checks the three-row Distance against the
// textbook full-matrix recurrence on random short strings over a small
// alphabet (so that transpositions and repeats are frequent).
func TestDistanceMatchesMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, r.IntN(9))
		for i := range b {
			b[i] = "abcd"[r.IntN(4)]
		}
		return string(b)
	}
	for range 20000 {
		a, b := word(), word()
		if got, want := Distance(a, b), osaMatrix(a, b); got != want {
			t.Fatalf("Distance(%q, %q) = %d, full matrix gives %d", a, b, got, want)
		}
	}
}
