package main

import (
	"fmt"
	"strings"
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

// choiceValue is a pflag.Value for a flag that takes one of choices, in any
// case, and keeps it as the choice is spelt.
type choiceValue[T ~string] struct {
	value   *T
	choices []T
}

func (c *choiceValue[T]) String() string {
	if c.value == nil {
		return ""
	}
	return string(*c.value)
}

func (c *choiceValue[T]) Set(s string) error {
	v, ok := forewarn.Canonical(s, c.choices)
	if !ok {
		return fmt.Errorf("want %s", forewarn.OneOf(c.choices))
	}
	*c.value = v
	return nil
}

// Type lists the choices in the help: Regular|Spot.
func (c *choiceValue[T]) Type() string {
	names := make([]string, len(c.choices))
	for i, choice := range c.choices {
		names[i] = string(choice)
	}
	return strings.Join(names, "|")
}
