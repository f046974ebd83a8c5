package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mbfmu/controller"
	"mbfmu/fmu"
	"mbfmu/results"
)

// cmdPack implements `mbfmu pack model.xml [-o model.fmu] [-runtime lib.so] [--fmi 2|3]`:
// it writes an FMI 2.0 (or, with --fmi 3, FMI 3.0) co-simulation FMU holding modelDescription.xml, the
// runtime library as binaries/linux64/<modelIdentifier>.so (and
// binaries/win64/<modelIdentifier>.dll when the Windows runtime
// mbfmu-fmi2-win64.dll lies beside it), the model file
// as resources/model.xml and documentation/index.html. It needs no Go
// toolchain: the runtime library (scripts/build-runtime.sh) is found in
// $MBFMU_RUNTIME, beside the mbfmu executable, or in ./bin.
func cmdPack(args []string) error {
	fs := newFlagSet("pack", "usage: mbfmu pack model.xml [-o model.fmu] [-runtime libmbfmu-fmi2.so] [--fmi 2|3]\n\n"+
		"Packs a model file as an FMI 2.0 Co-Simulation FMU (--fmi 3: FMI 3.0 Co-Simulation, with\n"+
		"array outputs and terminals): linux64, plus win64 when mbfmu-fmi2-win64.dll\n"+
		"(scripts/build-runtime.sh --win64) and aarch64-linux when libmbfmu-fmi2-arm64.so lie beside\n"+
		"the runtime library.\n"+
		"The model must pass every check of 'mbfmu check' (it is assembled at its start time);\n"+
		"otherwise no FMU is written.")
	out := fs.String("o", "", "output FMU `file` (default: the model file's name with .fmu, in the current folder)")
	version := fs.Int("fmi", 2, "FMI `version` of the FMU: 2 (FMI 2.0) or 3 (FMI 3.0)")
	runtime := fs.String("runtime", "", "runtime `library` libmbfmu-fmi2.so (default: $MBFMU_RUNTIME, beside mbfmu, or ./bin)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, 1, "one model file"); err != nil {
		return err
	}
	if *version != 2 && *version != 3 {
		return usagef("--fmi %d: the FMI version is 2 (FMI 2.0) or 3 (FMI 3.0)", *version)
	}
	model := pos[0]
	if *out == "" {
		*out = strings.TrimSuffix(filepath.Base(model), filepath.Ext(model)) + ".fmu"
	}
	inputs := []string{model}
	if *runtime != "" {
		inputs = append(inputs, *runtime, filepath.Join(filepath.Dir(*runtime), fmu.RuntimeLibNameWin64))
	} else if rt, err := fmu.FindRuntime(); err == nil {
		inputs = append(inputs, rt, filepath.Join(filepath.Dir(rt), fmu.RuntimeLibNameWin64))
	}
	if err := checkOutputs(inputs, outputFlag{"-o", *out}); err != nil {
		return err
	}
	// Every check of 'mbfmu check', assembly at the start time included:
	// an FMU that fails them would only fail later, in the importer's
	// fmi2ExitInitializationMode.
	// (a controller file is checked by the packer itself)
	if data, err := os.ReadFile(model); err == nil && controller.IsFile(data) {
		if _, err := controller.Parse(data); err != nil {
			return fmt.Errorf("%s: %v", model, err)
		}
	} else if _, _, err := checkModel(model); err != nil {
		printModelErrors(model, err)
		fmt.Fprintf(os.Stderr, "mbfmu pack: %s does not pass 'mbfmu check'; no FMU written\n", model)
		return exitError(1)
	}
	if err := results.MakeParentDirs(*out); err != nil {
		return err
	}
	stop := catchQuit(*out)
	defer stop.Stop()
	d, err := fmu.PackVersion(model, *out, *runtime, *version)
	if err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	var nIn, nOut, nPar, nState int
	for _, v := range d.Variables {
		switch v.Causality {
		case fmu.CausalityInput:
			nIn++
		case fmu.CausalityOutput:
			nOut++
		case fmu.CausalityParameter:
			nPar++
		default:
			if v.IsState() {
				nState++
			}
		}
	}
	size := int64(0)
	if fi, err := os.Stat(*out); err == nil {
		size = fi.Size()
	}
	arrays := ""
	if *version == 3 && len(d.Arrays) > 0 {
		arrays = fmt.Sprintf(" (and %d array outputs)", len(d.Arrays))
	}
	fmt.Printf("wrote %s: FMI %d.0 co-simulation, modelIdentifier %s, %d inputs, %d outputs%s, %d parameters, %d continuous states, binaries %s, %.1f MB\n",
		*out, *version, d.ModelIdentifier, nIn, nOut, arrays, nPar, nState, strings.Join(d.Platforms, " + "), float64(size)/1e6)
	return nil
}
