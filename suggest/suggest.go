// Package suggest holds the edit distance behind the "did you mean"
// hints of the model, study and expression parsers. It imports nothing of
// the module, so every package that prints such a hint can use it.
//
// Each caller keeps its own threshold and wording; only the measure of
// closeness is shared.
package suggest

// Distance is the optimal-string-alignment distance between a and b,
// counted in runes: insertions, deletions, substitutions and
// transpositions of two neighbouring runes each cost 1 ("mas" is 1 from
// "mass", "msas" is 1 from "mass"). It is case-sensitive; callers that
// ignore case lower both strings first.
//
// The cost is proportional to the product of the lengths; callers that
// may see long strings skip them (names that long are not typos of the
// short names they are compared with).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
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
