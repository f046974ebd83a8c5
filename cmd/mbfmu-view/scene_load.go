package main

import (
	"fmt"

	"mbfmu/results"
	"mbfmu/solver"
	"mbfmu/solver/mech"
	"mbfmu/xml"
)

// loadScene builds the scene of a model file from the compiled model's
// geometry (bodies, markers, joints, springs, beams, contacts).
func loadScene(modelPath string) (*results.Scene, error) {
	spec, err := xml.LoadFile(modelPath)
	if err != nil {
		return nil, fmt.Errorf("scene from model: %w", err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{})
	if err != nil {
		return nil, fmt.Errorf("scene from model %s: %w", modelPath, err)
	}
	return sceneFromGeometry(m.Geometry()), nil
}

// sceneFromGeometry converts the engine's geometry to the viewer's scene.
func sceneFromGeometry(g *mech.Geometry) *results.Scene {
	if g.Dim == 3 {
		return scene3FromGeometry(g)
	}
	sc := &results.Scene{}
	for _, b := range g.Bodies {
		sb := results.SceneBody{Name: b.Name, X: b.Name + ".x", Y: b.Name + ".y", Angle: b.Name + ".angle",
			Outline: b.Outline, Radius: b.Radius}
		for _, mk := range b.Markers {
			sb.Markers = append(sb.Markers, results.SceneMarker{Name: mk.Name, P: []float64{mk.P[0], mk.P[1]}})
		}
		sc.Bodies = append(sc.Bodies, sb)
	}
	for _, l := range g.Links {
		sc.Links = append(sc.Links, results.SceneLink{Kind: l.Kind, BodyA: l.BodyA, BodyB: l.BodyB,
			PA: []float64{l.PA[0], l.PA[1]}, PB: []float64{l.PB[0], l.PB[1]}, Force: l.Force})
	}
	for _, b := range g.Beams {
		sc.Beams = append(sc.Beams, results.SceneBeam{Name: b.Name, NodeX: b.NodeX, NodeY: b.NodeY})
	}
	for _, c := range g.Contacts {
		sc.Contacts = append(sc.Contacts, results.SceneContact{Name: c.Name, PX: c.PX, PY: c.PY, FN: c.FN, NX: c.NX, NY: c.NY})
	}
	return sc
}

// scene3FromGeometry converts a spatial model's geometry: bodies posed by
// their x, y, z and quaternion channels, drawn with their solids (a
// sphere at the centre of mass when they have none), markers as frames.
func scene3FromGeometry(g *mech.Geometry) *results.Scene {
	sc := &results.Scene{Dim: 3, Up: "z"}
	for _, b := range g.Bodies {
		n := b.Name
		sb := results.SceneBody{Name: n, X: n + ".x", Y: n + ".y", Z: n + ".z", QW: n + ".qw", QX: n + ".qx", QY: n + ".qy", QZ: n + ".qz"}
		for _, sh := range b.Shapes {
			ss := results.SceneShape{Kind: sh.Kind, Radius: sh.Radius, Length: sh.Length, P: sh.P[:], Q: sh.Q[:], Color: sh.Color}
			if sh.Kind == "box" {
				ss.Size = sh.Size[:]
			}
			sb.Shapes = append(sb.Shapes, ss)
		}
		if len(sb.Shapes) == 0 {
			sb.Shapes = []results.SceneShape{{Kind: "sphere", Radius: 0.03, P: b.CM[:]}}
		}
		for _, mk := range b.Markers {
			sb.Markers = append(sb.Markers, results.SceneMarker{Name: mk.Name, P: mk.P3[:], Q: mk.Q[:]})
		}
		sc.Bodies = append(sc.Bodies, sb)
	}
	for _, l := range g.Links {
		sc.Links = append(sc.Links, results.SceneLink{Kind: l.Kind, BodyA: l.BodyA, BodyB: l.BodyB,
			PA: l.PA3[:], PB: l.PB3[:], Force: l.Force})
	}
	for _, c := range g.Contacts {
		sc.Contacts = append(sc.Contacts, results.SceneContact{Name: c.Name, PX: c.PX, PY: c.PY, PZ: c.PZ, FN: c.FN, NX: c.NX, NY: c.NY, NZ: c.NZ})
	}
	return sc
}
