//go:build !linux

package main

import (
	"fmt"
	"io"
	"net"
	"time"
)

// readAnswer reads one answer from conn whole. Without Linux's receive
// timestamps, arrived is left zero: only the time it was read is known.
func readAnswer(conn *net.TCPConn) (answer, error) {
	buf := make([]byte, 0, firstBuffer)
	for {
		if len(buf) == cap(buf) {
			if buf = grow(buf); buf == nil {
				return answer{}, fmt.Errorf("answer larger than %d bytes", maxAnswer)
			}
		}
		n, err := conn.Read(buf[len(buf):cap(buf)])
		if n == 0 && err == nil {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return answer{}, err
		}
		buf = buf[:len(buf)+n]
		a, complete, err := parseAnswer(buf)
		if err != nil || complete {
			a.read = time.Now()
			return a, err
		}
	}
}
