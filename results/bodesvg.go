package results

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// BodePair is the frequency response of one output to one input: its name
// ("x2/F"), the magnitude's unit (output unit per input unit), and the
// magnitude and phase (degrees) at each frequency; DMag and DPhase, when
// not nil, a second response at the same frequencies (the direct one, by
// time integration), drawn as points over the first.
type BodePair struct {
	Name, Unit   string
	Mag, Phase   []float64
	DMag, DPhase []float64
}

// WriteBodeSVG draws Bode plots as one SVG document: for each pair, the
// magnitude against the frequency on log–log axes and the phase (degrees)
// on a log frequency axis, side by side, with decade grid lines; the
// linear response as a line, a direct one as circles. note is printed
// under the title.
func WriteBodeSVG(w io.Writer, title, note string, freq []float64, pairs []BodePair) error {
	const pw, ph, ml, mr, mt, mb = 460.0, 260.0, 70.0, 20.0, 30.0, 45.0
	width, height := 2*pw, 50+float64(len(pairs))*ph
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/><text x="%g" y="24" font-size="15" text-anchor="middle">%s</text>`+"\n", width/2, html.EscapeString(title))
	fmt.Fprintf(b, `<text x="%g" y="40" text-anchor="middle" fill="#555">%s</text>`+"\n", width/2, html.EscapeString(note))
	for k, p := range pairs {
		y0 := 50 + float64(k)*ph
		panel(b, 0, y0, pw, ph, ml, mr, mt, mb, freq, p.Mag, p.DMag, true, p.Name+" magnitude", p.Unit)
		panel(b, pw, y0, pw, ph, ml, mr, mt, mb, freq, p.Phase, p.DPhase, false, p.Name+" phase", "deg")
	}
	b.WriteString("</svg>\n")
	return b.Flush()
}

// panel draws one plot of y (a line) and yd (circles, if not nil) against
// the frequencies (log x; log y if logY) in the box at (x0, y0) of size
// w × h with the given margins.
func panel(b *bufio.Writer, x0, y0, w, h, ml, mr, mt, mb float64, f, y, yd []float64, logY bool, title, unit string) {
	px0, px1, py0, py1 := x0+ml, x0+w-mr, y0+mt, y0+h-mb
	lx := func(v float64) float64 { return math.Log10(v) }
	fx0, fx1 := lx(f[0]), lx(f[len(f)-1])
	if fx1 <= fx0 {
		fx1 = fx0 + 1
	}
	tr := func(v float64) float64 { return v }
	if logY {
		tr = func(v float64) float64 {
			if !(v > 0) {
				return math.NaN() // no response: not drawn on a log scale
			}
			return math.Log10(v)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range append(y[:len(y):len(y)], yd...) {
		if t := tr(v); !math.IsInf(t, 0) && !math.IsNaN(t) {
			lo, hi = math.Min(lo, t), math.Max(hi, t)
		}
	}
	if !(hi >= lo) {
		lo, hi = 0, 1
	}
	if logY {
		lo, hi = math.Floor(lo), math.Ceil(hi)
	} else {
		lo, hi = 45*math.Floor(lo/45), 45*math.Ceil(hi/45)
	}
	if hi-lo < 1e-12 {
		hi = lo + 1
	}
	sx := func(v float64) float64 { return px0 + (lx(v)-fx0)/(fx1-fx0)*(px1-px0) }
	sy := func(v float64) float64 { return py1 - (tr(v)-lo)/(hi-lo)*(py1-py0) }
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#444"/>`+"\n", px0, py0, px1-px0, py1-py0)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="12">%s</text>`+"\n", (px0+px1)/2, y0+mt-10, html.EscapeString(withUnit(title, unit)))
	// frequency decades
	for d := math.Ceil(fx0); d <= math.Floor(fx1); d++ {
		x := px0 + (d-fx0)/(fx1-fx0)*(px1-px0)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ccc"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n",
			x, py0, x, py1, x, py1+14, strconv.FormatFloat(math.Pow(10, d), 'g', -1, 64))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">frequency [Hz]</text>`+"\n", (px0+px1)/2, py1+32)
	// y grid: decades or 45° steps, at most 12 lines
	step := 1.0
	if !logY {
		step = 45 * math.Max(1, math.Ceil((hi-lo)/45/8))
	} else {
		step = math.Max(1, math.Ceil((hi-lo)/8))
	}
	for v := lo; v <= hi+1e-9; v += step {
		yy := py1 - (v-lo)/(hi-lo)*(py1-py0)
		label := strconv.FormatFloat(v, 'g', -1, 64)
		if logY {
			label = "1e" + strconv.Itoa(int(v))
		}
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ccc"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n",
			px0, yy, px1, yy, px0-4, yy+4, label)
	}
	var pts strings.Builder
	for i, v := range y {
		t := tr(v)
		if math.IsNaN(t) || math.IsInf(t, 0) {
			continue
		}
		fmt.Fprintf(&pts, "%.2f,%.2f ", sx(f[i]), sy(v))
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="#1f5fbf" stroke-width="1.6" points="%s"/>`+"\n", strings.TrimSpace(pts.String()))
	for i, v := range yd {
		if t := tr(v); !math.IsNaN(t) && !math.IsInf(t, 0) {
			fmt.Fprintf(b, `<circle cx="%.2f" cy="%.2f" r="3" fill="none" stroke="#d2461e" stroke-width="1.3"/>`+"\n", sx(f[i]), sy(v))
		}
	}
}
