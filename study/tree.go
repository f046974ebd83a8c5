package study

import (
	"errors"
	"strings"

	"mbfmu/xml"
)

// node is an element of a study file with the lines it came from (read by
// the model files' reader, xml.ReadTree).
type node = xml.Node

// readTree reads a study file into nodes. It returns the root and the
// first error with its line: a syntax error, or text inside an element
// (a study file has its values in attributes), whichever comes first.
func readTree(data []byte) (root *node, errLine int, err error) {
	root, errLine, err = xml.ReadTree(data, "study")
	if tl := firstText(root); tl > 0 && (err == nil || tl < errLine) {
		return root, tl, errors.New("unexpected text (values go in attributes)")
	}
	return root, errLine, err
}

// firstText returns the line of the first text inside an element of the
// tree under n, 0 if there is none.
func firstText(n *node) int {
	if n == nil {
		return 0
	}
	first := 0
	if n.TextLine > 0 {
		first = n.TextLine
	}
	for _, c := range n.Children {
		if l := firstText(c); l > 0 && (first == 0 || l < first) {
			first = l
		}
	}
	return first
}

// attr returns the value of an attribute, trimmed, and whether it is there.
func attr(n *node, name string) (string, bool) {
	s, ok := n.Get(name)
	return strings.TrimSpace(s), ok
}
