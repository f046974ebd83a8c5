//go:build !cgo

package cosim

import "errors"

// openDL3 is not available without cgo: FMI 3.0 FMUs not packed by mbfmu
// are loaded with dlopen from C.
func openDL3(a *fmuArchive, name string, sink *logSink, logging bool) (slave, error) {
	return nil, errors.New("this build of mbfmu has no cgo: third-party FMUs (loaded with dlopen) need a build with CGO_ENABLED=1 (FMUs packed by mbfmu still run in-process)")
}
