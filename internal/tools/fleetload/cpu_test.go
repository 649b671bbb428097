package main

import (
	"os"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := "4242 (we(ird) name) S 1 4242 4242 0 -1 4194560 9000 0 0 0 150 25 0 0 20 0 8 0 100 0 0\n"
	got, err := parseStatCPU(stat)
	if err != nil || got != 175*clockTick {
		t.Fatalf("got %v, %v; want %v", got, err, 175*clockTick)
	}
	for _, bad := range []string{"", "1 (x) S 1 2", "1 (x) S 1 2 3 4 5 6 7 8 9 10 x 0"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestProcessCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	m := cpuMeter{pid: os.Getpid()}
	if err := m.start(); err != nil {
		t.Fatal(err)
	}
	// Spin for 100 ms of CPU time, not of wall time: on a busy machine
	// the test may get far less CPU than wall time.
	for start, deadline := selfCPU(), time.Now().Add(10*time.Second); selfCPU()-start < 100*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatal("getrusage counts no CPU time after 10 s of spinning")
		}
	}
	u, err := m.stop()
	if err != nil {
		t.Fatal(err)
	}
	// The kernel counts in ns, or 10 ms ticks: 100 ms of spinning is 50 ms
	// at least. Wall time may be a little less than the CPU time: the
	// collector's threads count too.
	if u.ServerMs < 50 || u.LoadMs < 100 || u.WallMs < 50 {
		t.Errorf("100 ms of spinning: %+v", u)
	}
	if u, _ := (&cpuMeter{}).stop(); u.ServerMs != -1 {
		t.Errorf("no pid: server %g, want -1", u.ServerMs)
	}
}

// TestThreadsCPU: the threads' run times agree with getrusage's count for
// the process, which includes them.
func TestThreadsCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	d, ok := threadsCPU(os.Getpid())
	self := selfCPU()
	if !ok {
		t.Skip("the kernel keeps no schedstat")
	}
	// getrusage counts ended threads too, and its own ticks' rounding.
	if d <= 0 || d > self+20*time.Millisecond {
		t.Errorf("threads %v, getrusage %v", d, self)
	}
	if _, ok := threadsCPU(1 << 30); ok {
		t.Error("a process that does not exist has threads")
	}
}
