// Package fabrictest starts the real control plane over an in-memory store
// for a test, for the packages that use a forewarn.Fleet (the admin API,
// fleet files): they test against the fabric itself rather than a fake of
// its 26 methods, so a method added to Fleet is written once.
package fabrictest

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/memstore"
)

// T0 is the time of the fake clock New gives a fabric that has none: with
// nanoseconds, so that a round trip that loses precision shows.
var T0 = time.Date(2025, 3, 14, 9, 26, 53, 589793238, time.UTC)

// New returns a Fabric with cfg, over a new memstore.Store (closed on
// cleanup) unless cfg has a Store, and a fake clock at T0 unless cfg has a
// Clock.
func New(tb testing.TB, cfg fabric.Config) *fabric.Fabric {
	tb.Helper()
	if cfg.Store == nil {
		store := memstore.New()
		tb.Cleanup(func() { store.Close() })
		cfg.Store = store
	}
	if cfg.Clock == nil {
		cfg.Clock = clockwork.NewFakeClockAt(T0)
	}
	f, err := fabric.New(tb.Context(), cfg)
	if err != nil {
		tb.Fatalf("new fabric: %v", err)
	}
	return f
}
