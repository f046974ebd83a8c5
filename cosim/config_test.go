package cosim

import (
	"path/filepath"
	"strings"
	"testing"
)

// Errors name the line of the attribute at fault, also in start tags
// written over several lines, of the <settings> attribute (not the root's
// line), of the <connect> that closes an algebraic loop (not line 0), and
// of the component that fails during the run.
func TestConfigErrorLines(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "body.xml", freeBody)
	chain, _ := filepath.Abs("../examples/spring-chain/model.xml")
	for _, c := range []struct {
		name, src, want string
	}{
		{"settings attribute", `<?xml version="1.0"?>
<cosim name="x">
  <settings end="1"
            step="0.3"/>
  <model name="p" path="body.xml"/>
</cosim>`, "c.xml:4: settings: the run 0 … 1 s is not a whole number of steps of 0.3 s"},
		{"settings extrapolate", `<cosim>
  <settings end="1"
            extrapolate="maybe"/>
  <model name="p" path="body.xml"/>
</cosim>`, `c.xml:3: extrapolate: "maybe" is not true or false`},
		{"settings end", `<cosim>

  <settings start="2"
     end="1"/>
  <model name="p" path="body.xml"/>
</cosim>`, "c.xml:4: settings: end 1 s must be after start 2 s"},
		{"check until", `<cosim>
  <model name="p" path="body.xml"/>
  <check signal="p.x" after="2 s"
         until="1 s" max-abs="1"/>
</cosim>`, "c.xml:4: <check>: until 1 s is before after 2 s"},
		{"unknown attribute", `<cosim>
  <model name="p"
         path="body.xml"
         colour="red"/>
</cosim>`, `c.xml:4: <model>: unknown attribute "colour"`},
		{"unused attribute", `<cosim>
  <model name="p" path="body.xml"/>
  <pid name="c" kp="1"
       inputs="a"/>
</cosim>`, `c.xml:4: <pid>: unknown attribute "inputs"`},
		{"parameter unit", `<cosim>
  <model name="p" path="` + chain + `">
    <parameter name="k"
               value="5 kg"/>
  </model>
</cosim>`, `c.xml:4: <parameter name="k">: value "5 kg": unit "kg" is a mass, but k is in N/m (a stiffness)`},
		{"start unit", `<cosim>
  <model name="p" path="body.xml">
    <start name="F" value="3 m"/>
  </model>
</cosim>`, `c.xml:3: <start name="F">: value "3 m": unit "m" is a length, but F is in N (a force)`},
		{"algebraic loop", `<cosim>
  <model name="p" path="body.xml"/>
  <pid name="a" kp="1"/>
  <pid name="b" kp="1"/>
  <connect from="p.x" to="a.y"/>
  <connect from="p.x" to="b.y"/>
  <connect from="a.u" to="b.r"/>
  <connect from="b.u" to="a.r"/>
</cosim>`, "c.xml:7: algebraic loop among the direct components a, b"},
	} {
		cfg, err := ParseConfig([]byte(c.src), filepath.Join(dir, "c.xml"))
		if err == nil {
			var m *Master
			m, err = New(cfg, Options{})
			if err == nil {
				m.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error\n  %v\nwant one containing\n  %s", c.name, err, c.want)
		}
	}
}

// A component failing during the run is reported at its line.
func TestRunErrorLine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "body.xml", freeBody)
	p := writeFile(t, dir, "c.xml", `<cosim>
  <settings end="2 s" step="10 ms"/>
  <model name="p" path="body.xml"/>
  <signal name="s"
          expr="sqrt(1 - time)"/>
  <connect from="s.y" to="p.F"/>
</cosim>`)
	m := newMaster(t, p, Options{})
	sum, err := m.Run(RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "c.xml:4: evaluating s (signal) at t = 1.01 s") {
		t.Errorf("run error %v", err)
	}
	if sum == nil || sum.Stopped == nil || sum.End > 1.01+1e-9 {
		t.Errorf("summary %+v", sum)
	}
}

// A value with a unit is converted to the unit the model declares: the
// spring chain's k in N/m from kN/m, m in kg from g; a plain number is
// taken as written.
func TestParameterUnits(t *testing.T) {
	dir := t.TempDir()
	chain, _ := filepath.Abs("../examples/spring-chain/model.xml")
	p := writeFile(t, dir, "c.xml", `<cosim>
  <model name="p" path="`+chain+`">
    <parameter name="k" value="2 kN/m"/>
    <parameter name="m" value="500 g"/>
    <parameter name="a" value="0.25"/>
  </model>
</cosim>`)
	m := newMaster(t, p, Options{})
	mc, ok := m.comps[0].(*modelComp)
	if !ok {
		t.Fatalf("component %T", m.comps[0])
	}
	if mc.params["k"] != 2000 || mc.params["m"] != 0.5 || mc.params["a"] != 0.25 {
		t.Errorf("parameters %v", mc.params)
	}
}
