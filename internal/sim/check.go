package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// state is what the system shows after a step, read through the fabric.
type state struct {
	scopes    []*forewarn.Scope
	vms       []*forewarn.VM
	events    []*forewarn.Event
	campaigns []*forewarn.Campaign
	chaos     []*forewarn.ChaosRule
	history   []*forewarn.Event
}

func (d *driver) read(fl forewarn.Fleet, historyLimit int, page int, campaigns, chaos bool) (*state, error) {
	ctx := d.ctx
	var s state
	var err error
	if s.scopes, err = fl.Scopes(ctx); err != nil {
		return nil, fmt.Errorf("scopes: %w", err)
	}
	for after := ""; ; {
		vms, next, err := fl.VMs(ctx, forewarn.VMQuery{After: after, Limit: page})
		if err != nil {
			return nil, fmt.Errorf("vms: %w", err)
		}
		s.vms = append(s.vms, vms...)
		if after = next; next == "" {
			break
		}
	}
	for after := ""; ; {
		events, next, err := fl.Events(ctx, forewarn.EventQuery{After: after, Limit: page})
		if err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		s.events = append(s.events, events...)
		if after = next; next == "" {
			break
		}
	}
	if campaigns {
		if s.campaigns, err = fl.Campaigns(ctx); err != nil {
			return nil, fmt.Errorf("campaigns: %w", err)
		}
	}
	if chaos {
		if s.chaos, err = fl.Chaos(ctx); err != nil {
			return nil, fmt.Errorf("chaos: %w", err)
		}
	}
	if s.history, err = fl.History(ctx, historyLimit); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &s, nil
}

// checkAll compares the system with the model and checks the invariants;
// full also compares the whole history, and the admin API's listings,
// page by page, with the fabric's.
func (d *driver) checkAll(full bool) error {
	limit := d.m.ended + 1
	if full {
		limit = 10000 // the most the admin API lists; a run ends fewer
	}
	// Campaigns are many by the end of a run: they are read when the
	// model's changed, and every 16 steps.
	fp := fmt.Sprint(len(d.m.campaigns))
	for _, c := range d.m.campaigns {
		if !c.Ended() || c.EndedAt.Equal(d.m.now) {
			fp += c.ID + progress(c)
		}
	}
	campaigns := full || d.step%16 == 0 || fp != d.campaignsSeen
	d.campaignsSeen = fp
	// So are chaos rules, which change seldom.
	cfp := fmt.Sprint(len(d.m.rulesInForce()), len(d.m.chaos))
	chaos := full || d.step%16 == 0 || cfp != d.chaosSeen
	d.chaosSeen = cfp
	s, err := d.read(d.w.fab, limit, 0, campaigns, chaos)
	if err != nil {
		return err
	}
	if full || d.step%32 == 0 {
		h, err := d.read(d.w.fleet, limit, 2+d.step%5, true, true)
		if err != nil {
			return fmt.Errorf("admin API: %w", err)
		}
		if err := sameState(h, s); err != nil {
			return fmt.Errorf("the admin API's listings and the fabric's differ: %w", err)
		}
	}
	if full || d.step%64 == 0 {
		if err := d.checkHistoryPages(); err != nil {
			return fmt.Errorf("admin API: %w", err)
		}
	}
	for _, check := range []func(*state) error{
		d.compareScopes, d.compareVMs, d.compareEvents,
		func(s *state) error {
			if !chaos {
				return nil
			}
			return d.compareChaos(s)
		},
		func(s *state) error {
			if !campaigns {
				return nil
			}
			return d.compareCampaigns(s)
		},
		func(s *state) error { return d.compareHistory(s, full) },
		func(s *state) error { return d.checkDocuments(s, full) }, d.checkIncarnations, d.checkPublisher, d.checkStarts, d.checkEnds, d.checkCampaignWalk,
	} {
		if err := check(s); err != nil {
			return err
		}
	}
	return nil
}

// sameState compares two readings of the system by their JSON.
func sameState(a, b *state) error {
	for _, pair := range [][2]any{{a.scopes, b.scopes}, {a.vms, b.vms}, {a.events, b.events},
		{a.campaigns, b.campaigns}, {a.chaos, b.chaos}, {a.history, b.history}} {
		x, _ := json.Marshal(pair[0])
		y, _ := json.Marshal(pair[1])
		if string(x) != string(y) && string(x)+string(y) != "[]null" && string(x)+string(y) != "null[]" {
			return fmt.Errorf("\n  %s\n  %s", x, y)
		}
	}
	return nil
}

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

// ---- documents

// wireDoc is a document as a VM reads it.
type wireDoc struct {
	DocumentIncarnation int64
	Events              []wireEvent
}

type wireEvent struct {
	EventId, EventType, ResourceType string
	Resources                        []string
	EventStatus, NotBefore           string
	Description                      *string `json:",omitempty"`
	EventSource                      *string `json:",omitempty"`
	DurationInSeconds                *int    `json:",omitempty"`
}

// render is the JSON of a document, compact, as the wire has it.
func render(doc wireDoc) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc)
	return strings.TrimSuffix(b.String(), "\n")
}

// versionTypes are the event types each api-version shows.
func versionShows(version string, t forewarn.EventType) bool {
	switch t {
	case forewarn.Preempt:
		return version >= "2017-11-01"
	case forewarn.Terminate:
		return version >= "2019-01-01"
	}
	return true
}

// wantDocument is the document the model says a VM of the scope gets.
func (d *driver) wantDocument(scope, version string) []wireEvent {
	out := []wireEvent{}
	for _, e := range d.m.eventsOf(scope) {
		if !versionShows(version, e.Type) {
			continue
		}
		nb := ""
		if e.Status == forewarn.Scheduled {
			nb = ceilSecond(e.NotBefore).UTC().Format(http.TimeFormat)
		}
		we := wireEvent{EventId: e.ID, EventType: string(e.Type), ResourceType: "VirtualMachine",
			EventStatus: string(e.Status), NotBefore: nb, Resources: e.Resources}
		if version >= "2019-04-01" {
			we.Description = &e.Description
		}
		if version >= "2019-08-01" {
			src := string(e.Source)
			we.EventSource = &src
		}
		if version >= "2020-07-01" {
			we.DurationInSeconds = &e.DurationInSeconds
		}
		out = append(out, we)
	}
	return out
}

// checkDocument compares a document a VM got with the model's.
func (d *driver) checkDocument(vm *mVM, version string, body []byte, what string) error {
	var doc wireDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("%s: vm %s: %v: %s", what, vm.Name, err, body)
	}
	got, _ := json.Marshal(doc.Events)
	want, _ := json.Marshal(d.wantDocument(vm.Scope, version))
	if string(got) != string(want) {
		return fmt.Errorf("%s: vm %s of scope %s (api-version %s) shows\n  %s\nthe model says\n  %s", what, vm.Name, vm.Scope, version, got, want)
	}
	return nil
}

// checkDocuments asks the observer, for every address a run uses, what
// the VM that has it sees: its scope's events, and nothing for an address
// no VM has.
func (d *driver) checkDocuments(s *state, full bool) error {
	incs := map[string]int64{}
	for _, sc := range s.scopes {
		incs[key(sc.Name)] = sc.Incarnation
	}
	rendered := map[string]string{} // by scope: the document the model expects
	checked := map[string]bool{}    // scopes a VM of which was asked
	for _, addr := range append(slices.Clone(addrPool), defaultAddrs...) {
		// Every address every 8 steps; else one VM of each scope, and the
		// addresses whose VM changed.
		o := d.m.owner(addr)
		owner := ""
		if o != nil {
			owner = key(o.Scope) + "/" + key(o.Name)
		}
		changed := d.owners[addr] != owner
		d.owners[addr] = owner
		if !full && d.step%8 != 0 && !changed && (o == nil || checked[key(o.Scope)]) {
			continue
		}
		if o != nil {
			checked[key(o.Scope)] = true
		}
		r := httptest.NewRequest(http.MethodGet, "/metadata/scheduledevents?api-version=2020-07-01", nil)
		r.RemoteAddr = remote(addr)
		r.Header.Set("Metadata", "true")
		w := httptest.NewRecorder()
		d.w.obs.ServeHTTP(w, r)
		vm := d.m.owner(addr)
		if vm == nil {
			if w.Code != http.StatusForbidden {
				return fmt.Errorf("document: %s, which no VM has, is answered %d %s", addr, w.Code, w.Body)
			}
			continue
		}
		if w.Code != http.StatusOK {
			return fmt.Errorf("document: vm %s (%s) is answered %d %s", vm.Name, addr, w.Code, w.Body)
		}
		want, ok := rendered[key(vm.Scope)]
		if !ok {
			want = render(wireDoc{DocumentIncarnation: incs[key(vm.Scope)], Events: d.wantDocument(vm.Scope, "2020-07-01")})
			rendered[key(vm.Scope)] = want
		}
		if w.Body.String() == want {
			continue // the quick way; else compare what it says
		}
		if err := d.checkDocument(vm, "2020-07-01", w.Body.Bytes(), "document"); err != nil {
			return err
		}
		var doc wireDoc
		_ = json.Unmarshal(w.Body.Bytes(), &doc)
		if inc := incs[key(vm.Scope)]; doc.DocumentIncarnation != inc {
			return fmt.Errorf("document: vm %s shows incarnation %d, the admin API %d for scope %s", vm.Name, doc.DocumentIncarnation, inc, vm.Scope)
		}
	}
	return nil
}

// checkIncarnations follows every scope's incarnation and events, as
// listed, from step to step.
func (d *driver) checkIncarnations(s *state) error {
	for _, sc := range s.scopes {
		var shown []string
		for _, e := range s.events {
			if forewarn.SameName(e.Scope, sc.Name) {
				shown = append(shown, eventKey(e)+"/"+e.Description+"/"+string(e.Source)+"/"+strconv.Itoa(e.DurationInSeconds))
			}
		}
		if err := d.obs.document(d.m.scopes[key(sc.Name)], sc.Incarnation, strings.Join(shown, "\n")); err != nil {
			return err
		}
	}
	return nil
}

// eventKey is what a document shows of an event, but its texts.
func eventKey(e *forewarn.Event) string {
	return e.ID + "/" + string(e.Type) + "/" + string(e.Status) + "/" + strings.Join(e.Resources, ",") + "/" +
		strconv.FormatInt(e.NotBefore.Unix(), 10)
}

// checkPublisher checks that what the fabric published last agrees with
// what it lists.
func (d *driver) checkPublisher(s *state) error {
	snaps, faults := d.w.rec.take()
	if len(faults) > 0 {
		return fmt.Errorf("%s", faults[0])
	}
	if len(snaps) != len(s.scopes) {
		return fmt.Errorf("publisher: %d scopes published, %d listed", len(snaps), len(s.scopes))
	}
	for _, sc := range s.scopes {
		snap := snaps[key(sc.Name)]
		if snap == nil {
			return fmt.Errorf("publisher: scope %s is listed, not published", sc.Name)
		}
		if snap.Scope.Incarnation != sc.Incarnation {
			return fmt.Errorf("publisher: scope %s published at incarnation %d, listed at %d", sc.Name, snap.Scope.Incarnation, sc.Incarnation)
		}
		var listed []string
		for _, e := range s.events {
			if forewarn.SameName(e.Scope, sc.Name) {
				listed = append(listed, eventKey(e))
			}
		}
		var published []string
		for _, e := range snap.Events {
			published = append(published, eventKey(e))
		}
		if !slices.Equal(listed, published) {
			return fmt.Errorf("publisher: scope %s published with events %v, listed with %v", sc.Name, published, listed)
		}
		var vms, pvms []string
		for _, vm := range s.vms {
			if forewarn.SameName(vm.Scope, sc.Name) {
				vms = append(vms, vm.Name+"/"+strings.Join(vm.Addresses, ",")+"/"+string(vm.State))
			}
		}
		for _, vm := range snap.VMs {
			pvms = append(pvms, vm.Name+"/"+strings.Join(vm.Addresses, ",")+"/"+string(vm.State))
		}
		if !slices.Equal(vms, pvms) {
			return fmt.Errorf("publisher: scope %s published with VMs %v, listed with %v", sc.Name, pvms, vms)
		}
	}
	return nil
}

// ---- invariants that do not lean on the model's predictions

// observations are what the invariants remember from step to step.
type observations struct {
	maxInc    map[string]int64  // scope name -> highest incarnation seen
	docAt     map[string]string // scope name@incarnation -> its document
	last      map[string]seenDoc
	scheduled map[string]time.Time // event -> NotBefore while Scheduled
	seen      map[string]bool      // events seen
	walked    map[string]int       // campaign/scope -> update domain of its last event
	walkEvent map[string]string    // campaign/scope -> that event
}

type seenDoc struct {
	scope *mScope
	inc   int64
	doc   string
}

func newObservations() *observations {
	return &observations{maxInc: map[string]int64{}, docAt: map[string]string{}, last: map[string]seenDoc{},
		scheduled: map[string]time.Time{}, seen: map[string]bool{}, walked: map[string]int{}, walkEvent: map[string]string{}}
}

// document checks a scope's document against the ones seen before: its
// incarnation never goes down, one incarnation never shows two event sets,
// and it changes when and only when the events do.
func (o *observations) document(s *mScope, inc int64, doc string) error {
	k := key(s.Name)
	body := doc
	if inc < o.maxInc[k] {
		return fmt.Errorf("incarnation: scope %s shows %d after %d", s.Name, inc, o.maxInc[k])
	}
	o.maxInc[k] = inc
	at := fmt.Sprintf("%s@%d", k, inc)
	if prev, ok := o.docAt[at]; ok && prev != body {
		return fmt.Errorf("incarnation: scope %s shows two event sets at incarnation %d:\n  %s\n  %s", s.Name, inc, prev, body)
	}
	o.docAt[at] = body
	if l, ok := o.last[k]; ok && l.scope == s && l.doc == body && l.inc != inc {
		return fmt.Errorf("incarnation: scope %s went from %d to %d with no change of its events: %s", s.Name, l.inc, inc, body)
	}
	o.last[k] = seenDoc{scope: s, inc: inc, doc: body}
	return nil
}

// checkStarts: no event starts before its NotBefore unless approved, except
// one created Started (a hardware failure, or a scope with no notice); a
// scope whose VMs asked within the window gives notice, one whose VMs did
// not gives none.
func (d *driver) checkStarts(s *state) error {
	for _, e := range s.events {
		first := !d.obs.seen[e.ID]
		d.obs.seen[e.ID] = true
		scope := d.m.scopes[key(e.Scope)]
		if e.Status == forewarn.Scheduled {
			d.obs.scheduled[e.ID] = e.NotBefore
			if first && !d.m.conf.AlwaysEnabled && (scope.asked.IsZero() || d.m.now.Sub(scope.asked) >= idle) {
				return fmt.Errorf("notice: event %s (%s) in scope %s gives notice, though no VM of the scope asked within %s (last %v)",
					e.ID, e.Type, e.Scope, idle, scope.asked)
			}
			continue
		}
		if nb, ok := d.obs.scheduled[e.ID]; ok && e.StartedAt.Before(nb) && e.ApprovedBy == "" {
			return fmt.Errorf("early start: event %s (%s) started at %v, before its NotBefore %v, unapproved", e.ID, e.Type, e.StartedAt, nb)
		}
		if !first || e.ApprovedBy != "" || e.Operation == forewarn.OpFail || !e.StartedAt.Equal(e.CreatedAt) {
			continue
		}
		if _, ok := d.obs.scheduled[e.ID]; ok {
			continue
		}
		if d.m.conf.AlwaysEnabled {
			return fmt.Errorf("notice: event %s (%s) in scope %s started at once, though every scope gets notice (--dev)", e.ID, e.Type, e.Scope)
		}
		if !scope.asked.IsZero() && d.m.now.Sub(scope.asked) < idle && scope.asked.After(d.m.restartedAt) {
			return fmt.Errorf("notice: event %s (%s) in scope %s started at once, though a VM of the scope asked at %v, within %s",
				e.ID, e.Type, e.Scope, scope.asked, idle)
		}
	}
	return nil
}

// checkEnds: every Started event ends within its impact plus the
// actuator's retry bound, counted from its start or the last restart or
// retry after it; one whose actuator failed for good waits for the admin.
func (d *driver) checkEnds(s *state) error {
	for _, e := range s.events {
		me := d.m.events[e.ID]
		if e.Status != forewarn.Started || me == nil {
			continue
		}
		held := len(e.Failed) > 0 && !slices.ContainsFunc(e.Resources, func(r string) bool {
			return !containsName(e.Actuated, r) && !containsName(e.Failed, r)
		})
		bound := me.clockFrom.Add(impactOf(e) + actBound + time.Second)
		if !held && d.m.now.After(bound) {
			return fmt.Errorf("stuck: event %s (%s in %s) started at %v and has not ended at %v (actuated %v, failed %v, ends at %v)",
				e.ID, e.Type, e.Scope, e.StartedAt, d.m.now, e.Actuated, e.Failed, e.EndsAt)
		}
	}
	return nil
}

// checkCampaignWalk: a campaign schedules one event per update domain of a
// scope, in order, one at a time; and a scope is in maintenance in one
// update domain at a time.
func (d *driver) checkCampaignWalk(s *state) error {
	inFlight := map[string]string{}
	domains := map[string]map[int]bool{}
	for _, e := range s.events {
		if e.Campaign == "" {
			continue
		}
		ud := -1
		for _, r := range e.Resources {
			vm := d.m.vms[key(r)]
			if vm == nil {
				continue
			}
			if ud >= 0 && vm.UD != ud {
				return fmt.Errorf("campaign %s: event %s hits update domains %d and %d of scope %s", e.Campaign, e.ID, ud, vm.UD, e.Scope)
			}
			ud = vm.UD
		}
		k := e.Campaign + "/" + key(e.Scope)
		if other, ok := inFlight[k]; ok {
			return fmt.Errorf("campaign %s: two events in flight in scope %s: %s and %s", e.Campaign, e.Scope, other, e.ID)
		}
		inFlight[k] = e.ID
		if d.obs.walkEvent[k] != e.ID {
			if last, ok := d.obs.walked[k]; ok && ud <= last && !d.scopeRecreated(e) {
				return fmt.Errorf("campaign %s: event %s walks update domain %d of scope %s after %d", e.Campaign, e.ID, ud, e.Scope, last)
			}
			d.obs.walked[k], d.obs.walkEvent[k] = ud, e.ID
		}
		if domains[key(e.Scope)] == nil {
			domains[key(e.Scope)] = map[int]bool{}
		}
		domains[key(e.Scope)][ud] = true
		if len(domains[key(e.Scope)]) > 1 && !d.opts.CampaignsMayOverlap {
			return fmt.Errorf("campaigns: scope %s has platform maintenance in update domains %v at once", e.Scope, domains[key(e.Scope)])
		}
	}
	return nil
}

// scopeRecreated reports whether an event's scope was created after the
// campaign's previous event there: the campaign goes on by name.
func (d *driver) scopeRecreated(e *forewarn.Event) bool {
	s := d.m.scopes[key(e.Scope)]
	c := d.m.campaign(e.Campaign)
	return s != nil && c != nil && s.CreatedAt.After(c.CreatedAt)
}
