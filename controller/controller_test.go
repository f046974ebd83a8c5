package controller

import (
	"math"
	"strings"
	"testing"

	"mbfmu/control"
)

// specs are one controller of every kind, with awkward numbers.
func specs() []*Spec {
	inf := math.Inf(1)
	base := func(kind string, ins, outs []string) *Spec {
		s := &Spec{Name: kind, Kind: kind, Step: 1e-3, End: 1, Min: -inf, Max: inf}
		for _, n := range ins {
			s.Inputs = append(s.Inputs, Port{Name: n, Unit: "m"})
		}
		for _, n := range outs {
			s.Outputs = append(s.Outputs, Port{Name: n})
		}
		return s
	}
	pid := base(KindPID, []string{"r", "y"}, []string{"u"})
	pid.Kp, pid.Ki, pid.Kd, pid.Tf, pid.B, pid.Min, pid.Max = 1.0/3, 0.1, 0.02, 0.007, 1, -0.5, 0.5
	sf := base(KindStateFeedback, []string{"x", "v"}, []string{"F"})
	sf.K = NewMatrix([][]float64{{math.Pi, 1e-17}})
	sf.Xref, sf.Uff, sf.Min, sf.Max = Vector([]float64{0.1, -0.2}), Vector([]float64{2.0 / 3}), -10, 10
	ss := base(KindStateSpace, []string{"u1"}, []string{"y1"})
	ss.SA = NewMatrix([][]float64{{0.9, 0.01}, {-0.1, 0.95}})
	ss.SB = NewMatrix([][]float64{{0}, {0.01}})
	ss.SC = NewMatrix([][]float64{{1, 0}})
	ss.Dt = 1e-3
	sig := base(KindSignal, nil, []string{"y"})
	sig.Expr = "0.2*sin(3*time) + 0.1"
	lim := base(KindLimit, []string{"u"}, []string{"y"})
	lim.Min, lim.Max, lim.Rise, lim.Fall = -1, 1, 5, 2
	return []*Spec{pid, sf, ss, sig, lim}
}

// A spec written as a controller file and read back runs bit for bit as
// the original; a runner's state restored replays bit for bit; the PID
// runs as package control's PID with the same settings.
func TestSpecFileAndState(t *testing.T) {
	for _, s := range specs() {
		data, err := s.XML()
		if err != nil {
			t.Fatal(err)
		}
		if !IsFile(data) {
			t.Fatalf("%s: not recognised as a controller file", s.Kind)
		}
		back, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.Kind, err, data)
		}
		r1, err := s.Build()
		if err != nil {
			t.Fatal(err)
		}
		r2, _ := back.Build()
		in := make([]float64, len(s.Inputs))
		o1, o2 := make([]float64, len(s.Outputs)), make([]float64, len(s.Outputs))
		var saved []float64
		var after [][]float64
		for k := 0; k < 400; k++ {
			tk := float64(k) * 1e-3
			for i := range in {
				in[i] = math.Sin(7*tk + float64(i))
			}
			if k == 200 {
				saved = r1.State(nil)
			}
			if err := r1.Eval(tk, 1e-3, in, o1); err != nil {
				t.Fatal(err)
			}
			r2.Eval(tk, 1e-3, in, o2)
			if o1[0] != o2[0] {
				t.Fatalf("%s: t = %g: %v from the file, %v from the spec", s.Kind, tk, o2[0], o1[0])
			}
			if k >= 200 {
				after = append(after, append([]float64(nil), o1...))
			}
		}
		r1.Reset()
		if err := r1.SetState(saved); err != nil {
			t.Fatal(err)
		}
		for k := 200; k < 400; k++ {
			tk := float64(k) * 1e-3
			for i := range in {
				in[i] = math.Sin(7*tk + float64(i))
			}
			r1.Eval(tk, 1e-3, in, o1)
			if o1[0] != after[k-200][0] {
				t.Fatalf("%s: replay from the saved state differs at t = %g", s.Kind, tk)
			}
		}
	}
	s := specs()[0]
	r, _ := s.Build()
	p, _ := control.NewPID(control.PIDConfig{Kp: s.Kp, Ki: s.Ki, Kd: s.Kd, Tf: s.Tf, B: 1, Umin: -0.5, Umax: 0.5})
	out := []float64{0}
	for k := 0; k < 100; k++ {
		y := 0.3 * math.Cos(float64(k)/10)
		r.Eval(float64(k)*1e-3, 1e-3, []float64{1, y}, out)
		if want := p.Update(1, y, 1e-3); out[0] != want {
			t.Fatalf("k = %d: %v, control.PID gives %v", k, out[0], want)
		}
	}
}

// Bad files are refused with a message naming the problem.
func TestSpecErrors(t *testing.T) {
	for _, c := range []struct{ xml, want string }{
		{`<controller name="c" kind="pid" step="0.001" min="-1" max="1"><input name="r"/><output name="u"/></controller>`, "1 inputs"},
		{`<controller name="c" kind="magic" step="0.001" min="-1" max="1"/>`, "unknown kind"},
		{`<controller name="c" kind="limit" step="0" min="-1" max="1"><input name="u"/><output name="y"/></controller>`, "macro step"},
		{`<controller name="c" kind="limit" step="1" min="1" max="-1"><input name="u"/><output name="y"/></controller>`, "min must be below max"},
		{`<controller name="c" kind="signal" step="1" min="-1" max="1" expr="x+"><output name="y"/></controller>`, "expr"},
		{`<controller name="c" kind="state-feedback" step="1" min="-1" max="1"><input name="x"/><output name="u"/><k rows="1" cols="2">1</k></controller>`, "1 values for 1×2"},
	} {
		if _, err := Parse([]byte(c.xml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.xml, err, c.want)
		}
	}
	// limits left out are none
	s, err := Parse([]byte(`<controller name="c" kind="pid" step="0.001" kp="2"><input name="r"/><input name="y"/><output name="u"/></controller>`))
	if err != nil || !math.IsInf(s.Min, -1) || !math.IsInf(s.Max, 1) {
		t.Errorf("a file without limits: %v, limits [%v, %v]", err, s.Min, s.Max)
	}
	if IsFile([]byte(`<model name="m"/>`)) {
		t.Error("a model file taken for a controller file")
	}
}
