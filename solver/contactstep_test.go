package solver_test

import (
	"math"
	"strings"
	"testing"

	"mbfmu/spec"
	"mbfmu/xml"
)

// A contact too stiff for the step gains energy without a word: a 1 kg
// ball dropped from 0.1 m onto a linear contact of k = 1e8 N/m (period
// 2π√(m/k) = 0.63 ms) rebounds to 0.42 m at h = 0.5 ms, while at 20 µs it
// rebounds to its drop height. StepWarnings names the pair and the step
// that resolves it (T/20 = 31 µs) at 0.5 ms, and says nothing at 20 µs or
// with adaptive steps (whose error control resolves the impact).
func TestStiffContactWarns(t *testing.T) {
	run := func(edit func(*spec.Settings)) (warn []string, top float64) {
		ms, err := xml.LoadFile("testdata/stiff-drop.xml")
		if err != nil {
			t.Fatal(err)
		}
		edit(&ms.Settings)
		m := exCompile(t, ms)
		s := exInit(t, m)
		warn = m.StepWarnings(s)
		ch := exNewChannels(t, m, "ball.y")
		for k := 1; k <= 1000; k++ {
			exAdvance(t, m, s, float64(k)*1e-3)
			ch.eval(s)
			if float64(k)*1e-3 > 0.2 {
				top = math.Max(top, ch.get("ball.y"))
			}
		}
		return warn, top
	}
	w, top := run(func(st *spec.Settings) {})
	t.Logf("h = 0.5 ms: rebound to %.3f m; %q", top, w)
	if len(w) != 1 || !strings.Contains(w[0], "contact bounce") || !strings.Contains(w[0], "0.000628 s") || !strings.Contains(w[0], "3.1e-05 s") {
		t.Errorf("h = 0.5 ms: warnings %q, want one naming bounce, its period 0.000628 s and a step ≤ 3.1e-05 s", w)
	}
	if top < 0.2 {
		t.Errorf("h = 0.5 ms: rebound to %.3f m; the case should show the energy gain the warning is about", top)
	}
	w, top = run(func(st *spec.Settings) { st.Step = 20e-6 })
	t.Logf("h = 20 µs: rebound to %.4f m; %q", top, w)
	if len(w) != 0 || math.Abs(top-0.12) > 1e-3 {
		t.Errorf("h = 20 µs: warnings %q, rebound to %.4f m; want none and 0.12 m", w, top)
	}
	w, top = run(func(st *spec.Settings) { st.Adaptive = true })
	t.Logf("adaptive: rebound to %.4f m; %q", top, w)
	if len(w) != 0 || top > 0.1201 {
		t.Errorf("adaptive: warnings %q, rebound to %.4f m; want none and no gain", w, top)
	}
}
