package flex

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"mbfmu/solver/mech"
)

// Reading finite-element models exported by FE programs: the mass and
// stiffness matrices and the node positions, in these forms
//
//   - Abaqus: *MATRIX GENERATE, STIFFNESS, MASS with *MATRIX OUTPUT in its
//     default (matrix input) format, files JOB_MASS1.mtx and JOB_STIF1.mtx
//     of lines "node, dof, node, dof, value" (one triangle of the symmetric
//     matrix), the nodes from the *NODE block of the job's .inp file;
//   - Matrix Market (coordinate real symmetric or general), as ANSYS
//     writes them (HBMAT/SMAT, EXPORT,MMF) with the DOF mapping file
//     ("equation node label", labels UX UY UZ ROTX ROTY ROTZ), or plain
//     with a node list and a fixed number of dofs per node (3: the
//     translations, 6: translations and rotations, in node order).
//
// Dof kinds: 0, 1, 2 translations along x, y, z; 3, 4, 5 rotations about
// them. Entries are kept as triplets; memory is linear in the entries.

// feEntry is one entry of a sparse matrix.
type feEntry struct {
	i, j int
	v    float64
}

// feData is an FE model as read: nodes, dofs and the two matrices over the
// dofs (both triangles stored).
type feData struct {
	labels []int       // node labels, in order of first appearance
	pos    []mech.Vec3 // node positions (file units until scaled)
	index  map[int]int // label → node index
	dofs   [][2]int    // per dof: node index, kind
	dofOf  map[[2]int]int
	M, K   []feEntry
	edges  [][2]int      // element edges (node indices) for drawing
	pre    []fePrestress // <prestress> stiffness matrices (feprestress.go)
}

// feUnits is a unit system of an FE model: the SI values of its length,
// mass and time units.
type feUnits struct{ L, M, T float64 }

// feUnitSystems are the unit systems an FE model may declare.
var feUnitSystems = map[string]feUnits{
	"m-kg-s":   {1, 1, 1},
	"mm-t-s":   {1e-3, 1e3, 1},
	"mm-kg-s":  {1e-3, 1, 1},
	"mm-kg-ms": {1e-3, 1, 1e-3},
	"mm-g-ms":  {1e-3, 1e-3, 1e-3},
	"in-lbf-s": {0.0254, 4.4482216152605 / 0.0254, 1},
}

// feUnitNames lists the unit systems (for messages).
func feUnitNames() []string {
	var out []string
	for k := range feUnitSystems {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// dofKinds are the labels of dof kinds (ANSYS mapping files).
var dofKinds = map[string]int{"UX": 0, "UY": 1, "UZ": 2, "ROTX": 3, "ROTY": 4, "ROTZ": 5}

// fileErr is an error at a line of a file.
type fileErr struct {
	file string
	line int
	msg  string
}

func (e *fileErr) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
	}
	return e.file + ": " + e.msg
}

// lines calls f for each line of a file with its number; f's error stops
// the scan (with the file and line added when it is a plain error).
func lines(path string, f func(n int, s string) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	n := 0
	for sc.Scan() {
		n++
		if err := f(n, sc.Text()); err != nil {
			if _, ok := err.(*fileErr); ok {
				return err
			}
			return &fileErr{path, n, err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		return &fileErr{path, n, err.Error()}
	}
	return nil
}

// fields splits a line at commas and blanks.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == ';' })
}

// dofLabel names dof i as "node N ux".
func (d *feData) dofLabel(i int) string {
	dk := d.dofs[i]
	return fmt.Sprintf("node %d %s", d.labels[dk[0]], dofName(dk[1]))
}

func (d *feData) node(label int) (int, bool) {
	i, ok := d.index[label]
	return i, ok
}

// dof returns the index of a node's dof, adding it.
func (d *feData) dof(node, kind int) int {
	key := [2]int{node, kind}
	if i, ok := d.dofOf[key]; ok {
		return i
	}
	d.dofs = append(d.dofs, key)
	d.dofOf[key] = len(d.dofs) - 1
	return len(d.dofs) - 1
}

// readInpNodes reads the *NODE blocks of an Abaqus input file.
func (d *feData) readInpNodes(path string) error {
	in, elem := false, false
	etype := ""
	pending := ""    // an element line continued on the next
	var conn [][]int // element node labels (for drawing), the type first as 0 line, 1 shell, 2 solid
	err := lines(path, func(n int, s string) error {
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "**") || t == "" {
			return nil
		}
		if strings.HasPrefix(t, "*") {
			kw := strings.ToUpper(strings.TrimSpace(strings.SplitN(t[1:], ",", 2)[0]))
			in, elem = kw == "NODE", kw == "ELEMENT"
			if elem {
				etype = ""
				for _, f := range strings.Split(t, ",") {
					if k, v, ok := strings.Cut(f, "="); ok && strings.EqualFold(strings.TrimSpace(k), "type") {
						etype = strings.ToUpper(strings.TrimSpace(v))
					}
				}
			}
			if in && strings.Contains(strings.ToUpper(t), "SYSTEM=") && !strings.Contains(strings.ToUpper(t), "SYSTEM=R") {
				return fmt.Errorf("*NODE with a SYSTEM other than rectangular is not supported")
			}
			return nil
		}
		if elem {
			// "id, n1, n2, ..." (a line ending in a comma continues)
			if strings.HasSuffix(t, ",") {
				pending += t
				return nil
			}
			t, pending = pending+t, ""
			kind := -1
			switch {
			case strings.HasPrefix(etype, "B") || strings.HasPrefix(etype, "T") || strings.HasPrefix(etype, "PIPE"):
				kind = 0
			case strings.HasPrefix(etype, "S") || strings.HasPrefix(etype, "M3D") || strings.HasPrefix(etype, "R3D"):
				kind = 1
			case strings.HasPrefix(etype, "C3D"):
				kind = 2
			}
			if kind < 0 {
				return nil
			}
			ls := []int{kind}
			for _, f := range fields(t)[1:] {
				if v, err := strconv.Atoi(f); err == nil {
					ls = append(ls, v)
				}
			}
			conn = append(conn, ls)
			return nil
		}
		if !in {
			return nil
		}
		return d.nodeLine(fields(t), 4)
	})
	if err != nil {
		return err
	}
	d.setEdges(conn)
	if len(d.labels) == 0 {
		return &fileErr{path, 0, "no *NODE block"}
	}
	return nil
}

// nodeLine reads "label, x, y[, z]".
func (d *feData) nodeLine(f []string, max int) error {
	if len(f) < 3 || len(f) > max {
		return fmt.Errorf("want a node line \"label, x, y, z\", got %d fields", len(f))
	}
	label, err := strconv.Atoi(f[0])
	if err != nil {
		return fmt.Errorf("node label %q is not an integer", f[0])
	}
	var p mech.Vec3
	for k := 1; k < len(f); k++ {
		v, err := strconv.ParseFloat(f[k], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("node %d: coordinate %q is not a number", label, f[k])
		}
		p[k-1] = v
	}
	if _, dup := d.index[label]; dup {
		return fmt.Errorf("node %d is defined twice", label)
	}
	d.index[label] = len(d.labels)
	d.labels = append(d.labels, label)
	d.pos = append(d.pos, p)
	return nil
}

// readNodeList reads a plain node list: "label x y z" per line ('#', '%'
// and '!' start comments; a header line of words is skipped).
func (d *feData) readNodeList(path string) error {
	err := lines(path, func(n int, s string) error {
		t := strings.TrimSpace(s)
		if t == "" || t[0] == '#' || t[0] == '%' || t[0] == '!' {
			return nil
		}
		f := fields(t)
		if len(f) == 0 {
			return nil
		}
		if _, err := strconv.Atoi(f[0]); err != nil && n == 1 {
			return nil // header
		}
		return d.nodeLine(f, 4)
	})
	if err != nil {
		return err
	}
	if len(d.labels) == 0 {
		return &fileErr{path, 0, "no nodes"}
	}
	return nil
}

// readAbaqusMatrix reads an Abaqus matrix in the matrix input format.
func (d *feData) readAbaqusMatrix(path string, out *[]feEntry) error {
	return lines(path, func(n int, s string) error {
		t := strings.TrimSpace(s)
		if t == "" || strings.HasPrefix(t, "*") {
			return nil
		}
		f := fields(t)
		if len(f) == 3 {
			return fmt.Errorf("a line of three values (row, column, value) is the COORDINATE format, whose dof numbering the file does not state; write the matrices with *MATRIX OUTPUT in its default format (node, dof, node, dof, value)")
		}
		if len(f) != 5 {
			return fmt.Errorf("want \"node, dof, node, dof, value\", got %d fields", len(f))
		}
		var ix [4]int
		for k := 0; k < 4; k++ {
			v, err := strconv.Atoi(f[k])
			if err != nil {
				return fmt.Errorf("field %d %q is not an integer", k+1, f[k])
			}
			ix[k] = v
		}
		v, err := strconv.ParseFloat(f[4], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value %q is not a finite number", f[4])
		}
		var dd [2]int
		for s := 0; s < 2; s++ {
			label, kind := ix[2*s], ix[2*s+1]
			node, ok := d.node(label)
			if !ok {
				return fmt.Errorf("node %d is not among the model's nodes", label)
			}
			if kind < 1 || kind > 6 {
				return fmt.Errorf("dof %d of node %d: Abaqus dofs are 1–6 (translations, rotations)", kind, label)
			}
			dd[s] = d.dof(node, kind-1)
		}
		*out = append(*out, feEntry{dd[0], dd[1], v})
		return nil
	})
}

// readDofMap reads an ANSYS DOF mapping file: "equation node label".
func (d *feData) readDofMap(path string) (map[int]int, error) {
	eq := map[int]int{}
	err := lines(path, func(n int, s string) error {
		f := fields(strings.TrimSpace(s))
		if len(f) == 0 {
			return nil
		}
		e, err := strconv.Atoi(f[0])
		if err != nil {
			return nil // header
		}
		if len(f) != 3 {
			return fmt.Errorf("want \"equation node dof\", got %d fields", len(f))
		}
		label, err := strconv.Atoi(f[1])
		if err != nil {
			return fmt.Errorf("node %q is not an integer", f[1])
		}
		node, ok := d.node(label)
		if !ok {
			return fmt.Errorf("node %d is not among the model's nodes", label)
		}
		kind, ok := dofKinds[strings.ToUpper(f[2])]
		if !ok {
			return fmt.Errorf("dof %q: want UX, UY, UZ, ROTX, ROTY or ROTZ", f[2])
		}
		if _, dup := eq[e]; dup {
			return fmt.Errorf("equation %d is mapped twice", e)
		}
		if _, dup := d.dofOf[[2]int{node, kind}]; dup {
			return fmt.Errorf("node %d's %s is mapped twice", label, f[2])
		}
		eq[e] = d.dof(node, kind)
		return nil
	})
	return eq, err
}

// readMatrixMarket reads a Matrix Market coordinate matrix; dofOf maps its
// 1-based row numbers to the model's dofs.
func (d *feData) readMatrixMarket(path string, dofOf func(row int) (int, error), out *[]feEntry) (int, error) {
	symmetric := false
	header := false
	size := false
	var rows, entries, seen int
	err := lines(path, func(n int, s string) error {
		t := strings.TrimSpace(s)
		if n == 1 {
			h := strings.Fields(strings.ToLower(t))
			if len(h) < 5 || h[0] != "%%matrixmarket" || h[1] != "matrix" {
				return fmt.Errorf("not a Matrix Market file (want the header \"%%%%MatrixMarket matrix coordinate real symmetric\")")
			}
			if h[2] != "coordinate" {
				return fmt.Errorf("a Matrix Market %s matrix; want the coordinate format", h[2])
			}
			if h[3] != "real" && h[3] != "integer" {
				return fmt.Errorf("a Matrix Market matrix of %s entries; want real", h[3])
			}
			switch h[4] {
			case "symmetric":
				symmetric = true
			case "general":
			default:
				return fmt.Errorf("a Matrix Market %s matrix; want symmetric or general", h[4])
			}
			header = true
			return nil
		}
		if t == "" || t[0] == '%' {
			return nil
		}
		f := strings.Fields(t)
		if !size {
			if len(f) != 3 {
				return fmt.Errorf("want the size line \"rows columns entries\"")
			}
			r, e1 := strconv.Atoi(f[0])
			c, e2 := strconv.Atoi(f[1])
			nz, e3 := strconv.Atoi(f[2])
			if e1 != nil || e2 != nil || e3 != nil || r != c || r < 1 || nz < 0 {
				return fmt.Errorf("size line %q: want a square matrix \"n n entries\"", t)
			}
			rows, entries, size = r, nz, true
			*out = make([]feEntry, 0, nz)
			return nil
		}
		if len(f) != 3 {
			return fmt.Errorf("want an entry \"row column value\", got %d fields", len(f))
		}
		i, e1 := strconv.Atoi(f[0])
		j, e2 := strconv.Atoi(f[1])
		v, e3 := strconv.ParseFloat(f[2], 64)
		if e1 != nil || e2 != nil || e3 != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("entry %q: want two integers and a finite number", t)
		}
		if i < 1 || j < 1 || i > rows || j > rows {
			return fmt.Errorf("entry (%d, %d) outside the %d×%d matrix", i, j, rows, rows)
		}
		if symmetric && j > i {
			return fmt.Errorf("entry (%d, %d) above the diagonal of a symmetric Matrix Market file (it stores the lower triangle)", i, j)
		}
		di, err := dofOf(i)
		if err != nil {
			return err
		}
		dj, err := dofOf(j)
		if err != nil {
			return err
		}
		seen++
		*out = append(*out, feEntry{di, dj, v})
		return nil
	})
	if err != nil {
		return 0, err
	}
	if !header {
		return 0, &fileErr{path, 0, "empty file"}
	}
	if seen != entries {
		return 0, &fileErr{path, 0, fmt.Sprintf("the size line announces %d entries, the file has %d", entries, seen)}
	}
	// a general matrix stores both triangles: symmetrize checks that they
	// agree and keeps one
	return rows, nil
}

// symmetrize turns one triangle (as the formats store it) into both
// (duplicates summed); a file that stores both triangles must store the
// same value in each. Sorting, not hashing: memory stays a few words per
// entry for files of millions of them.
func symmetrize(es []feEntry, path string, name func(int) string) ([]feEntry, error) {
	type key struct {
		hi, lo int
		upper  bool // given above the diagonal
		v      float64
	}
	ks := make([]key, len(es))
	big := 0.0
	for i, e := range es {
		big = math.Max(big, math.Abs(e.v))
		if e.j <= e.i {
			ks[i] = key{e.i, e.j, false, e.v}
		} else {
			ks[i] = key{e.j, e.i, true, e.v}
		}
	}
	sort.Slice(ks, func(a, b int) bool {
		x, y := &ks[a], &ks[b]
		if x.hi != y.hi {
			return x.hi < y.hi
		}
		if x.lo != y.lo {
			return x.lo < y.lo
		}
		return !x.upper && y.upper
	})
	out := make([]feEntry, 0, 2*len(ks))
	for i := 0; i < len(ks); {
		k := ks[i]
		var lo, up float64
		hasLo, hasUp := false, false
		for ; i < len(ks) && ks[i].hi == k.hi && ks[i].lo == k.lo; i++ {
			if ks[i].upper {
				up, hasUp = up+ks[i].v, true
			} else {
				lo, hasLo = lo+ks[i].v, true
			}
		}
		v := lo
		switch {
		case hasLo && hasUp && math.Abs(lo-up) > 1e-8*big:
			return nil, &fileErr{path, 0, fmt.Sprintf("the matrix is not symmetric: entry (%s, %s) = %g, (%s, %s) = %g", name(k.hi), name(k.lo), lo, name(k.lo), name(k.hi), up)}
		case !hasLo:
			v = up
		}
		out = append(out, feEntry{k.hi, k.lo, v})
		if k.hi != k.lo {
			out = append(out, feEntry{k.lo, k.hi, v})
		}
	}
	return out, nil
}

// dense returns the submatrix of es on the dofs idx (global → local
// positions; -1 outside), row-major.
func dense(es []feEntry, loc []int, n int) []float64 {
	a := make([]float64, n*n)
	for _, e := range es {
		i, j := loc[e.i], loc[e.j]
		if i >= 0 && j >= 0 {
			a[i*n+j] += e.v
		}
	}
	return a
}

// edgesFromStiffness sets the drawing's edges of a model read without its
// elements (a Matrix Market model with a node list): the node pairs the
// stiffness matrix couples, in the order of its entries. For beams,
// trusses and shells these are the elements' sides; a solid's also
// include its elements' diagonals.
func (d *feData) edgesFromStiffness() {
	seen := map[[2]int]bool{}
	nodes := map[int]bool{} // the drawing's nodes: at most feDrawMax
	for _, e := range d.K {
		i, j := d.dofs[e.i][0], d.dofs[e.j][0]
		if i >= j || e.v == 0 || seen[[2]int{i, j}] {
			continue
		}
		need := 0
		if !nodes[i] {
			need++
		}
		if !nodes[j] {
			need++
		}
		if len(nodes)+need > feDrawMax {
			continue
		}
		nodes[i], nodes[j] = true, true
		seen[[2]int{i, j}] = true
		d.edges = append(d.edges, [2]int{i, j})
	}
	sort.Slice(d.edges, func(a, b int) bool {
		x, y := d.edges[a], d.edges[b]
		if x[0] != y[0] {
			return x[0] < y[0]
		}
		return x[1] < y[1]
	})
}

// setEdges keeps the edges of elements given as (kind, node labels...):
// line elements (kind 0) their segments, shells (1) their sides, solids
// (2: tetrahedra and hexahedra, their corner nodes) their edges.
func (d *feData) setEdges(conn [][]int) {
	seen := map[[2]int]bool{}
	add := func(a, b int) {
		i, ok1 := d.index[a]
		j, ok2 := d.index[b]
		if !ok1 || !ok2 || i == j {
			return
		}
		if i > j {
			i, j = j, i
		}
		if !seen[[2]int{i, j}] {
			seen[[2]int{i, j}] = true
			d.edges = append(d.edges, [2]int{i, j})
		}
	}
	for _, e := range conn {
		kind, c := e[0], e[1:]
		switch {
		case kind == 0:
			for k := 0; k+1 < len(c); k++ {
				add(c[k], c[k+1])
			}
		case kind == 1 && len(c) >= 3:
			nc := 4
			if len(c) == 3 || len(c) == 6 {
				nc = 3
			}
			for a := 0; a < nc; a++ {
				add(c[a], c[(a+1)%nc])
			}
		case kind == 2 && (len(c) == 4 || len(c) == 10):
			for a := 0; a < 4; a++ {
				for b := a + 1; b < 4; b++ {
					add(c[a], c[b])
				}
			}
		case kind == 2 && len(c) >= 8:
			for a := 0; a < 4; a++ {
				add(c[a], c[(a+1)%4])
				add(c[4+a], c[4+(a+1)%4])
				add(c[a], c[4+a])
			}
		}
	}
}
