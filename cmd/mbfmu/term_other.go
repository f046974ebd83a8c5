//go:build !linux

package main

import "os"

// isTerminal reports false: progress lines are written plain, one per
// line, outside Linux.
func isTerminal(f *os.File) bool { return false }
