package cosim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"mbfmu/results"
)

// Port is an input or output of a component.
type Port struct {
	Name, Unit string
}

// component is one participant of the co-simulation. Direct components
// (controllers, signals, the UDP bridge) compute their outputs at a
// communication point from their inputs at that point; stepped components
// (models, FMUs) integrate over a macro step with their inputs held.
type component interface {
	base() *comp
	// start instantiates and initialises the component at the start time;
	// a stepped component writes its outputs there.
	start(m *Master) error
	// eval computes a direct component's outputs at time t, dt seconds
	// after its previous evaluation (the first macro step on the first
	// call). It must not allocate.
	eval(t, dt float64) error
	// step advances a stepped component from t to t+h with its inputs
	// held and writes its outputs at t+h. It must not allocate.
	step(t, h float64) error
	// close ends the component's run and frees its resources.
	close() error
}

// comp holds what every component has.
type comp struct {
	name, kind string
	line       int
	ins, outs  []Port
	start0     []float64 // start values of the inputs (unconnected inputs keep them)
	in, out    []float64 // out is a slice of Master.vals
	src        []int     // per input: index into Master.vals, or -1
	direct     bool
	// extrapolation of coupling signals between stepped components (see
	// Master): the inputs dIn get the time derivatives din, taken from
	// Master.dvals[dSrc]; dout (a slice of Master.dvals) holds the time
	// derivatives of the outputs, of which those in dOut are needed
	dIn, dSrc []int
	din       []float64
	dOut      []int
	dout      []float64
}

// extrapolator is a stepped component that can take part in the
// extrapolation of coupling signals: canExtrapolate tells whether it
// gives its outputs' time derivatives and takes its inputs' (for the next
// step, from comp.din); outputDerivatives writes the derivatives of the
// outputs in comp.dOut at the current point into comp.dout. It must not
// allocate.
type extrapolator interface {
	canExtrapolate() (outDerivs, inDerivs bool)
	outputDerivatives() error
}

// refresher is a stepped component whose outputs depend directly on some
// of its inputs at a communication point (an FMU declaring direct
// feedthrough in its modelDescription.xml): besides its step, it is
// refreshed in the direct phase (see Master). feedthrough gives, per
// output port, the input ports it depends on directly (nil: none);
// setRefreshGroups tells it the refreshes the master will make (group k
// sets the input ports ins[k] to their connected values, then reads the
// output ports outs[k]); refresh makes group k with the values vals. It
// must not allocate.
type refresher interface {
	feedthrough() [][]int
	setRefreshGroups(ins, outs [][]int)
	refresh(k int, vals []float64) error
}

// evalItem is one entry of the direct phase: a direct component's
// evaluation (r nil), or refresh group of a refresher.
type evalItem struct {
	c     component
	r     refresher
	group int
	label string // for Describe
}

func (c *comp) base() *comp { return c }

func (c *comp) inputIndex(name string) int {
	for i, p := range c.ins {
		if p.Name == name {
			return i
		}
	}
	return -1
}

func (c *comp) outputIndex(name string) int {
	for i, p := range c.outs {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// gather copies the connected values into the input buffer, and the
// derivatives of the extrapolated ones.
func (c *comp) gather(vals, dvals []float64) {
	for i, s := range c.src {
		if s >= 0 {
			c.in[i] = vals[s]
		}
	}
	for k, s := range c.dSrc {
		c.din[k] = dvals[s]
	}
}

// Master runs a co-simulation: it owns the components, moves values along
// the connections at every communication point and advances time.
//
// Algorithm, per macro step from t to t+h: every stepped component (model,
// FMU) gets its inputs from the values at t and advances to t+h in
// parallel fashion (Jacobi: stepped components see each other's outputs
// with one macro step of delay); then the direct components (controllers,
// signals, the UDP bridge) are evaluated at t+h in an order that respects
// the connections between them (an algebraic loop among them is an error).
// A controller therefore acts on the plant outputs at t and its output is
// held over [t, t+h) — a sampled controller with a zero-order hold and no
// added delay.
//
// Direct feedthrough of stepped components: an FMU whose modelDescription
// declares outputs that depend directly on inputs (<ModelStructure>
// dependencies listing an input: a controller exported as an FMU) is a
// stepped component and, in the direct phase, is refreshed too: its
// feedthrough inputs are set to their values at t+h and its feedthrough
// outputs read again (FMI allows a get after a set at the same
// communication point; the outputs then follow the new inputs). The direct
// phase orders the direct components and these refreshes together, over
// the FMUs' declared input→output pairs only; a cycle through them is an
// algebraic loop and an error. So such an FMU acts as an in-process
// controller would, without a macro step of delay. The same is done at
// the start time, after the initialisation. An output whose dependencies
// are not declared is not taken as feedthrough (see feedthrough in
// fmuslave.go).
//
// Extrapolation (Settings.Extrapolate, on by default): on a connection
// from a stepped component that gives its outputs' time derivatives (a
// model, an FMU with maxOutputDerivativeOrder ≥ 1) to a stepped component
// that takes input derivatives (a model, an FMU with canInterpolateInputs),
// the derivative at t is handed over with the value, and the input follows
// the first-order extrapolation u(t) + u̇(t)·(τ − t) over the macro step
// instead of being held: the coupling error drops from first to second
// order in the macro step. Inputs from direct components stay held.
type Master struct {
	cfg     *Config
	comps   []component
	direct  []component // the direct components, in evaluation order
	order   []evalItem  // the direct phase: direct components and refreshes
	stepped []component
	vals    []float64   // every component's outputs
	dvals   []float64   // their time derivatives (extrapolated connections)
	deriv   []component // stepped components whose output derivatives are needed
	links   []string    // the extrapolated connections, for Describe
	cols    []results.Column
	inLog   []int // the logged inputs' sources (indices into vals), after the outputs

	log func(string)

	t, h, hPrev float64
	k           int64 // macro steps taken
	nsteps      int64 // fixed step: number of macro steps
	started     bool

	// variable step control
	hist1, hist2 []float64
	nhist        int

	udp []*udpComp
}

// Options adjust how a Master is built.
type Options struct {
	// Log receives log messages of the components (FMU loggers); nil
	// drops them.
	Log func(msg string)
	// End, if positive, overrides the configured end time.
	End float64
	// Models, if set, caches the parsed and compiled model files of
	// <model> components across masters (see ModelCache).
	Models *ModelCache
}

// New builds the components of cfg and resolves the connections. Nothing
// is instantiated yet: Init does that.
func New(cfg *Config, o Options) (*Master, error) {
	if cfg == nil {
		return nil, errors.New("cosim: no configuration")
	}
	cp := *cfg
	cfg = &cp
	if o.End > 0 {
		if !(o.End > cfg.Settings.Start) {
			return nil, fmt.Errorf("cosim: end time %g s is not after the start %g s", o.End, cfg.Settings.Start)
		}
		cfg.Settings.End = o.End
	}
	m := &Master{cfg: cfg, log: o.Log}
	el := &errList{file: cfg.File}
	built := map[string]component{}
	// Plants and signals first: controllers designed from a plant need it.
	for pass := 0; pass < 2; pass++ {
		for _, e := range cfg.Components {
			if (e.Kind == "lqr") != (pass == 1) {
				continue
			}
			c := buildComponent(el, cfg, e, built, o.Models)
			if c == nil {
				continue
			}
			built[e.Name] = c
		}
	}
	for _, e := range cfg.Components {
		if c := built[e.Name]; c != nil {
			m.comps = append(m.comps, c)
		}
	}
	if err := el.err(); err != nil {
		m.Close()
		return nil, err
	}
	if err := m.wire(el); err != nil {
		m.Close()
		return nil, err
	}
	if err := m.checkSteps(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// buildComponent builds one component from its element.
func buildComponent(el *errList, cfg *Config, e *Element, built map[string]component, cache *ModelCache) component {
	var c component
	switch e.Kind {
	case "model":
		if x := newModelComp(el, cfg, e, cache); x != nil {
			c = x
		}
	case "fmu":
		// a controller FMU of mbfmu runs as the controller itself (the
		// same code its runtime runs; an SSP package holds one)
		if s, err := controllerFMU(cfg.path(e.Attr["path"])); err != nil {
			el.add(e.Line, "%v", err)
		} else if s != nil {
			c = newControllerFMUComp(el, e, s)
		} else if x := newFMUComp(el, cfg, e); x != nil {
			c = x
		}
	case "udp":
		if x := newUDPComp(el, e); x != nil {
			c = x
		}
	case "lqr":
		if x := newLQRComp(el, cfg, e, built); x != nil {
			c = x
		}
	default:
		if x := newBlockComp(el, cfg, e); x != nil {
			c = x
		}
	}
	for k := range e.Attr {
		if c != nil && !e.used[k] {
			el.add(e.at(k), "<%s name=%q>: attribute %q is not used by this component", e.Kind, e.Name, k)
		}
	}
	return c
}

// wire lays out the value vector, resolves the connections and orders the
// direct components.
func (m *Master) wire(el *errList) error {
	n := 0
	for _, c := range m.comps {
		n += len(c.base().outs)
	}
	m.vals = make([]float64, n)
	off := map[string]int{}
	byName := map[string]component{}
	n = 0
	for _, c := range m.comps {
		b := c.base()
		byName[b.name] = c
		off[b.name] = n
		b.out = m.vals[n : n+len(b.outs) : n+len(b.outs)]
		n += len(b.outs)
		b.in = make([]float64, len(b.ins))
		if b.start0 == nil {
			b.start0 = make([]float64, len(b.ins))
		}
		copy(b.in, b.start0)
		b.src = make([]int, len(b.ins))
		for i := range b.src {
			b.src[i] = -1
		}
		if b.direct {
			m.direct = append(m.direct, c)
		} else {
			m.stepped = append(m.stepped, c)
		}
		if u, ok := c.(*udpComp); ok {
			m.udp = append(m.udp, u)
		}
	}
	srcComp := map[[2]int]int{} // (component index, input) → source component index
	idx := map[string]int{}
	for i, c := range m.comps {
		idx[c.base().name] = i
	}
	for _, cn := range m.cfg.Connections {
		fc, fp, ok1 := strings.Cut(cn.From, ".")
		tc, tp, ok2 := strings.Cut(cn.To, ".")
		if !ok1 || !ok2 {
			el.add(cn.Line, "<connect>: from and to are written component.port (got %q → %q)", cn.From, cn.To)
			continue
		}
		from, to := byName[fc], byName[tc]
		if from == nil {
			el.add(cn.Line, "<connect>: no component %q", fc)
			continue
		}
		if to == nil {
			el.add(cn.Line, "<connect>: no component %q", tc)
			continue
		}
		o := from.base().outputIndex(fp)
		if o < 0 {
			if f, ok := from.(*fmuComp); ok && f.whyNotPort(fp, false) != "" {
				el.add(cn.Line, "<connect>: %s", f.whyNotPort(fp, false))
				continue
			}
			el.add(cn.Line, "<connect>: %s has no output %q (outputs: %s)", fc, fp, portList(from.base().outs))
			continue
		}
		i := to.base().inputIndex(tp)
		if i < 0 {
			if f, ok := to.(*fmuComp); ok && f.whyNotPort(tp, true) != "" {
				el.add(cn.Line, "<connect>: %s", f.whyNotPort(tp, true))
				continue
			}
			el.add(cn.Line, "<connect>: %s has no input %q (inputs: %s)", tc, tp, portList(to.base().ins))
			continue
		}
		tb := to.base()
		if tb.src[i] >= 0 {
			el.add(cn.Line, "<connect>: input %s is connected twice", cn.To)
			continue
		}
		tb.src[i] = off[fc] + o
		srcComp[[2]int{idx[tc], i}] = idx[fc]
		// units: the known side names the other
		fu, tu := &from.base().outs[o].Unit, &tb.ins[i].Unit
		switch {
		case *fu == "" && *tu != "":
			*fu = *tu
		case *tu == "" && *fu != "":
			*tu = *fu
		case *fu != *tu && *fu != "" && *tu != "" && !sameUnit(*fu, *tu):
			el.add(cn.Line, "<connect>: unit of %s is %q, unit of %s is %q", cn.From, *fu, cn.To, *tu)
		}
	}
	// Direct components need every input connected: they have no start
	// values to fall back on.
	for _, c := range m.direct {
		b := c.base()
		for i, s := range b.src {
			if s < 0 {
				el.add(b.line, "%s input %q is not connected (add <connect from=\"…\" to=\"%s.%s\"/>)", b.name, b.ins[i].Name, b.name, b.ins[i].Name)
			}
		}
	}
	if err := el.err(); err != nil {
		return err
	}
	for key, from := range srcComp {
		if from == key[0] && m.comps[from].base().direct {
			el.add(m.comps[from].base().line, "%s feeds its own input %q directly: an algebraic loop", m.comps[from].base().name, m.comps[from].base().ins[key[1]].Name)
		}
	}
	m.orderDirect(el, srcComp, off)
	m.wireExtrapolation(srcComp, off)
	// Results columns: time, then every output.
	m.cols = []results.Column{{Name: "time", Unit: "s", Group: results.GroupTime}}
	for _, c := range m.comps {
		b := c.base()
		for _, p := range b.outs {
			g := results.GroupForUnit(p.Unit)
			if g == results.GroupTime {
				g = results.GroupOther
			}
			if b.kind == "signal" {
				g = results.GroupInput
			}
			m.cols = append(m.cols, results.Column{Name: b.name + "." + p.Name, Unit: p.Unit, Group: g,
				Description: fmt.Sprintf("output %s of %s %s", p.Name, b.kind, b.name)})
		}
	}
	// then the connected inputs of the stepped components (the plants),
	// each the value it takes over the macro step that starts at the row:
	// a replay of the run (mbfmu-view plant.fmu results.csv) reads a
	// plant's inputs by their names
	taken := map[string]bool{}
	for _, c := range m.cols {
		taken[c.Name] = true
	}
	for _, c := range m.comps {
		b := c.base()
		if b.direct {
			continue
		}
		for k, p := range b.ins {
			name := b.name + "." + p.Name
			if b.src[k] < 0 || taken[name] {
				continue
			}
			taken[name] = true
			m.cols = append(m.cols, results.Column{Name: name, Unit: p.Unit, Group: results.GroupInput,
				Description: fmt.Sprintf("input %s of %s %s (held over the macro step from the row)", p.Name, b.kind, b.name)})
			m.inLog = append(m.inLog, b.src[k])
		}
	}
	return el.err()
}

// phaseNode is a node of the direct phase's dependency graph: a direct
// component (out < 0), or output out of a refresher with the connected
// inputs ins it depends on directly.
type phaseNode struct {
	ci, out int
	ins     []int
	deps    []int // the nodes it needs evaluated first
}

// orderDirect orders the direct phase (m.order, m.direct): the direct
// components and the refreshes of the refreshers, by Kahn's algorithm over
// the connections that carry a value within the phase — from a direct
// component, or from a refresher's output that depends directly on a
// connected input, into an input of a direct component or a feedthrough
// input of a refresher — in file order among equals. A refresher's
// outputs are nodes of their own (its declared input→output pairs only),
// so a chain through two independent channels of one FMU is no loop; its
// outputs that are ready together make one refresh. A cycle is an
// algebraic loop, reported with the components on it.
func (m *Master) orderDirect(el *errList, srcComp map[[2]int]int, off map[string]int) {
	var nodes []phaseNode
	compNodes := make([][]int, len(m.comps))
	nodeOf := map[[2]int]int{} // (component, output or -1) → node
	for ci, c := range m.comps {
		b := c.base()
		if b.direct {
			nodeOf[[2]int{ci, -1}] = len(nodes)
			compNodes[ci] = append(compNodes[ci], len(nodes))
			nodes = append(nodes, phaseNode{ci: ci, out: -1})
			continue
		}
		r, ok := c.(refresher)
		if !ok {
			continue
		}
		for o, ins := range r.feedthrough() {
			var conn []int
			for _, i := range ins {
				if b.src[i] >= 0 {
					conn = append(conn, i)
				}
			}
			if len(conn) == 0 {
				continue // held inputs only: its value after the step is right
			}
			nodeOf[[2]int{ci, o}] = len(nodes)
			compNodes[ci] = append(compNodes[ci], len(nodes))
			nodes = append(nodes, phaseNode{ci: ci, out: o, ins: conn})
		}
	}
	// producer returns the node that writes input i of component ci in
	// the phase, or -1 (a value from the stepped phase).
	producer := func(ci, i int) int {
		from, ok := srcComp[[2]int{ci, i}]
		if !ok {
			return -1
		}
		fb := m.comps[from].base()
		if fb.direct {
			return nodeOf[[2]int{from, -1}]
		}
		if n, ok := nodeOf[[2]int{from, m.comps[ci].base().src[i] - off[fb.name]}]; ok {
			return n
		}
		return -1
	}
	for k := range nodes {
		nd := &nodes[k]
		ins := nd.ins
		if nd.out < 0 {
			ins = make([]int, len(m.comps[nd.ci].base().ins))
			for i := range ins {
				ins[i] = i
			}
		}
		for _, i := range ins {
			if p := producer(nd.ci, i); p >= 0 && !(nd.out < 0 && p == k) && !slices.Contains(nd.deps, p) {
				nd.deps = append(nd.deps, p) // a direct self-feed is reported in wire
			}
		}
	}
	done := make([]bool, len(nodes))
	ready := func(k int) bool {
		for _, d := range nodes[k].deps {
			if !done[d] {
				return false
			}
		}
		return true
	}
	groupIns, groupOuts := make([][][]int, len(m.comps)), make([][][]int, len(m.comps))
	m.order, m.direct = nil, nil
	for ndone := 0; ndone < len(nodes); {
		progress := false
		for ci, c := range m.comps {
			var take []int
			for _, k := range compNodes[ci] {
				if !done[k] && ready(k) {
					take = append(take, k)
				}
			}
			if len(take) == 0 {
				continue
			}
			progress = true
			ndone += len(take)
			for _, k := range take {
				done[k] = true
			}
			if c.base().direct {
				m.order = append(m.order, evalItem{c: c, label: c.base().name})
				m.direct = append(m.direct, c)
				continue
			}
			var ins, outs []int
			var names []string
			for _, k := range take {
				outs = append(outs, nodes[k].out)
				names = append(names, c.base().outs[nodes[k].out].Name)
				for _, i := range nodes[k].ins {
					if !slices.Contains(ins, i) {
						ins = append(ins, i)
					}
				}
			}
			slices.Sort(ins)
			m.order = append(m.order, evalItem{c: c, r: c.(refresher), group: len(groupIns[ci]),
				label: c.base().name + " (refresh " + strings.Join(names, ", ") + ")"})
			groupIns[ci], groupOuts[ci] = append(groupIns[ci], ins), append(groupOuts[ci], outs)
		}
		if !progress {
			m.loopError(el, nodes, done)
			break
		}
	}
	for ci, c := range m.comps {
		if r, ok := c.(refresher); ok && !c.base().direct {
			r.setRefreshGroups(groupIns[ci], groupOuts[ci])
		}
	}
}

// loopError reports the algebraic loop among the nodes of the direct
// phase that Kahn's algorithm could not order (not done): the nodes left
// after dropping, again and again, those no other left node needs (they
// only follow a loop). It names the components and the feedthrough
// outputs of FMUs on the loop, at a connection that closes it.
func (m *Master) loopError(el *errList, nodes []phaseNode, done []bool) {
	left := make([]bool, len(nodes))
	for k := range nodes {
		left[k] = !done[k]
	}
	for changed := true; changed; {
		changed = false
		needed := make([]bool, len(nodes))
		for k := range nodes {
			if left[k] {
				for _, d := range nodes[k].deps {
					needed[d] = true
				}
			}
		}
		for k := range nodes {
			if left[k] && !needed[k] {
				left[k], changed = false, true
			}
		}
	}
	in := map[string]bool{}
	var loop, pairs []string
	for ci, c := range m.comps {
		b := c.base()
		for k := range nodes {
			if !left[k] || nodes[k].ci != ci {
				continue
			}
			if !in[b.name] {
				in[b.name] = true
				loop = append(loop, b.name)
			}
			if nodes[k].out >= 0 {
				var ins []string
				for _, i := range nodes[k].ins {
					ins = append(ins, b.ins[i].Name)
				}
				pairs = append(pairs, fmt.Sprintf("%s.%s ← %s", b.name, b.outs[nodes[k].out].Name, strings.Join(ins, ", ")))
			}
		}
	}
	// Report it at the first connection on the loop: from a left node's
	// output into an input that a left node depends on through it.
	ci := map[string]int{}
	for i, c := range m.comps {
		ci[c.base().name] = i
	}
	line := 0
	for _, cn := range m.cfg.Connections {
		fc, fp, _ := strings.Cut(cn.From, ".")
		tc, tp, _ := strings.Cut(cn.To, ".")
		if !in[fc] || !in[tc] {
			continue
		}
		from, to := m.comps[ci[fc]].base(), m.comps[ci[tc]].base()
		o, i := from.outputIndex(fp), to.inputIndex(tp)
		src := -1
		for k := range nodes {
			if left[k] && nodes[k].ci == ci[fc] && (nodes[k].out < 0 || nodes[k].out == o) {
				src = k
			}
		}
		for k := range nodes {
			if src >= 0 && left[k] && nodes[k].ci == ci[tc] && (nodes[k].out < 0 || slices.Contains(nodes[k].ins, i)) && slices.Contains(nodes[k].deps, src) {
				line = cn.Line
			}
		}
		if line != 0 {
			break
		}
	}
	if len(pairs) == 0 {
		el.add(line, "algebraic loop among the direct components %s: break it with a stepped component (a model or FMU)", strings.Join(loop, ", "))
		return
	}
	el.add(line, "algebraic loop through direct feedthrough among %s (FMU outputs that depend directly on inputs, as the FMUs' modelDescription.xml declares: %s): break it with a stepped component (a model, or an FMU without direct feedthrough)",
		strings.Join(loop, ", "), strings.Join(pairs, "; "))
}

// wireExtrapolation finds the connections between stepped components on
// which the source's output derivative is handed to the destination's
// input (Settings.Extrapolate and both sides able).
func (m *Master) wireExtrapolation(srcComp map[[2]int]int, off map[string]int) {
	m.dvals = make([]float64, len(m.vals))
	for _, c := range m.comps {
		b := c.base()
		b.dout = m.dvals[off[b.name] : off[b.name]+len(b.outs) : off[b.name]+len(b.outs)]
	}
	if !m.cfg.Settings.Extrapolate {
		return
	}
	needed := map[int]bool{}
	for ci, c := range m.comps {
		b := c.base()
		dst, ok := c.(extrapolator)
		if b.direct || !ok {
			continue
		}
		if _, in := dst.canExtrapolate(); !in {
			continue
		}
		for i, s := range b.src {
			if s < 0 {
				continue
			}
			fi := srcComp[[2]int{ci, i}]
			from := m.comps[fi]
			src, ok := from.(extrapolator)
			if from.base().direct || !ok {
				continue
			}
			if out, _ := src.canExtrapolate(); !out {
				continue
			}
			fb := from.base()
			o := s - off[fb.name]
			b.dIn, b.dSrc = append(b.dIn, i), append(b.dSrc, s)
			if !slices.Contains(fb.dOut, o) {
				fb.dOut = append(fb.dOut, o)
			}
			needed[fi] = true
			m.links = append(m.links, fb.name+"."+fb.outs[o].Name+" → "+b.name+"."+b.ins[i].Name)
		}
		b.din = make([]float64, len(b.dIn))
	}
	for ci, c := range m.comps {
		if needed[ci] {
			slices.Sort(c.base().dOut)
			m.deriv = append(m.deriv, c)
		}
	}
}

// outputDerivatives updates the output derivatives of the extrapolated
// connections' sources.
func (m *Master) outputDerivatives() error {
	for _, c := range m.deriv {
		if err := c.(extrapolator).outputDerivatives(); err != nil {
			return m.fail(c, "reading the output derivatives of", err)
		}
	}
	return nil
}

// sameUnit compares unit spellings loosely (N*m and N·m).
func sameUnit(a, b string) bool {
	norm := func(s string) string {
		return strings.NewReplacer(" ", "", "·", "*", ".", "*").Replace(s)
	}
	return norm(a) == norm(b)
}

func portList(ps []Port) string {
	if len(ps) == 0 {
		return "none"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Name
	}
	return strings.Join(s, ", ")
}

// stepSizer is implemented by components that need a fixed macro step of
// a given size (discrete state-space blocks).
type stepSizer interface {
	needsStep() (dt float64, ok bool)
}

// checkSteps checks the step settings against what the components can do.
func (m *Master) checkSteps() error {
	s := m.cfg.Settings
	for _, c := range m.comps {
		b := c.base()
		if f, ok := c.(*fmuComp); ok && s.Variable && !f.varStep {
			return fmt.Errorf("%s:%d: FMU %s cannot handle a variable communication step (canHandleVariableCommunicationStepSize is not true): use a fixed step", m.cfg.File, b.line, b.name)
		}
		if ss, ok := c.(stepSizer); ok {
			if dt, fixed := ss.needsStep(); fixed {
				if s.Variable {
					return fmt.Errorf("%s:%d: %s is a discrete system: it needs a fixed macro step", m.cfg.File, b.line, b.name)
				}
				if math.Abs(dt-s.Step) > 1e-9*s.Step {
					return fmt.Errorf("%s:%d: %s has sample time %g s but the macro step is %g s", m.cfg.File, b.line, b.name, dt, s.Step)
				}
			}
		}
	}
	if !s.Variable {
		m.nsteps = int64(math.Round((s.End - s.Start) / s.Step))
	}
	return nil
}

// Columns describes the results columns: time, then every component's
// outputs as "component.port", then the connected inputs of the stepped
// components (models, FMUs) as "component.input".
func (m *Master) Columns() []results.Column { return append([]results.Column(nil), m.cols...) }

// Row writes the current values (time first) into dst, which must have
// len(Columns()) entries.
func (m *Master) Row(dst []float64) {
	dst[0] = m.t
	copy(dst[1:], m.vals)
	for j, s := range m.inLog {
		dst[1+len(m.vals)+j] = m.vals[s]
	}
}

// Time returns the current communication point.
func (m *Master) Time() float64 { return m.t }

// Steps returns the number of macro steps taken.
func (m *Master) Steps() int64 { return m.k }

// Done reports whether the end time has been reached.
func (m *Master) Done() bool {
	if !m.cfg.Settings.Variable {
		return m.k >= m.nsteps
	}
	return m.t >= m.cfg.Settings.End-1e-12*math.Max(1, math.Abs(m.cfg.Settings.End))
}

// Value returns the current value of column "component.port" (an output,
// or a stepped component's connected input).
func (m *Master) Value(name string) (float64, bool) {
	for i, c := range m.cols {
		switch {
		case c.Name != name || i == 0:
		case i-1 < len(m.vals):
			return m.vals[i-1], true
		default:
			return m.vals[m.inLog[i-1-len(m.vals)]], true
		}
	}
	return 0, false
}

// Settings returns the master's time settings.
func (m *Master) Settings() Settings { return m.cfg.Settings }

// Init instantiates and initialises every component at the start time and
// evaluates the direct components there.
func (m *Master) Init() error {
	if m.started {
		return errors.New("cosim: Init called twice")
	}
	m.started = true
	s := m.cfg.Settings
	m.t, m.h, m.hPrev = s.Start, s.Step, s.Step
	for _, c := range m.stepped {
		if err := c.start(m); err != nil {
			return m.fail(c, "initialising", err)
		}
	}
	for _, c := range m.direct {
		if err := c.start(m); err != nil {
			return m.fail(c, "initialising", err)
		}
	}
	if err := m.evalDirect(s.Step); err != nil {
		return err
	}
	if err := m.outputDerivatives(); err != nil {
		return err
	}
	if s.Variable {
		m.hist1 = make([]float64, len(m.vals))
		m.hist2 = make([]float64, len(m.vals))
		copy(m.hist1, m.vals)
		m.nhist = 1
	}
	return nil
}

func (m *Master) fail(c component, what string, err error) error {
	b := c.base()
	return fmt.Errorf("%s:%d: %s %s (%s) at t = %g s: %w", m.cfg.File, b.line, what, b.name, b.kind, m.t, err)
}

// evalDirect makes the direct phase at the current point: the direct
// components' evaluations and the refreshes of the feedthrough FMUs, in
// their order.
func (m *Master) evalDirect(dt float64) error {
	for i := range m.order {
		it := &m.order[i]
		if it.r != nil {
			if err := it.r.refresh(it.group, m.vals); err != nil {
				return m.fail(it.c, "refreshing the direct-feedthrough outputs of", err)
			}
			continue
		}
		it.c.base().gather(m.vals, m.dvals)
		if err := it.c.eval(m.t, dt); err != nil {
			return m.fail(it.c, "evaluating", err)
		}
	}
	return nil
}

// nextStep returns the size of the next macro step.
func (m *Master) nextStep() float64 {
	s := &m.cfg.Settings
	if !s.Variable {
		return s.Step
	}
	h := m.h
	rem := s.End - m.t
	switch {
	case h >= rem*(1-1e-9):
		h = rem
	case h > rem/2:
		h = rem / 2
	}
	return h
}

// Advance takes one macro step: the stepped components advance from t to
// t+h with their inputs at t, then the direct components are evaluated at
// t+h and the feedthrough FMUs refreshed there. In steady state it
// allocates nothing.
func (m *Master) Advance() error {
	if !m.started {
		return errors.New("cosim: Advance before Init")
	}
	if m.Done() {
		return errors.New("cosim: the run is over")
	}
	h := m.nextStep()
	// Jacobi: every stepped component takes its inputs at t before any of
	// them writes its outputs at t+h.
	for _, c := range m.stepped {
		c.base().gather(m.vals, m.dvals)
	}
	for _, c := range m.stepped {
		if err := c.step(m.t, h); err != nil {
			return m.fail(c, "stepping", err)
		}
	}
	m.k++
	s := &m.cfg.Settings
	if s.Variable {
		m.t += h
		if m.Done() {
			m.t = s.End
		}
	} else {
		m.t = s.Start + float64(m.k)*s.Step
	}
	if err := m.evalDirect(h); err != nil {
		return err
	}
	// after the direct phase: a refreshed FMU's outputs are final there
	if err := m.outputDerivatives(); err != nil {
		return err
	}
	if s.Variable {
		m.adapt(h)
	}
	m.hPrev = h
	return nil
}

// adapt chooses the next variable macro step from the error of a linear
// extrapolation of every coupling value over the step just taken: the
// error of such a predictor grows as h², so the step is scaled by
// (1/err)^½, within [½, 2] per step and [min-step, max-step].
func (m *Master) adapt(h float64) {
	s := &m.cfg.Settings
	if m.nhist >= 2 {
		r := h / m.hPrev
		worst := 0.0
		for i, v := range m.vals {
			p := m.hist1[i] + (m.hist1[i]-m.hist2[i])*r
			sc := s.AbsTol + s.RelTol*math.Max(math.Abs(v), math.Abs(m.hist1[i]))
			worst = math.Max(worst, math.Abs(v-p)/sc)
		}
		f := 2.0
		if worst > 0 {
			f = math.Min(2, math.Max(0.5, 0.9/math.Sqrt(worst)))
		}
		m.h = math.Min(s.MaxStep, math.Max(s.MinStep, h*f))
	}
	m.hist1, m.hist2 = m.hist2, m.hist1
	copy(m.hist1, m.vals)
	m.nhist++
}

// Close terminates and frees every component. It returns the first error.
func (m *Master) Close() error {
	var first error
	for _, c := range m.comps {
		if err := c.close(); err != nil && first == nil {
			first = fmt.Errorf("closing %s: %w", c.base().name, err)
		}
	}
	m.comps = nil
	return first
}

// Describe lists the components, their ports and the evaluation order, for
// the run summary.
func (m *Master) Describe() string {
	var b strings.Builder
	for _, c := range m.comps {
		x := c.base()
		how := "stepped"
		if x.direct {
			how = "direct"
		}
		if f, ok := c.(*fmuComp); ok {
			if f.inProc {
				how += ", mbfmu FMU in-process"
			} else {
				how += ", FMU via dlopen"
			}
			if f.arch.md.fmi3() {
				how += ", FMI 3.0"
			}
			for o, ins := range f.ft {
				if len(ins) > 0 {
					var n []string
					for _, i := range ins {
						n = append(n, f.ins[i].Name)
					}
					how += ", direct feedthrough " + f.outs[o].Name + " ← " + strings.Join(n, " ")
				}
			}
		}
		fmt.Fprintf(&b, "  %-10s %-15s (%s) in: %s; out: %s\n", x.name, x.kind, how, portList(x.ins), portList(x.outs))
	}
	names := make([]string, len(m.order))
	for i, it := range m.order {
		names[i] = it.label
	}
	fmt.Fprintf(&b, "  direct evaluation order: %s\n", strings.Join(names, " → "))
	if len(m.links) > 0 {
		fmt.Fprintf(&b, "  extrapolated over the macro step (output derivatives → input derivatives): %s\n", strings.Join(m.links, ", "))
	}
	return b.String()
}
