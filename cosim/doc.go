// Package cosim is the co-simulation master of mbfmu and its real-time
// runner for hardware-in-the-loop rigs.
//
// A configuration file (docs/cosim.md, LoadConfig) lists components and
// the connections between their ports; New builds them and Master runs
// them:
//
//   - plants: model files of this project run in-process on the engine
//     (<model>), FMUs packed by mbfmu run in-process through package fmu
//     (<fmu>, recognised by generationTool="mbfmu" and resources/model.xml),
//     and third-party FMI 2.0 and FMI 3.0 co-simulation FMUs whose x86-64
//     Linux binary is loaded with dlopen (<fmu>; the FMU's fmiVersion
//     decides which API is called);
//   - controllers of package control: PID, state feedback, discrete or
//     continuous state space, and LQR designed automatically from the
//     engine's linearisation of a plant (<lqr>);
//   - sources (<signal>: an expression of time) and limits (<limit>);
//   - a UDP bridge (<udp>) that exchanges signals with an external rig in
//     lock step, with sequence numbers and a timeout policy (see udp.go for
//     the packet layout).
//
// Stepped components exchange values at every macro step (Jacobi); between
// two stepped components that support it (models, FMUs with output
// derivatives and input interpolation) the coupling signals are
// extrapolated to first order over the macro step (Settings.Extrapolate).
// An FMU that declares outputs depending directly on its inputs (its
// <ModelStructure> dependencies, as a controller exported as an FMU does)
// is also refreshed after the step, in order with the controllers: inputs
// set, outputs read again at the same communication point, so it acts
// without a macro step of delay.
// The macro step is fixed, or variable under control of the extrapolation
// error of the coupling signals. Master.Run writes results through a
// results.Writer, checks the expected figures given as <check> elements,
// and reports the macro-step latency (p50, p99, max), the real-time factor
// and, when paced by the wall clock, the overruns.
//
// One macro step of a master with in-process plants and Go controllers
// allocates nothing (Master.Advance), so a real-time run is not disturbed
// by the garbage collector. The package holds no package-level mutable
// state; a Master is used by one goroutine at a time.
package cosim
