"""Independent reference for examples/simo-wong-top: the Simo-Wong symmetric heavy top.

Another formulation than the engine's (which integrates a free body with a
quaternion, held at the pivot by a spherical joint's three constraint rows):
here the top is a rigid rotation about the fixed pivot, with a rotation
matrix and Euler's equations about the pivot,

    dR/dt = R [w]x                       (w: angular velocity, body frame)
    J_O dw/dt = -w x J_O w + s x R^T(-m g e_z),   J_O = J_cm + m(|s|^2 I - s s^T),

integrated by scipy's DOP853 with rtol = atol = 1e-13 over 0..10 s (energy
and the vertical angular momentum stay constant to about 1e-13).

Run with Debian's python3-numpy and python3-scipy:
    /usr/bin/python3 scripts/reference/simo_wong_top.py examples/simo-wong-top/reference.csv
It writes t, the world position of the centre of mass and the total energy
every 20 ms.
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp

m, g = 20.0, 1.0
s = np.array([0.0, 0.0, 1.0])  # centre of mass in the body frame (m)
J_cm = np.diag([5.0, 5.0, 1.0])  # kg m^2
J_O = J_cm + m * (s @ s * np.eye(3) - np.outer(s, s))  # = diag(25, 25, 1)
J_O_inv = np.linalg.inv(J_O)
ez = np.array([0.0, 0.0, 1.0])


def hat(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def rhs(t, y):
    R, w = y[:9].reshape(3, 3), y[9:]
    tau = np.cross(s, R.T @ (-m * g * ez))  # gravity torque, body frame
    dw = J_O_inv @ (tau - np.cross(w, J_O @ w))
    return np.concatenate([(R @ hat(w)).ravel(), dw])


def energy(R, w):
    return 0.5 * w @ J_O @ w + m * g * (R @ s)[2]


a = 0.05  # initial tilt about the world x axis (rad)
R0 = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
w0 = np.array([0.0, 0.0, 50.0])  # rad/s, body frame

t_eval = np.arange(501) * 0.02
sol = solve_ivp(rhs, (0, 10), np.concatenate([R0.ravel(), w0]), method="DOP853",
                rtol=1e-13, atol=1e-13, t_eval=t_eval)
assert sol.success
rows, E, Lz = [], [], []
for k, t in enumerate(sol.t):
    R, w = sol.y[:9, k].reshape(3, 3), sol.y[9:, k]
    E.append(energy(R, w))
    Lz.append((R @ J_O @ w)[2])
    rows.append([round(t, 12), *(R @ s), E[-1]])
E, Lz = np.array(E), np.array(Lz)
print(f"energy {E[0]:.15g} J, drift {np.abs(E - E[0]).max() / E[0]:.1e}; "
      f"vertical angular momentum {Lz[0]:.15g}, drift {np.abs(Lz - Lz[0]).max() / abs(Lz[0]):.1e}")
np.savetxt(sys.argv[1] if len(sys.argv) > 1 else "reference.csv", np.array(rows), delimiter=",",
           fmt="%.15g", header="time [s],cm_x [m],cm_y [m],cm_z [m],energy [J]", comments="")
