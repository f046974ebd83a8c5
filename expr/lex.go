package expr

import (
	"strconv"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tIdent
	tOp // operator; text holds it
	tLParen
	tRParen
	tComma
)

type token struct {
	kind   tokKind
	text   string
	col    int // 1-based rune column
	num    float64
	primes int // tIdent: number of trailing ' (derivative notation)
}

// describe names a token for error messages.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of expression"
	case tNum:
		return "number " + t.text
	case tIdent:
		return "name " + strconv.Quote(t.text)
	}
	return "'" + t.text + "'"
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// lex splits src into tokens; the last token is tEOF.
func lex(src string) ([]token, *Error) {
	var toks []token
	col := 1
	i := 0
	errAt := func(c int, msg string) *Error { return &Error{Col: c, Msg: msg, Src: src} }
	for i < len(src) {
		c := src[i]
		start, startCol := i, col
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			col++
			continue
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			if i < len(src) && src[i] == '.' {
				i++
				for i < len(src) && isDigit(src[i]) {
					i++
				}
			}
			if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
				j := i + 1
				if j < len(src) && (src[j] == '+' || src[j] == '-') {
					j++
				}
				if j >= len(src) || !isDigit(src[j]) {
					return nil, errAt(startCol, "malformed number "+strconv.Quote(src[start:j]))
				}
				for j < len(src) && isDigit(src[j]) {
					j++
				}
				i = j
			}
			if i < len(src) && (isLetter(src[i]) || src[i] == '.') {
				j := i
				for j < len(src) && (isLetter(src[j]) || isDigit(src[j]) || src[j] == '.') {
					j++
				}
				return nil, errAt(startCol, "malformed number "+strconv.Quote(src[start:j]))
			}
			v, err := strconv.ParseFloat(src[start:i], 64)
			if err != nil {
				// Only range errors are possible here; ParseFloat returns ±Inf.
				return nil, errAt(startCol, "number "+src[start:i]+" is out of range")
			}
			toks = append(toks, token{kind: tNum, text: src[start:i], col: startCol, num: v})
			col += i - start
			continue
		case isLetter(c):
			for i < len(src) {
				d := src[i]
				if isLetter(d) || isDigit(d) {
					i++
					continue
				}
				if d == '.' && i+1 < len(src) && (isLetter(src[i+1]) || isDigit(src[i+1])) {
					i++
					continue
				}
				break
			}
			if i < len(src) && src[i] == '.' {
				return nil, errAt(col+i-start, "malformed name "+strconv.Quote(src[start:i+1])+": '.' must be followed by a letter, digit or _")
			}
			t := token{kind: tIdent, text: src[start:i], col: startCol}
			for i < len(src) && src[i] == '\'' {
				t.primes++
				i++
			}
			toks = append(toks, t)
			col += i - start
			continue
		}
		// Punctuation and operators.
		two := ""
		if i+1 < len(src) {
			two = src[i : i+2]
		}
		switch two {
		case "<=", ">=", "==", "!=", "&&", "||", "**":
			toks = append(toks, token{kind: tOp, text: two, col: col})
			i += 2
			col += 2
			continue
		}
		kind := tOp
		switch c {
		case '(':
			kind = tLParen
		case ')':
			kind = tRParen
		case ',':
			kind = tComma
		case '+', '-', '*', '/', '^', '<', '>', '!':
		case '=':
			return nil, errAt(col, "unexpected '=' (use == to compare)")
		case '&':
			return nil, errAt(col, "unexpected '&' (use && for logical and)")
		case '|':
			return nil, errAt(col, "unexpected '|' (use || for logical or)")
		default:
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, errAt(col, "unexpected character "+strconv.QuoteRune(r))
		}
		toks = append(toks, token{kind: kind, text: src[i : i+1], col: col})
		i++
		col++
	}
	toks = append(toks, token{kind: tEOF, col: col})
	return toks, nil
}
