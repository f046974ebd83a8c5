// Package results holds simulation output: named channels with units
// (Column), streaming writers for CSV, .xlsx workbooks with charts and a live
// UDP feed (Writer), a column-major in-memory Table read back from CSV, and a
// Scene that tells the viewer which result columns animate which bodies of
// a planar or spatial mechanism.
//
// # Output files
//
// Files are never left half-written under the requested name: CSV files
// (CreateCSV) and workbooks are written to a temporary file beside the
// target, synced and renamed onto it when complete (atomicfile.File). Outputs
// groups the outputs of a run: it sends each row to all of them and, at the
// end, commits every file whose writes succeeded and discards the others, so
// that an interrupted run keeps every whole row it computed and a full disk
// leaves no truncated or empty file. CheckOutput validates an output name
// before a run starts (not an input file, not a folder, a folder that
// exists or can be created).
//
// The package is pure Go (excelize for the workbook) and holds no solver
// code, so the viewer and post-processing tools can depend on it alone.
//
// # CSV format
//
// One header line, then one line per output row. Header fields are
// "name [unit]" ("name" alone when the unit is empty), comma separated and
// quoted by RFC 4180 rules when needed; the first column is time. Values are
// written with strconv's shortest representation that round-trips exactly
// ('g', -1), so reading a file back gives bit-identical float64 values.
// NaN and ±Inf are written as NaN, +Inf and -Inf. Lines that start with '#'
// are ignored by ReadCSV.
//
// # Workbook layout
//
// Sheet "Results": row 1 channel names, row 2 units, data from row 3 on,
// time in column A; panes are frozen below the two header rows and right of
// the time column. Two header rows (rather than "name [unit]" in one cell)
// let Excel users sort, filter and build their own charts from clean name
// cells. Time is shown in General format, other values as 0.000000E+00; the
// cells hold the full float64 value. NaN and ±Inf cells hold the formula
// =NA(), which Excel shows as #N/A and charts skip.
//
// Sheet "Charts": one scatter chart (straight solid lines, no markers) per
// (group, unit) pair, at most 8 series each, x = time, referencing exactly
// the written data rows. The legend names each channel (the name is cached
// beside its cell reference, for viewers that do not evaluate references);
// a chart of one series is titled with its channel ("crank.omega [rad/s]"). Sheet "Channels": name, unit, group, description.
// Sheet "Run": the RunInfo key/value pairs. Sheet "Modes" (only if modes
// were given): frequencies, damping ratios, eigenvalues and mode shapes.
package results
