package results

import (
	"fmt"
	"math"
	"math/cmplx"
	"strconv"

	"github.com/xuri/excelize/v2"
)

// chartSpec is one chart: a (group, unit) pair and the column indices it plots.
type chartSpec struct {
	group, unit string
	cols        []int
}

// planCharts groups columns 1.. by (group, unit), in group order then first
// appearance, splitting groups larger than MaxSeriesPerChart.
func planCharts(cols []Column) []chartSpec {
	type key struct{ g, u string }
	var keys []key
	byKey := map[key][]int{}
	for i := 1; i < len(cols); i++ {
		g := cols[i].Group
		if g == GroupShape {
			continue // drawing data for the viewer, not a time series to chart
		}
		if g == "" || g == GroupTime {
			g = GroupOther
		}
		k := key{g, cols[i].Unit}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	// Stable insertion sort of keys by group rank.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && groupRank(keys[j].g) < groupRank(keys[j-1].g); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	var out []chartSpec
	for _, k := range keys {
		idx := byKey[k]
		for len(idx) > 0 {
			n := min(len(idx), MaxSeriesPerChart)
			out = append(out, chartSpec{group: k.g, unit: k.u, cols: idx[:n]})
			idx = idx[n:]
		}
	}
	return out
}

func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " [" + unit + "]"
}

func title(s string) excelize.ChartTitle {
	return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: s}}}
}

func (x *XLSXWriter) writeCharts() error {
	f := x.f
	if !x.header || x.rows == 0 {
		return f.SetCellValue(SheetCharts, "A1", "No data rows were written; no charts.")
	}
	specs := planCharts(x.cols)
	if len(specs) == 0 {
		return f.SetCellValue(SheetCharts, "A1", "No channels besides time; no charts.")
	}
	first, last := FirstDataRow, FirstDataRow+x.rows-1
	xref := fmt.Sprintf("%s!$A$%d:$A$%d", SheetResults, first, last)
	xTitle := withUnit(x.cols[0].Name, x.cols[0].Unit)
	// Count the charts of each (group, unit) for "(i/n)" titles.
	total := map[[2]string]int{}
	for _, s := range specs {
		total[[2]string{s.group, s.unit}]++
	}
	seen := map[[2]string]int{}
	const width, height, rowsPerChart = 900, 420, 23
	for ci, s := range specs {
		k := [2]string{s.group, s.unit}
		seen[k]++
		name := withUnit(s.group, s.unit)
		chartTitle := name
		switch {
		case len(s.cols) == 1:
			// One series: the title names the channel, as the legend does.
			chartTitle = withUnit(x.cols[s.cols[0]].Name, s.unit)
		case total[k] > 1:
			chartTitle += fmt.Sprintf(" (%d/%d)", seen[k], total[k])
		}
		series := make([]excelize.ChartSeries, len(s.cols))
		for i, c := range s.cols {
			col, err := excelize.ColumnNumberToName(c + 1)
			if err != nil {
				return err
			}
			series[i] = excelize.ChartSeries{
				Name:       fmt.Sprintf("%s!$%s$1", SheetResults, col),
				Categories: xref,
				Values:     fmt.Sprintf("%s!$%s$%d:$%s$%d", SheetResults, col, first, col, last),
				Line:       excelize.LineOptions{Type: excelize.LineSolid, Smooth: false, Width: 1.5},
				Marker:     excelize.ChartMarker{Symbol: "none"},
			}
		}
		ch := &excelize.Chart{
			Type:      excelize.Scatter,
			Series:    series,
			Title:     title(chartTitle),
			Dimension: excelize.ChartDimension{Width: width, Height: height},
			Legend:    excelize.ChartLegend{Position: "right"},
			XAxis:     excelize.ChartAxis{MajorGridLines: true, Title: title(xTitle)},
			YAxis:     excelize.ChartAxis{MajorGridLines: true, Title: title(name)},
		}
		if x.t1 > x.t0 {
			lo, hi := x.t0, x.t1
			ch.XAxis.Minimum, ch.XAxis.Maximum = &lo, &hi
		}
		if x.logX {
			ch.XAxis.LogBase = 10
			ch.XAxis.MinorGridLines = true
			if s.group == GroupMagnitude {
				ch.YAxis.LogBase = 10
			}
		}
		if err := f.AddChart(SheetCharts, "A"+strconv.Itoa(1+ci*rowsPerChart), ch); err != nil {
			return err
		}
	}
	return nil
}

func (x *XLSXWriter) writeChannels() error {
	f := x.f
	head := []interface{}{"column", "name", "unit", "group", "description"}
	if err := f.SetSheetRow(SheetChannels, "A1", &head); err != nil {
		return err
	}
	if err := f.SetCellStyle(SheetChannels, "A1", "E1", x.boldStyle); err != nil {
		return err
	}
	for i, c := range x.cols {
		col, err := excelize.ColumnNumberToName(i + 1)
		if err != nil {
			return err
		}
		row := []interface{}{col, c.Name, c.Unit, c.Group, c.Description}
		if err := f.SetSheetRow(SheetChannels, "A"+strconv.Itoa(i+2), &row); err != nil {
			return err
		}
	}
	if err := f.SetColWidth(SheetChannels, "B", "B", 24); err != nil {
		return err
	}
	return f.SetColWidth(SheetChannels, "E", "E", 60)
}

func (x *XLSXWriter) writeRun() error {
	f := x.f
	head := []interface{}{"item", "value"}
	if err := f.SetSheetRow(SheetRun, "A1", &head); err != nil {
		return err
	}
	if err := f.SetCellStyle(SheetRun, "A1", "B1", x.boldStyle); err != nil {
		return err
	}
	items := x.ri.Items
	if x.full {
		items = append(items[:len(items):len(items)], [2]string{"warning",
			fmt.Sprintf("Results sheet truncated at the worksheet limit of %d rows", MaxXLSXRows)})
	}
	for i, it := range items {
		row := []interface{}{it[0], it[1]}
		if err := f.SetSheetRow(SheetRun, "A"+strconv.Itoa(i+2), &row); err != nil {
			return err
		}
	}
	if err := f.SetColWidth(SheetRun, "A", "A", 28); err != nil {
		return err
	}
	return f.SetColWidth(SheetRun, "B", "B", 80)
}

// ModesShapeRow is the worksheet row (1-based) of the mode-shape header in
// the Modes sheet when there are n modes: the mode table takes rows 1..n+1,
// then one blank row.
func ModesShapeRow(n int) int { return n + 3 }

// cellNumber returns v, or its text ("NaN", "+Inf") when it is not finite.
func cellNumber(v float64) interface{} {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return v
}

func (x *XLSXWriter) writeModes() error {
	f, m := x.f, x.modes
	nmode, ncoord, err := m.count()
	if err != nil {
		return err
	}
	if _, err := f.NewSheet(SheetModes); err != nil {
		return err
	}
	head := []interface{}{"mode", "frequency [Hz]", "damping ratio [-]", "eigenvalue real [1/s]", "eigenvalue imag [rad/s]"}
	if err := f.SetSheetRow(SheetModes, "A1", &head); err != nil {
		return err
	}
	if err := f.SetCellStyle(SheetModes, "A1", "E1", x.boldStyle); err != nil {
		return err
	}
	for i := 0; i < nmode; i++ {
		row := []interface{}{i + 1, nil, nil, nil, nil}
		if len(m.Freq) > 0 {
			row[1] = cellNumber(m.Freq[i])
		}
		if len(m.Damping) > 0 {
			row[2] = cellNumber(m.Damping[i])
		}
		if len(m.Eig) > 0 {
			row[3], row[4] = cellNumber(real(m.Eig[i])), cellNumber(imag(m.Eig[i]))
			if cmplx.IsNaN(m.Eig[i]) {
				row[3], row[4] = "NaN", "NaN"
			}
		}
		if err := f.SetSheetRow(SheetModes, "A"+strconv.Itoa(i+2), &row); err != nil {
			return err
		}
	}
	if err := f.SetColWidth(SheetModes, "A", "E", 22); err != nil {
		return err
	}
	if len(m.Shapes) == 0 {
		return nil
	}
	r0 := ModesShapeRow(nmode)
	head = make([]interface{}, nmode+1)
	head[0] = "coordinate"
	for i := 0; i < nmode; i++ {
		head[i+1] = "mode " + strconv.Itoa(i+1)
	}
	if err := f.SetSheetRow(SheetModes, "A"+strconv.Itoa(r0), &head); err != nil {
		return err
	}
	if err := f.SetCellStyle(SheetModes, "A"+strconv.Itoa(r0), "A"+strconv.Itoa(r0), x.boldStyle); err != nil {
		return err
	}
	for c := 0; c < ncoord; c++ {
		row := make([]interface{}, nmode+1)
		row[0] = "q" + strconv.Itoa(c+1)
		if len(m.ShapeNames) > 0 {
			row[0] = m.ShapeNames[c]
		}
		for i := 0; i < nmode; i++ {
			row[i+1] = cellNumber(m.Shapes[i][c])
		}
		if err := f.SetSheetRow(SheetModes, "A"+strconv.Itoa(r0+1+c), &row); err != nil {
			return err
		}
	}
	return nil
}
