package results

import (
	"errors"
	"fmt"
	"io/fs"
	"mbfmu/atomicfile"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// MakeParentDirs creates the folder of path and its parents if missing.
func MakeParentDirs(path string) error {
	dir := filepath.Dir(path)
	if dir == "." || dir == "" {
		return nil
	}
	return os.MkdirAll(dir, 0o755)
}

// SamePath reports whether a and b name the same file: the same absolute,
// cleaned path, or (when both exist) the same file by os.SameFile, which
// also sees through links.
func SamePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// CheckOutput checks, before a run starts, that path can be written as an
// output: it is not one of inputs (SamePath), not an existing folder, and
// its folder exists or can be created (the nearest existing ancestor is a
// folder). The error says why, without naming path itself.
func CheckOutput(path string, inputs ...string) error {
	if strings.TrimSpace(path) == "" {
		return errors.New("empty file name")
	}
	for _, in := range inputs {
		if in != "" && SamePath(path, in) {
			return fmt.Errorf("would overwrite the input file %s; choose another name", in)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("is a folder; give a file name")
	}
	if strings.HasSuffix(path, string(filepath.Separator)) || strings.HasSuffix(path, "/") {
		return errors.New("is a folder name; give a file name")
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		// A missing folder, or one below a file: look further up.
		if fi, err := os.Stat(dir); err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is a file, not a folder", dir)
			}
			return nil
		}
		if parent := filepath.Dir(dir); parent == dir {
			return nil
		}
	}
}

// fileWriter is a Writer to a file that appears under its name only when
// Close succeeds; Abort discards it.
type fileWriter interface {
	Writer
	Abort() error
}

// CSVFile is a results CSV file (see NewCSVWriter) written through an
// atomicfile.File: Close flushes and commits it, Abort discards it.
type CSVFile struct {
	Writer
	af     *atomicfile.File
	closed bool
}

// CreateCSV starts a CSVFile at path (whose folder must exist).
func CreateCSV(path string) (*CSVFile, error) {
	af, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &CSVFile{Writer: NewCSVWriter(af), af: af}, nil
}

// Close writes out the rows and renames the file onto its name. On an
// error nothing appears under the name.
func (c *CSVFile) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	if err := c.Writer.Close(); err != nil {
		c.af.Abort()
		return err
	}
	return c.af.Commit()
}

// Abort discards the file.
func (c *CSVFile) Abort() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return c.af.Abort()
}

// Outputs is the set of outputs of one run: files written atomically
// (CSV, workbook) and streams (standard output, a live feed). It is a
// Writer that sends each row to every output. Close commits every file
// that has not failed; a file whose write failed is discarded, so that no
// truncated file ever appears under a requested name. Interrupted runs
// call Close too: every row written so far is kept, and rows are whole.
//
// Header, Row, Close and Abort are for one goroutine; RemoveTemps may be
// called from another (a second Ctrl-C) at any time.
type Outputs struct {
	outs   []output
	rows   int
	closed bool

	mu    sync.Mutex // guards temps
	temps []string   // temporary files, for RemoveTemps
}

type output struct {
	name   string
	w      Writer
	file   fileWriter // nil for a stream
	err    error      // first error of this output
	failed bool
}

// OutputError is the error of one output of an Outputs.
type OutputError struct {
	// Name is the output's file name (or stream name).
	Name string
	// File is true for a file output, which is then not written.
	File bool
	// Err is what went wrong.
	Err error
}

// Error says which output failed and why: "r.csv not written: no space
// left on device".
func (e *OutputError) Error() string {
	if !e.File {
		return e.Name + ": " + e.Err.Error()
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return e.Name + " not written: " + pe.Err.Error()
	}
	return e.Name + " not written: " + e.Err.Error()
}

// Unwrap returns what went wrong.
func (e *OutputError) Unwrap() error { return e.Err }

// AddCSV adds a CSV file at path, creating its folder if needed.
func (o *Outputs) AddCSV(path string) error {
	if err := MakeParentDirs(path); err != nil {
		return err
	}
	c, err := CreateCSV(path)
	if err != nil {
		return err
	}
	o.trackTemp(c.af.TempPath())
	o.outs = append(o.outs, output{name: path, w: c, file: c})
	return nil
}

// AddXLSX adds a workbook at path, creating its folder if needed. The
// returned writer takes the run information and modes before Close.
func (o *Outputs) AddXLSX(path string) (*XLSXWriter, error) {
	if err := MakeParentDirs(path); err != nil {
		return nil, err
	}
	x, err := NewXLSXWriter(path)
	if err != nil {
		return nil, err
	}
	x.onTemp = o.trackTemp
	o.outs = append(o.outs, output{name: path, w: x, file: x})
	return x, nil
}

// AddStream adds a Writer that is not a file (standard output, a live
// feed); name is used in messages.
func (o *Outputs) AddStream(w Writer, name string) {
	o.outs = append(o.outs, output{name: name, w: w})
}

func (o *Outputs) trackTemp(name string) {
	o.mu.Lock()
	o.temps = append(o.temps, name)
	o.mu.Unlock()
}

// Len returns the number of outputs.
func (o *Outputs) Len() int { return len(o.outs) }

// Files returns the names of the file outputs, in the order added.
func (o *Outputs) Files() []string {
	var s []string
	for _, out := range o.outs {
		if out.file != nil {
			s = append(s, out.name)
		}
	}
	return s
}

// Names returns the names of every output, streams included.
func (o *Outputs) Names() []string {
	var s []string
	for _, out := range o.outs {
		s = append(s, out.name)
	}
	return s
}

// Rows returns the number of rows written to every output.
func (o *Outputs) Rows() int { return o.rows }

// Header sends the header to every output.
func (o *Outputs) Header(cols []Column) error {
	return o.each(func(w Writer) error { return w.Header(cols) })
}

// Row sends a row to every output that has not failed. When an output
// fails, the others still get the row; the error (an *OutputError) is
// returned and the caller should stop the run and Close.
func (o *Outputs) Row(vals []float64) error {
	err := o.each(func(w Writer) error { return w.Row(vals) })
	if err == nil {
		o.rows++
	}
	return err
}

func (o *Outputs) each(f func(w Writer) error) error {
	var first error
	for i := range o.outs {
		out := &o.outs[i]
		if out.failed {
			continue
		}
		if err := f(out.w); err != nil {
			out.failed, out.err = true, err
			if first == nil {
				first = &OutputError{Name: out.name, File: out.file != nil, Err: err}
			}
		}
	}
	return first
}

// Failed returns the names of the outputs that failed.
func (o *Outputs) Failed() []string {
	var s []string
	for _, out := range o.outs {
		if out.failed {
			s = append(s, out.name)
		}
	}
	return s
}

// Close commits every file output that has not failed and discards the
// others, and closes the streams. It returns the errors of the outputs
// (each an *OutputError), joined; the names of the files that were
// written are returned by Written.
func (o *Outputs) Close() error {
	if o.closed {
		return nil
	}
	o.closed = true
	var errs []error
	for i := range o.outs {
		out := &o.outs[i]
		switch {
		case out.failed && out.file != nil:
			out.file.Abort()
			errs = append(errs, &OutputError{Name: out.name, File: true, Err: out.err})
		case out.failed:
			out.w.Close()
			errs = append(errs, &OutputError{Name: out.name, Err: out.err})
		default:
			if err := out.w.Close(); err != nil {
				out.failed, out.err = true, err
				errs = append(errs, &OutputError{Name: out.name, File: out.file != nil, Err: err})
			}
		}
	}
	return errors.Join(errs...)
}

// Written returns the names of the file outputs that were committed.
func (o *Outputs) Written() []string {
	if !o.closed {
		return nil
	}
	var s []string
	for _, out := range o.outs {
		if out.file != nil && !out.failed {
			s = append(s, out.name)
		}
	}
	return s
}

// Abort discards every file output (nothing appears under their names)
// and closes the streams.
func (o *Outputs) Abort() {
	if o.closed {
		return
	}
	o.closed = true
	for _, out := range o.outs {
		if out.file != nil {
			out.file.Abort()
		} else {
			out.w.Close()
		}
	}
}

// RemoveTemps removes the temporary files of the outputs without closing
// anything. It is meant for a process that is about to exit at once (a
// second interrupt) and may be called from any goroutine.
func (o *Outputs) RemoveTemps() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, t := range o.temps {
		os.Remove(t) // a committed file's temporary name is gone already
	}
}
