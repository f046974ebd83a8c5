package results

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCSVHeaderAndRowText(t *testing.T) {
	var b bytes.Buffer
	w := NewCSVWriter(&b)
	cols := []Column{{Name: "time", Unit: "s"}, {Name: "arm.x", Unit: "m"}, {Name: "count"}, {Name: "a,b", Unit: "N"}}
	if err := w.Header(cols); err != nil {
		t.Fatal(err)
	}
	if err := w.Row([]float64{0.5, 0.1, 3, -2.5e-7}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "time [s],arm.x [m],count,\"a,b [N]\"\n0.5,0.1,3,-2.5e-07\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

func TestCSVRoundTripExact(t *testing.T) {
	vals := []float64{1.0 / 3, 1e-300, math.Copysign(0, -1), 5e-324, math.MaxFloat64,
		math.Pi, -math.E * 1e17, math.Inf(1), math.Inf(-1), math.NaN(), 0.1 + 0.2}
	cols := []Column{{Name: "time", Unit: "s"}, {Name: "q", Unit: "rad"}, {Name: "v", Unit: "m/s"}}
	var b bytes.Buffer
	w := NewCSVWriter(&b)
	if err := w.Header(cols); err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if err := w.Row([]float64{float64(i) * 0.1, v, -v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tab, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != len(vals) || len(tab.Cols) != 3 {
		t.Fatalf("got %d rows %d cols", tab.Len(), len(tab.Cols))
	}
	wantCols := []Column{{Name: "time", Unit: "s", Group: GroupTime}, {Name: "q", Unit: "rad", Group: GroupPosition},
		{Name: "v", Unit: "m/s", Group: GroupVelocity}}
	for i, c := range wantCols {
		if tab.Cols[i] != c {
			t.Errorf("col %d = %+v, want %+v", i, tab.Cols[i], c)
		}
	}
	q, ok := tab.Col("q")
	if !ok {
		t.Fatal("no column q")
	}
	v, _ := tab.Col("v")
	for i, want := range vals {
		if math.IsNaN(want) {
			if !math.IsNaN(q[i]) || !math.IsNaN(v[i]) {
				t.Errorf("row %d: NaN lost: %v %v", i, q[i], v[i])
			}
			continue
		}
		if math.Float64bits(q[i]) != math.Float64bits(want) || math.Float64bits(v[i]) != math.Float64bits(-want) {
			t.Errorf("row %d: got %v %v, want %v (bit-exact)", i, q[i], v[i], want)
		}
	}
	if _, ok := tab.Col("nope"); ok {
		t.Error("Col found a missing column")
	}
}

func TestCSVDigits(t *testing.T) {
	var b bytes.Buffer
	w := NewCSVWriterDigits(&b, 3)
	_ = w.Header([]Column{{Name: "t", Unit: "s"}, {Name: "x"}})
	_ = w.Row([]float64{1.0 / 3, 123456})
	_ = w.Close()
	if want := "t [s],x\n0.333,1.23e+05\n"; b.String() != want {
		t.Fatalf("got %q want %q", b.String(), want)
	}
}

func TestReadCSVErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", "no header"},
		{"bad number", "time [s],x [m]\n0,1\n0.1,abc\n", "line 3, column 2 (x): invalid number \"abc\""},
		{"field count", "time [s],x [m]\n0,1\n0.1\n", "line 3"},
		{"duplicate", "time [s],x [m],x [rad]\n", "repeated"},
		{"empty name", "time [s],,x\n", "empty name"},
	}
	for _, c := range cases {
		_, err := ReadCSV(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// Comments and quoted header fields are accepted.
	tab, err := ReadCSV(strings.NewReader("# produced by test\n\"#t [s]\",\"a,b\"\n1,2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Cols[0].Name != "#t" || tab.Cols[1].Name != "a,b" || tab.Data[1][0] != 2 {
		t.Fatalf("got %+v %v", tab.Cols, tab.Data)
	}
}

func TestParseHeaderField(t *testing.T) {
	cases := map[string]Column{
		"x [m]":       {Name: "x", Unit: "m"},
		"x":           {Name: "x"},
		"q[1] [rad]":  {Name: "q[1]", Unit: "rad"},
		"q[1]":        {Name: "q[1]"},
		" F [N*m] ":   {Name: "F", Unit: "N*m"},
		"ratio [-]":   {Name: "ratio", Unit: "-"},
		"empty []":    {Name: "empty"},
		"a.b.c [m/s]": {Name: "a.b.c", Unit: "m/s"},
	}
	for in, want := range cases {
		if got := ParseHeaderField(in); got != want {
			t.Errorf("ParseHeaderField(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestWriterValidation(t *testing.T) {
	var b bytes.Buffer
	w := NewCSVWriter(&b)
	if err := w.Row([]float64{1}); err == nil {
		t.Error("Row before Header accepted")
	}
	for _, cols := range [][]Column{nil, {{Name: "t"}, {Name: "t"}}, {{Name: "t"}, {Name: ""}},
		{{Name: "t"}, {Name: "x [m]"}}, {{Name: "t"}, {Name: "x", Unit: "m]"}}} {
		if err := NewCSVWriter(&b).Header(cols); err == nil {
			t.Errorf("header %+v accepted", cols)
		}
	}
	_ = w.Header([]Column{{Name: "t"}, {Name: "x"}})
	if err := w.Row([]float64{1}); err == nil {
		t.Error("short row accepted")
	}
}

func TestCSVRowAllocsNothing(t *testing.T) {
	var b bytes.Buffer
	w := NewCSVWriter(&b)
	cols := make([]Column, 20)
	row := make([]float64, 20)
	for i := range cols {
		cols[i] = Column{Name: "c" + string(rune('a'+i)), Unit: "m"}
		row[i] = math.Pi * float64(i+1) / 7
	}
	if err := w.Header(cols); err != nil {
		t.Fatal(err)
	}
	_ = w.Row(row)
	n := testing.AllocsPerRun(1000, func() {
		b.Reset()
		row[0] += 1e-3
		if err := w.Row(row); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("csv Row allocates %v times per call", n)
	}
}

// failWriter fails every call after the header.
type failWriter struct{ rows int }

func (f *failWriter) Header([]Column) error { return nil }
func (f *failWriter) Row([]float64) error   { f.rows++; return errors.New("boom") }
func (f *failWriter) Close() error          { return errors.New("close boom") }

func TestMultiWriter(t *testing.T) {
	var a, b bytes.Buffer
	m := MultiWriter(NewCSVWriter(&a), NewCSVWriter(&b))
	tab := &Table{Cols: []Column{{Name: "t", Unit: "s"}, {Name: "x", Unit: "m"}},
		Data: [][]float64{{0, 1, 2}, {5, 6, 7}}}
	if err := tab.SendTo(m); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	want := "t [s],x [m]\n0,5\n1,6\n2,7\n"
	if a.String() != want || b.String() != want {
		t.Fatalf("got %q and %q, want %q", a.String(), b.String(), want)
	}
	fw := &failWriter{}
	var c bytes.Buffer
	m = MultiWriter(fw, NewCSVWriter(&c))
	_ = m.Header(tab.Cols)
	if err := m.Row([]float64{0, 1}); err == nil || err.Error() != "boom" {
		t.Fatalf("Row error %v", err)
	}
	if err := m.Close(); err == nil || err.Error() != "close boom" {
		t.Fatalf("Close error %v", err)
	}
	if c.String() != "t [s],x [m]\n" {
		t.Fatalf("second writer got %q", c.String())
	}
	bad := &Table{Cols: tab.Cols, Data: [][]float64{{0, 1}, {1}}}
	if err := bad.SendTo(NewCSVWriter(&c)); err == nil {
		t.Fatal("ragged table accepted")
	}
}

func TestMultiWriterRowAllocsNothing(t *testing.T) {
	m := MultiWriter(NewCSVWriter(discard{}), NewLiveWriter(discard{}))
	cols := []Column{{Name: "t", Unit: "s"}, {Name: "x", Unit: "m"}, {Name: "v", Unit: "m/s"}}
	if err := m.Header(cols); err != nil {
		t.Fatal(err)
	}
	row := []float64{0, 1.5, -2.25}
	if n := testing.AllocsPerRun(1000, func() { row[0] += 1e-3; _ = m.Row(row) }); n != 0 {
		t.Fatalf("MultiWriter(csv, live).Row allocates %v times per call", n)
	}
}

func TestGroupForUnit(t *testing.T) {
	cases := map[string]string{"s": GroupTime, "m": GroupPosition, "rad": GroupPosition,
		"m/s": GroupVelocity, "rad/s": GroupVelocity, "m/s2": GroupAcceleration, "m/s^2": GroupAcceleration,
		"rad/s²": GroupAcceleration, "N": GroupForce, "N*m": GroupForce, "J": GroupEnergy, "kg": GroupOther, "": GroupOther}
	for u, g := range cases {
		if got := GroupForUnit(u); got != g {
			t.Errorf("GroupForUnit(%q) = %q, want %q", u, got, g)
		}
	}
}
