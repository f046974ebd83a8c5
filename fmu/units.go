package fmu

import (
	"math"
	"strconv"
	"strings"
)

// siUnit is a unit as SI base-unit exponents with a factor to the coherent
// SI unit: value_SI = factor·value (the FMI BaseUnit convention, offset 0).
type siUnit struct {
	exp    [8]int // kg m s A K mol cd rad
	factor float64
}

// baseName is the FMI BaseUnit attribute of exponent k of siUnit.exp.
func baseName(k int) string {
	return [8]string{"kg", "m", "s", "A", "K", "mol", "cd", "rad"}[k]
}

func u(kg, m, s, a, k, rad int, f float64) siUnit {
	return siUnit{exp: [8]int{kg, m, s, a, k, 0, 0, rad}, factor: f}
}

// unitSymbol returns a known unit symbol (without prefix).
func unitSymbol(sym string) (siUnit, bool) {
	switch sym {
	case "1", "-":
		return u(0, 0, 0, 0, 0, 0, 1), true
	case "kg":
		return u(1, 0, 0, 0, 0, 0, 1), true
	case "g":
		return u(1, 0, 0, 0, 0, 0, 1e-3), true
	case "t":
		return u(1, 0, 0, 0, 0, 0, 1e3), true
	case "m":
		return u(0, 1, 0, 0, 0, 0, 1), true
	case "s":
		return u(0, 0, 1, 0, 0, 0, 1), true
	case "min":
		return u(0, 0, 1, 0, 0, 0, 60), true
	case "h":
		return u(0, 0, 1, 0, 0, 0, 3600), true
	case "A":
		return u(0, 0, 0, 1, 0, 0, 1), true
	case "K":
		return u(0, 0, 0, 0, 1, 0, 1), true
	case "rad":
		return u(0, 0, 0, 0, 0, 1, 1), true
	case "deg":
		return u(0, 0, 0, 0, 0, 1, math.Pi/180), true
	case "rev":
		return u(0, 0, 0, 0, 0, 1, 2*math.Pi), true
	case "rpm":
		return u(0, 0, -1, 0, 0, 1, 2*math.Pi/60), true
	case "N":
		return u(1, 1, -2, 0, 0, 0, 1), true
	case "Nm":
		return u(1, 2, -2, 0, 0, 0, 1), true
	case "J":
		return u(1, 2, -2, 0, 0, 0, 1), true
	case "W":
		return u(1, 2, -3, 0, 0, 0, 1), true
	case "Pa":
		return u(1, -1, -2, 0, 0, 0, 1), true
	case "bar":
		return u(1, -1, -2, 0, 0, 0, 1e5), true
	case "Hz":
		return u(0, 0, -1, 0, 0, 0, 1), true
	case "V":
		return u(1, 2, -3, -1, 0, 0, 1), true
	case "%":
		return u(0, 0, 0, 0, 0, 0, 0.01), true
	}
	return siUnit{}, false
}

// prefixes are the SI prefixes understood in front of a unit symbol.
func prefixes() [8]struct {
	p string
	f float64
} {
	return [8]struct {
		p string
		f float64
	}{{"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"c", 1e-2}, {"m", 1e-3}, {"u", 1e-6}, {"µ", 1e-6}, {"n", 1e-9}}
}

// parseUnit parses a unit string such as "N.m", "kg*m^2", "m/s2", "rad/s",
// "N.m.s/rad" or "kN" into SI base-unit exponents. ok is false for a unit
// it does not know (it is then declared without a BaseUnit).
func parseUnit(s string) (siUnit, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return siUnit{}, false
	}
	res := u(0, 0, 0, 0, 0, 0, 1)
	for i, part := range strings.Split(s, "/") {
		sign := 1
		if i > 0 {
			sign = -1
		}
		fields := strings.FieldsFunc(part, func(r rune) bool {
			return r == '.' || r == '*' || r == '·' || r == ' ' || r == '\u22c5'
		})
		if len(fields) == 0 {
			if part == "1" || (i == 0 && strings.TrimSpace(part) == "") {
				continue
			}
			return siUnit{}, false
		}
		for _, f := range fields {
			fu, ok := parseFactor(f)
			if !ok {
				return siUnit{}, false
			}
			for k := range res.exp {
				res.exp[k] += sign * fu.exp[k]
			}
			if sign > 0 {
				res.factor *= fu.factor
			} else {
				res.factor /= fu.factor
			}
		}
	}
	return res, true
}

// parseFactor parses one symbol with an optional exponent: "m", "m2",
// "m^2", "s-2", "s^-2", "kN".
func parseFactor(f string) (siUnit, bool) {
	sym, e := f, 1
	if i := strings.IndexByte(f, '^'); i >= 0 {
		n, err := strconv.Atoi(f[i+1:])
		if err != nil {
			return siUnit{}, false
		}
		sym, e = f[:i], n
	} else if j := strings.IndexAny(f, "-0123456789"); j > 0 {
		n, err := strconv.Atoi(f[j:])
		if err != nil {
			return siUnit{}, false
		}
		sym, e = f[:j], n
	}
	base, ok := unitSymbol(sym)
	if !ok {
		for _, p := range prefixes() {
			if rest, found := strings.CutPrefix(sym, p.p); found && rest != "" {
				if b, ok2 := unitSymbol(rest); ok2 && rest != "kg" && rest != "min" && rest != "%" && rest != "1" && rest != "-" {
					base, ok = b, true
					base.factor *= p.f
					break
				}
			}
		}
	}
	if !ok {
		return siUnit{}, false
	}
	out := siUnit{factor: math.Pow(base.factor, float64(e))}
	for k := range base.exp {
		out.exp[k] = base.exp[k] * e
	}
	return out, true
}
