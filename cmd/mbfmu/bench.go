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
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{err: fmt.Errorf("unexpected arguments: %s", strings.Join(pos, " ")), hint: true}
	}
	fmt.Println("mbfmu benchmarks (median of rounds; reference = mature C++ engine, generalized-α, same machine kind)")
	_, err = bench.Run(os.Stdout, *examples, *quick)
	return err
}
