package study

import (
	"bytes"
	stdxml "encoding/xml"
	"errors"
	"io"
	"strings"
)

// node is an element of a study file with the lines it came from.
type node struct {
	name     string
	line     int
	attrs    []nodeAttr
	children []*node
}

// nodeAttr is an attribute with the line its name is on.
type nodeAttr struct {
	name, value string
	line        int
}

// get returns the value of an attribute (trimmed) and whether it is there.
func (n *node) get(name string) (string, bool) {
	for _, a := range n.attrs {
		if a.name == name {
			return strings.TrimSpace(a.value), true
		}
	}
	return "", false
}

// attrLine returns the line of an attribute, or the element's line.
func (n *node) attrLine(name string) int {
	for _, a := range n.attrs {
		if a.name == name {
			return a.line
		}
	}
	return n.line
}

// readTree reads an XML document into nodes. It returns the root and the
// first syntax error with its line.
func readTree(data []byte) (root *node, errLine int, err error) {
	d := stdxml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var stack []*node
	for {
		line, _ := d.InputPos()
		start := d.InputOffset()
		tok, terr := d.Token()
		if terr == io.EOF {
			if len(stack) > 0 {
				l, _ := d.InputPos()
				return root, l, errors.New("unexpected end of file: <" + stack[len(stack)-1].name + "> is not closed")
			}
			if root == nil {
				return nil, 1, errors.New("no <study> element: the file is empty")
			}
			return root, 0, nil
		}
		if terr != nil {
			var se *stdxml.SyntaxError
			if errors.As(terr, &se) {
				return root, se.Line, errors.New(se.Msg)
			}
			l, _ := d.InputPos()
			return root, l, terr
		}
		switch t := tok.(type) {
		case stdxml.StartElement:
			n := &node{name: t.Name.Local, line: line}
			lines := attrLines(data, start, d.InputOffset(), line)
			for _, a := range t.Attr {
				if a.Name.Space != "" || a.Name.Local == "xmlns" {
					continue
				}
				l := line
				if ls := lines[a.Name.Local]; len(ls) > 0 {
					l, lines[a.Name.Local] = ls[0], ls[1:]
				}
				n.attrs = append(n.attrs, nodeAttr{name: a.Name.Local, value: a.Value, line: l})
			}
			switch {
			case len(stack) > 0:
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			case root == nil:
				root = n
			default:
				return root, line, errors.New("more than one root element")
			}
			stack = append(stack, n)
			if len(stack) > 16 {
				return root, line, errors.New("elements nested too deeply")
			}
		case stdxml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case stdxml.CharData:
			if i := bytes.IndexFunc(t, func(r rune) bool { return !isSpace(r) }); i >= 0 {
				return root, line + bytes.Count(t[:i], []byte("\n")), errors.New("unexpected text (values go in attributes)")
			}
		}
	}
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// attrLines finds the line of each attribute name in the raw start tag
// data[start:end], which begins at line (encoding/xml gives no attribute
// positions).
func attrLines(data []byte, start, end int64, line int) map[string][]int {
	if start < 0 || end > int64(len(data)) || start >= end {
		return nil
	}
	raw := data[start:end]
	i := bytes.IndexByte(raw, '<')
	if i < 0 {
		return nil
	}
	line += bytes.Count(raw[:i], []byte("\n"))
	i++
	for i < len(raw) && !isSpace(rune(raw[i])) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	lines := make(map[string][]int)
	for i < len(raw) {
		for i < len(raw) && isSpace(rune(raw[i])) {
			if raw[i] == '\n' {
				line++
			}
			i++
		}
		if i >= len(raw) || raw[i] == '/' || raw[i] == '>' {
			break
		}
		s := i
		for i < len(raw) && raw[i] != '=' && !isSpace(rune(raw[i])) {
			i++
		}
		name := string(raw[s:i])
		if k := strings.IndexByte(name, ':'); k >= 0 {
			name = name[k+1:]
		}
		lines[name] = append(lines[name], line)
		for i < len(raw) && raw[i] != '"' && raw[i] != '\'' {
			if raw[i] == '\n' {
				line++
			}
			i++
		}
		if i >= len(raw) {
			break
		}
		q := raw[i]
		i++
		for i < len(raw) && raw[i] != q {
			if raw[i] == '\n' {
				line++
			}
			i++
		}
		i++
	}
	return lines
}
