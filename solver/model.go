package solver

import (
	"math"

	"mbfmu/expr"
	"mbfmu/linalg"
	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// Model is a compiled, immutable model: bodies, constraint rows, force
// elements, index maps and the linear-solver plan. It is safe to share
// between goroutines; every mutable quantity lives in a State.
type Model struct {
	name     string
	spec     *spec.Model
	settings Settings
	integ    integrator
	index2   bool // stabilized index-2 formulation with position projection
	// turnCoords are the angles that count whole turns (mech.Builder's
	// TurnSlot), their references in State.turns
	turnCoords []mech.Coordinate
	// stateful are the elements with states of their own, nes the
	// number of their slots in State.es (mech.Builder's StateSlots)
	stateful []mech.Stateful
	nes      int
	// ncs is the number of discrete-state groups (mech.Builder's
	// DiscreteSlot): mech.CSStride slots each in State.cs
	ncs   int
	uwork int // the user states' work space (Ctx.UW)

	// Coordinates: nq positions q, nv velocities v (and accelerations,
	// Newton increments). A planar body or a beam's nodal coordinates are
	// linear: their velocity is the derivative of their positions and an
	// increment is added. A spatial body stores a unit quaternion (four
	// positions) and has three rotational velocities (body frame): its
	// increment is a rotation vector applied as q ⊗ exp(Δθ/2). Every
	// place that moves positions by an increment goes through addTo
	// (coords.go).
	nq, nv, nc int
	qOf        []int      // per velocity coordinate: its position coordinate (linear), or -1 (rotation)
	rots       []rotBlock // rotation blocks of spatial bodies

	dim     int // 2 planar, 3 spatial
	bodies  []mech.BodyInfo
	markers map[string]mech.Marker // "body.marker", "body", "ground.marker"
	mdiag   []float64              // diagonal mass, per velocity coordinate
	mblocks []massBlock            // dense mass blocks (flexible elements, spatial inertia tensors)
	rotSym  []int8                 // each rotation's symmetry of inertia (rotInertia: symNone, an axis, symIso)
	gq      []float64              // constant generalized gravity forces (velocity space)
	lq      []float64              // per velocity coordinate: the length that makes it a displacement (mech.Builder.SetLength)

	cons   []conElem        // constraint elements, their rows in order
	rowCon []int32          // per row: its constraint element
	joints []mech.JointInfo // joints and drivers
	// what reads the inputs (restart.go): the forces, and whether anything
	// else does (drivers, constraints)
	uForces []int
	uOther  bool
	jrows   []rowRange // their rows
	forces  []mech.Force
	fnames  []string

	vars     int // time + params + inputs
	params   []ParamInfo
	inputs   []VarInfo
	outputs  []VarInfo
	outChan  []int // channel index of each declared output
	channels []channel
	chanIdx  map[string]int     // channel index by name
	elems    map[string]elemRef // the model file's elements by name (where)
	measures []measure
	meas     []mech.Measure // the measures as expressions see them (&measures[i])

	q0, v0 []float64 // approximate initial positions (nq) and velocities (nv)

	plan *linalg.Plan // augmented system (nv + nc)
	// the constraint rows in the order of their Gram factorisation and
	// its half bandwidth (rank.go)
	gord  []int
	gband int
	// factorIters is the cost of a factorisation in Newton iterations
	// (residual and solve), estimated from the plan and the elements: the
	// Jacobian is refreshed when old factors would cost more.
	factorIters float64
	// readsLam is set when a force element's run-time parameters read
	// a joint's reaction (a friction level from its joint's reaction) or
	// a user variable (which may): the acceleration solve then iterates
	// until the forces and the multipliers they read agree
	readsLam bool
	// storage positions in the linear solver (linalg.Plan.Pos), looked up
	// once: of the diagonal mass, of each mass block and of each force's
	// local n×n matrix (-1 where a side is ground)
	mpos   []int
	blkPos [][]int
	fpos   [][]int
	mcorr  []int      // the forces with configuration-dependent inertia (mech.MassCorrector)
	adapt  *adaptive  // seed 004's adaptive modal selection (modalselect.go); nil: none
	flive  [][]int    // the entries of fpos that are storage positions (≥ 0), row by row
	rdiag  []int      // of each row's diagonal entry (nv+r, nv+r): a redundant row's λ = 0
	fdTan  []bool     // force elements whose tangent is taken by finite differences (readsMeasures)
	frot   [][]rotCol // each force element's rotation blocks (coords.go)
	// the assembled constant mass matrix (mdiag + mblocks) in compressed
	// rows, for M·x
	mPtr []int32
	mCol []int32
	mVal []float64
	// its diagonal when it is diagonal (nil otherwise)
	mDiag []float64
	// its rows in runs of vector components (groupMass)
	mGrp []massGroup
	gCol []int32
	gVal []float64

	contacts *contactSet // planar contact pairs with events (stickslip.go); nil when none

	// srcs maps every run-time expression to the attribute it was
	// compiled from (file:line, field, text), for the diagnosis of
	// non-finite values (diagnose.go)
	srcs map[*expr.Program]spec.Expr
}

// rowRange is the rows of a joint: r0 … r0+nr−1.
type rowRange struct{ r0, nr int }

type massBlock struct {
	dofs []int
	m    []float64 // len(dofs)² row-major
}

// Name returns the model name.
func (m *Model) Name() string { return m.name }

// spec.Model returns the specification the model was compiled from.
func (m *Model) Spec() *spec.Model { return m.spec }

// Settings returns the resolved settings.
func (m *Model) Settings() Settings { return m.settings }

// ParamInfo lists the parameters in declaration order.
func (m *Model) ParamInfo() []ParamInfo { return m.params }

// InputInfo lists the inputs in declaration order.
func (m *Model) InputInfo() []VarInfo { return m.inputs }

// OutputInfo lists the declared outputs in declaration order.
func (m *Model) OutputInfo() []VarInfo { return m.outputs }

// NumCoords returns the number of position coordinates.
func (m *Model) NumCoords() int { return m.nq }

// NumVelocities returns the number of velocity coordinates (the tangent
// space: equal to NumCoords for planar models, six per spatial body).
func (m *Model) NumVelocities() int { return m.nv }

// NumConstraints returns the number of constraint equations.
func (m *Model) NumConstraints() int { return m.nc }

// SolverKind reports the linear solver chosen for the model ("dense" or "band").
func (m *Model) SolverKind() string { return m.plan.Kind() }

// Bandwidth returns the sub- and superdiagonals of the band solver's
// ordering of the Newton matrix (0, 0 for the dense solver).
func (m *Model) Bandwidth() (kl, ku int) { return m.plan.Bandwidth() }

// CoordNames names each velocity coordinate (the tangent space the
// linearisation and the mode shapes are written in): "body.cm.x",
// "body.cm.y", "body.angle" for a planar body; "body.cm.x", ".cm.y",
// ".cm.z" and the rotations about the body axes "body.rx", ".ry", ".rz"
// for a spatial one; beams' nodal coordinates.
func (m *Model) CoordNames() []string {
	n := make([]string, m.nv)
	for _, b := range m.bodies {
		if b.Spatial {
			for k, c := range []string{".cm.x", ".cm.y", ".cm.z", ".rx", ".ry", ".rz"} {
				n[b.V+k] = b.Name + c
			}
			continue
		}
		n[b.V], n[b.V+1], n[b.V+2] = b.Name+".cm.x", b.Name+".cm.y", b.Name+".angle"
	}
	for _, f := range m.forces {
		if cn, ok := f.(mech.CoordNamer); ok {
			cn.CoordNames(n)
		}
	}
	return n
}

// massMul computes dst = M x (dst and x: velocity space, nv entries).
func (m *Model) massMul(dst, x []float64) {
	dst = dst[:m.nv]
	if d := m.mDiag; d != nil {
		x, d := x[:len(dst)], d[:len(dst)]
		for i := range dst {
			dst[i] = 0 + d[i]*x[i] // (the sum below: −0 stays +0)
		}
		return
	}
	col, val := m.gCol, m.gVal
	for _, gr := range m.mGrp {
		// (the row's slices bound the loop: one check per entry, on x;
		// each row sums in the order of its columns, as row by row)
		cols, vals := col[gr.k0:gr.k1], val[gr.k0:gr.k1]
		vals = vals[:len(cols)]
		switch r := gr.row; gr.g {
		case 3:
			var s0, s1, s2 float64
			for k, c := range cols {
				v, xs := vals[k], x[c:c+3:c+3]
				s0 += v * xs[0]
				s1 += v * xs[1]
				s2 += v * xs[2]
			}
			d := dst[r : r+3 : r+3]
			d[0], d[1], d[2] = s0, s1, s2
		case 2:
			var s0, s1 float64
			for k, c := range cols {
				v, xs := vals[k], x[c:c+2:c+2]
				s0 += v * xs[0]
				s1 += v * xs[1]
			}
			d := dst[r : r+2 : r+2]
			d[0], d[1] = s0, s1
		default:
			s := 0.0
			for k, c := range cols {
				s += vals[k] * x[c]
			}
			dst[r] = s
		}
	}
}

// kinetic returns ½ vᵀ M v.
func (m *Model) kinetic(v []float64, tmp []float64) float64 {
	m.massMul(tmp, v)
	e := 0.0
	for i := range v {
		e += v[i] * tmp[i]
	}
	return 0.5 * e
}

// gravityPotential returns −Σ gqᵢ·q[qOf(i)] (gq constant, in velocity
// space; gravity acts on linear coordinates only, which qOf maps to their
// positions: with several spatial bodies the two spaces differ).
func (m *Model) gravityPotential(q []float64) float64 {
	e := 0.0
	for i, g := range m.gq {
		if qi := m.qOf[i]; qi >= 0 {
			e -= g * q[qi]
		}
	}
	return e
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

const slotTime = mech.SlotTime
