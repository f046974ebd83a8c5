//go:build !cgo

package cosim

import "errors"

// openDL is not available without cgo: third-party FMUs are loaded with
// dlopen from C.
func openDL(a *fmuArchive, name string, sink *logSink, logging bool) (slave, error) {
	return nil, errors.New("this build of mbfmu has no cgo: third-party FMUs (loaded with dlopen) need a build with CGO_ENABLED=1 (FMUs packed by mbfmu still run in-process)")
}
