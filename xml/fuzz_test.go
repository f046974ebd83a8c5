package xml

import (
	"errors"
	"math"
	"mbfmu/spec"
	"os"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, that problems always
// come as a spec.ErrorList located in the file, and that a clean parse
// gives positions to everything it read.
func FuzzParse(f *testing.F) {
	full, err := os.ReadFile("testdata/full.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	spatial, err := os.ReadFile("testdata/spatial.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(spatial)
	f.Add([]byte(`<model name="m" dimension="3">` + base3 + `<spherical name="s" i="ground.O" j="a.p"/>` +
		`<body name="c" mass="1" inertia="1, 2, 2.5, 0.1, 0, 0" inertia-angles="0 0 1" inertia-sequence="zxz" quaternion="1 0 0 0">` +
		`<marker name="m" x-axis="1 0 0" y-axis="0, 1, 0"/><box size="1 1 1 mm"/></body>` +
		`<bushing name="b" i="a" j="b" k="1 N/m, 1 N/m, 1 N/m, 1, 1, 1 N*m/deg"/></model>`))
	f.Add([]byte(`<model name="m">` + base + `<revolute name="r" i="ground.O" j="a.p"/></model>`))
	f.Add([]byte(`<model name="m"><table name="t">0 0; 1 1</table><output name="o" channel="a.x"/></model>`))
	f.Add([]byte(`<model name="m"><beam kind="ancf" name="b" at="0, 0"><marker name="e" s="1 m"/></beam></model>`))
	f.Add([]byte(`<model name="m"><body name="a" mass="1 kg/(m*s^2)^2" inertia="1e999" at="1 2 3 mm"/></model>`))
	f.Add([]byte(`<model name="m"><settings gravity="0, -g" integrator="rk4"/><driver name="d" body="a" coord="x" value="1"/>`))
	f.Add([]byte(`<?xml version="1.0"?><!DOCTYPE model><model name="m" xmlns:x="u" x:y="1"><![CDATA[x]]></model>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := Parse(data, "f.xml")
		if ms == nil {
			t.Fatal("nil spec")
		}
		if err != nil {
			var list spec.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is %T %v, want a non-empty spec.ErrorList", err, err)
			}
			for _, e := range list {
				if e.Pos.File != "f.xml" || e.Pos.Line < 1 {
					t.Fatalf("error without position: %q", e.Error())
				}
			}
			return
		}
		for _, b := range ms.Bodies {
			for _, e := range []spec.Expr{b.Mass, b.Inertia, b.CM[0], b.At[1], b.At[2], b.Angle, b.Omega,
				b.InertiaTensor[0], b.InertiaTensor[5], b.AngVel[2], b.Orient.Quaternion[3], b.Orient.Angle} {
				if e.Given() && (e.Pos.Line < 1 || e.Field == "") {
					t.Fatalf("expression without position: %+v", e)
				}
			}
		}
	})
}

// FuzzParseQuantity checks that ParseQuantity never panics and returns
// finite values.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"500 g", "1 N*m/deg", "1e4 N/mm^1.5", "2*pi", "1.2.3", "1 (m", "1 m^-2.5", "°", "1 µm²"} {
		f.Add(s, int(Any))
	}
	f.Fuzz(func(t *testing.T, s string, d int) {
		v, err := ParseQuantity(s, Dim(d))
		if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
			t.Fatalf("ParseQuantity(%q) = %g", s, v)
		}
	})
}
