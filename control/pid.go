package control

import (
	"fmt"
	"math"
)

// AntiWindupMode selects how the PID integrator is kept from winding up while
// the output is held at a limit.
type AntiWindupMode int

const (
	// AntiWindupBackCalculation feeds the difference between the limited and
	// the unlimited output back into the integrator with the tracking time
	// constant Tt (back-calculation, Åström & Hägglund). It is the zero value.
	AntiWindupBackCalculation AntiWindupMode = iota
	// AntiWindupConditional stops integrating while the unlimited output is
	// beyond a limit and the error would drive it further beyond it
	// (conditional integration, also called clamping).
	AntiWindupConditional
	// AntiWindupNone integrates the error unconditionally. The integrator
	// winds up whenever the output is limited; use it only for comparison.
	AntiWindupNone
)

// String returns the name of the mode.
func (m AntiWindupMode) String() string {
	switch m {
	case AntiWindupBackCalculation:
		return "back-calculation"
	case AntiWindupConditional:
		return "conditional"
	case AntiWindupNone:
		return "none"
	}
	return fmt.Sprintf("AntiWindupMode(%d)", int(m))
}

// PIDConfig parameterises a PID controller in parallel form
//
//	u = Kp·(B·r − y) + Ki·∫(r − y)dt + Kd·s/(1 + s·Tf)·(C·r − y)
//
// limited to [Umin, Umax]. Kp, Ki and Kd must be finite and must not have
// mixed signs (all ≥ 0 for a direct-acting loop, all ≤ 0 for a reverse-acting
// one).
type PIDConfig struct {
	// Kp, Ki and Kd are the proportional, integral (1/s) and derivative (s)
	// gains.
	Kp, Ki, Kd float64

	// Tf is the time constant (s) of the first-order derivative filter. With
	// Tf = 0 and N = 0 the derivative is an unfiltered backward difference
	// whose high-frequency gain is Kd/dt.
	Tf float64
	// N, if positive, sets the filter from the derivative gain limit instead:
	// Tf = Kd/(Kp·N) = Td/N. It needs Kp ≠ 0 and excludes Tf > 0. Tf is then
	// recomputed whenever the gains change.
	N float64

	// B weights the setpoint in the proportional term. Its zero value selects
	// the default B = 1 (proportional action on the error) unless
	// ExplicitWeights is set, which makes B = 0 literal (with C = 0, the I-PD
	// structure).
	B float64
	// C weights the setpoint in the derivative term. The default is its zero
	// value, C = 0: derivative action on −y only, so setpoint steps cause no
	// derivative kick. C = 1 differentiates the error.
	C float64
	// ExplicitWeights makes B = 0 mean zero instead of the default 1.
	ExplicitWeights bool

	// Umin and Umax limit the output. Both zero means no limits; otherwise
	// Umin < Umax is required (±Inf allowed).
	Umin, Umax float64

	// Tt is the tracking time constant (s) of back-calculation anti-windup.
	// Zero selects the rule of thumb Tt = √(Ti·Td) = √(Kd/Ki) when Kd ≠ 0 and
	// Tt = Ti = Kp/Ki otherwise (Tt = 0 then means instant tracking); with
	// Ki = 0 the integrator holds a constant bias and does not track.
	Tt float64
	// AntiWindup selects the anti-windup scheme; the zero value is
	// AntiWindupBackCalculation.
	AntiWindup AntiWindupMode
}

// pidParams are the resolved parameters a PID runs with.
type pidParams struct {
	kp, ki, kd, tf, b, c, umin, umax, tt float64
	kitt                                 float64 // Ki·Tt (0 when Ki = 0)
	aw                                   AntiWindupMode
}

// finite reports whether x is neither NaN nor ±Inf (x − x is NaN for both).
func finite(x float64) bool { return x-x == 0 }

// resolve validates cfg and fills in its defaults.
func (cfg PIDConfig) resolve() (pidParams, error) {
	var q pidParams
	for _, f := range []struct {
		name string
		v    float64
	}{{"Kp", cfg.Kp}, {"Ki", cfg.Ki}, {"Kd", cfg.Kd}, {"Tf", cfg.Tf}, {"N", cfg.N},
		{"B", cfg.B}, {"C", cfg.C}, {"Tt", cfg.Tt}} {
		if !finite(f.v) {
			return q, fmt.Errorf("control: PID %s = %v: must be finite", f.name, f.v)
		}
	}
	pos := cfg.Kp > 0 || cfg.Ki > 0 || cfg.Kd > 0
	neg := cfg.Kp < 0 || cfg.Ki < 0 || cfg.Kd < 0
	if pos && neg {
		return q, fmt.Errorf("control: PID gains Kp = %g, Ki = %g, Kd = %g have mixed signs: use all ≥ 0 (direct acting) or all ≤ 0 (reverse acting)", cfg.Kp, cfg.Ki, cfg.Kd)
	}
	if cfg.Tf < 0 {
		return q, fmt.Errorf("control: PID Tf = %g: the derivative filter time constant must be ≥ 0", cfg.Tf)
	}
	if cfg.N < 0 {
		return q, fmt.Errorf("control: PID N = %g: the derivative gain limit must be ≥ 0", cfg.N)
	}
	if cfg.Tt < 0 {
		return q, fmt.Errorf("control: PID Tt = %g: the tracking time constant must be ≥ 0 (0 selects the default)", cfg.Tt)
	}
	q.kp, q.ki, q.kd = cfg.Kp, cfg.Ki, cfg.Kd
	q.tf = cfg.Tf
	if cfg.N > 0 {
		if cfg.Tf > 0 {
			return q, fmt.Errorf("control: PID Tf = %g and N = %g both set: give the derivative filter either way, not both", cfg.Tf, cfg.N)
		}
		if cfg.Kp == 0 && cfg.Kd != 0 {
			return q, fmt.Errorf("control: PID N = %g needs Kp ≠ 0 (Tf = Kd/(Kp·N)); give Tf instead", cfg.N)
		}
		if cfg.Kp != 0 {
			q.tf = cfg.Kd / (cfg.Kp * cfg.N)
		}
	}
	q.b, q.c = cfg.B, cfg.C
	if cfg.B == 0 && !cfg.ExplicitWeights {
		q.b = 1
	}
	if math.IsNaN(cfg.Umin) || math.IsNaN(cfg.Umax) {
		return q, fmt.Errorf("control: PID output limits [%v, %v] contain NaN", cfg.Umin, cfg.Umax)
	}
	q.umin, q.umax = cfg.Umin, cfg.Umax
	if cfg.Umin == 0 && cfg.Umax == 0 {
		q.umin, q.umax = math.Inf(-1), math.Inf(1)
	} else if !(cfg.Umin < cfg.Umax) {
		return q, fmt.Errorf("control: PID output limits [%g, %g]: need Umin < Umax (both zero means no limits)", cfg.Umin, cfg.Umax)
	}
	switch cfg.AntiWindup {
	case AntiWindupBackCalculation, AntiWindupConditional, AntiWindupNone:
	default:
		return q, fmt.Errorf("control: PID anti-windup mode %d unknown", int(cfg.AntiWindup))
	}
	q.aw = cfg.AntiWindup
	switch {
	case cfg.Tt > 0:
		q.tt = cfg.Tt
	case cfg.Ki == 0:
		q.tt = math.Inf(1)
	case cfg.Kd != 0:
		q.tt = math.Sqrt(cfg.Kd / cfg.Ki)
	default:
		q.tt = cfg.Kp / cfg.Ki
	}
	if cfg.Ki != 0 {
		q.kitt = cfg.Ki * q.tt
	}
	return q, nil
}

// PIDState is the complete dynamic state of a PID. Copying it is a snapshot;
// SetState restores one.
type PIDState struct {
	// Integral is the integral term (output units), including any bias
	// installed by bumpless transfer.
	Integral float64
	// Deriv is the filtered derivative of C·r − y (units of y per second). It
	// does not depend on Kd, so gain changes leave it valid.
	Deriv float64
	// R and Y are the setpoint and measurement of the last update.
	R, Y float64
	// U is the last output (after limits) and V the last unlimited output.
	U, V float64
	// Started is false until the first update after construction or Reset.
	Started bool
	// Manual is true in manual mode, where the output is UManual (limited).
	Manual  bool
	UManual float64
}

// PID is a discrete PID controller. It is not safe for concurrent use; the
// zero value is not usable, create one with NewPID.
//
// Discretisation, per update over the interval dt since the previous one:
// the integrator is advanced by forward Euler with the previous error (plus
// the anti-windup correction), so the output has no direct feed-through from
// the integral of the current error; the derivative filter is the
// ramp-invariant discretisation of Kd·s/(1 + s·Tf), exact when C·r − y varies
// linearly between samples, stable for every dt ≥ 0 and reducing to the
// backward difference when Tf = 0. While the output is limited,
// back-calculation integrates İ = Ki·e + (u − v)/Tt exactly over dt with
// the other signals held, so it never over-corrects whatever dt/Tt, and a
// loop held in saturation settles where Ki·Tt·e = v − u, as in continuous
// time.
type PID struct {
	cfg PIDConfig
	par pidParams
	st  PIDState

	// Coefficients cached for the last dt (not state: derived from par, dt).
	cacheDt          float64
	alpha, oneMinusA float64
	beta             float64
}

// NewPID validates cfg and returns a controller in automatic mode with zero
// state.
func NewPID(cfg PIDConfig) (*PID, error) {
	q, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	return &PID{cfg: cfg, par: q, cacheDt: math.NaN()}, nil
}

// coeffs refreshes the cached filter and tracking coefficients for dt > 0.
func (p *PID) coeffs(dt float64) {
	if dt == p.cacheDt {
		return
	}
	x := dt / p.par.tf // +Inf when tf == 0
	p.alpha = math.Exp(-x)
	p.oneMinusA = -math.Expm1(-x)
	p.beta = -math.Expm1(-dt / p.par.tt) // 1 when tt == 0
	p.cacheDt = dt
}

// Update takes the setpoint r and measurement y at the current sample, dt
// seconds after the previous update, and returns the controller output.
//
// The first update after NewPID or Reset only initialises (dt is ignored:
// there is no previous sample, and the derivative starts at rest so there is
// no kick). An update with dt == 0 evaluates the output at r, y without
// advancing any state. If r, y or dt is not finite, or dt < 0, Update returns
// NaN and leaves the state untouched, so one bad sample cannot poison the
// integrator. Update allocates nothing.
func (p *PID) Update(r, y, dt float64) float64 {
	if !finite(r) || !finite(y) || !finite(dt) || dt < 0 {
		return math.NaN()
	}
	q := &p.par
	s := &p.st
	integral, deriv := s.Integral, s.Deriv
	if s.Started {
		if dt == 0 {
			return p.output(r, y, integral, deriv)
		}
		p.coeffs(dt)
		if !s.Manual {
			inc := q.ki * dt * (s.R - s.Y)
			switch q.aw {
			case AntiWindupBackCalculation:
				if s.U != s.V {
					// Exact solution over dt of İ = Ki·e + (u − v)/Tt with
					// e, P, D and u held: I relaxes towards the value where
					// the two terms balance.
					integral += p.beta * (q.kitt*(s.R-s.Y) + s.U - s.V)
				} else {
					integral += inc
				}
			case AntiWindupConditional:
				if !(s.V > q.umax && inc > 0) && !(s.V < q.umin && inc < 0) {
					integral += inc
				}
			default:
				integral += inc
			}
		}
		dv := (q.c*r - y) - (q.c*s.R - s.Y)
		deriv = p.alpha*deriv + p.oneMinusA*(dv/dt)
	}
	pTerm := q.kp * (q.b*r - y)
	dTerm := q.kd * deriv
	var u, v float64
	if s.Manual {
		u = Saturate(s.UManual, q.umin, q.umax)
		v = u
		integral = u - pTerm - dTerm // track: switching to auto is bumpless
	} else {
		v = pTerm + integral + dTerm
		u = Saturate(v, q.umin, q.umax)
	}
	s.Integral, s.Deriv = integral, deriv
	s.R, s.Y, s.U, s.V = r, y, u, v
	s.Started = true
	return u
}

// output evaluates the output at r, y with the given integral and derivative
// states, changing nothing.
func (p *PID) output(r, y, integral, deriv float64) float64 {
	q := &p.par
	if p.st.Manual {
		return Saturate(p.st.UManual, q.umin, q.umax)
	}
	return Saturate(q.kp*(q.b*r-y)+integral+q.kd*deriv, q.umin, q.umax)
}

// Output returns the output of the last update (0 before the first).
func (p *PID) Output() float64 { return p.st.U }

// SetManual switches to manual mode (or changes the manual output): from the
// next update on, the output is u limited to [Umin, Umax], and the integrator
// tracks it so that a later SetAuto is bumpless.
func (p *PID) SetManual(u float64) error {
	if !finite(u) {
		return fmt.Errorf("control: PID manual output %v: must be finite", u)
	}
	p.st.Manual = true
	p.st.UManual = u
	return nil
}

// SetAuto switches to automatic mode. The integrator is rebalanced so that
// the controller's unlimited output at the last sample equals the last
// output: the first automatic update continues from the manual output
// without a bump. SetAuto in automatic mode does nothing.
func (p *PID) SetAuto() {
	if !p.st.Manual {
		return
	}
	p.st.Manual = false
	if p.st.Started {
		q := &p.par
		p.st.Integral = p.st.U - q.kp*(q.b*p.st.R-p.st.Y) - q.kd*p.st.Deriv
		p.st.V = p.st.U
	}
}

// Manual reports whether the controller is in manual mode.
func (p *PID) Manual() bool { return p.st.Manual }

// SetGains changes Kp, Ki and Kd without a bump (see SetConfig).
func (p *PID) SetGains(kp, ki, kd float64) error {
	cfg := p.cfg
	cfg.Kp, cfg.Ki, cfg.Kd = kp, ki, kd
	return p.SetConfig(cfg)
}

// SetConfig replaces the whole configuration on the fly. The integrator is
// rebalanced so that the unlimited output at the last sample, computed with
// the new parameters, equals the one computed with the old: gain and weight
// changes do not bump the output. The derivative filter state is kept (it is
// a filtered derivative of C·r − y, independent of Kd). On error the
// controller is unchanged.
func (p *PID) SetConfig(cfg PIDConfig) error {
	q, err := cfg.resolve()
	if err != nil {
		return err
	}
	s := &p.st
	if s.Started {
		o := &p.par
		old := o.kp*(o.b*s.R-s.Y) + o.kd*s.Deriv
		nu := q.kp*(q.b*s.R-s.Y) + q.kd*s.Deriv
		s.Integral += old - nu
	}
	p.cfg, p.par = cfg, q
	p.cacheDt = math.NaN()
	return nil
}

// Config returns the configuration as last given to NewPID, SetGains or
// SetConfig.
func (p *PID) Config() PIDConfig { return p.cfg }

// Reset clears the state and returns to automatic mode; the configuration is
// kept. The next update initialises.
func (p *PID) Reset() { p.st = PIDState{} }

// State returns a snapshot of the dynamic state.
func (p *PID) State() PIDState { return p.st }

// SetState restores a snapshot taken with State. It fails, leaving the state
// unchanged, if a field is not finite.
func (p *PID) SetState(s PIDState) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"Integral", s.Integral}, {"Deriv", s.Deriv}, {"R", s.R}, {"Y", s.Y},
		{"U", s.U}, {"V", s.V}, {"UManual", s.UManual}} {
		if !finite(f.v) {
			return fmt.Errorf("control: PID state %s = %v: must be finite", f.name, f.v)
		}
	}
	p.st = s
	return nil
}
