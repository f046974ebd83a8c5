package cosim

import (
	"fmt"
	"math"
	"testing"

	"mbfmu/control"
	"mbfmu/solver"
	"mbfmu/spec"
	"mbfmu/xml"
)

// This file checks examples/robot-arm: a spatial three-axis arm (base yaw,
// shoulder and elbow pitch) packed as an FMU and following a joint
// trajectory under three PID controllers. The reference is the arm's
// Lagrangian dynamics in joint coordinates, written out below.

const robotArmDir = "../examples/robot-arm/"

// arm holds the data of examples/robot-arm/model.xml: the turret's inertia
// about the vertical axis (its centre of mass is on it); the upper arm's
// mass, the distance of its centre of mass from the shoulder along the
// link, its length and its principal inertias about the centre of mass
// (x along the link, y the pitch axis, z the third axis); the same for the
// forearm from the elbow; gravity.
type arm struct {
	I1                        float64
	m2, c2, L2, Ix2, Iy2, Iz2 float64
	m3, c3, Ix3, Iy3, Iz3     float64
	g                         float64
}

var robotArm = arm{
	I1: 0.025,
	m2: 4, c2: 0.2, L2: 0.45, Ix2: 0.008, Iy2: 0.07, Iz2: 0.07,
	m3: 2.5, c3: 0.18, Ix3: 0.004, Iy3: 0.035, Iz3: 0.035,
	g: 9.81,
}

// mass returns the joint-space mass matrix M(q) (M₁₂ = M₁₃ = 0: the yaw
// axis is perpendicular to the pitch axes) and the partial derivatives
// of its configuration-dependent entries. With q₂ the upper arm's
// elevation, φ = q₂ + q₃ the forearm's and ρ = L₂ cos q₂ + c₃ cos φ the
// forearm's centre of mass's distance from the yaw axis, the kinetic
// energy ½ q̇ᵀ M q̇ of the three links gives
//
//	M₁₁ = I₁ + Ix₂ sin²q₂ + (Iz₂ + m₂c₂²) cos²q₂ + Ix₃ sin²φ + Iz₃ cos²φ + m₃ρ²
//	M₂₂ = Iy₂ + m₂c₂² + Iy₃ + m₃(L₂² + c₃² + 2L₂c₃ cos q₃)
//	M₂₃ = Iy₃ + m₃(c₃² + L₂c₃ cos q₃),  M₃₃ = Iy₃ + m₃c₃².
func (a arm) mass(q [3]float64) (M [3][3]float64, d11dq2, d11dq3, d22dq3, d23dq3 float64) {
	q2, q3 := q[1], q[2]
	phi := q2 + q3
	s2, c2 := math.Sincos(q2)
	sp, cp := math.Sincos(phi)
	rho := a.L2*c2 + a.c3*cp
	M[0][0] = a.I1 + a.Ix2*s2*s2 + (a.Iz2+a.m2*a.c2*a.c2)*c2*c2 + a.Ix3*sp*sp + a.Iz3*cp*cp + a.m3*rho*rho
	M[1][1] = a.Iy2 + a.m2*a.c2*a.c2 + a.Iy3 + a.m3*(a.L2*a.L2+a.c3*a.c3+2*a.L2*a.c3*math.Cos(q3))
	M[1][2] = a.Iy3 + a.m3*(a.c3*a.c3+a.L2*a.c3*math.Cos(q3))
	M[2][1] = M[1][2]
	M[2][2] = a.Iy3 + a.m3*a.c3*a.c3
	d11dq2 = (a.Ix2-a.Iz2-a.m2*a.c2*a.c2)*math.Sin(2*q2) + (a.Ix3-a.Iz3)*math.Sin(2*phi) + 2*a.m3*rho*(-a.L2*s2-a.c3*sp)
	d11dq3 = (a.Ix3-a.Iz3)*math.Sin(2*phi) - 2*a.m3*rho*a.c3*sp
	d22dq3 = -2 * a.m3 * a.L2 * a.c3 * math.Sin(q3)
	d23dq3 = -a.m3 * a.L2 * a.c3 * math.Sin(q3)
	return
}

// torques returns the inverse dynamics, the joint torques that give the
// accelerations qdd at q, qd: Lagrange's equations d/dt ∂T/∂q̇ − ∂T/∂q +
// ∂V/∂q = τ with V = g (m₂c₂ sin q₂ + m₃(L₂ sin q₂ + c₃ sin φ)).
func (a arm) torques(q, qd, qdd [3]float64) [3]float64 {
	M, d11q2, d11q3, d22q3, d23q3 := a.mass(q)
	phi := q[1] + q[2]
	G2 := a.g * (a.m2*a.c2*math.Cos(q[1]) + a.m3*(a.L2*math.Cos(q[1])+a.c3*math.Cos(phi)))
	G3 := a.g * a.m3 * a.c3 * math.Cos(phi)
	return [3]float64{
		M[0][0]*qdd[0] + (d11q2*qd[1]+d11q3*qd[2])*qd[0],
		M[1][1]*qdd[1] + M[1][2]*qdd[2] + d22q3*qd[2]*qd[1] + d23q3*qd[2]*qd[2] - 0.5*d11q2*qd[0]*qd[0] + G2,
		M[2][1]*qdd[1] + M[2][2]*qdd[2] - 0.5*d11q3*qd[0]*qd[0] - 0.5*d22q3*qd[1]*qd[1] + G3,
	}
}

// accel returns the joint accelerations under the torques u (forward
// dynamics): M(q) q̈ = u − (torques at q̈ = 0).
func (a arm) accel(q, qd, u [3]float64) [3]float64 {
	M, _, _, _, _ := a.mass(q)
	n := a.torques(q, qd, [3]float64{})
	r := [3]float64{u[0] - n[0], u[1] - n[1], u[2] - n[2]}
	det := M[1][1]*M[2][2] - M[1][2]*M[2][1]
	return [3]float64{
		r[0] / M[0][0],
		(M[2][2]*r[1] - M[1][2]*r[2]) / det,
		(M[1][1]*r[2] - M[2][1]*r[1]) / det,
	}
}

// step5 is the quintic step of the expression language (as in Adams):
// h0 before x0, h1 after x1, and h0 + (h1 − h0)·s³(10 − 15s + 6s²) with
// s = (x − x0)/(x1 − x0) between; it returns the value and its first two
// derivatives.
func step5(x, x0, h0, x1, h1 float64) (v, d, dd float64) {
	switch {
	case x <= x0:
		return h0, 0, 0
	case x >= x1:
		return h1, 0, 0
	}
	w := x1 - x0
	s := (x - x0) / w
	a := h1 - h0
	return h0 + a*s*s*s*(10-15*s+6*s*s), a * 30 * s * s * (1 - 2*s + s*s) / w, a * 60 * s * (1 - 3*s + 2*s*s) / (w * w)
}

// armTrajectory is the joint trajectory of examples/robot-arm/cosim.xml:
// base 0 → 90° → 0, shoulder 20° → 60° → 20°, elbow −60° → −10° → −60°,
// out from 1 s to 3 s and back from 4.5 s to 6.5 s.
func armTrajectory(t float64) (q, qd, qdd [3]float64) {
	deg := math.Pi / 180
	moves := [3]struct{ start, amp float64 }{{0, math.Pi / 2}, {20 * deg, 40 * deg}, {-60 * deg, 50 * deg}}
	for j, m := range moves {
		v1, d1, dd1 := step5(t, 1, 0, 3, m.amp)
		v2, d2, dd2 := step5(t, 4.5, 0, 6.5, -m.amp)
		q[j], qd[j], qdd[j] = m.start+v1+v2, d1+d2, dd1+dd2
	}
	return
}

// signalExprs returns the expressions of the set-point signals of the
// robot-arm loop, q1_ref … q3_ref.
func signalExprs(t *testing.T) [3]string {
	t.Helper()
	cfg, err := LoadConfig(robotArmDir + "cosim.xml")
	if err != nil {
		t.Fatal(err)
	}
	var ex [3]string
	for _, e := range cfg.Components {
		for j := range ex {
			if e.Kind == "signal" && e.Name == fmt.Sprintf("q%d_ref", j+1) {
				ex[j] = e.Attr["expr"]
			}
		}
	}
	for j, s := range ex {
		if s == "" {
			t.Fatalf("cosim.xml has no signal q%d_ref", j+1)
		}
	}
	return ex
}

// The engine's inverse dynamics: the arm of model.xml with drivers on its
// three joints following the loop's set points (the very expressions of
// cosim.xml's signals), moved by kinematic analysis; the drivers' efforts
// are the joint torques of the trajectory, and they equal the closed form.
func TestRobotArmInverseDynamics(t *testing.T) {
	ms, err := xml.LoadFile(robotArmDir + "model.xml")
	if err != nil {
		t.Fatal(err)
	}
	ex := signalExprs(t)
	for j, joint := range []string{"yaw", "shoulder", "elbow"} {
		ms.Drivers = append(ms.Drivers, spec.Driver{Name: fmt.Sprintf("d%d", j+1), Joint: joint, Value: spec.Expr{Src: ex[j]}})
	}
	m, err := solver.Compile(ms, solver.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	ch := make([]float64, len(m.Channels()))
	idx := func(name string) int {
		k, ok := m.ChannelIndex(name)
		if !ok {
			t.Fatalf("no channel %s", name)
		}
		return k
	}
	eff := [3]int{idx("d1.force"), idx("d2.force"), idx("d3.force")}
	ang := [3]int{idx("yaw.angle"), idx("shoulder.angle"), idx("elbow.angle")}
	worst, scale := [3]float64{}, [3]float64{}
	for k := 0; k <= 800; k++ {
		tk := float64(k) * 0.01
		if k > 0 {
			if err := m.Kinematics(s, tk); err != nil {
				t.Fatal(err)
			}
		}
		m.EvalChannels(s, ch)
		q, qd, qdd := armTrajectory(tk)
		tau := robotArm.torques(q, qd, qdd)
		for j := range 3 {
			if d := math.Abs(ch[ang[j]] - q[j]); d > 1e-9 {
				t.Fatalf("t = %g s: joint %d at %.12g rad, the trajectory says %.12g", tk, j+1, ch[ang[j]], q[j])
			}
			worst[j] = math.Max(worst[j], math.Abs(ch[eff[j]]-tau[j]))
			scale[j] = math.Max(scale[j], math.Abs(tau[j]))
		}
	}
	for j := range 3 {
		t.Logf("joint %d: peak torque %.5g N·m, largest difference engine − closed form %.3g N·m", j+1, scale[j], worst[j])
		if worst[j] > 1e-6*scale[j] {
			t.Errorf("joint %d: driver effort differs from the closed-form torque by %.3g N·m (peak %.4g N·m)", j+1, worst[j], scale[j])
		}
	}
}

// runRobotArm runs examples/robot-arm/cosim.xml with the plant packed by
// fmu.Pack (as `mbfmu pack` does) and run in-process.
func runRobotArm(t *testing.T) (*Master, *Summary, *memWriter) {
	t.Helper()
	fmuPath := packFMU(t, robotArmDir+"model.xml", t.TempDir())
	cfg := loadWithPaths(t, robotArmDir+"cosim.xml", map[string]string{"plant": fmuPath})
	m, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if f := m.comps[0].(*fmuComp); !f.inProc {
		t.Fatal("the packed robot-arm FMU is not recognised as an mbfmu FMU")
	}
	w := &memWriter{}
	sum, err := m.Run(RunOptions{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	return m, sum, w
}

// pidConfigs returns the configurations of the loop's PIDs pid1 … pid3.
func pidConfigs(t *testing.T, m *Master) [3]control.PIDConfig {
	t.Helper()
	var cfg [3]control.PIDConfig
	found := 0
	for _, c := range m.comps {
		for j := range cfg {
			if c.base().name == fmt.Sprintf("pid%d", j+1) {
				cfg[j] = c.(*blockComp).r.Block().(*control.PIDBlock).PID().Config()
				found++
			}
		}
	}
	if found != 3 {
		t.Fatalf("found %d of the PIDs pid1 … pid3", found)
	}
	return cfg
}

// closedFormLoop runs the loop of cosim.xml on the closed-form dynamics:
// the same PIDs sampled every h with the torques held in between (as the
// master does), the arm integrated by RK4 with sub steps of h/sub. It
// returns the tracking errors q − q_ref and the torques at the sampling
// instants k·h, k = 0 … n.
func closedFormLoop(t *testing.T, cfgs [3]control.PIDConfig, h float64, n, sub int) (e, u [][3]float64) {
	t.Helper()
	var pids [3]*control.PID
	for j := range pids {
		p, err := control.NewPID(cfgs[j])
		if err != nil {
			t.Fatal(err)
		}
		pids[j] = p
	}
	q, _, _ := armTrajectory(0)
	var qd [3]float64
	deriv := func(q, qd, tau [3]float64) ([3]float64, [3]float64) { return qd, robotArm.accel(q, qd, tau) }
	for k := 0; k <= n; k++ {
		tk := float64(k) * h
		r, _, _ := armTrajectory(tk)
		var uk, ek [3]float64
		for j := range pids {
			uk[j] = pids[j].Update(r[j], q[j], h)
			ek[j] = q[j] - r[j]
		}
		e, u = append(e, ek), append(u, uk)
		hs := h / float64(sub)
		for range sub {
			add := func(a, b [3]float64, s float64) [3]float64 {
				return [3]float64{a[0] + s*b[0], a[1] + s*b[1], a[2] + s*b[2]}
			}
			k1q, k1v := deriv(q, qd, uk)
			k2q, k2v := deriv(add(q, k1q, hs/2), add(qd, k1v, hs/2), uk)
			k3q, k3v := deriv(add(q, k2q, hs/2), add(qd, k2v, hs/2), uk)
			k4q, k4v := deriv(add(q, k3q, hs), add(qd, k3v, hs), uk)
			for j := range 3 {
				q[j] += hs / 6 * (k1q[j] + 2*k2q[j] + 2*k3q[j] + k4q[j])
				qd[j] += hs / 6 * (k1v[j] + 2*k2v[j] + 2*k3v[j] + k4v[j])
			}
		}
	}
	return e, u
}

// The loop through the packed FMU passes its checks, and its tracking
// errors and torques are those of the same PIDs on the closed-form
// dynamics; while the arm moves, the PIDs' torques are the inverse
// dynamics of the trajectory.
func TestRobotArmTracks(t *testing.T) {
	m, sum, w := runRobotArm(t)
	if !sum.Passed() {
		t.Errorf("checks of the example failed:\n%s", sum)
	}
	ts := w.col(t, "time")
	const h = 1e-3
	n := len(ts) - 1
	for k, tk := range ts {
		if math.Abs(tk-float64(k)*h) > 1e-9 {
			t.Fatalf("row %d at t = %g: want a row every millisecond", k, tk)
		}
	}
	ecf, ucf := closedFormLoop(t, pidConfigs(t, m), h, n, 4)
	for j := range 3 {
		q, ref, u := w.col(t, fmt.Sprintf("plant.q%d", j+1)), w.col(t, fmt.Sprintf("q%d_ref.y", j+1)), w.col(t, fmt.Sprintf("pid%d.u", j+1))
		// sag: the first second, when the arm settles on its start pose
		// (the integrators take its weight); motion: from 1 s on.
		var sag, dSag, peak, peakCF, dPeak, rms, rmsCF, dU, uPeak, dUSag, uSag, dID, idPeak float64
		var rows int
		for k := range ts {
			qr, qrd, qrdd := armTrajectory(ts[k])
			if math.Abs(ref[k]-qr[j]) > 1e-12 {
				t.Fatalf("q%d_ref at t = %g s is %.15g, the trajectory %.15g", j+1, ts[k], ref[k], qr[j])
			}
			e := q[k] - ref[k]
			if ts[k] < 1 {
				sag = math.Max(sag, math.Abs(e))
				dSag = math.Max(dSag, math.Abs(e-ecf[k][j]))
				uSag = math.Max(uSag, math.Abs(u[k]))
				dUSag = math.Max(dUSag, math.Abs(u[k]-ucf[k][j]))
				continue
			}
			dU = math.Max(dU, math.Abs(u[k]-ucf[k][j]))
			uPeak = math.Max(uPeak, math.Abs(u[k]))
			peak, peakCF = math.Max(peak, math.Abs(e)), math.Max(peakCF, math.Abs(ecf[k][j]))
			dPeak = math.Max(dPeak, math.Abs(e-ecf[k][j]))
			rms += e * e
			rmsCF += ecf[k][j] * ecf[k][j]
			rows++
			tau := robotArm.torques(qr, qrd, qrdd)
			dID = math.Max(dID, math.Abs(u[k]-tau[j]))
			idPeak = math.Max(idPeak, math.Abs(tau[j]))
		}
		rms, rmsCF = math.Sqrt(rms/float64(rows)), math.Sqrt(rmsCF/float64(rows))
		t.Logf("joint %d: sag %.4g mrad, torque up to %.4g N·m (differences from the closed-form loop %.3g mrad, %.3g N·m); "+
			"from 1 s: tracking error peak %.4g mrad (closed form %.4g), RMS %.4g mrad (closed form %.4g), largest difference %.3g mrad; "+
			"torque: largest difference %.3g N·m (peak %.4g N·m), within %.3g N·m of the inverse dynamics (peak %.4g N·m)",
			j+1, sag*1e3, uSag, dSag*1e3, dUSag, peak*1e3, peakCF*1e3, rms*1e3, rmsCF*1e3, dPeak*1e3, dU, uPeak, dID, idPeak)
		// The sag: the torques jump by up to a newton-metre per step; the
		// engine restarts its accelerations where an input changes, so the
		// new torque acts from the communication point (second order in
		// the step: 2e-5 of the elbow's sag at 1 ms; before the restart the
		// implicit schemes took it half a step late, 1.7 %).
		if dSag > 1e-3*sag || dUSag > 1e-3*uSag {
			t.Errorf("joint %d: sag %.4g mrad, torque %.4g N·m differ from the closed-form loop's by %.3g mrad, %.3g N·m", j+1, sag*1e3, uSag, dSag*1e3, dUSag)
		}
		if dPeak > 2e-3*peak {
			t.Errorf("joint %d: tracking error differs from the closed-form loop's by %.3g mrad (peak %.4g mrad)", j+1, dPeak*1e3, peak*1e3)
		}
		if math.Abs(rms-rmsCF) > 0.001*rmsCF {
			t.Errorf("joint %d: RMS tracking error %.4g mrad, closed-form loop %.4g mrad", j+1, rms*1e3, rmsCF*1e3)
		}
		if dU > 2e-3*uPeak {
			t.Errorf("joint %d: torque differs from the closed-form loop's by %.3g N·m (peak %.4g N·m)", j+1, dU, uPeak)
		}
		// The torque is the inverse dynamics of the trajectory but for
		// M·ë, the inertia of the tracking error's own motion.
		if dID > 0.06*idPeak {
			t.Errorf("joint %d: torque differs from the inverse dynamics of the trajectory by %.3g N·m (peak %.4g N·m)", j+1, dID, idPeak)
		}
	}
}
