package expr

import (
	"slices"
	"sort"
	"strings"
)

// Resolver maps names in an expression to things the host provides, at
// compile time. It is not retained by the compiled Program.
type Resolver interface {
	// Var resolves an identifier (may contain dots, e.g. "arm.len") to a
	// slot in the vars slice passed to Eval.
	Var(name string) (slot int, ok bool)
	// Measure resolves a measure call fn(arg1, arg2, ...) whose arguments
	// are bare names (e.g. dx(arm.tip), dist(a.p, b.q), angle(arm)) to an id
	// passed to Measurer.Measure. ok=false means fn is not a measure function
	// (then it is looked up as a built-in or table); err describes bad
	// arguments (unknown marker...).
	Measure(fn string, args []string) (id int, ok bool, err error)
	// Table resolves a table name used as a function of one argument:
	// name(x).
	Table(name string) (*Table, bool)
}

// Measurer supplies measured quantities at evaluation time.
type Measurer interface{ Measure(id int) float64 }

// Program is a compiled expression. It is immutable after Compile, so one
// Program may be evaluated concurrently by any number of goroutines.
type Program struct {
	src      string
	root     *node
	fn       evalFn
	slots    []int // sorted variable slots used
	measures bool
	mids     []int // sorted measure ids called
}

// Compile parses src, resolves its names with r (which may be nil if src
// uses no names) and compiles it. Sub-expressions whose operands are all
// constants are evaluated once here. Errors are of type *Error.
func Compile(src string, r Resolver) (*Program, error) {
	root, err := parse(src, r)
	if err != nil {
		return nil, err
	}
	return newProgram(src, root), nil
}

func newProgram(src string, root *node) *Program {
	p := &Program{src: src, root: root}
	cg := codegen{memo: map[*node]evalFn{}}
	p.fn = cg.gen(root)
	seen := map[*node]bool{}
	slots := map[int]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		switch n.op {
		case opVar:
			slots[n.slot] = true
		case opMeasure:
			p.measures = true
			if !slices.Contains(p.mids, n.slot) {
				p.mids = append(p.mids, n.slot)
			}
		}
		for _, a := range n.args {
			walk(a)
		}
	}
	walk(root)
	for s := range slots {
		p.slots = append(p.slots, s)
	}
	sort.Ints(p.slots)
	sort.Ints(p.mids)
	return p
}

// Constant returns a Program that always evaluates to v.
func Constant(v float64) *Program {
	return newProgram(formatNumber(v), cst(v))
}

// Eval evaluates the program. vars holds the values of the variable slots
// handed out by Resolver.Var (it must be long enough for every slot the
// program uses); m may be nil if the program uses no measures. Eval
// allocates nothing and only reads p, so it may run concurrently.
func (p *Program) Eval(vars []float64, m Measurer) float64 { return p.fn(vars, m) }

// Deriv returns the exact symbolic derivative of p with respect to the
// variable in slot. The chain rule is applied through every operator and
// built-in, tables included (giving name'(x)); measures and other slots are
// treated as constants. Comparisons, logical operators, sign, floor and ceil
// are piecewise constant and have derivative 0, and if(c, a, b) has
// derivative if(c, a', b'); min and max select the derivative of the
// selected argument; so at the switching points the derivative is one-sided.
// Terms in 0 and 1 are simplified and constants folded.
func (p *Program) Deriv(slot int) *Program {
	d := differ{slot: slot, memo: map[*node]*node{}}
	root := d.d(p.root)
	var b strings.Builder
	writeNode(&b, root, 0)
	return newProgram(b.String(), root)
}

// Const returns the value of p and true if p is a constant (after folding).
func (p *Program) Const() (float64, bool) {
	if p.root.op == opConst {
		return p.root.val, true
	}
	return 0, false
}

// UsesSlot reports whether p reads the variable in slot.
func (p *Program) UsesSlot(slot int) bool {
	i := sort.SearchInts(p.slots, slot)
	return i < len(p.slots) && p.slots[i] == slot
}

// Slots returns the sorted variable slots p reads.
func (p *Program) Slots() []int { return append([]int(nil), p.slots...) }

// MeasureIDs returns the ids of the measures p calls, sorted.
func (p *Program) MeasureIDs() []int { return slices.Clone(p.mids) }

// UsesMeasures reports whether p calls Measurer.Measure.
func (p *Program) UsesMeasures() bool { return p.measures }

// String returns p in a form that Compile parses back to the same program
// (given the same Resolver), with constants folded. Non-finite constants
// print as (1/0), (-1/0) and (0/0).
func (p *Program) String() string {
	var b strings.Builder
	writeNode(&b, p.root, 0)
	return b.String()
}

// Src returns the source p was compiled from; for programs made by Deriv or
// Constant it is their String form.
func (p *Program) Src() string { return p.src }
