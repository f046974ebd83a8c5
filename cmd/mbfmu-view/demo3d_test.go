package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"mbfmu/results"
)

// Spatial demo (testdata/spinning_top.*), motion in closed form:
//   - a top in steady precession: its tip fixed at the origin (spherical
//     joint), its axis tilted by topTilt from z and turning about z at
//     topPrecession, the top spinning about its own axis at topSpin; its
//     frame origin (centre of mass) is topL up the axis from the tip;
//   - a block on a prismatic joint along x, held by a spring to ground,
//     oscillating harmonically; it has no quaternion columns;
//   - a ball on a rod (distance constraint) to a ground pivot, a conical
//     pendulum;
//   - the contact at the top's tip with its normal force.
const (
	topL, topTilt, topPrecession, topSpin = 0.12, 0.35, 1.5, 12.0
	blockX0, blockAmp, blockFreq, blockK  = 0.35, 0.08, 0.8, 200.0
	ballL, ballCone, ballOmega            = 0.25, 0.4, 4.0
)

var (
	ballPivot = v3{-0.3, 0.3, 0.45}
	springEnd = v3{0.6, 0.3, 0.03}
)

// quatMul returns the Hamilton product a b.
func quatMul(a, b [4]float64) [4]float64 {
	return [4]float64{
		a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3],
		a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2],
		a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1],
		a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0],
	}
}

// axisQuat returns the rotation by angle about unit axis k (0 x, 1 y, 2 z).
func axisQuat(k int, angle float64) [4]float64 {
	s, c := math.Sincos(angle / 2)
	q := [4]float64{c, 0, 0, 0}
	q[1+k] = s
	return q
}

// topQuat is the top's orientation: precession about z, tilt about x, spin about the body z.
func topQuat(t float64) [4]float64 {
	return quatMul(quatMul(axisQuat(2, topPrecession*t), axisQuat(0, topTilt)), axisQuat(2, topSpin*t))
}

func spinningTop(rows int, tEnd float64) *results.Table {
	names := []string{"time", "top.x", "top.y", "top.z", "top.qw", "top.qx", "top.qy", "top.qz",
		"block.x", "block.y", "block.z", "ball.x", "ball.y", "ball.z", "spring.F", "tip.x", "tip.y", "tip.z", "tip.FN"}
	units := []string{"s", "m", "m", "m", "", "", "", "", "m", "m", "m", "m", "m", "m", "N", "m", "m", "m", "N"}
	t := &results.Table{Data: make([][]float64, len(names))}
	for i, n := range names {
		t.Cols = append(t.Cols, results.Column{Name: n, Unit: units[i]})
	}
	for r := 0; r < rows; r++ {
		tm := tEnd * float64(r) / float64(rows-1)
		q := topQuat(tm)
		// Centre of mass: topL along the body z axis from the tip at the origin.
		sp, cp := math.Sincos(topPrecession * tm)
		st, ct := math.Sincos(topTilt)
		com := v3{topL * st * sp, -topL * st * cp, topL * ct}
		bx := blockX0 + blockAmp*math.Sin(2*math.Pi*blockFreq*tm)
		sa, ca := math.Sincos(ballOmega * tm)
		sc, cc := math.Sincos(ballCone)
		ball := v3{ballPivot[0] + ballL*sc*ca, ballPivot[1] + ballL*sc*sa, ballPivot[2] - ballL*cc}
		// Spring between the block's end (x + 0.05) and the ground point, rest length 0.2.
		f := -blockK * (springEnd[0] - (bx + 0.05) - 0.2)
		vals := []float64{tm, com[0], com[1], com[2], q[0], q[1], q[2], q[3], bx, 0.3, 0.03,
			ball[0], ball[1], ball[2], f, 0, 0, 0, 4.9 + 0.5*math.Sin(topPrecession*tm)}
		for c, v := range vals {
			t.Data[c] = append(t.Data[c], v)
		}
	}
	return t
}

func spinningTopScene() *results.Scene {
	id := []float64{1, 0, 0, 0}
	return &results.Scene{
		Dim: 3,
		Bodies: []results.SceneBody{
			{Name: "top", X: "top.x", Y: "top.y", Z: "top.z", QW: "top.qw", QX: "top.qx", QY: "top.qy", QZ: "top.qz",
				Shapes: []results.SceneShape{
					{Kind: results.ShapeCylinder, Radius: 0.08, Length: 0.025, P: []float64{0, 0, 0.02}},
					{Kind: results.ShapeCylinder, Radius: 0.006, Length: 0.2, P: []float64{0, 0, -0.02}, Color: "#606060"},
					{Kind: results.ShapeSphere, Radius: 0.012, P: []float64{0, 0, -topL + 0.012}, Color: "#606060"},
					{Kind: results.ShapeBox, Size: []float64{0.05, 0.015, 0.01}, P: []float64{0.045, 0, 0.037}, Q: id, Color: "#d03030"},
				},
				Markers: []results.SceneMarker{{Name: "rim", P: []float64{0.08, 0, 0.02}}}},
			{Name: "block", X: "block.x", Y: "block.y", Z: "block.z",
				Shapes: []results.SceneShape{{Kind: results.ShapeBox, Size: []float64{0.1, 0.06, 0.06}}}},
			{Name: "ball", X: "ball.x", Y: "ball.y", Z: "ball.z", Radius: 0.03},
		},
		Links: []results.SceneLink{
			{Kind: results.LinkSpherical, BodyA: "ground", BodyB: "top", PA: []float64{0, 0, 0}, PB: []float64{0, 0, -topL}},
			{Kind: results.LinkPrismatic, BodyA: "ground", BodyB: "block", PA: []float64{0.15, 0.3, 0.03}, PB: []float64{0, 0, 0}},
			{Kind: results.LinkSpring, BodyA: "block", BodyB: "ground", PA: []float64{0.05, 0, 0}, PB: springEnd[:], Force: "spring.F"},
			{Kind: results.LinkDistance, BodyA: "ground", BodyB: "ball", PA: ballPivot[:], PB: []float64{0, 0, 0}},
		},
		Contacts: []results.SceneContact{{Name: "tip", PX: "tip.x", PY: "tip.y", PZ: "tip.z", FN: "tip.FN"}},
	}
}

// TestDemo3DFiles checks testdata/spinning_top.{csv,json} against the
// closed-form motion: the joints close (the top's tip stays at the origin,
// the ball at rod length from its pivot) through the scene's quaternion
// and position columns, and the top's axis keeps its tilt. With
// MBFMU_VIEW_WRITE_DEMO=1 it rewrites the files first.
func TestDemo3DFiles(t *testing.T) {
	csvPath, scenePath := filepath.Join("testdata", "spinning_top.csv"), filepath.Join("testdata", "spinning_top.json")
	if os.Getenv("MBFMU_VIEW_WRITE_DEMO") == "1" {
		f, err := os.Create(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		w := results.NewCSVWriterDigits(f, 10)
		if err := spinningTop(401, 4).SendTo(w); err != nil {
			t.Fatal(err)
		}
		_ = w.Close()
		_ = f.Close()
		b, _ := json.MarshalIndent(spinningTopScene(), "", "  ")
		// Number lists on one line.
		b = regexp.MustCompile(`\[[\s0-9.eE+,-]*\]`).ReplaceAllFunc(b, func(m []byte) []byte {
			return regexp.MustCompile(`\s+`).ReplaceAll(m, nil)
		})
		if err := os.WriteFile(scenePath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tab, err := readTable(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := readScene(scenePath)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sc, spinningTopScene()) {
		t.Errorf("%s differs from spinningTopScene (rewrite it with MBFMU_VIEW_WRITE_DEMO=1)", scenePath)
	}
	rs, err := sc.Resolve(tab)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 401 {
		t.Fatalf("%d rows", tab.Len())
	}
	vals := make([]float64, len(tab.Cols))
	for r := 0; r < tab.Len(); r++ {
		for c := range vals {
			vals[c] = tab.Data[c][r]
		}
		if tip := rs.World3(vals, 0, v3{0, 0, -topL}); norm3(tip) > 1e-8 {
			t.Fatalf("row %d: the top's tip is at %v, not at the origin", r, tip)
		}
		if _, R := rs.Pose3(vals, 0); math.Abs(R[2][2]-math.Cos(topTilt)) > 1e-8 {
			t.Fatalf("row %d: axis z component %v, want cos(tilt) %v", r, R[2][2], math.Cos(topTilt))
		}
		if d := norm3(sub3(rs.World3(vals, 2, v3{}), ballPivot)); math.Abs(d-ballL) > 1e-8 {
			t.Fatalf("row %d: rod length %v, want %v", r, d, ballL)
		}
	}
	// The top spins: its x axis, seen in the precessing frame (z turned by
	// precession·t), has turned by spin·t about the top's axis, so its
	// component along the precessing x axis is cos(spin·t). At row 100
	// (t = 1 s) the spin angle is 12 rad.
	for c := range vals {
		vals[c] = tab.Data[c][100]
	}
	_, R := rs.Pose3(vals, 0)
	sp, cp := math.Sincos(topPrecession * 1)
	if got, want := R[0][0]*cp+R[1][0]*sp, math.Cos(topSpin*1); math.Abs(got-want) > 1e-8 {
		t.Errorf("spin: x axis component %v, want cos(12) = %v", got, want)
	}
}
