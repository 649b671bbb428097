package bolt

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/forewarn/forewarn"
)

var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// fixture is a little of everything a store holds.
type fixture struct {
	Scope   *forewarn.Scope
	VM      *forewarn.VM
	Event   *forewarn.Event
	History []*forewarn.Event
	Meta    []byte
}

func newFixture() fixture {
	e := &forewarn.Event{
		ID: "602d9444-d2cd-49c7-8624-8643e7171297", Type: forewarn.Freeze, Status: forewarn.Started,
		Scope: "Web", Resources: []string{"Web-0"}, Source: forewarn.Platform, DurationInSeconds: 5,
		CreatedAt: t0, StartedAt: t0.Add(time.Minute), EndsAt: t0.Add(time.Minute + 5*time.Second),
		ApprovedBy: "Web-0", ApprovedAt: t0.Add(time.Minute),
	}
	h := *e
	h.ID, h.Outcome, h.EndedAt = "f020ba2e-3bc0-4c40-a10b-86575a9eabd5", forewarn.Completed, t0.Add(time.Hour)
	return fixture{
		Scope: &forewarn.Scope{Name: "Web", Kind: forewarn.AvailabilitySet, UpdateDomains: 5, FaultDomains: 3,
			TerminateNotice: forewarn.Duration(5 * time.Minute), Incarnation: 42, CreatedAt: t0},
		VM: &forewarn.VM{Name: "Web-0", ID: "b1f7ad2c", Scope: "Web", Addresses: []string{"127.0.0.1"},
			Priority: forewarn.Regular, State: forewarn.Frozen, CreatedAt: t0},
		Event:   e,
		History: []*forewarn.Event{&h},
		Meta:    []byte("enabled"),
	}
}

func (f fixture) write(tx forewarn.Tx) error {
	return errors.Join(tx.PutScope(f.Scope), tx.PutVM(f.VM), tx.PutEvent(f.Event),
		tx.AppendHistory(f.History[0], 10), tx.PutMeta("k", f.Meta))
}

func readFixture(tx forewarn.Tx) (fixture, error) {
	var f fixture
	var err [5]error
	f.Scope, err[0] = tx.Scope("web")
	f.VM, err[1] = tx.VM("web-0")
	f.Event, err[2] = tx.Event("602D9444-D2CD-49C7-8624-8643E7171297")
	f.History, err[3] = tx.History(0)
	f.Meta, err[4] = tx.Meta("k")
	return f, errors.Join(err[:]...)
}

// assertFixture fails the test unless s holds exactly the fixture.
func assertFixture(t *testing.T, s *Store) {
	t.Helper()
	var got fixture
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		var err error
		got, err = readFixture(tx)
		return err
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	if want := newFixture(); !reflect.DeepEqual(got, want) {
		t.Fatalf("store holds\n%+v\nwant\n%+v", got, want)
	}
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forewarn.db")
	s := mustOpenPath(t, path, Options{})
	if err := s.Update(t.Context(), newFixture().write); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertFixture(t, mustOpenPath(t, path, Options{}))
}

func TestOpenInUse(t *testing.T) {
	s := MustOpenStore(t)
	// bbolt gives up after one try when the timeout is under its 50ms retry
	// interval, so the test does not wait.
	_, err := Open(s.Path(), Options{Timeout: time.Millisecond})
	if err == nil {
		t.Fatal("second Open succeeded")
	}
	if !strings.Contains(err.Error(), "store is in use by another process") || !errors.Is(err, berrors.ErrTimeout) ||
		!errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v, want an in-use error", err)
	}
	if err := s.Update(t.Context(), newFixture().write); err != nil {
		t.Fatalf("first store after a refused second Open: %v", err)
	}
}

func TestOpenCreatesDirectoryAndPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "dir", "forewarn.db")
	MustOpenStore(t) // a store elsewhere does not matter
	mustOpenPath(t, path, Options{})
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("store file mode = %v, want 0600", mode)
	}
}

func TestOpenRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forewarn.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a bbolt file\n", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, Options{})
	if err == nil {
		_ = s.Close()
		t.Fatal("Open of a text file succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	if _, err := Open("", Options{}); !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("Open(\"\") = %v, want ErrInvalid", err)
	}
}

func TestTxUnusableAfterReturn(t *testing.T) {
	s := MustOpenStore(t)
	var kept forewarn.Tx
	for _, run := range []func(fn func(forewarn.Tx) error) error{
		func(fn func(forewarn.Tx) error) error { return s.View(t.Context(), fn) },
		func(fn func(forewarn.Tx) error) error { return s.Update(t.Context(), fn) },
	} {
		if err := run(func(tx forewarn.Tx) error { kept = tx; return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := kept.Scopes(); !errors.Is(err, errTxClosed) {
			t.Errorf("Scopes on a finished tx = %v, want errTxClosed", err)
		}
		if err := kept.PutMeta("k", []byte("v")); !errors.Is(err, errTxClosed) {
			t.Errorf("PutMeta on a finished tx = %v, want errTxClosed", err)
		}
	}
}
