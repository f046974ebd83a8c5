package mech

import "mbfmu/spec"

// AdaptiveModal is implemented by a flexible body whose coordinates the
// implicit Newton iteration solves by seed 004's adaptive modal selection
// (solver/modalselect.go): its coordinates e are written as e = T p with the
// Craig–Bampton transformation of its linear part (boundary coordinates
// kept, the interior ones e_a = Φc e_b + Φn ξ with all the fixed-interface
// normal modes), only a few modal coordinates ξ nonzero at a time, and
// only sampled interior equations kept.
type AdaptiveModal interface {
	AdaptiveBasis() *AdaptiveBasis
}

// AdaptiveBasis is the reduction data of one body for the adaptive modal
// selection. Indices into Coords are local; Coords are velocity indices of
// the model (linear coordinates: position and velocity alike).
type AdaptiveBasis struct {
	Name     string
	Pos      spec.Pos  // the beam's reduction attribute, for messages
	Coords   []int     // the body's coordinates
	Bound    []int     // the boundary coordinates (indices into Coords)
	Inner    []int     // the interior ones, n_a (indices into Coords)
	Phic     []float64 // n_a × n_b constraint modes −K_aa⁻¹ K_ab (row-major)
	Phin     []float64 // n_a × n_a normal modes, M_aa-orthonormal, by rising frequency
	Proj     []float64 // n_a × n_a: ξ = Proj (e_a − Φc e_b), Proj = Φnᵀ M_aa
	Omega    []float64 // the modes' angular frequencies, rad/s
	Rows     []int     // the sampled interior equations (indices into Inner), ascending
	Sparsity int       // the number of modal coordinates kept nonzero
}
