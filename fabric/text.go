package fabric

import "strconv"

// countOf writes a count and its noun for a message: "1 VM", "3 VMs".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
