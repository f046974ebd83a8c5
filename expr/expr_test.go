package expr

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Values are computed by hand (or with the math package for transcendental
// values) with x=3, y=-2, z=0.5, time=1.25, k=10, c=0.5, v=2, F_in=7,
// arm.len=0.4, dx(arm.tip)=0.3, vx(arm.tip)=-1.5, dist(arm.tip, ground.o)=2,
// tbl = linear tent (0,0) (1,10) (2,0).
func TestEvalTable(t *testing.T) {
	e := math.E
	cases := []struct {
		src  string
		want float64
	}{
		{"1", 1},
		{"1.5", 1.5},
		{".5", 0.5},
		{"1e-3", 0.001},
		{"2.5E+2", 250},
		{"1+2*3", 7},
		{"(1+2)*3", 9},
		{"10-4-3", 3},
		{"16/4/2", 2},
		{"2^3^2", 512},
		{"-2^2", -4},
		{"(-2)^2", 4},
		{"2^-1", 0.5},
		{"2^-1^2", 0.5},
		{"-x^2", -9},
		{"2*-x", -6},
		{"2**3", 8},
		{"-x*y", 6},
		{"x - -y", 1},
		{"+x", 3},
		{"x/y*z", -0.75},
		{"1 < 2", 1},
		{"2 < 1", 0},
		{"2 <= 2", 1},
		{"3 > 2", 1},
		{"2 >= 3", 0},
		{"x == 3", 1},
		{"x != 3", 0},
		{"1 + 1 < 3", 1},
		{"2 < 1 == 0", 1},
		{"1 && 0", 0},
		{"1 || 0", 1},
		{"1 || 0 && 0", 1},
		{"0 && 1 || 1", 1},
		{"!0", 1},
		{"!x", 0},
		{"!0 + 1", 2},
		{"x > 2 && y < 0", 1},
		{"if(time < 1, 0, 50*sin(2*pi*time))", 50 * math.Sin(2.5*math.Pi)},
		{"if(time > 1, 0, 50*sin(2*pi*time))", 0},
		{"if(0, 1/0, 2)", 2},
		{"if(0/0, 1, 2)", 1},
		{"sin(pi/2)", 1},
		{"cos(0)", 1},
		{"tan(pi/4)", math.Tan(math.Pi / 4)},
		{"asin(1)", math.Pi / 2},
		{"acos(-1)", math.Pi},
		{"atan(1)", math.Pi / 4},
		{"atan2(-1, -1)", -3 * math.Pi / 4},
		{"sinh(1)", (e - 1/e) / 2},
		{"cosh(1)", (e + 1/e) / 2},
		{"tanh(1)", (e - 1/e) / (e + 1/e)},
		{"exp(1)", e},
		{"log(e^2)", 2},
		{"log10(1000)", 3},
		{"sqrt(16)", 4},
		{"abs(-3)", 3},
		{"sign(-3)", -1},
		{"sign(0)", 0},
		{"sign(2)", 1},
		{"sign(-3, 2)", 3},
		{"sign(3, -1)", -3},
		{"min(4, 2, 8, -1)", -1},
		{"max(1, 5, 3)", 5},
		{"max(x, y)", 3},
		{"min(x, y, z)", -2},
		{"pow(2, 10)", 1024},
		{"mod(7, 3)", 1},
		{"mod(-7, 3)", -1},
		{"mod(7.5, -2)", 1.5},
		{"floor(-1.5)", -2},
		{"ceil(1.2)", 2},
		{"hypot(3, 4)", 5},
		{"step(0.5, 0, 0, 1, 2)", 1},
		{"step(0.25, 0, 0, 1, 1)", 0.15625},
		{"step(0.25, 0, 1, 1, 0)", 0.84375},
		{"step(-1, 0, 3, 1, 5)", 3},
		{"step(0, 0, 3, 1, 5)", 3},
		{"step(2, 0, 3, 1, 5)", 5},
		{"step(time, 1, 0, 2, 8)", 1.25},
		{"step(time, 0, 0, 1, 2*pi)", 2 * math.Pi},
		{"step(x, y, 1, z, 2)", 2},
		{"step5(0.25, 0, 0, 1, 1)", 0.103515625},
		{"step5(1.5, 1, 2, 3, 6)", 2.4140625},
		{"havsin(0.25, 0, 0, 1, 1)", (1 - math.Sqrt2/2) / 2},
		{"havsin(0.5, 0, 2, 1, 4)", 3},
		{"shf(1, 0.5, 2, 3, 0.1, 4)", 2*math.Sin(1.4) + 4},
		{"shf(time, 0, 1, pi, 0, 0)", math.Sin(1.25 * math.Pi)},
		{"F_in", 7},
		{"arm.len*2", 0.8},
		{"e", e},
		{"pi", math.Pi},
		{"-k*(dx(arm.tip)-0.1) - c*vx(arm.tip)", -1.25},
		{"dist(arm.tip, ground.o)", 2},
		{"dist(arm.tip,ground.o)*dx(arm.tip)", 0.6},
		{"tbl(time)", 7.5},
		{"tbl(-1)", 0},
		{"tbl(5)", 0},
		{"tbl(0.5)*2", 10},
		{"tbl'(time)", -10},
		{"tbl'(z)", 10},
		{"tbl''(z)", 0},
		{"step'(0.5, 0, 0, 2, 4)", 4 * 6 * 0.25 * 0.75 / 2},
		{"step''(0.5, 0, 0, 2, 4)", 4 * (6 - 12*0.25) / 4},
		{"-k*(x-0.1) - c*v + step(time,0,0,1,5)", -10*2.9 - 1 + 5},
		{"1 +\n 2", 3},
	}
	env := newEnv()
	vars, meas := stdVars(), newMeas()
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Errorf("Compile(%q): %v", tc.src, err)
			continue
		}
		got := p.Eval(vars, meas)
		if !near(got, tc.want, 1e-14) {
			t.Errorf("%q = %.17g, want %.17g", tc.src, got, tc.want)
		}
		// The folding interpreter must agree with the compiled closures.
		if ref := p.root.eval(vars, meas); !near(ref, got, 0) {
			t.Errorf("%q: closures %.17g, tree %.17g", tc.src, got, ref)
		}
	}
}

func near(a, b, rel float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestErrors(t *testing.T) {
	deep := strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300)
	cases := []struct {
		src string
		col int
		msg string
	}{
		{"", 1, "empty expression"},
		{"   ", 1, "empty expression"},
		{"sni(1)", 1, `unknown function "sni" (did you mean sin?)`},
		{"1 + stpe(x, 0, 0, 1, 1)", 5, `unknown function "stpe" (did you mean step?)`},
		{"STEP(x, 0, 0, 1, 1)", 1, `(did you mean step?)`},
		{"1 + foo", 5, `unknown identifier "foo"`},
		{"x + tme", 5, `unknown identifier "tme" (did you mean time?)`},
		{"F_inn*2", 1, `(did you mean F_in?)`},
		{"cart.c.x * 2", 1, `unknown identifier "cart.c.x" (a dotted name refers to a marker, which only a measure function takes`},
		{"qqqqqq", 1, `unknown identifier "qqqqqq"`},
		{"sin(1, 2)", 1, "sin expects 1 argument, got 2"},
		{"max(1)", 1, "max expects at least 2 arguments, got 1"},
		{"sign(1, 2, 3)", 1, "sign expects 1 to 2 arguments, got 3"},
		{"2*step(1, 2, 3)", 3, "step expects 5 arguments, got 3"},
		{"if(1, 2)", 1, "if expects 3 arguments, got 2"},
		{"(1 + 2", 1, "unbalanced parentheses: '(' is never closed"},
		{"2*(1 + (2)", 3, "unbalanced parentheses"},
		{"sin(1", 4, "unbalanced parentheses: '(' of sin( is never closed"},
		{"1 + 2)", 6, "unbalanced parentheses: unexpected ')'"},
		{"1 2", 3, "unexpected number 2 after end of expression"},
		{"x y", 3, `unexpected name "y" after end of expression`},
		{"1.2.3", 1, `malformed number "1.2.3"`},
		{"1 +", 4, "unexpected end of expression"},
		{"1 + * 2", 5, "unexpected '*'"},
		{"()", 2, "unexpected ')'"},
		{"sin()", 1, "sin expects 1 argument, got 0"},
		{"sin(1,)", 7, "unexpected ')'"},
		{"sin(1 2)", 7, "expected ',' or ')' in call to sin, found number 2"},
		{"(1 2)", 4, "expected ')' or an operator, found number 2"},
		{"1 $ 2", 3, "unexpected character '$'"},
		{"x = 1", 3, "use == to compare"},
		{"x & y", 3, "use &&"},
		{"2e", 1, "malformed number"},
		{"3x", 1, `malformed number "3x"`},
		{"1 + arm.", 8, "malformed name"},
		{"sin", 1, `"sin" is a function`},
		{"x(1)", 1, `"x" is a variable, not a function`},
		{"step(time, 1, 0, 0, 1)", 1, "x0 (1) must be less than x1 (0)"},
		{"1 + dx(nomarker)", 5, `unknown marker "nomarker"`},
		{"dist(arm.tip)", 1, "dist expects 2 marker(s), got 1"},
		{"sin'(x)", 1, "derivative notation"},
		{"2*dx'(arm.tip)", 3, "not allowed on measures"},
		{"2*x'", 3, "derivative notation"},
		{"tbl(1, 2)", 1, "table tbl expects 1 argument, got 2"},
		{"nope(1)", 1, `unknown function "nope"`},
		{deep, 201, "nested too deeply"},
		{"1 + µ", 5, "unexpected character 'µ'"},
	}
	env := newEnv()
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err == nil {
			t.Errorf("Compile(%q) = %v, want error", tc.src, p)
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Compile(%q): error %T is not *Error", tc.src, err)
			continue
		}
		if e.Col != tc.col || !strings.Contains(e.Msg, tc.msg) || e.Src != tc.src {
			t.Errorf("Compile(%q): col %d %q, want col %d containing %q", tc.src, e.Col, e.Msg, tc.col, tc.msg)
		}
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := Compile("sni(1)", newEnv())
	if got, want := err.Error(), `col 1: unknown function "sni" (did you mean sin?)`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	_, err = Compile("x + 2*(y", newEnv())
	if got, want := err.(*Error).Caret(), "x + 2*(y\n      ^"; got != want {
		t.Errorf("Caret() = %q, want %q", got, want)
	}
	// A Resolver error is kept as the cause.
	_, err = Compile("dx(zz)", newEnv())
	if e := err.(*Error); e.Err == nil || errors.Unwrap(err) != e.Err {
		t.Errorf("Resolver error not wrapped: %#v", e)
	}
	// A nil Resolver accepts constants only.
	if _, err := Compile("x", nil); err == nil {
		t.Error("Compile(\"x\", nil) succeeded")
	}
	p, err := Compile("2*pi", nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := p.Const(); !ok || v != 2*math.Pi {
		t.Errorf("Const() = %v, %v", v, ok)
	}
}

func TestFoldingAndMetadata(t *testing.T) {
	env := newEnv()
	cases := []struct {
		src     string
		str     string
		isConst bool
		slots   []int
		meas    bool
	}{
		{"2*3 + sin(0)", "6", true, nil, false},
		{"if(1 < 2, x, y)", "x", false, []int{sX}, false},
		{"tbl(0.5) + 1", "6", true, nil, false},
		{"-k*(x-0.1) - c*v + step(time,0,0,1,5)", "-k*(x - 0.1) - c*v + step(time, 0, 0, 1, 5)", false,
			[]int{sX, sTime, sK, sC, sV}, false},
		{"2*pi*time", "6.283185307179586*time", false, []int{sTime}, false},
		{"dx(arm.tip) + 1", "dx(arm.tip) + 1", false, nil, true},
		{"pow(x, 2)", "x^2", false, []int{sX}, false},
		{"x - (y - z)", "x - (y - z)", false, []int{sX, sY, sZ}, false},
		{"(x - y) - z", "x - y - z", false, []int{sX, sY, sZ}, false},
		{"-(x*y)", "-(x*y)", false, []int{sX, sY}, false},
		{"--x + !!y", "--x + !!y", false, []int{sX, sY}, false},
		{"(-x)^2 + -x^2 + x^y^z + (x^y)^z", "(-x)^2 + -x^2 + x^y^z + (x^y)^z", false, []int{sX, sY, sZ}, false},
		{"1/0", "(1/0)", true, nil, false},
		{"-1/0 + x", "(-1/0) + x", false, []int{sX}, false},
		{"x * -2", "x*-2", false, []int{sX}, false},
	}
	for _, tc := range cases {
		p, err := Compile(tc.src, env)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if s := p.String(); s != tc.str {
			t.Errorf("%q: String() = %q, want %q", tc.src, s, tc.str)
		}
		if _, ok := p.Const(); ok != tc.isConst {
			t.Errorf("%q: Const() ok = %v", tc.src, ok)
		}
		if p.UsesMeasures() != tc.meas {
			t.Errorf("%q: UsesMeasures() = %v", tc.src, p.UsesMeasures())
		}
		for s := range nSlots {
			want := false
			for _, w := range tc.slots {
				want = want || w == s
			}
			if p.UsesSlot(s) != want {
				t.Errorf("%q: UsesSlot(%d) = %v", tc.src, s, !want)
			}
		}
		if p.Src() != tc.src {
			t.Errorf("Src() = %q", p.Src())
		}
	}
	c := Constant(-2.5)
	if v, ok := c.Const(); !ok || v != -2.5 || c.Eval(nil, nil) != -2.5 || c.String() != "-2.5" {
		t.Errorf("Constant(-2.5): %v %v %q", v, ok, c.String())
	}
}

// roundTrip checks that p.String() compiles back to a program that prints
// the same and evaluates bit-identically.
func roundTrip(t *testing.T, p *Program, env Resolver, pts [][]float64, meas Measurer) {
	t.Helper()
	s := p.String()
	q, err := Compile(s, env)
	if err != nil {
		t.Errorf("re-parse of %q: %v", s, err)
		return
	}
	if q.String() != s {
		t.Errorf("String not stable: %q -> %q", s, q.String())
	}
	for _, v := range pts {
		a, b := p.Eval(v, meas), q.Eval(v, meas)
		if a != b && !(a != a && b != b) {
			t.Errorf("%q: %v before printing, %v after", s, a, b)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	env := newEnv()
	meas := newMeas()
	pts := samplePoints(20, 1)
	for _, src := range derivExprs {
		p, err := Compile(src, env)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		roundTrip(t, p, env, pts, meas)
		for s := range 3 {
			d := p.Deriv(s)
			roundTrip(t, d, env, pts, meas)
			roundTrip(t, d.Deriv(s), env, pts, meas)
		}
	}
}
