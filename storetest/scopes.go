package storetest

import (
	"testing"

	"github.com/forewarn/forewarn"
)

var scopeTests = []testCase{
	{"Scope/PutGet", testScopePutGet},
	{"Scope/PutOtherCaseReplaces", testScopePutOtherCase},
	{"Scope/NotFound", testScopeNotFound},
	{"Scope/Delete", testScopeDelete},
	{"Scope/Order", testScopeOrder},
	{"Scope/Invalid", testScopeInvalid},
}

func testScopePutGet(t *testing.T, s forewarn.Store) {
	want := newScope("Prod-Web")
	put(t, s, want)
	for _, name := range []string{"Prod-Web", "prod-web", "PROD-WEB"} {
		got := read(t, s, func(tx forewarn.Tx) (*forewarn.Scope, error) { return tx.Scope(name) })
		assertEqual(t, "Scope("+name+")", got, want)
	}
}

func testScopePutOtherCase(t *testing.T, s forewarn.Store) {
	put(t, s, newScope("Prod-Web"))
	want := newScope("PROD-WEB")
	want.UpdateDomains = 20
	want.Incarnation = 9
	put(t, s, want)
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Scope, error) { return tx.Scopes() })
	assertEqual(t, "Scopes()", got, []*forewarn.Scope{want})
}

func testScopeNotFound(t *testing.T, s forewarn.Store) {
	put(t, s, newScope("other"))
	err := viewErr(t, s, func(tx forewarn.Tx) error {
		_, err := tx.Scope("missing-scope")
		return err
	})
	assertNotFound(t, err, "missing-scope")
}

func testScopeDelete(t *testing.T, s forewarn.Store) {
	put(t, s, newScope("Prod-Web"), newScope("keep"))
	update(t, s, func(tx forewarn.Tx) error { return tx.DeleteScope("prod-WEB") })
	err := viewErr(t, s, func(tx forewarn.Tx) error {
		_, err := tx.Scope("Prod-Web")
		return err
	})
	assertNotFound(t, err, "Prod-Web")
	err = s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.DeleteScope("prod-web") })
	assertNotFound(t, err, "prod-web")
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Scope, error) { return tx.Scopes() })
	assertEqual(t, "Scopes() after delete", got, []*forewarn.Scope{newScope("keep")})
}

func testScopeOrder(t *testing.T, s forewarn.Store) {
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Scope, error) { return tx.Scopes() })
	if len(got) != 0 {
		t.Fatalf("Scopes() of an empty store = %s", dump(got))
	}
	// "aZ" sorts after "a_b" lowercased, before it uppercased.
	put(t, s, newScope("beta"), newScope("Zulu"), newScope("aZ"), newScope("alpha"), newScope("Gamma"), newScope("a_b"))
	got = read(t, s, func(tx forewarn.Tx) ([]*forewarn.Scope, error) { return tx.Scopes() })
	assertEqual(t, "Scopes()", names(got, func(s *forewarn.Scope) string { return s.Name }),
		[]string{"a_b", "alpha", "aZ", "beta", "Gamma", "Zulu"})
}

func testScopeInvalid(t *testing.T, s forewarn.Store) {
	for _, sc := range []*forewarn.Scope{nil, {}} {
		err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutScope(sc) })
		assertKind(t, err, forewarn.ErrInvalid)
	}
}

// names returns the names of records, in order.
func names[T any](records []T, name func(T) string) []string {
	out := make([]string, len(records))
	for i, r := range records {
		out[i] = name(r)
	}
	return out
}
