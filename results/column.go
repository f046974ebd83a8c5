package results

import (
	"fmt"
	"strings"
)

// Column describes one output channel.
type Column struct {
	// Name is the channel name, unique within a table, e.g. "arm.x".
	Name string
	// Unit is the SI unit symbol, e.g. "m", "rad/s", "N"; empty if none.
	Unit string
	// Group is one of the Group* constants; it selects the chart the
	// channel is plotted in.
	Group string
	// Description is free text shown in the workbook's Channels sheet.
	Description string
}

// Channel groups used for Column.Group.
const (
	GroupTime         = "time"
	GroupPosition     = "position"
	GroupVelocity     = "velocity"
	GroupAcceleration = "acceleration"
	GroupForce        = "force"
	GroupEnergy       = "energy"
	GroupConstraint   = "constraint"
	GroupInput        = "input"
	GroupOutput       = "output"
	GroupOther        = "other"
	// GroupMagnitude and GroupPhase hold a frequency response's magnitudes
	// (charted on a log scale) and phases (mbfmu bode).
	GroupMagnitude = "magnitude"
	GroupPhase     = "phase"
	// GroupShape holds drawing data for the viewer (e.g. beam node
	// positions): kept in the Results sheet, left out of the charts.
	GroupShape = "shape"
)

// groupRank orders groups in the Charts sheet; unknown groups come last.
func groupRank(g string) int {
	switch g {
	case GroupPosition:
		return 0
	case GroupVelocity:
		return 1
	case GroupAcceleration:
		return 2
	case GroupForce:
		return 3
	case GroupEnergy:
		return 4
	case GroupConstraint:
		return 5
	case GroupInput:
		return 6
	case GroupOutput:
		return 7
	case GroupMagnitude:
		return 8
	case GroupPhase:
		return 9
	case GroupOther:
		return 10
	}
	return 11
}

// Writer receives a header, then rows whose first value is time.
// Implementations stream: they do not keep rows in memory.
type Writer interface {
	// Header declares the columns; it is called once, before any Row.
	Header(cols []Column) error
	// Row writes one row of len(cols) values. The slice is not retained.
	Row(vals []float64) error
	// Close flushes the output. It does not close an io.Writer passed in.
	Close() error
}

// HeaderField returns the CSV header text of c: "name [unit]", or "name"
// when the unit is empty.
func HeaderField(c Column) string {
	if c.Unit == "" {
		return c.Name
	}
	return c.Name + " [" + c.Unit + "]"
}

// ParseHeaderField splits a header field "name [unit]" into a Column with
// Name and Unit set. A field without a trailing "[...]" has no unit.
func ParseHeaderField(s string) Column {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "]") {
		if i := strings.LastIndex(s, " ["); i >= 0 {
			return Column{Name: strings.TrimSpace(s[:i]), Unit: s[i+2 : len(s)-1]}
		}
	}
	return Column{Name: s}
}

// checkColumns validates a header: at least one column, non-empty unique
// names that survive the "name [unit]" round trip.
func checkColumns(cols []Column) error {
	if len(cols) == 0 {
		return fmt.Errorf("results: header has no columns")
	}
	seen := make(map[string]int, len(cols))
	for i, c := range cols {
		if strings.TrimSpace(c.Name) == "" {
			return fmt.Errorf("results: column %d has an empty name", i+1)
		}
		if c.Name != strings.TrimSpace(c.Name) || strings.Contains(c.Name, " [") ||
			strings.ContainsAny(c.Name, "\r\n") {
			return fmt.Errorf("results: column %d: name %q has surrounding spaces, a line break or \" [\"", i+1, c.Name)
		}
		if strings.ContainsAny(c.Unit, "[]\r\n") {
			return fmt.Errorf("results: column %q: unit %q contains a bracket or line break", c.Name, c.Unit)
		}
		if j, dup := seen[c.Name]; dup {
			return fmt.Errorf("results: column name %q repeated (columns %d and %d)", c.Name, j+1, i+1)
		}
		seen[c.Name] = i
	}
	return nil
}

// GroupForUnit guesses a channel group from its unit, for files (CSV) that
// do not store groups: time for s, position for m and rad, velocity for m/s
// and rad/s, acceleration for m/s2 and rad/s2, force for N and N*m, energy
// for J and W, other otherwise. The first column of a table is always time.
func GroupForUnit(unit string) string {
	u := strings.ReplaceAll(strings.ReplaceAll(unit, " ", ""), "^", "")
	u = strings.ReplaceAll(strings.ReplaceAll(u, "·", "*"), "²", "2")
	switch u {
	case "s":
		return GroupTime
	case "m", "rad", "deg", "mm":
		return GroupPosition
	case "m/s", "rad/s", "deg/s", "mm/s":
		return GroupVelocity
	case "m/s2", "rad/s2", "deg/s2", "mm/s2":
		return GroupAcceleration
	case "N", "N*m", "Nm", "N.m", "kN":
		return GroupForce
	case "J", "W", "kJ":
		return GroupEnergy
	}
	return GroupOther
}
