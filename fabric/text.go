package fabric

import "github.com/forewarn/forewarn/internal/plural"

// countOf writes a count and its noun for a message: "1 VM", "3 VMs".
func countOf(n int, one, many string) string { return plural.Count(n, one, many) }
