package control

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// dimsOf returns the dimensions of a after checking that it is a usable,
// non-empty matrix with finite entries.
func dimsOf(name string, a mat.Matrix) (r, c int, err error) {
	if a == nil {
		return 0, 0, fmt.Errorf("control: matrix %s is nil", name)
	}
	func() {
		defer func() {
			if recover() != nil {
				err = fmt.Errorf("control: matrix %s is a nil or invalid matrix", name)
			}
		}()
		r, c = a.Dims()
	}()
	if err != nil {
		return 0, 0, err
	}
	if r <= 0 || c <= 0 {
		return 0, 0, fmt.Errorf("control: matrix %s is empty (%d×%d)", name, r, c)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := a.At(i, j); !finite(v) {
				return 0, 0, fmt.Errorf("control: matrix %s[%d,%d] = %v: must be finite", name, i, j, v)
			}
		}
	}
	return r, c, nil
}

// guard turns a panic escaping from a numerical library into an error, so
// that a design function never takes the host process down.
func guard(what string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("control: %s: internal numerical failure: %v", what, r)
	}
}

// flatten copies a into a new row-major slice.
func flatten(a mat.Matrix) []float64 {
	r, c := a.Dims()
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out[i*c+j] = a.At(i, j)
		}
	}
	return out
}

// symmetryError returns max|a_ij − a_ji| / max(1, max|a_ij|).
func symmetryError(a mat.Matrix) float64 {
	n, _ := a.Dims()
	var d, s float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d = math.Max(d, math.Abs(a.At(i, j)-a.At(j, i)))
			s = math.Max(s, math.Abs(a.At(i, j)))
		}
	}
	return d / math.Max(1, s)
}

// symmetrize returns (a + aᵀ)/2 as a new matrix.
func symmetrize(a mat.Matrix) *mat.Dense {
	n, _ := a.Dims()
	out := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			out.Set(i, j, 0.5*(a.At(i, j)+a.At(j, i)))
		}
	}
	return out
}

// eye returns the n×n identity.
func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// Poles returns the eigenvalues of the square matrix A: the poles of
// ẋ = A·x, or of x⁺ = A·x for a discrete system. Their order is that of
// LAPACK's Dgeev; complex pairs are adjacent.
func Poles(A mat.Matrix) (p []complex128, err error) {
	defer guard("Poles", &err)
	r, c, err := dimsOf("A", A)
	if err != nil {
		return nil, err
	}
	if r != c {
		return nil, fmt.Errorf("control: Poles: A is %d×%d, not square", r, c)
	}
	var eig mat.Eigen
	if !eig.Factorize(A, mat.EigenNone) {
		return nil, fmt.Errorf("control: Poles: eigenvalue iteration did not converge")
	}
	return eig.Values(nil), nil
}
