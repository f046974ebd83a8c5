package xml

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Input files are read only when they are regular files of bounded size:
// `mbfmu check /dev/zero` read until the machine ran out of memory, and a
// named pipe would wait for a writer for ever.
func TestReadInputRefusesDevicesPipesFolders(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.xml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero is not a regular file"},
		{fifo, "pipe.xml is not a regular file"},
		{dir, "is a folder, not a file"},
	} {
		if _, err := ReadInput(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadInput(%s): %v, want %q", c.path, err, c.want)
		}
	}
	ok := filepath.Join(dir, "m.xml")
	os.WriteFile(ok, []byte(`<model name="m"/>`), 0o644)
	if b, err := ReadInput(ok); err != nil || string(b) != `<model name="m"/>` {
		t.Errorf("ReadInput of a model file: %q, %v", b, err)
	}
}
