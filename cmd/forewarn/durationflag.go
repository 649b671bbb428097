package main

import (
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
)

// durationValue is a pflag.Value for durations in Go's syntax plus days
// ("7d").
type durationValue time.Duration

// String shows zero as "0", which the help leaves out as a default.
func (d *durationValue) String() string {
	if *d == 0 {
		return "0"
	}
	return time.Duration(*d).String()
}

func (d *durationValue) Set(s string) error {
	v, err := forewarn.ParseDuration(s)
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("negative duration %q", s)
	}
	*d = durationValue(v)
	return nil
}

func (d *durationValue) Type() string { return "duration" }
