package solver

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"mbfmu/solver/mech"
)

// sledTurnModel is the three-foot sled of sledModel pushed off its centre
// line, at (0, py) in its frame: it turns as it breaks away, its feet
// slipping in three directions, one of them slowly for a while (the sled
// turning about it).
func sledTurnModel(integ, step string, py float64) string {
	text := sledModel(integ, step, [][2]float64{{0.2, 0}, {-0.1, 0.15}, {-0.1, -0.15}})
	text = strings.Replace(text, `<marker name="f1"`, fmt.Sprintf(`<marker name="p" at="0 %s 0"/>
    <marker name="f1"`, ftoa(py)), 1)
	return strings.Replace(text, `<force name="push" i="sled"`, `<force name="push" i="sled.p"`, 1)
}

// frictionAngles returns, for each slipping isotropic set whose slip speed
// is above vmin, the angle between the friction it applies (against the
// slip direction d the engine holds, blended as the element does:
// u = v + v₀ d) and its slip velocity v.
func frictionAngles(m *Model, s *State, vmin float64) []float64 {
	cs := m.contacts
	var out []float64
	for _, e := range cs.rows {
		i := e.CoulombIndex()
		if cs.lead[i] != i || s.cs[i*mech.CSStride+mech.CSMode] == 0 {
			continue
		}
		n := cs.setN[i]
		v := cs.setSlip(s, i)
		vn := norm(v[:n])
		if vn <= vmin {
			continue
		}
		v0 := e.(mech.CoulombSet).SlipBlend(&s.x)
		var u [mech.MaxCoulombSet]float64
		dot := 0.0
		for k := 0; k < n; k++ {
			u[k] = v[k] + v0*s.cs[(i+k)*mech.CSStride+mech.CSStick]
			dot += u[k] * v[k]
		}
		out = append(out, math.Acos(math.Max(-1, math.Min(1, dot/(vn*norm(u[:n]))))))
	}
	return out
}

// The sled on three feet pushed by F = 5 t off its centre line (0.1 m to
// the side) breaks away turning about its third foot, which then creeps
// and breaks away too. The slip direction a set holds below its blend
// speed v₀ = h μ F_N/m_t (1.3 mm/s here at 1 ms) followed the slip
// velocity only once faster than v₀: the feet slipping slower kept
// their friction up to 40° off their slip velocity for tens of steps,
// and at h = 0.5 ms the creeping foot chattered (more than 200 events in
// a step). Now, at h = 1, 0.5 and 0.25 ms: the run completes with fewer
// than 50 friction events; from 20 ms after the first slip on, every
// foot slipping faster than 0.3 v₀ has its friction within 1e-3 rad of
// its slip velocity (the direction turning a fraction |v|/v₀ a step;
// measured 1.7e-4 at 1 ms), within 1e-4 rad once faster than 10 v₀; and position and turn at
// 2.3 s agree with a run at h = 62.5 µs to 3e-4 m and 5e-4 rad (the
// friction directions converge with the step).
func TestSledTurnsOnItsFeet(t *testing.T) {
	ref, sr := loadDrive(t, sledTurnModel("genalpha", "0.0625 ms", 0.1))
	if err := ref.AdvanceTo(sr, 2.3); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, c := range []string{"sled.x", "sled.y", "sled.rz"} {
		want[c] = chanAt(t, ref, sr, c)
	}
	if want["sled.rz"] > -1 {
		t.Fatalf("the sled turned by %g rad: it should turn by more than a radian", want["sled.rz"])
	}
	for _, h := range []float64{1e-3, 0.5e-3, 0.25e-3} {
		t.Run(fmt.Sprintf("h=%g ms", h*1e3), func(t *testing.T) {
			m, s := loadDrive(t, sledTurnModel("genalpha", fmt.Sprintf("%g ms", h*1e3), 0.1))
			first, worstSlow, worstFast := -1.0, 0.0, 0.0
			for k := 1; k <= 2300; k++ {
				tk := float64(k) * 1e-3
				if err := m.AdvanceTo(s, tk); err != nil {
					t.Fatalf("t = %g s: %v", tk, err)
				}
				v0 := 0.0
				for _, e := range m.contacts.rows {
					v0 = math.Max(v0, e.(mech.CoulombSet).SlipBlend(&s.x))
				}
				if first < 0 && len(frictionAngles(m, s, 0)) > 0 {
					first = tk
				}
				if first < 0 || tk < first+0.02 {
					continue
				}
				for _, a := range frictionAngles(m, s, 0.3*v0) {
					worstSlow = math.Max(worstSlow, a)
				}
				for _, a := range frictionAngles(m, s, 10*v0) {
					worstFast = math.Max(worstFast, a)
				}
			}
			if s.cw.events >= 50 {
				t.Errorf("%d friction events", s.cw.events)
			}
			if worstSlow > 1e-3 || worstFast > 1e-4 {
				t.Errorf("friction off the slip velocity by up to %.3g rad above 0.3 v₀, %.3g rad above 10 v₀ (want 1e-3, 1e-4)", worstSlow, worstFast)
			}
			for c, tol := range map[string]float64{"sled.x": 3e-4, "sled.y": 3e-4, "sled.rz": 5e-4} {
				if d := chanAt(t, m, s, c) - want[c]; math.Abs(d) > tol {
					t.Errorf("%s at 2.3 s: %.9g, h = 62.5 µs gives %.9g (off by %.3g)", c, chanAt(t, m, s, c), want[c], d)
				}
			}
			t.Logf("first slip at %g s, %d events, friction angle ≤ %.3g rad (> 0.3 v₀), %.3g rad (> 10 v₀); rz %.9g (ref %.9g)", first, s.cw.events, worstSlow, worstFast, chanAt(t, m, s, "sled.rz"), want["sled.rz"])
		})
	}
}
