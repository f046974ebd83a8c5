//go:build !viewer

package main

import "errors"

// runWindow is the interactive window; this build has none.
func runWindow(*app, string) error {
	return errors.New("this mbfmu-view was built without the SDL window: build with -tags viewer,static (see README); --screenshot works in this build")
}
