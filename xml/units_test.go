package xml

import (
	"math"
	"strings"
	"testing"
)

// Hand values: each want is worked out from the unit's definition, not by
// the code under test.
func TestParseQuantity(t *testing.T) {
	const deg = math.Pi / 180
	tests := []struct {
		in   string
		dim  Dim
		want float64
		tol  float64 // relative; 0: exact
	}{
		{"500 g", Mass, 0.5, 0},
		{"500g", Mass, 0.5, 0},
		{"2 t", Mass, 2000, 0},
		{"1 kg", Mass, 1, 0},
		{"30 deg", Angle, math.Pi / 6, 1e-15},
		{"30°", Angle, math.Pi / 6, 1e-15},
		{"2 rev", Angle, 4 * math.Pi, 0},
		{"5 mrad", Angle, 0.005, 0},
		{"1 N*m/deg", RotStiffness, 57.29577951308232, 1e-15},
		{"1 N·m/deg", RotStiffness, 57.29577951308232, 1e-15},
		{"1 Nm/rad", RotStiffness, 1, 0},
		{"1e6 N*m/rad", RotStiffness, 1e6, 0},
		{"1 N*m*s/deg", RotDamping, 57.29577951308232, 1e-15},
		{"1 N*mm/deg", RotStiffness, 0.05729577951308232, 1e-15},
		{"1 g/cm^3", Density, 1000, 0},
		{"7.85 g/cm^3", Density, 7850, 0},
		{"1 kg/m3", Density, 1, 0},
		{"1 rpm", AngularVelocity, 2 * math.Pi / 60, 1e-15},
		{"60 rpm", AngularVelocity, 2 * math.Pi, 1e-15},
		{"90 deg/s", AngularVelocity, math.Pi / 2, 1e-15},
		{"1 rad/s", AngularVelocity, 1, 0},
		{"36 km/h", Velocity, 10, 1e-15},
		{"250 mm/s", Velocity, 0.25, 0},
		{"9.81 m/s^2", Acceleration, 9.81, 0},
		{"9810 mm/s²", Acceleration, 9.81, 0},
		{"180 deg/s^2", AngularAcceleration, math.Pi, 1e-15},
		{"2 kN", Force, 2000, 0},
		{"3 mN", Force, 0.003, 0},
		{"2 kN*m", Torque, 2000, 0},
		{"2 kNm", Torque, 2000, 0},
		{"2 N m", Torque, 2, 0},
		{"2 N⋅m", Torque, 2, 0},
		{"1500 N*mm", Torque, 1.5, 0},
		{"3 J", Torque, 3, 0},
		{"1e4 N/m", Stiffness, 1e4, 0},
		{"10 N/mm", Stiffness, 1e4, 0},
		{"10 kN/m", Stiffness, 1e4, 0},
		{"10 N*s/m", Damping, 10, 0},
		{"1 N*s/mm", Damping, 1000, 0},
		{"1 kg/s", Damping, 1, 0},
		{"100 g*mm^2", Inertia, 1e-7, 0},
		{"1 kg*mm^2", Inertia, 1e-6, 0},
		{"0.0833 kg*m^2", Inertia, 0.0833, 0},
		{"1 kg m²", Inertia, 1, 0},
		{"210 GPa", Pressure, 2.1e11, 0},
		{"210000 N/mm^2", Pressure, 2.1e11, 0},
		{"1 kg/(m*s^2)", Pressure, 1, 0},
		{"2 bar", Pressure, 2e5, 0},
		{"5 kPa", Pressure, 5000, 0},
		{"3 MPa", Pressure, 3e6, 0},
		{"4 mm^2", Area, 4e-6, 0},
		{"4 cm^2", Area, 4e-4, 0},
		{"8 mm^4", AreaMoment, 8e-12, 0},
		{"8 cm**4", AreaMoment, 8e-8, 0},
		{"8 m⁴", AreaMoment, 8, 0},
		{"10 ms", Time, 0.01, 0},
		{"10 us", Time, 1e-5, 0},
		{"10 µs", Time, 1e-5, 0},
		{"2 min", Time, 120, 0},
		{"1.5 h", Time, 5400, 0},
		{"500 mm", Length, 0.5, 0},
		{"3 km", Length, 3000, 0},
		{"2.5 cm", Length, 0.025, 0},
		{"-3 mm", Length, -0.003, 0},
		{"+2 m", Length, 2, 0},
		{".5 m", Length, 0.5, 0},
		{"1e-3 m", Length, 1e-3, 0},
		{"1E3mm", Length, 1, 0},
		{"50 Hz", Frequency, 50, 0},
		{"10 1/s", Frequency, 10, 0},
		{"2 kHz", Frequency, 2000, 0},
		{"0.8", Dimensionless, 0.8, 0},
		{"2.5", Length, 2.5, 0},
		{"1e3 N/m^1.5", Any, 1e3, 0},
		{"1 N/mm^1.5", Any, math.Pow(10, 4.5), 1e-15},
		{"3 kW", Any, 3000, 0},
		{"7 kg/m", Any, 7, 0},
		{"1 deg", Any, deg, 0},
	}
	for _, tc := range tests {
		got, err := ParseQuantity(tc.in, tc.dim)
		if err != nil {
			t.Errorf("ParseQuantity(%q, %v): %v", tc.in, tc.dim, err)
			continue
		}
		if tc.tol == 0 && got != tc.want || math.Abs(got-tc.want) > tc.tol*math.Abs(tc.want) {
			t.Errorf("ParseQuantity(%q, %v) = %.17g, want %.17g", tc.in, tc.dim, got, tc.want)
		}
	}
}

func TestParseQuantityErrors(t *testing.T) {
	tests := []struct {
		in   string
		dim  Dim
		want string
	}{
		{"500 m", Mass, `unit "m" is a length; mass needs kg (or g, t)`},
		{"1 Hz", AngularVelocity, `unit "Hz" is a frequency; angular velocity needs rad/s (or deg/s, rpm)`},
		{"1 N*m", RotStiffness, `unit "N*m" is a torque; rotational stiffness needs N*m/rad (or N*m/deg, N*mm/deg)`},
		{"1 N*m/rad", Torque, `unit "N*m/rad" is a rotational stiffness; torque needs N*m (or N*mm, kN*m)`},
		{"1 kg/m", Mass, `unit "kg/m" is a mass per length; mass needs kg (or g, t)`},
		{"3 m", Dimensionless, `unit "m" is a length; expected a plain number (dimensionless)`},
		{"3 deg", Length, `unit "deg" is an angle; length needs m (or mm, cm, km)`},
		{"2 kgg", Mass, `unknown unit "kgg"; did you mean "kg"?`},
		{"2 KG", Mass, `unknown unit "KG"; did you mean "kg"?`},
		{"2 zz", Mass, `unknown unit "zz"`},
		{"1.2.3", Length, `"1.2.3" is not a number`},
		{"1.2.3 m", Length, `"1.2.3" is not a number`},
		{"2e", Length, `"2e" is not a number`},
		{"1e4e5", Length, `"1e4e5" is not a number`},
		{"1 000", Length, `"1 000" is not a number`},
		{"1e999", Length, `number "1e999" is out of range`},
		{"1e305 km^2", Area, `number "1e305 km^2" is out of range`},
		{"", Length, `empty value`},
		{"  ", Length, `empty value`},
		{"L/2", Length, `"L/2" is not a number (with an optional unit)`},
		{"2*pi", Angle, `"2*pi" is not a number (with an optional unit)`},
		{"1 m^", Length, `bad unit "m^": bad power ""`},
		{"1 m/", Length, `bad unit "m/": missing unit after operator`},
		{"1 (m", Length, `bad unit "(m": missing )`},
		{"1 m^99", Length, `bad unit "m^99": bad power "99"`},
	}
	for _, tc := range tests {
		got, err := ParseQuantity(tc.in, tc.dim)
		if err == nil {
			t.Errorf("ParseQuantity(%q, %v) = %g, want error %q", tc.in, tc.dim, got, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("ParseQuantity(%q, %v) error\n got %q\nwant %q", tc.in, tc.dim, err, tc.want)
		}
	}
}

// Number-then-operator text is an expression, kept for the solver.
func TestParseScalarExpressions(t *testing.T) {
	for _, s := range []string{"L/2", "2*pi*time", "-x", "2 / 3", "1-1", "0.5*L", "k*2",
		"dx(link.tip) - 1", "step(time, 0, 0, 1, 1)", "if(time > 1, 2, 0)", "(1+2)*3", "2 * k"} {
		sc, err := parseScalar(s)
		if err != nil || !sc.expr {
			t.Errorf("parseScalar(%q) = %+v, %v; want an expression", s, sc, err)
		}
	}
}

func TestDimStrings(t *testing.T) {
	for d := Dimensionless; d < numDims; d++ {
		if d.String() == "" || (d != Any && d.SI() == "") {
			t.Errorf("Dim %d has no name or SI unit", d)
		}
		if d == Any || d == Dimensionless {
			continue
		}
		// The SI unit of every dimension parses back to that dimension with value 1.
		v, err := ParseQuantity("1 "+d.SI(), d)
		if err != nil || v != 1 {
			t.Errorf("1 %s as %v = %g, %v", d.SI(), d, v, err)
		}
	}
	if got := Dim(99).String(); got != "Dim(99)" {
		t.Errorf("Dim(99).String() = %q", got)
	}
}

func TestUnitAtomsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range unitAtoms() {
		if seen[a.name] {
			t.Errorf("unit %q twice in the table", a.name)
		}
		seen[a.name] = true
	}
}

// ParseQuantityIn checks a value against a declared unit: plain numbers
// are in that unit, others are converted to it (factors by hand: 1 kN =
// 1000 N, 1 deg = π/180 rad, 1 rpm = 2π/60 rad/s) or refused when their
// dimension differs.
func TestParseQuantityIn(t *testing.T) {
	for _, c := range []struct {
		s, unit string
		want    float64
	}{
		{"20", "N/m", 20},
		{"2 kN/m", "N/m", 2000},
		{"2kN/m", "N/m", 2000},
		{"500 g", "kg", 0.5},
		{"90 deg", "rad", math.Pi / 2},
		{"0.5 rad", "deg", 0.5 * 180 / math.Pi},
		{"60 rpm", "rad/s", 2 * math.Pi},
		{"5 kg", "", 5},        // undeclared unit: any, in SI
		{"5 mm", "", 0.005},    // converted to SI
		{"5 kg", "furlong", 5}, // a unit name we do not know: not checked
		{"3", "deg", 3},        // a plain number is in the declared unit
		{"1 N*m/rad", "N*m/rad", 1},
	} {
		got, err := ParseQuantityIn(c.s, c.unit)
		if err != nil || math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("ParseQuantityIn(%q, %q) = %v, %v; want %v", c.s, c.unit, got, err, c.want)
		}
	}
	for _, c := range []struct{ s, unit, want string }{
		{"20 kg", "N/m", `unit "kg" is a mass, but the quantity is in N/m (a stiffness)`},
		{"1 N*m", "N*m/rad", "rotational stiffness"},
		{"3 m", "rad", `unit "m" is a length, but the quantity is in rad (an angle)`},
		{"k/2", "N/m", "not a number"},
		{"2 kgg", "kg", "kgg"},
	} {
		_, err := ParseQuantityIn(c.s, c.unit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseQuantityIn(%q, %q): %v, want %q", c.s, c.unit, err, c.want)
		}
	}
}

// The integrator aliases the engine knows are accepted in a model file and
// stored under their canonical names; CanonicalIntegrator agrees.
func TestIntegratorAliases(t *testing.T) {
	for alias, want := range map[string]string{"euler": "bdf1", "implicit-euler": "bdf1", "bdf": "bdf2",
		"hht-alpha": "hht", "gen-alpha": "genalpha", "generalized-alpha": "genalpha", "rk4": "rk4", "newmark": "newmark"} {
		src := `<model name="m"><settings integrator="` + alias + `"/><ground/></model>`
		ms, err := Parse([]byte(src), "m.xml")
		if err != nil {
			t.Errorf("%s: %v", alias, err)
			continue
		}
		if ms.Settings.Integrator != want {
			t.Errorf("integrator=%q stored as %q, want %q", alias, ms.Settings.Integrator, want)
		}
		if c, err := CanonicalIntegrator(alias); err != nil || c != want {
			t.Errorf("CanonicalIntegrator(%q) = %q, %v", alias, c, err)
		}
	}
	_, err := Parse([]byte(`<model name="m">
<settings integrator="eulr"/><ground/></model>`), "m.xml")
	if err == nil || !strings.Contains(err.Error(), "m.xml:2") || !strings.Contains(err.Error(), `did you mean "euler"`) {
		t.Errorf("unknown integrator: %v", err)
	}
	if _, err := CanonicalIntegrator("foo"); err == nil || !strings.Contains(err.Error(), "genalpha, hht, newmark, bdf1, bdf2, rk4") {
		t.Errorf("CanonicalIntegrator(foo): %v", err)
	}
}

// ParseUnit gives the SI value and base-unit exponents that the model
// parser converts with (package fmu declares the FMU's units with it).
func TestParseUnit(t *testing.T) {
	for _, c := range []struct {
		s      string
		factor float64
		exp    [4]float64 // kg m s rad
	}{
		{"N*m", 1, [4]float64{1, 2, -2, 0}},
		{"N*m*s/rad", 1, [4]float64{1, 2, -1, -1}},
		{"kg*m^2", 1, [4]float64{1, 2, 0, 0}},
		{"m/s2", 1, [4]float64{0, 1, -2, 0}},
		{"rad/s", 1, [4]float64{0, 0, -1, 1}},
		{"1/s", 1, [4]float64{0, 0, -1, 0}},
		{"1", 1, [4]float64{}},
		{"kN*m", 1000, [4]float64{1, 2, -2, 0}},
		{"mm", 1e-3, [4]float64{0, 1, 0, 0}},
		{"deg", math.Pi / 180, [4]float64{0, 0, 0, 1}},
		{"g*mm^2", 1e-9, [4]float64{1, 2, 0, 0}},
		{"kg/(m*s^2)", 1, [4]float64{1, -1, -2, 0}},
	} {
		u, err := ParseUnit(c.s)
		if err != nil || u.Factor != c.factor || u.Exp != c.exp {
			t.Errorf("ParseUnit(%q) = %+v, %v; want factor %g, exponents %v", c.s, u, err, c.factor, c.exp)
		}
	}
	for d := Dimensionless; d < Any; d++ {
		u, err := ParseUnit(d.SI())
		if err != nil || u.Factor != 1 || u.Exp != dimTable()[d].vec {
			t.Errorf("ParseUnit(%q) (the SI unit of %v) = %+v, %v", d.SI(), d, u, err)
		}
	}
	for _, s := range []string{"", "furlong", "m^x", "kmin", "N.m"} {
		if _, err := ParseUnit(s); err == nil {
			t.Errorf("ParseUnit(%q) accepted", s)
		}
	}
	if _, err := ParseUnit("kgs"); err == nil || !strings.Contains(err.Error(), `did you mean "kg"?`) {
		t.Errorf("ParseUnit(kgs): %v", err)
	}
	if b := BaseUnits(); b != [4]string{"kg", "m", "s", "rad"} {
		t.Errorf("BaseUnits() = %q", b)
	}
}
