package etcd

import (
	"fmt"
	"slices"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
)

// changedAt returns the keys under the store's prefix that the last commit
// wrote (their mod revision is the store's revision), and the revision.
func changedAt(t *testing.T, s *Store) ([]string, int64) {
	t.Helper()
	resp, err := s.client.Get(t.Context(), s.keys.prefix+"/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, kv := range resp.Kvs {
		if kv.ModRevision == resp.Header.Revision {
			out = append(out, string(kv.Key[len(s.keys.prefix):]))
		}
	}
	return out, resp.Header.Revision
}

// TestHistoryAppendWritesTheEvent checks that an append to a long history
// writes the event, the sequence number and the guard, and nothing that
// grows with the history; the trim is one range delete.
func TestHistoryAppendWritesTheEvent(t *testing.T) {
	s := mustOpen(t, newPrefix())
	appendN := func(from, to, keep int) {
		t.Helper()
		err := s.Update(t.Context(), func(tx forewarn.Tx) error {
			for i := from; i <= to; i++ {
				if err := tx.AppendHistory(&forewarn.Event{ID: fmt.Sprintf("e%d", i)}, keep); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for from := 1; from <= 300; from += 100 {
		appendN(from, from+99, 1000)
	}
	appendN(301, 301, 1000)
	changed, _ := changedAt(t, s)
	want := []string{fmt.Sprintf("/history/%020d", 301), "/seq/history", "/seq/update"}
	if !slices.Equal(changed, want) {
		t.Errorf("an append to a history of 300 wrote %v, want %v", changed, want)
	}
	// A smaller keep trims everything older at once, however many.
	appendN(302, 303, 5)
	history := readHistory(t, s, 0)
	if want := []string{"e303", "e302", "e301", "e300", "e299"}; !slices.Equal(history, want) {
		t.Errorf("history after keep 5 = %v, want %v", history, want)
	}
	if got := readHistory(t, s, 2); !slices.Equal(got, []string{"e303", "e302"}) {
		t.Errorf("History(2) = %v, want e303 e302", got)
	}
	resp, err := s.client.Get(t.Context(), s.keys.historyDir(), clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 5 {
		t.Errorf("%d history keys (%v), want 5", resp.Count, err)
	}
}

func readHistory(t *testing.T, s *Store, limit int) []string {
	t.Helper()
	var ids []string
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		events, err := tx.History(limit)
		for _, e := range events {
			ids = append(ids, e.ID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestCampaignPutWritesWhatMoved checks that writing a campaign over 1,000
// scopes in which one scope moved writes that scope's progress and nothing
// else of the campaign.
func TestCampaignPutWritesWhatMoved(t *testing.T) {
	s := mustOpen(t, newPrefix())
	c := &forewarn.Campaign{ID: "C1", State: forewarn.CampaignRunning}
	for i := range 1000 {
		c.Scopes = append(c.Scopes, forewarn.ScopeProgress{Scope: fmt.Sprintf("s%d", i), UpdateDomains: 5})
	}
	// Within etcd's --max-txn-ops: the campaign and its plan.
	if err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutCampaign(c) }); err != nil {
		t.Fatal(err)
	}
	changed, _ := changedAt(t, s)
	if want := []string{"/campaign-plans/c1", "/campaigns/c1", "/seq/update"}; !slices.Equal(changed, want) {
		t.Errorf("starting a campaign over 1,000 scopes wrote %v, want %v", changed, want)
	}
	err := s.Update(t.Context(), func(tx forewarn.Tx) error {
		got, err := tx.Campaign("c1")
		if err != nil {
			return err
		}
		got.Scopes[731].Done, got.Scopes[731].Event = 1, "e-731"
		return tx.PutCampaign(got)
	})
	if err != nil {
		t.Fatal(err)
	}
	changed, _ = changedAt(t, s)
	if want := []string{"/campaign-scopes/c1/00000731", "/seq/update"}; !slices.Equal(changed, want) {
		t.Errorf("moving one scope of 1,000 wrote %v, want %v", changed, want)
	}
	err = s.Update(t.Context(), func(tx forewarn.Tx) error {
		got, err := tx.Campaign("C1")
		if err != nil {
			return err
		}
		got.State = forewarn.CampaignPaused
		return tx.PutCampaign(got)
	})
	if err != nil {
		t.Fatal(err)
	}
	changed, _ = changedAt(t, s)
	if want := []string{"/campaigns/c1", "/seq/update"}; !slices.Equal(changed, want) {
		t.Errorf("pausing the campaign wrote %v, want %v", changed, want)
	}
}

// TestDeleteRangeInTransaction checks the buffered range delete: reads in
// the transaction no longer see the keys, a key written after the delete
// is kept (etcd refuses a put inside a range the same request deletes),
// and overlapping ranges commit as one.
func TestDeleteRangeInTransaction(t *testing.T) {
	s := mustOpen(t, newPrefix())
	k := func(i int) string { return fmt.Sprintf("%s/x/%02d", s.keys.prefix, i) }
	err := s.Update(t.Context(), func(forewarn.Tx) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := s.client.Put(t.Context(), k(i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	o := newOptimistic(s.client, t.Context(), nil, s.keys.updateGuard(), &s.maxOps)
	o.put(k(2), "before") // dropped: the range covers it
	o.delRange(k(0), k(5))
	o.delRange(k(3), k(8)) // overlaps: merged
	o.put(k(4), "after")
	vals, err := o.get(k(1), k(4), k(8))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{k(4): "after", k(8): "v"}; !maps(vals, want) {
		t.Errorf("reads after the deletes = %v, want %v", vals, want)
	}
	var scanned []string
	err = o.scan(k(0), k(99), func(key, value string) (bool, error) {
		scanned = append(scanned, key[len(key)-2:]+"="+value)
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"04=after", "08=v", "09=v"}; !slices.Equal(scanned, want) {
		t.Errorf("scan after the deletes = %v, want %v", scanned, want)
	}
	ok, err := o.commit(s.writer)
	if err != nil || !ok {
		t.Fatalf("commit = %v, %v", ok, err)
	}
	resp, err := s.client.Get(t.Context(), k(0), clientv3.WithRange(k(99)))
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, kv := range resp.Kvs {
		stored = append(stored, string(kv.Key[len(kv.Key)-2:])+"="+string(kv.Value))
	}
	if !slices.Equal(stored, scanned) {
		t.Errorf("stored after commit = %v, want %v", stored, scanned)
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
