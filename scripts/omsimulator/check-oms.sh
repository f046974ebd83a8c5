#!/usr/bin/env bash
# Runs mbfmu's SSP package and every example FMU (FMI 2.0 and 3.0) in OMSimulator and compares:
#   - dist/furuta-lqr.ssp in OMSimulator against `mbfmu cosim` of the same package (every
#     communication point of mbfmu's run);
#   - each FMI 3.0 FMU against the FMI 2.0 FMU of the same model, both run by OMSimulator over
#     their default experiment (at most 1 s).
# Usage (after ./build.sh and scripts/omsimulator/build-oms.sh):
#   OMS=/tmp/oms/install/bin/OMSimulator scripts/omsimulator/check-oms.sh
set -u
OMS=${OMS:-/tmp/oms/install/bin/OMSimulator}
cd "$(dirname "$0")/../.."
OUT=${OUT:-out/oms}
rm -rf "$OUT" && mkdir -p "$OUT"
"$OMS" --version
# the closed loop as SSP
"$OMS" dist/furuta-lqr.ssp --stopTime=10 --resultFile="$OUT/furuta-lqr-oms.csv" --tempDir="$OUT/tmp-ssp" > "$OUT/furuta-lqr-oms.log" 2>&1
echo "furuta-lqr.ssp: rc=$? errors=$(grep -c '^error' "$OUT/furuta-lqr-oms.log")"
bin/mbfmu cosim dist/furuta-lqr.ssp -o "$OUT/furuta-lqr-mbfmu.csv" > /dev/null
# every example FMU over its default experiment, at most 1 s (OMSimulator's command line does
# not take the stop time from the FMU)
for f in dist/*.fmu dist/fmi3/*.fmu; do
  n=$(basename "$f" .fmu); v=2; case $f in */fmi3/*) v=3;; esac
  stop=$(unzip -p "$f" modelDescription.xml | grep -o 'stopTime="[^"]*"' | head -1 | cut -d'"' -f2)
  stop=$(/usr/bin/python3 -c "print(min(1.0, float('${stop:-1}')))")
  "$OMS" "$f" --stopTime="$stop" --resultFile="$OUT/$v-$n.csv" --tempDir="$OUT/tmp-$v-$n" > "$OUT/$v-$n.log" 2>&1
  rc=$?; e=$(grep -c '^error' "$OUT/$v-$n.log")
  [ $rc -ne 0 ] || [ "$e" -ne 0 ] && echo "fmi$v $n: rc=$rc errors=$e: $(grep -m1 '^error' "$OUT/$v-$n.log")"
done
/usr/bin/python3 - "$OUT" <<'PY'
import csv, glob, os, sys
out = sys.argv[1]
def load(p):
    rows = list(csv.reader(l for l in open(p) if not l.startswith('#')))
    return [h.split(' [')[0] for h in rows[0]], [[float(x) for x in r] for r in rows[1:]]
ho, do = load(os.path.join(out, 'furuta-lqr-oms.csv'))
hm, dm = load(os.path.join(out, 'furuta-lqr-mbfmu.csv'))
at = {}
for r in do:
    at[round(r[0], 9)] = r  # the last row at each time
worst = 0.0
for c in ('plant.theta', 'plant.alpha', 'plant.theta_dot', 'plant.alpha_dot', 'lqr.tau'):
    io, im = ho.index('furuta-lqr.root.' + c), hm.index(c)
    for r in dm:
        worst = max(worst, abs(at[round(r[0], 9)][io] - r[im]))
print('furuta-lqr.ssp: OMSimulator vs mbfmu cosim, %d points, largest difference %.3g' % (len(dm), worst))
n, worst, skipped = 0, 0.0, []
for f2 in sorted(glob.glob(os.path.join(out, '2-*.csv'))):
    f3 = f2.replace('/2-', '/3-')
    h2, r2 = load(f2)
    try:
        h3, r3 = load(f3)
    except Exception:
        skipped.append(os.path.basename(f3)); continue
    if not r3:
        skipped.append(os.path.basename(f3)); continue
    m = min(len(r2), len(r3))
    for j, c in enumerate(h2):
        if c != 'time' and c in h3:
            k = h3.index(c)
            sc = max(1e-12, max(abs(r[j]) for r in r2[:m]))
            worst = max(worst, max(abs(a[j] - b[k]) for a, b in zip(r2[:m], r3[:m])) / sc)
    n += 1
print('FMI 3.0 vs FMI 2.0 in OMSimulator: %d models, largest relative difference %.3g; not compared: %s' % (n, worst, ', '.join(skipped) or 'none'))
PY
