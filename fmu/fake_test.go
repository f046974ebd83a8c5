package fmu

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// oscModel is a closed-form test engine: a mass on a spring driven by an
// input force, m x” = u − k x, integrated exactly over equal sub-steps of
// at most step seconds. Parameters: k (tunable), m (fixed). Input: u.
// Outputs: x, v.
type oscModel struct {
	mi     modelInfo
	k, m   float64
	failAt float64 // a sub-step ending after failAt fails (0: never)
	nanAt  float64 // outputs are NaN after nanAt (0: never)
}

type oscState struct {
	t, x, v, u, k float64
	steps         int64
}

func newOsc(k, m float64) *oscModel {
	o := &oscModel{k: k, m: m}
	o.mi = modelInfo{
		name: "oscillator", desc: "mass on a spring",
		params: []paramInfo{
			{name: "k", unit: "N/m", desc: "stiffness", value: k, tunable: true},
			{name: "m", unit: "kg", desc: "mass", value: m},
		},
		inputs:  []varInfo{{name: "u", unit: "N", desc: "force", start: 0}},
		outputs: []varInfo{{name: "x", unit: "m", desc: "position"}, {name: "v", unit: "m/s", desc: "velocity"}},
		qs:      []stateVar{{name: "mass.x", unit: "m", desc: "state: position", deriv: 0, rotQ: -1, rotV: -1}},
		vs:      []stateVar{{name: "der(mass.x)", unit: "m/s", desc: "state: velocity", deriv: -1, rotQ: -1, rotV: -1}},
		start:   0, stop: 10, step: 1e-2, integratorStep: 1e-3, integrator: "exact",
	}
	return o
}

const oscX0 = 0.1 // initial position

func (o *oscModel) info() *modelInfo { return &o.mi }

func (o *oscModel) newState() engineState {
	return &oscState{k: o.k}
}

func (o *oscModel) init(s engineState) error {
	st := s.(*oscState)
	st.t, st.x, st.v = o.mi.start, oscX0, 0
	return nil
}

// exact advances (x, v) by dt under constant u.
func exact(x, v, u, k, m, dt float64) (float64, float64) {
	w := math.Sqrt(k / m)
	xe := u / k
	y := x - xe
	c, s := math.Cos(w*dt), math.Sin(w*dt)
	return xe + y*c + v/w*s, -y*w*s + v*c
}

func (o *oscModel) advanceTo(s engineState, t float64) error {
	st := s.(*oscState)
	n := math.Ceil((t-st.t)/o.mi.integratorStep - 1e-9)
	if n < 1 {
		n = 1
	}
	h := (t - st.t) / n
	t0 := st.t
	for i := 1; i <= int(n); i++ {
		end := t0 + float64(i)*h
		if i == int(n) {
			end = t
		}
		if o.failAt > 0 && end > o.failAt {
			return &stepFailure{at: st.t, last: st.t, msg: "Newton iteration did not converge"}
		}
		dt := end - st.t
		st.x, st.v = exact(st.x, st.v, st.u, st.k, o.m, dt)
		st.t = end
		st.steps++
	}
	return nil
}

func (o *oscModel) evalOutputs(s engineState, dst []float64) {
	st := s.(*oscState)
	dst[0], dst[1] = st.x, st.v
	if o.nanAt > 0 && st.t > o.nanAt {
		dst[1] = math.NaN()
	}
}

func (s *oscState) time() float64             { return s.t }
func (s *oscState) anchorGrid()               {}
func (s *oscState) setInput(i int, v float64) { s.u = v }
func (s *oscState) setInputDerivative(i, order int, v float64) error {
	if v != 0 {
		return errors.New("the oscillator holds its input")
	}
	return nil
}

func (o *oscModel) outputDerivatives(s engineState, dst []float64) error {
	st := s.(*oscState)
	dst[0], dst[1] = st.v, (st.u-st.k*st.x)/o.m
	return nil
}

// stateDerivatives: ẋ = v, v̇ = (u − k x)/m.
func (o *oscModel) stateDerivatives(s engineState, dq, dv []float64) error {
	st := s.(*oscState)
	dq[0], dv[0] = st.v, (st.u-st.k*st.x)/o.m
	return nil
}

// directional: the exact Jacobian of (ẋ, v̇, x, v) with respect to (x, v, u).
func (o *oscModel) directional(s engineState, dq, dv, du, jq, jv, jy []float64) error {
	st := s.(*oscState)
	jq[0] = dv[0]
	u := 0.0
	if du != nil {
		u = du[0]
	}
	if jv != nil {
		jv[0] = (u - st.k*dq[0]) / o.m
	}
	if jy != nil {
		jy[0], jy[1] = dq[0], dv[0]
	}
	return nil
}

func (s *oscState) states(q, v []float64) { q[0], v[0] = s.x, s.v }

func (s *oscState) setParam(i int, v float64) error {
	if i != 0 {
		return errors.New("fixed parameter")
	}
	s.k = v
	return nil
}
func (s *oscState) copyFrom(o engineState) { *s = *o.(*oscState) }
func (s *oscState) stepSize(float64)       {}

func (s *oscState) contactModes(dst []float64) []float64 { return dst }

func (s *oscState) stats() string { return fmt.Sprintf("%d steps", s.steps) }

func (s *oscState) marshal() ([]byte, error) {
	var b []byte
	for _, x := range [...]float64{s.t, s.x, s.v, s.u, s.k, float64(s.steps)} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b, nil
}

func (s *oscState) unmarshal(b []byte) error {
	if len(b) != 48 {
		return errors.New("bad length")
	}
	f := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])) }
	s.t, s.x, s.v, s.u, s.k, s.steps = f(0), f(1), f(2), f(3), f(4), int64(f(5))
	return nil
}

// oscCompiler recompiles with overrides, keeping the failure settings.
func oscCompiler(proto *oscModel) compiler {
	return func(over map[string]float64) (engineModel, error) {
		k, m := proto.k, proto.m
		for name, v := range over {
			switch name {
			case "k":
				k = v
			case "m":
				m = v
			default:
				return nil, fmt.Errorf("unknown parameter %q", name)
			}
		}
		o := newOsc(k, m)
		o.failAt, o.nanAt = proto.failAt, proto.nanAt
		return o, nil
	}
}
