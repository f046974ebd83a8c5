//go:build unix

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
	c.mu.Lock()
	c.exit = func(code int) { exited <- code }
	c.mu.Unlock()
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

// CatchQuit quits on the first signal, after the clean-up.
func TestCatchQuit(t *testing.T) {
	cleaned := make(chan bool, 1)
	c := CatchQuit(nil, func() { cleaned <- true })
	defer c.Stop()
	exited := make(chan int, 1)
	c.mu.Lock()
	c.exit = func(code int) { exited <- code }
	c.mu.Unlock()
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	select {
	case code := <-exited:
		if code != 130 || len(cleaned) != 1 {
			t.Errorf("exit status %d, cleaned %v", code, len(cleaned))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit on the first signal")
	}
}
