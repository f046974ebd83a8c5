package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mbfmu/fmu"
)

// findZig returns the zig compiler scripts/build-runtime.sh uses: $ZIG,
// zig on PATH, or the copy it fetched into .cache/zig.
func findZig() string {
	if z := os.Getenv("ZIG"); z != "" {
		return z
	}
	if z, err := exec.LookPath("zig"); err == nil {
		return z
	}
	z, _ := filepath.Abs(filepath.Join("..", ".cache", "zig", "node_modules", "@ryoppippi", "zig-linux-x64", "zig"))
	if fi, err := os.Stat(z); err == nil && !fi.IsDir() {
		return z
	}
	return ""
}

// TestPortableRuntime builds the runtime as build.sh does when zig is at
// hand (zig cc targeting glibc 2.17), checks that it needs no glibc symbol
// newer than 2.17 and exports only fmi2 functions, and runs the C host's
// normal call sequence on an FMU packed with it: the outputs must be
// bit-identical to the engine in-process. Skipped without zig (build.sh
// and .ci/run fetch it into .cache/zig), failed without it under
// MBFMU_REQUIRE.
func TestPortableRuntime(t *testing.T) {
	e := setup(t)
	zig := findZig()
	if zig == "" {
		skipUnlessRequired(t, "zig not found ($ZIG, PATH or .cache/zig, which ./build.sh and .ci/run fill): the portable Linux build is not tested")
	}
	dir := filepath.Join(tmpRoot, "portable")
	lib := filepath.Join(dir, fmu.RuntimeLibName)
	if err := buildRuntime(lib, versionScript(), "CC="+zig+" cc -target x86_64-linux-gnu.2.17"); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := f.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	newest := ""
	for _, s := range imp {
		v, ok := strings.CutPrefix(s.Version, "GLIBC_")
		if !ok {
			continue
		}
		if versionLess(newest, v) {
			newest = v
		}
		if versionLess("2.17", v) {
			t.Errorf("%s needs %s@GLIBC_%s, newer than 2.17", lib, s.Name, v)
		}
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) == elf.STB_GLOBAL && !strings.HasPrefix(s.Name, "fmi2") && !strings.HasPrefix(s.Name, "fmi3") {
			t.Errorf("%s exports %s", lib, s.Name)
		}
	}
	f.Close()
	fmuPath := filepath.Join(dir, "pendulum.fmu")
	if err := fmu.Pack(filepath.Join("..", "fmu", "testdata", "pendulum.xml"), fmuPath, lib); err != nil {
		t.Fatal(err)
	}
	u := filepath.Join(dir, "unpacked")
	if err := unzip(fmuPath, u); err != nil {
		t.Fatal(err)
	}
	const n = 300
	compareBits(t, "portable run", parseOutputs(t, e.runHost(t, "run", u, strconv.Itoa(n)), "A"), reference(t, "pendulum", n))
	t.Logf("zig-built runtime: newest glibc symbol version %s; outputs bit-identical", newest)
}

// versionLess compares dotted version numbers ("" is the smallest).
func versionLess(a, b string) bool {
	if a == "" {
		return b != ""
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
