package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mbfmu/study"
)

// buildMbfmu builds the command into a temporary folder.
func buildMbfmu(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "mbfmu")
	out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return exe
}

// sweepStudy writes a release-angle sweep of the catapult with n runs.
func sweepStudy(t *testing.T, dir string, n int) string {
	t.Helper()
	model, _ := filepath.Abs("../../examples/catapult/model.xml")
	src := fmt.Sprintf(`<study name="sweep">
  <model path=%q/>
  <factor name="release" param="release" min="100 deg" max="145 deg" levels="%d"/>
  <factor name="k" param="k" values="200 300"/>
  <design kind="full-factorial"/>
  <response name="vx" kind="at" signal="arm.bucket.vx" when="release - arm.angle"/>
  <response name="t_r" kind="crossing" when="release - arm.angle"/>
  <response name="e0" kind="initial" signal="spring.energy"/>
</study>`, model, n)
	path := filepath.Join(dir, "sweep.xml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rowsWithoutWall reads a runs CSV without its wall-time column.
func rowsWithoutWall(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	w := -1
	for i, h := range rows[0] {
		if h == "wall [s]" {
			w = i
		}
	}
	if w < 0 {
		t.Fatalf("%s: no wall column in %v", path, rows[0])
	}
	for i, r := range rows {
		rows[i] = append(r[:w:w], r[w+1:]...)
	}
	return rows
}

func sameRows(t *testing.T, a, b string) {
	t.Helper()
	ra, rb := rowsWithoutWall(t, a), rowsWithoutWall(t, b)
	if len(ra) != len(rb) {
		t.Fatalf("%s has %d rows, %s %d", a, len(ra), b, len(rb))
	}
	for i := range ra {
		if strings.Join(ra[i], ",") != strings.Join(rb[i], ",") {
			t.Fatalf("row %d differs:\n%s: %v\n%s: %v", i, a, ra[i], b, rb[i])
		}
	}
}

// storeRuns counts the complete lines of a store folder.
func storeRuns(dir string) int { return study.StoreCount(dir) }

// TestStudyInterrupt stops a study with SIGINT, then kills another with
// SIGKILL, and checks that the runs finished are kept (the store), that
// SIGINT exits with 130 after writing whole outputs, and that running the
// same command again simulates only the rest and gives the rows of an
// uninterrupted study.
func TestStudyInterrupt(t *testing.T) {
	exe := buildMbfmu(t)
	dir := t.TempDir()
	st := sweepStudy(t, dir, 60)
	full := filepath.Join(dir, "full.csv")
	if out, err := exec.Command(exe, "study", st, "-o", full, "--jobs", "2", "-q").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, "runs-"+sig.String()+".csv")
			store := strings.TrimSuffix(out, ".csv") + ".runs"
			cmd := exec.Command(exe, "study", st, "-o", out, "--jobs", "1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(60 * time.Second)
			for storeRuns(store) < 10 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("the study was not stopped (%v): it finished before the signal; stderr:\n%s", err, stderr.String())
			}
			done := storeRuns(store)
			if done < 10 || done >= 120 {
				t.Fatalf("%d runs in the store after %v", done, sig)
			}
			if sig == syscall.SIGINT {
				if code := ee.ExitCode(); code != 130 {
					t.Errorf("exit status %d after SIGINT, want 130; stderr:\n%s", code, stderr.String())
				}
				// the outputs hold the finished runs, whole
				rows := rowsWithoutWall(t, out)
				if len(rows)-1 != done {
					t.Errorf("the interrupted study wrote %d rows, the store holds %d runs", len(rows)-1, done)
				}
			}
			again, err := exec.Command(exe, "study", st, "-o", out, "--jobs", "2", "-q").CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, again)
			}
			if want := fmt.Sprintf("%d simulated now, %d from the store", 120-done, done); !strings.Contains(string(again), want) {
				t.Errorf("second run: want %q in\n%s", want, again)
			}
			sameRows(t, out, full)
		})
	}
}

// TestStudySlurm runs a small study through a real one-node Slurm cluster
// (scripts/slurm-local.sh starts it when the test runs as root) and checks
// that the rows equal those of the same study run locally: with --slurm
// (waiting), and with --no-wait then --collect. It stops the daemons it
// started.
func TestStudySlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no Slurm cluster")
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to start a one-node Slurm cluster with scripts/slurm-local.sh (slurm-wlm and munge)")
	}
	script, _ := filepath.Abs("../../scripts/slurm-local.sh")
	out, err := exec.Command("bash", script, "start").CombinedOutput()
	if err != nil {
		t.Skipf("no Slurm cluster could be started here (scripts/slurm-local.sh start: %v):\n%s", err, out)
	}
	if strings.Contains(string(out), "started") {
		t.Cleanup(func() {
			if out, err := exec.Command("bash", script, "stop").CombinedOutput(); err != nil {
				t.Errorf("scripts/slurm-local.sh stop: %v\n%s", err, out)
			}
		})
	}
	exe := buildMbfmu(t)
	dir := t.TempDir()
	st := sweepStudy(t, dir, 6) // 12 runs
	local := filepath.Join(dir, "local.csv")
	if out, err := exec.Command(exe, "study", st, "-o", local, "--jobs", "2", "-q").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// submit, wait, gather
	viaSlurm := filepath.Join(dir, "slurm.csv")
	// relative paths here, absolute ones in the tasks: the same runs
	cmd := exec.Command(exe, "study", filepath.Base(st), "--slurm", "--array-size", "3", "-o", "slurm.csv", "--xlsx", "slurm.xlsx")
	cmd.Dir = dir
	res, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mbfmu study --slurm: %v\n%s", err, res)
	}
	if !strings.Contains(string(res), "3 of 3 tasks completed") || !strings.Contains(string(res), "12 from the store") {
		t.Errorf("unexpected report:\n%s", res)
	}
	sameRows(t, viaSlurm, local)
	// each task wrote its own slice to the store
	files, _ := filepath.Glob(filepath.Join(dir, "slurm.runs", "task-*.jsonl"))
	if len(files) != 3 {
		t.Errorf("%d task files in the store, want 3", len(files))
	}
	// --no-wait, then --collect once the job has left the queue
	later := filepath.Join(dir, "later.csv")
	res, err = exec.Command(exe, "study", st, "--slurm", "--no-wait", "--array-size", "2", "-o", later).CombinedOutput()
	if err != nil {
		t.Fatalf("--no-wait: %v\n%s", err, res)
	}
	job := study.LastJob(filepath.Join(dir, "later.runs"))
	if job == "" {
		t.Fatalf("no job id recorded:\n%s", res)
	}
	deadline := time.Now().Add(120 * time.Second)
	for {
		m, err := study.QueueState(job)
		if err != nil {
			t.Fatal(err)
		}
		if len(m) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still queued: %v", job, m)
		}
		time.Sleep(500 * time.Millisecond)
	}
	res, err = exec.Command(exe, "study", st, "--collect", "-o", later).CombinedOutput()
	if err != nil {
		t.Fatalf("--collect: %v\n%s", err, res)
	}
	sameRows(t, later, local)
	// --slurm-script-only writes the script and submits nothing
	res, err = exec.Command(exe, "study", st, "--slurm-script-only", "--partition", "local", "--time", "5", "-o", filepath.Join(dir, "byhand.csv")).CombinedOutput()
	if err != nil {
		t.Fatalf("--slurm-script-only: %v\n%s", err, res)
	}
	sb, err := os.ReadFile(filepath.Join(dir, "byhand.runs", "slurm", "study.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --array=0-11", "#SBATCH --partition=local", "#SBATCH --time=5", "--tasks 12"} {
		if !strings.Contains(string(sb), want) {
			t.Errorf("script lacks %q:\n%s", want, sb)
		}
	}
	if study.LastJob(filepath.Join(dir, "byhand.runs")) != "" {
		t.Error("--slurm-script-only submitted a job")
	}
}
