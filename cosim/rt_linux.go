package cosim

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Linux scheduling constants (sched.h) and resource limits
// (asm-generic/resource.h) that package syscall does not define.
const (
	schedFIFO     = 1
	rlimitMemlock = 8
	rlimitRTPrio  = 14
	maxCPUs       = 1024 // size of the affinity mask handled
)

type schedParam struct{ priority int32 }

type cpuMask [maxCPUs / 64]uint64

func (m *cpuMask) set(cpu int)      { m[cpu/64] |= 1 << (uint(cpu) % 64) }
func (m *cpuMask) has(cpu int) bool { return m[cpu/64]&(1<<(uint(cpu)%64)) != 0 }

func (m *cpuMask) list() string {
	var cpus []int
	for c := 0; c < maxCPUs; c++ {
		if m.has(c) {
			cpus = append(cpus, c)
		}
	}
	return cpuRanges(cpus)
}

// cpuRanges formats CPUs as "0-3,6".
func cpuRanges(cpus []int) string {
	sort.Ints(cpus)
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func getAffinity() (cpuMask, error) {
	var m cpuMask
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
	if e != 0 {
		return m, e
	}
	return m, nil
}

func setAffinity(m *cpuMask) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(*m), uintptr(unsafe.Pointer(m)))
	if e != 0 {
		return e
	}
	return nil
}

func getScheduler() (policy int, p schedParam, err error) {
	r, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, 0, 0, 0)
	if e != 0 {
		return 0, p, e
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETPARAM, 0, uintptr(unsafe.Pointer(&p)), 0); e != 0 {
		return 0, p, e
	}
	return int(r), p, nil
}

func setScheduler(policy int, p schedParam) error {
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, 0, uintptr(policy), uintptr(unsafe.Pointer(&p)))
	if e != 0 {
		return e
	}
	return nil
}

// rlimit returns the soft limit of resource r, or -1 for unlimited.
func rlimit(r int) int64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(r, &l); err != nil || l.Cur == ^uint64(0) {
		return -1
	}
	return int64(l.Cur)
}

// processKB is the resident size of the process in kB (VmRSS), or -1.
func processKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

func limitText(v int64, unit int64, what string) string {
	if v < 0 {
		return "unlimited"
	}
	return strconv.FormatInt(v/unit, 10) + what
}

// setupRT prepares the calling thread, which the caller has locked with
// runtime.LockOSThread, for a real-time loop as o asks: memory locked,
// pinned to CPUs, SCHED_FIFO. It returns what it did (for the summary) and
// a function that undoes it. On an error nothing is left changed.
func setupRT(o RunOptions) (done, warnings []string, restore func(), err error) {
	var undo []func()
	restore = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	fail := func(e error) ([]string, []string, func(), error) {
		restore()
		return nil, nil, func() {}, e
	}
	if o.MemLock {
		if err := syscall.Mlockall(syscall.MCL_CURRENT | syscall.MCL_FUTURE); err != nil {
			e := &RTError{Setting: "mlock", What: "locking the memory (mlockall)", Err: err}
			lim := rlimit(rlimitMemlock)
			switch {
			case errors.Is(err, syscall.EPERM):
				e.Need = fmt.Sprintf("needs the capability CAP_IPC_LOCK, or a locked-memory limit (ulimit -l, RLIMIT_MEMLOCK; now %s) above the process's size (%s)",
					limitText(lim, 1024, " kB"), limitText(processKB(), 1, " kB"))
			case errors.Is(err, syscall.ENOMEM), errors.Is(err, syscall.EAGAIN):
				e.Need = fmt.Sprintf("the locked-memory limit (ulimit -l, RLIMIT_MEMLOCK) is %s, less than the process maps (%s resident); raise it (memlock in /etc/security/limits.conf, LimitMEMLOCK= in a systemd unit) or grant CAP_IPC_LOCK",
					limitText(lim, 1024, " kB"), limitText(processKB(), 1, " kB"))
			}
			return fail(e)
		}
		undo = append(undo, func() { syscall.Munlockall() })
		done = append(done, "memory locked")
	}
	if len(o.CPUs) > 0 {
		old, err := getAffinity()
		if err != nil {
			return fail(&RTError{Setting: "cpu", What: "reading the CPU affinity", Err: err})
		}
		var m cpuMask
		for _, c := range o.CPUs {
			if c < 0 || c >= maxCPUs {
				return fail(&RTError{Setting: "cpu", What: fmt.Sprintf("CPU %d", c), Err: errors.New("out of range"),
					Need: "this process may run on CPUs " + old.list()})
			}
			if !old.has(c) {
				return fail(&RTError{Setting: "cpu", What: fmt.Sprintf("CPU %d", c), Err: errors.New("not available to this process"),
					Need: "it may run on CPUs " + old.list() + " (taskset, cpuset cgroup or the container limit it)"})
			}
			m.set(c)
		}
		if err := setAffinity(&m); err != nil {
			e := &RTError{Setting: "cpu", What: "pinning the loop to CPU " + cpuRanges(append([]int(nil), o.CPUs...)) + " (sched_setaffinity)", Err: err}
			if errors.Is(err, syscall.EPERM) {
				e.Need = "needs the capability CAP_SYS_NICE"
			}
			return fail(e)
		}
		undo = append(undo, func() { setAffinity(&old) })
		done = append(done, "on CPU "+cpuRanges(append([]int(nil), o.CPUs...)))
	}
	if o.Priority != 0 {
		if o.Priority < 1 || o.Priority > 99 {
			return fail(&RTError{Setting: "priority", What: fmt.Sprintf("SCHED_FIFO priority %d", o.Priority), Err: errors.New("out of range"), Need: "give 1 to 99"})
		}
		pol, par, err := getScheduler()
		if err != nil {
			return fail(&RTError{Setting: "priority", What: "reading the scheduling policy", Err: err})
		}
		if err := setScheduler(schedFIFO, schedParam{int32(o.Priority)}); err != nil {
			e := &RTError{Setting: "priority", What: fmt.Sprintf("running the loop under SCHED_FIFO at priority %d (sched_setscheduler)", o.Priority), Err: err}
			if errors.Is(err, syscall.EPERM) {
				e.Need = fmt.Sprintf("needs the capability CAP_SYS_NICE, or a real-time priority limit (ulimit -r, RLIMIT_RTPRIO; now %s) of at least %d; in a container or a cgroup-v1 CPU group, also a real-time budget (cpu.rt_runtime_us)",
					limitText(rlimit(rlimitRTPrio), 1, ""), o.Priority)
			}
			return fail(e)
		}
		undo = append(undo, func() { setScheduler(pol, par) })
		done = append(done, fmt.Sprintf("SCHED_FIFO priority %d", o.Priority))
		if w := rtThrottling(); w != "" {
			warnings = append(warnings, w)
		}
	}
	return done, warnings, restore, nil
}

// rtThrottling describes the kernel's real-time throttling when it is on:
// real-time threads may then run only sched_rt_runtime_us of every
// sched_rt_period_us, so a SCHED_FIFO loop that polls the clock is stopped
// for the rest of each period.
func rtThrottling() string {
	read := func(name string) int64 {
		b, err := os.ReadFile("/proc/sys/kernel/" + name)
		if err != nil {
			return -1
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			return -1
		}
		return v
	}
	rt, period := read("sched_rt_runtime_us"), read("sched_rt_period_us")
	if rt < 0 || period <= 0 || rt >= period {
		return ""
	}
	return fmt.Sprintf("real-time throttling is on (kernel.sched_rt_runtime_us = %d of %d): a SCHED_FIFO loop that polls the clock is stopped for %d ms every %d ms; on a real-time PC set it to -1 (docs/cosim.md)",
		rt, period, (period-rt)/1000, period/1000)
}
