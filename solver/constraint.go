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
	// the entries that reach the model's coordinates (a coordinate of the
	// ground or of a fixed body is -1 in d), in storage order: the local
	// columns a with d[a] ≥ 0, and the Jacobian and Hessian entries whose
	// row and column are such columns
	live, jlive, hlive []int
}

// setLive fills ce.live, ce.jlive and ce.hlive from ce.d (hlive within
// the element's Hessian pattern when it declares one).
func (ce *conElem) setLive() {
	nd := len(ce.d)
	ce.live = ce.live[:0]
	for a, i := range ce.d {
		if i >= 0 {
			ce.live = append(ce.live, a)
		}
	}
	ce.jlive, ce.hlive = ce.jlive[:0], ce.hlive[:0]
	for r := 0; r < ce.nr; r++ {
		for _, a := range ce.live {
			ce.jlive = append(ce.jlive, r*nd+a)
		}
	}
	var pat []bool
	if hp, ok := ce.c.(mech.HessPatterner); ok {
		pat = hp.HessPattern()
	}
	for _, a := range ce.live {
		for _, b := range ce.live {
			if pat == nil || pat[a*nd+b] {
				ce.hlive = append(ce.hlive, a*nd+b)
			}
		}
	}
}

// out returns the element's slices of the State's row arrays.
func (ce *conElem) out(s *State) mech.Rows {
	r0, r1 := ce.r0, ce.r0+ce.nr
	return mech.Rows{Phi: s.phi[r0:r1], Phit: s.phit[r0:r1], Gamma: s.gamma[r0:r1],
		Jac: s.jac[ce.jo : ce.jo+ce.nr*len(ce.d)]}
}
