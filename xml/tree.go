package xml

import (
	"bytes"
	stdxml "encoding/xml"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// Node is an element of an XML file (a model, a study) with the lines it
// came from.
type Node struct {
	Name     string
	Line     int
	Attrs    []Attr
	Children []*Node
	Text     strings.Builder // character data directly inside the element
	TextLine int             // line of the first non-blank character data
	// File and Via say where an element of an included subsystem comes
	// from (spec.Pos); "" for the file being read.
	File, Via string
}

// Attr is an attribute with the line its name is on.
type Attr struct {
	Name, Value string
	Line        int
}

// Get returns the value of the attribute and whether it is present.
func (n *Node) Get(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// AttrLine returns the line of the attribute, or the element's line.
func (n *Node) AttrLine(name string) int {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a.Line
		}
	}
	return n.Line
}

// maxDepth bounds the nesting the reader accepts (the formats use 3 or 4).
const maxDepth = 64

// charsetReader reads the encodings other than UTF-8 that a model file may
// declare: ISO-8859-1 (Latin-1, each byte is the code point) and US-ASCII.
// Any other is refused with what to do instead of encoding/xml's
// "Decoder.CharsetReader is nil".
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(b)+len(b)/8)
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return bytes.NewReader(out), nil
	}
	return nil, errors.New("not supported: save the file as UTF-8 (and declare encoding=\"UTF-8\" or nothing); ISO-8859-1 and US-ASCII are read too")
}

// ReadTree reads an XML document into a tree of nodes, with the line of
// every element and attribute (encoding/xml gives none). It returns the
// root (nil if there is none) and the first syntax error with its line;
// rootName (model, study) names the element an empty file lacks.
// Everything read before a syntax error is kept. Character data inside an
// element is kept in its Text; outside the root it is an error.
func ReadTree(data []byte, rootName string) (root *Node, errLine int, err error) {
	d := stdxml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = charsetReader
	var stack []*Node
	for {
		line, _ := d.InputPos()
		start := d.InputOffset()
		tok, terr := d.Token()
		if terr == io.EOF {
			if len(stack) > 0 {
				l, _ := d.InputPos()
				return root, l, errors.New("unexpected end of file: <" + stack[len(stack)-1].Name + "> is not closed")
			}
			if root == nil {
				return nil, 1, errors.New("no <" + rootName + "> element: the file is empty")
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
			n := &Node{Name: t.Name.Local, Line: line}
			lines := attrLines(data, start, d.InputOffset(), line)
			for _, a := range t.Attr {
				if a.Name.Space != "" || a.Name.Local == "xmlns" {
					continue // namespace declarations, xsi:schemaLocation and the like
				}
				l := line
				if ls := lines[a.Name.Local]; len(ls) > 0 {
					l, lines[a.Name.Local] = ls[0], ls[1:]
				}
				n.Attrs = append(n.Attrs, Attr{Name: a.Name.Local, Value: a.Value, Line: l})
			}
			switch {
			case len(stack) > 0:
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			case root == nil:
				root = n
			default:
				return root, line, errors.New("more than one root element (<" + n.Name + "> after </" + root.Name + ">)")
			}
			stack = append(stack, n)
			if len(stack) > maxDepth {
				return root, line, errors.New("elements nested too deeply")
			}
		case stdxml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case stdxml.CharData:
			if len(stack) == 0 {
				if i := bytes.IndexFunc(t, func(r rune) bool { return !isSpace(r) }); i >= 0 {
					return root, line + bytes.Count(t[:i], []byte("\n")), errors.New("text outside the root element")
				}
				continue
			}
			n := stack[len(stack)-1]
			if n.TextLine == 0 {
				if i := bytes.IndexFunc(t, func(r rune) bool { return !isSpace(r) }); i >= 0 {
					n.TextLine = line + bytes.Count(t[:i], []byte("\n"))
				}
			}
			if n.Text.Len() < 1<<24 {
				n.Text.Write(t)
			}
		}
	}
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// attrLines finds the line of each attribute name in the raw start tag
// data[start:end] (which begins at line). encoding/xml gives no attribute
// positions, so the tag is scanned again; the decoder has already checked
// its syntax. Attribute names are returned without namespace prefix, each
// with the lines of its occurrences in order.
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
	// Skip the element name.
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
