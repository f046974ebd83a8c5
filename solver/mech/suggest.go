package mech

// Suggest returns ` (did you mean "x"?)` for the closest candidate, or "".
func Suggest(name string, candidates []string) string {
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

// ValidName reports whether s is an identifier: a letter or _, then
// letters, digits and _.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9') {
			continue
		}
		return false
	}
	return true
}
