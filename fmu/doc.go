// Package fmu holds the FMI 2.0 Co-Simulation semantics of mbfmu in pure Go:
// the instance state machine (Instance), the variable table and
// modelDescription.xml (Description), FMU states and their serialisation
// (Snapshot), the resolution of fmuResourceLocation (ResolveResources) and
// FMU packing (Pack). The C ABI in package cabi is a thin shell over it.
//
// An FMU's runtime reads the model file from resources/model.xml at
// instantiation (Instantiate), checks the GUID derived from its bytes,
// parses and compiles it; it never reads modelDescription.xml. Everything an
// instance runs lives in the Instance: there is no package-level mutable
// state, so any number of instances may run on different threads.
package fmu
