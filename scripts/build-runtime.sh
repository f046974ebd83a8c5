#!/usr/bin/env bash
# Builds the FMU runtime library bin/libmbfmu-fmi2.so from package cabi: a
# Go c-shared library exporting only the FMI 2.0 fmi2* and FMI 3.0 fmi3*
# functions (version script cabi/exports.map). `mbfmu pack` copies it into every FMU; put it
# beside the mbfmu executable, in ./bin, or point MBFMU_RUNTIME at it.
#
# The Linux library is linked against glibc 2.17 with `zig cc` when zig is
# at hand (ZIG=path, zig on PATH, or fetched once from the npm registry into
# .cache/zig when npm is installed), so that the FMU loads on older
# distributions too (RHEL/Rocky 8, Debian 11, Ubuntu 20.04); without zig,
# or with MBFMU_PORTABLE=0, it is built with gcc and needs the build
# machine's glibc (2.34+ on Debian 12).
#
# With --win64 it builds the same library for 64-bit Windows instead,
# bin/mbfmu-fmi2-win64.dll, with the MinGW-w64 cross compiler (Debian
# package gcc-mingw-w64-x86-64; installed here when missing and run as
# root). `mbfmu pack` then adds it to every FMU as binaries/win64/.
#
# With --arm64 it builds it for Linux on aarch64, bin/libmbfmu-fmi2-arm64.so,
# cross-compiled and linked against glibc 2.17 with zig (fetched as above;
# it needs zig). Go fuses multiplies and adds into FMA instructions on
# arm64 and not on x86-64; the build switches that off
# (-gcflags=all=-d=fmahash=n) so that both round alike. `mbfmu pack` adds it
# to every FMU as binaries/aarch64-linux/.
#
# Usage: scripts/build-runtime.sh [output path]          (default bin/libmbfmu-fmi2.so)
#        scripts/build-runtime.sh --win64 [output path]  (default bin/mbfmu-fmi2-win64.dll)
#        scripts/build-runtime.sh --arm64 [output path]  (default bin/libmbfmu-fmi2-arm64.so)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--win64" ]; then
	shift
	out=${1:-bin/mbfmu-fmi2-win64.dll}
	cc=x86_64-w64-mingw32-gcc
	if ! command -v "$cc" >/dev/null; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			echo "build-runtime: installing the MinGW-w64 cross compiler (gcc-mingw-w64-x86-64)"
			apt-get install -y -qq gcc-mingw-w64-x86-64 >/dev/null ||
				{ apt-get update -qq >/dev/null && apt-get install -y -qq gcc-mingw-w64-x86-64 >/dev/null; }
		else
			echo "build-runtime: $cc not found: install the MinGW-w64 cross compiler (Debian: gcc-mingw-w64-x86-64)" >&2
			exit 1
		fi
	fi
	mkdir -p "$(dirname "$out")"
	# A Windows DLL exports only what cabi marks //export: the fmi2 and fmi3 functions.
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=$cc \
		go build -buildmode=c-shared -trimpath -ldflags="-s -w" -o "$out" ./cabi
	rm -f "${out%.dll}.h"
	if command -v x86_64-w64-mingw32-objdump >/dev/null; then
		extra=$(x86_64-w64-mingw32-objdump -p "$out" |
			sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' | awk 'NR > 1 && NF {print $NF}' | grep -v '^fmi[23]' || true)
		if [ -n "$extra" ]; then
			echo "build-runtime: $out exports non-FMI symbols:" >&2
			echo "$extra" >&2
			exit 1
		fi
	fi
	echo "built $out ($(du -h "$out" | cut -f1))"
	exit 0
fi

# findzig prints the path of a zig compiler, fetching it if it can.
findzig() { bash scripts/fetch-zig.sh; }

if [ "${1:-}" = "--arm64" ]; then
	shift
	out=${1:-bin/libmbfmu-fmi2-arm64.so}
	zig=$(findzig || true)
	if [ -z "$zig" ] || ! "$zig" version >/dev/null 2>&1; then
		echo "build-runtime: the aarch64 build needs zig (scripts/fetch-zig.sh fetches it with npm)" >&2
		exit 1
	fi
	mkdir -p "$(dirname "$out")"
	# -d=fmahash=n: no fused multiply-add (the compiler notes each site it
	# leaves alone on stderr: dropped)
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC="$zig cc -target aarch64-linux-gnu.2.17" \
		go build -buildmode=c-shared -trimpath -gcflags=all=-d=fmahash=n \
		-ldflags="-s -w -extldflags=-Wl,--version-script=$PWD/cabi/exports.map" \
		-o "$out" ./cabi 2> >(grep -v 'fmahash triggered\|^\[DISABLED\]\|^# ' >&2)
	rm -f "${out%.so}.h"
	echo "built $out ($(du -h "$out" | cut -f1))"
	exit 0
fi

out=${1:-bin/libmbfmu-fmi2.so}
mkdir -p "$(dirname "$out")"
# the Windows and aarch64 builds beside it come from an older source now:
# never let `mbfmu pack` put them beside this one (build them again)
rm -f "$(dirname "$out")/mbfmu-fmi2-win64.dll" "$(dirname "$out")/libmbfmu-fmi2-arm64.so"

cc=gcc
if [ "${MBFMU_PORTABLE:-1}" != 0 ]; then
	zig=$(findzig || true)
	if [ -n "$zig" ] && "$zig" version >/dev/null 2>&1; then
		cc="$zig cc -target x86_64-linux-gnu.2.17"
	else
		echo "build-runtime: zig not available: building with gcc (the FMU will need glibc $(ldd --version 2>/dev/null | awk 'NR == 1 {print $NF}')+; see scripts/build-runtime.sh)" >&2
	fi
fi
build() {
	CGO_ENABLED=1 CC="$1" go build -buildmode=c-shared -trimpath \
		-ldflags="-s -w -extldflags=-Wl,--version-script=$PWD/cabi/exports.map" \
		-o "$out" ./cabi
}
if ! build "$cc"; then
	[ "$cc" = gcc ] && exit 1
	echo "build-runtime: the zig build failed: building with gcc instead" >&2
	cc=gcc
	build gcc
fi
rm -f "${out%.so}.h" # cgo's generated header; cabi/fmi2.h is the real one
# Every exported symbol must be an FMI function.
if command -v nm >/dev/null; then
	extra=$(nm -D --defined-only "$out" | awk '{print $3}' | grep -v '^fmi[23]' || true)
	if [ -n "$extra" ]; then
		echo "build-runtime: $out exports non-FMI symbols:" >&2
		echo "$extra" >&2
		exit 1
	fi
fi
glibc=""
if command -v objdump >/dev/null; then
	glibc=$(objdump -T "$out" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1)
fi
how=gcc
[ "$cc" != gcc ] && how="zig cc"
echo "built $out ($(du -h "$out" | cut -f1), $how, needs glibc ${glibc:-?})"
