package drill

import (
	"fmt"
	"io"
	"sync"
)

// maxStatus is the widest status line drawn: a wider one would wrap, and
// only its last line would be erased.
const maxStatus = 100

// printer writes a drill's progress: a line for each thing that happens
// and, on a terminal, a status line redrawn below them. Health checks print
// from their own goroutines.
type printer struct {
	mu   sync.Mutex
	w    io.Writer
	live bool
	// drawn says a status line is on the screen.
	drawn bool
}

func newPrinter(w io.Writer, live bool) *printer {
	if w == nil {
		w = io.Discard
	}
	return &printer{w: w, live: live}
}

// linef prints a line, above the status line.
func (p *printer) linef(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// status redraws the status line; without a terminal it prints nothing,
// since the lines already say what happens.
func (p *printer) status(format string, args ...any) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	line := fmt.Sprintf(format, args...)
	if r := []rune(line); len(r) > maxStatus {
		line = string(r[:maxStatus-3]) + "..."
	}
	fmt.Fprint(p.w, line)
	p.drawn = true
}

// clear removes the status line.
func (p *printer) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

// erase removes the status line; p.mu must be held.
func (p *printer) erase() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
