package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

func (d *driver) compareScopes(s *state) error {
	want := d.m.sortedScopes()
	if len(s.scopes) != len(want) {
		return fmt.Errorf("scopes: the system has %s, the model %s", names(s.scopes, func(x *forewarn.Scope) string { return x.Name }),
			names(want, func(x *mScope) string { return x.Name }))
	}
	for i, got := range s.scopes {
		w := want[i]
		if got.Name != w.Name || got.Kind != w.Kind || got.UpdateDomains != w.UDs || got.FaultDomains != w.FDs ||
			time.Duration(got.TerminateNotice) != w.TN {
			return fmt.Errorf("scope %s: the system has %+v, the model %+v", w.Name, got, w)
		}
		if got.Enabled != d.m.enabled(w) {
			return fmt.Errorf("scope %s: the system shows enabled=%t, the model %t (enabledAt %v, lastSeen %v, seen %v; stored %v, %v)",
				w.Name, got.Enabled, d.m.enabled(w), w.EnabledAt, w.LastSeen, w.seen, got.EnabledAt, got.LastSeen)
		}
	}
	return nil
}

func names[T any](xs []T, name func(T) string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return "[" + strings.Join(out, " ") + "]"
}

func (d *driver) compareVMs(s *state) error {
	var want []*mVM
	for _, vm := range d.m.vms {
		want = append(want, vm)
	}
	slices.SortFunc(want, func(a, b *mVM) int { return cmp.Compare(key(a.Name), key(b.Name)) })
	if len(s.vms) != len(want) {
		return fmt.Errorf("VMs: the system has %s, the model %s", names(s.vms, func(x *forewarn.VM) string { return x.Name }),
			names(want, func(x *mVM) string { return x.Name }))
	}
	for i, got := range s.vms {
		w := want[i]
		if got.Name != w.Name || got.Scope != w.Scope || got.UpdateDomain != w.UD || got.FaultDomain != w.FD ||
			!slices.Equal(got.Addresses, w.Addrs) || got.Priority != w.Priority || got.State != w.State {
			return fmt.Errorf("vm %s: the system has %+v, the model %+v", w.Name, *got, *w)
		}
	}
	return nil
}

func (d *driver) compareEvents(s *state) error {
	want := d.m.eventsOf("")
	if len(s.events) != len(want) {
		return fmt.Errorf("events in flight: the system has %s, the model %s",
			names(s.events, func(x *forewarn.Event) string { return x.ID + "(" + string(x.Type) + "," + string(x.Status) + ")" }),
			names(want, func(x *mEvent) string { return x.ID + "(" + string(x.Type) + "," + string(x.Status) + ")" }))
	}
	for i, got := range s.events {
		if err := sameEvent("event", got, &want[i].Event, d.m.handover(want[i])); err != nil {
			return err
		}
	}
	return nil
}

// sameEvent compares an event of the system with the model's. The order
// of Actuated and Failed is the order the runs ended in, which the model
// does not know.
func sameEvent(what string, got, want *forewarn.Event, handover bool) error {
	sorted := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = key(x)
		}
		slices.Sort(out)
		return out
	}
	diff := func(field string, g, w any) error {
		return fmt.Errorf("%s %s (%s in %s): %s is %v, the model says %v", what, want.ID, want.Type, want.Scope, field, g, w)
	}
	switch {
	case got.ID != want.ID:
		return diff("id", got.ID, want.ID)
	case got.Type != want.Type:
		return diff("type", got.Type, want.Type)
	case got.Status != want.Status:
		return diff("status", got.Status, want.Status)
	case got.Scope != want.Scope:
		return diff("scope", got.Scope, want.Scope)
	case !slices.Equal(got.Resources, want.Resources):
		return diff("resources", got.Resources, want.Resources)
	case !slices.Equal(got.Deleted, want.Deleted):
		return diff("deleted", got.Deleted, want.Deleted)
	case got.Source != want.Source || got.Description != want.Description || got.DurationInSeconds != want.DurationInSeconds:
		return diff("source, description or duration", fmt.Sprint(got.Source, got.Description, got.DurationInSeconds),
			fmt.Sprint(want.Source, want.Description, want.DurationInSeconds))
	case got.Operation != want.Operation || got.Campaign != want.Campaign:
		return diff("operation or campaign", got.Operation+"/"+forewarn.Operation(got.Campaign), want.Operation+"/"+forewarn.Operation(want.Campaign))
	case !got.NotBefore.Equal(want.NotBefore):
		return diff("NotBefore", got.NotBefore, want.NotBefore)
	case !got.CreatedAt.Equal(want.CreatedAt):
		return diff("CreatedAt", got.CreatedAt, want.CreatedAt)
	case got.ApprovedBy != want.ApprovedBy || !got.ApprovedAt.Equal(want.ApprovedAt):
		return diff("approval", fmt.Sprint(got.ApprovedBy, " ", got.ApprovedAt), fmt.Sprint(want.ApprovedBy, " ", want.ApprovedAt))
	case !got.StartedAt.Equal(want.StartedAt):
		return diff("StartedAt", got.StartedAt, want.StartedAt)
	case !handover && !got.EndsAt.Equal(want.EndsAt):
		return diff("EndsAt", got.EndsAt, want.EndsAt)
	case !slices.Equal(sorted(got.Actuated), sorted(want.Actuated)) || !slices.Equal(sorted(got.Failed), sorted(want.Failed)):
		return diff("actuated/failed", fmt.Sprint(got.Actuated, got.Failed), fmt.Sprint(want.Actuated, want.Failed))
	case got.Outcome != want.Outcome:
		return diff("outcome", got.Outcome, want.Outcome)
	case !got.EndedAt.Equal(want.EndedAt):
		return diff("EndedAt", got.EndedAt, want.EndedAt)
	}
	return nil
}

func (d *driver) compareCampaigns(s *state) error {
	want := slices.Clone(d.m.campaigns)
	slices.Reverse(want) // newest first, as listed
	if len(s.campaigns) != len(want) {
		return fmt.Errorf("campaigns: the system has %d, the model %d", len(s.campaigns), len(want))
	}
	for i, got := range s.campaigns {
		if err := sameCampaign("campaign", got, want[i]); err != nil {
			return err
		}
	}
	return nil
}

// sameCampaign compares a campaign of the system with the model's.
func sameCampaign(what string, got, w *forewarn.Campaign) error {
	if got.ID != w.ID || got.State != w.State || len(got.Scopes) != len(w.Scopes) ||
		got.Description != w.Description || got.DurationInSeconds != w.DurationInSeconds {
		return fmt.Errorf("%s %s: the system has %s with %d scopes, the model %s with %d", what, w.ID, got.State, len(got.Scopes), w.State, len(w.Scopes))
	}
	for j, p := range got.Scopes {
		// Waiting names the VM waited for, as of the last advance: the
		// fabric advances when an event ends, the model at every Tick.
		q := w.Scopes[j]
		if (p.Waiting == "") != (q.Waiting == "") {
			return fmt.Errorf("%s %s (%s), scope %s: the system's progress is %+v, the model's %+v", what, w.ID, w.Spec.Type, p.Scope, p, q)
		}
		p.Waiting, q.Waiting = "", ""
		if fmt.Sprint(p) != fmt.Sprint(q) {
			return fmt.Errorf("%s %s (%s), scope %s: the system's progress is %+v, the model's %+v", what, w.ID, w.Spec.Type, p.Scope, got.Scopes[j], w.Scopes[j])
		}
	}
	return nil
}

func (d *driver) compareChaos(s *state) error {
	want := d.m.rulesInForce()
	got := names(s.chaos, func(r *forewarn.ChaosRule) string { return r.ID })
	if w := names(want, func(r *forewarn.ChaosRule) string { return r.ID }); got != w {
		return fmt.Errorf("chaos rules in force: the system has %s, the model %s", got, w)
	}
	return nil
}

// compareHistory checks the events that ended since the last check, or
// the whole history: nothing acknowledged is lost.
func (d *driver) compareHistory(s *state, full bool) error {
	n := d.m.ended
	if full {
		n = len(d.m.history)
	}
	d.m.ended = 0
	if len(s.history) < n {
		return fmt.Errorf("history: the system has %d entries, the model %d more ended", len(s.history), n)
	}
	got := slices.Clone(s.history[:n])
	want := slices.Clone(d.m.history[len(d.m.history)-n:])
	byID := func(a, b *forewarn.Event) int { return cmp.Compare(a.ID, b.ID) }
	slices.SortFunc(got, byID)
	slices.SortFunc(want, byID)
	for i := range got {
		if err := sameEvent("history entry", got[i], want[i], true); err != nil {
			return err
		}
	}
	return nil
}

// checkHistoryPages lists the whole history through the admin API a page
// at a time, each page after the cursor of the one before: the pages
// together are the model's history, newest first. The cursor of the first
// page is kept: listed again at a later check, after more events ended, it
// must list the same events it listed first (new ones go to the front).
// A cursor no page returned is refused.
func (d *driver) checkHistoryPages() error {
	want := slices.Clone(d.m.history)
	slices.Reverse(want)
	limit := max(2, len(want)/3+d.step%3) // a few pages: each after the first reads the whole history
	var got []*forewarn.Event
	var firstNext string
	for after, pages := "", 0; ; pages++ {
		page, next, err := d.w.fleet.HistoryPage(d.ctx, forewarn.HistoryQuery{After: after, Limit: limit})
		if err != nil {
			return fmt.Errorf("history page %d (after %q): %w", pages, after, err)
		}
		if len(page) > limit || (next != "" && len(page) < limit) {
			return fmt.Errorf("history page %d: %d events, limit %d, next %q", pages, len(page), limit, next)
		}
		if pages == 0 {
			firstNext = next
		}
		got = append(got, page...)
		if after = next; next == "" || pages > len(want)+1 {
			break
		}
	}
	if err := sameHistory("history pages", got, want); err != nil {
		return err
	}
	if d.histCursor != "" {
		rest, next, err := d.w.fleet.HistoryPage(d.ctx, forewarn.HistoryQuery{After: d.histCursor})
		if err != nil {
			return fmt.Errorf("history after an earlier cursor: %w", err)
		}
		if next != "" {
			return fmt.Errorf("history after an earlier cursor, no limit: next %q", next)
		}
		if err := sameHistory("history after an earlier cursor", rest, d.histRest); err != nil {
			return err
		}
	}
	d.histCursor = firstNext
	d.histRest = nil
	if firstNext != "" {
		d.histRest = want[limit:]
	}
	_, _, err := d.w.fleet.HistoryPage(d.ctx, forewarn.HistoryQuery{After: "bm90IGEgY3Vyc29y"})
	return expect("history after a cursor no page returned", err, forewarn.ErrInvalid)
}

// sameHistory compares listed history entries, newest first, with the
// model's. Events that ended at the same moment may be listed in any
// order among themselves.
func sameHistory(what string, got, want []*forewarn.Event) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d entries, the model has %d", what, len(got), len(want))
	}
	for i := 1; i < len(got); i++ {
		if got[i].EndedAt.After(got[i-1].EndedAt) {
			return fmt.Errorf("%s: %s ended at %v, after %s listed before it (%v)", what, got[i].ID, got[i].EndedAt, got[i-1].ID, got[i-1].EndedAt)
		}
	}
	order := func(a, b *forewarn.Event) int { return cmp.Or(b.EndedAt.Compare(a.EndedAt), cmp.Compare(a.ID, b.ID)) }
	got, want = slices.Clone(got), slices.Clone(want)
	slices.SortStableFunc(got, order)
	slices.SortStableFunc(want, order)
	for i := range got {
		if err := sameEvent(what+" entry", got[i], want[i], true); err != nil {
			return err
		}
	}
	return nil
}
