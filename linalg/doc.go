// Package linalg holds the direct linear solvers used by the integrators for
// the Newton iteration matrix of a constrained multibody DAE,
//
//	[ M~     Phi_q^T ]
//	[ Phi_q  0       ]
//
// which is unsymmetric in its values and has a zero diagonal on the
// constraint rows, so every factorization pivots.
//
// The work is split in three stages:
//
//   - A Pattern collects the structural nonzeros (treated as symmetric).
//   - NewPlan analyses a Pattern once: small systems use a dense LU with
//     partial pivoting (always for n <= DenseAlwaysN, by a calibrated cost
//     model up to DenseMaxN); the others are reordered with reverse
//     Cuthill–McKee and use a banded LU with partial pivoting (dgbtrf-style:
//     kl extra superdiagonals hold the fill of row interchanges), whose cost
//     is O(n·kl·(kl+ku)). A Plan is immutable and may be shared by
//     goroutines.
//   - Plan.NewSolver returns a Solver, the mutable workspace that holds the
//     matrix values and their LU factors. Zero, Add, Set, Factor and Solve
//     do not allocate. A Solver must not be used by two goroutines at once.
//
// All indices passed to a Solver are the original (unpermuted) indices.
//
// Kernels: dense systems with n <= 16 (e.g. the 5×5 pendulum, the 9×9
// heavy top) use fixed-stride kernels without slicing or bounds checks,
// unrolled for each n by a generator (small_gen.go, written by
// internal/gensmall with go generate; small.go holds the loop versions
// they reproduce bit for bit); larger dense systems
// use a row-major kernel (dense.go); band systems use band.go. All kernels
// store the reciprocals of the pivots on the diagonal, search the pivot of
// the next column while eliminating the current one, and the solves carry
// the latest unknown in a register, because at these sizes the work is
// latency- and overhead-bound rather than flop-bound.
package linalg
