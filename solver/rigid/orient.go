package rigid

import (
	"math"
	"strconv"
	"strings"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// orientation evaluates an orientation given in any of the forms of
// spec.Orientation to a rotation matrix (frame → parent), reporting the
// problems a user can make: several forms at once, a quaternion that is
// not of unit length, a zero axis, parallel axis directions, an unknown
// angle sequence. what names the element for messages.
func orientation(b mech.Builder, o *spec.Orientation, what string) mech.Mat3 {
	R := mech.Ident
	if !o.Given() {
		return R
	}
	pos := o.Pos
	posOf := func(es ...spec.Expr) spec.Pos {
		for _, e := range es {
			if e.Given() && e.Pos != (spec.Pos{}) {
				return e.Pos
			}
		}
		return pos
	}
	forms := 0
	q4 := o.Quaternion
	hasQ := q4[0].Given() || q4[1].Given() || q4[2].Given() || q4[3].Given()
	hasAA := o.Axis.Given()
	hasSeq := o.Angles.Given()
	hasAxes := o.XAxis.Given() || o.YAxis.Given() || o.ZAxis.Given()
	for _, h := range []bool{hasQ, hasAA, hasSeq, hasAxes} {
		if h {
			forms++
		}
	}
	if forms > 1 {
		b.Errorf(pos, "orientation", "%s: give one orientation (quaternion, axis and angle, angles and sequence, or two axes), not %d", what, forms)
		return R
	}
	vec := func(v spec.Vec) mech.Vec3 {
		return mech.Vec3{b.Const(v[0], 0), b.Const(v[1], 0), b.Const(v[2], 0)}
	}
	switch {
	case hasQ:
		q := mech.Quat{b.Const(q4[0], 0), b.Const(q4[1], 0), b.Const(q4[2], 0), b.Const(q4[3], 0)}
		n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
		if math.Abs(n-1) > 1e-6 {
			b.Errorf(posOf(q4[:]...), "quaternion", "%s: the quaternion (%g, %g, %g, %g) has length %.9g, not 1", what, q[0], q[1], q[2], q[3], n)
			return R
		}
		return mech.QuatMat(mech.QuatNormalize(q))
	case hasAA:
		ax := vec(o.Axis)
		n := mech.Norm(ax)
		if !(n > 0) {
			b.Errorf(posOf(o.Axis[:]...), "axis", "%s: the rotation axis is zero", what)
			return R
		}
		if !o.Angle.Given() {
			b.Errorf(posOf(o.Axis[:]...), "angle", "%s: an axis needs an angle", what)
			return R
		}
		a := b.Const(o.Angle, 0)
		return mech.QuatMat(mech.QuatExp(mech.Scale(a/n, ax)))
	case o.Angle.Given():
		b.Errorf(posOf(o.Angle), "angle", "%s: in a spatial model an angle needs an axis (axis=\"x, y, z\")", what)
		return R
	case hasSeq:
		seq := strings.ToLower(strings.TrimSpace(o.Sequence))
		ok := len(seq) == 3
		for i := 0; ok && i < 3; i++ {
			ok = seq[i] >= 'x' && seq[i] <= 'z' && (i == 0 || seq[i] != seq[i-1])
		}
		if !ok {
			b.Errorf(posOf(o.Angles[:]...), "sequence", "%s: sequence %q must name three axes of rotation, no two successive ones equal (xyz, zyx, zxz, ...)", what, o.Sequence)
			return R
		}
		return mech.QuatMat(mech.SequenceQuat(seq, vec(o.Angles)))
	}
	// two axes
	type ax struct {
		k int
		v spec.Vec
	}
	var given []ax
	for k, v := range []spec.Vec{o.XAxis, o.YAxis, o.ZAxis} {
		if v.Given() {
			given = append(given, ax{k, v})
		}
	}
	if len(given) != 2 {
		b.Errorf(pos, "orientation", "%s: give exactly two of x-axis, y-axis, z-axis, got %d", what, len(given))
		return R
	}
	// the kept one: z over x over y
	keep, other := given[0], given[1]
	if other.k == 2 || (other.k == 0 && keep.k == 1) {
		keep, other = other, keep
	}
	u, w := vec(keep.v), vec(other.v)
	nu, nw := mech.Norm(u), mech.Norm(w)
	name := func(k int) string { return string(rune('x'+k)) + "-axis" }
	if !(nu > 0) {
		b.Errorf(posOf(keep.v[:]...), name(keep.k), "%s: the %s is zero", what, name(keep.k))
		return R
	}
	if !(nw > 0) {
		b.Errorf(posOf(other.v[:]...), name(other.k), "%s: the %s is zero", what, name(other.k))
		return R
	}
	R, ok := mech.AxesMat(keep.k, u, other.k, w)
	if !ok {
		b.Errorf(posOf(other.v[:]...), name(other.k), "%s: the %s is parallel to the %s", what, name(other.k), name(keep.k))
		return mech.Ident
	}
	return R
}

// vec3 evaluates a vector attribute (missing components are 0).
func vec3(b mech.Builder, v spec.Vec) mech.Vec3 {
	return mech.Vec3{b.Const(v[0], 0), b.Const(v[1], 0), b.Const(v[2], 0)}
}

// MaxSpeed bounds a body's initial speed (m/s) and angular speed (rad/s):
// the engine multiplies velocities by themselves and by a mass, inertia or
// length (½ m v², ω × J ω, ω × (ω × s)), a product of three numbers that
// overflows double precision beyond about 1e100 each.
const MaxSpeed = 1e100

// checkSpeed refuses an initial velocity component beyond ±MaxSpeed at the
// attribute it comes from (it passed check and then failed assembly with
// "entry (3,6) is NaN", naming nothing).
func checkSpeed(b mech.Builder, body string, e spec.Expr, v float64) {
	if math.Abs(v) > MaxSpeed {
		what := strconv.FormatFloat(v, 'g', -1, 64)
		if e.Src != "" && e.Src != what {
			what = e.Src + " = " + what
		}
		b.Errorf(e.Pos, e.Field, "body %q: %s is beyond ±%g: the engine multiplies velocities by themselves and by masses and lengths (½ m v², ω × J ω), and such a product overflows double precision", body, what, MaxSpeed)
	}
}
