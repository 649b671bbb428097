package execact

import (
	"bufio"
	"io"
	"log/slog"
	"strings"
)

const (
	// maxLineBytes is where a longer line of output is cut.
	maxLineBytes = 4 << 10
	// maxLoggedLines is how many lines of one stream of one attempt are
	// logged; later lines only count for the last line.
	maxLoggedLines = 1000
)

// output reads one stream of an attempt's output, logs each line and keeps
// the last line that is not blank.
type output struct {
	log    *slog.Logger
	last   string
	logged int
}

// read reads r until it ends or fails.
func (o *output) read(r io.Reader) {
	br := bufio.NewReaderSize(r, maxLineBytes)
	for {
		line, err := readLine(br)
		if err != nil {
			return
		}
		o.line(line)
	}
}

// line handles one line of output.
func (o *output) line(line string) {
	if strings.TrimSpace(line) != "" {
		o.last = line
	}
	switch {
	case o.logged < maxLoggedLines:
		o.log.Info("exec output", "line", line)
	case o.logged == maxLoggedLines:
		o.log.Info("exec output: further lines are not logged")
	default:
		return
	}
	o.logged++
}

// readLine returns the next line without its end of line. A line longer
// than the buffer is cut, and the rest of it dropped.
func readLine(br *bufio.Reader) (string, error) {
	b, more, err := br.ReadLine()
	if err != nil {
		return "", err
	}
	line := string(b)
	cut := false
	for more {
		if b, more, err = br.ReadLine(); err != nil {
			break
		}
		cut = cut || len(b) > 0
	}
	if cut {
		line += " [cut]"
	}
	return line, nil
}
