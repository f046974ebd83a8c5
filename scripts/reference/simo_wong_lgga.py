"""Independent Lie-group generalized-alpha (Bruls, Cardona & Arnold 2012; Arnold-Bruls form)
for the Simo-Wong heavy top.

Models (pick with the `model` argument):
  "R3xSO3": ONE free rigid body, index 3.  CENTRE-OF-MASS form:
            q = (x, R), x = world CoM position; v = (xdot world, w body);
            M = diag(m I3, J_cm); g(q,v) = (m g e_z, w x J_cm w);
            spherical joint: world position of the pivot body point (-s from CoM) is 0:
                Phi(q) = x - R s = 0,    B = dPhi = [I3, R [s]x].
            Group: R^3 x SO(3): x+ = x + dx, R+ = R exp([dth]x).
  "SO3":    rotation about the fixed point only, no constraint:
            q = R, v = w body, M = J_O, g = w x J_O w - s x R^T(-m g e_z).
  "SE3":    (extra, for the explanation) same free body but on SE(3) with velocities
            in the BODY frame (u = R^T xdot, w) and the reference point AT THE PIVOT
            (body origin), i.e. M = [[m I, -m[s]x],[m[s]x, J_O]], Phi = x = 0.

Scheme (index 3):
  q+ = q o exp(h v + h^2(1/2-beta) a + h^2 beta a+),  v+ = v + h(1-gamma) a + h gamma a+,
  (1-am) a+ + am a = (1-af) vd+ + af vd,
  M(q+) vd+ + g(q+, v+) + B(q+)^T lam+ = 0,   Phi(q+) = 0.
Unknowns per step: (vd+, lam+), Newton with a forward-difference Jacobian
(re-evaluated every iteration), stop when the Newton update is < 1e-13 relative.

Run with Debian's python3-numpy and python3-scipy (minutes per case):
    /usr/bin/python3 scripts/reference/simo_wong_lgga.py R3xSO3 0.8 0.009
Findings (examples/simo-wong-top/README.md): the index-3 R^3 x SO(3) form with
the centre of mass as reference point is unstable at rho_inf = 0.8 above about
Omega h = 0.37 (h = 8, 9, 10 ms blow up, fully converged); SO3, SE3 and the
pivot-reference forms are stable and identical.
"""
import sys
import numpy as np

m, grav = 20.0, 1.0
s = np.array([0.0, 0.0, 1.0])
J_cm = np.diag([5.0, 5.0, 1.0])
J_O = J_cm + m * (s @ s * np.eye(3) - np.outer(s, s))
ez = np.array([0.0, 0.0, 1.0])
a0 = 0.05
R0 = np.array([[1, 0, 0], [0, np.cos(a0), -np.sin(a0)], [0, np.sin(a0), np.cos(a0)]])
w0 = np.array([0.0, 0.0, 50.0])


def hat(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def expSO3(th):
    """Rodrigues formula."""
    a = np.linalg.norm(th)
    K = hat(th)
    if a < 1e-8:
        return np.eye(3) + K + 0.5 * K @ K
    return np.eye(3) + np.sin(a) / a * K + (1 - np.cos(a)) / a**2 * K @ K


def TSO3(th):
    """Left Jacobian of SO(3), used by the SE(3) exponential: exp([u;th]) = (exp th, T(th) u)."""
    a = np.linalg.norm(th)
    K = hat(th)
    if a < 1e-8:
        return np.eye(3) + 0.5 * K + K @ K / 6
    return np.eye(3) + (1 - np.cos(a)) / a**2 * K + (a - np.sin(a)) / a**3 * K @ K


# ---------------------------------------------------------------- models
class R3xSO3:
    n, nc = 6, 3
    def init(self):  # consistent position / velocity
        x = R0 @ s
        xd = R0 @ np.cross(w0, s)                      # Phi_dot = xd + R[s]x w = 0
        return (x, R0.copy()), np.concatenate([xd, w0])
    def compose(self, q, d):
        return (q[0] + d[:3], q[1] @ expSO3(d[3:]))
    def M(self, q):
        return np.block([[m * np.eye(3), np.zeros((3, 3))], [np.zeros((3, 3)), J_cm]])
    def g(self, q, v):
        return np.concatenate([m * grav * ez, np.cross(v[3:], J_cm @ v[3:])])
    def Phi(self, q):
        return q[0] - q[1] @ s
    def B(self, q):
        return np.hstack([np.eye(3), q[1] @ hat(s)])
    def acc_rhs(self, q, v):                           # B vd = -(dB/dt) v
        w = v[3:]
        return -q[1] @ np.cross(w, np.cross(s, w))
    def cm(self, q):
        return q[0]
    def energy(self, q, v):
        return 0.5 * v @ self.M(q) @ v + m * grav * q[0][2]


class R3xSO3p(R3xSO3):
    """R^3 x SO(3) again, but reference point = body origin AT THE PIVOT (x = pivot position):
    M = [[m I, -m R[s]x], [m [s]x R^T, J_O]], Phi = x.  (Velocity terms in xdot cancel exactly
    by the Jacobi identity, so g has no xdot terms.)"""
    def init(self):
        return (np.zeros(3), R0.copy()), np.concatenate([np.zeros(3), w0])
    def M(self, q):
        R = q[1]
        return np.block([[m * np.eye(3), -m * R @ hat(s)], [m * hat(s) @ R.T, J_O]])
    def g(self, q, v):
        R, w = q[1], v[3:]
        return np.concatenate([m * R @ np.cross(w, np.cross(w, s)) + m * grav * ez,
                               np.cross(w, J_O @ w) - np.cross(s, R.T @ (-m * grav * ez))])
    def Phi(self, q):
        return q[0]
    def B(self, q):
        return np.hstack([np.eye(3), np.zeros((3, 3))])
    def acc_rhs(self, q, v):
        return np.zeros(3)
    def cm(self, q):
        return q[0] + q[1] @ s
    def energy(self, q, v):
        return 0.5 * v @ self.M(q) @ v + m * grav * self.cm(q)[2]


class SE3:
    n, nc = 6, 3
    def init(self):
        return (np.zeros(3), R0.copy()), np.concatenate([np.zeros(3), w0])
    def compose(self, q, d):                           # (x,R) o exp(d), d = (u, th) body frame
        return (q[0] + q[1] @ TSO3(d[3:]) @ d[:3], q[1] @ expSO3(d[3:]))
    def M(self, q):
        return np.block([[m * np.eye(3), -m * hat(s)], [m * hat(s), J_O]])
    def g(self, q, v):
        # Body-frame Newton-Euler about the body origin: M vd + ad*_v (M v) + gravity = 0
        u, w = v[:3], v[3:]
        p = self.M(q) @ v                              # (linear, angular) momentum in body frame
        gyro = np.concatenate([np.cross(w, p[:3]), np.cross(w, p[3:]) + np.cross(u, p[:3])])
        fg = q[1].T @ (-m * grav * ez)                 # gravity at the CoM, body frame
        return gyro - np.concatenate([fg, np.cross(s, fg)])
    def Phi(self, q):
        return q[0]
    def B(self, q):
        return np.hstack([q[1], np.zeros((3, 3))])
    def acc_rhs(self, q, v):                           # d/dt(R u) = R(w x u + ud)
        return -q[1] @ np.cross(v[3:], v[:3])
    def cm(self, q):
        return q[0] + q[1] @ s
    def energy(self, q, v):
        return 0.5 * v @ self.M(q) @ v + m * grav * self.cm(q)[2]


class SE3c(SE3):
    """SE(3), body-frame velocities (u = R^T xdot, w), reference point AT THE CoM
    (same mass matrix as R3xSO3: diag(m I, J_cm)), pivot constraint Phi = x - R s,
    B = [R, R[s]x].  Only the Lie group differs from "R3xSO3"."""
    def init(self):
        return (R0 @ s, R0.copy()), np.concatenate([np.cross(w0, s), w0])
    def M(self, q):
        return np.block([[m * np.eye(3), np.zeros((3, 3))], [np.zeros((3, 3)), J_cm]])
    def g(self, q, v):
        u, w = v[:3], v[3:]
        return np.concatenate([m * np.cross(w, u) - q[1].T @ (-m * grav * ez),
                               np.cross(w, J_cm @ w)])
    def Phi(self, q):
        return q[0] - q[1] @ s
    def B(self, q):
        return np.hstack([q[1], q[1] @ hat(s)])
    def acc_rhs(self, q, v):
        u, w = v[:3], v[3:]
        return -q[1] @ np.cross(w, u + np.cross(s, w))
    def cm(self, q):
        return q[0]


class SO3:
    n, nc = 3, 0
    def init(self):
        return R0.copy(), w0.copy()
    def compose(self, q, d):
        return q @ expSO3(d)
    def M(self, q):
        return J_O
    def g(self, q, v):
        return np.cross(v, J_O @ v) - np.cross(s, q.T @ (-m * grav * ez))
    def Phi(self, q):
        return np.zeros(0)
    def B(self, q):
        return np.zeros((0, 3))
    def acc_rhs(self, q, v):
        return np.zeros(0)
    def cm(self, q):
        return q @ s
    def energy(self, q, v):
        return 0.5 * v @ J_O @ v + m * grav * (q @ s)[2]


MODELS = {"R3xSO3": R3xSO3, "R3xSO3p": R3xSO3p, "SE3": SE3, "SE3c": SE3c, "SO3": SO3}


# ---------------------------------------------------------------- integrator
def run(model, rho, h, T=10.0, tol=1e-13, maxit=40):
    P = MODELS[model]()
    n, nc = P.n, P.nc
    am = (2 * rho - 1) / (rho + 1)
    af = rho / (rho + 1)
    gam = 0.5 + af - am
    beta = 0.25 * (gam + 0.5) ** 2
    q, v = P.init()
    # consistent initial acceleration: [M B^T; B 0][vd; lam] = [-g; acc_rhs]
    B = P.B(q)
    K = np.block([[P.M(q), B.T], [B, np.zeros((nc, nc))]])
    vd = np.linalg.solve(K, np.concatenate([-P.g(q, v), P.acc_rhs(q, v)]))[:n]
    a = vd.copy()
    cscale = 1.0 / (beta * h * h)                     # scale Phi rows (index-3 conditioning)

    def step_state(z):
        vdn = z[:n]
        an = ((1 - af) * vdn + af * vd - am * a) / (1 - am)
        qn = P.compose(q, h * v + h * h * (0.5 - beta) * a + h * h * beta * an)
        vn = v + h * (1 - gam) * a + h * gam * an
        return qn, vn, an

    def resid(z):
        qn, vn, _ = step_state(z)
        r = P.M(qn) @ z[:n] + P.g(qn, vn) + P.B(qn).T @ z[n:]
        return np.concatenate([r, cscale * P.Phi(qn)])

    nsteps = int(round(T / h))
    out = [(0.0, *P.cm(q), *v[-3:], P.energy(q, v))]
    t_fail, maxit_used, res_dyn, res_phi, blown = None, 0, 0.0, 0.0, False
    z = np.concatenate([vd, np.zeros(nc)])
    for k in range(nsteps):
        r = resid(z)
        for it in range(maxit):
            J = np.empty((n + nc, n + nc))
            for j in range(n + nc):                    # forward-difference Jacobian
                e = 1e-7 * max(1.0, abs(z[j]))
                zp = z.copy(); zp[j] += e
                J[:, j] = (resid(zp) - r) / e
            dz = np.linalg.solve(J, -r)
            z = z + dz
            # converged: update below tol, or residual at round-off level
            # (dynamics rows < 1e-12 N, |Phi| < 1e-15 m)
            r = resid(z)
            if (np.abs(dz).max() <= tol * max(1.0, np.abs(z).max())
                    or (np.abs(r[:n]).max() < 1e-12 and np.abs(r[n:]).max(initial=0) < 1e-15 * cscale)):
                break
        else:
            t_fail = (k + 1) * h if t_fail is None else t_fail   # first non-converged step
        if t_fail is None:                             # statistics over converged steps
            maxit_used = max(maxit_used, it + 1)
            res_dyn = max(res_dyn, np.abs(r[:n]).max())
            res_phi = max(res_phi, np.abs(r[n:]).max(initial=0) / cscale)
        q, v, a = step_state(z)
        vd = z[:n].copy()
        t = (k + 1) * h
        out.append((t, *P.cm(q), *v[-3:], P.energy(q, v)))
        if not np.isfinite(z).all() or abs(out[-1][-1] / out[0][-1] - 1) > 10:
            blown = True                               # blown up: |E-E0| > 10 E0, stop
            break
    return np.array(out), (t_fail, maxit_used, res_dyn, res_phi, blown)


def summarize(model, rho, h, ref):
    res, (t_fail, nit, rdyn, rphi, blown) = run(model, rho, h)
    E = res[:, -1]; E0 = E[0]
    rel = (E - E0) / E0
    line = f"{model:7s} rho={rho:<4} h={h*1e3:4.1f}ms "
    if blown:
        t3 = res[np.argmax(np.abs(rel) > 1e-3), 0]
        line += (f"UNSTABLE: |dE|/E0 > 1e-3 at t={t3:.2f}s, > 10 at t={res[-1, 0]:.2f}s (run stopped); "
                 f"min cm_z before that={res[:-1, 3].min():.5f} ")
    else:
        line += (f"max|dE|/E0={np.abs(rel).max():8.2e} final dE/E0={rel[-1]:+9.2e} "
                 f"min cm_z={res[:, 3].min():.5f} ")
    line += f"Newton(converged steps): max_it={nit} max|r_dyn|={rdyn:.0e}N max|Phi|={rphi:.0e}m"
    if t_fail is not None:
        kf = int(round(t_fail / h))
        line += f"  NEWTON FAILED first at t={t_fail:.3f}s (dE/E0 there {rel[min(kf, len(rel) - 1)]:+.1e})"
    for tt in (1.0, 10.0):
        k = int(tt / h + 1e-9)                           # last step at or before tt
        if k < len(res):
            kr = int(round(res[k, 0] / 0.02))        # same instant in reference.csv (every 20 ms)
            if abs(res[k, 0] - 0.02 * kr) < 1e-9:
                line += f"  |dcm|(t={tt:g})={np.linalg.norm(res[k, 1:4] - ref[kr, 1:4]):.2e}"
    print(line, flush=True)
    return res


if __name__ == "__main__":
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    ref = np.loadtxt(os.path.join(here, "../../examples/simo-wong-top/reference.csv"), delimiter=",", skiprows=1)
    cases = [("R3xSO3", 0.8, h) for h in (0.009, 0.010, 0.008, 0.007, 0.004, 0.001)]
    cases += [("R3xSO3", r, 0.009) for r in (0.9, 0.99, 1.0)]
    cases += [("SO3", 0.8, h) for h in (0.009, 0.010)]
    cases += [("SE3", 0.8, h) for h in (0.009, 0.010)]
    cases += [("R3xSO3p", 0.8, h) for h in (0.009, 0.010)]
    cases += [("SE3c", 0.8, h) for h in (0.009, 0.010)] + [("SE3c", 1.0, 0.009)]
    cases += [("R3xSO3", r, 0.009) for r in (0.7, 0.5, 0.0)]
    cases += [("SO3", 1.0, 0.009), ("R3xSO3", 1.0, 0.001)]
    if len(sys.argv) > 1:                             # e.g. python3 lgga.py R3xSO3 0.8 0.009
        cases = [(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]))]
    for c in cases:
        summarize(*c, ref)
