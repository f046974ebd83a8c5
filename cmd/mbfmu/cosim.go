package main

import "errors"

func cmdCosim(args []string) error {
	return errors.New("cosim: not available in this build")
}
