package solver_test

import (
	"strings"
	"testing"

	"mbfmu/xml"
)

// A model that cannot be assembled names the joint at its line: a four-bar
// whose coupler pin would have to join points 10 m apart failed with
// "assembly failed: the constraint equations of rC …" and no file:line.
func TestAssemblyFailureAtItsLine(t *testing.T) {
	ms, err := xml.LoadFile("testdata/nofit-fourbar.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := exCompile(t, ms)
	err = m.Init(m.NewState())
	want := `testdata/nofit-fourbar.xml:8: <revolute>: revolute "rC": assembly failed`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Init: %v, want %q", err, want)
	}
}
