package solver

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"

	"mbfmu/solver/mech"
)

// Response returns the frequency response of the linear model at the
// frequencies f (Hz): H(jω) = C (jωI − A)⁻¹ B + D, ω = 2πf, as
// H[k][o·nu + i] for frequency k, output o and input i. The complex solve
// is done as the real system [−A −ωI; ωI −A] [x; y] = [B; 0] (x + jy the
// response of the states), by an LU factorisation per frequency. A
// frequency at an eigenvalue of A (a resonance without damping, or 0 for a
// mechanism free to drift) gives an error naming it.
func (l *Linear) Response(f []float64) ([][]complex128, error) {
	n, _ := l.A.Dims()
	ny, nu := len(l.Outputs), len(l.Inputs)
	var fr freqSolve
	out := make([][]complex128, len(f))
	for k, fk := range f {
		X, err := fr.solve(l, fk)
		if err != nil {
			return nil, err
		}
		h := make([]complex128, ny*nu)
		for o := 0; o < ny; o++ {
			for i := 0; i < nu; i++ {
				var re, im float64
				for j := 0; j < n; j++ {
					c := l.C.At(o, j)
					re += c * X.At(j, i)
					im += c * X.At(n+j, i)
				}
				h[o*nu+i] = complex(re+l.D.At(o, i), im)
			}
		}
		out[k] = h
	}
	return out, nil
}

// freqSolve holds the work of the state response at a frequency.
type freqSolve struct {
	M, rhs, X mat.Dense
	lu        mat.LU
}

// solve returns the states' response to each input at frequency f (Hz):
// column i of the result holds Re x (rows 0…n−1) and Im x (rows n…2n−1)
// of x = (jωI − A)⁻¹ B eᵢ, from [−A −ωI; ωI −A] [Re x; Im x] = [B eᵢ; 0].
func (fr *freqSolve) solve(l *Linear, f float64) (*mat.Dense, error) {
	n, _ := l.A.Dims()
	nu := len(l.Inputs)
	if fr.M.IsEmpty() {
		fr.M.ReuseAs(2*n, 2*n)
		fr.rhs.ReuseAs(2*n, max(nu, 1))
		for i := 0; i < n; i++ {
			for k := 0; k < nu; k++ {
				fr.rhs.Set(i, k, l.B.At(i, k))
			}
		}
	}
	w := 2 * math.Pi * f
	fr.M.Zero()
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a := l.A.At(i, j)
			fr.M.Set(i, j, -a)
			fr.M.Set(n+i, n+j, -a)
		}
		fr.M.Set(i, n+i, -w)
		fr.M.Set(n+i, i, w)
	}
	fr.lu.Factorize(&fr.M)
	if err := fr.lu.SolveTo(&fr.X, false, &fr.rhs); err != nil {
		return nil, errorf("the frequency response at %g Hz is singular (%v): a pole of the linear model lies on it (an undamped mode at that frequency)", f, err)
	}
	return &fr.X, nil
}

// Phases returns the phase of the responses h[k] (degrees) for k along
// the frequencies, made continuous (no jump of more than 180° between
// neighbours) and started in (−270°, 90°], so that a plant that lags reads
// as a lag (a double integrator at −180°, not +180°).
func Phases(h []complex128) []float64 {
	out := make([]float64, len(h))
	for k, z := range h {
		p := cmplx.Phase(z) * 180 / math.Pi
		if k == 0 {
			if p > 90 {
				p -= 360
			}
		} else {
			p += 360 * math.Round((out[k-1]-p)/360)
		}
		out[k] = p
	}
	return out
}

// LogSpace returns n frequencies from a to b spaced evenly on a log scale
// (both ends included; n = 1: a).
func LogSpace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	la, lb := math.Log10(a), math.Log10(b)
	for i := range out {
		if n == 1 {
			out[i] = a
			continue
		}
		out[i] = math.Pow(10, la+(lb-la)*float64(i)/float64(n-1))
	}
	if n > 1 {
		out[0], out[n-1] = a, b
	}
	return out
}

// DirectOptions sets up a direct frequency response (DirectResponse).
type DirectOptions struct {
	Amplitude float64 // of the harmonic input (the input's SI unit)
	Settle    float64 // time to let the transient decay before measuring (s); at least 5 cycles are taken
	Cycles    int     // cycles measured after settling (default 5)
	PerCycle  int     // steps per cycle at least (default 200; more when the model's step is shorter)
	// Lin, the linearisation about s0, starts the run on its steady
	// harmonic motion (nil: from s0 at rest), so that little transient is
	// left to decay: without it an output that responds weakly at the
	// frequency (a mass behind a spring, well above its resonance) is
	// buried in the slowly decaying free vibration the start excites.
	Lin *Linear
}

// maxDirectSteps bounds the steps of one direct response run.
const maxDirectSteps = 20_000_000

// DirectResponse is the frequency response by time integration: from the
// state s0 (left unchanged), input i follows u0 + a sin(2πf (t − t0)) (its
// value and first two derivatives set at every step, as a master hands
// them over), the model is integrated through the settling time and then
// over whole cycles, in steps that divide the cycle, and the first
// harmonic of every output, Y = (2/T) ∫ y e^{−jωt} dt over the measured
// cycles, is divided by the input's, −j a. For a linear plant it equals
// the linearisation's response (Response) up to the integrator's error,
// O((ωh)²); where the two differ the plant is nonlinear at that amplitude
// (friction, backlash, stops, large motion). It returns one complex ratio
// per declared output.
func (m *Model) DirectResponse(s0 *State, i int, f float64, o DirectOptions) ([]complex128, error) {
	if i < 0 || i >= len(m.inputs) {
		return nil, errorf("input index %d out of range (the model has %d inputs)", i, len(m.inputs))
	}
	if !(f > 0) || !(o.Amplitude > 0) || !finite(f) || !finite(o.Amplitude) {
		return nil, errorf("direct response: the frequency (%g Hz) and the amplitude (%g) must be positive", f, o.Amplitude)
	}
	cycles, per := max(o.Cycles, 1), max(o.PerCycle, 8)
	if o.Cycles == 0 {
		cycles = 5
	}
	if o.PerCycle == 0 {
		per = 200
	}
	T := 1 / f
	if st := m.settings.Step; T/float64(per) > st {
		per = int(math.Ceil(T / st))
	}
	settle := max(5, int(math.Ceil(o.Settle/T)))
	total := int64(settle+cycles) * int64(per)
	if per > maxDirectSteps || total > maxDirectSteps {
		return nil, errorf("direct response at %g Hz: %d cycles of %d steps each are more than %d steps (raise the frequency, or lower the settling time)", f, settle+cycles, per, maxDirectSteps)
	}
	s := m.NewState()
	s.CopyFrom(s0)
	if o.Lin != nil {
		if err := m.startHarmonic(s, o.Lin, i, f, o.Amplitude); err != nil {
			return nil, errorf("direct response at %g Hz: %v", f, err)
		}
	}
	h := T / float64(per)
	w := 2 * math.Pi * f
	a := o.Amplitude
	u0 := s.Input(i)
	y := make([]float64, len(m.outputs))
	acc := make([]complex128, len(m.outputs))
	for k := int64(0); k < total; k++ {
		ph := 2 * math.Pi * float64(k%int64(per)) / float64(per)
		sn, cs := math.Sincos(ph)
		s.SetInput(i, u0+a*sn)
		if err := s.SetInputDerivative(i, 1, a*w*cs); err != nil {
			return nil, err
		}
		if err := s.SetInputDerivative(i, 2, -a*w*w*sn); err != nil {
			return nil, err
		}
		if err := m.Step(s, h); err != nil {
			return nil, errorf("direct response at %g Hz: %v", f, err)
		}
		if k < int64(settle)*int64(per) {
			continue
		}
		m.EvalOutputs(s, y)
		sn1, cs1 := math.Sincos(2 * math.Pi * float64((k+1)%int64(per)) / float64(per))
		for j, v := range y {
			acc[j] += complex(v*cs1, -v*sn1)
		}
	}
	u := complex(0, -a)
	for j := range acc {
		acc[j] = acc[j] * complex(2/float64(int64(cycles)*int64(per)), 0) / u
	}
	return acc, nil
}

// SettleTime is the time the slowest decaying mode of the linear model
// takes to fall to e⁻⁵ (5/σ for the smallest decay rate σ = −Re λ among
// the modes that decay); 0 when no mode decays.
func (l *Linear) SettleTime() float64 {
	sigma := math.Inf(1)
	for _, md := range l.Modes {
		if r := -real(md.Eig); r > 1e-12*cmplx.Abs(md.Eig) && r > 0 {
			sigma = math.Min(sigma, r)
		}
	}
	if math.IsInf(sigma, 1) {
		return 0
	}
	return 5 / sigma
}

// startHarmonic moves s (at the operating point of lin) onto the linear
// model's steady response to input i = u0 + a sin(2πf (t − t0)) at t0:
// x(t0) = Re X, X = (jωI − A)⁻¹ B eᵢ (−j a), positions δq = N z and
// velocities δv = N w, then assembled onto the constraints with
// accelerations to match, as Init does.
func (m *Model) startHarmonic(s *State, lin *Linear, i int, f, a float64) error {
	var fr freqSolve
	X, err := fr.solve(lin, f)
	if err != nil {
		return err
	}
	n, _ := lin.A.Dims()
	nf := lin.DOF()
	// Re(X (−j a)) = a Im X
	dq, dv := make([]float64, m.nv), make([]float64, m.nv)
	for r := 0; r < m.nv; r++ {
		for k := 0; k < nf; k++ {
			nk := lin.N.At(r, k)
			dq[r] += nk * a * X.At(n+k, i)
			dv[r] += nk * a * X.At(n+nf+k, i)
		}
	}
	m.addTo(s.q, dq, 1)
	for r := range dv {
		s.v[r] += dv[r]
	}
	if err := m.assemblePositions(s); err != nil {
		return err
	}
	if err := m.assembleVelocities(s, s.v); err != nil {
		return err
	}
	// the elements' own states (after z and w), around their values as
	// committed at the moved state
	m.commitStates(s, mech.CommitStep)
	k := 2 * nf
	for _, e := range m.stateful {
		for _, st := range e.States() {
			s.es[st.Slot] += a * X.At(n+k, i)
			k++
		}
	}
	s.restartHistory()
	return m.startMotion(s)
}

// DOF returns the number of degrees of freedom f of the linear model (the
// columns of N): the state vector is (z, w, e) with f entries each in z
// and w.
func (l *Linear) DOF() int {
	_, nf := l.N.Dims()
	return nf
}
