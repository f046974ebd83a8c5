package xml

import (
	"strings"
	"unicode/utf8"

	"mbfmu/suggest"
)

// maxSuggestLen is the longest name (in runes) compared for a suggestion:
// names this long are not typos of the short names we know.
const maxSuggestLen = 64

// nearest returns the candidate closest to s in edit distance (ignoring
// case), or "" when none is close enough to be a likely typo.
func nearest(s string, candidates []string) string {
	ls := strings.ToLower(s)
	if utf8.RuneCountInString(ls) > maxSuggestLen {
		return ""
	}
	best, bestD := "", 1<<30
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if utf8.RuneCountInString(lc) > maxSuggestLen {
			continue
		}
		d := suggest.Distance(ls, lc)
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

// DidYouMean formats a suggestion: `; did you mean "mass"?` for the
// candidate nearest to s, or "" when none is near (the model reader's
// messages, and those of other readers: URDF).
func DidYouMean(s string, candidates []string) string {
	if c := nearest(s, candidates); c != "" {
		return "; did you mean \"" + c + "\"?"
	}
	return ""
}
