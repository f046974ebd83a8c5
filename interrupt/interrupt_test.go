package interrupt

import (
	"bytes"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the Catcher's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 500 && !cond(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !cond() {
		t.Fatal("timed out")
	}
}

// A first SIGTERM is recorded (exit status 143) and the process goes on;
// a second one calls the clean-up and exits with the status.
func TestCatch(t *testing.T) {
	var out syncBuffer
	c := Catch(&out)
	defer c.Stop()
	exited := make(chan int, 1)
	c.exit = func(code int) { exited <- code }
	cleaned := make(chan bool, 1)
	c.OnForce(func() { cleaned <- true })
	if c.Err() != nil || c.Requested() {
		t.Fatal("a signal before any was sent")
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	waitFor(t, c.Requested)
	e, ok := Is(c.Err())
	if !ok || e.Signal != syscall.SIGTERM || e.ExitCode() != 143 || e.Error() != "interrupted by SIGTERM" {
		t.Errorf("%v %+v", ok, e)
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case code := <-exited:
		if code != 130 { // the signal that forced the exit decides the status
			t.Errorf("exit status %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit on the second signal")
	}
	if len(cleaned) != 1 {
		t.Error("clean-up not called")
	}
	waitFor(t, func() bool { return bytes.Contains([]byte(out.String()), []byte("quitting now")) })
	if s := out.String(); !bytes.Contains([]byte(s), []byte("SIGTERM: stopping after the current step")) {
		t.Errorf("notes: %q", s)
	}
}

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
