package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

// Run runs the contract suite. open must return a new, empty store for each
// subtest and release it through t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) forewarn.Store) {
	t.Helper()
	for _, tc := range suite() {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

type testCase struct {
	name string
	fn   func(t *testing.T, s forewarn.Store)
}

// suite lists every test of the contract, by area.
func suite() []testCase {
	var all []testCase
	for _, area := range [][]testCase{scopeTests, vmTests, eventTests, historyTests, metaTests, txTests, campaignTests} {
		all = append(all, area...)
	}
	return all
}

// update runs fn in an Update and fails the test on error.
func update(t *testing.T, s forewarn.Store, fn func(tx forewarn.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// read runs fn in a View and returns its result, failing the test on error.
func read[T any](t *testing.T, s forewarn.Store, fn func(tx forewarn.Tx) (T, error)) T {
	t.Helper()
	var v T
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		var err error
		v, err = fn(tx)
		return err
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	return v
}

// put writes scopes, VMs and events in one Update.
func put(t *testing.T, s forewarn.Store, records ...any) {
	t.Helper()
	update(t, s, func(tx forewarn.Tx) error {
		for _, r := range records {
			if err := putRecord(tx, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func putRecord(tx forewarn.Tx, r any) error {
	switch r := r.(type) {
	case *forewarn.Scope:
		return tx.PutScope(r)
	case *forewarn.VM:
		return tx.PutVM(r)
	case *forewarn.Event:
		return tx.PutEvent(r)
	default:
		return fmt.Errorf("storetest: cannot put a %T", r)
	}
}

// viewErr runs fn in a View and returns the error fn met.
func viewErr(t *testing.T, s forewarn.Store, fn func(tx forewarn.Tx) error) error {
	t.Helper()
	return s.View(t.Context(), fn)
}

// assertEqual fails the test if got and want differ deeply.
func assertEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", what, dump(got), dump(want))
	}
}

// dump prints values and what pointers and slices of pointers point to.
func dump(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = dump(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return fmt.Sprintf("&%+v", rv.Elem().Interface())
	}
	return fmt.Sprintf("%+v", v)
}

// assertNotFound fails the test unless err wraps forewarn.ErrNotFound and
// its message names name.
func assertNotFound(t *testing.T, err error, name string) {
	t.Helper()
	assertKind(t, err, forewarn.ErrNotFound)
	if err != nil && !strings.Contains(err.Error(), name) {
		t.Errorf("error %q does not name %q", err, name)
	}
}

// assertKind fails the test unless err wraps the sentinel kind.
func assertKind(t *testing.T, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Errorf("error = %v, want one wrapping %q", err, kind)
	}
}
