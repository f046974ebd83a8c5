package fmu

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"mbfmu/atomicfile"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"mbfmu/controller"
	"mbfmu/xml"
	"time"
)

// RuntimeLibName is the file name of the runtime library built from package
// cabi (scripts/build-runtime.sh); Pack copies it into every FMU.
const RuntimeLibName = "libmbfmu-fmi2.so"

// RuntimeLibNameArm64 is the file name of the same runtime built for
// Linux on aarch64 (scripts/build-runtime.sh --arm64, cross-built with zig).
// When it lies beside the Linux library, Pack adds it as
// binaries/aarch64-linux/<modelIdentifier>.so (FMI 2.0 names no aarch64
// platform; aarch64-linux is FMI 3.0's name, which FMPy and the Reference
// FMUs' fmusim use for FMI 2.0 too).
const RuntimeLibNameArm64 = "libmbfmu-fmi2-arm64.so"

// RuntimeLibNameWin64 is the file name of the same runtime built for 64-bit
// Windows (scripts/build-runtime.sh --win64, which needs the MinGW-w64
// cross compiler). When it lies beside the Linux library, Pack adds it as
// binaries/win64/<modelIdentifier>.dll.
const RuntimeLibNameWin64 = "mbfmu-fmi2-win64.dll"

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
// binaries/win64/<modelIdentifier>.dll when the Windows runtime
// (RuntimeLibNameWin64) lies beside the Linux one, resources/model.xml and
// documentation/index.html. It needs no Go
// toolchain: the runtime is the same for every model and reads the model
// from its resources at instantiation.
func Pack(modelPath, outPath, runtimePath string) error {
	_, err := PackDescribe(modelPath, outPath, runtimePath)
	return err
}

// PackDescribe is Pack returning the packed FMU's description.
func PackDescribe(modelPath, outPath, runtimePath string) (*Description, error) {
	return PackVersion(modelPath, outPath, runtimePath, 2)
}

// PackVersion is PackDescribe for FMI version 2 (FMI 2.0) or 3 (FMI 3.0
// co-simulation: the same runtime library, which exports both APIs, under
// FMI 3.0's platform folders x86_64-linux, x86_64-windows and
// aarch64-linux, with the FMI 3.0 modelDescription.xml and
// terminalsAndIcons/terminalsAndIcons.xml).
func PackVersion(modelPath, outPath, runtimePath string, version int) (*Description, error) {
	if version != 2 && version != 3 {
		return nil, fmt.Errorf("FMI version %d: mbfmu packs FMI 2.0 (2) and FMI 3.0 (3)", version)
	}
	linux, win, arm := "linux64", "win64", "aarch64-linux"
	if version == 3 {
		linux, win = "x86_64-linux", "x86_64-windows"
	}
	data, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, err
	}
	ctl := controller.IsFile(data) // a controller FMU: the file as it is
	// a model with subsystems is packed written out as one file (the
	// runtime reads resources/model.xml alone)
	if !ctl {
		if data, err = xml.Flatten(data, modelPath); err != nil {
			return nil, err
		}
	}
	l, err := load(data, modelPath)
	if err != nil {
		return nil, err
	}
	// the data files the model refers to go into the resources beside it
	var bundled []xml.BundleFile
	if !ctl {
		if data, bundled, err = xml.Bundle(data, modelPath); err != nil {
			return nil, err
		}
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
	if err := checkRuntime(lib, version); err != nil {
		return nil, fmt.Errorf("%s: %v (build the runtime with scripts/build-runtime.sh)", runtimePath, err)
	}
	var dll []byte
	winPath := filepath.Join(filepath.Dir(runtimePath), RuntimeLibNameWin64)
	if b, err := os.ReadFile(winPath); err == nil {
		if err := checkRuntimeWin64(b, version); err != nil {
			return nil, fmt.Errorf("%s: %v (rebuild it with scripts/build-runtime.sh --win64, or remove it)", winPath, err)
		}
		dll = b
	}
	var armLib []byte
	armPath := filepath.Join(filepath.Dir(runtimePath), RuntimeLibNameArm64)
	if b, err := os.ReadFile(armPath); err == nil {
		if err := checkRuntimeArm64(b, version); err != nil {
			return nil, fmt.Errorf("%s: %v (rebuild it with scripts/build-runtime.sh --arm64, or remove it)", armPath, err)
		}
		armLib = b
	}
	d := l.desc
	d.GUID = GUID(data)
	d.Platforms = []string{linux}
	if dll != nil {
		d.Platforms = append(d.Platforms, win)
	}
	if armLib != nil {
		d.Platforms = append(d.Platforms, arm)
	}
	mod := time.Now()
	if fi, err := os.Stat(modelPath); err == nil {
		mod = fi.ModTime()
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	dirs := []string{"binaries/", "binaries/" + linux + "/", "resources/", "documentation/"}
	seen := map[string]bool{}
	for _, f := range bundled {
		for d := path.Dir(f.Name); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			dirs = append(dirs, "resources/"+d+"/")
		}
	}
	sort.Strings(dirs[4:])
	if dll != nil {
		dirs = append(dirs, "binaries/"+win+"/")
	}
	if armLib != nil {
		dirs = append(dirs, "binaries/"+arm+"/")
	}
	for _, dir := range dirs {
		h := &zip.FileHeader{Name: dir, Modified: mod}
		h.SetMode(os.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return nil, err
		}
	}
	type entry struct {
		name string
		data []byte
		mode os.FileMode
	}
	md := d.XML()
	if version == 3 {
		md = d.XML3()
	}
	files := []entry{
		{"modelDescription.xml", md, 0o644},
		{"binaries/" + linux + "/" + d.ModelIdentifier + ".so", lib, 0o755},
		{"resources/" + ModelFileName, data, 0o644},
		{"documentation/index.html", d.HTML(), 0o644},
	}
	if t := d.TerminalsXML(); version == 3 && t != nil {
		files = append(files, entry{"terminalsAndIcons/terminalsAndIcons.xml", t, 0o644})
	}
	if dll != nil {
		files = append(files, entry{"binaries/" + win + "/" + d.ModelIdentifier + ".dll", dll, 0o755})
	}
	for _, f := range bundled {
		files = append(files, entry{"resources/" + f.Name, f.Data, 0o644})
	}
	if armLib != nil {
		files = append(files, entry{"binaries/" + arm + "/" + d.ModelIdentifier + ".so", armLib, 0o755})
	}
	for _, f := range files {
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
	if err := atomicfile.WriteFile(outPath, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return nil, err
	}
	return d, nil
}

// checkRuntime checks that lib is an x86-64 ELF shared library exporting
// the functions of FMI version.
func checkRuntime(lib []byte, version int) error {
	return checkELF(lib, elf.EM_X86_64, "x86-64", version)
}

// checkRuntimeArm64 checks that lib is a Linux aarch64 shared library
// exporting the functions of FMI version.
func checkRuntimeArm64(lib []byte, version int) error {
	return checkELF(lib, elf.EM_AARCH64, "aarch64", version)
}

// runtimeNeeds lists functions the runtime of FMI version must export.
func runtimeNeeds(version int) map[string]bool {
	if version == 3 {
		return map[string]bool{"fmi3InstantiateCoSimulation": true, "fmi3DoStep": true, "fmi3GetFMUState": true, "fmi3GetFloat64": true}
	}
	return map[string]bool{"fmi2Instantiate": true, "fmi2DoStep": true, "fmi2GetFMUstate": true}
}

// checkELF checks that lib is an ELF shared library for machine
// exporting the functions of FMI version.
func checkELF(lib []byte, machine elf.Machine, what string, version int) error {
	f, err := elf.NewFile(bytes.NewReader(lib))
	if err != nil {
		return fmt.Errorf("not an ELF shared library: %v", err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN || f.Machine != machine {
		return fmt.Errorf("not an %s shared library (type %v, machine %v)", what, f.Type, f.Machine)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return fmt.Errorf("no dynamic symbols: %v", err)
	}
	need := runtimeNeeds(version)
	for _, s := range syms {
		delete(need, s.Name)
	}
	if len(need) > 0 {
		return fmt.Errorf("it does not export the FMI %d.0 functions: not the mbfmu runtime library (or one built before FMI %d.0)", version, version)
	}
	return nil
}

// checkRuntimeWin64 checks that lib is an x86-64 Windows DLL exporting the
// FMI 2.0 functions.
func checkRuntimeWin64(lib []byte, version int) error {
	f, err := pe.NewFile(bytes.NewReader(lib))
	if err != nil {
		return fmt.Errorf("not a Windows DLL: %v", err)
	}
	defer f.Close()
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || f.Characteristics&pe.IMAGE_FILE_DLL == 0 {
		return fmt.Errorf("not an x86-64 Windows DLL (machine %#x, characteristics %#x)", f.Machine, f.Characteristics)
	}
	names, err := peExports(f)
	if err != nil {
		return err
	}
	need := runtimeNeeds(version)
	for _, n := range names {
		delete(need, n)
	}
	if len(need) > 0 {
		return fmt.Errorf("it does not export the FMI %d.0 functions: not the mbfmu runtime library (or one built before FMI %d.0)", version, version)
	}
	return nil
}

// peExports lists the names in a PE file's export directory.
func peExports(f *pe.File) ([]string, error) {
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok || len(oh.DataDirectory) <= pe.IMAGE_DIRECTORY_ENTRY_EXPORT {
		return nil, errors.New("not a 64-bit PE image")
	}
	// at returns the image bytes from virtual address va to the end of
	// its section
	at := func(va uint32) ([]byte, error) {
		for _, s := range f.Sections {
			if va >= s.VirtualAddress && va < s.VirtualAddress+s.Size {
				data, err := s.Data()
				if err != nil {
					return nil, err
				}
				if off := va - s.VirtualAddress; off < uint32(len(data)) {
					return data[off:], nil
				}
			}
		}
		return nil, fmt.Errorf("export data at %#x outside the sections", va)
	}
	dir := oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
	if dir.VirtualAddress == 0 || dir.Size < 40 {
		return nil, errors.New("no export directory")
	}
	hdr, err := at(dir.VirtualAddress)
	if err != nil || len(hdr) < 40 {
		return nil, fmt.Errorf("export directory unreadable: %v", err)
	}
	n := binary.LittleEndian.Uint32(hdr[24:])
	ptrs, err := at(binary.LittleEndian.Uint32(hdr[32:]))
	if err != nil || uint64(len(ptrs)) < 4*uint64(n) {
		return nil, fmt.Errorf("export name table unreadable: %v", err)
	}
	names := make([]string, 0, n)
	for i := uint32(0); i < n; i++ {
		b, err := at(binary.LittleEndian.Uint32(ptrs[4*i:]))
		if err != nil {
			return nil, err
		}
		if k := bytes.IndexByte(b, 0); k >= 0 {
			b = b[:k]
		}
		names = append(names, string(b))
	}
	return names, nil
}
