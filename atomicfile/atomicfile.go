// Package atomicfile holds output files that appear whole or not at all: a
// File is written under a temporary name in its target's folder and
// renamed onto the target only when complete, so that a reader finds under
// the target's name either what was there before or the complete new file,
// never a truncated one (a full disk, a crash, an interrupt).
//
// A target that exists and is not a regular file — /dev/null, /dev/stdout,
// a named pipe, a terminal — is written directly instead: renaming onto it
// would replace the device or pipe with a plain file (for root, /dev/null
// itself), and its folder usually cannot hold a temporary file anyway. A
// symbolic link to a regular file is followed: the file it names is
// replaced and the link kept.
//
// It depends on the standard library only, so that the FMU runtime's
// packer can use it too.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// File is an output file written under a temporary name beside its target
// and renamed onto the target by Commit, after an fsync (or, for a target
// that is not a regular file, written to it directly). It implements
// io.Writer; the first write error is kept and returned by every later
// Write and by Commit.
type File struct {
	path, tmp string // tmp is "" when the target is written directly
	f         *os.File
	err       error
	done      bool
}

// Create starts a File for path. Its folder must exist. The temporary
// file is called ".<name>.<random>.tmp".
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if base == "" {
		return nil, fmt.Errorf("%q is a folder name, not a file name", path)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a folder, not a file", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{path: path, f: f}, nil
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		// a link to a regular file: replace the file, keep the link
		dir, base = filepath.Split(real)
		path = real
	}
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{path: path, tmp: f.Name(), f: f}, nil
}

// Path returns the target's name.
func (a *File) Path() string { return a.path }

// TempPath returns the name of the temporary file ("" when the target,
// not a regular file, is written directly).
func (a *File) TempPath() string { return a.tmp }

// Write writes to the temporary file.
func (a *File) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	if a.done {
		return 0, fmt.Errorf("%s: write after Commit or Abort", a.path)
	}
	n, err := a.f.Write(p)
	if err != nil {
		a.err = err
	}
	return n, err
}

// Commit syncs the temporary file to disk, renames it onto the target and
// syncs the folder. On any error (including an earlier write error) the
// temporary file is removed, the target is left as it was, and the error
// is returned. A target written directly is only closed.
func (a *File) Commit() error {
	if a.done {
		return fmt.Errorf("%s: Commit after Commit or Abort", a.path)
	}
	a.done = true
	err := a.err
	if a.tmp == "" {
		if cerr := a.f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(a.tmp, 0o644) // CreateTemp makes it private
	}
	if err == nil {
		err = os.Rename(a.tmp, a.path)
	}
	if err != nil {
		os.Remove(a.tmp)
		return err
	}
	if d, derr := os.Open(filepath.Dir(a.path)); derr == nil {
		d.Sync() // the rename is durable once the folder is; not every file system supports it
		d.Close()
	}
	return nil
}

// Abort closes and removes the temporary file; the target is left as it
// was (what was written to a target written directly stays written). It
// does nothing after Commit or a previous Abort.
func (a *File) Abort() error {
	if a.done {
		return nil
	}
	a.done = true
	a.f.Close()
	if a.tmp == "" {
		return nil
	}
	return os.Remove(a.tmp)
}

// WriteFile writes a file through a File: write fills it, and it is
// committed when write returns nil, aborted otherwise.
func WriteFile(path string, write func(w io.Writer) error) error {
	a, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(a); err != nil {
		a.Abort()
		return err
	}
	return a.Commit()
}

// RemoveTemp removes the temporary files of Files for the given targets
// (".<name>.*.tmp" beside each, or beside the file a link names). It is
// meant for a process about to exit at once (an interrupt) and may be
// called from any goroutine.
func RemoveTemp(targets ...string) {
	for _, t := range targets {
		if t == "" || t == "-" {
			continue
		}
		if real, err := filepath.EvalSymlinks(t); err == nil {
			t = real
		}
		dir, base := filepath.Split(t)
		if dir == "" {
			dir = "."
		}
		m, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".*.tmp"))
		for _, f := range m {
			os.Remove(f)
		}
	}
}

// globEscape escapes the pattern characters of filepath.Match.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
