//go:build !unix

package imds

import "syscall"

// peekGone gives up at once: without MSG_PEEK at hand, a client that goes
// away is not noticed until its answer is written.
func peekGone(syscall.RawConn) (gone bool, err error) {
	return false, nil
}
