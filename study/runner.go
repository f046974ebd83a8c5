package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"mbfmu/results"
)

var clockBase = time.Now()

// nowSeconds is a monotonic clock in seconds.
func nowSeconds() float64 { return time.Since(clockBase).Seconds() }

// Run is one simulation of a study: its factor values and responses.
type Run struct {
	// Index numbers the runs from 1 in the order the study asks for them
	// (design, then optimisation, then sensitivities): the row order of
	// the outputs, the same whatever the number of jobs.
	Index int
	// ID identifies the run in the store (see Prepared.RunID).
	ID string
	// Phase is "design", "optimize" or "sensitivity"; Label names a case,
	// the nominal point or a finite-difference step.
	Phase, Label string
	// X holds the factor values, R the responses (NaN when the run failed
	// before its end).
	X, R []float64
	// Status is StatusOK, StatusFailed or StatusMissing (--collect of a run
	// not done yet).
	Status string
	// Reason says why a run failed.
	Reason string
	// Wall is the run's wall time in its worker (s); Sim the part spent
	// simulating (initialisation and stepping).
	Wall, Sim float64
	// Cached is true when the run was taken from the store.
	Cached bool
}

// Run statuses.
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusMissing = "missing"
)

// OK reports whether the run succeeded.
func (r *Run) OK() bool { return r.Status == StatusOK }

// Progress reports how far a study is.
type Progress struct {
	// Phase is the phase being run.
	Phase string
	// Done counts finished runs of the study so far (taken from the store
	// included), Total the runs planned (an optimisation adds its
	// evaluations as they come), Failed the failed ones, Cached those
	// taken from the store.
	Done, Total, Failed, Cached int
	// Elapsed is the wall time since the study started; Left estimates
	// the time left (negative when unknown).
	Elapsed, Left time.Duration
	// Note is a short phase-specific text (the best objective so far).
	Note string
}

type point struct {
	x            []float64
	phase, label string
}

type job struct {
	run *Run
}

type jobDone struct {
	run       *Run
	cancelled bool
	err       error // a problem of the study itself (not of the run)
}

// runner runs points on the workers, through the store.
type runner struct {
	p  *Prepared
	o  *Options
	st *store

	byID map[string]*Run
	runs []*Run

	mu      sync.Mutex
	started bool
	jobs    chan job
	done    chan jobDone
	wg      sync.WaitGroup
	ctx     context.Context

	t0                           time.Time
	total, ndone, failed, cached int
	newRuns                      int
	newWall                      float64 // wall time of the runs simulated here
	phase, note                  string
	extra                        int // runs still expected (an optimisation's remaining budget)
	simulated                    int
}

func newRunner(ctx context.Context, p *Prepared, o *Options, st *store) *runner {
	return &runner{p: p, o: o, st: st, byID: map[string]*Run{}, ctx: ctx, t0: time.Now()}
}

// startWorkers starts the workers, each with its own target worker
// (models compiled once per worker, reused from run to run).
func (r *runner) startWorkers() error {
	if r.started {
		return nil
	}
	n := max(1, r.o.Jobs)
	r.jobs = make(chan job)
	r.done = make(chan jobDone, n)
	tws := make([]targetWorker, n)
	for i := range tws {
		tw, err := r.p.tgt.newWorker()
		if err != nil {
			return err
		}
		tws[i] = tw
	}
	r.started = true
	for i := 0; i < n; i++ {
		r.wg.Add(1)
		go r.worker(tws[i])
	}
	return nil
}

func (r *runner) stop() {
	if r.started {
		close(r.jobs)
		r.wg.Wait()
		r.started = false
	}
}

func (r *runner) worker(tw targetWorker) {
	defer r.wg.Done()
	resp := r.p.newResponder()
	for j := range r.jobs {
		r.done <- r.execute(tw, resp, j.run)
	}
}

// execute simulates one run.
func (r *runner) execute(tw targetWorker, resp *responder, run *Run) (d jobDone) {
	d.run = run
	defer func() {
		if e := recover(); e != nil {
			run.Status, run.Reason = StatusFailed, fmt.Sprintf("internal error: %v", e)
			for i := range run.R {
				run.R[i] = math.NaN()
			}
		}
	}()
	t0 := nowSeconds()
	resp.reset(run.X)
	rowFn := resp.row
	var kw *results.CSVFile // the run's own results (--keep-results)
	if r.o.KeepResults {
		var err error
		kw, err = keepResults(r.st.resultsPath(run.ID), r.p.cols)
		if err != nil {
			d.err = err
			return d
		}
		rowFn = func(v []float64) error {
			if err := kw.Row(v); err != nil {
				return err
			}
			return resp.row(v)
		}
	}
	sim, err := tw.run(r.ctx, run.X, rowFn)
	run.Sim = sim
	var fail *runFailure
	switch {
	case err == nil:
		run.Status = StatusOK
	case errors.As(err, &fail):
		run.Status, run.Reason = StatusFailed, fail.msg
	case r.ctx.Err() != nil:
		if kw != nil {
			kw.Abort()
		}
		d.cancelled = true
		return d
	default:
		if kw != nil {
			kw.Abort()
		}
		d.err = err
		return d
	}
	if err == nil || fail.completed {
		resp.responses(run.X, run.R)
	} else {
		for i := range run.R {
			run.R[i] = math.NaN()
		}
	}
	if kw != nil {
		if err := kw.Close(); err != nil {
			d.err = err
			return d
		}
	}
	run.Wall = math.Round((nowSeconds()-t0)*1e6) / 1e6
	run.Sim = math.Round(run.Sim*1e6) / 1e6
	return d
}

// keepResults starts the CSV file of one run's results, which appears
// under path (its folder created if missing) only when the run ends.
func keepResults(path string, cols []results.Column) (*results.CSVFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := results.CreateCSV(path)
	if err != nil {
		return nil, err
	}
	if err := f.Header(cols); err != nil {
		f.Abort()
		return nil, err
	}
	return f, nil
}

// errInterrupted is returned when the context is cancelled.
var errInterrupted = errors.New("interrupted")

// eval returns the runs of the points, in order, running those neither
// done in this study nor in the store. Runs get their index in the order
// of first request. With skip, points whose index it rejects are not run
// (a Slurm task's slice); they come back nil.
func (r *runner) eval(pts []point, skip func(index int) bool) ([]*Run, error) {
	out := make([]*Run, len(pts))
	var pending []*Run
	for i, pt := range pts {
		id := r.p.RunID(pt.x)
		if run, ok := r.byID[id]; ok {
			out[i] = run
			continue
		}
		run := &Run{Index: len(r.runs) + 1, ID: id, Phase: pt.phase, Label: pt.label,
			X: append([]float64(nil), pt.x...), R: make([]float64, len(r.p.Responses))}
		r.runs = append(r.runs, run)
		r.byID[id] = run
		r.total++
		if skip != nil && skip(run.Index) {
			run.Status = "skipped"
			continue
		}
		out[i] = run
		if rec, ok := r.st.get(id); ok && (rec.Status == StatusOK || !r.o.RetryFailed) && len(rec.R) == len(run.R) {
			run.R = floats(rec.R)
			run.Status, run.Reason, run.Wall, run.Sim, run.Cached = rec.Status, rec.Reason, rec.Wall, rec.Sim, true
			r.ndone++
			r.cached++
			if run.Status != StatusOK {
				r.failed++
			}
			continue
		}
		if r.o.Collect {
			run.Status, run.Reason = StatusMissing, "not in the store"
			for k := range run.R {
				run.R[k] = math.NaN()
			}
			r.ndone++
			continue
		}
		pending = append(pending, run)
	}
	r.report(false)
	if len(pending) == 0 {
		return out, nil
	}
	if err := r.ctx.Err(); err != nil {
		return out, errInterrupted
	}
	if err := r.startWorkers(); err != nil {
		return out, err
	}
	next, inFlight := 0, 0
	var firstErr error
	cancelled := false
	for next < len(pending) || inFlight > 0 {
		var send chan job
		var j job
		if next < len(pending) && firstErr == nil && !cancelled && r.ctx.Err() == nil {
			send, j = r.jobs, job{pending[next]}
		}
		if send == nil && inFlight == 0 {
			break
		}
		select {
		case send <- j:
			next++
			inFlight++
		case d := <-r.done:
			inFlight--
			switch {
			case d.err != nil:
				if firstErr == nil {
					firstErr = d.err
				}
			case d.cancelled:
				cancelled = true
			default:
				run := d.run
				rec := &record{ID: run.ID, X: strs(run.X), R: strs(run.R), Status: run.Status, Reason: run.Reason, Wall: run.Wall, Sim: run.Sim}
				if err := r.st.put(rec); err != nil && firstErr == nil {
					firstErr = err
				}
				r.ndone++
				r.newRuns++
				r.newWall += run.Wall
				r.simulated++
				if run.Status != StatusOK {
					r.failed++
				}
				r.report(false)
			}
		case <-r.ctx.Done():
			cancelled = true
		}
	}
	if firstErr != nil {
		return out, firstErr
	}
	if next < len(pending) || cancelled {
		// runs not finished are not in the outputs
		for _, run := range pending {
			if run.Status == "" {
				run.Status = "interrupted"
			}
		}
		return out, errInterrupted
	}
	return out, nil
}

// report sends a progress report.
func (r *runner) report(force bool) {
	if r.o.Progress == nil {
		return
	}
	now := time.Now()
	pr := Progress{Phase: r.phase, Done: r.ndone, Total: r.total + r.extra, Failed: r.failed, Cached: r.cached,
		Elapsed: now.Sub(r.t0), Left: -1, Note: r.note}
	if r.newRuns > 0 && pr.Total >= r.ndone {
		// runs left × mean time per run done here (an upper bound during
		// an optimisation, which may converge before its budget)
		el := now.Sub(r.t0).Seconds()
		per := el / float64(r.newRuns)
		pr.Left = time.Duration(per * float64(pr.Total-r.ndone) * float64(time.Second))
	}
	r.o.Progress(pr)
}

// plannedRuns lists the study's runs in index order, without those a
// Slurm slice skipped or an interruption left undone.
func (r *runner) plannedRuns() []*Run {
	var out []*Run
	for _, run := range r.runs {
		switch run.Status {
		case StatusOK, StatusFailed, StatusMissing:
			out = append(out, run)
		}
	}
	return out
}
