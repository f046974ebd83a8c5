package interrupt

import (
	"syscall"
	"testing"
)

func TestNilCatcherAndCodes(t *testing.T) {
	var c *Catcher
	if c.Err() != nil || c.Requested() {
		t.Error("nil catcher reports a signal")
	}
	c.Stop()
	c.OnForce(nil)
	if (&Interrupted{Signal: syscall.SIGINT}).ExitCode() != 130 {
		t.Error("SIGINT status")
	}
	// Err allocates nothing (it is polled every step of a real-time loop).
	c = &Catcher{}
	if a := testing.AllocsPerRun(100, func() { _ = c.Err() }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}
