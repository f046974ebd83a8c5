package main

import (
	"errors"
	"fmt"

	"mbfmu/results"
)

// errNotWired is returned until the model → scene step exists.
var errNotWired = errors.New("not wired yet")

// loadScene builds the scene of a model file. It will call
// solver.SceneFromModel once the solver provides it; until then it returns
// errNotWired and the viewer falls back to --scene or to bodies found from
// column names.
func loadScene(modelPath string) (*results.Scene, error) {
	return nil, fmt.Errorf("scene from model %s: %w (use --scene scene.json)", modelPath, errNotWired)
}
