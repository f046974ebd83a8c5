package cosim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The real-time settings: pinning to CPU 0 works wherever this test runs;
// locking memory and SCHED_FIFO work when permitted, and otherwise fail
// with a message naming the capability and the limit needed.
func TestRealTimeSettings(t *testing.T) {
	dir := t.TempDir()
	p := writeRTConfig(t, dir)
	run := func(o RunOptions) (*Summary, error) {
		m := newMaster(t, p, Options{End: 0.05})
		o.RealTime = true
		return m.Run(o)
	}
	sum, err := run(RunOptions{CPUs: []int{0}})
	if err != nil || !strings.Contains(strings.Join(sum.RTSetup, ","), "on CPU 0") {
		t.Fatalf("CPU 0: %v %v", err, sum)
	}
	for _, c := range []struct {
		o    RunOptions
		set  string
		want string
	}{
		{RunOptions{CPUs: []int{maxCPUs - 1}}, "cpu", "CPU 1023: not available to this process; it may run on CPUs 0"},
		{RunOptions{CPUs: []int{-1}}, "cpu", "out of range"},
		{RunOptions{Priority: 100}, "priority", "give 1 to 99"},
	} {
		_, err := run(c.o)
		var re *RTError
		if !errors.As(err, &re) || re.Setting != c.set || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %s: …%s…", c.o, err, c.set, c.want)
		}
	}
	// Permitted or not, each setting ends with a clear outcome.
	for _, c := range []struct {
		o          RunOptions
		done, need string
	}{
		{RunOptions{MemLock: true}, "memory locked", "CAP_IPC_LOCK"},
		{RunOptions{Priority: 10}, "SCHED_FIFO priority 10", "CAP_SYS_NICE"},
	} {
		sum, err := run(c.o)
		switch {
		case err == nil && strings.Contains(strings.Join(sum.RTSetup, ","), c.done):
			t.Logf("%s: permitted here", c.done)
		case err != nil && strings.Contains(err.Error(), c.need):
			t.Logf("%s: refused here: %v", c.done, err)
		default:
			t.Errorf("%+v: %v, %v", c.o, err, sum)
		}
	}
	// The loop's thread is back to normal after the run: a later run
	// without settings is not under SCHED_FIFO.
	if pol, _, err := getScheduler(); err != nil || pol != 0 {
		t.Errorf("scheduling policy after the runs: %d, %v", pol, err)
	}
	if os.Geteuid() == 0 {
		testRTRefusedUnprivileged(t)
	}
}

// testRTRefusedUnprivileged runs this test binary as user nobody (uid
// 65534), which has neither CAP_IPC_LOCK nor CAP_SYS_NICE, to check the
// messages of refused settings: EPERM for SCHED_FIFO (RLIMIT_RTPRIO is 0
// on a default system), EPERM or ENOMEM for mlockall.
func testRTRefusedUnprivileged(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir, err := os.MkdirTemp("", "mbfmu-rt-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	writeRTConfig(t, dir)
	bin := filepath.Join(dir, "cosim.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestRTRefusedChild$", "-test.v")
	cmd.Env = append(os.Environ(), "MBFMU_RT_CHILD=1")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("as user nobody: %v\n%s", err, out)
	}
	t.Logf("as user nobody:\n%s", out)
}

// TestRTRefusedChild runs only as the child of TestRealTimeSettings, as
// an unprivileged user.
func TestRTRefusedChild(t *testing.T) {
	if os.Getenv("MBFMU_RT_CHILD") == "" {
		t.Skip("run by TestRealTimeSettings as user nobody")
	}
	cfg, err := LoadConfig("rt.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o          RunOptions
		set        string
		need, done string
	}{
		{RunOptions{RealTime: true, Priority: 10}, "priority", "needs the capability CAP_SYS_NICE, or a real-time priority limit (ulimit -r, RLIMIT_RTPRIO; now 0) of at least 10", ""},
		{RunOptions{RealTime: true, MemLock: true}, "mlock", "RLIMIT_MEMLOCK", "memory locked"},
	} {
		m, err := New(cfg, Options{End: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := m.Run(c.o)
		m.Close()
		var re *RTError
		switch {
		case err == nil && c.done != "" && strings.Contains(strings.Join(sum.RTSetup, ","), c.done):
			// mlockall fits under a generous RLIMIT_MEMLOCK
			fmt.Printf("%s permitted for nobody (RLIMIT_MEMLOCK %d)\n", c.set, rlimit(rlimitMemlock))
		case errors.As(err, &re) && re.Setting == c.set && strings.Contains(err.Error(), c.need):
			fmt.Printf("refused as wanted: %v\n", err)
		default:
			t.Errorf("%s: %v, want a message with %q", c.set, err, c.need)
		}
	}
}
