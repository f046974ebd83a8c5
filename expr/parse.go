package expr

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"mbfmu/suggest"
)

// Error is a compile error of an expression.
type Error struct {
	Col int    // 1-based character position in Src (a line break counts as one)
	Msg string // what is wrong
	Src string // the expression source
	Err error  // underlying error returned by the Resolver, if any
}

// Error returns "col N: message".
func (e *Error) Error() string { return fmt.Sprintf("col %d: %s", e.Col, e.Msg) }

// Unwrap returns the Resolver error that caused e, if any.
func (e *Error) Unwrap() error { return e.Err }

// Caret returns the source line followed by a line with a caret under the
// offending column, for display under a message.
func (e *Error) Caret() string {
	src := strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(e.Src)
	c := max(e.Col, 1)
	return src + "\n" + strings.Repeat(" ", c-1) + "^"
}

// NameLister may optionally be implemented by a Resolver to list the names it
// knows (variables, tables, measure functions). It is used only to suggest
// near names in error messages.
type NameLister interface {
	Names() []string
}

// NameMeasurer may optionally be implemented by a Resolver whose bare
// names may also stand for measured quantities (a model's user states and
// variables, which change with the state): NameMeasure resolves such a
// name to an id passed to Measurer.Measure, as Resolver.Measure does for a
// call. It is asked after Resolver.Var declines a name.
type NameMeasurer interface {
	NameMeasure(name string) (id int, ok bool, err error)
}

// maxDepth bounds the nesting of an expression (parentheses, calls, unary
// operators) so that a hostile input cannot exhaust the stack.
const maxDepth = 200

type parser struct {
	src   string
	toks  []token
	pos   int
	r     Resolver
	depth int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token { t := p.toks[p.pos]; p.pos++; return t }

func (p *parser) errf(col int, format string, a ...any) *Error {
	return &Error{Col: col, Msg: fmt.Sprintf(format, a...), Src: p.src}
}

func (p *parser) isOp(ops ...string) (string, bool) {
	t := p.peek()
	if t.kind != tOp {
		return "", false
	}
	for _, o := range ops {
		if t.text == o {
			return o, true
		}
	}
	return "", false
}

// parse parses a whole expression.
func parse(src string, r Resolver) (*node, *Error) {
	if strings.TrimSpace(src) == "" {
		return nil, &Error{Col: 1, Msg: "empty expression", Src: src}
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks, r: r}
	n, err := p.parseBinary(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		if t.kind == tRParen {
			return nil, p.errf(t.col, "unbalanced parentheses: unexpected ')'")
		}
		return nil, p.errf(t.col, "unexpected %s after end of expression", t.describe())
	}
	return n, nil
}

// Binary operator precedence levels, lowest first.
var levels = [...][]string{
	{"||"},
	{"&&"},
	{"==", "!="},
	{"<", "<=", ">", ">="},
	{"+", "-"},
	{"*", "/"},
}

var binOps = map[string]opcode{
	"||": opOr, "&&": opAnd, "==": opEq, "!=": opNe, "<": opLt, "<=": opLe,
	">": opGt, ">=": opGe, "+": opAdd, "-": opSub, "*": opMul, "/": opDiv,
}

// parseBinary parses left-associative binary operators of the given level
// and above.
func (p *parser) parseBinary(level int) (*node, *Error) {
	if level == len(levels) {
		return p.parseUnary()
	}
	left, err := p.parseBinary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		op, ok := p.isOp(levels[level]...)
		if !ok {
			return left, nil
		}
		p.next()
		right, err := p.parseBinary(level + 1)
		if err != nil {
			return nil, err
		}
		left = fold(&node{op: binOps[op], args: []*node{left, right}})
	}
}

func (p *parser) enter(col int) *Error {
	p.depth++
	if p.depth > maxDepth {
		return p.errf(col, "expression nested too deeply (more than %d levels)", maxDepth)
	}
	return nil
}

// parseUnary parses prefix - + ! and then a power.
func (p *parser) parseUnary() (*node, *Error) {
	if op, ok := p.isOp("-", "+", "!"); ok {
		t := p.next()
		if err := p.enter(t.col); err != nil {
			return nil, err
		}
		x, err := p.parseUnary()
		p.depth--
		if err != nil {
			return nil, err
		}
		switch op {
		case "-":
			return fold(&node{op: opNeg, args: []*node{x}}), nil
		case "!":
			return fold(&node{op: opNot, args: []*node{x}}), nil
		}
		return x, nil
	}
	return p.parsePower()
}

// parsePower parses primary [^ unary]; ^ is right associative and binds
// tighter than unary minus on its left: -2^2 = -4, 2^-1 = 0.5.
func (p *parser) parsePower() (*node, *Error) {
	base, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	if _, ok := p.isOp("^", "**"); ok {
		t := p.next()
		if err := p.enter(t.col); err != nil {
			return nil, err
		}
		exp, err := p.parseUnary()
		p.depth--
		if err != nil {
			return nil, err
		}
		return fold(&node{op: opPow, args: []*node{base, exp}}), nil
	}
	return base, nil
}

func (p *parser) parsePrimary() (*node, *Error) {
	t := p.next()
	switch t.kind {
	case tNum:
		return cst(t.num), nil
	case tLParen:
		if err := p.enter(t.col); err != nil {
			return nil, err
		}
		x, err := p.parseBinary(0)
		p.depth--
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			if c.kind == tEOF {
				return nil, p.errf(t.col, "unbalanced parentheses: '(' is never closed")
			}
			return nil, p.errf(c.col, "expected ')' or an operator, found %s", c.describe())
		}
		return x, nil
	case tIdent:
		if p.peek().kind == tLParen {
			return p.parseCall(t)
		}
		if t.primes > 0 {
			return nil, p.errf(t.col, "derivative notation %s' is only allowed on a call (tables, step, step5, havsin)", t.text)
		}
		return p.resolveName(t)
	case tEOF:
		return nil, p.errf(t.col, "unexpected end of expression")
	case tRParen:
		return nil, p.errf(t.col, "unexpected ')'")
	}
	return nil, p.errf(t.col, "unexpected %s", t.describe())
}

// Reserved constant names; the Resolver is never asked about them.
var constants = map[string]float64{"pi": math.Pi, "e": math.E}

func (p *parser) resolveName(t token) (*node, *Error) {
	if v, ok := constants[t.text]; ok {
		return cst(v), nil
	}
	if p.r != nil {
		if slot, ok := p.r.Var(t.text); ok {
			return &node{op: opVar, slot: slot, name: t.text}, nil
		}
		if nm, ok := p.r.(NameMeasurer); ok {
			id, ok, err := nm.NameMeasure(t.text)
			if err != nil {
				return nil, &Error{Col: t.col, Msg: err.Error(), Src: p.src, Err: err}
			}
			if ok {
				return &node{op: opMeasure, slot: id, name: t.text, bare: true}, nil
			}
		}
	}
	if _, ok := lookupBuiltin(t.text); ok {
		return nil, p.errf(t.col, "%q is a function: call it as %s(...)", t.text, t.text)
	}
	return nil, p.errf(t.col, "unknown identifier %q%s", t.text, p.suggest(t.text, false))
}

// bareArgs reports whether the call whose '(' is at p.pos has only bare names
// as arguments, and returns them.
func (p *parser) bareArgs() ([]string, bool) {
	i := p.pos + 1
	var names []string
	if p.toks[i].kind == tRParen {
		return names, true
	}
	for {
		t := p.toks[i]
		if t.kind != tIdent || t.primes > 0 {
			return nil, false
		}
		names = append(names, t.text)
		switch p.toks[i+1].kind {
		case tRParen:
			return names, true
		case tComma:
			i += 2
		default:
			return nil, false
		}
	}
}

func (p *parser) parseCall(name token) (*node, *Error) {
	// Measures: fn(name, name, ...).
	if names, ok := p.bareArgs(); ok && p.r != nil {
		id, ok, err := p.r.Measure(name.text, names)
		if err != nil {
			return nil, &Error{Col: name.col, Msg: err.Error(), Src: p.src, Err: err}
		}
		if ok && name.primes > 0 {
			return nil, p.errf(name.col, "derivative notation %s' is not allowed on measures", name.text)
		}
		if ok {
			// Skip "(", the names, the commas between them and ")".
			p.pos += 2 + max(2*len(names)-1, 0)
			return &node{op: opMeasure, slot: id, name: name.text, margs: names}, nil
		}
	}
	open := p.next() // '('
	if err := p.enter(open.col); err != nil {
		return nil, err
	}
	var args []*node
	if p.peek().kind == tRParen {
		p.next()
	} else {
		for {
			a, err := p.parseBinary(0)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			t := p.next()
			if t.kind == tRParen {
				break
			}
			if t.kind == tComma {
				continue
			}
			if t.kind == tEOF {
				return nil, p.errf(open.col, "unbalanced parentheses: '(' of %s( is never closed", name.text)
			}
			return nil, p.errf(t.col, "expected ',' or ')' in call to %s, found %s", name.text, t.describe())
		}
	}
	p.depth--

	if id, ok := lookupBuiltin(name.text); ok {
		return p.builtinCall(name, id, args)
	}
	if p.r != nil {
		if tbl, ok := p.r.Table(name.text); ok {
			if tbl == nil {
				return nil, p.errf(name.col, "table %q is nil", name.text)
			}
			if len(args) != 1 {
				return nil, p.errf(name.col, "table %s expects 1 argument, got %d", name.text, len(args))
			}
			return fold(&node{op: opTable, tbl: tbl, name: name.text, order: name.primes, args: args}), nil
		}
		if _, ok := p.r.Var(name.text); ok {
			return nil, p.errf(name.col, "%q is a variable, not a function", name.text)
		}
	}
	return nil, p.errf(name.col, "unknown function %q%s", name.text, p.suggest(name.text, true))
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (p *parser) builtinCall(name token, id builtinID, args []*node) (*node, *Error) {
	b := builtins[id]
	switch {
	case b.minArgs == b.maxArgs && len(args) != b.minArgs:
		return nil, p.errf(name.col, "%s expects %s, got %d", b.name, plural(b.minArgs, "argument"), len(args))
	case len(args) < b.minArgs:
		return nil, p.errf(name.col, "%s expects at least %s, got %d", b.name, plural(b.minArgs, "argument"), len(args))
	case b.maxArgs >= 0 && len(args) > b.maxArgs:
		return nil, p.errf(name.col, "%s expects %d to %s, got %d", b.name, b.minArgs, plural(b.maxArgs, "argument"), len(args))
	}
	if name.primes > 0 && !b.primes {
		return nil, p.errf(name.col, "derivative notation %s' is only allowed on tables and step, step5, havsin", b.name)
	}
	switch id {
	case fnPow:
		return fold(&node{op: opPow, args: args}), nil
	case fnStep, fnStep5, fnHavsin:
		if x0, x1 := args[1], args[3]; x0.isConst() && x1.isConst() && !(x0.val < x1.val) {
			return nil, p.errf(name.col, "%s: x0 (%g) must be less than x1 (%g)", b.name, x0.val, x1.val)
		}
	}
	return fold(&node{op: opCall, fn: id, order: name.primes, args: args}), nil
}

// suggest returns " (did you mean X?)" for the known name nearest to name,
// or "".
func (p *parser) suggest(name string, call bool) string {
	var cands []string
	if call {
		for _, b := range builtins {
			cands = append(cands, b.name)
		}
	} else {
		for c := range constants {
			cands = append(cands, c)
		}
	}
	if nl, ok := p.r.(NameLister); ok {
		cands = append(cands, nl.Names()...)
	}
	sort.Strings(cands)
	best, bestD := "", 1<<30
	ln := strings.ToLower(name)
	for _, c := range cands {
		if c == name {
			continue
		}
		d := nameDistance(ln, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	limit := 1
	if len(name) > 4 {
		limit = 2
	}
	if best == "" || bestD > limit {
		if !call && strings.Contains(name, ".") {
			// "a.p.x": a channel name written where a value is wanted
			return " (a dotted name refers to a marker, which only a measure function takes: dx(body.marker), vx(...), angle(...))"
		}
		return ""
	}
	return " (did you mean " + best + "?)"
}

// nameDistance is the edit distance of package suggest between two
// names, except that names longer than 64 bytes are not typos of the
// short names we know: they are far from everything but themselves.
func nameDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20
	}
	return suggest.Distance(a, b)
}
