//go:build viewer

package main

import (
	"fmt"
	"image"
	"runtime"
	"time"
	"unsafe"

	"github.com/veandco/go-sdl2/sdl"
)

// SDL wants its calls on the main OS thread; main runs there.
func init() { runtime.LockOSThread() }

// sdlWindow shows the app's software canvas in an SDL window and feeds SDL
// input events to the app. Only this file (build tag viewer) uses SDL.
type sdlWindow struct {
	a      *app
	win    *sdl.Window
	ren    *sdl.Renderer
	tex    *sdl.Texture
	canvas *rgbaCanvas
	vsync  bool
	clock  frameClock
}

// runWindow opens the window and runs until the user quits. While
// something moves (playback, live feed) it draws at most 60 frames per
// second, sleeping to each frame's deadline itself (a vsync present need
// not block); when nothing moves it draws only after input and otherwise
// waits for events, so an idle window costs next to no CPU.
func runWindow(a *app, title string) error {
	w, err := newSDLWindow(a, title, false)
	if err != nil {
		return err
	}
	defer w.close()
	defer func() { _ = a.statusOut.write(a.status(), time.Now(), true) }()
	redraw := true
	for !a.quit {
		start := time.Now()
		n, err := w.events()
		if err != nil {
			return err
		}
		if err := w.step(redraw || n > 0); err != nil {
			return err
		}
		redraw = false
		if err := a.statusOut.write(a.status(), time.Now(), false); err != nil {
			return fmt.Errorf("--status: %w", err)
		}
		if a.quit {
			break
		}
		if a.animating() {
			if d := frameInterval - time.Since(start); d > 0 {
				time.Sleep(d)
			}
			continue
		}
		if ev := waitEvent(idleWait); ev != nil {
			if err := w.handle(ev); err != nil {
				return err
			}
			redraw = true
		}
	}
	return nil
}

// waitEvent waits up to d for an event, polling every idlePoll. (The
// bundled SDL 2.0.12's SDL_WaitEventTimeout polls every millisecond, which
// costs 3-4 % of a core on an idle X11 window under Xvfb; this about 2 %,
// mostly in waking threads.)
func waitEvent(d time.Duration) sdl.Event {
	deadline := time.Now().Add(d)
	for {
		if ev := sdl.PollEvent(); ev != nil {
			return ev
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		time.Sleep(min(idlePoll, left))
	}
}

// newSDLWindow opens a window of the app's size; software selects the
// software renderer (always available, also with SDL_VIDEODRIVER=dummy).
func newSDLWindow(a *app, title string, software bool) (*sdlWindow, error) {
	if err := sdl.Init(sdl.INIT_VIDEO); err != nil {
		return nil, fmt.Errorf("SDL: %w", err)
	}
	w := &sdlWindow{a: a}
	var err error
	w.win, err = sdl.CreateWindow(title, sdl.WINDOWPOS_UNDEFINED, sdl.WINDOWPOS_UNDEFINED,
		int32(a.w), int32(a.h), sdl.WINDOW_SHOWN|sdl.WINDOW_RESIZABLE|sdl.WINDOW_ALLOW_HIGHDPI)
	if err != nil {
		sdl.Quit()
		return nil, fmt.Errorf("SDL window: %w", err)
	}
	if !software {
		w.ren, err = sdl.CreateRenderer(w.win, -1, sdl.RENDERER_ACCELERATED|sdl.RENDERER_PRESENTVSYNC)
		w.vsync = err == nil
	}
	if w.ren == nil {
		if w.ren, err = sdl.CreateRenderer(w.win, -1, sdl.RENDERER_SOFTWARE); err != nil {
			w.close()
			return nil, fmt.Errorf("SDL renderer: %w", err)
		}
	}
	if err := w.fitCanvas(); err != nil {
		w.close()
		return nil, err
	}
	a.opened = time.Now()
	w.clock.step(a.opened)
	return w, nil
}

// fitCanvas (re)creates the canvas and texture at the renderer's output size.
func (w *sdlWindow) fitCanvas() error {
	ow, oh, err := w.ren.GetOutputSize()
	if err != nil {
		return fmt.Errorf("SDL: %w", err)
	}
	if w.canvas != nil {
		if cw, ch := w.canvas.Size(); cw == int(ow) && ch == int(oh) {
			return nil
		}
	}
	if w.tex != nil {
		_ = w.tex.Destroy()
	}
	w.tex, err = w.ren.CreateTexture(uint32(sdl.PIXELFORMAT_RGBA32), sdl.TEXTUREACCESS_STREAMING, ow, oh)
	if err != nil {
		return fmt.Errorf("SDL texture: %w", err)
	}
	w.canvas = newRGBACanvas(int(ow), int(oh))
	w.a.resize(int(ow), int(oh))
	return nil
}

// scale converts window coordinates to canvas pixels (they differ on HiDPI screens).
func (w *sdlWindow) scale(x, y int32) (int, int) {
	ww, wh := w.win.GetSize()
	cw, ch := w.canvas.Size()
	if ww <= 0 || wh <= 0 {
		return int(x), int(y)
	}
	return int(x) * cw / int(ww), int(y) * ch / int(wh)
}

// events hands pending SDL events to the app and returns how many there were.
func (w *sdlWindow) events() (int, error) {
	n := 0
	for ev := sdl.PollEvent(); ev != nil; ev = sdl.PollEvent() {
		n++
		if err := w.handle(ev); err != nil {
			return n, err
		}
	}
	return n, nil
}

// handle hands one SDL event to the app.
func (w *sdlWindow) handle(ev sdl.Event) error {
	switch e := ev.(type) {
	case *sdl.QuitEvent:
		w.a.quit = true
	case *sdl.WindowEvent:
		if e.Event == sdl.WINDOWEVENT_SIZE_CHANGED {
			if err := w.fitCanvas(); err != nil {
				return err
			}
		}
	case *sdl.KeyboardEvent:
		if e.Type == sdl.KEYDOWN {
			if k := keyName(e.Keysym); k != "" {
				w.a.key(k)
			}
		}
	case *sdl.MouseButtonEvent:
		if e.Button != sdl.BUTTON_LEFT && e.Button != sdl.BUTTON_MIDDLE && e.Button != sdl.BUTTON_RIGHT {
			break
		}
		if e.Type == sdl.MOUSEBUTTONDOWN {
			x, y := w.scale(e.X, e.Y)
			pan := e.Button != sdl.BUTTON_LEFT || sdl.GetModState()&sdl.KMOD_SHIFT != 0
			w.a.mouseDown(x, y, pan)
		} else {
			w.a.mouseUp()
		}
	case *sdl.MouseMotionEvent:
		w.a.mouseMove(w.scale(e.X, e.Y))
	case *sdl.MouseWheelEvent:
		dy := float64(e.Y)
		if e.Direction == sdl.MOUSEWHEEL_FLIPPED {
			dy = -dy
		}
		mx, my, _ := sdl.GetMouseState()
		x, y := w.scale(mx, my)
		w.a.wheel(dy, x, y)
	}
	return nil
}

// keyName maps an SDL key to the app's key names.
func keyName(k sdl.Keysym) string {
	shift := k.Mod&sdl.KMOD_SHIFT != 0
	switch k.Sym {
	case sdl.K_SPACE:
		return "space"
	case sdl.K_PLUS, sdl.K_EQUALS, sdl.K_KP_PLUS:
		return "plus"
	case sdl.K_MINUS, sdl.K_KP_MINUS:
		return "minus"
	case sdl.K_LEFT:
		if shift {
			return "shift+left"
		}
		return "left"
	case sdl.K_RIGHT:
		if shift {
			return "shift+right"
		}
		return "right"
	case sdl.K_HOME:
		return "home"
	case sdl.K_END:
		return "end"
	case sdl.K_f:
		return "f"
	case sdl.K_a:
		return "a"
	case sdl.K_q:
		return "q"
	case sdl.K_ESCAPE:
		return "escape"
	case sdl.K_p:
		return "p"
	case sdl.K_0, sdl.K_KP_0:
		return "0"
	case sdl.K_1, sdl.K_KP_1:
		return "1"
	case sdl.K_2, sdl.K_KP_2:
		return "2"
	case sdl.K_3, sdl.K_KP_3:
		return "3"
	}
	return ""
}

// draw renders the app into the canvas and copies it to the renderer.
func (w *sdlWindow) draw() error {
	w.a.render(w.canvas)
	img := w.canvas.img
	if err := w.tex.Update(nil, unsafe.Pointer(&img.Pix[0]), img.Stride); err != nil {
		return fmt.Errorf("SDL texture update: %w", err)
	}
	if err := w.ren.Copy(w.tex, nil, nil); err != nil {
		return fmt.Errorf("SDL copy: %w", err)
	}
	return nil
}

// frame runs one iteration without pacing: input, playback, drawing, present.
func (w *sdlWindow) frame() error {
	if _, err := w.events(); err != nil {
		return err
	}
	return w.step(true)
}

// step advances playback by the wall time since the previous step and,
// if redraw or something moves, draws and presents a frame.
func (w *sdlWindow) step(redraw bool) error {
	w.a.tick = time.Now()
	w.a.advance(w.clock.step(w.a.tick))
	if !redraw && !w.a.animating() {
		return nil
	}
	if err := w.draw(); err != nil {
		return err
	}
	w.ren.Present()
	w.a.frames++
	return nil
}

// readPixels returns what the renderer holds (call after draw, before Present).
func (w *sdlWindow) readPixels() (*image.RGBA, error) {
	cw, ch := w.canvas.Size()
	img := image.NewRGBA(image.Rect(0, 0, cw, ch))
	if err := w.ren.ReadPixels(nil, uint32(sdl.PIXELFORMAT_RGBA32), unsafe.Pointer(&img.Pix[0]), img.Stride); err != nil {
		return nil, fmt.Errorf("SDL read pixels: %w", err)
	}
	return img, nil
}

func (w *sdlWindow) close() {
	if w.tex != nil {
		_ = w.tex.Destroy()
	}
	if w.ren != nil {
		_ = w.ren.Destroy()
	}
	if w.win != nil {
		_ = w.win.Destroy()
	}
	sdl.Quit()
}
