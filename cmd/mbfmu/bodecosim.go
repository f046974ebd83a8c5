package main

import (
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/controller"
	"mbfmu/cosim"
	"mbfmu/results"
	"mbfmu/solver"
	"mbfmu/xml"
)

// isCosimFile reports whether the file's root element is <cosim>.
func isCosimFile(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	root, _, err := xml.ReadTree(data, "cosim")
	return err == nil && root != nil && root.Name == "cosim"
}

// cmdBodeCosim implements `mbfmu bode cosim.xml`: the frequency response of
// a closed loop (plants, FMUs, controllers) by time integration. Each
// selected <signal> in turn gets a sine of the given amplitude added to
// its expression; after the loop settles, the amplitude and phase of the
// selected values against the sine over whole periods (their means
// removed) give the response at that frequency.
func cmdBodeCosim(args []string) error {
	fs := newFlagSet("bode", "usage: mbfmu bode cosim.xml --inputs SIGNAL[,...] --outputs COMP.VAR[,...] [-o bode.csv] [--xlsx bode.xlsx] [--svg bode.svg] [--from f] [--to f] [--points n] [--amplitude a] [--settle t] [--periods n]\n\n"+
		"Frequency response of a co-simulation (docs/cosim.md) by time integration: each <signal> of --inputs\n"+
		"in turn gets a sine of --amplitude added to its expression; after --settle seconds, the amplitude\n"+
		"and phase of each --outputs value (any value the results have: plant.theta, pid.u) against the\n"+
		"sine over --periods whole periods give the response. The loop runs once per input and frequency,\n"+
		"its controllers and FMUs as they are: where the loop is nonlinear, the response depends on the\n"+
		"amplitude.")
	out := fs.String("o", "", "results CSV `file` (\"-\" for standard output, \"\" for none; default: the file's name with _bode.csv)")
	xlsx := fs.String("xlsx", "", "also write a spreadsheet with Bode charts to `file`.xlsx")
	svg := fs.String("svg", "", "also draw the Bode plots to this SVG `file`")
	var from, to float64
	fs.Var(freqFlag{&from}, "from", "lowest `frequency` (Hz, or with a unit; default 0.1 Hz)")
	fs.Var(freqFlag{&to}, "to", "highest `frequency` (Hz, or with a unit; default a twentieth of the macro step's rate)")
	points := fs.Int("points", 12, "`number` of frequencies, log-spaced from --from to --to")
	inSel := fs.String("inputs", "", "the <signal>s to excite, comma-separated (required)")
	outSel := fs.String("outputs", "", "the values to measure, comma-separated, as the results name them (required)")
	amp := fs.Float64("amplitude", 0, "`amplitude` of the sine added to each input (in its SI unit; required)")
	settle := new(float64)
	timeVar(fs, settle, "settle", 2, "`time` to let the loop settle at each frequency before measuring (s, or with a unit)")
	periods := fs.Int("periods", 4, "whole `periods` measured at each frequency")
	quiet := fs.Bool("q", false, "no progress output")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, 1, "one configuration file"); err != nil {
		return err
	}
	file := pos[0]
	if !isSet(fs, "o") {
		*out = defaultOut(file, "_bode.csv")
	}
	if err := checkOutputs([]string{file}, outputFlag{"-o", *out}, outputFlag{"--xlsx", *xlsx}, outputFlag{"--svg", *svg}); err != nil {
		return err
	}
	switch {
	case *svg == "-":
		return usagef("--svg: give a file name")
	case *inSel == "" || *outSel == "":
		return usagef("a co-simulation's frequency response needs --inputs (signals to excite) and --outputs (values to measure)")
	case !(*amp > 0) || math.IsInf(*amp, 0):
		return usagef("--amplitude: give the amplitude of the sine (a positive number in the input's SI unit)")
	case *points < 2 || *points > 1000:
		return usagef("--points: must be 2 to 1000, got %d", *points)
	case *periods < 1 || *periods > 1000:
		return usagef("--periods: must be 1 to 1000, got %d", *periods)
	case !(*settle >= 0):
		return usagef("--settle: must not be negative")
	}
	cfg, err := cosim.LoadConfig(file)
	if err != nil {
		return err
	}
	st := cfg.Settings
	if st.Variable {
		return fmt.Errorf("%s: the frequency response needs a fixed macro step (the file sets variable=\"true\")", file)
	}
	if from == 0 {
		from = 0.1
	}
	if to == 0 {
		to = math.Max(1/(20*st.Step), 10*from)
	}
	if to > 1/(8*st.Step) {
		return usagef("--to: %g Hz has fewer than 8 macro steps of %g s a period: the loop samples it too coarsely", to, st.Step)
	}
	if !(to > from) {
		return usagef("--to (%g Hz) must be above --from (%g Hz)", to, from)
	}
	var ins []*cosim.Element
	for _, n := range strings.Split(*inSel, ",") {
		n = strings.TrimSpace(n)
		var found *cosim.Element
		var names []string
		for _, c := range cfg.Components {
			if c.Kind == "signal" {
				names = append(names, c.Name)
				if c.Name == n {
					found = c
				}
			}
		}
		if found == nil {
			return usagef("--inputs: %q is not a <signal> of %s (signals: %s)", n, file, strings.Join(names, ", "))
		}
		src, ok := found.Attr["expr"]
		if !ok {
			return usagef("--inputs: signal %q has no expr to add the sine to", n)
		}
		if err := constantSignal(src, st.Start, st.Start+*settle+float64(*periods)/from); err != nil {
			return fmt.Errorf("%s: --inputs %s: %v", file, n, err)
		}
		ins = append(ins, found)
	}
	outs := strings.Split(*outSel, ",")
	for k := range outs {
		outs[k] = strings.TrimSpace(outs[k])
	}
	freq := solver.LogSpace(from, to, *points)
	cache := cosim.NewModelCache()
	pr := newProgress("bode", *quiet)
	H := make([][][]complex128, len(ins)) // [input][frequency][output]
	saturated := map[string][]float64{}   // limited components that reached a limit, at which frequencies
	var units []string
	for n, in := range ins {
		H[n] = make([][]complex128, len(freq))
		for k, f := range freq {
			h, u, sat, err := cosimResponse(cfg, in, outs, f, *amp, *settle, *periods, cache)
			if err != nil {
				pr.done()
				return fmt.Errorf("%s: input %s at %g Hz: %w", file, in.Name, f, err)
			}
			for _, n := range sat {
				saturated[n] = append(saturated[n], f)
			}
			H[n][k], units = h, u
			pr.update(float64(n*len(freq)+k+1), 0, float64(len(ins)*len(freq)))
		}
	}
	pr.done()
	cols := []results.Column{{Name: "frequency", Unit: "Hz", Group: results.GroupTime, Description: "frequency of the sine added to the input"}}
	var pairs []results.BodePair
	for oi, y := range outs {
		for n, in := range ins {
			name := y + "/" + in.Name
			unit := perUnit(units[oi], in.Attr["unit"])
			cols = append(cols,
				results.Column{Name: name + " magnitude", Unit: unit, Group: results.GroupMagnitude, Description: "amplitude of " + y + " per unit amplitude of the sine added to signal " + in.Name},
				results.Column{Name: name + " phase", Unit: "deg", Group: results.GroupPhase, Description: "phase of " + y + " against the sine added to signal " + in.Name})
			h := make([]complex128, len(freq))
			mag := make([]float64, len(freq))
			for k := range freq {
				h[k] = H[n][k][oi]
				mag[k] = cmplx.Abs(h[k])
			}
			pairs = append(pairs, results.BodePair{Name: name, Unit: unit, Mag: mag, Phase: solver.Phases(h)})
		}
	}
	var ri results.RunInfo
	ri.Add("co-simulation file", file)
	ri.Add("analysis", fmt.Sprintf("frequency response by time integration: a sine of amplitude %g added to each input, %g s to settle, %d periods measured", *amp, *settle, *periods))
	ri.Add("frequencies", fmt.Sprintf("%d, log-spaced from %g Hz to %g Hz", len(freq), from, to))
	if _, err := writeBode(*out, *xlsx, *svg, ri, cols, freq, pairs, pairs, fmt.Sprintf("%s: closed-loop frequency response", cfg.Name),
		fmt.Sprintf("by time integration of the co-simulation, sines of amplitude %g", *amp)); err != nil {
		return err
	}
	for n, fs := range saturated {
		fmt.Fprintf(os.Stderr, "%s: warning: %s reached its output limit at %d of the frequencies (from %g Hz): the loop is not linear there; lower --amplitude\n", file, n, len(fs), fs[0])
	}
	bodeTable(*out, cfg.Name+": frequency response by time integration", freq, pairs)
	return nil
}

// constantSignal reports a signal expression that changes between t0 and
// t1: the response is measured about an operating point, and a signal
// that moves (a trajectory) would enter the harmonic.
func constantSignal(src string, t0, t1 float64) error {
	p, err := controller.CompileSignal(src)
	if err != nil {
		return nil // reads more than the time: the master will say what is wrong
	}
	v0 := p.Eval([]float64{t0}, nil)
	for k := 1; k <= 1000; k++ {
		t := t0 + (t1-t0)*float64(k)/1000
		if v := p.Eval([]float64{t}, nil); math.Abs(v-v0) > 1e-12*math.Max(1, math.Abs(v0)) {
			return fmt.Errorf("the signal moves (%g at %g s, %g at %g s): the response is measured about an operating point; make a copy of the file whose signal is constant there", v0, t0, v, t)
		}
	}
	return nil
}

// cosimResponse runs the loop with a sine of amplitude a and frequency f
// added to signal in and returns each output's complex amplitude per unit
// of the sine (and the outputs' units).
func cosimResponse(cfg *cosim.Config, in *cosim.Element, outs []string, f, a, settle float64, periods int, cache *cosim.ModelCache) ([]complex128, []string, []string, error) {
	c := *cfg
	c.Components = append([]*cosim.Element(nil), cfg.Components...)
	for k, el := range c.Components {
		if el == in {
			e := *el
			e.Attr = map[string]string{}
			for key, v := range el.Attr {
				e.Attr[key] = v
			}
			t0 := c.Settings.Start
			e.Attr["expr"] = fmt.Sprintf("(%s) + %.17g*sin(2*pi*%.17g*(time - %.17g))", el.Attr["expr"], a, f, t0)
			c.Components[k] = &e
		}
	}
	h := c.Settings.Step
	T := 1 / f
	// settle, then whole periods measured on the macro-step grid
	nmeas := int(math.Round(float64(periods) * T / h))
	nset := int(math.Ceil(settle / h))
	end := c.Settings.Start + float64(nset+nmeas)*h
	c.Checks = nil
	m, err := cosim.New(&c, cosim.Options{End: end, Models: cache})
	if err != nil {
		return nil, nil, nil, err
	}
	defer m.Close()
	if err := m.Init(); err != nil {
		return nil, nil, nil, err
	}
	units := make([]string, len(outs))
	cols := m.Columns()
	for k, o := range outs {
		if _, ok := m.Value(o); !ok {
			var names []string
			for _, col := range cols[1:] {
				names = append(names, col.Name)
			}
			return nil, nil, nil, fmt.Errorf("--outputs: no value %q (the results have %s)", o, strings.Join(names, ", "))
		}
		for _, col := range cols {
			if col.Name == o {
				units[k] = col.Unit
			}
		}
	}
	ys := make([][]float64, len(outs))
	var ts []float64
	// components with output limits (umin, umax): did they reach them?
	type limited struct {
		name   string
		lo, hi float64
		hit    bool
	}
	var lims []*limited
	for _, el := range c.Components {
		lo, hi := math.Inf(-1), math.Inf(1)
		if v, ok := el.Attr["umin"]; ok {
			if x, err := xml.ParseQuantity(v, xml.Any); err == nil {
				lo = x
			}
		}
		if v, ok := el.Attr["umax"]; ok {
			if x, err := xml.ParseQuantity(v, xml.Any); err == nil {
				hi = x
			}
		}
		if !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
			if _, ok := m.Value(el.Name + ".u"); ok {
				lims = append(lims, &limited{name: el.Name, lo: lo, hi: hi})
			}
		}
	}
	for step := 0; !m.Done(); step++ {
		if err := m.Advance(); err != nil {
			return nil, nil, nil, err
		}
		if step+1 <= nset {
			continue
		}
		ts = append(ts, m.Time())
		for k, o := range outs {
			v, _ := m.Value(o)
			ys[k] = append(ys[k], v)
		}
		for _, l := range lims {
			if u, _ := m.Value(l.name + ".u"); u <= l.lo || u >= l.hi {
				l.hit = true
			}
		}
	}
	if len(ts) < 8 {
		return nil, nil, nil, fmt.Errorf("only %d macro steps measured", len(ts))
	}
	// the first harmonic of each signal by a least-squares fit of
	// c + a cos ωt + b sin ωt over the window (exact for a window that is
	// not a whole number of periods on the macro-step grid); the sine's
	// complex amplitude likewise on the same samples
	w := 2 * math.Pi * f
	fit := func(vals []float64) complex128 {
		var A [3][3]float64
		var rhs [3]float64
		for i, v := range vals {
			tt := ts[i] - c.Settings.Start
			phi := [3]float64{1, math.Cos(w * tt), math.Sin(w * tt)}
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					A[r][q] += phi[r] * phi[q]
				}
				rhs[r] += phi[r] * v
			}
		}
		var x mat.VecDense
		if err := x.SolveVec(mat.NewDense(3, 3, []float64{A[0][0], A[0][1], A[0][2], A[1][0], A[1][1], A[1][2], A[2][0], A[2][1], A[2][2]}), mat.NewVecDense(3, rhs[:])); err != nil {
			return complex(math.NaN(), math.NaN())
		}
		// a cos ωt + b sin ωt = Re((a − ib) e^{iωt})
		return complex(x.AtVec(1), -x.AtVec(2))
	}
	us := make([]float64, len(ts))
	for i, t := range ts {
		us[i] = a * math.Sin(w*(t-c.Settings.Start))
	}
	U := fit(us)
	H := make([]complex128, len(outs))
	for k := range outs {
		H[k] = fit(ys[k]) / U
	}
	var sat []string
	for _, l := range lims {
		if l.hit {
			sat = append(sat, l.name)
		}
	}
	return H, units, sat, nil
}
