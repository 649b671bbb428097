package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// readAnswer reads one answer from conn whole, with the kernel's receive
// timestamp of its last bytes: the moment the server's answer reached the
// client, apart from how long the load's own goroutines take to read it
// while 10,000 of them wake at once on shared cores.
func readAnswer(conn *net.TCPConn) (answer, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return answer{}, err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return answer{}, fmt.Errorf("ask for receive timestamps: %v%v", err, serr)
	}
	buf := make([]byte, 0, firstBuffer)
	var oob [128]byte
	var arrived time.Time
	for {
		if len(buf) == cap(buf) {
			if buf = grow(buf); buf == nil {
				return answer{}, fmt.Errorf("answer larger than %d bytes", maxAnswer)
			}
		}
		n, oobn, err := recvmsg(rc, buf[len(buf):cap(buf)], oob[:])
		if err != nil {
			return answer{}, err
		}
		if n == 0 {
			return answer{}, io.ErrUnexpectedEOF
		}
		buf = buf[:len(buf)+n]
		if ts, ok := rxTimestamp(oob[:oobn]); ok {
			arrived = ts
		}
		a, complete, err := parseAnswer(buf)
		if err != nil || complete {
			a.arrived, a.read = arrived, time.Now()
			return a, err
		}
	}
}

// recvmsg is one recvmsg(2) on rc, waiting in the runtime's poller while
// nothing is there to read, until the connection's read deadline.
func recvmsg(rc syscall.RawConn, p, oob []byte) (n, oobn int, err error) {
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), p, oob, 0)
		return rerr != syscall.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	return n, oobn, err
}

// rxTimestamp is the SCM_TIMESTAMPNS receive timestamp among the control
// messages oob, if there is one.
func rxTimestamp(oob []byte) (time.Time, bool) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return time.Time{}, false
	}
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			sec := int64(binary.NativeEndian.Uint64(m.Data))
			nsec := int64(binary.NativeEndian.Uint64(m.Data[8:]))
			return time.Unix(sec, nsec), true
		}
	}
	return time.Time{}, false
}
