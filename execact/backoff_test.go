package execact

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

// The backoff doubles from Backoff up to MaxBackoff, with jitter down to
// half of it.
func TestBackoff(t *testing.T) {
	for _, base := range []time.Duration{time.Second, 2 * time.Second, 10 * time.Minute} {
		a := &Actuator{cfg: Config{Backoff: base}}
		for n := 1; n <= 40; n++ {
			full := base
			for i := 1; i < n && full < MaxBackoff; i++ {
				full *= 2
			}
			full = min(full, max(MaxBackoff, base))
			for range 20 {
				if d := a.backoff(n); d < full/2 || d > full {
					t.Fatalf("backoff(%d) with base %v = %v, want within [%v, %v]", n, base, d, full/2, full)
				}
			}
		}
	}
}

// Long lines are cut, and what follows them is read as usual.
func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 3*maxLineBytes)
	exact := strings.Repeat("y", maxLineBytes)
	br := bufio.NewReaderSize(strings.NewReader(long+"\n"+exact+"\nnext\r\nlast"), maxLineBytes)
	want := []string{strings.Repeat("x", maxLineBytes) + " [cut]", exact, "next", "last"}
	for _, w := range want {
		got, err := readLine(br)
		if err != nil || got != w {
			t.Fatalf("readLine = %.20q..., %v; want %.20q...", got, err, w)
		}
	}
	if _, err := readLine(br); err == nil {
		t.Fatal("no error at the end")
	}
}
