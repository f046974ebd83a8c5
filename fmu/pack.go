package fmu

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RuntimeLibName is the file name of the runtime library built from package
// cabi (scripts/build-runtime.sh); Pack copies it into every FMU.
const RuntimeLibName = "libmbfmu-fmi2.so"

// FindRuntime locates the runtime library: $MBFMU_RUNTIME (the file or the
// folder holding it), then beside the running executable, then ./bin.
func FindRuntime() (string, error) {
	var tried []string
	try := func(p string) bool {
		tried = append(tried, p)
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	if env := os.Getenv("MBFMU_RUNTIME"); env != "" {
		p := env
		if fi, err := os.Stat(env); err == nil && fi.IsDir() {
			p = filepath.Join(env, RuntimeLibName)
		}
		if try(p) {
			return p, nil
		}
		return "", fmt.Errorf("MBFMU_RUNTIME=%s: runtime library %s not found there: build it with scripts/build-runtime.sh", env, p)
	}
	if exe, err := os.Executable(); err == nil {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			if p := filepath.Join(d, RuntimeLibName); try(p) {
				return p, nil
			}
		}
	}
	if p := filepath.Join("bin", RuntimeLibName); try(p) {
		return filepath.Abs(p)
	}
	return "", fmt.Errorf("FMU runtime library %s not found (looked in %s): build it with scripts/build-runtime.sh, or set MBFMU_RUNTIME to its path", RuntimeLibName, strings.Join(tried, ", "))
}

// Pack builds an FMI 2.0 co-simulation FMU at outPath from the model file at
// modelPath and the runtime library at runtimePath ("" = FindRuntime). The
// FMU holds modelDescription.xml, binaries/linux64/<modelIdentifier>.so,
// resources/model.xml and documentation/index.html. It needs no Go
// toolchain: the runtime is the same for every model and reads the model
// from its resources at instantiation.
func Pack(modelPath, outPath, runtimePath string) error {
	_, err := PackDescribe(modelPath, outPath, runtimePath)
	return err
}

// PackDescribe is Pack returning the packed FMU's description.
func PackDescribe(modelPath, outPath, runtimePath string) (*Description, error) {
	data, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, err
	}
	l, err := load(data, modelPath)
	if err != nil {
		return nil, err
	}
	if runtimePath == "" {
		if runtimePath, err = FindRuntime(); err != nil {
			return nil, err
		}
	}
	lib, err := os.ReadFile(runtimePath)
	if err != nil {
		return nil, fmt.Errorf("reading the runtime library: %v", err)
	}
	if err := checkRuntime(lib); err != nil {
		return nil, fmt.Errorf("%s: %v (build the runtime with scripts/build-runtime.sh)", runtimePath, err)
	}
	d := l.desc
	mod := time.Now()
	if fi, err := os.Stat(modelPath); err == nil {
		mod = fi.ModTime()
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, dir := range []string{"binaries/", "binaries/linux64/", "resources/", "documentation/"} {
		h := &zip.FileHeader{Name: dir, Modified: mod}
		h.SetMode(os.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{"modelDescription.xml", d.XML(), 0o644},
		{"binaries/linux64/" + d.ModelIdentifier + ".so", lib, 0o755},
		{"resources/" + ModelFileName, data, 0o644},
		{"documentation/index.html", d.HTML(), 0o644},
	} {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mod}
		h.SetMode(f.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(outPath, buf.Bytes()); err != nil {
		return nil, err
	}
	return d, nil
}

// checkRuntime checks that lib is an x86-64 ELF shared library exporting
// the FMI 2.0 functions.
func checkRuntime(lib []byte) error {
	f, err := elf.NewFile(bytes.NewReader(lib))
	if err != nil {
		return fmt.Errorf("not an ELF shared library: %v", err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN || f.Machine != elf.EM_X86_64 {
		return fmt.Errorf("not an x86-64 shared library (type %v, machine %v)", f.Type, f.Machine)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return fmt.Errorf("no dynamic symbols: %v", err)
	}
	need := map[string]bool{"fmi2Instantiate": true, "fmi2DoStep": true, "fmi2GetFMUstate": true}
	for _, s := range syms {
		delete(need, s.Name)
	}
	if len(need) > 0 {
		return errors.New("it does not export the FMI 2.0 functions: not the mbfmu runtime library")
	}
	return nil
}

// writeFileAtomic writes through a temporary file in the same folder.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := io.Copy(f, bytes.NewReader(data))
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
