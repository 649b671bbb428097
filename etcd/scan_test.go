package etcd

import (
	"fmt"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/records"
)

// TestLargeDirectoryIsNotKept scans a directory of more keys than scan
// keeps (keptScan and a page more): a later read of one of its keys, and a
// second scan, in the transaction and in the next Update (through warm),
// read etcd, not the last pages scan saw as if they were the directory.
func TestLargeDirectoryIsNotKept(t *testing.T) {
	s := mustOpen(t, newPrefix())
	n := keptScan + 2*scanPage
	dir := s.keys.dir(records.VMs)
	var ops []clientv3.Op
	for i := range n {
		ops = append(ops, clientv3.OpPut(fmt.Sprintf("%sk%05d", dir, i), "v"))
		if len(ops) == maxReadOps || i == n-1 {
			if _, err := s.client.Txn(t.Context()).Then(ops...).Commit(); err != nil {
				t.Fatal(err)
			}
			ops = nil
		}
	}
	check := func(what string, etx *tx) {
		t.Helper()
		count := 0
		err := etx.RawScan(records.VMs, "", "", func(string, []byte) (bool, error) { count++; return true, nil })
		if err != nil {
			t.Fatal(err)
		}
		if _, found, err := etx.RawGet(records.VMs, "k00000"); err != nil || !found {
			t.Errorf("%s: the directory's first key read as missing (%v)", what, err)
		}
		again := 0
		err = etx.RawScan(records.VMs, "", "", func(string, []byte) (bool, error) { again++; return true, nil })
		if err != nil || count != n || again != n {
			t.Errorf("%s: scans saw %d then %d keys (%v), want %d", what, count, again, err, n)
		}
	}
	if err := s.View(t.Context(), func(ftx forewarn.Tx) error { check("a View", ftx.(*tx)); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		err := s.Update(t.Context(), func(ftx forewarn.Tx) error {
			check(fmt.Sprintf("Update %d", i+1), ftx.(*tx))
			return ftx.(*tx).RawPut(records.Scopes, "x", []byte(fmt.Sprint(i)))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
