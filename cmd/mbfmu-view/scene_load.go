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
	sc := &results.Scene{}
	for _, b := range g.Bodies {
		sb := results.SceneBody{Name: b.Name, X: b.Name + ".x", Y: b.Name + ".y", Angle: b.Name + ".angle",
			Outline: b.Outline, Radius: b.Radius}
		for _, mk := range b.Markers {
			sb.Markers = append(sb.Markers, results.SceneMarker{Name: mk.Name, P: mk.P})
		}
		sc.Bodies = append(sc.Bodies, sb)
	}
	for _, l := range g.Links {
		sc.Links = append(sc.Links, results.SceneLink{Kind: l.Kind, BodyA: l.BodyA, BodyB: l.BodyB, PA: l.PA, PB: l.PB, Force: l.Force})
	}
	for _, b := range g.Beams {
		sc.Beams = append(sc.Beams, results.SceneBeam{Name: b.Name, NodeX: b.NodeX, NodeY: b.NodeY})
	}
	for _, c := range g.Contacts {
		sc.Contacts = append(sc.Contacts, results.SceneContact{Name: c.Name, PX: c.PX, PY: c.PY, FN: c.FN, NX: c.NX, NY: c.NY})
	}
	return sc
}
