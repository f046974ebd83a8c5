package solver

import "mbfmu/solver/mech"

// conElem is a constraint element compiled into a model.
type conElem struct {
	c      mech.Constraint
	d      []int // c.dofs()
	r0, nr int   // its rows
	jo     int   // offset of its Jacobian in State.jac
	owner  int   // the joint or driver it belongs to
	// storage positions in the linear solver: of each Jacobian entry
	// (row nv+r, column d) and its transpose, and of the nd×nd Hessian
	jpos, jtpos, hpos []int
	rot               []rotCol // its rotation blocks (coords.go)
}

// out returns the element's slices of the State's row arrays.
func (ce *conElem) out(s *State) mech.Rows {
	r0, r1 := ce.r0, ce.r0+ce.nr
	return mech.Rows{Phi: s.phi[r0:r1], Phit: s.phit[r0:r1], Gamma: s.gamma[r0:r1],
		Jac: s.jac[ce.jo : ce.jo+ce.nr*len(ce.d)]}
}
