package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mbfmu/fmu"
)

// cmdPack implements `mbfmu pack model.xml [-o model.fmu] [-runtime lib.so]`:
// it writes an FMI 2.0 co-simulation FMU holding modelDescription.xml, the
// runtime library as binaries/linux64/<modelIdentifier>.so (and
// binaries/win64/<modelIdentifier>.dll when the Windows runtime
// mbfmu-fmi2-win64.dll lies beside it), the model file
// as resources/model.xml and documentation/index.html. It needs no Go
// toolchain: the runtime library (scripts/build-runtime.sh) is found in
// $MBFMU_RUNTIME, beside the mbfmu executable, or in ./bin.
func cmdPack(args []string) error {
	fs := flag.NewFlagSet("pack", flag.ContinueOnError)
	out := fs.String("o", "", "output FMU `file` (default: the model file's name with .fmu, in the current folder)")
	runtime := fs.String("runtime", "", "runtime `library` libmbfmu-fmi2.so (default: $MBFMU_RUNTIME, beside mbfmu, or ./bin)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mbfmu pack model.xml [-o model.fmu] [-runtime libmbfmu-fmi2.so]\n\n"+
			"Packs a model file as an FMI 2.0 Co-Simulation FMU: linux64, plus win64 when\n"+
			"mbfmu-fmi2-win64.dll (scripts/build-runtime.sh --win64) lies beside the runtime library.\n\n")
		fs.PrintDefaults()
	}
	// Flags may come before or after the model file.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("pack: expected one model file, got %d arguments", len(pos))
	}
	model := pos[0]
	if *out == "" {
		*out = strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)) + ".fmu"
	}
	d, err := fmu.PackDescribe(model, *out, *runtime)
	if err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	var nIn, nOut, nPar int
	for _, v := range d.Variables {
		switch v.Causality {
		case fmu.CausalityInput:
			nIn++
		case fmu.CausalityOutput:
			nOut++
		default:
			nPar++
		}
	}
	size := int64(0)
	if fi, err := os.Stat(*out); err == nil {
		size = fi.Size()
	}
	fmt.Printf("wrote %s: FMI 2.0 co-simulation, modelIdentifier %s, %d inputs, %d outputs, %d parameters, binaries %s, %.1f MB\n",
		*out, d.ModelIdentifier, nIn, nOut, nPar, strings.Join(d.Platforms, " + "), float64(size)/1e6)
	return nil
}
