package bench

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"mbfmu/solver"
	"mbfmu/xml"
)

// ChainXML is the model file of an N-body chain as a user writes it: 1 kg,
// 1 m links on revolute joints (planar, released horizontal) or, with
// spatial set, 1 m × 0.1 m × 0.1 m boxes on spherical joints under gravity
// −z; 10 steps of 1 ms.
func ChainXML(n int, spatial bool) []byte {
	var b strings.Builder
	if spatial {
		fmt.Fprintf(&b, "<model name=\"spatial_chain_%d\" dimension=\"3\">\n<settings end=\"10 ms\" step=\"1 ms\" gravity=\"0 0 -9.81\"/>\n", n)
	} else {
		fmt.Fprintf(&b, "<model name=\"chain_%d\">\n<settings end=\"10 ms\" step=\"1 ms\"/>\n", n)
	}
	b.WriteString("<ground><marker name=\"O\"/></ground>\n")
	for i := 0; i < n; i++ {
		prev := "ground.O"
		if i > 0 {
			prev = fmt.Sprintf("b%d.b", i-1)
		}
		if spatial {
			fmt.Fprintf(&b, "<body name=\"b%d\" mass=\"1\" inertia=\"%g %g %g\" at=\"%g 0 0\"><marker name=\"a\" at=\"-0.5 0 0\"/><marker name=\"b\" at=\"0.5 0 0\"/></body>\n",
				i, 0.02/12, 1.01/12, 1.01/12, float64(i)+0.5)
			fmt.Fprintf(&b, "<spherical name=\"j%d\" i=\"%s\" j=\"b%d.a\"/>\n", i, prev, i)
		} else {
			fmt.Fprintf(&b, "<body name=\"b%d\" mass=\"1\" inertia=\"%g\" cm=\"0.5, 0\" at=\"%d, 0\"><marker name=\"a\"/><marker name=\"b\" at=\"1, 0\"/></body>\n",
				i, 1.0/12, i)
			fmt.Fprintf(&b, "<revolute name=\"j%d\" i=\"%s\" j=\"b%d.a\"/>\n", i, prev, i)
		}
	}
	b.WriteString("</model>\n")
	return []byte(b.String())
}

// SizeResult is the set-up and stepping cost of a large model.
type SizeResult struct {
	Check time.Duration // parse, compile, assemble, check values, count the degrees of freedom (what mbfmu check does)
	Steps time.Duration // the 10 steps of the model file
	Heap  float64       // live heap with the model and its state, bytes
	DOF   int
}

// SizeRun does what `mbfmu check` does with the model file data and then
// takes its 10 steps.
func SizeRun(data []byte) (SizeResult, error) {
	var r SizeResult
	runtime.GC()
	t0 := time.Now()
	ms, err := xml.Parse(data, "chain.xml")
	if err != nil {
		return r, err
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		return r, err
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		return r, err
	}
	if errs := m.CheckValues(s); len(errs) > 0 {
		return r, errs
	}
	r.DOF = m.DOF(s)
	_ = m.StepWarnings(s)
	r.Check = time.Since(t0)
	ms, data = nil, nil
	runtime.GC()
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	r.Heap = float64(st.HeapAlloc)
	t0 = time.Now()
	if err := m.AdvanceTo(s, m.Settings().End); err != nil {
		return r, err
	}
	r.Steps = time.Since(t0)
	runtime.KeepAlive(m)
	runtime.KeepAlive(s)
	return r, nil
}

// SizeRows adds the rows of the large-model cases: check and 10 steps of a
// planar and a spatial chain of 10⁴ bodies, and (unless quick) of a planar
// chain of 10⁵ bodies.
func SizeRows(quick bool, add func(Row)) error {
	cases := []struct {
		n       int
		spatial bool
	}{{10000, false}, {10000, true}, {100000, false}}
	if quick {
		cases = cases[:2]
	}
	for _, c := range cases {
		r, err := SizeRun(ChainXML(c.n, c.spatial))
		if err != nil {
			return err
		}
		label := fmt.Sprintf("planar chain, N = %d", c.n)
		if c.spatial {
			label = fmt.Sprintf("spatial chain, N = %d", c.n)
		}
		want := c.n
		if c.spatial {
			want = 3 * c.n
		}
		add(Row{label, "check (set-up)", r.Check.Seconds(), "s", "", "", pass(r.DOF == want)})
		add(Row{label, "10 steps (h = 1 ms)", r.Steps.Seconds(), "s", "", "", ""})
		add(Row{label, "heap after set-up", r.Heap / 1e6, "MB", "", "", ""})
	}
	return nil
}
