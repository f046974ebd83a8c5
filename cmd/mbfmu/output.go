package main

// The outputs of a run and its end: output names checked before anything
// runs, files written through a temporary name (results.Outputs), SIGINT
// and SIGTERM turned into a clean stop (interrupt.Catcher), and a report
// of where the run stopped. The commands simulate, kinematics, static,
// eigen, export and cosim use these; a new command that writes results
// should too:
//
//	if err := checkOutputs([]string{model}, outputFlag{"-o", csv}, outputFlag{"--xlsx", xlsx}); err != nil { ... }
//	rc, err := startRun("study", csv, xlsx)  // opens the files, catches signals
//	for ... { if err := rc.stopped(); err != nil { runErr = err; break }; ...; rc.outs.Row(row) }
//	rc.xw.SetRunInfo(ri)                      // if rc.xw != nil
//	return rc.finish(runErr, "t = 2.5 s, 2500 steps")

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mbfmu/atomicfile"
	"mbfmu/interrupt"
	"mbfmu/results"
)

// outputFlag is an output file named on the command line.
type outputFlag struct {
	flag string // "-o", "--xlsx"
	path string // "" for none, "-" for standard output
}

// checkOutputs refuses, before anything runs, an output that would
// overwrite one of inputs, that names a folder or a file under a file, a
// workbook name without .xlsx, or two outputs naming one file. The message
// names the flag; the error is a usageError (exit status 2).
func checkOutputs(inputs []string, outs ...outputFlag) error {
	for i, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		if err := results.CheckOutput(o.path, inputs...); err != nil {
			return usagef("%s %s: %v", o.flag, o.path, err)
		}
		if o.flag == "--xlsx" && !strings.EqualFold(filepath.Ext(o.path), ".xlsx") {
			return usagef("%s %s: a workbook's name must end in .xlsx", o.flag, o.path)
		}
		for _, p := range outs[:i] {
			if p.path != "" && p.path != "-" && results.SamePath(p.path, o.path) {
				return usagef("%s %s: %s names the same file", o.flag, o.path, p.flag)
			}
		}
	}
	return nil
}

// runControl holds the outputs of a run and catches SIGINT and SIGTERM
// while it runs.
type runControl struct {
	what string
	outs *results.Outputs
	// xw is the workbook (nil without --xlsx): set its run information
	// before finish.
	xw    *results.XLSXWriter
	stop  *interrupt.Catcher
	start time.Time
}

// startRun opens the results outputs of a run (csv: a file, "-" for
// standard output or "" for none; xlsx: a workbook or ""), creating
// missing folders, and starts catching SIGINT and SIGTERM. Call finish at
// the end, whatever happens.
func startRun(what, csv, xlsx string) (*runControl, error) {
	rc := &runControl{what: what, outs: &results.Outputs{}, start: time.Now()}
	switch csv {
	case "":
	case "-":
		rc.outs.AddStream(results.NewCSVWriter(os.Stdout), "standard output")
	default:
		if err := rc.outs.AddCSV(csv); err != nil {
			rc.outs.Abort()
			return nil, fmt.Errorf("-o %s: %w", csv, err)
		}
	}
	if xlsx != "" {
		xw, err := rc.outs.AddXLSX(xlsx)
		if err != nil {
			rc.outs.Abort()
			return nil, fmt.Errorf("--xlsx %s: %w", xlsx, err)
		}
		rc.xw = xw
	}
	rc.stop = interrupt.Catch(os.Stderr)
	rc.stop.OnForce(rc.outs.RemoveTemps)
	return rc, nil
}

// stopped returns an *interrupt.Interrupted once SIGINT or SIGTERM came.
// It allocates nothing.
func (rc *runControl) stopped() error { return rc.stop.Err() }

// finish ends the run: it stops catching signals, closes the outputs
// (every file whose writes succeeded is committed with every row written,
// a file whose write failed is discarded) and reports on standard error.
// runErr is what stopped the run early (nil when it completed); where
// says where it stopped ("t = 2.5 s, 2500 steps"). The result is the error
// to return from the command: exit status 130 or 143 after a signal.
func (rc *runControl) finish(runErr error, where string) error {
	// Signals are caught until the files are complete: a second one while
	// they are written removes the temporary files and quits.
	cerr := rc.outs.Close()
	rc.stop.Stop()
	written := rc.outs.Written()
	files := "no file"
	if len(written) > 0 {
		files = strings.Join(written, ", ")
	}
	var oe *results.OutputError
	if e, ok := interrupt.Is(runErr); ok {
		fmt.Fprintf(os.Stderr, "%s: %s at %s; %d rows written to %s\n", rc.what, e, where, rc.outs.Rows(), files)
		if cerr != nil {
			fmt.Fprintf(os.Stderr, "mbfmu: %v\n", cerr)
		}
		return exitError(e.ExitCode())
	}
	if errors.As(runErr, &oe) || cerr != nil {
		// A write failed: say which file was not written and which were.
		err := cerr
		if err == nil {
			err = runErr
		}
		if len(written) > 0 {
			fmt.Fprintf(os.Stderr, "%s: stopped at %s; %d rows written to %s\n", rc.what, where, rc.outs.Rows(), files)
		}
		if runErr != nil && !errors.As(runErr, &oe) {
			return errors.Join(runErr, err)
		}
		return err
	}
	if runErr != nil && len(written) > 0 {
		fmt.Fprintf(os.Stderr, "%s: stopped at %s by the error below; the %d rows up to it are in %s\n", rc.what, where, rc.outs.Rows(), files)
	}
	return runErr
}

// catchQuit catches SIGINT and SIGTERM for a command that has no step
// to stop at (static, eigen, export, pack): the first signal quits at
// once with status 130 or 143, after removing the temporary files of the
// targets being written, so that nothing is left half-written. Call Stop
// on the result at the end.
func catchQuit(targets ...string) *interrupt.Catcher {
	return interrupt.CatchQuit(os.Stderr, func() { atomicfile.RemoveTemp(targets...) })
}

// progress prints the progress of a long run on standard error: on a
// terminal a line rewritten in place at most every half second, elsewhere
// (a file, a pipe, a batch job's log) a plain line every ten seconds.
type progress struct {
	w     io.Writer
	quiet bool
	tty   bool
	start time.Time
	last  time.Time
	what  string
	shown bool
}

func newProgress(what string, quiet bool) *progress {
	now := time.Now()
	return &progress{w: os.Stderr, quiet: quiet, tty: isTerminal(os.Stderr), start: now, last: now, what: what}
}

func (p *progress) update(t, t0, t1 float64) {
	if p.quiet {
		return
	}
	now := time.Now()
	every := 10 * time.Second
	if p.tty {
		every = 500 * time.Millisecond
	}
	if now.Sub(p.last) < every {
		return
	}
	p.last = now
	frac := (t - t0) / (t1 - t0)
	el := now.Sub(p.start).Seconds()
	eta := ""
	if frac > 0.01 {
		eta = fmt.Sprintf(", %.0f s left", el/frac-el)
	}
	line := fmt.Sprintf("%s: t = %.4g s of %.4g s (%3.0f%%)%s", p.what, t, t1, 100*frac, eta)
	if p.tty {
		fmt.Fprintf(p.w, "\r%s   ", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// done clears the progress line on a terminal.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
