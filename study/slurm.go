package study

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Running a study on Slurm: the runs of a design (all known before any
// runs) are shared between the tasks of a job array; task i runs those
// whose index modulo K is i (a deterministic slice, balanced when run
// times vary along the design) and appends them to the store, which every
// task and the submitting command see (a shared file system). A study with
// an optimisation runs as a single task (its runs depend on one another)
// that uses its CPUs as workers. The submitting command then waits for
// the job to leave the queue (squeue) and gathers the runs from the store
// into the same outputs as a local run: the rows are identical but for the
// wall times.
//
// Slurm clusters without accounting (sacct says it is disabled) are
// common on small installations: the state of each task then comes from
// the marker it writes when it finishes (STORE/slurm/done-JOB-TASK).

// SlurmOptions describe the job array of a study.
type SlurmOptions struct {
	// Study and Store are the study file and the store folder; Exe the
	// mbfmu binary the tasks run (all made absolute in the script).
	Study, Store, Exe string
	// Partition and Time are passed to sbatch when not empty.
	Partition, Time string
	// ArraySize is the number of tasks (0: one per run, at most 100; always
	// 1 for a study that cannot be split); CPUs the CPUs per task, each
	// task running that many runs at once.
	ArraySize, CPUs int
	// KeepResults and RetryFailed are passed on to the tasks.
	KeepResults, RetryFailed bool
}

// SlurmJob is a written (and maybe submitted) job array.
type SlurmJob struct {
	// Script is the batch script's path; Tasks the array size; Runs the
	// number of runs it shares out (the design and sensitivities; 0 for an
	// optimisation).
	Script string
	Tasks  int
	Runs   int
	// ID is the job id once submitted.
	ID string
	// Dir is the folder of the script, task outputs and markers.
	Dir string
}

// PlannedRuns is the number of runs known before running (the design and
// the sensitivities about the nominal point); an optimisation adds more.
func (p *Prepared) PlannedRuns() int {
	n := 0
	if p.Design != nil {
		n += len(p.designPoints())
	}
	if s := p.Sensitivity; s != nil && s.At == "nominal" {
		pts, _, _ := p.sensitivityPoints(p.nominal())
		n += len(pts)
	}
	return n
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WriteSlurmScript writes the batch script of the study's job array to
// STORE/slurm/study.sbatch.
func (p *Prepared) WriteSlurmScript(o SlurmOptions) (*SlurmJob, error) {
	abs := func(s string) (string, error) {
		if s == "" {
			return "", errors.New("slurm: empty path")
		}
		return filepath.Abs(s)
	}
	studyPath, err := abs(o.Study)
	if err != nil {
		return nil, err
	}
	store, err := abs(o.Store)
	if err != nil {
		return nil, err
	}
	exe, err := abs(o.Exe)
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	job := &SlurmJob{Dir: filepath.Join(store, "slurm"), Runs: p.PlannedRuns()}
	if err := os.MkdirAll(job.Dir, 0o755); err != nil {
		return nil, err
	}
	k := o.ArraySize
	switch {
	case !p.Sliceable():
		k, job.Runs = 1, 0
	case k <= 0:
		k = min(max(job.Runs, 1), 100)
	}
	k = min(k, max(job.Runs, 1))
	job.Tasks = k
	cpus := max(o.CPUs, 1)
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# Job array of the mbfmu study %q (%s), written by `mbfmu study --slurm`.\n", p.Name, studyPath)
	if job.Runs > 0 {
		fmt.Fprintf(&b, "# Each of the %d tasks runs its slice of the %d runs (those whose index modulo %d is\n# the task's index) and appends them to the store %s.\n", k, job.Runs, k, store)
	} else {
		fmt.Fprintf(&b, "# The study optimises, so one task runs it all, with %d workers, and fills the store %s.\n", cpus, store)
	}
	fmt.Fprintf(&b, "# Gather the runs into the outputs with:\n#   %s study %s --collect -o runs.csv --xlsx study.xlsx --store %s\n", exe, shellQuote(studyPath), shellQuote(store))
	fmt.Fprintf(&b, "#SBATCH --job-name=mbfmu-%s\n", safeName(p.Name))
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", k-1)
	fmt.Fprintf(&b, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n", cpus)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(job.Dir, "task-%A_%a.out"))
	if o.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", o.Partition)
	}
	if o.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", o.Time)
	}
	fmt.Fprintf(&b, "set -eu\ncd %s\n", shellQuote(cwd))
	fmt.Fprintf(&b, "exec %s study %s --store %s --task \"$SLURM_ARRAY_TASK_ID\" --tasks %d --jobs \"${SLURM_CPUS_PER_TASK:-%d}\" -q", shellQuote(exe), shellQuote(studyPath), shellQuote(store), k, cpus)
	if o.KeepResults {
		b.WriteString(" --keep-results")
	}
	if o.RetryFailed {
		b.WriteString(" --retry-failed")
	}
	b.WriteString("\n")
	job.Script = filepath.Join(job.Dir, "study.sbatch")
	if err := writeAtomic(job.Script, func(w io.Writer) error { _, err := w.Write([]byte(b.String())); return err }); err != nil {
		return nil, err
	}
	return job, os.Chmod(job.Script, 0o755)
}

// Submit submits the script with sbatch and records the job id in
// Dir/job.
func (j *SlurmJob) Submit() error {
	out, err := exec.Command("sbatch", "--parsable", j.Script).CombinedOutput()
	if err != nil {
		return fmt.Errorf("sbatch %s: %v: %s", j.Script, err, strings.TrimSpace(string(out)))
	}
	id := strings.TrimSpace(string(out))
	if i := strings.IndexByte(id, ';'); i >= 0 {
		id = id[:i] // "jobid;cluster"
	}
	if _, err := strconv.Atoi(id); err != nil {
		return fmt.Errorf("sbatch %s: unexpected answer %q", j.Script, id)
	}
	j.ID = id
	return os.WriteFile(filepath.Join(j.Dir, "job"), []byte(id+"\n"), 0o644)
}

// LastJob returns the id of the job last submitted for the store ("" when
// none).
func LastJob(store string) string {
	b, err := os.ReadFile(filepath.Join(store, "slurm", "job"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// QueueState lists the job's array tasks still in the queue (squeue):
// task → state. An empty map means the job has left the queue.
func QueueState(id string) (map[string]string, error) {
	out, err := exec.Command("squeue", "-h", "-r", "-j", id, "-o", "%i %T").CombinedOutput()
	if err != nil {
		s := string(out)
		if strings.Contains(s, "Invalid job id") {
			return map[string]string{}, nil // purged: finished
		}
		return nil, fmt.Errorf("squeue -j %s: %v: %s", id, err, strings.TrimSpace(s))
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 {
			m[f[0]] = f[1]
		}
	}
	return m, nil
}

// Wait polls squeue until the job has left the queue, calling report
// with the number of tasks pending and running.
func (j *SlurmJob) Wait(ctx context.Context, every time.Duration, report func(pending, running int)) error {
	fails := 0
	for {
		m, err := QueueState(j.ID)
		if err != nil {
			fails++
			if fails > 5 {
				return err
			}
		} else {
			fails = 0
			if len(m) == 0 {
				return nil
			}
			if report != nil {
				pend, run := 0, 0
				for _, s := range m {
					switch s {
					case "PENDING":
						pend++
					default:
						run++
					}
				}
				report(pend, run)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}

// TaskReport is the outcome of one array task.
type TaskReport struct {
	Task   int
	State  string // COMPLETED, FAILED, TIMEOUT… (sacct), or done/not done (markers)
	Source string // "sacct" or "marker"
	Output string // the task's output file
}

// Report gives the state of every task: from sacct when the cluster
// keeps accounting, else from the markers the tasks write when they end.
func (j *SlurmJob) Report() []TaskReport {
	reps := make([]TaskReport, j.Tasks)
	for i := range reps {
		reps[i] = TaskReport{Task: i, Output: filepath.Join(j.Dir, fmt.Sprintf("task-%s_%d.out", j.ID, i))}
	}
	if out, err := exec.Command("sacct", "-j", j.ID, "-X", "-n", "-P", "-o", "JobID,State").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
		found := 0
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Split(sc.Text(), "|")
			if len(f) != 2 {
				continue
			}
			_, t, ok := strings.Cut(f[0], "_")
			k, err := strconv.Atoi(t)
			if !ok || err != nil || k < 0 || k >= len(reps) {
				continue
			}
			reps[k].State, reps[k].Source = strings.Fields(f[1] + " ?")[0], "sacct"
			found++
		}
		if found == len(reps) {
			return reps
		}
	}
	for i := range reps {
		if reps[i].Source != "" {
			continue
		}
		reps[i].Source = "marker"
		if _, err := os.Stat(TaskMarker(filepath.Dir(j.Dir), j.ID, i)); err == nil {
			reps[i].State = "COMPLETED"
		} else {
			reps[i].State = "NOT COMPLETED (no marker)"
		}
	}
	return reps
}

// TaskMarker is the file an array task writes when it has run its slice.
func TaskMarker(store, job string, task int) string {
	return filepath.Join(store, "slurm", fmt.Sprintf("done-%s-%d", job, task))
}

// WriteTaskMarker writes the marker of a finished task.
func WriteTaskMarker(store, job string, task int, summary string) error {
	path := TaskMarker(store, job, task)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error { _, err := w.Write([]byte(summary + "\n")); return err })
}

// StoreCount counts the runs recorded in a store folder (for progress
// while a job array runs).
func StoreCount(store string) int {
	files, _ := filepath.Glob(filepath.Join(store, "*.jsonl"))
	sort.Strings(files)
	ids := map[string]bool{}
	for _, fn := range files {
		data, err := os.ReadFile(fn)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if i := bytes.Index(line, []byte(`"id":"`)); i >= 0 {
				rest := line[i+6:]
				if j := bytes.IndexByte(rest, '"'); j > 0 && bytes.HasSuffix(bytes.TrimSpace(line), []byte("}")) {
					ids[string(rest[:j])] = true
				}
			}
		}
	}
	return len(ids)
}

// SlurmAvailable reports whether the Slurm commands are installed and a
// controller answers.
func SlurmAvailable() bool {
	if _, err := exec.LookPath("sbatch"); err != nil {
		return false
	}
	return exec.Command("squeue", "-h", "-o", "%i").Run() == nil
}
