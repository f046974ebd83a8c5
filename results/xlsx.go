package results

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"math"
	"mbfmu/atomicfile"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// Sheet names of the workbook.
const (
	SheetResults  = "Results"
	SheetCharts   = "Charts"
	SheetChannels = "Channels"
	SheetRun      = "Run"
	SheetModes    = "Modes"
)

// Layout constants of the Results sheet.
const (
	// FirstDataRow is the worksheet row (1-based) of the first data row;
	// row 1 holds names and row 2 units.
	FirstDataRow = 3
	// MaxXLSXRows is the number of data rows a worksheet can hold.
	MaxXLSXRows = 1048576 - (FirstDataRow - 1)
	// MaxSeriesPerChart is the most series drawn in one chart; larger
	// groups are split over several charts.
	MaxSeriesPerChart = 8
)

// RunInfo is an ordered list of key/value pairs describing a run (model
// file, integrator, step, tolerances, wall time, statistics, warnings). It is
// written to the workbook's Run sheet in order.
type RunInfo struct {
	// Items holds {key, value} pairs in display order.
	Items [][2]string
}

// Add appends a key/value pair.
func (ri *RunInfo) Add(key, value string) { ri.Items = append(ri.Items, [2]string{key, value}) }

// Modes holds the result of an eigen analysis. Every non-empty slice must
// have one entry per mode.
type Modes struct {
	// Freq holds natural frequencies in Hz.
	Freq []float64
	// Damping holds damping ratios (dimensionless).
	Damping []float64
	// Eig holds eigenvalues λ = σ + iω (1/s).
	Eig []complex128
	// ShapeNames names the coordinates of a mode shape; if empty they are
	// called q1, q2, ...
	ShapeNames []string
	// Shapes holds mode shapes, Shapes[mode][coord].
	Shapes [][]float64
}

// count validates m and returns the number of modes and coordinates.
func (m *Modes) count() (nmode, ncoord int, err error) {
	for _, n := range []int{len(m.Freq), len(m.Damping), len(m.Eig), len(m.Shapes)} {
		if n > nmode {
			nmode = n
		}
	}
	for name, n := range map[string]int{"Freq": len(m.Freq), "Damping": len(m.Damping), "Eig": len(m.Eig), "Shapes": len(m.Shapes)} {
		if n != 0 && n != nmode {
			return 0, 0, fmt.Errorf("results: modes: %s has %d entries, expected %d (one per mode) or none", name, n, nmode)
		}
	}
	ncoord = len(m.ShapeNames)
	if ncoord == 0 && len(m.Shapes) > 0 {
		ncoord = len(m.Shapes[0])
	}
	for i, s := range m.Shapes {
		if len(s) != ncoord {
			return 0, 0, fmt.Errorf("results: modes: shape of mode %d has %d coordinates, expected %d", i+1, len(s), ncoord)
		}
	}
	if nmode+1 > excelize.MaxColumns {
		return 0, 0, fmt.Errorf("results: modes: %d modes do not fit in a worksheet", nmode)
	}
	return nmode, ncoord, nil
}

// XLSXWriter streams rows into the "Results" sheet of a workbook and writes
// the other sheets (see the package doc) on Close. It implements Writer. It
// is not safe for concurrent use. Row allocates a few small objects per call
// (excelize boxes every cell value); keep it off real-time paths.
type XLSXWriter struct {
	path   string
	f      *excelize.File
	sw     *excelize.StreamWriter
	cols   []Column
	cells  []interface{}
	rows   int
	t0, t1 float64
	ri     RunInfo
	modes  *Modes
	header bool
	closed bool
	full   bool // rows were dropped at the worksheet row limit
	logX   bool // the first column is a frequency: log-scale x axes

	nonFinite bool // some cell holds =NA()

	onTemp func(name string) // told the temporary file's name (Outputs)

	chartFixes []chartFixCount // what the chart post-process changed (tests)

	headStyle, unitStyle, valStyle, boldStyle int
}

// NewXLSXWriter starts a workbook that Close saves to path (which must end
// in .xlsx and be in an existing directory).
func NewXLSXWriter(path string) (*XLSXWriter, error) {
	if !strings.EqualFold(filepath.Ext(path), ".xlsx") {
		return nil, fmt.Errorf("results: xlsx: %q: file name must end in .xlsx", path)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("results: xlsx: %q: directory does not exist", path)
	}
	f := excelize.NewFile()
	x := &XLSXWriter{path: path, f: f}
	if err := x.init(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("results: xlsx: %w", err)
	}
	return x, nil
}

func (x *XLSXWriter) init() error {
	f := x.f
	if err := f.SetSheetName(f.GetSheetName(0), SheetResults); err != nil {
		return err
	}
	for _, s := range []string{SheetCharts, SheetChannels, SheetRun} {
		if _, err := f.NewSheet(s); err != nil {
			return err
		}
	}
	fill := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}
	var err error
	if x.headStyle, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Fill: fill,
		Alignment: &excelize.Alignment{Horizontal: "center"}}); err != nil {
		return err
	}
	if x.unitStyle, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Italic: true}, Fill: fill,
		Alignment: &excelize.Alignment{Horizontal: "center"}}); err != nil {
		return err
	}
	fmtSci := "0.000000E+00"
	if x.valStyle, err = f.NewStyle(&excelize.Style{CustomNumFmt: &fmtSci}); err != nil {
		return err
	}
	x.boldStyle, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	return err
}

// SetRunInfo sets the contents of the Run sheet.
func (x *XLSXWriter) SetRunInfo(ri RunInfo) {
	x.ri = RunInfo{Items: append([][2]string(nil), ri.Items...)}
}

// SetModes adds a Modes sheet with the given eigen analysis results.
func (x *XLSXWriter) SetModes(m *Modes) { x.modes = m }

// SetLogX charts the columns against the first on a log scale (a
// frequency response: the first column is the frequency); magnitude
// columns (GroupMagnitude) get a log-scale y axis too.
func (x *XLSXWriter) SetLogX() { x.logX = true }

// Header writes the two header rows of the Results sheet.
func (x *XLSXWriter) Header(cols []Column) error {
	if x.header || x.closed {
		return errors.New("results: xlsx: Header called twice or after Close")
	}
	if err := checkColumns(cols); err != nil {
		return err
	}
	if len(cols) > excelize.MaxColumns {
		return fmt.Errorf("results: xlsx: %d columns exceed the worksheet limit of %d", len(cols), excelize.MaxColumns)
	}
	sw, err := x.f.NewStreamWriter(SheetResults)
	if err != nil {
		return fmt.Errorf("results: xlsx: %w", err)
	}
	x.sw, x.header = sw, true
	x.cols = append([]Column(nil), cols...)
	x.cells = make([]interface{}, len(cols))
	if err := x.writeHeader(); err != nil {
		return fmt.Errorf("results: xlsx: %w", err)
	}
	return nil
}

func (x *XLSXWriter) writeHeader() error {
	sw, n := x.sw, len(x.cols)
	if err := sw.SetColWidth(1, 1, 12); err != nil {
		return err
	}
	for i := 1; i < n; i++ {
		w := math.Min(math.Max(14, float64(len(x.cols[i].Name)+2)), 50)
		if err := sw.SetColWidth(i+1, i+1, w); err != nil {
			return err
		}
	}
	if n > 1 {
		if err := sw.SetColStyle(2, n, x.valStyle); err != nil {
			return err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, XSplit: 1, YSplit: FirstDataRow - 1,
		TopLeftCell: "B3", ActivePane: "bottomRight",
		Selection: []excelize.Selection{{SQRef: "B3", ActiveCell: "B3", Pane: "bottomRight"}}}); err != nil {
		return err
	}
	names := make([]interface{}, n)
	units := make([]interface{}, n)
	for i, c := range x.cols {
		names[i] = excelize.Cell{StyleID: x.headStyle, Value: c.Name}
		units[i] = excelize.Cell{StyleID: x.unitStyle, Value: c.Unit}
	}
	if err := sw.SetRow("A1", names); err != nil {
		return err
	}
	return sw.SetRow("A2", units)
}

// Row appends one data row. Beyond MaxXLSXRows rows it returns an error
// (use CSV for such runs); the rows written so far are still saved by Close.
func (x *XLSXWriter) Row(vals []float64) error {
	if !x.header || x.closed {
		return errors.New("results: xlsx: Row before Header or after Close")
	}
	if len(vals) != len(x.cols) {
		return fmt.Errorf("results: xlsx: row has %d values, header has %d columns", len(vals), len(x.cols))
	}
	if x.rows >= MaxXLSXRows {
		x.full = true
		return fmt.Errorf("results: xlsx: worksheet row limit (%d data rows) reached at t = %g; write CSV for longer runs", MaxXLSXRows, vals[0])
	}
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			x.cells[i] = excelize.Cell{Formula: "NA()"}
			x.nonFinite = true
		} else {
			x.cells[i] = v
		}
	}
	if x.rows == 0 {
		x.t0 = vals[0]
	}
	x.t1 = vals[0]
	x.rows++
	if err := x.sw.SetRow("A"+strconv.Itoa(x.rows+FirstDataRow-1), x.cells); err != nil {
		return fmt.Errorf("results: xlsx: %w", err)
	}
	return nil
}

// Rows returns the number of data rows written so far.
func (x *XLSXWriter) Rows() int { return x.rows }

// Close writes the Charts, Channels, Run and Modes sheets and saves the
// workbook. A workbook with no rows (or no header, e.g. modes only) is
// still valid. The workbook is written to a temporary file beside the
// target and renamed onto it when complete (see atomicfile.File): on an error
// nothing appears under the target's name. Close releases the writer's
// temporary files even on error.
func (x *XLSXWriter) Close() error {
	if x.closed {
		return nil
	}
	x.closed = true
	err := x.finish()
	if cerr := x.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("results: xlsx: %s: %w", x.path, err)
	}
	return nil
}

// Abort discards the workbook: nothing is written, and the writer's
// temporary files are released.
func (x *XLSXWriter) Abort() error {
	if x.closed {
		return nil
	}
	x.closed = true
	return x.f.Close()
}

func (x *XLSXWriter) finish() error {
	f := x.f
	if x.header {
		if err := x.sw.Flush(); err != nil {
			return err
		}
	} else if err := f.SetCellValue(SheetResults, "A1", "No time series in this run; see sheet Modes or Run."); err != nil {
		return err
	}
	if err := x.writeCharts(); err != nil {
		return err
	}
	if err := x.writeChannels(); err != nil {
		return err
	}
	if err := x.writeRun(); err != nil {
		return err
	}
	if x.modes != nil {
		if err := x.writeModes(); err != nil {
			return err
		}
	}
	f.SetActiveSheet(0)
	if x.nonFinite {
		// Let Excel evaluate the =NA() cells when the file is opened.
		on := true
		if err := f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &on}); err != nil {
			return err
		}
	}
	out, err := atomicfile.Create(x.path)
	if err != nil {
		return err
	}
	if x.onTemp != nil {
		x.onTemp(out.TempPath())
	}
	// excelize assembles the whole archive in a bytes.Buffer before writing
	// it; this ZipWriter sends it straight to the file instead and fixes the
	// chart parts on the way.
	names := map[string]string{}
	for i, c := range x.cols {
		if col, err := excelize.ColumnNumberToName(i + 1); err == nil {
			names[fmt.Sprintf("%s!$%s$1", SheetResults, col)] = c.Name
		}
	}
	z := &chartFixZip{zw: zip.NewWriter(out), names: names, logX: x.logX}
	if err := x.setDimensions(z); err != nil {
		out.Abort()
		return err
	}
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { return z })
	if _, err := f.WriteTo(io.Discard); err != nil {
		out.Abort()
		return err
	}
	x.chartFixes = z.counts
	return out.Commit()
}

// setDimensions gives every sheet its used range in <dimension>:
// excelize v2.11.0 declares "A1" for every sheet, and readers that trust it
// (openpyxl in read-only mode, some importers) then see one row. The
// sheets written cell by cell get theirs from SetSheetDimension; the
// streamed Results sheet is written before it is known, so chartFixZip
// patches its part as it passes (the element sits in the part's first
// bytes).
func (x *XLSXWriter) setDimensions(z *chartFixZip) error {
	f := x.f
	for id, name := range f.GetSheetMap() {
		if name == SheetResults && x.header {
			last, err := excelize.CoordinatesToCellName(max(len(x.cols), 1), x.rows+FirstDataRow-1)
			if err != nil {
				return err
			}
			z.dimPart, z.dim = "xl/worksheets/sheet"+strconv.Itoa(id)+".xml", "A1:"+last
			continue
		}
		rows, err := f.GetRows(name)
		if err != nil {
			return err
		}
		nc := 0
		for _, r := range rows {
			nc = max(nc, len(r))
		}
		if len(rows) == 0 || nc == 0 {
			continue
		}
		last, err := excelize.CoordinatesToCellName(nc, len(rows))
		if err != nil {
			return err
		}
		if err := f.SetSheetDimension(name, "A1:"+last); err != nil {
			return err
		}
	}
	return nil
}

// The chart post-process. excelize v2.11.0 writes every series of a
// scatter chart with its x values as a string reference
// (<xVal><strRef><f>…</f></strRef></xVal>: drawChartSeriesXVal has no
// other form) and its name as a bare cell reference
// (<tx><strRef><f>…</f></strRef></tx>: ChartSeries.Name can only be a
// reference, and no cache is written). Neither is what Excel writes for a
// scatter chart of numbers with named series: an x string reference makes
// some readers plot the points against 1, 2, 3, ... instead of time, and
// readers that do not evaluate references (previews, LibreOffice before
// recalculation) show "Series1" in the legend. excelize's API can express
// neither a number reference for xVal nor a name cache, so chartFixZip
// rewrites the two elements in each chart part as it is written:
// fixChart. TestChartFixMatchesExcelize fails when excelize's output no
// longer has the expected shape (a fix that silently stops matching).

// scatterXRef matches the x values of a scatter series that excelize writes
// as a string reference.
var scatterXRef = regexp.MustCompile(`<xVal><strRef><f>([^<]*)</f></strRef></xVal>`)

// seriesNameRef matches the name of a series, a reference to a header cell
// without the cached text.
var seriesNameRef = regexp.MustCompile(`<tx><strRef><f>([^<]*)</f></strRef></tx>`)

// bottomAxis matches the start of the scaling of a value axis at the
// bottom, without a log base.
var bottomAxis = regexp.MustCompile(`(<valAx><axId val="[0-9]+"></axId><scaling>)(<orientation val="[a-zA-Z]+"></orientation>(?:<max val="[^"]*"></max>)?(?:<min val="[^"]*"></min>)?</scaling><delete val="[01]"></delete><axPos val="b">)`)

// chartFixCount says what fixChart changed in one chart part.
type chartFixCount struct {
	part   string // "xl/charts/chart1.xml"
	series int    // <ser> elements in the part
	xVals  int    // x value references turned into number references
	names  int    // series names given their cached text
}

// fixChart rewrites a chart part written by excelize (see above): the x
// values of scatter series become number references, and each series name
// that refers to a header cell in names (cell reference → channel name)
// gets the channel name cached beside the reference. It returns the new
// part and what it changed.
//
// With logX, the x axis (the value axis at the bottom) gets a log scale,
// which excelize writes only for y axes.
func fixChart(part string, b []byte, names map[string]string, logX bool) ([]byte, chartFixCount) {
	n := chartFixCount{part: part, series: bytes.Count(b, []byte("<ser>"))}
	if logX {
		b = bottomAxis.ReplaceAll(b, []byte(`${1}<logBase val="10"></logBase>${2}`))
	}
	b = scatterXRef.ReplaceAllFunc(b, func(m []byte) []byte {
		n.xVals++
		ref := scatterXRef.FindSubmatch(m)[1]
		return []byte(`<xVal><numRef><f>` + string(ref) + `</f></numRef></xVal>`)
	})
	b = seriesNameRef.ReplaceAllFunc(b, func(m []byte) []byte {
		ref := string(seriesNameRef.FindSubmatch(m)[1])
		name, ok := names[html.UnescapeString(ref)]
		if !ok {
			return m
		}
		n.names++
		var esc bytes.Buffer
		xml.EscapeText(&esc, []byte(name))
		return []byte(`<tx><strRef><f>` + ref + `</f><strCache><ptCount val="1"/><pt idx="0"><v>` + esc.String() + `</v></pt></strCache></strRef></tx>`)
	})
	return b, n
}

// chartFixZip is an excelize.ZipWriter that writes to a zip.Writer and
// passes the chart parts through fixChart.
type chartFixZip struct {
	zw      *zip.Writer
	names   map[string]string // series name reference → channel name
	logX    bool              // log-scale x axes (fixChart)
	name    string
	buf     bytes.Buffer
	pending bool
	counts  []chartFixCount // what fixChart changed, per chart part
	// dimPart is the streamed sheet's part and dim its used range, put in
	// place of the "A1" excelize declares (setDimensions)
	dimPart, dim string
	fix          *dimFix // the streamed sheet's writer while it is written
}

// dimFix is a Writer that replaces the first `<dimension ref="A1">` of a
// worksheet part with the used range and passes the rest through.
type dimFix struct {
	w    io.Writer
	dim  string
	head []byte // the part's first bytes, until the element is found or 64 KB pass
	done bool
}

func (d *dimFix) Write(p []byte) (int, error) {
	if d.done {
		return d.w.Write(p)
	}
	d.head = append(d.head, p...)
	const el = `<dimension ref="A1">`
	if i := bytes.Index(d.head, []byte(el)); i >= 0 {
		d.done = true
		b := append(append(append([]byte(nil), d.head[:i]...), `<dimension ref="`+d.dim+`">`...), d.head[i+len(el):]...)
		d.head = nil
		if _, err := d.w.Write(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if len(d.head) > 64<<10 {
		d.done = true // (not there: leave the part as it is)
		b := d.head
		d.head = nil
		if _, err := d.w.Write(b); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// finish writes what dimFix still holds.
func (d *dimFix) finish() error {
	if len(d.head) == 0 {
		return nil
	}
	_, err := d.w.Write(d.head)
	d.head = nil
	return err
}

func isChartPart(name string) bool {
	return strings.HasPrefix(name, "xl/charts/chart") && strings.HasSuffix(name, ".xml")
}

// Create starts a new archive member.
func (z *chartFixZip) Create(name string) (io.Writer, error) {
	if err := z.flush(); err != nil {
		return nil, err
	}
	if isChartPart(name) {
		z.name, z.pending = name, true
		z.buf.Reset()
		return &z.buf, nil
	}
	w, err := z.zw.Create(name)
	if err == nil && name == z.dimPart && z.dim != "" {
		z.fix = &dimFix{w: w, dim: z.dim}
		return z.fix, nil
	}
	return w, err
}

// AddFS adds the files of fsys.
func (z *chartFixZip) AddFS(fsys fs.FS) error {
	if err := z.flush(); err != nil {
		return err
	}
	return z.zw.AddFS(fsys)
}

// Close finishes the archive.
func (z *chartFixZip) Close() error {
	if err := z.flush(); err != nil {
		return err
	}
	return z.zw.Close()
}

func (z *chartFixZip) flush() error {
	if z.fix != nil {
		err := z.fix.finish()
		z.fix = nil
		if err != nil {
			return err
		}
	}
	if !z.pending {
		return nil
	}
	z.pending = false
	w, err := z.zw.Create(z.name)
	if err != nil {
		return err
	}
	b, n := fixChart(z.name, z.buf.Bytes(), z.names, z.logX)
	z.counts = append(z.counts, n)
	_, err = w.Write(b)
	return err
}

// WriteXLSX writes a whole table (may be nil for a modes-only workbook),
// run information and optional modes to a workbook at path.
func WriteXLSX(path string, t *Table, ri RunInfo, m *Modes) error {
	x, err := NewXLSXWriter(path)
	if err != nil {
		return err
	}
	x.SetRunInfo(ri)
	x.SetModes(m)
	if t != nil {
		if err := t.SendTo(x); err != nil {
			x.closed = true
			_ = x.Abort()
			return err
		}
	}
	return x.Close()
}

// CSVToXLSX converts a results CSV file to a workbook, streaming: rows go
// straight from the CSV reader into the worksheet, so memory does not grow
// with the file. Channel groups are guessed from units (GroupForUnit).
func CSVToXLSX(csvPath, xlsxPath string, ri RunInfo) error {
	in, err := os.Open(csvPath)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer in.Close()
	rows, err := newCSVRows(in)
	if err != nil {
		return fmt.Errorf("%s: %w", csvPath, err)
	}
	x, err := NewXLSXWriter(xlsxPath)
	if err != nil {
		return err
	}
	x.SetRunInfo(ri)
	fail := func(err error) error {
		x.closed = true
		_ = x.Abort()
		return err
	}
	if err := x.Header(rows.cols); err != nil {
		return fail(err)
	}
	for {
		vals, err := rows.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fail(fmt.Errorf("%s: %w", csvPath, err))
		}
		if err := x.Row(vals); err != nil {
			return fail(err)
		}
	}
	return x.Close()
}
