package bolt

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/encoding/json"
	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn"
)

// schemaVersion reads the schema version through the store.
func schemaVersion(t *testing.T, s *Store) string {
	t.Helper()
	var v []byte
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		var err error
		v, err = tx.Meta("schema-version")
		return err
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	return string(v)
}

func TestSchemaWrittenAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forewarn.db")
	s := mustOpenPath(t, path, Options{})
	if v := schemaVersion(t, s); v != "3" {
		t.Fatalf("schema version of a new store = %q, want 3", v)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpenPath(t, path, Options{})
	if v := schemaVersion(t, s); v != "3" {
		t.Fatalf("schema version after reopen = %q, want 3", v)
	}
}

func TestSchemaInitializesEmptyBoltFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forewarn.db")
	rawUpdate(t, path, func(*bbolt.Tx) error { return nil })
	s := mustOpenPath(t, path, Options{})
	if v := schemaVersion(t, s); v != "3" {
		t.Fatalf("schema version = %q, want 3", v)
	}
}

func TestSchemaRefused(t *testing.T) {
	tests := []struct {
		name  string
		setup func(tx *bbolt.Tx) error
		says  []string
	}{
		{"newer", setVersion("4"), []string{"version 4", "supports (3)"}},
		{"much newer", setVersion("17"), []string{"version 17", "supports (3)"}},
		{"not a number", setVersion("one"), []string{`"one"`, "not valid"}},
		{"zero", setVersion("0"), []string{`"0"`, "not valid"}},
		{"no version", setVersion(""), []string{"no schema version"}},
		{"foreign data", foreignData, []string{"no schema version"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "forewarn.db")
			rawUpdate(t, path, tc.setup)
			s, err := Open(path, Options{})
			if err == nil {
				_ = s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, forewarn.ErrSchema) {
				t.Errorf("error %v does not wrap ErrSchema", err)
			}
			for _, want := range append(tc.says, path) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			mustCheck(t, path) // and the lock was released
		})
	}
}

// setVersion writes a meta bucket with the given version, or none if "",
// next to a bucket of data.
func setVersion(v string) func(tx *bbolt.Tx) error {
	return func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucket(metaBucket)
		if err != nil {
			return err
		}
		if v != "" {
			if err := meta.Put(schemaKey, []byte(v)); err != nil {
				return err
			}
		}
		return foreignData(tx)
	}
}

func foreignData(tx *bbolt.Tx) error {
	b, err := tx.CreateBucket(vmsBucket)
	if err != nil {
		return err
	}
	return b.Put([]byte("web-0"), []byte(`{"name":"web-0"}`))
}

func TestSchemaVersionIsReserved(t *testing.T) {
	s := MustOpenStore(t)
	err := s.Update(t.Context(), func(tx forewarn.Tx) error {
		return tx.PutMeta("schema-version", []byte("2"))
	})
	if !errors.Is(err, forewarn.ErrInvalid) {
		t.Fatalf("PutMeta(schema-version) = %v, want ErrInvalid", err)
	}
	if v := schemaVersion(t, s); v != "3" {
		t.Fatalf("schema version = %q, want 3", v)
	}
}

// TestSchemaUpgradeBuildsIndexes opens a file as schema 1 wrote it, with
// no index buckets, and finds its VMs and events through the indexes.
func TestSchemaUpgradeBuildsIndexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forewarn.db")
	rawUpdate(t, path, func(tx *bbolt.Tx) error {
		records := map[string]map[string]string{
			"meta":   {"schema-version": "1"},
			"scopes": {"web": `{"name":"Web","incarnation":4}`, "db": `{"name":"db"}`},
			"vms": {
				"web-0": `{"name":"web-0","scope":"Web","addresses":["127.0.0.5"]}`,
				"web-1": `{"name":"Web-1","scope":"web"}`,
				"db-0":  `{"name":"db-0","scope":"db","addresses":["127.0.0.6","127.0.0.7"]}`,
			},
			"events":    {"e1": `{"id":"e1","scope":"web","resources":["web-0"]}`},
			"history":   {},
			"campaigns": {},
		}
		for bucket, kvs := range records {
			b, err := tx.CreateBucket([]byte(bucket))
			for k, v := range kvs {
				if err == nil {
					err = b.Put([]byte(k), []byte(v))
				}
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	s := mustOpenPath(t, path, Options{})
	if v := schemaVersion(t, s); v != "3" {
		t.Fatalf("schema version after upgrade = %q, want 3", v)
	}
	var web, at []*forewarn.VM
	var events []*forewarn.Event
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		var err1, err2, err3 error
		web, err1 = tx.VMs("WEB")
		at, err2 = tx.VMsAt("127.0.0.7")
		events, err3 = tx.Events("web")
		return errors.Join(err1, err2, err3)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(web) != 2 || web[0].Name != "web-0" || web[1].Name != "Web-1" {
		t.Errorf("VMs(WEB) after upgrade = %v, want web-0 and Web-1", web)
	}
	if len(at) != 1 || at[0].Name != "db-0" {
		t.Errorf("VMsAt(127.0.0.7) after upgrade = %v, want db-0", at)
	}
	if len(events) != 1 || events[0].ID != "e1" {
		t.Errorf("Events(web) after upgrade = %v, want e1", events)
	}
}

// TestSchemaUpgradeSplitsCampaigns opens a file as schema 2 wrote it, with
// each campaign's progress inside its record, and reads the campaigns back
// whole, their progress now in records of their own.
func TestSchemaUpgradeSplitsCampaigns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forewarn.db")
	big := &forewarn.Campaign{ID: "Big", State: forewarn.CampaignRunning, CreatedAt: time.Unix(1, 0).UTC()}
	for i := range 1200 {
		big.Scopes = append(big.Scopes, forewarn.ScopeProgress{Scope: fmt.Sprintf("s%d", i), UpdateDomains: 5, Done: i % 6})
	}
	small := &forewarn.Campaign{ID: "small", State: forewarn.CampaignDone, CreatedAt: time.Unix(2, 0).UTC(),
		Scopes: []forewarn.ScopeProgress{{Scope: "web", UpdateDomains: 2, Done: 2,
			Skipped: []forewarn.SkippedDomain{{UpdateDomain: 1, Reason: "no VMs"}}}}}
	rawUpdate(t, path, func(tx *bbolt.Tx) error {
		if err := createBuckets(tx); err != nil {
			return err
		}
		if err := tx.Bucket(metaBucket).Put(schemaKey, []byte("2")); err != nil {
			return err
		}
		for _, c := range []*forewarn.Campaign{big, small} {
			data, err := json.Marshal(c)
			if err == nil {
				err = tx.Bucket(campaignsBucket).Put([]byte(strings.ToLower(c.ID)), data)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	s := mustOpenPath(t, path, Options{})
	if v := schemaVersion(t, s); v != "3" {
		t.Fatalf("schema version after upgrade = %q, want 3", v)
	}
	var got []*forewarn.Campaign
	if err := s.View(t.Context(), func(tx forewarn.Tx) (err error) {
		got, err = tx.Campaigns()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if want := []*forewarn.Campaign{big, small}; !reflect.DeepEqual(got, want) {
		t.Errorf("campaigns after upgrade differ:\n got %+v\nwant %+v", got, want)
	}
	if err := s.db.View(func(tx *bbolt.Tx) error {
		// The scopes that moved: 1,000 of Big's (Done 0 in one of six) and
		// small's one; the others are where the plans have them.
		if n := tx.Bucket(campaignScopesBucket).Stats().KeyN; n != 1001 {
			t.Errorf("%d progress records, want 1001", n)
		}
		if n := tx.Bucket(campaignPlansBucket).Stats().KeyN; n != 2 {
			t.Errorf("%d plans, want 2", n)
		}
		if data := tx.Bucket(campaignsBucket).Get([]byte("big")); bytes.Contains(data, []byte(`"s1"`)) {
			t.Errorf("campaign record still holds its progress: %s", data)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
