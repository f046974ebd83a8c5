package cosim

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// ModelCache keeps the model files of <model> components parsed and
// compiled for masters built one after another with the same files, as the
// runs of a design study are: each file is parsed once and compiled once
// per set of parameter values and time span, instead of at every New.
// Compiled models are immutable, so one cache may serve masters on several
// goroutines. It holds at most 64 compiled models (it starts afresh when
// full). The zero value is not usable: use NewModelCache.
type ModelCache struct {
	mu     sync.Mutex
	specs  map[string]*spec.Model
	models map[string]*solver.Model
}

// NewModelCache returns an empty cache.
func NewModelCache() *ModelCache {
	return &ModelCache{specs: map[string]*spec.Model{}, models: map[string]*solver.Model{}}
}

const maxCachedModels = 64

// load parses a model file (c may be nil: no caching). The returned spec
// is shared: callers copy before changing it.
func (c *ModelCache) load(path string) (*spec.Model, error) {
	if c == nil {
		return xml.LoadFile(path)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ms, ok := c.specs[path]; ok {
		return ms, nil
	}
	ms, err := xml.LoadFile(path)
	if err != nil {
		return nil, err
	}
	c.specs[path] = ms
	return ms, nil
}

// compile compiles ms (loaded from path) with params (c may be nil).
func (c *ModelCache) compile(path string, ms *spec.Model, params map[string]float64) (*solver.Model, error) {
	if c == nil {
		return solver.Compile(ms, solver.CompileOptions{Params: params})
	}
	var b strings.Builder
	b.WriteString(path)
	for _, v := range []float64{ms.Settings.Start, ms.Settings.End} {
		b.WriteString("|" + strconv.FormatUint(math.Float64bits(v), 16))
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("|" + k + "=" + strconv.FormatUint(math.Float64bits(params[k]), 16))
	}
	key := b.String()
	c.mu.Lock()
	m, ok := c.models[key]
	c.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := solver.Compile(ms, solver.CompileOptions{Params: params})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.models) >= maxCachedModels {
		clear(c.models)
	}
	c.models[key] = m
	c.mu.Unlock()
	return m, nil
}
