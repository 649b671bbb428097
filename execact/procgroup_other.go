//go:build !unix

package execact

import "os/exec"

// inGroup kills only the command's own process when its context is done:
// process groups are a Unix feature.
func inGroup(cmd *exec.Cmd) {
	cmd.WaitDelay = killGrace
}

// killGroup does nothing without process groups.
func killGroup(int) {}
