// Package control holds discrete-time controllers for closing loops around an
// mbfmu plant: a PID controller with setpoint weighting, a filtered derivative,
// output limits, anti-windup and bumpless transfer; discrete linear state-space
// systems and their zero-order-hold and Tustin discretisation; saturation and
// rate limiting; continuous- and discrete-time LQR design; and a small Block
// interface through which a co-simulation master can run these controllers by
// name.
//
// Everything that runs once per sample (PID.Update, StateSpace.Step,
// RateLimiter.Step and the Step method of every Block) allocates nothing and
// is deterministic: the same inputs in the same order give bit-identical
// outputs. The package holds no package-level mutable state, so instances may
// be used concurrently as long as each instance is used by one goroutine at a
// time.
//
// Design functions (C2D, LQR, DLQR, Poles) allocate and are meant to run once
// at set-up time. They check their inputs and return errors rather than
// panicking.
package control
