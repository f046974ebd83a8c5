package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range es {
		s = append(s, e.Name())
	}
	return s
}

// A File appears under its name only on Commit; Abort and a write
// error leave an earlier file of that name as it was, and no temporary
// file behind.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.csv")
	a, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Write([]byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("target exists before Commit: %v", err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Errorf("after Commit: %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}

	// Abort keeps the old file.
	a, _ = Create(p)
	a.Write([]byte("half a ro"))
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Errorf("after Abort: %q", b)
	}
	// An injected write error (the temporary file closed under it) is kept
	// and returned by Commit, which then removes the temporary file.
	a, _ = Create(p)
	a.f.Close()
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("write to a closed file succeeded")
	}
	if err := a.Commit(); err == nil {
		t.Error("Commit after a write error succeeded")
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Errorf("after a failed Commit: %q", b)
	}
	if e := entries(t, dir); len(e) != 1 {
		t.Errorf("files left: %v", e)
	}
}

// RemoveTemp removes what a File left behind, and only that.
func TestRemoveTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r[1].csv")
	a, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("x"))
	os.WriteFile(filepath.Join(dir, "keep.csv"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ".r1.csv.1.tmp"), nil, 0o644)
	RemoveTemp(p)
	if e := entries(t, dir); strings.Join(e, ",") != ".r1.csv.1.tmp,keep.csv" {
		t.Errorf("left %v", e)
	}
}

// A target that is not a regular file is written directly, never
// replaced: a named pipe stays a pipe and its reader gets the data, and
// /dev/null stays the null device (renaming onto it, as root, would make
// it a plain file). A link to a regular file is kept and its file
// replaced.
func TestNonRegularTargets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteFile(fifo, func(w io.Writer) error { _, err := w.Write([]byte("row\n")); return err }); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "row\n" {
		t.Errorf("the pipe's reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
	if e := entries(t, dir); len(e) != 1 {
		t.Errorf("files left: %v", e)
	}

	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		if err := WriteFile(os.DevNull, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a device: %v %v", os.DevNull, fi.Mode(), err)
		}
	}

	real := filepath.Join(dir, "real.csv")
	link := filepath.Join(dir, "link.csv")
	os.WriteFile(real, []byte("old"), 0o644)
	if err := os.Symlink("real.csv", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := WriteFile(link, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the linked file holds %q", b)
	}
}
