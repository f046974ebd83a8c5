#!/usr/bin/env bash
# Builds the FMU runtime library bin/libmbfmu-fmi2.so from package cabi: a
# Go c-shared library exporting only the FMI 2.0 fmi2* functions (version
# script cabi/exports.map). `mbfmu pack` copies it into every FMU; put it
# beside the mbfmu executable, in ./bin, or point MBFMU_RUNTIME at it.
#
# Usage: scripts/build-runtime.sh [output path]   (default bin/libmbfmu-fmi2.so)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bin/libmbfmu-fmi2.so}
mkdir -p "$(dirname "$out")"
CGO_ENABLED=1 go build -buildmode=c-shared -trimpath \
	-ldflags="-s -w -extldflags=-Wl,--version-script=$PWD/cabi/exports.map" \
	-o "$out" ./cabi
rm -f "${out%.so}.h" # cgo's generated header; cabi/fmi2.h is the real one
# Every exported symbol must be an FMI function.
if command -v nm >/dev/null; then
	extra=$(nm -D --defined-only "$out" | awk '{print $3}' | grep -v '^fmi2' || true)
	if [ -n "$extra" ]; then
		echo "build-runtime: $out exports non-FMI symbols:" >&2
		echo "$extra" >&2
		exit 1
	fi
fi
echo "built $out ($(du -h "$out" | cut -f1))"
