// Command mbfmu is the command-line tool of the mbfmu multibody engine:
// check, simulate and analyse model files, pack them as FMI 2.0
// Co-Simulation FMUs, export results to spreadsheets, run co-simulations
// and benchmarks.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"mbfmu/xml"
)

const usage = `mbfmu — planar multibody dynamics, shipped as FMI 2.0 Co-Simulation FMUs

usage: mbfmu <command> [arguments]

commands:
  check model.xml                 report every problem in a model file
  simulate model.xml [-o r.csv]   dynamic simulation (--xlsx r.xlsx, --end, --step, --integrator, --param k=v)
  kinematics model.xml [-o r.csv] kinematic analysis of a fully driven mechanism
  static model.xml [-o r.csv]     static equilibrium
  eigen model.xml [-o modes.csv]  linearisation: eigenvalues, mode shapes, state-space (A, B, C, D)
  pack model.xml [-o m.fmu]       pack an FMI 2.0 Co-Simulation FMU
  export results.csv out.xlsx     convert a results file to a spreadsheet with charts
  cosim config.xml                run a co-simulation (plants, controllers, FMUs) [-rt for real time]
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
		err = cmdSimulate(args)
	case "kinematics", "kin":
		err = cmdKinematics(args)
	case "static":
		err = cmdStatic(args)
	case "eigen", "linearize", "linearise":
		err = cmdEigen(args)
	case "pack":
		err = cmdPack(args)
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
	if err != nil {
		var ex exitError
		if errors.As(err, &ex) {
			os.Exit(int(ex))
		}
		fmt.Fprintln(os.Stderr, "mbfmu:", err)
		os.Exit(1)
	}
}

// exitError ends the program with a status after the command printed its
// own diagnostics.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// parseFlags parses flags that may come before or after positional
// arguments, returning the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// paramFlags collects repeated --param name=value overrides; the value
// may carry a unit ("k=2 kN/m", "m=500 g") and is stored in SI.
type paramFlags map[string]float64

func (p paramFlags) String() string { return "" }

func (p paramFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want name=value, got %q", s)
	}
	f, err := xml.ParseQuantity(v, xml.Any)
	if err != nil {
		return fmt.Errorf("parameter %s: %v", k, err)
	}
	p[strings.TrimSpace(k)] = f
	return nil
}

// timeFlag is a time in seconds given with an optional unit ("2", "2 s",
// "0.5ms", "1 min").
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
	*t.v = f
	return nil
}

// timeVar defines a time flag (seconds, units accepted) on fs.
func timeVar(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var(timeFlag{p}, name, usage)
}
