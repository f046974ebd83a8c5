package xml

import (
	"strings"
	"unicode/utf8"
)

// nearest returns the candidate closest to s in edit distance (ignoring
// case), or "" when none is close enough to be a likely typo.
func nearest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	n := utf8.RuneCountInString(s)
	limit := 0 // one or two letters: a difference of case (or see below)
	switch {
	case n > 8:
		limit = 3
	case n > 3:
		limit = 2
	case n == 3:
		limit = 1
	}
	if n <= 2 && bestD == 1 && utf8.RuneCountInString(best) != n {
		limit = 1 // "pn" for "pin", "pp" for "p"; but not "z" for "x"
	}
	if best == "" || bestD > limit || best == s {
		return ""
	}
	return best
}

// didYouMean formats a suggestion: `; did you mean "mass"?` or "".
func didYouMean(s string, candidates []string) string {
	if c := nearest(s, candidates); c != "" {
		return "; did you mean \"" + c + "\"?"
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b (in runes),
// with a transposition of two neighbours counting as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		// Names this long are not typos of the short names we know.
		return 1 << 20
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
