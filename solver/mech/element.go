package mech

import (
	"math"

	"mbfmu/expr"
)

// Ctx is the evaluation context of one configuration, passed to every
// element: positions Q (nq), velocities V and accelerations A (nv), the
// Lagrange multipliers, the expression variables (time, parameters,
// inputs), the contact state and the measures that expressions read. It
// lives in the engine's State; elements only read it.
type Ctx struct {
	Q, V, A []float64
	Lam     []float64
	// Vars are the expression variables: Vars[SlotTime] is the time, then
	// the parameters and the inputs.
	Vars []float64
	// CS is the discrete state of contacts (open/closed, stick/slip, ...).
	CS []float64
	// CA is ∂q̈/∂q along the current Newton iteration (0 outside it):
	// elements with configuration-dependent inertia add CA·(M(q) − M̄) to
	// their tangent stiffness, M̄ being the part the engine holds.
	CA float64
	// Meas are the measures expressions read by index.
	Meas []Measure
	// Work is scratch space for measures that evaluate constraint
	// elements (joint reactions).
	Work []float64
	// Turns holds, per angle registered with Builder.TurnSlot, its
	// value at the last accepted step: the reference from which the angle
	// counts whole turns (nil outside a run: the reference is 0).
	Turns []float64
	// ES holds the element states (Builder.StateSlots) at the last
	// accepted step (or the initial state).
	ES []float64
	// UW is work space for the user states' local solve.
	UW []float64
	// CW is work space for the elements on joint coordinates whose rows
	// have more dofs than fit their own small arrays (a revolute joint at
	// a node that moves with an FE body's modes); nil when none has.
	CW *CoordWork
}

// CoordWork is work space for elements on joint coordinates with many
// dofs: four vectors and two square matrices over up to N dofs, and the
// row buffers (R, J, L, HX) a coordinate's row is evaluated into (heap
// space, so that the callers' small arrays stay on their stacks).
type CoordWork struct {
	N         int
	Vec       [4][]float64
	H, H2, HX []float64
	J         []float64
	R         [3]float64
	L         [1]float64
}

// NewCoordWork returns work space for coordinates (and unions of two) of
// up to n dofs.
func NewCoordWork(n int) *CoordWork {
	w := &CoordWork{N: n, H: make([]float64, n*n), H2: make([]float64, n*n), HX: make([]float64, n*n), J: make([]float64, n)}
	for k := range w.Vec {
		w.Vec[k] = make([]float64, n)
	}
	return w
}

// Unwrap returns the angle a + 2πk nearest to ref: an angle measured in
// (−π, π] made continuous through ±π by the value ref it had a step
// before.
func Unwrap(a, ref float64) float64 {
	return a + 2*math.Pi*math.Round((ref-a)/(2*math.Pi))
}

// Turn returns the reference of turn slot i (0 when the context has none).
func (x *Ctx) Turn(i int) float64 {
	if i < 0 || i >= len(x.Turns) {
		return 0
	}
	return x.Turns[i]
}

// SlotTime is the index of the time in Ctx.Vars.
const SlotTime = 0

// Measure implements expr.Measurer: the value of measure id at x.
func (x *Ctx) Measure(id int) float64 { return x.Meas[id].Eval(x) }

// Time returns the time of the context.
func (x *Ctx) Time() float64 { return x.Vars[SlotTime] }

// Measure is a measured quantity that expressions read: a marker's
// position or velocity, a joint coordinate, a reaction.
type Measure interface {
	Eval(x *Ctx) float64
}

// Param is an element parameter: a constant, or an expression evaluated at
// every use (time, inputs, tunable parameters, measures).
type Param struct {
	P *expr.Program // nil: the constant C
	C float64
}

// Get returns the parameter's value at x.
func (p *Param) Get(x *Ctx) float64 {
	if p.P == nil {
		return p.C
	}
	return p.P.Eval(x.Vars, x)
}

// Measured reports whether the parameter reads the state through measures
// (dx(m), vx(m), angle(m), ...): its derivatives are then not in the
// element's analytic tangent.
func (p *Param) Measured() bool { return p.P != nil && p.P.UsesMeasures() }

// Force is an applied-force element: springs, dampers, point forces,
// torques, beams' elastic and inertia forces, contacts. It works on a
// fixed list of velocity coordinates (Dofs, -1 for none) and computes, in
// local arrays of that size, the generalized applied force Q and — when k
// is not nil — the tangent stiffness K = −∂Q/∂q (along the increments of
// the velocity coordinates) and damping C = −∂Q/∂v (row-major). Elements
// are immutable; everything mutable lives in the engine's State.
type Force interface {
	Dofs() []int
	Eval(x *Ctx, f, k, c []float64)
	// Potential returns the potential energy stored in the element.
	Potential(x *Ctx) float64
}

// HessPatterner is implemented by a constraint element whose Hessian has
// nonzero entries only in a fixed pattern: HessPattern returns it, row-major
// over the element's dofs × dofs (true where Hess may write; nil for no
// pattern), and the assembly visits only those entries.
type HessPatterner interface {
	HessPattern() []bool
}

// Rows receives a constraint element's evaluation: one value per row of
// Φ, ∂Φ/∂t and γ, and the Jacobian J = ∂Φ/∂q (rows × dofs, row-major).
type Rows struct {
	Phi, Phit, Gamma []float64
	Jac              []float64
}

// Constraint is a constraint element: Rows() scalar equations Φ(q, t) = 0
// on a fixed list of velocity coordinates (Dofs, -1 for none). The
// coordinates of the body of marker i come first, then those of marker
// j's body (the engine reports reactions by halves). Eval writes Φ, ∂Φ/∂t,
// the Jacobian J = ∂Φ/∂q (the derivative along increments of the velocity
// coordinates) and, when vel is set, γ: along any motion Φ̈ = J q̈ − γ, so
// the accelerations satisfy J q̈ = γ. Hess adds Σᵣ lamᵣ ∂(Jᵣᵀ)/∂q — the
// tangent of the constraint forces Jᵀλ — into h (dofs × dofs, row-major).
type Constraint interface {
	Dofs() []int
	Rows() int
	Eval(x *Ctx, out Rows, vel bool)
	Hess(x *Ctx, lam []float64, h []float64)
}

// Stateful is implemented by a force element with continuous state
// variables of its own (a motor's current). The engine keeps them in the
// state (Ctx.ES, saved and restored with it) at the last accepted step;
// within a step the element integrates them itself from those values to
// the evaluation time (an L-stable exponential or implicit local update),
// so that its force is a function of the configuration at that time and
// its tangent includes the states' dependence on it: the states are
// condensed into the element, as a finite element condenses its internal
// variables, and every integrator takes them as they are. Commit stores
// the states at the end of an accepted step (init: at the initial state;
// steady: at rest in a static equilibrium).
//
// States lists the continuous states (their slots in Ctx.ES, names and
// units) and Rates writes their time derivatives at x, the states as
// stored in x.ES: the linearisation takes them into its state vector.
type Stateful interface {
	Commit(x *Ctx, mode CommitMode)
	States() []StateInfo
	Rates(x *Ctx, dst []float64)
}

// StateInfo describes a continuous state of an element.
type StateInfo struct {
	Slot       int // in Ctx.ES
	Name, Unit string
}

// CommitMode says where Stateful.Commit is called.
type CommitMode uint8

// The commit modes.
const (
	CommitInit   CommitMode = iota // the initial state: the states take their initial values
	CommitStep                     // the end of an accepted step
	CommitSteady                   // a static equilibrium: the states at their steady values
)

// The slots of a discrete-state group in Ctx.CS (Builder.DiscreteSlot):
// a contact's normal state and Hunt–Crossley damping, and the friction
// mode of every element with exact Coulomb friction.
const (
	CSClosed = iota // 1 when the normal force is on (at the last decision); always 1 for a joint's friction
	CSMode          // friction: 0 stick, ±1 slip in that direction
	CSAlpha         // Hunt–Crossley damping α (s/m) set at the last impact (contacts); the model's step in an isotropic set's lead (its slip blend)
	CSStick         // the friction force while sticking (a Lagrange multiplier)
	CSStride
)

// Coulomb is implemented by a force element with exact Coulomb friction
// on one slip velocity vt = W(q)·v (a planar contact's tangent, a joint
// coordinate's rate). The engine decides stick and slip at events
// (seed 003's complementarity problem, solver/stickslip.go) and keeps the
// mode and the stick force in the element's discrete-state group
// CS[CoulombIndex()*CSStride:] (CSMode, CSStick; CSClosed says whether
// friction acts at all). The element's Eval applies F·W with F the stick
// force CS[CSStick] in stick and SlipForce(x, vt, mode) in slip.
type Coulomb interface {
	Force
	// CoulombIndex returns the element's discrete-state group.
	CoulombIndex() int
	// CoulombName names the element in errors.
	CoulombName() string
	// Slip writes W into w (len(Dofs())) and returns vt = W·v and γ,
	// with v̇t = W·v̇ + γ.
	Slip(x *Ctx, w []float64) (vt, gamma float64)
	// SlipTangent writes cv·W + ∂(W·v)/∂q into g (len(Dofs())): the
	// derivative of vt along an implicit scheme whose velocities change
	// by cv times the positions.
	SlipTangent(x *Ctx, cv float64, g []float64)
	// Static returns the largest friction force that stick holds at x
	// (≥ 0: μ0 F_N, a joint's static level).
	Static(x *Ctx) float64
	// SlipForce returns the friction force along W while slipping in
	// direction dir (±1) at slip velocity vt (opposing dir).
	SlipForce(x *Ctx, vt, dir float64) float64
}

// CoulombRows is implemented by a force element whose exact Coulomb
// friction is not the element itself but rows it owns (a spatial contact:
// two rows along the tangent plane; a ball joint: three about the axes):
// the engine decides them as it does Coulomb elements.
type CoulombRows interface {
	CoulombRows() []Coulomb
}

// CoulombSet is implemented by a row of isotropic Coulomb friction in a
// plane or in space: two or three rows (consecutive groups) whose
// friction force is one vector within the cone |F| ≤ Static, slipping
// against the slip velocity's direction. Set returns the first group and
// the number of rows; the first row leads (its Closed and Mode hold the
// set's state, copied to the others). The engine takes γ and
// SlipTangent's ∂vt/∂q by differences along the motion.
type CoulombSet interface {
	Set() (lead, n int)
	// Kinetic returns the slip level (μ F_N, a joint's level) at x.
	Kinetic(x *Ctx) float64
	// SlipBlend returns the slip speed below which the friction holds
	// the slip direction kept in the stick slots rather than follow the
	// slip velocity (the speed friction changes in a step).
	SlipBlend(x *Ctx) float64
	// Touch returns the normal event value: > 0 while touching with a
	// pushing force law (closed) or apart (open), its sign changing at a
	// transition; and whether it touches now (a joint: always).
	Touch(x *Ctx, closed bool) (g float64, touching bool)
	// Joint reports whether the set is a joint's friction (always closed)
	// rather than a contact's.
	Joint() bool
}

// MaxCoulombSet is the most rows of an isotropic Coulomb set.
const MaxCoulombSet = 3

// Coupling is implemented by a one-row constraint element that couples two
// joint coordinates, Φ = a_i (q_i − q_i0) + a_j (q_j − q_j0) (a gear, a
// belt, a rack, a screw): Coefficients returns a_i, a_j and the
// coordinates' units ("rad" or "m"); the effort it applies to coordinate k
// is −a_k λ.
type Coupling interface {
	Coefficients() (a [2]float64, units [2]string)
}

// ChannelInfo describes a result channel.
type ChannelInfo struct {
	Name, Unit, Group, Description string
}

// Stiff is implemented by contact elements: their normal force law's
// stiffness k and exponent e (F = k δ^e) at x, and the bodies they press
// apart (-1: ground), from which the engine tells whether a step resolves
// an impact (Model.StepWarnings).
type Stiff interface {
	Stiffness(x *Ctx) (name string, k, exp float64, bodyA, bodyB int)
}

// ParamLister is implemented by elements with run-time parameters.
type ParamLister interface{ Params() []*Param }

// Channeler is implemented by elements with result channels of their own:
// Channels lists them for an element named name, Channel evaluates
// channel sub at x.
type Channeler interface {
	Channels(name string) []ChannelInfo
	Channel(x *Ctx, sub int) float64
}

// CoordNamer is implemented by elements that own coordinates: it writes
// the names of its velocity coordinates into dst (indexed by coordinate).
type CoordNamer interface{ CoordNames(dst []string) }

// KineticCorrector is implemented by elements whose mass matrix depends on
// the configuration: it returns ½ vᵀ (M(q) − M̄) v.
type KineticCorrector interface {
	KineticCorrection(x *Ctx) float64
}

// MassCorrector is implemented by force elements whose inertia depends on
// the configuration (the KineticCorrectors): MassCorrection writes
// M(q) − M̄ over the element's Dofs (row-major) into dm, M̄ the part the
// engine holds. The engine adds it where it solves for accelerations
// directly ([M Φqᵀ; Φq 0]: initial accelerations, output derivatives,
// restarts), whose matrix is otherwise M̄ alone.
type MassCorrector interface {
	MassCorrection(x *Ctx, dm []float64)
}

// Drawer is implemented by elements that draw themselves in the model's
// geometry (beams, contacts).
type Drawer interface {
	Draw(g *Geometry)
}

// NumericTangent is implemented by force elements whose tangent K, C the
// engine takes by finite differences (their Eval leaves k and c alone).
type NumericTangent interface{ NumericTangent() bool }

// FiniteDifferenceTangent reports whether the engine must take f's
// tangent by finite differences: it asks for it, or one of its run-time
// parameters reads measures (whose derivatives the analytic tangent lacks).
func FiniteDifferenceTangent(f any) bool {
	if n, ok := f.(NumericTangent); ok && n.NumericTangent() {
		return true
	}
	return ReadsMeasures(f)
}

// ReadsMeasures reports whether any run-time parameter of f reads
// measures.
func ReadsMeasures(f any) bool {
	pl, ok := f.(ParamLister)
	if !ok {
		return false
	}
	for _, p := range pl.Params() {
		if p.Measured() {
			return true
		}
	}
	return false
}

// Reduction describes how a flexible body's finite-element model was
// reduced: its frequencies before and after, so that a user sees what the
// basis keeps.
type Reduction struct {
	Body   string    // the element's name
	Source string    // where the FE model comes from (fe-abaqus, beam, ...)
	Basis  string    // modal, krylov, craig-bampton
	Dofs   int       // free coordinates of the FE model
	Rigid  int       // rigid-body modes left to the floating frame
	Full   []float64 // the FE model's lowest elastic frequencies (Hz)
	Kept   []float64 // the reduced model's frequencies (Hz)
}

// Reducer is implemented by flexible bodies whose FE model is reduced.
type Reducer interface {
	Reduction() Reduction
}
