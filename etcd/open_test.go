package etcd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

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
		if err != nil || string(v) != "2" {
			t.Fatalf("schema version = %q, %v; want 2", v, err)
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
		{"newer", "/meta/schema-version", "=3", "supports (2)"},
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
		if string(version) != "2" {
			t.Errorf("schema version after upgrade = %q, want 2", version)
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
