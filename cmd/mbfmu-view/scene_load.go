package main

import (
	"archive/zip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"mbfmu/results"
	"mbfmu/solver"
	"mbfmu/solver/mech"
	"mbfmu/spec"
	"mbfmu/xml"
)

// loadScene builds the scene of a model file from the compiled model's
// geometry (bodies, markers, joints, springs, beams, contacts).
func loadScene(modelPath string) (*results.Scene, error) {
	m, err := loadModel(modelPath)
	if err != nil {
		return nil, err
	}
	return sceneFromGeometry(m.Geometry()), nil
}

// loadModel reads and compiles a model file, or the model inside an
// mbfmu FMU (its resources/model.xml: the geometry travels with it).
func loadModel(path string) (*solver.Model, error) {
	var spec *spec.Model
	var err error
	if strings.HasSuffix(strings.ToLower(path), ".fmu") {
		var m *solver.Model
		if m, err = fmuLoad(path); err != nil {
			return nil, fmt.Errorf("scene from model: %w", err)
		}
		return m, nil
	} else {
		spec, err = xml.LoadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("scene from model: %w", err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{})
	if err != nil {
		return nil, fmt.Errorf("scene from model %s: %w", path, err)
	}
	return m, nil
}

// fmuLoad reads and compiles the model of an mbfmu FMU: resources/model.xml, and the
// data files beside it (an fe-body's matrices) read from a copy of the
// resources in a temporary folder.
func fmuLoad(path string) (*solver.Model, error) {
	data, err := fmuModel(path)
	if err != nil {
		return nil, err
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	var tmp string
	for _, f := range z.File {
		name, ok := strings.CutPrefix(f.Name, "resources/")
		if !ok || name == "" || name == "model.xml" || strings.HasSuffix(name, "/") {
			continue
		}
		if tmp == "" {
			if tmp, err = os.MkdirTemp("", "mbfmu-view-"); err != nil {
				return nil, err
			}
			defer os.RemoveAll(tmp)
		}
		dst := filepath.Join(tmp, filepath.FromSlash(name))
		if !strings.HasPrefix(dst, tmp+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s: resource %q lies outside the resources folder", path, f.Name)
		}
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return nil, err
		}
	}
	name := path + "/resources/model.xml"
	if tmp != "" {
		name = filepath.Join(tmp, "model.xml") // the FE files are read at compilation
	}
	ms, err := xml.Parse(data, name)
	if err != nil {
		return nil, err
	}
	return solver.Compile(ms, solver.CompileOptions{})
}

// fmuModel returns resources/model.xml of an mbfmu FMU.
func fmuModel(path string) ([]byte, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name == "resources/model.xml" {
			r, err := f.Open()
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return io.ReadAll(r)
		}
	}
	return nil, fmt.Errorf("%s has no resources/model.xml: not an FMU packed by mbfmu", path)
}

// replay runs the model at the times of a results table written by any
// master (FMPy, OMSimulator, mbfmu cosim: the FMU's inputs and outputs, not
// the bodies' poses), with the inputs the table holds (a column named as
// the input, or ending in ".input", preferring the instance of the
// outputs found: "plant.tau" beside "plant.theta"; each held from its row
// to the next, as a master does), and returns a table of every channel of the model at those
// times, and the largest difference between the table's outputs and the
// replay's (NaN when it has none).
func replay(m *solver.Model, tab *results.Table) (*results.Table, float64, error) {
	find := func(name string) int {
		for k, c := range tab.Cols {
			if k > 0 && (c.Name == name || strings.HasSuffix(c.Name, "."+name)) {
				return k
			}
		}
		return -1
	}
	outs := m.OutputInfo()
	outCol := make([]int, len(outs))
	prefix := "" // the plant's instance in the table ("plant." of mbfmu cosim's "plant.theta")
	for k, o := range outs {
		outCol[k] = find(o.Name)
		if c := outCol[k]; c > 0 && prefix == "" {
			prefix = strings.TrimSuffix(tab.Cols[c].Name, o.Name)
		}
	}
	ins := m.InputInfo()
	inCol := make([]int, len(ins))
	for k, in := range ins {
		inCol[k] = -1
		if prefix != "" {
			for c := 1; c < len(tab.Cols); c++ {
				if tab.Cols[c].Name == prefix+in.Name {
					inCol[k] = c
				}
			}
		}
		if inCol[k] < 0 {
			inCol[k] = find(in.Name)
		}
	}
	chans := m.Channels()
	out := &results.Table{Cols: []results.Column{{Name: "time", Unit: "s"}}}
	for _, c := range chans {
		if c.Name != "time" {
			out.Cols = append(out.Cols, results.Column{Name: c.Name, Unit: c.Unit})
		}
	}
	out.Data = make([][]float64, len(out.Cols))
	s := m.NewState()
	setInputs := func(row int) {
		for k, c := range inCol {
			if c >= 0 {
				s.SetInput(k, tab.Data[c][row])
			}
		}
	}
	vals := make([]float64, len(chans))
	yo := make([]float64, len(outs))
	worst := math.NaN()
	times := tab.Data[0]
	for row, t := range times {
		if row == 0 {
			setInputs(0)
			if err := m.Init(s); err != nil {
				return nil, 0, err
			}
		} else {
			setInputs(row - 1)
			if err := m.AdvanceTo(s, t); err != nil {
				return nil, 0, fmt.Errorf("replay to %g s: %w", t, err)
			}
		}
		m.EvalChannels(s, vals)
		out.Data[0] = append(out.Data[0], t)
		col := 1
		for k, c := range chans {
			if c.Name != "time" {
				out.Data[col] = append(out.Data[col], vals[k])
				col++
			}
		}
		m.EvalOutputs(s, yo)
		for k, c := range outCol {
			if c >= 0 {
				d := math.Abs(yo[k] - tab.Data[c][row])
				if math.IsNaN(worst) || d > worst {
					worst = d
				}
			}
		}
	}
	return out, worst, nil
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
	for _, b := range g.Beams {
		sc.Beams = append(sc.Beams, results.SceneBeam{Name: b.Name, NodeX: b.NodeX, NodeY: b.NodeY, NodeZ: b.NodeZ})
	}
	for _, c := range g.Contacts {
		sc.Contacts = append(sc.Contacts, results.SceneContact{Name: c.Name, PX: c.PX, PY: c.PY, PZ: c.PZ, FN: c.FN, NX: c.NX, NY: c.NY, NZ: c.NZ})
	}
	return sc
}
