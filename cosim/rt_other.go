//go:build !linux

package cosim

import "errors"

// setupRT refuses the real-time settings outside Linux.
func setupRT(o RunOptions) (done, warnings []string, restore func(), err error) {
	restore = func() {}
	errNo := errors.New("not supported on this system (Linux only)")
	switch {
	case o.MemLock:
		return nil, nil, restore, &RTError{Setting: "mlock", What: "locking the memory", Err: errNo}
	case len(o.CPUs) > 0:
		return nil, nil, restore, &RTError{Setting: "cpu", What: "pinning the loop to a CPU", Err: errNo}
	case o.Priority != 0:
		return nil, nil, restore, &RTError{Setting: "priority", What: "SCHED_FIFO", Err: errNo}
	}
	return nil, nil, restore, nil
}
