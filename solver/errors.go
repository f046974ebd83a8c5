package solver

import (
	"strconv"
	"strings"
)

// Error is a problem in a model, located at a file, line and field.
type Error struct {
	Pos   Pos
	Field string
	Msg   string
}

// Error formats the problem as "file:line: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList collects every problem found in a model.
type ErrorList []*Error

// Error joins the problems, one per line.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Add appends a problem.
func (l *ErrorList) Add(pos Pos, field, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Field: field, Msg: sprintf(format, args...)})
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func itoa(i int) string { return strconv.Itoa(i) }
