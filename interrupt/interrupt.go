// Package interrupt turns SIGINT (Ctrl-C) and SIGTERM (sent by kill, by
// Slurm when a job is cancelled or runs out of time, by systemd) into a
// request to stop a long run cleanly: the run polls Catcher.Err between
// steps, finishes the step it is in, writes every row it computed, says
// where it stopped and exits with Interrupted.ExitCode (130 for SIGINT,
// 143 for SIGTERM, the shells' convention). A second signal quits at once,
// after a clean-up function removed temporary files.
//
// Typical use in a command:
//
//	c := interrupt.Catch(os.Stderr)
//	defer c.Stop()
//	c.OnForce(outputs.RemoveTemps)
//	for ... {
//		if err := c.Err(); err != nil { break } // *interrupt.Interrupted
//		...one step...
//	}
package interrupt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// Interrupted is the error of a run stopped by a signal.
type Interrupted struct {
	// Signal is the signal received (SIGINT or SIGTERM).
	Signal syscall.Signal
}

// Error says which signal stopped the run.
func (e *Interrupted) Error() string { return "interrupted by " + SignalName(e.Signal) }

// ExitCode is the exit status of a process ended by the signal, by the
// shells' convention: 128 + the signal number (130 for SIGINT, 143 for
// SIGTERM).
func (e *Interrupted) ExitCode() int { return 128 + int(e.Signal) }

// SignalName names a signal as users know it: "SIGINT (Ctrl-C)", "SIGTERM".
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return fmt.Sprintf("signal %d (%v)", int(s), s)
}

// Is reports whether err is, or wraps, an *Interrupted, and returns it.
func Is(err error) (*Interrupted, bool) {
	var e *Interrupted
	ok := errors.As(err, &e)
	return e, ok
}

// Catcher catches SIGINT and SIGTERM for one run. A nil *Catcher is valid
// and never reports a signal. Err and Requested are safe to call from any
// goroutine and allocate nothing, so a real-time loop may poll them every
// step.
type Catcher struct {
	err   atomic.Pointer[Interrupted]
	done  chan struct{} // closed at the first signal (Done)
	ch    chan os.Signal
	stop  chan struct{}
	w     io.Writer
	mu    sync.Mutex
	force func()
	exit  func(code int) // os.Exit; replaced in tests
	once  sync.Once
	quit  bool // the first signal quits (CatchQuit)
}

// Catch starts catching SIGINT and SIGTERM. On the first signal the
// Catcher records it and writes a note to w (nil: nothing), and the run is
// expected to stop at its next step. On a second signal it calls the
// function given to OnForce, if any, writes a note and exits at once with
// the signal's exit status.
func Catch(w io.Writer) *Catcher { return start(w, false, nil) }

func start(w io.Writer, quit bool, cleanup func()) *Catcher {
	c := &Catcher{ch: make(chan os.Signal, 2), stop: make(chan struct{}), done: make(chan struct{}), w: w, exit: os.Exit, quit: quit, force: cleanup}
	signal.Notify(c.ch, syscall.SIGINT, syscall.SIGTERM)
	go c.loop()
	return c
}

// CatchQuit catches SIGINT and SIGTERM for a command that has no step to
// stop at (a single analysis, a file conversion): the first signal calls
// cleanup (if not nil; say, to remove temporary files), writes a note to w
// (nil: nothing) and exits at once with the signal's exit status.
func CatchQuit(w io.Writer, cleanup func()) *Catcher { return start(w, true, cleanup) }

func (c *Catcher) loop() {
	for {
		select {
		case <-c.stop:
			return
		case s := <-c.ch:
			sig, _ := s.(syscall.Signal)
			e := &Interrupted{Signal: sig}
			if c.err.CompareAndSwap(nil, e) && !c.quit {
				close(c.done)
				if c.w != nil {
					fmt.Fprintf(c.w, "\n%s: stopping after the current step and writing the results (send it again to quit at once)\n", SignalName(sig))
				}
				continue
			}
			c.mu.Lock()
			f := c.force
			c.mu.Unlock()
			if f != nil {
				f()
			}
			if c.w != nil {
				again := " again"
				if c.quit {
					again = ""
				}
				fmt.Fprintf(c.w, "%s%s: quitting now; files not complete yet are not written\n", SignalName(sig), again)
			}
			c.mu.Lock()
			exit := c.exit
			c.mu.Unlock()
			exit(e.ExitCode())
			return
		}
	}
}

// OnForce sets the function called before the process exits on a second
// signal (removing temporary files, say). It runs on the Catcher's
// goroutine, concurrently with the run.
func (c *Catcher) OnForce(f func()) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.force = f
	c.mu.Unlock()
}

// Err returns the *Interrupted of the first signal caught, or nil.
func (c *Catcher) Err() error {
	if c == nil {
		return nil
	}
	if e := c.err.Load(); e != nil {
		return e
	}
	return nil
}

// Done returns a channel closed when the first signal is caught, for runs
// that wait on channels or contexts (a pool of workers) rather than poll.
func (c *Catcher) Done() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.done
}

// Requested reports whether a signal was caught.
func (c *Catcher) Requested() bool { return c != nil && c.err.Load() != nil }

// Stop stops catching: the signals get their default action again (the
// process ends at once).
func (c *Catcher) Stop() {
	if c == nil {
		return
	}
	c.once.Do(func() {
		signal.Stop(c.ch)
		close(c.stop)
	})
}
