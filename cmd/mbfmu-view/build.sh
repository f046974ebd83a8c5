#!/bin/sh
# Builds mbfmu-view with its interactive SDL window, linking the SDL 2 that
# go-sdl2 bundles (-tags static): no SDL package is needed, only Go and gcc.
#
#   cmd/mbfmu-view/build.sh [output]        (default: ./mbfmu-view)
#   cmd/mbfmu-view/build.sh test            (runs the package tests with SDL)
#
# The bundled libSDL2 lists X11 and ALSA libraries on its link line but
# loads them at run time with dlopen, so the binary needs only libc and libm.
# Where their development links (libX11.so, ...) are missing, the linker is
# given empty stand-ins, which --as-needed then drops.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-mbfmu-view}
case $out in /*) ;; *) out=$PWD/$out ;; esac
# A fixed directory keeps CGO_LDFLAGS, and so Go's build cache, stable.
stub=${XDG_CACHE_HOME:-$HOME/.cache}/mbfmu-view/sdl-link
mkdir -p "$stub"
for l in asound X11 Xext Xcursor Xinerama Xi Xrandr Xss Xxf86vm; do
	if [ ! -e "$stub/lib$l.so" ] && [ "$(gcc -print-file-name=lib$l.so)" = "lib$l.so" ] &&
		[ "$(gcc -print-file-name=lib$l.a)" = "lib$l.a" ]; then
		echo 'void mbfmu_view_stub_'"$l"'(void){}' | gcc -shared -fPIC -x c - -o "$stub/lib$l.so"
	fi
done
export CGO_LDFLAGS="${CGO_LDFLAGS:-} -Wl,--as-needed -L$stub"
cd "$here"
if [ "${1:-}" = test ]; then
	SDL_VIDEODRIVER=dummy exec go test -tags viewer,static -count=1 .
fi
exec go build -tags viewer,static -o "$out" .
