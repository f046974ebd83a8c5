package mech

import "mbfmu/suggest"

// Suggest returns ` (did you mean "x"?)` for the closest candidate, or "".
func Suggest(name string, candidates []string) string {
	best, bd := "", 1<<30
	for _, c := range candidates {
		if d := suggest.Distance(name, c); d < bd {
			best, bd = c, d
		}
	}
	if best != "" && bd <= 2+len(name)/4 {
		return " (did you mean \"" + best + "\"?)"
	}
	return ""
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
