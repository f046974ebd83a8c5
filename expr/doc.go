// Package expr implements the expression language of mbfmu model files:
// driver functions, force values and measures such as
//
//	step(time, 0, 0, 1, 2*pi)
//	-k*(dx(arm.tip)-0.1) - c*vx(arm.tip)
//	if(time < 1, 0, 50*sin(2*pi*time))
//	F_in
//	tbl(time)
//
// An expression is compiled once (Compile) into an immutable Program and then
// evaluated many times (Program.Eval) without allocating; one Program may be
// shared by many simulation instances on different goroutines. Compile folds
// every sub-expression whose operands are constants. Program.Deriv gives the
// exact symbolic derivative with respect to one variable.
//
// Folding never reorders arithmetic (that would change rounding): 2*pi*time
// folds to 6.283185307179586*time, but time*2*pi is evaluated as written.
//
// # Syntax
//
// Numbers: 1, 1.5, 1e-3, .5, 2.5E+3. Spaces, tabs and line breaks between
// tokens are ignored.
//
// Names: a letter or _ followed by letters, digits and _, with single dots
// inside (arm.len, body1.cm.x). Names are case-sensitive. The host resolves
// them through its Resolver: a bare name is a variable (Resolver.Var); a
// call name(a, b, ...) whose arguments are all bare names is first offered to
// Resolver.Measure (e.g. dx(arm.tip), dist(a.p, b.q)); otherwise a call is a
// built-in function or, failing that, an interpolation table of one argument
// (Resolver.Table). time (or t) is not built in: the host provides it as a
// variable.
//
// Reserved constants: pi and e. They always mean the constants; the Resolver
// is never asked about them (a model cannot have a variable called e).
//
// Operators, from lowest to highest precedence:
//
//	||                  logical or
//	&&                  logical and
//	== !=               equality
//	< <= > >=           comparison
//	+ -                 addition, subtraction
//	* /                 multiplication, division
//	- + !               unary minus, plus, logical not
//	^ (also **)         power, right associative
//
// Binary operators other than ^ are left associative. ^ binds tighter than a
// unary minus on its left, so -2^2 = -4, and its right operand may carry a
// sign: 2^-1 = 0.5, 2^3^2 = 2^9. Comparisons and logical operators give 1
// (true) or 0 (false); any non-zero operand (NaN included) is true. Division
// by zero follows IEEE 754 (±Inf, NaN).
//
// # Built-in functions
//
// Built-in names are lower case; they take precedence over tables of the
// same name (a variable may share a built-in's name, as it is never called).
//
//	sin cos tan asin acos atan sinh cosh tanh   (radians)
//	exp log log10 sqrt abs floor ceil
//	atan2(y, x)      angle of (x, y) in (-pi, pi]
//	hypot(a, b)      sqrt(a^2 + b^2) without overflow
//	pow(a, b)        a^b
//	mod(a, b)        a - b*trunc(a/b): the sign of a (Fortran/Adams MOD)
//	sign(x)          -1, 0 or 1
//	sign(a, b)       |a| if b >= 0, else -|a| (Fortran/Adams SIGN)
//	min(a, b, ...)   smallest of 2 or more arguments
//	max(a, b, ...)   largest of 2 or more arguments
//	if(c, a, b)      a if c != 0, else b (only the chosen branch is evaluated)
//
// Smooth step functions (as in Adams and RecurDyn), with d = (x-x0)/(x1-x0);
// each is h0 for x <= x0 and h1 for x >= x1, and for x0 < x < x1:
//
//	step(x, x0, h0, x1, h1)    h0 + (h1-h0) d^2 (3 - 2d)              cubic, C1
//	step5(x, x0, h0, x1, h1)   h0 + (h1-h0) d^3 (10 - 15d + 6d^2)     quintic, C2
//	havsin(x, x0, h0, x1, h1)  h0 + (h1-h0) (1 - cos(pi d))/2         haversine, C1
//	shf(x, x0, a, w, phi, b)   a sin(w (x-x0) - phi) + b              simple harmonic
//
// x0 must be less than x1; this is checked at compile time when both are
// constants.
//
// # Derivative notation
//
// A call may be primed to mean the derivative with respect to its first
// argument, for tables and for step, step5 and havsin:
//
//	tbl'(x)                        d tbl/dx
//	tbl''(x)                       second derivative
//	step'(x, x0, h0, x1, h1)       d step/dx (likewise step5', havsin')
//
// Program.Deriv produces this notation so that derivatives print and
// re-parse; users may write it too.
//
// # Tables
//
// A Table (NewTable) interpolates y(x) linearly, by a natural cubic spline or
// by Akima's method, and holds its end values outside its range (derivative
// 0 there).
package expr
