package etcd

import (
	"context"
	"fmt"
	"testing"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/etcdtest"
	"github.com/forewarn/forewarn/internal/records"
)

// TestSplitReadKeepsItsRevision: on an etcd whose --max-txn-ops is under
// maxReadOps, a View's first read of many keys is split in halves, while
// another client writes one of them: the second half reads at the
// revision the first pinned (a review found it read at etcd's current
// revision in 190 of 200 Views).
func TestSplitReadKeepsItsRevision(t *testing.T) {
	_, addr := etcdtest.StartWith(t, "halves", func(cfg *embed.Config) { cfg.MaxTxnOps = 50 })
	s, err := Open(t.Context(), Config{Endpoints: []string{addr}, Prefix: "/h"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("k%03d", i)
		if _, err := s.client.Put(t.Context(), s.keys.record(dirs[records.Scopes], names[i]), "v"); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for i := 0; ctx.Err() == nil; i++ {
			_, _ = s.client.Put(ctx, s.keys.record(dirs[records.Scopes], "k099"), fmt.Sprint("w", i))
		}
	}()
	torn := 0
	for range 200 {
		s.maxOps.Store(DefaultMaxTxnOps) // as a fresh store
		err := s.View(t.Context(), func(ftx forewarn.Tx) error {
			etx := ftx.(*tx)
			if _, err := etx.RawGetMany(records.Scopes, names); err != nil {
				return err
			}
			snap := etx.kv.(*snapshot)
			if r := snap.cache[s.keys.record(dirs[records.Scopes], "k099")]; r.modRev > snap.rev {
				torn++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if torn > 0 {
		t.Errorf("%d of 200 Views read a key at a revision after their snapshot's", torn)
	}
}
