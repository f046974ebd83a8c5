package xml

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// BundleFile is a data file a model refers to (an fe-body's matrices and
// nodes), to be packed beside the model: Name is its path relative to the
// packed model file, Path where it is read from.
type BundleFile struct {
	Name, Path string
	Data       []byte
}

// bundleAttrs are the attributes of <fe-body> that name files.
var bundleAttrs = []string{"mass", "stiffness", "nodes", "dof-map"}

// feFileAttrs returns the attributes of an <fe-body> node that name data
// files: its own and its <prestress> children's stiffness files.
func feFileAttrs(n *Node) []*Attr {
	var out []*Attr
	for i := range n.Attrs {
		if contains(bundleAttrs, n.Attrs[i].Name) {
			out = append(out, &n.Attrs[i])
		}
	}
	for _, c := range n.Children {
		if c.Name != "prestress" {
			continue
		}
		for i := range c.Attrs {
			if c.Attrs[i].Name == "stiffness" {
				out = append(out, &c.Attrs[i])
			}
		}
	}
	return out
}

// Bundle returns the model file data (named filename; subsystems already
// flattened) with the data files it refers to renamed to fe/BODY/FILE and
// those files read, so that the model can be packed with them (an FMU's
// resources). The files' SHA-256 digests are written into the model as a
// comment: a pack's model file (and its GUID) changes when they do. A
// model without such files is returned as it is.
func Bundle(data []byte, filename string) ([]byte, []BundleFile, error) {
	root, _, err := ReadTree(data, "model")
	if err != nil || root == nil {
		return data, nil, nil // Parse reports it
	}
	var files []BundleFile
	taken := map[string]bool{}
	for _, n := range root.Children {
		if n.Name != "fe-body" {
			continue
		}
		body, _ := n.Get("name")
		dir := filepath.Dir(filename)
		if n.File != "" {
			dir = filepath.Dir(n.File)
		}
		for _, a := range feFileAttrs(n) {
			p := a.Value
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %s: %v", filename, a.Line, a.Name, err)
			}
			name := "fe/" + body + "/" + filepath.Base(p)
			for k := 2; taken[name]; k++ {
				name = fmt.Sprintf("fe/%s/%d-%s", body, k, filepath.Base(p))
			}
			taken[name] = true
			a.Value = name
			files = append(files, BundleFile{Name: name, Path: p, Data: b})
		}
	}
	if len(files) == 0 {
		return data, nil, nil
	}
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- written by mbfmu from " + xmlEscape(filepath.Base(filename)) + " with its data files:\n")
	for _, f := range files {
		fmt.Fprintf(&b, "     %s sha256 %x\n", f.Name, sha256.Sum256(f.Data))
	}
	b.WriteString("-->\n")
	writeNode(&b, root, "")
	return []byte(b.String()), files, nil
}
