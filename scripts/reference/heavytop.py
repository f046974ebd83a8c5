"""Heavy top benchmark (Arnold & Bruls 2007; Bruls & Cardona 2010): m = 15 kg,
J_cm = diag(0.234375, 0.46875, 0.234375) kg m^2, CM at (0,1,0) m in body axes, pivot at origin,
R(0) = I, body angular velocity (0, 150, -4.61538) rad/s, g = (0,0,-9.81) m/s^2, 2 s.
Run: /usr/bin/python3 heavytop.py"""
import numpy as np
from topode import *

top = Top(15.0, [0.234375, 0.46875, 0.234375], [0, 1, 0], [0, 0, -9.81])
q0 = np.array([1.0, 0, 0, 0]); w0 = np.array([0, 150, -4.61538])
y0 = np.concatenate([q0, w0])
print("J_O (pivot) =", np.diag(top.JO))
E0 = top.energy(y0); H0 = top.H_world(y0)
print(f"E0 = {E0:.12f} J   (kinetic only; V = m g z_cm = 0 at t=0)")
print(f"H0 (world, about pivot) = {H0}  -> vertical component Hz = {H0[2]:.12f} kg m^2/s")
print(f"|H0| = {np.linalg.norm(H0):.12f};  body-axis spin component w_y constant? (J_O,x = J_O,z -> d(w_y)/dt = 0)")
ts = np.array([0, 0.01, 0.5, 1.0, 1.5, 2.0])
sol = top.solve(q0, w0, ts)
sol2 = top.solve(q0, w0, ts, rtol=1e-12, atol=1e-13)
print("max |y(tol 1e-13) - y(tol 1e-12)| at t=2:", np.max(np.abs(sol.y[:, -1] - sol2.y[:, -1])))
yrk = rk4(top, q0, w0, 2.5e-5, 2.0)
print("max |y(DOP853) - y(RK4 h=2.5e-5)| at t=2:", np.max(np.abs(sol.y[:, -1] - yrk)))
print("t, CM_x, CM_y, CM_z [m], w_body x,y,z [rad/s], q(w,x,y,z), E-E0, Hz-Hz0")
rows = []
for k, t in enumerate(ts):
    y = sol.y[:, k]
    cm = qrot(y[:4]) @ top.s
    dE = top.energy(y) - E0; dH = top.H_world(y)[2] - H0[2]
    print(f"{t:4.2f} {cm[0]: .12f} {cm[1]: .12f} {cm[2]: .12f}  {y[4]: .10f} {y[5]: .10f} {y[6]: .10f}  "
          f"{y[0]: .10f} {y[1]: .10f} {y[2]: .10f} {y[3]: .10f}  {dE:.1e} {dH:.1e}")
    rows.append((t, *cm, *y[4:], *y[:4]))
with open('heavytop_ref.csv', 'w') as f:
    f.write("time_s,cm_x_m,cm_y_m,cm_z_m,wbx_rad_s,wby_rad_s,wbz_rad_s,q_w,q_x,q_y,q_z\n")
    for r in rows:
        f.write(",".join(f"{v:.12g}" for v in r) + "\n")
# dense file every 0.01 s
tt = np.round(np.arange(0, 2.0 + 1e-9, 0.01), 2)
sd = top.solve(q0, w0, tt)
with open('heavytop_dense.csv', 'w') as f:
    f.write("time_s,cm_x_m,cm_y_m,cm_z_m,wbx_rad_s,wby_rad_s,wbz_rad_s,q_w,q_x,q_y,q_z\n")
    for k, t in enumerate(tt):
        y = sd.y[:, k]; cm = qrot(y[:4]) @ top.s
        f.write(f"{t:.2f}," + ",".join(f"{v:.12g}" for v in (*cm, *y[4:], *y[:4])) + "\n")
