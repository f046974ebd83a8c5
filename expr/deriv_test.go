package expr

import (
	"math"
	"math/rand/v2"
	"testing"
)

// derivExprs use every operator and built-in with variable arguments x, y, z
// (slots 0..2); all are defined for x, y, z in [-2, 2].
var derivExprs = []string{
	"x^3 - 2*x*y + z",
	"x*y*z - x/(y^2 + 1)",
	"sin(x*y) + cos(z - x)",
	"tan(x/2)",
	"asin(x/3)*acos(y/3)",
	"atan(x*y*z)",
	"atan2(x*y, z + 3) + atan2(z, x)",
	"sinh(x)*cosh(y) + tanh(z*x)",
	"exp(x*y)/(1 + z^2)",
	"log(1 + x^2)*log10(2 + y^2)",
	"sqrt(1 + x^2 + y^2)",
	"abs(x*y - z)",
	"sign(x - y)*x^2",
	"sign(x, y)*z",
	"mod(3*x, y + 4) + mod(x*y + 10, 2 + z)",
	"floor(x) + ceil(y) + x*z",
	"hypot(x, y*z + 1)",
	"max(x, y, z)*x",
	"min(x*y, z, 0.5) + max(x, y)",
	"if(x < y, sin(x*z), cos(y) + x)",
	"(x > 0 && y < 1 || !(z > 1))*x^2",
	"pow(x^2 + 1, y)",
	"(x^2 + 1)^(y*z)",
	"(2 + sin(x))^(2^y)",
	"(x^2 + 1)^2.5 + x^-1^2*0",
	"step(x, y, z, y + 1.5, x*z)",
	"step5(z, x, y, x + 2, z)",
	"havsin(x, y, z, y + 1 + x^2, 2)",
	"step(x, -1, 0, 1, 5) + step5(y, -1, 2, 1, 0) + havsin(z, -1, 1, 2, 3)",
	"step''(x, y, z, y + 2, 1) + step5'(y, z, x, z + 3, y) + havsin''(z, x, 1, x + 2.5, y)",
	"shf(x, y, z, x*y, y, z)",
	"spl(x*y) + ak(z + x)",
	"spl'(x) + tbl(z + 1) + ak''(y*x)",
	"dx(arm.tip)*x + vx(arm.tip)*y^2",
	"-k*(x - 0.1) - c*y + step(z, 0, 0, 1, 5)",
}

func samplePoints(n int, seed uint64) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	pts := make([][]float64, n)
	for i := range pts {
		v := stdVars()
		v[sX], v[sY], v[sZ] = 4*r.Float64()-2, 4*r.Float64()-2, 4*r.Float64()-2
		pts[i] = v
	}
	return pts
}

// checkFD compares d (the derivative of p w.r.t. slot) with central finite
// differences of p at pts, Richardson-extrapolated. Points where the
// differences at steps h and h/2 disagree (a kink or jump within h) are
// skipped; at most maxSkip of them are allowed.
func checkFD(t *testing.T, what string, p, d *Program, slot int, pts [][]float64, meas Measurer, maxSkip float64) {
	t.Helper()
	skipped, bad := 0, 0
	for _, v0 := range pts {
		v := append([]float64(nil), v0...)
		x := v[slot]
		f := func(h float64) float64 {
			v[slot] = x + h
			r := p.Eval(v, meas)
			v[slot] = x
			return r
		}
		h := 1e-4 * math.Max(1, math.Abs(x))
		fd1 := (f(h) - f(-h)) / (2 * h)
		fd2 := (f(h/2) - f(-h/2)) / h
		an := d.Eval(v, meas)
		if math.IsNaN(an) || math.IsNaN(fd2) {
			t.Errorf("%s: NaN at %v: analytic %v, fd %v", what, v[:3], an, fd2)
			bad++
			continue
		}
		if math.Abs(fd1-fd2) > 1e-4*(1+math.Abs(fd2)) {
			skipped++
			continue
		}
		fd := (4*fd2 - fd1) / 3
		if math.Abs(an-fd) > 2e-6*(1+math.Abs(an)) {
			bad++
			if bad <= 3 {
				t.Errorf("%s at x,y,z=%.6g: analytic %.12g, finite difference %.12g", what, v[:3], an, fd)
			}
		}
	}
	if float64(skipped) > maxSkip*float64(len(pts)) {
		t.Errorf("%s: %d of %d points skipped as non-smooth", what, skipped, len(pts))
	}
}

func TestDerivFiniteDifferences(t *testing.T) {
	env := newEnv()
	meas := newMeas()
	pts := samplePoints(150, 42)
	for _, src := range derivExprs {
		p, err := Compile(src, env)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		for s := range 3 {
			d := p.Deriv(s)
			checkFD(t, src+" d/"+"xyz"[s:s+1], p, d, s, pts, meas, 0.05)
			// Second derivatives, including mixed ones.
			for s2 := range 3 {
				checkFD(t, src+" d2/d"+"xyz"[s:s+1]+"d"+"xyz"[s2:s2+1], d, d.Deriv(s2), s2, pts, meas, 0.05)
			}
		}
	}
}

// TestDerivClosedForms compares Deriv w.r.t. x with hand-derived formulas at
// x in (0.1, 1.9), y = 1.3.
func TestDerivClosedForms(t *testing.T) {
	const y = 1.3
	S1 := func(d float64) float64 { // derivative of the cubic step shape
		if d <= 0 || d >= 1 {
			return 0
		}
		return 6 * d * (1 - d)
	}
	tanh := func(x float64) float64 { return (math.Exp(2*x) - 1) / (math.Exp(2*x) + 1) }
	cases := []struct {
		src string
		d   func(x float64) float64
	}{
		{"x^3", func(x float64) float64 { return 3 * x * x }},
		{"sin(x^2)", func(x float64) float64 { return 2 * x * math.Cos(x*x) }},
		{"cos(3*x)", func(x float64) float64 { return -3 * math.Sin(3*x) }},
		{"tan(x)", func(x float64) float64 { return 1 / (math.Cos(x) * math.Cos(x)) }},
		{"asin(x/2)", func(x float64) float64 { return 1 / (2 * math.Sqrt(1-x*x/4)) }},
		{"acos(x/2)", func(x float64) float64 { return -1 / (2 * math.Sqrt(1-x*x/4)) }},
		{"atan(x)", func(x float64) float64 { return 1 / (1 + x*x) }},
		{"atan2(y, x)", func(x float64) float64 { return -y / (x*x + y*y) }},
		{"atan2(x, y)", func(x float64) float64 { return y / (x*x + y*y) }},
		{"sinh(x)", func(x float64) float64 { return (math.Exp(x) + math.Exp(-x)) / 2 }},
		{"cosh(x)", func(x float64) float64 { return (math.Exp(x) - math.Exp(-x)) / 2 }},
		{"tanh(x)", func(x float64) float64 { return 1 - tanh(x)*tanh(x) }},
		{"exp(2*x)", func(x float64) float64 { return 2 * math.Exp(2*x) }},
		{"log(x)", func(x float64) float64 { return 1 / x }},
		{"log10(x)", func(x float64) float64 { return 1 / (x * math.Ln10) }},
		{"sqrt(x)", func(x float64) float64 { return 0.5 / math.Sqrt(x) }},
		{"abs(x - 1)", func(x float64) float64 { return map[bool]float64{true: 1, false: -1}[x > 1] }},
		{"sign(x)", func(float64) float64 { return 0 }},
		{"sign(x, y)", func(float64) float64 { return 1 }},
		{"sign(x, -y)", func(float64) float64 { return -1 }},
		{"min(x, 1)", func(x float64) float64 { return b2f(x < 1) }},
		{"max(x, 2*x, 1)", func(x float64) float64 { return 2 * b2f(x > 0.5) }},
		{"pow(x, y)", func(x float64) float64 { return y * math.Pow(x, y-1) }},
		{"y^x", func(x float64) float64 { return math.Pow(y, x) * math.Log(y) }},
		{"x^x", func(x float64) float64 { return math.Pow(x, x) * (math.Log(x) + 1) }},
		{"mod(5*x, y)", func(float64) float64 { return 5 }},
		{"mod(3*y, x)", func(x float64) float64 { return -math.Trunc(3 * y / x) }},
		{"floor(x) + ceil(x)", func(float64) float64 { return 0 }},
		{"hypot(x, y)", func(x float64) float64 { return x / math.Sqrt(x*x+y*y) }},
		{"if(x > 1, x^2, 3*x)", func(x float64) float64 {
			if x > 1 {
				return 2 * x
			}
			return 3
		}},
		{"x/y", func(float64) float64 { return 1 / y }},
		{"y/x", func(x float64) float64 { return -y / (x * x) }},
		{"step(x, 0, 0, 2, 3)", func(x float64) float64 { return 3 * S1(x/2) / 2 }},
		{"step(y, x, 0, x + 2, 1)", func(x float64) float64 { return -S1((y-x)/2) / 2 }},
		{"step(2, 0, x, 3, 5)", func(float64) float64 { return 7.0 / 27 }},
		{"step(2, 0, 5, 3, x)", func(float64) float64 { return 20.0 / 27 }},
		{"step(1, 0, 0, x + 1, 4)", func(x float64) float64 { d := 1 / (x + 1); return -4 * S1(d) * d / (x + 1) }},
		{"step5(x, 0, 1, 2, 3)", func(x float64) float64 { d := x / 2; return 30 * d * d * (1 - d) * (1 - d) }},
		{"havsin(x, 0, 1, 2, 3)", func(x float64) float64 { return math.Pi / 2 * math.Sin(math.Pi*x/2) }},
		{"shf(x, 0.5, 2, 3, 0.1, 4)", func(x float64) float64 { return 6 * math.Cos(3*(x-0.5)-0.1) }},
		{"shf(1, 0.5, x, 3, 0.1, 4)", func(float64) float64 { return math.Sin(1.4) }},
		{"shf(1, 0.5, 2, x, 0.1, 4)", func(x float64) float64 { return 2 * 0.5 * math.Cos(0.5*x-0.1) }},
		{"shf(1, x, 2, 3, 0.1, 4)", func(x float64) float64 { return -6 * math.Cos(3*(1-x)-0.1) }},
		{"shf(1, 0.5, 2, 3, x, 4) + shf(1, 0.5, 2, 3, 0.1, x)", func(x float64) float64 { return -2*math.Cos(1.5-x) + 1 }},
		{"tbl(x^2)", func(x float64) float64 {
			switch u := x * x; {
			case u < 1:
				return 20 * x
			case u < 2:
				return -20 * x
			}
			return 0
		}},
		{"tbl'(x)", func(float64) float64 { return 0 }},
		{"h3(x)", func(x float64) float64 {
			// Natural spline through (0,0) (1,1) (2,0): M = 0, -3, 0.
			if x < 1 {
				return 1.5 - 1.5*x*x
			}
			u := 2 - x
			return -(1.5 - 1.5*u*u)
		}},
		{"dx(arm.tip)*x", func(float64) float64 { return 0.3 }},
	}
	env := newEnv()
	meas := newMeas()
	v := stdVars()
	v[sY] = y
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		d := p.Deriv(sX)
		for i := range 91 {
			x := 0.1 + 0.02*float64(i) + 0.0013
			v[sX] = x
			got, want := d.Eval(v, meas), tc.d(x)
			if !near(got, want, 1e-12) {
				t.Errorf("d/dx %s at x=%g: %.15g, want %.15g (derivative %s)", tc.src, x, got, want, d)
				break
			}
		}
	}
}

func TestSecondDerivClosedForms(t *testing.T) {
	cases := []struct {
		src string
		d2  func(x float64) float64
	}{
		{"step(x, 0, 0, 2, 3)", func(x float64) float64 { return 3 * (6 - 12*x/2) / 4 }},
		{"step5(x, 0, 1, 2, 3)", func(x float64) float64 { d := x / 2; return 2 * (60*d - 180*d*d + 120*d*d*d) / 4 }},
		{"havsin(x, 0, 1, 2, 3)", func(x float64) float64 { return 2 * math.Pi * math.Pi / 2 * math.Cos(math.Pi*x/2) / 4 }},
		{"sin(x^2)", func(x float64) float64 { return 2*math.Cos(x*x) - 4*x*x*math.Sin(x*x) }},
		{"atan(x)", func(x float64) float64 { return -2 * x / ((1 + x*x) * (1 + x*x)) }},
		{"h3(x)", func(x float64) float64 {
			if x < 1 {
				return -3 * x
			}
			return -3 * (2 - x)
		}},
		{"x^4/y", func(x float64) float64 { return 12 * x * x / -2 }},
	}
	env := newEnv()
	v := stdVars()
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Fatal(err)
		}
		d2 := p.Deriv(sX).Deriv(sX)
		for i := range 90 {
			x := 0.05 + 0.021*float64(i)
			v[sX] = x
			if got, want := d2.Eval(v, nil), tc.d2(x); !near(got, want, 1e-12) {
				t.Errorf("d2/dx2 %s at x=%g: %.15g, want %.15g (%s)", tc.src, x, got, want, d2)
				break
			}
		}
	}
}

func TestDerivSimplified(t *testing.T) {
	cases := []struct {
		src  string
		slot int
		want string
	}{
		{"3*x + 2", sX, "3"},
		{"x*y", sX, "y"},
		{"x*y", sY, "x"},
		{"sin(x)", sX, "cos(x)"},
		{"x^2", sX, "2*x"},
		{"-x", sX, "-1"},
		{"y + 1", sX, "0"},
		{"tbl(x)", sX, "tbl'(x)"},
		{"tbl'(2*x)", sX, "2*tbl''(2*x)"},
		{"step(time, 0, 0, 1, 5)", sTime, "step'(time, 0, 0, 1, 5)"},
		{"dx(arm.tip)*x", sX, "dx(arm.tip)"},
		{"-k*(x - 0.1) - c*v + step(time, 0, 0, 1, 5)", sX, "-k"},
		{"-k*(x - 0.1) - c*v + step(time, 0, 0, 1, 5)", sV, "-c"},
		{"exp(x)", sX, "exp(x)"},
		{"if(time < 1, 0, 50*sin(2*pi*time))", sTime, "if(time < 1, 0, 314.1592653589793*cos(6.283185307179586*time))"},
	}
	env := newEnv()
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Fatal(err)
		}
		d := p.Deriv(tc.slot)
		if d.String() != tc.want {
			t.Errorf("d/d%d %s = %q, want %q", tc.slot, tc.src, d.String(), tc.want)
		}
		if d.Src() != d.String() {
			t.Errorf("Src() = %q", d.Src())
		}
	}
	p, _ := Compile("y + 1", env)
	if v, ok := p.Deriv(sX).Const(); !ok || v != 0 {
		t.Errorf("Deriv of y+1 w.r.t. x: Const() = %v, %v", v, ok)
	}
}
