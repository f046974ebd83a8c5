"""mbref: small independent rigid multibody reference integrator (numpy only).

Not related to the mbfmu engine. Bodies carry (r, q, v, w): CM position (world),
unit quaternion world<-body (w,x,y,z), CM velocity (world), angular velocity in
body axes.  Holonomic scleronomic constraints are built from three primitives
(point coincidence, perpendicular body vectors, vector perpendicular to a
point-to-point vector).  At each RHS evaluation

    M du = F + J^T lam,   J du = gamma

is solved with lam from (J M^-1 J^T) lam = gamma - J M^-1 F by least squares
(numpy.linalg.lstsq), so redundant constraints (Bricard) are handled.  Time
integration is classical RK4 with fixed step followed by projection of
positions (Newton, minimum-norm) and velocities onto the constraint manifold.
"""
import numpy as np

GROUND = -1


def skew(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1*w2 - x1*x2 - y1*y2 - z1*z2,
                     w1*x2 + x1*w2 + y1*z2 - z1*y2,
                     w1*y2 - x1*z2 + y1*w2 + z1*x2,
                     w1*z2 + x1*y2 - y1*x2 + z1*w2])


def qrot(q):
    w, x, y, z = q
    return np.array([[1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)],
                     [2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)],
                     [2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)]])


def qaxis(axis, ang):
    u = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[np.cos(ang/2)], np.sin(ang/2)*u])


def qfrommat(R):
    """Quaternion (w>=0) from rotation matrix."""
    t = np.trace(R)
    if t > 0:
        s = 2*np.sqrt(t+1)
        q = np.array([s/4, (R[2, 1]-R[1, 2])/s, (R[0, 2]-R[2, 0])/s, (R[1, 0]-R[0, 1])/s])
    else:
        i = np.argmax(np.diag(R))
        j, k = (i+1) % 3, (i+2) % 3
        s = 2*np.sqrt(1 + R[i, i] - R[j, j] - R[k, k])
        q = np.zeros(4)
        q[0] = (R[k, j]-R[j, k])/s
        q[1+i] = s/4
        q[1+j] = (R[j, i]+R[i, j])/s
        q[1+k] = (R[k, i]+R[i, k])/s
    return q if q[0] >= 0 else -q


class System:
    def __init__(self, g=(0, 0, -9.81)):
        self.g = np.array(g, float)
        self.m, self.J, self.r, self.q, self.v, self.w = [], [], [], [], [], []
        self.cons = []  # list of (kind, data)

    def body(self, m, J, r, R=np.eye(3)):
        self.m.append(float(m)); self.J.append(np.array(J, float))
        self.r.append(np.array(r, float)); self.q.append(qfrommat(np.asarray(R, float)))
        self.v.append(np.zeros(3)); self.w.append(np.zeros(3))
        return len(self.m) - 1

    # -- helpers to express world data in body coordinates at the current state
    def _A(self, b, state=None):
        if b == GROUND:
            return np.eye(3)
        q = (state or self.state())[1][b]
        return qrot(q)

    def local_point(self, b, pw):
        if b == GROUND:
            return np.array(pw, float)
        return qrot(self.q[b]).T @ (np.array(pw, float) - self.r[b])

    def local_vec(self, b, vw):
        vw = np.array(vw, float)
        return vw if b == GROUND else qrot(self.q[b]).T @ vw

    # -- joint builders (world data at the current configuration)
    def spherical(self, a, b, pw):
        self.cons.append(('pt', (a, self.local_point(a, pw), b, self.local_point(b, pw))))

    def perp(self, a, ua, b, ub):
        """(A_a ua).(A_b ub) = 0 with ua, ub given in WORLD at the current configuration."""
        self.cons.append(('perp', (a, self.local_vec(a, ua), b, self.local_vec(b, ub))))

    def perpd(self, a, ua, pa, b, pb):
        """(A_a ua).(p_b - p_a) = 0, ua direction on a; points pa on a, pb on b (world now)."""
        self.cons.append(('perpd', (a, self.local_vec(a, ua), self.local_point(a, pa), b, self.local_point(b, pb))))

    def revolute(self, a, b, pw, axis):
        axis = np.array(axis, float) / np.linalg.norm(axis)
        t1 = np.cross(axis, [1, 0, 0]) if abs(axis[0]) < 0.9 else np.cross(axis, [0, 1, 0])
        t1 /= np.linalg.norm(t1); t2 = np.cross(axis, t1)
        self.spherical(a, b, pw)
        self.perp(a, t1, b, axis)
        self.perp(a, t2, b, axis)

    def universal(self, a, pin_a, b, pin_b, pw):
        self.spherical(a, b, pw)
        self.perp(a, pin_a, b, pin_b)

    def prismatic(self, a, b, pw, axis):
        """b translates relative to a along axis (world); all relative rotation locked."""
        axis = np.array(axis, float) / np.linalg.norm(axis)
        t1 = np.cross(axis, [1, 0, 0]) if abs(axis[0]) < 0.9 else np.cross(axis, [0, 1, 0])
        t1 /= np.linalg.norm(t1); t2 = np.cross(axis, t1)
        self.perpd(a, t1, pw, b, pw)
        self.perpd(a, t2, pw, b, pw)
        self.perp(a, t1, b, t2)
        self.perp(a, t1, b, axis)
        self.perp(a, t2, b, axis)

    # -- state handling
    def state(self):
        return [list(self.r), list(self.q), list(self.v), list(self.w)]

    def nb(self):
        return len(self.m)

    def rows(self, st):
        """Return phi (n), J (n x 6nb), gamma (n)."""
        r, q, v, w = st
        nb = self.nb()
        A = [qrot(qq) for qq in q]
        Ag = np.eye(3)

        def get(b):
            if b == GROUND:
                return np.zeros(3), Ag, np.zeros(3), np.zeros(3)
            return r[b], A[b], v[b], w[b]
        phis, Js, gs = [], [], []
        for kind, d in self.cons:
            if kind == 'pt':
                a, sa, b, sb = d
                ra, Aa, va, wa = get(a); rb, Ab, vb, wb = get(b)
                phi = ra + Aa @ sa - rb - Ab @ sb
                Jr = np.zeros((3, 6*nb))
                if a != GROUND:
                    Jr[:, 6*a:6*a+3] = np.eye(3); Jr[:, 6*a+3:6*a+6] = -Aa @ skew(sa)
                if b != GROUND:
                    Jr[:, 6*b:6*b+3] = -np.eye(3); Jr[:, 6*b+3:6*b+6] = Ab @ skew(sb)
                g = -(Aa @ np.cross(wa, np.cross(wa, sa)) - Ab @ np.cross(wb, np.cross(wb, sb)))
                phis += list(phi); Js.append(Jr); gs += list(g)
            elif kind == 'perp':
                a, ua, b, ub = d
                ra, Aa, va, wa = get(a); rb, Ab, vb, wb = get(b)
                av, bv = Aa @ ua, Ab @ ub
                Jr = np.zeros((1, 6*nb))
                if a != GROUND:
                    Jr[0, 6*a+3:6*a+6] = np.cross(ua, Aa.T @ bv)
                if b != GROUND:
                    Jr[0, 6*b+3:6*b+6] = np.cross(ub, Ab.T @ av)
                ad, bd = Aa @ np.cross(wa, ua), Ab @ np.cross(wb, ub)
                g = -(bv @ (Aa @ np.cross(wa, np.cross(wa, ua))) + av @ (Ab @ np.cross(wb, np.cross(wb, ub))) + 2*ad @ bd)
                phis.append(av @ bv); Js.append(Jr); gs.append(g)
            elif kind == 'perpd':
                a, ua, sa, b, sb = d
                ra, Aa, va, wa = get(a); rb, Ab, vb, wb = get(b)
                av = Aa @ ua
                dvec = rb + Ab @ sb - ra - Aa @ sa
                Jr = np.zeros((1, 6*nb))
                if a != GROUND:
                    Jr[0, 6*a:6*a+3] = -av
                    Jr[0, 6*a+3:6*a+6] = np.cross(ua, Aa.T @ dvec) - np.cross(sa, Aa.T @ av)
                if b != GROUND:
                    Jr[0, 6*b:6*b+3] = av
                    Jr[0, 6*b+3:6*b+6] = np.cross(sb, Ab.T @ av)
                ad = Aa @ np.cross(wa, ua)
                dd = vb + Ab @ np.cross(wb, sb) - va - Aa @ np.cross(wa, sa)
                g = -(dvec @ (Aa @ np.cross(wa, np.cross(wa, ua)))
                      + av @ (Ab @ np.cross(wb, np.cross(wb, sb)) - Aa @ np.cross(wa, np.cross(wa, sa)))
                      + 2*ad @ dd)
                phis.append(av @ dvec); Js.append(Jr); gs.append(g)
        return np.array(phis), np.vstack(Js), np.array(gs)

    def accel(self, st):
        """Return du (6nb), lam, J."""
        r, q, v, w = st
        nb = self.nb()
        Minv = np.zeros(6*nb); F = np.zeros(6*nb)
        for i in range(nb):
            Minv[6*i:6*i+3] = 1/self.m[i]
            Minv[6*i+3:6*i+6] = 1/self.J[i]
            F[6*i:6*i+3] = self.m[i]*self.g
            F[6*i+3:6*i+6] = -np.cross(w[i], self.J[i]*w[i])
        phi, J, gam = self.rows(st)
        JM = J * Minv
        S = JM @ J.T
        lam = np.linalg.lstsq(S, gam - JM @ F, rcond=1e-12)[0]
        du = Minv*(F + J.T @ lam)
        return du, lam, J

    def deriv(self, st):
        r, q, v, w = st
        du, _, _ = self.accel(st)
        nb = self.nb()
        dr = [v[i] for i in range(nb)]
        dq = [0.5*qmul(q[i], np.concatenate([[0], w[i]])) for i in range(nb)]
        dv = [du[6*i:6*i+3] for i in range(nb)]
        dw = [du[6*i+3:6*i+6] for i in range(nb)]
        return dr, dq, dv, dw

    @staticmethod
    def axpy(st, h, d):
        return [[st[k][i] + h*d[k][i] for i in range(len(st[k]))] for k in range(4)]

    def rk4(self, st, h):
        k1 = self.deriv(st)
        k2 = self.deriv(self.axpy(st, h/2, k1))
        k3 = self.deriv(self.axpy(st, h/2, k2))
        k4 = self.deriv(self.axpy(st, h, k3))
        d = [[(k1[k][i] + 2*k2[k][i] + 2*k3[k][i] + k4[k][i])/6 for i in range(len(st[k]))] for k in range(4)]
        out = self.axpy(st, h, d)
        out[1] = [qq/np.linalg.norm(qq) for qq in out[1]]
        return out

    def project(self, st, fixed=None, tol=1e-14):
        """Project positions and velocities.  fixed: list of velocity-vector indices held fixed
        in the velocity projection (used to impose an initial crank speed)."""
        r, q, v, w = [list(x) for x in st]
        nb = self.nb()
        for _ in range(10):
            phi, J, _ = self.rows([r, q, v, w])
            if np.max(np.abs(phi)) < tol:
                break
            dx = np.linalg.lstsq(J, phi, rcond=1e-12)[0]
            for i in range(nb):
                r[i] = r[i] - dx[6*i:6*i+3]
                th = -dx[6*i+3:6*i+6]
                n = np.linalg.norm(th)
                if n > 0:
                    q[i] = qmul(q[i], qaxis(th, n)); q[i] /= np.linalg.norm(q[i])
        phi, J, _ = self.rows([r, q, v, w])
        u = np.concatenate([np.concatenate([v[i], w[i]]) for i in range(nb)])
        if fixed:
            free = [k for k in range(6*nb) if k not in fixed]
            du = np.zeros(6*nb)
            du[free] = np.linalg.lstsq(J[:, free], -(J @ u), rcond=1e-12)[0]
            u = u + du
        else:
            u = u - np.linalg.lstsq(J, J @ u, rcond=1e-12)[0]
        v = [u[6*i:6*i+3] for i in range(nb)]
        w = [u[6*i+3:6*i+6] for i in range(nb)]
        return [r, q, v, w]

    def energy(self, st):
        r, q, v, w = st
        E = 0.0
        for i in range(self.nb()):
            E += 0.5*self.m[i]*v[i] @ v[i] + 0.5*w[i] @ (self.J[i]*w[i]) - self.m[i]*self.g @ r[i]
        return E
