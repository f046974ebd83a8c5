package cosim

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	mxml "mbfmu/xml"
)

// Config is a parsed co-simulation configuration file (docs/cosim.md).
type Config struct {
	// Name and Description come from the root element.
	Name, Description string
	// File is the configuration file's path; relative paths in the file are
	// resolved against its folder.
	File string
	// Settings of the master.
	Settings Settings
	// Components in file order.
	Components []*Element
	// Connections in file order.
	Connections []Connection
	// Checks are the expected figures verified after the run.
	Checks []Check
}

// Settings are the master's time settings.
type Settings struct {
	// Start and End bound the run (s).
	Start, End float64
	// Step is the macro (communication) step (s); with Variable it is the
	// initial step.
	Step float64
	// OutputStep is the interval of the results rows (s); a multiple of
	// Step. Zero records every macro step.
	OutputStep float64
	// Variable selects a variable macro step controlled by the
	// extrapolation error of the coupling signals (see docs/cosim.md).
	Variable bool
	// MinStep and MaxStep bound a variable step.
	MinStep, MaxStep float64
	// RelTol and AbsTol are the tolerances of the variable step control.
	RelTol, AbsTol float64
	// Extrapolate hands the output derivatives of stepped components to
	// the inputs of stepped components they feed, where both sides can
	// (first-order extrapolation of the coupling signals over the macro
	// step; see Master). ParseConfig sets it unless the file says
	// extrapolate="false".
	Extrapolate bool
}

// Element is one component element of the file: its kind (the tag), name,
// attributes and <parameter>/<start> children.
type Element struct {
	Kind string
	Name string
	// Line is the line of the element's start tag.
	Line int
	// Attr holds the attributes other than name, as written.
	Attr map[string]string
	// AttrLine holds the line of each attribute (for start tags written
	// over several lines).
	AttrLine map[string]int
	// Params and Starts are the <parameter> and <start> children.
	Params, Starts []NamedValue
	used           map[string]bool
}

// NamedValue is a <parameter> or <start> child: a name and a value.
type NamedValue struct {
	Name string
	// Value is the value in SI units (a plain number as written).
	Value float64
	// Text is the value as written ("5 kg").
	Text string
	// Line is the line of the value attribute.
	Line int
}

// In returns the value in unit, the unit the model or FMU declares for the
// variable (see mbfmu/xml.ParseQuantityIn): a plain number is in that unit
// already, a number with a unit must have the unit's dimension and is
// converted. The error says what is wrong, without file and line.
func (nv NamedValue) In(unit string) (float64, error) {
	if nv.Text == "" {
		return nv.Value, nil
	}
	v, err := mxml.ParseQuantityIn(nv.Text, unit)
	if err != nil {
		return 0, fmt.Errorf("value %q: %v", nv.Text, strings.Replace(err.Error(), "the quantity is", nv.Name+" is", 1))
	}
	return v, nil
}

// Connection feeds output From ("component.port") into input To.
type Connection struct {
	From, To string
	Line     int
}

// Check is an expected figure checked on the results: over every recorded
// row with After ≤ time ≤ Until, |v − Near| ≤ Tol, with v the value of
// Signal (minus that of Minus when given: a tracking error) — or, with
// Mean, |mean(v) − Near| ≤ Tol over those rows, and with RMS,
// √(mean((v − Near)²)) ≤ Tol.
type Check struct {
	Signal       string
	Minus        string // "" or a second column subtracted from Signal
	After, Until float64
	Near, Tol    float64
	Mean         bool
	RMS          bool
	Line         int
	Description  string
}

// LoadConfig reads and parses a configuration file.
func LoadConfig(path string) (*Config, error) {
	data, err := mxml.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(data, path)
}

// node is an element of the file as package mbfmu/xml reads it (model
// and study files are read the same way), with the lines of the element
// and of its attributes.
type node = mxml.Node

// readTree reads the file into nodes. A syntax error, a file without a
// root element or text outside the root is reported at its line as
// "file:line: malformed XML: message", as in model files. Character data
// inside elements is ignored (the format has its values in attributes).
func readTree(data []byte, file string) (*node, error) {
	root, line, err := mxml.ReadTree(data, "cosim")
	if err != nil {
		return nil, fmt.Errorf("%s:%d: malformed XML: %v", file, line, err)
	}
	return root, nil
}

// attrLineMap returns the line of each attribute of n (of its first
// occurrence, if it is repeated).
func attrLineMap(n *node) map[string]int {
	m := make(map[string]int, len(n.Attrs))
	for _, a := range n.Attrs {
		if _, dup := m[a.Name]; !dup {
			m[a.Name] = a.Line
		}
	}
	return m
}

// errList collects "file:line: message" errors.
type errList struct {
	file string
	errs []string
}

func (e *errList) add(line int, format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf("%s:%d: %s", e.file, line, fmt.Sprintf(format, args...)))
}

func (e *errList) err() error {
	if len(e.errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(e.errs, "\n"))
}

// componentKinds lists the component elements and their attributes.
func componentKinds() map[string][]string {
	return map[string][]string{
		"model":          {"path"},
		"fmu":            {"path", "logging"},
		"lqr":            {"plant", "inputs", "outputs", "q", "r", "discrete", "design-parameters", "umin", "umax"},
		"state-feedback": {"inputs", "outputs", "k", "reference", "feedforward", "umin", "umax"},
		"pid":            {"kp", "ki", "kd", "tf", "n", "b", "c", "umin", "umax", "tt", "anti-windup"},
		"state-space":    {"a", "b", "c", "d", "dt", "inputs", "outputs"},
		"signal":         {"expr", "unit"},
		"limit":          {"min", "max", "rise", "fall"},
		"udp":            {"remote", "local", "inputs", "outputs", "timeout", "on-timeout", "output-start"},
	}
}

// ParseConfig parses a configuration file held in data; file names it in
// errors and anchors relative paths. Every problem is reported, one per
// line, as file:line: message.
func ParseConfig(data []byte, file string) (*Config, error) {
	root, err := readTree(data, file)
	if err != nil {
		return nil, err
	}
	el := &errList{file: file}
	if root.Name != "cosim" {
		return nil, fmt.Errorf("%s:%d: root element is <%s>, want <cosim>", file, root.Line, root.Name)
	}
	cfg := &Config{File: file}
	cfg.Settings = Settings{End: 1, Step: 1e-3, RelTol: 1e-3, AbsTol: 1e-6, Extrapolate: true}
	ra := attrMap(el, root, "name", "description")
	cfg.Name, cfg.Description = ra["name"], ra["description"]
	if cfg.Name == "" {
		cfg.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	kinds := componentKinds()
	names := map[string]int{}
	sawSettings := false
	settingsNode := root // settings errors name the attribute's line, or the root's
	for _, n := range root.Children {
		switch n.Name {
		case "settings":
			if sawSettings {
				el.add(n.Line, "<settings> given twice")
			}
			sawSettings = true
			settingsNode = n
			parseSettings(el, n, &cfg.Settings)
		case "connect":
			a := attrMap(el, n, "from", "to")
			if a["from"] == "" || a["to"] == "" {
				el.add(n.Line, "<connect> needs from=\"component.output\" and to=\"component.input\"")
				continue
			}
			cfg.Connections = append(cfg.Connections, Connection{From: a["from"], To: a["to"], Line: n.Line})
		case "check":
			a := attrMap(el, n, "signal", "minus", "after", "until", "near", "tol", "max-abs", "mean", "rms", "description")
			c := Check{Signal: a["signal"], Minus: a["minus"], Line: n.Line, Description: a["description"]}
			if c.Signal == "" {
				el.add(n.Line, "<check> needs signal=\"component.port\"")
			}
			c.After = quantity(el, n.AttrLine("after"), "after", a["after"], mxml.Time, math.Inf(-1))
			c.Until = quantity(el, n.AttrLine("until"), "until", a["until"], mxml.Time, math.Inf(1))
			if !(c.Until >= c.After) {
				el.add(n.AttrLine("until"), "<check>: until %g s is before after %g s", c.Until, c.After)
			}
			if v := a["mean"]; v != "" {
				b, err := strconv.ParseBool(v)
				if err != nil {
					el.add(n.AttrLine("mean"), "mean: %q is not true or false", v)
				}
				c.Mean = b
			}
			if v := a["rms"]; v != "" {
				b, err := strconv.ParseBool(v)
				if err != nil {
					el.add(n.AttrLine("rms"), "rms: %q is not true or false", v)
				}
				c.RMS = b
			}
			if c.Mean && c.RMS {
				el.add(n.Line, "<check>: give mean or rms, not both")
			}
			tolAttr := "tol"
			switch {
			case a["max-abs"] != "" && (a["near"] != "" || a["tol"] != ""):
				el.add(n.Line, "<check>: give max-abs, or near and tol, not both")
			case a["max-abs"] != "":
				tolAttr = "max-abs"
				c.Tol = quantity(el, n.AttrLine("max-abs"), "max-abs", a["max-abs"], mxml.Any, 0)
			case a["tol"] != "":
				c.Near = quantity(el, n.AttrLine("near"), "near", a["near"], mxml.Any, 0)
				c.Tol = quantity(el, n.AttrLine("tol"), "tol", a["tol"], mxml.Any, 0)
			default:
				el.add(n.Line, "<check> needs max-abs, or tol (with near)")
			}
			if c.Tol < 0 {
				el.add(n.AttrLine(tolAttr), "<check>: tolerance %g must be ≥ 0", c.Tol)
			}
			cfg.Checks = append(cfg.Checks, c)
		default:
			allowed, ok := kinds[n.Name]
			if !ok {
				el.add(n.Line, "unknown element <%s> (components: %s; also <settings>, <connect>, <check>)", n.Name, strings.Join(sortedKeys(kinds), ", "))
				continue
			}
			e := &Element{Kind: n.Name, Line: n.Line, AttrLine: attrLineMap(n), used: map[string]bool{}}
			e.Attr = attrMap(el, n, append([]string{"name"}, allowed...)...)
			e.Name = e.Attr["name"]
			delete(e.Attr, "name")
			switch {
			case e.Name == "":
				el.add(n.Line, "<%s> needs a name", n.Name)
			case !isIdent(e.Name):
				el.add(n.AttrLine("name"), "<%s> name %q: use letters, digits, _ and -, starting with a letter", n.Name, e.Name)
			case names[e.Name] != 0:
				el.add(n.AttrLine("name"), "component name %q already used on line %d", e.Name, names[e.Name])
			default:
				names[e.Name] = n.Line
			}
			for _, k := range n.Children {
				switch k.Name {
				case "parameter", "start":
					if n.Name != "model" && n.Name != "fmu" {
						el.add(k.Line, "<%s> belongs in a <model> or <fmu>, not in <%s>", k.Name, n.Name)
						continue
					}
					a := attrMap(el, k, "name", "value")
					if a["name"] == "" || a["value"] == "" {
						el.add(k.Line, "<%s> needs name and value", k.Name)
						continue
					}
					nv := NamedValue{Name: a["name"], Line: k.AttrLine("value"), Text: a["value"],
						Value: quantity(el, k.AttrLine("value"), "value", a["value"], mxml.Any, 0)}
					if k.Name == "parameter" {
						e.Params = append(e.Params, nv)
					} else {
						e.Starts = append(e.Starts, nv)
					}
				default:
					el.add(k.Line, "unknown element <%s> in <%s>", k.Name, n.Name)
				}
			}
			cfg.Components = append(cfg.Components, e)
		}
	}
	if len(cfg.Components) == 0 {
		el.add(root.Line, "no components: add a <model>, <fmu>, controller or <udp>")
	}
	line := func(attr string) int {
		if settingsNode == root {
			return root.Line
		}
		return settingsNode.AttrLine(attr)
	}
	checkSettings(el, line, &cfg.Settings)
	if err := el.err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func parseSettings(el *errList, n *node, s *Settings) {
	a := attrMap(el, n, "start", "end", "step", "output-step", "variable", "min-step", "max-step", "rel-tol", "abs-tol", "extrapolate")
	s.Start = quantity(el, n.AttrLine("start"), "start", a["start"], mxml.Time, s.Start)
	s.End = quantity(el, n.AttrLine("end"), "end", a["end"], mxml.Time, s.End)
	s.Step = quantity(el, n.AttrLine("step"), "step", a["step"], mxml.Time, s.Step)
	s.OutputStep = quantity(el, n.AttrLine("output-step"), "output-step", a["output-step"], mxml.Time, 0)
	if v := a["variable"]; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			el.add(n.AttrLine("variable"), "variable: %q is not true or false", v)
		}
		s.Variable = b
	}
	s.MinStep = quantity(el, n.AttrLine("min-step"), "min-step", a["min-step"], mxml.Time, 0)
	s.MaxStep = quantity(el, n.AttrLine("max-step"), "max-step", a["max-step"], mxml.Time, 0)
	s.RelTol = quantity(el, n.AttrLine("rel-tol"), "rel-tol", a["rel-tol"], mxml.Dimensionless, s.RelTol)
	s.AbsTol = quantity(el, n.AttrLine("abs-tol"), "abs-tol", a["abs-tol"], mxml.Any, s.AbsTol)
	if v := a["extrapolate"]; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			el.add(n.AttrLine("extrapolate"), "extrapolate: %q is not true or false", v)
		}
		s.Extrapolate = b
	}
}

// checkSettings checks the settings as a whole; line gives the line of an
// attribute of <settings>.
func checkSettings(el *errList, line func(attr string) int, s *Settings) {
	if !(s.End > s.Start) {
		el.add(line("end"), "settings: end %g s must be after start %g s", s.End, s.Start)
	}
	if !(s.Step > 0) {
		el.add(line("step"), "settings: step %g s must be > 0", s.Step)
	}
	if s.Variable {
		if s.MinStep == 0 {
			s.MinStep = s.Step / 100
		}
		if s.MaxStep == 0 {
			s.MaxStep = math.Max(s.Step*100, (s.End-s.Start)/10)
		}
		if !(s.MinStep > 0 && s.MinStep <= s.Step && s.Step <= s.MaxStep) {
			el.add(line("min-step"), "settings: need 0 < min-step (%g) ≤ step (%g) ≤ max-step (%g)", s.MinStep, s.Step, s.MaxStep)
		}
		if !(s.RelTol > 0) || !(s.AbsTol > 0) {
			el.add(line("rel-tol"), "settings: rel-tol and abs-tol must be > 0")
		}
		if s.OutputStep != 0 {
			el.add(line("output-step"), "settings: output-step needs a fixed step (a variable step records every macro step)")
		}
		return
	}
	if s.OutputStep < 0 {
		el.add(line("output-step"), "settings: output-step %g s must be > 0", s.OutputStep)
	}
	if s.OutputStep > 0 && s.Step > 0 {
		r := s.OutputStep / s.Step
		if math.Abs(r-math.Round(r)) > 1e-9*r || math.Round(r) < 1 {
			el.add(line("output-step"), "settings: output-step %g s is not a whole multiple of step %g s", s.OutputStep, s.Step)
		}
	}
	if s.Step > 0 && s.End > s.Start {
		r := (s.End - s.Start) / s.Step
		if math.Abs(r-math.Round(r)) > 1e-9*r {
			el.add(line("step"), "settings: the run %g … %g s is not a whole number of steps of %g s", s.Start, s.End, s.Step)
		}
	}
}

// attrMap returns the attributes of n, reporting unknown and repeated ones.
func attrMap(el *errList, n *node, allowed ...string) map[string]string {
	m := map[string]string{}
	for _, a := range n.Attrs { // without namespace declarations, xsi:schemaLocation and friends
		name := a.Name
		ok := false
		for _, w := range allowed {
			if w == name {
				ok = true
				break
			}
		}
		if !ok {
			el.add(n.AttrLine(name), "<%s>: unknown attribute %q (known: %s)", n.Name, name, strings.Join(allowed, ", "))
			continue
		}
		if _, dup := m[name]; dup {
			el.add(n.AttrLine(name), "<%s>: attribute %q given twice", n.Name, name)
		}
		m[name] = strings.TrimSpace(a.Value)
	}
	return m
}

// quantity parses an optional number with a unit; def when s is empty.
func quantity(el *errList, line int, field, s string, dim mxml.Dim, def float64) float64 {
	if s == "" {
		return def
	}
	v, err := mxml.ParseQuantity(s, dim)
	if err != nil {
		el.add(line, "%s: %v", field, err)
		return def
	}
	return v
}

func isIdent(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
		case i > 0 && (r >= '0' && r <= '9' || r == '-'):
		default:
			return false
		}
	}
	return s != ""
}

func sortedKeys[T any](m map[string]T) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// path resolves a path of the file against its folder.
func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(c.File), p)
}

// attribute accessors used by the component builders; each records an
// error in el and returns a default on a bad value.

func (e *Element) str(name string) string {
	e.used[name] = true
	return e.Attr[name]
}

func (e *Element) has(name string) bool { _, ok := e.Attr[name]; return ok }

// at returns the line of attribute name, or the element's line.
func (e *Element) at(name string) int {
	if l, ok := e.AttrLine[name]; ok {
		return l
	}
	return e.Line
}

func (e *Element) num(el *errList, name string, dim mxml.Dim, def float64) float64 {
	return quantity(el, e.at(name), name, e.str(name), dim, def)
}

func (e *Element) boolean(el *errList, name string, def bool) bool {
	s := e.str(name)
	if s == "" {
		return def
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		el.add(e.at(name), "%s: %q is not true or false", name, s)
		return def
	}
	return b
}

// names splits a list of names separated by spaces or commas.
func (e *Element) names(name string) []string {
	s := e.str(name)
	if s == "" {
		return nil
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

// matrix parses rows separated by ';', entries by spaces or commas, each
// a number with an optional unit. nil when absent.
func (e *Element) matrix(el *errList, name string) [][]float64 {
	s := e.str(name)
	if s == "" {
		return nil
	}
	var rows [][]float64
	for _, r := range strings.Split(s, ";") {
		if strings.TrimSpace(r) == "" {
			continue
		}
		f := strings.FieldsFunc(r, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' })
		row := make([]float64, 0, len(f))
		for _, x := range f {
			v, err := mxml.ParseQuantity(x, mxml.Any)
			if err != nil {
				el.add(e.at(name), "%s: %v", name, err)
				return nil
			}
			row = append(row, v)
		}
		if len(rows) > 0 && len(row) != len(rows[0]) {
			el.add(e.at(name), "%s: row %d has %d entries, row 1 has %d", name, len(rows)+1, len(row), len(rows[0]))
			return nil
		}
		rows = append(rows, row)
	}
	return rows
}

// assignments parses "a=1; b=2 deg".
func (e *Element) assignments(el *errList, name string) map[string]float64 {
	s := e.str(name)
	out := map[string]float64{}
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			el.add(e.at(name), "%s: %q is not name=value", name, strings.TrimSpace(part))
			continue
		}
		out[strings.TrimSpace(k)] = quantity(el, e.at(name), name, strings.TrimSpace(v), mxml.Any, 0)
	}
	return out
}
