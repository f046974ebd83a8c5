package expr

import "math"

// differ builds the symbolic derivative of a tree with respect to one slot.
// Shared sub-trees are differentiated once.
type differ struct {
	slot int
	memo map[*node]*node
}

func (d *differ) d(n *node) *node {
	if r, ok := d.memo[n]; ok {
		return r
	}
	r := d.deriv(n)
	d.memo[n] = r
	return r
}

func (d *differ) deriv(n *node) *node {
	switch n.op {
	case opConst, opMeasure, opNot, opLt, opLe, opGt, opGe, opEq, opNe, opAnd, opOr:
		// Measures are constants; logical values are piecewise constant.
		return cst(0)
	case opVar:
		if n.slot == d.slot {
			return cst(1)
		}
		return cst(0)
	case opTable:
		u := n.args[0]
		du := d.d(u)
		if du.isVal(0) {
			return cst(0)
		}
		return mul(&node{op: opTable, tbl: n.tbl, name: n.name, order: n.order + 1, args: n.args}, du)
	case opNeg:
		return neg(d.d(n.args[0]))
	case opCall:
		return d.call(n)
	}
	a, b := n.args[0], n.args[1]
	da, db := d.d(a), d.d(b)
	switch n.op {
	case opAdd:
		return add(da, db)
	case opSub:
		return sub(da, db)
	case opMul:
		return add(mul(da, b), mul(a, db))
	case opDiv:
		// (a/b)' = a'/b - a b'/b^2
		return sub(div(da, b), div(mul(a, db), pow(b, cst(2))))
	case opPow:
		// (a^b)' = b a^(b-1) a' + a^b log(a) b'
		t1 := cst(0)
		if !da.isVal(0) {
			t1 = mul(mul(b, pow(a, sub(b, cst(1)))), da)
		}
		t2 := cst(0)
		if !db.isVal(0) {
			t2 = mul(mul(n, call(fnLog, a)), db)
		}
		return add(t1, t2)
	}
	return cst(math.NaN()) // unreachable: every opcode is handled above
}

func (d *differ) call(n *node) *node {
	args := n.args
	if n.fn == fnMin || n.fn == fnMax {
		return d.minMax(n.fn, args)
	}
	if n.fn == fnIf {
		return ifNode(args[0], d.d(args[1]), d.d(args[2]))
	}
	da := make([]*node, len(args))
	allZero := true
	for i, a := range args {
		da[i] = d.d(a)
		allZero = allZero && da[i].isVal(0)
	}
	if allZero {
		return cst(0)
	}
	a := args[0]
	switch n.fn {
	case fnSin:
		return mul(call(fnCos, a), da[0])
	case fnCos:
		return neg(mul(call(fnSin, a), da[0]))
	case fnTan:
		return div(da[0], pow(call(fnCos, a), cst(2)))
	case fnAsin:
		return div(da[0], call(fnSqrt, sub(cst(1), pow(a, cst(2)))))
	case fnAcos:
		return neg(div(da[0], call(fnSqrt, sub(cst(1), pow(a, cst(2))))))
	case fnAtan:
		return div(da[0], add(cst(1), pow(a, cst(2))))
	case fnAtan2:
		// atan2(y, x)' = (x y' - y x') / (x^2 + y^2)
		y, x := args[0], args[1]
		return div(sub(mul(x, da[0]), mul(y, da[1])), add(pow(x, cst(2)), pow(y, cst(2))))
	case fnSinh:
		return mul(call(fnCosh, a), da[0])
	case fnCosh:
		return mul(call(fnSinh, a), da[0])
	case fnTanh:
		return div(da[0], pow(call(fnCosh, a), cst(2)))
	case fnExp:
		return mul(n, da[0])
	case fnLog:
		return div(da[0], a)
	case fnLog10:
		return div(da[0], mul(cst(math.Ln10), a))
	case fnSqrt:
		return div(da[0], mul(cst(2), n))
	case fnAbs:
		return mul(call(fnSign, a), da[0])
	case fnSign:
		if len(args) == 1 {
			return cst(0)
		}
		// sign(a, b) = |a| sgn(b): derivative sign(1, b) sign(a) a'.
		return mul(mul(call(fnSign, cst(1), args[1]), call(fnSign, a)), da[0])
	case fnMod:
		// mod(a, b) = a - b trunc(a/b): derivative a' - b' (a - mod(a, b))/b.
		if da[1].isVal(0) {
			return da[0]
		}
		return sub(da[0], mul(da[1], div(sub(a, n), args[1])))
	case fnFloor, fnCeil:
		return cst(0)
	case fnHypot:
		return div(add(mul(a, da[0]), mul(args[1], da[1])), n)
	case fnStep, fnStep5, fnHavsin:
		return d.stepFamily(n, da)
	case fnShf:
		return d.shf(n, da)
	}
	return cst(math.NaN()) // unreachable: every built-in is handled above
}

// minMax differentiates max(a1, ..., an) as
// if(a1 >= max(a2..an), a1', max(a2..an)'), and min likewise with <=; the
// first of equal arguments is the one selected, as in evaluation.
func (d *differ) minMax(fn builtinID, args []*node) *node {
	a := args[0]
	rest := args[1]
	if len(args) > 2 {
		rest = call(fn, args[1:]...)
	}
	cmp := opGe
	if fn == fnMin {
		cmp = opLe
	}
	return ifNode(bin(cmp, a, rest), d.d(a), d.d(rest))
}

// stepFamily differentiates f = step^(k)(x, x0, h0, x1, h1) (and step5,
// havsin), where f^(k) = (h1-h0) S^(k)(d) / (x1-x0)^k for k >= 1, and
// d = (x-x0)/(x1-x0):
//
//	df/dx  = f^(k+1)
//	df/dh0 = f^(k)(x, x0, 1, x1, 0)
//	df/dh1 = f^(k)(x, x0, 0, x1, 1)
//	df/dx0 = f^(k+1) (d-1) + k f^(k)/(x1-x0)
//	df/dx1 = -f^(k+1) d - k f^(k)/(x1-x0)
func (d *differ) stepFamily(n *node, da []*node) *node {
	x, x0, x1 := n.args[0], n.args[1], n.args[3]
	k := n.order
	next := fold(&node{op: opCall, fn: n.fn, order: k + 1, args: n.args})
	r := mul(next, da[0])
	if !da[2].isVal(0) {
		g := fold(&node{op: opCall, fn: n.fn, order: k, args: []*node{x, x0, cst(1), x1, cst(0)}})
		r = add(r, mul(g, da[2]))
	}
	if !da[4].isVal(0) {
		g := fold(&node{op: opCall, fn: n.fn, order: k, args: []*node{x, x0, cst(0), x1, cst(1)}})
		r = add(r, mul(g, da[4]))
	}
	if da[1].isVal(0) && da[3].isVal(0) {
		return r
	}
	span := sub(x1, x0)
	dd := div(sub(x, x0), span)
	var kf *node = cst(0)
	if k > 0 {
		kf = div(mul(cst(float64(k)), n), span)
	}
	if !da[1].isVal(0) {
		r = add(r, mul(add(mul(next, sub(dd, cst(1))), kf), da[1]))
	}
	if !da[3].isVal(0) {
		r = sub(r, mul(add(mul(next, dd), kf), da[3]))
	}
	return r
}

// shf differentiates a*sin(w*(x-x0)-phi)+b with theta = w*(x-x0)-phi:
// a w cos(theta) (x'-x0') + sin(theta) a' + a cos(theta) ((x-x0) w' - phi') + b'.
func (d *differ) shf(n *node, da []*node) *node {
	x, x0, a, w, phi := n.args[0], n.args[1], n.args[2], n.args[3], n.args[4]
	rel := sub(x, x0)
	theta := sub(mul(w, rel), phi)
	c := call(fnCos, theta)
	r := mul(mul(mul(a, w), c), sub(da[0], da[1]))
	if !da[2].isVal(0) {
		r = add(r, mul(call(fnSin, theta), da[2]))
	}
	r = add(r, mul(mul(a, c), sub(mul(rel, da[3]), da[4])))
	return add(r, da[5])
}
