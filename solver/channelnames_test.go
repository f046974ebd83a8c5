package solver

import (
	"math"
	"path/filepath"
	"testing"

	"mbfmu/solver/mech"
	"mbfmu/xml"
)

// Every example's channels have distinct names: the results writer refuses
// a CSV with a repeated column. A rotation-matrix output (furuta's
// pend_R) pushed its nine elements as copies of the frame's quaternion
// channel under the name pend.qw, and `mbfmu simulate
// examples/furuta/model.xml` wrote nothing ("column name "pend.qw"
// repeated"). The elements are channels BODY.Rxx … .Rzz now; checked here
// on the Furuta pendulum against its quaternion (R = R(q), to 1e-15).
func TestExampleChannelNamesUnique(t *testing.T) {
	files, err := filepath.Glob("../examples/*/model.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example models found: %v", err)
	}
	for _, f := range files {
		ms, err := xml.LoadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := mustCompile(t, ms)
		seen := map[string]int{}
		for k, c := range m.Channels() {
			if j, dup := seen[c.Name]; dup {
				t.Errorf("%s: channel %q at %d and %d", filepath.Base(filepath.Dir(f)), c.Name, j, k)
			}
			seen[c.Name] = k
		}
	}
	ms, err := xml.LoadFile("../examples/furuta/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	m := mustCompile(t, ms)
	s := mustInit(t, m)
	if err := m.AdvanceTo(s, 0.3); err != nil {
		t.Fatal(err)
	}
	var R mech.Mat3
	mech.QuatMatTo(&R, chanAt(t, m, s, "pend.qw"), chanAt(t, m, s, "pend.qx"), chanAt(t, m, s, "pend.qy"), chanAt(t, m, s, "pend.qz"))
	for e, n := range []string{"xx", "xy", "xz", "yx", "yy", "yz", "zx", "zy", "zz"} {
		if d := chanAt(t, m, s, "pend.R"+n) - R[e]; math.Abs(d) > 1e-15 {
			t.Errorf("pend.R%s off R(q) by %.3g", n, d)
		}
		if d := chanAt(t, m, s, "pend_R."+n) - R[e]; math.Abs(d) > 1e-15 {
			t.Errorf("output pend_R.%s off R(q) by %.3g", n, d)
		}
	}
}
