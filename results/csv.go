package results

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// csvWriter streams rows as CSV text. Row allocates nothing once its line
// buffer has grown to the row width.
type csvWriter struct {
	w      *bufio.Writer
	digits int // significant digits; -1 = shortest exact
	ncol   int
	buf    []byte
	header bool
	closed bool
}

// NewCSVWriter returns a Writer that writes CSV to w (see the package doc
// for the format). Values are written in the shortest form that parses back
// to the identical float64. Close flushes but does not close w.
func NewCSVWriter(w io.Writer) Writer { return NewCSVWriterDigits(w, -1) }

// NewCSVWriterDigits is NewCSVWriter with values rounded to the given number
// of significant digits (1..17; 17 always round-trips). digits <= 0 selects
// the shortest exact form, as NewCSVWriter does.
func NewCSVWriterDigits(w io.Writer, digits int) Writer {
	if digits <= 0 {
		digits = -1
	} else if digits > 17 {
		digits = 17
	}
	return &csvWriter{w: bufio.NewWriterSize(w, 64<<10), digits: digits}
}

func (c *csvWriter) Header(cols []Column) error {
	if c.header {
		return errors.New("results: csv: Header called twice")
	}
	if err := checkColumns(cols); err != nil {
		return err
	}
	c.header, c.ncol = true, len(cols)
	b := c.buf[:0]
	for i, col := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVField(b, HeaderField(col))
	}
	b = append(b, '\n')
	c.buf = b
	_, err := c.w.Write(b)
	return err
}

// appendCSVField appends s, quoted by RFC 4180 rules if needed.
func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") && !strings.HasPrefix(s, "#") {
		return append(b, s...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(s, `"`, `""`)...)
	return append(b, '"')
}

func (c *csvWriter) Row(vals []float64) error {
	if !c.header || c.closed {
		return errors.New("results: csv: Row before Header or after Close")
	}
	if len(vals) != c.ncol {
		return fmt.Errorf("results: csv: row has %d values, header has %d columns", len(vals), c.ncol)
	}
	b := c.buf[:0]
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, v, 'g', c.digits, 64)
	}
	b = append(b, '\n')
	c.buf = b
	_, err := c.w.Write(b)
	return err
}

func (c *csvWriter) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return c.w.Flush()
}

// csvRows reads a results CSV one row at a time.
type csvRows struct {
	r    *csv.Reader
	cols []Column
	vals []float64
}

// newCSVRows reads the header line and prepares to stream rows.
func newCSVRows(r io.Reader) (*csvRows, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.ReuseRecord = true
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("results: csv: empty input, no header line")
	}
	if err != nil {
		return nil, fmt.Errorf("results: csv: %w", err)
	}
	cols := make([]Column, len(rec))
	for i, f := range rec {
		cols[i] = ParseHeaderField(f)
		if i == 0 {
			cols[i].Group = GroupTime
		} else {
			cols[i].Group = GroupForUnit(cols[i].Unit)
		}
	}
	if err := checkColumns(cols); err != nil {
		line, _ := cr.FieldPos(0)
		return nil, fmt.Errorf("line %d: %w", line, err)
	}
	return &csvRows{r: cr, cols: cols, vals: make([]float64, len(cols))}, nil
}

// next returns the next row (reused between calls) or io.EOF.
func (c *csvRows) next() ([]float64, error) {
	rec, err := c.r.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("results: csv: %w", err)
	}
	for i, f := range rec {
		v, perr := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if perr != nil {
			line, _ := c.r.FieldPos(i)
			return nil, fmt.Errorf("results: csv: line %d, column %d (%s): invalid number %q", line, i+1, c.cols[i].Name, f)
		}
		c.vals[i] = v
	}
	return c.vals, nil
}

// ReadCSV reads a results CSV (see the package doc) into a Table. Units are
// taken from the "[unit]" suffix of each header field and groups are guessed
// from units (GroupForUnit); the first column is time. Errors name the line.
func ReadCSV(r io.Reader) (*Table, error) {
	rows, err := newCSVRows(r)
	if err != nil {
		return nil, err
	}
	t := &Table{Cols: rows.cols, Data: make([][]float64, len(rows.cols))}
	for {
		vals, err := rows.next()
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		for i, v := range vals {
			t.Data[i] = append(t.Data[i], v)
		}
	}
}
