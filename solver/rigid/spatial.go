package rigid

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"mbfmu/solver/mech"
	"mbfmu/spec"
)

// This file compiles the spatial rigid bodies of a model. A body has the
// coordinates of mech.Frame's layout (centre of mass and orientation
// quaternion; its velocity and its angular velocity in the body frame), a
// constant mass matrix diag(m I, J) with J the inertia tensor about the
// centre of mass in the body frame, and a gyroscopic force element
// −ω × (J ω).

// SpatialBodies compiles the ground markers and the bodies of a spatial
// model.
func SpatialBodies(b mech.Builder, ms *spec.Model) {
	g := b.Gravity()
	for _, mk := range ms.Ground.Markers {
		R := orientation(b, &mk.Orient, "ground marker "+mk.Name)
		f := mech.Frame{Body: -1, Q: -1, V: -1, S: vec3(b, mk.At), R: R}
		if !b.DefineMarker("ground."+mk.Name, mech.Marker{F: f, P: mech.Point{Body: -1}}) {
			b.Errorf(mk.Pos, "name", "duplicate ground marker %q", mk.Name)
		}
	}
	for i := range ms.Bodies {
		bs := &ms.Bodies[i]
		if bs.Inertia.Given() {
			b.Errorf(bs.Inertia.Pos, "inertia", "body %q: a spatial body's inertia is a tensor: inertia=\"Jxx, Jyy, Jzz\" (and optionally Jxy, Jxz, Jyz)", bs.Name)
		}
		if bs.Omega.Given() {
			b.Errorf(bs.Omega.Pos, "omega", "body %q: a spatial body's angular velocity is a vector (omega=\"wx, wy, wz\")", bs.Name)
		}
		if bs.Shape.Outline != nil || bs.Shape.Radius != 0 {
			b.Errorf(bs.Pos, "shape", "body %q: <shape> outlines are planar; draw spatial bodies with <box>, <cylinder>, <sphere>", bs.Name)
		}
		mass := b.Const(bs.Mass, math.NaN())
		if !bs.Mass.Given() {
			b.Errorf(bs.Pos, "mass", "body %q needs a mass", bs.Name)
		} else if !(mass > 0) {
			b.Errorf(bs.Mass.Pos, "mass", "mass of body %q must be positive, got %g kg", bs.Name, mass)
		}
		J := inertiaTensor(b, bs)
		cm := vec3(b, bs.CM)
		at := vec3(b, bs.At)
		R := orientation(b, &bs.Orient, "body "+bs.Name)
		vel := vec3(b, bs.Vel)
		om := vec3(b, bs.AngVel)
		for k := 0; k < 3; k++ {
			checkSpeed(b, bs.Name, bs.Vel[k], vel[k])
			checkSpeed(b, bs.Name, bs.AngVel[k], om[k])
		}
		var omW, omB mech.Vec3 // world and body frame
		switch bs.AngVelFrame {
		case "", "body":
			omB, omW = om, mech.MulMV(&R, om)
		case "global", "world":
			omW, omB = om, mech.MulMTV(&R, om)
		default:
			b.Errorf(bs.Pos, "omega-frame", "body %q: omega-frame must be body or global, got %q", bs.Name, bs.AngVelFrame)
		}
		acm := mech.MulMV(&R, cm)
		qt, vt := mech.GrowFrame(b, mech.Add(at, acm), R, mech.Add(vel, mech.Cross(omW, acm)), omB)
		vr := vt + 3
		for k := 0; k < 3; k++ {
			b.AddMass(vt+k, mass)
			if mass > 0 {
				b.AddGravity(vt+k, mass*g[k])
			}
		}
		if J[1] == 0 && J[2] == 0 && J[5] == 0 {
			for k := 0; k < 3; k++ {
				b.AddMass(vr+k, J[4*k])
			}
		} else {
			b.AddMassBlock([]int{vr, vr + 1, vr + 2}, J[:])
		}
		info := mech.BodyInfo{Name: bs.Name, Spatial: true, Q: qt, V: vt, Mass: mass, Inertia: J, CM: cm}
		k := b.AddBody(info)
		frame := func(s mech.Vec3, r mech.Mat3) mech.Frame {
			return mech.Frame{Body: k, Q: qt, V: vt, S: mech.Sub(s, cm), R: r}
		}
		b.DefineMarker(bs.Name, mech.Marker{F: frame(mech.Vec3{}, mech.Ident), P: mech.Point{Body: k}})
		bi := b.BodyInfo(k)
		for _, mk := range bs.Markers {
			at := vec3(b, mk.At)
			r := orientation(b, &mk.Orient, "marker "+bs.Name+"."+mk.Name)
			if !b.DefineMarker(bs.Name+"."+mk.Name, mech.Marker{F: frame(at, r), P: mech.Point{Body: k}}) {
				b.Errorf(mk.Pos, "name", "duplicate marker %q on body %q", mk.Name, bs.Name)
			}
			bi.Markers = append(bi.Markers, mk.Name)
			bi.Local = append(bi.Local, mech.Frame{Body: k, S: at, R: r})
		}
		for _, sd := range bs.Solids {
			bi.Shapes = append(bi.Shapes, solid(b, bs.Name, &sd))
		}
		// ω × J ω vanishes only for an isotropic tensor
		if iso := J[1] == 0 && J[2] == 0 && J[5] == 0 && J[0] == J[4] && J[4] == J[8]; !iso {
			b.AddForce(bs.Name+"#gyro", mech.NewGyroscopic(J, vr))
		}
	}
}

// inertiaTensor reads a spatial body's inertia tensor (body frame, about
// the centre of mass) and checks that it is physical: symmetric positive
// definite with principal moments satisfying the triangle inequalities
// (each at most the sum of the other two: a real mass distribution).
func inertiaTensor(b mech.Builder, bs *spec.Body) mech.Mat3 {
	it := bs.InertiaTensor
	if !it[0].Given() && !it[1].Given() && !it[2].Given() {
		b.Errorf(bs.Pos, "inertia", "body %q needs an inertia tensor about its centre of mass (inertia=\"Jxx, Jyy, Jzz\")", bs.Name)
		return mech.Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}
	}
	var c [6]float64
	for k := range c {
		c[k] = b.Const(it[k], 0)
	}
	pos := it[0].Pos
	J := mech.Mat3{c[0], c[3], c[4], c[3], c[1], c[5], c[4], c[5], c[2]}
	if bs.InertiaOrient.Given() {
		if c[3] != 0 || c[4] != 0 || c[5] != 0 {
			b.Errorf(pos, "inertia", "body %q: with principal axes give the three principal moments only", bs.Name)
		}
		R := orientation(b, &bs.InertiaOrient, "inertia axes of body "+bs.Name)
		D := mech.Mat3{c[0], 0, 0, 0, c[1], 0, 0, 0, c[2]}
		RD := mech.MulMM(&R, &D)
		Rt := mech.Transpose(&R)
		J = mech.MulMM(&RD, &Rt)
	}
	ev := principal(&J)
	if !(ev[0] > 0) {
		b.Errorf(pos, "inertia", "inertia tensor of body %q is not positive definite (principal moments %.6g, %.6g, %.6g kg·m²)", bs.Name, ev[0], ev[1], ev[2])
		return J
	}
	if ev[2] > (ev[0]+ev[1])*(1+1e-9) {
		b.Errorf(pos, "inertia", "inertia tensor of body %q violates the triangle inequality: the largest principal moment %.6g exceeds the sum of the others %.6g + %.6g kg·m² (no mass distribution has it)", bs.Name, ev[2], ev[0], ev[1])
	}
	return J
}

// principal returns the eigenvalues of a symmetric 3×3 matrix, ascending.
func principal(J *mech.Mat3) [3]float64 {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(3, []float64{J[0], J[1], J[2], J[1], J[4], J[5], J[2], J[5], J[8]}), false) {
		return [3]float64{math.NaN(), math.NaN(), math.NaN()}
	}
	v := es.Values(nil)
	sort.Float64s(v)
	return [3]float64{v[0], v[1], v[2]}
}

// solid converts a drawing solid.
func solid(b mech.Builder, body string, sd *spec.Solid) mech.GeomShape {
	sh := mech.GeomShape{Kind: sd.Kind, Color: sd.Color}
	switch sd.Kind {
	case "box":
		sh.Size = vec3(b, sd.Size)
	case "cylinder":
		sh.Radius, sh.Length = b.Const(sd.Radius, 0), b.Const(sd.Length, 0)
	case "sphere":
		sh.Radius = b.Const(sd.Radius, 0)
	default:
		b.Errorf(sd.Pos, "kind", "body %q: unknown solid %q (box, cylinder, sphere)", body, sd.Kind)
	}
	sh.P = vec3(b, sd.At)
	R := orientation(b, &sd.Orient, "a "+sd.Kind+" of body "+body)
	sh.Q = mech.MatQuat(&R)
	return sh
}
