// Package records is the typed layer the stores share: scopes, VMs, events
// and campaigns as JSON records under case-insensitive names, over the raw
// reads and writes each store implements in its own way.
package records

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/forewarn/forewarn"
)

// Kind is a kind of record, named as messages name it.
type Kind string

// The kinds of record.
const (
	Scopes    Kind = "scope"
	VMs       Kind = "VM"
	Events    Kind = "event"
	Campaigns Kind = "campaign"
)

// Raw is what a store does with the JSON of records, keyed by their
// lowercased names.
type Raw interface {
	// RawGet returns the record, or found false.
	RawGet(k Kind, key string) (data []byte, found bool, err error)
	// RawList returns every record of a kind, ordered by key.
	RawList(k Kind) ([][]byte, error)
	// RawPut writes a record, replacing the one of the same key.
	RawPut(k Kind, key string, data []byte) error
	// RawDelete deletes a record, or returns found false.
	RawDelete(k Kind, key string) (found bool, err error)
}

// Tx implements the record methods of forewarn.Tx over Raw.
type Tx struct{ Raw Raw }

func key(name string) string { return strings.ToLower(name) }

func notFound(k Kind, name string) error {
	return forewarn.Errorf(forewarn.ErrNotFound, "%s %q not found", k, name)
}

// get reads the record named name. Decoding gives the caller its own copy.
func get[T any](t Tx, k Kind, name string) (*T, error) {
	data, found, err := t.Raw.RawGet(k, key(name))
	if err != nil {
		return nil, fmt.Errorf("get %s %q: %w", k, name, err)
	}
	if !found {
		return nil, notFound(k, name)
	}
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("decode %s %q: %w", k, name, err)
	}
	return v, nil
}

// list reads every record of a kind, in key order, that keep accepts.
func list[T any](t Tx, k Kind, keep func(*T) bool) ([]*T, error) {
	all, err := t.Raw.RawList(k)
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", k, err)
	}
	var out []*T
	for _, data := range all {
		v := new(T)
		if err := json.Unmarshal(data, v); err != nil {
			return nil, fmt.Errorf("decode %s: %w", k, err)
		}
		if keep(v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// put writes v as the record named name, replacing one of the same name in
// any case.
func put(t Tx, k Kind, name string, v any) error {
	if name == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "%s has no name", k)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", k, name, err)
	}
	if err := t.Raw.RawPut(k, key(name), data); err != nil {
		return fmt.Errorf("put %s %q: %w", k, name, err)
	}
	return nil
}

// del deletes the record named name; ErrNotFound if there is none.
func del(t Tx, k Kind, name string) error {
	found, err := t.Raw.RawDelete(k, key(name))
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", k, name, err)
	}
	if !found {
		return notFound(k, name)
	}
	return nil
}
