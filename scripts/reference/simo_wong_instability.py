"""Where does the index-3 R^3 x SO(3) (CoM-reference) Lie-group gen-alpha become unstable?

Gravity switched OFF (g = 0): a torque-free symmetric top spinning at Omega about its axis,
pivot constraint kept, plus a small transverse kick w_x = 1e-9 rad/s (the exact motion is a
bounded regular precession).  Measures the growth factor per step of |w_perp| over 300 steps.
Without gravity the only time scale is 1/Omega, so the result depends on Omega*h only.
"""
import numpy as np
import simo_wong_lgga as lgga

def growth_per_step(model, rho, h, Omega, nsteps=300):
    lgga.grav, lgga.R0 = 0.0, np.eye(3)
    lgga.w0 = np.array([1e-9, 0.0, Omega])
    res, info = lgga.run(model, rho, h, T=nsteps * h)
    wp = np.hypot(res[:, 4], res[:, 5])
    w = len(wp) // 4                                   # compare first and last quarter maxima
    return (wp[-w:].max() / wp[:w].max()) ** (1.0 / (len(wp) - w))

if __name__ == "__main__":
    print("same Omega*h = 0.45, different (Omega, h):")
    for Om, h in ((50, 0.009), (100, 0.0045), (25, 0.018)):
        print(f"  Omega={Om:4d} h={h:.4f}: growth/step = {growth_per_step('R3xSO3', 0.8, h, Om):.5f}")
    print("scan of Omega*h (Omega = 50 rad/s), growth factor per step of |w_perp|:")
    print("  Omega*h   " + "  ".join(f"rho={r:<4}" for r in (0.0, 0.5, 0.7, 0.8, 0.9, 1.0)) + "   SO3(rho=0.8)")
    for Oh in (0.2, 0.3, 0.35, 0.375, 0.4, 0.45, 0.5, 0.75, 1.0):
        h = Oh / 50.0
        row = [growth_per_step("R3xSO3", r, h, 50.0) for r in (0.0, 0.5, 0.7, 0.8, 0.9, 1.0)]
        row.append(growth_per_step("SO3", 0.8, h, 50.0))
        print(f"  {Oh:6.3f}   " + "  ".join(f"{x:8.4f}" for x in row), flush=True)
