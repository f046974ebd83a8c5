package expr

import "math"

// evalFn evaluates a compiled (sub)expression. Closures capture only
// immutable values, so one evalFn may run on many goroutines at once.
type evalFn func(v []float64, m Measurer) float64

// codegen turns a tree into a tree of specialised closures: leaves (variables
// and constants) are read directly by their parent instead of through a call,
// constant step parameters are captured, small constant powers become
// multiplications.
type codegen struct {
	memo map[*node]evalFn
}

func (c *codegen) gen(n *node) evalFn {
	if f, ok := c.memo[n]; ok {
		return f
	}
	f := c.build(n)
	c.memo[n] = f
	return f
}

func (c *codegen) build(n *node) evalFn {
	switch n.op {
	case opConst:
		k := n.val
		return func([]float64, Measurer) float64 { return k }
	case opVar:
		i := n.slot
		return func(v []float64, _ Measurer) float64 { return v[i] }
	case opMeasure:
		id := n.slot
		return func(_ []float64, m Measurer) float64 { return m.Measure(id) }
	case opTable:
		return c.table(n)
	case opNeg:
		if a := n.args[0]; a.op == opVar {
			i := a.slot
			return func(v []float64, _ Measurer) float64 { return -v[i] }
		}
		a := c.gen(n.args[0])
		return func(v []float64, m Measurer) float64 { return -a(v, m) }
	case opNot:
		a := c.gen(n.args[0])
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) == 0) }
	case opAnd:
		a, b := c.gen(n.args[0]), c.gen(n.args[1])
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) != 0 && b(v, m) != 0) }
	case opOr:
		a, b := c.gen(n.args[0]), c.gen(n.args[1])
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) != 0 || b(v, m) != 0) }
	case opAdd, opSub, opMul, opDiv:
		return c.arith(n.op, n.args[0], n.args[1])
	case opLt, opLe, opGt, opGe, opEq, opNe:
		return c.compare(n.op, n.args[0], n.args[1])
	case opPow:
		return c.pow(n)
	case opCall:
		return c.call(n)
	}
	// Unreachable: every opcode is handled above. Fall back to the
	// interpreter rather than fail.
	return n.eval
}

func (c *codegen) table(n *node) evalFn {
	t, k := n.tbl, n.order
	if a := n.args[0]; a.op == opVar {
		i := a.slot
		if k == 0 {
			return func(v []float64, _ Measurer) float64 { return t.At(v[i]) }
		}
		return func(v []float64, _ Measurer) float64 { return t.derivN(v[i], k) }
	}
	a := c.gen(n.args[0])
	if k == 0 {
		return func(v []float64, m Measurer) float64 { return t.At(a(v, m)) }
	}
	return func(v []float64, m Measurer) float64 { return t.derivN(a(v, m), k) }
}

func (c *codegen) pow(n *node) evalFn {
	a := c.gen(n.args[0])
	if e := n.args[1]; e.isConst() {
		switch k := e.val; k {
		case 2:
			return func(v []float64, m Measurer) float64 { x := a(v, m); return x * x }
		case 3:
			return func(v []float64, m Measurer) float64 { x := a(v, m); return x * (x * x) }
		case -1:
			return func(v []float64, m Measurer) float64 { return 1 / a(v, m) }
		case 0.5:
			return func(v []float64, m Measurer) float64 { return math.Sqrt(a(v, m)) }
		default:
			return func(v []float64, m Measurer) float64 { return math.Pow(a(v, m), k) }
		}
	}
	b := c.gen(n.args[1])
	return func(v []float64, m Measurer) float64 { return math.Pow(a(v, m), b(v, m)) }
}

func (c *codegen) call(n *node) evalFn {
	args := n.args
	switch n.fn {
	case fnIf:
		cond, a, b := c.gen(args[0]), c.gen(args[1]), c.gen(args[2])
		return func(v []float64, m Measurer) float64 {
			if cond(v, m) != 0 {
				return a(v, m)
			}
			return b(v, m)
		}
	case fnMin, fnMax:
		isMax := n.fn == fnMax
		if len(args) == 2 {
			a, b := c.gen(args[0]), c.gen(args[1])
			return func(v []float64, m Measurer) float64 { return minMax(isMax, a(v, m), b(v, m)) }
		}
		fs := make([]evalFn, len(args))
		for i, a := range args {
			fs[i] = c.gen(a)
		}
		return func(v []float64, m Measurer) float64 {
			r := fs[0](v, m)
			for _, f := range fs[1:] {
				r = minMax(isMax, r, f(v, m))
			}
			return r
		}
	case fnStep, fnStep5, fnHavsin:
		return c.step(n)
	case fnShf:
		x, x0, a, w, phi, b := c.gen(args[0]), c.gen(args[1]), c.gen(args[2]), c.gen(args[3]), c.gen(args[4]), c.gen(args[5])
		return func(v []float64, m Measurer) float64 {
			return shf(x(v, m), x0(v, m), a(v, m), w(v, m), phi(v, m), b(v, m))
		}
	case fnSign:
		if len(args) == 2 {
			a, b := c.gen(args[0]), c.gen(args[1])
			return func(v []float64, m Measurer) float64 { return sign2(a(v, m), b(v, m)) }
		}
		a := c.gen(args[0])
		return func(v []float64, m Measurer) float64 { return Sign(a(v, m)) }
	}
	a := c.gen(args[0])
	switch n.fn {
	case fnSin:
		return func(v []float64, m Measurer) float64 { return math.Sin(a(v, m)) }
	case fnCos:
		return func(v []float64, m Measurer) float64 { return math.Cos(a(v, m)) }
	case fnTan:
		return func(v []float64, m Measurer) float64 { return math.Tan(a(v, m)) }
	case fnAsin:
		return func(v []float64, m Measurer) float64 { return math.Asin(a(v, m)) }
	case fnAcos:
		return func(v []float64, m Measurer) float64 { return math.Acos(a(v, m)) }
	case fnAtan:
		return func(v []float64, m Measurer) float64 { return math.Atan(a(v, m)) }
	case fnSinh:
		return func(v []float64, m Measurer) float64 { return math.Sinh(a(v, m)) }
	case fnCosh:
		return func(v []float64, m Measurer) float64 { return math.Cosh(a(v, m)) }
	case fnTanh:
		return func(v []float64, m Measurer) float64 { return math.Tanh(a(v, m)) }
	case fnExp:
		return func(v []float64, m Measurer) float64 { return math.Exp(a(v, m)) }
	case fnLog:
		return func(v []float64, m Measurer) float64 { return math.Log(a(v, m)) }
	case fnLog10:
		return func(v []float64, m Measurer) float64 { return math.Log10(a(v, m)) }
	case fnSqrt:
		return func(v []float64, m Measurer) float64 { return math.Sqrt(a(v, m)) }
	case fnAbs:
		return func(v []float64, m Measurer) float64 { return math.Abs(a(v, m)) }
	case fnFloor:
		return func(v []float64, m Measurer) float64 { return math.Floor(a(v, m)) }
	case fnCeil:
		return func(v []float64, m Measurer) float64 { return math.Ceil(a(v, m)) }
	}
	b := c.gen(args[1])
	switch n.fn {
	case fnAtan2:
		return func(v []float64, m Measurer) float64 { return math.Atan2(a(v, m), b(v, m)) }
	case fnMod:
		return func(v []float64, m Measurer) float64 { return math.Mod(a(v, m), b(v, m)) }
	case fnHypot:
		return func(v []float64, m Measurer) float64 { return math.Hypot(a(v, m), b(v, m)) }
	}
	return n.eval // unreachable: every built-in is handled above
}

// step compiles step, step5 and havsin (and their derivatives). With constant
// x0, h0, x1, h1 (the usual case) only x is evaluated at run time.
func (c *codegen) step(n *node) evalFn {
	fn, k, args := n.fn, n.order, n.args
	if !(args[1].isConst() && args[2].isConst() && args[3].isConst() && args[4].isConst()) {
		x, x0, h0, x1, h1 := c.gen(args[0]), c.gen(args[1]), c.gen(args[2]), c.gen(args[3]), c.gen(args[4])
		return func(v []float64, m Measurer) float64 {
			return stepFamily(fn, k, x(v, m), x0(v, m), h0(v, m), x1(v, m), h1(v, m))
		}
	}
	x0, h0, x1, h1 := args[1].val, args[2].val, args[3].val, args[4].val
	if fn == fnStep && k == 0 {
		dx, dh := x1-x0, h1-h0
		if a := args[0]; a.op == opVar {
			i := a.slot
			return func(v []float64, _ Measurer) float64 {
				x := v[i]
				if x <= x0 {
					return h0
				}
				if x >= x1 {
					return h1
				}
				d := (x - x0) / dx
				return h0 + dh*(d*d*(3-2*d))
			}
		}
		a := c.gen(args[0])
		return func(v []float64, m Measurer) float64 {
			x := a(v, m)
			if x <= x0 {
				return h0
			}
			if x >= x1 {
				return h1
			}
			d := (x - x0) / dx
			return h0 + dh*(d*d*(3-2*d))
		}
	}
	a := c.gen(args[0])
	return func(v []float64, m Measurer) float64 {
		return stepFamily(fn, k, a(v, m), x0, h0, x1, h1)
	}
}

// compare compiles the comparison operators.
func (c *codegen) compare(op opcode, an, bn *node) evalFn {
	a := c.gen(an)
	if bn.isConst() {
		k := bn.val
		switch op {
		case opLt:
			return func(v []float64, m Measurer) float64 { return b2f(a(v, m) < k) }
		case opLe:
			return func(v []float64, m Measurer) float64 { return b2f(a(v, m) <= k) }
		case opGt:
			return func(v []float64, m Measurer) float64 { return b2f(a(v, m) > k) }
		case opGe:
			return func(v []float64, m Measurer) float64 { return b2f(a(v, m) >= k) }
		case opEq:
			return func(v []float64, m Measurer) float64 { return b2f(a(v, m) == k) }
		default:
			return func(v []float64, m Measurer) float64 { return b2f(a(v, m) != k) }
		}
	}
	b := c.gen(bn)
	switch op {
	case opLt:
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) < b(v, m)) }
	case opLe:
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) <= b(v, m)) }
	case opGt:
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) > b(v, m)) }
	case opGe:
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) >= b(v, m)) }
	case opEq:
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) == b(v, m)) }
	default:
		return func(v []float64, m Measurer) float64 { return b2f(a(v, m) != b(v, m)) }
	}
}

// arith compiles + - * /, specialised on whether each operand is a variable
// (read inline), a constant (captured) or a general sub-expression, plus the
// damper/spring patterns -v*(...) and (...) ± v*w, (...) ± k*v.
func (c *codegen) arith(op opcode, an, bn *node) evalFn {
	aVar, bVar := an.op == opVar, bn.op == opVar
	aC, bC := an.isConst(), bn.isConst()
	i, j := an.slot, bn.slot
	ka, kb := an.val, bn.val
	switch {
	case aVar && bC:
		switch op {
		case opAdd:
			return func(v []float64, _ Measurer) float64 { return v[i] + kb }
		case opSub:
			return func(v []float64, _ Measurer) float64 { return v[i] - kb }
		case opMul:
			return func(v []float64, _ Measurer) float64 { return v[i] * kb }
		default:
			return func(v []float64, _ Measurer) float64 { return v[i] / kb }
		}
	case aC && bVar:
		switch op {
		case opAdd:
			return func(v []float64, _ Measurer) float64 { return ka + v[j] }
		case opSub:
			return func(v []float64, _ Measurer) float64 { return ka - v[j] }
		case opMul:
			return func(v []float64, _ Measurer) float64 { return ka * v[j] }
		default:
			return func(v []float64, _ Measurer) float64 { return ka / v[j] }
		}
	case aVar && bVar:
		switch op {
		case opAdd:
			return func(v []float64, _ Measurer) float64 { return v[i] + v[j] }
		case opSub:
			return func(v []float64, _ Measurer) float64 { return v[i] - v[j] }
		case opMul:
			return func(v []float64, _ Measurer) float64 { return v[i] * v[j] }
		default:
			return func(v []float64, _ Measurer) float64 { return v[i] / v[j] }
		}
	case isNegVar(an) && !bC && !bVar:
		// -v[i] op b: common as -k*(...)
		i := an.args[0].slot
		b := c.gen(bn)
		switch op {
		case opAdd:
			return func(v []float64, m Measurer) float64 { return -v[i] + b(v, m) }
		case opSub:
			return func(v []float64, m Measurer) float64 { return -v[i] - b(v, m) }
		case opMul:
			return func(v []float64, m Measurer) float64 { return -v[i] * b(v, m) }
		default:
			return func(v []float64, m Measurer) float64 { return -v[i] / b(v, m) }
		}
	case (op == opAdd || op == opSub) && !aC && !aVar && isVarProduct(bn):
		// a ± v[p]*v[q], a ± k*v[q]: common as ... - c*v
		a := c.gen(an)
		pa, pb := bn.args[0], bn.args[1]
		q := pb.slot
		if pa.op == opVar {
			p := pa.slot
			if op == opAdd {
				return func(v []float64, m Measurer) float64 { return a(v, m) + v[p]*v[q] }
			}
			return func(v []float64, m Measurer) float64 { return a(v, m) - v[p]*v[q] }
		}
		k := pa.val
		if op == opAdd {
			return func(v []float64, m Measurer) float64 { return a(v, m) + k*v[q] }
		}
		return func(v []float64, m Measurer) float64 { return a(v, m) - k*v[q] }
	case bC:
		a := c.gen(an)
		switch op {
		case opAdd:
			return func(v []float64, m Measurer) float64 { return a(v, m) + kb }
		case opSub:
			return func(v []float64, m Measurer) float64 { return a(v, m) - kb }
		case opMul:
			return func(v []float64, m Measurer) float64 { return a(v, m) * kb }
		default:
			return func(v []float64, m Measurer) float64 { return a(v, m) / kb }
		}
	case aC:
		b := c.gen(bn)
		switch op {
		case opAdd:
			return func(v []float64, m Measurer) float64 { return ka + b(v, m) }
		case opSub:
			return func(v []float64, m Measurer) float64 { return ka - b(v, m) }
		case opMul:
			return func(v []float64, m Measurer) float64 { return ka * b(v, m) }
		default:
			return func(v []float64, m Measurer) float64 { return ka / b(v, m) }
		}
	case bVar:
		a := c.gen(an)
		switch op {
		case opAdd:
			return func(v []float64, m Measurer) float64 { return a(v, m) + v[j] }
		case opSub:
			return func(v []float64, m Measurer) float64 { return a(v, m) - v[j] }
		case opMul:
			return func(v []float64, m Measurer) float64 { return a(v, m) * v[j] }
		default:
			return func(v []float64, m Measurer) float64 { return a(v, m) / v[j] }
		}
	case aVar:
		b := c.gen(bn)
		switch op {
		case opAdd:
			return func(v []float64, m Measurer) float64 { return v[i] + b(v, m) }
		case opSub:
			return func(v []float64, m Measurer) float64 { return v[i] - b(v, m) }
		case opMul:
			return func(v []float64, m Measurer) float64 { return v[i] * b(v, m) }
		default:
			return func(v []float64, m Measurer) float64 { return v[i] / b(v, m) }
		}
	}
	a, b := c.gen(an), c.gen(bn)
	switch op {
	case opAdd:
		return func(v []float64, m Measurer) float64 { return a(v, m) + b(v, m) }
	case opSub:
		return func(v []float64, m Measurer) float64 { return a(v, m) - b(v, m) }
	case opMul:
		return func(v []float64, m Measurer) float64 { return a(v, m) * b(v, m) }
	default:
		return func(v []float64, m Measurer) float64 { return a(v, m) / b(v, m) }
	}
}

func isNegVar(n *node) bool { return n.op == opNeg && n.args[0].op == opVar }

// isVarProduct reports whether n is v*w or k*v (k constant, v, w variables).
func isVarProduct(n *node) bool {
	return n.op == opMul && n.args[1].op == opVar && (n.args[0].op == opVar || n.args[0].op == opConst)
}
