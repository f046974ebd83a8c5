"""IFToMM benchmark A04, Bricard mechanism: five 1 m, 1 kg rods of 0.1 m square section, six
revolute joints (one redundant constraint), gravity -9.81 m/s^2 along y, released at rest, 10 s.
Geometry as in RehabEngGroup/MBSbenchmarksInOpenSim src/A04-BricardsMechanism/createModel.cpp
(cross-checked with S. Acuna's simEngine3D_BricardMechanism.m, which cites
lim.ii.udc.es/mbsbenchmark/dist/A04/A04_specification.xml).
Run: /usr/bin/python3 bricard.py [h] [tEnd]   -> bricard_h<h>.csv"""
import sys
import numpy as np
from mbref import *

h = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-3
tEnd = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
m, L, a = 1.0, 1.0, 0.1
Jax = m*(a*a + a*a)/12          # about the rod axis
Jtr = m*(L*L + a*a)/12          # transverse
P = [np.array(p, float) for p in [(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)]]
axes = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]   # joint axes at P[0..5]
s = System(g=(0, -9.81, 0))
rods = []
for i in range(5):
    d = P[i+1] - P[i]; d /= np.linalg.norm(d)
    t1 = np.cross(d, [0, 0, 1]) if abs(d[2]) < 0.9 else np.cross(d, [1, 0, 0]); t1 /= np.linalg.norm(t1)
    t2 = np.cross(d, t1)
    rods.append(s.body(m, [Jax, Jtr, Jtr], (P[i] + P[i+1])/2, np.column_stack([d, t1, t2])))
s.revolute(GROUND, rods[0], P[0], axes[0])
for i in range(1, 5):
    s.revolute(rods[i-1], rods[i], P[i], axes[i])
s.revolute(rods[4], GROUND, P[5], axes[5])
st = s.project(s.state())
phi, J, _ = s.rows(st)
sv = np.linalg.svd(J, compute_uv=False)
print("constraint rows", J.shape[0], "coordinates", J.shape[1], "rank", int(np.sum(sv > 1e-10*sv[0])),
      "smallest singular values", sv[-3:])
E0 = s.energy(st)
def pt(st, b, local):
    return st[0][b] + qrot(st[1][b]) @ local
loc_P2 = s.local_point(rods[1], P[2])    # point (1,-1,0): end of rod 2 (OpenSim 'P3': Link_2 (0,-0.5,0))
loc_P3 = s.local_point(rods[2], P[3])
out = open(f'bricard_h{h:g}.csv', 'w')
out.write("time_s,x_P1m10_m,y_P1m10_m,z_P1m10_m,x_P11m1_m,y_P11m1_m,z_P11m1_m,energy_drift_J\n")
nper = int(round(0.01/h))
for k in range(int(round(tEnd/0.01)) + 1):
    if k > 0:
        for _ in range(nper):
            st = s.rk4(st, h); st = s.project(st)
    p2 = pt(st, rods[1], loc_P2); p3 = pt(st, rods[2], loc_P3)
    out.write(f"{k*0.01:.2f},{p2[0]:.12g},{p2[1]:.12g},{p2[2]:.12g},{p3[0]:.12g},{p3[1]:.12g},{p3[2]:.12g},{s.energy(st)-E0:.3e}\n")
out.close()
