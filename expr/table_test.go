package expr

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestLinearTable(t *testing.T) {
	tb := mustTable([]float64{0, 1, 3, 4}, []float64{1, 3, -1, 0}, Linear)
	cases := []struct{ x, y, dy float64 }{
		{0, 1, 2}, {1, 3, -2}, {3, -1, 1}, {4, 0, 1}, // nodes (derivative from the right, left at the end)
		{0.5, 2, 2}, {2, 1, -2}, {3.5, -0.5, 1}, // midpoints
		{0.25, 1.5, 2}, {2.5, 0, -2},
		{-1, 1, 0}, {-1e300, 1, 0}, {10, 0, 0}, {math.Inf(1), 0, 0}, // held outside
	}
	for _, c := range cases {
		if got := tb.At(c.x); got != c.y {
			t.Errorf("At(%g) = %.17g, want %g", c.x, got, c.y)
		}
		if got := tb.Deriv(c.x); got != c.dy {
			t.Errorf("Deriv(%g) = %g, want %g", c.x, got, c.dy)
		}
	}
	if !math.IsNaN(tb.At(math.NaN())) || !math.IsNaN(tb.Deriv(math.NaN())) {
		t.Error("NaN input should give NaN")
	}
	if lo, hi := tb.Domain(); lo != 0 || hi != 4 || tb.Len() != 4 || tb.Kind() != Linear {
		t.Error("Domain/Len/Kind wrong")
	}
}

func TestSplineHandExample(t *testing.T) {
	// Natural spline through (0,0) (1,1) (2,0): 4 M1 = 6(-1 - 1), M1 = -3;
	// on [0,1] s = 1.5 t - 0.5 t^3.
	tb := mustTable([]float64{0, 1, 2}, []float64{0, 1, 0}, Spline)
	for _, c := range []struct{ x, y, dy float64 }{
		{0, 0, 1.5}, {0.5, 0.6875, 1.125}, {1, 1, 0}, {1.5, 0.6875, -1.125}, {2, 0, -1.5},
	} {
		if got := tb.At(c.x); math.Abs(got-c.y) > 1e-15 {
			t.Errorf("At(%g) = %.17g, want %g", c.x, got, c.y)
		}
		if got := tb.Deriv(c.x); math.Abs(got-c.dy) > 1e-15 {
			t.Errorf("Deriv(%g) = %.17g, want %g", c.x, got, c.dy)
		}
	}
}

// checkSmooth checks that adjacent segments agree in value and in the first
// `orders` derivatives at every interior knot, and interpolate the data.
func checkSmooth(t *testing.T, name string, tb *Table, orders int) {
	t.Helper()
	n := len(tb.x)
	scale := 0.0
	for _, y := range tb.y {
		scale = math.Max(scale, math.Abs(y))
	}
	for i := range n - 1 {
		s := tb.seg[i]
		h := tb.x[i+1] - tb.x[i]
		end := [3]float64{s.a + h*(s.b+h*(s.c+h*s.d)), s.b + h*(2*s.c+3*h*s.d), 2*s.c + 6*h*s.d}
		if math.Abs(s.a-tb.y[i]) > 1e-14*scale || math.Abs(end[0]-tb.y[i+1]) > 1e-12*(1+scale) {
			t.Errorf("%s: segment %d does not interpolate: %g, %g vs %g, %g", name, i, s.a, end[0], tb.y[i], tb.y[i+1])
		}
		if i+1 < n-1 {
			nx := tb.seg[i+1]
			start := [3]float64{nx.a, nx.b, 2 * nx.c}
			for k := 1; k <= orders; k++ {
				if math.Abs(end[k]-start[k]) > 1e-9*(1+math.Abs(start[k])) {
					t.Errorf("%s: derivative %d jumps at knot %d: %.15g vs %.15g", name, k, i+1, end[k], start[k])
				}
			}
		}
	}
}

func TestSplineReproducesCubic(t *testing.T) {
	// f = x^3 - 2x on [-2, 2], 41 points. The natural end condition f'' = 0
	// is wrong for f (f'' = 6x), but its effect decays by about
	// 2 - sqrt(3) = 0.27 per knot, so the interior is reproduced closely.
	f := func(x float64) float64 { return x*x*x - 2*x }
	df := func(x float64) float64 { return 3*x*x - 2 }
	var xs, ys []float64
	for i := range 41 {
		x := -2 + 0.1*float64(i)
		xs, ys = append(xs, x), append(ys, f(x))
	}
	tb := mustTable(xs, ys, Spline)
	checkSmooth(t, "spline", tb, 2)
	for i := range 201 {
		x := -1 + 0.01*float64(i) + 0.00037
		if e := math.Abs(tb.At(x) - f(x)); e > 5e-8 {
			t.Errorf("At(%g) = %.12g, f = %.12g (error %g)", x, tb.At(x), f(x), e)
		}
		if e := math.Abs(tb.Deriv(x) - df(x)); e > 3e-6 {
			t.Errorf("Deriv(%g) = %.12g, f' = %.12g (error %g)", x, tb.Deriv(x), df(x), e)
		}
	}
	// Natural end conditions.
	if a, b := tb.derivN(-2, 2), tb.derivN(2, 2); math.Abs(a) > 1e-9 || math.Abs(b) > 1e-9 {
		t.Errorf("second derivative at the ends %g, %g, want 0", a, b)
	}
	// First derivative continuous: left and right limits at every knot.
	for _, x := range xs[1 : len(xs)-1] {
		l, r := tb.Deriv(x-1e-9), tb.Deriv(x+1e-9)
		if math.Abs(l-r) > 1e-7 {
			t.Errorf("Deriv jumps at %g: %g vs %g", x, l, r)
		}
	}
}

func TestLinearDataReproduced(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := []float64{-1}
	for range 30 {
		xs = append(xs, xs[len(xs)-1]+0.05+r.Float64()) // non-uniform
	}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = 2*x + 1
	}
	for _, k := range []TableKind{Linear, Spline, Akima} {
		tb := mustTable(xs, ys, k)
		checkSmooth(t, k.String(), tb, 1)
		lo, hi := tb.Domain()
		for range 500 {
			x := lo + (hi-lo)*r.Float64()
			if e := math.Abs(tb.At(x) - (2*x + 1)); e > 1e-12*(1+math.Abs(x)) {
				t.Errorf("%v: At(%g) error %g", k, x, e)
			}
			if e := math.Abs(tb.Deriv(x) - 2); e > 1e-11 {
				t.Errorf("%v: Deriv(%g) error %g", k, x, e)
			}
		}
	}
}

func TestAkima(t *testing.T) {
	// Step-like data: Akima must not overshoot (no value outside [0, 1]) where
	// a spline would, and must be C1.
	xs := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	ys := []float64{0, 0, 0, 0, 1, 1, 1, 1}
	ak := mustTable(xs, ys, Akima)
	sp := mustTable(xs, ys, Spline)
	checkSmooth(t, "akima", ak, 1)
	overshoot := false
	for i := range 701 {
		x := 0.01 * float64(i)
		if v := ak.At(x); v < -1e-15 || v > 1+1e-15 {
			t.Errorf("Akima overshoots: At(%g) = %g", x, v)
		}
		overshoot = overshoot || sp.At(x) < -1e-3
	}
	if !overshoot {
		t.Error("reference spline should overshoot on step data")
	}
	// Flat parts are exactly flat (both Akima weights select the flat slope).
	if ak.At(1.5) != 0 || ak.At(5.5) != 1 || ak.Deriv(1.5) != 0 {
		t.Errorf("Akima flat parts: %g %g %g", ak.At(1.5), ak.At(5.5), ak.Deriv(1.5))
	}
	// Akima node slopes by hand, secant slopes m = 0 0 0 1 0 0 0:
	// at x=3: w1 = |m4-m3| = 1, w2 = |m2-m1| = 0, t = m2 = 0;
	// at x=4: w1 = |m5-m4| = 0, w2 = |m3-m2| = 1, t = m4 = 0;
	// so [3, 4] is the Hermite cubic 3u^2 - 2u^3.
	if d3, d4 := ak.Deriv(3), ak.Deriv(4); d3 != 0 || d4 != 0 {
		t.Errorf("Akima slopes at 3, 4: %g, %g, want 0, 0", d3, d4)
	}
	if v, d := ak.At(3.5), ak.Deriv(3.5); v != 0.5 || d != 1.5 {
		t.Errorf("Akima at 3.5: %g, %g, want 0.5, 1.5", v, d)
	}
}

func TestUniformLookup(t *testing.T) {
	// The uniform-grid shortcut must find the same segment as bisection.
	var xs, ys []float64
	for i := range 50 {
		xs = append(xs, 0.1*float64(i)-1)
		ys = append(ys, math.Sin(float64(i)))
	}
	tb := mustTable(xs, ys, Linear)
	if !tb.uniform {
		t.Fatal("grid not detected as uniform")
	}
	for i := range 10000 {
		x := -1 + 4.9*float64(i)/9999
		if x <= xs[0] || x >= xs[len(xs)-1] {
			continue
		}
		s := tb.find(x)
		if !(tb.x[s] <= x && x < tb.x[s+1]) {
			t.Fatalf("find(%g) = %d: [%g, %g)", x, s, tb.x[s], tb.x[s+1])
		}
	}
	for _, x := range xs[1 : len(xs)-1] {
		s := tb.find(x)
		if tb.x[s] != x {
			t.Errorf("find(knot %g) = segment starting at %g", x, tb.x[s])
		}
	}
}

func TestTableErrors(t *testing.T) {
	cases := []struct {
		x, y []float64
		k    TableKind
		msg  string
	}{
		{[]float64{0, 0, 1}, []float64{1, 2, 3}, Linear, "strictly increasing"},
		{[]float64{0, 2, 1}, []float64{1, 2, 3}, Spline, "x[2] = 1 <= x[1] = 2"},
		{[]float64{0, 1}, []float64{1}, Linear, "2 x values but 1 y values"},
		{[]float64{0}, []float64{1}, Linear, "at least 2 points"},
		{[]float64{0, math.NaN()}, []float64{1, 2}, Linear, "not finite"},
		{[]float64{0, 1}, []float64{1, math.Inf(1)}, Linear, "not finite"},
		{[]float64{0, 1}, []float64{1, 2}, TableKind(7), "unknown kind"},
		{[]float64{0, 1e-320, 1}, []float64{0, 1, 0}, Spline, "overflow"},
	}
	for _, c := range cases {
		_, err := NewTable(c.x, c.y, c.k)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("NewTable(%v, %v, %v) error %v, want %q", c.x, c.y, c.k, err, c.msg)
		}
	}
	tb := mustTable([]float64{0, 1}, []float64{0, 2}, Spline)
	if tb.Kind() != Linear || tb.At(0.25) != 0.5 {
		t.Errorf("2-point spline should fall back to linear: kind %v, At(0.25) = %g", tb.Kind(), tb.At(0.25))
	}
	// The table copies its input.
	x, y := []float64{0, 1, 2}, []float64{0, 1, 4}
	tb = mustTable(x, y, Akima)
	x[1], y[1] = 0.5, 100
	if tb.At(1) != 1 {
		t.Error("table aliases its input slices")
	}
}

func TestParseTableKind(t *testing.T) {
	for s, want := range map[string]TableKind{"linear": Linear, "Spline": Spline, " AKIMA ": Akima} {
		k, err := ParseTableKind(s)
		if err != nil || k != want {
			t.Errorf("ParseTableKind(%q) = %v, %v", s, k, err)
		}
		if strings.TrimSpace(strings.ToLower(s)) != want.String() {
			t.Errorf("String() = %q", want.String())
		}
	}
	if _, err := ParseTableKind("cubic"); err == nil || !strings.Contains(err.Error(), `unknown table kind "cubic"`) {
		t.Errorf("ParseTableKind(cubic) error %v", err)
	}
}
