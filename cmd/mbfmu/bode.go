package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"os"
	"slices"
	"strings"
	"time"

	"mbfmu/atomicfile"
	"mbfmu/results"
	"mbfmu/solver"
	"mbfmu/xml"
)

// writeBode writes a frequency-response table (cols: the frequency, then
// each pair's magnitude and phase) to the CSV out ("-" standard output,
// "" none) and the workbook xlsx (log frequency axis, run information
// ri), and draws svgPairs to the SVG file svg with title and note; it
// returns the files written.
func writeBode(out, xlsx, svg string, ri results.RunInfo, cols []results.Column, freq []float64, pairs, svgPairs []results.BodePair, title, note string) ([]string, error) {
	var w results.Outputs
	defer w.RemoveTemps()
	if out == "-" {
		w.AddStream(results.NewCSVWriterDigits(os.Stdout, 17), "standard output")
	} else if out != "" {
		if err := results.MakeParentDirs(out); err != nil {
			return nil, err
		}
		if err := w.AddCSV(out); err != nil {
			return nil, err
		}
	}
	if xlsx != "" {
		if err := results.MakeParentDirs(xlsx); err != nil {
			return nil, err
		}
		xw, err := w.AddXLSX(xlsx)
		if err != nil {
			return nil, err
		}
		xw.SetLogX()
		xw.SetRunInfo(ri)
	}
	if err := w.Header(cols); err != nil {
		w.Abort()
		return nil, err
	}
	row := make([]float64, len(cols))
	for k, f := range freq {
		row[0] = f
		for p, pr := range pairs {
			row[1+2*p], row[2+2*p] = pr.Mag[k], pr.Phase[k]
		}
		if err := w.Row(row); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	written := w.Written()
	if svg != "" {
		if err := results.MakeParentDirs(svg); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(svg, func(w io.Writer) error { return results.WriteBodeSVG(w, title, note, freq, svgPairs) }); err != nil {
			return nil, err
		}
		written = append(written, svg)
	}
	return written, nil
}

// bodeTable prints the terminal summary of a frequency response (head,
// then each pair's magnitude and phase at the ends of the range) to
// standard output, or to standard error when the CSV went to standard
// output, and returns that writer.
func bodeTable(out, head string, freq []float64, pairs []results.BodePair) io.Writer {
	table := io.Writer(os.Stdout)
	if out == "-" {
		table = os.Stderr
	}
	lo, hi, n := freq[0], freq[len(freq)-1], len(freq)-1
	fmt.Fprintf(table, "%s, %d frequencies from %g Hz to %g Hz\n", head, len(freq), lo, hi)
	fmt.Fprintf(table, "%-30s %16s %14s %16s %14s\n", "output/input", "|H| at "+shortHz(lo), "phase (deg)", "|H| at "+shortHz(hi), "phase (deg)")
	for _, pr := range pairs {
		fmt.Fprintf(table, "%-30s %16.6g %14.2f %16.6g %14.2f\n", pr.Name, pr.Mag[0], pr.Phase[0], pr.Mag[n], pr.Phase[n])
	}
	return table
}

// freqFlag is a frequency in Hz given with an optional unit ("10", "10 Hz",
// "2 1/s"); it must be finite and positive.
type freqFlag struct{ v *float64 }

func (f freqFlag) String() string {
	if f.v == nil || *f.v == 0 || math.IsNaN(*f.v) {
		return ""
	}
	return fmt.Sprint(*f.v)
}

func (f freqFlag) Set(s string) error {
	v, err := xml.ParseQuantity(s, xml.Frequency)
	if err != nil {
		return err
	}
	if !(v > 0) || math.IsInf(v, 0) || v > solver.MaxNumber {
		return fmt.Errorf("%q is not a positive finite frequency", s)
	}
	*f.v = v
	return nil
}

func cmdBode(args []string) error {
	for _, a := range args {
		if (!strings.HasPrefix(a, "-") && isCosimFile(a)) || a == "--amplitude" || a == "-amplitude" || strings.HasPrefix(a, "--amplitude=") {
			return cmdBodeCosim(args)
		}
	}
	var at, from, to float64
	var noStatic *bool
	var points *int
	var svg *string
	var direct float64
	var inSel, outSel *string
	m, model, o, err := modelCommand("bode", "usage: mbfmu bode model.xml [-o bode.csv] [--xlsx bode.xlsx] [--svg bode.svg] [--from f] [--to f] [--points n] [--inputs a,b] [--outputs y,z] [--direct amplitude] [--at t | --initial] [--param name=value]\n\n"+
		"Frequency response of the model's outputs to its inputs, from its linearisation (about its static\n"+
		"equilibrium, its initial state, or its state at a time of a dynamic simulation): for each\n"+
		"input–output pair the magnitude (output unit per input unit) and the phase (degrees) at\n"+
		"log-spaced frequencies. With --direct, also by time integration with a harmonic input of that\n"+
		"amplitude: where the two differ, the plant is nonlinear at that amplitude.",
		optOut|optParam|optQuiet, "_bode.csv", args, func(fs *flag.FlagSet) {
			noStatic = pointFlags(fs, &at)
			fs.Var(freqFlag{&from}, "from", "lowest `frequency` (Hz, or with a unit; default: a decade below the lowest mode, rounded to a decade)")
			fs.Var(freqFlag{&to}, "to", "highest `frequency` (Hz, or with a unit; default: a decade above the highest mode, rounded to a decade)")
			points = fs.Int("points", 200, "`number` of frequencies, log-spaced from --from to --to")
			svg = fs.String("svg", "", "also draw the Bode plots to this SVG `file`")
			inSel = fs.String("inputs", "", "the `inputs` to excite, comma-separated (default: every input)")
			outSel = fs.String("outputs", "", "the `outputs` to show, comma-separated (default: every output)")
			fs.Float64Var(&direct, "direct", 0, "also compute the direct frequency response by time integration, each input in turn a sine of this `amplitude` (in the input's SI unit) about its operating value (default --points 20)")
		})
	if err != nil {
		return err
	}
	if err := checkOutputs([]string{model}, outputFlag{"-o", o.out}, outputFlag{"--xlsx", o.xlsx}, outputFlag{"--svg", *svg}); err != nil {
		return err
	}
	if *svg == "-" {
		return usagef("--svg: give a file name")
	}
	if !(direct >= 0) || math.IsInf(direct, 0) {
		return usagef("--direct: the amplitude must be a positive number, got %g", direct)
	}
	if direct > 0 && !o.set("points") {
		*points = 20
	}
	if *points < 2 || *points > 100000 {
		return usagef("--points: must be 2 to 100000, got %d", *points)
	}
	if from > 0 && to > 0 && !(to > from) {
		return usagef("--to (%g Hz) must be above --from (%g Hz)", to, from)
	}
	if err := checkAt(m, at, *noStatic); err != nil {
		return err
	}
	if len(m.InputInfo()) == 0 || len(m.OutputInfo()) == 0 {
		return fmt.Errorf("%s: the model needs at least one <input> and one <output> for a frequency response (it has %d and %d)", model, len(m.InputInfo()), len(m.OutputInfo()))
	}
	selIn, err := selectVars("--inputs", *inSel, m.InputInfo(), "input")
	if err != nil {
		return err
	}
	selOut, err := selectVars("--outputs", *outSel, m.OutputInfo(), "output")
	if err != nil {
		return err
	}
	stop := catchQuit(o.out, o.xlsx, *svg)
	defer stop.Stop()
	wall := time.Now()
	s, point, err := operatingPoint(m, "bode", at, *noStatic, o.quiet)
	if err != nil {
		return err
	}
	lin, err := m.Linearize(s)
	if err != nil {
		return err
	}
	lo, hi := freqRange(lin)
	if from > 0 {
		lo = from
	}
	if to > 0 {
		hi = to
	}
	if !(hi > lo) {
		hi = 1000 * lo
	}
	freq := solver.LogSpace(lo, hi, *points)
	H, err := lin.Response(freq)
	if err != nil {
		return fmt.Errorf("%s: %w (choose --from and --to around it)", model, err)
	}
	ins, outs := m.InputInfo(), m.OutputInfo()
	nu := len(ins)
	// the direct response: every selected input in turn, at every frequency
	var HD [][][]complex128 // [input][frequency][output]
	if direct > 0 {
		pr := newProgress("bode --direct", o.quiet)
		opt := solver.DirectOptions{Amplitude: direct, Settle: lin.SettleTime(), Lin: lin}
		if point != "static equilibrium" {
			fmt.Fprintf(os.Stderr, "%s: warning: the direct response is taken about the %s, not a static equilibrium: it means something only where that state is at rest or moves periodically at the excitation frequency\n", model, point)
		}
		if opt.Settle == 0 {
			fmt.Fprintf(os.Stderr, "%s: warning: no mode of the linearisation decays: the direct response measures after 5 cycles, with the transient still in it\n", model)
		}
		HD = make([][][]complex128, nu)
		for n, ii := range selIn {
			HD[ii] = make([][]complex128, len(freq))
			for k, f := range freq {
				if HD[ii][k], err = m.DirectResponse(s, ii, f, opt); err != nil {
					pr.done()
					return fmt.Errorf("%s: input %s: %w", model, ins[ii].Name, err)
				}
				pr.update(float64(n*len(freq)+k+1), 0, float64(len(selIn)*len(freq)))
			}
		}
		pr.done()
	}
	cols := []results.Column{{Name: "frequency", Unit: "Hz", Group: results.GroupTime, Description: "frequency of the harmonic input"}}
	var pairs, directPairs []results.BodePair
	for _, oi := range selOut {
		for _, ii := range selIn {
			y, u := outs[oi], ins[ii]
			name := y.Name + "/" + u.Name
			unit := perUnit(y.Unit, u.Unit)
			cols = append(cols,
				results.Column{Name: name + " magnitude", Unit: unit, Group: results.GroupMagnitude, Description: "amplitude of output " + y.Name + " per unit amplitude of input " + u.Name},
				results.Column{Name: name + " phase", Unit: "deg", Group: results.GroupPhase, Description: "phase of output " + y.Name + " against input " + u.Name})
			h := make([]complex128, len(freq))
			mag := make([]float64, len(freq))
			for k := range freq {
				h[k] = H[k][oi*nu+ii]
				mag[k] = cmplx.Abs(h[k])
			}
			ph := solver.Phases(h)
			for k := range ph {
				if mag[k] == 0 {
					ph[k] = math.NaN() // no response, no phase
				}
			}
			pairs = append(pairs, results.BodePair{Name: name, Unit: unit, Mag: mag, Phase: ph})
		}
	}
	if HD != nil {
		for p, oi := range selOut {
			for q, ii := range selIn {
				y, u := outs[oi], ins[ii]
				lp := pairs[p*len(selIn)+q]
				name := lp.Name + " direct"
				cols = append(cols,
					results.Column{Name: name + " magnitude", Unit: lp.Unit, Group: results.GroupMagnitude, Description: fmt.Sprintf("amplitude of output %s per unit amplitude of input %s, by time integration with a sine of amplitude %g", y.Name, u.Name, direct)},
					results.Column{Name: name + " phase", Unit: "deg", Group: results.GroupPhase, Description: "phase of output " + y.Name + " against input " + u.Name + ", by time integration"})
				mag, ph := make([]float64, len(freq)), make([]float64, len(freq))
				for k := range freq {
					z := HD[ii][k][oi]
					mag[k] = cmplx.Abs(z)
					p := cmplx.Phase(z) * 180 / math.Pi
					// in the turn of the linear phase; where there is none,
					// continuous along the frequency
					ph[k] = p + 360*math.Round((lp.Phase[k]-p)/360)
					if math.IsNaN(lp.Phase[k]) {
						ph[k] = p
						if k > 0 && !math.IsNaN(ph[k-1]) {
							ph[k] = p + 360*math.Round((ph[k-1]-p)/360)
						}
					}
					if mag[k] == 0 {
						ph[k] = math.NaN()
					}
				}
				directPairs = append(directPairs, results.BodePair{Name: name, Unit: lp.Unit, Mag: mag, Phase: ph})
			}
		}
	}
	var ri results.RunInfo
	ri.Add("model file", model)
	ri.Add("analysis", "frequency response of the linearisation about the "+point)
	ri.Add("frequencies", fmt.Sprintf("%d, log-spaced from %g Hz to %g Hz", len(freq), lo, hi))
	note := "line: from the linearisation"
	sp := append([]results.BodePair(nil), pairs...)
	if directPairs != nil {
		note += fmt.Sprintf("; circles: by time integration with inputs of amplitude %g", direct)
		for p := range sp {
			sp[p].DMag, sp[p].DPhase = directPairs[p].Mag, directPairs[p].Phase
		}
	}
	all := append(pairs[:len(pairs):len(pairs)], directPairs...)
	written, err := writeBode(o.out, o.xlsx, *svg, ri, cols, freq, all, sp, fmt.Sprintf("%s: frequency response about the %s", m.Name(), point), note)
	if err != nil {
		return err
	}
	table := bodeTable(o.out, fmt.Sprintf("%s: frequency response about the %s", m.Name(), point), freq, all)
	if directPairs != nil {
		worst, at, which := 0.0, 0.0, ""
		var none []string // pairs the linearisation has no response for where the direct one has
		for p, dp := range directPairs {
			lost := false
			for k := range freq {
				lm := pairs[p].Mag[k]
				if lm == 0 {
					lost = lost || dp.Mag[k] > 0
					continue
				}
				if d := math.Abs(dp.Mag[k]/lm - 1); d > worst {
					worst, at, which = d, freq[k], pairs[p].Name
				}
			}
			if lost {
				none = append(none, pairs[p].Name)
			}
		}
		fmt.Fprintf(table, "direct against linear: largest magnitude difference %.3g %% (%s at %.4g Hz)\n", 100*worst, which, at)
		if len(none) > 0 {
			fmt.Fprintf(table, "direct against linear: the linearisation has no response of %s where the direct one has (a dead band: backlash, friction)\n", strings.Join(none, ", "))
		}
	}
	to2 := ""
	if len(written) > 0 {
		to2 = " → " + strings.Join(written, ", ")
	}
	fmt.Fprintf(os.Stderr, "summary: %d input–output pairs × %d frequencies, wall time %s%s\n", len(pairs), len(freq), time.Since(wall).Round(time.Microsecond), to2)
	return nil
}

// selectVars returns the indices of the variables named in the
// comma-separated list sel (all when sel is empty), refusing an unknown
// name with the flag and the names there are.
func selectVars(flag, sel string, vars []solver.VarInfo, what string) ([]int, error) {
	if strings.TrimSpace(sel) == "" {
		out := make([]int, len(vars))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	var out []int
	for _, n := range strings.Split(sel, ",") {
		n = strings.TrimSpace(n)
		k := slices.IndexFunc(vars, func(v solver.VarInfo) bool { return v.Name == n })
		if k < 0 {
			names := make([]string, len(vars))
			for i, v := range vars {
				names[i] = v.Name
			}
			return nil, usagef("%s: the model has no %s %q (it has %s)", flag, what, n, strings.Join(names, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}

func shortHz(f float64) string { return fmt.Sprintf("%.4g Hz", f) }

// perUnit is the unit of an output per unit of an input: "m/N",
// "rad/(N*m)", "(m/s)/N"; an empty unit is 1.
func perUnit(out, in string) string {
	if in == "" || in == "1" {
		return out
	}
	if strings.ContainsAny(in, "*/ ") {
		in = "(" + in + ")"
	}
	if out == "" {
		out = "1"
	}
	if strings.Contains(out, "/") {
		out = "(" + out + ")"
	}
	return out + "/" + in
}

// freqRange is the default frequency range of a Bode plot: from a decade
// below the lowest mode with a nonzero frequency to a decade above the
// highest, each rounded outwards to a decade (0.1–100 Hz for a model
// without such modes).
func freqRange(lin *solver.Linear) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, md := range lin.Modes {
		if md.Freq > 1e-9 {
			lo, hi = math.Min(lo, md.Freq), math.Max(hi, md.Freq)
		}
	}
	if hi == 0 {
		return 0.1, 100
	}
	return math.Pow(10, math.Floor(math.Log10(lo))-1), math.Pow(10, math.Ceil(math.Log10(hi))+1)
}
