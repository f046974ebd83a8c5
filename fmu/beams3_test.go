package fmu

import (
	"math"
	"testing"
)

// Spatial beams through the FMU: a rod and an ANCF cable hang from a hub
// driven by an input torque; their tip outputs move, and a state saved
// mid-run replays bit for bit (the rod's node quaternions, the cable's
// nodal coordinates and the integrator's memory are all in the state).
func TestSpatialBeamsThroughFMU(t *testing.T) {
	in, _ := instantiateText(t, `<model name="beams" dimension="3"><settings end="1 s" step="1 ms" gravity="0 0 -9.81"/>
  <input name="T" start="0.5" description="hub torque, N*m"/>
  <ground><marker name="O"/></ground>
  <body name="hub" mass="1" inertia="0.01 0.01 0.01"><marker name="rim" at="0.1 0 0"/></body>
  <revolute name="axle" i="ground.O" j="hub"/>
  <torque name="drive" i="hub" tx="0" ty="0" tz="T"/>
  <beam kind="rod" name="r" at="0 0 0" length="0.5" elements="6" area="1e-4" area-moment-y="1e-9" area-moment-z="1e-9"
        torsion-constant="2e-9" youngs="2e9" poisson="0.3" density="2000" i="hub"><marker name="tip" s="0.5"/></beam>
  <beam kind="ancf" name="c" at="0.1 0 0" x-axis="0 1 0" length="0.4" elements="6" area="1e-4" area-moment="1e-9" youngs="2e9" density="2000">
    <marker name="a" s="0"/><marker name="tip" s="0.4"/></beam>
  <spherical name="pin" i="hub.rim" j="c.a"/>
  <output name="rod_tip_z" channel="r.tip.z"/>
  <output name="rod_moment" channel="r.tip.My"/>
  <output name="cable_tip_z" channel="c.tip.z"/>
</model>
`)
	startInstance(t, in)
	vrs := varRefs(t, in, "T", "rod_tip_z", "rod_moment", "cable_tip_z")
	uT, outs := vrs[0], vrs[1:]
	doSteps(t, in, 0, 100, 1e-3)
	y := getReal(t, in, outs...)
	if !(y[0] < -1e-4) || !(y[2] < -1e-3) || math.IsNaN(y[1]) {
		t.Errorf("after 0.1 s under gravity: rod tip z %g, cable tip z %g (both must sag), moment %g", y[0], y[2], y[1])
	}
	replaysFromSaved(t, in, uT, -0.3, 100, 200, 1e-3, outs)
}
