//go:build unix

package execact

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// inGroup makes cmd the leader of a new process group, which gets SIGTERM
// when the command's context is done, and its leader SIGKILL killGrace
// later.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = killGrace
}

// killGroup kills whatever is left of the process group led by pid.
func killGroup(pid int) {
	_ = signalGroup(pid, syscall.SIGKILL)
}

// signalGroup sends sig to every process of the group led by pid.
func signalGroup(pid int, sig syscall.Signal) error {
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
