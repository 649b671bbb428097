//go:build !unix

package main

import "time"

// selfCPU is 0 where there is no getrusage (Windows): the load's own CPU
// time then reads 0 ms. The tool measures Linux servers; it only has to
// build elsewhere, as every package does (scripts/release.sh).
func selfCPU() time.Duration { return 0 }
