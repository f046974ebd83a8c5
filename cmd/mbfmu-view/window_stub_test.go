//go:build !viewer

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestNoWindowInPlainBuild(t *testing.T) {
	_, csvPath := writeInputs(t)
	var stderr bytes.Buffer
	err := run([]string{csvPath}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "-tags viewer,static") {
		t.Fatalf("error %v", err)
	}
}
