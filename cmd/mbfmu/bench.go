package main

import (
	"fmt"
	"os"
	"strings"

	"mbfmu/bench"
)

func cmdBench(args []string) error {
	fs := newFlagSet("bench", "usage: mbfmu bench [--examples folder] [--quick]\n\n"+
		"Prints the benchmark table (docs/benchmarks.md): each case's wall time against the reference.")
	examples := fs.String("examples", "examples", "folder holding the example models")
	quick := fs.Bool("quick", false, "one round per case instead of the median of five")
	onlyStudy := fs.Bool("study", false, "only the design-study rows (runs per second on 1 and 2 jobs, overhead, Slurm)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{err: fmt.Errorf("unexpected arguments: %s", strings.Join(pos, " ")), hint: true}
	}
	if fi, err := os.Stat(*examples); err != nil || !fi.IsDir() {
		return usagef("--examples %s: not a folder (the examples/ folder of the repository)", *examples)
	}
	fmt.Println("mbfmu benchmarks (median of rounds; reference = mature C++ engine, generalized-α, same machine kind)")
	if *onlyStudy {
		rounds := 5
		if *quick {
			rounds = 1
		}
		return bench.StudyRows(os.Stdout, *examples, rounds, func(r bench.Row) {
			fmt.Printf("%-34s %-26s %12.4g %-6s %-10s %-12s %s\n", r.Case, r.Metric, r.Value, r.Unit, r.Target, r.Reference, r.Pass)
		})
	}
	_, err = bench.Run(os.Stdout, *examples, *quick)
	return err
}
