package expr

import (
	"math"
	"strconv"
	"strings"
)

// Printing precedences; higher binds tighter.
const (
	precOr = 1 + iota
	precAnd
	precEq
	precRel
	precAdd
	precMul
	precUnary
	precPow
	precPrimary
)

var opText = map[opcode]string{
	opOr: " || ", opAnd: " && ", opEq: " == ", opNe: " != ", opLt: " < ", opLe: " <= ",
	opGt: " > ", opGe: " >= ", opAdd: " + ", opSub: " - ", opMul: "*", opDiv: "/",
}

var opPrec = map[opcode]int{
	opOr: precOr, opAnd: precAnd, opEq: precEq, opNe: precEq, opLt: precRel, opLe: precRel,
	opGt: precRel, opGe: precRel, opAdd: precAdd, opSub: precAdd, opMul: precMul, opDiv: precMul,
}

func prec(n *node) int {
	switch n.op {
	case opConst:
		if n.val < 0 || n.val == 0 && math.Signbit(n.val) {
			return precUnary
		}
		return precPrimary
	case opNeg, opNot:
		return precUnary
	case opPow:
		return precPow
	case opVar, opMeasure, opTable, opCall:
		return precPrimary
	}
	return opPrec[n.op]
}

func formatNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "(0/0)"
	case math.IsInf(v, 1):
		return "(1/0)"
	case math.IsInf(v, -1):
		return "(-1/0)"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// writeNode writes n, parenthesised if it binds less tightly than minPrec.
func writeNode(b *strings.Builder, n *node, minPrec int) {
	if prec(n) < minPrec {
		b.WriteByte('(')
		writeNode(b, n, 0)
		b.WriteByte(')')
		return
	}
	switch n.op {
	case opConst:
		b.WriteString(formatNumber(n.val))
	case opVar:
		b.WriteString(n.name)
	case opMeasure:
		b.WriteString(n.name)
		if n.bare {
			break
		}
		b.WriteByte('(')
		b.WriteString(strings.Join(n.margs, ", "))
		b.WriteByte(')')
	case opTable:
		b.WriteString(n.name)
		b.WriteString(strings.Repeat("'", n.order))
		printArgs(b, n.args)
	case opCall:
		b.WriteString(builtins[n.fn].name)
		b.WriteString(strings.Repeat("'", n.order))
		printArgs(b, n.args)
	case opNeg, opNot:
		if n.op == opNeg {
			b.WriteByte('-')
		} else {
			b.WriteByte('!')
		}
		writeNode(b, n.args[0], precUnary)
	case opPow:
		writeNode(b, n.args[0], precPrimary)
		b.WriteByte('^')
		writeNode(b, n.args[1], precUnary)
	default:
		p := opPrec[n.op]
		writeNode(b, n.args[0], p)
		b.WriteString(opText[n.op])
		writeNode(b, n.args[1], p+1)
	}
}

func printArgs(b *strings.Builder, args []*node) {
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeNode(b, a, 0)
	}
	b.WriteByte(')')
}
