package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mbfmu/fmu"
)

// arm64Examples are the example FMUs run on both platforms: a planar
// drive train with motor and friction states, the truck with user states
// and subsystems, the imported six-axis arm (spatial, quaternions, joint
// friction), the spatial and the planar flagships.
var arm64Examples = []string{"servo-axis", "truck-tipping", "ur5", "furuta", "cartpole"}

// arm64Tolerance is the relative difference allowed per example: none
// (bit for bit) but for the six-axis arm, whose joint friction's Exp and
// chaotic motion bring up the last bits of Go's x86-64 assembly Exp.
var arm64Tolerance = map[string]float64{"ur5": 1e-12}

// TestArm64 builds the runtime for Linux on aarch64 as build.sh does
// (scripts/build-runtime.sh --arm64: zig cross-compiler, glibc 2.17, no
// fused multiply-add), packs it beside the x86-64 one
// (binaries/aarch64-linux), and runs the C host compiled for aarch64 under
// qemu-user: the test model's normal call sequence must give outputs
// bit-identical to the engine in-process on x86-64, and a closed loop
// through each FMU of arm64Examples (its own step, an input fed back from
// an output) must end at the x86-64 host's outputs bit for bit (the six-axis
// arm within 1e-12 relative): bit for bit where the model uses only
// arithmetic, square roots and the math functions written in Go; Go's math package has assembly versions of
// a few functions (Exp, Log, Hypot) on x86-64 that can round the last bit
// differently, which a long run of a chaotic model (the six-axis arm)
// brings up to about 1e-13. Skipped unless zig,
// qemu-aarch64-static and the aarch64 C library (Debian packages
// qemu-user-static and libc6-arm64-cross) are present; .ci/run installs
// them and sets MBFMU_REQUIRE, with which a missing tool fails the test.
func TestArm64(t *testing.T) {
	e := setup(t)
	zig := findZig()
	if zig == "" {
		skipUnlessRequired(t, "zig not found ($ZIG, PATH or .cache/zig): the aarch64 runtime is cross-built with it")
	}
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		skipUnlessRequired(t, "qemu-aarch64-static not found: running the aarch64 build needs qemu-user (Debian package qemu-user-static)")
	}
	const sysroot = "/usr/aarch64-linux-gnu"
	if _, err := os.Stat(filepath.Join(sysroot, "lib", "ld-linux-aarch64.so.1")); err != nil {
		skipUnlessRequired(t, "no aarch64 C library in "+sysroot+" (Debian package libc6-arm64-cross)")
	}
	dir, lib := e.runtimeCopy(t, "arm64")
	if err := buildRuntime(filepath.Join(dir, fmu.RuntimeLibNameArm64), versionScript(), "GOOS=linux", "GOARCH=arm64",
		"GOFLAGS=-gcflags=all=-d=fmahash=n", "CC="+zig+" cc -target aarch64-linux-gnu.2.17"); err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "host")
	if out, err := exec.Command(zig, "cc", "-target", "aarch64-linux-gnu.2.17", "-O2", "-Wall", "-Wextra", "-Werror",
		"-ffp-contract=off", "-I.", "-o", host, filepath.Join("testdata", "host.c"), "-lpthread", "-ldl", "-lm").CombinedOutput(); err != nil {
		t.Fatalf("compiling the C host for aarch64: %v\n%s", err, out)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(qemu, append([]string{"-L", sysroot, host}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("qemu host %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr)
		}
		return string(out)
	}
	pack := func(model, name string) (string, *fmu.Description) {
		t.Helper()
		p := filepath.Join(dir, name+".fmu")
		d, err := fmu.PackDescribe(model, p, lib)
		if err != nil {
			t.Fatalf("packing %s: %v", name, err)
		}
		if !strings.Contains(strings.Join(d.Platforms, " "), "aarch64-linux") {
			t.Fatalf("packed %s for %v, want aarch64-linux too", name, d.Platforms)
		}
		u := filepath.Join(dir, "unpacked", name)
		if err := unzip(p, u); err != nil {
			t.Fatal(err)
		}
		return u, d
	}
	u, _ := pack(filepath.Join("..", "fmu", "testdata", "pendulum.xml"), "pendulum")
	const n = 300
	compareBits(t, "aarch64 run", parseOutputs(t, run("run", u, strconv.Itoa(n)), "A"), reference(t, "pendulum", n))
	t.Logf("test model: aarch64 outputs bit-identical to the engine in-process on x86-64 over %d steps", n)

	for _, name := range arm64Examples {
		u, d := pack(filepath.Join("..", "examples", name, "model.xml"), name)
		var vu string
		var ys []string
		for _, v := range d.Variables {
			switch {
			case v.Causality == fmu.CausalityInput && vu == "":
				vu = strconv.Itoa(int(v.VR))
			case v.Causality == fmu.CausalityOutput && len(ys) < 2*8:
				g := "0"
				if len(ys) == 0 {
					g = "0.01" // a little feedback of the first output
				}
				ys = append(ys, strconv.Itoa(int(v.VR)), g)
			}
		}
		if vu == "" || len(ys) == 0 {
			t.Fatalf("%s: no input or no output", name)
		}
		steps := max(1, min(int(min(d.StopTime-d.StartTime, 1)/d.StepSize), 1000))
		args := append([]string{"loop", u, strconv.Itoa(steps), strconv.FormatFloat(d.StepSize, 'g', -1, 64), vu}, ys...)
		x86 := lastOutputs(t, e.runHost(t, args...))
		arm := lastOutputs(t, run(args...))
		worst, same := 0.0, true
		for k := range x86 {
			if math.Float64bits(x86[k]) != math.Float64bits(arm[k]) {
				same = false
				worst = math.Max(worst, math.Abs(arm[k]-x86[k])/math.Max(math.Abs(x86[k]), 1e-300))
			}
		}
		if !same && worst > arm64Tolerance[name] {
			t.Errorf("%s: after %d steps the aarch64 outputs differ from x86-64 by %.3g relative (allowed %g)", name, steps, worst, arm64Tolerance[name])
		}
		verdict := "bit-identical"
		if !same {
			verdict = "within " + strconv.FormatFloat(worst, 'g', 2, 64) + " relative"
		}
		t.Logf("%s: %d steps of %g s, %d outputs: aarch64 and x86-64 %s", name, steps, d.StepSize, len(x86), verdict)
	}
}

// lastOutputs reads the "loop last u = … y = …" line of the host's loop.
func lastOutputs(t *testing.T, out string) []float64 {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(l, "loop last u = ")
		if !ok {
			continue
		}
		var vals []float64
		for _, f := range strings.Fields(strings.Replace(rest, " y =", "", 1)) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("bad host output %q", l)
			}
			vals = append(vals, v)
		}
		return vals
	}
	t.Fatalf("no loop result in the host's output:\n%s", out)
	return nil
}
