package etcd

import (
	"context"
	"errors"
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
		if err != nil || string(v) != "1" {
			t.Fatalf("schema version = %q, %v; want 1", v, err)
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
		{"newer", "/meta/schema-version", "=2", "supports (1)"},
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
