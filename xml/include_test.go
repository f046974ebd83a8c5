package xml

import "testing"

// Names are renamed in expressions, units after numbers are not (review:
// "0.5 kg*m^2" became "0.5 kg*a_m^2" with a local named m).
func TestRenameExpr(t *testing.T) {
	loc := map[string]bool{"m": true, "s": true, "arm": true, "L": true, "k": true}
	ren := func(h string) string {
		if loc[h] {
			return "a_" + h
		}
		return h
	}
	for in, want := range map[string]string{
		"0.5 kg*m^2":       "0.5 kg*m^2",
		"5 N*s/m":          "5 N*s/m",
		"100mm":            "100mm",
		"1 1 1 kg*m^2":     "1 1 1 kg*m^2",
		"L/2, 0":           "a_L/2, 0",
		"2*m + 1e-3*s":     "2*a_m + 1e-3*a_s",
		"dx(arm.tip) - L":  "dx(a_arm.tip) - a_L",
		"-k*(x - 0.1)":     "-a_k*(x - 0.1)",
		"sin(2*pi*time)*m": "sin(2*pi*time)*a_m",
		"0.1 m, L":         "0.1 m, a_L",
		"1.5e2*mass + m2":  "1.5e2*mass + m2",
	} {
		if got := renameExpr(in, ren); got != want {
			t.Errorf("renameExpr(%q) = %q, want %q", in, got, want)
		}
	}
}
