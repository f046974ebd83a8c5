#!/usr/bin/env python3
"""Writes examples/flexible-arm's FE model: a slender aluminium link as an
FE program exports it (Abaqus *MATRIX OUTPUT files, mm-t-s, with the .inp
nodes and elements), with its motor hub and its payload as point masses,
and the link's frequencies clamped at the hub (scipy.linalg.eigh).

Link along x, 1 m, section 6 mm (y) x 40 mm (z): flexible in the plane of
motion (x-y), stiff against gravity (-z); 10 Euler-Bernoulli elements,
consistent mass; E = 70 GPa, nu = 0.33, rho = 2700 kg/m^3. Hub (node 1):
rotary inertia 1 kg m^2 about z (motor and gearbox reflected), 1 kg. Payload (node 11): 0.3 kg.
Run: /usr/bin/python3 scripts/reference/fe_link.py
"""
import os
import numpy as np
from scipy.linalg import eigh

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "examples", "flexible-arm")

# mm-t-s
E, nu, rho = 70000.0, 0.33, 2.7e-9
G = E / (2 * (1 + nu))
b, h = 6.0, 40.0
A = b * h
Iz = h * b**3 / 12  # bending in x-y (about z)
Iy = b * h**3 / 12  # bending in x-z (about y)
a, c = max(b, h) / 2, min(b, h) / 2
J = a * c**3 * (16.0 / 3 - 3.36 * c / a * (1 - c**4 / (12 * a**4)))  # Roark's rectangle
L, NE = 1000.0, 10
HUB_M, HUB_J = 1e-3, 1.0 * 1e-3 * 1e6  # 1 kg = 1e-3 t; 1 kg m^2 (motor and gearbox, reflected) = 1000 t mm^2
PAY = 0.3e-3


def local(l):
    k = np.zeros((12, 12))
    m = np.zeros((12, 12))
    for (i, j, cc) in [(0, 6, E * A / l), (3, 9, G * J / l)]:
        k[np.ix_([i, j], [i, j])] += cc * np.array([[1, -1], [-1, 1]])
    m[np.ix_([0, 6], [0, 6])] += rho * A * l / 6 * np.array([[2, 1], [1, 2]])
    m[np.ix_([3, 9], [3, 9])] += rho * (Iy + Iz) * l / 6 * np.array([[2, 1], [1, 2]])
    def kb(I):
        return E * I / l**3 * np.array([[12, 6 * l, -12, 6 * l], [6 * l, 4 * l * l, -6 * l, 2 * l * l],
                                        [-12, -6 * l, 12, -6 * l], [6 * l, 2 * l * l, -6 * l, 4 * l * l]])
    mb = rho * A * l / 420 * np.array([[156, 22 * l, 54, -13 * l], [22 * l, 4 * l * l, 13 * l, -3 * l * l],
                                       [54, 13 * l, 156, -22 * l], [-13 * l, -3 * l * l, -22 * l, 4 * l * l]])
    k[np.ix_([1, 5, 7, 11], [1, 5, 7, 11])] += kb(Iz)
    m[np.ix_([1, 5, 7, 11], [1, 5, 7, 11])] += mb
    s = np.diag([1, -1, 1, -1])
    k[np.ix_([2, 4, 8, 10], [2, 4, 8, 10])] += s @ kb(Iy) @ s
    m[np.ix_([2, 4, 8, 10], [2, 4, 8, 10])] += s @ mb @ s
    return k, m


def main():
    nn = NE + 1
    n = 6 * nn
    K = np.zeros((n, n))
    M = np.zeros((n, n))
    k, m = local(L / NE)
    for e in range(NE):
        idx = list(range(6 * e, 6 * e + 12))
        K[np.ix_(idx, idx)] += k
        M[np.ix_(idx, idx)] += m
    M[0:3, 0:3] += HUB_M * np.eye(3)
    M[5, 5] += HUB_J
    M[6 * NE:6 * NE + 3, 6 * NE:6 * NE + 3] += PAY * np.eye(3)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "link.inp"), "w") as f:
        f.write("*Heading\n** aluminium link with hub and payload, mm-t-s (scripts/reference/fe_link.py)\n*Node\n")
        for i in range(nn):
            f.write("%d, %.6f, 0., 0.\n" % (i + 1, L * i / NE))
        f.write("*Element, type=B31, elset=LINK\n")
        for e in range(NE):
            f.write("%d, %d, %d\n" % (e + 1, e + 1, e + 2))
        f.write("*Mass, elset=HUB\n** (hub and payload masses added as point masses)\n")
    for name, A_ in [("link_MASS1.mtx", M), ("link_STIF1.mtx", K)]:
        with open(os.path.join(OUT, name), "w") as f:
            for i in range(n):
                for j in range(i + 1):
                    if A_[i, j] != 0:
                        f.write("%d,%d, %d,%d, %.17e\n" % (i // 6 + 1, i % 6 + 1, j // 6 + 1, j % 6 + 1, A_[i, j]))
    fr = np.sqrt(eigh(K[6:, 6:], M[6:, 6:], eigvals_only=True)) / (2 * np.pi)
    with open(os.path.join(OUT, "reference.csv"), "w") as f:
        f.write("# the link clamped at the hub (Hz): scipy.linalg.eigh of the full matrices\n")
        f.write("mode,frequency\n")
        for i in range(8):
            f.write("%d,%.12g\n" % (i + 1, fr[i]))
    print("frequencies", fr[:6])


main()
