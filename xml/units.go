package xml

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dim is the physical dimension an attribute expects. A number with a unit
// is converted to SI and its unit must have the expected dimension; a plain
// number is taken to be in SI units already.
//
// For checking units, angle is treated as a base dimension of its own
// (rad), so that a torque (N·m) and a rotational stiffness (N·m/rad), or a
// frequency (Hz) and an angular velocity (rad/s), are told apart.
type Dim int

// The dimensions. Any accepts every unit (it is converted to SI whatever
// its dimension).
const (
	Dimensionless       Dim = iota // a plain number
	Length                         // m
	Mass                           // kg
	Time                           // s
	Angle                          // rad
	Inertia                        // kg·m²
	Force                          // N
	Torque                         // N·m (also energy, J)
	Stiffness                      // N/m
	Damping                        // N·s/m
	RotStiffness                   // N·m/rad
	RotDamping                     // N·m·s/rad
	Velocity                       // m/s
	AngularVelocity                // rad/s
	Acceleration                   // m/s²
	AngularAcceleration            // rad/s²
	Pressure                       // Pa
	Density                        // kg/m³
	Area                           // m²
	AreaMoment                     // m⁴ (second moment of area)
	FlexuralRigidity               // N·m² (a beam's EI or GJ)
	LinearDensity                  // kg/m (mass per length)
	LineLoad                       // N/m (a force per length)
	Frequency                      // Hz = 1/s
	Any                            // any unit, converted to SI
	numDims
)

// dims holds the exponents of a unit in the base units kg, m, s, rad
// (BaseUnits).
type dims [4]float64

// BaseUnits returns the names of the base units that Unit.Exp counts, in
// order: kg, m, s and rad. Angle is a base dimension of its own (see Dim).
func BaseUnits() [4]string { return [4]string{"kg", "m", "s", "rad"} }

// dimInfo describes a Dim for messages and documentation.
type dimInfo struct {
	name  string // "mass"
	vec   dims
	si    string // SI unit as written in the spec's Unit fields
	units string // what to write: "kg (or g, t)"
}

func dimTable() [numDims]dimInfo {
	return [numDims]dimInfo{
		Dimensionless:       {"dimensionless", dims{}, "1", "a plain number"},
		Length:              {"length", dims{0, 1, 0, 0}, "m", "m (or mm, cm, km)"},
		Mass:                {"mass", dims{1, 0, 0, 0}, "kg", "kg (or g, t)"},
		Time:                {"time", dims{0, 0, 1, 0}, "s", "s (or ms, us, min, h)"},
		Angle:               {"angle", dims{0, 0, 0, 1}, "rad", "rad (or deg, rev)"},
		Inertia:             {"moment of inertia", dims{1, 2, 0, 0}, "kg*m^2", "kg*m^2 (or kg*mm^2, g*mm^2)"},
		Force:               {"force", dims{1, 1, -2, 0}, "N", "N (or kN, mN)"},
		Torque:              {"torque", dims{1, 2, -2, 0}, "N*m", "N*m (or N*mm, kN*m)"},
		Stiffness:           {"stiffness", dims{1, 0, -2, 0}, "N/m", "N/m (or N/mm, kN/m)"},
		Damping:             {"damping", dims{1, 0, -1, 0}, "N*s/m", "N*s/m (or N*s/mm)"},
		RotStiffness:        {"rotational stiffness", dims{1, 2, -2, -1}, "N*m/rad", "N*m/rad (or N*m/deg, N*mm/deg)"},
		RotDamping:          {"rotational damping", dims{1, 2, -1, -1}, "N*m*s/rad", "N*m*s/rad (or N*m*s/deg)"},
		Velocity:            {"velocity", dims{0, 1, -1, 0}, "m/s", "m/s (or mm/s, km/h)"},
		AngularVelocity:     {"angular velocity", dims{0, 0, -1, 1}, "rad/s", "rad/s (or deg/s, rpm)"},
		Acceleration:        {"acceleration", dims{0, 1, -2, 0}, "m/s^2", "m/s^2 (or mm/s^2)"},
		AngularAcceleration: {"angular acceleration", dims{0, 0, -2, 1}, "rad/s^2", "rad/s^2 (or deg/s^2)"},
		Pressure:            {"pressure", dims{1, -1, -2, 0}, "Pa", "Pa (or kPa, MPa, GPa, N/mm^2)"},
		Density:             {"density", dims{1, -3, 0, 0}, "kg/m^3", "kg/m^3 (or g/cm^3)"},
		Area:                {"area", dims{0, 2, 0, 0}, "m^2", "m^2 (or mm^2, cm^2)"},
		AreaMoment:          {"second moment of area", dims{0, 4, 0, 0}, "m^4", "m^4 (or mm^4, cm^4)"},
		FlexuralRigidity:    {"flexural rigidity", dims{1, 3, -2, 0}, "N*m^2", "N*m^2 (or N*mm^2, kN*m^2)"},
		LinearDensity:       {"mass per length", dims{1, -1, 0, 0}, "kg/m", "kg/m (or g/m)"},
		LineLoad:            {"force per length", dims{1, 0, -2, 0}, "N/m", "N/m (or N/mm, kN/m)"},
		Frequency:           {"frequency", dims{0, 0, -1, 0}, "Hz", "Hz (or 1/s)"},
		Any:                 {"any quantity", dims{}, "", "any unit"},
	}
}

// String returns the name of the dimension ("mass", "angular velocity").
func (d Dim) String() string {
	if d < 0 || d >= numDims {
		return "Dim(" + strconv.Itoa(int(d)) + ")"
	}
	return dimTable()[d].name
}

// SI returns the SI unit of the dimension as the parser writes it into the
// Unit fields of the spec ("kg", "N*m/rad"); "" for Any.
func (d Dim) SI() string {
	if d < 0 || d >= numDims {
		return ""
	}
	return dimTable()[d].si
}

// unitAtom is one named unit of the unit table.
type unitAtom struct {
	name   string
	dec    int     // power of ten of the SI value of one unit
	factor float64 // rest of the SI value (1, 60, π/180, ...)
	vec    dims
	doc    string
}

// numAtoms is the number of unit names.
const numAtoms = 43

// unitAtoms is the table of unit names. Compound units are written with
// these and *, ·, space, / and ^ (see parseUnit).
func unitAtoms() [numAtoms]unitAtom {
	const deg = math.Pi / 180
	L, M, T, A := dims{0, 1, 0, 0}, dims{1, 0, 0, 0}, dims{0, 0, 1, 0}, dims{0, 0, 0, 1}
	F := dims{1, 1, -2, 0}
	E := dims{1, 2, -2, 0}
	P := dims{1, -1, -2, 0}
	return [numAtoms]unitAtom{
		{"m", 0, 1, L, "metre"},
		{"mm", -3, 1, L, "millimetre"},
		{"cm", -2, 1, L, "centimetre"},
		{"km", 3, 1, L, "kilometre"},
		{"um", -6, 1, L, "micrometre"},
		{"µm", -6, 1, L, "micrometre"},
		{"μm", -6, 1, L, "micrometre"},
		{"kg", 0, 1, M, "kilogram"},
		{"g", -3, 1, M, "gram"},
		{"mg", -6, 1, M, "milligram"},
		{"t", 3, 1, M, "tonne"},
		{"s", 0, 1, T, "second"},
		{"ms", -3, 1, T, "millisecond"},
		{"us", -6, 1, T, "microsecond"},
		{"µs", -6, 1, T, "microsecond"},
		{"μs", -6, 1, T, "microsecond"},
		{"min", 0, 60, T, "minute"},
		{"h", 0, 3600, T, "hour"},
		{"rad", 0, 1, A, "radian"},
		{"mrad", -3, 1, A, "milliradian"},
		{"deg", 0, deg, A, "degree"},
		{"°", 0, deg, A, "degree"},
		{"rev", 0, 2 * math.Pi, A, "revolution"},
		{"rpm", 0, 2 * math.Pi / 60, dims{0, 0, -1, 1}, "revolution per minute (angular velocity)"},
		{"Hz", 0, 1, dims{0, 0, -1, 0}, "hertz (1/s)"},
		{"kHz", 3, 1, dims{0, 0, -1, 0}, "kilohertz"},
		{"N", 0, 1, F, "newton"},
		{"mN", -3, 1, F, "millinewton"},
		{"kN", 3, 1, F, "kilonewton"},
		{"MN", 6, 1, F, "meganewton"},
		{"Nm", 0, 1, E, "newton metre (= N*m)"},
		{"Nmm", -3, 1, E, "newton millimetre (= N*mm)"},
		{"kNm", 3, 1, E, "kilonewton metre (= kN*m)"},
		{"J", 0, 1, E, "joule"},
		{"kJ", 3, 1, E, "kilojoule"},
		{"W", 0, 1, dims{1, 2, -3, 0}, "watt"},
		{"kW", 3, 1, dims{1, 2, -3, 0}, "kilowatt"},
		{"Pa", 0, 1, P, "pascal"},
		{"kPa", 3, 1, P, "kilopascal"},
		{"MPa", 6, 1, P, "megapascal"},
		{"GPa", 9, 1, P, "gigapascal"},
		{"bar", 5, 1, P, "bar"},
		{"1", 0, 1, dims{}, "dimensionless one, as in 1/s"},
	}
}

// unitVal is a parsed unit: the value of one unit in SI is
// factor·10^dec (kept apart so that decimal prefixes convert exactly:
// "100 g*mm^2" is 1e-7, not 1.0000000000000001e-07), and its dimension.
type unitVal struct {
	factor float64
	dec    float64
	vec    dims
}

// isSI reports whether the unit's SI value is exactly 1.
func (u unitVal) isSI() bool { return u.factor == 1 && u.dec == 0 }

// toSI converts x in unit u to SI. The decimal power is applied to the
// shortest decimal form of x, so 500 mm is exactly 0.5. The result may be
// ±Inf for values out of range.
func (u unitVal) toSI(x float64) float64 {
	if u.dec != 0 {
		if u.dec == math.Trunc(u.dec) && math.Abs(u.dec) < 1000 {
			m, e, _ := strings.Cut(strconv.FormatFloat(x, 'e', -1, 64), "e")
			n, _ := strconv.Atoi(e)
			x, _ = strconv.ParseFloat(m+"e"+strconv.Itoa(n+int(u.dec)), 64)
		} else {
			x *= math.Pow(10, u.dec)
		}
	}
	return x * u.factor
}

// parseUnit parses a unit expression: factors joined by "*", "·", "⋅" or
// spaces, "/" dividing by the next factor, powers as "^n" ("^-1", "^1.5"),
// "**n", a trailing digit ("m2") or a superscript (m², m³, m⁴), and
// parentheses: "N*m*s/rad", "kg/m^3", "kg/(m*s^2)", "N·m/deg", "1/s".
func parseUnit(s string) (unitVal, error) {
	p := unitParser{s: s}
	p.skipSpace()
	if p.eof() {
		return unitVal{}, fmt.Errorf("empty unit")
	}
	u, err := p.product(0)
	if err != nil {
		return unitVal{}, err
	}
	if !p.eof() {
		return unitVal{}, fmt.Errorf("bad unit %q: unexpected %q", s, p.s[p.i:])
	}
	if f := u.scale(); math.IsInf(f, 0) || math.IsNaN(f) || f == 0 {
		return unitVal{}, fmt.Errorf("bad unit %q: scale out of range", s)
	}
	return u, nil
}

// Unit is a unit resolved to SI base units: one unit is worth Factor
// times the product of the base units raised to Exp.
type Unit struct {
	// Factor is the SI value of one unit: 1000 for "kN", π/180 for "deg",
	// 1 for an SI unit such as "N*m/rad".
	Factor float64
	// Exp holds the exponents of the base units named by BaseUnits (kg, m,
	// s, rad): {1, 2, -2, 0} for "N*m". They may be fractional ("m^0.5").
	Exp [4]float64
}

// ParseUnit parses a unit as a model file writes it, with the unit table
// the model parser converts values with: names of the table (kg, mm, kN,
// deg, rpm, ...) joined by "*", "·" or spaces, "/" dividing by the next
// factor, powers as "^n", a trailing digit or a superscript, and
// parentheses ("N*m/rad", "kg*m^2", "m/s2", "kN", "deg", "1/s").
// The error says what is wrong: `unknown unit "kgs"; did you mean "kg"?`.
func ParseUnit(s string) (Unit, error) {
	u, err := parseUnit(s)
	if err != nil {
		return Unit{}, err
	}
	return Unit{Factor: u.scale(), Exp: u.vec}, nil
}

// scale is the SI value of one unit, factor·10^dec.
func (u unitVal) scale() float64 { return u.factor * math.Pow(10, u.dec) }

type unitParser struct {
	s string
	i int
}

func (p *unitParser) eof() bool { return p.i >= len(p.s) }

func (p *unitParser) peek() rune {
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return r
}

func (p *unitParser) skipSpace() bool {
	start := p.i
	for !p.eof() {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if !unicode.IsSpace(r) {
			break
		}
		p.i += n
	}
	return p.i > start
}

// product parses factor ((op) factor)* up to the end or a ")".
func (p *unitParser) product(depth int) (unitVal, error) {
	if depth > 8 {
		return unitVal{}, fmt.Errorf("bad unit %q: too deeply nested", p.s)
	}
	u, err := p.power(depth)
	if err != nil {
		return u, err
	}
	for {
		space := p.skipSpace()
		if p.eof() || p.peek() == ')' {
			return u, nil
		}
		div := false
		switch r := p.peek(); r {
		case '*', '·', '⋅':
			p.i += utf8.RuneLen(r)
		case '/':
			p.i++
			div = true
		default:
			if !space {
				return unitVal{}, fmt.Errorf("bad unit %q: unexpected %q", p.s, p.s[p.i:])
			}
		}
		p.skipSpace()
		v, err := p.power(depth)
		if err != nil {
			return v, err
		}
		if div {
			v = unitPow(v, -1)
		}
		u = unitMul(u, v)
	}
}

// power parses atom [exponent].
func (p *unitParser) power(depth int) (unitVal, error) {
	var u unitVal
	if p.eof() {
		return u, fmt.Errorf("bad unit %q: missing unit after operator", p.s)
	}
	switch r := p.peek(); {
	case r == '(':
		p.i++
		p.skipSpace()
		v, err := p.product(depth + 1)
		if err != nil {
			return v, err
		}
		if p.eof() || p.peek() != ')' {
			return v, fmt.Errorf("bad unit %q: missing )", p.s)
		}
		p.i++
		u = v
	case r == '1':
		p.i++
		u = unitVal{factor: 1}
	case isUnitLetter(r):
		start := p.i
		for !p.eof() && isUnitLetter(p.peek()) {
			p.i += utf8.RuneLen(p.peek())
		}
		name := p.s[start:p.i]
		a, ok := p.atom(name)
		if !ok {
			return u, unknownUnitError(name)
		}
		u = unitVal{factor: a.factor, dec: float64(a.dec), vec: a.vec}
		// A digit right after a unit name is a power: m2, kg/m3.
		if !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
			start := p.i
			for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
				p.i++
			}
			n, _ := strconv.Atoi(p.s[start:p.i])
			if n > 12 {
				return u, fmt.Errorf("bad unit %q: power %d too large", p.s, n)
			}
			return unitPow(u, float64(n)), nil
		}
	default:
		return u, fmt.Errorf("bad unit %q: unexpected %q", p.s, p.s[p.i:])
	}
	// Exponent.
	switch {
	case strings.HasPrefix(p.s[p.i:], "^"), strings.HasPrefix(p.s[p.i:], "**"):
		if p.s[p.i] == '^' {
			p.i++
		} else {
			p.i += 2
		}
		start := p.i
		if !p.eof() && (p.peek() == '-' || p.peek() == '+') {
			p.i++
		}
		for !p.eof() && (p.peek() >= '0' && p.peek() <= '9' || p.peek() == '.') {
			p.i++
		}
		e, err := strconv.ParseFloat(p.s[start:p.i], 64)
		if err != nil || math.Abs(e) > 12 {
			return u, fmt.Errorf("bad unit %q: bad power %q", p.s, p.s[start:p.i])
		}
		return unitPow(u, e), nil
	}
	switch p.peek() {
	case '²':
		p.i += utf8.RuneLen('²')
		return unitPow(u, 2), nil
	case '³':
		p.i += utf8.RuneLen('³')
		return unitPow(u, 3), nil
	case '⁴':
		p.i += utf8.RuneLen('⁴')
		return unitPow(u, 4), nil
	}
	return u, nil
}

func (p *unitParser) atom(name string) (unitAtom, bool) {
	tbl := unitAtoms()
	for _, a := range tbl {
		if a.name == name {
			return a, true
		}
	}
	return unitAtom{}, false
}

func isUnitLetter(r rune) bool {
	return r == '°' || r == 'µ' || r == 'μ' || (unicode.IsLetter(r) && r < 0x2000)
}

func unknownUnitError(name string) error {
	var names []string
	for _, a := range unitAtoms() {
		if a.name != "1" {
			names = append(names, a.name)
		}
	}
	return fmt.Errorf("unknown unit %q%s", name, DidYouMean(name, names))
}

func unitMul(a, b unitVal) unitVal {
	r := unitVal{factor: a.factor * b.factor, dec: a.dec + b.dec}
	for i := range r.vec {
		r.vec[i] = a.vec[i] + b.vec[i]
	}
	return r
}

func unitPow(a unitVal, e float64) unitVal {
	r := unitVal{dec: a.dec * e}
	switch {
	case e == math.Trunc(e) && math.Abs(e) <= 12:
		// Exact products: 1/(π/180) rather than Pow's rounding.
		r.factor = 1
		for i := 0; i < int(math.Abs(e)); i++ {
			r.factor *= a.factor
		}
		if e < 0 {
			r.factor = 1 / r.factor
		}
	default:
		r.factor = math.Pow(a.factor, e)
	}
	for i := range r.vec {
		r.vec[i] = a.vec[i] * e
	}
	return r
}

// describeDims names a dimension vector: "is a length", "is dimensionless",
// or "has dimension kg*m^-1".
func describeDims(v dims) string {
	t := dimTable()
	if v == (dims{}) {
		return "is dimensionless"
	}
	for d := Dimensionless + 1; d < Any; d++ {
		if t[d].vec == v {
			return "is " + article(t[d].name) + " " + t[d].name
		}
	}
	return "has dimension " + siName(v)
}

// siName returns the SI unit for a dimension vector: a named one ("N/m")
// when the vector is one of the Dims, else a product of base units.
func siName(v dims) string {
	t := dimTable()
	if v == (dims{}) {
		return ""
	}
	for d := Dimensionless + 1; d < Any; d++ {
		if t[d].vec == v {
			return t[d].si
		}
	}
	base := BaseUnits()
	var parts []string
	for i, e := range v {
		switch {
		case e == 0:
		case e == 1:
			parts = append(parts, base[i])
		default:
			parts = append(parts, base[i]+"^"+strconv.FormatFloat(e, 'g', -1, 64))
		}
	}
	return strings.Join(parts, "*")
}

func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an"
	}
	return "a"
}

// dimError reports a unit of the wrong dimension:
// `unit "m" is a length; mass needs kg (or g, t)`.
func dimError(unit string, u unitVal, want Dim) error {
	info := dimTable()[want]
	if want == Dimensionless {
		return fmt.Errorf("unit %q %s; expected a plain number (dimensionless)", unit, describeDims(u.vec))
	}
	return fmt.Errorf("unit %q %s; %s needs %s", unit, describeDims(u.vec), info.name, info.units)
}

// checkDim returns an error when u does not have dimension want.
func checkDim(unit string, u unitVal, want Dim) error {
	if want == Any || want < 0 || want >= numDims {
		return nil
	}
	if u.vec != dimTable()[want].vec {
		return dimError(unit, u, want)
	}
	return nil
}

// ParseQuantity parses a number with an optional unit ("500 g", "30 deg",
// "1e4 N/m", "2.5", "500mm") and returns its value in SI units. A plain
// number is taken to be in SI already. The unit must have dimension dim
// (any unit is accepted for Any):
//
//	ParseQuantity("500 g", Mass)   // 0.5
//	ParseQuantity("500 m", Mass)   // error: unit "m" is a length; mass needs kg (or g, t)
//
// Expressions are not quantities: ParseQuantity("L/2", Length) is an error.
func ParseQuantity(s string, dim Dim) (float64, error) {
	sc, err := parseScalar(s)
	if err != nil {
		return 0, err
	}
	if sc.expr {
		return 0, fmt.Errorf("%q is not a number (with an optional unit)", strings.TrimSpace(s))
	}
	if sc.unit != "" {
		if err := checkDim(sc.unit, sc.u, dim); err != nil {
			return 0, err
		}
	}
	return sc.value, nil
}

// ParseQuantityIn parses a value for a quantity declared in unit: a
// parameter's or an input's unit as a model file records it (spec.Param.Unit,
// an SI unit such as "N/m") or as an FMU declares it ("deg", "N/m"). A plain
// number is taken to be in the declared unit already. A number with a unit
// must have the declared unit's dimension and is converted to the declared
// unit:
//
//	ParseQuantityIn("2 kN/m", "N/m") // 2000
//	ParseQuantityIn("20 kg", "N/m")  // error: unit "kg" is a mass, but the quantity is in N/m (a stiffness)
//	ParseQuantityIn("90 deg", "rad") // π/2
//
// When unit is empty, or not a unit this package knows, any unit is
// accepted and the value is converted to SI.
func ParseQuantityIn(s, unit string) (float64, error) {
	sc, err := parseScalar(s)
	if err != nil {
		return 0, err
	}
	if sc.expr {
		return 0, fmt.Errorf("%q is not a number (with an optional unit)", strings.TrimSpace(s))
	}
	if sc.unit == "" || strings.TrimSpace(unit) == "" {
		return sc.value, nil
	}
	du, err := parseUnit(unit)
	if err != nil {
		return sc.value, nil // a unit name of an FMU we cannot check
	}
	if du.vec != sc.u.vec {
		what := describeDims(du.vec)
		what = strings.TrimPrefix(strings.TrimPrefix(what, "is "), "has ")
		return 0, fmt.Errorf("unit %q %s, but the quantity is in %s (%s)", sc.unit, describeDims(sc.u.vec), unit, what)
	}
	if du.isSI() {
		return sc.value, nil
	}
	v := sc.value / du.scale()
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("number %q is out of range", strings.TrimSpace(s))
	}
	return v, nil
}

// scalar is a parsed numeric attribute.
type scalar struct {
	expr  bool    // an expression (kept as text), not a number
	value float64 // SI value when !expr
	unit  string  // unit as written ("" for a plain number)
	u     unitVal // parsed unit
}

// parseScalar classifies and parses a scalar attribute value:
//
//   - a plain number: "2.5", "-1e-3";
//   - a number followed by a unit (with or without a space): "500 mm",
//     "500mm", "1e4 N/m", "10 1/s";
//   - anything else is an expression in SI units, kept as text ("L/2",
//     "2*pi*time").
//
// Text that starts like a number but is neither (such as "1.2.3" or
// "2 kgg") is an error, since it is not a valid expression either.
func parseScalar(s string) (scalar, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return scalar{}, fmt.Errorf("empty value")
	}
	n := numberPrefix(s)
	if n == 0 {
		return scalar{expr: true}, nil
	}
	// A number that goes on like a number ("1.2.3", "2e", "1e4e5") is bad.
	if rest := s[n:]; rest != "" {
		bad := rest[0] == '.'
		if rest[0] == 'e' || rest[0] == 'E' {
			bad = len(rest) == 1 || strings.IndexByte("+-0123456789", rest[1]) >= 0
		}
		if bad {
			return scalar{}, fmt.Errorf("%q is not a number", firstWord(s))
		}
	}
	v, err := strconv.ParseFloat(s[:n], 64)
	if err != nil || math.IsInf(v, 0) {
		return scalar{}, fmt.Errorf("number %q is out of range", s[:n])
	}
	rest := s[n:]
	if rest == "" {
		return scalar{value: v}, nil
	}
	unit := strings.TrimSpace(rest)
	first, _ := utf8.DecodeRuneInString(unit)
	switch {
	case strings.HasPrefix(unit, "1/"), strings.HasPrefix(unit, "1 /"):
	case first >= '0' && first <= '9' || first == '.':
		return scalar{}, fmt.Errorf("%q is not a number", s)
	case !isUnitLetter(first) && first != '(':
		// "2*k", "2 / 3", "1-x": an expression.
		return scalar{expr: true}, nil
	}
	if first == '(' && !looksLikeUnit(unit) {
		return scalar{expr: true}, nil
	}
	u, err := parseUnit(unit)
	if err != nil {
		if looksLikeUnit(unit) {
			return scalar{}, err
		}
		return scalar{expr: true}, nil
	}
	v = u.toSI(v)
	if math.IsInf(v, 0) {
		return scalar{}, fmt.Errorf("number %q is out of range", s)
	}
	return scalar{value: v, unit: unit, u: u}, nil
}

// isUnitStart reports whether s begins like a unit.
func isUnitStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isUnitLetter(r) || strings.HasPrefix(s, "1/")
}

// looksLikeUnit reports whether s is made only of characters that units
// use (so that a failed unit parse is a unit error, not an expression).
func looksLikeUnit(s string) bool {
	for _, r := range s {
		if !(isUnitLetter(r) || unicode.IsSpace(r) || r >= '0' && r <= '9' || strings.ContainsRune("*·⋅/^()-.²³⁴", r)) {
			return false
		}
	}
	return true
}

// numberPrefix returns the length of the longest decimal number at the
// start of s (optional sign, digits, point, exponent), or 0.
func numberPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}

// formatNumber writes an SI value as expression text that reads back exactly.
func formatNumber(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// firstWord returns s up to its first white space.
func firstWord(s string) string {
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i]
	}
	return s
}
