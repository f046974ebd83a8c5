package fmu

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mbfmu/xml"
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

// parseUnit parses a unit name of a variable ("N*m", "kg*m^2", "m/s2",
// "rad/s", "kN") into FMI BaseUnit exponents. The unit table and grammar
// are those of model files (xml.ParseUnit), so that the FMU declares the
// unit the model file meant; the FMI (Modelica) spellings "N.m" and
// "m.s-2" are read as "N*m" and "m*s^-2". ok is false for a unit it does
// not know or whose exponents are not whole numbers (it is then declared
// without a BaseUnit).
func parseUnit(s string) (siUnit, bool) {
	xu, err := xml.ParseUnit(modelUnitSyntax(strings.TrimSpace(s)))
	if err != nil {
		return siUnit{}, false
	}
	res := siUnit{factor: xu.Factor}
	for i, name := range xml.BaseUnits() {
		e := xu.Exp[i]
		if e != math.Trunc(e) {
			return siUnit{}, false
		}
		k := 0
		for k < len(res.exp) && baseName(k) != name {
			k++
		}
		if k == len(res.exp) {
			if e != 0 {
				return siUnit{}, false
			}
			continue
		}
		res.exp[k] = int(e)
	}
	return res, true
}

// modelUnitSyntax rewrites the FMI (Modelica) spellings of a unit in the
// model format's: a "." before a unit name multiplies ("N.m", "kg.m2"),
// and a "-" between a unit name and a digit is a negative power ("s-2").
// Other text is left as it is.
func modelUnitSyntax(s string) string {
	if !strings.ContainsAny(s, ".-") {
		return s
	}
	var b strings.Builder
	prev := rune(0)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		next, _ := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '.' && unicode.IsLetter(next):
			b.WriteByte('*')
		case r == '-' && unicode.IsLetter(prev) && next >= '0' && next <= '9':
			b.WriteString("^-")
		default:
			b.WriteString(s[i-n : i])
		}
		prev = r
	}
	return b.String()
}

// BaseUnitAttrs returns the BaseUnit attributes of a unit name (` kg="1"
// m="2" s="-2"`, with factor when not 1), as FMI and SSP declare units,
// and whether the unit is known.
func BaseUnitAttrs(name string) (string, bool) {
	su, ok := parseUnit(name)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for k, e := range su.exp {
		if e != 0 {
			xmlAttr(&b, baseName(k), strconv.Itoa(e))
		}
	}
	if su.factor != 1 {
		xmlAttr(&b, "factor", ftoa(su.factor))
	}
	return b.String(), true
}
