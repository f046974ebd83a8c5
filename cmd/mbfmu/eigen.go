package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"mbfmu/atomicfile"
	"mbfmu/results"
	"mbfmu/solver"
	"mbfmu/solver/mech"
)

func cmdEigen(args []string) error {
	var at *float64
	var noStatic *bool
	var abcd *string
	m, model, o, err := modelCommand("eigen", "usage: mbfmu eigen model.xml [-o modes.csv] [--xlsx modes.xlsx] [--abcd abcd.csv] [--at t | --initial] [--param name=value]\n\n"+
		"Linearises the model (about its static equilibrium, its initial state, or its state at a time\n"+
		"of a dynamic simulation with the model's settings) and prints the eigenvalues and modes.",
		optOut|optParam|optQuiet, "", args, func(fs *flag.FlagSet) {
			at = new(float64)
			noStatic = pointFlags(fs, at)
			abcd = fs.String("abcd", "", "write the state-space matrices A, B, C, D to this CSV `file`")
		})
	if err != nil {
		return err
	}
	if err := checkOutputs([]string{model}, outputFlag{"-o", o.out}, outputFlag{"--xlsx", o.xlsx}, outputFlag{"--abcd", *abcd}); err != nil {
		return err
	}
	if *abcd == "-" {
		return usagef("--abcd: give a file name")
	}
	if err := checkAt(m, *at, *noStatic); err != nil {
		return err
	}
	stop := catchQuit(o.out, o.xlsx, *abcd)
	defer stop.Stop()
	wall := time.Now()
	s, point, err := operatingPoint(m, "eigen", *at, *noStatic, o.quiet)
	if err != nil {
		return err
	}
	lin, err := m.Linearize(s)
	if err != nil {
		return err
	}
	// The table goes to standard output unless the modes CSV does.
	table := io.Writer(os.Stdout)
	if o.out == "-" {
		table = os.Stderr
	}
	for _, r := range m.Reductions() {
		writeReduction(table, r)
	}
	fmt.Fprintf(table, "%s: linearised about the %s, %d degrees of freedom\n", m.Name(), point, lin.DOF())
	fmt.Fprintf(table, "%4s %16s %16s %12s %24s\n", "mode", "frequency (Hz)", "damped (Hz)", "damping", "eigenvalue (1/s)")
	for i, md := range lin.Modes {
		fmt.Fprintf(table, "%4d %16.8g %16.8g %12.6g %24s\n", i+1, md.Freq, md.DampedHz, md.Damping, fmt.Sprintf("%.6g%+.6gi", real(md.Eig), imag(md.Eig)))
	}
	modes := &results.Modes{ShapeNames: lin.Coords}
	for _, md := range lin.Modes {
		modes.Freq = append(modes.Freq, md.Freq)
		modes.Damping = append(modes.Damping, md.Damping)
		modes.Eig = append(modes.Eig, md.Eig)
		modes.Shapes = append(modes.Shapes, md.Shape)
	}
	var written []string
	write := func(path string, f func(w io.Writer) error) error {
		if path == "-" {
			return f(os.Stdout)
		}
		if err := results.MakeParentDirs(path); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(path, f); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	if o.out != "" {
		if err := write(o.out, func(w io.Writer) error { return writeModesCSV(w, lin) }); err != nil {
			return err
		}
	}
	if o.xlsx != "" {
		var ri results.RunInfo
		ri.Add("model file", model)
		ri.Add("analysis", "linearisation about the "+point)
		ri.Add("wall time", time.Since(wall).String())
		if err := results.MakeParentDirs(o.xlsx); err != nil {
			return err
		}
		if err := results.WriteXLSX(o.xlsx, &results.Table{}, ri, modes); err != nil {
			return err
		}
		written = append(written, o.xlsx)
	}
	if *abcd != "" {
		if err := write(*abcd, func(w io.Writer) error { return writeABCD(w, lin) }); err != nil {
			return err
		}
	}
	to := ""
	if len(written) > 0 {
		to = " → " + strings.Join(written, ", ")
	}
	fmt.Fprintf(os.Stderr, "summary: %d modes, wall time %s%s\n", len(lin.Modes), time.Since(wall).Round(time.Microsecond), to)
	return nil
}

// pointFlags registers the operating-point flags of eigen and bode: --at
// (into at; NaN when not given) and --initial (returned).
func pointFlags(fs *flag.FlagSet, at *float64) *bool {
	timeVar(fs, at, "at", math.NaN(), "linearise at this `time` of a dynamic simulation with the model's settings (s, or with a unit; default: about the static equilibrium)")
	return fs.Bool("initial", false, "linearise about the initial state instead of the static equilibrium")
}

// checkAt checks the operating-point flags of eigen and bode: --at (NaN:
// not given) within the model's time grid, not with --initial.
func checkAt(m *solver.Model, at float64, initial bool) error {
	st := m.Settings()
	if math.IsNaN(at) {
		return nil
	}
	if initial {
		return usagef("--at and --initial: give one of them")
	}
	if at < st.Start {
		return usagef("--at: must be at or after the start time %g s, got %g s", st.Start, at)
	}
	if at > st.Start {
		if _, msg := solver.TimeGridProblem(st.Start, at, st.Step, st.OutputStep, st.Adaptive); msg != "" {
			return usagef("--at: %s", msg)
		}
	}
	return nil
}

// operatingPoint returns the state to linearise the model about: its
// state at time at of a dynamic simulation with the model's settings
// (at not NaN; with progress unless quiet), its initial state (initial),
// or its static equilibrium; and the point's description.
func operatingPoint(m *solver.Model, cmd string, at float64, initial, quiet bool) (*solver.State, string, error) {
	s := m.NewState()
	if err := m.Init(s); err != nil {
		return nil, "", err
	}
	switch {
	case !math.IsNaN(at):
		// in chunks of whole steps (the same steps as one call: the grid
		// is anchored at the start), with progress on a long way
		pr := newProgress(cmd+" --at", quiet)
		st := m.Settings()
		chunk := st.Step * math.Max(1, math.Round(st.OutputStep/st.Step))
		for k := 1; ; k++ {
			t := st.Start + float64(k)*chunk
			if t >= at || st.Adaptive {
				t = at
			}
			if err := m.AdvanceTo(s, t); err != nil {
				pr.done()
				return nil, "", err
			}
			pr.update(t, st.Start, at)
			if t == at {
				break
			}
		}
		pr.done()
		return s, fmt.Sprintf("state at t = %g s", at), nil
	case initial:
		return s, "initial state", nil
	}
	if err := m.Static(s); err != nil {
		return nil, "", fmt.Errorf("%s: %w (use --initial to linearise about the initial state)", cmd, err)
	}
	return s, "static equilibrium", nil
}

func writeModesCSV(w io.Writer, lin *solver.Linear) error {
	f := bufio.NewWriter(w)
	fmt.Fprint(f, "mode,frequency [Hz],damped frequency [Hz],damping ratio,eigenvalue real [1/s],eigenvalue imag [1/s]")
	for _, c := range lin.Coords {
		fmt.Fprintf(f, ",shape %s", c)
	}
	fmt.Fprintln(f)
	for i, md := range lin.Modes {
		fmt.Fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g", i+1, md.Freq, md.DampedHz, md.Damping, real(md.Eig), imag(md.Eig))
		for _, v := range md.Shape {
			fmt.Fprintf(f, ",%.17g", v)
		}
		fmt.Fprintln(f)
	}
	return f.Flush()
}

// writeABCD writes the linear model ẋ = A x + B u, y = C x + D u and the
// basis N of its coordinates (docs/model-format.md, "Linear models"):
// each matrix as a line "# NAME rows×cols" and its rows as CSV, then the
// names of the inputs, outputs and velocity coordinates.
func writeABCD(w io.Writer, lin *solver.Linear) error {
	f := bufio.NewWriter(w)
	for _, mm := range []struct {
		name string
		m    interface {
			Dims() (int, int)
			At(i, j int) float64
		}
	}{{"A", lin.A}, {"B", lin.B}, {"C", lin.C}, {"D", lin.D}, {"N", lin.N}} {
		r, c := mm.m.Dims()
		fmt.Fprintf(f, "# %s %dx%d\n", mm.name, r, c)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if j > 0 {
					fmt.Fprint(f, ",")
				}
				fmt.Fprintf(f, "%.17g", mm.m.At(i, j))
			}
			fmt.Fprintln(f)
		}
	}
	fmt.Fprintf(f, "# inputs: %s\n# outputs: %s\n# coordinates: %s\n", strings.Join(lin.Inputs, ", "), strings.Join(lin.Outputs, ", "), strings.Join(lin.Coords, ", "))
	if len(lin.States) > 0 {
		fmt.Fprintf(f, "# element states: %s\n", strings.Join(lin.States, ", "))
	}
	return f.Flush()
}

// writeReduction prints a flexible body's frequencies before and after its
// FE model's reduction.
func writeReduction(w io.Writer, r mech.Reduction) {
	rigid := ""
	if r.Rigid > 0 {
		rigid = fmt.Sprintf(", %d rigid-body modes left to its floating frame", r.Rigid)
	}
	fmt.Fprintf(w, "%s: FE model (%s) of %d coordinates%s, reduced to %d (%s)\n", r.Body, r.Source, r.Dofs, rigid, len(r.Kept), r.Basis)
	fmt.Fprintf(w, "%4s %16s %16s %12s\n", "mode", "FE model (Hz)", "reduced (Hz)", "difference")
	for k := 0; k < max(len(r.Full), len(r.Kept)); k++ {
		full, kept, diff := "", "", ""
		if k < len(r.Full) {
			full = fmt.Sprintf("%.8g", r.Full[k])
		}
		if k < len(r.Kept) {
			kept = fmt.Sprintf("%.8g", r.Kept[k])
			if k < len(r.Full) && r.Full[k] > 0 {
				diff = fmt.Sprintf("%+.3g %%", 100*(r.Kept[k]-r.Full[k])/r.Full[k])
			}
		}
		fmt.Fprintf(w, "%4d %16s %16s %12s\n", k+1, full, kept, diff)
	}
}
