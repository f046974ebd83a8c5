package solver

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mbfmu/xml"
)

// runChannels loads a model file, runs it to each time and returns every
// channel there, by name.
func runChannels(t *testing.T, path string, times []float64) []map[string]float64 {
	t.Helper()
	ms, err := xml.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := mustCompile(t, ms)
	s := mustInit(t, m)
	var out []map[string]float64
	vals := make([]float64, len(m.channels))
	for _, tt := range times {
		if err := m.AdvanceTo(s, tt); err != nil {
			t.Fatal(err)
		}
		m.EvalChannels(s, vals)
		row := map[string]float64{}
		for k, ch := range m.channels {
			row[ch.info.Name] = vals[k]
		}
		out = append(out, row)
	}
	return out
}

// Two instances of a subsystem (a pendulum with a spring, a user state, a
// variable, ports, a parameter set with a unit and one left at its
// default, placed apart) give bit for bit the results of the same model
// written out by hand, every channel at every time; and Flatten writes a
// file that reads back to the same results.
func TestSubsystemMatchesFlat(t *testing.T) {
	times := []float64{0, 0.5, 1, 2}
	inc := runChannels(t, "testdata/subsys/model.xml", times)
	flat := runChannels(t, "testdata/subsys/flat.xml", times)
	data, err := os.ReadFile("testdata/subsys/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	fl, err := xml.Flatten(data, "testdata/subsys/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), "flattened.xml")
	if err := os.WriteFile(tmp, fl, 0o644); err != nil {
		t.Fatal(err)
	}
	written := runChannels(t, tmp, times)
	for k := range times {
		if len(inc[k]) != len(flat[k]) {
			t.Fatalf("%d channels from the includes, %d written flat", len(inc[k]), len(flat[k]))
		}
		for name, v := range flat[k] {
			for what, got := range map[string]map[string]float64{"included": inc[k], "flattened": written[k]} {
				w, ok := got[name]
				if !ok {
					t.Fatalf("%s model has no channel %q", what, name)
				}
				if math.Float64bits(w) != math.Float64bits(v) {
					t.Errorf("t = %g, %s: %s %.17g, flat %.17g", times[k], name, what, w, v)
				}
			}
		}
	}
	if a := inc[3]["p2_pin.angle"]; math.Abs(a+math.Pi/2) > 1 || a == inc[3]["p1_pin.angle"] {
		t.Errorf("the pendulums did not move apart: p1 %g, p2 %g", inc[3]["p1_pin.angle"], a)
	}
}

// Bad includes are refused with the file, line and field, through the
// include chain.
func TestSubsystemErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pend, err := os.ReadFile("testdata/subsys/pend.xml")
	if err != nil {
		t.Fatal(err)
	}
	write("pend.xml", string(pend))
	write("loop_a.xml", "<subsystem>\n<include name=\"b\" file=\"loop_b.xml\"/>\n</subsystem>\n")
	write("loop_b.xml", "<subsystem>\n<include name=\"a\" file=\"loop_a.xml\"/>\n</subsystem>\n")
	write("self.xml", "<subsystem>\n<include name=\"me\" file=\"self.xml\"/>\n</subsystem>\n")
	write("badmass.xml", "<subsystem>\n<port name=\"top\"/>\n<body name=\"b\" mass=\"-1\" inertia=\"1\"/>\n<revolute name=\"r\" i=\"top\" j=\"b\"/>\n</subsystem>\n")
	write("outer.xml", "<subsystem>\n<port name=\"top\"/>\n<include name=\"in\" file=\"badmass.xml\">\n<connect port=\"top\" to=\"top\"/>\n</include>\n</subsystem>\n")
	const head = "<model name=\"m\">\n<ground><marker name=\"A\"/></ground>\n"
	for _, c := range []struct{ body, want string }{
		{`<include name="p" file="pend.xml"><set name="k" value="1"/><connect port="top" to="ground.A"/><connect port="anchor" to="ground.A"/><set name="Lx" value="1"/></include>`,
			`m.xml:3: name: subsystem pend.xml has no parameter "Lx"; did you mean "L"?`},
		{`<include name="p" file="pend.xml"><connect port="top" to="ground.A"/><connect port="anchor" to="ground.A"/></include>`,
			`m.xml:3: <set>: subsystem parameter "k" has no default`},
		{`<include name="p" file="pend.xml"><set name="k" value="1 N/m"/><connect port="top" to="ground.A"/></include>`,
			`m.xml:3: <connect>: port "anchor" of subsystem pend.xml is not connected`},
		{`<include name="p" file="pend.xml"><set name="k" value="1 kg"/><connect port="top" to="ground.A"/><connect port="anchor" to="ground.A"/></include>`,
			`m.xml:3: value:`},
		{`<include name="p" file="self.xml"/>`, `self.xml:2 (in p included at m.xml:3): file: subsystem self.xml includes itself (self.xml → self.xml)`},
		{`<include name="p" file="loop_a.xml"/>`, `loop_b.xml:2 (in p_b included at loop_a.xml:2, in p included at m.xml:3): file: subsystem loop_a.xml includes itself (loop_a.xml → loop_b.xml → loop_a.xml)`},
		{`<include name="p" file="nowhere.xml"/>`, `m.xml:3: file: cannot read subsystem nowhere.xml`},
		{`<include name="p" file="outer.xml"><connect port="top" to="ground.A"/></include>`,
			`badmass.xml:3 (in p_in included at outer.xml:3, in p included at m.xml:3): mass:`},
		{`<include name="p" file="pend.xml"><set name="k" value="1"/><connect port="top" to="ground.A"/><connect port="anchor" to="ground.A"/></include>
<include name="p" file="pend.xml"><set name="k" value="1"/><connect port="top" to="ground.A"/><connect port="anchor" to="ground.A"/></include>`,
			`m.xml:4: name: instance "p" is already included on line 3`},
	} {
		path := filepath.Join(dir, "m.xml")
		write("m.xml", head+c.body+"\n</model>\n")
		ms, err := xml.LoadFile(path)
		if err == nil {
			_, err = Compile(ms, CompileOptions{})
		}
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), ""), c.want) {
			t.Errorf("%s:\n got %v\nwant %q", c.body, err, c.want)
		}
	}
}

// A spatial subsystem placed with a rotation: two instances of a spatial
// pendulum, the second at (2, 0, 0) turned 90° about z (its ground marker
// turned with it); gravity along −z is the same for both, so the second
// tip follows the first turned and shifted, (2 − y, x, z), to round-off
// while they swing.
func TestSubsystemRotatedSpatial(t *testing.T) {
	times := []float64{0, 0.25, 0.5, 1}
	rows := runChannels(t, "testdata/subsys3/model.xml", times)
	moved := false
	for k, r := range rows {
		a := [3]float64{r["a_rod.tip.x"], r["a_rod.tip.y"], r["a_rod.tip.z"]}
		b := [3]float64{r["b_rod.tip.x"], r["b_rod.tip.y"], r["b_rod.tip.z"]}
		want := [3]float64{2 - a[1], a[0], a[2]}
		for i := range b {
			if math.Abs(b[i]-want[i]) > 1e-10 {
				t.Errorf("t = %g: b's tip %v, want %v (a's turned 90° about z, shifted 2 m)", times[k], b, want)
				break
			}
		}
		moved = moved || math.Abs(a[0]-rows[0]["a_rod.tip.x"]) > 0.1
	}
	if !moved {
		t.Error("the pendulums did not swing")
	}
}

// A <set> whose value is an expression of the including model's
// parameters stands for that expression wherever the subsystem uses the
// parameter: the two pendulums with L = 2·Lbase and k = k0/1000 (Lbase =
// 0.75 m, k0 = 5e4 N/m, both exact in binary) run bit for bit as with the
// numbers set, and changing k0 (an FMU parameter) changes the
// instance's spring rate.
func TestSubsystemSetExpression(t *testing.T) {
	dir := t.TempDir()
	pend, err := os.ReadFile("testdata/subsys/pend.xml")
	if err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile("testdata/subsys/model.xml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(model), `<set name="k" value="0.05 N/mm"/>
    <set name="L" value="1.5"/>`, `<set name="k" value="k0/1000"/>
    <set name="L" value="2*Lbase"/>`, 1)
	text = strings.Replace(text, `<settings end="2 s" step="2 ms"/>`, `<settings end="2 s" step="2 ms"/>
  <parameter name="Lbase" value="0.75 m"/>
  <parameter name="k0" value="5e4"/>`, 1)
	if text == string(model) {
		t.Fatal("the test model did not change")
	}
	for name, data := range map[string]string{"pend.xml": string(pend), "model.xml": text} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	times := []float64{0, 0.5, 1, 2}
	want := runChannels(t, "testdata/subsys/model.xml", times)
	got := runChannels(t, filepath.Join(dir, "model.xml"), times)
	for k := range times {
		if len(got[k]) != len(want[k]) {
			t.Fatalf("%d channels with the expressions, %d with the numbers", len(got[k]), len(want[k]))
		}
		for name, v := range want[k] {
			if w, ok := got[k][name]; !ok || math.Float64bits(w) != math.Float64bits(v) {
				t.Errorf("t = %g, %s: %.17g with the expressions, %.17g with the numbers", times[k], name, w, v)
			}
		}
	}
	ms, err := xml.LoadFile(filepath.Join(dir, "model.xml"))
	if err != nil {
		t.Fatal(err)
	}
	m := mustCompile(t, ms)
	for _, p := range m.ParamInfo() {
		if strings.HasPrefix(p.Name, "p2_L") || strings.HasPrefix(p.Name, "p2_k") {
			t.Errorf("parameter %s: a subsystem parameter set by an expression has none of its own", p.Name)
		}
	}
	s := m.NewState()
	for i, p := range m.ParamInfo() {
		if p.Name == "k0" {
			if err := s.SetParam(i, 1e5); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	if f, l := chanAt(t, m, s, "p2_s.force"), chanAt(t, m, s, "p2_s.length"); math.Abs(f-100*(l-0.3)) > 1e-9 {
		t.Errorf("with k0 = 1e5 the second pendulum's spring pulls %.12g N at %.12g m, want k (l − 0.3) with k = k0/1000 = 100 N/m", f, l)
	}
}
