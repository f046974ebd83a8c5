package study

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodStudy = `<?xml version="1.0"?>
<study name="osc" description="a test">
  <model path="testdata/oscillator.xml" end="0.5 s"/>
  <factor name="k" param="k" min="50 N/m" max="0.2 kN/m" levels="4"/>
  <factor name="x0" param="x0" values="50 100 mm"/>
  <design kind="full-factorial"/>
  <response name="quarter" kind="crossing" when="-m.x"/>
  <response name="vmax" kind="max-abs" signal="m.vx"/>
  <response name="w" expr="vmax/x0" unit="rad/s"/>
</study>
`

// TestParseGood reads a valid file: units, levels, defaults.
func TestParseGood(t *testing.T) {
	st, err := Parse([]byte(goodStudy), "study.xml")
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "osc" || st.Target.Kind != "model" || st.Target.End != 0.5 {
		t.Errorf("study = %q %q end %g", st.Name, st.Target.Kind, st.Target.End)
	}
	if want := filepath.Join("testdata", "oscillator.xml"); st.Target.Path != want {
		t.Errorf("path %q, want %q (relative to the study file)", st.Target.Path, want)
	}
	k := st.Factors[0]
	want := []float64{50, 100, 150, 200}
	for i, v := range want {
		if math.Abs(k.Levels[i]-v) > 1e-12 {
			t.Errorf("k level %d = %g, want %g", i, k.Levels[i], v)
		}
	}
	x0 := st.Factors[1]
	if len(x0.Levels) != 2 || x0.Levels[0] != 0.05 || x0.Levels[1] != 0.1 {
		t.Errorf("x0 levels %v, want [0.05 0.1] (a shared unit)", x0.Levels)
	}
	if len(st.Responses) != 3 || st.Responses[2].Kind != KindExpression {
		t.Errorf("responses %+v", st.Responses)
	}
	if got := spaced(1, 100, 3, true); math.Abs(got[1]-10) > 1e-12 || got[2] != 100 {
		t.Errorf("log levels %v, want 1 10 100", got)
	}
}

// TestParseErrors checks that each problem is reported as file:line:
// field: message, every problem at once.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"unknown attribute with suggestion", `<factor name="k" parm="k" min="1" max="2"/>`,
			[]string{`s.xml:4: parm: unknown attribute of <factor>; did you mean "param"?`}},
		{"bad unit", `<factor name="k" param="k" min="1 kgg" max="2"/>`,
			[]string{"s.xml:4: min: "}},
		{"max below min", `<factor name="k" param="k" min="2" max="1"/>`,
			[]string{"s.xml:4: max: max 1 must be greater than min 2"}},
		{"levels without bounds", `<factor name="k" param="k" levels="3"/>`,
			[]string{"s.xml:4: levels: levels needs min and max"}},
		{"normal without sd", `<factor name="k" param="k" distribution="normal"/>`,
			[]string{"s.xml:4: distribution: a normal distribution needs sd"}},
		{"duplicate factor", `<factor name="k" param="k" min="1" max="2"/><factor name="k" param="k" min="1" max="2"/>`,
			[]string{`factor "k" already defined on line 4`}},
		{"unknown element", `<factr name="k"/>`,
			[]string{`s.xml:4: <factr>: unknown element in <study>; did you mean "factor"?`}},
		{"response without kind", `<factor name="k" param="k" min="1" max="2"/><response name="r" signal="m.x"/>`,
			[]string{"s.xml:4: kind: <response> needs kind="}},
		{"unknown response kind", `<factor name="k" param="k" min="1" max="2"/><response name="r" kind="maxx" signal="m.x"/>`,
			[]string{`s.xml:4: kind: unknown response kind "maxx"; did you mean "max"?`}},
		{"transposed letters", `<factor name="k" param="k" min="1" max="2"/><response name="r" kind="mxa" signal="m.x"/>`,
			[]string{`s.xml:4: kind: unknown response kind "mxa"; did you mean "max"?`}},
		{"settling without band", `<factor name="k" param="k" min="1" max="2"/><response name="r" kind="settling-time" signal="m.x"/>`,
			[]string{"s.xml:4: band: a settling-time response needs band="}},
		{"at needs at or when", `<factor name="k" param="k" min="1" max="2"/><response name="r" kind="at" signal="m.x"/>`,
			[]string{"s.xml:4: at: an \"at\" response needs"}},
		{"objective of unknown response", `<factor name="k" param="k" min="1" max="2"/><objective response="dist" goal="maximize"/>`,
			[]string{`s.xml:4: response: no response "dist"`}},
		{"optimise without objective", `<factor name="k" param="k" min="1" max="2"/><optimize/>`,
			[]string{"s.xml:4: <optimize>: an optimisation needs an <objective"}},
		{"lhs without seed", `<factor name="k" param="k" min="1" max="2"/><design kind="latin-hypercube" runs="5"/>`,
			[]string{"s.xml:4: seed: a latin-hypercube design needs seed="}},
		{"factorial without levels", `<factor name="k" param="k" min="1" max="2"/><design kind="full-factorial"/>`,
			[]string{"s.xml:4: levels: factor k needs levels"}},
		{"case of unknown factor", `<factor name="k" param="k" min="1" max="2"/><design kind="cases"><case kk="1"/></design>`,
			[]string{`s.xml:4: kk: no factor "kk"; did you mean "k"?`}},
		{"constraint without bounds", `<factor name="k" param="k" min="1" max="2"/><constraint response="r"/>`,
			[]string{"s.xml:4: max: a constraint needs min="}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "<study name=\"s\">\n  <model path=\"m.xml\"/>\n  <response name=\"r\" kind=\"final\" signal=\"m.x\"/>\n  " + c.body + "\n  <design kind=\"one-at-a-time\"/>\n</study>\n"
			if strings.Contains(c.body, "<design") {
				src = strings.Replace(src, "  <design kind=\"one-at-a-time\"/>\n", "", 1)
			}
			_, err := Parse([]byte(src), "s.xml")
			if err == nil {
				t.Fatalf("no error for\n%s", src)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

// TestPrepareErrors checks problems found against the model: unknown
// parameters, channels and names in expressions, with the study's lines.
func TestPrepareErrors(t *testing.T) {
	dir := t.TempDir()
	model, _ := filepath.Abs("testdata/oscillator.xml")
	src := `<study name="s">
  <model path="` + model + `"/>
  <factor name="kk" param="kx" min="1" max="2" levels="2"/>
  <design kind="full-factorial"/>
  <response name="r" kind="final" signal="m.xx"/>
  <response name="q" kind="max" channel="m.vy2"/>
</study>`
	path := filepath.Join(dir, "s.xml")
	os.WriteFile(path, []byte(src), 0o644)
	st, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(st)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		path + `:3: param: model ` + model + ` has no parameter "kx"; did you mean "k"?`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error\n%v\ndoes not contain %q", err, w)
		}
	}
	st.Factors[0].Param = "k"
	_, err = Prepare(st)
	if err == nil {
		t.Fatal("no error for unknown channels")
	}
	for _, w := range []string{path + `:5: signal: `, `m.xx`, path + `:6: channel: no result channel "m.vy2"; did you mean "m.vy"?`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error\n%v\ndoes not contain %q", err, w)
		}
	}
}
