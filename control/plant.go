package control

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"mbfmu/solver"
)

// This file designs LQR controllers from the engine's linearisation of a
// plant (solver.Model.Linearize).
//
// State mapping. solver.Linear describes the plant about an operating point
// in minimal coordinates z (q ≈ q0 + N·z, N a basis of the constraint null
// space chosen by an SVD, so z has no physical meaning of its own):
//
//	ẋ = A·x + B·u,  y = C·x + D·u,  x = (z, ż),
//
// with u and y the deviations of the plant's declared inputs and outputs
// from their operating-point values u0 and y0. A controller only sees the
// measured outputs, so the design works on those: with T the rows of C of
// the measured outputs (y − y0 ≈ T·x), T must have full column rank n —
// the outputs must determine the whole state, e.g. a position and a velocity
// per degree of freedom (for a cart-pole: cart x, cart velocity, pole angle,
// pole rate). The weight Q is given on the measured outputs and becomes
// Qx = Tᵀ·Q·T on the state; the state gain Kx (u = −Kx·x) is mapped back
// with the pseudo-inverse, K = Kx·T⁺, so that the law applied to the
// measurements,
//
//	u = u0 − K·(y − y0),
//
// equals u = u0 − Kx·x whenever the measurements are consistent (T⁺·T = I).
// With as many outputs as states T⁺ = T⁻¹ and this is the design in output
// coordinates: ẏ = T·A·T⁻¹·y + T·B·u.

// PlantLQRConfig chooses the loop and the weights of an LQR designed from a
// plant's linear model.
type PlantLQRConfig struct {
	// Inputs names the plant inputs the controller drives (columns of
	// Linear.B, in this order); nil means every input of the model.
	Inputs []string
	// Outputs names the measured plant outputs the controller reads (rows
	// of Linear.C, in this order); nil means every declared output.
	Outputs []string
	// Q weights the measured output deviations: p×p, symmetric positive
	// semi-definite, p = len(Outputs).
	Q mat.Matrix
	// R weights the inputs: m×m, symmetric positive definite.
	R mat.Matrix
	// Dt, if positive, selects a discrete-time design for a controller
	// sampled every Dt seconds: DLQR on the zero-order-hold discretisation
	// of (A, B), with Q and R as per-sample weights. Zero selects the
	// continuous-time LQR.
	Dt float64
}

// PlantLQR is an LQR controller designed on a plant's linear model.
type PlantLQR struct {
	// Inputs and Outputs name the driven plant inputs (rows of K) and the
	// measured plant outputs (columns of K).
	Inputs, Outputs []string
	// K is the m×p gain on the measured outputs: u − u0 = −K·(y − y0).
	K *mat.Dense
	// Kx is the m×n gain on the linear model's state x = (z, ż).
	Kx *mat.Dense
	// T is the p×n map from the state to the measured output deviations
	// (the selected rows of Linear.C).
	T *mat.Dense
	// S is the stabilising solution of the Riccati equation (on x).
	S *mat.Dense
	// Poles are the closed-loop eigenvalues: of A − B·Kx (continuous
	// design, 1/s) or of Ad − Bd·Kx (discrete design, in the z plane).
	Poles []complex128
	// Dt is the sample time of a discrete design, 0 for a continuous one.
	Dt float64
}

// DesignPlantLQR designs an LQR controller for the plant linearised in lin
// (see the state mapping in this file's comment): it selects the driven
// inputs and the measured outputs, checks that the measurements determine
// the state and have no direct feed-through from the driven inputs, solves
// the Riccati equation on the state with Qx = Tᵀ·Q·T and returns the gain
// on the measurements, K = Kx·T⁺.
func DesignPlantLQR(lin *solver.Linear, cfg PlantLQRConfig) (d *PlantLQR, err error) {
	defer guard("DesignPlantLQR", &err)
	if lin == nil || lin.A == nil || lin.B == nil || lin.C == nil {
		return nil, fmt.Errorf("control: DesignPlantLQR: no linear model")
	}
	n, _ := lin.A.Dims()
	if len(lin.Inputs) == 0 {
		return nil, fmt.Errorf("control: DesignPlantLQR: the plant has no inputs to drive (declare an <input> and use it in a force)")
	}
	if len(lin.Outputs) == 0 {
		return nil, fmt.Errorf("control: DesignPlantLQR: the plant declares no outputs: state feedback needs measured outputs that determine the state (a position and a velocity per degree of freedom)")
	}
	inIdx, err := pickNames("input", cfg.Inputs, lin.Inputs)
	if err != nil {
		return nil, err
	}
	outIdx, err := pickNames("output", cfg.Outputs, lin.Outputs)
	if err != nil {
		return nil, err
	}
	m, p := len(inIdx), len(outIdx)
	B := mat.NewDense(n, m, nil)
	for j, k := range inIdx {
		for i := 0; i < n; i++ {
			B.Set(i, j, lin.B.At(i, k))
		}
	}
	T := mat.NewDense(p, n, nil)
	for i, o := range outIdx {
		for j := 0; j < n; j++ {
			T.Set(i, j, lin.C.At(o, j))
		}
	}
	// Direct feed-through from a driven input to a measured output makes
	// u = −K·y an algebraic loop the design does not account for.
	var cb mat.Dense
	cb.Mul(T, B)
	scale := math.Max(1, mat.Norm(&cb, math.Inf(1)))
	for i, o := range outIdx {
		for j, k := range inIdx {
			if v := lin.D.At(o, k); math.Abs(v) > 1e-6*scale {
				return nil, fmt.Errorf("control: DesignPlantLQR: output %q depends directly on input %q (D = %.3g): measure positions and velocities, not accelerations or forces", lin.Outputs[outIdx[i]], lin.Inputs[inIdx[j]], v)
			}
		}
	}
	Tp, rank, err := pseudoInverse(T)
	if err != nil {
		return nil, err
	}
	if rank < n {
		names := make([]string, p)
		for i, o := range outIdx {
			names[i] = lin.Outputs[o]
		}
		return nil, fmt.Errorf("control: DesignPlantLQR: the measured outputs %s determine only %d of the %d states of the linear model (%d degrees of freedom, state = positions and velocities): measure a position and a velocity for every degree of freedom",
			strings.Join(names, ", "), rank, n, n/2)
	}
	qr, qc, err := dimsOf("Q", cfg.Q)
	if err != nil {
		return nil, err
	}
	if qr != p || qc != p {
		return nil, fmt.Errorf("control: DesignPlantLQR: Q is %d×%d, want %d×%d (one row per measured output)", qr, qc, p, p)
	}
	if e := symmetryError(cfg.Q); e > 1e-10 {
		return nil, fmt.Errorf("control: DesignPlantLQR: Q is not symmetric (relative asymmetry %.3g)", e)
	}
	var qt, qx mat.Dense
	qt.Mul(cfg.Q, T)
	qx.Mul(T.T(), &qt)
	Qx := symmetrize(&qx)
	d = &PlantLQR{T: T, Dt: cfg.Dt}
	for _, k := range inIdx {
		d.Inputs = append(d.Inputs, lin.Inputs[k])
	}
	for _, o := range outIdx {
		d.Outputs = append(d.Outputs, lin.Outputs[o])
	}
	var cl mat.Dense
	switch {
	case cfg.Dt == 0:
		d.Kx, d.S, err = LQR(lin.A, B, Qx, cfg.R)
		if err != nil {
			return nil, err
		}
		cl.Mul(B, d.Kx)
		cl.Sub(lin.A, &cl)
	case finite(cfg.Dt) && cfg.Dt > 0:
		Ad, Bd, err := C2D(lin.A, B, cfg.Dt)
		if err != nil {
			return nil, err
		}
		d.Kx, d.S, err = DLQR(Ad, Bd, Qx, cfg.R)
		if err != nil {
			return nil, err
		}
		cl.Mul(Bd, d.Kx)
		cl.Sub(Ad, &cl)
	default:
		return nil, fmt.Errorf("control: DesignPlantLQR: sample time %v: must be 0 (continuous design) or finite and > 0", cfg.Dt)
	}
	d.K = new(mat.Dense)
	d.K.Mul(d.Kx, Tp)
	if d.Poles, err = Poles(&cl); err != nil {
		return nil, err
	}
	return d, nil
}

// Block returns the controller as a state-feedback Block whose inputs are
// the measured outputs and whose outputs are the driven inputs (named as in
// the plant), with the operating point as reference: u = u0 − K·(y − y0).
// y0 and u0 hold the operating-point values of d.Outputs and d.Inputs
// (nil means zeros).
func (d *PlantLQR) Block(y0, u0 []float64) (*StateFeedback, error) {
	sf, err := NewStateFeedback(StateFeedbackConfig{K: d.K, StateNames: d.Outputs, OutputNames: d.Inputs})
	if err != nil {
		return nil, err
	}
	if err := sf.SetReference(y0, u0); err != nil {
		return nil, err
	}
	return sf, nil
}

// pickNames returns the indices in have of the names in want (all of have
// when want is nil), rejecting unknown and repeated names.
func pickNames(what string, want, have []string) ([]int, error) {
	if want == nil {
		idx := make([]int, len(have))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("control: DesignPlantLQR: empty %s list", what)
	}
	seen := map[string]bool{}
	idx := make([]int, 0, len(want))
	for _, w := range want {
		if seen[w] {
			return nil, fmt.Errorf("control: DesignPlantLQR: %s %q listed twice", what, w)
		}
		seen[w] = true
		k := -1
		for i, h := range have {
			if h == w {
				k = i
				break
			}
		}
		if k < 0 {
			return nil, fmt.Errorf("control: DesignPlantLQR: the plant has no %s %q (it has %s)", what, w, strings.Join(have, ", "))
		}
		idx = append(idx, k)
	}
	return idx, nil
}

// pseudoInverse returns the Moore–Penrose pseudo-inverse of the p×n matrix
// T (p ≥ n expected) and its numerical rank.
func pseudoInverse(T *mat.Dense) (*mat.Dense, int, error) {
	p, n := T.Dims()
	var svd mat.SVD
	if !svd.Factorize(T, mat.SVDThin) {
		return nil, 0, fmt.Errorf("control: DesignPlantLQR: SVD of the output map failed")
	}
	sv := svd.Values(nil)
	rank := 0
	for _, s := range sv {
		if s > 1e-9*sv[0] {
			rank++
		}
	}
	if rank < n {
		return nil, rank, nil
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	// T⁺ = V·Σ⁻¹·Uᵀ
	for j := 0; j < len(sv); j++ {
		for i := 0; i < n; i++ {
			v.Set(i, j, v.At(i, j)/sv[j])
		}
	}
	tp := mat.NewDense(n, p, nil)
	tp.Mul(&v, u.T())
	return tp, rank, nil
}
