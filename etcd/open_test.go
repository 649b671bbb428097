package etcd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
)

func errorsIsCanceled(err error) bool { return errors.Is(err, context.Canceled) }

// rawPut writes a key of the embedded etcd directly.
func rawPut(t *testing.T, key, value string) {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if _, err := c.Put(t.Context(), key, value); err != nil {
		t.Fatal(err)
	}
}

func TestSchemaWrittenAndKept(t *testing.T) {
	prefix := newPrefix()
	for range 2 {
		s := mustOpen(t, prefix)
		var v []byte
		err := s.View(t.Context(), func(tx forewarn.Tx) error {
			var err error
			v, err = tx.Meta("schema-version")
			return err
		})
		if err != nil || string(v) != "3" {
			t.Fatalf("schema version = %q, %v; want 3", v, err)
		}
	}
}

func TestSchemaRefused(t *testing.T) {
	tests := []struct {
		name  string
		key   string
		value string
		says  string
	}{
		{"newer", "/meta/schema-version", "=4", "supports (3)"},
		{"not a number", "/meta/schema-version", "=one", "not valid"},
		{"foreign data", "/vms/web-0", `{"name":"web-0"}`, "no schema version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := newPrefix()
			rawPut(t, prefix+tc.key, tc.value)
			s, err := Open(t.Context(), Config{Endpoints: []string{endpoint}, Prefix: prefix})
			if err == nil {
				_ = s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, forewarn.ErrSchema) || !strings.Contains(err.Error(), tc.says) ||
				!strings.Contains(err.Error(), prefix) {
				t.Fatalf("Open = %v, want ErrSchema saying %q and naming %s", err, tc.says, prefix)
			}
		})
	}
}

// TestSchemaUpgradeBuildsIndexes opens a prefix as schema 1 wrote it, with
// JSON lists of names and no index keys, large enough that the upgrade
// writes in several batches, and finds its VMs and events by scope and
// address.
func TestSchemaUpgradeBuildsIndexes(t *testing.T) {
	prefix := newPrefix()
	rawPut(t, prefix+"/meta/schema-version", "=1")
	var names []string
	for i := range 150 {
		name := fmt.Sprintf("vm-%03d", i)
		names = append(names, name)
		rawPut(t, prefix+"/vms/"+name, fmt.Sprintf(`{"name":%q,"scope":"S%d","addresses":["127.1.0.%d"]}`, name, i%3, i))
	}
	rawPut(t, prefix+"/index/vms", mustJSON(t, names))
	rawPut(t, prefix+"/events/e1", `{"id":"E1","scope":"s1","resources":["vm-001"]}`)
	rawPut(t, prefix+"/index/events", `["e1"]`)
	s := mustOpen(t, prefix)
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		version, err1 := tx.Meta("schema-version")
		s1, err2 := tx.VMs("s1")
		at, err3 := tx.VMsAt("127.1.0.42")
		events, err4 := tx.Events("S1")
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return err
		}
		if string(version) != "3" {
			t.Errorf("schema version after upgrade = %q, want 3", version)
		}
		if len(s1) != 50 || s1[0].Name != "vm-001" || s1[49].Name != "vm-148" {
			t.Errorf("VMs(s1) after upgrade: %d VMs, want 50 from vm-001 to vm-148", len(s1))
		}
		if len(at) != 1 || at[0].Name != "vm-042" {
			t.Errorf("VMsAt(127.1.0.42) after upgrade = %v, want vm-042", at)
		}
		if len(events) != 1 || events[0].ID != "E1" {
			t.Errorf("Events(S1) after upgrade = %v, want E1", events)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Client().Get(t.Context(), prefix+"/index/vms")
	if err != nil || len(resp.Kvs) != 0 {
		t.Errorf("schema 1's list of VM names is still there after the upgrade (%v)", err)
	}
}

// TestSchemaUpgradeSplitsCampaigns opens a prefix as schema 2 wrote it: a
// campaign's progress in its key, large enough that moving it out takes
// several batches, and the history listed in one JSON value. It reads the
// campaigns and the history back as they were, without the old keys, and
// appends to the history.
func TestSchemaUpgradeSplitsCampaigns(t *testing.T) {
	prefix := newPrefix()
	rawPut(t, prefix+"/meta/schema-version", "=2")
	big := &forewarn.Campaign{ID: "Big", State: forewarn.CampaignRunning, CreatedAt: time.Unix(1, 0).UTC()}
	for i := range 450 {
		big.Scopes = append(big.Scopes, forewarn.ScopeProgress{Scope: fmt.Sprintf("s%d", i), UpdateDomains: 5, Done: i % 6})
	}
	small := &forewarn.Campaign{ID: "small", State: forewarn.CampaignDone, CreatedAt: time.Unix(2, 0).UTC(),
		Scopes: []forewarn.ScopeProgress{{Scope: "web", UpdateDomains: 2, Done: 2,
			Skipped: []forewarn.SkippedDomain{{UpdateDomain: 1, Reason: "no VMs"}}}}}
	rawPut(t, prefix+"/campaigns/big", mustJSON(t, big))
	rawPut(t, prefix+"/campaigns/small", mustJSON(t, small))
	for seq := 3; seq <= 5; seq++ {
		rawPut(t, fmt.Sprintf("%s/history/%020d", prefix, seq), fmt.Sprintf(`{"id":"h%d"}`, seq))
	}
	rawPut(t, prefix+"/index/history", "[3,4,5]")
	rawPut(t, prefix+"/seq/history", "5")

	s := mustOpen(t, prefix)
	var campaigns []*forewarn.Campaign
	var history []*forewarn.Event
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		var err1, err2 error
		campaigns, err1 = tx.Campaigns()
		history, err2 = tx.History(0)
		return errors.Join(err1, err2)
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []*forewarn.Campaign{big, small}; !reflect.DeepEqual(campaigns, want) {
		t.Errorf("campaigns after upgrade differ:\n got %+v\nwant %+v", campaigns, want)
	}
	// An upgrade cut short is done again at the next Open: doing it again
	// over what it did changes nothing.
	if err := s.upgrade(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx forewarn.Tx) (err error) {
		campaigns, err = tx.Campaigns()
		return err
	})
	if want := []*forewarn.Campaign{big, small}; err != nil || !reflect.DeepEqual(campaigns, want) {
		t.Errorf("campaigns after a second upgrade differ (%v):\n got %+v\nwant %+v", err, campaigns, want)
	}
	if ids := eventIDs(history); !slices.Equal(ids, []string{"h5", "h4", "h3"}) {
		t.Errorf("history after upgrade = %v, want h5 h4 h3", ids)
	}
	// The scopes that moved: 375 of big's (Done 0 in one of six) and
	// small's one; the others are where the plans have them.
	resp, err := s.Client().Get(t.Context(), prefix+"/campaign-scopes/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 376 {
		t.Errorf("%d progress keys after upgrade (%v), want 376", resp.Count, err)
	}
	for _, gone := range []string{"/index/history"} {
		if resp, err := s.Client().Get(t.Context(), prefix+gone); err != nil || len(resp.Kvs) != 0 {
			t.Errorf("%s is still there after the upgrade (%v)", gone, err)
		}
	}
	if resp, err := s.Client().Get(t.Context(), prefix+"/campaigns/big"); err != nil || strings.Contains(string(resp.Kvs[0].Value), `"s1"`) {
		t.Errorf("campaign key still holds its progress (%v)", err)
	}
	err = s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.AppendHistory(&forewarn.Event{ID: "h6"}, 2) })
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx forewarn.Tx) (err error) {
		history, err = tx.History(0)
		return err
	})
	if ids := eventIDs(history); err != nil || !slices.Equal(ids, []string{"h6", "h5"}) {
		t.Errorf("history after an append keeping 2 = %v (%v), want h6 h5", ids, err)
	}
}

func eventIDs(events []*forewarn.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.ID)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestPrefixesAreApart(t *testing.T) {
	prefix := newPrefix()
	a, b := mustOpen(t, prefix), mustOpen(t, prefix+"x/")
	if err := a.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutScope(&forewarn.Scope{Name: "web"}) }); err != nil {
		t.Fatal(err)
	}
	err := b.View(t.Context(), func(tx forewarn.Tx) error {
		scopes, err := tx.Scopes()
		if err == nil && len(scopes) != 0 {
			t.Errorf("store on %sx sees %d scopes of %s", prefix, len(scopes), prefix)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenInvalid(t *testing.T) {
	if _, err := Open(t.Context(), Config{}); !errors.Is(err, forewarn.ErrInvalid) {
		t.Fatalf("Open without endpoints = %v, want ErrInvalid", err)
	}
}

func TestCloseTwice(t *testing.T) {
	s := mustOpen(t, newPrefix())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// and again in cleanup
}

func TestTxAfterReturn(t *testing.T) {
	s := mustOpen(t, newPrefix())
	var kept forewarn.Tx
	if err := s.Update(t.Context(), func(tx forewarn.Tx) error { kept = tx; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Scopes(); !errors.Is(err, errTxClosed) {
		t.Errorf("Scopes on a finished tx = %v, want errTxClosed", err)
	}
	if err := kept.PutMeta("k", []byte("v")); !errors.Is(err, errTxClosed) {
		t.Errorf("PutMeta on a finished tx = %v, want errTxClosed", err)
	}
}
