#!/usr/bin/env python3
"""Writes examples/fe-frame: a free-free 3D frame of steel tubes as an FE
program exports it (Abaqus *MATRIX OUTPUT files in mm-t-s with the .inp
nodes), and its reference frequencies from an independent eigen-solution
(scipy.linalg.eigh of the full matrices).

The frame: an L-shaped tube in space, (0,0,0) -> (1000,0,0) -> (1000,600,0)
-> (1000,600,400) mm, 20 Euler-Bernoulli frame elements (consistent mass,
Przemieniecki), tube D = 40 mm, wall 3 mm, steel E = 210 GPa, nu = 0.3,
rho = 7850 kg/m^3. Run: /usr/bin/python3 scripts/reference/fe_frame.py
"""
import os
import numpy as np
from scipy.linalg import eigh

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "examples", "fe-frame")

# mm-t-s: N, MPa, t/mm^3
E, nu, rho = 210000.0, 0.3, 7.85e-9
G = E / (2 * (1 + nu))
Do, t = 40.0, 3.0
Di = Do - 2 * t
A = np.pi / 4 * (Do**2 - Di**2)
I = np.pi / 64 * (Do**4 - Di**4)
J = 2 * I


def corners():
    return [np.array(p, float) for p in [(0, 0, 0), (1000, 0, 0), (1000, 600, 0), (1000, 600, 400)]]


def mesh():
    pts = corners()
    counts = [10, 6, 4]
    nodes = [pts[0]]
    elems = []
    for seg, n in enumerate(counts):
        a, b = pts[seg], pts[seg + 1]
        for k in range(1, n + 1):
            nodes.append(a + (b - a) * k / n)
            elems.append((len(nodes) - 2, len(nodes) - 1))
    return np.array(nodes), elems


def local(L):
    """12x12 stiffness and consistent mass of a 3D frame element along x."""
    k = np.zeros((12, 12))
    m = np.zeros((12, 12))
    # axial 0,6; torsion 3,9
    for (i, j, c) in [(0, 6, E * A / L), (3, 9, G * J / L)]:
        k[np.ix_([i, j], [i, j])] += c * np.array([[1, -1], [-1, 1]])
    ma = rho * A * L / 6 * np.array([[2, 1], [1, 2]])
    mt = rho * J * L / 6 * np.array([[2, 1], [1, 2]])
    m[np.ix_([0, 6], [0, 6])] += ma
    m[np.ix_([3, 9], [3, 9])] += mt
    kb = E * I / L**3 * np.array([[12, 6 * L, -12, 6 * L], [6 * L, 4 * L * L, -6 * L, 2 * L * L],
                                  [-12, -6 * L, 12, -6 * L], [6 * L, 2 * L * L, -6 * L, 4 * L * L]])
    mb = rho * A * L / 420 * np.array([[156, 22 * L, 54, -13 * L], [22 * L, 4 * L * L, 13 * L, -3 * L * L],
                                       [54, 13 * L, 156, -22 * L], [-13 * L, -3 * L * L, -22 * L, 4 * L * L]])
    # bending in the x-y plane: v (1,7), theta_z (5,11)
    idx = [1, 5, 7, 11]
    k[np.ix_(idx, idx)] += kb
    m[np.ix_(idx, idx)] += mb
    # bending in the x-z plane: w (2,8), theta_y (4,10): theta_y = -w'
    idx = [2, 4, 8, 10]
    s = np.diag([1, -1, 1, -1])
    k[np.ix_(idx, idx)] += s @ kb @ s
    m[np.ix_(idx, idx)] += s @ mb @ s
    return k, m


def rotation(a, b):
    ex = (b - a) / np.linalg.norm(b - a)
    ref = np.array([0, 0, 1.0]) if abs(ex[2]) < 0.9 else np.array([1.0, 0, 0])
    ey = np.cross(ref, ex)
    ey /= np.linalg.norm(ey)
    ez = np.cross(ex, ey)
    return np.array([ex, ey, ez])  # rows: local axes in global


def assemble():
    nodes, elems = mesh()
    n = 6 * len(nodes)
    K = np.zeros((n, n))
    M = np.zeros((n, n))
    for (a, b) in elems:
        L = np.linalg.norm(nodes[b] - nodes[a])
        k, m = local(L)
        R = rotation(nodes[a], nodes[b])
        T = np.kron(np.eye(4), R)
        kg, mg = T.T @ k @ T, T.T @ m @ T
        idx = list(range(6 * a, 6 * a + 6)) + list(range(6 * b, 6 * b + 6))
        K[np.ix_(idx, idx)] += kg
        M[np.ix_(idx, idx)] += mg
    return nodes, elems, K, M


def write_mtx(path, A):
    with open(path, "w") as f:
        n = A.shape[0]
        for i in range(n):
            for j in range(i + 1):
                if A[i, j] != 0:
                    f.write("%d,%d, %d,%d, %.17e\n" % (i // 6 + 1, i % 6 + 1, j // 6 + 1, j % 6 + 1, A[i, j]))


def main():
    nodes, elems, K, M = assemble()
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "frame.inp"), "w") as f:
        f.write("*Heading\n** L-shaped steel tube frame, mm-t-s (scripts/reference/fe_frame.py)\n*Node\n")
        for i, p in enumerate(nodes):
            f.write("%d, %.6f, %.6f, %.6f\n" % (i + 1, p[0], p[1], p[2]))
        f.write("*Element, type=B31, elset=FRAME\n")
        for e, (a, b) in enumerate(elems):
            f.write("%d, %d, %d\n" % (e + 1, a + 1, b + 1))
        f.write("*Step\n*Matrix Generate, stiffness, mass\n*Matrix Output, stiffness, mass\n*End Step\n")
    write_mtx(os.path.join(OUT, "frame_MASS1.mtx"), M)
    write_mtx(os.path.join(OUT, "frame_STIF1.mtx"), K)
    w2 = eigh(K, M, eigvals_only=True)
    f = np.sqrt(np.abs(w2)) / (2 * np.pi)
    with open(os.path.join(OUT, "reference.csv"), "w") as fh:
        fh.write("# free-free frequencies of the frame (Hz), scipy.linalg.eigh of the full matrices; the first six are rigid\n")
        fh.write("mode,frequency\n")
        for k in range(6, 26):
            fh.write("%d,%.12g\n" % (k - 5, f[k]))
    # clamped at node 1 (the frame's first node fixed): the cantilever
    Kc, Mc = K[6:, 6:], M[6:, 6:]
    fc = np.sqrt(eigh(Kc, Mc, eigvals_only=True)) / (2 * np.pi)
    # Craig-Bampton of the clamped frame, interface: the tip node 21, 6
    # fixed-interface modes (written out independently of the Go code)
    n = Kc.shape[0]
    b = list(range(n - 6, n))
    i = list(range(0, n - 6))
    Kii, Kib = Kc[np.ix_(i, i)], Kc[np.ix_(i, b)]
    Mii = Mc[np.ix_(i, i)]
    psi = -np.linalg.solve(Kii, Kib)
    w2, phi = eigh(Kii, Mii)
    T = np.zeros((n, 6 + 6))
    T[np.ix_(b, range(6))] = np.eye(6)
    T[np.ix_(i, range(6))] = psi
    T[np.ix_(i, range(6, 12))] = phi[:, :6]
    fcb = np.sqrt(eigh(T.T @ Kc @ T, T.T @ Mc @ T, eigvals_only=True)) / (2 * np.pi)
    # static deflection of the tip (node 21) under gravity -z (9.81 m/s^2 =
    # 9810 mm/s^2), full model and Craig-Bampton model, in m
    # (the consistent load of gravity on the free dofs: M g over all the
    # nodes, the clamped one's mass included)
    g = np.zeros(n + 6)
    g[2::6] = -9810.0
    f = (M @ g)[6:]
    u = np.linalg.solve(Kc, f)
    q = np.linalg.solve(T.T @ Kc @ T, T.T @ f)
    ucb = T @ q
    with open(os.path.join(OUT, "reference-static.csv"), "w") as fh:
        fh.write("# tip (node 21) displacement of the frame clamped at node 1 under gravity -z, m: full model, Craig-Bampton (tip, 6 modes)\n")
        fh.write("component,full,craig_bampton\n")
        for c, name in enumerate(["ux", "uy", "uz"]):
            fh.write("%s,%.12g,%.12g\n" % (name, u[n - 6 + c] / 1e3, ucb[n - 6 + c] / 1e3))
    with open(os.path.join(OUT, "reference-clamped.csv"), "w") as fh:
        fh.write("# the frame clamped at node 1 (Hz): the full model (scipy.linalg.eigh) and its Craig-Bampton reduction with interface node 21 and 6 fixed-interface modes (numpy)\n")
        fh.write("mode,full,craig_bampton\n")
        for k in range(12):
            fh.write("%d,%.12g,%.12g\n" % (k + 1, fc[k], fcb[k]))
    # a lumped mass matrix (the translational row sums on the diagonal, no
    # rotary inertia: its rotation rows are zero) as FE programs also
    # export; its free-free frequencies with the massless rotations
    # condensed statically (numpy)
    ML = np.zeros_like(M)
    for i in range(M.shape[0]):
        if i % 6 < 3:
            ML[i, i] = M[i, [j for j in range(M.shape[0]) if j % 6 == i % 6]].sum()
    write_mtx(os.path.join(OUT, "frame_LUMPED_MASS1.mtx"), ML)
    a = [i for i in range(ML.shape[0]) if i % 6 < 3]
    bb = [i for i in range(ML.shape[0]) if i % 6 >= 3]
    Kc = K[np.ix_(a, a)] - K[np.ix_(a, bb)] @ np.linalg.solve(K[np.ix_(bb, bb)], K[np.ix_(bb, a)])
    fl = np.sqrt(np.abs(eigh(Kc, ML[np.ix_(a, a)], eigvals_only=True))) / (2 * np.pi)
    with open(os.path.join(OUT, "reference-lumped.csv"), "w") as fh:
        fh.write("# free-free frequencies with the lumped mass matrix (Hz): rotations condensed statically, scipy.linalg.eigh; the first six are rigid\n")
        fh.write("mode,frequency\n")
        for k in range(6, 18):
            fh.write("%d,%.12g\n" % (k - 5, fl[k]))
    print("mass %.6g t, rigid %s, first elastic %s Hz" % (M[0::6, 0::6].sum(), f[:6], f[6:12]))
    print("lumped", fl[6:12])
    print("clamped %s, CB %s" % (fc[:6], fcb[:6]))


main()
