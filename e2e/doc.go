// Package e2e holds the end-to-end tests of the real forewarn binary: it is
// built once, started as a process on loopback addresses, and driven through
// its HTTP APIs and signals; and, in image_test.go, as the container image
// scripts/image.sh builds, under podman.
package e2e
