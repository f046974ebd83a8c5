package results

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func sceneTable() *Table {
	names := []string{"time", "arm.x", "arm.y", "arm.phi", "b.x", "b.y", "F1", "n1.x", "n1.y", "n2.x", "n2.y", "c.x", "c.y", "c.fn"}
	t := &Table{Data: make([][]float64, len(names))}
	for i, n := range names {
		t.Cols = append(t.Cols, Column{Name: n})
		t.Data[i] = []float64{float64(i)}
	}
	return t
}

func testScene() *Scene {
	return &Scene{
		Bodies: []SceneBody{
			{Name: "arm", X: "arm.x", Y: "arm.y", Angle: "arm.phi", Outline: [][2]float64{{0, 0}, {1, 0}, {1, 0.1}}},
			{Name: "b", X: "b.x", Y: "b.y", Radius: 0.2},
		},
		Links: []SceneLink{
			{Kind: LinkRevolute, BodyA: "ground", BodyB: "arm"},
			{Kind: LinkSpring, BodyA: "arm", BodyB: "b", Force: "F1"},
			{Kind: LinkFixed, BodyB: "b"},
		},
		Beams:    []SceneBeam{{Name: "beam", NodeX: []string{"n1.x", "n2.x"}, NodeY: []string{"n1.y", "n2.y"}}},
		Contacts: []SceneContact{{Name: "c", PX: "c.x", PY: "c.y", FN: "c.fn"}},
	}
}

func TestSceneResolve(t *testing.T) {
	r, err := testScene().Resolve(sceneTable())
	if err != nil {
		t.Fatal(err)
	}
	b0, b1 := r.Bodies[0], r.Bodies[1]
	if b0.X != 1 || b0.Y != 2 || b0.Angle != 3 || b1.X != 4 || b1.Y != 5 || b1.Angle != -1 || b0.Z != -1 || b0.QW != -1 {
		t.Errorf("bodies %+v", r.Bodies)
	}
	if r.Links[0] != (ResolvedLink{A: -1, B: 0, Force: -1}) || r.Links[1] != (ResolvedLink{A: 0, B: 1, Force: 6}) || r.Links[2] != (ResolvedLink{A: -1, B: 1, Force: -1}) {
		t.Errorf("links %+v", r.Links)
	}
	if r.Dim != 2 || r.Bounds != nil {
		t.Errorf("dim %d, bounds %v", r.Dim, r.Bounds)
	}
	if len(r.Beams) != 1 || r.Beams[0].X[1] != 9 || r.Beams[0].Y[1] != 10 {
		t.Errorf("beams %+v", r.Beams)
	}
	if r.Contacts[0] != (ResolvedContact{PX: 11, PY: 12, PZ: -1, FN: 13, NX: -1, NY: -1, NZ: -1}) {
		t.Errorf("contacts %+v", r.Contacts)
	}
}

func TestSceneResolveErrors(t *testing.T) {
	cases := []struct {
		edit func(s *Scene)
		want string
	}{
		{func(s *Scene) { s.Bodies[0].X = "arm.xx" }, `body "arm": X column "arm.xx" not in results`},
		{func(s *Scene) { s.Links[1].BodyB = "c" }, `unknown body "c"`},
		{func(s *Scene) { s.Links[0].Kind = "hinge" }, `unknown kind "hinge"`},
		{func(s *Scene) { s.Links[1].Force = "F9" }, `Force column "F9"`},
		{func(s *Scene) { s.Beams[0].NodeY = s.Beams[0].NodeY[:1] }, `beam "beam"`},
		{func(s *Scene) { s.Beams[0].NodeY[1] = "q" }, `NodeY[1] column "q"`},
		{func(s *Scene) { s.Contacts[0].PY = "" }, `contact "c": PY column not given`},
		{func(s *Scene) { s.Bodies[1].Name = "arm" }, `"arm" repeated`},
		{func(s *Scene) { s.Bodies[1].Name = "ground" }, `reserved`},
		{func(s *Scene) { s.Bodies[1].Radius = math.NaN() }, `invalid radius`},
		{func(s *Scene) { s.Links[0].PA = []float64{1, 2, 3} }, `link 1 (revolute ground-arm): pa has 3 numbers, want [x, y]`},
		{func(s *Scene) { s.Bodies[0].Z = "arm.x" }, `body "arm": z is for spatial scenes`},
		{func(s *Scene) { s.Bodies[0].Shapes = []SceneShape{{Kind: ShapeSphere, Radius: 1}} }, `body "arm": shapes is for spatial scenes`},
		{func(s *Scene) { s.Bodies[0].Markers = []SceneMarker{{Name: "m", Q: []float64{1, 0, 0, 0}}} }, `marker "m": q is for spatial`},
		{func(s *Scene) { s.Contacts[0].PZ = "c.x" }, `contact "c": pz is for spatial`},
		{func(s *Scene) { s.Beams[0].NodeZ = []string{"n1.x", "n2.x"} }, `beam "beam": nodeZ is for spatial`},
		{func(s *Scene) { s.Bounds = []float64{0, 0, 1, 1, 1, 1} }, `bounds has 6 numbers; a planar scene takes 4`},
		{func(s *Scene) { s.Up = "z" }, `only spatial scenes`},
		{func(s *Scene) { s.Dim = 4 }, `dim 4`},
	}
	for _, c := range cases {
		s := testScene()
		c.edit(s)
		_, err := s.Resolve(sceneTable())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
	}
}

func TestSceneWorld(t *testing.T) {
	r, err := testScene().Resolve(sceneTable())
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float64, 14)
	vals[1], vals[2], vals[3] = 2, 3, math.Pi/2 // arm at (2,3) turned 90°
	p := r.World(vals, 0, [2]float64{1, 0.5})
	// Rotating (1, 0.5) by 90° gives (-0.5, 1).
	if math.Abs(p[0]-1.5) > 1e-15 || math.Abs(p[1]-4) > 1e-15 {
		t.Errorf("World = %v, want (1.5, 4)", p)
	}
	if g := r.World(vals, -1, [2]float64{7, 8}); g != [2]float64{7, 8} {
		t.Errorf("ground point moved: %v", g)
	}
}

func TestSceneJSON(t *testing.T) {
	b, err := json.Marshal(testScene())
	if err != nil {
		t.Fatal(err)
	}
	var s Scene
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"outline":[[0,0],[1,0],[1,0.1]]`) || s.Links[1].Force != "F1" || s.Bodies[1].Radius != 0.2 {
		t.Errorf("json %s -> %+v", b, s)
	}
}

// spatialTable has one row: time, a body pose with a quaternion, contact columns.
func spatialTable(vals ...float64) *Table {
	names := []string{"time", "b.x", "b.y", "b.z", "b.qw", "b.qx", "b.qy", "b.qz", "c.x", "c.y", "c.z", "c.fn", "c.nz"}
	t := &Table{Data: make([][]float64, len(names))}
	for i, n := range names {
		t.Cols = append(t.Cols, Column{Name: n})
		v := 0.0
		if i < len(vals) {
			v = vals[i]
		}
		t.Data[i] = []float64{v}
	}
	return t
}

func spatialScene() *Scene {
	return &Scene{
		Dim: 3,
		Bodies: []SceneBody{{
			Name: "b", X: "b.x", Y: "b.y", Z: "b.z", QW: "b.qw", QX: "b.qx", QY: "b.qy", QZ: "b.qz",
			Shapes: []SceneShape{
				{Kind: ShapeBox, Size: []float64{1, 2, 3}, P: []float64{0, 0, 1}, Color: "#ff8000"},
				{Kind: ShapeCylinder, Radius: 0.1, Length: 1, Q: []float64{0, 1, 0, 0}},
				{Kind: ShapeSphere, Radius: 0.2},
			},
			Markers: []SceneMarker{{Name: "m", P: []float64{1, 0, 0}, Q: []float64{2, 0, 0, 0}}},
		}},
		Links:    []SceneLink{{Kind: LinkSpherical, BodyB: "b", PA: []float64{0, 0, 1}, PB: []float64{0, 0, -0.5}}},
		Contacts: []SceneContact{{Name: "c", PX: "c.x", PY: "c.y", PZ: "c.z", FN: "c.fn", NZ: "c.nz"}},
		Bounds:   []float64{-1, -1, 0, 1, 1, 2},
	}
}

func near3(a, b [3]float64, tol float64) bool {
	return math.Abs(a[0]-b[0]) <= tol && math.Abs(a[1]-b[1]) <= tol && math.Abs(a[2]-b[2]) <= tol
}

// The quaternion columns turn body points as the rotation they stand for:
// checked against rotations written out by hand (Rodrigues).
func TestSceneQuaternionColumns(t *testing.T) {
	s2 := math.Sqrt(0.5)
	for _, c := range []struct {
		q      [4]float64
		p, exp [3]float64 // body point and its rotated image
	}{
		{[4]float64{1, 0, 0, 0}, [3]float64{1, 2, 3}, [3]float64{1, 2, 3}},
		{[4]float64{s2, 0, 0, s2}, [3]float64{1, 0, 0}, [3]float64{0, 1, 0}},   // 90° about z
		{[4]float64{s2, s2, 0, 0}, [3]float64{0, 1, 0}, [3]float64{0, 0, 1}},   // 90° about x
		{[4]float64{s2, 0, s2, 0}, [3]float64{0, 0, 1}, [3]float64{1, 0, 0}},   // 90° about y
		{[4]float64{0, 0, 0, 1}, [3]float64{1, 2, 3}, [3]float64{-1, -2, 3}},   // 180° about z
		{[4]float64{2, 0, 0, 2}, [3]float64{1, 0, 0}, [3]float64{0, 1, 0}},     // not normalised
		{[4]float64{-s2, 0, 0, -s2}, [3]float64{1, 0, 0}, [3]float64{0, 1, 0}}, // -q is the same rotation
		// 120° about (1,1,1)/√3 permutes the axes: x → y.
		{[4]float64{0.5, 0.5, 0.5, 0.5}, [3]float64{1, 0, 0}, [3]float64{0, 1, 0}},
	} {
		tab := spatialTable(0, 10, 20, 30, c.q[0], c.q[1], c.q[2], c.q[3])
		r, err := spatialScene().Resolve(tab)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]float64, len(tab.Cols))
		for i := range vals {
			vals[i] = tab.Data[i][0]
		}
		got := r.World3(vals, 0, c.p)
		want := [3]float64{10 + c.exp[0], 20 + c.exp[1], 30 + c.exp[2]}
		if !near3(got, want, 1e-14) {
			t.Errorf("q %v: World3(%v) = %v, want %v", c.q, c.p, got, want)
		}
	}
	// Without quaternion columns (qw "" means 1) the body keeps the world
	// orientation; the ground is the world frame.
	sc := spatialScene()
	sc.Bodies[0].QW, sc.Bodies[0].QX, sc.Bodies[0].QY, sc.Bodies[0].QZ = "", "", "", ""
	r, err := sc.Resolve(spatialTable(0, 1, 2, 3, 0.3, 0.4))
	if err != nil {
		t.Fatal(err)
	}
	vals := []float64{0, 1, 2, 3, 0.3, 0.4, 0, 0, 0, 0, 0, 0, 0}
	if got := r.World3(vals, 0, [3]float64{1, 1, 1}); got != [3]float64{2, 3, 4} {
		t.Errorf("no quaternion columns: %v", got)
	}
	if got := r.World3(vals, -1, [3]float64{1, 1, 1}); got != [3]float64{1, 1, 1} {
		t.Errorf("ground: %v", got)
	}
	// Only qz given: qw = 1, so q = (1, 0, 0, 1)/√2, 90° about z.
	sc.Bodies[0].QZ = "b.qw"
	r, _ = sc.Resolve(spatialTable())
	vals[4] = 1
	if got := r.World3(vals, 0, [3]float64{1, 0, 0}); !near3(got, [3]float64{1, 3, 3}, 1e-14) {
		t.Errorf("qz only: %v, want (1, 3, 3)", got)
	}
}

func TestSceneResolveSpatial(t *testing.T) {
	r, err := spatialScene().Resolve(spatialTable())
	if err != nil {
		t.Fatal(err)
	}
	if r.Dim != 3 || r.Up != 2 {
		t.Errorf("dim %d up %d", r.Dim, r.Up)
	}
	b := r.Bodies[0]
	if b.X != 1 || b.Z != 3 || b.QW != 4 || b.QZ != 7 || b.Angle != -1 {
		t.Errorf("body columns %+v", b)
	}
	if len(b.Shapes) != 3 || b.Shapes[0].Size != [3]float64{1, 2, 3} || b.Shapes[0].P != [3]float64{0, 0, 1} ||
		!b.Shapes[0].Color || b.Shapes[0].RGB != [3]uint8{255, 128, 0} || b.Shapes[2].Color {
		t.Errorf("shapes %+v", b.Shapes)
	}
	// The cylinder is turned 180° about x: its z axis points down.
	if z := b.Shapes[1].R; z[0][2] != 0 || z[1][2] != 0 || z[2][2] != -1 {
		t.Errorf("cylinder rotation %v", z)
	}
	// The marker quaternion (2, 0, 0, 0) is normalised to the identity.
	if m := b.Markers[0]; m.P != [3]float64{1, 0, 0} || m.R != [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
		t.Errorf("marker %+v", m)
	}
	if l := r.Links[0]; l.A != -1 || l.B != 0 || l.PA != [3]float64{0, 0, 1} || l.PB != [3]float64{0, 0, -0.5} {
		t.Errorf("link %+v", l)
	}
	if c := r.Contacts[0]; c != (ResolvedContact{PX: 8, PY: 9, PZ: 10, FN: 11, NX: -1, NY: -1, NZ: 12}) {
		t.Errorf("contact %+v", c)
	}
	if len(r.Bounds) != 6 || r.Bounds[5] != 2 {
		t.Errorf("bounds %v", r.Bounds)
	}
	sc := spatialScene()
	sc.Up = "y"
	if r, err := sc.Resolve(spatialTable()); err != nil || r.Up != 1 {
		t.Errorf("up y: %v, %v", r, err)
	}
}

func TestSceneResolveSpatialErrors(t *testing.T) {
	cases := []struct {
		edit func(s *Scene)
		want string
	}{
		{func(s *Scene) { s.Bodies[0].QX = "nope" }, `body "b": QX column "nope" not in results`},
		{func(s *Scene) { s.Bodies[0].Angle = "b.x" }, `body "b": angle is for planar scenes`},
		{func(s *Scene) { s.Bodies[0].Outline = [][2]float64{{0, 0}, {1, 0}, {0, 1}} }, `outline is for planar scenes`},
		{func(s *Scene) { s.Bodies[0].Shapes[0].Size = []float64{1, 2} }, `body "b": shape 1 (box): size [1 2]`},
		{func(s *Scene) { s.Bodies[0].Shapes[0].Size[2] = -1 }, `shape 1 (box): size`},
		{func(s *Scene) { s.Bodies[0].Shapes[1].Length = 0 }, `shape 2 (cylinder): radius 0.1 and length 0 must be positive`},
		{func(s *Scene) { s.Bodies[0].Shapes[2].Radius = math.Inf(1) }, `shape 3 (sphere): radius`},
		{func(s *Scene) { s.Bodies[0].Shapes[2].Kind = "cone" }, `unknown kind "cone"`},
		{func(s *Scene) { s.Bodies[0].Shapes[0].Color = "red" }, `shape 1 (box): color: "red": want #rrggbb`},
		{func(s *Scene) { s.Bodies[0].Shapes[0].Color = "#12345g" }, `want #rrggbb`},
		{func(s *Scene) { s.Bodies[0].Shapes[0].P = []float64{1, 2} }, `shape 1 (box): p has 2 numbers, want [x, y, z]`},
		{func(s *Scene) { s.Bodies[0].Shapes[1].Q = []float64{0, 0, 0, 0} }, `shape 2 (cylinder): q [0 0 0 0] is not a rotation`},
		{func(s *Scene) { s.Bodies[0].Markers[0].Q = []float64{1, 0, 0} }, `marker "m": q has 3 numbers, want [w, x, y, z]`},
		{func(s *Scene) { s.Links[0].PB = []float64{0, 0} }, `link 1 (spherical -b): pb has 2 numbers, want [x, y, z]`},
		{func(s *Scene) { s.Links[0].PA[1] = math.NaN() }, `pa[1] = NaN is not finite`},
		{func(s *Scene) { s.Contacts[0].NZ = "n" }, `contact "c": NZ column "n" not in results`},
		{func(s *Scene) { s.Bounds = []float64{-1, -1, 1, 1} }, `bounds has 4 numbers; a spatial scene takes 6`},
		{func(s *Scene) { s.Bounds[2] = 5 }, `min 5 > max 2 on axis z`},
		{func(s *Scene) { s.Up = "x" }, `up "x": want "z" or "y"`},
		{func(s *Scene) {
			s.Beams = []SceneBeam{{Name: "bm", NodeX: []string{"c.x", "c.x"}, NodeY: []string{"c.y", "c.y"}, NodeZ: []string{"c.z"}}}
		}, `beam "bm": has 1 NodeZ columns for 2 nodes`},
	}
	for _, c := range cases {
		s := spatialScene()
		c.edit(s)
		_, err := s.Resolve(spatialTable())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
	}
}

// A spatial scene survives JSON; a planar one keeps its compact form.
func TestSceneJSONSpatial(t *testing.T) {
	b, err := json.Marshal(spatialScene())
	if err != nil {
		t.Fatal(err)
	}
	var s Scene
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"dim":3`, `"qw":"b.qw"`, `"shapes":[{"kind":"box","size":[1,2,3],"p":[0,0,1],"color":"#ff8000"}`,
		`"pa":[0,0,1]`, `"pz":"c.z"`, `"bounds":[-1,-1,0,1,1,2]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("json %s lacks %s", b, want)
		}
	}
	if s.Dim != 3 || len(s.Bodies[0].Shapes) != 3 || s.Bodies[0].Shapes[1].Q[1] != 1 || s.Links[0].PB[2] != -0.5 {
		t.Errorf("round trip %+v", s)
	}
	b, _ = json.Marshal(testScene())
	if strings.Contains(string(b), "dim") || strings.Contains(string(b), "bounds") || strings.Contains(string(b), "qw") {
		t.Errorf("planar scene JSON %s has spatial fields", b)
	}
}
