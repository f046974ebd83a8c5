package control_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"mbfmu/control"
)

// A PI controller with output limits holds a first-order plant
// τ·ẏ = −y + u at its setpoint, sampled at 1 kHz.
func ExamplePID() {
	pid, err := control.NewPID(control.PIDConfig{Kp: 2, Ki: 4, Umin: -1, Umax: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	const dt, tau = 1e-3, 0.5
	a := math.Exp(-dt / tau)
	y := 0.0
	for k := 0; k < 10000; k++ {
		u := pid.Update(0.8, y, dt)
		y = a*y + (1-a)*u
	}
	fmt.Printf("y = %.6f, u = %.6f\n", y, pid.Output())
	// Output: y = 0.800000, u = 0.800000
}

// The LQR gain of the double integrator with Q = I, R = 1 is [1, √3].
func ExampleLQR() {
	A := mat.NewDense(2, 2, []float64{0, 1, 0, 0})
	B := mat.NewDense(2, 1, []float64{0, 1})
	Q := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	R := mat.NewDense(1, 1, []float64{1})
	K, _, err := control.LQR(A, B, Q, R)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("K = [%.6f %.6f]\n", K.At(0, 0), K.At(0, 1))
	// Output: K = [1.000000 1.732051]
}

// A state-space controller runs as a Block with named inputs and outputs.
func ExampleNewSSBlock() {
	// Discrete integrator x⁺ = x + dt·u, y = x.
	const dt = 0.1
	ss, err := control.NewDiscreteSS(mat.NewDense(1, 1, []float64{1}), mat.NewDense(1, 1, []float64{dt}),
		mat.NewDense(1, 1, []float64{1}), nil, dt)
	if err != nil {
		fmt.Println(err)
		return
	}
	var b control.Block
	b, err = control.NewSSBlock(ss, []string{"rate"}, []string{"angle"})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]float64, 1)
	for k := 0; k < 5; k++ {
		_ = b.Step(float64(k)*dt, dt, []float64{2}, out)
	}
	fmt.Println(b.Inputs(), "→", b.Outputs(), out[0])
	// Output: [rate] → [angle] 0.8
}
