#!/usr/bin/env python3
"""Writes examples/fe-blade: Wu and Haug's slewing beam (L = 8 m, EA =
5.03e6 N, GJ = 6.047e5 N m^2, EI_y = 1.654, EI_z = 566.6 N m^2, 0.2019
kg/m) as an FE program exports a prestressed model: Matrix Market mass and
stiffness matrices, a node list, and the stiffness of the model
prestressed by two inertia loads (K + K_sigma):

  blade_SPINZ.mtx  spinning at 10 rad/s about z through the root (the
                   centrifugal axial force N(x) = mu W^2 (L^2 - x^2)/2);
  blade_ACCX.mtx   accelerating at 5 m/s^2 along x (the root held: N(x) =
                   -mu a (L - x), compression).

The beam lies along x from the origin, 12 Euler-Bernoulli elements with
consistent mass, 6 dofs per node in node order, m-kg-s. K_sigma is the
bending part of the geometric stiffness, int N(x) phi'^T phi' dx over the
Hermite shapes (4-point Gauss, exact).

It also writes reference-eigen.csv: the frequencies (Hz) of the model
clamped at node 1 and reduced onto its lowest MODES clamped modes, in
another formulation than mbfmu's (nodal coordinates of the whole mesh in
the rotating frame, T = 1/2 (q' + B q + c)^T M (q' + B q + c) with B =
[W]x on each node's translations and rotations, and the nodes' rotary
inertia to second order as in rotating(); the linearised Lagrange
equations M q'' + (M B - B^T M - [J W]x) q' + (K + K_sigma - B^T M B - H)
q = const):

  rest      at rest, no prestress;
  spin      spinning at 4 rad/s about z, K_sigma of the spin (N from the
            formula above, not from the files);
  spin0     the same without K_sigma (what the model without <prestress>
            gives);
  hanging   at rest hanging under gravity 9.81 along the beam (tension
            N(x) = mu g (L - x)).

Southwell's coefficient of the first flapwise mode of a rotating
cantilever (zero hub radius) is 1.193: f^2 = f0^2 + 1.193 (W/2pi)^2; the
full mesh here gives the coefficient in southwell.
Run: /usr/bin/python3 scripts/reference/fe_blade.py
"""
import os
import numpy as np
from scipy.linalg import eigh


HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "examples", "fe-blade")

L, NE = 8.0, 12
EA, GJ, EIy, EIz, MU = 5.03e6, 6.047e5, 1.654, 566.6, 0.2019
RJ = 1e-4  # polar mass moment per length (kg m), small
MODES = 10
WP, AP = 10.0, 5.0  # the files' prestress loads
W = 4.0  # the spinning case


def hermite_d(xi, l):
    """derivatives d/dx of the Hermite shapes (v1, th1, v2, th2) at xi in [0, 1]."""
    return np.array([(-6 * xi + 6 * xi * xi) / l, 1 - 4 * xi + 3 * xi * xi,
                     (6 * xi - 6 * xi * xi) / l, -2 * xi + 3 * xi * xi])


def element(x0, l, N):
    """stiffness, mass and geometric stiffness (axial force N(x)) of an element from x0."""
    k = np.zeros((12, 12))
    m = np.zeros((12, 12))
    kg = np.zeros((12, 12))
    for (i, j, c) in [(0, 6, EA / l), (3, 9, GJ / l)]:
        k[np.ix_([i, j], [i, j])] += c * np.array([[1, -1], [-1, 1]])
    m[np.ix_([0, 6], [0, 6])] += MU * l / 6 * np.array([[2, 1], [1, 2]])
    m[np.ix_([3, 9], [3, 9])] += RJ * l / 6 * np.array([[2, 1], [1, 2]])
    mb = MU * l / 420 * np.array([[156, 22 * l, 54, -13 * l], [22 * l, 4 * l * l, 13 * l, -3 * l * l],
                                  [54, 13 * l, 156, -22 * l], [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])
    gx, gw = np.polynomial.legendre.leggauss(4)
    g = np.zeros((4, 4))
    for xg, wg in zip(gx, gw):
        xi = (xg + 1) / 2
        d = hermite_d(xi, l)
        g += wg * l / 2 * N(x0 + xi * l) * np.outer(d, d)
    for idx, s, EI in [([1, 5, 7, 11], np.eye(4), EIz), ([2, 4, 8, 10], np.diag([1, -1, 1, -1]), EIy)]:
        kb = EI / l**3 * np.array([[12, 6 * l, -12, 6 * l], [6 * l, 4 * l * l, -6 * l, 2 * l * l],
                                   [-12, -6 * l, 12, -6 * l], [6 * l, 2 * l * l, -6 * l, 4 * l * l]])
        k[np.ix_(idx, idx)] += s @ kb @ s
        m[np.ix_(idx, idx)] += s @ mb @ s
        kg[np.ix_(idx, idx)] += s @ g @ s
    return k, m, kg


def assemble(N, ne=NE):
    nn = ne + 1
    n = 6 * nn
    K, M, KG = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    l = L / ne
    for e in range(ne):
        k, m, kg = element(e * l, l, N)
        idx = list(range(6 * e, 6 * e + 12))
        K[np.ix_(idx, idx)] += k
        M[np.ix_(idx, idx)] += m
        KG[np.ix_(idx, idx)] += kg
    return K, M, KG


def spin_n(x):
    return MU * (L * L - x * x) / 2  # per (rad/s)^2


def acc_n(x):
    return -MU * (L - x)  # per m/s^2 along +x


def rotating(K, M, KG, w, V):
    """frequencies (Hz) of the reduced model in a frame spinning at w about z."""
    n = K.shape[0]
    B = np.zeros((n, n))
    for nd in range(n // 6):
        for t in (6 * nd, 6 * nd + 3):
            # w x u on the translations, w x theta on the rotations (a
            # node's angular velocity w + theta' - theta x w)
            B[t:t + 3, t:t + 3] = np.array([[0, -w, 0], [w, 0, 0], [0, 0, 0]])
    # the nodes' rotary inertia to second order in their small rotations
    # theta, as mbfmu's FE bodies take it (docs/model-format.md): J the
    # node's rotary inertia (the symmetric part of the sum of its column of
    # rotation blocks of M) adds w^T J (theta x (theta x w)/2 - theta x
    # theta'/2) to T: the stiffness -H, H = (J w w^T + w w^T J)/2 - (w^T J
    # w) I, and the gyroscopic matrix -[J w]x on the node's rotations
    H = np.zeros((n, n))
    Gx = np.zeros((n, n))
    wv = np.array([0, 0, w])
    for nd in range(n // 6):
        r = slice(6 * nd + 3, 6 * nd + 6)
        C = np.zeros((3, 3))
        for a in range(3):
            for b in range(3):
                C[a, b] = M[a + 3::6, 6 * nd + 3 + b].sum()
        J = (C + C.T) / 2
        H[r, r] = (np.outer(J @ wv, wv) + np.outer(wv, J @ wv)) / 2 - (wv @ J @ wv) * np.eye(3)
        c = J @ wv
        Gx[r, r] = -np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    f = slice(6, n)
    Mf, Bf = M[f, f], B[f, f]
    Kt = K[f, f] + w * w * KG[f, f] - Bf.T @ Mf @ Bf - H[f, f]
    Gt = Mf @ Bf - Bf.T @ Mf + Gx[f, f]
    Mr, Kr, Gr = V.T @ Mf @ V, V.T @ Kt @ V, V.T @ Gt @ V
    r = Mr.shape[0]
    A = np.block([[np.zeros((r, r)), np.eye(r)], [-np.linalg.solve(Mr, Kr), -np.linalg.solve(Mr, Gr)]])
    lam = np.linalg.eigvals(A)
    return np.sort(np.abs(lam[lam.imag >= 0])) / (2 * np.pi)


def write_mtx(path, A, note):
    n = A.shape[0]
    ent = [(i + 1, j + 1, A[i, j]) for i in range(n) for j in range(i + 1) if A[i, j] != 0]
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n%% " + note + " (scripts/reference/fe_blade.py)\n")
        f.write("%d %d %d\n" % (n, n, len(ent)))
        for (i, j, v) in ent:
            f.write("%d %d %.17e\n" % (i, j, v))


def main():
    K, M, KGs = assemble(spin_n)
    _, _, KGa = assemble(acc_n)
    n = K.shape[0]
    os.makedirs(OUT, exist_ok=True)
    write_mtx(os.path.join(OUT, "blade_MASS.mtx"), M, "Wu-Haug beam, mass")
    write_mtx(os.path.join(OUT, "blade_STIFF.mtx"), K, "Wu-Haug beam, stiffness")
    write_mtx(os.path.join(OUT, "blade_SPINZ.mtx"), K + WP * WP * KGs, "stiffness prestressed by a spin of 10 rad/s about z")
    write_mtx(os.path.join(OUT, "blade_ACCX.mtx"), K + AP * KGa, "stiffness prestressed by an acceleration of 5 m/s^2 along x")
    with open(os.path.join(OUT, "blade.nodes"), "w") as f:
        f.write("# node x y z (m)\n")
        for i in range(NE + 1):
            f.write("%d %.9g 0 0\n" % (i + 1, L * i / NE))
    fsl = slice(6, n)
    w2, V = eigh(K[fsl, fsl], M[fsl, fsl])
    V = V[:, :MODES]
    cases = {
        "rest": rotating(K, M, 0 * KGs, 0.0, V),
        "spin": rotating(K, M, KGs, W, V),
        "spin0": rotating(K, M, 0 * KGs, W, V),
    }
    # hanging: tension mu g (L - x) = -9.81 x (the acceleration generator)
    Kh = K[fsl, fsl] - 9.81 * KGa[fsl, fsl]
    wh = np.sort(eigh(V.T @ Kh @ V, V.T @ M[fsl, fsl] @ V, eigvals_only=True))
    cases["hanging"] = np.sqrt(wh) / (2 * np.pi)
    with open(os.path.join(OUT, "reference-eigen.csv"), "w") as fh:
        fh.write("# Wu-Haug beam clamped at node 1, reduced onto its %d lowest clamped modes: frequencies (Hz); "
                 "spin: 4 rad/s about z with the centrifugal geometric stiffness, spin0: without it, hanging: "
                 "under gravity 9.81 m/s^2 along the beam (scripts/reference/fe_blade.py)\n" % MODES)
        fh.write("mode," + ",".join(cases) + "\n")
        for i in range(MODES):
            fh.write("%d,%s\n" % (i + 1, ",".join("%.12g" % cases[c][i] for c in cases)))
    # Southwell's coefficient of the first flapwise mode with a fine mesh
    Kf, Mf, KGf = assemble(spin_n, 64)
    s = slice(6, Kf.shape[0])
    idx = [i for i in range(Kf.shape[0] - 6) if i % 6 in (2, 4)]  # flapwise w, theta_y
    f0 = eigh(Kf[s, s][np.ix_(idx, idx)], Mf[s, s][np.ix_(idx, idx)], eigvals_only=True)[0]
    e2 = 1e-4 * f0  # a slow spin W^2 << w0^2: Southwell's coefficient is the slope there
    f1 = eigh((Kf[s, s] + e2 * KGf[s, s])[np.ix_(idx, idx)], Mf[s, s][np.ix_(idx, idx)], eigvals_only=True)[0]
    sw = (f1 - f0) / e2
    with open(os.path.join(OUT, "southwell.txt"), "w") as fh:
        fh.write("first flapwise mode, 64 elements, W^2 = 1e-4 w0^2: Southwell coefficient (w^2 - w0^2)/W^2 = %.6f (published: 1.193)\n" % sw)
    for c in cases:
        print(c, cases[c][:6])
    print("southwell", sw)


main()
