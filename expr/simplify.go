package expr

// fold replaces a node whose operands are all constants by its value, and
// if(c, a, b) with a constant condition by the chosen branch. It never
// changes the value of an expression (no algebraic rewriting), so it is
// applied to user source.
func fold(n *node) *node {
	switch n.op {
	case opConst, opVar, opMeasure:
		return n
	}
	if n.op == opCall && n.fn == fnIf && n.args[0].isConst() {
		if truth(n.args[0].val) {
			return n.args[1]
		}
		return n.args[2]
	}
	for _, a := range n.args {
		if !a.isConst() {
			return n
		}
	}
	return cst(n.eval(nil, nil))
}

// The constructors below build derivative trees. Besides folding they apply
// the usual symbolic simplifications of 0 and 1 terms (0*x = 0, 1*x = x,
// x+0 = x, x^1 = x, ...), which are exact for finite operands.

func bin(op opcode, a, b *node) *node { return fold(&node{op: op, args: []*node{a, b}}) }

func isNeg(n *node) bool { return n.op == opNeg }

func add(a, b *node) *node {
	switch {
	case a.isVal(0):
		return b
	case b.isVal(0):
		return a
	case isNeg(b):
		return sub(a, b.args[0])
	case isNeg(a):
		return sub(b, a.args[0])
	}
	return bin(opAdd, a, b)
}

func sub(a, b *node) *node {
	switch {
	case b.isVal(0):
		return a
	case a.isVal(0):
		return neg(b)
	case isNeg(b):
		return add(a, b.args[0])
	}
	return bin(opSub, a, b)
}

func neg(a *node) *node {
	switch {
	case a.isConst():
		return cst(-a.val)
	case isNeg(a):
		return a.args[0]
	}
	return &node{op: opNeg, args: []*node{a}}
}

func mul(a, b *node) *node {
	if b.isConst() && !a.isConst() {
		a, b = b, a // constants first: 2*x
	}
	switch {
	case a.isVal(0) || b.isVal(0):
		return cst(0)
	case a.isVal(1):
		return b
	case b.isVal(1):
		return a
	case a.isVal(-1):
		return neg(b)
	case isNeg(a) && isNeg(b):
		return mul(a.args[0], b.args[0])
	case isNeg(a):
		return neg(mul(a.args[0], b))
	case isNeg(b):
		return neg(mul(a, b.args[0]))
	case a.isConst() && b.op == opMul && b.args[0].isConst():
		return mul(cst(a.val*b.args[0].val), b.args[1])
	}
	return bin(opMul, a, b)
}

func div(a, b *node) *node {
	switch {
	case a.isVal(0):
		return cst(0)
	case b.isVal(1):
		return a
	case b.isVal(-1):
		return neg(a)
	case isNeg(a):
		return neg(div(a.args[0], b))
	}
	return bin(opDiv, a, b)
}

func pow(a, b *node) *node {
	switch {
	case b.isVal(1):
		return a
	case b.isVal(0):
		return cst(1)
	}
	return bin(opPow, a, b)
}

func call(fn builtinID, args ...*node) *node {
	return fold(&node{op: opCall, fn: fn, args: args})
}

func ifNode(c, a, b *node) *node {
	if a.isConst() && b.isConst() && a.val == b.val {
		return a
	}
	return call(fnIf, c, a, b)
}
