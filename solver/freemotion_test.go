package solver_test

import (
	"strings"
	"testing"

	"mbfmu/xml"
)

// A kinematic analysis refused for a free degree of freedom names it: an
// R-S-S-R four-bar driven at its crank leaves the coupler free to spin
// about the line through its two spherical joints, from (0.5, 0, 0) to
// (2, 0, 1): direction (1.5, 0, 1)/√3.25 = (0.832, 0, 0.555), through its
// midpoint (1.25, 0, 0.5).
func TestKinematicsNamesTheFreeMotion(t *testing.T) {
	ms, err := xml.LoadFile("testdata/rssr-undriven-spin.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := exCompile(t, ms)
	s := exInit(t, m)
	if d := m.DOF(s); d != 1 {
		t.Fatalf("%d degrees of freedom, want 1", d)
	}
	got := strings.Join(m.FreeMotions(s), "; ")
	for _, want := range []string{"body coupler turning about the axis ", "(0.832, 0, 0.555)", "(1.25, 0, 0.5)"} {
		if !strings.Contains(strings.ReplaceAll(got, "(-0.832, 0, -0.555)", "(0.832, 0, 0.555)"), want) {
			t.Errorf("free motion %q: want it to contain %q", got, want)
		}
	}
	err = m.Kinematics(s, 0.01)
	if err == nil || !strings.Contains(err.Error(), "coupler turning about") {
		t.Errorf("Kinematics: %v, want the free motion named", err)
	}
}
