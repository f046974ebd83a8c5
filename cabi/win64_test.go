package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mbfmu/fmu"
)

// TestWin64 builds the runtime for 64-bit Windows with the MinGW-w64 cross
// compiler, packs the test models with it (binaries/win64 beside
// binaries/linux64), and runs the C host, compiled for Windows, under
// wine: the normal call sequence and two threads must give outputs
// bit-identical to the engine run in-process here, and the host's checks
// (wrong states, NULLs, state round trips, resource-location forms as
// Windows URIs file:///Z:/…) must pass. It is skipped unless
// x86_64-w64-mingw32-gcc and wine are installed (Debian packages
// gcc-mingw-w64-x86-64 and wine64); .ci/run installs them and sets
// MBFMU_REQUIRE, with which a missing tool fails the test.
// skipUnlessRequired skips the test with msg, or fails it where the
// README's claims must all be checked (.ci/run sets MBFMU_REQUIRE=1; CI
// services set CI=true).
func skipUnlessRequired(t *testing.T, msg string) {
	t.Helper()
	for _, v := range []string{os.Getenv("MBFMU_REQUIRE"), os.Getenv("CI")} {
		if v != "" && v != "0" && !strings.EqualFold(v, "false") {
			t.Fatal(msg + " (required here: MBFMU_REQUIRE or CI is set)")
		}
	}
	t.Skip(msg)
}

func TestWin64(t *testing.T) {
	e := setup(t)
	cc, err := exec.LookPath("x86_64-w64-mingw32-gcc")
	if err != nil {
		skipUnlessRequired(t, "x86_64-w64-mingw32-gcc not found: the Windows build needs the MinGW-w64 cross compiler (Debian package gcc-mingw-w64-x86-64)")
	}
	wine, err := exec.LookPath("wine")
	if err != nil {
		skipUnlessRequired(t, "wine not found: running the Windows build needs wine (Debian package wine64)")
	}
	// the runtime, beside a copy of the Linux one so that Pack adds it
	dir, lib := e.runtimeCopy(t, "win64")
	if err := buildRuntime(filepath.Join(dir, fmu.RuntimeLibNameWin64), "", "GOOS=windows", "GOARCH=amd64", "CC="+cc); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "host.exe")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off", "-I.",
		"-o", host, filepath.Join("testdata", "host.c"), "-static", "-lpthread").CombinedOutput(); err != nil {
		t.Fatalf("compiling the C host for Windows: %v\n%s", err, out)
	}
	dirs := map[string]string{}
	for _, m := range testModels {
		fmuPath := filepath.Join(dir, m+".fmu")
		d, err := fmu.PackDescribe(filepath.Join("..", "fmu", "testdata", m+".xml"), fmuPath, lib)
		if err != nil {
			t.Fatalf("packing %s: %v", m, err)
		}
		if strings.Join(d.Platforms, " ") != "linux64 win64" {
			t.Fatalf("packed %s for %v, want linux64 and win64", m, d.Platforms)
		}
		u := filepath.Join(dir, "unpacked fmus", m)
		if err := unzip(fmuPath, u); err != nil {
			t.Fatal(err)
		}
		dirs[m] = "Z:" + strings.ReplaceAll(u, "/", `\`) // wine's view of /
	}
	// A wine prefix of the test's own, with the ProcessPrng stand-in when
	// its wine has no bcryptprimitives.dll.
	prefix := filepath.Join(dir, "wineprefix")
	env := append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all")
	boot := exec.Command(wine, "cmd", "/c", "exit")
	boot.Env = env
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("creating the wine prefix: %v\n%s", err, out)
	}
	sys32 := filepath.Join(prefix, "drive_c", "windows", "system32")
	if _, err := os.Stat(filepath.Join(sys32, "bcryptprimitives.dll")); err != nil {
		if out, err := exec.Command(cc, "-shared", "-O2", "-o", filepath.Join(sys32, "bcryptprimitives.dll"),
			filepath.Join("testdata", "bcryptprimitives.c"), "-ladvapi32").CombinedOutput(); err != nil {
			t.Fatalf("building the ProcessPrng stand-in: %v\n%s", err, out)
		}
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(wine, append([]string{host}, args...)...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("wine host.exe %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return strings.ReplaceAll(string(out), "\r\n", "\n")
	}
	const n = 300
	compareBits(t, "win64 run", parseOutputs(t, run("run", dirs["pendulum"], strconv.Itoa(n)), "A"), reference(t, "pendulum", n))
	compareBits(t, "win64 threads", parseOutputs(t, run("threads", dirs["pendulum"], strconv.Itoa(n)), "A"), reference(t, "pendulum", n))
	out := run("checks", dirs["pendulum"], dirs["pendulum2"], dirs["pendulum_nan"])
	passed, failed := parseChecks(out)
	if len(failed) > 0 || passed < 150 {
		t.Fatalf("win64 host checks: %d passed\n%s", passed, strings.Join(failed, "\n"))
	}
	t.Logf("win64 under wine: outputs bit-identical to the engine in-process; %d checks passed", passed)
}
