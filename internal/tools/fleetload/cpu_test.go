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
	for deadline := time.Now().Add(100 * time.Millisecond); time.Now().Before(deadline); {
	}
	u, err := m.stop()
	if err != nil {
		t.Fatal(err)
	}
	// The kernel counts in 10 ms ticks: 100 ms of spinning is 50 ms at least.
	if u.ServerMs < 50 || u.LoadMs < 50 || u.WallMs < 100 {
		t.Errorf("100 ms of spinning: %+v", u)
	}
	if u, _ := (&cpuMeter{}).stop(); u.ServerMs != -1 {
		t.Errorf("no pid: server %g, want -1", u.ServerMs)
	}
}
