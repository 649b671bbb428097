package bolt

import (
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) forewarn.Store { return MustOpenStore(t) })
}

// MustOpenStore opens a new store in a temporary directory. On cleanup it
// closes the store and checks the file's consistency.
func MustOpenStore(tb testing.TB) *Store {
	tb.Helper()
	return mustOpenPath(tb, filepath.Join(tb.TempDir(), "forewarn.db"), Options{})
}

// mustOpenPath opens the store at path, and on cleanup closes it (if the
// test has not) and checks the file.
func mustOpenPath(tb testing.TB, path string, opts Options) *Store {
	tb.Helper()
	s, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
		mustCheck(tb, path)
	})
	return s
}

// mustCheck runs bbolt's consistency check on a closed store file, as
// bbolt's own tests do after each test.
func mustCheck(tb testing.TB, path string) {
	tb.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		tb.Fatalf("open for check: %v", err)
	}
	defer func() { _ = db.Close() }()
	err = db.View(func(tx *bbolt.Tx) error {
		n := 0
		for err := range tx.Check() {
			if n++; n <= 10 {
				tb.Errorf("consistency check of %s: %v", path, err)
			}
		}
		return nil
	})
	if err != nil {
		tb.Errorf("check %s: %v", path, err)
	}
}

// rawUpdate changes a closed store file directly through bbolt.
func rawUpdate(tb testing.TB, path string, fn func(tx *bbolt.Tx) error) {
	tb.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		tb.Fatalf("bbolt open: %v", err)
	}
	defer func() { _ = db.Close() }()
	if err := db.Update(fn); err != nil {
		tb.Fatalf("bbolt update: %v", err)
	}
}
