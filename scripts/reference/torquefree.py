"""Torque-free axisymmetric rigid body: closed form vs numerical integration.
Body principal inertia (A, A, C) (z = symmetry axis), no forces.  Closed form:
  w3 = const;  transverse body components rotate at  lam = (C - A)/A * w3  (body frame, about +z_body)
  H = |J w| = sqrt(A^2 (w1^2+w2^2) + C^2 w3^2) const;  symmetry axis precesses about H at  Omega_p = H/A
  nutation angle: cos(theta) = C w3 / H;  world angular velocity w = Omega_p h - lam e3 (spin rate relative to the precessing plane psi_dot = -lam = (A-C) w3/A),
  so |w|^2 = Omega_p^2 + lam^2 - 2 Omega_p lam cos(theta).
Run: /usr/bin/python3 torquefree.py"""
import numpy as np
from topode import *

def run(A, C, w0, T=10.0):
    top = Top(1.0, [A, A, C], [0, 0, 0], [0, 0, 0])
    q0 = np.array([1.0, 0, 0, 0]); w0 = np.array(w0, float)
    ts = np.linspace(0, T, 2001)
    sol = top.solve(q0, w0, ts, rtol=1e-12, atol=1e-13)
    H = np.array([A*w0[0], A*w0[1], C*w0[2]]); Hn = np.linalg.norm(H); h = H/Hn
    lam = (C - A)/A*w0[2]; Wp = Hn/A; th = np.arccos(C*w0[2]/Hn)
    # numerical: body-frame transverse angle rate, precession of the symmetry axis about h
    wb = sol.y[4:]
    ang_b = np.unwrap(np.arctan2(wb[1], wb[0]))
    lam_num = np.polyfit(ts, ang_b, 1)[0]
    ax = np.array([qrot(sol.y[:4, k])[:, 2] for k in range(len(ts))])
    e1 = np.cross(h, [1, 0, 0]) if abs(h[0]) < 0.9 else np.cross(h, [0, 1, 0]); e1 /= np.linalg.norm(e1); e2 = np.cross(h, e1)
    ang_s = np.unwrap(np.arctan2(ax @ e2, ax @ e1))
    Wp_num = np.polyfit(ts, ang_s, 1)[0]
    th_num = np.arccos(ax @ h)
    print(f"A={A} C={C} w0={w0}: H={Hn:.12f}")
    print(f"  lam  closed={lam:.12f}  numeric={lam_num:.12f}")
    print(f"  Om_p closed={Wp:.12f}  numeric={Wp_num:.12f}")
    print(f"  theta closed={np.degrees(th):.10f} deg  numeric range=[{np.degrees(th_num.min()):.10f},{np.degrees(th_num.max()):.10f}]")
    print(f"  |w| = {np.linalg.norm(w0):.12f};  sqrt(Op^2+lam^2-2 Op lam cos th) = {np.sqrt(Wp**2+lam**2-2*Wp*lam*np.cos(th)):.12f}")
    # world angular velocity decomposition: w = Om_p * h + lam * e3
    k = len(ts)//3
    R = qrot(sol.y[:4, k]); ww = R @ wb[:, k]
    print(f"  check w_world = Op*h - lam*axis at t={ts[k]:.3f}: {np.max(np.abs(ww - (Wp*h - lam*R[:, 2]))):.1e}")

run(2.0, 1.0, [1.0, 0.0, 3.0])     # prolate (C < A)
run(1.0, 2.0, [0.5, 0.0, 2.0])     # oblate (C > A)
