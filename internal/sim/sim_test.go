package sim

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

var (
	seedFlag   = flag.Uint64("seed", 0, "run this seed alone (0: the default seeds)")
	seedsFlag  = flag.Int("seeds", 0, "how many seeds to run (default: enough for the budget)")
	opsFlag    = flag.Int("ops", 0, "operations a seed (default 1000)")
	firstFlag  = flag.Uint64("first", 1, "the first seed of the run")
	storeFlag  = flag.String("store", "mem", "the store: mem, bolt or etcd")
	maskFlag   = flag.String("mask", defaultMasks, "the masks of known defects, comma-separated (see options.go)")
	strictFlag = flag.Bool("strict", false, "no masks: find the known defects too (-mask '')")
	forFlag    = flag.Duration("for", 0, "run seeds for this long (scripts/simulate.sh --long)")
	shrinkFlag = flag.Duration("shrink", 60*time.Second, "how long to shrink a failure")
)

// defaultMasks are the masks of the defects internal/sim/FINDINGS.md records and main
// has not fixed yet: none.
const defaultMasks = ""

// options are the masks of -mask, none with -strict.
func options() Options {
	if *strictFlag {
		return Options{}
	}
	o, err := Options{}.WithMasks(*maskFlag)
	if err != nil {
		panic(err)
	}
	return o
}

func TestSimulation(t *testing.T) {
	opts := options()
	opts.Store, opts.Dir = *storeFlag, t.TempDir()
	if opts.Store == "etcd" { // -store etcd: the one FOREWARN_SIM_ETCD names, or an embedded one
		if opts.Etcd = os.Getenv("FOREWARN_SIM_ETCD"); opts.Etcd == "" {
			opts.Etcd = startEtcd(t)
		}
	}
	n := cmpOr(*opsFlag, 1000)
	seeds := cmpOr(*seedsFlag, 50)
	switch {
	case testing.Short():
		seeds = cmpOr(*seedsFlag, 5)
	case raceOn:
		seeds = cmpOr(*seedsFlag, 15)
	}
	first := *firstFlag
	if *seedFlag != 0 {
		first, seeds = *seedFlag, 1
	}
	start := time.Now()
	var total Stats
	for i := 0; ; i++ {
		if *forFlag > 0 {
			if time.Since(start) > *forFlag {
				break
			}
		} else if i >= seeds {
			break
		}
		seed := first + uint64(i)
		runSeed(t, seed, n, opts, &total)
		if t.Failed() {
			return
		}
	}
	took := time.Since(start)
	t.Logf("%d operations over seeds %d.. in %v: %.0f operations a second; %d events, %d approvals, %d campaigns, %d restarts; "+
		"%d requests held by a chaos delay, %d scopes deleted under two campaigns, %d approvals of an event another campaign waits for, "+
		"%d resolves forced, %d refused without force",
		total.Ops, first, took.Round(time.Millisecond), float64(total.Ops)/took.Seconds(), total.Events, total.Approvals,
		total.Campaigns, total.Restarts, total.Held, total.Wiped2, total.Waited, total.Forced, total.Refused)
}

func runSeed(t *testing.T, seed uint64, n int, opts Options, total *Stats) {
	t.Helper()
	ctx := context.Background()
	p := Generate(seed, n, opts)
	f, stats := Run(ctx, p, opts)
	total.add(stats)
	if f == nil {
		return
	}
	small, sf := Shrink(ctx, p, f, opts, *shrinkFlag)
	t.Errorf("seed %d failed %s\n\nshrunk from %d to %d operations, which fail %s\n\n%s\nreplay: go test ./internal/sim -run TestSimulation -seed %d -ops %d%s",
		seed, f, f.Step+1, len(small.Ops), sf, small, seed, n, replayFlags())
}

func replayFlags() string {
	var b strings.Builder
	if *strictFlag {
		b.WriteString(" -strict")
	} else if *maskFlag != defaultMasks {
		fmt.Fprintf(&b, " -mask '%s'", *maskFlag)
	}
	if *storeFlag != "mem" {
		fmt.Fprintf(&b, " -store %s", *storeFlag)
	}
	return b.String()
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func TestMain(m *testing.M) {
	flag.Parse()
	debug.SetGCPercent(400) // a run's heap is small: collect it less often
	os.Exit(m.Run())
}

// TestStores runs a few seeds on bbolt, which a restart closes and opens
// again, and on etcd: an embedded one, or the one FOREWARN_SIM_ETCD names.
func TestStores(t *testing.T) {
	t.Run("bolt", func(t *testing.T) {
		opts := options()
		opts.Store, opts.Dir = "bolt", t.TempDir()
		var total Stats
		for seed := uint64(101); seed <= 102; seed++ {
			runSeed(t, seed, 300, opts, &total)
		}
		t.Logf("%d operations on bbolt", total.Ops)
	})
	t.Run("etcd", func(t *testing.T) {
		endpoint := os.Getenv("FOREWARN_SIM_ETCD")
		if endpoint == "" {
			if testing.Short() {
				t.Skip("-short: no embedded etcd (set FOREWARN_SIM_ETCD to use one)")
			}
			endpoint = startEtcd(t)
		}
		opts := options()
		opts.Store, opts.Etcd = "etcd", endpoint
		var total Stats
		runSeed(t, 201, 200, opts, &total)
		t.Logf("%d operations on etcd", total.Ops)
	})
}
