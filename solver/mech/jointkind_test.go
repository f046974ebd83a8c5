package mech

import "testing"

func TestJointKindWords(t *testing.T) {
	want := map[JointKind]string{
		JointRevolute: "revolute", JointTranslational: "translational", JointFixed: "fixed",
		JointPrismatic: "prismatic", JointCylindrical: "cylindrical", JointSpherical: "spherical",
		JointUniversal: "universal", JointPlanar: "planar", JointDistance: "distance",
		JointDriver: "driver", JointCoupler: "coupler", JointBeamPin: "beam-pin", JointBeamClamp: "beam-clamp",
	}
	if s := (JointBeamClamp + 1).String(); s != "JointKind(14)" {
		t.Fatalf("a kind after JointBeamClamp prints %q: add it to this test", s)
	}
	for k, w := range want {
		if k.String() != w {
			t.Errorf("%d: String() = %q, want %q", k, k.String(), w)
		}
		p, ok := ParseJointKind(w)
		engine := k == JointDriver || k == JointCoupler || k.OnBeamNode()
		switch {
		case engine && (ok || p != JointUnknown):
			t.Errorf("ParseJointKind(%q) = %v, %v: the engine's kinds are not model-file joints", w, p, ok)
		case !engine && (!ok || p != k):
			t.Errorf("ParseJointKind(%q) = %v, %v, want %v", w, p, ok, k)
		}
	}
	for _, s := range []string{"", "unknown", "Revolute", "revolut", "beam-"} {
		if k, ok := ParseJointKind(s); ok || k != JointUnknown {
			t.Errorf("ParseJointKind(%q) = %v, %v", s, k, ok)
		}
	}
	if JointKind(0).String() != "unknown" || JointKind(200).String() != "JointKind(200)" {
		t.Errorf("String of invalid kinds: %q, %q", JointKind(0).String(), JointKind(200).String())
	}
	if !JointBeamPin.OnBeamNode() || !JointBeamClamp.OnBeamNode() || JointRevolute.OnBeamNode() || JointFixed.OnBeamNode() {
		t.Error("OnBeamNode")
	}
}
