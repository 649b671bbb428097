package fabric

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// listFleet makes scopes web (3 update domains) and DB (2), each with VMs
// whose names differ in case from their scope's, every third VM Spot, and
// three standalone VMs; it returns the VMs in the order of a listing.
func listFleet(h *harness) []*forewarn.VM {
	h.tb.Helper()
	var vms []*forewarn.VM
	for _, s := range []struct {
		name string
		uds  int
		n    int
	}{{"web", 3, 20}, {"DB", 2, 12}} {
		h.scope(forewarn.ScopeSpec{Name: s.name, UpdateDomains: s.uds})
		for i := range s.n {
			priority := forewarn.Regular
			if i%3 == 0 {
				priority = forewarn.Spot
			}
			name := fmt.Sprintf("%s-%02d", s.name, i)
			if i%2 == 0 {
				name = strings.ToUpper(name)
			}
			vms = append(vms, h.vm(forewarn.VMSpec{Name: name, Scope: s.name, Priority: priority}))
		}
	}
	for i := range 3 {
		vms = append(vms, h.vm(forewarn.VMSpec{Name: fmt.Sprintf("solo-%d", i)}))
	}
	slices.SortFunc(vms, func(a, b *forewarn.VM) int {
		return forewarn.CompareNames(a.Name, b.Name)
	})
	return vms
}

// pageAll lists through every page of limit VMs (0 for one listing of
// all), checking that no page is over limit or empty but the first, and
// returns them all with the number of pages.
func pageAll[T any](tb testing.TB, limit int, list func(after string) ([]T, string, error)) ([]T, int) {
	tb.Helper()
	var all []T
	after, pages := "", 0
	for {
		items, next, err := list(after)
		if err != nil {
			tb.Fatalf("page after %q: %v", after, err)
		}
		pages++
		if limit > 0 && len(items) > limit || pages > 1 && len(items) == 0 {
			tb.Fatalf("page %d after %q has %d items, limit %d", pages, after, len(items), limit)
		}
		all = append(all, items...)
		if next == "" {
			return all, pages
		}
		after = next
	}
}

func TestListVMsPagesAndFilters(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	fleet := listFleet(h)
	one := 1
	queries := []forewarn.VMQuery{
		{},
		{Scope: "WEB"},
		{Scope: "db", Priority: "spot"},
		{UpdateDomain: &one},
		{Scope: "web", UpdateDomain: &one, Priority: forewarn.Regular},
		{Scope: "solo-1"},
	}
	for _, q := range queries {
		var want []string
		for _, vm := range fleet {
			if (q.Scope == "" || strings.EqualFold(vm.Scope, q.Scope)) &&
				(q.UpdateDomain == nil || vm.UpdateDomain == *q.UpdateDomain) &&
				(q.Priority == "" || strings.EqualFold(string(vm.Priority), string(q.Priority))) {
				want = append(want, vm.Name)
			}
		}
		for _, limit := range []int{0, 1, 4, len(want), 1000} {
			got, pages := pageAll(t, limit, func(after string) ([]*forewarn.VM, string, error) {
				q.After, q.Limit = after, limit
				return h.f.VMs(h.ctx, q)
			})
			if !slices.Equal(names(got), want) {
				t.Errorf("%+v limit %d:\n got %v\nwant %v", q, limit, names(got), want)
			}
			if limit > 0 && pages != max(1, (len(want)+limit-1)/limit) {
				t.Errorf("%+v limit %d: %d pages for %d VMs", q, limit, pages, len(want))
			}
		}
	}
}

func TestListVMsResumesAfterADeletedVM(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	fleet := listFleet(h)
	page, next, err := h.f.VMs(h.ctx, forewarn.VMQuery{Limit: 5})
	if err != nil || len(page) != 5 || next != fleet[4].Name {
		t.Fatalf("first page %v, next %q, %v", names(page), next, err)
	}
	if err := h.f.DeleteVM(h.ctx, next); err != nil {
		t.Fatal(err)
	}
	// A cursor in any case is the same name.
	page, _, err = h.f.VMs(h.ctx, forewarn.VMQuery{After: strings.ToLower(next), Limit: 2})
	if err != nil || !slices.Equal(names(page), names(fleet[5:7])) {
		t.Fatalf("page after the deleted %s: %v, %v; want %v", next, names(page), err, names(fleet[5:7]))
	}
}

// countingStore counts the VMs that listings scan, and the reads of every
// VM of a scope or of the fleet.
type countingStore struct {
	forewarn.Store
	scanned, whole atomic.Int64
}

func (s *countingStore) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	return s.Store.View(ctx, func(tx forewarn.Tx) error { return fn(countingTx{tx, s}) })
}

type countingTx struct {
	forewarn.Tx
	s *countingStore
}

func (t countingTx) ScanVMs(scope, after string, fn func(*forewarn.VM) bool) error {
	return t.Tx.ScanVMs(scope, after, func(vm *forewarn.VM) bool {
		t.s.scanned.Add(1)
		return fn(vm)
	})
}

func (t countingTx) VMs(scope string) ([]*forewarn.VM, error) {
	t.s.whole.Add(1)
	return t.Tx.VMs(scope)
}

// TestListVMsReadsAPage checks that a page asks the store for the VMs of
// the page and one more, not for the fleet.
func TestListVMsReadsAPage(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	fleet := listFleet(h)
	store := &countingStore{Store: h.store}
	f, err := New(h.ctx, Config{Store: store, Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	store.scanned.Store(0)
	store.whole.Store(0)
	page, next, err := f.VMs(h.ctx, forewarn.VMQuery{After: fleet[10].Name, Limit: 5})
	if err != nil || !slices.Equal(names(page), names(fleet[11:16])) || next != fleet[15].Name {
		t.Fatalf("page %v next %q, %v; want %v", names(page), next, err, names(fleet[11:16]))
	}
	if n, w := store.scanned.Load(), store.whole.Load(); n != 6 || w != 0 {
		t.Errorf("a page of 5 scanned %d VMs and read the whole fleet %d times; want 6 and 0", n, w)
	}
}

func TestListVMsRefusesBadQueries(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	listFleet(h)
	minus := -1
	for _, tc := range []struct {
		q    forewarn.VMQuery
		want error
		says string
	}{
		{forewarn.VMQuery{Scope: "nope"}, forewarn.ErrNotFound, `"nope"`},
		{forewarn.VMQuery{Priority: "Cheap"}, forewarn.ErrInvalid, "want Regular or Spot"},
		{forewarn.VMQuery{UpdateDomain: &minus}, forewarn.ErrInvalid, "update domain -1"},
		{forewarn.VMQuery{Limit: -1}, forewarn.ErrInvalid, "limit -1"},
		{forewarn.VMQuery{After: "no/such"}, forewarn.ErrInvalid, `invalid after "no/such"`},
	} {
		_, _, err := h.f.VMs(h.ctx, tc.q)
		if !errors.Is(err, tc.want) || !strings.Contains(forewarn.ErrorMessage(err), tc.says) {
			t.Errorf("%+v: %v; want %v saying %s", tc.q, err, tc.want, tc.says)
		}
	}
}

// listEvents makes events in scopes web and db: user Reboots and
// Redeploys (one approved, so Started), a hardware failure (a Started
// Platform Reboot) and a degraded VM (a Scheduled Platform Redeploy), some
// at the same instant, so that the id breaks the tie. It returns them
// oldest first.
func listEvents(h *harness) []*forewarn.Event {
	h.tb.Helper()
	var events []*forewarn.Event
	for _, s := range []string{"web", "db"} {
		h.scope(forewarn.ScopeSpec{Name: s})
		for i := range 6 {
			h.vm(forewarn.VMSpec{Name: fmt.Sprintf("%s-%d", s, i), Scope: s})
		}
	}
	for i := range 6 {
		for _, s := range []string{"web", "db"} {
			vm := fmt.Sprintf("%s-%d", s, i)
			events = append(events, h.listedEvent(vm, i))
		}
		if i%2 == 0 {
			h.clock.Advance(time.Second)
		}
	}
	slices.SortFunc(events, func(a, b *forewarn.Event) int {
		return cmpEvents(a.CreatedAt, a.ID, b.CreatedAt, b.ID)
	})
	return events
}

// listedEvent makes the i-th kind of event of listEvents on vm.
func (h *harness) listedEvent(vm string, i int) *forewarn.Event {
	h.tb.Helper()
	var e *forewarn.Event
	var err error
	switch i % 4 {
	case 0:
		e = h.operate(vm, forewarn.OpRestart)
	case 1:
		e, err = h.f.Approve(h.ctx, h.operate(vm, forewarn.OpRedeploy).ID)
	case 2:
		e, err = h.f.Fail(h.ctx, vm)
	case 3:
		e, err = h.f.Degrade(h.ctx, vm, 0)
	}
	if err != nil {
		h.tb.Fatalf("event on %s: %v", vm, err)
	}
	return e
}

func cmpEvents(ta time.Time, ia string, tb time.Time, ib string) int {
	if c := ta.Compare(tb); c != 0 {
		return c
	}
	return strings.Compare(ia, ib)
}

// ids returns the ids of events.
func ids(events []*forewarn.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func TestListEventsPagesAndFilters(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	events := listEvents(h)
	queries := []forewarn.EventQuery{
		{},
		{Scope: "WEB"},
		{Type: "reboot"},
		{Status: forewarn.Started},
		{Source: "user", Status: "scheduled"},
		{Scope: "db", Type: forewarn.Redeploy, Source: forewarn.Platform},
		{Type: forewarn.Freeze},
	}
	for _, q := range queries {
		var want []string
		for _, e := range events {
			if (q.Scope == "" || strings.EqualFold(e.Scope, q.Scope)) &&
				(q.Type == "" || strings.EqualFold(string(e.Type), string(q.Type))) &&
				(q.Status == "" || strings.EqualFold(string(e.Status), string(q.Status))) &&
				(q.Source == "" || strings.EqualFold(string(e.Source), string(q.Source))) {
				want = append(want, e.ID)
			}
		}
		for _, limit := range []int{0, 1, 3, len(want)} {
			got, _ := pageAll(t, limit, func(after string) ([]*forewarn.Event, string, error) {
				q.After, q.Limit = after, limit
				return h.f.Events(h.ctx, q)
			})
			if !slices.Equal(ids(got), want) {
				t.Errorf("%+v limit %d:\n got %v\nwant %v", q, limit, ids(got), want)
			}
		}
	}
}

// TestListEventsCursorOutlivesItsEvent: the event a page ended with
// finishes before the next page is asked for, which still begins after it.
func TestListEventsCursorOutlivesItsEvent(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	events := listEvents(h)
	q := forewarn.EventQuery{Source: forewarn.User, Status: forewarn.Scheduled, Limit: 2}
	page, next, err := h.f.Events(h.ctx, q)
	if err != nil || len(page) != 2 || next == "" {
		t.Fatalf("first page %v, next %q, %v", ids(page), next, err)
	}
	if _, err := h.f.Cancel(h.ctx, page[1].ID); err != nil {
		t.Fatal(err)
	}
	q.After, q.Limit = next, 0
	rest, _, err := h.f.Events(h.ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range events {
		if e.Source == forewarn.User && e.Status == forewarn.Scheduled &&
			cmpEvents(e.CreatedAt, e.ID, page[1].CreatedAt, page[1].ID) > 0 {
			want = append(want, e.ID)
		}
	}
	if len(want) == 0 || !slices.Equal(ids(rest), want) {
		t.Fatalf("after the cancelled %s: %v; want %v", page[1].ID, ids(rest), want)
	}
}

func TestListEventsRefusesBadQueries(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	listEvents(h)
	b64 := base64.RawURLEncoding.EncodeToString
	for _, tc := range []struct {
		q    forewarn.EventQuery
		want error
		says string
	}{
		{forewarn.EventQuery{Scope: "nope"}, forewarn.ErrNotFound, `"nope"`},
		{forewarn.EventQuery{Type: "Explode"}, forewarn.ErrInvalid, "want Freeze, Reboot, Redeploy, Preempt or Terminate"},
		{forewarn.EventQuery{Status: "Done"}, forewarn.ErrInvalid, "want Scheduled or Started"},
		{forewarn.EventQuery{Source: "Me"}, forewarn.ErrInvalid, "want Platform or User"},
		{forewarn.EventQuery{Limit: -5}, forewarn.ErrInvalid, "limit -5"},
		{forewarn.EventQuery{After: "web-1"}, forewarn.ErrInvalid, `invalid after "web-1"`},
		{forewarn.EventQuery{After: "%%%"}, forewarn.ErrInvalid, `invalid after "%%%"`},
		{forewarn.EventQuery{After: b64([]byte("no-space"))}, forewarn.ErrInvalid, "invalid after"},
		{forewarn.EventQuery{After: b64([]byte("yesterday 1234"))}, forewarn.ErrInvalid, "invalid after"},
		{forewarn.EventQuery{After: b64([]byte("2026-11-25T10:00:00Z "))}, forewarn.ErrInvalid, "invalid after"},
	} {
		_, _, err := h.f.Events(h.ctx, tc.q)
		if !errors.Is(err, tc.want) || !strings.Contains(forewarn.ErrorMessage(err), tc.says) {
			t.Errorf("%+v: %v; want %v saying %s", tc.q, err, tc.want, tc.says)
		}
	}
}

// FuzzEventCursor: any After is refused as ErrInvalid, or it is a cursor
// that the listing would write back the same.
func FuzzEventCursor(f *testing.F) {
	e := &forewarn.Event{ID: "5b45e5fc-0000-4000-8000-000000000001", CreatedAt: t0}
	for _, seed := range []string{"", cursorOf(e), "web-1", "%%%", "MjAyNi0xMS0yNVQxMDowMDowMFog", "eA"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, after string) {
		c, err := parseEventCursor(after)
		if err != nil {
			if !errors.Is(err, forewarn.ErrInvalid) {
				t.Fatalf("%q: %v, want ErrInvalid", after, err)
			}
			return
		}
		if after == "" {
			return // the first page
		}
		again, err := parseEventCursor(cursorOf(&forewarn.Event{ID: c.id, CreatedAt: c.createdAt}))
		if err != nil || !again.createdAt.Equal(c.createdAt) || again.id != c.id {
			t.Fatalf("%q: %+v written back reads %+v, %v", after, c, again, err)
		}
	})
}
