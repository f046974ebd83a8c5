package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mbfmu/atomicfile"
	"mbfmu/urdf"
	"mbfmu/xml"
)

// cmdImport implements `mbfmu import robot.urdf [-o robot.xml]`: it writes
// a URDF robot as a spatial model file (package urdf), checked as
// 'mbfmu check' would.
func cmdImport(args []string) error {
	fs := newFlagSet("import", "usage: mbfmu import robot.urdf [-o robot.xml] [--q joint=value ...] [--free-base] [--no-actuators]\n\n"+
		"Writes a robot described in URDF as a spatial mbfmu model: a body per link (mass, centre of mass,\n"+
		"inertia), revolute, continuous, prismatic and fixed joints, limits as end stops, damping and\n"+
		"friction as <friction>, visual boxes, cylinders and spheres; with an input tau_JOINT driving\n"+
		"each moving joint and outputs q_JOINT, qd_JOINT of its position and rate. See docs/urdf.md.")
	out := fs.String("o", "", "output model `file` (default: the URDF file's name with .xml, in the current folder)")
	var q paramFlags
	fs.Var(&q, "q", "initial position of a joint: `joint=value` (rad or m, or with a unit: 30 deg; repeatable)")
	free := fs.Bool("free-base", false, "the root link is a free body (default: fixed to the ground)")
	noAct := fs.Bool("no-actuators", false, "no tau_ inputs, drives and q_/qd_ outputs")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, 1, "one URDF file"); err != nil {
		return err
	}
	in := pos[0]
	if *out == "" {
		*out = strings.TrimSuffix(filepath.Base(in), filepath.Ext(in)) + ".xml"
	}
	if err := checkOutputs([]string{in}, outputFlag{"-o", *out}); err != nil {
		return err
	}
	rb, err := urdf.Read(in)
	if err != nil {
		return err
	}
	opt := urdf.Options{Q: map[string]float64{}, FreeBase: *free, Actuators: !*noAct}
	for _, k := range q.names {
		dim := xml.Any
		for _, j := range rb.Joints {
			if j.Name == k {
				dim = xml.Angle
				if j.Type == "prismatic" {
					dim = xml.Length
				}
			}
		}
		v, err := xml.ParseQuantity(q.values[k], dim)
		if err != nil {
			return usagef("--q %s: %v", k, err)
		}
		opt.Q[k] = v
	}
	data, err := rb.Model(opt)
	if err != nil {
		return err
	}
	// the model must read and assemble as any other
	if _, err := xml.Parse(data, *out); err != nil {
		return fmt.Errorf("the written model does not read back (a bug in mbfmu import): %v", err)
	}
	if err := atomicfile.WriteFile(*out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return err
	}
	if _, _, err := checkModel(*out); err != nil {
		printModelErrors(*out, err)
		return exitError(1)
	}
	fmt.Fprintf(os.Stdout, "wrote %s: %d links, %d joints from %s\n", *out, len(rb.Links), len(rb.Joints), in)
	return nil
}
