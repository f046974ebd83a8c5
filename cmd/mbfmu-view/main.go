// Command mbfmu-view animates mbfmu simulation results.
//
//	mbfmu-view [flags] model.xml results.csv
//	mbfmu-view [flags] plant.fmu results.csv     (an mbfmu FMU; a run by any master: the model is replayed)
//	mbfmu-view --scene scene.json results.csv
//	mbfmu-view --scene scene.json --screenshot out.png --at 1.25 --size 800x600 results.csv
//	mbfmu-view --scene scene.json --live udp:127.0.0.1:9870 [results.csv]
//
// In planar scenes bodies are drawn as filled outlines (circles, or the
// hull of their markers, when they have no outline), markers as dots,
// revolute joints as pins, springs as zig-zags, beams as polylines and
// contacts with normal force arrows; spatial scenes ("dim": 3) show shaded
// boxes, cylinders and spheres with a depth buffer, marker frames as axis
// triads, joint symbols and coil springs under an orbit camera. Keys:
// space play/pause, + and - speed, left/right scrub (shift: one row),
// home/end, mouse wheel zoom, drag to pan (spatial: to orbit; shift or
// right drag pans) or on the time bar to scrub, f fit, a body axes, q
// quit; spatial: 1/2/3/0 front, side, top and 3/4 views, p orthographic.
//
// Drawing is a pure-Go software rasteriser: --screenshot needs no display
// and no SDL and works in every build. The interactive window needs SDL:
// build with -tags viewer,static (see README.md in this directory).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"mbfmu/results"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mbfmu-view:", err)
		os.Exit(1)
	}
}

// options are the parsed command line.
type options struct {
	scenePath  string
	channels   []string
	screenshot string
	at         float64
	atSet      bool
	w, h       int
	live       string
	speed      float64
	axes       bool
	status     string
	view       string
	model, csv string
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("mbfmu-view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	var channels, size string
	fs.StringVar(&o.scenePath, "scene", "", "scene description `file` (JSON); default: from the model")
	fs.StringVar(&channels, "channels", "", "comma-separated `names` of channels to print on screen")
	fs.StringVar(&o.screenshot, "screenshot", "", "render one frame to this PNG `file` and exit (no display needed)")
	fs.Float64Var(&o.at, "at", 0, "time `t` in s of the screenshot or of the first frame (default: start)")
	fs.StringVar(&size, "size", "", "canvas size `WxH` (default 800x600 screenshot, 1024x720 window)")
	fs.StringVar(&o.live, "live", "", "follow a running simulation: `udp:HOST:PORT` (see README.md)")
	fs.Float64Var(&o.speed, "speed", 1, "playback speed (simulated seconds per second)")
	fs.BoolVar(&o.axes, "axes", false, "draw body frame axes")
	fs.StringVar(&o.view, "view", "", "spatial scenes: view from the `front`, side, top or iso (3/4, the default)")
	fs.StringVar(&o.status, "status", "", "window: rewrite this `file` with the playback state (one JSON line) every 0.1 s and on exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mbfmu-view [flags] [model.xml] [results.csv]")
		fs.PrintDefaults()
	}
	// Flags may come before or after the file names.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "at" {
			o.atSet = true
		}
	})
	if channels != "" {
		o.channels = strings.Split(channels, ",")
	}
	o.w, o.h = 1024, 720
	if o.screenshot != "" {
		o.w, o.h = 800, 600
	}
	if size != "" {
		if _, err := fmt.Sscanf(size, "%dx%d", &o.w, &o.h); err != nil || o.w < 64 || o.h < 64 || o.w > 16384 || o.h > 16384 {
			return nil, fmt.Errorf("--size %q: want WxH, each 64..16384", size)
		}
	}
	if !(o.speed > 0) {
		return nil, fmt.Errorf("--speed must be > 0")
	}
	for _, a := range files {
		switch strings.ToLower(filepath.Ext(a)) {
		case ".csv":
			if o.csv != "" {
				return nil, fmt.Errorf("two results files: %s and %s", o.csv, a)
			}
			o.csv = a
		default:
			if o.model != "" {
				return nil, fmt.Errorf("two model files: %s and %s", o.model, a)
			}
			o.model = a
		}
	}
	if o.csv == "" && o.live == "" {
		return nil, errors.New("no results file (results.csv) and no --live source")
	}
	switch o.view {
	case "", "front", "side", "top", "iso":
	default:
		return nil, fmt.Errorf("--view %q: want front, side, top or iso", o.view)
	}
	if o.screenshot != "" && o.status != "" {
		return nil, errors.New("--status reports the window's playback; it has no meaning with --screenshot")
	}
	if o.screenshot != "" && o.live != "" {
		return nil, errors.New("--screenshot renders a results file; it cannot be combined with --live")
	}
	return o, nil
}

// readScene loads a scene from a JSON file.
func readScene(path string) (*results.Scene, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	var s results.Scene
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scene %s: %w", path, err)
	}
	return &s, nil
}

func readTable(path string) (*results.Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := results.ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// run is main without the exit.
func run(args []string, stderr io.Writer) error {
	o, err := parseArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	var tab *results.Table
	if o.csv != "" {
		if tab, err = readTable(o.csv); err != nil {
			return err
		}
	}
	var scene *results.Scene
	switch {
	case o.scenePath != "":
		if scene, err = readScene(o.scenePath); err != nil {
			return err
		}
	case o.model != "":
		m, err := loadModel(o.model)
		if err != nil {
			return err
		}
		scene = sceneFromGeometry(m.Geometry())
		// a run made by another master has the FMU's inputs and outputs,
		// not the poses: replay the model at its times with its inputs
		if tab != nil && len(scene.Bodies) > 0 && tab.Index(scene.Bodies[0].X) < 0 && o.live == "" {
			rt, worst, err := replay(m, tab)
			if err != nil {
				return fmt.Errorf("%s has no poses of %s's bodies, and replaying the model failed: %w", o.csv, o.model, err)
			}
			note := "it has none of the model's outputs to compare"
			if !math.IsNaN(worst) {
				note = fmt.Sprintf("the replay's outputs differ from the file's by at most %.3g", worst)
			}
			fmt.Fprintf(stderr, "mbfmu-view: %s has no body poses: replayed %s at its %d times with its inputs (%s)\n", filepath.Base(o.csv), filepath.Base(o.model), rt.Len(), note)
			tab = rt
		}
	case tab != nil:
		scene = autoScene(tab)
		fmt.Fprintf(stderr, "mbfmu-view: warning: no --scene and no model file: drawing the %d bodies found as NAME.x/NAME.y columns\n", len(scene.Bodies))
	default:
		return errors.New("live mode needs a scene: give --scene scene.json or the model file")
	}
	a := newApp(scene, o.channels, o.w, o.h)
	a.axes, a.speed = o.axes, o.speed
	if tab != nil {
		if err := a.setTable(tab); err != nil {
			return err
		}
		if tab.Len() == 0 && o.live == "" {
			return fmt.Errorf("%s: no data rows", o.csv)
		}
	}
	if o.atSet {
		a.t = o.at
	}
	if o.view != "" {
		if !a.is3D() {
			return errors.New("--view applies to spatial scenes (\"dim\": 3)")
		}
		a.presetView(map[string]string{"front": "1", "side": "2", "top": "3", "iso": "0"}[o.view])
		a.fitted = false
		a.fit()
	}
	if o.screenshot != "" {
		return screenshot(a, o.screenshot)
	}
	if o.live != "" {
		var cols []results.Column
		if tab != nil {
			cols = tab.Cols
		}
		if a.live, err = startLive(o.live, cols); err != nil {
			return err
		}
		defer a.live.close()
		a.follow = true
	}
	a.interactive = true
	a.playing = o.live == ""
	if o.status != "" {
		a.statusOut = &statusFile{path: o.status}
	}
	return runWindow(a, windowTitle(o))
}

func windowTitle(o *options) string {
	s := "mbfmu-view"
	if o.csv != "" {
		s += " " + filepath.Base(o.csv)
	}
	if o.live != "" {
		s += " (live " + o.live + ")"
	}
	return s
}

// screenshot renders the app's current frame to a PNG file.
func screenshot(a *app, path string) error {
	a.advance(0) // clamp the time to the run
	c := newRGBACanvas(a.w, a.h)
	a.render(c)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, c.img); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
