package expr

import (
	"math"
)

// opcode identifies the kind of an expression node.
type opcode uint8

const (
	opConst   opcode = iota
	opVar            // vars[slot]
	opMeasure        // Measurer.Measure(slot)
	opTable          // table (or its order-th derivative) of args[0]
	opNeg
	opNot
	opAdd
	opSub
	opMul
	opDiv
	opPow
	opLt
	opLe
	opGt
	opGe
	opEq
	opNe
	opAnd
	opOr
	opCall // built-in function fn
)

// builtinID identifies a built-in function.
type builtinID uint8

const (
	fnSin builtinID = iota
	fnCos
	fnTan
	fnAsin
	fnAcos
	fnAtan
	fnAtan2
	fnSinh
	fnCosh
	fnTanh
	fnExp
	fnLog
	fnLog10
	fnSqrt
	fnAbs
	fnSign
	fnMin
	fnMax
	fnMod
	fnFloor
	fnCeil
	fnHypot
	fnIf
	fnStep
	fnStep5
	fnHavsin
	fnShf
	fnPow // only used during parsing: pow(a, b) becomes opPow
)

// builtin describes a built-in function.
type builtin struct {
	name    string
	minArgs int
	maxArgs int  // -1: unlimited
	primes  bool // accepts derivative notation f'(...)
}

var builtins = [...]builtin{
	fnSin:    {"sin", 1, 1, false},
	fnCos:    {"cos", 1, 1, false},
	fnTan:    {"tan", 1, 1, false},
	fnAsin:   {"asin", 1, 1, false},
	fnAcos:   {"acos", 1, 1, false},
	fnAtan:   {"atan", 1, 1, false},
	fnAtan2:  {"atan2", 2, 2, false},
	fnSinh:   {"sinh", 1, 1, false},
	fnCosh:   {"cosh", 1, 1, false},
	fnTanh:   {"tanh", 1, 1, false},
	fnExp:    {"exp", 1, 1, false},
	fnLog:    {"log", 1, 1, false},
	fnLog10:  {"log10", 1, 1, false},
	fnSqrt:   {"sqrt", 1, 1, false},
	fnAbs:    {"abs", 1, 1, false},
	fnSign:   {"sign", 1, 2, false},
	fnMin:    {"min", 2, -1, false},
	fnMax:    {"max", 2, -1, false},
	fnMod:    {"mod", 2, 2, false},
	fnFloor:  {"floor", 1, 1, false},
	fnCeil:   {"ceil", 1, 1, false},
	fnHypot:  {"hypot", 2, 2, false},
	fnIf:     {"if", 3, 3, false},
	fnStep:   {"step", 5, 5, true},
	fnStep5:  {"step5", 5, 5, true},
	fnHavsin: {"havsin", 5, 5, true},
	fnShf:    {"shf", 6, 6, false},
	fnPow:    {"pow", 2, 2, false},
}

// lookupBuiltin returns the built-in function called name.
func lookupBuiltin(name string) (builtinID, bool) {
	for i := range builtins {
		if builtins[i].name == name {
			return builtinID(i), true
		}
	}
	return 0, false
}

// node is one node of an expression tree. Nodes are immutable once built
// and may be shared between trees (derivatives reference the nodes of the
// expression they were derived from).
type node struct {
	op    opcode
	fn    builtinID // opCall
	order int       // derivative order of opTable and of the step family
	val   float64   // opConst
	slot  int       // opVar: vars slot; opMeasure: measure id
	name  string    // opVar, opMeasure, opTable: the name as written
	margs []string  // opMeasure: argument names
	bare  bool      // opMeasure: a bare name (NameMeasurer), not a call
	tbl   *Table    // opTable
	args  []*node
}

func cst(v float64) *node { return &node{op: opConst, val: v} }

func (n *node) isConst() bool { return n.op == opConst }

// isVal reports whether n is the constant v.
func (n *node) isVal(v float64) bool { return n.op == opConst && n.val == v }

// truth converts a value to a logical value: any non-zero value (NaN
// included) is true.
func truth(x float64) bool { return x != 0 }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// eval evaluates the tree directly. It is the slow reference path used for
// constant folding; Program.Eval uses the compiled closures.
func (n *node) eval(v []float64, m Measurer) float64 {
	switch n.op {
	case opConst:
		return n.val
	case opVar:
		return v[n.slot]
	case opMeasure:
		return m.Measure(n.slot)
	case opTable:
		return n.tbl.derivN(n.args[0].eval(v, m), n.order)
	case opNeg:
		return -n.args[0].eval(v, m)
	case opNot:
		return b2f(!truth(n.args[0].eval(v, m)))
	case opAnd:
		return b2f(truth(n.args[0].eval(v, m)) && truth(n.args[1].eval(v, m)))
	case opOr:
		return b2f(truth(n.args[0].eval(v, m)) || truth(n.args[1].eval(v, m)))
	case opCall:
		return n.evalCall(v, m)
	}
	a, b := n.args[0].eval(v, m), n.args[1].eval(v, m)
	switch n.op {
	case opAdd:
		return a + b
	case opSub:
		return a - b
	case opMul:
		return a * b
	case opDiv:
		return a / b
	case opPow:
		return math.Pow(a, b)
	case opLt:
		return b2f(a < b)
	case opLe:
		return b2f(a <= b)
	case opGt:
		return b2f(a > b)
	case opGe:
		return b2f(a >= b)
	case opEq:
		return b2f(a == b)
	case opNe:
		return b2f(a != b)
	}
	return math.NaN()
}

func (n *node) evalCall(v []float64, m Measurer) float64 {
	switch n.fn {
	case fnIf:
		if truth(n.args[0].eval(v, m)) {
			return n.args[1].eval(v, m)
		}
		return n.args[2].eval(v, m)
	case fnMin, fnMax:
		r := n.args[0].eval(v, m)
		for _, a := range n.args[1:] {
			r = minMax(n.fn == fnMax, r, a.eval(v, m))
		}
		return r
	}
	var x [6]float64
	for i, a := range n.args {
		x[i] = a.eval(v, m)
	}
	switch n.fn {
	case fnStep, fnStep5, fnHavsin:
		return stepFamily(n.fn, n.order, x[0], x[1], x[2], x[3], x[4])
	case fnShf:
		return shf(x[0], x[1], x[2], x[3], x[4], x[5])
	case fnSign:
		if len(n.args) == 2 {
			return sign2(x[0], x[1])
		}
		return Sign(x[0])
	}
	return call12(n.fn, x[0], x[1])
}

// call12 evaluates the built-in functions of one or two arguments.
func call12(fn builtinID, a, b float64) float64 {
	switch fn {
	case fnSin:
		return math.Sin(a)
	case fnCos:
		return math.Cos(a)
	case fnTan:
		return math.Tan(a)
	case fnAsin:
		return math.Asin(a)
	case fnAcos:
		return math.Acos(a)
	case fnAtan:
		return math.Atan(a)
	case fnAtan2:
		return math.Atan2(a, b)
	case fnSinh:
		return math.Sinh(a)
	case fnCosh:
		return math.Cosh(a)
	case fnTanh:
		return math.Tanh(a)
	case fnExp:
		return math.Exp(a)
	case fnLog:
		return math.Log(a)
	case fnLog10:
		return math.Log10(a)
	case fnSqrt:
		return math.Sqrt(a)
	case fnAbs:
		return math.Abs(a)
	case fnSign:
		return Sign(a)
	case fnMod:
		return math.Mod(a, b)
	case fnFloor:
		return math.Floor(a)
	case fnCeil:
		return math.Ceil(a)
	case fnHypot:
		return math.Hypot(a, b)
	}
	return math.NaN()
}

// minMax returns max(r, a) (isMax) or min(r, a). The earlier argument wins
// ties; a NaN argument makes the result NaN.
func minMax(isMax bool, r, a float64) float64 {
	if a != a {
		return a
	}
	if isMax {
		if a > r {
			return a
		}
		return r
	}
	if a < r {
		return a
	}
	return r
}

// Sign returns -1, 0 or 1 with the sign of x (x itself for ±0 and NaN):
// the expression language's sign(x), and the engine's.
func Sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // 0, -0 or NaN
}

// sign2 is the Fortran/Adams transfer of sign: |a| if b >= 0, else -|a|.
func sign2(a, b float64) float64 {
	if b >= 0 {
		return math.Abs(a)
	}
	if b < 0 {
		return -math.Abs(a)
	}
	return math.NaN()
}

// shf is the Adams simple harmonic function a*sin(w*(x-x0)-phi)+b.
func shf(x, x0, a, w, phi, b float64) float64 {
	return a*math.Sin(w*(x-x0)-phi) + b
}

// stepFamily evaluates the order-th derivative with respect to x of
// step/step5/havsin(x, x0, h0, x1, h1).
func stepFamily(fn builtinID, order int, x, x0, h0, x1, h1 float64) float64 {
	if x <= x0 {
		if order == 0 {
			return h0
		}
		return 0
	}
	if x >= x1 {
		if order == 0 {
			return h1
		}
		return 0
	}
	dx := x1 - x0
	d := (x - x0) / dx
	if order == 0 {
		return h0 + (h1-h0)*shape(fn, 0, d)
	}
	s := (h1 - h0) * shape(fn, order, d)
	for range order {
		s /= dx
	}
	return s
}

// shape returns the k-th derivative of the normalised step shape S(d),
// 0 < d < 1, with S(0) = 0 and S(1) = 1:
//
//	step:   S = d^2 (3 - 2d)
//	step5:  S = d^3 (10 - 15d + 6d^2)
//	havsin: S = (1 - cos(pi d)) / 2
func shape(fn builtinID, k int, d float64) float64 {
	switch fn {
	case fnStep:
		switch k {
		case 0:
			return d * d * (3 - 2*d)
		case 1:
			return 6 * d * (1 - d)
		case 2:
			return 6 - 12*d
		case 3:
			return -12
		}
		return 0
	case fnStep5:
		switch k {
		case 0:
			return d * d * d * (10 + d*(-15+6*d))
		case 1:
			e := d * (1 - d)
			return 30 * e * e
		case 2:
			return 60 * d * (1 + d*(-3+2*d))
		case 3:
			return 60 + d*(-360+360*d)
		case 4:
			return -360 + 720*d
		case 5:
			return 720
		}
		return 0
	}
	// havsin: S^(k) = -(pi^k/2) cos(pi d + k pi/2) for k >= 1.
	s, c := math.Sincos(math.Pi * d)
	if k == 0 {
		return (1 - c) / 2
	}
	pk := 0.5
	for range k {
		pk *= math.Pi
	}
	switch k % 4 {
	case 0:
		return -pk * c
	case 1:
		return pk * s
	case 2:
		return pk * c
	}
	return -pk * s
}
