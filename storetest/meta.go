package storetest

import (
	"bytes"
	"testing"

	"github.com/forewarn/forewarn"
)

var metaTests = []testCase{
	{"Meta/Unset", testMetaUnset},
	{"Meta/PutGet", testMetaPutGet},
	{"Meta/Copies", testMetaCopies},
	{"Meta/EmptyKey", testMetaEmptyKey},
}

func meta(t *testing.T, s forewarn.Store, key string) []byte {
	t.Helper()
	return read(t, s, func(tx forewarn.Tx) ([]byte, error) { return tx.Meta(key) })
}

func putMeta(t *testing.T, s forewarn.Store, key string, value []byte) {
	t.Helper()
	update(t, s, func(tx forewarn.Tx) error { return tx.PutMeta(key, value) })
}

func testMetaUnset(t *testing.T, s forewarn.Store) {
	if v := meta(t, s, "never-set"); v != nil {
		t.Errorf("Meta(never-set) = %q, want nil", v)
	}
}

func testMetaPutGet(t *testing.T, s forewarn.Store) {
	putMeta(t, s, "token-hash", []byte("abc"))
	putMeta(t, s, "other", []byte("x"))
	putMeta(t, s, "token-hash", []byte("defg"))
	assertEqual(t, "Meta(token-hash)", string(meta(t, s, "token-hash")), "defg")
	assertEqual(t, "Meta(other)", string(meta(t, s, "other")), "x")

	putMeta(t, s, "empty", []byte{})
	if v := meta(t, s, "empty"); v == nil || len(v) != 0 {
		t.Errorf("Meta(empty) = %#v, want an empty, non-nil value", v)
	}

	putMeta(t, s, "other", nil)
	if v := meta(t, s, "other"); v != nil {
		t.Errorf("Meta(other) after PutMeta(nil) = %q, want nil", v)
	}
	assertEqual(t, "Meta(token-hash) after unsetting other", string(meta(t, s, "token-hash")), "defg")
}

func testMetaCopies(t *testing.T, s forewarn.Store) {
	value := []byte("first")
	update(t, s, func(tx forewarn.Tx) error {
		err := tx.PutMeta("k", value)
		copy(value, "XXXXX") // after the Put, before the commit
		return err
	})
	copy(value, "YYYYY")
	got := meta(t, s, "k")
	copy(got, "ZZZZZ")
	assertEqual(t, "Meta(k)", string(meta(t, s, "k")), "first")

	// A value of several pages, which a store may keep out of line.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1024)
	putMeta(t, s, "big", bytes.Clone(big))
	got = meta(t, s, "big")
	copy(got, "ZZZZZ")
	if !bytes.Equal(meta(t, s, "big"), big) {
		t.Error("Meta(big) changed after the caller changed a returned value")
	}
}

func testMetaEmptyKey(t *testing.T, s forewarn.Store) {
	err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutMeta("", []byte("x")) })
	assertKind(t, err, forewarn.ErrInvalid)
	if v := meta(t, s, ""); v != nil {
		t.Errorf(`Meta("") after a refused PutMeta = %q, want nil`, v)
	}
}
