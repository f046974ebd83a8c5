package fmu

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ToolVersion is mbfmu's version in the FMI cross-check folders
// (fmus/<fmi>/cs/<platform>/mbfmu/<ToolVersion>/<model>/).
const ToolVersion = "0.9"

// CrossCheckOptions are the settings of CrossCheck; zero values take the
// FMU's default experiment.
type CrossCheckOptions struct {
	Runtime   string  // runtime library ("" = FindRuntime)
	Version   int     // FMI version: 2 or 3
	StopTime  float64 // end of the reference run (default: the model's end time)
	MaxPoints int     // at most this many result rows (default 1000: the rules cap a file at 1 MB)
}

// CrossCheck writes the FMU of a model file in the layout of the FMI
// cross-check rules (github.com/modelica/fmi-cross-check):
// root/fmus/<2.0|3.0>/cs/<linux64|x86_64-linux>/mbfmu/<ToolVersion>/<name>/
// holding <name>.fmu, <name>_ref.opt (StartTime, StopTime, StepSize,
// RelTol), <name>_in.csv when the model has inputs (their start values,
// held), <name>_ref.csv (the outputs at every communication point, computed
// by the packed FMU's own runtime code in this process) and ReadMe.md. It
// returns the folder.
func CrossCheck(modelPath, root, name string, opt CrossCheckOptions) (string, error) {
	if opt.Version == 0 {
		opt.Version = 2
	}
	if opt.MaxPoints <= 0 {
		opt.MaxPoints = 1000
	}
	ver, platform := "2.0", "linux64"
	if opt.Version == 3 {
		ver, platform = "3.0", "x86_64-linux"
	}
	dir := filepath.Join(root, "fmus", ver, "cs", platform, "mbfmu", ToolVersion, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	fmuPath := filepath.Join(dir, name+".fmu")
	d, err := PackVersion(modelPath, fmuPath, opt.Runtime, opt.Version)
	if err != nil {
		return "", err
	}
	// the run: start to stop in communication steps of the default
	// experiment's step, at most MaxPoints rows
	start, stop := d.StartTime, d.StopTime
	if opt.StopTime > 0 {
		stop = opt.StopTime
	}
	if !(stop > start) {
		return "", fmt.Errorf("%s: stop time %g is not after the start time %g", modelPath, stop, start)
	}
	h := d.StepSize
	n := int(math.Round((stop - start) / h))
	if n > opt.MaxPoints {
		k := (n + opt.MaxPoints - 1) / opt.MaxPoints
		h *= float64(k)
		n = int(math.Round((stop - start) / h))
	}
	if n < 1 {
		n, h = 1, stop-start
	}
	stop = start + float64(n)*h
	tmp, err := os.MkdirTemp("", "mbfmu-xc")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := Unzip(fmuPath, tmp); err != nil {
		return "", err
	}
	var logged []string
	in, err := Instantiate(Config{InstanceName: name, GUID: d.GUID, ResourceLocation: filepath.Join(tmp, "resources") + "/",
		FMIVersion: opt.Version, Logger: func(st Status, cat, msg string) { logged = append(logged, msg) }})
	if err != nil {
		return "", err
	}
	fail := func(what string, st Status) error {
		return fmt.Errorf("%s: %s returned %v: %s", modelPath, what, st, strings.Join(logged, "; "))
	}
	if st := in.SetupExperiment(false, 0, start, true, stop); st != OK {
		return "", fail("setup", st)
	}
	if st := in.EnterInitializationMode(); st != OK {
		return "", fail("enter initialisation", st)
	}
	if st := in.ExitInitializationMode(); st != OK {
		return "", fail("exit initialisation", st)
	}
	var ins, outs []Variable
	for _, v := range d.Variables {
		switch v.Causality {
		case CausalityInput:
			ins = append(ins, v)
		case CausalityOutput:
			outs = append(outs, v)
		}
	}
	vrs := make([]uint32, len(outs))
	for i, v := range outs {
		vrs[i] = v.VR
	}
	vals := make([]float64, len(outs))
	var ref strings.Builder
	ref.WriteString(csvHeader(outs))
	row := func(t float64) error {
		if st := in.GetReal(vrs, vals); st != OK {
			return fail("reading the outputs", st)
		}
		ref.WriteString(ftoa(t))
		for _, v := range vals {
			ref.WriteByte(',')
			ref.WriteString(strconv.FormatFloat(v, 'g', 12, 64))
		}
		ref.WriteByte('\n')
		return nil
	}
	if err := row(start); err != nil {
		return "", err
	}
	t := start
	for k := 1; k <= n; k++ {
		if st := in.DoStep(t, h, true); st != OK {
			return "", fail(fmt.Sprintf("the step at t = %g", t), st)
		}
		t = start + float64(k)*h
		if err := row(t); err != nil {
			return "", err
		}
	}
	in.Terminate()
	files := map[string]string{
		name + "_ref.csv": ref.String(),
		name + "_ref.opt": fmt.Sprintf("StartTime,%s\nStopTime,%s\nStepSize,%s\nRelTol,%s\n", ftoa(start), ftoa(stop), ftoa(h), ftoa(relTol(d))),
		"ReadMe.md":       crossCheckReadMe(d, name, ver, h, stop),
	}
	if len(ins) > 0 {
		var b strings.Builder
		b.WriteString(csvHeader(ins))
		for _, t := range []float64{start, stop} {
			b.WriteString(ftoa(t))
			for _, v := range ins {
				b.WriteByte(',')
				b.WriteString(ftoa(v.Start))
			}
			b.WriteByte('\n')
		}
		files[name+"_in.csv"] = b.String()
	}
	for f, data := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(data), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// relTol is the tolerance of _ref.opt: the model's, or 1e-4 for a
// fixed-step integrator (the rules require the entry).
func relTol(d *Description) float64 {
	if d.Tolerance > 0 {
		return d.Tolerance
	}
	return 1e-4
}

// csvHeader is the cross-check CSV header: "time" and the variable names,
// quoted when they hold a comma or a quote.
func csvHeader(vs []Variable) string {
	var b strings.Builder
	b.WriteString("time")
	for _, v := range vs {
		b.WriteByte(',')
		if strings.ContainsAny(v.Name, ",\"") {
			b.WriteString(`"` + strings.ReplaceAll(v.Name, `"`, `""`) + `"`)
		} else {
			b.WriteString(v.Name)
		}
	}
	b.WriteByte('\n')
	return b.String()
}

func crossCheckReadMe(d *Description, name, ver string, h, stop float64) string {
	return fmt.Sprintf(`# %s (mbfmu %s, FMI %s co-simulation)

%s

- Exported by mbfmu %s (`+"`mbfmu pack --fmi %s`"+`): platforms %s.
- %s_ref.csv: the FMU's outputs from t = %s s to %s s at communication steps of %s s, computed
  by the FMU's runtime code (package fmu of mbfmu) in the process that packed it; inputs held at
  their start values (%s_in.csv when the model has inputs). The engine's internal step is %s s
  (%s); RelTol in %s_ref.opt is nominal for a fixed-step integrator.
- Importers: every mbfmu FMU passes the FMI %s XSD (xmllint) and mbfmu's C test host (the
  same library through the C ABI); the table "Importers run" of mbfmu's docs/fmu.md lists which
  third-party importer (FMPy, fmusim, OMSimulator) was run on which FMU, with versions and results.
`, name, ToolVersion, ver, d.Description, ToolVersion, ver[:1], strings.Join(d.Platforms, ", "), name,
		ftoa(d.StartTime), ftoa(stop), ftoa(h), name, ftoa(d.IntegratorStep), d.Integrator, name, ver)
}
