package expr

import (
	"fmt"
	"sort"
	"strings"
)

// testEnv is a Resolver for tests: variables by name, markers for the
// measures dx, vx (one marker) and dist (two markers), and tables.
type testEnv struct {
	vars     map[string]int
	markers  map[string]bool
	tables   map[string]*Table
	measures map[string]int // "fn(a,b)" -> id, filled on demand
}

func (e *testEnv) Var(name string) (int, bool) {
	s, ok := e.vars[name]
	return s, ok
}

func (e *testEnv) Measure(fn string, args []string) (int, bool, error) {
	want := map[string]int{"dx": 1, "vx": 1, "dist": 2}[fn]
	if want == 0 {
		return 0, false, nil
	}
	if len(args) != want {
		return 0, false, fmt.Errorf("%s expects %d marker(s), got %d", fn, want, len(args))
	}
	for _, a := range args {
		if !e.markers[a] {
			return 0, false, fmt.Errorf("unknown marker %q", a)
		}
	}
	key := fn + "(" + strings.Join(args, ",") + ")"
	id, ok := e.measures[key]
	if !ok {
		return 0, false, fmt.Errorf("test env: measure %s has no id", key)
	}
	return id, true, nil
}

func (e *testEnv) Table(name string) (*Table, bool) {
	t, ok := e.tables[name]
	return t, ok
}

func (e *testEnv) Names() []string {
	var n []string
	for k := range e.vars {
		n = append(n, k)
	}
	for k := range e.tables {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// measVals is a Measurer returning fixed values by id.
type measVals struct{ v []float64 }

func (m *measVals) Measure(id int) float64 { return m.v[id] }

func mustTable(x, y []float64, k TableKind) *Table {
	t, err := NewTable(x, y, k)
	if err != nil {
		panic(err)
	}
	return t
}

// Slots of the standard test environment.
const (
	sX = iota
	sY
	sZ
	sTime
	sK
	sC
	sV
	sFin
	sArmLen
	nSlots
)

func newEnv() *testEnv {
	return &testEnv{
		vars: map[string]int{"x": sX, "y": sY, "z": sZ, "time": sTime, "k": sK, "c": sC, "v": sV,
			"F_in": sFin, "arm.len": sArmLen},
		markers: map[string]bool{"arm.tip": true, "ground.o": true},
		tables: map[string]*Table{
			// Linear tent: 0 -> 10 -> 0 on [0, 2].
			"tbl": mustTable([]float64{0, 1, 2}, []float64{0, 10, 0}, Linear),
			// Natural spline through (0,0) (1,1) (2,0): M = 0, -3, 0.
			"h3": mustTable([]float64{0, 1, 2}, []float64{0, 1, 0}, Spline),
			// Smooth data for derivative tests.
			"spl": mustTable([]float64{-3, -2, -1, -0.5, 0, 1, 1.5, 2, 3, 4, 5, 6},
				[]float64{1, 0.5, -0.2, 0.3, 1, 2, 1.5, 0.7, 0.2, 0.4, 1, 0.5}, Spline),
			"ak": mustTable([]float64{-3, -2, -1, -0.5, 0, 1, 1.5, 2, 3, 4, 5, 6},
				[]float64{1, 0.5, -0.2, 0.3, 1, 2, 1.5, 0.7, 0.2, 0.4, 1, 0.5}, Akima),
		},
		measures: map[string]int{"dx(arm.tip)": 0, "vx(arm.tip)": 1, "dist(arm.tip,ground.o)": 2},
	}
}

// Values of the standard measures.
func newMeas() *measVals { return &measVals{v: []float64{0.3, -1.5, 2}} }

// stdVars returns values for the standard slots.
func stdVars() []float64 {
	v := make([]float64, nSlots)
	v[sX], v[sY], v[sZ] = 3, -2, 0.5
	v[sTime], v[sK], v[sC], v[sV] = 1.25, 10, 0.5, 2
	v[sFin], v[sArmLen] = 7, 0.4
	return v
}
