package main

import (
	"strings"
)

// lineError shows an error of several lines, such as every problem of a
// fleet file, on one line: each line after the first follows a "; ", or
// a space after a line that ends with a colon.
type lineError struct{ err error }

// oneLine returns err, shown on one line; nil stays nil.
func oneLine(err error) error {
	if err == nil || !strings.Contains(err.Error(), "\n") {
		return err
	}
	return &lineError{err}
}

func (e *lineError) Error() string {
	var b strings.Builder
	for line := range strings.Lines(strings.TrimSpace(e.err.Error())) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if b.Len() > 0 {
			if strings.HasSuffix(b.String(), ":") {
				b.WriteString(" ")
			} else {
				b.WriteString("; ")
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// Unwrap returns the error shown, so that errors.Is and errors.As see
// through.
func (e *lineError) Unwrap() error { return e.err }
