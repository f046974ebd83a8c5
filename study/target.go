package study

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"mbfmu/cosim"
	"mbfmu/results"
	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// runTarget is what the runs of a study simulate: a model file or a
// co-simulation, with the study's fixed overrides applied.
type runTarget interface {
	// columns lists the result channels (time first).
	columns() []results.Column
	// hash identifies the simulation: the files' contents and the
	// overrides.
	hash() string
	// newWorker prepares what one worker reuses from run to run.
	newWorker() (targetWorker, error)
}

// targetWorker runs simulations one after another (not concurrently).
type targetWorker interface {
	// run simulates with the factor values x, sending every results row
	// (time first, as columns()) to row. It returns a *runFailure when the
	// simulation failed, ctx.Err() when it was cancelled.
	run(ctx context.Context, x []float64, row func([]float64) error) (simWall float64, err error)
}

// runFailure is a run that failed (assembly, Newton divergence, a failed
// check): recorded with its reason, the study goes on. Completed is true
// when the simulation reached its end (a failed check): its responses are
// kept.
type runFailure struct {
	msg       string
	completed bool
}

func (f *runFailure) Error() string { return f.msg }

// fileHash adds a file's contents (not its path: the same files reached
// by another path, as an array task does, give the same runs) to h.
func fileHash(h io.Writer, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %d\n", len(data))
	h.Write(data)
	return nil
}

func fbits(v float64) string { return strconv.FormatUint(math.Float64bits(v), 16) }

// ---- model files ----

// modelTarget runs a model file on the engine directly.
type modelTarget struct {
	spec     *spec.Model
	base     *solver.Model // compiled with the fixed overrides
	fixed    map[string]float64
	pidx     []int // per factor: parameter index in base, -1 when none
	pname    []string
	tunable  bool // every factor parameter is tunable: one compiled model for all runs
	cols     []results.Column
	h        string
	set      solver.Settings // the run's times (OutputRows, OutputTime)
	start    float64
	end      float64
	paramVal map[string]float64
}

func newModelTarget(st *Study) (*modelTarget, error) {
	t := st.Target
	ms, err := xml.LoadFile(t.Path)
	if err != nil {
		var el spec.ErrorList
		if errors.As(err, &el) {
			return nil, fmt.Errorf("%s:%d: model %s has problems:\n%w", st.File, t.Line, t.Path, err)
		}
		return nil, st.errorf(t.Line, "path", "%v", err)
	}
	s := &ms.Settings
	if t.End > 0 {
		s.End = t.End
	}
	if t.Step > 0 {
		s.Step = t.Step
	}
	if t.OutputStep > 0 {
		s.OutputStep = t.OutputStep
	}
	if t.Integrator != "" {
		s.Integrator = t.Integrator
	}
	mt := &modelTarget{spec: ms, fixed: map[string]float64{}, paramVal: map[string]float64{}}
	var el spec.ErrorList
	pnames := make([]string, len(ms.Params))
	has := map[string]spec.Param{}
	for i, p := range ms.Params {
		pnames[i] = p.Name
		has[p.Name] = p
	}
	for _, p := range t.Params {
		if _, ok := has[p.Name]; !ok {
			el.Add(spec.Pos{File: st.File, Line: p.Line}, "name", "model %s has no parameter %q%s", t.Path, p.Name, didYouMean(p.Name, pnames))
			continue
		}
		mt.fixed[p.Name] = p.Value
	}
	for _, f := range st.Factors {
		if f.Param == "" {
			continue
		}
		if _, ok := has[f.Param]; !ok {
			el.Add(spec.Pos{File: st.File, Line: f.Line}, "param", "model %s has no parameter %q%s", t.Path, f.Param, didYouMean(f.Param, pnames))
		}
		if _, ok := mt.fixed[f.Param]; ok {
			el.Add(spec.Pos{File: st.File, Line: f.Line}, "param", "parameter %q is both a factor and set by <parameter>", f.Param)
		}
	}
	if len(el) > 0 {
		return nil, el
	}
	base, err := solver.Compile(ms, solver.CompileOptions{Params: mt.fixed})
	if err != nil {
		return nil, fmt.Errorf("%s:%d: model %s: %w", st.File, t.Line, t.Path, err)
	}
	mt.base = base
	info := base.ParamInfo()
	mt.tunable = true
	for _, f := range st.Factors {
		k := -1
		for i, p := range info {
			if p.Name == f.Param && f.Param != "" {
				k = i
				mt.paramVal[f.Name] = p.Value
				if f.Unit == "" {
					f.Unit = p.Unit
				}
				if !p.Tunable {
					mt.tunable = false
				}
			}
		}
		mt.pidx = append(mt.pidx, k)
		mt.pname = append(mt.pname, f.Param)
	}
	for _, c := range base.Channels() {
		mt.cols = append(mt.cols, results.Column{Name: c.Name, Unit: c.Unit, Group: c.Group, Description: c.Description})
	}
	set := base.Settings()
	if !(set.OutputStep > 0) || !(set.End > set.Start) {
		return nil, st.errorf(t.Line, "end", "the run %g … %g s with output step %g s is empty", set.Start, set.End, set.OutputStep)
	}
	mt.start, mt.end = set.Start, set.End
	mt.set = set
	h := sha256.New()
	fmt.Fprintf(h, "mbfmu study model target v1\n")
	if err := fileHash(h, t.Path); err != nil {
		return nil, err
	}
	fmt.Fprintf(h, "end %s step %s output %s integrator %s\n", fbits(t.End), fbits(t.Step), fbits(t.OutputStep), t.Integrator)
	for _, k := range sortedNames(mt.fixed) {
		fmt.Fprintf(h, "param %s=%s\n", k, fbits(mt.fixed[k]))
	}
	for _, f := range st.Factors {
		fmt.Fprintf(h, "factor %s -> %s\n", f.Name, f.Param)
	}
	mt.h = hex.EncodeToString(h.Sum(nil))
	return mt, nil
}

func (t *modelTarget) columns() []results.Column { return t.cols }
func (t *modelTarget) hash() string              { return t.h }

type modelWorker struct {
	t      *modelTarget
	row    []float64
	params map[string]float64
}

func (t *modelTarget) newWorker() (targetWorker, error) {
	w := &modelWorker{t: t, row: make([]float64, len(t.cols)), params: map[string]float64{}}
	return w, nil
}

func (w *modelWorker) run(ctx context.Context, x []float64, row func([]float64) error) (float64, error) {
	t := w.t
	m := t.base
	var s *solver.State
	if t.tunable {
		s = m.NewState()
		for i, k := range t.pidx {
			if k >= 0 {
				if err := s.SetParam(k, x[i]); err != nil {
					return 0, &runFailure{msg: err.Error()}
				}
			}
		}
	} else {
		// A factor sets a mass, a geometry or an initial state: compile
		// the model with the run's values.
		clear(w.params)
		for k, v := range t.fixed {
			w.params[k] = v
		}
		for i, k := range t.pidx {
			if k >= 0 {
				w.params[t.pname[i]] = x[i]
			}
		}
		var err error
		if m, err = solver.Compile(t.spec, solver.CompileOptions{Params: w.params}); err != nil {
			return 0, &runFailure{msg: "compiling: " + err.Error()}
		}
		if len(m.Channels()) != len(t.cols) {
			return 0, &runFailure{msg: "the parameter values change the model's channels"}
		}
		s = m.NewState()
	}
	wall := nowSeconds()
	if err := m.Init(s); err != nil {
		return nowSeconds() - wall, &runFailure{msg: "initialising: " + err.Error()}
	}
	m.EvalChannels(s, w.row)
	if err := row(w.row); err != nil {
		return 0, err
	}
	for k, n := 1, t.set.OutputRows(); k <= n; k++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		tk := t.set.OutputTime(k)
		if err := m.AdvanceTo(s, tk); err != nil {
			return nowSeconds() - wall, &runFailure{msg: err.Error()}
		}
		m.EvalChannels(s, w.row)
		if err := m.CheckRow(s, w.row); err != nil {
			// the rule of simulate and the FMU: a value no longer finite
			// fails the run, named
			return nowSeconds() - wall, &runFailure{msg: err.Error()}
		}
		if err := row(w.row); err != nil {
			return 0, err
		}
	}
	return nowSeconds() - wall, nil
}

// ---- co-simulations ----

// cosimTarget runs a co-simulation configuration file.
type cosimTarget struct {
	st     *Study
	data   []byte
	cols   []results.Column
	h      string
	end    float64
	checks bool
	// per factor, where its value goes
	places []place
	fixed  []fixedPlace
	// models parsed and compiled once for all runs (a factor that sets a
	// model parameter compiles once per value)
	models *cosim.ModelCache
}

// place is where a value goes in a configuration: a parameter of a
// <model>/<fmu> component or an attribute (or one number of a list
// attribute, index ≥ 1) of another component.
type place struct {
	comp, name string
	param      bool
	index      int
	none       bool
}

type fixedPlace struct {
	place
	value float64
}

// parsePlace splits "comp.name" or "comp.attr[k]".
func parsePlace(s string) (comp, name string, index int, ok bool) {
	comp, name, ok = strings.Cut(s, ".")
	if !ok || comp == "" || name == "" {
		return "", "", 0, false
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		if !strings.HasSuffix(name, "]") {
			return "", "", 0, false
		}
		k, err := strconv.Atoi(name[i+1 : len(name)-1])
		if err != nil || k < 1 {
			return "", "", 0, false
		}
		name, index = name[:i], k
	}
	return comp, name, index, true
}

func newCosimTarget(st *Study) (*cosimTarget, map[string]float64, error) {
	t := st.Target
	data, err := xml.ReadInput(t.Path)
	if err != nil {
		return nil, nil, st.errorf(t.Line, "path", "%v", err)
	}
	cfg, err := cosim.ParseConfig(data, t.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%d: configuration %s has problems:\n%w", st.File, t.Line, t.Path, err)
	}
	ct := &cosimTarget{st: st, data: data, end: t.End, checks: t.Checks, models: cosim.NewModelCache()}
	byName := map[string]*cosim.Element{}
	var compNames []string
	for _, e := range cfg.Components {
		byName[e.Name] = e
		compNames = append(compNames, e.Name)
	}
	nominal := map[string]float64{}
	var el spec.ErrorList
	resolve := func(name string, line int, field string) (place, float64, string, bool) {
		comp, attr, index, ok := parsePlace(name)
		if !ok {
			el.Add(spec.Pos{File: st.File, Line: line}, field, "%q: a co-simulation parameter is written component.parameter, component.attribute or component.attribute[k]", name)
			return place{}, 0, "", false
		}
		e := byName[comp]
		if e == nil {
			el.Add(spec.Pos{File: st.File, Line: line}, field, "%s has no component %q%s", t.Path, comp, didYouMean(comp, compNames))
			return place{}, 0, "", false
		}
		pl := place{comp: comp, name: attr, index: index}
		nom, unit := math.NaN(), ""
		if e.Kind == "model" || e.Kind == "fmu" {
			if index > 0 {
				el.Add(spec.Pos{File: st.File, Line: line}, field, "%s is a %s component: give a parameter name, not a list entry", comp, e.Kind)
				return place{}, 0, "", false
			}
			pl.param = true
			for _, p := range e.Params {
				if p.Name == attr {
					nom = p.Value
				}
			}
			if e.Kind == "model" {
				ms, err := xml.LoadFile(resolvePath(t.Path, e.Attr["path"]))
				if err != nil {
					el.Add(spec.Pos{File: st.File, Line: line}, field, "model of %s: %v", comp, err)
					return place{}, 0, "", false
				}
				found := false
				var pn []string
				for _, p := range ms.Params {
					pn = append(pn, p.Name)
					if p.Name == attr {
						found = true
						unit = p.Unit
						if math.IsNaN(nom) {
							nom = p.Value
						}
					}
				}
				if !found {
					el.Add(spec.Pos{File: st.File, Line: line}, field, "the model of %s has no parameter %q%s", comp, attr, didYouMean(attr, pn))
					return place{}, 0, "", false
				}
			}
			return pl, nom, unit, true
		}
		if s, ok := e.Attr[attr]; ok {
			if index > 0 {
				items := listItems(s)
				if index > len(items) {
					el.Add(spec.Pos{File: st.File, Line: line}, field, "%s.%s has %d numbers, not %d", comp, attr, len(items), index)
					return place{}, 0, "", false
				}
				s = items[index-1]
			}
			if v, err := xml.ParseQuantity(s, xml.Any); err == nil {
				nom = v
			}
		} else if index > 0 {
			el.Add(spec.Pos{File: st.File, Line: line}, field, "%s has no attribute %q to take entry %d of", comp, attr, index)
			return place{}, 0, "", false
		}
		return pl, nom, unit, true
	}
	for _, f := range st.Factors {
		if f.Param == "" {
			ct.places = append(ct.places, place{none: true})
			continue
		}
		pl, nom, unit, ok := resolve(f.Param, f.Line, "param")
		ct.places = append(ct.places, pl)
		if ok {
			if !math.IsNaN(nom) {
				nominal[f.Name] = nom
			}
			if f.Unit == "" {
				f.Unit = unit
			}
		}
	}
	for _, p := range t.Params {
		if pl, _, _, ok := resolve(p.Name, p.Line, "name"); ok {
			ct.fixed = append(ct.fixed, fixedPlace{pl, p.Value})
		}
	}
	if len(el) > 0 {
		return nil, nil, el
	}
	if t.OutputStep > 0 {
		r := t.OutputStep / cfg.Settings.Step
		if cfg.Settings.Variable || math.Abs(r-math.Round(r)) > 1e-9*r || math.Round(r) < 1 {
			return nil, nil, st.errorf(t.Line, "output-step", "%g s is not a whole multiple of the co-simulation's fixed step %g s", t.OutputStep, cfg.Settings.Step)
		}
	}
	// A master with the nominal values checks the configuration and gives
	// the columns.
	w, err := ct.newWorker()
	if err != nil {
		return nil, nil, err
	}
	x := make([]float64, len(st.Factors))
	for i, f := range st.Factors {
		x[i] = f.Nominal
		if math.IsNaN(x[i]) {
			if v, ok := nominal[f.Name]; ok {
				x[i] = v
			} else if !math.IsNaN(f.Min) && !math.IsNaN(f.Max) {
				x[i] = 0.5 * (f.Min + f.Max)
			} else if len(f.Levels) > 0 {
				x[i] = f.Levels[0]
			} else {
				x[i] = f.Mean
			}
		}
	}
	cw := w.(*cosimWorker)
	m, err := cw.master(x)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%d: co-simulation %s: %w", st.File, t.Line, t.Path, err)
	}
	ct.cols = m.Columns()
	m.Close()
	// identity: the configuration, every file it references, the overrides
	h := sha256.New()
	fmt.Fprintf(h, "mbfmu study cosim target v1\n")
	h.Write(data)
	for _, e := range cfg.Components {
		if p, ok := e.Attr["path"]; ok && p != "" {
			if err := fileHash(h, resolvePath(t.Path, p)); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: component %s: %w", t.Path, e.Line, e.Name, err)
			}
		}
	}
	fmt.Fprintf(h, "end %s output %s checks %v\n", fbits(t.End), fbits(t.OutputStep), t.Checks)
	for _, p := range ct.fixed {
		fmt.Fprintf(h, "set %s.%s[%d] param=%v = %s\n", p.comp, p.name, p.index, p.param, fbits(p.value))
	}
	for i, f := range st.Factors {
		fmt.Fprintf(h, "factor %s -> %+v\n", f.Name, ct.places[i])
	}
	ct.h = hex.EncodeToString(h.Sum(nil))
	return ct, nominal, nil
}

// resolvePath resolves p against the folder of file.
func resolvePath(file, p string) string {
	if p == "" || strings.HasPrefix(p, "/") {
		return p
	}
	dir := file
	if i := strings.LastIndexAny(dir, "/\\"); i >= 0 {
		dir = dir[:i]
	} else {
		dir = "."
	}
	return dir + "/" + p
}

func listItems(s string) []string {
	var out []string
	for _, r := range strings.Split(s, ";") {
		out = append(out, strings.FieldsFunc(r, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' })...)
	}
	return out
}

// setList replaces the k-th number (from 1) of a list attribute, keeping
// its rows.
func setList(s string, k int, v string) string {
	rows := strings.Split(s, ";")
	n := 0
	for i, r := range rows {
		f := strings.FieldsFunc(r, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' })
		for j := range f {
			n++
			if n == k {
				f[j] = v
			}
		}
		rows[i] = strings.Join(f, " ")
	}
	return strings.Join(rows, "; ")
}

func (t *cosimTarget) columns() []results.Column { return t.cols }
func (t *cosimTarget) hash() string              { return t.h }

// cosimWorker keeps its own parsed configuration, whose components it
// edits for every run (the configuration's elements must not be shared
// between concurrent masters).
type cosimWorker struct {
	t    *cosimTarget
	cfg  *cosim.Config
	el   map[string]*cosim.Element
	orig map[string]map[string]string // original attributes per component
	prm  map[string][]cosim.NamedValue
}

func (t *cosimTarget) newWorker() (targetWorker, error) {
	cfg, err := cosim.ParseConfig(t.data, t.st.Target.Path)
	if err != nil {
		return nil, err
	}
	if !t.checks {
		cfg.Checks = nil
	}
	if t.st.Target.OutputStep > 0 {
		cfg.Settings.OutputStep = t.st.Target.OutputStep
	}
	w := &cosimWorker{t: t, cfg: cfg, el: map[string]*cosim.Element{}, orig: map[string]map[string]string{}, prm: map[string][]cosim.NamedValue{}}
	for _, e := range cfg.Components {
		w.el[e.Name] = e
		a := map[string]string{}
		for k, v := range e.Attr {
			a[k] = v
		}
		w.orig[e.Name] = a
		w.prm[e.Name] = append([]cosim.NamedValue(nil), e.Params...)
	}
	return w, nil
}

// apply resets the components to the file's values and sets x.
func (w *cosimWorker) apply(x []float64) {
	for name, e := range w.el {
		for k := range e.Attr {
			if _, ok := w.orig[name][k]; !ok {
				delete(e.Attr, k)
			}
		}
		for k, v := range w.orig[name] {
			e.Attr[k] = v
		}
		e.Params = append(e.Params[:0], w.prm[name]...)
	}
	set := func(p place, v float64) {
		e := w.el[p.comp]
		if p.param {
			for i := range e.Params {
				if e.Params[i].Name == p.name {
					e.Params[i].Value = v
					return
				}
			}
			e.Params = append(e.Params, cosim.NamedValue{Name: p.name, Value: v, Line: e.Line})
			return
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if p.index > 0 {
			s = setList(e.Attr[p.name], p.index, s)
		}
		e.Attr[p.name] = s
	}
	for _, p := range w.t.fixed {
		set(p.place, p.value)
	}
	for i, p := range w.t.places {
		if !p.none {
			set(p, x[i])
		}
	}
}

func (w *cosimWorker) master(x []float64) (*cosim.Master, error) {
	w.apply(x)
	return cosim.New(w.cfg, cosim.Options{End: w.t.end, Models: w.t.models})
}

// rowWriter passes the master's rows on (a results.Writer).
type rowWriter struct {
	ctx context.Context
	row func([]float64) error
}

func (r *rowWriter) Header([]results.Column) error { return nil }
func (r *rowWriter) Row(v []float64) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	return r.row(v)
}
func (r *rowWriter) Close() error { return nil }

func (w *cosimWorker) run(ctx context.Context, x []float64, row func([]float64) error) (float64, error) {
	m, err := w.master(x)
	if err != nil {
		return 0, &runFailure{msg: "building: " + oneLine(err.Error())}
	}
	defer m.Close()
	wall := nowSeconds()
	if err := m.Init(); err != nil {
		return nowSeconds() - wall, &runFailure{msg: "initialising: " + oneLine(err.Error())}
	}
	// (NoMemStats: the counts would stop the world, pausing the other
	// workers at every run)
	sum, err := m.Run(cosim.RunOptions{Writer: &rowWriter{ctx: ctx, row: row}, NoMemStats: true})
	sim := nowSeconds() - wall
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return sim, &runFailure{msg: oneLine(err.Error())}
	}
	if cerr := m.Close(); cerr != nil {
		return sim, &runFailure{msg: oneLine(cerr.Error())}
	}
	if !sum.Passed() {
		var failed []string
		for _, c := range sum.Checks {
			if !c.Pass {
				failed = append(failed, "check "+c.String())
			}
		}
		sort.Strings(failed)
		return sim, &runFailure{msg: strings.Join(failed, "; "), completed: true}
	}
	return sim, nil
}

// oneLine joins the lines of a message.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
