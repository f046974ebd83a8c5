package main

import "errors"

func cmdBench(args []string) error {
	return errors.New("bench: not available in this build")
}
