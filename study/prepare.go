package study

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"

	"mbfmu/expr"
	"mbfmu/results"
	"mbfmu/spec"
	"mbfmu/xml"
)

// Prepared is a study bound to its target: the model or co-simulation is
// loaded and checked, the factors' nominal values and units are known and
// the response expressions are compiled. It is ready to run.
type Prepared struct {
	*Study
	tgt  runTarget
	cols []results.Column

	sigs  []*expr.Program // distinct signal expressions
	rsig  []int           // per response: index into sigs, -1 none
	rwhen []int
	rexpr []*expr.Program // per expr response, over responses then factors
	id    string          // identity of everything that decides a run's outcome but the factor values
}

// slotResolver resolves names to slots.
type slotResolver map[string]int

func (r slotResolver) Var(name string) (int, bool) { i, ok := r[name]; return i, ok }
func (slotResolver) Measure(string, []string) (int, bool, error) {
	return 0, false, nil
}
func (slotResolver) Table(string) (*expr.Table, bool) { return nil, false }

// Prepare loads the study's target, resolves the factors against it and
// compiles the responses. Problems are reported with the study file's
// lines.
func Prepare(st *Study) (*Prepared, error) {
	p := &Prepared{Study: st}
	tgt, nominal, err := loadTarget(st)
	if err != nil {
		return nil, err
	}
	p.tgt = tgt
	p.cols = p.tgt.columns()
	var el spec.ErrorList
	add := func(line int, field, format string, args ...any) {
		el.Add(spec.Pos{File: st.File, Line: line}, field, format, args...)
	}
	resolveNominals(st, nominal)
	for _, f := range st.Factors {
		// units: the parameter's, else the SI unit of the unit attribute
		if f.Unit == "" && f.unitGiven != "" {
			if d, ok := dimOf(f.unitGiven); ok {
				f.Unit = d.SI()
			}
		}
		if d, ok := dimOf(f.Unit); ok && f.Unit != "" && d != xml.Dimensionless {
			for _, r := range f.raw {
				if _, err := xml.ParseQuantity(r.text, d); err != nil {
					add(r.line, r.field, "factor %s sets %s in %s: %v", f.Name, f.Param, f.Unit, err)
				}
			}
		}
		if math.IsNaN(f.Nominal) {
			if st.needsNominal(f) {
				add(f.Line, "nominal", "factor %s needs a nominal value (nominal=\"…\", or min and max)", f.Name)
			}
		}
		if f.Dist == "normal" && math.IsNaN(f.Mean) {
			f.Mean = f.Nominal
			if math.IsNaN(f.Mean) {
				add(f.Line, "mean", "factor %s: a normal distribution needs mean=\"…\" (or nominal)", f.Name)
			}
		}
		if !math.IsNaN(f.Nominal) && !math.IsNaN(f.Min) && (f.Nominal < f.Min || f.Nominal > f.Max) && st.needsNominal(f) {
			add(f.Line, "nominal", "factor %s: nominal %g is outside [%g, %g]", f.Name, f.Nominal, f.Min, f.Max)
		}
	}
	// names in expressions: channels, factors, time
	slots := slotResolver{}
	colUnit := map[string]string{}
	for i, c := range p.cols {
		slots[c.Name] = i
		colUnit[c.Name] = c.Unit
	}
	if _, ok := slots["t"]; !ok {
		slots["t"] = 0
	}
	for i, f := range st.Factors {
		if _, clash := slots[f.Name]; clash && f.Name != "t" {
			add(f.Line, "name", "factor %q has the name of a result channel: rename the factor", f.Name)
		}
		slots[f.Name] = len(p.cols) + i
	}
	srcIndex := map[string]int{}
	compile := func(src string, line int, field string) int {
		if k, ok := srcIndex[src]; ok {
			return k
		}
		prog, err := expr.Compile(src, slots)
		if err != nil {
			msg := err.Error()
			if i := strings.Index(msg, " (a dotted name refers to a marker"); i >= 0 {
				msg = msg[:i] // the model file's hint; here dotted names are channels
			}
			hint := channelHint(err, p.cols)
			if hint == "" && strings.Contains(msg, "unknown identifier") {
				hint = " (a signal reads result channels, factors and time; mbfmu study --check --channels lists the channels)"
			}
			add(line, field, "%s%s", msg, hint)
			return -1
		}
		srcIndex[src] = len(p.sigs)
		p.sigs = append(p.sigs, prog)
		return len(p.sigs) - 1
	}
	rslots := slotResolver{}
	for i, f := range st.Factors {
		rslots[f.Name] = len(st.Responses) + i
	}
	for i, r := range st.Responses {
		p.rsig = append(p.rsig, -1)
		p.rwhen = append(p.rwhen, -1)
		p.rexpr = append(p.rexpr, nil)
		switch {
		case r.Kind == KindExpression:
			prog, err := expr.Compile(r.Expr, rslots)
			if err != nil {
				msg := err.Error()
				for _, later := range st.Responses[i:] {
					if strings.Contains(msg, "\""+later.Name+"\"") {
						msg += " (a response may only use responses defined above it)"
						break
					}
				}
				add(r.exprLine, "expr", "%s", msg)
			}
			p.rexpr[i] = prog
		case r.Channel != "":
			k, ok := slots[r.Channel]
			if !ok || k >= len(p.cols) {
				add(r.signalLine, "channel", "no result channel %q%s", r.Channel, didYouMean(r.Channel, colNames(p.cols)))
			} else {
				p.rsig[i] = compileSlot(p, k)
			}
		case r.Signal != "":
			p.rsig[i] = compile(r.Signal, r.signalLine, "signal")
		}
		if r.When != "" {
			p.rwhen[i] = compile(r.When, r.whenLine, "when")
		}
		rslots[r.Name] = i
		if r.Unit == "" {
			r.Unit = deriveUnit(r, colUnit)
		}
	}
	for _, c := range st.Constraints {
		if c.Response != "" && st.responseIndex(c.Response) < 0 {
			add(c.Line, "response", "no response %q", c.Response)
		}
	}
	if len(el) > 0 {
		return nil, el
	}
	// identity
	h := sha256.New()
	fmt.Fprintf(h, "mbfmu study run v1\ntarget %s\n", p.tgt.hash())
	for _, r := range st.Responses {
		fmt.Fprintf(h, "response %s %s signal=%q channel=%q from=%s until=%s at=%s when=%q target=%s band=%s/%v expr=%q\n",
			r.Name, r.Kind, r.Signal, r.Channel, fbits(r.From), fbits(r.Until), fbits(r.At), r.When, fbits(r.Target), fbits(r.Band), r.BandRel, r.Expr)
	}
	p.id = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// loadTarget loads the model or co-simulation of a study, with the
// target's values of the factors' parameters.
func loadTarget(st *Study) (runTarget, map[string]float64, error) {
	switch st.Target.Kind {
	case "model":
		mt, err := newModelTarget(st)
		if err != nil {
			return nil, nil, err
		}
		return mt, mt.paramVal, nil
	case "cosim":
		// a first guess of the nominal values builds the checking master
		resolveNominals(st, nil)
		ct, nom, err := newCosimTarget(st)
		if err != nil {
			return nil, nil, err
		}
		return ct, nom, nil
	}
	return nil, nil, fmt.Errorf("study %s: unknown target %q", st.File, st.Target.Kind)
}

// Channels lists the result channels a study's signals can read (time
// first): the model's channels, or the co-simulation's outputs.
func Channels(st *Study) ([]results.Column, error) {
	t, _, err := loadTarget(st)
	if err != nil {
		return nil, err
	}
	return t.columns(), nil
}

// compileSlot adds a program that reads one slot.
func compileSlot(p *Prepared, k int) int {
	name := fmt.Sprintf("__slot%d", k)
	prog, err := expr.Compile(name, slotResolver{name: k})
	if err != nil {
		return -1
	}
	p.sigs = append(p.sigs, prog)
	return len(p.sigs) - 1
}

func colNames(cols []results.Column) []string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = c.Name
	}
	return n
}

// channelHint suggests a channel for an unknown name in an expression.
func channelHint(err error, cols []results.Column) string {
	var e *expr.Error
	if !errors.As(err, &e) {
		return ""
	}
	msg := err.Error()
	i := strings.Index(msg, "\"")
	if i < 0 {
		return ""
	}
	j := strings.Index(msg[i+1:], "\"")
	if j < 0 {
		return ""
	}
	name := msg[i+1 : i+1+j]
	if s := didYouMean(name, colNames(cols)); s != "" {
		return s
	}
	return ""
}

// deriveUnit gives a response the unit of its signal when that is a
// single channel.
func deriveUnit(r *Response, colUnit map[string]string) string {
	switch r.Kind {
	case KindCrossing, KindSettling, KindTimeOfMax, KindTimeOfMin:
		return "s"
	case KindOvershoot:
		return "%"
	case KindExpression:
		return ""
	}
	name := r.Channel
	if name == "" {
		name = strings.TrimSpace(r.Signal)
	}
	u, ok := colUnit[name]
	if !ok {
		return ""
	}
	if r.Kind == KindIntegral {
		if u == "" {
			return "s"
		}
		return u + "*s"
	}
	return u
}

// needsNominal reports whether the study needs f's nominal value.
func (st *Study) needsNominal(f *Factor) bool {
	if st.Sensitivity != nil || (st.Optimize != nil && st.Optimize.Start == "nominal") {
		return true
	}
	if st.Optimize != nil && !contains(st.Optimize.Factors, f.Name) {
		return true
	}
	if d := st.Design; d != nil {
		switch d.Kind {
		case "one-at-a-time":
			return true
		case "cases":
			for _, c := range d.Cases {
				if math.IsNaN(c[st.factorIndex(f.Name)]) {
					return true
				}
			}
		}
	}
	return false
}

// resolveNominals fills the nominal values: nominal=, the normal
// distribution's mean, the target's value of the parameter, the middle of
// [min, max], the middle level.
func resolveNominals(st *Study, fromTarget map[string]float64) {
	for _, f := range st.Factors {
		if f.nomGiven {
			continue
		}
		switch v, ok := fromTarget[f.Name]; {
		case f.Dist == "normal" && f.meanGiven:
			f.Nominal = f.Mean
		case ok:
			f.Nominal = v
		case !math.IsNaN(f.Min) && !math.IsNaN(f.Max):
			if f.Log {
				f.Nominal = math.Sqrt(f.Min * f.Max)
			} else {
				f.Nominal = 0.5 * (f.Min + f.Max)
			}
		case len(f.Levels) > 0:
			f.Nominal = f.Levels[len(f.Levels)/2]
		default:
			f.Nominal = math.NaN()
		}
	}
}

// Columns lists the result channels of the target (time first).
func (p *Prepared) Columns() []results.Column { return p.cols }

// RunID returns the identity of the run with factor values x: a hash of
// the values, the target's files and overrides and the response
// definitions (see docs/study.md).
func (p *Prepared) RunID(x []float64) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", p.id)
	for i, f := range p.Factors {
		fmt.Fprintf(h, "%s=%s\n", f.Name, fbits(canon(x[i])))
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// canon maps −0 to +0 so both give one identity.
func canon(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}

// responder computes responses from the rows of one run; each worker has
// its own.
type responder struct {
	p    *Prepared
	vars []float64
	t    []float64
	sig  [][]float64
}

func (p *Prepared) newResponder() *responder {
	return &responder{p: p, vars: make([]float64, len(p.cols)+len(p.Factors)), sig: make([][]float64, len(p.sigs))}
}

// reset starts a run with factor values x.
func (r *responder) reset(x []float64) {
	copy(r.vars[len(r.p.cols):], x)
	r.t = r.t[:0]
	for i := range r.sig {
		r.sig[i] = r.sig[i][:0]
	}
}

// row takes one results row (time first).
func (r *responder) row(v []float64) error {
	copy(r.vars, v[:len(r.p.cols)])
	r.t = append(r.t, v[0])
	for i, prog := range r.p.sigs {
		r.sig[i] = append(r.sig[i], prog.Eval(r.vars, nil))
	}
	return nil
}

// responses computes every response into dst.
func (r *responder) responses(x []float64, dst []float64) {
	p := r.p
	vars := make([]float64, len(p.Responses)+len(x))
	copy(vars[len(p.Responses):], x)
	for i, resp := range p.Responses {
		var v float64
		if resp.Kind == KindExpression {
			v = p.rexpr[i].Eval(vars, nil)
		} else {
			var sig, when []float64
			if k := p.rsig[i]; k >= 0 {
				sig = r.sig[k]
			}
			if k := p.rwhen[i]; k >= 0 {
				when = r.sig[k]
			}
			v = compute(resp, r.t, sig, when)
		}
		dst[i] = v
		vars[i] = v
	}
}
