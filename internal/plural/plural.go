// Package plural words a count for a message, "1 VM", "3 VMs", the same
// way in the fabric, fleetfile and the CLI (the first two may not import
// each other).
package plural

import "strconv"

// Count writes a count and its noun: "1 VM", "3 VMs".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Word(n, one, many)
}

// Word returns one if n is 1, else many: "has" or "have".
func Word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
