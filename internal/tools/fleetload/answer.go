package main

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// An answer's buffer starts at firstBuffer bytes, enough for the document
// of a scope with a few events, and grows up to maxAnswer.
const (
	firstBuffer = 2 << 10
	maxAnswer   = 64 << 10
)

// answer is an HTTP answer read whole from a connection.
type answer struct {
	status int
	etag   string // without quotes
	body   []byte
	// arrived is when its last bytes reached the socket, by the kernel's
	// receive timestamp (the zero time if the kernel gave none); read is
	// when the program had read them.
	arrived, read time.Time
}

// Errors of parseAnswer.
var (
	// errNoLength is an answer the client cannot tell the end of.
	errNoLength = errors.New("answer without Content-Length")
	// errStatusLine is an answer that does not start with an HTTP/1.x
	// status line.
	errStatusLine = errors.New("no HTTP/1.x status line")
)

// parseAnswer parses data, the bytes read so far of one HTTP/1.x answer
// with a Content-Length. complete is false while it is cut short. It reads
// only the status, ETag and Content-Length, without allocating much: 10,000
// clients parse at once on the cores the server uses.
func parseAnswer(data []byte) (a answer, complete bool, err error) {
	end := bytes.Index(data, []byte("\r\n\r\n"))
	if end < 0 {
		return a, false, nil
	}
	line, headers, _ := bytes.Cut(data[:end], []byte("\r\n"))
	proto, rest, _ := bytes.Cut(line, []byte(" "))
	code, _, _ := bytes.Cut(rest, []byte(" "))
	a.status, err = strconv.Atoi(string(code))
	if !bytes.HasPrefix(proto, []byte("HTTP/1.")) || err != nil || len(code) != 3 {
		return a, false, fmt.Errorf("answer %.60q: %w", data, errStatusLine)
	}
	length := -1
	for len(headers) > 0 {
		var h []byte
		h, headers, _ = bytes.Cut(headers, []byte("\r\n"))
		name, value, _ := bytes.Cut(h, []byte(":"))
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return a, false, fmt.Errorf("answer %.60q: Content-Length %q", data, value)
			}
		case bytes.EqualFold(name, []byte("ETag")):
			a.etag = trimTag(string(value))
		}
	}
	if length < 0 {
		return a, false, errNoLength
	}
	body := data[end+4:]
	if len(body) < length {
		return a, false, nil
	}
	a.body = body[:length]
	return a, true, nil
}

// trimTag is an ETag's opaque part, without the quotes.
func trimTag(etag string) string {
	if len(etag) >= 2 && etag[0] == '"' && etag[len(etag)-1] == '"' {
		return etag[1 : len(etag)-1]
	}
	return etag
}

// grow returns buf with twice the room, or nil if that would pass
// maxAnswer.
func grow(buf []byte) []byte {
	if cap(buf) >= maxAnswer {
		return nil
	}
	return append(make([]byte, 0, min(2*cap(buf), maxAnswer)), buf...)
}
