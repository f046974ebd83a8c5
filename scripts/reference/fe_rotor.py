#!/usr/bin/env python3
"""Writes examples/fe-rotor: an overhung rotor (a steel shaft with a disk
at its free end) as ANSYS exports an FE model: Matrix Market mass and
stiffness matrices (HBMAT/SMAT ... EXPORT,MMF) with the DOF mapping file,
and a node list, in m-kg-s; and its reference frequencies at rest, shaft
clamped at node 1 (scipy.linalg.eigh of the full matrices).

Shaft along z, 0.6 m, diameter 30 mm, 12 Euler-Bernoulli elements,
consistent mass, E = 210 GPa, nu = 0.3, rho = 7850 kg/m^3; disk at the tip
(node 13): 5 kg, polar moment 0.025 kg m^2, diametral 0.0125 kg m^2
(lumped). The ANSYS equation numbers are not in node order (they never
are: ANSYS renumbers for the wavefront), so the file exercises the map.
Run: /usr/bin/python3 scripts/reference/fe_rotor.py
"""
import os
import numpy as np
from scipy.linalg import eigh


HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "examples", "fe-rotor")

E, nu, rho = 2.1e11, 0.3, 7850.0
G = E / (2 * (1 + nu))
d = 0.03
A = np.pi / 4 * d * d
I = np.pi / 64 * d**4
J = 2 * I
L, NE = 0.6, 12
MD, IP, ID = 5.0, 0.025, 0.0125


def local(l):
    k = np.zeros((12, 12))
    m = np.zeros((12, 12))
    for (i, j, c) in [(0, 6, E * A / l), (3, 9, G * J / l)]:
        k[np.ix_([i, j], [i, j])] += c * np.array([[1, -1], [-1, 1]])
    m[np.ix_([0, 6], [0, 6])] += rho * A * l / 6 * np.array([[2, 1], [1, 2]])
    m[np.ix_([3, 9], [3, 9])] += rho * J * l / 6 * np.array([[2, 1], [1, 2]])
    kb = E * I / l**3 * np.array([[12, 6 * l, -12, 6 * l], [6 * l, 4 * l * l, -6 * l, 2 * l * l],
                                  [-12, -6 * l, 12, -6 * l], [6 * l, 2 * l * l, -6 * l, 4 * l * l]])
    mb = rho * A * l / 420 * np.array([[156, 22 * l, 54, -13 * l], [22 * l, 4 * l * l, 13 * l, -3 * l * l],
                                       [54, 13 * l, 156, -22 * l], [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])
    for idx, s in [([1, 5, 7, 11], np.eye(4)), ([2, 4, 8, 10], np.diag([1, -1, 1, -1]))]:
        k[np.ix_(idx, idx)] += s @ kb @ s
        m[np.ix_(idx, idx)] += s @ mb @ s
    return k, m


def main():
    nn = NE + 1
    nodes = np.array([[0, 0, L * k / NE] for k in range(nn)])
    n = 6 * nn
    K = np.zeros((n, n))
    M = np.zeros((n, n))
    # element along z: local x = global z, local y = global x, local z = global y
    R = np.array([[0, 0, 1.0], [1.0, 0, 0], [0, 1.0, 0]])  # rows: local axes in global
    T = np.kron(np.eye(4), R)
    k, m = local(L / NE)
    for e in range(NE):
        idx = list(range(6 * e, 6 * e + 12))
        K[np.ix_(idx, idx)] += T.T @ k @ T
        M[np.ix_(idx, idx)] += T.T @ m @ T
    t = 6 * NE
    M[t:t + 3, t:t + 3] += MD * np.eye(3)
    M[t + 3, t + 3] += ID
    M[t + 4, t + 4] += ID
    M[t + 5, t + 5] += IP
    # ANSYS-like equation numbering: reversed nodes, dofs in order
    perm = [0] * n  # global dof -> equation (0-based)
    eq = 0
    for node in reversed(range(nn)):
        for a in range(6):
            perm[6 * node + a] = eq
            eq += 1
    os.makedirs(OUT, exist_ok=True)
    labels = ["UX", "UY", "UZ", "ROTX", "ROTY", "ROTZ"]
    with open(os.path.join(OUT, "rotor.mapping"), "w") as f:
        f.write("Matrix Eqn   Node   DOF\n")
        inv = sorted(range(n), key=lambda g: perm[g])
        for g in inv:
            f.write("%10d %6d %5s\n" % (perm[g] + 1, g // 6 + 1, labels[g % 6]))
    for name, A_ in [("rotor_MASS.mtx", M), ("rotor_STIFF.mtx", K)]:
        ent = []
        for i in range(n):
            for j in range(n):
                pi, pj = perm[i], perm[j]
                if pj <= pi and A_[i, j] != 0:
                    ent.append((pi + 1, pj + 1, A_[i, j]))
        ent.sort()
        with open(os.path.join(OUT, name), "w") as f:
            f.write("%%MatrixMarket matrix coordinate real symmetric\n%% overhung rotor (scripts/reference/fe_rotor.py)\n")
            f.write("%d %d %d\n" % (n, n, len(ent)))
            for (i, j, v) in ent:
                f.write("%d %d %.17e\n" % (i, j, v))
    with open(os.path.join(OUT, "rotor.nodes"), "w") as f:
        f.write("# node x y z (m)\n")
        for i, p in enumerate(nodes):
            f.write("%d %.9g %.9g %.9g\n" % (i + 1, p[0], p[1], p[2]))
    w2, V = eigh(K[6:, 6:], M[6:, 6:])
    fr = np.sqrt(w2) / (2 * np.pi)
    # static sag of the disk at rest under gravity -y: the consistent load
    # M g over every node; the full model and its 8-mode modal reduction
    g = np.zeros(n)
    g[1::6] = -9.81
    f = (M @ g)[6:]
    u = np.linalg.solve(K[6:, 6:], f)
    V8 = V[:, :8]
    u8 = V8 @ np.linalg.solve(V8.T @ K[6:, 6:] @ V8, V8.T @ f)
    with open(os.path.join(OUT, "reference-static.csv"), "w") as fh:
        fh.write("# the disk's (node 13) displacement y at rest under gravity -y, m: full model, 8-mode modal reduction\n")
        fh.write("component,full,modal8\n")
        fh.write("uy,%.12g,%.12g\n" % (u[-5], u8[-5]))
    with open(os.path.join(OUT, "reference.csv"), "w") as f:
        f.write("# the rotor at rest, clamped at node 1 (Hz): scipy.linalg.eigh of the full matrices\n")
        f.write("mode,frequency\n")
        for i in range(16):
            f.write("%d,%.12g\n" % (i + 1, fr[i]))
    # Campbell: the 8-mode model spinning at 60 rad/s in the fixed frame
    # (M q'' + W G q' + K q = 0, G the gyroscopic matrix of the nodes'
    # polar inertia: the sum of each node's column of the spin-axis
    # rotation entries of M), its whirl frequencies, and what a frame
    # turning with the shaft sees: backward whirl + W, forward whirl - W
    W = 60.0
    Gy = np.zeros((n, n))
    for nd in range(nn):
        ip = M[:, 6 * nd + 5][5::6].sum()
        a, b = 6 * nd + 3, 6 * nd + 4
        Gy[a, b] += ip
        Gy[b, a] -= ip
    Mr = V8.T @ M[6:, 6:] @ V8
    Kr = V8.T @ K[6:, 6:] @ V8
    Gr = V8.T @ Gy[6:, 6:] @ V8
    r = Mr.shape[0]
    Aa = np.block([[np.zeros((r, r)), np.eye(r)], [-np.linalg.solve(Mr, Kr), -np.linalg.solve(Mr, W * Gr)]])
    lam = np.linalg.eigvals(Aa)
    ff = np.sort(np.abs(lam.imag[lam.imag > 0])) / (2 * np.pi)
    rot = []
    k = 0
    while k < len(ff):
        if k + 1 < len(ff) and abs(ff[k + 1] - ff[k]) < 0.2 * ff[k] and abs(ff[k + 1] - ff[k]) > 1e-9:
            # a whirl pair: backward below, forward above
            rot += [ff[k] + W / (2 * np.pi), abs(ff[k + 1] - W / (2 * np.pi))]
            k += 2
        else:
            rot.append(ff[k])
            k += 1
    with open(os.path.join(OUT, "reference-campbell.csv"), "w") as fh:
        fh.write("# the 8-mode rotor spinning at 60 rad/s: whirl frequencies in the fixed frame (Hz, gyroscopic matrix of the nodes' polar inertia) and as the rotating shaft sees them (backward + W, |forward - W|; torsion and axial modes unchanged)\n")
        fh.write("mode,fixed,rotating\n")
        for i in range(len(ff)):
            fh.write("%d,%.12g,%.12g\n" % (i + 1, ff[i], sorted(rot)[i]))
    print("frequencies", fr[:8])
    print("fixed-frame at 60 rad/s", ff, "rotating", sorted(rot))


main()
