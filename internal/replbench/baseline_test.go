package replbench

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.etcd.io/bbolt"
)

// baselineValue is what a baseline write stores: about the size of an
// event's record.
var baselineValue = strings.Repeat("x", 512)

// BenchmarkBaselinePut is the baseline of the write benchmarks: a bare
// write of one 512-byte key to the same kind of store, with nothing of
// forewarn around it, from the same 8 workers in the same rounds (one key
// per VM of the fleet, overwritten from round to round). bolt: a bbolt
// Update with one Put, on a file of its own in a temporary directory, with
// bbolt's default options, as the bolt store opens its file. etcd: a Put
// through the etcd client of an etcd store, on a fresh embedded etcd, like
// etcd-1's.
//
//	go test ./internal/replbench -run '^$' -bench BaselinePut -benchtime 2s
func BenchmarkBaselinePut(b *testing.B) {
	b.Run("bolt", func(b *testing.B) {
		f := newFleet(b, scopesFromEnv(b), vmsPerScope)
		put := boltPut(b)
		reportRate(b, rounds{fleet: f, do: func(_ context.Context, _, vm int) error {
			return put(f.vms[vm].name)
		}}.run(b, b))
	})
	b.Run("etcd", func(b *testing.B) {
		f := newFleet(b, scopesFromEnv(b), vmsPerScope)
		store, _ := openEtcd(b, startEtcd(b))
		client := store.Client()
		reportRate(b, rounds{fleet: f, do: func(ctx context.Context, _, vm int) error {
			_, err := client.Put(ctx, "/replbench/baseline/"+f.vms[vm].name, baselineValue)
			return err
		}}.run(b, b))
	})
}

// boltPut opens a bbolt file in a temporary directory, closed on cleanup,
// and returns a function that writes a key of it in a transaction of its
// own.
func boltPut(tb testing.TB) func(key string) error {
	tb.Helper()
	db, err := bbolt.Open(filepath.Join(tb.TempDir(), "baseline.db"), 0o600, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	bucket := []byte("baseline")
	err = db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(bucket)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return func(key string) error {
		return db.Update(func(tx *bbolt.Tx) error {
			return tx.Bucket(bucket).Put([]byte(key), []byte(baselineValue))
		})
	}
}
