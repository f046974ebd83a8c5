package xml

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const docPath = "../docs/model-format.md"

// Every complete model in the format reference parses without a problem.
func TestDocExamplesParse(t *testing.T) {
	doc := readDoc(t)
	blocks := regexp.MustCompile("(?s)```xml\n(.*?)```").FindAllStringSubmatch(doc, -1)
	n := 0
	for _, b := range blocks {
		src := strings.TrimSpace(b[1])
		if !strings.HasPrefix(src, "<model") && !strings.HasPrefix(src, "<?xml") {
			continue // a fragment
		}
		n++
		if _, err := Parse([]byte(src), "doc"); err != nil {
			t.Errorf("example %d:\n%s\nerrors:\n%v", n, src, err)
		}
	}
	if n < 20 {
		t.Errorf("only %d complete examples in %s", n, docPath)
	}
}

// The attribute tables of the reference match the schema: the same
// attributes, value types, units and required flags. An element of the
// spatial schema is documented under "`<name>` (spatial)", or under the
// planar heading when both have the same attributes.
func TestDocTablesMatchSchema(t *testing.T) {
	doc := readDoc(t)
	type section struct {
		headings []string // the first found is checked
		attrs    []attrDef
	}
	var sections []section
	walkSchema := func(root *elemDef, suffix string) {
		seen := map[string]bool{}
		var walk func(d *elemDef, heading string)
		walk = func(d *elemDef, heading string) {
			if seen[heading] {
				return
			}
			seen[heading] = true
			headings := []string{heading}
			if suffix != "" {
				headings = []string{heading + suffix, heading}
			}
			if d.kinds == nil {
				sections = append(sections, section{headings, d.attrs})
			}
			for _, c := range d.children {
				walk(c, "`<"+c.name+">`")
			}
			for _, k := range d.kinds {
				h := "`<" + d.name + ` kind="` + k.name + `">` + "`"
				hs := []string{h}
				if suffix != "" {
					hs = []string{h + suffix, h}
				}
				sections = append(sections, section{hs, allAttrs(d, &k)})
				for _, c := range k.children {
					walk(c, "`<"+c.name+">` (in a "+d.name+")")
				}
			}
		}
		walk(root, "`<model>`")
	}
	walkSchema(schema(), "")
	walkSchema(schema3(), " (spatial)")

	for _, s := range sections {
		var rows map[string][3]string
		ok := false
		for _, h := range s.headings {
			if rows, ok = docTable(doc, h); ok {
				break
			}
		}
		if !ok {
			t.Errorf("no section %s in %s", s.headings[0], docPath)
			continue
		}
		if len(s.attrs) == 0 {
			continue
		}
		var want, got []string
		for _, a := range s.attrs {
			want = append(want, a.name)
			r, ok := rows[a.name]
			if !ok {
				continue
			}
			if r[0] != a.kind.String() {
				t.Errorf("%s %s: type %q in the doc, %q in the schema", s.headings[0], a.name, r[0], a.kind.String())
			}
			if u := unitCell(a); r[1] != u {
				t.Errorf("%s %s: unit %q in the doc, %q in the schema", s.headings[0], a.name, r[1], u)
			}
			if strings.HasPrefix(r[2], "yes") != a.req {
				t.Errorf("%s %s: required %q in the doc, %v in the schema", s.headings[0], a.name, r[2], a.req)
			}
		}
		for name := range rows {
			got = append(got, name)
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, " ") != strings.Join(got, " ") {
			t.Errorf("%s: attributes in the doc %v, in the schema %v", s.headings[0], got, want)
		}
	}
}

// Every unit name and every dimension is in the reference.
func TestDocUnits(t *testing.T) {
	doc := readDoc(t)
	for _, a := range unitAtoms() {
		if !strings.Contains(doc, "`"+a.name+"`") {
			t.Errorf("unit %q is not in %s", a.name, docPath)
		}
	}
	for d := Dimensionless; d < numDims; d++ {
		if !strings.Contains(doc, "| "+d.String()) && !strings.Contains(doc, "| 1 (dimensionless)") {
			t.Errorf("dimension %q is not in %s", d, docPath)
		}
	}
}

func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docTable finds the heading and returns the rows of the first attribute
// table under it (before the next heading): name -> type, unit, required.
func docTable(doc, heading string) (map[string][3]string, bool) {
	var start int
	for _, h := range []string{"### " + heading + "\n", "#### " + heading + "\n"} {
		if i := strings.Index(doc, h); i >= 0 {
			start = i + len(h)
			break
		}
	}
	if start == 0 {
		return nil, false
	}
	rows := map[string][3]string{}
	lines := strings.Split(doc[start:], "\n")
	inTable := false
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			break
		}
		if strings.HasPrefix(l, "| attribute |") {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := strings.Split(l, "|")
		if len(cells) < 6 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		rows[name] = [3]string{strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3]), strings.TrimSpace(cells[4])}
	}
	return rows, true
}

// unitCell is what the unit column of the reference says for an attribute.
func unitCell(a attrDef) string {
	switch a.kind {
	case vVec6:
		// Translations, then rotations.
		return a.dims[0].SI() + ", " + a.dims[3].SI()
	case vExpr, vVec, vNum, vInt, vManual, vPoints, vUnit, vQuat, vTensor:
		switch a.dim {
		case Any:
			return "any"
		case Dimensionless:
			return "1"
		}
		return a.dim.SI()
	}
	return "—"
}
