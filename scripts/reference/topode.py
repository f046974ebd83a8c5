"""Rigid body about a fixed point (pivot at the origin): quaternion + body angular velocity ODE.
   J_O w' = -w x J_O w + s x (R^T m g),   q' = q (x) (0, w)/2,
   J_O = J_cm + m (|s|^2 I - s s^T),  s = CM position in body axes.
Independent of the mbfmu engine; numpy + scipy (DOP853)."""
import numpy as np
from scipy.integrate import solve_ivp


def qrot(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)],
                     [2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)],
                     [2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)]])


class Top:
    def __init__(self, m, Jcm, s, g):
        self.m = m; self.s = np.array(s, float); self.g = np.array(g, float)
        Jcm = np.diag(Jcm) if np.ndim(Jcm) == 1 else np.array(Jcm, float)
        self.JO = Jcm + m*(self.s @ self.s*np.eye(3) - np.outer(self.s, self.s))
        self.JOinv = np.linalg.inv(self.JO)

    def rhs(self, t, y):
        q, w = y[:4], y[4:]
        R = qrot(q)
        tau = np.cross(self.s, R.T @ (self.m*self.g))
        wd = self.JOinv @ (tau - np.cross(w, self.JO @ w))
        qw, qx, qy, qz = q
        qd = 0.5*np.array([-qx*w[0] - qy*w[1] - qz*w[2],
                           qw*w[0] + qy*w[2] - qz*w[1],
                           qw*w[1] - qx*w[2] + qz*w[0],
                           qw*w[2] + qx*w[1] - qy*w[0]])
        return np.concatenate([qd, wd])

    def solve(self, q0, w0, t_eval, rtol=1e-13, atol=1e-14):
        y0 = np.concatenate([q0, w0])
        return solve_ivp(self.rhs, (0, t_eval[-1]), y0, method='DOP853', t_eval=t_eval, rtol=rtol, atol=atol)

    def energy(self, y):
        q, w = y[:4], y[4:]
        return 0.5*w @ self.JO @ w - self.m*self.g @ (qrot(q) @ self.s)

    def H_world(self, y):
        q, w = y[:4], y[4:]
        return qrot(q) @ (self.JO @ w)


def rk4(top, q0, w0, h, T):
    """Independent fixed-step RK4 (for cross-checking DOP853)."""
    y = np.concatenate([q0, w0])
    n = int(round(T/h))
    for _ in range(n):
        k1 = top.rhs(0, y); k2 = top.rhs(0, y + h/2*k1); k3 = top.rhs(0, y + h/2*k2); k4 = top.rhs(0, y + h*k3)
        y = y + h/6*(k1 + 2*k2 + 2*k3 + k4)
        y[:4] /= np.linalg.norm(y[:4])
    return y
