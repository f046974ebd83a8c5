package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"mbfmu/study"
)

// StudyRun is the outcome of one timed study.
type StudyRun struct {
	Runs int
	// Wall is the study's wall time; Sim the sum over its runs of the
	// time spent simulating (initialisation and stepping); RunWall the sum
	// of the runs' wall times in their workers.
	Wall         time.Duration
	Sim, RunWall time.Duration
	Rows         [][]float64
}

// pidStudy is a sweep of the proportional gain of the slider–crank PID
// co-simulation over n runs of 1 s.
func pidStudy(examples string, n int) string {
	cfg, _ := filepath.Abs(filepath.Join(examples, "slider-crank-pid", "cosim.xml"))
	return fmt.Sprintf(`<study name="bench-pid">
  <cosim path=%q end="1 s" checks="false"/>
  <factor name="kp" param="pid.kp" min="2" max="8" levels="%d"/>
  <design kind="full-factorial"/>
  <response name="iae" kind="integral" signal="abs(w_ref.y - plant.omega)"/>
  <response name="u_max" kind="max-abs" signal="pid.u"/>
</study>`, cfg, n)
}

// PIDStudy runs n runs of the slider–crank PID co-simulation (1 s each)
// as a study on jobs workers, with an empty store.
func PIDStudy(examples string, n, jobs int) (*StudyRun, error) {
	dir, err := os.MkdirTemp("", "mbfmu-bench-study-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "study.xml")
	if err := os.WriteFile(path, []byte(pidStudy(examples, n)), 0o644); err != nil {
		return nil, err
	}
	st, err := study.Load(path)
	if err != nil {
		return nil, err
	}
	p, err := study.Prepare(st)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	res, err := p.Execute(context.Background(), study.Options{Jobs: jobs, Store: filepath.Join(dir, "store")})
	if err != nil {
		return nil, err
	}
	out := &StudyRun{Runs: len(res.Runs), Wall: time.Since(t0)}
	for _, r := range res.Runs {
		if !r.OK() {
			return nil, fmt.Errorf("bench study: run %d failed: %s", r.Index, r.Reason)
		}
		out.Sim += time.Duration(r.Sim * 1e9)
		out.RunWall += time.Duration(r.Wall * 1e9)
		out.Rows = append(out.Rows, append([]float64(nil), r.R...))
	}
	return out, nil
}

// StudyRows measures the design-study rows of the table: the slider–crank
// PID co-simulation (1 s) run 200 times as a study on 1 and on 2 jobs (the
// median of rounds studies each), the speed-up, the per-run overhead beyond
// the simulation itself, and the overhead per Slurm array task when a
// cluster answers.
func StudyRows(w io.Writer, examples string, rounds int, add func(Row)) error {
	const n = 200
	var walls [3][]float64
	var over []float64
	for r := 0; r < rounds; r++ {
		for j := 1; j <= 2; j++ {
			s, err := PIDStudy(examples, n, j)
			if err != nil {
				return err
			}
			walls[j] = append(walls[j], s.Wall.Seconds())
			if j == 1 {
				// wall per run beyond the simulation (Init and stepping):
				// building the co-simulation, responses, the store
				over = append(over, (s.Wall.Seconds()-s.Sim.Seconds())/n)
			}
		}
	}
	w1, w2 := median(walls[1]), median(walls[2])
	label := "study: slider–crank PID, 200 × 1 s"
	// what the machine gives two threads now (it is shared): the speed-up
	// of two busy loops, the ceiling of the study's
	add(Row{"machine: two busy loops", "speed-up on 2 threads", spinSpeedup(), "", "", "", ""})
	add(Row{label, "wall time, 1 job", w1, "s", "", "", ""})
	add(Row{label, "wall time, 2 jobs", w2, "s", "", "", ""})
	sp := w1 / w2
	add(Row{label, "speed-up on 2 jobs", sp, "", "≥ 1.8", "", pass(sp >= 1.8)})
	ov := median(over) * 1e6
	add(Row{label, "overhead per run (1 job)", ov, "µs", "≤ 1000", "", pass(ov <= 1000)})
	if !study.SlurmAvailable() {
		fmt.Fprintf(w, "%-34s %-26s %12s\n", "study: Slurm, 8 array tasks", "overhead per array task", "n/a (no slurm)")
		return nil
	}
	per, err := SlurmOverhead(examples, 8)
	if err != nil {
		fmt.Fprintf(w, "# Slurm: %v\n", err)
		return nil
	}
	add(Row{"study: Slurm, 8 array tasks", "overhead per array task", per.Seconds(), "s", "", "", ""})
	return nil
}

// SlurmOverhead runs a study of k runs (the PID co-simulation, 1 s each)
// as k Slurm array tasks of one CPU and the same study locally on as many
// workers as the cluster runs tasks at once (the CPUs here), and returns
// the extra wall time per task: (W_slurm − W_local) × concurrent / k.
func SlurmOverhead(examples string, k int) (time.Duration, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "mbfmu-bench-slurm-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "study.xml")
	if err := os.WriteFile(path, []byte(pidStudy(examples, k)), 0o644); err != nil {
		return 0, err
	}
	st, err := study.Load(path)
	if err != nil {
		return 0, err
	}
	p, err := study.Prepare(st)
	if err != nil {
		return 0, err
	}
	par := min(runtime.NumCPU(), k)
	t0 := time.Now()
	if _, err := p.Execute(context.Background(), study.Options{Jobs: par, Store: filepath.Join(dir, "local")}); err != nil {
		return 0, err
	}
	local := time.Since(t0)
	store := filepath.Join(dir, "slurm")
	t0 = time.Now()
	job, err := p.WriteSlurmScript(study.SlurmOptions{Study: path, Store: store, Exe: exe, ArraySize: k, CPUs: 1})
	if err != nil {
		return 0, err
	}
	if err := job.Submit(); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := job.Wait(ctx, 100*time.Millisecond, nil); err != nil {
		return 0, err
	}
	res, err := p.Execute(context.Background(), study.Options{Jobs: 1, Store: store, Collect: true})
	if err != nil {
		return 0, err
	}
	if m := res.Missing(); m > 0 {
		return 0, fmt.Errorf("%d runs missing after the job (see %s)", m, job.Dir)
	}
	slurm := time.Since(t0)
	return time.Duration(float64(slurm-local) * float64(par) / float64(k)), nil
}

// spinSpeedup measures how much faster two threads run two busy loops
// than one thread runs both: about 2 on an idle 2-core machine, less when
// other processes hold a core.
func spinSpeedup() float64 {
	spin := func() float64 {
		x := 0.0
		for i := 0; i < 200_000_000; i++ {
			x += float64(i) * 1e-9
		}
		return x
	}
	var sink [2]float64
	t0 := time.Now()
	sink[0] = spin()
	sink[1] = spin()
	one := time.Since(t0)
	t0 = time.Now()
	done := make(chan float64)
	go func() { done <- spin() }()
	go func() { done <- spin() }()
	sink[0], sink[1] = <-done, <-done
	two := time.Since(t0)
	if sink[0] != sink[1] {
		panic("bench: busy loops disagree")
	}
	return float64(one) / float64(two)
}
