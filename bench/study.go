package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
