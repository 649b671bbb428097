package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/PID/stat's CPU times: USER_HZ, 100 on
// every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// processCPU is the CPU time process pid has used, 0 with no error for pid
// 0 (not asked): its threads' run times, to the nanosecond
// (threadsCPU), or where the kernel does not keep them, the user plus
// system time of /proc/PID/stat, in 10 ms ticks: a 10,000-answer change
// takes about 300 ms of CPU, which ticks measure to 3% only.
func processCPU(pid int) (time.Duration, error) {
	if pid == 0 {
		return 0, nil
	}
	if d, ok := threadsCPU(pid); ok {
		return d, nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("the server's CPU time: %w", err)
	}
	return parseStatCPU(string(b))
}

// threadsCPU sums the first field of /proc/PID/task/*/schedstat, each
// thread's time on a CPU in nanoseconds; false if the kernel has no such
// files. The time of threads that have ended is not in it: a Go server
// keeps its threads.
func threadsCPU(pid int) (time.Duration, bool) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if errors.Is(err, fs.ErrNotExist) {
			if _, gone := os.Stat(dir + "/" + t.Name()); gone != nil {
				continue // the thread ended meanwhile
			}
			return 0, false
		}
		if err != nil {
			return 0, false
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, false
		}
		sum += time.Duration(ns)
	}
	return sum, len(tasks) > 0
}

// parseStatCPU reads utime and stime, fields 14 and 15 of a
// /proc/PID/stat line, counted after the ") " that ends the command name
// (which may hold spaces).
func parseStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndex(stat, ") ")
	if i < 0 {
		return 0, fmt.Errorf("stat line %.80q: no command name", stat)
	}
	f := strings.Fields(stat[i+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("stat line %.80q: too few fields", stat)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat line %.80q: CPU time %q: %w", stat, s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// cpuMeter measures the CPU time the server (if its pid is known) and this
// process use between start and stop.
type cpuMeter struct {
	pid          int
	server, self time.Duration
	started      time.Time
}

// start notes the CPU times so far.
func (m *cpuMeter) start() error {
	var err error
	m.server, err = processCPU(m.pid)
	m.self, m.started = selfCPU(), time.Now()
	return err
}

// stop returns the CPU times used since start, in milliseconds, and the
// wall time between; server is -1 if its pid is not known.
func (m *cpuMeter) stop() (cpuUse, error) {
	u := cpuUse{WallMs: ms(time.Since(m.started)), LoadMs: ms(selfCPU() - m.self), ServerMs: -1}
	if m.pid == 0 {
		return u, nil
	}
	now, err := processCPU(m.pid)
	u.ServerMs = ms(now - m.server)
	return u, err
}

// cpuUse is the CPU time the server and the load used over some wall time.
type cpuUse struct {
	WallMs   float64 `json:"wall_ms"`
	ServerMs float64 `json:"server_cpu_ms"` // -1: unknown
	LoadMs   float64 `json:"load_cpu_ms"`
}

// String is "server 410 ms CPU, load 120 ms CPU, over 290 ms".
func (u cpuUse) String() string {
	server := "server ? (no -server-pid)"
	if u.ServerMs >= 0 {
		server = fmt.Sprintf("server %s ms", num(u.ServerMs))
	}
	return fmt.Sprintf("%s CPU, load %s ms CPU, over %s ms", server, num(u.LoadMs), num(u.WallMs))
}
