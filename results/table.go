package results

import (
	"errors"
	"fmt"
)

// Table is a results table held in memory, column-major: Data[c][row].
type Table struct {
	// Cols describes the columns; Cols[0] is time.
	Cols []Column
	// Data holds one slice per column, all of the same length.
	Data [][]float64
}

// Len returns the number of rows.
func (t *Table) Len() int {
	if t == nil || len(t.Data) == 0 {
		return 0
	}
	return len(t.Data[0])
}

// Index returns the index of the column called name, or -1.
func (t *Table) Index(name string) int {
	for i, c := range t.Cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Col returns the values of the column called name.
func (t *Table) Col(name string) ([]float64, bool) {
	i := t.Index(name)
	if i < 0 || i >= len(t.Data) {
		return nil, false
	}
	return t.Data[i], true
}

// check verifies that the table is rectangular.
func (t *Table) check() error {
	if t == nil {
		return errors.New("results: nil table")
	}
	if len(t.Data) != len(t.Cols) {
		return fmt.Errorf("results: table has %d columns but %d data slices", len(t.Cols), len(t.Data))
	}
	for i := range t.Data {
		if len(t.Data[i]) != len(t.Data[0]) {
			return fmt.Errorf("results: column %q has %d rows, column %q has %d",
				t.Cols[i].Name, len(t.Data[i]), t.Cols[0].Name, len(t.Data[0]))
		}
	}
	return nil
}

// SendTo sends the whole table to w (Header, every Row, no Close).
func (t *Table) SendTo(w Writer) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := w.Header(t.Cols); err != nil {
		return err
	}
	row := make([]float64, len(t.Cols))
	for r := 0; r < t.Len(); r++ {
		for c := range row {
			row[c] = t.Data[c][r]
		}
		if err := w.Row(row); err != nil {
			return err
		}
	}
	return nil
}

// multiWriter fans out to several writers.
type multiWriter struct{ ws []Writer }

// MultiWriter returns a Writer that forwards every call to each of ws in
// order. Header and Row stop at the first error; Close closes all writers
// and returns the first error.
func MultiWriter(ws ...Writer) Writer {
	return &multiWriter{ws: append([]Writer(nil), ws...)}
}

func (m *multiWriter) Header(cols []Column) error {
	for _, w := range m.ws {
		if err := w.Header(cols); err != nil {
			return err
		}
	}
	return nil
}

func (m *multiWriter) Row(vals []float64) error {
	for _, w := range m.ws {
		if err := w.Row(vals); err != nil {
			return err
		}
	}
	return nil
}

func (m *multiWriter) Close() error {
	var first error
	for _, w := range m.ws {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
