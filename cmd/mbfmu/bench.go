package main

import (
	"flag"
	"fmt"
	"os"

	"mbfmu/bench"
)

func cmdBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	examples := fs.String("examples", "examples", "folder holding the example models")
	quick := fs.Bool("quick", false, "one round per case instead of the median of five")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Println("mbfmu benchmarks (median of rounds; reference = mature C++ engine, generalized-α, same machine kind)")
	_, err := bench.Run(os.Stdout, *examples, *quick)
	return err
}
