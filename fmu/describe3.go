package fmu

import (
	"strconv"
	"strings"
)

// describeArrays groups the outputs of vector channels into the FMI 3.0
// array outputs, in the order of their first elements, and gives them and
// the independent variable time their value references (after every
// scalar's, so the scalars keep the FMI 2.0 references).
func (d *Description) describeArrays(mi *modelInfo) {
	vr := uint32(len(d.Variables))
	at := map[string]int{}
	for i := range d.Variables {
		v := &d.Variables[i]
		if v.Causality != CausalityOutput || mi.outputs[v.Index].array == "" {
			continue
		}
		o := &mi.outputs[v.Index]
		k, ok := at[o.array]
		if !ok {
			k = len(d.Arrays)
			at[o.array] = k
			desc := v.Description
			if p := strings.LastIndex(desc, " ("); p > 0 && strings.HasSuffix(desc, ")") {
				desc = desc[:p]
			}
			d.Arrays = append(d.Arrays, ArrayVar{Name: o.array, Unit: v.Unit, Description: desc, VR: vr, Dims: o.dims})
			vr++
		}
		d.Arrays[k].Elems = append(d.Arrays[k].Elems, v.VR)
	}
	d.TimeVR = vr
	// terminals: the outputs of channels by element; an array output
	// instead of its elements
	term := map[string]int{}
	seen := map[string]bool{}
	for i := range d.Variables {
		v := &d.Variables[i]
		if v.Causality != CausalityOutput {
			continue
		}
		o := &mi.outputs[v.Index]
		dot := strings.LastIndexByte(o.channel, '.')
		if dot <= 0 {
			continue
		}
		name := v.Name
		if o.array != "" {
			if seen[o.array] {
				continue
			}
			seen[o.array] = true
			name = o.array
		}
		el := o.channel[:dot]
		k, ok := term[el]
		if !ok {
			k = len(d.Terminals)
			term[el] = k
			d.Terminals = append(d.Terminals, Terminal{Name: el})
		}
		d.Terminals[k].Members = append(d.Terminals[k].Members, [2]string{name, o.channel[dot+1:]})
	}
}

// TerminalsXML renders terminalsAndIcons/terminalsAndIcons.xml (FMI 3.0),
// or nil when no output reads an element's channel.
func (d *Description) TerminalsXML() []byte {
	if len(d.Terminals) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<fmiTerminalsAndIcons fmiVersion="3.0">` + "\n  <Terminals>\n")
	for _, t := range d.Terminals {
		b.WriteString("    <Terminal")
		xmlAttr(&b, "name", t.Name)
		xmlAttr(&b, "matchingRule", "bus")
		xmlAttr(&b, "description", "the outputs of "+t.Name+"'s channels, by channel")
		b.WriteString(">\n")
		for _, m := range t.Members {
			b.WriteString("      <TerminalMemberVariable")
			xmlAttr(&b, "variableName", m[0])
			xmlAttr(&b, "memberName", m[1])
			xmlAttr(&b, "variableKind", "signal")
			b.WriteString("/>\n")
		}
		b.WriteString("    </Terminal>\n")
	}
	b.WriteString("  </Terminals>\n</fmiTerminalsAndIcons>\n")
	return []byte(b.String())
}

// XML3 renders modelDescription.xml for FMI 3.0 co-simulation: the same
// variables as the FMI 2.0 description (same value references), as Float64
// variables, plus the independent variable time and the array outputs of
// vector channels.
func (d *Description) XML3() []byte {
	var b strings.Builder
	d.writeHead(&b, "3.0", "instantiationToken")
	for _, f := range fmi3Capabilities {
		if d.Controller {
			switch f[0] {
			case "providesDirectionalDerivatives", "providesAdjointDerivatives", "providesIntermediateUpdate", "canReturnEarlyAfterIntermediateUpdate", "mightReturnEarlyFromDoStep":
				f[1] = "false"
			case "maxOutputDerivativeOrder":
				f[1] = "0"
			}
		}
		xmlAttr(&b, f[0], f[1])
	}
	b.WriteString("/>\n")
	d.writeCommon(&b, true)
	b.WriteString("  <ModelVariables>\n")
	vr := func(r uint32) string { return strconv.FormatUint(uint64(r), 10) }
	b.WriteString("    <Float64")
	xmlAttr(&b, "name", "time")
	xmlAttr(&b, "valueReference", vr(d.TimeVR))
	xmlAttr(&b, "description", "simulation time")
	xmlAttr(&b, "causality", "independent")
	xmlAttr(&b, "variability", "continuous")
	xmlAttr(&b, "unit", "s")
	b.WriteString("/>\n")
	for i := range d.Variables {
		v := &d.Variables[i]
		b.WriteString("    <Float64")
		xmlAttr(&b, "name", v.Name)
		xmlAttr(&b, "valueReference", vr(v.VR))
		if v.Description != "" {
			xmlAttr(&b, "description", v.Description)
		}
		xmlAttr(&b, "causality", v.Causality.String())
		xmlAttr(&b, "variability", v.Variability.String())
		switch v.Causality {
		case CausalityParameter:
			xmlAttr(&b, "initial", "exact")
		case CausalityOutput, CausalityLocal:
			xmlAttr(&b, "initial", "calculated")
		}
		if !d.Controller && (v.Causality == CausalityInput || v.Causality == CausalityOutput) {
			xmlAttr(&b, "intermediateUpdate", "true")
		}
		if v.Unit != "" {
			xmlAttr(&b, "unit", v.Unit)
		}
		if v.HasStart() {
			xmlAttr(&b, "start", ftoa(v.Start))
		}
		if v.Derivative > 0 { // FMI 3.0 names the state by its value reference
			xmlAttr(&b, "derivative", vr(d.Variables[v.Derivative-1].VR))
		}
		b.WriteString("/>\n")
	}
	for _, a := range d.Arrays {
		b.WriteString("    <Float64")
		xmlAttr(&b, "name", a.Name)
		xmlAttr(&b, "valueReference", vr(a.VR))
		if a.Description != "" {
			xmlAttr(&b, "description", a.Description)
		}
		xmlAttr(&b, "causality", "output")
		xmlAttr(&b, "variability", "continuous")
		xmlAttr(&b, "initial", "calculated")
		xmlAttr(&b, "intermediateUpdate", "true")
		if a.Unit != "" {
			xmlAttr(&b, "unit", a.Unit)
		}
		b.WriteString(">\n")
		for _, n := range a.Dims {
			b.WriteString("      <Dimension")
			xmlAttr(&b, "start", strconv.Itoa(n))
			b.WriteString("/>\n")
		}
		b.WriteString("    </Float64>\n")
	}
	b.WriteString("  </ModelVariables>\n  <ModelStructure>\n")
	d.writeStructure3(&b)
	b.WriteString("  </ModelStructure>\n</fmiModelDescription>\n")
	return []byte(b.String())
}

// fmi3Capabilities are the attributes of <CoSimulation> in the FMI 3.0
// description: each "true" is implemented by the runtime (cabi/fmi3.go) and
// tested. Intermediate update, early return on the master's request and
// at a contact event (when the master allows early return) are offered; no
// event mode.
var fmi3Capabilities = [...][2]string{
	{"needsExecutionTool", "false"},
	{"canBeInstantiatedOnlyOncePerProcess", "false"},
	{"canGetAndSetFMUState", "true"},
	{"canSerializeFMUState", "true"},
	{"providesDirectionalDerivatives", "true"},
	{"providesAdjointDerivatives", "true"},
	{"providesPerElementDependencies", "false"},
	{"canHandleVariableCommunicationStepSize", "true"},
	{"maxOutputDerivativeOrder", "1"},
	{"providesIntermediateUpdate", "true"},
	{"mightReturnEarlyFromDoStep", "true"},
	{"canReturnEarlyAfterIntermediateUpdate", "true"},
	{"hasEventMode", "false"},
	{"providesEvaluateDiscreteStates", "false"},
}

// writeStructure3 writes the children of <ModelStructure> for FMI 3.0: the
// dependencies of writeStructure, by value reference (outputs, including
// the arrays, depend on the states; the derivatives as there; every
// output, state and derivative is an initial unknown).
func (d *Description) writeStructure3(b *strings.Builder) {
	vrs := func(dst []byte, at []int) []byte {
		for k, i := range at {
			if k > 0 {
				dst = append(dst, ' ')
			}
			dst = strconv.AppendUint(dst, uint64(d.Variables[i].VR), 10)
		}
		return dst
	}
	stateDeps := string(vrs(nil, d.outputDeps()))
	var buf []byte
	unknown := func(elem string, vr uint32, deps string, depsGiven bool, constant bool) {
		buf = append(buf[:0], "    <"...)
		buf = append(buf, elem...)
		buf = append(buf, " valueReference=\""...)
		buf = strconv.AppendUint(buf, uint64(vr), 10)
		buf = append(buf, '"')
		if depsGiven {
			buf = append(buf, " dependencies=\""...)
			buf = append(buf, deps...)
			buf = append(buf, '"')
			if constant {
				buf = append(buf, " dependenciesKind=\"constant\""...)
			}
		}
		buf = append(buf, "/>\n"...)
		b.Write(buf)
	}
	for i := range d.Variables {
		if d.Variables[i].Causality == CausalityOutput {
			unknown("Output", d.Variables[i].VR, stateDeps, true, false)
		}
	}
	for _, a := range d.Arrays {
		unknown("Output", a.VR, stateDeps, true, false)
	}
	for _, u := range d.derivs {
		unknown("ContinuousStateDerivative", d.Variables[u.at].VR, string(vrs(nil, u.deps)), !u.all, u.constant)
	}
	for i := range d.Variables {
		if c := d.Variables[i].Causality; c == CausalityOutput || c == CausalityLocal {
			unknown("InitialUnknown", d.Variables[i].VR, "", false, false)
		}
	}
	for _, a := range d.Arrays {
		unknown("InitialUnknown", a.VR, "", false, false)
	}
}
