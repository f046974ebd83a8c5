// Package study runs design studies on mbfmu models and co-simulations:
// parameter sweeps and designs of experiments (full factorial, Latin
// hypercube, Monte Carlo, cases, one factor at a time), optimisation of a
// response under constraints (gonum's Nelder–Mead with bounds by a change
// of variable and constraints by an augmented Lagrangian), finite-
// difference sensitivities and main effects. The study file format is
// described in docs/study.md.
//
// A study is loaded (Load), bound to its model or co-simulation file
// (Prepare) and executed (Prepared.Execute) on several workers. Every
// finished run goes to a store folder at once, so a killed study loses
// only the runs in flight and a study run again skips the runs already
// done; the runs of a Slurm job array (package slurm.go) meet in the same
// store. The outputs (CSV, .xlsx with charts) list one row per run in the
// order the study asks for the runs, so they are the same whatever the
// number of workers or the order in which runs finish.
package study
