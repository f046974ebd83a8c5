package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"mbfmu/fmu"
)

// cmdCompat implements `mbfmu compat model.xml... [-o dist/compat] [--fmi 2|3]`:
// each model's FMU in the folder layout of the FMI cross-check rules, with
// its reference results (fmu.CrossCheck).
func cmdCompat(args []string) error {
	fs := newFlagSet("compat", "usage: mbfmu compat model.xml... [-o dist/compat] [--fmi 2|3] [--stop T] [-runtime lib]\n\n"+
		"Writes each model's FMU in the layout of the FMI cross-check rules:\n"+
		"  DIR/fmus/<2.0|3.0>/cs/<linux64|x86_64-linux>/mbfmu/"+fmu.ToolVersion+"/<model>/\n"+
		"with <model>.fmu, <model>_ref.csv (the FMU's outputs over the default experiment, at most\n"+
		"1000 rows), <model>_ref.opt, <model>_in.csv (inputs held at their start values) and ReadMe.md.\n"+
		"The model's name is its folder's (examples/furuta/model.xml → furuta) or its file's.")
	out := fs.String("o", filepath.Join("dist", "compat"), "root `folder` of the cross-check tree")
	version := fs.Int("fmi", 2, "FMI `version`: 2 or 3")
	stop := new(float64)
	timeVar(fs, stop, "stop", 0, "end `time` of the reference run (s, or with a unit: 500ms; default: the model's end time)")
	runtime := fs.String("runtime", "", "runtime `library` libmbfmu-fmi2.so (default: $MBFMU_RUNTIME, beside mbfmu, or ./bin)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("compat needs at least one model file")
	}
	if *version != 2 && *version != 3 {
		return usagef("--fmi %d: the FMI version is 2 (FMI 2.0) or 3 (FMI 3.0)", *version)
	}
	if isSet(fs, "stop") && !(*stop > 0) {
		return usagef("--stop must be after the start time")
	}
	for _, m := range pos {
		name := strings.TrimSuffix(filepath.Base(m), filepath.Ext(m))
		if name == "model" {
			name = filepath.Base(filepath.Dir(m))
		}
		if _, _, err := checkModel(m); err != nil {
			printModelErrors(m, err)
			return exitError(1)
		}
		dir, err := fmu.CrossCheck(m, *out, name, fmu.CrossCheckOptions{Runtime: *runtime, Version: *version, StopTime: *stop})
		if err != nil {
			return fmt.Errorf("compat: %w", err)
		}
		fmt.Printf("wrote %s\n", dir)
	}
	return nil
}
