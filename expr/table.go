package expr

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// TableKind selects the interpolation of a Table.
type TableKind int

const (
	// Linear interpolates linearly between the points.
	Linear TableKind = iota
	// Spline is the natural cubic spline (second derivative zero at both
	// ends): C2-continuous. It needs at least 3 points.
	Spline
	// Akima is the Akima (1970) piecewise cubic: C1-continuous, local, and
	// free of the overshoot of splines near abrupt changes. It needs at least
	// 3 points. End slopes use Akima's linear extrapolation of the secant
	// slopes.
	Akima
)

// String returns "linear", "spline" or "akima".
func (k TableKind) String() string {
	switch k {
	case Linear:
		return "linear"
	case Spline:
		return "spline"
	case Akima:
		return "akima"
	}
	return fmt.Sprintf("TableKind(%d)", int(k))
}

// ParseTableKind parses "linear", "spline" or "akima" (case-insensitive).
func ParseTableKind(s string) (TableKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "linear":
		return Linear, nil
	case "spline":
		return Spline, nil
	case "akima":
		return Akima, nil
	}
	return 0, fmt.Errorf("unknown table kind %q (want linear, spline or akima)", s)
}

// segment is the cubic y = a + t(b + t(c + t d)), t = x - x[i], on
// [x[i], x[i+1]].
type segment struct{ a, b, c, d float64 }

// Table is an interpolation table y(x). It is immutable after NewTable and
// safe for concurrent use.
//
// Outside [x[0], x[n-1]] the table holds its end values: At returns y[0]
// below the range and y[n-1] above it, and Deriv returns 0. At the knots the
// derivative is taken from the segment to the right (from the left at the
// last knot); for Linear tables it is therefore discontinuous there.
type Table struct {
	kind    TableKind
	x       []float64
	y       []float64
	seg     []segment
	uniform bool    // x equally spaced: segment found by division
	invH    float64 // 1/spacing when uniform
}

// NewTable builds a table through the points (x[i], y[i]). x must be
// strictly increasing and finite, y finite, len(x) == len(y) >= 2. Spline and
// Akima with only 2 points fall back to Linear (Kind reports the kind used).
// The slices are copied.
func NewTable(x, y []float64, kind TableKind) (*Table, error) {
	n := len(x)
	switch {
	case kind != Linear && kind != Spline && kind != Akima:
		return nil, fmt.Errorf("table: unknown kind %d", int(kind))
	case n != len(y):
		return nil, fmt.Errorf("table: %d x values but %d y values", n, len(y))
	case n < 2:
		return nil, fmt.Errorf("table: need at least 2 points, got %d", n)
	}
	for i := range n {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) {
			return nil, fmt.Errorf("table: x[%d] = %g is not finite", i, x[i])
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return nil, fmt.Errorf("table: y[%d] = %g is not finite", i, y[i])
		}
		if i > 0 && !(x[i] > x[i-1]) {
			return nil, fmt.Errorf("table: x must be strictly increasing, but x[%d] = %g <= x[%d] = %g", i, x[i], i-1, x[i-1])
		}
	}
	if n < 3 {
		kind = Linear
	}
	t := &Table{kind: kind, x: append([]float64(nil), x...), y: append([]float64(nil), y...)}
	x, y = t.x, t.y
	t.seg = make([]segment, n-1)
	switch kind {
	case Linear:
		for i := range n - 1 {
			t.seg[i] = segment{a: y[i], b: (y[i+1] - y[i]) / (x[i+1] - x[i])}
		}
	case Spline:
		t.naturalSpline()
	case Akima:
		t.akima()
	}
	for i := range t.seg {
		s := t.seg[i]
		if math.IsInf(s.b, 0) || math.IsInf(s.c, 0) || math.IsInf(s.d, 0) || math.IsNaN(s.b+s.c+s.d) {
			return nil, errors.New("table: coefficients overflow (points too close together)")
		}
	}
	h := (x[n-1] - x[0]) / float64(n-1)
	t.uniform = true
	for i := range n - 1 {
		if math.Abs(x[i+1]-x[i]-h) > 1e-9*h {
			t.uniform = false
			break
		}
	}
	t.invH = 1 / h
	return t, nil
}

// naturalSpline computes the natural cubic spline segments: second
// derivatives M[i] from the tridiagonal system
// h[i-1] M[i-1] + 2(h[i-1]+h[i]) M[i] + h[i] M[i+1] = 6(s[i] - s[i-1]),
// M[0] = M[n-1] = 0, solved by the Thomas algorithm (diagonally dominant).
func (t *Table) naturalSpline() {
	x, y := t.x, t.y
	n := len(x)
	M := make([]float64, n)
	cp := make([]float64, n) // modified super-diagonal
	dp := make([]float64, n) // modified right-hand side
	for i := 1; i < n-1; i++ {
		h0, h1 := x[i]-x[i-1], x[i+1]-x[i]
		rhs := 6 * ((y[i+1]-y[i])/h1 - (y[i]-y[i-1])/h0)
		diag := 2 * (h0 + h1)
		if i > 1 {
			diag -= h0 * cp[i-1]
			rhs -= h0 * dp[i-1]
		}
		cp[i] = h1 / diag
		dp[i] = rhs / diag
	}
	for i := n - 2; i >= 1; i-- {
		M[i] = dp[i]
		if i < n-2 {
			M[i] -= cp[i] * M[i+1]
		}
	}
	for i := range n - 1 {
		h := x[i+1] - x[i]
		t.seg[i] = segment{
			a: y[i],
			b: (y[i+1]-y[i])/h - h*(2*M[i]+M[i+1])/6,
			c: M[i] / 2,
			d: (M[i+1] - M[i]) / (6 * h),
		}
	}
}

// akima computes Akima's node slopes
// t[i] = (|m[i+1]-m[i]| m[i-1] + |m[i-1]-m[i-2]| m[i]) / (|m[i+1]-m[i]| + |m[i-1]-m[i-2]|)
// (the mean of m[i-1] and m[i] when both weights vanish) from the secant
// slopes m, extended by two values at each end with m[-1] = 2m[0] - m[1],
// m[-2] = 2m[-1] - m[0] and likewise at the right end, and the cubic
// Hermite segments through the points with those slopes.
func (t *Table) akima() {
	x, y := t.x, t.y
	n := len(x)
	m := make([]float64, n+3) // m[k+2] is the secant slope of segment k, k = -2..n
	for k := range n - 1 {
		m[k+2] = (y[k+1] - y[k]) / (x[k+1] - x[k])
	}
	m[1] = 2*m[2] - m[3]
	m[0] = 2*m[1] - m[2]
	m[n+1] = 2*m[n] - m[n-1]
	m[n+2] = 2*m[n+1] - m[n]
	slope := make([]float64, n)
	for i := range n {
		mm2, mm1, m0, mp1 := m[i], m[i+1], m[i+2], m[i+3]
		w1, w2 := math.Abs(mp1-m0), math.Abs(mm1-mm2)
		if w1+w2 == 0 {
			slope[i] = (mm1 + m0) / 2
		} else {
			slope[i] = (w1*mm1 + w2*m0) / (w1 + w2)
		}
	}
	for i := range n - 1 {
		h := x[i+1] - x[i]
		s := m[i+2]
		t.seg[i] = segment{
			a: y[i],
			b: slope[i],
			c: (3*s - 2*slope[i] - slope[i+1]) / h,
			d: (slope[i] + slope[i+1] - 2*s) / (h * h),
		}
	}
}

// Kind returns the interpolation used (Linear for a 2-point Spline or Akima
// table).
func (t *Table) Kind() TableKind { return t.kind }

// Domain returns the first and last x.
func (t *Table) Domain() (lo, hi float64) { return t.x[0], t.x[len(t.x)-1] }

// Len returns the number of points.
func (t *Table) Len() int { return len(t.x) }

// find returns the segment containing x, x[0] < x < x[n-1].
func (t *Table) find(x float64) int {
	last := len(t.seg) - 1
	if t.uniform {
		i := min(max(int((x-t.x[0])*t.invH), 0), last)
		for i > 0 && x < t.x[i] {
			i--
		}
		for i < last && x >= t.x[i+1] {
			i++
		}
		return i
	}
	lo, hi := 0, last+1
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if t.x[mid] <= x {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// At returns the interpolated value at x; outside the range it holds the end
// value. At(NaN) is NaN.
func (t *Table) At(x float64) float64 {
	switch {
	case x <= t.x[0]:
		return t.y[0]
	case x >= t.x[len(t.x)-1]:
		return t.y[len(t.y)-1]
	case x != x:
		return x
	}
	i := t.find(x)
	s := &t.seg[i]
	u := x - t.x[i]
	return s.a + u*(s.b+u*(s.c+u*s.d))
}

// Deriv returns dy/dx at x: 0 outside the range, the right-hand derivative
// at a knot (left-hand at the last knot).
func (t *Table) Deriv(x float64) float64 { return t.derivN(x, 1) }

// derivN returns the k-th derivative of the interpolant at x (k = 0: At).
func (t *Table) derivN(x float64, k int) float64 {
	if k == 0 {
		return t.At(x)
	}
	n := len(t.x)
	switch {
	case x < t.x[0] || x > t.x[n-1]:
		return 0
	case x != x:
		return x
	}
	i := 0
	if x == t.x[n-1] {
		i = n - 2
	} else if x > t.x[0] {
		i = t.find(x)
	}
	s := &t.seg[i]
	u := x - t.x[i]
	switch k {
	case 1:
		return s.b + u*(2*s.c+3*u*s.d)
	case 2:
		return 2*s.c + 6*u*s.d
	case 3:
		return 6 * s.d
	}
	return 0
}
