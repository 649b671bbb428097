package bolt

import (
	"encoding/json"
	"fmt"

	"github.com/forewarn/forewarn"
)

// A record kind of the store: the bucket it lives in and its name in
// messages.
type kind struct {
	bucket []byte
	what   string
}

var (
	scopeKind    = kind{scopesBucket, "scope"}
	vmKind       = kind{vmsBucket, "VM"}
	eventKind    = kind{eventsBucket, "event"}
	campaignKind = kind{campaignsBucket, "campaign"}
)

// get reads the record named name. Decoding gives the caller its own copy.
func get[T any](t *tx, k kind, name string) (*T, error) {
	b, err := t.bucket(k.bucket)
	if err != nil {
		return nil, fmt.Errorf("get %s %q: %w", k.what, name, err)
	}
	data := b.Get(key(name))
	if data == nil {
		return nil, notFound(k.what, name)
	}
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("decode %s %q: %w", k.what, name, err)
	}
	return v, nil
}

// list reads every record of a kind, in key order, that keep accepts.
func list[T any](t *tx, k kind, keep func(*T) bool) ([]*T, error) {
	b, err := t.bucket(k.bucket)
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", k.what, err)
	}
	var out []*T
	err = b.ForEach(func(name, data []byte) error {
		v := new(T)
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("decode %s %q: %w", k.what, name, err)
		}
		if keep(v) {
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", k.what, err)
	}
	return out, nil
}

// put writes v as the record named name, replacing one of the same name in
// any case.
func put(t *tx, k kind, name string, v any) error {
	if name == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "%s has no name", k.what)
	}
	b, err := t.bucket(k.bucket)
	if err != nil {
		return fmt.Errorf("put %s %q: %w", k.what, name, err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", k.what, name, err)
	}
	if err := b.Put(key(name), data); err != nil {
		return fmt.Errorf("put %s %q: %w", k.what, name, err)
	}
	return nil
}

// del deletes the record named name; ErrNotFound if there is none.
func del(t *tx, k kind, name string) error {
	b, err := t.bucket(k.bucket)
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", k.what, name, err)
	}
	if b.Get(key(name)) == nil {
		return notFound(k.what, name)
	}
	if err := b.Delete(key(name)); err != nil {
		return fmt.Errorf("delete %s %q: %w", k.what, name, err)
	}
	return nil
}
