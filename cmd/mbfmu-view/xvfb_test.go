package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The interactive window in a real X server: Xvfb (no window manager, no
// compositor, as on a VNC desktop), keys sent with xdotool (XTEST), the
// playback state read from the viewer's --status file and its CPU time
// from /proc. This is the path the dummy SDL driver cannot reach: a GL
// renderer whose vsync present does not block, and X11 event handling.
// The viewer is built once with build.sh (about a minute cold, seconds
// from Go's build cache).
//
// Needs Linux, Xvfb and xdotool (Debian: apt-get install xvfb xdotool;
// .ci/run installs them as root), gcc, and the go-sdl2 module.
func TestWindowUnderXvfb(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the real-window test builds the SDL viewer")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the real-window test runs on Linux (Xvfb, /proc)")
	}
	for _, tool := range []string{"Xvfb", "xdotool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: the test of the real window under Xvfb is skipped (Debian: apt-get install xvfb xdotool)", tool)
		}
	}
	bin := buildWindowViewer(t)
	display := startXvfb(t)

	t.Run("planar", func(t *testing.T) {
		v := startViewer(t, bin, display, "--speed", "0.25", "--size", "640x480",
			"--scene", filepath.Join("testdata", "slider_crank.json"), filepath.Join("testdata", "slider_crank.csv"))
		// It starts playing at the given speed.
		v.waitState("playing")
		v.checkRate(0.25)
		// Space pauses; then the window sits idle: no frames, time still,
		// next to no CPU.
		v.key("space")
		v.waitState("paused")
		time.Sleep(300 * time.Millisecond) // the key release is input too, and redraws
		s0 := v.read()
		cpu := v.cpuOver(1500 * time.Millisecond)
		s1 := v.read()
		// (A stray X event, such as a late key release, redraws once.)
		if s1.T != s0.T || s1.Frames > s0.Frames+2 {
			t.Errorf("paused: t %.4f -> %.4f, frames %d -> %d; want t unchanged and no frames drawn", s0.T, s1.T, s0.Frames, s1.Frames)
		}
		if cpu > 0.10 {
			t.Errorf("paused: %.0f %% of a core, want < 10 %%", 100*cpu)
		}
		t.Logf("paused: %.1f %% of a core", 100*cpu)
		// + doubles the speed; space plays on from where it stopped.
		v.key("plus")
		v.key("space")
		if s := v.waitState("playing"); s.Speed != 0.5 {
			t.Errorf("speed after + is %g, want 0.5", s.Speed)
		}
		cpu = v.checkRate(0.5)
		t.Logf("playing at 60 frames/s, 640x480: %.0f %% of a core", 100*cpu)
		// End jumps to the end, where playback stops.
		v.key("End")
		if s := v.waitState("paused"); s.T != s.T1 {
			t.Errorf("after End: t = %g, want the end %g", s.T, s.T1)
		}
		v.quit()
	})

	t.Run("spatial", func(t *testing.T) {
		v := startViewer(t, bin, display, "--size", "640x480",
			"--scene", filepath.Join("testdata", "spinning_top.json"), filepath.Join("testdata", "spinning_top.csv"))
		v.waitState("playing")
		cpu := v.checkRate(1)
		t.Logf("spatial scene playing at 60 frames/s, 640x480: %.0f %% of a core", 100*cpu)
		v.key("space")
		v.waitState("paused")
		// A left drag of (+50, −20) px orbits by −50 and −20 × orbitPerPx.
		s0 := v.read()
		v.mouse("mousemove", "--window", v.win, "300", "200", "mousedown", "1",
			"mousemove", "--window", v.win, "350", "180", "mouseup", "1")
		s1 := v.waitCamera(func(c *cameraStatus) bool { return c.Azimuth != s0.Camera.Azimuth })
		if d := s1.Camera.Azimuth - s0.Camera.Azimuth; math.Abs(d+50*orbitPerPx) > 1e-9 {
			t.Errorf("drag turned the azimuth by %v, want %v", d, -50*orbitPerPx)
		}
		if d := s1.Camera.Elevation - s0.Camera.Elevation; math.Abs(d+20*orbitPerPx) > 1e-9 {
			t.Errorf("drag turned the elevation by %v, want %v", d, -20*orbitPerPx)
		}
		// A right drag pans: the target moves, the direction stays.
		v.mouse("mousemove", "--window", v.win, "300", "200", "mousedown", "3",
			"mousemove", "--window", v.win, "260", "230", "mouseup", "3")
		s2 := v.waitCamera(func(c *cameraStatus) bool { return c.Target != s1.Camera.Target })
		if s2.Camera.Azimuth != s1.Camera.Azimuth || s2.Camera.Elevation != s1.Camera.Elevation {
			t.Errorf("pan turned the camera: %+v -> %+v", s1.Camera, s2.Camera)
		}
		// 3: top view; p: orthographic.
		v.key("3")
		v.waitCamera(func(c *cameraStatus) bool { return c.Elevation == math.Pi/2 })
		v.key("p")
		v.waitCamera(func(c *cameraStatus) bool { return c.Ortho })
		v.quit()
	})
}

// mouse runs an xdotool mouse command chain.
func (v *viewerProc) mouse(args ...string) {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := v.xdotool(ctx, args...); err != nil {
		v.t.Fatal(err)
	}
}

// waitCamera waits up to 5 s for the status's camera to satisfy ok.
func (v *viewerProc) waitCamera(ok func(*cameraStatus) bool) viewerStatus {
	v.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := v.read()
		if s.Camera == nil {
			v.t.Fatalf("no camera in the status of a spatial scene: %+v", s)
		}
		if ok(s.Camera) {
			return s
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("camera %+v did not change as expected", *s.Camera)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// buildWindowViewer builds mbfmu-view with its SDL window (build.sh), or
// skips the test when that is impossible here (no gcc, no go-sdl2 module).
func buildWindowViewer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: cannot build the SDL viewer, the real-window test is skipped")
	}
	if out, err := exec.Command("go", "mod", "download", "github.com/veandco/go-sdl2").CombinedOutput(); err != nil {
		t.Skipf("go-sdl2 is not available (%v: %s): the real-window test is skipped", err, strings.TrimSpace(string(out)))
	}
	bin := filepath.Join(t.TempDir(), "mbfmu-view")
	start := time.Now()
	out, err := exec.Command("sh", "build.sh", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	t.Logf("built the SDL viewer in %.1f s", time.Since(start).Seconds())
	return bin
}

// startXvfb starts an X server on a free display and returns its name (":N").
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Skipf("Xvfb does not start (%v): the real-window test is skipped", err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if _, err := strconv.Atoi(n); err != nil {
			t.Fatalf("Xvfb reported display %q", n)
		}
		return ":" + n
	case <-time.After(10 * time.Second):
		t.Fatal("Xvfb did not report a display within 10 s")
	}
	return ""
}

// viewerProc is a running viewer window.
type viewerProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	display string
	status  string
	win     string
	done    chan error
}

func startViewer(t *testing.T, bin, display string, args ...string) *viewerProc {
	t.Helper()
	status := filepath.Join(t.TempDir(), "status.json")
	cmd := exec.Command(bin, append([]string{"--status", status}, args...)...)
	cmd.Env = append(xEnv(display), "SDL_VIDEODRIVER=x11")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	v := &viewerProc{t: t, cmd: cmd, display: display, status: status, done: make(chan error, 1)}
	go func() { v.done <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-v.done:
		default:
			_ = cmd.Process.Kill()
			<-v.done
		}
		if t.Failed() {
			t.Logf("viewer stderr: %s", stderr.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	out, err := v.xdotool(ctx, "search", "--sync", "--onlyvisible", "--name", "^mbfmu-view")
	if err != nil {
		t.Fatalf("the viewer window did not appear within 15 s: %v (stderr: %s)", err, stderr.String())
	}
	v.win = strings.Fields(out)[0]
	// No window manager gives focus: take it, and park the pointer inside.
	if _, err := v.xdotool(ctx, "windowfocus", "--sync", v.win); err != nil {
		t.Fatalf("focus: %v", err)
	}
	if _, err := v.xdotool(ctx, "mousemove", "--window", v.win, "5", "5"); err != nil {
		t.Fatalf("pointer: %v", err)
	}
	return v
}

func (v *viewerProc) xdotool(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = xEnv(v.display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// xEnv is the test's environment with DISPLAY set and no SDL driver choice.
func xEnv(display string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DISPLAY=") && !strings.HasPrefix(e, "SDL_VIDEODRIVER=") {
			env = append(env, e)
		}
	}
	return append(env, "DISPLAY="+display)
}

// key sends a key press (an X keysym name) to the window.
func (v *viewerProc) key(name string) {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := v.xdotool(ctx, "key", "--clearmodifiers", name); err != nil {
		v.t.Fatal(err)
	}
}

// read returns the current --status.
func (v *viewerProc) read() viewerStatus {
	v.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(v.status)
		var s viewerStatus
		if err == nil {
			if err = json.Unmarshal(b, &s); err == nil {
				return s
			}
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("status file %s: %v", v.status, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitState waits up to 5 s for the status to show state.
func (v *viewerProc) waitState(state string) viewerStatus {
	v.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := v.read()
		if s.State == state {
			return s
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("state %q, want %q (status %+v)", s.State, state, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkRate watches playback for 1.2 s and checks that the time advanced
// by the wall time elapsed times speed: against the test's clock (the
// status file may be up to 0.1 s stale at each end, and the test's
// reading up to 20 ms late), and against the wall time the viewer reports.
// It returns the viewer's CPU use meanwhile (fraction of a core).
func (v *viewerProc) checkRate(speed float64) float64 {
	v.t.Helper()
	a, wa := v.read(), time.Now()
	cpu := v.cpuOver(1200 * time.Millisecond)
	b, wb := v.read(), time.Now()
	if a.State != "playing" || b.State != "playing" {
		v.t.Fatalf("not playing throughout: %+v, %+v", a, b)
	}
	dt, wall := b.T-a.T, wb.Sub(wa).Seconds()
	if math.Abs(dt/speed-wall) > 0.25 {
		v.t.Errorf("playback advanced %.4f s in %.3f s of wall time at speed %g, want %.4f", dt, wall, speed, speed*wall)
	}
	if own := b.Wall - a.Wall; math.Abs(dt-speed*own) > speed*0.05 {
		v.t.Errorf("playback advanced %.4f s in %.3f s of the viewer's wall time at speed %g, want %.4f", dt, own, speed, speed*own)
	}
	if fps := float64(b.Frames-a.Frames) / (b.Wall - a.Wall); fps > 62 || fps < 10 {
		v.t.Errorf("%.0f frames/s while playing, want 10..60", fps)
	}
	return cpu
}

// cpuOver returns the viewer's CPU time over d as a fraction of one core.
func (v *viewerProc) cpuOver(d time.Duration) float64 {
	v.t.Helper()
	ticks := func() float64 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", v.cmd.Process.Pid))
		if err != nil {
			v.t.Fatal(err)
		}
		// Fields after the parenthesised command name; utime and stime
		// are fields 14 and 15 of the line, in clock ticks (USER_HZ = 100).
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		return (u + s) / 100
	}
	c0, w0 := ticks(), time.Now()
	time.Sleep(d)
	return (ticks() - c0) / time.Since(w0).Seconds()
}

// quit presses q and checks that the viewer exits with status 0 and
// writes its final status.
func (v *viewerProc) quit() {
	v.t.Helper()
	v.key("q")
	select {
	case err := <-v.done:
		v.done <- err
		if err != nil {
			v.t.Fatalf("viewer exit: %v", err)
		}
	case <-time.After(5 * time.Second):
		v.t.Fatal("the viewer did not quit within 5 s of q")
	}
	if s := v.read(); s.State != "quit" {
		v.t.Errorf("final status %+v, want state quit", s)
	}
}
