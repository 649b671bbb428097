//go:build unix

package imds

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peekGone waits until the connection has something to read and peeks at
// it without taking it: gone is true if that is its end (or a reset),
// false if it is data (a pipelined request: the client is still there). A
// non-nil error is the connection's read deadline passing.
func peekGone(rc syscall.RawConn) (gone bool, err error) {
	var (
		buf  [1]byte
		n    int
		rerr error
	)
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr = unix.Recvfrom(int(fd), buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		return rerr != unix.EAGAIN && rerr != unix.EINTR
	})
	if err != nil {
		return false, err
	}
	return rerr != nil || n == 0, nil
}
