"""Steady conical motion (spherical pendulum / rigid body about a fixed pivot), checked numerically.
Symmetric body, pivot on its symmetry axis, CM at distance l from the pivot along the axis
(pointing away from the pivot, the body hanging below it), inertia about the CM: transverse A_cm,
axial C.  A = A_cm + m l^2 (transverse, about the pivot).  Body turning rigidly with the cone
(no spin relative to the vertical plane through the axis), axis at half-angle beta from the
downward vertical:   Omega^2 = m g l / ((A - C) cos(beta)).
Run: /usr/bin/python3 conical.py"""
import numpy as np
from topode import *

g = 9.81
def omega(m, l, Acm, C, beta):
    A = Acm + m*l*l
    return np.sqrt(m*g*l/((A - C)*np.cos(beta)))

def check(name, m, l, Acm, C, beta, T=5.0):
    W = omega(m, l, Acm, C, beta)
    # body axes: z = symmetry axis pointing from pivot to CM; start with axis in the x-z plane
    top = Top(m, [Acm, Acm, C], [0, 0, l], [0, 0, -g])
    R0 = np.array([[np.cos(beta), 0, np.sin(beta)], [0, 1, 0], [-np.sin(beta), 0, -np.cos(beta)]])
    # columns: body x, y, z in world; body z = (sin b, 0, -cos b) (hanging, tilted by beta)
    R0 = np.column_stack([[np.cos(beta), 0, np.sin(beta)], [0, -1, 0], [np.sin(beta), 0, -np.cos(beta)]])
    assert abs(np.linalg.det(R0) - 1) < 1e-12
    from scipy.spatial.transform import Rotation
    qx = Rotation.from_matrix(R0).as_quat()  # x,y,z,w
    q0 = np.array([qx[3], qx[0], qx[1], qx[2]])
    w0 = R0.T @ np.array([0, 0, W])          # world angular velocity Omega*z
    ts = np.linspace(0, T, 501)
    sol = top.solve(q0, w0, ts, rtol=1e-12, atol=1e-13)
    ax = np.array([qrot(sol.y[:4, k])[:, 2] for k in range(len(ts))])
    b = np.arccos(-ax[:, 2])
    az = np.unwrap(np.arctan2(ax[:, 1], ax[:, 0]))
    rate = np.polyfit(ts, az, 1)[0]
    print(f"{name:34s} beta={np.degrees(beta):5.1f} deg  Omega={W:.10f} rad/s  "
          f"max|beta(t)-beta|={np.max(np.abs(b-beta)):.1e} rad  fitted rate={rate:.10f}")
    return W

b30 = np.radians(30)
check("point mass L=1 m (tiny sphere A_cm=C)", 1.0, 1.0, 1e-6, 1e-6, b30)
check("uniform thin rod 1 m (C=1e-8), end pivot", 1.0, 0.5, 1.0/12, 1e-8, b30)
check("body m=2, l=0.5, A_cm=0.05, C=0.01", 2.0, 0.5, 0.05, 0.01, b30)
check("disc-like body m=2, l=0.3, A_cm=0.05, C=0.1", 2.0, 0.3, 0.05, 0.1, np.radians(45))
print("closed form point mass: sqrt(g/(L cos b)) =", np.sqrt(g/np.cos(b30)))
