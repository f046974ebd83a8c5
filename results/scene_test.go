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
	if r.Bodies[0] != (ResolvedBody{1, 2, 3}) || r.Bodies[1] != (ResolvedBody{4, 5, -1}) {
		t.Errorf("bodies %+v", r.Bodies)
	}
	if r.Links[0] != (ResolvedLink{-1, 0, -1}) || r.Links[1] != (ResolvedLink{0, 1, 6}) || r.Links[2] != (ResolvedLink{-1, 1, -1}) {
		t.Errorf("links %+v", r.Links)
	}
	if len(r.Beams) != 1 || r.Beams[0].X[1] != 9 || r.Beams[0].Y[1] != 10 {
		t.Errorf("beams %+v", r.Beams)
	}
	if r.Contacts[0] != (ResolvedContact{11, 12, 13, -1, -1}) {
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
