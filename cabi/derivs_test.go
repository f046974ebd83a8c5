package main

import (
	"bufio"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mbfmu/solver"
	"mbfmu/xml"
)

// The input and output derivatives through the C ABI (canInterpolateInputs,
// maxOutputDerivativeOrder = 1): the C host hands over tau and its first
// and second derivatives before every step and reads the outputs and their
// derivatives after it. Both must equal, bit for bit, the engine run
// in-process with the same ramps (solver.State.SetInputDerivative,
// Model.OutputDerivatives); and the output derivatives must match a
// difference quotient of the motion itself, taken by the host with two
// short fmi2DoSteps from a saved FMU state (RK4 variant of the model, whose
// state carries the accelerations of the equations of motion).

func dtau(k int) float64 { return float64(0.01*float64((k*5)%13)) - 0.06 }

func ddtau(k int) float64 {
	if k%3 != 0 {
		return 0
	}
	return float64(0.1*float64((k*3)%7)) - 0.3
}

// derivsReference runs the host's derivs sequence in-process: rows of
// outputs then their derivatives.
func derivsReference(t *testing.T, model string, n int) [][]float64 {
	t.Helper()
	spec, err := xml.LoadFile(filepath.Join("..", "fmu", "testdata", model+".xml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := solver.Compile(spec, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	const h = 0.01
	var rows [][]float64
	for k := 1; k <= n; k++ {
		s.SetInput(0, tau(k))
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(s.SetInputDerivative(0, 1, dtau(k)))
		must(s.SetInputDerivative(0, 2, ddtau(k)))
		must(m.AdvanceTo(s, float64(k-1)*h+h))
		must(s.SetInputDerivative(0, 1, 0))
		must(s.SetInputDerivative(0, 2, 0))
		row := make([]float64, 6)
		m.EvalOutputs(s, row[:3])
		must(m.OutputDerivatives(s, row[3:]))
		rows = append(rows, row)
	}
	return rows
}

func TestInputOutputDerivatives(t *testing.T) {
	e := setup(t)
	const n = 200
	for _, model := range []string{"pendulum", "pendulum_rk4"} {
		out := e.runHost(t, "derivs", e.dirs[model], strconv.Itoa(n))
		var got [][]float64
		var fd []float64
		var errs []string
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			var vals []float64
			for _, x := range f[2:] {
				v, err := strconv.ParseFloat(x, 64)
				if err != nil {
					t.Fatalf("bad line %q", sc.Text())
				}
				vals = append(vals, v)
			}
			switch f[0] {
			case "D":
				got = append(got, vals)
			case "F":
				fd = vals
			case "E":
				errs = f[1:]
			}
		}
		compareBits(t, model+": outputs and output derivatives with input derivatives", got, derivsReference(t, model, n))
		if strings.Join(errs, " ") != "3 3 3 3" {
			t.Errorf("%s: misuse (derivative of an output set, order 3, derivative of an input or order 2 requested) returned %v, want fmi2Error (3) each", model, errs)
		}
		if model != "pendulum_rk4" {
			continue
		}
		if len(fd) != 3 {
			t.Fatalf("%s: no difference quotient in the host's output", model)
		}
		for j, name := range []string{"tip_x", "tip_y", "omega"} {
			d := got[n/2-1][3+j]
			if math.Abs(d-fd[j]) > 1e-6*(math.Abs(d)+1) {
				t.Errorf("%s: d(%s)/dt = %.12g from fmi2GetRealOutputDerivatives, %.12g from the motion", model, name, d, fd[j])
			} else {
				t.Logf("%s: d(%s)/dt = %.12g from fmi2GetRealOutputDerivatives, %.12g from the motion", model, name, d, fd[j])
			}
		}
	}
}
