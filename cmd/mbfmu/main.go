// Command mbfmu is the command-line tool of the mbfmu multibody engine:
// check, simulate and analyse model files, pack them as FMI 2.0
// Co-Simulation FMUs, export results to spreadsheets, run co-simulations
// and benchmarks.
//
// Exit status: 0 on success, 1 when a model, a run or a check fails, 2 for
// a command line it cannot honour (an unknown flag, a value out of range,
// an output that would overwrite an input), 130 after SIGINT (Ctrl-C) and
// 143 after SIGTERM, with every results row computed until then written.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"mbfmu/interrupt"
	"mbfmu/solver"
	"mbfmu/xml"
)

const usage = `mbfmu — planar and spatial multibody dynamics, shipped as FMI 2.0 and 3.0 Co-Simulation FMUs

usage: mbfmu <command> [arguments]

commands:
  check model.xml                 report every problem in a model file
  simulate model.xml [-o r.csv]   dynamic simulation (--xlsx r.xlsx, --end, --step, --integrator, --param k=v)
  kinematics model.xml [-o r.csv] kinematic analysis of a fully driven mechanism
  static model.xml [-o r.csv]     static equilibrium
  eigen model.xml [-o modes.csv]  linearisation: eigenvalues, mode shapes, state-space (A, B, C, D)
  bode model.xml [-o bode.csv]    frequency response of the outputs to the inputs (--xlsx, --svg, --from, --to)
  pack model.xml [-o m.fmu]       pack an FMI 2.0 Co-Simulation FMU (--fmi 3: FMI 3.0)
  compat model.xml...             FMUs with reference results in the FMI cross-check layout (-o dist/compat)
  import robot.urdf [-o r.xml]    write a robot described in URDF as a spatial model
  export results.csv out.xlsx     convert a results file to a spreadsheet with charts
  cosim config.xml                run a co-simulation (plants, controllers, FMUs) [--rt for real time]
  study study.xml [-o runs.csv]   design study: sweeps, DOE, optimisation, sensitivities (--jobs N, --slurm)
  bench                           print the benchmark table

Run 'mbfmu <command> -h' for the options of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	var err error
	switch cmd {
	case "check":
		err = cmdCheck(args)
	case "simulate", "sim", "run":
		cmd = "simulate"
		err = cmdSimulate(args)
	case "kinematics", "kin":
		cmd = "kinematics"
		err = cmdKinematics(args)
	case "static":
		err = cmdStatic(args)
	case "eigen", "linearize", "linearise":
		cmd = "eigen"
		err = cmdEigen(args)
	case "bode":
		err = cmdBode(args)
	case "pack":
		err = cmdPack(args)
	case "compat":
		err = cmdCompat(args)
	case "import":
		err = cmdImport(args)
	case "export":
		err = cmdExport(args)
	case "cosim":
		err = cmdCosim(args)
	case "study":
		err = cmdStudy(args)
	case "bench":
		err = cmdBench(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "mbfmu: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	os.Exit(exitStatus(os.Stderr, cmd, err))
}

// exitStatus prints err (unless the command printed its own diagnostics)
// and returns the exit status for it.
func exitStatus(w io.Writer, cmd string, err error) int {
	var ex exitError
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ex):
		return int(ex)
	case errors.As(err, &ue):
		fmt.Fprintf(w, "mbfmu %s: %v\n", cmd, ue.err)
		if ue.hint {
			fmt.Fprintf(w, "Run 'mbfmu %s -h' for its options.\n", cmd)
		}
		return 2
	}
	fmt.Fprintln(w, "mbfmu:", err)
	if e, ok := interrupt.Is(err); ok {
		return e.ExitCode()
	}
	return 1
}

// exitError ends the program with a status after the command printed its
// own diagnostics.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a command line the command cannot honour (exit status 2).
// Its message names the flag.
type usageError struct {
	err  error
	hint bool // point to -h
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError.
func usagef(format string, args ...any) error {
	return usageError{err: fmt.Errorf(format, args...)}
}

// errHelp is returned when -h was given: the usage went to standard
// output and the command succeeds.
var errHelp = errors.New("help requested")

// newFlagSet returns a flag set whose usage starts with the text head
// (usage line and description); the flags follow.
func newFlagSet(name, head string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), strings.TrimRight(head, "\n"))
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprintln(fs.Output(), "\noptions:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses flags that may come before or after positional
// arguments, returning the positional ones. -h prints the usage on
// standard output and returns errHelp; a bad flag returns a usageError.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard) // errors are reported once, by main
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(os.Stdout)
				fs.Usage()
				return nil, errHelp
			}
			return nil, usageError{err: err, hint: true}
		}
		if fs.NArg() == 0 {
			fs.SetOutput(os.Stderr)
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// wantArgs checks the number of positional arguments; what names them
// for the message ("one model file").
func wantArgs(fs *flag.FlagSet, pos []string, n int, what string) error {
	if len(pos) == n {
		return nil
	}
	if len(pos) == 0 {
		fs.SetOutput(os.Stderr)
		fs.Usage()
		return exitError(2)
	}
	return usageError{err: fmt.Errorf("expected %s, got %d arguments: %s", what, len(pos), strings.Join(pos, " ")), hint: true}
}

// isSet reports whether the flag called name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// paramFlags collects repeated --param name=value overrides as written;
// the values (with an optional unit, "k=2 kN/m") are checked against the
// parameters' declared units once the model is read (resolveParams).
type paramFlags struct {
	names  []string
	values map[string]string
}

func (p *paramFlags) String() string { return "" }

func (p *paramFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" {
		return fmt.Errorf("want name=value (a unit may follow the value: k=2 kN/m), got %q", s)
	}
	if _, err := xml.ParseQuantity(v, xml.Any); err != nil {
		return fmt.Errorf("%s: %v", k, err)
	}
	if p.values == nil {
		p.values = map[string]string{}
	}
	if _, dup := p.values[k]; !dup {
		p.names = append(p.names, k)
	}
	p.values[k] = v
	return nil
}

// paramDecl is a parameter of a model: its name and declared unit.
type paramDecl struct{ name, unit string }

// resolveParams converts the overrides to the units the model declares
// for the parameters (see xml.ParseQuantityIn), refusing unknown
// parameters and values of the wrong dimension with a message naming the
// flag.
func (p *paramFlags) resolve(decl []paramDecl) (map[string]float64, error) {
	if len(p.names) == 0 {
		return nil, nil
	}
	out := map[string]float64{}
	for _, k := range p.names {
		v := p.values[k]
		i := -1
		for j, d := range decl {
			if d.name == k {
				i = j
			}
		}
		if i < 0 {
			var names []string
			for _, d := range decl {
				names = append(names, d.name)
			}
			sort.Strings(names)
			list := "it has none"
			if len(names) > 0 {
				list = "it has " + strings.Join(names, ", ")
			}
			return nil, usagef("--param %s=%s: the model has no parameter %q (%s)", k, v, k, list)
		}
		f, err := xml.ParseQuantityIn(v, decl[i].unit)
		if err != nil {
			return nil, usagef("--param %s=%s: %v", k, v, strings.Replace(err.Error(), "the quantity is", "parameter "+k+" is", 1))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, usagef("--param %s=%s: not a finite number", k, v)
		}
		out[k] = f
	}
	return out, nil
}

// timeFlag is a time in seconds given with an optional unit ("2", "2 s",
// "0.5ms", "1 min"); it must be finite.
type timeFlag struct{ v *float64 }

func (t timeFlag) String() string {
	if t.v == nil || *t.v == 0 || math.IsNaN(*t.v) {
		return "" // unset: the help shows no default
	}
	return strconv.FormatFloat(*t.v, 'g', -1, 64)
}

func (t timeFlag) Set(s string) error {
	f, err := xml.ParseQuantity(s, xml.Time)
	if err != nil {
		return err
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a finite time", s)
	}
	if math.Abs(f) > solver.MaxNumber {
		return fmt.Errorf("%q is beyond ±%.2g s, the largest number a model may hold", s, solver.MaxNumber)
	}
	*t.v = f
	return nil
}

// timeVar defines a time flag (seconds, units accepted) on fs.
func timeVar(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var(timeFlag{p}, name, usage)
}
