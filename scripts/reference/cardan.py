"""Universal (Cardan/Hooke) joint kinematics, closed form vs geometry.
Input shaft axis a1 = x; output shaft axis a2 = (cos b, sin b, 0) (shafts in the x-y plane,
bend angle b).  Input yoke pin p1(th1) = Rx(th1) y  -> th1 = 0: input pin IN the plane of the two
shafts.  Cross: output pin p2 is perpendicular to a2 and to p1.  Output angle th2 = rotation of the
output shaft about a2, measured from its position at th1 = 0 (output pin along z, normal to the
plane) with the same sense as th1 (right hand about a1 / a2).
Closed form (this convention):  tan th2 = tan th1 / cos b,
  w2/w1 = cos b / (1 - sin^2 b cos^2 th1)      (max 1/cos b at th1 = 0, pi; min cos b at th1 = pi/2)
  dw2/dt = -w1^2 cos b sin^2 b sin(2 th1) / (1 - sin^2 b cos^2 th1)^2   (constant w1)
If instead th1 is measured from the pin NORMAL to the shaft plane (th1' = th1 - pi/2):
  tan th2' = tan th1' * cos b,  w2/w1 = cos b / (1 - sin^2 b sin^2 th1').
Run: /usr/bin/python3 cardan.py"""
import numpy as np

def geom_th2(th1, b):
    a2 = np.array([np.cos(b), np.sin(b), 0.0])
    p1 = np.array([0, np.cos(th1), np.sin(th1)])
    p2 = np.cross(a2, p1); p2 /= np.linalg.norm(p2)     # output pin (perp to a2 and p1)
    # output shaft frame at th2 = 0: pin along z; rotating about a2 by th2 maps z -> cos z + sin (a2 x z)
    z = np.array([0, 0, 1.0]); u = np.cross(a2, z)
    # p2 = +-(cos th2 z + sin th2 u): choose the branch continuous with th2 = th1 near 0
    return np.arctan2(p2 @ u, p2 @ z)

b = np.radians(30)
th = np.linspace(-1.5, 1.5, 13)
g = np.array([geom_th2(t, b) for t in th])
# sign: p2 from a2 x p1 flips by pi; compare modulo pi
f = np.arctan(np.tan(th)/np.cos(b))
d = np.angle(np.exp(2j*(g - f)))/2
print("max |th2_geom - atan(tan th1/cos b)| (mod pi):", np.max(np.abs(d)))
# speed ratio by finite differences on the continuous closed form and on geometry
h = 1e-6
for t in [0.0, np.pi/6, np.pi/4, np.pi/2]:
    r_fd = np.angle(np.exp(2j*(geom_th2(t+h, b) - geom_th2(t-h, b))))/2/(2*h)
    r_cf = np.cos(b)/(1 - np.sin(b)**2*np.cos(t)**2)
    print(f"th1={np.degrees(t):5.1f} deg: w2/w1 geometry={r_fd:.9f} closed={r_cf:.9f}  th2={np.degrees(np.arctan2(np.sin(t), np.cos(t)*np.cos(b))):.6f} deg")
print("worked example b=30 deg, w1=10 rad/s: w2 max =", 10/np.cos(b), " min =", 10*np.cos(b))
# angular acceleration check (constant w1): d(w2)/dt = w1^2 d(ratio)/dth1
t = np.radians(30); w1 = 10.0; hh = 1e-5
ratio = lambda t: np.cos(b)/(1 - np.sin(b)**2*np.cos(t)**2)
fd = w1**2*(ratio(t+hh) - ratio(t-hh))/(2*hh)
cf = -w1**2*np.cos(b)*np.sin(b)**2*np.sin(2*t)/(1 - np.sin(b)**2*np.cos(t)**2)**2
print(f"dw2/dt at th1=30 deg, w1=10: finite-diff={fd:.9f} closed={cf:.9f} rad/s^2")
