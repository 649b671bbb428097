// Package e2e holds the end-to-end tests of the real forewarn binary: it is
// built once, started as a process on loopback addresses, and driven through
// its HTTP APIs and signals.
package e2e
