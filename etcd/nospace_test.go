package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/internal/etcdtest"
)

// quotaFlag is what every write refused for space must name.
const quotaFlag = "--quota-backend-bytes"

// isNoSpace reports whether err is the store's answer to etcd's NOSPACE
// alarm: ErrUnavailable, naming the quota and the fix.
func isNoSpace(err error) bool {
	return errors.Is(err, forewarn.ErrUnavailable) && errors.Is(err, rpctypes.ErrNoSpace) &&
		strings.Contains(forewarn.ErrorMessage(err), quotaFlag) && strings.Contains(forewarn.ErrorMessage(err), "etcdctl alarm disarm")
}

// TestNoSpace: once etcd raises its NOSPACE alarm, every write of the
// store says so, with the quota and the fix: a transaction, the schema
// written into a new prefix, a campaign for the lead, an announcement
// (in the log, as it tries again).
func TestNoSpace(t *testing.T) {
	_, addr := etcdtest.StartWith(t, "forewarn-nospace", func(cfg *embed.Config) { cfg.QuotaBackendBytes = 256 << 10 })
	log := &logBuffer{}
	s, err := etcd.Open(t.Context(), etcd.Config{Endpoints: []string{addr}, Prefix: "/nospace",
		Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	value := strings.Repeat("x", 32<<10)
	for i := 0; ; i++ {
		_, err := s.Client().Put(t.Context(), fmt.Sprintf("/junk/%d", i), value)
		if errors.Is(err, rpctypes.ErrNoSpace) {
			break
		}
		if err != nil || i == 1000 {
			t.Fatalf("put %d of 32 KiB in 256 KiB: %v", i, err)
		}
	}

	err = s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutMeta("k", []byte("v")) })
	if !isNoSpace(err) {
		t.Errorf("Update: %v", err)
	}
	if err := s.View(t.Context(), func(tx forewarn.Tx) error { _, err := tx.Meta("k"); return err }); err != nil {
		t.Errorf("View: %v", err)
	}
	if _, err := etcd.Open(t.Context(), etcd.Config{Endpoints: []string{addr}, Prefix: "/nospace-new"}); !isNoSpace(err) {
		t.Errorf("Open of a new prefix: %v", err)
	}
	if _, _, err := s.Lead(t.Context(), "one"); !isNoSpace(err) {
		t.Errorf("Lead: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	joined := make(chan error, 1)
	go func() { joined <- s.Join(ctx, forewarn.Replica{ID: "one"}) }()
	deadline := time.Now().Add(10 * time.Second)
	for log.count(quotaFlag) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling a log written by another goroutine
	}
	cancel()
	<-joined
	if !strings.Contains(log.String(), "announce replica") || log.count(quotaFlag) == 0 {
		t.Errorf("Join logged no failure naming the quota:\n%s", log.String())
	}
}
