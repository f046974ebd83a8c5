package xml

import (
	"fmt"
	"math"
	"mbfmu/spec"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestFullModel reads testdata/full.xml, which uses every element, and
// compares the whole spec with values worked out by hand from the file
// (units converted to SI, positions counted in the file).
func TestFullModel(t *testing.T) {
	const file = "testdata/full.xml"
	got, err := LoadFile(file)
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	pos := func(line int) spec.Pos { return spec.Pos{File: file, Line: line} }
	e := func(src string, line int, field string) spec.Expr {
		return spec.Expr{Src: src, Pos: pos(line), Field: field}
	}
	v := func(x, y string, line int, field string) spec.Vec {
		return spec.Vec{e(x, line, field), e(y, line, field)}
	}
	num := func(x float64) string { return fmt.Sprint(x) }
	want := &spec.Model{
		Name: "pendulum", Description: "IFToMM A01", Pos: pos(2),
		Settings: spec.Settings{
			Pos: pos(3), Start: 0, End: 10, Step: 0.001, OutputStep: 0.01, Integrator: "hht",
			RhoInf: 0, RhoSet: true, Alpha: -0.05, Beta: 0.3, Gamma: 0.6, Adaptive: true,
			RelTol: 1e-6, AbsTol: 1e-8, MinStep: 1e-10, MaxStep: 0.01, NewtonTol: 1e-10, MaxIter: 8,
			BaumgarteAlpha: 10, BaumgarteBeta: 20, Gravity: v("0", "-9.81", 3, "gravity"),
		},
		Params: []spec.Param{
			{Name: "k", Unit: "N/m", Description: "spring rate", Value: 1e4, Pos: pos(5)},
			{Name: "L", Unit: "m", Value: 0.5, Pos: pos(6)},
			{Name: "c0", Unit: "N*s/m", Value: 2, Pos: pos(7)},
		},
		Inputs: []spec.Input{
			{Name: "F", Unit: "N", Description: "push force", Start: 0, Pos: pos(8)},
			{Name: "tau", Unit: "N*m", Start: 2, Pos: pos(9)},
		},
		Tables: []spec.Table{
			{Name: "profile", Kind: "spline", X: []float64{0, 1, 2}, Y: []float64{0, 2, 3}, Pos: pos(10)},
			{Name: "cam", Kind: "akima", X: []float64{0, math.Pi / 2, math.Pi}, Y: []float64{0, 0.005, 0.01}, Pos: pos(11)},
		},
		Ground: spec.Ground{Pos: pos(15), Markers: []spec.Marker{
			{Name: "O", At: v("0", "0", 16, "at"), Angle: e("0", 16, "angle"), Pos: pos(16)},
			{Name: "P", At: v("1", "-L", 17, "at"), Angle: e(num(math.Pi/2), 17, "angle"), Pos: pos(17)},
		}},
		Bodies: []spec.Body{
			{
				Name: "link", Mass: e("1", 19, "mass"), Inertia: e("0.0833", 19, "inertia"),
				CM: v("0.5", "0", 20, "cm"), At: v("0", "0", 20, "at"), Angle: e("0", 20, "angle"),
				Vel: v("0", "0", 21, "velocity"), Omega: e(num(2*math.Pi), 21, "omega"),
				Markers: []spec.Marker{
					{Name: "tip", At: v("1", "0", 22, "at"), Angle: e("0", 22, "angle"), Pos: pos(22)},
					{Name: "mid", At: v("L/2", "0", 23, "at"), Pos: pos(23)},
				},
				Shape: spec.Shape{Outline: [][2]float64{{0, -0.02}, {1, -0.02}, {1, 0.02}, {0, 0.02}}},
				Pos:   pos(19),
			},
			{
				Name: "slider", Mass: e("0.5", 26, "mass"), Inertia: e("1e-07", 26, "inertia"),
				At: v("1", "0", 26, "at"), Angle: e("pi/4", 26, "angle"),
				Vel: v("1", "2*L", 26, "velocity"), Omega: e("w0", 26, "omega"),
				Markers: []spec.Marker{{Name: "c", Pos: pos(27)}},
				Shape:   spec.Shape{Radius: 0.05},
				Pos:     pos(26),
			},
			{
				Name: "crank", Mass: e("m_crank", 30, "mass"), Inertia: e("0.1", 30, "inertia"),
				Markers: []spec.Marker{{Name: "p", At: v("0.1", "0", 30, "at"), Pos: pos(30)}},
				Pos:     pos(30),
			},
		},
		Joints: []spec.Joint{
			{Kind: "revolute", Name: "pin", I: "ground.O", J: "link", Pos: pos(31)},
			{Kind: "translational", Name: "slide", I: "ground.P", J: "slider.c", Pos: pos(32)},
			{Kind: "fixed", Name: "weld", I: "link.tip", J: "crank.p", Pos: pos(33)},
		},
		Drivers: []spec.Driver{
			{Name: "drive", Joint: "pin", Value: e("2*pi*time", 34, "value"), Pos: pos(34)},
			{Name: "lift", Body: "slider", Coord: "angle", Value: e(num(math.Pi/6), 35, "value"), Pos: pos(35)},
		},
		Forces: []spec.Force{
			{Kind: "force", Name: "push", I: "slider.c", FX: e("F", 36, "fx"), FY: e("-2000", 36, "fy"), Frame: "marker", Pos: pos(36)},
			{Kind: "torque", Name: "motor", I: "crank", J: "ground", T: e("tau", 37, "t"), Pos: pos(37)},
			{Kind: "spring", Name: "s1", I: "link.tip", J: "slider.c", K: e("k", 38, "k"), C: e("10000", 38, "c"),
				Length: e("0.5", 38, "length"), Preload: e("100", 38, "preload"), Pos: pos(38)},
			{Kind: "rspring", Name: "knee", I: "link", J: "crank", K: e(num(180/math.Pi), 39, "k"), C: e("1e+06", 39, "c"),
				Angle: e(num(-math.Pi/3), 39, "angle"), Preload: e("2", 39, "preload"), Pos: pos(39)},
		},
		Beams: []spec.Beam{{Kind: "ancf", Name: "arm", Pos: pos(40), Attr: map[string]spec.Expr{
			"i": e("crank.p", 40, "i"), "at.x": e("0.1", 40, "at"), "at.y": e("0", 40, "at"),
			"angle": e("0", 40, "angle"), "length": e("1", 40, "length"), "elements": e("8", 40, "elements"),
			"area": e("0.0001", 41, "area"), "area-moment": e("8.33e-10", 41, "area-moment"),
			"youngs": e("2.1e+11", 41, "youngs"), "density": e("7850", 41, "density"),
			"damping": e("0.001", 41, "damping"), "marker.end": e("1", 42, "s"),
		}}},
		Contacts: []spec.Contact{{Kind: "circle-line", Name: "bump", Pos: pos(44), Attr: map[string]spec.Expr{
			"i": e("slider.c", 44, "i"), "radius": e("0.05", 44, "radius"), "j": e("ground.O", 44, "j"),
			"k": e("100000", 44, "k"), "exponent": e("1.5", 44, "exponent"), "c": e("100", 44, "c"),
			"dmax": e("0.0001", 44, "dmax"), "mu-static": e("0.3", 44, "mu-static"), "mu-dynamic": e("0.2", 44, "mu-dynamic"),
			"v-static": e("0.001", 44, "v-static"), "v-dynamic": e("0.002", 44, "v-dynamic"),
		}}},
		Outputs: []spec.Output{
			{Name: "tip_y", Channel: "link.tip.y", Description: "tip height", Pos: pos(45)},
			{Name: "arm_end", Channel: "arm.end.y", Pos: pos(46)},
			{Name: "e", Expr: e("dx(link.tip) - 1", 47, "expr"), Unit: "m", Pos: pos(47)},
			{Name: "ek", Channel: "energy.kinetic", Unit: "J", Pos: pos(48)},
			{Name: "pin_t", Channel: "pin.torque", Pos: pos(49)},
		},
	}

	// Values that involve π are compared to within rounding; the rest
	// must be exact.
	closeTo := func(name, got, want string) {
		var g, w float64
		if _, err := fmt.Sscan(got, &g); err != nil {
			t.Errorf("%s = %q, want %q", name, got, want)
			return
		}
		fmt.Sscan(want, &w)
		if math.Abs(g-w) > 1e-15*math.Abs(w) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	approx := []struct {
		name      string
		got, want *spec.Expr
	}{
		{"ground P angle", &got.Ground.Markers[1].Angle, &want.Ground.Markers[1].Angle},
		{"link omega", &got.Bodies[0].Omega, &want.Bodies[0].Omega},
		{"lift value", &got.Drivers[1].Value, &want.Drivers[1].Value},
		{"knee k", &got.Forces[3].K, &want.Forces[3].K},
		{"knee angle", &got.Forces[3].Angle, &want.Forces[3].Angle},
	}
	for _, a := range approx {
		closeTo(a.name, a.got.Src, a.want.Src)
		a.got.Src = a.want.Src
	}
	for i, x := range got.Tables[1].X {
		if w := want.Tables[1].X[i]; math.Abs(x-w) > 1e-15*w {
			t.Errorf("cam x[%d] = %.17g, want %.17g", i, x, w)
		}
	}
	got.Tables[1].X = want.Tables[1].X

	if !reflect.DeepEqual(got, want) {
		gv, wv := reflect.ValueOf(*got), reflect.ValueOf(*want)
		for i := 0; i < gv.NumField(); i++ {
			if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
				t.Errorf("%s:\n got %+v\nwant %+v", gv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
			}
		}
	}
}

// Line numbers come from the raw text: attributes on later lines of a
// start tag, text rows of a table, elements after comments and CDATA.
func TestPositions(t *testing.T) {
	src := `<?xml version="1.0"?>
<!-- a comment
     over two lines -->
<model
   name="m">
  <body name="b"
        mass="1 m"
        inertia='-2'/>
  <table name="t">
    0 0
    1 x
  </table>
</model>`
	_, err := Parse([]byte(src), "p.xml")
	want := []string{
		`p.xml:7: mass: unit "m" is a length; mass needs kg (or g, t)`,
		`p.xml:8: inertia: must be > 0 (got -2)`,
		`p.xml:11: <table>: row 2: "x" is not a number`,
	}
	checkErrors(t, err, want)
}

func checkErrors(t *testing.T, err error, want []string) {
	t.Helper()
	var got []string
	if err != nil {
		list, ok := err.(spec.ErrorList)
		if !ok {
			t.Fatalf("error is %T, want spec.ErrorList: %v", err, err)
		}
		for _, e := range list {
			got = append(got, e.Error())
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func BenchmarkParseFull(b *testing.B) {
	data, err := os.ReadFile("testdata/full.xml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, "full.xml"); err != nil {
			b.Fatal(err)
		}
	}
}
