package bolt

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

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
	if v := schemaVersion(t, s); v != "1" {
		t.Fatalf("schema version of a new store = %q, want 1", v)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = mustOpenPath(t, path, Options{})
	if v := schemaVersion(t, s); v != "1" {
		t.Fatalf("schema version after reopen = %q, want 1", v)
	}
}

func TestSchemaInitializesEmptyBoltFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forewarn.db")
	rawUpdate(t, path, func(*bbolt.Tx) error { return nil })
	s := mustOpenPath(t, path, Options{})
	if v := schemaVersion(t, s); v != "1" {
		t.Fatalf("schema version = %q, want 1", v)
	}
}

func TestSchemaRefused(t *testing.T) {
	tests := []struct {
		name  string
		setup func(tx *bbolt.Tx) error
		says  []string
	}{
		{"newer", setVersion("2"), []string{"version 2", "supports (1)"}},
		{"much newer", setVersion("17"), []string{"version 17", "supports (1)"}},
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
	if v := schemaVersion(t, s); v != "1" {
		t.Fatalf("schema version = %q, want 1", v)
	}
}
